"""Linearisation in states the user chooses (``linearize(states=[...])``) and the advice of
``without_states``, each checked against something computed another way:

* Cartesian pendulum at a moving point (not a steady state): the model in y, vy equals the
  linearisation of the compiler's other realisation, whose states are y, vy, and back; the rate
  term T' is what makes them equal (the plain similarity transform differs by O(1));
* the tutorial's segway: the recipe of docs/linearization.md runs as written (its code blocks
  executed in order, as tests/test_docs.py does), its closed loop is stable; the model in the
  chosen states equals the compiled model with ``state_priority`` on the pitch, and matches a
  finite-difference linearisation of the simulated segway (the flow over 20 ms from points set
  by the chosen states, against expm(A dt));
* choices that are no set of states are refused, naming the variables.
"""

from __future__ import annotations

import builtins
import math
import re
from pathlib import Path

import numpy as np
import pytest
from pendulums import CartesianPendulum, L
from scipy.linalg import expm

from acausal import (
    Component,
    InputError,
    Variable,
    compile,
    connect,
)
from acausal.analysis.linearize import OperatingPoint, linearize, operating_point
from acausal.components.planar.parts import Body

DOC = Path(__file__).resolve().parents[2] / "docs" / "linearization.md"
CHOSEN = ["body.phi", "body.w", "wheel.phi_roll", "wheel.w_roll", "wheel.x", "wheel.v"]


@pytest.fixture(scope="module")
def cartesian():
    return compile(CartesianPendulum())


@pytest.fixture(scope="module")
def recipe():
    """The namespace after running every Python block of docs/linearization.md in order."""
    text = DOC.read_text()
    namespace: dict = {"__name__": "docs_linearization"}
    for match in re.finditer(r"(<!-- no-test -->\s*\n)?```python\n(.*?)```", text, re.S):
        if match.group(1) is None:
            line = text.count("\n", 0, match.start()) + 1
            exec(builtins.compile(match.group(2), f"linearization.md:{line}", "exec"),
                 namespace)
    return namespace


def test_moving_point_equals_the_other_realisation(cartesian):
    op = cartesian.linearize(0.0, {"x": 0.3, "vx": 0.5}).operating_point
    assert op.state_names == ["x", "vx"] and abs(op.derivatives()[0]) > 0.1  # not steady
    # the realisation with states y, vy (the one simulate takes near the horizontal)
    other = cartesian.linearize(0.0, {"x": L, "vx": 0.0}).operating_point.system
    assert other.state_names == ["y", "vy"]
    at_op = OperatingPoint(other, 0.0, np.array([op[n] for n in other.state_names]),
                           np.array([op[n] for n in other.algebraic_names]), op.p)
    reference = linearize(other, 0.0, at_op, outputs=["lam"])
    chosen = cartesian.linearize(0.0, op, states=["y", "vy"], outputs=["lam"])
    assert chosen.state_names == ["y", "vy"]
    for got, want in ((chosen.A, reference.A), (chosen.B, reference.B),
                      (chosen.C, reference.C), (chosen.D, reference.D)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    # and back: the y, vy realisation linearised in x, vx is the compiled model's
    back = linearize(other, 0.0, at_op, states=["x", "vx"])
    np.testing.assert_allclose(back.A, cartesian.linearize(0.0, op).A, rtol=1e-9, atol=1e-9)
    # the rate term matters here: the similarity transform alone is another matrix
    plain = cartesian.linearize(0.0, op, outputs=["y", "vy"])
    similar = plain.C @ plain.A @ np.linalg.inv(plain.C)
    assert np.max(np.abs(similar - reference.A)) > 0.1


def test_recipe_of_the_doc_runs_and_balances(recipe):
    lin = recipe["lin"]
    assert lin.state_names == ["body.phi", "body.w", "wheel.w_roll", "wheel.x", "wheel.v"]
    assert np.all(recipe["poles"].real < 0)
    sol = recipe["sol"]
    assert sol["body.phi"][0] == pytest.approx(math.radians(10.0), abs=1e-9)
    assert abs(sol["body.phi"][-1]) < math.radians(0.1) and abs(sol["wheel.x"][-1]) < 0.02
    assert np.max(np.abs(sol["body.phi"][sol.t > 4.0])) < math.radians(0.5)  # and stays there


def test_chosen_states_equal_state_priority(recipe):
    system, op = recipe["system"], recipe["op"]

    class ByPriority(recipe["Plant"]):
        body = Body(m=20.0, I=1.5, phi=Variable(state_priority=20))

    prioritised = compile(ByPriority())
    op_p = prioritised.trim(fixed={"body.phi": 0.0, "wheel.x": 0.0}, inputs=["motor.tau"])
    reference = prioritised.linearize(0.0, op_p, inputs=["motor.tau"])
    assert set(reference.state_names) == set(CHOSEN)
    chosen = system.linearize(0.0, op, inputs=["motor.tau"], states=reference.state_names)
    assert chosen.state_names == reference.state_names
    scale = np.max(np.abs(reference.A))
    np.testing.assert_allclose(chosen.A, reference.A, rtol=1e-9, atol=1e-12 * scale)
    np.testing.assert_allclose(chosen.B, reference.B, rtol=1e-9, atol=1e-12)


def test_chosen_states_match_the_simulated_flow(recipe):
    """Central differences of the nonlinear flow over dt, from points set by the chosen states
    (the compiled states solved from them), against expm(A dt) and its input integral."""
    system, op = recipe["system"], recipe["op"]
    lin = system.linearize(0.0, op, inputs=["motor.tau"], states=CHOSEN)
    assert lin.state_names == CHOSEN
    dt, eps, rtol, atol = 0.02, 1e-5, 1e-11, 1e-13
    y_op = np.array([op[name] for name in CHOSEN])
    tau_op = op["motor.tau"]

    def flow(y: np.ndarray, tau: float) -> np.ndarray:
        point = operating_point(system, 0.0, dict(zip(CHOSEN, y.tolist())))
        start = dict(zip(point.state_names, point.x.tolist()))
        sol = system.simulate(dt, dt=dt, rtol=rtol, atol=atol, start=start,
                              params={"motor.tau": tau})
        return np.array([sol[name][-1] for name in CHOSEN])

    n = len(CHOSEN)
    phi = np.column_stack([(flow(y_op + eps * e, tau_op) - flow(y_op - eps * e, tau_op))
                           / (2 * eps) for e in np.eye(n)])
    gamma = (flow(y_op, tau_op + eps) - flow(y_op, tau_op - eps)) / (2 * eps)
    block = np.zeros((n + 1, n + 1))
    block[:n, :n], block[:n, n:] = lin.A * dt, lin.B * dt
    exact = expm(block)
    # the differences carry the solver's error over eps (atol / eps ~ 1e-8) and eps^2 of the
    # nonlinearity: 1e-6 of the largest entry is far above both and far below any coupling
    tol = 1e-6 * max(1.0, np.max(np.abs(exact)))
    np.testing.assert_allclose(phi, exact[:n, :n], rtol=0, atol=tol)
    np.testing.assert_allclose(gamma, exact[:n, n], rtol=0, atol=tol)


def test_without_states_says_which_states_free_it(recipe):
    system, op = recipe["system"], recipe["op"]
    lin = system.linearize(0.0, op, inputs=["motor.tau"], outputs=["body.phi", "wheel.x"])
    with pytest.raises(InputError) as err:
        lin.without_states(["wheel.phi_roll"])
    text = str(err.value)
    assert "revolute.w" in text and "states=['body.phi']" in text
    assert "state_priority above 10" in text and "phi=Variable(state_priority=20)" in text
    # the advice works as given
    freed = system.linearize(0.0, op, inputs=["motor.tau"], outputs=["body.phi", "wheel.x"],
                             states=["body.phi"]).without_states(["wheel.phi_roll"])
    assert "wheel.phi_roll" not in freed.state_names
    assert freed.output_names == ["body.phi", "wheel.x"]


def test_without_states_says_when_nothing_frees_it():
    from acausal.components.translational import Fixed, Mass, Spring

    class Oscillator(Component):
        wall = Fixed()
        spring = Spring(c=40.0)
        mass = Mass(m=2.0, s=Variable(start=0.0, fixed=True), v=Variable(start=0.0, fixed=True))

        def connections(self):
            return [connect(self.wall.flange, self.spring.flange_a),
                    connect(self.spring.flange_b, self.mass.flange_a)]

    lin = compile(Oscillator()).linearize()
    with pytest.raises(InputError, match="No choice of states makes 'mass.s' free"):
        lin.without_states(["mass.s"])


def test_choices_that_are_no_set_of_states(cartesian, recipe):
    op = cartesian.linearize(0.0, {"x": 0.3, "vx": 0.5}).operating_point
    # y follows from x on the circle: dependent; as a complete list vx is left undetermined
    with pytest.raises(InputError, match=r"'y' is not independent of x.*leave vx undetermined"):
        cartesian.linearize(0.0, op, states=["x", "y"])
    with pytest.raises(InputError, match="at most 2"):
        cartesian.linearize(0.0, op, states=["x", "vx", "y"])
    with pytest.raises(InputError, match="parameter or input"):
        cartesian.linearize(0.0, op, states=["F"])
    with pytest.raises(InputError, match=r"states=\['y'\]"):
        cartesian.linearize(0.0, op, states="y")
    with pytest.raises(InputError, match="more than once"):
        cartesian.linearize(0.0, op, states=["y", "y"])
    system, seg_op = recipe["system"], recipe["op"]
    with pytest.raises(InputError, match="'wheel.phi_roll' is not independent of body.phi, "
                                         "revolute.phi.* Leave 'wheel.phi_roll' out"):
        system.linearize(0.0, seg_op, inputs=["motor.tau"],
                         states=["body.phi", "revolute.phi", "wheel.phi_roll"])
    # a joint's torque is the motor's input itself: no integration in between
    with pytest.raises(InputError, match="depends directly on the input motor.tau"):
        system.linearize(0.0, seg_op, inputs=["motor.tau"], states=["revolute.flange_a.tau"])
