"""A hill start: engine, clutch engaged on a ramp of normal force, lossy gearbox, vehicle on a
grade (the driveline example of ``examples/driveline.py``; issue 41).

Parts and data (SI units)::

    engineTorque -- engine (J = 0.15 kg.m2, starts at 105 rad/s, about 1000 rpm)
      engine torque at full load from the table TORQUE_CURVE against the engine speed
      [rad/s -> N.m] (table_value: linear, falls to 0 at 620 rad/s, so the engine cannot
      overspeed)
    clutch (Clutch: mu_pos [[0, 0.35], [100, 0.3]], peak 1.1, cgeo 0.12 m, fn_max 6000 N;
      static capacity 1.1*0.35*0.12*6000 = 277 N.m, above the engine's 190 N.m)
      f_normalized from pedal (event_sources.Ramp: 0 until 0.3 s, then to 1 in 1.5 s)
    gearInput (Inertia J = 0.02 kg.m2: the gearbox input shaft and clutch disc)
    gearbox (LossyGear: ratio 12, first gear times final drive; mesh efficiencies 0.96
      driving, 0.95 driven, bearing friction 1 N.m at rest rising to 2 N.m at 600 rad/s)
    vehicle (Vehicle: 1300 kg, wheel radius 0.31 m, Cd A = 0.32*2.2 m2, Cr 0.012, the grade
      inclinationConstant = tan(angle), 8 %), starting at rest

Energy accounting (states of the model, exact up to the solver's tolerance)::

    der(W_engine) = engineTorque power = tau_engine * engine.w
    der(E_clutch) = clutch.lossPower;   der(E_gear) = gearbox.lossPower
    der(E_road)   = (fDrag + fRoll) * vehicle.v
    W_engine = Delta(KE engine + gearInput + vehicle) + Delta(PE = m g sin(atan(grade)) s)
               + E_clutch + E_gear + E_road

Before the clutch bites the vehicle rolls back a little (the gearbox is not self-locking); the
clutch slips while the engine pulls the vehicle up to the engine's speed and locks when the slip
reaches zero (its mode goes from sliding to stuck, 0).
"""

from __future__ import annotations

from acausal import Component, Eq, Variable, connect, der

from . import rotational
from .clutches import Clutch
from .event_sources import Ramp
from .lossy_gear import LossyGear
from .tables import table_value
from .translational_parts import Vehicle

#: engine torque at full load [[speed rad/s, torque N.m], ...]
TORQUE_CURVE = ((0.0, 0.0), (50.0, 120.0), (100.0, 160.0), (300.0, 190.0), (500.0, 170.0),
                (620.0, 0.0))
#: the gearbox's MSL loss table [[|w_a| rad/s, eta_mf1, eta_mf2, tau_bf1 N.m, tau_bf2 N.m]]
GEAR_LOSSES = ((0.0, 0.96, 0.95, 1.0, 1.0), (600.0, 0.96, 0.95, 2.0, 2.0))
#: the clutch's friction coefficient against the slip speed [[rad/s, 1], ...] (constant past
#: the last row: extrapolated through two equal values)
MU_POS = ((0.0, 0.35), (100.0, 0.3), (1000.0, 0.3))
#: engine speed at the start [rad/s]
ENGINE_SPEED = 105.0


class HillStart(Component):
    """Engine, clutch on a pedal ramp, lossy gearbox and vehicle on a grade (module
    docstring); the grade is ``vehicle.inclinationConstant`` (tan(angle), 0.08), a parameter
    that ``params=`` changes without recompiling."""

    engine = rotational.Inertia(J=0.15, phi=Variable(start=0.0, fixed=True),
                                w=Variable(start=ENGINE_SPEED, fixed=True))
    engineTorque = rotational.Torque()
    pedal = Ramp(height=1.0, duration=1.0, start_time=0.3)
    throttle = Ramp(offset=0.3, height=0.7, duration=1.5, start_time=0.3)
    clutch = Clutch(mu_pos=MU_POS, peak=1.1, cgeo=0.12, fn_max=6000.0)
    gearInput = rotational.Inertia(J=0.02)
    gearbox = LossyGear(ratio=12.0, lossTable=GEAR_LOSSES)
    vehicle = Vehicle(m=1300.0, J=0.0, R=0.31, A=2.2, Cd=0.32, CrConstant=0.012,
                      inclinationConstant=0.08, s=Variable(start=0.0, fixed=True),
                      v=Variable(start=0.0, fixed=True))
    W_engine = Variable(start=0.0, fixed=True, unit="J", description="work of the engine")
    E_clutch = Variable(start=0.0, fixed=True, unit="J", description="heat of the clutch")
    E_gear = Variable(start=0.0, fixed=True, unit="J", description="heat of the gearbox")
    E_road = Variable(start=0.0, fixed=True, unit="J", description="work of drag and rolling "
                      "resistance")

    def equations(self):
        v = self.vehicle
        return [Eq(self.engineTorque.tau,
                   self.throttle.y.u * table_value(TORQUE_CURVE, self.engine.w)),
                Eq(der(self.W_engine), self.engineTorque.tau * self.engine.w),
                Eq(der(self.E_clutch), self.clutch.lossPower),
                Eq(der(self.E_gear), self.gearbox.lossPower),
                Eq(der(self.E_road), (v.fDrag + v.fRoll) * v.v)]

    def connections(self):
        return [connect(self.engineTorque.flange, self.engine.flange_a),
                connect(self.engine.flange_b, self.clutch.flange_a),
                connect(self.pedal.y, self.clutch.f_normalized),
                connect(self.clutch.flange_b, self.gearInput.flange_a),
                connect(self.gearInput.flange_b, self.gearbox.flange_a),
                connect(self.gearbox.flange_b, self.vehicle.flangeR)]
