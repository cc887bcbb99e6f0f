"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.InitialConditions`` against its Dymola
reference (``../shared/reference/translational/InitialConditions``).

Two ways to start a chain of masses and springs:

* ``fixed2(s0=1) - s2(c=1e3, s_rel0=2) - m3(L=3) - sd2(c=111, d=1, s_rel0=4) - m4(L=5)`` with
  the masses' positions fixed at 4.5 m and 12.5 m: every spring at its unstretched length, so
  the system stays at rest;
* ``fixed1(s0=-1) - s1(c=1e3, s_rel0=1) - m1(L=1) - sd1(c=111, d=1, s_rel0=1) - m2(L=2)``
  started by the springs' lengths, ``s1.s_rel = 0.5`` (compressed by 0.5 m) and
  ``sd1.s_rel = 1``, ``sd1.v_rel = 0``, ``m1.v = 0``: the masses start at ``m1.s = 0``,
  ``m2.s = 2.5`` and oscillate. The motion is linear: with ``x = (m1.s, m2.s)``,
  ``m1 a1 = -1000 (x1 - 0.5) + 111 (x2 - x1 - 2.5) + (v2 - v1)``,
  ``m2 a2 = -111 (x2 - x1 - 2.5) - (v2 - v1)``, solved in closed form by the matrix exponential
  (inline).
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest
from scipy.linalg import expm

from acausal import Component, Variable, compile, connect
from acausal.components import translational as tr

#: the comparison with the reference (whose tolerance is 1e-6)
RTOL, ATOL = 1e-8, 1e-10
#: the closed-form checks run tighter; the global error of such a run grows to about 100
#: times its tolerance over the run, and ERR (relative to each signal's scale) allows 1000
TIGHT = {"rtol": 1e-10, "atol": 1e-12}
ERR = 1e-7
SIGNALS = ["m1.s", "m1.v", "m3.s", "m3.v", "sd1.s_rel", "sd1.v_rel", "sd2.s_rel", "sd2.v_rel"]


def fixed(value: float) -> Variable:
    return Variable(start=value, fixed=True)


class InitialConditions(Component):
    fixed2 = tr.Fixed(s0=1)
    s2 = tr.Spring(s_rel0=2, c=1e3)
    m3 = tr.Mass(L=3, m=1, s=fixed(4.5), v=fixed(0.0))
    sd2 = tr.SpringDamper(s_rel0=4, c=111, d=1)
    m4 = tr.Mass(L=5, m=1, s=fixed(12.5), v=fixed(0.0))
    fixed1 = tr.Fixed(s0=-1)
    s1 = tr.Spring(s_rel0=1, c=1e3, s_rel=fixed(0.5))
    m1 = tr.Mass(L=1, m=1, v=fixed(0.0))
    sd1 = tr.SpringDamper(s_rel0=1, c=111, d=1, s_rel=fixed(1.0), v_rel=fixed(0.0))
    m2 = tr.Mass(L=2, m=1)

    def connections(self):
        return [connect(self.s2.flange_a, self.fixed2.flange),
                connect(self.s1.flange_a, self.fixed1.flange),
                connect(self.m1.flange_a, self.s1.flange_b),
                connect(self.sd1.flange_a, self.m1.flange_b),
                connect(self.m2.flange_a, self.sd1.flange_b),
                connect(self.m4.flange_a, self.sd2.flange_b),
                connect(self.sd2.flange_a, self.m3.flange_b),
                connect(self.m3.flange_a, self.s2.flange_b)]


def second_system(t: np.ndarray) -> np.ndarray:
    """Rows x1, v1, x2, v2 of the second chain at the times ``t`` (matrix exponential of the
    affine system, augmented by a constant 1)."""
    a = np.array([[0, 1, 0, 0, 0],
                  [-1000 - 111, -1, 111, 1, 1000 * 0.5 - 111 * 2.5],
                  [0, 0, 0, 1, 0],
                  [111, 1, -111, -1, 111 * 2.5],
                  [0, 0, 0, 0, 0]], float)
    x0 = np.array([0.0, 0.0, 2.5, 0.0, 1.0])
    return np.array([expm(a * tk) @ x0 for tk in t]).T[:4]


@pytest.fixture(scope="module")
def compiled():
    return compile(InitialConditions())


def test_closed_form_and_checkpoints(compiled):
    t = np.linspace(0.0, 5.0, 251)
    sol = compiled.simulate(5.0, t_eval=t, **TIGHT)
    # the first chain stays at rest where its start values put it
    np.testing.assert_allclose(sol["m3.s"], 4.5, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["m4.s"], 12.5, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["sd2.s_rel"], 4.0, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["m3.v"], 0.0, rtol=0, atol=1e-9)
    # the second chain against the matrix exponential (scales: 1 m, 10 m/s)
    x1, v1, x2, v2 = second_system(t)
    np.testing.assert_allclose(sol["m1.s"], x1, rtol=0, atol=ERR * 1)
    np.testing.assert_allclose(sol["m1.v"], v1, rtol=0, atol=ERR * 10)
    np.testing.assert_allclose(sol["m2.s"], x2, rtol=0, atol=ERR * 1)
    np.testing.assert_allclose(sol["sd1.s_rel"], (x2 - 1) - (x1 + 0.5), rtol=0, atol=ERR * 2)
    np.testing.assert_allclose(sol["sd1.v_rel"], v2 - v1, rtol=0, atol=ERR * 20)
    # the reference at t = 1, 2.5 and 5 s (InitialConditions.csv), within 1e-4 of each
    # signal's range in it (0.92 m, 36 m/s, 28 m/s)
    assert sol["m1.s"][50] == pytest.approx(0.643380501, abs=0.92e-4)
    assert sol["sd1.v_rel"][125] == pytest.approx(-3.525318014, abs=36e-4)
    assert sol["m1.v"][-1] == pytest.approx(-0.607546043, abs=28e-4)


def test_against_reference(compiled):
    msl_1d.check_against_reference(compiled, "translational", "InitialConditions", 5.0, SIGNALS,
                                   rtol=RTOL, atol=ATOL)
