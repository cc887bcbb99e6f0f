"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.Friction`` rebuilt with
``acausal.components.clutches.Clutch`` and ``Brake`` and compared with the MAP-LIB reference
result.

The model (``Modelica/Mechanics/Rotational/Examples/Friction.mo``): a torque
``200 sin(100 t)`` N.m (switched off at 0.5 s: the product of a sine and a step from 1 to 0)
drives inertia3 (J = 1, 100 rad/s), a clutch (``fn_max = 160`` N, always engaged) couples it to
inertia2 (J = 0.05, 90 rad/s), a spring-damper (c = 160 N.m/rad, d = 1 N.m.s/rad) leads to a
brake (``fn_max = 1600`` N, engaged by a step at 0.5 s, housing on a fixed support) and
inertia1 (J = 1, 90 rad/s). Stop time 3 s.

Checked: every signal of ``comparisonSignals.txt`` within 1e-4 of its range away from the
events, the clutch's and the brake's mode sequences (forward 1, stuck 0, backward -1, free 2)
with every switch within 1e-5 s of the reference's, and the break-away instants (MSL's
``startForward``/``startBackward``); plus inline checkpoints from the reference that run
without it.

The reference changes ``mode`` from 0 to -1 about 3e-7 s after its break-away (``startBackward``
is true at the break-away, ``mode`` follows when ``w_rel`` has crossed zero); here the mode
changes at the break-away itself. Both lie within the compared 1e-5 s.
"""

from __future__ import annotations

import math

import msl_1d
import pytest

from acausal import Component, Eq, Variable, connect
from acausal.components import blocks, event_sources, rotational
from acausal.components.clutches import Brake, Clutch
from acausal.components.math_blocks import Product

MODEL = "Friction"
STOP, INTERVAL = 3.0, 0.0005  # creation.txt: StopTime, Interval
ELEMENTS = ("clutch", "brake")
# solver tolerances far below the reference's (DASSL, 1e-6)
TOL = {"rtol": 1e-8, "atol": 1e-10}
TIME_TOL = 1e-5  # mode switch times against the reference's [s]


def _inertia(J: float, w0: float) -> rotational.Inertia:
    return rotational.Inertia(J=J, phi=Variable(start=0.0, fixed=True),
                              w=Variable(start=w0, fixed=True))


class Friction(Component):
    """MSL's Rotational.Examples.Friction (startTime = 0.5 s)."""

    torque = rotational.Torque(useSupport=True)
    inertia3 = _inertia(1, 100.0)
    clutch = Clutch(fn_max=160)
    inertia2 = _inertia(0.05, 90.0)
    spring = rotational.SpringDamper(c=160, d=1)
    brake = Brake(fn_max=1600, useSupport=True)
    inertia1 = _inertia(1, 90.0)
    const = blocks.Constant(k=1)
    step = event_sources.Step(start_time=0.5)
    step2 = event_sources.Step(height=-1, offset=1, start_time=0.5)
    sine = event_sources.Sine(amplitude=200, f=50 / math.pi)
    product = Product()
    fixed = rotational.Fixed()

    def connections(self):
        return [connect(self.torque.flange, self.inertia3.flange_a),
                connect(self.inertia3.flange_b, self.clutch.flange_a),
                connect(self.clutch.flange_b, self.inertia2.flange_a),
                connect(self.inertia2.flange_b, self.spring.flange_a),
                connect(self.spring.flange_b, self.brake.flange_a),
                connect(self.brake.flange_b, self.inertia1.flange_a),
                connect(self.const.y, self.clutch.f_normalized),
                connect(self.step.y, self.brake.f_normalized),
                connect(self.torque.support, self.fixed.flange),
                connect(self.brake.support, self.fixed.flange),
                connect(self.sine.y, self.product.u1), connect(self.step2.y, self.product.u2)]

    def equations(self):
        # rotational.Torque takes its torque as a variable (MSL: the RealInput tau)
        return [Eq(self.torque.tau, self.product.y.u)]


@pytest.fixture(scope="module")
def solution():
    return msl_1d.run_example(Friction(), "rotational", MODEL, STOP,
                              round(STOP / INTERVAL) + 1, **TOL)[0]


def test_checkpoints(solution):
    """Values and switch times of the reference, written here (runs without the CSV)."""
    sol = solution
    expected = {  # reference values at these output times
        "inertia3.w": {0.03: 102.4610552, 0.3: 97.28019055, 0.6: 85.09124312, 1.0: 53.09124312,
                       2.0: 4.449327642, 3.0: 2.289890998},
        "clutch.w_rel": {0.6: -68.03939845, 1.0: -53.20438437},
        "clutch.phi_rel": {0.3: -0.1713906149, 3.0: -47.21062202},
        "spring.phi_rel": {0.03: -0.2917082827, 0.6: -0.7641206332, 3.0: 0.1959851559},
        "spring.w_rel": {0.03: -11.56520592, 2.0: -4.449327642},
    }
    msl_1d.check_checkpoints(sol, expected, rel=1e-4, absolute=1e-6)
    reference_modes = {
        "clutch": [(0.0, -1.0), (0.00677971, 0.0), (0.05934006, -1.0), (0.10928950, 0.0),
                   (0.53424865, -1.0), (1.66363978, 0.0)],
        "brake": [(0.0, 2.0), (0.5, 1.0), (0.64061381, 0.0)],
    }
    msl_1d.check_mode_checkpoints(sol, reference_modes, TIME_TOL)


def test_against_reference(solution):
    names = msl_1d.compare_with_modes(solution, "rotational", MODEL, ELEMENTS, TIME_TOL)
    assert len(names) == 6
