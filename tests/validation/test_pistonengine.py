"""Cross-validation: PlanarMechanics ``Examples/PistonEngine.mo`` and
``Examples/PistonEngine_DynamicStateSelection.mo`` (slider-crank; t_end = 10 s).

Model (section 4.11 of docs/planar_mechanics.md; topology from the Modelica example):
Fixed -> RevoluteDrive (phi0 = 0, w0 = -2.5 fixed) -> node with BodyDrive (m = 1, I = 0.1) and
FixedTranslationDisc (0.3, 0) -> RevoluteDisc (guess phi = 0) -> PistonRod FixedTranslation
(0.8, 0) -> RevolutePiston -> node with BodyPiston (m = 3, I = 0.1) and Prismatic.frame_a;
Prismatic (r = (1, 0), guess s = 0, not fixed) has frame_b on Fixed1 at the origin. g = 9.81.

The piston is at (-s, 0) with ``-s = 0.3 cos(phi) + sqrt(0.64 - 0.09 sin(phi)^2)``: the
initialisation has to reach s = -1.1 from the guess s = 0 (branch selection). Nothing dissipates
and gravity does no work (the drive body sits on the fixed axis, the piston moves horizontally),
so the kinetic energy ``0.5*I_drive*w^2 + 0.5*m_piston*v_piston^2 = 0.5*0.1*2.5^2 = 0.3125 J``
is invariant.

* ``PistonEngine``: Modelica sets ``stateSelect = always`` on revoluteDrive; here its phi/w get
  ``state_priority = 100`` (above the library's 10) -> 2 states (revoluteDrive.phi, .w).
* ``PistonEngine_DynamicStateSelection``: no state hints (every joint coordinate gets
  ``state_priority = 0``).
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-9, 1e-11
ENERGY = 0.5 * 0.1 * 2.5 ** 2  # 0.3125 J


def piston_engine(dynamic: bool) -> Component:
    """The PistonEngine model; ``dynamic=True`` builds the _DynamicStateSelection variant."""
    drive = 0 if dynamic else 100
    free = {"phi": Variable(state_priority=0), "w": Variable(state_priority=0)} if dynamic else {}

    class PistonEngine(Component):
        world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
        fixed = Fixed()
        revoluteDrive = Revolute(phi=Variable(start=0.0, fixed=True, state_priority=drive),
                                 w=Variable(start=-2.5, fixed=True, state_priority=drive))
        bodyDrive = Body(m=1.0, I=0.1)
        fixedTranslationDisc = FixedTranslation(r=[0.3, 0.0])
        revoluteDisc = Revolute(phi=Variable(start=0.0, **({"state_priority": 0} if dynamic
                                                            else {})),
                                **({"w": Variable(state_priority=0)} if dynamic else {}))
        pistonRod = FixedTranslation(r=[0.8, 0.0])
        revolutePiston = Revolute(**free)
        bodyPiston = Body(m=3.0, I=0.1)
        prismatic = Prismatic(r=[1.0, 0.0],
                              s=Variable(start=0.0, **({"state_priority": 0} if dynamic else {})),
                              **({"v": Variable(state_priority=0)} if dynamic else {}))
        fixed1 = Fixed()

        def connections(self):
            return [connect(self.fixed.frame, self.revoluteDrive.frame_a),
                    connect(self.revoluteDrive.frame_b, self.fixedTranslationDisc.frame_a),
                    connect(self.revoluteDrive.frame_b, self.bodyDrive.frame_a),
                    connect(self.fixedTranslationDisc.frame_b, self.revoluteDisc.frame_a),
                    connect(self.revoluteDisc.frame_b, self.pistonRod.frame_a),
                    connect(self.pistonRod.frame_b, self.revolutePiston.frame_b),
                    connect(self.revolutePiston.frame_a, self.prismatic.frame_a),
                    connect(self.prismatic.frame_a, self.bodyPiston.frame_a),
                    connect(self.prismatic.frame_b, self.fixed1.frame)]

    return PistonEngine()


def kinetic_energy(sol):
    """Sum of the kinetic energies of both bodies (translation + rotation)."""
    energy = 0.0
    for body, m, inertia in (("bodyDrive", 1.0, 0.1), ("bodyPiston", 3.0, 0.1)):
        energy = energy + 0.5 * m * (sol[f"{body}.v[0]"] ** 2 + sol[f"{body}.v[1]"] ** 2) \
            + 0.5 * inertia * sol[f"{body}.w"] ** 2
    return energy


@pytest.fixture(scope="module", params=[False, True], ids=["manual", "dynamic_state_selection"])
def variant(request):
    return request.param, compile(piston_engine(dynamic=request.param))


def test_states(variant):
    dynamic, cs = variant
    assert cs.n_states == 2
    if not dynamic:
        assert set(cs.state_names) == {"revoluteDrive.phi", "revoluteDrive.w"}


def test_initialisation_branch_and_checkpoints(variant):
    _, cs = variant
    sol = cs.simulate(10.0, t_eval=[0.0, 1.0, 2.0, 5.0, 10.0], rtol=RTOL, atol=ATOL)
    # section 4.11 of docs/planar_mechanics.md (Dymola reference values, t <= 2 s)
    np.testing.assert_allclose(sol["revoluteDrive.phi"][:3], [0.0, -1.52423, -3.40424], atol=5e-5)
    np.testing.assert_allclose(sol["revoluteDrive.w"][:3], [-2.5, -1.28305, -2.41271], atol=2e-5)
    np.testing.assert_allclose(sol["prismatic.s"][:3], [-1.1, -0.755716, -0.506487], atol=2e-5)
    # independent re-derivation (energy integral 0.3125 = 0.5*(0.1 + 3*x'(phi)^2)*phi'^2,
    # RK4 with h = 1e-4): the Dymola CSV (DASSL, tol 1e-6) drifts by up to 4e-5 by t = 10 s
    np.testing.assert_allclose(sol["revoluteDrive.phi"][1:], [-1.5242339, -3.4042625, -8.0933513,
                                                              -16.8149953], atol=1e-6)
    np.testing.assert_allclose(sol["revoluteDrive.w"][1:], [-1.2830569, -2.4127112, -1.4233762,
                                                            -1.5942324], atol=1e-6)
    np.testing.assert_allclose(sol["prismatic.s"][1:], [-0.7557150, -0.5064884, -0.6738958,
                                                        -0.6194679], atol=1e-6)
    # slider-crank geometry: piston at (-s, 0)
    phi = sol["revoluteDrive.phi"]
    np.testing.assert_allclose(-sol["prismatic.s"],
                               0.3 * np.cos(phi) + np.sqrt(0.64 - 0.09 * np.sin(phi) ** 2),
                               atol=1e-9)


def test_energy_is_conserved(variant):
    _, cs = variant
    sol = cs.simulate(10.0, n_points=2001, rtol=RTOL, atol=ATOL)
    energy = kinetic_energy(sol)
    np.testing.assert_allclose(energy, 0.5 * 0.1 * sol["revoluteDrive.w"] ** 2
                               + 0.5 * 3.0 * sol["bodyPiston.v[0]"] ** 2, rtol=1e-12, atol=0)
    assert np.max(np.abs(energy - ENERGY)) / ENERGY < 1e-6


def exact_solution(t):
    """Independent re-derivation from the energy integral: with x(phi) = 0.3 cos(phi) +
    sqrt(0.64 - 0.09 sin(phi)^2) the piston position, 0.3125 = 0.5*(0.1 + 3 x'(phi)^2) phi'^2 and
    phi' < 0, so t(phi) = integral from phi to 0 of sqrt((0.1 + 3 x'^2)/(2*0.3125)); the
    quadrature (trapezoid, 4e5 intervals) is inverted by interpolation."""
    phi_grid = np.linspace(0.0, -17.5, 400001)

    def dx(phi):
        return -0.3 * np.sin(phi) - 0.09 * np.sin(phi) * np.cos(phi) / np.sqrt(
            0.64 - 0.09 * np.sin(phi) ** 2)

    rate = np.sqrt((0.1 + 3.0 * dx(phi_grid) ** 2) / (2.0 * ENERGY))  # dt/d(-phi)
    t_grid = np.concatenate([[0.0], np.cumsum(0.5 * (rate[1:] + rate[:-1])
                                              * -np.diff(phi_grid))])
    phi = np.interp(t, t_grid, phi_grid)
    w = -np.sqrt(2.0 * ENERGY / (0.1 + 3.0 * dx(phi) ** 2))
    psi = np.arcsin(-0.3 * np.sin(phi) / 0.8)  # absolute angle of the piston rod
    dpsi = -0.3 * np.cos(phi) * w / (0.8 * np.cos(psi))
    return {"revoluteDrive.phi": phi, "bodyDrive.phi": phi, "revoluteDrive.w": w,
            "prismatic.s": -(0.3 * np.cos(phi) + np.sqrt(0.64 - 0.09 * np.sin(phi) ** 2)),
            "prismatic.v": -dx(phi) * w, "revoluteDisc.phi": psi - phi,
            "revoluteDisc.w": dpsi - w}


def test_against_exact_solution(variant, check_signal):
    _, cs = variant
    t = np.linspace(0.0, 10.0, 2001)
    sol = cs.simulate(10.0, t_eval=t, rtol=RTOL, atol=ATOL)
    for name, values in exact_solution(t).items():
        check_signal(name, sol[name], values, tol=1e-5)


# Dymola's results (DASSL, tolerance 1e-6) are less accurate than the comparison threshold for
# the velocity-level signals of the _DynamicStateSelection variant: against exact_solution() the
# CSV deviates by 2.8e-4 (revoluteDrive.w), 2.5e-4 (prismatic.v) and 2.4e-4 (revoluteDisc.w) of
# the range, while our result deviates by < 3e-6. Those three are checked separately below.
DSS_REFERENCE_INACCURATE = ("prismatic.v", "revoluteDisc.w", "revoluteDrive.w")


def test_against_reference(variant, load_reference, check_signal):
    dynamic, cs = variant
    model = "PistonEngine_DynamicStateSelection" if dynamic else "PistonEngine"
    ref = load_reference(model)
    sol = cs.simulate(10.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ref:
        if name != "Time" and not (dynamic and name in DSS_REFERENCE_INACCURATE):
            check_signal(name, sol[name], ref[name])


def test_reference_inaccuracy_of_dss_velocities(load_reference, check_signal):
    """The three velocity-level columns of the _DynamicStateSelection CSV are themselves off by
    more than 1e-4 of their range (vs the exact solution); ours match the exact solution."""
    ref = load_reference("PistonEngine_DynamicStateSelection")
    exact = exact_solution(ref["Time"])
    sol = compile(piston_engine(dynamic=True)).simulate(10.0, t_eval=ref["Time"], rtol=RTOL,
                                                        atol=ATOL)
    for name in DSS_REFERENCE_INACCURATE:
        check_signal(name, sol[name], exact[name], tol=1e-5)
        span = np.ptp(exact[name])
        assert np.max(np.abs(ref[name] - exact[name])) / span > 2e-4


@pytest.mark.xfail(strict=True, reason="the Dymola CSV of PistonEngine_DynamicStateSelection "
                   "deviates from the exact solution by 2.4e-4..2.8e-4 of the range in these "
                   "signals (see test_reference_inaccuracy_of_dss_velocities)")
def test_dss_velocities_against_reference(load_reference, check_signal):
    ref = load_reference("PistonEngine_DynamicStateSelection")
    sol = compile(piston_engine(dynamic=True)).simulate(10.0, t_eval=ref["Time"], rtol=RTOL,
                                                        atol=ATOL)
    for name in DSS_REFERENCE_INACCURATE:
        check_signal(name, sol[name], ref[name])
