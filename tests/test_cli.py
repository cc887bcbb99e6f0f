"""The command line, run as a new user runs it: ``python -m acausal ...`` in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from acausal.base.errors import ParameterError, UnknownNameError
from acausal.cli import CommandLineError, _split_spec, load_model, parse_assignments

ROOT = Path(__file__).resolve().parents[1]
OSC = "examples/mass_spring_damper.py:Oscillator"
PISTON = "examples/piston_engine.py:PistonEngine"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "acausal", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def assert_clean_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("error: ")
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


@pytest.fixture(scope="module")
def oscillator_run(tmp_path_factory):
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("cli")
    result = run("simulate", OSC, "--t-end", "2", "--dt", "0.01", "--set", "mass.m=4",
                 "--set", "spring.c=200,damper.d=1", "--csv", str(out / "out.csv"),
                 "--plot", "mass.s,spring.f", "--plot", "mass.v", "--png", str(out / "out.png"))
    assert result.returncode == 0, result.stderr
    return out, result


def test_simulate_writes_csv(oscillator_run):
    out, result = oscillator_run
    assert "Oscillator: simulated t = 0 .. 2 s (201 points)" in result.stdout
    assert "mass.m = 4" in result.stdout and f"CSV written to {out / 'out.csv'}" in result.stdout
    header = (out / "out.csv").read_text().splitlines()[0].split(",")
    assert header[0] == "time [s]" and "mass.s [m]" in header and "spring.f [N]" in header
    data = np.loadtxt(out / "out.csv", delimiter=",", skiprows=1)
    assert data.shape == (201, len(header))
    t, s = data[:, 0], data[:, header.index("mass.s [m]")]
    # m = 4, c = 200, d = 1: under-damped free response from s = 0.1
    wn, zeta = np.sqrt(200 / 4), 1 / (2 * np.sqrt(200 * 4))
    wd = wn * np.sqrt(1 - zeta**2)
    exact = 0.1 * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))
    assert np.max(np.abs(s - exact)) < 1e-5


def test_simulate_with_native_code(tmp_path, monkeypatch, c_compiler):
    monkeypatch.setenv("ACAUSAL_CACHE_DIR", str(tmp_path / "cache"))
    result = run("simulate", OSC, "--t-end", "1", "--n-points", "11", "--set", "mass.m=4",
                 "--set", "spring.c=200,damper.d=1", "--csv", str(tmp_path / "o.csv"),
                 "--columns", "mass.s", "--rtol", "1e-10", "--atol", "1e-12", "--jit", "-q")
    assert result.returncode == 0, result.stderr
    assert list((tmp_path / "cache").glob("acausal_*"))  # the compiled functions
    t, s = np.loadtxt(tmp_path / "o.csv", delimiter=",", skiprows=1).T
    wn, zeta = np.sqrt(200 / 4), 1 / (2 * np.sqrt(200 * 4))
    wd = wn * np.sqrt(1 - zeta**2)
    exact = 0.1 * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))
    assert np.max(np.abs(s - exact)) < 1e-8


def test_simulate_plots_png(oscillator_run):
    out, result = oscillator_run
    assert f"plot written to {out / 'out.png'}" in result.stdout
    assert (out / "out.png").read_bytes()[:8] == PNG_MAGIC


def test_simulate_csv_columns_and_vector_names(tmp_path):
    result = run("simulate", PISTON, "--t-end", "0.5", "--n-points", "11", "--csv",
                 str(tmp_path / "p.csv"), "--columns", "prismatic.s,bodyPiston.r", "-q")
    assert result.returncode == 0, result.stderr
    lines = (tmp_path / "p.csv").read_text().splitlines()
    assert lines[0] == "time [s],prismatic.s [m],bodyPiston.r[0] [m],bodyPiston.r[1] [m]"
    assert len(lines) == 12
    assert float(lines[1].split(",")[1]) == pytest.approx(-1.1, abs=1e-9)


def test_simulate_animates_planar_model(tmp_path):
    pytest.importorskip("matplotlib")
    gif = tmp_path / "piston.gif"
    result = run("simulate", PISTON, "--t-end", "1", "--n-points", "21", "--animate", str(gif))
    assert result.returncode == 0, result.stderr
    assert "animation written to" in result.stdout
    assert gif.read_bytes()[:6] in (b"GIF89a", b"GIF87a")


def test_equations_latex():
    result = run("equations", OSC, "--latex")
    assert result.returncode == 0, result.stderr
    text = result.stdout.strip()
    assert text.startswith("\\begin{aligned}") and text.endswith("\\end{aligned}")
    assert "&=" in text and "mass" in text


def test_equations_text_and_reduced():
    plain = run("equations", OSC)
    assert plain.returncode == 0, plain.stderr
    assert "# 23 equations of Oscillator" in plain.stdout
    assert "spring.f = spring.c*(spring.s_rel - spring.s_rel0)    # equation 4 of Spring" \
        in plain.stdout
    reduced = run("equations", OSC, "--reduced")
    assert reduced.returncode == 0, reduced.stderr
    assert "after alias elimination and index reduction" in reduced.stdout
    assert "[differentiated]" in reduced.stdout


def test_info():
    result = run("info", PISTON)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # 19 parameters: the default world's g, n[0], n[1] and the parts' parameters
    assert "flattened: 130 equations, 130 variables, 19 parameters" in out
    assert "states (2): revoluteDrive.phi, revoluteDrive.w" in out
    assert "index reduction: 15 equation(s) differentiated" in out
    assert "[differentiated 2 times]" in out
    assert "bodyPiston.m" in out and "= 3 kg" in out
    assert "integrator: IDA (index-1 DAE)" in out


@pytest.mark.parametrize("args, fragments", [
    (["info", "examples/no_such_model.py:Model"],
     ["No such file", "no_such_model.py"]),
    (["info", "examples/piston_engin.py:PistonEngine"],
     ["No such file", "Did you mean 'piston_engine.py'?"]),
    (["info", "no_such_package.models:Model"], ["No module named 'no_such_package.models'"]),
    (["info", "examples/piston_engine.py:PistonEngin"],
     ["has no model named 'PistonEngin'", "Did you mean 'PistonEngine'?"]),
    (["simulate", OSC, "--t-end", "1", "--set", "spring.cc=3"],
     ["'spring.cc' is not a parameter of Oscillator", "Did you mean 'spring.c'"]),
    (["simulate", OSC, "--t-end", "1", "--set", "spring.c=stiff"],
     ["--set spring.c=stiff: 'stiff' is not a number"]),
    (["simulate", OSC, "--t-end", "1", "--plot", "mass.ss", "--png", "OUT/never.png"],
     ["--plot: 'mass.ss' is not a variable of Oscillator", "Did you mean 'mass.s'"]),
    (["simulate", OSC, "--t-end", "1", "--animate", "OUT/never.gif"],
     ["has no planar or 3-D parts"]),
], ids=["wrong-path", "misspelt-file", "wrong-module", "wrong-model", "unknown-set",
        "bad-set-value", "unknown-plot", "animate-non-planar"])
def test_errors_are_one_clear_message(args, fragments, tmp_path):
    result = run(*[a.replace("OUT", str(tmp_path)) for a in args])
    assert_clean_error(result, *fragments)
    assert not list(tmp_path.iterdir())  # failed before writing anything


def test_usage_error_and_help():
    assert run("simulate", OSC).returncode == 2  # --t-end is required (argparse)
    helped = run("--help")
    assert helped.returncode == 0 and "simulate" in helped.stdout and "MODULE:Name" in \
        helped.stdout


def test_console_script_if_installed():
    exe = shutil.which("acausal", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("the `acausal` console script is not installed (pip install -e . adds it)")
    result = subprocess.run([exe, "info", OSC], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "states (2): mass.s, mass.v" in result.stdout


# -- in-process units (fast) ---------------------------------------------------------------------


def test_parse_assignments():
    assert parse_assignments(["a.b=2", "c=1e3, d=-4"]) == {"a.b": 2.0, "c": 1000.0, "d": -4.0}
    with pytest.raises(ParameterError, match="NAME=VALUE"):
        parse_assignments(["a.b"])
    with pytest.raises(ParameterError, match="finite"):
        parse_assignments(["a=inf"])


def test_split_spec():
    assert _split_spec("examples/x.py:Model") == ("examples/x.py", "Model")
    assert _split_spec("pkg.mod:factory") == ("pkg.mod", "factory")
    assert _split_spec("examples/x.py") == ("examples/x.py", None)
    assert _split_spec("C:\\models\\x.py") == ("C:\\models\\x.py", None)


def test_load_model_factory_and_single_class(tmp_path):
    (tmp_path / "mymodels.py").write_text(
        "from acausal.components.translational import Mass\n"
        "from acausal import Component\n"
        "class Only(Component):\n"
        "    mass = Mass(m=3.0)\n"
        "def heavy():\n"
        "    return Only(mass=Mass(m=10.0))\n"
        "def broken():\n"
        "    return 42\n")
    model, label = load_model(f"{tmp_path / 'mymodels.py'}:heavy")
    assert type(model).__name__ == "Only" and label.endswith(":heavy")
    model, _ = load_model(str(tmp_path / "mymodels.py"))  # the one Component class in it
    assert type(model).__name__ == "Only"
    with pytest.raises(CommandLineError, match="returned int, not a Component"):
        load_model(f"{tmp_path / 'mymodels.py'}:broken")
    with pytest.raises(UnknownNameError, match="Did you mean 'heavy'"):
        load_model(f"{tmp_path / 'mymodels.py'}:heavvy")
    (tmp_path / "bad.py").write_text("import math\nx = math.nope\n")
    with pytest.raises(CommandLineError, match=r"AttributeError.*bad\.py, line 2"):
        load_model(f"{tmp_path / 'bad.py'}:X")
