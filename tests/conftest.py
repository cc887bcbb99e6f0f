"""Fixtures shared by every test folder."""

from __future__ import annotations

import pytest

from acausal.base.c_compiler import CompilerNotFoundError, find_c_compiler


@pytest.fixture(scope="session")
def c_compiler() -> str:
    """The C compiler acausal would use (``$CC``, else cc, gcc or clang on the PATH), or a
    skip naming what is missing: the generated C code, FMU binaries and ``jit=True`` need one."""
    try:
        return find_c_compiler()
    except CompilerNotFoundError:
        pytest.skip("no C compiler ($CC, cc, gcc or clang on the PATH): generated C code, FMU "
                    "binaries and simulate(jit=True) cannot be built here")
