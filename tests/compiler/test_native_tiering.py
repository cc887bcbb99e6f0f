"""``simulate(jit="auto")``, the default: a run starts in CasADi's virtual machine and switches to
machine code between two solver steps once a background process has built it (or loads it from
the cache at the start).

A switch restarts the solver at the step it stopped at, so a switched run is not the same run
bit for bit: it must agree with a run in either tier (``jit=False``, ``jit=True``) to the
integration's accuracy, with the same output grid, no point lost or doubled, and the same events.
Checked on the three kinds of solver problem (an ODE with state events, a DAE for IDA with
dynamic state selection, a linear loop solved in the right-hand side). When a run is hot enough
is a matter of wall time (``tiering.hot``); the tests make it a matter of the run's progress and
wait for the build (``WAIT_FOR_BUILD_S``), so the switch happens at a known place, and check the
progress callback often (``PROGRESS_EVERY``), so it happens inside a solver call.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import casadi as ca
import numpy as np
import pytest

import acausal.run.native as native
import acausal.run.native_build as native_build
import acausal.run.sundials as sundials
import acausal.run.tiering as tiering
from acausal import InputError, compile
from acausal.compiler.realize import torn_linear_loops
from acausal.components.multibody.chains import SpatialChain
from acausal.run.event_detection import split_indicators

sys.path.insert(0, str(Path(__file__).parent))
from test_dynamic_state_selection import CartesianPendulum  # noqa: E402
from test_events import ModeSwitchedLoop  # noqa: E402
from test_native_code import CountedOscillator  # noqa: E402

RTOL = 1e-10


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One cache folder for the module: the solver driver is built once; each model's own
    libraries start missing (every test compiles its model anew, nothing else builds them)."""
    return tmp_path_factory.mktemp("native-cache")


@pytest.fixture(autouse=True)
def cache(shared_cache, monkeypatch):
    monkeypatch.setenv(native.CACHE_ENV, str(shared_cache))
    monkeypatch.setattr(tiering, "_warned", False)
    return shared_cache


def switch_after(monkeypatch, fraction: float) -> None:
    """Runs are hot from ``fraction`` of their time span on; a started build is waited for,
    and the progress callback looks every 16 right-hand sides."""
    monkeypatch.setattr(tiering, "hot", lambda run_s, total_s, done: done >= fraction)
    monkeypatch.setattr(tiering, "WAIT_FOR_BUILD_S", 300.0)
    monkeypatch.setattr(sundials, "PROGRESS_EVERY", 16)


def numeric_loop_chain():
    """8 links whose linear loop (14 tear variables) stays a numeric solve in the right-hand
    side (compiled with :func:`torn_linear_loops`, as a loop whose remainder must be solved
    numerically)."""
    return SpatialChain(n=8)


CASES = {  # model, end time, switch after this part of the run, variables, kind of problem
    # (the first stretch between the oscillator's stops is [pi/2, 3 pi/2]: 0.15 is inside)
    "ode with events": (CountedOscillator, 15.0, 0.15, ["x", "v", "crossings"], "CVODE"),
    "dae with state selection": (CartesianPendulum, 3.0, 0.3, ["x", "y", "vx", "vy", "lam"],
                                 "IDA"),
    "linear loop": (numeric_loop_chain, 1.0, 0.3, ["links[7].frame_b.r_0"], "loop"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_run_switched_mid_run_agrees_with_either_tier(case, monkeypatch, c_compiler):
    model, t_end, fraction, names, kind = CASES[case]
    options = {"rtol": RTOL, "atol": 1e-12}
    switch_after(monkeypatch, fraction)
    with torn_linear_loops():
        cs, again = compile(model()), compile(model())
    vm = cs.simulate(t_end, jit=False, **options)
    switched = cs.simulate(t_end, **options)  # jit="auto" by default
    native_run = again.simulate(t_end, jit=True, **options)

    stats = switched.stats
    prob = sundials.problem_for(cs, split_indicators(cs)[0], "auto")
    assert (prob.eliminated if kind == "loop" else prob.solver_name == kind)
    assert stats["native_code"] == "switched" and stats["driver"] == "native/scikit-sundae"
    assert vm.stats["native_code"] == "none" and vm.stats["driver"] == "scikit-sundae"
    assert native_run.stats["native_code"] == "cache"  # the switched run's libraries
    t_switch = stats["native_switch"]["t"]
    assert fraction * t_end <= t_switch < t_end and stats["native_switch"]["wall_s"] > 0
    # inside a solver call: one call more than the run in the virtual machine
    assert stats["solver_calls"] == vm.stats["solver_calls"] + 1
    # the same output grid, each point once, and the same events
    assert np.array_equal(switched.t, vm.t)
    assert [labels for _, labels in switched.events] == [labels for _, labels in vm.events]
    for other in (vm, native_run):
        np.testing.assert_allclose([t for t, _ in switched.events],
                                   [t for t, _ in other.events], rtol=0, atol=1e3 * RTOL)
        for name in names:
            # the restart at the switch changes the steps after it: agreement to the
            # integration's error (about rtol per unit of time, amplified over the run), not
            # to rounding
            scale = max(1.0, np.abs(other[name]).max())
            assert np.abs(switched[name] - other[name]).max() < 1e3 * RTOL * scale, name


def test_a_model_whose_code_is_in_the_cache_runs_on_it_from_the_start(monkeypatch, c_compiler):
    compile(CountedOscillator()).simulate(3.0, jit=True)  # builds the libraries

    def no_build(*args, **kwargs):
        raise AssertionError("a compiler ran although the libraries are in the cache")

    monkeypatch.setattr(native_build, "build", no_build)
    monkeypatch.setattr(native, "start_background", no_build)
    sol = compile(CountedOscillator()).simulate(3.0)
    assert sol.stats["native_code"] == "cache" and sol.stats["driver"] == "native"
    assert sol.stats["native_switch"] is None


def test_a_short_run_starts_no_build(monkeypatch, tmp_path, c_compiler):
    """The threshold as shipped: a run of milliseconds stays in the virtual machine."""
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path))
    started = []
    monkeypatch.setattr(native, "start_background", lambda *a, **k: started.append(a))
    sol = compile(ModeSwitchedLoop()).simulate(4.0)
    assert not started and sol.stats["native_code"] == "none"
    assert sol.stats["driver"] == "scikit-sundae"


def test_a_warm_run_leaves_its_native_code_for_the_next_run(monkeypatch, tmp_path, c_compiler):
    """A run that is not hot but spends WARM_S in the virtual machine starts the build when it
    ends (it would only have competed with the run for the processor); the next run of the
    model, in any process, runs on the machine code from its start."""
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(tiering, "hot", lambda *args: False)
    monkeypatch.setattr(tiering, "WARM_S", 0.0)
    started = []
    original = native.start_background

    def recorded(*args, **kwargs):
        started.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(native, "start_background", recorded)
    first = compile(CountedOscillator()).simulate(3.0)
    assert len(started) == 1 and first.stats["native_code"] == "building"
    assert first.stats["driver"] == "scikit-sundae"  # the whole run in the virtual machine
    deadline = time.monotonic() + 300.0
    while list(tmp_path.glob("*.building")) or list(tmp_path.glob(".job-*")):
        assert time.monotonic() < deadline, "the background build did not end"
        time.sleep(0.05)
    second = compile(CountedOscillator()).simulate(3.0)
    assert second.stats["native_code"] == "cache" and second.stats["driver"] == "native"
    assert len(started) == 1
    assert np.abs(second["x"] - first["x"]).max() < 1e-5  # both at the default tolerances


def test_without_a_c_compiler_auto_runs_in_the_virtual_machine_silently(monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    monkeypatch.setattr(tiering, "hot", lambda *args: True)
    cs = compile(CountedOscillator())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not one warning
        sol = cs.simulate(15.0, rtol=RTOL, atol=1e-12)
    assert sol.stats["native_code"] == "no compiler" and sol.stats["driver"] == "scikit-sundae"
    plain = cs.simulate(15.0, rtol=RTOL, atol=1e-12, jit=False)
    assert np.array_equal(sol["x"], plain["x"])  # the very same run


@pytest.mark.skipif(sys.platform.startswith("win"), reason="a shell script as the compiler")
def test_a_failing_build_is_said_once_and_the_runs_go_on(monkeypatch, tmp_path):
    fake = tmp_path / "fakecc"
    fake.write_text("#!/bin/sh\necho 'fatal: out of cheese' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    switch_after(monkeypatch, 0.0)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        runs = [compile(model()).simulate(2.0) for model in (CountedOscillator, ModeSwitchedLoop)]
    ours = [w for w in said if "jit='auto'" in str(w.message)]
    assert len(ours) == 1 and issubclass(ours[0].category, RuntimeWarning)
    assert "out of cheese" in str(ours[0].message)
    for sol in runs:
        assert sol.stats["native_code"] == "failed" and sol.stats["driver"] == "scikit-sundae"
        assert sol.t[-1] == 2.0


@pytest.mark.parametrize("jit", ["yes", 1, None, "True"])
def test_jit_is_auto_true_or_false(jit):
    with pytest.raises(InputError, match="jit must be 'auto', True or False"):
        compile(CountedOscillator()).simulate(1.0, jit=jit)


@pytest.mark.parametrize("chunk, spill", [(40, 0), (0, 5), (40, 5)])
def test_a_split_function_computes_what_casadi_computes(chunk, spill, tmp_path, c_compiler):
    """The pieces of a function cut by native_build.split_body, its long-lived values spilled
    to memory or both: the same operations in the same order, so the same numbers (gcc
    contracts no multiply-add without being asked on x86-64; elsewhere rounding may differ in
    the last bits)."""
    x = ca.SX.sym("x", 6)
    y = x
    for k in range(60):  # a few hundred statements, locals reused across the pieces
        y = ca.sin(y * (1 + 0.01 * k)) + ca.sqrt(ca.fabs(y)) * y[::-1]
    f = ca.Function("pieces", [x], [y, ca.sum1(y)], ["x"], ["y", "s"])
    source = native_build.c_source(f, chunk=chunk, spill=spill)
    assert ("casadi_piece3(" in source) == (chunk > 0)
    assert ("v[" in source) == (spill > 0)  # values read more than 5 statements later
    c_file = tmp_path / "pieces.c"
    c_file.write_text(source)
    library = tmp_path / "pieces.so"
    subprocess.run([c_compiler, "-shared", "-fPIC", "-O1", str(c_file), "-o", str(library),
                    "-lm"], check=True)
    compiled = ca.external("pieces", str(library))
    assert compiled.sz_w() >= f.sz_w()  # the locals live in CasADi's work vector
    rng = np.random.default_rng(3)
    for _ in range(5):
        point = rng.uniform(-2, 2, 6)
        for ours, theirs in zip(compiled(point), f(point)):
            np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-15, atol=0)


@pytest.mark.skipif(sys.platform.startswith("win"), reason="units are not cut on Windows")
@pytest.mark.parametrize("flags", [("-O0",), ("-O1",)])
def test_a_function_compiled_in_units_side_by_side_computes_what_casadi_computes(
        flags, tmp_path, c_compiler):
    """native_build.build with parts > 1: the pieces in files of their own, compiled by one
    process each and linked (split_units), helpers such as casadi_sq and fmax included: the
    same numbers as CasADi's virtual machine, and as the library built from one file."""
    from acausal.base.c_compiler import shared_library_command

    x = ca.SX.sym("x", 6)
    y = x
    for k in range(60):
        y = ca.fmax(ca.sin(y * (1 + 0.01 * k)), -0.5) + ca.sqrt(y ** 2 + 1) * y[::-1]
    f = ca.Function("units", [x], [y, ca.sum1(y)], ["x"], ["y", "s"])
    source = native_build.c_source(f, chunk=40)
    units = native_build.split_units(source, 3)
    assert units is not None and len(units) == 4  # the declarations, then three runs
    assert native_build.split_units(source, 1) is None
    command = shared_library_command(c_compiler, ["{source}"], "{output}", flags=flags,
                                     hide_symbols=False)
    libraries = {}
    for parts in (1, 3):
        work = tmp_path / f"work{parts}"
        work.mkdir()
        libraries[parts] = tmp_path / f"units{parts}.so"
        native_build.build(source, command, libraries[parts], work, parts)
    assert sorted(p.name for p in (tmp_path / "work3").iterdir()) == [
        f"unit{k}.{ext}" for k in range(4) for ext in ("c", "o")]
    split, whole = (ca.external("units", str(libraries[k])) for k in (3, 1))
    rng = np.random.default_rng(5)
    for _ in range(5):
        point = rng.uniform(-2, 2, 6)
        for ours, one_file, theirs in zip(split(point), whole(point), f(point)):
            np.testing.assert_array_equal(np.array(ours), np.array(one_file))
            np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-15, atol=0)


def test_a_cut_the_compiler_refuses_falls_back_to_the_one_file(monkeypatch, tmp_path,
                                                                c_compiler):
    """The side-by-side build is an optimisation: cut files that do not compile leave the
    library to the one-file build, not to an error."""
    from acausal.base.c_compiler import shared_library_command

    x = ca.SX.sym("x", 2)
    f = ca.Function("fallback", [x], [ca.sin(x) * x[::-1]])
    monkeypatch.setattr(native_build, "split_units",
                        lambda source, parts: [source, "this is not C;"])
    command = shared_library_command(c_compiler, ["{source}"], "{output}", flags=("-O0",),
                                     hide_symbols=False)
    library = tmp_path / "fallback.so"
    native_build.build(native_build.c_source(f), command, library, tmp_path, parts=2)
    compiled = ca.external("fallback", str(library))
    np.testing.assert_array_equal(np.array(compiled([0.3, -1.2])), np.array(f([0.3, -1.2])))


def test_the_plan_cuts_only_large_functions_into_pieces(tmp_path, c_compiler):
    """-O1 in one piece below native.SPLIT_FROM instructions, spilled and in pieces from there
    up to OPTIMISE_UP_TO; -O0 above (in halves) and for IDA's Jacobian (native.QUICK_TO_BUILD)
    whatever its size, each with its -O1 upgrade, which the plan takes once it is in the
    cache. The layout is part of the library's key."""
    x = ca.SX.sym("x")

    def sized(name: str, n: int) -> ca.Function:
        """A function of x with n instructions or a few more."""
        terms = max(1, n // 4)
        while True:
            f = ca.Function(name, [x], [ca.sum1(ca.sin(x * ca.DM(np.arange(1.0, terms + 1))))])
            if f.n_instructions() >= n:
                return f
            terms += max(1, (n - f.n_instructions()) // 3)

    small = sized("small", native.SPLIT_FROM - 100)
    large = sized("large", native.SPLIT_FROM)
    huge = sized("huge", native.OPTIMISE_UP_TO + 1)
    jacobian = sized("res_jac", 10)
    plans = native.plan([small, large, huge, jacobian], c_compiler, tmp_path)
    spilled = (("-O1",), native_build.CHUNK, native_build.SPILL_AFTER)
    assert [(p.flags, p.chunk, p.spill) for p in plans] == [
        (("-O1",), 0, 0), spilled, (("-O0",), -native.UNOPTIMISED_PIECES, 0), (("-O0",), 0, 0)]
    assert [p.upgrade is not None for p in plans] == [False, False, True, True]
    assert [(u.flags, u.chunk, u.spill) for u in native.upgrades(plans)] == [
        spilled, (("-O1",), 0, 0)]
    assert len({p.library for p in plans} | {u.library for u in native.upgrades(plans)}) == 6
    plans[2].upgrade.library.write_bytes(b"")  # as if the builder had made it
    again = native.plan([small, large, huge, jacobian], c_compiler, tmp_path)
    assert again[2] == plans[2].upgrade and again[3] == plans[3]
    assert native.upgrades(again) == [plans[3].upgrade]


def test_a_run_on_quick_code_leaves_its_optimised_code_for_the_next_run(monkeypatch, tmp_path):
    """A function in the -O0 range (here every function: OPTIMISE_UP_TO = 0) is built -O0
    for the run that needs it, and its -O1 upgrade in the background (native.start_upgrades):
    the next run loads that from the cache, with the same results within the tolerances."""
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path))  # no -O1 library of the model yet
    monkeypatch.setattr(native, "OPTIMISE_UP_TO", 0)
    cs = compile(CountedOscillator())
    functions = sundials.problem_for(cs, split_indicators(cs)[0], False).native_functions()
    planned = native.plan(functions, native.find_c_compiler())
    assert planned and all(p.flags == ("-O0",) and p.upgrade is not None for p in planned)
    options = {"rtol": 1e-10, "atol": 1e-12}
    first = cs.simulate(15.0, jit=True, **options)
    assert first.stats["native_code"] == "compiled"
    for upgrade in [p.upgrade for p in planned]:
        build = native.in_flight(upgrade.library)
        assert build is None or (build.upgrade and build.wait(300) and build.succeeded())
    assert native.upgrades(planned) == []
    again = native.plan(functions, native.find_c_compiler())
    assert again == [p.upgrade for p in planned]
    second = compile(CountedOscillator()).simulate(15.0, jit=True, **options)
    assert second.stats["native_code"] == "cache"
    for name in ("x", "v"):
        # the same operations in the same order: equal far below the tolerance
        np.testing.assert_allclose(second[name], first[name], rtol=0, atol=1e-8)


def test_a_background_build_of_quick_code_hands_its_upgrade_to_a_builder_of_its_own(
        monkeypatch, tmp_path):
    """native.start_background with -O0 libraries: its builder reports when they are built
    (the run may switch) and starts another for their -O1 upgrades, whose marks keep other
    builders (native.start_upgrades of the run that switches) off them meanwhile."""
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(native, "OPTIMISE_UP_TO", 0)
    cs = compile(CountedOscillator())
    functions = sundials.problem_for(cs, split_indicators(cs)[0], False).native_functions()
    cc = native.find_c_compiler()
    planned = native.plan(functions, cc)
    assert planned and all(p.upgrade is not None for p in planned)
    build = native.start_background(planned, cc)
    assert build is not None and build.wait(300) and build.succeeded()
    assert all(p.library.is_file() for p in planned)
    assert set(build.libraries) == {p.library for p in planned}  # the upgrades are not its
    deadline = time.monotonic() + 300
    while (native.upgrades(planned) or list(tmp_path.glob("*.building"))
           or list(tmp_path.glob(".job-*"))) and time.monotonic() < deadline:
        # a mark gone without its library would let start_upgrades build it here
        assert native.upgrades(planned) == [] or native.start_upgrades(planned, cc) is None
        time.sleep(0.1)
    assert native.upgrades(planned) == []
    assert not list(tmp_path.glob("*.building")) and not list(tmp_path.glob(".job-*"))
    assert [p.flags for p in native.plan(functions, cc)] == [("-O1",)] * len(planned)


@pytest.mark.parametrize("threadsafe", [True, False])
def test_the_plan_made_in_a_thread_is_the_plan_and_its_error_is_raised_by_the_caller(
        threadsafe, monkeypatch, c_compiler):
    """jit="auto" computes the libraries' keys beside the run's set-up (native.Planning), in a
    thread where CasADi's symbolics are thread-safe, else at once: the same libraries as
    native.plan, and a failure there surfaces where the result is asked."""
    monkeypatch.setattr(native, "THREADSAFE_SYMBOLICS", threadsafe)
    x = ca.SX.sym("x")
    functions = [ca.Function("f", [x], [ca.sin(x) * x]), ca.Function("g", [x], [x + 1])]
    planning = native.Planning(functions, c_compiler)
    assert [p.library for p in planning.result()] == \
        [p.library for p in native.plan(functions, c_compiler)]

    def broken(*args, **kwargs):
        raise OSError("no such folder")

    monkeypatch.setattr(native, "plan", broken)
    with pytest.raises(OSError, match="no such folder"):
        native.Planning(functions, c_compiler).result()

def test_the_background_builder_outlives_a_short_process(tmp_path, c_compiler):
    """A run that ends before its build: the process exits at once (no wait for the compiler)
    and the builder, on its own, puts the libraries into the cache for the next run; no
    temporary file or mark is left behind."""
    folder = tmp_path / "cache"
    script = f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).parent)!r})
import acausal.run.tiering as tiering
from acausal import compile
from test_native_code import CountedOscillator
tiering.hot = lambda *args: True
tic = time.perf_counter()
sol = compile(CountedOscillator()).simulate(5.0)
print(sol.stats["native_code"], time.perf_counter() - tic)
"""
    env = dict(os.environ, **{native.CACHE_ENV: str(folder)})
    tic = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "building"  # the run ended first
    deadline = time.perf_counter() + 120
    while time.perf_counter() < deadline and not (
            len(list(folder.glob("acausal_*.so"))) >= 4 and not list(folder.glob(".job-*"))):
        time.sleep(0.2)
    libraries = list(folder.glob("acausal_*.so"))
    assert len(libraries) >= 4, "the builder did not finish on its own"  # 3 and the driver
    assert not list(folder.glob(".*")) and not list(folder.glob("*.building"))
    # the next process loads them
    again = subprocess.run([sys.executable, "-c", script.replace(
        "tiering.hot = lambda *args: True", "")], env=env, capture_output=True, text=True,
        timeout=300)
    assert again.stdout.split()[0] == "cache", again.stderr
    assert time.perf_counter() - tic < 300


def test_one_library_has_one_builder(monkeypatch, tmp_path, c_compiler):
    """Never two builds of one library: not in one process (the build in flight), not across
    processes (the mark next to the library, made atomically; here another process is played
    by forgetting this one's builds in flight)."""
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path))
    x = ca.SX.sym("x")
    planned = native.plan([ca.Function("lonely", [x], [ca.sin(x) * x])], c_compiler)
    first = native.start_background(planned, c_compiler)
    assert first is not None
    assert native.start_background(planned, c_compiler) is None  # in flight here
    with monkeypatch.context() as m:
        m.setattr(native, "_in_flight", {})
        assert native.start_background(planned, c_compiler) is None  # marked by the first
    assert first.wait(300) and first.succeeded() and planned[0].library.is_file()
    assert not native.mark_of(planned[0].library).exists()
    assert native.in_flight(planned[0].library) is None
