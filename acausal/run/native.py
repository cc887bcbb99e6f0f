"""The solver's CasADi functions as machine code (``simulate(jit=True)``).

CasADi evaluates an SX function in its virtual machine at a few nanoseconds an operation; the
same function written as C by CasADi's code generator and compiled by the system's C compiler
runs several times faster (the 20-link chain's linear loop, 21 000 operations: 100 us in the
virtual machine, 17 us compiled with ``-O0``, 5 us with ``-O1``: benchmarks/native_code.py; see
docs/compiler.md, "Native code"). :func:`compiled` does that for a list of SX functions: a C
file and a shared library each, loaded back with ``casadi.external``, so the results are CasADi
functions with the same names, inputs and outputs that plug into MX graphs,
:class:`~.buffers.Buffered` and ``map`` as before.

Libraries are kept in a cache folder (``$ACAUSAL_CACHE_DIR``, else
``$XDG_CACHE_HOME/acausal/native``, else ``~/.cache/acausal/native``) under the hash of their C
source, the compiler, its flags and the CasADi version: the same model compiles once per
machine, also across processes and sessions (parameters are inputs, so new values need no new
library). A library is written under a temporary name and renamed, so processes that build the
same one at the same time do not read half a file.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import casadi as ca

from ..base.c_compiler import (
    CCompilerError,
    CompilerNotFoundError,
    compile_shared_library,
    find_c_compiler,
    shared_library_suffix,
)

#: Environment variable naming the folder where compiled libraries are kept.
CACHE_ENV = "ACAUSAL_CACHE_DIR"
#: CasADi instructions up to which a function is compiled with ``-O1``; larger ones get
#: ``-O0``. gcc's time grows faster than the size of one function (benchmarks/native_code.py:
#: the 50-link chain's 121 000-instruction loop takes 4 s at -O0 and 12 s at -O1 and runs 2.8x
#: faster at -O1; the 100-link chain's 466 000 instructions take 21 s and 126 s), and -O2 was
#: no faster than -O1 and took minutes.
OPTIMISE_UP_TO = 150_000


def cache_folder() -> Path:
    """Where compiled libraries are kept (see the module's docstring)."""
    named = os.environ.get(CACHE_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "acausal" / "native"


def compiled(functions: Sequence[ca.Function]) -> list[ca.Function]:
    """``functions`` (SX) compiled to machine code, one shared library each (built side by
    side, one compiler process per core); returned in the same order as CasADi functions of
    the same names, inputs and outputs. Optimised with ``-O1`` up to :data:`OPTIMISE_UP_TO`
    instructions, else ``-O0``.

    Meant for what the solver evaluates at every step (right-hand side, residual, root
    functions). A Jacobian, evaluated tens to hundreds of times a run, can be larger than all
    of them together (the 20-link chain's partial derivatives: 117 000 instructions): compiled,
    it saved less in that chain's run than writing its C code (0.2 s, needed for the cache key)
    and loading the library cost each new process, so it stays in CasADi's virtual machine.

    Raises :class:`~acausal.base.c_compiler.CompilerNotFoundError` without a C compiler and
    :class:`~acausal.base.c_compiler.CCompilerError` when the compiler fails."""
    return [ca.external(f.name(), str(lib)) for f, lib in zip(functions, libraries(functions))]


def libraries(functions: Sequence[ca.Function]) -> list[Path]:
    """The shared library of each of ``functions`` (built where the cache does not have it
    yet, see :func:`compiled`); each exports the function under its own name, with CasADi's
    calling convention (``name(arg, res, iw, w, mem)``, ``name_work``)."""
    try:
        cc = find_c_compiler()
    except CompilerNotFoundError as exc:
        raise CompilerNotFoundError(
            f"simulate(jit=True) compiles the model's functions to machine code and needs a C "
            f"compiler. {exc} Or simulate with jit=False (CasADi's virtual machine).") from None
    folder = cache_folder()
    found, missing = [], []
    for f in functions:
        source, flags, library = _source_and_library([f], "acausal_native", cc, folder)
        found.append(library)
        if not library.is_file():
            missing.append((source, flags, library))
    if missing:
        build_in_cache([(lambda tmp, s=source, fl=flags, lib=library:
                         _build(s, fl, lib, tmp, cc)) for source, flags, library in missing])
    return found


def library_of(functions: Sequence[ca.Function], what: str) -> Path:
    """One shared library with all of ``functions`` (each under its own name), built with the
    same cache and flags as :func:`libraries`: for a group of functions that is loaded as a
    whole, such as the functions of an NLP that ``casadi.nlpsol`` reads from a library (the
    MPC's). ``what`` names the user of the library in the errors."""
    try:
        cc = find_c_compiler()
    except CompilerNotFoundError as exc:
        raise CompilerNotFoundError(
            f"{what} compiles its functions to machine code and needs a C compiler. {exc} Or "
            "pass jit=False (CasADi's virtual machine).") from None
    source, flags, library = _source_and_library(functions, "acausal_group", cc, cache_folder())
    if not library.is_file():
        build_in_cache([lambda tmp: _build(source, flags, library, tmp, cc)])
    return library


def _source_and_library(functions: Sequence[ca.Function], name: str, cc: str,
                        folder: Path) -> tuple[str, tuple[str, ...], Path]:
    """The C source of ``functions`` in one file, its optimisation flags (``-O1`` up to
    :data:`OPTIMISE_UP_TO` instructions, else ``-O0``) and its library's path in the cache:
    named by the hash of the source, the compiler, the flags and the CasADi version."""
    gen = ca.CodeGenerator(name, {"with_header": False})
    for f in functions:
        gen.add(f)
    source = gen.dump()
    size = sum(f.n_instructions() for f in functions)
    flags = ("-O1",) if size <= OPTIMISE_UP_TO else ("-O0",)
    key = hashlib.sha256("\n".join(
        [source, cc, " ".join(flags), ca.__version__, sys.platform]).encode()).hexdigest()
    return source, flags, folder / f"acausal_{key[:40]}{shared_library_suffix()}"


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


def _build(source: str, flags: tuple[str, ...], library: Path, work: Path, cc: str) -> None:
    """Compile one function's C ``source`` in the folder ``work`` and move the library to
    ``library`` (atomic: a reader sees no library or a whole one)."""
    c_file = work / "function.c"
    c_file.write_text(source)
    built = compile_shared_library([c_file], work / library.name, compiler=cc, flags=flags,
                                   hide_symbols=False)
    os.replace(built, library)
