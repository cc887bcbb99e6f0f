"""components/lugre_friction.py: the LuGre element against its closed-form steady states
(Canudas de Wit et al. 1995): steady sliding ``f = sign(v) g(v) + sigma2 v`` with the Stribeck
curve ``g``, and at rest under a force below breakaway the bristles carry it, ``z = F/sigma0``."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect, simulate
from acausal.components.lugre_friction import LuGreFriction
from acausal.components.sources import TranslationalSpeed
from acausal.components.translational import ConstantForce, Fixed, Mass

N, MU_S, MU_D, V_S, SIGMA0, SIGMA2 = 10.0, 0.3, 0.2, 0.01, 1e5, 0.4
TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def lugre(**overrides):
    return LuGreFriction(normal_force=N, stiction_trans_vel=V_S, mu_static=MU_S,
                         mu_dynamic=MU_D, bristle_stiffness=SIGMA0, viscous_effects=SIGMA2,
                         **overrides)


class Dragged(Component):
    """flange_a on the ground, flange_b dragged at a constant speed."""

    ground = Fixed()
    friction = lugre()
    drive = TranslationalSpeed(v_ref=0.02)

    def connections(self):
        return [connect(self.ground.flange, self.friction.flange_a),
                connect(self.friction.flange_b, self.drive.flange)]


class Pushed(Component):
    """A mass on the contact, pushed by a constant force."""

    ground = Fixed()
    friction = lugre()
    mass = Mass(m=1.0, s=Variable(start=0.0, fixed=True), v=Variable(start=0.0, fixed=True))
    push = ConstantForce(f_constant=2.0)

    def connections(self):
        return [connect(self.ground.flange, self.friction.flange_a),
                connect(self.friction.flange_b, self.mass.flange_a),
                connect(self.push.flange, self.mass.flange_b)]


@pytest.mark.parametrize("v", [0.002, 0.01, 0.1, -0.05])
def test_steady_sliding_force_is_the_stribeck_curve_plus_viscous(v):
    # BDF settles onto the steady state to rounding; the tolerance alone (atol 1e-12 on z)
    # allows SIGMA0 * atol = 3e-8 of f, and Adams (the default's start) ends 4e-9 off at 0.002
    sol = simulate(Dragged(drive=TranslationalSpeed(v_ref=v)), 1.0,
                   integrator_options={"method": "BDF"}, **TIGHT)
    g = MU_D * N + (MU_S - MU_D) * N * np.exp(-(v / V_S) ** 2)
    expected = np.sign(v) * g + SIGMA2 * v
    assert sol["friction.f"][-1] == pytest.approx(expected, rel=1e-9)
    # the drive must push with the friction force; flange_b carries f, flange_a -f
    assert sol["drive.f"][-1] == pytest.approx(expected, rel=1e-9)
    assert sol["friction.flange_a.f"][-1] == pytest.approx(-expected, rel=1e-9)
    assert sol["friction.z"][-1] == pytest.approx(np.sign(v) * g / SIGMA0, rel=1e-9)


def test_below_breakaway_the_bristles_carry_the_force():
    sol = simulate(Pushed(), 1.0, **TIGHT)
    assert 2.0 < MU_S * N  # below breakaway: presliding only
    assert sol["friction.f"][-1] == pytest.approx(2.0, rel=1e-8)
    assert sol["friction.z"][-1] == pytest.approx(2.0 / SIGMA0, rel=1e-8)
    assert abs(sol["mass.v"][-1]) < 1e-9
    assert 0 < sol["mass.s"][-1] < 1e-4  # micrometres of presliding displacement


def test_above_breakaway_the_mass_slides_at_the_coulomb_level():
    sol = simulate(Pushed(push=ConstantForce(f_constant=5.0)), 1.0, n_points=101, **TIGHT)
    v = sol["mass.v"]
    assert v[-1] > 1.0
    # m dv/dt = F - (mu_d N + sigma2 v) once v >> v_s
    dvdt = np.gradient(v, sol.t)
    np.testing.assert_allclose(dvdt[50:-1], 5.0 - MU_D * N - SIGMA2 * v[50:-1], rtol=1e-4)


def test_parameters_have_motionsolve_names_and_units():
    system = compile(Dragged())
    units = {p.name: p.unit for p in system.flat.parameters}
    assert units["friction.mu_static"] == "1" and units["friction.mu_dynamic"] == "1"
    assert units["friction.stiction_trans_vel"] == "m/s"
    assert units["friction.bristle_stiffness"] == "N/m"
    assert units["friction.damping_effects"] == "N.s/m"
    assert units["friction.viscous_effects"] == "N.s/m"
    assert units["friction.normal_force"] == "N"
    assert system.state_names.count("friction.z") == 1
    doc = LuGreFriction.__doc__
    for text in ("sigma0", "sigma1", "sigma2", "Canudas de Wit", "MotionSolve"):
        assert text in doc
