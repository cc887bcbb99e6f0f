"""``examples/spatial_fourbar.py`` runs as a new user would run it and writes its outputs; the
command line animates a 3-D model."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_spatial_fourbar_example_runs(tmp_path):
    out_dir = tmp_path / "out"
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "spatial_fourbar.py"),
                             str(out_dir)], capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "states (2): j1.phi, j1.w" in out
    assert "loop closed by connect(" in out
    drift = float(re.search(r"largest relative drift (\S+)", out).group(1))
    assert drift < 1e-7
    page = (out_dir / "spatial_fourbar.html").read_text()  # the 3-D view, without matplotlib
    assert f"3-D view written to {out_dir / 'spatial_fourbar.html'}" in out
    assert '"names": ["j1.w"' in page or '"name": "j1.w"' in page
    pytest.importorskip("matplotlib")
    assert (out_dir / "spatial_fourbar.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out_dir / "spatial_fourbar.gif").read_bytes()[:6] in (b"GIF87a", b"GIF89a")


def test_command_line_animates_a_3d_model(tmp_path):
    pytest.importorskip("matplotlib")
    gif = tmp_path / "pendulum.gif"
    result = subprocess.run([sys.executable, "-m", "acausal", "simulate",
                             "acausal.components.multibody.examples:Pendulum", "--t-end", "1",
                             "--animate", str(gif), "-q"], capture_output=True, text=True,
                            timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a")
