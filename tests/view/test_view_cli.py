"""``acausal simulate ... --html FILE [--trails]``: the viewer page from the command line, run
as a user runs it (``python -m acausal`` in a subprocess)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PENDULUM = f"{HERE / 'viewer_models.py'}:Pendulum"
OSC = str(HERE.parents[1] / "examples" / "mass_spring_damper.py") + ":Oscillator"
SPINNER = f"{HERE / 'viewer_models.py'}:Spinner"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "acausal", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _data(page: Path) -> dict:
    text = page.read_text()
    return json.loads(re.search(r'id="acausal-data">(.*?)</script>', text, re.S).group(1))


def test_html_writes_the_viewer_page_with_plots_and_trails(tmp_path):
    page = tmp_path / "out" / "pendulum.html"
    result = run("simulate", PENDULUM, "--t-end", "2", "--n-points", "51", "--html", str(page),
                 "--trails", "--plot", "theta,w", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"viewer page written to {page}" in result.stdout
    meta = _data(page)["meta"]
    assert meta["n"] == 51 and meta["title"] == "Pendulum"
    assert [[c["name"] for c in p["curves"]] for p in meta["plots"]] == [["theta"], ["w"]]
    assert len(meta["trails"]) == 1 and meta["trails_on"] is True
    assert not list(tmp_path.glob("*.png"))  # --plot with --html: in the page, no window


def test_html_errors_are_one_line_with_what_to_do(tmp_path):
    for args, message in [
        (["--html", "x.png"], "ending in .html"),
        (["--trails"], "add --html FILE.html"),
    ]:
        result = run("simulate", PENDULUM, "--t-end", "1", *args, cwd=tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    result = run("simulate", SPINNER, "--t-end", "1", "--html", "o.html", cwd=tmp_path)
    assert result.returncode == 1 and "has no shapes to show" in result.stderr, result.stderr
    assert not (tmp_path / "o.html").exists()
    # a translational mass is a box sliding with its position: the oscillator has a page
    result = run("simulate", OSC, "--t-end", "1", "--html", "o.html", cwd=tmp_path)
    assert result.returncode == 0 and (tmp_path / "o.html").exists(), result.stderr
