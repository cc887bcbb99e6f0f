"""Parameter sweeps and ensembles: one compiled system, many parameter sets, in parallel.

Usage::

    from acausal import compile
    from acausal.run.ensemble import parameter_grid, simulate_many

    system = compile(Oscillator())
    runs = simulate_many(system, parameter_grid({"spring.c": [50, 100], "mass.m": [1, 2]}),
                         t_end=5.0, dt=0.01)                       # local processes
    for run in runs:                                             # input order
        print(run.params, run.solution["mass.s"][-1] if run.ok else run.error)

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
import multiprocessing
import os
import pickle
import threading
import time
import traceback
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from ..base.errors import AcausalError, ParameterError, SimulationError
from ..compiler.compiled_model import CompiledModel
from ..language.model import Component
from .solution import Solution

__all__ = ["Ensemble", "RunResult", "deserialize_system", "parameter_grid", "serialize_system",
           "simulate_many"]


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
    """The results of :func:`simulate_many`, a list of :class:`RunResult` in input order."""

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

def _check_options(options: dict) -> None:
    from .simulate import SIMULATE_OPTIONS, check_options

    if "progress" in options:
        raise AcausalError("simulate_many() shows no progress bar: do not pass progress=.")
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


def simulate_many(system: CompiledModel | Component, params: Iterable[Mapping[str, float] | None],
                  t_end: float, *, client: Any = None, processes: int | None = None,
                  mp_context: str | None = None, **options: Any) -> Ensemble:
    """Simulate one compiled system for many parameter sets; results in input order.

    ``system``: a :class:`~acausal.CompiledSystem` (or a model instance, compiled once here).
    ``params``: one dict of parameter overrides per member (``{}`` or ``None``: the defaults).
    ``options``: simulation options for every member (``t_start``, ``n_points``/``dt``/
    ``t_eval``, ``rtol``, ``atol``, ``max_step``, ...; see :func:`acausal.run.simulate`).

    Where it runs:

    * default: a pool of local processes (``concurrent.futures.ProcessPoolExecutor``) with
      ``processes`` workers (default: the number of CPUs, at most one per member) started with
      the ``mp_context`` method (default: the platform's; ``"spawn"`` needs the calling script
      to guard its top level with ``if __name__ == "__main__":``, as all multiprocessing does);
    * ``processes=0``: one after the other in this process (no pool);
    * ``client=dask.distributed.Client(...)``: on that Dask cluster (``pip install dask
      distributed``); the compiled system is scattered to every worker once.

    Returns an :class:`Ensemble` (a list of :class:`RunResult`); a failing member carries its
    ``params`` and ``error`` and does not stop the others.
    """
    if isinstance(system, Component):
        system = system.compile()
    if not isinstance(system, CompiledModel):
        raise AcausalError(f"simulate_many() needs a compiled system or a model instance, got "
                           f"{type(system).__name__}.")
    _check_options(options)
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
    if not todo:
        return results
    if client is not None:
        outputs = _run_dask(client, system, todo, t_end, options)
    elif processes == 0:
        outputs = [_simulate_member(system, t_end, r.params, options) for r in todo]
    else:
        if processes is not None and processes < 0:
            raise AcausalError(f"processes={processes}: give a positive number of worker "
                               "processes, 0 for this process, or None for one per CPU.")
        n = min(processes or os.cpu_count() or 1, len(todo))
        if options.get("jit") is True and n > 1:
            _build_native_code(system)
        outputs = _run_processes(system, todo, t_end, options, n, mp_context)
    for run, out in zip(todo, outputs):
        run.elapsed = out.get("elapsed", 0.0)
        if "solution" in out:
            run.solution = _solution_from(system, out["solution"])
        else:
            run.error = out["error"]
            run.traceback = out.get("traceback")
    return results


def _token(blob: bytes) -> str:
    return hashlib.sha1(blob).hexdigest()


def _lost(exc: BaseException, where: str) -> dict[str, Any]:
    return {"error": AcausalError(f"The {where} running this member failed: "
                                  f"{type(exc).__name__}: {exc}"), "elapsed": 0.0}


def _run_processes(system, todo, t_end, options, n, mp_context) -> list[dict]:
    blob = serialize_system(system)
    token = _token(blob)
    ctx = multiprocessing.get_context(mp_context) if mp_context else None
    outputs: list[dict] = []
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                             initargs=(token, blob)) as pool:
        futures = [pool.submit(_run_member, token, None, t_end, r.params, options)
                   for r in todo]
        for fut in futures:
            try:
                outputs.append(fut.result())
            except Exception as exc:  # noqa: BLE001 - e.g. a worker process that died
                outputs.append(_lost(exc, "worker process"))
    return outputs


def _run_dask(client, system, todo, t_end, options) -> list[dict]:
    blob = serialize_system(system)
    token = _token(blob)
    shared = client.scatter(blob, broadcast=True, hash=False)
    futures = [client.submit(_run_member, token, shared, t_end, r.params, options, pure=False)
               for r in todo]
    outputs: list[dict] = []
    try:
        for fut in futures:
            try:
                outputs.append(fut.result())
            except Exception as exc:  # noqa: BLE001 - e.g. a worker that was killed
                outputs.append(_lost(exc, "Dask worker"))
    finally:
        client.cancel(futures + [shared])
    return outputs
