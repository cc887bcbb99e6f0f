"""``examples/joint_friction_3d.py`` runs as a new user would run it: the spatial slider-crank
with MotionSolve ``Force_JointFriction`` elements read from XML moves, its joints' friction
dissipates the energy gravity releases, and kinetic + potential energy + the friction work of
all joints stays constant to 1e-6 relative (the issue's energy criterion for a closed mechanism
with friction joints)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
JOINTS = ("crank_bearing", "ball", "hooke", "sleeve")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("joint_friction_3d")
    out_dir = tmp / "out"
    csv = tmp / "csv" / "energy.csv"
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "joint_friction_3d.py"),
                             "--out", str(out_dir), "--csv", str(csv)],
                            capture_output=True, text=True, timeout=600, cwd=tmp)
    assert result.returncode == 0, result.stderr
    # its joints slip: the end-of-run report of stuck friction joints must stay quiet
    assert "Friction stuck" not in result.stderr
    return result.stdout, out_dir, csv


def number(pattern: str, text: str) -> float:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in the output:\n{text}"
    return float(match.group(1))


def test_summary_names_the_friction_joints_read_from_xml(run):
    out, _, _ = run
    # the joints are the friction classes built by from_motionsolve_xml, N-mm-s read as SI
    assert ("joints: crank_bearing = RevoluteWithFriction, ball = SphericalWithFriction, "
            "hooke = UniversalWithFriction, sleeve = CylindricalWithFriction") in out
    assert re.search(r"301001 crank bearing +mu_static 0\.1, mu_dynamic 0\.06, "
                     r"pin_radius 0\.008, friction_arm 0\.01, bending_reaction_arm 0\.02, "
                     r"damping_effects 10\b", out)
    assert re.search(r"301002 ball joint +.*ball_radius 0\.01", out)
    assert re.search(r"301004 slider sleeve +.*initial_overlap 0\.05", out)
    # the bristle states of all four laws and the friction work states
    for name in ("crank_bearing.bristle", "ball.bristle[2]", "hooke.bristle",
                 "sleeve.bristle[1]", *(f"{j}.friction_work" for j in JOINTS)):
        assert name in out
    assert "integrator: IDA" in out


def test_mechanism_moves_in_space_and_comes_to_rest(run):
    out, _, _ = run
    # released from rest with the crank horizontal, it swings through the bottom
    phi = number(r"t = 0\.50 s: crank angle +([-+0-9.]+) rad", out)
    assert abs(phi) > 1.0
    # the skew guide loads the crank bearing out of its plane (axial thrust, bending)
    assert number(r"largest n_axial ([0-9.]+) N", out) > 1.0
    assert number(r"n_bending ([0-9.]+) N", out) > 1.0
    # friction stops it within the 4 s
    assert number(r"kinetic energy at the end: (\S+) J", out) < 1e-8


def test_friction_work_per_joint_and_energy_balance_from_the_summary(run):
    out, _, _ = run
    work = {j: number(rf"\n  {j} +([0-9.]+) J", out) for j in JOINTS}
    for joint, w in work.items():
        assert w > 1e-4, joint
    total = number(r"\n  total +([0-9.]+) J", out)
    assert total == pytest.approx(sum(work.values()), abs=2e-6)
    released = number(r"energy released by gravity V\(0\) - min V: ([0-9.]+) J", out)
    assert released > 0.1
    # friction dissipated far more than 1 % of the energy released (here nearly all of it)
    assert total > 0.01 * released
    assert number(r"friction work / released energy: ([0-9.]+)", out) > 0.9
    assert number(r"largest relative drift of the balance (\S+)", out) < 1e-6


def test_energy_balance_from_the_csv(run):
    """K + V + sum of the joints' friction work, recomputed from the CSV columns, is constant to
    1e-6 of the energy released, while K + V alone falls by (nearly) all of it."""
    _, _, csv = run
    data = np.genfromtxt(csv, delimiter=",", names=True)
    t = data["t"]
    assert t[0] == 0.0
    assert t[-1] == pytest.approx(4.0)
    assert len(t) == 401
    mechanical = data["kinetic"] + data["potential"]
    work = sum(data[f"W_{j}"] for j in JOINTS)
    balance = mechanical + work
    np.testing.assert_allclose(balance, data["balance"], rtol=0, atol=1e-10)
    released = data["potential"][0] - np.min(data["potential"])
    assert np.max(np.abs(balance - balance[0])) < 1e-6 * released
    # without the friction work the balance would fail by orders of magnitude
    assert mechanical[0] - mechanical[-1] > 0.9 * released
    assert work[-1] > 0.01 * released
    # each joint's friction took energy out over the run (its work at the end is positive)
    for joint in JOINTS:
        assert data[f"W_{joint}"][-1] > 0.0, joint


def test_plots_are_written(run):
    pytest.importorskip("matplotlib")
    out, out_dir, _ = run
    for name in ("joint_friction_3d.png", "joint_friction_3d_energy.png"):
        path = out_dir / name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert str(path) in out


def test_the_3d_view_is_written_beside_the_plots(run):
    out, out_dir, _ = run
    path = out_dir / "joint_friction_3d.html"
    assert f"3-D view written to {path}" in out
    text = path.read_text()
    data = json.loads(re.search(r'id="acausal-data">(.*?)</script>', text, re.S).group(1))
    meta = data["meta"]
    curves = [[c["name"] for c in plot["curves"]] for plot in meta["plots"]]
    assert curves == [["crank_bearing.phi"], [f"{n}.normal_force" for n in JOINTS]]
    components = {shape["component"] for shape in meta["shapes"]}
    for joint in JOINTS:  # each friction joint is drawn (the Universal by its two revolutes)
        assert any(c == joint or c.startswith(joint + ".") for c in components), joint
    assert meta["trails"]  # the bodies' paths


def test_no_plot_and_short_run(tmp_path):
    out_dir = tmp_path / "out"
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "joint_friction_3d.py"),
                             "--t-end", "0.3", "--no-plot", "--out", str(out_dir)],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "friction work at t = 0.3 s:" in out
    assert number(r"largest relative drift of the balance (\S+)", out) < 1e-6
    assert "plot saved" not in out
    assert not out_dir.exists()
