"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.First`` and ``FirstGrounded`` (1 s): a motor
inertia driven by a sine torque, a gear (ratio 10) and an elastic shaft to a load. ``First``
puts the torque source's and the gear's support flanges (``useSupport=True``) on the fixed
housing; ``FirstGrounded`` grounds both internally (``useSupport=False``, no support flanges):
the same motion built the other way (the reference CSVs of both are the same). Every test runs
for both variants (parametrized fixture ``run``).

Motor J1 = 0.1 kg.m2, torque 10 sin(2 pi 5 t) N.m; gear output inertia J2 = 2 kg.m2 with a
bearing damper d = 10 N.m.s/rad to the housing; spring c = 1e4 N.m/rad to the load
J3 = 2 kg.m2. The drive is linear with a sinusoidal input: its exact motion is a matrix
exponential (:func:`exact_solution`; the sine is two more states). The run (rtol 1e-9, atol
1e-11) is within 1e-5 of each signal's range of it.

The reference's ``inertia3.w`` is 3.1e-4 of its range away from the exact motion (DASSL at
tolerance 1e-6 loses phase on the 12 Hz shaft oscillation), beyond the 1e-4 of the comparison:
:func:`test_load_speed_reference_is_less_accurate` shows it and the comparison of that signal
is an expected failure. The other signals match the reference within 1e-4 of their range.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest
from scipy.linalg import expm

from acausal import Component, Eq, Variable, connect
from acausal.components import blocks
from acausal.components import rotational as rot

RTOL, ATOL = 1e-9, 1e-11
SIGNALS = ["damper.phi_rel", "damper.w_rel", "inertia3.phi"]
LOAD_SPEED = "inertia3.w"
RANGES = {"damper.phi_rel": 0.1649, "damper.w_rel": 0.5426, "inertia3.phi": 0.1658,
          "inertia3.w": 0.6812}


class FirstExample(Component):
    """Examples.First (renamed so that pytest does not collect it)."""

    fixed = rot.Fixed()
    torque = rot.Torque(useSupport=True)
    inertia1 = rot.Inertia(J=0.1)
    idealGear = rot.IdealGear(ratio=10.0, useSupport=True)
    inertia2 = rot.Inertia(J=2.0, phi=Variable(start=0.0, fixed=True),
                           w=Variable(start=0.0, fixed=True))
    spring = rot.Spring(c=1e4, phi_rel=Variable(start=0.0, fixed=True))
    inertia3 = rot.Inertia(J=2.0, w=Variable(start=0.0, fixed=True))
    damper = rot.Damper(d=10.0)
    sine = blocks.Sine(amplitude=10.0, f=5.0)

    def equations(self):
        return [Eq(self.torque.tau, self.sine.y.u)]  # connect(sine.y, torque.tau)

    def connections(self):
        return [connect(self.inertia1.flange_b, self.idealGear.flange_a),
                connect(self.idealGear.flange_b, self.inertia2.flange_a),
                connect(self.inertia2.flange_b, self.spring.flange_a),
                connect(self.spring.flange_b, self.inertia3.flange_a),
                connect(self.damper.flange_a, self.inertia2.flange_b),
                connect(self.damper.flange_b, self.fixed.flange),
                connect(self.torque.flange, self.inertia1.flange_a),
                *self._supports()]

    def _supports(self) -> list:
        """The support flanges on the housing (First only)."""
        return [connect(self.torque.support, self.fixed.flange),
                connect(self.idealGear.support, self.fixed.flange)]


class FirstGroundedExample(FirstExample):
    """Examples.FirstGrounded: the torque source and the gear without support flanges."""

    torque = rot.Torque(useSupport=False)
    idealGear = rot.IdealGear(ratio=10.0, useSupport=False)

    def _supports(self) -> list:
        return []


VARIANTS = {"First": FirstExample, "FirstGrounded": FirstGroundedExample}


def exact_solution(t: np.ndarray) -> dict[str, np.ndarray]:
    """x = (phi2, w2, phi3, w3, sin(om t), cos(om t)), x' = M x:
    (J2 + ratio^2 J1) w2' = ratio 10 sin(om t) - c (phi2 - phi3) - d w2;
    J3 w3' = c (phi2 - phi3); damper.phi_rel = -phi2 (its flange_b is fixed)."""
    j1, j2, j3, ratio, c, d, om = 0.1, 2.0, 2.0, 10.0, 1e4, 10.0, 2 * np.pi * 5.0
    je = j2 + ratio**2 * j1
    m = np.zeros((6, 6))
    m[0, 1] = 1.0
    m[1, :] = [-c / je, -d / je, c / je, 0.0, ratio * 10.0 / je, 0.0]
    m[2, 3] = 1.0
    m[3, :] = [c / j3, 0.0, -c / j3, 0.0, 0.0, 0.0]
    m[4, 5], m[5, 4] = om, -om
    x = np.empty((t.size, 6))
    x[0] = expm(m * t[0]) @ np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    steps = {}  # the output grid is (nearly) uniform: one exponential per step length
    for k in range(1, t.size):
        h = round(float(t[k] - t[k - 1]), 15)
        if h not in steps:
            steps[h] = expm(m * h)
        x[k] = steps[h] @ x[k - 1]
    return {"damper.phi_rel": -x[:, 0], "damper.w_rel": -x[:, 1], "inertia3.phi": x[:, 2],
            "inertia3.w": x[:, 3]}


@pytest.fixture(scope="module", params=list(VARIANTS))
def run(request):
    """``(sol, ref, model name)`` of each variant."""
    name = request.param
    sol, ref = msl_1d.run_example(VARIANTS[name](), "rotational", name, 1.0, 2001,
                                  rtol=RTOL, atol=ATOL)
    return sol, ref, name


@pytest.fixture(scope="module")
def exact(run):
    return exact_solution(np.asarray(run[0].t))


def test_checkpoints(run, exact):
    """Reference values at 0.25, 0.5 and 1 s (from the MAP-LIB CSV) within 1e-4 of each range
    (inertia3.w: 4e-4, the reference's own error); the exact motion within 1e-5 everywhere."""
    sol = run[0]
    checkpoints = {0.25: [-0.04517152416, -0.1875817317, 0.04365390105, 0.2402010576],
                   0.5: [-0.09581282303, -0.3720168717, 0.09620011935, 0.4719307732],
                   1.0: [-0.1623281811, 0.1122186023, 0.162860012, -0.1383323791]}
    for t, values in checkpoints.items():
        for name, expected in zip([*SIGNALS, LOAD_SPEED], values):
            tol = 4e-4 if name == LOAD_SPEED else 1e-4
            assert abs(msl_1d.value_at(sol, name, t) - expected) < tol * RANGES[name], (name, t)
    msl_1d.check_exact(sol, exact, RANGES, 1e-5)


def test_against_reference(run):
    """Every comparison signal but the load speed within 1e-4 of its range."""
    sol, ref, name = run
    errors = msl_1d.compare(sol, msl_1d.require(ref, "rotational", name), SIGNALS)
    print("worst relative error", max(errors.values()))


def test_load_speed_reference_is_less_accurate(run, exact):
    """The proof behind the expected failure below: the reference's inertia3.w is more than
    1e-4 of its range away from the exact motion, ours less than 1e-5."""
    sol, ref, name = run
    ref_err, our_err = msl_1d.errors_from_exact(sol, msl_1d.require(ref, "rotational", name),
                                                LOAD_SPEED, exact[LOAD_SPEED])
    assert ref_err > 1e-4
    assert our_err < 1e-5


@pytest.mark.xfail(strict=True, reason="the reference's inertia3.w is 3.1e-4 of its range from "
                   "the exact motion (matrix exponential of the linear drive): "
                   "test_load_speed_reference_is_less_accurate")
def test_load_speed_against_reference(run):
    sol, ref, name = run
    msl_1d.compare(sol, msl_1d.require(ref, "rotational", name), [LOAD_SPEED])
