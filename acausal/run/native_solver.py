"""CVODE and IDA driven from compiled code: ``simulate(jit=True)`` without Python per step.

With ``jit=True`` the functions the solver evaluates at every step are machine code
(:mod:`.native`), but scikit-sundae still calls them through Python: a callback per
right-hand side and per root function costs a few microseconds, which is most of a small
model's run (a two-state ODE: 4 us an evaluation against 2 us inside CasADi's own CVODES) and
of an event-heavy one. :class:`NativeSolver` is a drop-in for scikit-sundae's ``CVODE``/``IDA``
objects in :class:`~.sundials.Problem`: a small C driver (``native_driver.c``, compiled once per
machine into the cache folder of :mod:`.native` and linked against the SUNDIALS libraries that
scikit-sundae ships) owns the solver and calls the compiled functions directly. Python is
called back only for the exact Jacobian (CasADi's virtual machine, tens to hundreds of times a
run; none where Adams takes SUNDIALS' difference quotients or corrects by fixed-point
iteration, as with scikit-sundae: see :mod:`.integrator_choice`),
for the run loop's watch root function (dynamic state selection) and every
:data:`~.sundials.PROGRESS_EVERY` right-hand sides: the progress display, and Python code
running now and then so that the run loop's Ctrl-C handler (Python runs signal handlers only
between its own instructions) can set the flag that stops the solver.

The driver repeats what scikit-sundae's normal-mode solve does (the same SUNDIALS calls and
settings), so both paths take the same steps. Where the SUNDIALS libraries cannot be found (a
scikit-sundae build that links them differently), :func:`driver` says why and the problem keeps
scikit-sundae (``Solution.stats["driver"]`` tells which ran).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import re
import sys
import tempfile
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..base.c_compiler import (
    CCompilerError,
    find_c_compiler,
    shared_library_command,
    shared_library_suffix,
)
from . import native
from .buffers import Buffered

KIND_ODE, KIND_DAE, KIND_LOOP = 0, 1, 2
#: SUNDIALS libraries the driver links with (scikit-sundae's copies) ...
REQUIRED = ("sundials_core", "sundials_nvecserial", "sundials_sunmatrixdense",
            "sundials_sunmatrixsparse", "sundials_sunmatrixband", "sundials_sunlinsoldense",
            "sundials_sunlinsolband", "sundials_cvode", "sundials_ida")
#: ... and the sparse direct solver, where the build has it (else sparse problems keep
#: scikit-sundae, which then has no sparse solver either)
OPTIONAL = ("sundials_sunlinsolsuperlumt",)
#: The driver's optimisation: -O3 vectorises its LU of a linear loop (about twice as fast as
#: -O2 on the spatial chain's loops of 38 to 198 unknowns, measured during development)
DRIVER_FLAGS = ("-O3",)
_JACOBIAN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.c_double)
# CasADi's calling convention of a generated function, for a function of the virtual machine
# that the driver calls back (see VirtualMachineFunction)
_EVAL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
                         ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.c_int)
_WORK = ctypes.CFUNCTYPE(ctypes.c_int, *(4 * [ctypes.POINTER(ctypes.c_longlong)]))
_WATCH = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)
_POLL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double)

_driver: tuple[ctypes.CDLL | None, str, bool] | None = None  # (library, why not, sparse)
_jobs: dict[tuple, tuple[str, list[str], Path]] = {}  # driver_job by compiler, folder, libraries


def _sundials_files() -> tuple[dict[str, Path], str]:
    """scikit-sundae's SUNDIALS libraries by name, and the C type of ``sunindextype``; raises
    OSError saying what is missing."""
    import sksundae

    package = Path(sksundae.__file__).parent
    folders = [package.parent / "scikit_sundae.libs", package / ".dylibs", package]
    found: dict[str, Path] = {}
    for name in REQUIRED + OPTIONAL:
        for folder in folders:
            hits = sorted(folder.glob(f"lib{name}[-.]*")) if folder.is_dir() else []
            if hits:
                found[name] = hits[0]
                break
    missing = [n for n in REQUIRED if n not in found]
    if missing:
        raise OSError(f"scikit-sundae's SUNDIALS libraries not found ({', '.join(missing)} "
                      f"in {', '.join(str(f) for f in folders)})")
    config = package / "c_config.pxi"
    text = config.read_text() if config.is_file() else ""
    match = re.search(r"ctypedef\s+([a-z ]+?)\s+sunindextype", text)
    if not match:
        raise OSError(f"the index type of scikit-sundae's SUNDIALS is not stated in {config}")
    return found, match.group(1)


def driver() -> tuple[ctypes.CDLL | None, str]:
    """The compiled driver (built into the cache on first use), or None and the reason it is
    not available (said once per process in a RuntimeWarning; ``Solution.stats["driver"]``
    then says "scikit-sundae")."""
    global _driver
    if _driver is None:
        if sys.platform.startswith("win"):
            _driver = (None, "the compiled driver is not built on Windows", False)
        else:
            try:
                _driver = _load()
            except (OSError, ImportError, CCompilerError) as exc:
                _driver = (None, str(exc), False)
                warnings.warn(
                    f"simulate(jit=True): the compiled solver driver is not available ({exc}); "
                    "the solver calls the compiled functions through Python callbacks instead "
                    "(the same results, slower on small models).", RuntimeWarning, stacklevel=2)
    return _driver[0], _driver[1]


def prepare_driver() -> None:
    """Build the driver library into the current cache folder when it is not there, so that
    worker processes started next (a sweep's) load it instead of each compiling it; the
    process-wide ``driver()`` may have been loaded from another cache folder before."""
    if sys.platform.startswith("win"):
        return
    try:
        _load()
    except (OSError, ImportError, CCompilerError):
        pass  # driver() says why, where it is used


def has_sparse_solver() -> bool:
    """Whether the driver links SUNDIALS' sparse direct solver (SuperLU_MT)."""
    return driver()[0] is not None and bool(_driver and _driver[2])


def driver_job(cc: str | None = None) -> tuple[str, list[str], Path]:
    """The driver's C source, its compiler command (``{source}``, ``{output}`` to fill in)
    and its library in the cache (keyed like the model's libraries). Raises OSError or
    ImportError where scikit-sundae's SUNDIALS libraries are not found,
    :class:`~acausal.base.c_compiler.CompilerNotFoundError` without a compiler."""
    cc = find_c_compiler() if cc is None else cc
    folder = native.cache_folder()
    known = _jobs.get((cc, folder, REQUIRED, OPTIONAL))
    if known is not None:
        return known
    files, index_type = _sundials_files()
    source = (Path(__file__).with_name("native_driver.c")).read_text()
    sparse = "sundials_sunlinsolsuperlumt" in files
    header = f"#define ACAUSAL_SUNINDEX {index_type}\n" + \
        ("#define ACAUSAL_SUPERLUMT 1\n" if sparse else "")
    text = header + source
    libs = [str(files[n]) for n in REQUIRED + OPTIONAL if n in files]
    folders = sorted({str(Path(p).parent) for p in libs})
    link = tuple(libs + [f"-Wl,-rpath,{f}" for f in folders])
    key = hashlib.sha256("\n".join([text, cc, *DRIVER_FLAGS, *link, sys.platform]).encode()
                         ).hexdigest()
    library = folder / f"acausal_driver_{key[:40]}{shared_library_suffix()}"
    command = shared_library_command(cc, ["{source}"], "{output}", flags=DRIVER_FLAGS,
                                     hide_symbols=False, link=link)
    _jobs[(cc, folder, REQUIRED, OPTIONAL)] = text, command, library
    return text, command, library


def cached_driver() -> ctypes.CDLL | None:
    """The driver where it is loaded already or its library is in the cache, else None
    (nothing is compiled and nothing said: ``jit="auto"`` builds it in the background)."""
    global _driver
    if _driver is not None:
        return _driver[0]
    if sys.platform.startswith("win"):
        return None
    try:
        _, _, library = driver_job()
        if not library.is_file():
            return None
        _driver = _load(library)
    except (OSError, ImportError, CCompilerError):
        return None
    return _driver[0]


def _load(library: Path | None = None) -> tuple[ctypes.CDLL, str, bool]:
    """The driver library loaded (built into the cache first where it is not there)."""
    if library is None:
        text, command, library = driver_job()
        if not library.is_file():
            native.build_in_cache([lambda work: native._compile(text, command, library, work)])
    sparse = "sundials_sunlinsolsuperlumt" in _sundials_files()[0]
    lib = ctypes.CDLL(str(library))
    p, i, d, ll = ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_long
    lib.acausal_driver_new.restype = p
    lib.acausal_driver_new.argtypes = [i, i, i, i, i, i, i]
    lib.acausal_driver_function.restype = i
    lib.acausal_driver_function.argtypes = [p, i, p, p, p, p, p, p, p]
    lib.acausal_driver_callbacks.restype = None
    lib.acausal_driver_callbacks.argtypes = [p, _JACOBIAN, p, p, p, p, p, i, _WATCH, p, _POLL,
                                             ll, p]
    lib.acausal_driver_setup.restype = i
    lib.acausal_driver_setup.argtypes = [p, i, i, i, d, d, p, p, d, i, ll, ctypes.c_char_p, p,
                                         p, p, i]
    lib.acausal_driver_statistics.restype = None
    lib.acausal_driver_statistics.argtypes = [p, p]
    lib.acausal_driver_solve.restype = i
    lib.acausal_driver_solve.argtypes = [p, i, p, p, p, p, p]
    lib.acausal_driver_free.restype = None
    lib.acausal_driver_free.argtypes = [p]
    return lib, "", sparse


def for_problem(problem) -> NativeSolver | None:
    """The compiled driver for ``problem`` (a :class:`~.sundials.Problem`), or None where it
    is not available: no compiled functions, SUNDIALS' libraries not found (:func:`driver`),
    or a sparse problem without the sparse solver. ``jit=True`` builds the driver where it is
    missing; ``jit="auto"`` loads it from the cache (its background builder makes it).

    Without compiled functions, ``jit="auto"`` still drives a run that corrects by fixed-point
    iteration (:attr:`~.sundials.Problem.fixed_point_asked`: 30 unknowns or more) from the
    driver where it is in the cache, calling the virtual machine's functions back
    (:class:`VirtualMachineFunction`): the same iteration as on scikit-sundae (Newton's on a
    zero Jacobian), without a Python callback per right-hand side. Where the driver is not in
    the cache the run starts on scikit-sundae at once (building the driver first would make
    it wait for the C compiler) and goes over to it when the background builder has made it
    (:meth:`.tiering.NativeTier.driver_ready`)."""
    functions = problem._native
    if functions is None:
        if problem.mode != "auto" or not problem.fixed_point_asked:
            return None
        functions = [(slot, VirtualMachineFunction(f), f.name())
                     for f, slot in zip(problem.native_functions(), problem._compilable[1])
                     if slot is not None]
    lib = driver()[0] if problem.mode is True else cached_driver()
    # the fixed-point iteration solves diagonal systems only: no sparse solver needed
    if lib is None or (problem.sparse and not problem.fixed_point_asked
                       and not has_sparse_solver()):
        return None
    kind = KIND_LOOP if problem.eliminated else (KIND_DAE if problem.is_dae else KIND_ODE)
    f, g = problem._f, problem._g
    data = {"p": f.arg["p"], "d": f.arg["d"], "r": f.arg.get("r"), "live": g.arg["live"],
            "hold": g.arg["hold"]}
    return NativeSolver(problem, kind, functions, data, problem.settings,
                        len(problem.rows), problem.sparse, problem.n_x)


def _remove_file(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)


class VirtualMachineFunction:
    """A CasADi function of the virtual machine behind a C function pointer with the calling
    convention of CasADi's generated code (``eval(arg, res, iw, w, mem)`` and its ``work``),
    so that the driver calls it where it would call the compiled one: each call copies the
    inputs in (dense vectors, as the driver's), evaluates through a buffer and copies the
    outputs out (a few microseconds around an evaluation that costs hundreds on the large
    models that use it). An exception is kept (:attr:`error`) and the call returns 1: the
    solver stops with its right-hand-side failure and the exception is raised after."""

    def __init__(self, function) -> None:
        self.buffer = Buffered(function)
        self.error: BaseException | None = None
        inputs = list(self.buffer.arg.values())
        sizes_in = [a.nbytes for a in inputs]
        outputs = self.buffer.out
        sizes_out = [o.nbytes for o in outputs]
        n_in, n_out = len(inputs), len(outputs)
        call = self.buffer.raw
        memmove = ctypes.memmove
        where_in = [a.ctypes.data for a in inputs]
        where_out = [o.ctypes.data for o in outputs]

        def evaluate(arg, res, iw, w, mem) -> int:
            try:
                for i in range(n_in):
                    if arg[i]:
                        memmove(where_in[i], arg[i], sizes_in[i])
                call()
                for i in range(n_out):
                    if res[i]:
                        memmove(res[i], where_out[i], sizes_out[i])
                return 0
            except BaseException as exc:  # noqa: BLE001 - raised after the solver call
                self.error = exc
                return 1

        def work(n_arg, n_res, n_iw, n_w) -> int:
            n_arg[0], n_res[0], n_iw[0], n_w[0] = n_in, n_out, 0, 0
            return 0

        self._callbacks = (_EVAL(evaluate), _WORK(work))  # kept: the driver holds them

    def pointers(self) -> tuple[int, int]:
        """The addresses of ``eval`` and ``work`` for the driver."""
        return tuple(ctypes.cast(c, ctypes.c_void_p).value for c in self._callbacks)


def _address(array: np.ndarray | None) -> int | None:
    return None if array is None else array.ctypes.data


@dataclass
class NativeResult:
    """What the run loop reads of a solver call (as scikit-sundae's result)."""

    t: np.ndarray
    y: np.ndarray
    status: int
    i_events: np.ndarray | None
    message: str = ""


class NativeSolver:
    """One problem's solver with fixed settings, driven from C (see the module docstring).

    ``functions``: (slot, library path, symbol) for the compiled functions, slot 0 the
    right-hand side (KIND_ODE), residual (KIND_DAE) or linear loop (KIND_LOOP), 1 the root
    functions, 2 the model's rates and indicators (KIND_LOOP). ``data``: the arrays the
    generated functions read as their constant inputs (p, d, r, live, hold), kept and read
    at every call, so the problem updates them in place."""

    def __init__(self, problem, kind: int, functions: list[tuple[int, Path, str]],
                 data: dict[str, np.ndarray], settings, n_rows: int, sparse: bool,
                 algebraic_from: int | None = None) -> None:
        lib, why = driver()
        if lib is None:
            raise OSError(why)
        self._lib = lib
        self.problem = problem
        self.n = problem.n_x if kind == KIND_LOOP else problem.n_x + problem.n_z
        self.n_roots = n_rows + (problem.watch is not None)
        self._handle = lib.acausal_driver_new(kind, self.n, problem.n_x, problem.n_z, n_rows,
                                              int(problem.watch is not None), int(sparse))
        if not self._handle:
            raise MemoryError("the compiled solver driver could not allocate its memory")
        self._keep = [data]  # the driver holds pointers into these
        self._libraries = []
        #: functions of the virtual machine the driver calls back (none with machine code)
        self._virtual = [path for _, path, _ in functions
                         if isinstance(path, VirtualMachineFunction)]
        for slot, path, name in functions:
            if isinstance(path, VirtualMachineFunction):
                eval_, work = path.pointers()
            else:
                f = ctypes.CDLL(str(path))
                self._libraries.append(f)
                eval_, work = (ctypes.cast(getattr(f, s), ctypes.c_void_p).value
                               for s in (name, name + "_work"))
            if lib.acausal_driver_function(self._handle, slot, eval_, work,
                                           *(_address(data.get(k)) for k in
                                             ("p", "d", "r", "live", "hold"))):
                raise MemoryError("the compiled solver driver could not bind " + name)
        # SUNDIALS' difference quotients or fixed-point iteration: the exact Jacobian is not
        # built
        quotients, fixed_point = problem.quotient_jacobian, problem.fixed_point_asked
        jac = None if quotients or fixed_point else problem._jac
        sp = problem.jacobian_sparsity
        self._colind = np.asarray(sp.colind(), np.int64)
        self._row = np.asarray(sp.row(), np.int64)
        self._watch_u = np.zeros(self.n)
        #: the unknowns at the last poll and at the end of the last call (Problem.last_point)
        self.poll_u = np.zeros(self.n)
        self.poll_t = float("nan")
        self._callbacks = (_JACOBIAN(self._jacobian), _WATCH(self._watch), _POLL(self._poll))
        lib.acausal_driver_callbacks(
            self._handle, self._callbacks[0], None if jac is None else _address(jac.arg["u"]),
            None if jac is None else _address(jac.arg.get("up")),
            None if jac is None else _address(jac.out[0]), _address(self._colind),
            _address(self._row), sp.nnz(), self._callbacks[1], _address(self._watch_u),
            self._callbacks[2], problem.poll_every, _address(self.poll_u))
        atol_vector = id_vector = None
        if kind == KIND_DAE:
            id_vector = np.ones(self.n)
            id_vector[algebraic_from:] = 0.0
            if settings.suppress_algebraic:
                atol_vector = np.full(self.n, settings.atol)
                atol_vector[algebraic_from:] = 1e6 * max(settings.atol, 1.0)
        self._keep += [atol_vector, id_vector]
        # what each call reports: output rows, right-hand sides, root evaluations; the flags
        # of the roots found; SUNDIALS' last error; its warnings go to a file of their own
        self._counters = np.zeros(3, np.int64 if ctypes.sizeof(ctypes.c_long) == 8
                                  else np.int32)
        self._root_flags = np.zeros(max(self.n_roots, 1), np.int32)
        self._message = ctypes.create_string_buffer(2048)
        handle, self._log = tempfile.mkstemp(prefix="acausal-sundials-", suffix=".log")
        os.close(handle)
        # removed with the solver, or at the latest when the interpreter exits (a solver kept
        # by a compiled model in a module's globals is never collected before that)
        weakref.finalize(self, _remove_file, self._log)
        self._log_start = 0  # the log's size when the present call began
        self._t_out = self._y_out = np.zeros(0)
        flag = lib.acausal_driver_setup(
            self._handle, int(settings.method.upper() != "ADAMS"), int(quotients),
            int(fixed_point), settings.rtol, settings.atol,
            _address(atol_vector), _address(id_vector),
            float(settings.max_step) if settings.max_step is not None else 0.0,
            int(settings.max_order) if settings.max_order is not None else 0,
            int(settings.max_num_steps), self._log.encode(), _address(self._counters),
            _address(self._root_flags), ctypes.addressof(self._message), len(self._message))
        if flag:
            raise RuntimeError(f"the compiled solver driver's set-up failed (flag {flag})")
        self._error: BaseException | None = None

    def statistics(self) -> tuple[int, int, int]:
        """CVODE's steps, nonlinear iterations and nonlinear convergence failures since the
        present (or last) call began; zeros for IDA."""
        out = np.zeros(3, self._counters.dtype)
        self._lib.acausal_driver_statistics(self._handle, out.ctypes.data)
        steps, iterations, failures = out.tolist()
        return steps, iterations, failures

    # -- callbacks from C (exceptions must not cross the C stack: kept and raised after) -----
    def _jacobian(self, t: float, cj: float) -> int:
        try:
            jac = self.problem._jac
            jac.arg["t"][0] = t
            if "cj" in jac.arg:
                jac.arg["cj"][0] = cj
            jac()
            return 0
        except BaseException as exc:  # noqa: BLE001 - raised again after the solver call
            self._error = exc
            return 1

    def _watch(self, t: float) -> float:
        try:
            return float(self.problem.watch(t, self._watch_u))
        except BaseException as exc:  # noqa: BLE001
            self._error = exc
            self.problem.interrupted = True
            return 1.0

    def _poll(self, t: float) -> int:
        prob = self.problem
        self.poll_t = t
        try:
            if prob.progress is not None:
                prob._report(t)
        except BaseException as exc:  # noqa: BLE001
            self._error = exc
            prob.interrupted = True
        return int(prob.interrupted)

    # -- a solver call ----------------------------------------------------------------------
    def solve(self, tspan: np.ndarray, u0: np.ndarray, up0: np.ndarray | None = None
              ) -> NativeResult:
        """One solver call (see the driver's ``acausal_driver_solve``); the result's
        ``message`` is what SUNDIALS said during it (warnings and its last error)."""
        tspan = np.ascontiguousarray(tspan, float)
        u0 = np.ascontiguousarray(u0, float)
        up0 = None if up0 is None else np.ascontiguousarray(up0, float)
        if self._t_out.size < tspan.size:  # output buffers, reused while large enough
            self._t_out = np.empty(tspan.size)
            self._y_out = np.empty((tspan.size, self.n))
        self._error = None
        with contextlib.suppress(OSError):  # the warnings of this call start here
            self._log_start = os.path.getsize(self._log)
        status = self._lib.acausal_driver_solve(
            self._handle, tspan.size, tspan.ctypes.data, u0.ctypes.data,
            None if up0 is None else up0.ctypes.data, self._t_out.ctypes.data,
            self._y_out.ctypes.data)
        k, calls, root_calls = self._counters.tolist()
        self.poll_t = float(self._t_out[k - 1])  # the driver copied the last point's unknowns
        self.problem.calls += calls
        self.problem.root_calls += root_calls
        for function in self._virtual:  # what a function of the virtual machine raised
            if function.error is not None and self._error is None:
                self._error, function.error = function.error, None
        if self._error is not None:
            # what a Python callback raised, raised as scikit-sundae raises it: after the
            # solver returned
            raise self._error
        events = self._root_flags[:self.n_roots].reshape(1, -1).copy() if status == 2 else None
        message = self._said() if status < 0 or self.problem.settings.verbose else ""
        return NativeResult(self._t_out[:k].copy(), self._y_out[:k].copy(), int(status), events,
                            message)

    def _said(self) -> str:
        """SUNDIALS' warnings in the last call and its error, as scikit-sundae's handler would
        have printed them."""
        try:
            with open(self._log, "rb") as f:
                f.seek(self._log_start)
                text = f.read().decode(errors="replace")
        except OSError:
            text = ""
        return text + self._message.value.decode(errors="replace")

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.acausal_driver_free(handle)
