"""Progress display for compile/simulate, and Ctrl-C returning the solution so far."""

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, der
from acausal.base.progress import ProgressBar


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


def _interrupt_on_update(monkeypatch, n, how):
    """Make the n-th redraw of the bar behave like Ctrl-C: raise KeyboardInterrupt in it, or
    send a real SIGINT to this process."""
    import acausal.run.sundials

    calls = {"n": 0}
    original = ProgressBar.update

    def interrupting_update(self, value, force=False):
        calls["n"] += 1
        if calls["n"] == n:
            if how == "raise":
                raise KeyboardInterrupt
            os.kill(os.getpid(), signal.SIGINT)
        return original(self, value, force)

    monkeypatch.setattr(ProgressBar, "update", interrupting_update)
    monkeypatch.setattr(acausal.run.sundials, "PROGRESS_EVERY", 1)  # report at every solver call


@pytest.mark.parametrize("how", ["raise", "signal"])
def test_interrupt_returns_the_solution_so_far(monkeypatch, how):
    _interrupt_on_update(monkeypatch, 40, how)
    sol = compile(Decay()).simulate(5.0, n_points=501, progress=True, rtol=1e-10, atol=1e-12)
    assert sol.interrupted
    assert 2 <= sol.t.size < 501 and sol.t[-1] < 5.0
    np.testing.assert_allclose(sol["x"], np.exp(-sol.t), rtol=1e-5)
    assert sol["x"].shape == sol.t.shape


def test_progress_display_changes_nothing(capsys):
    """One integration path: the same arrays, bit for bit, with and without the bar (events,
    an algebraic loop for IDA, and plain ODE models)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from test_events import BouncingBall, ModeSwitchedLoop

    for model, t_end in ((Decay(), 3.0), (BouncingBall(), 2.5), (ModeSwitchedLoop(), 4.0)):
        cs = compile(model)
        shown = cs.simulate(t_end, dt=0.01, progress=True)
        hidden = cs.simulate(t_end, dt=0.01, progress=False)
        assert capsys.readouterr().err  # the bar was drawn
        for name in cs.state_names + cs.algebraic_names:
            assert np.array_equal(shown[name], hidden[name]), name
        assert [t for t, _ in shown.events] == [t for t, _ in hidden.events]


def test_complete_run_is_not_marked_interrupted():
    assert not compile(Decay()).simulate(1.0).interrupted
    with pytest.raises(AttributeError):
        compile(Decay()).simulate(1.0).no_such_attribute  # noqa: B018
