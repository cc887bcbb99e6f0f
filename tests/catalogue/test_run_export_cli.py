"""Issue 28, "nothing wrong passes silently": the run, the exports and the command line.

Each case gives an acausal error that names the culprit, or, for legal input, the right
numbers: output times (``t_eval``) against the start and end of the run, output grids too
large for memory, a Solution read with something other than a name, export paths below a
file, a number given for a connector, and the command line's errors as one line.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from acausal import (
    Component,
    Discrete,
    Eq,
    InputError,
    ModelDefinitionError,
    SimulationError,
    UnknownNameError,
    Variable,
    When,
    assign,
    compile,
    connect,
    der,
    reinit,
    time,
)
from acausal.cli import main
from acausal.components.translational import Fixed, Mass, Spring
from acausal.run import simulate as simulate_module

ROOT = Path(__file__).resolve().parents[2]
OSC = "examples/mass_spring_damper.py:Oscillator"
RTOL, ATOL = 1e-10, 1e-12


def tolerance(value: np.ndarray) -> np.ndarray:
    """What the integrator's local tolerances allow to accumulate over a unit time on
    der(x) = -x: a generous multiple of rtol |x| + atol (the run's global error is a few of
    them; starting from x(0) instead of x(1) would be off by 0.63)."""
    return 1e3 * (RTOL * np.abs(value) + ATOL)


class Decay(Component):
    """der(x) = -x, x(t_start) = 1: x(t) = exp(-(t - t_start))."""

    x = Variable(start=1.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), -self.x)]


class DecayDAE(Component):
    """der(x) = -z with 0 = z^3 + z - x^3 - x (z = x, the only real root, found by Newton):
    an algebraic variable the run leaves to be finished on first need."""

    x = Variable(start=1.0, fixed=True)
    z = Variable(start=1.0)

    def equations(self):
        return [Eq(der(self.x), -self.z), Eq(self.z ** 3 + self.z, self.x ** 3 + self.x)]


class Kicked(Component):
    """der(x) = -x from x(0) = 1, doubled at the time event t = 0.3 (counted by n)."""

    x = Variable(start=1.0, fixed=True)
    n = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.x), -self.x)]

    def events(self):
        return [When(time >= 0.3, reinit(self.x, 2 * self.x), assign(self.n, self.n + 1))]


class BlowUp(Component):
    """der(x) = x^2, x(0) = 1: x = 1/(1 - t) has no solution at t = 1."""

    x = Variable(start=1.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), self.x ** 2)]


@pytest.fixture(scope="module")
def decay():
    return compile(Decay())


# -- 1. t_eval, t_start and t_end ---------------------------------------------------------------


def test_a_single_output_time_after_the_start_gets_its_own_value(decay):
    sol = decay.simulate(1.0, t_eval=[1.0], rtol=RTOL, atol=ATOL)
    assert sol.t.tolist() == [1.0]
    assert abs(sol["x"][0] - math.exp(-1.0)) < tolerance(math.exp(-1.0))


def test_output_times_without_the_start(decay):
    times = np.array([0.25, 0.5, 1.0])
    sol = decay.simulate(1.0, t_eval=times, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(sol.t, times)
    exact = np.exp(-times)
    assert np.all(np.abs(sol["x"] - exact) < tolerance(exact))
    assert sol.x.shape == (1, times.size)


def test_the_run_starts_at_t_start_whatever_the_output_times(decay):
    # x(0.5) = 1 (fixed start at t_start), so x(t) = exp(-(t - 0.5))
    times = np.array([1.0, 2.0])
    sol = decay.simulate(2.0, t_start=0.5, t_eval=times, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(sol.t, times)
    exact = np.exp(-(times - 0.5))
    assert np.all(np.abs(sol["x"] - exact) < tolerance(exact))


def test_repeated_output_times_are_reported_as_often_as_asked(decay):
    sol = decay.simulate(1.0, t_eval=[0.5, 0.5, 1.0], rtol=RTOL, atol=ATOL)
    assert sol.t.tolist() == [0.5, 0.5, 1.0]
    assert sol["x"][0] == sol["x"][1]
    assert abs(sol["x"][0] - math.exp(-0.5)) < tolerance(math.exp(-0.5))


def test_algebraic_variables_at_output_times_without_the_start():
    times = np.array([0.4, 0.8])
    sol = compile(DecayDAE()).simulate(0.8, t_eval=times, rtol=RTOL, atol=ATOL)
    assert sol.z.shape == (1, times.size)
    exact = np.exp(-times)
    assert np.all(np.abs(sol["x"] - exact) < tolerance(exact))
    assert np.all(np.abs(sol["z"] - exact) < tolerance(exact))


def test_events_before_the_first_output_time_are_run_through():
    times = np.array([0.5, 1.0])
    sol = compile(Kicked()).simulate(1.0, t_eval=times, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(sol.t, times)
    assert len(sol.events) == 1 and sol.events[0][0] == pytest.approx(0.3, abs=1e-12)
    exact = 2 * np.exp(-times)  # doubled at t = 0.3
    assert np.all(np.abs(sol["x"] - exact) < tolerance(exact))
    assert sol["n"].tolist() == [1.0, 1.0]  # the discrete variable after the event


def test_a_failed_run_carries_the_requested_times_it_reached():
    with pytest.raises(SimulationError) as info:
        compile(BlowUp()).simulate(2.0, t_eval=[0.5, 0.9, 1.5])
    partial = info.value.solution
    assert partial.t.tolist() == [0.5, 0.9]  # not the run's own start t = 0
    exact = 1 / (1 - partial.t)
    assert np.all(np.abs(partial["x"] - exact) < 1e-3 * exact)
    with pytest.raises(SimulationError) as info:  # failed before the first requested time
        compile(BlowUp()).simulate(2.0, t_eval=[1.5])
    nothing = info.value.solution
    assert nothing.t.size == 0 and nothing["x"].size == 0
    assert "no output time reached" in repr(nothing) and "no output" in nothing._repr_html_()


def test_output_times_before_t_start_are_refused(decay):
    with pytest.raises(InputError, match=r"t_eval\[0\] = 0\.0 .*\[t_start, t_end\] = "
                                         r"\[0\.5, 1\.0\]"):
        decay.simulate(1.0, t_start=0.5, t_eval=[0, 0.75, 1])


def test_output_times_past_t_end_are_refused(decay):
    with pytest.raises(InputError, match=r"t_eval\[2\] = 2\.0 .*\[0\.0, 1\.0\]"):
        decay.simulate(1.0, t_eval=[0.0, 0.5, 2.0])


def test_unsorted_output_times_are_refused(decay):
    with pytest.raises(InputError, match=r"sorted.*t_eval\[2\] = 0\.2 comes after "
                                         r"t_eval\[1\] = 0\.5"):
        decay.simulate(1.0, t_eval=[0.0, 0.5, 0.2])


# -- 2. output grids too large for memory -------------------------------------------------------


def test_a_huge_n_points_is_refused_before_allocating(decay):
    with pytest.raises(InputError, match=r"n_points=10000000000: 10,000,000,000 output points "
                                         r"x 2 stored values.*160,000,000,000 bytes.*fewer "
                                         r"output points"):
        decay.simulate(1.0, n_points=10**10)


def test_a_tiny_dt_is_refused_before_allocating(decay):
    with pytest.raises(InputError, match=r"dt=1e-300 .*bytes"):
        decay.simulate(1.0, dt=1e-300)


def test_the_memory_estimate_is_points_times_columns_times_8(decay, monkeypatch):
    # Decay stores 2 values per point (time and x): 100 points take 1 600 bytes
    monkeypatch.setattr(simulate_module, "output_memory_limit", lambda: 1000)
    with pytest.raises(InputError, match=r"100 output points x 2 stored values each .* "
                                         r"1,600 bytes"):
        decay.simulate(1.0, n_points=100)
    with pytest.raises(InputError, match=r"t_eval \(100 times\)"):
        decay.simulate(1.0, t_eval=np.linspace(0.0, 1.0, 100))
    assert decay.simulate(1.0, n_points=62).t.size == 62  # 992 bytes: within the limit


def test_the_memory_limit_is_a_part_of_this_machine():
    limit = simulate_module.output_memory_limit()
    assert limit > 0
    if hasattr(os, "sysconf") and "SC_PHYS_PAGES" in os.sysconf_names:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        assert limit <= physical // 2 + 1
    else:
        assert limit == simulate_module.OUTPUT_MEMORY_FALLBACK


# -- 3. reading a Solution with something that is not a name ------------------------------------


@pytest.mark.parametrize("key, shown", [(123, r"got 123 \(int\)"),
                                        (None, r"got None \(NoneType\)"),
                                        (["x"], r"got \['x'\] \(list\)")])
def test_a_solution_is_read_by_name(decay, key, shown):
    sol = decay.simulate(1.0, n_points=3)
    with pytest.raises(UnknownNameError, match=r"read by variable name, a string.*" + shown):
        sol[key]
    with pytest.raises(UnknownNameError, match=shown):
        sol.event_values(key)
    assert key not in sol


# -- 4. export paths below a file ---------------------------------------------------------------


def test_fmu_path_below_a_file(decay, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("afile").write_text("")
    with pytest.raises(InputError, match=r"'afile/osc\.fmu'.*'afile' is a file, not a folder"):
        decay.export_fmu("afile/osc.fmu")
    with pytest.raises(InputError, match=r"'afile' is a file, not a folder"):
        decay.export_fmu("afile/deeper/osc.fmu")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_c_code_folder_below_a_file(decay, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("afile").write_text("")
    with pytest.raises(InputError, match=r"'afile/sub'.*'afile' is a file, not a folder"):
        decay.generate_c("afile/sub")
    with pytest.raises(InputError, match=r"directory must be a folder path.*got None"):
        decay.generate_c(None)


# -- 5. a number for a connector ----------------------------------------------------------------


def test_connect_to_a_number_names_the_connector():
    class Oscillator(Component):
        mass = Mass()
        fixed = Fixed()
        spring = Spring()

        def connections(self):
            return [connect(self.mass.flange, 3.0)]

    with pytest.raises(ModelDefinitionError, match=r"connect\(mass\.flange_a, 3\.0\): the "
                                                   r"second argument is 3\.0 \(float\).*two "
                                                   r"connectors"):
        compile(Oscillator())


def test_a_number_given_for_a_connector_names_it():
    class Pinned(Component):
        mass = Mass(flange_a=3.0)
        fixed = Fixed()

        def connections(self):
            return [connect(self.mass.flange_b, self.fixed.flange)]

    with pytest.raises(ModelDefinitionError, match=r"'mass\.flange_a' is a connector of Mass.*"
                                                   r"flange_a=3\.0.*Flange.*connect\(a, b\)"):
        compile(Pinned())


# -- 6. the command line: one line per error ----------------------------------------------------


def one_line_error(text: str, *fragments: str) -> None:
    assert text.startswith("error: ") and text.count("\n") == 1, text  # one line, ended
    assert "Traceback" not in text and "usage:" not in text, text
    for fragment in fragments:
        assert fragment in text, text


def test_a_usage_error_is_one_line_with_status_2():
    result = subprocess.run([sys.executable, "-m", "acausal", "simulate", OSC, "--t-end", "abc"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    one_line_error(result.stderr, "--t-end", "'abc'", "acausal simulate --help")


@pytest.mark.parametrize("args, fragments", [
    (["simulate", OSC, "--t-end", "1", "--fps", "10"], ["--fps", "--animate"]),
    (["simulate", OSC, "--t-end", "1", "--fps", "0", "--animate", "x.gif"],
     ["--fps 0", "positive"]),
    (["simulate", OSC, "--t-end", "1", "--columns", "mass.s"], ["--columns", "--csv"]),
    (["simulate", OSC, "--t-end", "1", "--png", "plot.txt"], ["--png plot.txt", "'.txt'"]),
    (["simulate", OSC, "--t-end", "1", "--png", "plot"], ["--png plot", "no suffix"]),
    (["simulate", OSC, "--t-end", "1", "--set", "mass.m=2,mass.m=3", "-q"],
     ["--set mass.m is given twice (2 and 3)"]),
    (["simulate", OSC, "--t-end", "1", "--n-points", "10000000000", "-q"],
     ["n_points=10000000000", "bytes"]),
    (["simulate", OSC, "--t-end", "1e300", "--dt", "1e-300", "-q"], ["dt=1e-300", "bytes"]),
], ids=["fps-alone", "fps-zero", "columns-alone", "png-format", "png-no-suffix", "set-twice",
        "n-points-huge", "dt-tiny"])
def test_command_line_errors_are_one_line(args, fragments, tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")  # --png checks the formats matplotlib writes
    monkeypatch.chdir(ROOT)
    args = [str(tmp_path / a) if a in ("x.gif", "plot.txt", "plot") else a for a in args]
    fragments = [f.replace("plot", str(tmp_path / "plot")) if f.startswith("--png") else f
                 for f in fragments]
    assert main(args) == 1
    one_line_error(capsys.readouterr().err, *fragments)
    assert not list(tmp_path.iterdir())  # nothing written


def test_an_unexpected_error_is_one_line(monkeypatch, capsys):
    import acausal.cli as cli

    def broken(args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "cmd_info", broken)  # build_parser reads it at each call
    assert main(["info", OSC]) == 1
    one_line_error(capsys.readouterr().err, "unexpected RuntimeError: a bug", "--traceback")
