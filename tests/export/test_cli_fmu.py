"""``acausal fmu MODEL.py:Class out.fmu``: the command writes a valid FMU with the outputs and
parameter defaults asked for, and names wrong input in one line."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from acausal.cli import main

ROOT = Path(__file__).resolve().parents[2]
OSC = str(ROOT / "examples" / "mass_spring_damper.py") + ":Oscillator"


def _description(path: Path) -> ET.Element:
    with zipfile.ZipFile(path) as archive:
        return ET.fromstring(archive.read("modelDescription.xml"))


def test_cli_writes_a_valid_fmu(tmp_path, c_compiler, capsys):
    validation = pytest.importorskip("fmpy.validation", reason="FMPy is not installed: the FMU "
                                     "cannot be validated here")
    out = tmp_path / "osc.fmu"
    status = main(["fmu", OSC, str(out), "--outputs", "mass.s,spring.f", "--set", "spring.c=60",
                   "--stop-time", "5", "--compiler", c_compiler, "--kind", "co-simulation"])
    assert status == 0
    printed = capsys.readouterr().out
    assert f"co-simulation FMU written to {out}" in printed
    assert "outputs mass.s, spring.f" in printed
    assert validation.validate_fmu(str(out)) == []
    root = _description(out)
    by_name = {sv.get("name"): sv for sv in root.iter("ScalarVariable")}
    assert by_name["spring.c"].find("Real").get("start") == "60.0"
    assert by_name["mass.s"].get("causality") == "output"
    assert by_name["spring.f"].get("causality") == "output"
    assert root.find("DefaultExperiment").get("stopTime") == "5.0"
    assert root.find("CoSimulation") is not None


def test_cli_as_a_user_runs_it(tmp_path, c_compiler):
    """``python -m acausal fmu ...`` in a subprocess, from another folder."""
    env = dict(os.environ, CC=c_compiler)
    result = subprocess.run([sys.executable, "-m", "acausal", "fmu", OSC, "out.fmu"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.fmu").is_file()
    assert _description(tmp_path / "out.fmu").get("modelName") == "Oscillator"


@pytest.mark.parametrize("args, message", [
    (["--outputs", "mass.ss"], "--outputs: 'mass.ss' is not a variable of Oscillator"),
    (["--set", "spring.k=1"], "'spring.k' is not a parameter"),
    (["--set", "spring.c"], "write NAME=VALUE"),
])
def test_cli_errors(tmp_path, capsys, args, message):
    status = main(["fmu", OSC, str(tmp_path / "o.fmu"), *args])
    assert status == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "o.fmu").exists()


def test_cli_wants_an_fmu_suffix(tmp_path, capsys):
    assert main(["fmu", OSC, str(tmp_path / "o.zip")]) == 1
    assert "ends in .fmu" in capsys.readouterr().err
