"""CVODE's method chosen by the run (``integrator_options={"method": "auto"}``, the default;
``acausal/run/integrator_choice.py``).

A clearly stiff model (a mass on a stiff, heavily damped mount: eigenvalues -100 and -9 900 1/s,
pushed by a force of 1 rad/s) goes over to BDF; a clearly non-stiff one (a pendulum) stays with
Adams and is then the Adams run bit for bit; the user's choice wins; ``sol.stats["method"]``
says which method ran and why; a DAE reports IDA's BDF; the run that switches is as accurate as
BDF's own. Then the test itself on a stand-in problem (the check schedule, both switches, the
stop and its status) and the spectral radius, dense and sparse.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sps
import sympy as sp

import acausal.run.native as native
from acausal import Component, Eq, InputError, Parameter, Variable, compile, connect, der, time
from acausal.components.translational import Fixed, Force, Mass, SpringDamper
from acausal.run import integrator_choice, native_solver, sundials
from acausal.run.buffers import Buffered
from acausal.run.integrator_choice import MethodChoice, spectral_radius
from acausal.run.sundials import PROGRESS_EVERY, Settings

sys.path.insert(0, str(Path(__file__).parent))
from test_dynamic_state_selection import CartesianPendulum  # noqa: E402

RTOL = 1e-6


class StiffMount(Component):
    """A 1 kg mass on a mount of 1e6 N/m and 1e4 N s/m (overdamped: eigenvalues -100 and
    -9 900 1/s), pushed by ``amplitude sin(omega t)``: after a few milliseconds the mass follows
    the force quasi-statically, while an explicit-like method must keep ``h * 9 900`` small."""

    amplitude = Parameter(100.0, unit="N", description="amplitude of the force")
    omega = Parameter(1.0, unit="rad/s", description="angular frequency of the force")

    def __init__(self, **kw):
        super().__init__(**kw)
        self.ground = Fixed()
        self.mount = SpringDamper(c=1e6, d=1e4)
        self.mass = Mass(m=1.0, s=Variable(start=0.0, fixed=True),
                         v=Variable(start=0.0, fixed=True))
        self.push = Force()

    def equations(self):
        return [Eq(self.push.f, self.amplitude * sp.sin(self.omega * time))]

    def connections(self):
        return [connect(self.ground.flange, self.mount.flange_a),
                connect(self.mount.flange_b, self.mass.flange_a),
                connect(self.mass.flange_b, self.push.flange)]


class Pendulum(Component):
    """phi'' = -g/L sin(phi): undamped, its one mode resolved by any accurate step."""

    g = Parameter(9.81, unit="m/s2", description="gravity")
    L = Parameter(1.0, unit="m", description="length")
    phi = Variable(start=2.0, fixed=True, unit="rad")
    w = Variable(start=0.0, fixed=True, unit="rad/s")

    def equations(self):
        return [Eq(der(self.phi), self.w), Eq(der(self.w), -self.g / self.L * sp.sin(self.phi))]


@pytest.fixture(scope="module")
def stiff():
    return compile(StiffMount())


@pytest.fixture(scope="module")
def pendulum():
    return compile(Pendulum())


def run(cs, method: str, rtol: float = RTOL, t_end: float = 20.0, **options):
    options = {"atol": 1e-2 * rtol, "jit": False} | options
    return cs.simulate(t_end, rtol=rtol, integrator_options={"method": method}, **options)


def test_a_stiff_model_goes_over_to_bdf(stiff):
    auto, bdf, adams = (run(stiff, m) for m in ("auto", "BDF", "Adams"))
    method = auto.stats["method"]
    assert method.startswith("Adams, BDF from t = ") and "auto: stiff at t = " in method
    switched = float(method.split("BDF from t = ")[1].split(" ")[0])
    assert 0 < switched < 20.0
    # Adams up to the first check (512 right-hand sides), BDF after it: fewer right-hand
    # sides than Adams throughout, and the solver was stopped once for the switch
    assert auto.stats["rhs_evaluations"] < adams.stats["rhs_evaluations"]
    assert auto.stats["solver_calls"] == 2 == bdf.stats["solver_calls"] + 1
    # no output point lost or doubled across the stop
    assert np.array_equal(auto.t, bdf.t)


def test_the_switched_run_is_as_accurate_as_bdf(stiff):
    """Against a reference at rtol 1e-11: the run that changed its method mid-way is within
    twice BDF's own global error (plus one rtol of the variable's size)."""
    ref = run(stiff, "BDF", rtol=1e-11)
    auto, bdf = run(stiff, "auto"), run(stiff, "BDF")
    for name in ("mass.s", "mass.v"):
        size = np.max(np.abs(ref[name]))
        err_auto = np.max(np.abs(auto[name] - ref[name]))
        err_bdf = np.max(np.abs(bdf[name] - ref[name]))
        assert err_auto <= 2 * err_bdf + RTOL * size, name


def test_a_non_stiff_model_stays_with_adams_and_is_its_run(pendulum):
    auto, adams = run(pendulum, "auto", rtol=1e-8), run(pendulum, "Adams", rtol=1e-8)
    method = auto.stats["method"]
    assert method.startswith("Adams (auto: non-stiff, step x largest |eigenvalue| <= ")
    sigma = float(method.split("<= ")[1].split(" ")[0])
    assert 0 < sigma < integrator_choice.STIFF
    # the checks read what the solver did; without a switch they change nothing
    for name in ("phi", "w"):
        assert np.array_equal(auto[name], adams[name])
    assert auto.stats["rhs_evaluations"] == adams.stats["rhs_evaluations"]
    assert auto.stats["rhs_evaluations"] < run(pendulum, "BDF", rtol=1e-8).stats[
        "rhs_evaluations"]


def test_a_short_run_is_not_checked(pendulum):
    sol = run(pendulum, "auto", t_end=0.5)
    assert sol.stats["rhs_evaluations"] < integrator_choice.FIRST_CHECK
    assert sol.stats["method"] == ("Adams (auto: not checked, the run took fewer than 512 "
                                   "right-hand sides)")


def test_the_users_choice_wins(stiff, pendulum):
    adams = run(stiff, "Adams")
    assert adams.stats["method"] == "Adams (integrator_options)"
    assert adams.stats["solver_calls"] == 1  # no switch, however stiff
    assert run(pendulum, "BDF").stats["method"] == "BDF (integrator_options)"
    with pytest.raises(InputError, match="'auto'"):
        run(pendulum, "LSODA")


def test_a_dae_is_integrated_by_idas_bdf():
    sol = compile(CartesianPendulum()).simulate(1.0, rtol=1e-8, atol=1e-10)
    assert sol.stats["solver"] == "IDA" and sol.stats["method"] == "BDF (IDA)"


def test_the_native_driver_switches_too(stiff, c_compiler, tmp_path, monkeypatch):
    """The compiled driver polls Python every PROGRESS_EVERY right-hand sides of a call, as
    scikit-sundae's callbacks do over the run: a single-call run switches at the same poll."""
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "native-cache"))
    plain = run(stiff, "auto")
    driven = stiff.simulate(20.0, rtol=RTOL, atol=1e-2 * RTOL, jit=True)
    assert driven.stats["driver"] == "native"
    assert driven.stats["method"] == plain.stats["method"]
    assert np.abs(driven["mass.s"] - plain["mass.s"]).max() <= 1e-6 * np.abs(
        plain["mass.s"]).max()


class Pendulums(Component):
    """``n`` pendulums side by side (2n states): a Jacobian of 2 x 2 blocks, sparse for the
    solvers from 30 pendulums on, and no mode faster than the pendulums' own."""

    def __init__(self, n: int = 30, **kw):
        super().__init__(**kw)
        for i in range(n):
            setattr(self, f"p{i}", Pendulum(phi=Variable(start=0.5 + 0.05 * i, fixed=True,
                                                         unit="rad")))


class StiffMounts(Component):
    """``n`` stiff mounts side by side (2n states, sparse from 30 on)."""

    def __init__(self, n: int = 30, **kw):
        super().__init__(**kw)
        for i in range(n):
            setattr(self, f"m{i}", StiffMount(omega=1.0 + 0.01 * i))


@pytest.fixture(params=[False, True], ids=["scikit-sundae", "native"])
def driver_jit(request, tmp_path, monkeypatch):
    """``jit`` of a run on each driver: scikit-sundae's (the virtual machine; its fixed-point
    iteration is Newton's on a zero Jacobian) and the compiled driver (machine code, in a cache
    folder of the test's own)."""
    if request.param:
        request.getfixturevalue("c_compiler")
        monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "native-cache"))
    return request.param


def test_a_large_non_stiff_model_corrects_by_fixed_point_iteration(driver_jit):
    """Adams on a sparse Jacobian corrects by fixed-point iteration with either driver (no
    Jacobian built or evaluated) and is as accurate as Adams with Newton's iteration; both
    drivers run the same iteration (Newton's on a zero Jacobian), so they take the same steps.
    (15 s: a run long enough for the method test to look at it.)"""
    cs = compile(Pendulums())
    options = dict(rtol=1e-8, atol=1e-10, t_end=15.0)
    auto = run(cs, "auto", jit=driver_jit, **options)
    prob = sundials.problem_for(cs, [], driver_jit)
    assert prob.sparse and auto.stats["driver"] == ("native" if driver_jit else "scikit-sundae")
    method = auto.stats["method"]
    assert method.startswith("Adams (auto: non-stiff") and method.endswith(
        "; corrector: fixed-point iteration)")
    assert prob._jac_buffer is None  # never built
    if driver_jit:
        assert auto.stats["rhs_evaluations"] == run(cs, "auto", **options).stats[
            "rhs_evaluations"]
    ref = run(cs, "BDF", rtol=1e-11, t_end=15.0)
    newton = run(cs, "Adams", **options)  # the user's Adams: Newton's iteration
    for i in (0, 29):
        name = f"p{i}.phi"
        size = np.abs(ref[name]).max()
        err_fp = np.abs(auto[name] - ref[name]).max()
        err_newton = np.abs(newton[name] - ref[name]).max()
        assert err_fp <= 3 * err_newton + 10 * 1e-8 * size, name


def test_the_largest_problems_solve_the_diagonal_as_a_sparse_matrix(monkeypatch):
    """scikit-sundae's fixed-point iteration solves its diagonal systems as a band of width 0
    up to DIAGONAL_BAND_UP_TO unknowns (it keeps an n x n array for a band), as a sparse
    matrix above: the same iteration, so the same run."""
    cs = compile(Pendulums())
    options = dict(rtol=1e-8, atol=1e-10, t_end=2.0)
    band = run(cs, "auto", **options)
    monkeypatch.setattr(sundials, "DIAGONAL_BAND_UP_TO", 0)
    diagonal = run(compile(Pendulums()), "auto", **options)
    for sol in (band, diagonal):
        assert sol.stats["driver"] == "scikit-sundae"
        assert sol.stats["method"].endswith("; corrector: fixed-point iteration)")
    assert band.stats["rhs_evaluations"] == diagonal.stats["rhs_evaluations"]
    np.testing.assert_allclose(band["p29.phi"], diagonal["p29.phi"], rtol=0, atol=1e-12)


def test_fixed_point_iteration_from_thirty_unknowns_dense_or_sparse(driver_jit):
    """From ``FIXED_POINT_FROM`` unknowns on a dense problem corrects by fixed-point iteration
    too (its difference quotients cost n right-hand sides each); below, Adams keeps Newton's
    iteration with the quotients. Neither builds the exact Jacobian."""
    n = sundials.FIXED_POINT_FROM // 2
    for pendulums, fixed_point in ((n, True), (n - 1, False)):
        cs = compile(Pendulums(n=pendulums))
        sol = run(cs, "auto", jit=driver_jit, rtol=1e-8, atol=1e-10, t_end=2.0)
        prob = sundials.problem_for(cs, [], driver_jit)
        assert not prob.sparse
        assert sol.stats["driver"] == ("native" if driver_jit else "scikit-sundae")
        assert prob.fixed_point_asked is fixed_point
        assert sol.stats["method"].endswith("; corrector: fixed-point iteration)") \
            is fixed_point
        assert prob._jac_buffer is None  # neither builds the exact Jacobian
        # the zero Jacobian (scikit-sundae's fixed point): evaluated only every 51 steps,
        # and after convergence failures, which this non-stiff run hardly has
        steps, _, failures = prob.corrector_counts()
        assert failures <= integrator_choice.FIXED_POINT_FAILURES * steps


def test_a_large_model_in_the_virtual_machine_is_driven_from_c(c_compiler, tmp_path,
                                                               monkeypatch):
    """Before its machine code exists (jit="auto", the model's libraries not in the cache) a
    run that corrects by fixed-point iteration is driven by the compiled driver where that is
    in the cache, calling the virtual machine's functions back: the same steps and results as
    with the model's machine code."""
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "native-cache"))
    native_solver.prepare_driver()  # the driver only, not the model's functions
    options = dict(rtol=1e-8, atol=1e-10, t_end=5.0)
    vm = run(compile(Pendulums()), "auto", jit="auto", **options)
    assert vm.stats["driver"] == "native" and vm.stats["native_code"] == "none"
    assert vm.stats["method"].endswith("; corrector: fixed-point iteration)")
    compiled = run(compile(Pendulums()), "auto", jit=True, **options)
    assert compiled.stats["native_code"] == "compiled"
    assert vm.stats["rhs_evaluations"] == compiled.stats["rhs_evaluations"]
    np.testing.assert_allclose(vm["p29.phi"], compiled["p29.phi"], rtol=0, atol=1e-12)


def test_a_first_run_goes_over_to_the_driver_once_it_is_built(c_compiler, tmp_path,
                                                              monkeypatch):
    """With a cache that has no driver (a new cache folder), a run that corrects by fixed-point
    iteration starts on scikit-sundae (the same iteration); the background builder makes the
    driver first, and the run goes on with it, on the virtual machine's functions, while the
    model's machine code is still being built. It agrees with a run driven from the start to
    the integration's accuracy (the restart changes the steps after it)."""
    from acausal.run import tiering

    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "native-cache"))
    monkeypatch.setattr(native_solver, "_driver", None)  # none loaded in this process either
    # hot a fifth into the run: the build starts (and the driver is done) inside a solver call
    monkeypatch.setattr(tiering, "hot", lambda run_s, total_s, done: done >= 0.2)
    monkeypatch.setattr(sundials, "PROGRESS_EVERY", 64)

    class DriverDone:
        """The builder after the driver, before the model's libraries (never finished)."""

        error = ""

        def finished(self) -> bool:
            return False

    def start_background(planned, cc, extra=()):
        native_solver.prepare_driver()  # the first job: about a second
        return DriverDone()

    monkeypatch.setattr(native, "start_background", start_background)
    options = dict(rtol=1e-8, atol=1e-10, t_end=5.0, jit="auto")
    first = run(compile(Pendulums(n=15)), "auto", **options)
    assert first.stats["driver"] == "native/scikit-sundae"
    assert first.stats["native_code"] == "building"
    assert first.stats["method"].endswith("; corrector: fixed-point iteration)")
    assert first.stats["solver_calls"] == 2  # stopped once, for the driver
    later = run(compile(Pendulums(n=15)), "auto", **options)  # the driver from the start
    assert later.stats["driver"] == "native" and later.stats["solver_calls"] == 1
    # as accurate as Adams with Newton's iteration throughout (the user's "Adams"), as in
    # test_a_large_non_stiff_model_corrects_by_fixed_point_iteration
    cs = compile(Pendulums(n=15))
    ref = run(cs, "BDF", rtol=1e-11, t_end=5.0)
    newton = run(cs, "Adams", rtol=1e-8, atol=1e-10, t_end=5.0)
    for name in ("p0.phi", "p14.phi"):
        size = np.abs(ref[name]).max()
        err_newton = np.abs(newton[name] - ref[name]).max()
        for sol in (first, later):
            assert np.abs(sol[name] - ref[name]).max() <= 3 * err_newton + 10 * 1e-8 * size, \
                name


def test_a_large_first_run_starts_at_once_without_the_driver(c_compiler, tmp_path,
                                                             monkeypatch):
    """A sparse problem (60 unknowns or more) in a cache folder without the driver: jit="auto"
    starts at once on scikit-sundae, whose fixed-point iteration (Newton's on a zero Jacobian)
    builds no Jacobian either, instead of waiting a second for the driver's C compiler."""
    from acausal.run import tiering

    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "native-cache"))
    monkeypatch.setattr(native_solver, "_driver", None)  # none loaded in this process either
    monkeypatch.setattr(tiering, "hot", lambda *args: False)  # no background build,
    monkeypatch.setattr(tiering, "WARM_S", float("inf"))  # not even after the run
    cs = compile(Pendulums())
    sol = run(cs, "auto", jit="auto", rtol=1e-8, atol=1e-10, t_end=1.0)
    assert sol.stats["driver"] == "scikit-sundae" and sol.stats["native_code"] == "none"
    assert sol.stats["method"].endswith("; corrector: fixed-point iteration)")
    assert not native_solver.driver_job()[2].is_file()  # not built in this cache folder
    prob = sundials.problem_for(cs, [], "auto")
    assert prob.sparse and prob._jac_buffer is None  # never built


def test_an_exception_in_a_virtual_machine_function_is_raised(c_compiler, tmp_path,
                                                              monkeypatch):
    """What a function of the virtual machine raises inside the driver's call is raised after
    the solver returns (it cannot cross the C stack)."""
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "native-cache"))
    native_solver.prepare_driver()

    class Failing(Buffered):
        def __init__(self, function):
            super().__init__(function)
            if function.name() == "rhs":
                def fail():
                    raise ZeroDivisionError("raised in the right-hand side")
                self.raw = fail

    monkeypatch.setattr(native_solver, "Buffered", Failing)
    with pytest.raises(ZeroDivisionError, match="raised in the right-hand side"):
        run(compile(Pendulums()), "auto", jit="auto", t_end=1.0)


def test_fixed_point_iteration_gives_way_to_bdf_on_a_stiff_model(driver_jit):
    """On a stiff model the fixed-point iteration holds the step at h |lambda| of about 1: the
    method test finds sigma above STIFF_FIXED_POINT at its first check and the run goes on with
    BDF, as accurate as BDF's own run, with either driver."""
    cs = compile(StiffMounts())
    auto = run(cs, "auto", jit=driver_jit)
    method = auto.stats["method"]
    assert method.startswith("Adams, BDF from t = ") and method.endswith(
        "; corrector: fixed-point iteration)")
    sigma = float(method.split("|eigenvalue| = ")[1].split(";")[0])
    assert integrator_choice.STIFF_FIXED_POINT <= sigma < integrator_choice.STIFF
    assert auto.stats["rhs_evaluations"] < 2 * integrator_choice.FIRST_CHECK + run(
        cs, "BDF", jit=driver_jit).stats["rhs_evaluations"]
    ref = run(cs, "BDF", rtol=1e-11)
    for name in ("m0.mass.s", "m29.mass.v"):
        # within 20 local tolerances of the reference, as any run of this file; the values
        # (1e-4) are near the absolute tolerance (1e-8), which counts here
        size = np.abs(ref[name]).max()
        assert np.abs(auto[name] - ref[name]).max() <= 20 * (RTOL * size + 1e-2 * RTOL), name


def test_a_fixed_point_iteration_that_fails_goes_over_to_newtons(driver_jit, monkeypatch):
    """With the method test kept from taking BDF (its bound for the fixed point out of reach),
    the stiff mounts' fixed-point iteration fails to converge in many steps: the run goes on
    with Newton's iteration, with either driver (scikit-sundae's failures are counted from its
    zero Jacobian's evaluations, Problem.corrector_counts), and is as accurate as BDF's run."""
    monkeypatch.setattr(integrator_choice, "STIFF_FIXED_POINT", math.inf)
    cs = compile(StiffMounts())
    auto = run(cs, "auto", jit=driver_jit, t_end=2.0)
    method = auto.stats["method"]
    assert "; corrector: fixed-point iteration, Newton's from t = " in method
    t_newton = float(method.split("Newton's from t = ")[1].split(" ")[0])
    assert 0 < t_newton < 2.0
    ref = run(cs, "BDF", rtol=1e-11, t_end=2.0)
    for name in ("m0.mass.s", "m29.mass.v"):
        size = np.abs(ref[name]).max()
        assert np.abs(auto[name] - ref[name]).max() <= 20 * (RTOL * size + 1e-2 * RTOL), name


def test_a_failing_fixed_point_iteration_gives_way_to_newtons():
    """Where more than FIXED_POINT_FAILURES of the steps in a window failed to converge, the run
    goes on with Newton's iteration (the same method): the solver stops as for a switch."""
    choice = MethodChoice(Settings(1e-6, 1e-8, None), t_start=0.0)
    assert choice.settings.fixed_point
    prob = stand_in(np.eye(2))
    counts = {"now": (100, 150, 2)}  # steps, iterations, convergence failures
    prob.fixed_point = True
    prob.corrector_counts = lambda: counts["now"]
    choice.prepare(prob)
    poll = choice.monitor(prob, None)
    poll(0.1)  # 2 of 100 steps: goes on
    assert not choice.pending and choice.settings.fixed_point
    counts["now"] = (110, 170, 4)  # a window of 10 steps is too short to judge
    poll(0.2)
    assert not choice.pending
    counts["now"] = (130, 200, 9)  # 7 of 30 steps failed
    poll(0.3)
    assert choice.pending and prob.interrupted and not choice.settings.fixed_point
    assert choice.method == "Adams" and choice.switches == []
    assert choice.after_call(prob, 0.29, -4, {0: (None, prob)}) is True
    assert choice.newton_from == (0.29, 7, 30) and not prob.interrupted
    choice.prepare(prob)
    assert not prob.settings.fixed_point and prob.settings.method == "Adams"
    assert choice.describe([prob]).endswith(
        "corrector: fixed-point iteration, Newton's from t = 0.29 (7 of 30 steps failed to "
        "converge))")


@pytest.mark.parametrize("jit", [False, True], ids=["scikit-sundae", "native"])
def test_adams_takes_difference_quotients_and_builds_no_exact_jacobian(jit, request, tmp_path,
                                                                        monkeypatch):
    """CVODE's Adams on a dense Jacobian takes SUNDIALS' difference quotients (with either
    driver): the exact Jacobian is never built. BDF builds and evaluates it."""
    if jit:
        request.getfixturevalue("c_compiler")
        monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "native-cache"))
    cs = compile(StiffMount())
    adams = cs.simulate(0.05, rtol=RTOL, atol=1e-2 * RTOL, jit=jit,
                        integrator_options={"method": "Adams"})
    prob = sundials.problem_for(cs, [], jit)
    assert adams.stats["driver"] == ("native" if jit else "scikit-sundae")
    assert prob.quotient_jacobian and prob._jac_buffer is None
    bdf = cs.simulate(0.05, rtol=RTOL, atol=1e-2 * RTOL, jit=jit,
                      integrator_options={"method": "BDF"})
    assert not prob.quotient_jacobian and prob._jac_buffer is not None
    assert prob._jac_buffer.out[0].any()
    size = np.abs(bdf["mass.s"]).max()  # 4e-6 m: the absolute tolerance rules
    assert np.abs(adams["mass.s"] - bdf["mass.s"]).max() <= 20 * (RTOL * size + 1e-2 * RTOL)


def test_the_estimated_jacobian_has_the_models_eigenvalues(stiff):
    """Where the solver's Jacobian is SUNDIALS' own, the test estimates it at the solver's
    latest point by difference quotients: the mount's eigenvalues, the roots of
    s^2 + 1e4 s + 1e6 (about -101 and -9 899 1/s; in the solver's scaled unknowns, which leave
    eigenvalues as they are)."""
    run(stiff, "Adams", t_end=0.01)
    prob = sundials.problem_for(stiff, [], False)
    t, u = prob.last_point()
    assert 0 < t <= 0.01 and np.all(np.isfinite(u))
    jacobian = integrator_choice.estimated_jacobian(prob)
    eigenvalues = np.sort(np.linalg.eigvals(jacobian).real)
    assert eigenvalues == pytest.approx(np.sort(np.roots([1.0, 1e4, 1e6]).real), rel=1e-5)


# -- the test on a stand-in problem ------------------------------------------------------------
def stand_in(jacobian: np.ndarray):
    """What MethodChoice reads of a solver problem: its Jacobian buffer and counters."""
    rows, cols = np.nonzero(np.ones_like(jacobian))
    return SimpleNamespace(is_dae=False, eliminated=False, n_x=jacobian.shape[0], n_z=0,
                           fixed_point=False,
                           _jac_buffer=SimpleNamespace(out=[jacobian[rows, cols].copy()]),
                           _rows_nz=rows, _cols_nz=cols, calls=0, interrupted=False,
                           settings=None)


def test_checks_switch_both_ways_at_the_scheduled_right_hand_sides():
    choice = MethodChoice(Settings(1e-6, 1e-8, None), t_start=0.0)
    assert choice.method == "Adams" and choice.settings.method == "Adams"
    rho = 1e4  # eigenvalues -1e4 and -1: stiff at any step above 2e-4 / 1.5
    prob = stand_in(np.array([[-rho, 0.0], [0.0, -1.0]]))
    choice.prepare(prob)
    assert prob.settings is choice.settings
    poll = choice.monitor(prob, None)
    # 512 right-hand sides over 1 s: sigma = 1e4 / 512 > STIFF at the first check
    poll(1.0)
    assert choice.pending and prob.interrupted and choice.method == "BDF"
    # the solver returns with a failure at its last step, t = 0.9: a stop, not a failure
    assert choice.after_call(prob, 0.9, -4, {0: (None, prob)}) is True
    assert not prob.interrupted and not choice.pending
    assert choice.switches == [(0.9, "BDF", pytest.approx(rho / PROGRESS_EVERY))]
    choice.prepare(prob)
    assert prob.settings.method == "BDF"
    # the switch forgot the Adams run's Jacobian; BDF's solver evaluates its own
    assert not prob._jac_buffer.out[0].any()
    prob._jac_buffer.out[0][:] = np.array([-rho, 0.0, 0.0, -1.0])
    # the next check after 1024 right-hand sides in all; a tiny step (1e-9 s per right-hand
    # side: sigma = 1e-5) at the end of a call switches back without a stop
    prob.calls = 2 * PROGRESS_EVERY
    assert choice.after_call(prob, 0.9 + 512e-9, 0, {0: (None, prob)}) is False
    assert choice.method == "Adams" and not prob.interrupted
    assert choice.next_check == 4 * PROGRESS_EVERY
    text = choice.describe([prob])
    assert text.startswith("Adams, BDF from t = 0.9, Adams from t = 0.9")
    assert "stiff at t = 0.9" in text and "non-stiff at t = 0.9" in text


def test_a_user_method_and_a_dae_install_no_check():
    prob = stand_in(np.eye(2))
    choice = MethodChoice(Settings(1e-6, 1e-8, None, method="BDF"), t_start=0.0)
    report = object()
    assert choice.monitor(prob, report) is report
    assert choice.after_call(prob, 1.0, -4, {}) is False
    dae = MethodChoice(Settings(1e-6, 1e-8, None), t_start=0.0)
    prob.is_dae = True
    assert dae.monitor(prob, None) is None and dae.describe([prob]) == "BDF (IDA)"


def test_spectral_radius_dense_and_sparse():
    # the second-difference matrix: eigenvalues -2 + 2 cos(k pi / (n + 1)), k = 1..n
    for n in (50, 200, 1000):
        band = sps.diags([np.ones(n - 1), -2 * np.ones(n), np.ones(n - 1)], [-1, 0, 1])
        exact = 2 - 2 * math.cos(n * math.pi / (n + 1))
        matrix = band.toarray() if n <= integrator_choice.DENSE_EIGENVALUES else band.tocsr()
        assert spectral_radius(matrix) == pytest.approx(exact, rel=1e-2)
        # the products alone (what a run without an exact Jacobian gives the test)
        products = sps.linalg.LinearOperator((n, n), matvec=lambda v, b=band: b @ v)
        assert spectral_radius(products) == pytest.approx(exact, rel=1e-2)
    rotation = np.array([[0.0, -3.0], [3.0, 0.0]])  # +-3i: the magnitude, not the real part
    assert spectral_radius(rotation) == pytest.approx(3.0)
