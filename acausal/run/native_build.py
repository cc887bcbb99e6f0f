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

#: Statements a piece of a split function holds (:func:`split_body`), its long-lived values
#: spilled: the 50-link chain's right-hand side (28 700 instructions) took 2.9 s of gcc's CPU
#: at -O1 in pieces for 8.1 us a call, against 5.9 s in one piece for 8.0 us (``python
#: benchmarks/native_tiering.py --compile``, docs/compiler.md); pieces of 1 000 to 10 000
#: compiled and ran alike within a tenth (measured during development).
CHUNK = 3000
#: A value read more than this many statements after it is computed is kept in memory in a
#: split function (:func:`split_body`): it would not stay in one of the 16 registers that long,
#: and the register allocator's time grows with the values it juggles at once.
SPILL_AFTER = 300
#: The longest a compiler command may run [s] (a guard against a hung compiler).
COMPILE_TIMEOUT_S = 900.0
#: A function of this many pieces or more is compiled in several files side by side
#: (:func:`split_units`): gcc's time grows with the code, and one process uses one core.
PARALLEL_FROM = 2
_PIECE = "static ACAUSAL_NOINLINE void casadi_piece"

_LOCAL = re.compile(r"\b(a\d+)\b")
_ASSIGNED = re.compile(r"\s*(a\d+)=")
_WORK = re.compile(r"if \(sz_w\) \*sz_w = (\d+)[;*]")  # in name_work and name_work_bytes


def c_source(function, chunk: int = 0, spill: int = 0) -> str:
    """CasADi's C code of ``function`` (an SX function; no header), laid out by
    :func:`split_body`: its values that live longer than ``spill`` statements kept in memory
    (``spill`` > 0), its body cut into pieces of ``chunk`` statements (``chunk`` > 0) or into
    ``-chunk`` pieces of equal length (``chunk`` < 0)."""
    import casadi as ca

    gen = ca.CodeGenerator(function.name(), {"with_header": False})
    gen.add(function)
    source = gen.dump()
    return split_body(source, chunk, spill) if chunk or spill else source


def split_body(source: str, chunk: int, spill: int = 0) -> str:
    """``source`` (CasADi's code of one SX function) with the body of its evaluation function
    ``casadi_f0`` laid out for the C compiler.

    CasADi writes an SX function as one C function of straight-line statements on local
    variables ``a0, a1, ...`` (reused as registers are). Two changes, each optional:

    * ``spill`` > 0: a value read more than ``spill`` statements after it is computed is
      written to and read from memory, CasADi's work vector (:func:`_spill`), instead of a
      local. With the cut below, no value is a local beyond its piece: the register allocator,
      whose time grows faster than the number of values it juggles at once, works on one
      piece at a time (the 50-link spatial chain's right-hand side: 5.9 s of gcc at -O1 in one
      function, 2.9 s spilled in pieces; see :data:`CHUNK`), and within a piece gcc may still
      keep such a value in a register (the pointer is not ``volatile``: that ran a sixth
      slower, measured during development). A value that lives that long would have left the
      16 registers anyway.
    * ``chunk`` != 0: the body cut into functions of ``chunk`` statements each (``chunk`` < 0:
      into ``-chunk`` functions of equal length), called one after another, which
      :func:`split_units` compiles side by side. Each piece declares the locals it touches,
      loads those it reads before writing them from a shared array and stores, at its end,
      those it wrote that a later piece reads before writing them (the values live at the
      cut), so every piece starts from the values the previous pieces left. The pieces are
      ``noinline``: optimised together they would be one long function again.

    The shared array, for the spilled values and the cut's, is CasADi's work vector ``w`` (its
    size, reported by ``name_work``, grows by the locals), so callers (``casadi.external``,
    the compiled driver) allocate it as before. Code of any other shape (a statement over
    several lines, a work vector in use) is returned unchanged."""
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
    if chunk < 0:
        chunk = -(-len(body) // -chunk)
    if not chunk or len(body) <= chunk:
        chunk = 0
    if not (chunk or spill) or not declared or any(
            not line.endswith(";") or "{" in line or "}" in line or re.search(r"\b[wv]\b", line)
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
    spilled = "  casadi_real* v = {};"  # the spilled values, by the locals' places
    if spill:
        body = _spill(body, spill)
    if not chunk:
        f0 = [lines[start]] + declared + [spilled.format(f"w + {offset}")] + body
        return "\n".join(lines[:start] + f0 + lines[end - 1:])
    cuts = [body[first:first + chunk] for first in range(0, len(body), chunk)]
    touches = [_touched(piece) for piece in cuts]
    # a piece stores only the locals that a later piece reads before it writes them (live
    # out): CasADi reuses a local as soon as its value is dead, so most of a piece's writes are
    # overwritten before the end of the function (storing them all, pieces of 1 000 made the
    # 100-link chain's right-hand side at -O0 twice as slow: measured during development)
    live_out: list[set[str]] = [set() for _ in cuts]
    live: set[str] = set()
    for k in range(len(cuts) - 1, -1, -1):
        live_out[k] = live
        written, read_first = touches[k]
        live = read_first | (live - written)
    pieces, calls = [], []
    for k, piece in enumerate(cuts):
        written, read_first = touches[k]
        name = f"casadi_piece{k}"
        touched = sorted(written | read_first, key=_index)
        text = [f"static ACAUSAL_NOINLINE void {name}(const casadi_real** arg, "
                "casadi_real** res, casadi_real* s) {"]
        text += ["  casadi_real " + ", ".join(touched[j:j + 12]) + ";"
                 for j in range(0, len(touched), 12)]
        if spill:
            text.append(spilled.format("s"))
        text += [f"  {a}=s[{_index(a)}];" for a in sorted(read_first, key=_index)]
        text += piece
        text += [f"  s[{_index(a)}]={a};" for a in sorted(written & live_out[k], key=_index)]
        text += ["}"]
        pieces.append("\n".join(text))
        calls.append(f"  {name}(arg, res, w + {offset});")
    prelude = ("#if defined(__GNUC__) || defined(__clang__)\n"
               "#define ACAUSAL_NOINLINE __attribute__((noinline))\n"
               "#else\n#define ACAUSAL_NOINLINE\n#endif\n")
    f0 = [lines[start]] + calls + ["  return 0;", "}"]
    return "\n".join(lines[:start] + [prelude] + pieces + f0 + lines[end + 1:])


def _spill(body: list[str], far: int) -> list[str]:
    """``body`` with every value that is read more than ``far`` statements after the
    statement that computes it written to and read from ``v[k]`` (``k``: its local's place)
    instead of its local. A local holds one value from one assignment to the next (CasADi
    reuses it once the value is dead), so the choice is made per assignment."""
    last_read: dict[int, int] = {}  # statement that assigns a value -> its last reader
    assigned_at: dict[str, int] = {}
    for k, line in enumerate(body):
        assigned = _ASSIGNED.match(line)
        for local in _LOCAL.findall(line, assigned.end() if assigned else 0):
            at = assigned_at.get(local)
            if at is not None:
                last_read[at] = k
        if assigned:
            assigned_at[assigned.group(1)] = k
    far_read = {at for at, k in last_read.items() if k - at > far}
    if not far_read:
        return body
    assigned_at.clear()
    out = []
    for k, line in enumerate(body):
        assigned = _ASSIGNED.match(line)
        head, tail = (line[:assigned.end()], line[assigned.end():]) if assigned else ("", line)
        tail = _LOCAL.sub(lambda m: f"v[{_index(m.group(1))}]"
                          if assigned_at.get(m.group(1)) in far_read else m.group(1), tail)
        if assigned:
            local = assigned.group(1)
            assigned_at[local] = k
            if k in far_read:
                head = head.replace(local, f"v[{_index(local)}]", 1)
        out.append(head + tail)
    return out


def _touched(piece: list[str]) -> tuple[set[str], set[str]]:
    """The locals a piece of statements writes, and those it reads before writing them (by
    their names as CasADi wrote them, one name a local: a statement's own local is written after
    its right-hand side is read)."""
    written: set[str] = set()
    read_first: set[str] = set()
    for line in piece:
        assigned = _ASSIGNED.match(line)
        for local in _LOCAL.findall(line, assigned.end() if assigned else 0):
            if local not in written:
                read_first.add(local)
        if assigned:
            written.add(assigned.group(1))
    return written, read_first


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
                    source = c_source(function, int(job.get("chunk", 0)),
                                      int(job.get("spill", 0)))
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
    ``"chunk"`` and ``"spill"``; ``"then"``: jobs for a builder that this one starts when its
    own jobs are done (:func:`_chain`). Runs at low priority (the run that started it keeps its
    core), prints one JSON line (what failed) and removes the job's folder."""
    spec_file = Path(argv[0])
    then: list[dict] = []
    try:
        if hasattr(os, "nice") and not os.environ.get(_CHAINED):
            os.nice(10)
        spec = json.loads(spec_file.read_text())
        then = list(spec.get("then", []))
        failed = run_jobs(spec["jobs"], Path(spec["folder"]), int(spec.get("workers", 1)))
        if then:
            then = _chain(then, spec, failed)
    except Exception as exc:  # noqa: BLE001 - the folder may be gone (a test's temporary one)
        failed = [{"library": "", "argv": [], "status": None,
                   "messages": f"{type(exc).__name__}: {exc}"}]
    finally:
        shutil.rmtree(spec_file.parent, ignore_errors=True)
        for job in then:  # not handed on: their marks go, another builder may make them
            with contextlib.suppress(OSError):
                os.remove(job["library"] + ".building")
    try:
        print(json.dumps({"failed": failed}), flush=True)
    except (BrokenPipeError, OSError):
        pass  # the run that started the build has ended: the libraries are in the cache
    return 0 if not failed else 1


#: Set in the environment of a builder that another builder started (:func:`_chain`): it is
#: at low priority already.
_CHAINED = "ACAUSAL_CHAINED_BUILD"


def _chain(then: list[dict], spec: dict, failed: list[dict]) -> list[dict]:
    """Start a builder of its own, detached, for the jobs ``then`` (the ``-O1`` upgrades of
    this builder's ``-O0`` libraries), so that this builder ends and reports now; returns the
    jobs not handed on (none where it started; all where this build failed)."""
    if failed:
        return then
    detached = {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)} \
        if sys.platform.startswith("win") else {"start_new_session": True}
    folder = None
    try:  # this builder's own libraries are built: nothing here may report them failed
        folder = Path(tempfile.mkdtemp(dir=spec["folder"], prefix=".job-"))
        jobs = [dict(job) for job in then]
        moved: dict[str, Path] = {}
        for k, job in enumerate(jobs):
            source = job["function"]
            if source not in moved:
                moved[source] = folder / f"{k}.casadi"
                shutil.copyfile(source, moved[source])
            job["function"] = str(moved[source])
        chained = folder / "job.json"
        chained.write_text(json.dumps({"folder": spec["folder"],
                                       "workers": spec.get("workers", 1), "jobs": jobs}))
        subprocess.Popen([sys.executable, __file__, str(chained)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=dict(os.environ, **{_CHAINED: "1"}), **detached)
    except OSError:  # e.g. the cache folder gone: the upgrades are left to a later run
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        return then
    return []


if __name__ == "__main__":
    # run as a script: its folder (acausal/run) leads sys.path, where no module of acausal's
    # should stand in for one that CasADi imports
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        sys.path.pop(0)
    sys.exit(main(sys.argv[1:]))
