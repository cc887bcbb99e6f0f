"""Keywords the planar library renamed to Modelica MultiBody's names.

Parameter names follow Modelica MultiBody across the planar and the 3-D libraries
(``use_axis_flange``, ``r_CM``, a scalar ``g`` with a direction ``n``). A planar component lists
its former names in the class attribute ``renamed`` (old name -> new name); the old keyword is
refused with an error that names the new one, instead of the generic "no parameter named"
error.
"""

from __future__ import annotations

from typing import Any, ClassVar

from acausal.errors import ModelDefinitionError


class RenamedKeywords:
    """Mixin of a planar component (put it before ``Component`` in the bases): a keyword that
    is a key of ``renamed`` and no longer a declaration raises :class:`ModelDefinitionError`
    saying it was renamed."""

    renamed: ClassVar[dict[str, str]] = {}

    def __init__(self, **overrides: Any) -> None:
        known = self._class_declarations()
        for old in overrides:
            new = self.renamed.get(old)
            if new is not None and old not in known:
                cls = type(self).__name__
                raise ModelDefinitionError(
                    f"{cls}: {old} was renamed {new} (as in Modelica MultiBody): write "
                    f"{cls}({new}=...).")
        super().__init__(**overrides)
