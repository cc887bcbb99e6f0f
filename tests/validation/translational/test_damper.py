"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.Damper`` against its Dymola reference
(``../shared/reference/translational/Damper``).

Three masses (m = 1 kg, L = 1 m, starting at s = 3 m with v = 10 m/s) brake against a wall at
4.5 m: (1) through a ``Damper(d=25)``, (2) through a ``Damper(d=25)`` in parallel with a
``Spring(c=1, s_rel0=1)``, (3) through a ``SpringDamper(c=1, d=25, s_rel0=1)``. With
``x = s - 3``: (1) ``x'' = -25 x'``, so ``x = (10/25)(1 - exp(-25 t))``; (2) and (3)
``x'' + 25 x' + x = 0`` with ``x(0) = 0``, ``x'(0) = 10`` (overdamped, closed form inline).
Each element's ``s_rel = 4.5 - (s + 0.5) = 1 - x``. The reference has no events.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import translational as tr

#: the comparison with the reference (whose tolerance is 1e-6)
RTOL, ATOL = 1e-8, 1e-10
#: the closed-form checks run tighter; the global error of such a run grows to about 100
#: times its tolerance over the run, and ERR (relative to each signal's scale) allows 1000
TIGHT = {"rtol": 1e-10, "atol": 1e-12}
ERR = 1e-7
SIGNALS = ["damper1.s_rel", "damper1.v_rel", "damper2.s_rel", "damper2.v_rel",
           "springDamper3.s_rel", "springDamper3.v_rel"]


def moving() -> dict:
    return {"s": Variable(start=3.0, fixed=True), "v": Variable(start=10.0, fixed=True)}


class Damper(Component):
    mass1 = tr.Mass(L=1, m=1, **moving())
    damper1 = tr.Damper(d=25)
    fixed1 = tr.Fixed(s0=4.5)
    mass2 = tr.Mass(L=1, m=1, **moving())
    damper2 = tr.Damper(d=25)
    fixed2 = tr.Fixed(s0=4.5)
    mass3 = tr.Mass(L=1, m=1, **moving())
    fixed3 = tr.Fixed(s0=4.5)
    spring2 = tr.Spring(s_rel0=1, c=1)
    springDamper3 = tr.SpringDamper(s_rel0=1, d=25, c=1)

    def connections(self):
        return [connect(self.mass1.flange_b, self.damper1.flange_a),
                connect(self.mass2.flange_b, self.damper2.flange_a),
                connect(self.damper2.flange_b, self.spring2.flange_b),
                connect(self.damper2.flange_a, self.spring2.flange_a),
                connect(self.mass3.flange_b, self.springDamper3.flange_a),
                connect(self.damper1.flange_b, self.fixed1.flange),
                connect(self.damper2.flange_b, self.fixed2.flange),
                connect(self.springDamper3.flange_b, self.fixed3.flange)]


def overdamped(t: np.ndarray, d: float, c: float, v0: float) -> tuple[np.ndarray, np.ndarray]:
    """``x'' + d x' + c x = 0``, ``x(0) = 0``, ``x'(0) = v0`` (d^2 > 4c): (x, x')."""
    root = np.sqrt(d**2 / 4 - c)
    r1, r2 = -d / 2 + root, -d / 2 - root
    k = v0 / (r1 - r2)
    return k * (np.exp(r1 * t) - np.exp(r2 * t)), k * (r1 * np.exp(r1 * t) - r2 * np.exp(r2 * t))


@pytest.fixture(scope="module")
def compiled():
    return compile(Damper())


def test_closed_form_and_checkpoints(compiled):
    t = np.linspace(0.0, 1.0, 101)
    sol = compiled.simulate(1.0, t_eval=t, **TIGHT)
    x1, v1 = 0.4 * (1 - np.exp(-25 * t)), 10 * np.exp(-25 * t)
    np.testing.assert_allclose(sol["damper1.s_rel"], 1 - x1, rtol=0, atol=ERR * 0.4)
    np.testing.assert_allclose(sol["damper1.v_rel"], -v1, rtol=0, atol=ERR * 10)
    x, v = overdamped(t, 25.0, 1.0, 10.0)
    for name in ("damper2", "springDamper3"):
        np.testing.assert_allclose(sol[f"{name}.s_rel"], 1 - x, rtol=0, atol=ERR * 0.4)
        np.testing.assert_allclose(sol[f"{name}.v_rel"], -v, rtol=0, atol=ERR * 10)
    # the dampers' lossPower is d v_rel^2 (MSL 4.0 Damper, SpringDamper)
    np.testing.assert_allclose(sol["damper1.lossPower"], 25 * v1**2, rtol=0, atol=ERR * 2500)
    np.testing.assert_allclose(sol["springDamper3.lossPower"], 25 * v**2, rtol=0,
                               atol=ERR * 2500)
    # the reference at t = 1 s (Damper.csv, last row)
    assert sol["damper1.s_rel"][-1] == pytest.approx(0.6, abs=1e-7)
    assert sol["damper2.s_rel"][-1] == pytest.approx(0.614473244, abs=1e-7)
    assert sol["springDamper3.v_rel"][-1] == pytest.approx(0.0154458322, abs=1e-7)


def test_against_reference(compiled):
    msl_1d.check_against_reference(compiled, "translational", "Damper", 1.0, SIGNALS,
                                   rtol=RTOL, atol=ATOL)
