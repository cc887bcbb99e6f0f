"""Vector-valued variables and parameters (2-D vectors as sympy column matrices)."""

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, der


class Projectile(Component):
    """A point mass in a uniform field: der(r) = v, der(v) = g (vector equations)."""

    g = Parameter([0.0, -9.81], unit="m/s2")
    r = Variable(shape=2, start=[0.0, 1.0], fixed=True, unit="m")
    v = Variable(shape=2, start=[2.0, 3.0], fixed=True, unit="m/s")
    speed = Variable(unit="m/s")

    def equations(self):
        return [Eq(der(self.r), self.v), Eq(der(self.v), self.g),
                Eq(self.speed, sp.sqrt(self.v.dot(self.v)))]


def test_vector_variables_compile_and_match_the_parabola():
    cs = compile(Projectile())
    assert cs.n_states == 4
    assert set(cs.parameters()) == {"g[0]", "g[1]"}
    sol = cs.simulate(1.0, rtol=1e-10, atol=1e-12)
    t = sol.t
    r = sol["r"]
    assert r.shape == (2, t.size)
    np.testing.assert_allclose(r[0], 2.0 * t, atol=1e-9)
    np.testing.assert_allclose(r[1], 1.0 + 3.0 * t - 0.5 * 9.81 * t**2, atol=1e-9)
    np.testing.assert_allclose(sol["speed"], np.hypot(2.0, 3.0 - 9.81 * t), atol=1e-9)
    np.testing.assert_allclose(sol["v[1]"], 3.0 - 9.81 * t, atol=1e-9)


def test_vector_parameter_override_and_wrong_length():
    sol = compile(Projectile(g=[0.0, -1.0])).simulate(1.0, rtol=1e-10, atol=1e-12)
    assert sol["r[1]"][-1] == pytest.approx(1.0 + 3.0 - 0.5, abs=1e-9)
    from acausal import ModelDefinitionError
    with pytest.raises(ModelDefinitionError, match="'r'"):
        compile(Projectile(r=Variable(start=[1.0, 2.0, 3.0])))
