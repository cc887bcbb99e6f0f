"""C code generation (public module path; the code is :mod:`acausal.export.c_code`)."""

from .export.c_code import CompilerNotFoundError, ExportError, generate_c

__all__ = ["CompilerNotFoundError", "ExportError", "generate_c"]
