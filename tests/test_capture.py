"""acausal.base.capture: what C code and Python print to a file descriptor is kept off the
terminal and returned as text (SUNDIALS' logger on fd 1, IPOPT on fd 2)."""

import ctypes
import os
import sys

from acausal.base.capture import captured, to_terminal

LIBC = ctypes.CDLL(None)


def _c_print(fd: int, text: str) -> None:
    """Write as C code does: through the C library, to the descriptor itself."""
    data = text.encode()
    LIBC.write(fd, data, len(data))


def test_the_descriptor_and_python_stream_are_captured(capfd):
    with captured(1, python=True) as out:
        print("from python")
        _c_print(1, "from C\n")
        LIBC.printf(b"buffered C %d\n", 7)  # C's buffered stdout: flushed before restoring
    assert out.text.startswith("from python\n")
    assert "from C\n" in out.text and "buffered C 7\n" in out.text
    assert capfd.readouterr().out == ""  # nothing reached the terminal


def test_disabled_capture_lets_everything_through(capfd):
    with captured(2, python=True, enabled=False) as out:
        print("visible", file=sys.stderr)
        _c_print(2, "visible C\n")
    assert out.text == ""
    err = capfd.readouterr().err
    assert "visible\n" in err and "visible C\n" in err


def test_nested_captures_keep_their_own_text():
    with captured(2) as outer:
        _c_print(2, "outer before\n")
        with captured(2) as inner:
            _c_print(2, "inner\n")
        _c_print(2, "outer after\n")
    assert inner.text == "inner\n"
    assert outer.text == "outer before\nouter after\n"


def test_to_terminal_writes_past_the_capture(capfd):
    with captured(2, python=True) as out:
        print("captured", file=sys.stderr)
        with to_terminal(2):
            print("progress", file=sys.stderr)
    assert out.text == "captured\n"
    assert capfd.readouterr().err == "progress\n"
    with to_terminal(2):  # outside a capture it changes nothing
        print("plain", file=sys.stderr)
    assert capfd.readouterr().err == "plain\n"


def test_the_descriptor_is_restored():
    before = os.fstat(2)
    with captured(2):
        assert os.fstat(2).st_ino != before.st_ino
    assert os.fstat(2).st_ino == before.st_ino
