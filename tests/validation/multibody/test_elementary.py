"""MultiBody ``Examples.Elementary`` models rebuilt from acausal's 3-D library, against the
Dymola references (1e-4 of each signal's range over the whole span) and inline checkpoints."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import compile
from acausal.components.multibody.examples import DoublePendulum, Pendulum

RTOL, ATOL = 1e-9, 1e-11


def test_pendulum_matches_the_one_degree_of_freedom_equation_and_the_reference(compare):
    cs = compile(Pendulum())
    assert cs.state_names == ["rev.phi", "rev.w"]
    # (I_33 + m L^2) phi'' = -m g L cos(phi) - d phi', L = 0.5: integrate it independently
    from scipy.integrate import solve_ivp

    def rhs(t, y):
        return [y[1], (-9.80665 * 0.5 * math.cos(y[0]) - 0.1 * y[1]) / (0.001 + 0.25)]

    times = np.linspace(0.0, 5.0, 11)
    # the reference 1e4 times tighter (its error: 2e-13), so the difference is acausal's error:
    # each step's local error is at most ATOL + RTOL |x|, and the run's fewer than 1e3 steps
    # (970 right-hand sides) add up to K = 1e3 times that: 2.6e-6 in phi, 5.4e-6 in w
    # (measured: 9e-8 and 4e-7 at rtol 0.8e-9 .. 1.3e-9); 1 % more damping moves phi by 7e-3
    exact = solve_ivp(rhs, (0, 5), [0.0, 0.0], t_eval=times, method="DOP853", rtol=1e-13,
                      atol=1e-14).y
    sol = cs.simulate(5.0, t_eval=times, rtol=RTOL, atol=ATOL)
    for name, reference in zip(("rev.phi", "rev.w"), exact):
        bound = 1e3 * (ATOL + RTOL * np.max(np.abs(reference)))
        np.testing.assert_allclose(sol[name], reference, rtol=0, atol=bound, err_msg=name)
    compare(cs, "Pendulum", rtol=RTOL, atol=ATOL)


def test_double_pendulum_over_its_whole_span(compare):
    cs = compile(DoublePendulum())
    assert sorted(cs.state_names) == ["revolute1.phi", "revolute1.w", "revolute2.phi",
                                      "revolute2.w"]
    sol = cs.simulate(3.0, t_eval=[0.0, 3.0], rtol=RTOL, atol=ATOL)
    # Dymola's values at t = 3 s (MSL reference, Tolerance 1e-6)
    assert sol["revolute1.phi"][-1] == pytest.approx(-2.317928561646287, abs=1e-3)
    assert sol["revolute2.phi"][-1] == pytest.approx(-1.73649166916319, abs=1e-3)
    compare(cs, "DoublePendulum", rtol=RTOL, atol=ATOL)


def test_spring_mass_system_one_dimensional_and_line_spring_agree_with_the_cosine(compare):
    from acausal.components.multibody.examples import SpringMassSystem

    cs = compile(SpringMassSystem())
    times = np.linspace(0.0, 5.0, 11)
    sol = cs.simulate(5.0, t_eval=times, rtol=RTOL, atol=ATOL)
    s_eq = 0.1 + 9.80665 / 30.0  # m s'' = m g - c (s - 0.1), m = 1, c = 30
    exact = s_eq + (0.1 - s_eq) * np.cos(math.sqrt(30.0) * times)
    # global error of 4.4 periods at rtol 1e-9: ~1e-7
    np.testing.assert_allclose(sol["p1.s"], exact, atol=1e-6)
    np.testing.assert_allclose(sol["p2.s"], exact, atol=1e-6)
    compare(cs, "SpringMassSystem", rtol=RTOL, atol=ATOL)


FREE_BODY = {"body.body.": "body."}


@pytest.fixture(scope="module")
def free_body():
    from acausal.components.multibody.examples import FreeBody

    return compile(FreeBody())


def test_free_body_on_two_springs(free_body, compare):
    cs = free_body
    # the four quaternion elements are states (D(Q) = G(Q)' w / 2), with no re-selection
    assert {"body.Q[0]", "body.Q[1]", "body.Q[2]", "body.Q[3]"} <= set(cs.state_names)
    assert not cs.dynamic_selection
    # energy: kinetic + gravity + both springs (c = 20, unstretched 0) is conserved (to the
    # integration error, which scales with rtol: 9e-7 at rtol 1e-9, 1.2e-8 at 1e-11, 2.4e-9 at
    # 1e-12)
    sol = cs.simulate(5.0, dt=0.002, rtol=1e-12, atol=1e-14)
    # D(Q) keeps the norm: it drifts from 1 only by the integration error
    q = sol["body.Q"]
    assert np.max(np.abs(np.sum(q * q, axis=0) - 1.0)) < 1e-10
    T = sol["body.frame_a.T"].reshape(3, 3, -1).transpose(2, 0, 1)
    r_a = sol["body.r_0"].T
    r_b = r_a + np.einsum("kji,j->ki", T, [0.4, 0.0, 0.0])
    v_cm = sol["body.v_0"].T + np.einsum("kji,kj->ki", T, np.cross(sol["body.w_a"].T,
                                                                   [0.2, 0.0, 0.0]))
    h_cm = (r_a + np.einsum("kji,j->ki", T, [0.2, 0.0, 0.0]))[:, 1]
    energy = 0.5 * np.sum(v_cm**2, axis=1) + 0.5 * np.sum(sol["body.w_a"].T**2, axis=1) \
        + 9.80665 * h_cm + 10.0 * np.sum(r_a**2, axis=1) \
        + 10.0 * np.sum((r_b - [0.8, 0.0, 0.0])**2, axis=1)
    assert np.ptp(energy) < 1e-8 * np.max(np.abs(energy))
    # over the first half of the span; the whole span is the strict xfail below
    compare(cs, "FreeBody", t_max=5.0, renamed=FREE_BODY, rtol=RTOL, atol=ATOL)


@pytest.mark.xfail(strict=True, reason=(
    "the Dymola reference (DASSL, tolerance 1e-6) loses energy that the model cannot lose "
    "(5.4e-4 J of 0.72 J over 10 s: test_free_body_reference_loses_energy); its difference to "
    "acausal grows steadily to 1.16e-4 of the range at t = 10 s in body.frame_a.r_0[1], while "
    "acausal keeps the energy to 1e-8 and agrees with itself to 1e-7 at tolerances 100x apart"))
def test_free_body_over_the_whole_span(free_body, compare):
    compare(free_body, "FreeBody", renamed=FREE_BODY, rtol=RTOL, atol=ATOL)


def test_free_body_result_does_not_depend_on_the_tolerance(free_body, msl):
    ref = msl("FreeBody")
    a = free_body.simulate(10.0, t_eval=ref["time"], rtol=1e-9, atol=1e-11)
    b = free_body.simulate(10.0, t_eval=ref["time"], rtol=1e-11, atol=1e-13)
    for k in range(3):
        name = f"body.frame_a.r_0[{k}]"
        span = np.ptp(ref[f"body.body.frame_a.r_0[{k}]"])
        assert np.max(np.abs(a[name] - b[name])) < 1e-6 * span


@pytest.mark.parametrize("model", ["PendulumWithSpringDamper", "SpringDamperSystem",
                                   "ThreeSprings", "ForceAndTorque", "LineForceWithTwoMasses"])
def test_elementary_model_over_its_whole_span(model, compare):
    from acausal.components.multibody import examples

    cs = compile(getattr(examples, model)())
    compare(cs, model, rtol=RTOL, atol=ATOL)


def test_elementary_checkpoints():
    """Dymola's values at the end of each run (MSL reference, tolerance 1e-6)."""
    from acausal.components.multibody import examples

    sol = compile(examples.PendulumWithSpringDamper()).simulate(10.0, t_eval=[0.0, 10.0],
                                                                 rtol=RTOL, atol=ATOL)
    assert sol["prismatic.s"][-1] == pytest.approx(0.74684962200736, abs=1e-4)
    assert sol["revolute.phi"][-1] == pytest.approx(-1.3329077009058, abs=1e-4)
    sol = compile(examples.SpringDamperSystem()).simulate(10.0, t_eval=[0.0, 10.0],
                                                           rtol=RTOL, atol=ATOL)
    assert sol["p2.s"][-1] == pytest.approx(0.49361761944584, abs=1e-4)
    sol = compile(examples.ThreeSprings()).simulate(10.0, t_eval=[0.0, 10.0],
                                                     rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["body1.r_0"][:, -1],
                               [-0.019912248744366, -0.84153238912086, 0.25700344263692],
                               atol=1e-4)
    sol = compile(examples.ForceAndTorque()).simulate(1.01, t_eval=[0.0, 1.01], rtol=RTOL,
                                                      atol=ATOL)
    # (1e-4 of each signal's range)
    assert sol["revolute1.phi"][-1] == pytest.approx(-9.6432547690898325, abs=1e-3)
    assert sol["revolute2.phi"][-1] == pytest.approx(0.23532087016287298, abs=2e-4)
    sol = compile(examples.LineForceWithTwoMasses()).simulate(3.0, t_eval=[0.0, 3.0],
                                                              rtol=RTOL, atol=ATOL)
    for k in (1, 2):
        assert sol[f"revolute{k}.phi"][-1] == pytest.approx(-0.92014708665468, abs=1e-4)
        assert sol[f"revolute{k}.w"][-1] == pytest.approx(0.89969726227697, abs=1e-4)


def kepler_orbit(r0, v0, times, mu=1.0) -> np.ndarray:
    """The exact position on a Kepler ellipse (from Kepler's equation M = E - e sin E)."""
    r0, v0 = np.asarray(r0, float), np.asarray(v0, float)
    r = np.linalg.norm(r0)
    a = -mu / (2 * (v0 @ v0 / 2 - mu / r))
    h = np.cross(r0, v0)
    e_vec = np.cross(v0, h) / mu - r0 / r
    e = np.linalg.norm(e_vec)
    p_hat = e_vec / e
    q_hat = np.cross(h / np.linalg.norm(h), p_hat)
    E0 = np.arctan2((r0 @ v0) / (e * np.sqrt(mu * a)), (1 - r / a) / e)
    M = E0 - e * np.sin(E0) + np.sqrt(mu / a**3) * np.asarray(times)
    E = M.copy()
    for _ in range(60):
        E -= (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
    return np.outer(p_hat, a * (np.cos(E) - e)) + np.outer(q_hat, a * np.sqrt(1 - e**2)
                                                             * np.sin(E))


ORBITS = {"body1": ((0.0, 0.6, 0.0), (1.0, 0.0, 0.0)), "body2": ((0.6, 0.6, 0.0), (0.6, 0.0, 0.0))}


def test_point_gravity_orbits_are_the_exact_kepler_ellipses(msl):
    from acausal.components.multibody.examples import PointGravity

    cs = compile(PointGravity())
    times = np.linspace(0.0, 5.0, 501)
    sol = cs.simulate(5.0, t_eval=times, rtol=1e-10, atol=1e-12)
    for body, (r0, v0) in ORBITS.items():
        exact = kepler_orbit(r0, v0, times)
        span = np.ptp(exact, axis=1)[:2]
        assert np.all(np.max(np.abs(sol[f"{body}.r_0"] - exact), axis=1)[:2] < 1e-5 * span)
        np.testing.assert_allclose(sol[f"{body}.r_0"][2], 0.0, atol=1e-12)
        np.testing.assert_allclose(sol[f"{body}.w_a"], 0.0, atol=1e-12)


def test_point_gravity_reference_is_less_accurate_than_1e_4(msl):
    """The reference is compared with the exact orbits instead of acausal's: body2's ellipse
    (eccentricity 0.86) passes the centre at 0.07 m, where DASSL at tolerance 1e-6 loses
    7e-3 of the range, body1's (eccentricity 0.4) 3.6e-4."""
    ref = msl("PointGravity")
    for body, (r0, v0) in ORBITS.items():
        exact = kepler_orbit(r0, v0, ref["time"])
        columns = np.array([ref[f"{body}.frame_a.r_0[{k}]"] for k in range(3)])
        span = np.ptp(exact, axis=1)[:2]
        assert np.max(np.max(np.abs(columns - exact), axis=1)[:2] / span) > 1e-4


def test_gyroscopic_effects_of_a_3d_disk_and_of_a_rotor1d_agree(compare):
    from acausal.components.multibody.examples import GyroscopicEffects

    cs = compile(GyroscopicEffects())
    rtol, atol = 1e-10, 1e-12
    sol = cs.simulate(5.0, dt=0.01, rtol=rtol, atol=atol)
    # the two pendulums (3-D spinning disk, rigid disk + Rotor1D) move alike, each to the
    # integration error: at most the sum of the local errors (atol + rtol max|w|) over the
    # run's fewer than 5e3 steps (4.6e3 right-hand sides), twice for the difference: 1.7e-5
    # in w_a[0] (17 rad/s at most), 8.7e-6 in the others (measured 1.5e-6 at rtol
    # 0.8e-10 .. 1.3e-10); 1 % more mass of bodyCylinder4, or J of rotor1D, moves them by 0.5,
    # by 20
    for w3, w1 in zip(sol["bodyCylinder3.w_a"], sol["bodyCylinder1.w_a"]):
        np.testing.assert_allclose(w3, w1, rtol=0,
                                   atol=2 * 5e3 * (atol + rtol * np.max(np.abs(w1))))
    np.testing.assert_allclose(sol["rotor1D.phi"], sol["revolute.phi"], atol=1e-4)
    # Dymola at t = 5 s
    assert sol["revolute.phi"][-1] == pytest.approx(50.863573432127, abs=1e-3)
    compare(cs, "GyroscopicEffects", rtol=1e-10, atol=1e-12,
            renamed={"bodyCylinder2.body.": "bodyCylinder2.",
                     "bodyCylinder3.body.": "bodyCylinder3."})


def test_gyroscopic_pendulum_has_quaternion_states_and_keeps_its_energy(energy):
    """The first pendulum of GyroscopicEffects (spherical joint, rod, spinning disk on a free
    revolute joint) loses no energy. Its orientation states are the four quaternion elements
    of the body behind the spherical joint (D(Q) = G(Q)' w / 2, no constraint), so no state
    choice among them turns singular: with the constraint Q.Q = 1 (or rotation-matrix entries)
    the choice switched about 25 times in 5 s, and near one switch the old choice turned
    singular within a few microseconds. What is left to choose is which body's angular velocity
    component is a state (equal priorities, a number decides): at most one switch."""
    from acausal.components.multibody.examples import GyroscopicEffects

    model = GyroscopicEffects()
    cs = compile(model)
    assert {f"bodyCylinder{k}.Q[{i}]" for k in (1, 3) for i in range(4)} <= set(cs.state_names)
    assert {"revolute.phi", "revolute.w", "rotor1D.phi", "rotor1D.w"} <= set(cs.state_names)
    assert not any(".r_0[" in name or ".T[" in name for name in cs.state_names)
    sol = cs.simulate(5.0, n_points=1001, rtol=1e-10, atol=1e-12)
    e = energy(sol, cs, [model.bodyCylinder1, model.bodyCylinder2])
    assert len(sol.state_switches) <= 1
    # integration error at rtol 1e-10: 2.3e-7 of the energy (7.8e-8 at rtol 1e-11)
    assert np.max(np.abs(e - e[0])) < 1e-6 * np.max(np.abs(e))
    assert sol.stats["rhs_evaluations"] < 20_000


def test_free_body_reference_loses_energy(free_body, msl):
    """The reference holds r_0, v_0 and w_a but not the orientation: integrating
    D(T) = -skew(w_a) T from the known start orientation recovers it, and with it the energy
    (kinetic, gravity, both springs). Applied to acausal's own output the recovery keeps the
    energy to 1e-7 J; applied to the reference it shows a loss of 5e-4 J, which a model
    without damping cannot have: the reference is less accurate than 1e-4 over 10 s."""
    from scipy.integrate import solve_ivp
    from scipy.interpolate import CubicSpline

    from acausal.library.rotations import axes_rotations

    ref = msl("FreeBody")
    t = ref["time"]
    T0 = np.array(axes_rotations((1, 2, 3), [0.174532925199433] * 3).evalf(), dtype=float)

    def recovered_energy(r0, v0, w):
        rate = CubicSpline(t, w.T)

        def dT(tt, y):
            wx, wy, wz = rate(tt)
            skew = np.array([[0.0, -wz, wy], [wz, 0.0, -wx], [-wy, wx, 0.0]])
            return (-skew @ y.reshape(3, 3)).ravel()

        T = solve_ivp(dT, (t[0], t[-1]), T0.ravel(), t_eval=t, method="DOP853", rtol=1e-12,
                      atol=1e-12).y.reshape(3, 3, -1).transpose(2, 0, 1)
        v_cm = v0.T + np.einsum("kji,kj->ki", T, np.cross(w.T, [0.2, 0.0, 0.0]))
        h_cm = (r0.T + np.einsum("kji,j->ki", T, [0.2, 0.0, 0.0]))[:, 1]
        r_b = r0.T + np.einsum("kji,j->ki", T, [0.4, 0.0, 0.0])
        return 0.5 * np.sum(v_cm**2, axis=1) + 0.5 * np.sum(w.T**2, axis=1) \
            + 9.80665 * h_cm + 10.0 * np.sum(r0.T**2, axis=1) \
            + 10.0 * np.sum((r_b - [0.8, 0.0, 0.0])**2, axis=1)

    ours = free_body.simulate(10.0, t_eval=t, rtol=1e-11, atol=1e-13)
    e_ours = recovered_energy(ours["body.r_0"], ours["body.v_0"], ours["body.w_a"])
    columns = [np.array([ref[f"{prefix}[{k}]"] for k in range(3)])
               for prefix in ("body.body.frame_a.r_0", "body.v_0", "body.body.w_a")]
    e_ref = recovered_energy(*columns)
    assert np.ptp(e_ours) < 1e-7
    assert e_ref[0] == pytest.approx(e_ours[0], abs=1e-9)
    assert e_ref[0] - e_ref[-1] > 4e-4
