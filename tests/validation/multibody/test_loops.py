"""MultiBody ``Examples.Loops``: kinematic loops closed by the connection graph (no cut joint
marked by the user), against the Dymola references and invariants."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import compile
from acausal.components.multibody.examples import Fourbar1

RTOL, ATOL = 1e-10, 1e-12


@pytest.fixture(scope="module")
def fourbar1():
    model = Fourbar1()
    return model, compile(model)


def test_fourbar1_closes_its_loop_with_two_states(fourbar1):
    model, cs = fourbar1
    # 7 joint coordinates, 6 loop constraints: one degree of freedom
    assert cs.state_names == ["j1.phi", "j1.w"]
    [loop] = cs.flat.loops
    # the loop runs through every joint and part of the mechanism, and through the world
    # (b0 and j1 both hang from world.frame_b)
    assert set(loop.components) == {"b0", "j1", "b1", "j3", "j4", "j5", "b3", "rev1", "rev",
                                    "b2", "j2"}


def test_fourbar1_conserves_energy_and_matches_the_reference_while_it_is_accurate(fourbar1,
                                                                                 msl, energy,
                                                                                 check_signal):
    model, cs = fourbar1
    ref = msl("Fourbar1")
    sol = cs.simulate(5.0, t_eval=ref["time"], rtol=RTOL, atol=ATOL)
    bodies = [model.b1, model.b2, model.b3]
    e = energy(sol, cs, bodies)
    assert np.ptp(e) / np.max(np.abs(e)) < 1e-8  # frictionless: energy is an invariant
    # Dymola's reference (DASSL, tolerance 1e-6) drifts: its j1.w differs from ours by an
    # amount that grows with time (2e-3 rad/s at 5 s), while ours keeps the energy to 1e-8 and
    # agrees with itself at tolerances 100x apart. Over the first second the reference is
    # within 1e-4 of the signals' range; over the whole span the angle still is.
    first = ref["time"] <= 1.0
    for name in ("j1.phi", "j1.w"):
        check_signal(name + " (t <= 1 s)", sol[name][first], ref[name][first])
    check_signal("j1.phi", sol["j1.phi"], ref["j1.phi"])
    # our result does not depend on the tolerance (100x looser agrees to its integration
    # error: its local errors, 1e-10 + 1e-8 |j1.w| a step, summed over its fewer than 1.2e4
    # steps (at most 1.16e4 right-hand sides), 1.4e-3; measured 5e-6 at tolerances 0.8 .. 1.3
    # times these) while the reference is 100x further away: the difference over the whole
    # span is the reference's integration error, not ours
    loose = cs.simulate(5.0, t_eval=ref["time"], rtol=1e-8, atol=1e-10)
    ours = np.max(np.abs(loose["j1.w"] - sol["j1.w"]))
    assert ours < 1.2e4 * (1e-10 + 1e-8 * np.max(np.abs(sol["j1.w"])))
    assert np.max(np.abs(sol["j1.w"] - ref["j1.w"])) > 100 * ours


def test_fourbar1_checkpoints(fourbar1):
    model, cs = fourbar1
    sol = cs.simulate(5.0, t_eval=[0.0, 1.0, 5.0], rtol=RTOL, atol=ATOL)
    assert sol["j1.phi"][0] == 0.0 and sol["j1.w"][0] == pytest.approx(5.235987755982989)
    # Dymola at t = 1 s and 5 s (its drift at 5 s is 1e-3: see the test above)
    assert sol["j1.w"][1] == pytest.approx(9.361588417590532, abs=2e-4)
    assert sol["j1.phi"][2] == pytest.approx(40.3282362223391, abs=2e-3)


def test_planar_fourbar_of_plain_revolutes_is_rejected_with_advice():
    from acausal import StructuralError
    from acausal.components.multibody.examples import PlanarFourbar

    with pytest.raises(StructuralError) as info:
        compile(PlanarFourbar(cut_joint=False))
    text = str(info.value)
    for joint in ("revolute1", "revolute2", "revolute3", "revolute4cut"):
        assert f"'{joint}'" in text
    assert "RevolutePlanarLoopConstraint" in text


@pytest.fixture(scope="module")
def planar_fourbar():
    from acausal.components.multibody.examples import PlanarFourbar

    return compile(PlanarFourbar())


def test_planar_fourbar_with_the_loop_constraint_joint(planar_fourbar, compare):
    cs = planar_fourbar
    assert cs.state_names == ["revolute1.phi", "revolute1.w"]
    sol = cs.simulate(5.0, t_eval=[0.0, 5.0], rtol=RTOL, atol=ATOL)
    # Dymola at t = 5 s
    assert sol["revolute1.phi"][-1] == pytest.approx(-0.93978339564267, abs=1e-3)
    # the first 3 s; the whole span is the strict xfail below
    compare(cs, "PlanarFourbar", t_max=3.0, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("model, signal, asserted", [("PlanarFourbar", "revolute1.phi", False),
                                                     ("Engine1a", "inertia.w", False),
                                                     ("RollingWheel", "wheel1.der_angles[1]",
                                                      True)])
def test_reference_tolerance_moves_the_result_by_1e_4(model, signal, asserted, msl):
    """Why the whole span of these loops is not compared at 1e-4: the model run at the
    reference's own tolerance (1e-6) moves by about 1e-4 of the range from its converged
    result (which agrees with itself to 1e-5 at tolerances 100x apart).

    How far a run at a loose tolerance moves is not bounded from below by the tolerance: with
    rtol and atol scaled by 0.8..1.3 (other step sequences, as on another machine) the move
    was 0.14..2.2 (PlanarFourbar) and 0.49..5.7 (Engine1a) times 1e-4 of the range, and
    19..42 times for RollingWheel. So the lower bound is asserted for RollingWheel only; for
    the other two the upper bound on the converged run is, and the reference's inaccuracy is
    shown by test_loop_references_lose_energy."""
    from acausal.components.multibody import examples

    cs = compile(getattr(examples, model)())
    ref = msl(model)
    span = np.ptp(ref[signal])
    t_end = float(ref["time"][-1])
    tight = cs.simulate(t_end, t_eval=ref["time"], rtol=1e-11, atol=1e-13)
    ours = cs.simulate(t_end, t_eval=ref["time"], rtol=RTOL, atol=ATOL)
    loose = cs.simulate(t_end, t_eval=ref["time"], rtol=1e-6, atol=1e-8)
    assert np.max(np.abs(ours[signal] - tight[signal])) < 1e-5 * span
    if asserted:
        assert np.max(np.abs(loose[signal] - tight[signal])) > 1e-4 * span


@pytest.mark.xfail(strict=True, reason=(
    "the Dymola reference (DASSL, tolerance 1e-6) is not accurate to 1e-4 of the range after "
    "about 3.5 s: the model run at that tolerance moves by 1e-4 from its converged result "
    "(test_reference_tolerance_moves_the_result_by_1e_4); the difference to the "
    "reference grows to 1.9e-4 at 5 s"))
def test_planar_fourbar_over_the_whole_span(planar_fourbar, compare):
    compare(planar_fourbar, "PlanarFourbar", rtol=RTOL, atol=ATOL)


@pytest.fixture(scope="module")
def engine():
    from acausal.components.multibody.examples import Engine1a

    return compile(Engine1a())


def test_engine1a_closes_its_planar_loop_with_the_flywheel_as_state(engine, compare):
    assert engine.state_names == ["inertia.phi", "inertia.w"]
    sol = engine.simulate(5.0, t_eval=[0.0, 5.0], rtol=RTOL, atol=ATOL)
    assert sol["cylinder.s"][0] == pytest.approx(0.05, abs=1e-12)  # the branch near the guess
    # Dymola at t = 5 s
    assert sol["inertia.phi"][-1] == pytest.approx(53.415197349634, abs=1e-3)
    # the first 3 s; the whole span is the strict xfail below
    compare(engine, "Engine1a", t_max=3.0, rtol=RTOL, atol=ATOL)


@pytest.mark.xfail(strict=True, reason=(
    "the Dymola reference (DASSL, tolerance 1e-6) is not accurate to 1e-4 of the range in "
    "inertia.w after about 3.5 s: its energy moves by 1.3e-5 of it although nothing "
    "dissipates (test_loop_references_lose_energy), and the model run at that tolerance "
    "moves by 5.7e-4 from its converged result "
    "(test_reference_tolerance_moves_the_result_by_1e_4); the difference to the reference "
    "is 1.3e-4 at most"))
def test_engine1a_over_the_whole_span(engine, compare):
    compare(engine, "Engine1a", rtol=RTOL, atol=ATOL)


def test_fourbar_analytic_with_a_spherical_spherical_rod(msl, energy, check_signal):
    """MultiBody's JointSSP assembly rebuilt from its parts (a SphericalSpherical rod, a
    prismatic joint): the loop is closed numerically instead of in closed form, with the same
    result."""
    from acausal.components.multibody.examples import Fourbar_analytic

    model = Fourbar_analytic()
    cs = compile(model)
    assert cs.state_names == ["j1.phi", "j1.w"]
    times = np.linspace(0.0, 5.0, 2001)
    sol = cs.simulate(5.0, t_eval=times, rtol=RTOL, atol=ATOL)
    # the slider starts on the branch MultiBody's assembly selects (distance -0.2 m)
    assert sol["jointSSP.prismatic.s"][0] == pytest.approx(0.0, abs=1e-10)
    e = energy(sol, cs, [model.b1, model.b2])
    assert np.ptp(e) / np.max(np.abs(e)) < 1e-7  # frictionless: energy is an invariant (2e-8)
    assert sol["j1.phi"][-1] == pytest.approx(40.241257616091161, abs=2e-3)  # Dymola at 5 s
    loose = cs.simulate(5.0, t_eval=times, rtol=1e-8, atol=1e-10)
    ours = np.max(np.abs(loose["j1.w"] - sol["j1.w"]))
    # the looser run's error: its local errors (1e-10 + 1e-8 |j1.w| a step) summed over its
    # fewer than 3e3 steps (at most 2.4e3 right-hand sides): 3.6e-4 (measured 9e-5 at
    # tolerances 0.8 .. 1.3 times these)
    assert ours < 3e3 * (1e-10 + 1e-8 * np.max(np.abs(sol["j1.w"])))
    # as in Fourbar1, the reference's j1.w drifts (it loses energy:
    # test_loop_references_lose_energy) while ours keeps the energy and does not depend on
    # the tolerance
    ref = msl("Fourbar_analytic")
    sol = cs.simulate(5.0, t_eval=ref["time"], rtol=RTOL, atol=ATOL)
    check_signal("j1.phi", sol["j1.phi"], ref["j1.phi"])
    first = ref["time"] <= 2.0
    check_signal("j1.w (t <= 2 s)", sol["j1.w"][first], ref["j1.w"][first])
    assert np.max(np.abs(sol["j1.w"] - ref["j1.w"])) > 10 * ours


def test_universal_spherical_rod_gives_the_same_four_bar_and_a_consistent_rod_frame(msl,
                                                                                  check_signal):
    """A massless coupler as a UniversalSpherical rod moves the four-bar exactly as the
    SphericalSpherical one (and so matches the Fourbar_analytic reference); the rod frame
    frame_ia points along the rod and its angular velocity w agrees with D(T) = -skew(w) T."""
    from acausal.components.multibody.examples import (
        Fourbar_analytic,
        FourbarUniversalSpherical,
    )

    times = np.linspace(0.0, 5.0, 501)
    ssp = compile(Fourbar_analytic()).simulate(5.0, t_eval=times, rtol=RTOL, atol=ATOL)
    cs = compile(FourbarUniversalSpherical())
    assert cs.state_names == ["j1.phi", "j1.w"]
    usp = cs.simulate(5.0, t_eval=times, rtol=RTOL, atol=ATOL)
    # each run is within the sum of its local errors (ATOL + RTOL |x|) over its fewer than
    # 5e3 steps (at most 4.1e3 right-hand sides) of the motion, the difference within twice
    # that: 4e-5 in j1.phi (which turns to 40 rad), 1.2e-5 in j1.w (12 rad/s at most);
    # measured 5.5e-7 and 1.3e-6 at rtol 0.8e-10 .. 1.3e-10. 1 % more mass of b1 in one of
    # them moves j1.phi by 4e-2
    for name in ("j1.phi", "j1.w"):
        bound = 2 * 5e3 * (ATOL + RTOL * np.max(np.abs(ssp[name])))
        np.testing.assert_allclose(usp[name], ssp[name], rtol=0, atol=bound, err_msg=name)
    ref = msl("Fourbar_analytic")
    check_signal("j1.phi", np.interp(ref["time"], times, usp["j1.phi"]), ref["j1.phi"])
    T = usp["jointSSP.rod1.frame_ia.T"].reshape(3, 3, -1)
    rod = usp["jointSSP.rod1.frame_b.r_0"] - usp["jointSSP.rod1.frame_a.r_0"]
    along = np.einsum("ik,ik->k", T[0], rod) / np.linalg.norm(rod, axis=0)
    np.testing.assert_allclose(along, 1.0, atol=1e-12)
    fine = np.linspace(2.49, 2.51, 201)
    sol = cs.simulate(2.51, t_eval=np.concatenate([[0.0], fine]), rtol=1e-11, atol=1e-13)
    T = sol["jointSSP.rod1.frame_ia.T"].reshape(3, 3, -1)
    w = sol["jointSSP.rod1.frame_ia.w"][:, 101]
    dT = (T[:, :, 102] - T[:, :, 100]) / (2 * (fine[1] - fine[0]))
    skew = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    assert np.max(np.abs(dT + skew @ T[:, :, 101])) < 1e-5 * np.max(np.abs(dT))


@pytest.fixture(scope="module")
def rolling_wheel():
    from acausal.components.multibody.examples import RollingWheel

    return compile(RollingWheel())


def test_rolling_wheel_keeps_its_energy_and_matches_the_reference_at_first(rolling_wheel,
                                                                           compare):
    """A wheel rolling without slip (non-holonomic constraints) conserves its energy."""
    cs = rolling_wheel
    assert len(cs.state_names) == 8  # x, y, three angles and their rates
    sol = cs.simulate(4.0, dt=0.01, rtol=1e-11, atol=1e-13)
    v, w = sol["wheel1.body.v_0"], sol["wheel1.body.w_a"]
    e = np.sum(v * v, axis=0) + 0.5 * (0.12 * w[0]**2 + 0.06 * w[1]**2 + 0.12 * w[2]**2) \
        + 2.0 * 9.80665 * sol["wheel1.body.r_0"][2]
    assert np.ptp(e) / np.max(np.abs(e)) < 1e-8
    # the contact point stays on the ground, one radius from the centre
    contact = np.array([sol["wheel1.rollingWheel.s"], sol["wheel1.rollingWheel.w"],
                        0 * sol.t]) - sol["wheel1.frame_a.r_0"]
    np.testing.assert_allclose(np.linalg.norm(contact, axis=0), 0.3, atol=1e-10)
    # Dymola at t = 4 s (its drift by then: test_rolling_wheel_reference_gains_energy)
    assert sol["wheel1.x"][-1] == pytest.approx(0.1625467804108, abs=2e-3)
    assert sol["wheel1.y"][-1] == pytest.approx(-2.2377848069621, abs=2e-3)
    compare(cs, "RollingWheel", t_max=1.0, rtol=RTOL, atol=ATOL)


@pytest.mark.xfail(strict=True, reason=(
    "the Dymola reference (DASSL, tolerance 1e-6) is not accurate to 1e-4 of the range after "
    "about 1.5 s: its energy grows by 2.4e-5 of it although rolling without slip keeps it "
    "(test_rolling_wheel_reference_gains_energy), and the model run at that tolerance moves by "
    "2e-3 from its converged result (test_reference_tolerance_moves_the_result_by_1e_4); the "
    "difference to the reference grows to 9e-4 at 4 s in wheel1.der_angles[1]"))
def test_rolling_wheel_over_the_whole_span(rolling_wheel, compare):
    compare(rolling_wheel, "RollingWheel", rtol=RTOL, atol=ATOL)


#: One-degree-of-freedom loops: coordinate, speed, bodies, flywheel inertia, joint damping,
#: and whether the coordinate turns (a table over one revolution) or swings (the first half
#: swing, from rest, covers every later angle because the damping only takes energy away).
ENERGY_CASES = {
    "Fourbar1": ("j1.phi", "j1.w", ("b1", "b2", "b3"), 0.0, 0.0, True),
    "Fourbar_analytic": ("j1.phi", "j1.w", ("b1", "b2"), 0.0, 0.0, True),
    "Engine1a": ("inertia.phi", "inertia.w", ("piston", "connectingRod", "crank1", "crank2",
                                              "crank3", "crank4"), 1.0, 0.0, True),
    "PlanarFourbar": ("revolute1.phi", "revolute1.w", ("body1", "body2", "body3", "body4"),
                      0.0, 0.1, False),
}


@pytest.mark.parametrize("model", list(ENERGY_CASES))
def test_loop_references_lose_energy(model, msl, energy):
    """Why these loops are compared over their first seconds only: a one-degree-of-freedom
    mechanism has the energy E = M(q) qd^2 / 2 + V(q) (plus, with joint damping d, the work
    d qd^2 dissipated so far), with M and V functions of the coordinate q alone. Tabulated from
    acausal's result, they give the energy balance of any (q, qd) trajectory: constant to 2e-7
    of E along acausal's own run, but moving by more than 1e-5 of it along the reference (a
    gain or loss the model cannot have)."""
    from scipy.interpolate import CubicSpline

    from acausal.components.multibody import examples

    q, qd, bodies, flywheel, damping, turns = ENERGY_CASES[model]
    instance = getattr(examples, model)()
    cs = compile(instance)
    table = cs.simulate(1.0 if turns else 2.0, n_points=8001, rtol=1e-11, atol=1e-13)
    kinetic, potential = energy(table, cs, [getattr(instance, b) for b in bodies], split=True)
    kinetic = kinetic + 0.5 * flywheel * table[qd] ** 2
    if turns:  # one revolution of the coordinate
        assert table[q][-1] > 2 * np.pi
        rows = np.flatnonzero(table[q] <= 2 * np.pi)
    else:  # the first half swing, reversed so that the coordinate increases
        rows = np.arange(int(np.argmin(table[q])), -1, -1)
    moving = rows[np.abs(table[qd][rows]) > (0.0 if turns else 0.3)]  # M = 2K/qd^2 needs qd
    height = CubicSpline(table[q][rows], potential[rows])
    mass = CubicSpline(table[q][moving], 2 * kinetic[moving] / table[qd][moving] ** 2)

    def balance(t, angle, speed):
        angle = np.mod(angle, 2 * np.pi) if turns else angle
        work = np.concatenate([[0.0], np.cumsum(0.5 * damping * (speed[1:]**2 + speed[:-1]**2)
                                                * np.diff(t))])
        return 0.5 * mass(angle) * speed**2 + height(angle) + work

    ref = msl(model)
    run = cs.simulate(float(ref["time"][-1]), t_eval=ref["time"], rtol=1e-11, atol=1e-13)
    e0 = abs(kinetic[0] + potential[0])
    assert np.ptp(balance(run.t, run[q], run[qd])) < 2e-7 * e0
    assert np.ptp(balance(ref["time"], ref[q], ref[qd])) > 1e-5 * e0


@pytest.mark.xfail(strict=True, reason=(
    "the Dymola reference (DASSL, tolerance 1e-6) loses energy the model cannot lose "
    "(2.4e-5 and 1.2e-5 of it over 5 s: test_loop_references_lose_energy); its j1.w "
    "then differs from acausal's by 3.4e-4 and 2.7e-4 of the range at 5 s"))
@pytest.mark.parametrize("model", ["Fourbar1", "Fourbar_analytic"])
def test_four_bar_j1_w_over_the_whole_span(model, compare):
    from acausal.components.multibody import examples

    compare(compile(getattr(examples, model)()), model, names=["j1.w"], rtol=RTOL, atol=ATOL)


def wheel_energy(angles, rates, radius=0.3, m=2.0, inertia=(0.12, 0.06, 0.12), g=9.80665):
    """Energy of MultiBody's rolling wheel from its coordinates alone (angles about z, y, x
    and their rates), by hand: the centre sits one radius above the contact point, which does
    not move (v_centre = -w x delta)."""
    def rx(a):
        return np.array([[1, 0, 0], [0, np.cos(a), np.sin(a)], [0, -np.sin(a), np.cos(a)]])

    def ry(a):
        return np.array([[np.cos(a), 0, -np.sin(a)], [0, 1, 0], [np.sin(a), 0, np.cos(a)]])

    def rz(a):
        return np.array([[np.cos(a), np.sin(a), 0], [-np.sin(a), np.cos(a), 0], [0, 0, 1]])

    out = []
    for (a1, a2, a3), (d1, d2, d3) in zip(np.asarray(angles).T, np.asarray(rates).T):
        T = rx(a3) @ ry(a2) @ rz(a1)
        w = rx(a3) @ ry(a2) @ [0.0, 0.0, d1] + rx(a3) @ [0.0, d2, 0.0] + [d3, 0.0, 0.0]
        e_axis = T.T @ [0.0, 1.0, 0.0]
        e_long = np.cross([0.0, 0.0, 1.0], e_axis)
        e_long /= np.linalg.norm(e_long)
        delta = radius * np.cross(e_long, e_axis)  # centre to contact point
        v = -np.cross(T.T @ w, delta)
        out.append(0.5 * m * v @ v + 0.5 * np.dot(inertia, w * w) - m * g * delta[2])
    return np.array(out)


def test_rolling_wheel_reference_gains_energy(rolling_wheel, msl):
    ref = msl("RollingWheel")
    ours = rolling_wheel.simulate(4.0, t_eval=ref["time"], rtol=1e-11, atol=1e-13)
    e_ours = wheel_energy(ours["wheel1.angles"], ours["wheel1.der_angles"])
    e_ref = wheel_energy([ref[f"wheel1.angles[{k}]"] for k in range(3)],
                         [ref[f"wheel1.der_angles[{k}]"] for k in range(3)])
    assert e_ref[0] == pytest.approx(e_ours[0], rel=1e-12)
    assert np.ptp(e_ours) < 1e-8 * e_ours[0]
    assert np.ptp(e_ref) > 1e-5 * e_ours[0]
