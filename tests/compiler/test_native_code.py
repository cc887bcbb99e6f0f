"""``simulate(jit=True)``: the functions the solver calls at every step as machine code.

The compiled functions evaluate the same operations as CasADi's virtual machine, so a run with
``jit=True`` must give the same solution as one without, up to rounding amplified by the
integration (a C compiler may contract a multiply and an add into one fused operation). Checked
on the three kinds of solver problem: an ODE with state events (CVODE and its root functions),
an index-reduced DAE (IDA's residual) and a chain whose linear loop is solved inside the
right-hand side. The libraries go to a cache folder (``ACAUSAL_CACHE_DIR``, a temporary folder
here) and are built once per model and machine.
"""

from __future__ import annotations

import math
import shutil
import sys

import numpy as np
import pytest

import acausal.run.native as native
import acausal.run.native_build as native_build
from acausal import Component, Discrete, Eq, Variable, When, assign, compile, der
from acausal.base.c_compiler import CCompilerError, CompilerNotFoundError
from acausal.compiler.realize import torn_linear_loops
from acausal.components.multibody.chains import SpatialChain

RTOL = 1e-10


class CountedOscillator(Component):
    """``x'' = -x`` from x = 1 at rest; ``crossings`` counts the downward zero crossings,
    at t = pi/2 + 2 k pi."""

    x = Variable(start=1.0, fixed=True)
    v = Variable(start=0.0, fixed=True)
    crossings = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.x), self.v), Eq(der(self.v), -self.x)]

    def events(self):
        return [When(self.x < 0, assign(self.crossings, self.crossings + 1))]


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "native-cache"
    monkeypatch.setenv(native.CACHE_ENV, str(folder))
    return folder


def libraries(folder):
    """The model's libraries in the cache (not the solver driver, built once per process)."""
    found = sorted(folder.glob("acausal_*")) if folder.exists() else []
    return [f for f in found if not f.name.startswith("acausal_driver_")]


def test_events_found_by_compiled_root_functions_are_the_analytic_crossings(cache, c_compiler):
    sol = compile(CountedOscillator()).simulate(15.0, rtol=1e-12, atol=1e-14, jit=True)
    assert sol.stats["solver"] == "CVODE" and sol.stats["driver"] == "native"
    assert len(libraries(cache)) == 3  # right-hand side, root functions, event indicators
    got = [t for t, _ in sol.events]
    np.testing.assert_allclose(got, [math.pi / 2 + 2 * k * math.pi for k in range(3)],
                               rtol=0, atol=1e-9)
    assert sol["crossings"][-1] == 3


def test_a_dae_for_ida_gives_the_same_solution(pendulum, cache, c_compiler):
    cs = compile(pendulum(0.5))
    plain = cs.simulate(3.0, rtol=RTOL, atol=RTOL, jit=False)
    native_run = cs.simulate(3.0, rtol=RTOL, atol=RTOL, jit=True)
    assert native_run.stats["solver"] == plain.stats["solver"] == "IDA"
    assert libraries(cache)
    for name in ("x", "y", "lam"):
        # the same residual evaluated by other machine instructions: rounding, amplified by
        # the integration over the run (far below the solver's own error, ~RTOL)
        assert np.abs(native_run[name] - plain[name]).max() < 1e3 * RTOL


def test_a_linear_loop_solved_inside_the_right_hand_side(cache, monkeypatch, c_compiler):
    n = 8  # 14 tear variables: solved by LU inside the solver's functions (kept torn: the
    # compiler would eliminate this tree's loop in the order of its sparsity)
    model = SpatialChain(n=n)
    with torn_linear_loops():
        cs = compile(model)
    # BDF: both runs take the same steps, so they differ by the loop's rounding alone (with
    # Adams a rounding difference changes a step decision: 535 against 524 right-hand sides,
    # tips 1e-9 apart, the integration's own error)
    bdf = {"method": "BDF"}
    plain = cs.simulate(1.0, rtol=RTOL, atol=RTOL, jit=False, integrator_options=bdf)
    sol = cs.simulate(1.0, rtol=RTOL, atol=RTOL, jit=True, integrator_options=bdf)
    assert sol.stats["solver"] == "CVODE" and cs.z.numel() == 2 * n - 2
    tip = f"links[{n - 1}].frame_b.r_0"
    assert np.abs(sol[tip] - plain[tip]).max() < 1e-9
    # z read at the output points comes from the same compiled loop
    assert np.abs(sol.z - plain.z).max() < 1e-7 * max(1.0, np.abs(plain.z).max())

    # a new process (here: a new compilation of the same model) finds the libraries in the
    # cache and runs no compiler
    built = libraries(cache)
    assert len(built) == 2  # the loop's matrix and right-hand side, the model's rates

    def no_compiler(*args, **kwargs):
        raise AssertionError("the C compiler ran although the library is in the cache")

    monkeypatch.setattr(native_build, "build", no_compiler)
    with torn_linear_loops():
        again = compile(SpatialChain(n=n))
    again = again.simulate(1.0, rtol=RTOL, atol=RTOL, jit=True, integrator_options=bdf)
    assert libraries(cache) == built
    assert np.array_equal(again[tip], sol[tip])


def test_without_a_c_compiler_the_error_says_what_to_do(monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    cs = compile(CountedOscillator())
    with pytest.raises(CompilerNotFoundError, match=r"(?s)jit=True.*needs a C compiler.*"
                                                    r"install gcc or clang.*jit=False"):
        cs.simulate(1.0, jit=True)
    assert cs.simulate(1.0).t[-1] == 1.0  # the virtual machine needs none


@pytest.mark.skipif(sys.platform.startswith("win"), reason="a shell script as the compiler")
def test_a_failing_compiler_is_named(monkeypatch, tmp_path):
    fake = tmp_path / "fakecc"
    fake.write_text("#!/bin/sh\necho 'fatal: out of cheese' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    with pytest.raises(CCompilerError, match=r"(?s)exit status 3.*out of cheese"):
        compile(CountedOscillator()).simulate(1.0, jit=True)


def test_a_cache_folder_that_cannot_be_written_is_named(tmp_path, monkeypatch, c_compiler):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(native.CACHE_ENV, str(blocker / "cache"))
    with pytest.raises(CCompilerError,
                       match=r"(?s)a-file.*cannot be written.*ACAUSAL_CACHE_DIR.*jit=False"):
        compile(CountedOscillator()).simulate(1.0, jit=True)
