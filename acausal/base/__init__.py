"""Layer 0, the foundation: the error family, the version, the progress display.

Imports nothing from acausal; every other layer may import it.
"""
