"""Progress display for compile/simulate, and Ctrl-C returning the solution so far."""

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, der
from acausal.progress import ProgressBar


class Decay(Component):
    x = Variable(start=1.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), -self.x)]


def test_progress_bar_and_stage_log_go_to_stderr(capsys):
    cs = compile(Decay(), progress=True)
    sol = cs.simulate(2.0, progress=True, rtol=1e-10, atol=1e-12)
    err = capsys.readouterr().err
    assert "compile Decay: flatten" in err
    assert "simulate Decay [" in err and "100.0%" in err
    np.testing.assert_allclose(sol["x"], np.exp(-sol.t), rtol=1e-5)


def test_no_progress_output_when_not_asked(capsys):
    compile(Decay()).simulate(1.0, progress=False)
    assert capsys.readouterr().err == ""


def test_interrupt_returns_the_solution_so_far(monkeypatch):
    calls = {"n": 0}
    original = ProgressBar.update

    def interrupting_update(self, value, force=False):
        calls["n"] += 1
        if calls["n"] == 40:  # as if the user pressed Ctrl-C during the run
            raise KeyboardInterrupt
        return original(self, value, force)

    monkeypatch.setattr(ProgressBar, "update", interrupting_update)
    sol = compile(Decay()).simulate(5.0, n_points=501, progress=True, rtol=1e-10, atol=1e-12)
    assert sol.interrupted
    assert 2 <= sol.t.size < 501 and sol.t[-1] < 5.0
    np.testing.assert_allclose(sol["x"], np.exp(-sol.t), rtol=1e-5)
    assert sol["x"].shape == sol.t.shape


def test_complete_run_is_not_marked_interrupted():
    assert not compile(Decay()).simulate(1.0).interrupted
    with pytest.raises(AttributeError):
        compile(Decay()).simulate(1.0).no_such_attribute  # noqa: B018
