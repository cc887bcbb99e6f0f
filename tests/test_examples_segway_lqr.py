"""``examples/segway_lqr.py`` as a new user runs it: trim and linearise the open-loop segway,
design an LQR with scipy, and stabilise the nonlinear segway (slipping contact) from a
10-degree tilt; it writes a plot and a CSV."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_segway_lqr_stabilises_the_nonlinear_segway(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "segway_lqr.py"), "out",
                             "--csv", "lqr.csv"], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    # the linearised slipping model's unstable pole is the hand-derived rolling model's (the
    # adhering contact is nearly rolling): an independent check of linearize on this plant
    found = re.search(r"unstable pole of the linearised slipping model: ([\d.]+) 1/s "
                      r"\(rolling model of segway.py: ([\d.]+) 1/s\)", out)
    assert found, out
    assert float(found.group(1)) == pytest.approx(float(found.group(2)), rel=2e-4)
    poles = re.search(r"closed-loop poles: (.*)", out).group(1)
    assert all(complex(p.replace(" ", "")).real < 0 for p in poles.split(","))
    data = np.loadtxt(tmp_path / "lqr.csv", delimiter=",", skiprows=1)
    t, x, pitch, torque = data[:, 0], data[:, 1], data[:, 3], data[:, 5]
    assert pitch[0] == pytest.approx(math.radians(10.0), abs=1e-9)  # released at 10 degrees
    assert t[-1] == pytest.approx(8.0)
    assert abs(pitch[-1]) < math.radians(0.1) and abs(x[-1]) < 0.02  # upright, back home
    assert np.max(np.abs(pitch[t > 4.0])) < math.radians(0.5)  # and it stays there
    assert np.max(np.abs(torque)) < 50.0  # a plausible motor
    pytest.importorskip("matplotlib")
    assert (tmp_path / "out" / "segway_lqr.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
