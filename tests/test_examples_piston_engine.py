"""``examples/piston_engine.py`` runs as a new user would run it and writes its outputs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_piston_engine_example_runs(tmp_path):
    out_dir = tmp_path / "out"
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "piston_engine.py"),
                             str(out_dir)], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "states (2): revoluteDrive.phi, revoluteDrive.w" in out
    assert "initial piston position: s = -1.100000 m" in out
    drift = float(re.search(r"largest relative drift (\S+)", out).group(1))
    assert drift < 1e-6
    pytest.importorskip("matplotlib")
    png = out_dir / "piston_engine.png"
    gif = out_dir / "piston_engine.gif"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a")
