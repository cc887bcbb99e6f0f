"""The linearisation tests: pendulums.py importable (pytest runs with --import-mode=importlib,
which does not put test folders on sys.path)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
