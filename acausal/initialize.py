"""Consistent initial values (public module path; the code is :mod:`acausal.run.initialize`)."""

from .run.initialize import InitialValues, initialize

__all__ = ["InitialValues", "initialize"]
