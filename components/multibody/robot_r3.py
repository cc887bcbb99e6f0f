"""MultiBody's six-axis robot r3 (``Modelica.Mechanics.MultiBody.Examples.Systems.RobotR3``,
MSL 4.0, git revision bd753330a, the revision the Dymola reference results were made with):
path planning, per axis a P-PI cascade controller, a DC motor with its analog current
controller, a gearbox with elasticity and bearing friction, and the mechanical structure.

* :class:`BearingFriction` - ``Rotational.Components.BearingFriction`` (two flanges, support
  fixed): the exact stick/slip friction of :mod:`acausal.components.friction`;
* :class:`GearType1` (axes 1-3: gear elasticity, friction on the motor side) and
  :class:`GearType2` (axes 4-6: rigid, friction on the load side);
* :class:`Motor` - the motor with current controller (operational amplifiers, an EMF);
* :class:`Controller` - the P (position) - PI (speed) cascade controller of one axis;
* :class:`AxisType1`, :class:`AxisType2` - controller, motor and gear of one axis;
* :class:`MechanicalStructure` - the six revolute joints with their bodies and the load;
* :class:`PathPlanning6` - the reference motion (``Blocks.Sources.KinematicPTP2``);
* :class:`FullRobot` and :class:`OneAxis` - the examples.

Names, parameters, topology and start values are MSL's, so that result columns such as
``axis1.controller.PI.x``, ``axis2.gear.spring.phi_rel``, ``axis3.motor.La.i`` or
``mechanics.r1.phi`` have the same meaning in both tools. The parameters of the composite
parts (``kp``, ``ratio``, ``Rv0``, ``mLoad``, ...) are structural: they are passed to the
parts when the model is built (the parts' own parameters, e.g. ``axis1.controller.PI.k``, stay
run-time parameters).

Differences to the Modelica models:

* The expandable connectors ``ControlBus`` and ``AxisControlBus`` have no counterpart: they are
  replaced by direct connections. An axis has the inputs ``angle_ref`` and ``speed_ref`` (bus
  members of the same names); the controller has the inputs ``angle_ref``, ``speed_ref``,
  ``motorAngle``, ``motorSpeed`` and the output ``current_ref``; the motor has the input
  ``current_ref`` and the outputs ``motorAngle``, ``motorSpeed``, ``current``. The axis
  sensors (``angleSensor``, ``speedSensor``, ``accSensor``) are kept; their outputs (bus
  members nobody reads) stay open. ``PathToAxisControlBus`` and the Boolean signals
  (``moving``, ``motion_ref``) are left out.
* ``PathPlanning6.terminateSimulation`` (stop at ``path.endTime + swingTime``) is the property
  :attr:`FullRobot.stopTime` (1.856 s with the default parameters): simulate up to it.
* Initial state. MSL initialises each axis with ``InitializeFlange`` (joint angle, speed and
  acceleration ``a = 0`` from the reference), the motor in steady state (``der(C.v) = 0``,
  ``der(La.i) = 0``) and, in GearType1, the spring at rest (``w_rel = 0``, ``a_rel = 0``).
  The bearing friction starts stuck (MSL: ``mode`` Unknown, ``w = 0``: ``locked``); stuck, it
  holds the motor (GearType1) or the joint (GearType2) at rest, so ``a = 0`` is implied and the
  friction torque is left undetermined (the initial system is singular). Dymola's result has
  friction torque 0 at t = 0 (axis 2: ``k*La.i*ratio`` equals the spring torque; the
  Newton iteration keeps the friction's path parameter ``sa`` at its start value 0). Here the
  equation ``der(w) = a_start`` is replaced by ``gear.bearingFriction.sa = 0``
  (``initializeFlange.use_a_start=False``; MSL's ``const`` (k = 0) feeding ``a_start`` is left
  out).
* The friction's ``tau_pos`` table must be linear (two rows, the first at w = 0), as in all
  robot gears: MSL's linear interpolation with extrapolation LastTwoPoints is then
  ``tau = tau_pos[0][1] + slope*w``.
* Animation parameters (shapes, ``animation``) are left out; MultiBody's ``BodyShape`` has a
  ``Body`` part ``body``, acausal's BodyShape is itself a Body: ``mechanics.b2.body.w_a[1]``
  is ``mechanics.b2.w_a[0]`` here.
"""

from __future__ import annotations

import math

from acausal import Component, Eq, Parameter, Variable, connect, der
from acausal.components import electrical as el
from acausal.components import rotational as rot
from acausal.components.blocks import PI, RealInput, RealOutput
from acausal.components.friction import _RotationalUnits
from acausal.components.math_blocks import Add3, Feedback, Gain, KinematicPTP2
from acausal.errors import ParameterError

from .joints import Revolute
from .parts import BodyShape
from .world import World


def _values(component, overrides: dict) -> dict:
    """The values of a component's (structural) parameters: the given ones, else the
    declared defaults."""
    return {name: overrides.get(name, decl.default)
            for name, decl in component._class_declarations().items()
            if isinstance(decl, Parameter)}


class BearingFriction(_RotationalUnits):
    """Coulomb friction in a bearing, with stick/slip, between a rigid shaft (two flanges) and
    the fixed support (MSL ``Rotational.Components.BearingFriction``, ``useSupport=false``).

    MSL's equations (``Interfaces.PartialFriction`` with ``w_relfric = w``)::

        phi = flange_a.phi;  flange_b.phi = flange_a.phi;  w = der(phi);  a = der(w)
        flange_a.tau + flange_b.tau - tau = 0
        tau0 = tau_pos(w = 0);  tau0_max = peak*tau0
        locked:  a = 0,  tau = sa                                 (stuck, |sa| <= tau0_max)
        sliding: a = sa - mode*tau0_max,  tau = mode*tau_pos(mode*w)   (mode = +1 / -1)

    written with the stick/slip automaton of :mod:`acausal.components.friction` (modes +1, 0,
    -1 as MSL's Forward, Stuck, Backward; the friction torque is ``f``, MSL's ``tau``; the
    angle ``s_rel`` is MSL's ``phi``, ``v_rel`` is ``w``, ``a_rel`` is ``a``). The linear
    table ``tau_pos = [[0, tau0], [w1, tau1]]`` [rad/s, N.m] gives ``F_Coulomb = tau0``,
    ``F_prop = (tau1 - tau0)/w1``, ``F_Stribeck = 0``: ``tau = mode*tau0 + F_prop*w`` while
    sliding. Breakaway at ``|sa| > peak*tau0`` (MSL's ``startForward``/``startBackward``); a
    slide that stops goes through the stuck mode (MSL's default ``w_small = 1e10``). MSL's
    hysteresis ``pre(startForward) and sa > tau0`` within the breakaway instant is not
    modelled; the mode at the start follows the initial speed (``When(initial(), ...)``).

    Events: the gated mode switches of :mod:`acausal.components.stick_slip`, the one mechanism
    of every stick/slip element (the gating was first written here: the ungated ``w < 0`` /
    ``w > 0`` made a FullRobot run stop with "Chattering" at t = 4e-6 s, a stuck joint speed
    that is not a state dithering around zero).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/BearingFriction.mo`` and
    ``Modelica/Mechanics/Rotational/Interfaces/PartialFriction.mo``.
    """

    tau_pos = Parameter(((0.0, 1.0), (1.0, 1.0)), structural=True, unit="1",
                        description="positive sliding friction characteristic [[w [rad/s], "
                        "tau [N.m]], ...] (linear: two rows, the first at w = 0)")
    flange_a = rot.Flange()
    flange_b = rot.Flange()

    def __init__(self, **overrides):
        table = overrides.get("tau_pos", ((0.0, 1.0), (1.0, 1.0)))
        rows = [tuple(float(x) for x in row) for row in table]
        if len(rows) != 2 or any(len(r) != 2 for r in rows) or rows[0][0] != 0.0 \
                or rows[1][0] <= 0.0:
            raise ParameterError("BearingFriction: tau_pos must be a linear table [[0, tau0], "
                                 f"[w1, tau1]] with w1 > 0; got {table!r}.")
        for name in ("F_Coulomb", "F_prop", "F_Stribeck"):
            if name in overrides:
                raise ParameterError(f"BearingFriction: give tau_pos, not {name}.")
        overrides["F_Coulomb"] = rows[0][1]
        overrides["F_prop"] = (rows[1][1] - rows[0][1]) / rows[1][0]
        overrides["F_Stribeck"] = 0.0
        super().__init__(**overrides)

    def equations(self):
        return [Eq(self.s_rel, self.flange_a.phi), Eq(self.flange_b.phi, self.flange_a.phi),
                Eq(self.flange_a.tau + self.flange_b.tau - self.f, 0),
                *self._friction_equations()]


def _friction_table(rv0: float, rv1: float) -> tuple:
    """The gears' ``tau_pos = [0, Rv0; 1, Rv0 + Rv1]`` (unitAngularVelocity = unitTorque = 1)."""
    return ((0.0, float(rv0)), (1.0, float(rv0) + float(rv1)))


class GearType1(Component):
    """Motor-side friction, gear elasticity and gearbox of the robot's axes 1-3
    (``RobotR3.Utilities.GearType1``).

    Parts and topology: ``flange_a`` - ``bearingFriction`` (tau_pos = [0, Rv0; 1, Rv0 + Rv1],
    peak 1: MSL does not pass the gear's ``peak`` on) - ``spring`` (SpringDamper c, d; MSL's
    ``StateSelect.prefer`` on phi_rel, w_rel is state priority 10) - ``gear`` (IdealGear,
    ratio ``i``) - ``flange_b``.

    Equations: ``a_rel = der(spring.w_rel)``; initial equations ``spring.w_rel = 0``,
    ``a_rel = 0`` (the spring at rest).

    Parameters (structural): ``i`` [1], ``c`` [N.m/rad], ``d`` [N.m.s/rad], ``Rv0`` [N.m],
    ``Rv1`` [N.m.s/rad], ``peak`` [1].

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/Utilities/
    GearType1.mo``.
    """

    i = Parameter(-105.0, structural=True, unit="1", description="gear ratio")
    c = Parameter(43.0, structural=True, unit="N.m/rad", description="spring constant")
    d = Parameter(0.005, structural=True, unit="N.m.s/rad", description="damper constant")
    Rv0 = Parameter(0.4, structural=True, unit="N.m",
                    description="viscous friction torque at zero velocity")
    Rv1 = Parameter(0.13 / 160, structural=True, unit="N.m.s/rad",
                    description="viscous friction coefficient (R = Rv0 + Rv1*abs(qd))")
    peak = Parameter(1.0, structural=True, unit="1", description="maximum static friction "
                     "torque is peak*Rv0 (not passed to bearingFriction, as in MSL)")
    flange_a = rot.Flange()
    flange_b = rot.Flange()
    a_rel = Variable(unit="rad/s2", description="relative angular acceleration of spring")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        self.gear = rot.IdealGear(ratio=p["i"])
        self.spring = rot.SpringDamper(c=p["c"], d=p["d"],
                                       phi_rel=Variable(state_priority=10),
                                       w_rel=Variable(state_priority=10))
        self.bearingFriction = BearingFriction(tau_pos=_friction_table(p["Rv0"], p["Rv1"]))

    def connections(self):
        return [connect(self.spring.flange_b, self.gear.flange_a),
                connect(self.bearingFriction.flange_b, self.spring.flange_a),
                connect(self.gear.flange_b, self.flange_b),
                connect(self.bearingFriction.flange_a, self.flange_a)]

    def equations(self):
        return [Eq(self.a_rel, der(self.spring.w_rel))]

    def initial_equations(self):
        return [Eq(self.spring.w_rel, 0), Eq(self.a_rel, 0)]


class GearType2(Component):
    """Gearbox and load-side bearing friction of the robot's axes 4-6, elasticity neglected
    (``RobotR3.Utilities.GearType2``).

    Parts and topology: ``flange_a`` - ``gear`` (IdealGear, ratio ``i``) - ``bearingFriction``
    (tau_pos = [0, Rv0; 1, Rv0 + Rv1], ``peak``) - ``flange_b``.

    Parameters (structural): ``i`` [1], ``Rv0`` [N.m], ``Rv1`` [N.m.s/rad], ``peak`` [1].

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/Utilities/
    GearType2.mo``.
    """

    i = Parameter(-99.0, structural=True, unit="1", description="gear ratio")
    Rv0 = Parameter(21.8, structural=True, unit="N.m",
                    description="viscous friction torque at zero velocity")
    Rv1 = Parameter(9.8, structural=True, unit="N.m.s/rad",
                    description="viscous friction coefficient (R = Rv0 + Rv1*abs(qd))")
    peak = Parameter(26.7 / 21.8, structural=True, unit="1",
                     description="maximum static friction torque is peak*Rv0 (peak >= 1)")
    flange_a = rot.Flange()
    flange_b = rot.Flange()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        self.gear = rot.IdealGear(ratio=p["i"])
        self.bearingFriction = BearingFriction(tau_pos=_friction_table(p["Rv0"], p["Rv1"]),
                                               peak=p["peak"])

    def connections(self):
        return [connect(self.gear.flange_b, self.bearingFriction.flange_a),
                connect(self.bearingFriction.flange_b, self.flange_b),
                connect(self.gear.flange_a, self.flange_a)]


class Motor(Component):
    """DC motor with its analog current controller (``RobotR3.Utilities.Motor``).

    The current reference ``current_ref`` [A] becomes the voltage of ``Vs`` (through
    ``convert2``, 1 V/A); the measured motor current (``hall1``, fed back as the voltage of
    ``hall2`` through ``convert1``) is subtracted by the difference amplifier ``diff`` (``Rd1``
    .. ``Rd4``, 100 Ohm each), integrated by the PI stage ``OpI`` (``Ri`` = 10 Ohm, ``C`` =
    0.004 D/w F) and amplified by the power stage ``power`` (``Rp1`` = 200 Ohm, ``Rp2`` = 50
    Ohm) that drives the armature (``Ra`` = 250 Ohm, ``La`` = 250/(2 D w) H) and the EMF
    ``emf`` (k) on the rotor ``Jmotor`` (J). The sensors ``phi`` and ``speed`` give
    ``motorAngle`` and ``motorSpeed``; ``current`` is ``hall1.i``. Grounds ``g1`` .. ``g5``.

    Initial equations (steady state of the current controller): ``der(C.v) = 0``,
    ``der(La.i) = 0``.

    Parameters (structural): ``J`` [kg.m2], ``k`` [N.m/A], ``w`` [rad/s] (MSL: "time constant
    of motor", used as a frequency), ``D`` [1], ``w_max`` [rad/s], ``i_max`` [A] (the last two
    are documentation, unused as in MSL).

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/Utilities/
    Motor.mo``.
    """

    J = Parameter(0.0013, structural=True, unit="kg.m2", description="moment of inertia of motor")
    k = Parameter(1.1616, structural=True, unit="N.m/A", description="gain of motor")
    w = Parameter(4590.0, structural=True, unit="rad/s", description="time constant of motor")
    D = Parameter(0.6, structural=True, unit="1", description="damping constant of motor")
    w_max = Parameter(315.0, structural=True, unit="rad/s", description="maximum speed of motor")
    i_max = Parameter(9.0, structural=True, unit="A", description="maximum current of motor")
    flange_motor = rot.Flange()
    current_ref = RealInput()
    motorAngle = RealOutput()
    motorSpeed = RealOutput()
    current = RealOutput()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        self.Vs = el.SignalVoltage()
        self.power = el.IdealOpAmp()
        self.diff = el.IdealOpAmp()
        self.emf = el.RotationalEMF(k=p["k"])
        self.La = el.Inductor(L=250 / (2 * p["D"] * p["w"]))
        self.Ra = el.Resistor(R=250.0)
        self.Rd2 = el.Resistor(R=100.0)
        self.C = el.Capacitor(C=0.004 * p["D"] / p["w"])
        self.OpI = el.IdealOpAmp()
        self.Ri = el.Resistor(R=10.0)
        self.Rd1 = el.Resistor(R=100.0)
        self.Rp1 = el.Resistor(R=200.0)
        self.Rp2 = el.Resistor(R=50.0)
        self.Rd4 = el.Resistor(R=100.0)
        self.hall2 = el.SignalVoltage()
        self.Rd3 = el.Resistor(R=100.0)
        for name in ("g1", "g2", "g3", "g4", "g5"):
            setattr(self, name, el.Ground())
        self.hall1 = el.CurrentSensor()
        self.phi = rot.AngleSensor()
        self.speed = rot.SpeedSensor()
        self.Jmotor = rot.Inertia(J=p["J"])
        self.convert1 = Gain(k=1.0)
        self.convert2 = Gain(k=1.0)

    def connections(self):
        s = self
        return [connect(s.La.n, s.emf.p), connect(s.Ra.n, s.La.p),
                connect(s.Rd2.n, s.diff.n1), connect(s.C.n, s.OpI.p2),
                connect(s.OpI.p2, s.power.p1), connect(s.Vs.p, s.Rd2.p),
                connect(s.diff.n1, s.Rd1.p), connect(s.Rd1.n, s.diff.p2),
                connect(s.diff.p2, s.Ri.p), connect(s.Ri.n, s.OpI.n1),
                connect(s.OpI.n1, s.C.p), connect(s.power.n1, s.Rp1.p),
                connect(s.power.p2, s.Rp1.n), connect(s.Rp1.p, s.Rp2.p),
                connect(s.power.p2, s.Ra.p), connect(s.Rd3.p, s.hall2.p),
                connect(s.Rd3.n, s.diff.p1), connect(s.Rd3.n, s.Rd4.p),
                connect(s.Vs.n, s.g1.p), connect(s.g2.p, s.hall2.n),
                connect(s.Rd4.n, s.g3.p), connect(s.g3.p, s.OpI.p1),
                connect(s.g5.p, s.Rp2.n), connect(s.emf.n, s.hall1.p),
                connect(s.hall1.n, s.g4.p), connect(s.emf.flange, s.phi.flange),
                connect(s.emf.flange, s.speed.flange), connect(s.OpI.n2, s.power.n2),
                connect(s.OpI.p1, s.OpI.n2), connect(s.OpI.p1, s.diff.n2),
                connect(s.Jmotor.flange_b, s.flange_motor),
                connect(s.phi.phi, s.motorAngle), connect(s.speed.w, s.motorSpeed),
                connect(s.hall1.i, s.current), connect(s.hall1.i, s.convert1.u),
                connect(s.convert1.y, s.hall2.v), connect(s.convert2.u, s.current_ref),
                connect(s.convert2.y, s.Vs.v), connect(s.emf.flange, s.Jmotor.flange_a)]

    def initial_equations(self):
        return [Eq(der(self.C.v), 0), Eq(der(self.La.i), 0)]


class Controller(Component):
    """P-PI cascade controller of one axis (``RobotR3.Utilities.Controller``): an outer P
    controller of the motor angle and an inner PI controller of the motor speed; the references
    are joint-side and multiplied by the gear ratio.

    Parts: ``gain1`` (k = ratio) on ``angle_ref``, ``feedback1`` (minus ``motorAngle``), ``P``
    (k = kp), ``gain2`` (k = ratio) on ``speed_ref``, ``add3`` (k3 = -1: ``gain2.y + P.y -
    motorSpeed``), ``PI`` (k = ks, T = Ts, no initial equation) giving ``current_ref``::

        current_ref = ks (x + e),  der(x) = e/Ts,
        e = ratio speed_ref + kp (ratio angle_ref - motorAngle) - motorSpeed

    Parameters (structural): ``kp`` [1], ``ks`` [1], ``Ts`` [s], ``ratio`` [1].

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/Utilities/
    Controller.mo`` (the AxisControlBus members are connectors of the same names).
    """

    kp = Parameter(10.0, structural=True, unit="1", description="gain of position controller")
    ks = Parameter(1.0, structural=True, unit="1", description="gain of speed controller")
    Ts = Parameter(0.01, structural=True, unit="s",
                   description="time constant of integrator of speed controller")
    ratio = Parameter(1.0, structural=True, unit="1", description="gear ratio of gearbox")
    angle_ref = RealInput()
    speed_ref = RealInput()
    motorAngle = RealInput()
    motorSpeed = RealInput()
    current_ref = RealOutput()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        self.gain1 = Gain(k=p["ratio"])
        self.PI = PI(k=p["ks"], T=p["Ts"])
        self.feedback1 = Feedback()
        self.P = Gain(k=p["kp"])
        self.add3 = Add3(k3=-1.0)
        self.gain2 = Gain(k=p["ratio"])

    def connections(self):
        s = self
        return [connect(s.gain1.y, s.feedback1.u1), connect(s.feedback1.y, s.P.u),
                connect(s.P.y, s.add3.u2), connect(s.gain2.y, s.add3.u1),
                connect(s.add3.y, s.PI.u), connect(s.gain2.u, s.speed_ref),
                connect(s.gain1.u, s.angle_ref), connect(s.feedback1.u2, s.motorAngle),
                connect(s.add3.u3, s.motorSpeed), connect(s.PI.y, s.current_ref)]


class AxisType2(Component):
    """One axis of the robot's joints 4-6 (``RobotR3.Utilities.AxisType2``): ``controller``,
    ``motor``, ``gear`` (:class:`GearType2`) and the joint-side sensors ``angleSensor``,
    ``speedSensor``, ``accSensor`` and ``initializeFlange`` (stateSelect "prefer") on
    ``flange``.

    Signals (the AxisControlBus members): inputs ``angle_ref`` and ``speed_ref`` feed the
    controller and the flange's initial angle and speed; ``motor.motorAngle``,
    ``motor.motorSpeed`` feed the controller, ``controller.current_ref`` the motor.

    Initial equations: see the module docstring ("Initial state"): ``initializeFlange`` sets
    the joint angle and speed, and ``gear.bearingFriction.sa = 0`` replaces MSL's
    ``der(w) = 0``.

    Parameters (structural): ``kp`` [1], ``ks`` [1], ``Ts`` [s] (controller), ``k`` [N.m/A],
    ``w`` [rad/s], ``D`` [1], ``J`` [kg.m2] (motor), ``ratio`` [1], ``Rv0`` [N.m], ``Rv1``
    [N.m.s/rad], ``peak`` [1] (gear).

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/Utilities/
    AxisType2.mo``.
    """

    kp = Parameter(10.0, structural=True, unit="1", description="gain of position controller")
    ks = Parameter(1.0, structural=True, unit="1", description="gain of speed controller")
    Ts = Parameter(0.01, structural=True, unit="s",
                   description="time constant of integrator of speed controller")
    k = Parameter(1.1616, structural=True, unit="N.m/A", description="gain of motor")
    w = Parameter(4590.0, structural=True, unit="rad/s", description="time constant of motor")
    D = Parameter(0.6, structural=True, unit="1", description="damping constant of motor")
    J = Parameter(0.0013, structural=True, unit="kg.m2", description="moment of inertia of motor")
    ratio = Parameter(-105.0, structural=True, unit="1", description="gear ratio")
    Rv0 = Parameter(0.4, structural=True, unit="N.m",
                    description="viscous friction torque at zero velocity")
    Rv1 = Parameter(0.13 / 160, structural=True, unit="N.m.s/rad",
                    description="viscous friction coefficient")
    peak = Parameter(1.0, structural=True, unit="1",
                     description="maximum static friction torque is peak*Rv0 (peak >= 1)")
    flange = rot.Flange()
    angle_ref = RealInput()
    speed_ref = RealInput()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        self.gear = self._gear(p)
        self.motor = Motor(J=p["J"], k=p["k"], w=p["w"], D=p["D"])
        self.controller = Controller(kp=p["kp"], ks=p["ks"], Ts=p["Ts"], ratio=p["ratio"])
        self.angleSensor = rot.AngleSensor()
        self.speedSensor = rot.SpeedSensor()
        self.accSensor = rot.AccSensor()
        self.initializeFlange = rot.InitializeFlange(stateSelect="prefer", use_a_start=False)

    def _gear(self, p: dict) -> Component:
        return GearType2(Rv0=p["Rv0"], Rv1=p["Rv1"], peak=p["peak"], i=p["ratio"])

    def connections(self):
        s = self
        return [connect(s.gear.flange_b, s.flange), connect(s.gear.flange_b, s.angleSensor.flange),
                connect(s.gear.flange_b, s.speedSensor.flange),
                connect(s.motor.flange_motor, s.gear.flange_a),
                connect(s.gear.flange_b, s.accSensor.flange),
                connect(s.angle_ref, s.initializeFlange.phi_start),
                connect(s.speed_ref, s.initializeFlange.w_start),
                connect(s.initializeFlange.flange, s.flange),
                # the AxisControlBus, replaced by direct connections
                connect(s.angle_ref, s.controller.angle_ref),
                connect(s.speed_ref, s.controller.speed_ref),
                connect(s.motor.motorAngle, s.controller.motorAngle),
                connect(s.motor.motorSpeed, s.controller.motorSpeed),
                connect(s.controller.current_ref, s.motor.current_ref)]

    def initial_equations(self):
        return [Eq(self.gear.bearingFriction.sa, 0)]


class AxisType1(AxisType2):
    """One axis of the robot's joints 1-3 (``RobotR3.Utilities.AxisType1``): :class:`AxisType2`
    with the elastic gear :class:`GearType1` (``c``, ``d = cd``).

    Additional parameters (structural): ``c`` [N.m/rad], ``cd`` [N.m.s/rad].

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/Utilities/
    AxisType1.mo``.
    """

    c = Parameter(43.0, structural=True, unit="N.m/rad", description="spring constant")
    cd = Parameter(0.005, structural=True, unit="N.m.s/rad", description="damper constant")

    def _gear(self, p: dict) -> Component:
        return GearType1(Rv0=p["Rv0"], Rv1=p["Rv1"], peak=p["peak"], i=p["ratio"], c=p["c"],
                         d=p["cd"])


#: MechanicalStructure's bodies: name -> BodyShape parameters (MSL 4.0, animation left out)
ROBOT_BODIES = {
    "b0": dict(r=(0.0, 0.351, 0.0), r_CM=(0.0, 0.0, 0.0), m=1.0),
    "b1": dict(r=(0.0, 0.324, 0.3), I_22=1.16, r_CM=(0.0, 0.0, 0.0), m=1.0),
    "b2": dict(r=(0.0, 0.65, 0.0), r_CM=(0.172, 0.205, 0.0), m=56.5, I_11=2.58, I_22=0.64,
               I_33=2.73, I_21=-0.46),
    "b3": dict(r=(0.0, 0.414, -0.155), r_CM=(0.064, -0.034, 0.0), m=26.4, I_11=0.279,
               I_22=0.245, I_33=0.413, I_21=-0.070),
    "b4": dict(r=(0.0, 0.186, 0.0), r_CM=(0.0, 0.0, 0.0), m=28.7, I_11=1.67, I_22=0.081,
               I_33=1.67),
    "b5": dict(r=(0.0, 0.125, 0.0), r_CM=(0.0, 0.0, 0.0), m=5.2, I_11=1.25, I_22=0.81,
               I_33=1.53),
    "b6": dict(r=(0.0, 0.0, 0.0), r_CM=(0.05, 0.05, 0.05), m=0.5),
}
#: the joints' axes n (r1 .. r6)
ROBOT_AXES = ((0, 1, 0), (1, 0, 0), (1, 0, 0), (0, 1, 0), (1, 0, 0), (0, 1, 0))


class MechanicalStructure(Component):
    """The mechanical part of the r3 robot (``RobotR3.Utilities.MechanicalStructure``): world
    (gravity ``g`` along -y), the chain ``b0`` - ``r1`` - ``b1`` - ``r2`` - ``b2`` - ``r3`` -
    ``b3`` - ``r4`` - ``b4`` - ``r5`` - ``b5`` - ``r6`` - ``b6`` - ``load`` of revolute joints
    (axis flanges ``axis1`` .. ``axis6``) and BodyShapes (see :data:`ROBOT_BODIES`); the load
    is a BodyShape with mass ``mLoad`` at ``rLoad`` from the last flange.

    Equations: ``q = {r1.phi, ..., r6.phi}``; ``qd = der(q)``; ``qdd = der(qd)``;
    ``tau = {r1.tau, ..., r6.tau}`` (MSL's vectors ``q[1]`` .. ``q[6]`` are ``q[0]`` ..
    ``q[5]``).

    Parameters (structural): ``mLoad`` [kg], ``rLoad`` [m], ``g`` [m/s2].

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/Utilities/
    MechanicalStructure.mo``.
    """

    mLoad = Parameter(15.0, structural=True, unit="kg", description="mass of load")
    rLoad = Parameter((0.0, 0.25, 0.0), structural=True, unit="m",
                      description="distance from last flange to load mass")
    g = Parameter(9.81, structural=True, unit="m/s2", description="gravity acceleration")
    axis1 = rot.Flange()
    axis2 = rot.Flange()
    axis3 = rot.Flange()
    axis4 = rot.Flange()
    axis5 = rot.Flange()
    axis6 = rot.Flange()
    q = Variable(shape=6, unit="rad", description="joint angles")
    qd = Variable(shape=6, unit="rad/s", description="joint speeds")
    qdd = Variable(shape=6, unit="rad/s2", description="joint accelerations")
    tau = Variable(shape=6, unit="N.m", description="joint driving torques")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        self.world = World(g=float(p["g"]), n=[0.0, -1.0, 0.0])
        for i, n in enumerate(ROBOT_AXES, start=1):
            setattr(self, f"r{i}", Revolute(n=n, use_axis_flange=True))
        for name, body in ROBOT_BODIES.items():
            setattr(self, name, BodyShape(**body))
        self.load = BodyShape(r=(0.0, 0.0, 0.0), r_CM=tuple(float(x) for x in p["rLoad"]),
                              m=float(p["mLoad"]))

    @property
    def joints(self) -> list[Revolute]:
        return [getattr(self, f"r{i}") for i in range(1, 7)]

    def equations(self):
        eqs = []
        for i, joint in enumerate(self.joints):
            eqs += [Eq(self.q[i], joint.phi), Eq(self.qd[i], der(self.q[i])),
                    Eq(self.qdd[i], der(self.qd[i])), Eq(self.tau[i], joint.tau)]
        return eqs

    def connections(self):
        s = self
        return [connect(s.load.frame_a, s.b6.frame_b), connect(s.world.frame_b, s.b0.frame_a),
                connect(s.b0.frame_b, s.r1.frame_a), connect(s.b1.frame_b, s.r2.frame_a),
                connect(s.r1.frame_b, s.b1.frame_a), connect(s.r2.frame_b, s.b2.frame_a),
                connect(s.b2.frame_b, s.r3.frame_a), connect(s.r3.frame_b, s.b3.frame_a),
                connect(s.b3.frame_b, s.r4.frame_a), connect(s.r4.frame_b, s.b4.frame_a),
                connect(s.b4.frame_b, s.r5.frame_a), connect(s.r5.frame_b, s.b5.frame_a),
                connect(s.b5.frame_b, s.r6.frame_a), connect(s.r6.frame_b, s.b6.frame_a),
                *(connect(j.axis, getattr(s, f"axis{i}"))
                  for i, j in enumerate(s.joints, start=1))]


class PathPlanning6(Component):
    """Reference angles and speeds of the six axes for the fastest point-to-point motion
    within the speed and acceleration limits (``RobotR3.Utilities.PathPlanning6``): the
    :class:`acausal.components.math_blocks.KinematicPTP2` block ``kinematicPTP`` (MSL's ``path``:
    the name is taken by acausal's ``Component.path``, KinematicPTP2's default component name
    is used instead) with
    ``q_begin = angleBegDeg``, ``q_end = angleEndDeg`` (converted to rad), ``qd_max =
    speedMax``, ``qdd_max = accMax``.

    Outputs: ``kinematicPTP.q[i]``, ``.qd[i]``, ``.qdd[i]`` (axis i+1; the ControlBus members
    ``angle_ref``, ``speed_ref``, ``acceleration_ref``). MSL's ``terminateSimulation`` at
    ``time >= path.endTime + swingTime`` is the property :attr:`stopTime`.

    Parameters (structural): ``naxis``, ``angleBegDeg``, ``angleEndDeg`` [deg], ``speedMax``
    [rad/s], ``accMax`` [rad/s2], ``startTime`` [s], ``swingTime`` [s].

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/Utilities/
    PathPlanning6.mo``.
    """

    naxis = Parameter(6, structural=True, description="number of driven axes")
    angleBegDeg = Parameter((0.0,) * 6, structural=True, unit="deg", description="start angles")
    angleEndDeg = Parameter((1.0,) * 6, structural=True, unit="deg", description="end angles")
    speedMax = Parameter((3.0,) * 6, structural=True, unit="rad/s",
                         description="maximum axis speed")
    accMax = Parameter((2.5,) * 6, structural=True, unit="rad/s2",
                       description="maximum axis acceleration")
    startTime = Parameter(0.0, structural=True, unit="s", description="start time of movement")
    swingTime = Parameter(0.5, structural=True, unit="s", description="additional time after "
                          "reference motion is in rest before simulation is stopped")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        n = int(p["naxis"])
        lists = {k: list(p[k]) for k in ("angleBegDeg", "angleEndDeg", "speedMax", "accMax")}
        if any(len(v) != n for v in lists.values()):
            raise ParameterError(f"PathPlanning6: angleBegDeg, angleEndDeg, speedMax and accMax "
                                 f"need naxis = {n} values each.")
        self.kinematicPTP = KinematicPTP2(
            q_begin=tuple(math.radians(x) for x in lists["angleBegDeg"]),
            q_end=tuple(math.radians(x) for x in lists["angleEndDeg"]),
            qd_max=tuple(lists["speedMax"]), qdd_max=tuple(lists["accMax"]),
            startTime=p["startTime"])
        self._stop = self.kinematicPTP.endTime + float(p["swingTime"])

    @property
    def stopTime(self) -> float:  # noqa: N802 - MSL's name
        """MSL's terminateSimulation time ``path.endTime + swingTime`` [s]."""
        return self._stop


#: FullRobot's axes: (type, parameters) as MSL's modifiers
FULL_ROBOT_AXES = (
    ("1", dict(w=4590.0, ratio=-105.0, c=43.0, cd=0.005, Rv0=0.4, Rv1=0.13 / 160)),
    ("1", dict(w=5500.0, ratio=210.0, c=8.0, cd=0.01, Rv1=0.1 / 130, Rv0=0.5)),
    ("1", dict(w=5500.0, ratio=60.0, c=58.0, cd=0.04, Rv0=0.7, Rv1=0.2 / 130)),
    ("2", dict(k=0.2365, w=6250.0, D=0.55, J=1.6e-4, ratio=-99.0, Rv0=21.8, Rv1=9.8,
               peak=26.7 / 21.8)),
    ("2", dict(k=0.2608, w=6250.0, D=0.55, J=1.8e-4, ratio=79.2, Rv0=30.1, Rv1=0.03,
               peak=39.6 / 30.1)),
    ("2", dict(k=0.0842, w=7400.0, D=0.27, J=4.3e-5, ratio=-99.0, Rv0=10.9, Rv1=3.92,
               peak=16.8 / 10.9)),
)


class FullRobot(Component):
    """Six degree of freedom robot with path planning, controllers, motors, gears and mechanics
    (``MultiBody.Examples.Systems.RobotR3.FullRobot``).

    Parts: ``mechanics`` (:class:`MechanicalStructure`), ``pathPlanning``
    (:class:`PathPlanning6`), ``axis1`` .. ``axis3`` (:class:`AxisType1`), ``axis4`` ..
    ``axis6`` (:class:`AxisType2`) with MSL's parameters (:data:`FULL_ROBOT_AXES`). The
    ControlBus is replaced by direct connections: ``pathPlanning.kinematicPTP.q[i]`` and
    ``qd[i]`` to
    ``axis<i+1>.angle_ref`` and ``speed_ref``. The run ends at :attr:`stopTime` (MSL's
    ``terminateSimulation``, 1.856 s).

    States (36): per axis the joint angle and speed (``mechanics.r<i>.phi``, ``.w``), the
    motor's ``C.v`` and ``La.i`` and the controller's ``PI.x``; for axes 1-3 also the gear
    spring's ``phi_rel`` and ``w_rel``.

    Parameters (structural): ``mLoad`` [kg], ``rLoad`` [m], ``g`` [m/s2], ``refStartTime``,
    ``refSwingTime`` [s], ``startAngle1`` .. ``6``, ``endAngle1`` .. ``6`` [deg],
    ``refSpeedMax`` [rad/s], ``refAccMax`` [rad/s2], ``kp1`` .. ``kp6``, ``ks1`` .. ``ks6`` [1],
    ``Ts1`` .. ``Ts6`` [s].

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/FullRobot.mo``.
    """

    mLoad = Parameter(15.0, structural=True, unit="kg", description="mass of load")
    rLoad = Parameter((0.1, 0.25, 0.1), structural=True, unit="m",
                      description="distance from last flange to load mass")
    g = Parameter(9.81, structural=True, unit="m/s2", description="gravity acceleration")
    refStartTime = Parameter(0.0, structural=True, unit="s",
                             description="start time of reference motion")
    refSwingTime = Parameter(0.5, structural=True, unit="s", description="additional time "
                             "after reference motion is in rest before simulation is stopped")
    startAngle1 = Parameter(-60.0, structural=True, unit="deg", description="start angle of axis 1")
    startAngle2 = Parameter(20.0, structural=True, unit="deg", description="start angle of axis 2")
    startAngle3 = Parameter(90.0, structural=True, unit="deg", description="start angle of axis 3")
    startAngle4 = Parameter(0.0, structural=True, unit="deg", description="start angle of axis 4")
    startAngle5 = Parameter(-110.0, structural=True, unit="deg",
                            description="start angle of axis 5")
    startAngle6 = Parameter(0.0, structural=True, unit="deg", description="start angle of axis 6")
    endAngle1 = Parameter(60.0, structural=True, unit="deg", description="end angle of axis 1")
    endAngle2 = Parameter(-70.0, structural=True, unit="deg", description="end angle of axis 2")
    endAngle3 = Parameter(-35.0, structural=True, unit="deg", description="end angle of axis 3")
    endAngle4 = Parameter(45.0, structural=True, unit="deg", description="end angle of axis 4")
    endAngle5 = Parameter(110.0, structural=True, unit="deg", description="end angle of axis 5")
    endAngle6 = Parameter(45.0, structural=True, unit="deg", description="end angle of axis 6")
    refSpeedMax = Parameter((3.0, 1.5, 5.0, 3.1, 3.1, 4.1), structural=True, unit="rad/s",
                            description="maximum reference speeds of all joints")
    refAccMax = Parameter((15.0, 15.0, 15.0, 60.0, 60.0, 60.0), structural=True,
                          unit="rad/s2", description="maximum reference accelerations of all "
                          "joints")
    kp1 = Parameter(5.0, structural=True, unit="1", description="gain of position controller 1")
    ks1 = Parameter(0.5, structural=True, unit="1", description="gain of speed controller 1")
    Ts1 = Parameter(0.05, structural=True, unit="s", description="time constant of integrator "
                    "of speed controller 1")
    kp2 = Parameter(5.0, structural=True, unit="1", description="gain of position controller 2")
    ks2 = Parameter(0.5, structural=True, unit="1", description="gain of speed controller 2")
    Ts2 = Parameter(0.05, structural=True, unit="s", description="time constant of integrator "
                    "of speed controller 2")
    kp3 = Parameter(5.0, structural=True, unit="1", description="gain of position controller 3")
    ks3 = Parameter(0.5, structural=True, unit="1", description="gain of speed controller 3")
    Ts3 = Parameter(0.05, structural=True, unit="s", description="time constant of integrator "
                    "of speed controller 3")
    kp4 = Parameter(5.0, structural=True, unit="1", description="gain of position controller 4")
    ks4 = Parameter(0.5, structural=True, unit="1", description="gain of speed controller 4")
    Ts4 = Parameter(0.05, structural=True, unit="s", description="time constant of integrator "
                    "of speed controller 4")
    kp5 = Parameter(5.0, structural=True, unit="1", description="gain of position controller 5")
    ks5 = Parameter(0.5, structural=True, unit="1", description="gain of speed controller 5")
    Ts5 = Parameter(0.05, structural=True, unit="s", description="time constant of integrator "
                    "of speed controller 5")
    kp6 = Parameter(5.0, structural=True, unit="1", description="gain of position controller 6")
    ks6 = Parameter(0.5, structural=True, unit="1", description="gain of speed controller 6")
    Ts6 = Parameter(0.05, structural=True, unit="s", description="time constant of integrator "
                    "of speed controller 6")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        self.mechanics = MechanicalStructure(mLoad=p["mLoad"], rLoad=p["rLoad"], g=p["g"])
        self.pathPlanning = PathPlanning6(
            naxis=6, angleBegDeg=tuple(p[f"startAngle{i}"] for i in range(1, 7)),
            angleEndDeg=tuple(p[f"endAngle{i}"] for i in range(1, 7)),
            speedMax=tuple(p["refSpeedMax"]), accMax=tuple(p["refAccMax"]),
            startTime=p["refStartTime"], swingTime=p["refSwingTime"])
        for i, (kind, axis) in enumerate(FULL_ROBOT_AXES, start=1):
            cls = AxisType1 if kind == "1" else AxisType2
            setattr(self, f"axis{i}", cls(**axis, kp=p[f"kp{i}"], ks=p[f"ks{i}"],
                                          Ts=p[f"Ts{i}"]))

    @property
    def axes(self) -> list[AxisType2]:
        return [getattr(self, f"axis{i}") for i in range(1, 7)]

    @property
    def stopTime(self) -> float:  # noqa: N802 - MSL's name
        """End of the run (MSL's terminateSimulation: path end time + refSwingTime) [s]."""
        return self.pathPlanning.stopTime

    def connections(self):
        path = self.pathPlanning.kinematicPTP
        eqs = []
        for i, axis in enumerate(self.axes):
            eqs += [connect(axis.flange, getattr(self.mechanics, f"axis{i + 1}")),
                    connect(path.q[i], axis.angle_ref), connect(path.qd[i], axis.speed_ref)]
        return eqs


class OneAxis(Component):
    """One axis of the robot (axis 2's parameters) with a load inertia
    (``MultiBody.Examples.Systems.RobotR3.OneAxis``): ``axis`` (:class:`AxisType1`, w = 5500,
    ratio = 210, c = 8, cd = 0.01, Rv0 = 0.5, Rv1 = 0.1/130, kp, ks, Ts), the load ``load``
    (Inertia, J = rg^2 mLoad) and ``pathPlanning`` (MSL ``PathPlanning1``: a KinematicPTP2
    from ``startAngle`` to ``endAngle`` within ``refSpeedMax`` and ``refAccMax``; here
    :class:`PathPlanning6` with one axis, block ``pathPlanning.kinematicPTP``). The run ends at
    :attr:`stopTime` (path end + swingTime).

    Parameters (structural): ``mLoad`` [kg], ``rg`` [m], ``kp`` [1], ``ks`` [1], ``Ts`` [s],
    ``startAngle``, ``endAngle`` [deg], ``swingTime`` [s], ``refSpeedMax`` [rad/s],
    ``refAccMax`` [rad/s2].

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Systems/RobotR3/OneAxis.mo`` (with
    ``Utilities/PathPlanning1.mo``).
    """

    mLoad = Parameter(15.0, structural=True, unit="kg", description="mass of load")
    rg = Parameter(1.14, structural=True, unit="m", description="radius of gyration of load")
    kp = Parameter(5.0, structural=True, unit="1", description="gain of position controller")
    ks = Parameter(0.5, structural=True, unit="1", description="gain of speed controller")
    Ts = Parameter(0.05, structural=True, unit="s",
                   description="time constant of integrator of speed controller")
    startAngle = Parameter(0.0, structural=True, unit="deg", description="start angle of axis")
    endAngle = Parameter(120.0, structural=True, unit="deg", description="end angle of axis")
    swingTime = Parameter(0.5, structural=True, unit="s", description="additional time after "
                          "reference motion is in rest before simulation is stopped")
    refSpeedMax = Parameter(3.0, structural=True, unit="rad/s",
                            description="maximum reference speed")
    refAccMax = Parameter(10.0, structural=True, unit="rad/s2",
                          description="maximum reference acceleration")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        p = _values(self, overrides)
        self.axis = AxisType1(w=5500.0, ratio=210.0, c=8.0, cd=0.01, Rv0=0.5, Rv1=0.1 / 130,
                              kp=p["kp"], ks=p["ks"], Ts=p["Ts"])
        self.load = rot.Inertia(J=float(p["rg"]) ** 2 * float(p["mLoad"]))
        self.pathPlanning = PathPlanning6(
            naxis=1, angleBegDeg=(p["startAngle"],), angleEndDeg=(p["endAngle"],),
            speedMax=(p["refSpeedMax"],), accMax=(p["refAccMax"],), startTime=0.0,
            swingTime=p["swingTime"])

    @property
    def stopTime(self) -> float:  # noqa: N802 - MSL's name
        """Path end time + swingTime [s]."""
        return self.pathPlanning.stopTime

    def connections(self):
        path = self.pathPlanning.kinematicPTP
        return [connect(self.axis.flange, self.load.flange_a),
                connect(path.q[0], self.axis.angle_ref),
                connect(path.qd[0], self.axis.speed_ref)]
