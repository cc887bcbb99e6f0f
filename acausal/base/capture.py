"""Keeping what C code prints off the terminal: SUNDIALS' logger (file descriptor 1, around
every solver call of :mod:`acausal.run.sundials`), and IPOPT and CasADi's integrators (file
descriptor 2, while :func:`acausal.identify.identify` runs IPOPT). The text is kept for error
messages (or printed afterwards, verbose).

``with captured(fd) as out: ...`` points the process's descriptor ``fd`` (1 or 2) at a
temporary file for the block; ``out.text`` is what was written, once the block has ended. With
``python=True`` Python's own stream of that descriptor (``sys.stdout`` for 1, ``sys.stderr`` for
2) is redirected too, to a buffer whose text comes first in ``out.text``; inside such a block,
``with to_terminal(fd): ...`` lets Python code (a progress display) still write to the terminal.
Where the descriptor cannot be redirected (no such descriptor, an embedding without one),
nothing is captured and ``out.text`` stays ``""``.

Cheap enough to run around every solver call (some 15 us): one temporary file per descriptor and
process, reused (truncated) by every capture (a forked worker opens its own, so that it does not
share its parent's file offset; a capture nested in one of the same descriptor gets a file of
its own), and the C library loaded once, for the ``fflush`` that moves C's buffered output into
the file before the descriptor is restored.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["Captured", "captured", "to_terminal"]

#: Python's stream of each descriptor (redirected too with ``python=True``).
_STREAMS = {1: "stdout", 2: "stderr"}

_FILES: dict[int, tuple[int, IO[bytes]]] = {}  # fd -> (process id, its temporary file)
_ACTIVE: list[Captured] = []  # the captures running now, innermost last
_LIBC: Any = None  # the C library, for fflush (loading it costs ~20 us: once per process)


class Captured:
    """One running (or ended) :func:`captured` block: ``text`` is what was written to the
    descriptor (after what Python wrote to its stream, with ``python=True``); set when the
    block ends, ``""`` before."""

    def __init__(self, fd: int, saved: int | None, python: bool) -> None:
        self.text = ""
        self.fd = fd
        self.python = python
        self._saved = saved  # a copy of the descriptor as it was: the terminal
        self._terminal: IO[str] | None = None

    def terminal(self) -> IO[str]:
        """A text stream writing where the descriptor wrote before the block (opened once,
        closed when the block ends)."""
        if self._terminal is None:
            self._terminal = os.fdopen(os.dup(self._saved), "w")
        return self._terminal


def _temporary_file(fd: int) -> tuple[IO[bytes], bool]:
    """(file, whether to close it after the block): the process's reused file of ``fd``, or a
    file of its own for a capture nested in another of the same descriptor."""
    if _ACTIVE and any(c.fd == fd for c in _ACTIVE):
        return tempfile.TemporaryFile(mode="w+b"), True
    entry = _FILES.get(fd)
    if entry is None or entry[0] != os.getpid():
        # one per process (a forked worker must not share its parent's file offset), closed at
        # exit (else Python warns of an unclosed file when it shuts down)
        entry = _FILES[fd] = (os.getpid(), tempfile.TemporaryFile(mode="w+b"))
        atexit.register(entry[1].close)
    tmp = entry[1]
    tmp.seek(0)
    tmp.truncate()
    return tmp, False


def _flush_c() -> None:
    global _LIBC
    if _LIBC is None:
        import ctypes

        _LIBC = ctypes.CDLL(None)
    _LIBC.fflush(None)


@contextlib.contextmanager
def captured(fd: int, *, python: bool = False, enabled: bool = True) -> Iterator[Captured]:
    """Redirect the file descriptor ``fd`` (1: standard output, 2: standard error) to a
    temporary file while the block runs, and with ``python=True`` also Python's ``sys.stdout``
    (1) or ``sys.stderr`` (2) to a buffer. Yields a :class:`Captured` whose ``text`` is the
    buffer's text followed by the descriptor's, once the block has ended. ``enabled=False``:
    nothing is redirected (``text`` stays ``""``)."""
    stream = _STREAMS[fd]
    if not enabled:
        yield Captured(fd, None, python)
        return
    try:
        getattr(sys, stream).flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        saved = os.dup(fd)
    except (OSError, ValueError):
        yield Captured(fd, None, python)
        return
    tmp, own = _temporary_file(fd)
    capture = Captured(fd, saved, python)
    os.dup2(tmp.fileno(), fd)
    if python:
        python_stream = getattr(sys, stream)
        buffer = io.StringIO()
        setattr(sys, stream, buffer)
    _ACTIVE.append(capture)
    try:
        yield capture
    finally:
        _ACTIVE.remove(capture)
        if python:
            setattr(sys, stream, python_stream)
        if capture._terminal is not None:
            capture._terminal.close()
        _flush_c()
        os.dup2(saved, fd)
        os.close(saved)
        tmp.seek(0)
        capture.text = ((buffer.getvalue() if python else "")
                        + tmp.read().decode("utf-8", "replace"))
        if own:
            tmp.close()


@contextlib.contextmanager
def to_terminal(fd: int = 2) -> Iterator[None]:
    """Inside ``captured(fd, python=True)``: Python's stream of ``fd`` writes to the terminal
    for the block (the progress display while IPOPT's output is captured); elsewhere nothing
    changes."""
    capture = next((c for c in reversed(_ACTIVE) if c.fd == fd and c.python), None)
    if capture is None:
        yield
        return
    stream = _STREAMS[fd]
    redirected = getattr(sys, stream)
    setattr(sys, stream, capture.terminal())
    try:
        yield
    finally:
        getattr(sys, stream).flush()
        setattr(sys, stream, redirected)
