"""Parameter sweeps and ensembles: one compiled system, many parameter sets, in parallel.

Usage::

    from acausal import compile
    from acausal.run.ensemble import parameter_grid, simulate_many

    system = compile(Oscillator())
    runs = simulate_many(system, parameter_grid({"spring.c": [50, 100], "mass.m": [1, 2]}),
                         t_end=5.0, dt=0.01)      # here or in local processes, as pays
    for run in runs:                                             # input order
        print(run.params, run.solution["mass.s"][-1] if run.ok else run.error)
    print(runs.stats["reason"])                                  # where they ran, and why

    from dask.distributed import Client                          # pip install dask distributed
    runs = simulate_many(system, grid, 5.0, client=Client("tcp://scheduler:8786"))

How it works. Parameters are inputs of the compiled CasADi functions, so every member reuses the
one compiled system: nothing is recompiled. A :class:`~acausal.CompiledSystem` holds CasADi SX
expressions, which pickle only inside CasADi's pickle context; :func:`serialize_system` pickles
the system that way (without its cached integrators, which are rebuilt on demand) and each worker
process (or thread) deserialises it once per sweep. Workers return the raw result arrays; the
:class:`~acausal.Solution` is rebuilt here around the caller's system, so observed variables are
evaluated by the same functions whatever ran the integration, and a sweep run in local processes,
on a Dask cluster or in this process gives the same numbers to the last bit.

A member that fails (bad parameter name, failed initialisation, integrator failure, anything else)
is reported in its :class:`RunResult` (``.error``, with ``.params``) and the others still run.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import math
import multiprocessing
import os
import pickle
import threading
import time
import traceback
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from ..base.errors import AcausalError, ParameterError, SimulationError
from ..base.progress import CountProgress, progress_enabled
from ..compiler.compiled_model import CompiledModel
from ..language.model import Component
from .solution import Solution

__all__ = ["FIRST_MEMBER_DECIDES_S", "WORKER_START_S", "Ensemble", "RunResult",
           "deserialize_system", "parameter_grid", "processes_pay", "serialize_system",
           "simulate_many", "start_method"]


# -- results ------------------------------------------------------------------------------------


@dataclass
class RunResult:
    """One member of a sweep: its parameters and either a solution or an error."""

    index: int  # position in the input list
    params: dict[str, float]
    solution: Solution | None = None
    error: BaseException | None = None
    #: full traceback text of an unexpected (non-acausal) error raised in the worker
    traceback: str | None = field(default=None, repr=False)
    elapsed: float = 0.0  # seconds spent in the worker (initialisation + integration)

    @property
    def ok(self) -> bool:
        return self.error is None

    def unwrap(self) -> Solution:
        """The solution, or raise the member's error."""
        if self.error is not None:
            raise self.error
        assert self.solution is not None
        return self.solution

    def __repr__(self) -> str:
        status = "ok" if self.ok else f"{type(self.error).__name__}: {self.error}"
        return f"<RunResult {self.index} {self.params}: {status}>"


class Ensemble(list):
    """The results of :func:`simulate_many`, a list of :class:`RunResult` in input order.

    ``stats`` says where the members ran and why (the choice of ``processes=None`` made
    visible):

    * ``where``: ``"this process"``, ``"worker processes"``, ``"this process, then worker
      processes"`` or ``"dask"``; ``reason``: the same in a sentence, with the estimates;
    * ``in_process``, ``in_workers``: members run here and in workers (processes or Dask);
      ``workers``: worker processes started (0 for none and for Dask);
    * ``start_method``: the processes' start method (``None`` for Dask and ``processes=0``);
      ``member_s``, ``worker_start_s``: the estimates the choice of ``processes=None`` compared
      (``None`` otherwise);
    * ``failed``: members with an error; ``elapsed_s``: the whole call, in seconds.
    """

    def __init__(self, runs: Iterable[RunResult] = ()) -> None:
        super().__init__(runs)
        self.stats: dict[str, Any] = {}

    @property
    def solutions(self) -> list[Solution | None]:
        """The solutions in input order (``None`` for a failed member)."""
        return [r.solution for r in self]

    @property
    def failed(self) -> list[RunResult]:
        return [r for r in self if not r.ok]

    @property
    def all_ok(self) -> bool:
        return not self.failed

    def raise_on_failure(self) -> Ensemble:
        """Raise a :class:`SimulationError` naming every failed member; else return self."""
        bad = self.failed
        if bad:
            lines = [f"  #{r.index} {r.params}: {type(r.error).__name__}: {r.error}" for r in bad]
            raise SimulationError(f"{len(bad)} of {len(self)} simulations failed:\n"
                                  + "\n".join(lines))
        return self

    def final(self, name: str) -> np.ndarray:
        """The last value of ``name`` for every member (NaN for failed ones)."""
        return np.array([r.solution[name][..., -1] if r.ok else np.nan for r in self],
                        dtype=float)


def parameter_grid(axes: Mapping[str, Iterable[float]]) -> list[dict[str, float]]:
    """Every combination of the given values (the last name varies fastest)::

        parameter_grid({"spring.c": [50, 100], "mass.m": [1, 2]})
        # [{'spring.c': 50, 'mass.m': 1}, {'spring.c': 50, 'mass.m': 2}, ...]
    """
    names = list(axes)
    values = [list(axes[n]) for n in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


# -- serialising a compiled system --------------------------------------------------------------


def serialize_system(system: CompiledModel) -> bytes:
    """Pickle a compiled system (CasADi SX inside CasADi's pickle context).

    Cached CasADi functions and integrators are left out (workers rebuild them on first use).
    """
    light = system.without_caches()
    try:
        with ca.global_pickle_context():
            return pickle.dumps(light, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - reported as the acausal error below
        raise AcausalError(
            f"The compiled system {system.model_name} cannot be serialised for other processes "
            f"({type(exc).__name__}: {exc}). Run the sweep in this process with processes=0, "
            "or report the model as a bug.") from exc


def deserialize_system(blob: bytes) -> CompiledModel:
    """The compiled system from :func:`serialize_system`."""
    with ca.global_unpickle_context():
        return pickle.loads(blob)


# -- the worker side ----------------------------------------------------------------------------

_BLOBS: dict[str, bytes] = {}  # serialised systems handed to this process (ProcessPool initializer)
_LOCAL = threading.local()  # deserialised systems, per thread (CasADi memory is not shared)


def _init_worker(token: str, blob: bytes) -> None:
    _BLOBS[token] = blob


def _system_for(token: str, blob: bytes | None) -> CompiledModel:
    cache = getattr(_LOCAL, "systems", None)
    if cache is None:
        cache = _LOCAL.systems = {}
    system = cache.get(token)
    if system is None:
        data = blob if blob is not None else _BLOBS[token]
        system = deserialize_system(data)
        if len(cache) >= 4:  # a long-lived worker (Dask) keeps only the latest systems
            cache.pop(next(iter(cache)))
        cache[token] = system
    return system


def _portable_error(exc: BaseException) -> tuple[BaseException, str | None]:
    """The exception if it survives pickling (it crosses a process boundary), else a stand-in."""
    tb = None if isinstance(exc, AcausalError) else "".join(
        traceback.format_exception(type(exc), exc, exc.__traceback__))
    if getattr(exc, "solution", None) is not None:
        exc.solution = None  # partial results hold the compiled system: not sent back
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001
        exc = SimulationError(f"{type(exc).__name__}: {exc}")
    exc.__traceback__ = None
    exc.__cause__ = exc.__context__ = None
    return exc, tb


def _payload(sol: Solution) -> dict[str, Any]:
    return sol.to_state()


def _solution_from(system: CompiledModel, data: dict[str, Any]) -> Solution:
    return Solution.from_state(system, data)


def _simulate_member(system: CompiledModel, t_end: float, params: dict,
                     options: dict) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        sol = system.simulate(t_end, params=params, progress=False, **options)
    except BaseException as exc:  # noqa: BLE001 - every failure stays with its member
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        error, tb = _portable_error(exc)
        return {"error": error, "traceback": tb, "elapsed": time.perf_counter() - start}
    return {"solution": _payload(sol), "elapsed": time.perf_counter() - start}


def _run_member(token: str, blob: bytes | None, t_end: float, params: dict,
                options: dict) -> dict[str, Any]:
    """Run in a worker process or thread: one member of the sweep."""
    try:
        system = _system_for(token, blob)
    except Exception as exc:  # noqa: BLE001
        error, tb = _portable_error(AcausalError(
            f"The worker could not load the compiled system ({type(exc).__name__}: {exc})."))
        return {"error": error, "traceback": tb, "elapsed": 0.0}
    return _simulate_member(system, t_end, params, options)


# -- the sweep ----------------------------------------------------------------------------------

#: Estimated seconds until a pool of worker processes has run its first member, by start
#: method: ``fork`` copies this process, modules and all (0.15 s measured for two workers and
#: six small members on two cores); ``spawn`` and ``forkserver`` start fresh interpreters that
#: import acausal, the solver library and the calling script (1.2 to 2.5 s per worker measured
#: on two busy cores). Only the choice of ``processes=None`` reads them.
WORKER_START_S = {"fork": 0.25, "spawn": 2.0, "forkserver": 2.0}
#: The first member's time includes one-time set-up (the solver library loaded, the solver's
#: functions built) that later members do not pay, so it decides alone for worker processes
#: only when it took at least this long (or twice the start cost, if more); else a second
#: member is timed first.
FIRST_MEMBER_DECIDES_S = 2.0

_log = logging.getLogger(__name__)


def _check_options(options: dict) -> None:
    from .simulate import SIMULATE_OPTIONS, check_options

    accepted = {k: v for k, v in SIMULATE_OPTIONS.items() if k not in ("params", "progress")}
    check_options(options, accepted, "simulate_many")


def _build_native_code(system: CompiledModel) -> None:
    """Compile the solver's functions (``jit=True``) here, once, before the workers start: they
    load the libraries from the cache instead of each running the C compiler on the same code
    (a realisation that dynamic state selection reaches later is compiled where it is
    needed)."""
    from .event_detection import split_indicators
    from .native_solver import prepare_driver
    from .sundials import problem_for

    problem_for(system, split_indicators(system)[0], jit=True)
    prepare_driver()


def start_method(mp_context: str | None) -> str:
    """The start method a pool would use: ``mp_context``, else the one set for this program,
    else the platform's default (the first of ``get_all_start_methods()``; asked this way so
    that nothing is fixed when the sweep then runs in this process)."""
    if mp_context:
        return mp_context
    return (multiprocessing.get_start_method(allow_none=True)
            or multiprocessing.get_all_start_methods()[0])


def processes_pay(member_s: float, left: int, workers: int, start_s: float) -> bool:
    """Whether ``left`` members of ``member_s`` seconds each end sooner on ``workers`` new worker
    processes that take ``start_s`` to start than one after another in this process:
    ``start_s + member_s * ceil(left / workers) < member_s * left``."""
    if workers < 2 or left < 2:
        return False  # one worker or one member: nothing runs in parallel
    return start_s + member_s * math.ceil(left / workers) < member_s * left


class _Tally:
    """Members done and failed, shown by the progress display."""

    def __init__(self, bar: CountProgress) -> None:
        self.bar = bar

    def __call__(self, out: dict[str, Any]) -> None:
        self.bar.update(self.bar.done + 1, self.bar.failed + ("error" in out))


def simulate_many(system: CompiledModel | Component, params: Iterable[Mapping[str, float] | None],
                  t_end: float, *, client: Any = None, processes: int | None = None,
                  mp_context: str | None = None, progress: bool | None = None,
                  **options: Any) -> Ensemble:
    """Simulate one compiled system for many parameter sets; results in input order.

    ``system``: a :class:`~acausal.CompiledSystem` (or a model instance, compiled once here).
    ``params``: one dict of parameter overrides per member (``{}`` or ``None``: the defaults).
    ``options``: simulation options for every member (``t_start``, ``n_points``/``dt``/
    ``t_eval``, ``rtol``, ``atol``, ``max_step``, ...; see :func:`acausal.run.simulate`).
    ``progress``: one line on stderr with the members done and failed and the time left
    (None: when stderr is a terminal; the members themselves show none).

    Where it runs:

    * ``processes=None`` (default): chosen from the members' cost. The members run in this
      process one after another while that is the faster way: after each, its time ``m``
      (from the second member on; the first includes one-time set-up and decides alone only
      when it took at least :data:`FIRST_MEMBER_DECIDES_S`) and the number left ``k`` give
      ``m * k`` here against ``s + m * ceil(k / w)`` on ``w`` new worker processes (one per
      CPU, at most one per member) that take ``s`` to start (:data:`WORKER_START_S`: 0.25 s
      with ``fork``, 2 s with ``spawn``/``forkserver``). As soon as the workers would finish
      sooner, the rest go to a pool. Small members (milliseconds) thus never start a process;
      ``runs.stats`` says what was chosen and why;
    * ``processes=N``: a pool of N local processes (``concurrent.futures.ProcessPoolExecutor``,
      at most one per member) for every member, started with the ``mp_context`` method
      (default: the platform's); ``processes=0``: every member in this process;
    * ``client=dask.distributed.Client(...)``: on that Dask cluster (``pip install dask
      distributed``); the compiled system is scattered to every worker once.

    Worker processes started with ``spawn`` or ``forkserver`` (the default on macOS and Windows,
    and from Python 3.14 on Linux too), and Dask's workers on every system (its Nanny spawns
    them), import the calling script as a module: its top level runs again in each, so a script
    keeps the sweep under ``if __name__ == "__main__":``.

    Returns an :class:`Ensemble` (a list of :class:`RunResult`, with ``.stats``); a failing
    member carries its ``params`` and ``error`` and does not stop the others.
    """
    started = time.perf_counter()
    if isinstance(system, Component):
        system = system.compile()
    if not isinstance(system, CompiledModel):
        raise AcausalError(f"simulate_many() needs a compiled system or a model instance, got "
                           f"{type(system).__name__}.")
    _check_options(options)
    if processes is not None and (not isinstance(processes, int) or processes < 0):
        raise AcausalError(f"processes={processes!r}: give a positive number of worker "
                           "processes, 0 for this process, or None to let the sweep choose.")
    t_end = float(t_end)
    results = Ensemble()
    todo: list[RunResult] = []
    for i, member in enumerate(params):
        if member is None:
            member = {}
        if not isinstance(member, Mapping):
            results.append(RunResult(i, {}, error=ParameterError(
                f"Member {i} of the sweep is {member!r}: give a dict of parameter values.")))
            continue
        run = RunResult(i, dict(member))
        try:
            system.parameter_vector(run.params)  # names and values checked here, before sending
        except AcausalError as exc:
            run.error = exc
        else:
            todo.append(run)
        results.append(run)
    bar = CountProgress(f"simulate_many {system.model_name}", len(results),
                        progress_enabled(progress))
    tally = _Tally(bar)
    bar.update(len(results) - len(todo), len(results) - len(todo), force=True)
    outputs: list[dict] = []
    try:
        if not todo:
            stats = _stats("this process", "no member passed its parameter check", 0, 0, 0)
        elif client is not None:
            outputs = _run_dask(client, system, todo, t_end, options, tally)
            stats = _stats("dask", "on the Dask cluster (client=)", 0, len(todo), 0)
        elif processes == 0:
            outputs = _run_here(system, todo, t_end, options, tally)[0]
            stats = _stats("this process", "in this process (processes=0)", len(todo), 0, 0)
        elif processes is not None:
            n = min(processes, len(todo))
            outputs = _run_pool(system, todo, t_end, options, n, mp_context, tally)
            stats = _stats("worker processes", f"in worker processes (processes={processes})",
                           0, len(todo), n, start_method=start_method(mp_context))
        else:
            outputs, stats = _run_chosen(system, todo, t_end, options, mp_context, tally)
    except BaseException:  # Ctrl-C, a lost cluster: the display's line is ended, not left open
        bar.close("stopped")
        raise
    for run, out in zip(todo, outputs):
        run.elapsed = out.get("elapsed", 0.0)
        if "solution" in out:
            run.solution = _solution_from(system, out["solution"])
        else:
            run.error = out["error"]
            run.traceback = out.get("traceback")
    stats["failed"] = len(results.failed)
    stats["elapsed_s"] = time.perf_counter() - started
    results.stats = stats
    _log.info("simulate_many %s: %d members %s", system.model_name, len(results),
              stats["reason"])
    bar.close(stats["reason"])
    return results


def _stats(where: str, reason: str, in_process: int, in_workers: int, workers: int,
           **extra: Any) -> dict[str, Any]:
    return {"where": where, "reason": reason, "in_process": in_process,
            "in_workers": in_workers, "workers": workers, "start_method": None,
            "member_s": None, "worker_start_s": None, **extra}


def _run_here(system, todo, t_end, options, tally) -> tuple[list[dict], list[float]]:
    """Every member in this process; the outputs and each member's wall time."""
    outputs, times = [], []
    for run in todo:
        tic = time.perf_counter()
        outputs.append(_simulate_member(system, t_end, run.params, options))
        times.append(time.perf_counter() - tic)
        tally(outputs[-1])
    return outputs, times


def _run_chosen(system, todo, t_end, options, mp_context, tally) -> tuple[list[dict], dict]:
    """``processes=None``: members here while that is faster, the rest in a pool (see
    :func:`simulate_many`)."""
    method = start_method(mp_context)
    start_s = WORKER_START_S.get(method, max(WORKER_START_S.values()))
    cpus = os.cpu_count() or 1
    outputs: list[dict] = []
    times: list[float] = []
    for i, run in enumerate(todo):
        out, seconds = _run_here(system, [run], t_end, options, tally)
        outputs += out
        times += seconds
        left = len(todo) - i - 1
        if left == 0:
            break
        # the first member's time includes one-time set-up: a warm one is timed first unless
        # the first alone took long
        member_s = _member_seconds(times)
        if len(times) == 1 and times[0] < max(FIRST_MEMBER_DECIDES_S, 2.0 * start_s):
            continue
        workers = min(cpus, left)
        if processes_pay(member_s, left, workers, start_s):
            serial = member_s * left
            parallel = start_s + member_s * math.ceil(left / workers)
            outputs += _run_pool(system, todo[i + 1:], t_end, options, workers, mp_context,
                                 tally)
            return outputs, _stats(
                "this process, then worker processes",
                f"{i + 1} in this process, then {left} in {workers} worker processes "
                f"({method}): members take about {member_s:.3g} s, {left} of them about "
                f"{serial:.3g} s here against {parallel:.3g} s on workers that take about "
                f"{start_s:g} s to start", i + 1, left, workers, start_method=method,
                member_s=member_s, worker_start_s=start_s)
    member_s = _member_seconds(times)
    if len(todo) == 1:
        reason = "in this process: one member, nothing to run in parallel"
    elif cpus < 2:
        reason = "in this process: one CPU, nothing to run in parallel"
    else:
        reason = (f"in this process: members take about {member_s:.3g} s, too little for "
                  f"worker processes ({method}, about {start_s:g} s to start) to pay")
    return outputs, _stats("this process", reason, len(todo), 0, 0, start_method=method,
                           member_s=member_s, worker_start_s=start_s)


def _member_seconds(times: list[float]) -> float:
    """The time of one member: the mean of those after the first (which pays one-time
    set-up), the first's when it is the only one."""
    return sum(times[1:]) / (len(times) - 1) if len(times) > 1 else times[0]


def _token(blob: bytes) -> str:
    return hashlib.sha1(blob).hexdigest()


def _lost(exc: BaseException, where: str) -> dict[str, Any]:
    return {"error": AcausalError(f"The {where} running this member failed: "
                                  f"{type(exc).__name__}: {exc}"), "elapsed": 0.0}


def _run_pool(system, todo, t_end, options, n, mp_context, tally) -> list[dict]:
    """``todo`` on a pool of ``n`` local worker processes (native code built here first)."""
    if options.get("jit") is True and n > 1:
        _build_native_code(system)
    return _run_processes(system, todo, t_end, options, n, mp_context, tally)


def _run_processes(system, todo, t_end, options, n, mp_context, tally) -> list[dict]:
    blob = serialize_system(system)
    token = _token(blob)
    ctx = multiprocessing.get_context(mp_context) if mp_context else None
    outputs: list[dict] = [{} for _ in todo]
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                             initargs=(token, blob)) as pool:
        futures = {pool.submit(_run_member, token, None, t_end, r.params, options): k
                   for k, r in enumerate(todo)}
        for fut in as_completed(futures):  # as they finish, for the progress display
            try:
                out = fut.result()
            except Exception as exc:  # noqa: BLE001 - e.g. a worker process that died
                out = _lost(exc, "worker process")
            outputs[futures[fut]] = out
            tally(out)
    return outputs


def _run_dask(client, system, todo, t_end, options, tally) -> list[dict]:
    from dask.distributed import as_completed as dask_as_completed

    blob = serialize_system(system)
    token = _token(blob)
    shared = client.scatter(blob, broadcast=True, hash=False)
    futures = [client.submit(_run_member, token, shared, t_end, r.params, options, pure=False)
               for r in todo]
    where = {fut.key: k for k, fut in enumerate(futures)}
    outputs: list[dict] = [{} for _ in todo]
    try:
        for fut in dask_as_completed(futures):
            try:
                out = fut.result()
            except Exception as exc:  # noqa: BLE001 - e.g. a worker that was killed
                out = _lost(exc, "Dask worker")
            outputs[where[fut.key]] = out
            tally(out)
    finally:
        client.cancel(futures + [shared])
    return outputs
