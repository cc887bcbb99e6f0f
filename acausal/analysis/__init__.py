"""Layer 4, beyond simulation: linearisation and trim, parameter identification.

Imports base, language, compiler and run (not :mod:`acausal.export`).
"""
