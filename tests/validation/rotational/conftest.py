"""Puts tests/validation on sys.path for the shared helpers of ``msl_1d.py``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
