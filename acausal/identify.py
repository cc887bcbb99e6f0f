"""Parameter identification (public module path; the code is :mod:`acausal.analysis.identify`)."""

from .analysis.identify import Experiment, IdentificationResult, IdentificationWarning, identify

__all__ = ["Experiment", "IdentificationResult", "IdentificationWarning", "identify"]
