"""One shared library of native code written and compiled: here, or in a builder process.

:mod:`.native` decides what to build (which functions, the optimisation level, the cache path);
this module does the work for one library: CasADi's C code of the function, cut into pieces
where it is optimised (:func:`split_body`), the compiler command run, the library renamed into
the cache. ``simulate(jit=True)`` calls :func:`build` in its own process and waits;
``jit="auto"`` starts this file as a script in a background process (:func:`main`), which
outlives the run that started it: a run shorter than the compiler still leaves the libraries in
the cache for the next run, and nothing waits for the compiler at the interpreter's exit.

Standard library and CasADi only, nothing of acausal: the builder process starts without
acausal's import (~0.7 s), and the command it runs comes ready-made from
:func:`acausal.base.c_compiler.shared_library_command`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: Statements a piece of a split function holds. gcc's time for one function grows faster than
#: its length (register allocation): CasADi's code of the 20-link chain's linear loop (21 000
#: statements) took 4.4 s of CPU at -O1 in one function, 2.7 s in pieces of 1 000, and ran at
#: 7.6 us against 6.1 us a call (loads and stores at the cuts; benchmarks/native_tiering.py);
#: pieces of 250 compiled no faster (measured during development).
CHUNK = 1000
#: The longest a compiler command may run [s] (a guard against a hung compiler).
COMPILE_TIMEOUT_S = 900.0
#: A function of this many pieces or more is compiled in several files side by side
#: (:func:`split_units`): gcc's time grows with the code, and one process uses one core.
PARALLEL_FROM = 2
_PIECE = "static ACAUSAL_NOINLINE void casadi_piece"

_LOCAL = re.compile(r"\b(a\d+)\b")
_ASSIGNED = re.compile(r"\s*(a\d+)=")
_WORK = re.compile(r"if \(sz_w\) \*sz_w = (\d+)[;*]")  # in name_work and name_work_bytes


def c_source(function, chunk: int = 0) -> str:
    """CasADi's C code of ``function`` (an SX function; no header), its body cut into pieces
    of ``chunk`` statements when ``chunk`` > 0 (:func:`split_body`)."""
    import casadi as ca

    gen = ca.CodeGenerator(function.name(), {"with_header": False})
    gen.add(function)
    source = gen.dump()
    return split_body(source, chunk) if chunk > 0 else source


def split_body(source: str, chunk: int) -> str:
    """``source`` (CasADi's code of one SX function) with the body of its evaluation function
    ``casadi_f0`` cut into functions of ``chunk`` statements each, called one after another.

    CasADi writes an SX function as one C function of straight-line statements on local
    variables ``a0, a1, ...`` (reused as registers are). Each piece declares the locals it
    touches, loads those it reads before writing them from a shared array and stores those
    it writes at its end, so every piece starts from the values the previous pieces left. The
    shared array is CasADi's work vector ``w`` (its size, reported by ``name_work``, grows by
    the locals), so callers (``casadi.external``, the compiled driver) allocate it as before.
    The pieces are ``noinline``: optimised together they would be one long function again.

    Code of any other shape (a statement over several lines, a work vector in use) is returned
    unchanged."""
    lines = source.split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("static int casadi_f0("))
    except StopIteration:
        return source
    i = start + 1
    declared = []
    while i < len(lines) and lines[i].lstrip().startswith("casadi_real a"):
        declared.append(lines[i])
        i += 1
    body_from = i
    while i < len(lines) and lines[i].strip() != "return 0;":
        i += 1
    if i + 1 >= len(lines) or lines[i + 1] != "}":
        return source
    body, end = lines[body_from:i], i + 1
    if len(body) <= chunk or not declared or any(
            not line.endswith(";") or "{" in line or "}" in line or re.search(r"\bw\b", line)
            for line in body):
        return source
    work = [k for k, line in enumerate(lines) if _WORK.search(line)]
    sizes = {int(_WORK.search(lines[k]).group(1)) for k in work}
    if len(work) != 2 or len(sizes) != 1:
        return source
    n_locals = 1 + max(_index(m) for line in declared for m in _LOCAL.findall(line))
    offset = sizes.pop()  # CasADi's own part of w comes first, the locals after it
    for k in work:
        lines[k] = _WORK.sub(lambda m: f"if (sz_w) *sz_w = {offset + n_locals}{m.group(0)[-1]}",
                             lines[k], count=1)
    pieces, calls = [], []
    for first in range(0, len(body), chunk):
        piece = body[first:first + chunk]
        # the locals by their names as CasADi wrote them (one name a local): a statement's
        # own local is written after its right-hand side is read
        written: set[str] = set()
        read_first: set[str] = set()
        for line in piece:
            assigned = _ASSIGNED.match(line)
            for local in _LOCAL.findall(line, assigned.end() if assigned else 0):
                if local not in written:
                    read_first.add(local)
            if assigned:
                written.add(assigned.group(1))
        name = f"casadi_piece{first // chunk}"
        touched = sorted(written | read_first, key=_index)
        text = [f"static ACAUSAL_NOINLINE void {name}(const casadi_real** arg, "
                "casadi_real** res, casadi_real* s) {"]
        text += ["  casadi_real " + ", ".join(touched[j:j + 12]) + ";"
                 for j in range(0, len(touched), 12)]
        text += [f"  {a}=s[{_index(a)}];" for a in sorted(read_first, key=_index)]
        text += piece
        text += [f"  s[{_index(a)}]={a};" for a in sorted(written, key=_index)] + ["}"]
        pieces.append("\n".join(text))
        calls.append(f"  {name}(arg, res, w + {offset});")
    prelude = ("#if defined(__GNUC__) || defined(__clang__)\n"
               "#define ACAUSAL_NOINLINE __attribute__((noinline))\n"
               "#else\n#define ACAUSAL_NOINLINE\n#endif\n")
    f0 = [lines[start]] + calls + ["  return 0;", "}"]
    return "\n".join(lines[:start] + [prelude] + pieces + f0 + lines[end + 1:])


def _index(local: str) -> int:
    """The place of a local (``a0012``, as CasADi names it) in the work vector's part."""
    return int(local[1:])


def split_units(source: str, parts: int) -> list[str] | None:
    """``source`` cut into C files that compile side by side, one compiler process each, and
    link into the same library: the first holds everything but the pieces' bodies
    (:func:`split_body`; declared there), the ``parts`` others (or fewer) the pieces, in runs
    of consecutive ones. None where ``source`` has fewer than :data:`PARALLEL_FROM` pieces or is
    not of that shape, or on Windows (its compiler command is another).

    A piece file repeats CasADi's preamble up to the library's exported functions (macros,
    ``casadi_real``, the helper functions such as ``casadi_sq``) with another prefix for the
    helpers' names (``CODEGEN_PREFIX``), so that no name is defined twice; the pieces are
    hidden symbols of the library, not exported."""
    if parts < 2 or sys.platform.startswith("win"):
        return None
    lines = source.split("\n")
    heads = [k for k, line in enumerate(lines) if line.startswith(_PIECE)]
    config = next((k for k, line in enumerate(lines)
                   if line.startswith("/* Configuration this file was compiled with")), None)
    if len(heads) < PARALLEL_FROM or config is None or config > heads[0]:
        return None
    ends = []
    for head in heads:
        end = next((k for k in range(head, len(lines)) if lines[k] == "}"), None)
        if end is None:
            return None
        ends.append(end)
    prefix = re.search(r"#define CASADI_PREFIX\(ID\) (\w+) ## ID", source)
    if prefix is None:
        return None
    hidden = ["#if defined(__GNUC__) || defined(__clang__)",
              "#define ACAUSAL_PIECE __attribute__((noinline, visibility(\"hidden\"))) void",
              "#else", "#define ACAUSAL_PIECE void", "#endif"]
    per_part = -(-len(heads) // parts)
    units, main = [], lines[:heads[0]]
    main += hidden + [lines[h].replace("static ACAUSAL_NOINLINE void", "ACAUSAL_PIECE", 1)
                      .replace(" {", ";", 1) for h in heads]
    main += lines[ends[-1] + 1:]
    for first in range(0, len(heads), per_part):
        unit = ["#define CASADI_CODEGEN_PREFIX",
                f"#define CODEGEN_PREFIX {prefix.group(1)}u{first}_"] + lines[:config] + hidden
        for head, end in zip(heads[first:first + per_part], ends[first:first + per_part]):
            unit += [lines[head].replace("static ACAUSAL_NOINLINE void", "ACAUSAL_PIECE", 1)]
            unit += lines[head + 1:end + 1]
        units.append("\n".join(unit))
    return ["\n".join(main)] + units


def build(source: str, command: Sequence[str], library: Path, work: Path,
          parts: int = 1) -> None:
    """Compile ``source`` with ``command`` (its ``{source}`` and ``{output}`` filled in) in the
    folder ``work`` and rename the library to ``library`` (atomic: a reader sees no library
    or a whole one); in ``parts`` compiler processes side by side where :func:`split_units`
    can cut it, then linked (should the compiler refuse the cut files, the one file is built
    instead: the cut is only a matter of time). Raises :class:`CompileFailed` with the
    command and the compiler's messages."""
    output = work / Path(library).name
    units = split_units(source, parts)
    if units is not None:
        try:
            _build_units(units, command, output, work)
        except CompileFailed:
            units = None  # a cut the compiler refuses: the one file (its error, if any)
    if units is None:
        c_file = work / "function.c"
        c_file.write_text(source)
        _run([str(c_file) if a == "{source}" else str(output) if a == "{output}" else a
              for a in command], output)
    os.replace(output, library)


def _build_units(units: list[str], command: Sequence[str], output: Path, work: Path) -> None:
    """:func:`split_units`' files compiled side by side and linked into ``output``."""
    files = [work / f"unit{k}.c" for k in range(len(units))]
    objects = [f.with_suffix(".o") for f in files]
    for file, text in zip(files, units):
        file.write_text(text)
    compile_only = [[("-c" if a == "-shared" else str(f) if a == "{source}" else
                      str(o) if a == "{output}" else a) for a in command if a != "-lm"]
                    for f, o in zip(files, objects)]
    with ThreadPoolExecutor(max_workers=len(units)) as pool:
        list(pool.map(lambda argv_obj: _run(*argv_obj), zip(compile_only, objects)))
    link: list[str] = []
    for a in command:
        link += [str(o) for o in objects] if a == "{source}" else \
            [str(output)] if a == "{output}" else [a]
    _run(link, output)


def _run(argv: list[str], output: Path) -> None:
    """Run one compiler command that must make ``output``."""
    try:
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=COMPILE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CompileFailed(argv, None, str(exc)) from exc
    if result.returncode != 0 or not output.is_file():
        raise CompileFailed(argv, result.returncode, result.stderr or result.stdout or "")


class CompileFailed(Exception):
    """The compiler failed: its command, exit status (None: it did not run) and messages."""

    def __init__(self, argv: list[str], status: int | None, messages: str) -> None:
        super().__init__(messages)
        self.argv, self.status, self.messages = argv, status, messages.strip()


def run_jobs(jobs: Sequence[dict], folder: Path, workers: int) -> list[dict]:
    """Build ``jobs`` (see :func:`main`) side by side, ``workers`` at a time, in a work folder
    inside ``folder``; what failed, as dicts ``{"library", "argv", "status", "messages"}``."""
    failed: list[dict] = []
    with tempfile.TemporaryDirectory(dir=folder, prefix=".build-") as tmp:
        def one(k: int) -> None:
            job = jobs[k]
            work = Path(tmp) / str(k)
            work.mkdir()
            try:
                if "source" in job:
                    source = Path(job["source"]).read_text()
                else:
                    import casadi as ca

                    function = ca.Function.deserialize(Path(job["function"]).read_text())
                    source = c_source(function, int(job.get("chunk", 0)))
                build(source, job["command"], Path(job["library"]), work)
            except CompileFailed as exc:
                failed.append({"library": job["library"], "argv": exc.argv,
                               "status": exc.status, "messages": exc.messages[:4000]})
            except Exception as exc:  # noqa: BLE001 - reported to the parent, not raised
                failed.append({"library": job["library"], "argv": [], "status": None,
                               "messages": f"{type(exc).__name__}: {exc}"})
            finally:
                shutil.rmtree(work, ignore_errors=True)
                with contextlib.suppress(OSError):  # the mark the parent set (native.mark_of)
                    os.remove(job["library"] + ".building")

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            list(pool.map(one, range(len(jobs))))
    return failed


def main(argv: Sequence[str]) -> int:
    """The background builder: ``argv[0]`` names a JSON file ``{"folder": cache folder,
    "workers": n, "jobs": [...]}``, each job ``{"library": path, "command": [...]}`` with
    either ``"source"`` (a C file) or ``"function"`` (a serialised CasADi function) and
    ``"chunk"``. Runs at low priority (the run that started it keeps its core), prints one
    JSON line (what failed) and removes the job's folder."""
    spec_file = Path(argv[0])
    try:
        if hasattr(os, "nice"):
            os.nice(10)
        spec = json.loads(spec_file.read_text())
        failed = run_jobs(spec["jobs"], Path(spec["folder"]), int(spec.get("workers", 1)))
    except Exception as exc:  # noqa: BLE001 - the folder may be gone (a test's temporary one)
        failed = [{"library": "", "argv": [], "status": None,
                   "messages": f"{type(exc).__name__}: {exc}"}]
    finally:
        shutil.rmtree(spec_file.parent, ignore_errors=True)
    try:
        print(json.dumps({"failed": failed}), flush=True)
    except (BrokenPipeError, OSError):
        pass  # the run that started the build has ended: the libraries are in the cache
    return 0 if not failed else 1


if __name__ == "__main__":
    # run as a script: its folder (acausal/run) leads sys.path, where no module of acausal's
    # should stand in for one that CasADi imports
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        sys.path.pop(0)
    sys.exit(main(sys.argv[1:]))
