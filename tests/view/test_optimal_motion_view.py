"""The 3-D view of an optimal motion: an optimal control result opens in the viewer like a
simulation, and the README's picture of it is taken by the same browser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("browser_available")

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_picture_of_an_optimal_motion(tmp_path):
    """tools/optimal_control_screenshot.py solves the cart-pole swing-up, writes its view and
    photographs it; the picture shows a scene and the plots (not a blank canvas)."""
    from PIL import Image

    result = subprocess.run([sys.executable, str(ROOT / "tools" / "optimal_control_screenshot.py"),
                             "--out", str(tmp_path)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "cartpole_swingup.html").read_text()
    assert "cart-pole swing-up" in page
    picture = np.asarray(Image.open(tmp_path / "cartpole_swingup.png").convert("RGB"))
    assert picture.shape == (640, 960, 3)
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 100
    readme = (ROOT / "README.md").read_text()
    assert "docs/images/cartpole_swingup.png" in readme
    assert (ROOT / "docs" / "images" / "cartpole_swingup.png").exists()
