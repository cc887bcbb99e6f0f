"""The system's C compiler: found once, used to build shared libraries.

Two users: the export layer (plain C code and FMU binaries) and the run layer's native
functions (``simulate(jit=True)``, :mod:`acausal.run.native`). Both need the same search
(``$CC``, then ``cc``, ``gcc``, ``clang`` on the PATH) and the same error when there is none, so
the helpers sit in the bottom layer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import AcausalError

__all__ = ["CCompilerError", "CompilerNotFoundError", "compile_shared_library",
           "compiler_failed", "find_c_compiler", "shared_library_command",
           "shared_library_suffix"]


class CCompilerError(AcausalError):
    """The C compiler failed on generated code (the message quotes the command and what the
    compiler said)."""


class CompilerNotFoundError(CCompilerError):
    """No C compiler was found (``$CC``, ``cc``, ``gcc`` or ``clang`` on the PATH)."""


def find_c_compiler(compiler: str | os.PathLike | None = None) -> str:
    """The C compiler to use: ``compiler`` when given (a name on the PATH or a path), else
    ``$CC``, else the first of ``cc``, ``gcc``, ``clang`` on the PATH.

    Raises :class:`CompilerNotFoundError` naming what was tried and how to install one.
    """
    tried: list[str] = []
    candidates: list[str] = []
    if compiler is not None:
        candidates.append(str(compiler))
    else:
        env = os.environ.get("CC", "").strip()
        if env:
            candidates.append(env.split()[0])
        candidates += ["cc", "gcc", "clang"]
    for name in candidates:
        tried.append(name)
        found = shutil.which(name)
        if found:
            return found
    raise CompilerNotFoundError(
        f"No C compiler found (tried {', '.join(tried)}). Building a binary needs one: install "
        "gcc or clang (Debian/Ubuntu: apt-get install gcc; macOS: xcode-select --install; "
        "Windows: MinGW-w64 gcc), or give its path with compiler=... (or $CC).")


def shared_library_suffix(platform: str | None = None) -> str:
    """``.so`` on Linux, ``.dylib`` on macOS, ``.dll`` on Windows."""
    platform = sys.platform if platform is None else platform
    if platform.startswith("win") or platform == "cygwin":
        return ".dll"
    if platform == "darwin":
        return ".dylib"
    return ".so"


def shared_library_command(compiler: str, sources: Sequence[str | os.PathLike],
                           output: str | os.PathLike, *, flags: tuple[str, ...] = ("-O2",),
                           hide_symbols: bool = True, include_dirs: tuple[Path, ...] = (),
                           link: tuple[str, ...] = ()) -> list[str]:
    """The command that compiles C ``sources`` into the shared library ``output`` with
    ``compiler`` (see :func:`compile_shared_library`); the native code's builder process runs
    it as given, without importing acausal."""
    cmd = [str(compiler), "-shared", *flags]
    if not sys.platform.startswith("win"):
        cmd += ["-fPIC"] + (["-fvisibility=hidden"] if hide_symbols else [])
    for folder in include_dirs:
        cmd += ["-I", str(folder)]
    cmd += [str(s) for s in sources] + list(link) + ["-o", str(output)]
    if not sys.platform.startswith("win"):
        cmd.append("-lm")
    return cmd


def compiler_failed(cmd: Sequence[str], status: int | None, messages: str) -> CCompilerError:
    """The error for a compiler command that failed (``status`` None: it could not be run),
    quoting the command and what the compiler said."""
    if status is None:
        return CCompilerError(f"Running the C compiler failed ({' '.join(cmd)}): {messages}")
    messages = messages.strip()
    if len(messages) > 4000:
        messages = messages[:4000] + "\n..."
    return CCompilerError(f"The C compiler failed (exit status {status}):\n"
                          f"  {' '.join(cmd)}\n{messages}\nTry another compiler "
                          "(compiler=... or $CC); if the generated code is at fault, please "
                          "report this with the model.")


def compile_shared_library(sources: list[Path], output: Path, *,
                           compiler: str | os.PathLike | None = None,
                           include_dirs: tuple[Path, ...] = (),
                           flags: tuple[str, ...] = ("-O2",), hide_symbols: bool = True,
                           link: tuple[str, ...] = (), timeout: float = 600.0) -> Path:
    """Compile C ``sources`` into the shared library ``output`` with the system C compiler.

    ``link``: arguments after the sources (libraries to link with, ``-Wl,...`` options).

    With ``hide_symbols`` (an FMU) only the symbols the sources mark visible are exported
    (``-fvisibility=hidden``), so two FMUs loaded into one process do not clash. Raises
    :class:`CompilerNotFoundError` without a compiler, :class:`CCompilerError` with the
    compiler's messages when it fails.
    """
    cc = find_c_compiler(compiler)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    cmd = shared_library_command(cc, sources, output, flags=flags, hide_symbols=hide_symbols,
                                 include_dirs=include_dirs, link=link)
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise compiler_failed(cmd, None, str(exc)) from exc
    if result.returncode != 0 or not output.is_file():
        raise compiler_failed(cmd, result.returncode, result.stderr or result.stdout or "")
    return output
