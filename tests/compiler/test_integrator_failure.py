"""An integrator failure names the solver's flag, the time reached and the variables that blow
up, and carries the solution up to the failure (``err.solution``)."""

import numpy as np
import pytest

from acausal import Component, Eq, SimulationError, Variable, compile, der


class BlowUp(Component):
    """der(x) = x^2 from x(0) = 1: x = 1/(1 - t) blows up at t = 1."""

    x = Variable(start=1.0, fixed=True)
    y = Variable(start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), self.x**2), Eq(der(self.y), 1.0)]


class BlowUpDAE(Component):
    """The same blow-up with an algebraic variable in a nonlinear loop (IDA)."""

    x = Variable(start=1.0, fixed=True)
    w = Variable(start=1.0)

    def equations(self):
        return [Eq(der(self.x), self.w),
                Eq(self.w + 1e-3 * self.w**3, self.x**2 + 1e-3 * self.x**6)]


@pytest.mark.parametrize("model, solver", [(BlowUp, "CV_"), (BlowUpDAE, "IDA_")])
def test_failure_names_flag_time_and_variable(model, solver):
    with pytest.raises(SimulationError) as info:
        compile(model()).simulate(2.0, dt=0.01)
    err = info.value
    text = str(err)
    assert solver in text  # the solver's own flag, e.g. CV_TOO_MUCH_WORK or IDA_CONV_FAIL
    t_fail = float(text.split(") at t = ")[1].split(" ")[0])
    assert 0.99 < t_fail <= 1.0  # the blow-up time
    assert "x = " in text.split("Largest relative")[1]  # the variable that blows up, first
    sol = err.solution
    assert sol is not None and 0.9 < sol.t[-1] < 1.0 and sol.t[0] == 0.0
    # the partial solution is right: x = 1/(1 - t) (the global error of any rtol-controlled
    # solver grows like 1/(1 - t)^2 towards the pole, so compare the first half)
    early = sol.t <= 0.5
    np.testing.assert_allclose(sol["x"][early], 1.0 / (1.0 - sol.t[early]), rtol=1e-4)


def test_tolerance_advice_does_not_ask_for_a_smaller_tolerance(capsys):
    with pytest.raises(SimulationError) as info:
        compile(BlowUp()).simulate(2.0, dt=0.01)
    assert "smaller rtol" not in str(info.value) and "smaller tolerance" not in str(info.value)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""  # no solver chatter on the user's terminal


class Fold(Component):
    """w^3 - 3 w = x with x = t, from the middle branch w = 0: the branch ends at the fold
    w = -1, x = 2 (dg/dw = 3 w^2 - 3 = 0): no solution continues it beyond t = 2."""

    x = Variable(start=0.0, fixed=True)
    w = Variable(start=0.0)

    def equations(self):
        return [Eq(der(self.x), 1.0), Eq(self.w**3 - 3 * self.w, self.x)]


def test_fold_of_an_algebraic_loop_is_named_as_such():
    with pytest.raises(SimulationError) as info:
        compile(Fold()).simulate(4.0, dt=0.01)
    text = str(info.value)
    assert "lose their solution" in text and "respect to w" in text
    assert "no tolerance" in text
    t_fail = float(text.split(") at t = ")[1].split(" ")[0])
    assert t_fail == pytest.approx(2.0, abs=1e-6)
