"""The solver's CasADi functions as machine code (``simulate(jit=True)`` and ``jit="auto"``).

CasADi evaluates an SX function in its virtual machine at a few nanoseconds an operation; the
same function written as C by CasADi's code generator and compiled by the system's C compiler
runs several times faster (the 20-link chain's linear loop, 21 000 operations: 100 us in the
virtual machine, 17 us compiled with ``-O0``, 5 us with ``-O1``: benchmarks/native_code.py; see
docs/compiler.md, "Native code"). :func:`compiled` does that for a list of SX functions: a C
file and a shared library each, loaded back with ``casadi.external``, so the results are CasADi
functions with the same names, inputs and outputs that plug into MX graphs,
:class:`~.buffers.Buffered` and ``map`` as before.

Libraries are kept in a cache folder (``$ACAUSAL_CACHE_DIR``, else
``$XDG_CACHE_HOME/acausal/native``, else ``~/.cache/acausal/native``) under the hash of the
serialised function, the compiler, its flags, the code generator's layout and the CasADi
version: the same model compiles once per machine, also across processes and sessions
(parameters are inputs, so new values need no new library). A library is written under a
temporary name and renamed, so processes that build the same one at the same time do not read
half a file.

Two ways to build (:mod:`.native_build` does the work for one library): :func:`libraries`
compiles here and waits (``jit=True``); :func:`start_background` hands the libraries to a
builder process of their own and returns at once (``jit="auto"``, the tiering of
:mod:`.tiering`). One process never builds a library twice at a time: a library a background
build is making is waited for, not built again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import casadi as ca

from ..base.c_compiler import (
    CCompilerError,
    CompilerNotFoundError,
    compiler_failed,
    find_c_compiler,
    shared_library_command,
    shared_library_suffix,
)
from . import native_build

#: Environment variable naming the folder where compiled libraries are kept.
CACHE_ENV = "ACAUSAL_CACHE_DIR"
#: CasADi instructions up to which a function is compiled with ``-O1`` at once; larger ones
#: get ``-O0`` first, up to :data:`UNOPTIMISED_UP_TO`, and ``-O1`` later (:func:`upgrades`).
#: gcc's time at -O1, spilled and in pieces, is about 100 us of CPU an instruction, three times
#: that at -O0, for code that runs twice as fast: worth a first run's wait while the compile
#: stays within about 3 s (the 50-link chain's right-hand side, 28 700 instructions: 2.9 s; the
#: 100-link chain's, 58 900: 2.0 s at -O0 against 5.7 s at -O1; ``python
#: benchmarks/native_tiering.py --compile``, docs/compiler.md).
OPTIMISE_UP_TO = 30_000
#: Functions below this many instructions are compiled at -O1 as CasADi writes them, in one
#: piece; from here on their long-lived values are kept in memory and their code is cut into
#: pieces of :data:`.native_build.CHUNK` statements (:func:`.native_build.split_body`), which
#: keeps gcc's time linear in the size and lets ``jit=True`` compile the pieces side by side.
#: Below, gcc's time is short either way and the one piece runs a little faster.
SPLIT_FROM = 12_000
#: ... and above this many instructions -O1 at once again: -O0 code that large runs no
#: faster than CasADi's virtual machine (the 100-link chain's right-hand side before the
#: orientation rule, 217 000 instructions: 790-960 us a call at -O0 after 8 s of compiler,
#: 860 us in the virtual machine, 309 us at -O1 after 30 s).
UNOPTIMISED_UP_TO = 150_000
#: Pieces of equal length that ``-O0`` code of :data:`SPLIT_FROM` instructions or more is cut
#: into, so that ``jit=True`` compiles them side by side: the 100-link chain's right-hand side
#: in 1.6 s of wall time instead of 2.5 s on two cores (C code, gcc and loading; ``python
#: benchmarks/rhs_growth.py``, ``cc_s``), for code that ran 1.4-1.9 times slower
#: (``native_tiering.py --compile``), which serves only until its ``-O1`` upgrade is built
#: (:func:`start_upgrades`).
UNOPTIMISED_PIECES = 2
#: Functions compiled with ``-O0`` first up to :data:`UNOPTIMISED_UP_TO` instructions
#: whatever their size (by name): IDA's Jacobian (``res_jac``), evaluated every few steps (a
#: tenth as often as the residual), whose build at -O1 would hold up a first run's switch to
#: machine code (``jit="auto"``) by more than it saves. EngineV6's, 11 000 instructions: 0.46 s
#: of gcc at -O0 for 6.9 us a call, 1.8 s at -O1 for 5.0 us, 48 us in the virtual machine
#: (``python benchmarks/engine_v6.py --functions``, a busy machine).
QUICK_TO_BUILD = frozenset({"res_jac"})
#: The layout of the generated code, part of every library's key: changed whenever
#: :mod:`.native_build` writes other code for the same function.
GENERATOR = "spill-2"
#: Background builder processes one process runs at a time.
MAX_BACKGROUND = 1
#: A library that another process's builder has marked as being built (``NAME.building``
#: next to it) is left to that builder, unless the mark is older than this [s] (a builder
#: that was killed): the workers of a sweep do not all compile the same code.
MARK_STALE_S = 900.0


def cache_folder() -> Path:
    """Where compiled libraries are kept (see the module's docstring)."""
    named = os.environ.get(CACHE_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "acausal" / "native"


@dataclass(frozen=True)
class Planned:
    """One function's library: where it is (or will be) in the cache and how it is built."""

    function: ca.Function
    serialized: str
    library: Path
    flags: tuple[str, ...]
    chunk: int
    #: values live longer than this many statements kept in memory (0: none; native_build)
    spill: int = 0
    #: the optimised library that later runs use once it is built (:func:`upgrades`), where
    #: this one is the quick ``-O0`` build; None otherwise
    upgrade: Planned | None = None

    def command(self, cc: str) -> list[str]:
        """The compiler command (``{source}``, ``{output}``: filled in by the builder)."""
        return shared_library_command(cc, ["{source}"], "{output}", flags=self.flags,
                                      hide_symbols=False)


def plan(functions: Sequence[ca.Function], cc: str,
         folder: Path | None = None) -> list[Planned]:
    """Each of ``functions``' library in the cache: named by the SHA-256 of the serialised
    function, the compiler, the flags and the layout (``-O1`` up to :data:`OPTIMISE_UP_TO` and
    above :data:`UNOPTIMISED_UP_TO` instructions, spilled and in pieces from
    :data:`SPLIT_FROM`; ``-O0`` between, and for :data:`QUICK_TO_BUILD` up to
    :data:`UNOPTIMISED_UP_TO`, in :data:`UNOPTIMISED_PIECES` from :data:`SPLIT_FROM`, until its
    ``-O1`` upgrade is in the cache: see :func:`upgrades`), :data:`GENERATOR`, the CasADi
    version and the platform. Serialising is a few times cheaper than writing the C code, which
    only a build needs (benchmarks/native_tiering.py)."""
    folder = cache_folder() if folder is None else folder

    def planned(f: ca.Function, serialized: str, flags: tuple[str, ...], chunk: int,
                spill: int, upgrade: Planned | None = None) -> Planned:
        key = hashlib.sha256("\n".join(
            [serialized, cc, " ".join(flags), str(chunk), str(spill), GENERATOR,
             ca.__version__, sys.platform]).encode()).hexdigest()
        library = folder / f"acausal_{key[:40]}{shared_library_suffix()}"
        return Planned(f, serialized, library, flags, chunk, spill, upgrade)

    out = []
    for f in functions:
        serialized = f.serialize()
        size = f.n_instructions()
        # -O1 in one piece while gcc's time stays linear; from SPLIT_FROM its long-lived
        # values in memory and the code in pieces (jit=True compiles them side by side:
        # native_build.split_units)
        optimised = planned(f, serialized, ("-O1",), *(
            (0, 0) if size < SPLIT_FROM else (native_build.CHUNK, native_build.SPILL_AFTER)))
        quick = (OPTIMISE_UP_TO < size <= UNOPTIMISED_UP_TO) or (
            f.name() in QUICK_TO_BUILD and size <= UNOPTIMISED_UP_TO)
        if not quick or optimised.library.is_file():
            out.append(optimised)
        else:  # -O0 first, in halves from SPLIT_FROM (see UNOPTIMISED_PIECES)
            halves = -UNOPTIMISED_PIECES if size >= SPLIT_FROM else 0
            out.append(planned(f, serialized, ("-O0",), halves, 0, upgrade=optimised))
    return out


def upgrades(planned: Sequence[Planned]) -> list[Planned]:
    """The optimised libraries of ``planned`` that are not in the cache yet (see
    :func:`start_upgrades`)."""
    return [p.upgrade for p in planned
            if p.upgrade is not None and not p.upgrade.library.is_file()]


def start_upgrades(planned: Sequence[Planned], cc: str) -> BackgroundBuild | None:
    """Where a problem starts on quick ``-O0`` code (``jit=True``: :func:`ensure`;
    ``jit="auto"``: :meth:`.tiering.NativeTier.switch`), its ``-O1`` libraries built in the
    background for the runs after it (the builder outlives the process; :func:`plan` takes
    them once they are in the cache), as a JIT compiler recompiles hot code at a higher level.
    None where there is nothing to build, or the cache folder cannot be written (the quick
    code serves on)."""
    pending = upgrades(planned)
    if not pending:
        return None
    try:
        return start_background(pending, cc, upgrade=True)
    except OSError:
        return None


#: Whether this CasADi build counts references to its expressions atomically
#: (``CASADI_WITH_THREADSAFE_SYMBOLICS``, the PyPI wheels of 3.8): only then may a thread
#: serialise a function while the caller builds other expressions that share its symbols.
THREADSAFE_SYMBOLICS = "CASADI_WITH_THREADSAFE_SYMBOLICS" in ca.CasadiMeta.compiler_flags()


class Planning:
    """:func:`plan` in a thread of this process: CasADi releases Python's lock while it
    serialises, so the run's own set-up (start values, the integrator's choice) goes on beside
    it on a second core (the 20-link chain's right-hand side before the orientation rule:
    26 000 instructions, 2.3 MB serialised in about 25 ms). :meth:`result` waits for it and
    raises what it raised. Without :data:`THREADSAFE_SYMBOLICS` the plan is made in the
    caller's thread, at once."""

    def __init__(self, functions: Sequence[ca.Function], cc: str) -> None:
        self._out: list[Planned] | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if THREADSAFE_SYMBOLICS:
            self._thread = threading.Thread(target=self._plan, args=(list(functions), cc),
                                            daemon=True, name="acausal native plan")
            self._thread.start()
        else:
            self._plan(list(functions), cc)  # here, before anything else builds expressions

    def _plan(self, functions: list[ca.Function], cc: str) -> None:
        try:
            self._out = plan(functions, cc)
        except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread instead
            self._error = exc

    def result(self) -> list[Planned]:
        """The plan (waits for it)."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        return self._out or []


def compiled(functions: Sequence[ca.Function]) -> list[ca.Function]:
    """``functions`` (SX) compiled to machine code, one shared library each (built side by
    side, one compiler process per core); returned in the same order as CasADi functions of
    the same names, inputs and outputs (see :func:`libraries`).

    Meant for what the solver evaluates at every step (right-hand side, residual, root
    functions; IDA's Jacobian too, evaluated every few steps). CVODE's Jacobian, evaluated tens
    to hundreds of times a run, can be larger than all of them together (the 20-link chain's
    partial derivatives: 117 000 instructions): compiled, it saved less in that chain's run
    than its cache key (then its C code, 0.2 s) and loading the library cost each new process,
    so it stays in CasADi's virtual machine (see docs/compiler.md, "Native code").

    Raises :class:`~acausal.base.c_compiler.CompilerNotFoundError` without a C compiler and
    :class:`~acausal.base.c_compiler.CCompilerError` when the compiler fails."""
    return [ca.external(f.name(), str(lib)) for f, lib in zip(functions, libraries(functions))]


def libraries(functions: Sequence[ca.Function]) -> list[Path]:
    """The shared library of each of ``functions``, built here where the cache does not have
    it yet (a background build of this process that is making it is waited for first); each
    exports the function under its own name, with CasADi's calling convention
    (``name(arg, res, iw, w, mem)``, ``name_work``)."""
    return ensure(functions)[0]


def ensure(functions: Sequence[ca.Function]) -> tuple[list[Path], int]:
    """:func:`libraries`, and how many of them were compiled now (0: all from the cache)."""
    try:
        cc = find_c_compiler()
    except CompilerNotFoundError as exc:
        raise CompilerNotFoundError(
            f"simulate(jit=True) compiles the model's functions to machine code and needs a C "
            f"compiler. {exc} Or simulate with jit=False (CasADi's virtual machine).") from None
    planned = plan(functions, cc)
    for build in {id(b): b for b in (in_flight(p.library) for p in planned) if b}.values():
        build.wait()
    missing = [p for p in planned if not p.library.is_file()]
    if missing:
        build_in_cache([(lambda tmp, p=p: _build(p, cc, tmp)) for p in missing])
    start_upgrades(planned, cc)
    return [p.library for p in planned], len(missing)


def library_of(functions: Sequence[ca.Function], what: str) -> Path:
    """One shared library with all of ``functions`` (each under its own name), built with
    ``-O1`` (``-O0`` above :data:`OPTIMISE_UP_TO` instructions) in the same cache: for a group
    of functions that is loaded as a whole, such as the functions of an NLP that
    ``casadi.nlpsol`` reads from a library (the MPC's). ``what`` names the user of the
    library in the errors."""
    try:
        cc = find_c_compiler()
    except CompilerNotFoundError as exc:
        raise CompilerNotFoundError(
            f"{what} compiles its functions to machine code and needs a C compiler. {exc} Or "
            "pass jit=False (CasADi's virtual machine).") from None
    gen = ca.CodeGenerator("acausal_group", {"with_header": False})
    for f in functions:
        gen.add(f)
    source = gen.dump()
    size = sum(f.n_instructions() for f in functions)
    flags = ("-O1",) if size <= OPTIMISE_UP_TO else ("-O0",)
    key = hashlib.sha256("\n".join(
        [source, cc, " ".join(flags), ca.__version__, sys.platform]).encode()).hexdigest()
    library = cache_folder() / f"acausal_{key[:40]}{shared_library_suffix()}"
    if not library.is_file():
        command = shared_library_command(cc, ["{source}"], "{output}", flags=flags,
                                         hide_symbols=False)
        build_in_cache([lambda tmp: _compile(source, command, library, tmp)])
    return library


def build_in_cache(builds: Sequence) -> None:
    """Run ``builds`` (each a callable taking a fresh work folder) side by side, in a
    temporary folder inside the cache folder; the first failure is raised."""
    from concurrent.futures import ThreadPoolExecutor  # with logging: not on `import acausal`

    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        work = tempfile.TemporaryDirectory(dir=folder, prefix=".build-")
    except OSError as exc:
        raise CCompilerError(
            f"simulate(jit=True) keeps compiled functions in {folder}, which cannot be "
            f"written ({exc.strerror or exc}). Name a writable folder in ${CACHE_ENV}, or "
            "simulate with jit=False.") from None
    with work as tmp, ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        jobs = []
        for i, build in enumerate(builds):
            sub = Path(tmp) / str(i)
            sub.mkdir()
            jobs.append(pool.submit(build, sub))
        for job in jobs:
            job.result()  # the first compiler error, if any


def _build(planned: Planned, cc: str, work: Path) -> None:
    """One function's library built in the folder ``work`` (see :mod:`.native_build`), its
    pieces in one compiler process a core (``jit=True`` waits for it; the background builder
    compiles each library in one process, leaving the run its core)."""
    _compile(native_build.c_source(planned.function, planned.chunk, planned.spill),
             planned.command(cc), planned.library, work, parts=os.cpu_count() or 1)


def _compile(source: str, command: list[str], library: Path, work: Path,
             parts: int = 1) -> None:
    try:
        native_build.build(source, command, library, work, parts)
    except native_build.CompileFailed as exc:
        raise compiler_failed(exc.argv, exc.status, exc.messages) from None


# -- background builds (jit="auto") ------------------------------------------------------------

class BackgroundBuild:
    """Libraries being built by a builder process (``python native_build.py JOB``) of their
    own: it runs at low priority, outlives this process if need be (a short run still leaves
    its libraries in the cache for the next one) and renames each library into the cache when
    it is whole. A daemon thread waits for it (so it is reaped the moment it ends: no zombie)
    and reads its report; :meth:`finished` asks without waiting."""

    def __init__(self, libraries: list[Path], process: subprocess.Popen,
                 upgrade: bool = False) -> None:
        self.libraries = libraries
        self.process = process
        #: building -O1 upgrades (:func:`start_upgrades`), which have a slot of their own
        self.upgrade = upgrade
        #: what failed, once finished: the first compiler error's text ("" when all built)
        self.error = ""
        self._report = ""
        self._waiter = threading.Thread(target=self._wait, daemon=True,
                                        name="acausal native build")
        self._waiter.start()

    def _wait(self) -> None:
        try:
            self._report, _ = self.process.communicate()
        except (OSError, ValueError):
            self.process.wait()
        failed = []
        try:
            text = (self._report or "").strip()
            failed = json.loads(text.splitlines()[-1]).get("failed", []) if text else []
        except (ValueError, IndexError, AttributeError):
            pass
        if failed:
            first = failed[0]
            self.error = (str(compiler_failed(first["argv"], first["status"],
                                              first["messages"]))
                          if first.get("argv") else first.get("messages", "") or "failed")
        elif not all(p.is_file() for p in self.libraries):
            self.error = f"the builder process ended with status {self.process.returncode}"
        with _lock:
            for path in self.libraries:
                if _in_flight.get(path) is self:
                    del _in_flight[path]

    def finished(self) -> bool:
        """Whether the builder has ended (its libraries are then in the cache, or
        :attr:`error` says why not)."""
        return not self._waiter.is_alive()

    def succeeded(self) -> bool:
        """Finished with every library in the cache."""
        return self.finished() and not self.error

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the builder (at most ``timeout`` seconds); whether it has finished."""
        self._waiter.join(timeout)
        return self.finished()


_lock = threading.Lock()
_in_flight: dict[Path, BackgroundBuild] = {}


def in_flight(library: Path) -> BackgroundBuild | None:
    """The background build of this process that is making ``library``, if any."""
    with _lock:
        build = _in_flight.get(library)
    if build is not None and build.finished():
        return None
    return build


def start_background(planned: Sequence[Planned], cc: str,
                     extra: Sequence[tuple[str, list[str], Path]] = (),
                     upgrade: bool = False) -> BackgroundBuild | None:
    """Build the libraries of ``planned`` that the cache does not have, and ``extra`` ones
    (``(C source, command, library)``: the solver driver), in a background process; None
    when there is nothing to build or this process already runs :data:`MAX_BACKGROUND`
    builders of the kind (``upgrade``: of :func:`start_upgrades`; they never hold up a
    problem's first build) (ask again later). Raises OSError where the cache folder cannot be
    written or the process not started."""
    with _lock:
        running = {id(b): b for b in _in_flight.values() if b.upgrade == upgrade}
    if sum(not b.finished() for b in running.values()) >= MAX_BACKGROUND:
        return None
    missing = [p for p in planned if _free(p.library)]
    extra = [e for e in extra if _free(e[2])]
    if not missing and not extra:
        return None
    folder = cache_folder()
    folder.mkdir(parents=True, exist_ok=True)
    # marked here, atomically: of two processes that got this far for one library, one
    # builds it (the workers of a sweep start at the same moment)
    marks = {}
    for library in [p.library for p in missing] + [e[2] for e in extra]:
        mark = _mark(library)
        if mark is not None:
            marks[library] = mark
    missing = [p for p in missing if p.library in marks]
    extra = [e for e in extra if e[2] in marks]
    if not missing and not extra:
        return None
    # the -O1 upgrades of the -O0 ones, built by a builder that this one starts when it is done
    # (native_build.main): the run is not held up by them, and a second run finds them built
    # where there was time for it
    then = []
    for p in missing:
        if p.upgrade is not None and _free(p.upgrade.library):
            mark = _mark(p.upgrade.library)
            if mark is not None:
                marks[p.upgrade.library] = mark
                then.append(p.upgrade)
    job_folder = Path(tempfile.mkdtemp(dir=folder, prefix=".job-"))
    try:
        jobs = []
        # the extra ones (the solver driver, about a second) first: a run that waits for the
        # model's libraries can go on with the driver (tiering.NativeTier.driver_ready)
        for k, (source, command, library) in enumerate(extra):
            source_file = job_folder / f"extra{k}.c"
            source_file.write_text(source)
            jobs.append({"source": str(source_file), "command": command,
                         "library": str(library)})
        def job(p: Planned, k: int) -> dict:
            function_file = job_folder / f"{k}.casadi"
            if not function_file.exists():
                function_file.write_text(p.serialized)
            return {"function": str(function_file), "chunk": p.chunk, "spill": p.spill,
                    "command": p.command(cc), "library": str(p.library)}

        serial = {p.serialized: k for k, p in enumerate(missing)}  # one file a function
        jobs += [job(p, k) for k, p in enumerate(missing)]
        spec = job_folder / "job.json"
        spec.write_text(json.dumps({"folder": str(folder), "workers": os.cpu_count() or 1,
                                    "jobs": jobs,
                                    "then": [job(p, serial[p.serialized]) for p in then]}))
        process = subprocess.Popen(
            [sys.executable, native_build.__file__, str(spec)], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            **_detached())
    except BaseException:
        import shutil

        shutil.rmtree(job_folder, ignore_errors=True)
        for mark in marks.values():
            with contextlib.suppress(OSError):
                mark.unlink()
        raise
    build = BackgroundBuild([Path(j["library"]) for j in jobs], process, upgrade)
    # the chained upgrades are not this build's (finished() says nothing of them): their
    # marks keep other builders off them (_free) while they are made
    with _lock:
        for path in build.libraries:
            _in_flight[path] = build
    return build


def mark_of(library: Path) -> Path:
    """The file that says a builder is making ``library`` (removed when it is done)."""
    return library.with_name(library.name + ".building")


def _free(library: Path) -> bool:
    """Whether ``library`` is missing and nobody builds it: no background build of this
    process, no fresh mark of another's."""
    if library.is_file() or in_flight(library) is not None:
        return False
    try:
        import time

        return time.time() - mark_of(library).stat().st_mtime > MARK_STALE_S
    except OSError:
        return True  # no mark


def _mark(library: Path) -> Path | None:
    """The mark of ``library``, made here (None: another process made it first). A stale mark
    (see :data:`MARK_STALE_S`) is replaced."""
    mark = mark_of(library)
    for _ in range(2):
        try:
            handle = os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if _free(library):  # stale: its builder is gone
                with contextlib.suppress(OSError):
                    mark.unlink()
                continue
            return None
        os.write(handle, str(os.getpid()).encode())
        os.close(handle)
        return mark
    return None


def _detached() -> dict:
    """Popen options that keep the builder out of this process's signals (Ctrl-C in the
    terminal, the end of the session) so that it finishes its libraries."""
    if sys.platform.startswith("win"):
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    return {"start_new_session": True}
