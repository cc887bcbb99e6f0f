"""The compiled solver driver (``simulate(jit=True)``, ``acausal/run/native_solver.py``).

The driver makes the same SUNDIALS calls with the same settings as scikit-sundae's normal-mode
solve and evaluates the same compiled functions, so a run through it must be the run through
scikit-sundae's Python callbacks bit for bit: the same arrays, the same numbers of right-hand
sides, root functions, events and state checks. Checked on each kind of problem it drives: an
ODE with state events (CVODE and root functions), a DAE with dynamic state selection (IDA, the
run loop's watch root function called back in Python) and a chain whose linear loop the driver
solves itself (LU with partial pivoting instead of LAPACK's: the same solution up to rounding,
checked against the run without native code and by energy conservation). Then what a user sees
of it: the progress display and Ctrl-C (with and without the display), an exception in a Python
callback, and the fallback where the driver is not available.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

import acausal.run.native as native
import acausal.run.native_solver as native_solver
import acausal.run.sundials as sundials
from acausal import Component, Eq, SimulationError, Variable, compile, der
from acausal.compiler.realize import torn_linear_loops
from acausal.components.multibody.chains import SpatialChain
from acausal.components.multibody.energy import mechanical_energy

sys.path.insert(0, str(Path(__file__).parent))
from test_dynamic_state_selection import CartesianPendulum  # noqa: E402
from test_events import BouncingBall, ModeSwitchedLoop  # noqa: E402
from test_native_code import CountedOscillator  # noqa: E402
from test_progress import Decay, _interrupt_on_update  # noqa: E402


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "native-cache"))


@pytest.fixture
def without_driver(monkeypatch):
    """Runs that keep scikit-sundae (compiled functions, Python callbacks)."""
    def off():
        monkeypatch.setattr(native_solver, "_driver", (None, "switched off by the test", False))
    return off


def twin_runs(model_class, without_driver, t_end, **options):
    """The same model compiled twice, simulated with the driver and without it."""
    driven = compile(model_class()).simulate(t_end, jit=True, **options)
    assert driven.stats["driver"] == "native"
    without_driver()
    called_back = compile(model_class()).simulate(t_end, jit=True, **options)
    assert called_back.stats["driver"] == "scikit-sundae"
    return driven, called_back


def assert_identical(a, b, names):
    assert np.array_equal(a.t, b.t)
    for name in names:
        assert np.array_equal(a[name], b[name]), name
    for key in ("rhs_evaluations", "root_evaluations", "events", "solver_calls",
                "state_checks"):
        assert a.stats[key] == b.stats[key], key
    assert [t for t, _ in a.events] == [t for t, _ in b.events]


@pytest.mark.parametrize("model, t_end", [(CountedOscillator, 15.0), (BouncingBall, 2.5),
                                          (ModeSwitchedLoop, 4.0)])
def test_an_ode_with_events_is_the_same_run_bit_for_bit(model, t_end, without_driver,
                                                        c_compiler):
    driven, called_back = twin_runs(model, without_driver, t_end, rtol=1e-10, atol=1e-12)
    cs = driven.compiled
    assert_identical(driven, called_back, cs.state_names + cs.algebraic_names)
    assert driven.events  # the root functions were called from C and found the events


def test_a_dae_with_dynamic_state_selection_is_the_same_run(without_driver, c_compiler):
    driven, called_back = twin_runs(CartesianPendulum, without_driver, 3.0, rtol=1e-8,
                                    atol=1e-10)
    assert driven.stats["solver"] == "IDA" and driven.state_switches
    assert driven.state_switches == called_back.state_switches
    assert_identical(driven, called_back, ["x", "y", "vx", "vy", "lam"])


def test_ida_jacobian_is_machine_code_that_the_driver_calls(monkeypatch, without_driver,
                                                             c_compiler):
    """IDA's Jacobian is compiled with the residual (``-O0``: quick to build), gives the
    virtual machine's numbers exactly, and the driver evaluates it without Python: the
    Jacobian callback is not called, and the run is scikit-sundae's (which calls the same
    compiled Jacobian through Python) bit for bit."""
    cs = compile(CartesianPendulum())
    native_prob = sundials.problem_for(cs, [], True)
    vm_prob = sundials.problem_for(cs, [], False)
    assert [slot for slot, _, name in native_prob._native if name == "res_jac"] == [3]
    [jac_plan] = [p for p in native.plan(native_prob.native_functions(), c_compiler)
                  if p.function.name() == "res_jac"]
    assert jac_plan.flags == ("-O0",)
    rng = np.random.default_rng(3)
    for _ in range(5):
        for name, value in vm_prob._jac.arg.items():
            native_prob._jac.arg[name][:] = vm_prob._jac.arg[name][:] = rng.normal(size=value.size)
        native_prob._jac()
        vm_prob._jac()
        assert np.array_equal(native_prob._jac.out[0], vm_prob._jac.out[0])
    called = []
    python_jacobian = native_solver.NativeSolver._jacobian

    def counted(self, t, cj):
        called.append(t)
        return python_jacobian(self, t, cj)

    monkeypatch.setattr(native_solver.NativeSolver, "_jacobian", counted)
    driven, called_back = twin_runs(CartesianPendulum, without_driver, 3.0, rtol=1e-8,
                                    atol=1e-10)
    assert driven.stats["solver"] == "IDA" and not called
    assert_identical(driven, called_back, ["x", "y", "vx", "vy", "lam"])


class Chain15(SpatialChain):
    """The 15-link spatial chain: 30 states, where Adams corrects by fixed-point iteration."""

    def __init__(self, **kw):
        super().__init__(n=15, **kw)


def test_fixed_point_iteration_is_the_same_run_with_either_driver(without_driver, c_compiler):
    """Both drivers run the fixed-point iteration as Newton's on a zero Jacobian (a band of
    width 0), so the run is the same bit for bit."""
    driven, called_back = twin_runs(Chain15, without_driver, 2.0, rtol=1e-8, atol=1e-8)
    for sol in (driven, called_back):
        assert sol.stats["method"].endswith("; corrector: fixed-point iteration)")
    assert_identical(driven, called_back, driven.compiled.state_names)


def test_the_drivers_warnings_file_is_removed_when_the_process_ends(c_compiler, tmp_path):
    """SUNDIALS' warnings file of a solver that lives until the interpreter exits (a compiled
    model kept in a module's globals) does not stay behind in the temporary folder."""
    import subprocess

    script = ("from acausal import compile\n"
              "from test_native_code import CountedOscillator\n"
              "cs = compile(CountedOscillator())\n"
              "sol = cs.simulate(1.0, jit=True)\n"
              "assert sol.stats['driver'] == 'native', sol.stats\n")
    temp = tmp_path / "temp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp),
               PYTHONPATH=os.pathsep.join([str(Path(__file__).parent),
                                           os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=300)
    assert not list(temp.glob("acausal-sundials-*"))


def test_a_linear_loop_solved_by_the_driver(c_compiler):
    """8 links: 14 tear variables, z = -A^-1 b by the driver's LU at every right-hand side."""
    rtol = 1e-10
    models = [SpatialChain(n=8) for _ in range(2)]
    with torn_linear_loops():  # the compiler would eliminate this tree's loop
        compiled = [compile(m) for m in models]
    plain, driven = (cs.simulate(2.0, rtol=rtol, atol=rtol, jit=jit,
                                 integrator_options={"method": "Adams"})
                     for cs, jit in zip(compiled, (False, True)))
    assert driven.stats["driver"] == "native" and plain.stats["driver"] == "scikit-sundae"
    tip = "links[7].frame_b.r_0"
    # two LUs of the same matrix differ by rounding; the integration keeps that near its own
    # error (a chain of 8 links is not yet chaotic over 2 s)
    assert np.abs(driven[tip] - plain[tip]).max() < 1e3 * rtol
    kinetic, potential = mechanical_energy(driven, driven.compiled, models[1].links, split=True)
    energy = kinetic + potential  # no damping: conserved up to the integration error
    assert np.abs(energy - energy[0]).max() < 1e-6 * kinetic.max()
    # the loop's unknowns at the output points solve the loop's equations
    cs = driven.compiled
    residuals = cs.function("alg")(driven.t.reshape(1, -1), driven.x, driven.z,
                                   cs.parameter_vector())
    assert np.abs(np.array(residuals)).max() < 1e-8


@pytest.mark.parametrize("how", ["raise", "signal"])
def test_ctrl_c_with_the_display_returns_the_solution_so_far(monkeypatch, how, c_compiler):
    _interrupt_on_update(monkeypatch, 40, how)
    sol = compile(Decay()).simulate(5.0, n_points=501, progress=True, rtol=1e-10, atol=1e-12,
                                    jit=True)
    assert sol.stats["driver"] == "native"
    assert sol.interrupted
    assert 2 <= sol.t.size < 501 and sol.t[-1] < 5.0
    np.testing.assert_allclose(sol["x"], np.exp(-sol.t), rtol=1e-5)


def test_ctrl_c_without_the_display_raises_keyboard_interrupt(monkeypatch, c_compiler):
    """Python's own handler would raise inside a callback from C, where the exception cannot
    pass: the driver stops at its next poll and KeyboardInterrupt is raised after it."""
    # BDF throughout: the bound below is a share of its right-hand sides (Adams needs half as
    # many here, while the stop takes as many evaluations)
    bdf = {"method": "BDF"}
    whole = compile(Decay()).simulate(5.0, rtol=1e-10, atol=1e-12, jit=True,
                                      integrator_options=bdf)
    polls = {"n": 0}
    original = native_solver.NativeSolver._poll

    def poll(self, t):
        polls["n"] += 1
        if polls["n"] == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return original(self, t)

    monkeypatch.setattr(native_solver.NativeSolver, "_poll", poll)
    monkeypatch.setattr("acausal.run.sundials.PROGRESS_EVERY", 1)
    with pytest.raises(KeyboardInterrupt):
        compile(Decay()).simulate(5.0, rtol=1e-10, atol=1e-12, jit=True,
                                  integrator_options=bdf)
    # stopped at once (the solver's failing retries after the NaN right-hand side, a few dozen
    # evaluations), not at the end of the run
    assert polls["n"] < whole.stats["rhs_evaluations"] / 4
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_exception_in_the_jacobian_callback_is_raised(monkeypatch, c_compiler):
    cs = compile(Decay())

    def broken(self, t, cj):
        self._error = ZeroDivisionError("raised in the Jacobian")
        return 1

    monkeypatch.setattr(native_solver.NativeSolver, "_jacobian", broken)
    # BDF: Adams on a dense Jacobian takes SUNDIALS' difference quotients, no callback
    with pytest.raises(ZeroDivisionError, match="raised in the Jacobian"):
        cs.simulate(1.0, jit=True, integrator_options={"method": "BDF"})


def test_without_the_driver_jit_keeps_python_callbacks(without_driver, c_compiler):
    without_driver()
    sol = compile(Decay()).simulate(2.0, rtol=1e-10, atol=1e-12, jit=True)
    assert sol.stats["driver"] == "scikit-sundae"
    np.testing.assert_allclose(sol["x"], np.exp(-sol.t), rtol=1e-7)


def test_the_driver_reports_why_it_is_missing(monkeypatch):
    monkeypatch.setattr(native_solver, "_driver", None)
    monkeypatch.setattr(native_solver, "REQUIRED", ("sundials_no_such_library",))
    with pytest.warns(RuntimeWarning, match="sundials_no_such_library"):
        lib, why = native_solver.driver()
    assert lib is None and "sundials_no_such_library" in why


class BlowUp(Component):
    """x' = x^2 from x = 1: x = 1 / (1 - t) leaves every bound at t = 1."""

    x = Variable(start=1.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), self.x**2)]


def test_a_failing_run_is_reported_as_without_the_driver(without_driver, c_compiler):
    """The same flag, time and advice; SUNDIALS' own words come from the driver's error
    handler and its warnings file instead of the terminal."""
    messages = []
    for off in (False, True):
        if off:
            without_driver()
        with pytest.raises(SimulationError) as info:
            # BDF: the time below is where its step size underflows (Adams' is later)
            compile(BlowUp()).simulate(2.0, jit=True, integrator_options={"method": "BDF"})
        messages.append(str(info.value))
        assert info.value.solution.stats["driver"] == ("scikit-sundae" if off else "native")
    for text in messages:
        assert "CV_TOO_MUCH_WORK" in text and "at t = 0.99998" in text
        assert "The step size fell to its minimum" in text  # SUNDIALS warned: t + h = t
    assert "mxstep steps taken" in messages[0]  # the driver quotes SUNDIALS' error
