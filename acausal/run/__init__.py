"""Layer 3, running a compiled model: initialisation, the SUNDIALS driver, event location, the
hybrid loop, the solution, ``simulate`` and ensembles.

Imports base, language and compiler.
"""
