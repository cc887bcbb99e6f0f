"""The run loop's evaluations at an event and a restart go through buffers, not through calls
of CasADi functions with numpy arrays (which convert every input and output through DM: 0.2 ms
for EngineV6's 48 x 48 dg/dz against 30 us for its evaluation, benchmarks/engine_v6.py).

That is an engineering change only: each of them must give the numbers of the plain call
exactly (the same CasADi evaluation, the same LAPACK solves), checked here on a loop of three
algebraic variables whose Jacobian is neither symmetric nor sparse (so that a matrix read back
in the wrong order shows) and on a run with an event.
"""

from __future__ import annotations

import casadi as ca
import numpy as np
import pytest

from acausal import Component, Eq, Parameter, Variable, compile, der, event_if
from acausal.run import polish, sundials
from acausal.run.event_detection import split_indicators
from acausal.run.initialize import newton, solve_algebraic
from acausal.run.solver_functions import algebraic_jacobian


def _c(z):
    return z + z**3


class CubicLoop(Component):
    """One state driving three algebraic variables through a nonlinear loop (every variable
    nonlinear in every equation: tearing keeps all three), and an event on the state."""

    x = Variable(start=0.2, fixed=True)
    z1 = Variable(start=0.1)
    z2 = Variable(start=-0.2)
    z3 = Variable(start=0.3)
    k = Parameter(1.5)

    def equations(self):
        return [Eq(der(self.x), -self.k * self.z1 + event_if(self.x > 0.25, 1.0, 0.0)),
                Eq(2 * _c(self.z1) + _c(self.z2) + 0.5 * _c(self.z3), self.x),
                Eq(_c(self.z1) + 3 * _c(self.z2) - _c(self.z3), 1 - self.x),
                Eq(0.3 * _c(self.z1) - _c(self.z2) + 2 * _c(self.z3), 2 * self.x)]


@pytest.fixture(scope="module")
def loop():
    cs = compile(CubicLoop())
    assert cs.algebraic_names == ["z1", "z2", "z3"]
    sol = cs.simulate(2.0, n_points=21, rtol=1e-8, atol=1e-10, jit=False)
    assert sol.events  # the run went through an event and a restart
    return cs, sol


def _points(loop):
    """(t, x, z) along the run, z off the solution by 1e-4 (for the Newton steps to do)."""
    cs, sol = loop
    rng = np.random.default_rng(7)
    x, z = np.asarray(sol.x), np.asarray(sol.z)
    return [(float(sol.t[k]), x[:, k], z[:, k] * (1 + 1e-4 * rng.standard_normal(3)))
            for k in range(0, sol.t.size, 4)]


def test_polishing_one_point_is_the_many_point_polish(loop):
    cs, _ = loop
    p = cs.parameter_vector()
    for t, x, z in _points(loop):
        one = polish.polish_algebraic(cs, np.array([t]), x.reshape(-1, 1), z.reshape(-1, 1), p)
        # two copies of the point take the batched path of many points
        two = polish.polish_algebraic(cs, np.array([t, t]), np.column_stack([x, x]),
                                      np.column_stack([z, z]), p)
        assert np.array_equal(one[:, 0], two[:, 0])
        assert np.abs(one[:, 0] - z).max() > 1e-6  # the steps did something


def test_newton_polish_through_buffers_is_the_plain_newton(loop):
    cs, _ = loop
    p = cs.parameter_vector()
    g_gz = ca.Function("g_gz", [cs.t, cs.x, cs.z, cs.p],
                       [cs.alg, ca.densify(algebraic_jacobian(cs))])
    for t, x, z in _points(loop):
        # the former evaluation: a call with numpy arrays, matrices read back through DM
        expected = z
        g, jz = (np.array(m) for m in g_gz(t, x, expected, p))
        g, norm = g.ravel(), np.abs(g).max()
        for _ in range(3):
            z_new = expected - np.linalg.solve(jz, g)
            g_new, jz_new = (np.array(m) for m in g_gz(t, x, z_new, p))
            if not np.abs(g_new).max() < norm:
                break
            expected, g, jz, norm = z_new, g_new.ravel(), jz_new, np.abs(g_new).max()
        assert np.array_equal(polish.newton_polish(cs, t, x, z, p), expected)


def test_solve_algebraic_through_buffers_is_newton_on_the_functions(loop):
    cs, _ = loop
    p = cs.parameter_vector()
    res = ca.Function("alg_res", [cs.z, cs.t, cs.p, cs.x], [cs.alg])
    jac = ca.Function("alg_jac", [cs.z, cs.t, cs.p, cs.x], [algebraic_jacobian(cs)])
    for t, x, z in _points(loop):
        guess = z + 0.05  # far enough for a few damped steps
        expected, _ = newton(res, guess, t, p, list(cs.algebraic_equations), extra=(x,),
                             jac=jac, regular=True)
        assert np.array_equal(solve_algebraic(cs, p, t, x, guess), expected)


def test_restart_rates_through_buffers_are_the_function_values(loop):
    cs, sol = loop
    prob = sundials.problem_for(cs, split_indicators(cs)[0], False)
    p = cs.parameter_vector()
    nominal = np.array([1.0, 2.0, 0.5, 4.0])  # scaling in play
    prob._set_nominal(nominal)
    prob._p = p
    for t, x, z in _points(loop):
        u = np.concatenate([x, z]) / nominal
        up = prob.start_derivative(t, u)
        xdot = np.array(prob._xdot(t, u, p, nominal).full()).ravel()
        g_z, rhs, g_x = (np.array(m) for m in prob._alg_rates(t, u, p, nominal))
        assert np.array_equal(up[:1], xdot)
        assert np.array_equal(up[1:], -np.linalg.solve(g_z, rhs.ravel()))
        got_z, got_rhs, got_x = prob._algebraic_rates(t, u, p)
        assert np.array_equal(got_z, g_z) and np.array_equal(got_x, g_x)
        assert np.array_equal(got_rhs, rhs.ravel())
