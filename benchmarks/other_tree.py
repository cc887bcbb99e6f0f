"""Run a benchmark script against the acausal of another checkout (an older commit), in this
environment: ``python benchmarks/other_tree.py TREE SCRIPT [ARGS...]``.

``pip install -e .`` puts a finder on ``sys.meta_path`` that maps ``acausal`` (and
``acausal.components``, ``acausal.library``) to this checkout whatever ``PYTHONPATH`` says, so
``PYTHONPATH=TREE python SCRIPT`` still measures this checkout. Here that finder is taken off,
``TREE`` goes first on ``sys.path``, and ``acausal.components`` and ``acausal.library`` are
found in ``TREE/components`` and ``TREE/library`` (the folders pyproject.toml maps). Then
``SCRIPT`` runs as ``__main__`` with ``ARGS``. For example, the compile time of the mass chain
against d726b84 (benchmarks/README.md)::

    git worktree add /tmp/d726 d726b84
    python benchmarks/other_tree.py /tmp/d726 benchmarks/compile_scaling.py \\
        --sizes chain=1000,10000 --models chain --clock cpu --json

The script is this checkout's (the same measurement for both trees); what it imports of
acausal is ``TREE``'s, which the first line on stderr confirms.
"""

from __future__ import annotations

import runpy
import sys
import tempfile
from pathlib import Path


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tree, script = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    if not (tree / "acausal" / "__init__.py").is_file():
        sys.exit(f"{tree} holds no acausal package (acausal/__init__.py)")
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()
                        and "editable" not in type(f).__module__.lower()]
    sys.path.insert(0, str(tree))
    import acausal

    # acausal.components and acausal.library live at the tree's top level
    mapped = Path(tempfile.mkdtemp(prefix="acausal-tree-"))
    for name in ("components", "library"):
        if (tree / name).is_dir():
            (mapped / name).symlink_to(tree / name)
    acausal.__path__.append(str(mapped))
    print(f"acausal from {Path(acausal.__file__).parent}", file=sys.stderr)
    sys.argv = [str(script), *sys.argv[3:]]
    sys.path.insert(0, str(script.parent))
    runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main()
