"""Tiered native code: ``simulate(jit="auto")``, the default.

A run starts at once in CasADi's virtual machine. Where the model's machine code is in the
cache (:mod:`.native`), the solver problem loads it before the first step. Otherwise a run that
turns out to be long enough for it to pay (:func:`hot`) hands the functions to a background
builder process (:func:`.native.start_background`, at low priority) and goes on in the virtual
machine. Once the libraries are in the cache the run switches between two steps of the solver
(:class:`RunTiers`): the solver is stopped at its next step as Ctrl-C stops it (the right-hand
side returns NaN; the solver returns with the last step it completed),
:meth:`~.sundials.Problem.use_native` replaces the functions, and the run loop continues from
that step with a new solver (the compiled driver), as after a change of CVODE's method: output
points are stored as before, none is lost or doubled, events are found by the same root
functions. The restart changes the steps after it, so the results agree with a run in either
tier to the integration's tolerance, not bit for bit.

One tier lies in between. A model of ``sundials.FIXED_POINT_FROM`` unknowns or more, whose
Adams corrects by fixed-point iteration (no Jacobian), is run by the compiled driver on the
virtual machine's functions where the driver is in the cache
(:func:`.native_solver.for_problem`): no Python callback per right-hand side. Where it is not
(a new cache folder), the run starts with scikit-sundae (the same iteration), the background
builder compiles the driver first (the model's right-hand side can take tens of seconds), and
the run stops its solver the same way and goes on with the driver, still on the virtual
machine's functions, until the machine code is ready (:meth:`NativeTier.driver_ready`).

Without a C compiler the run stays in the virtual machine without a word
(``sol.stats["native_code"]`` says why); a build that fails (or a cache folder that cannot be
written) is said once per process in a RuntimeWarning and leaves the problem in the virtual
machine. See docs/compiler.md, "Tiered native code".
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

from ..base.c_compiler import CompilerNotFoundError, find_c_compiler
from . import native, native_solver

#: A run whose solver calls have spent this long in the virtual machine, or that its progress
#: says will (the model's runs in this process summed up), has its native code built.
#: Few runs of the test suite reach it (benchmarks/run_log_plugin.py; docs/compiler.md,
#: "Tiered native code").
HOT_S = 0.5
#: The run's progress predicts its length only after this long in the virtual machine.
PREDICT_AFTER_S = 0.1
#: A run that was not hot but spent this long in the virtual machine (the model's runs in this
#: process together) has its native code built when it ends, for the next run
#: (:meth:`NativeTier.build_for_later`): the 20-link spatial chain's 5 s take about 0.2 s there,
#: 0.02-0.06 s on its machine code (docs/compiler.md, "Tiered native code"). A run of a tenth of
#: a second is one a user notices, and the build runs at low priority after it: it costs the
#: next run nothing, and a run of milliseconds never starts one.
WARM_S = 0.1
#: How long a started build is waited for [s] (0: not at all, the run goes on). For tests that
#: need the switch to happen at a known place, and benchmarks.
WAIT_FOR_BUILD_S = 0.0

_warned = False  # a failed build is said once per process


def hot(run_s: float, total_s: float, fraction: float) -> bool:
    """Whether native code pays for a run that has spent ``run_s`` seconds in the virtual
    machine after ``fraction`` of its time span (the model's runs in this process:
    ``total_s``): at least :data:`HOT_S` spent, or predicted from the progress once
    :data:`PREDICT_AFTER_S` is spent (the rate so far, carried to the end)."""
    if total_s >= HOT_S or run_s >= HOT_S:
        return True
    return run_s >= PREDICT_AFTER_S and fraction > 0 and run_s / fraction >= HOT_S


class NativeTier:
    """``jit="auto"`` for one solver problem, kept with it across runs in this process.

    Built with the problem: finds the compiler and starts looking up the libraries' places
    in the cache (:class:`.native.Planning`). Where they are all there at the problem's first
    solver call, :meth:`poll` says so and :meth:`RunTiers.before_call` switches the problem
    before its first step; otherwise :meth:`poll` starts the background build when
    the model is hot and says when the libraries are ready for :meth:`switch`."""

    def __init__(self, problem) -> None:
        self.problem = problem
        #: wall time the problem's solver calls spent in the virtual machine (all runs)
        self.vm_seconds = 0.0
        #: why native code is out of reach ("" while it is not): "no compiler", "failed"
        self.why_not = ""
        self.build: native.BackgroundBuild | None = None
        self.started = False
        #: the run loop's monitor asked the solver to stop for the switch (see hybrid)
        self.stop_asked = False
        self._planning: native.Planning | None = None
        self._driver: tuple[str, list[str], Path] | None = None
        self._driver_offered = False  # driver_ready said True once
        try:
            self._cc = find_c_compiler()
        except CompilerNotFoundError:
            self.why_not = "no compiler"
            return
        # the libraries' cache keys (serialised functions) in a thread: the run looks for them
        # at its first solver call (RunTiers.before_call) and sets up beside it until then
        self._planning = native.Planning(problem.native_functions(), self._cc)
        try:
            self._driver = native_solver.driver_job(self._cc)
        except (OSError, ImportError):
            self._driver = None  # the compiled functions through scikit-sundae's callbacks

    @property
    def _planned(self) -> list[native.Planned]:
        return self._planning.result() if self._planning is not None else []

    @property
    def libraries(self) -> list[Path]:
        """The model's libraries in the cache, there or not (waits for their keys)."""
        return [p.library for p in self._planned]

    def _all_there(self) -> bool:
        return all(p.is_file() for p in self.libraries) and (
            self._driver is None or self._driver[2].is_file())

    def poll(self, run_s: float, total_s: float, fraction: float) -> bool:
        """Whether the libraries are ready for :meth:`switch`; starts the build when the model
        is :func:`hot` (``run_s``, ``total_s``, ``fraction``: see there). Never raises (it
        runs inside the solver's callbacks): a failure leaves the virtual machine on."""
        if self.why_not:
            return False
        try:
            return self._poll(run_s, total_s, fraction)
        except Exception as exc:  # noqa: BLE001 - e.g. a cache folder removed under the run
            self.why_not, self.build = "failed", None
            self._say(f"{type(exc).__name__}: {exc}")
            return False

    def _poll(self, run_s: float, total_s: float, fraction: float) -> bool:
        if self.build is not None:
            if not self.build.finished():
                return False
            build, self.build = self.build, None
            if build.error:
                self._say(build.error)
                if self._driver is not None and not self._driver[2].is_file():
                    self._driver = None  # the functions without the driver: still faster
            if not all(p.is_file() for p in self.libraries):
                self.why_not = "failed"
                return False
        if self._all_there():  # built now, by another process, or by an earlier run
            return True
        if not hot(run_s, total_s, fraction) or not self._start():
            return False
        if self.build is not None and WAIT_FOR_BUILD_S > 0:
            self.build.wait(WAIT_FOR_BUILD_S)
            return self._poll(run_s, total_s, fraction)
        return False

    def _start(self) -> bool:
        """Start the background build; whether it could be."""
        self.started = True
        extra = [self._driver] if self._driver is not None else []
        try:
            self.build = native.start_background(self._planned, self._cc, extra)
        except OSError as exc:
            self.why_not = "failed"
            self._say(f"the cache folder {native.cache_folder()} cannot be written ({exc})")
            return False
        return True

    def build_for_later(self) -> None:
        """After a run that was not :func:`hot` but spent :data:`WARM_S` in the virtual machine
        (the model's runs in this process together): the background build starts now, for the
        next run (the builder outlives this process), where it would only have competed with
        this run for the processor. Never raises."""
        if self.why_not or self.started or self.vm_seconds < WARM_S:
            return
        try:
            if not self._all_there():
                self._start()
        except Exception as exc:  # noqa: BLE001 - e.g. a cache folder removed under the run
            self.why_not, self.build = "failed", None
            self._say(f"{type(exc).__name__}: {exc}")

    def driver_ready(self) -> bool:
        """Whether the problem, running on scikit-sundae's fixed-point iteration, would now be
        driven by the compiled driver on the virtual machine's functions (no Python callback
        per right-hand side): the driver's library has come into the cache (built first by the
        background builder) while the model's are not all there yet. True once at most: a
        problem that the driver does not take after all (:func:`.native_solver.for_problem`)
        is not stopped again."""
        problem = self.problem
        if self._driver_offered or problem.driver != "scikit-sundae" \
                or not problem.fixed_point_asked or self._driver is None \
                or not self._driver[2].is_file():
            return False
        self._driver_offered = True
        return native_solver.cached_driver() is not None

    def switch(self) -> None:
        """The problem evaluates the machine code from now on (its next solver call); where
        that is quick ``-O0`` code, its ``-O1`` upgrade is built in the background for later
        runs (:func:`.native.start_upgrades`)."""
        problem = self.problem
        problem.use_native(self.libraries)
        problem.native_from = "built" if self.started else "cache"
        native.start_upgrades(self._planned, self._cc)

    @staticmethod
    def _say(why: str) -> None:
        global _warned
        if not _warned:
            _warned = True
            warnings.warn(f"jit='auto': the model's native code could not be built, the run "
                          f"goes on in CasADi's virtual machine ({why}). simulate(jit=False) "
                          "does not try; jit=True raises the error.", RuntimeWarning,
                          stacklevel=3)


class RunTiers:
    """``jit="auto"`` in one run of the run loop (:class:`~.hybrid.HybridSimulation`): the
    run's wall time in the virtual machine, the drivers that ran, the switch to machine code.

    Where a problem's :class:`NativeTier` is active, the loop asks :meth:`before_call` at each
    solver call (machine code ready at a stop: the call runs on it) and :meth:`after_call`
    after it; during a call the problem's progress callback (every ``PROGRESS_EVERY``
    right-hand sides, see :meth:`monitor`) starts the build when the run is hot and, once the
    libraries are ready, stops the solver at its next step as Ctrl-C does (the right-hand side
    returns NaN, the solver returns with the last step it completed), so the loop goes on from
    that step with the machine code."""

    def __init__(self, progress) -> None:
        self.progress = progress  # the fraction of the run's time span done at t
        self.vm_s = 0.0
        self.drivers: set[str] = set()
        #: the switch: {"t": model time, "wall_s": seconds into the run}, or None
        self.switch: dict | None = None
        self.clock = self.call_clock = time.perf_counter()

    def monitor(self, prob, inner):
        """``prob``'s progress callback: the check described above, then ``inner``."""
        if prob.tier is None or prob.tier.why_not:
            return inner

        def poll(t: float) -> None:
            tier = prob.tier
            if tier is not None and not tier.stop_asked and not tier.why_not:
                spent = time.perf_counter() - self.call_clock
                if tier.poll(self.vm_s + spent, tier.vm_seconds + spent, self.progress(t)) \
                        or tier.driver_ready():
                    tier.stop_asked = True
                    prob.interrupted = True  # the solver stops at its next step (NaN)
            if inner is not None:
                inner(t)
        return poll

    def before_call(self, prob, t: float) -> NativeTier | None:
        """Before a solver call of ``prob`` from ``t``: the problem's active tier (None: it
        runs on machine code, or never will in this process); switched here where ready."""
        tier = prob.tier if prob.tier is not None and not prob.tier.why_not else None
        if tier is not None and tier.poll(self.vm_s, tier.vm_seconds, self.progress(t)):
            self._switch(tier, t)
            tier = None
        elif tier is not None and tier.driver_ready():
            prob.renew_solver()  # the driver, on the virtual machine's functions
        self.call_clock = time.perf_counter()
        return tier

    def after_call(self, prob, tier: NativeTier | None, status: int, t: float,
                   ctrl_c: bool) -> int:
        """After the call (``tier``: :meth:`before_call`'s) that ended at ``t`` with
        ``status``: the status the loop goes on with (0 where the call failed because the
        monitor stopped it: the loop continues from its last step, on machine code).
        ``ctrl_c``: the run loop's own interrupt flag."""
        self.drivers.add(prob.driver)
        if tier is None:
            return status
        spent = time.perf_counter() - self.call_clock
        self.vm_s += spent
        tier.vm_seconds += spent
        if not tier.stop_asked:
            return status
        tier.stop_asked = False
        prob.interrupted = ctrl_c  # the monitor's stop is no Ctrl-C
        if all(path.is_file() for path in tier.libraries):
            self._switch(tier, t)
        else:  # stopped for the driver alone (driver_ready): the machine code comes later
            prob.renew_solver()
        return 0 if status < 0 else status

    @staticmethod
    def after_run(problems) -> None:
        """When a run has reached its end: each problem still in the virtual machine that has
        spent :data:`WARM_S` there starts its build for the next run
        (:meth:`NativeTier.build_for_later`)."""
        for prob in problems:
            if prob.tier is not None:
                prob.tier.build_for_later()

    def _switch(self, tier: NativeTier, t: float) -> None:
        tier.switch()
        if self.vm_s == 0.0:  # ready before this run's first step (an earlier run built it)
            tier.problem.native_from = "cache"
        elif self.switch is None:
            self.switch = {"t": float(t), "wall_s": time.perf_counter() - self.clock}


def native_stats(problems, switch: dict | None) -> dict:
    """``Solution.stats``' entries about machine code for a run on ``problems``:
    ``native_code`` (what ran: "switched", "compiled", "cache", "building", "failed",
    "no compiler" or "none", the first that applies to one of the problems) and
    ``native_switch`` (``{"t": model time, "wall_s": seconds into the run}`` of the switch,
    else None)."""
    kinds = {prob.native_from for prob in problems}
    tiers = [prob.tier for prob in problems if prob.tier is not None]
    if switch is not None:
        code = "switched"
    elif "compiled" in kinds:
        code = "compiled"
    elif kinds & {"cache", "built"}:
        code = "cache"
    elif any(tier.why_not == "failed" for tier in tiers):
        code = "failed"
    elif any(tier.started for tier in tiers):
        code = "building"
    elif any(tier.why_not == "no compiler" for tier in tiers):
        code = "no compiler"
    else:
        code = "none"
    return {"native_code": code, "native_switch": switch}
