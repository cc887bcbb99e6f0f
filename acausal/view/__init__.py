"""Layer 4, the viewer: a solution shown in 3-D in the browser (``Solution.view``).

:mod:`~acausal.view.scene` samples the frames that the model's shapes use
(:class:`~acausal.language.visuals.Visual`, declared by components), :mod:`~acausal.view.page`
writes one self-contained HTML page with three.js embedded (``vendor/three``, MIT licence) and
the viewer's script (``assets/``), and :mod:`~acausal.view.browser` finds a headless Chromium to
check or photograph a page. Imports base .. run; the run layer's ``Solution.view`` calls
:func:`view` through the function the top package registers (see
:func:`acausal.run.solution.register_viewer`).
"""

from .page import View, view

__all__ = ["View", "view"]
