"""The progress bar that ``simulate`` shows, at its public module path (defined in
:mod:`acausal.base.progress`): for libraries above the core that run long loops of their own
(the animations of ``acausal.components``)."""

from .base.progress import ProgressBar, progress_enabled

__all__ = ["ProgressBar", "progress_enabled"]
