"""Layer 4, export: FMUs (FMI 2.0) and plain C code of a compiled model.

Imports base, language, compiler and run (not :mod:`acausal.analysis`).
"""
