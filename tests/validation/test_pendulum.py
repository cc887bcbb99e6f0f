"""Cross-validation: PlanarMechanics ``Examples/Pendulum.mo`` (t_end = 3 s).

Model: Fixed(phi=0) -> Revolute(phi0 = 0, w0 = 0) -> FixedTranslation(r = (1, 0))
-> Body(m = 1, I = 0.1); g = 9.81. Minimal-coordinate ODE: 1.1 theta'' = -9.81 cos(theta).
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, BodyShape, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-9, 1e-11


class Pendulum(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    fixed = Fixed(phi=0.0)
    revolute = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    fixed_translation = FixedTranslation(r=[1.0, 0.0])
    body = Body(m=1.0, I=0.1)

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.fixed_translation.frame_a),
                connect(self.fixed_translation.frame_b, self.body.frame_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(Pendulum())


def test_states_are_joint_coordinates(compiled):
    assert compiled.n_states == 2
    assert set(compiled.state_names) == {"revolute.phi", "revolute.w"}


def test_checkpoints(compiled):
    times = [0.0, 0.5, 1.0, 2.0, 3.0]
    sol = compiled.simulate(3.0, t_eval=times, rtol=RTOL, atol=ATOL)
    # section 4.1 of docs/planar_mechanics.md (Dymola reference values)
    np.testing.assert_allclose(sol["body.phi"][1:], [-1.07125, -2.88166, -1.00625, -1.13745],
                               atol=5e-5)
    np.testing.assert_allclose(sol["revolute.w"][1:], [-3.95686, -2.14107, 3.88184, -4.02340],
                               atol=5e-5)
    # energy invariant: 0.5*1.1*w^2 + 9.81*sin(theta) = 0
    energy = 0.5 * 1.1 * sol["revolute.w"] ** 2 + 9.81 * np.sin(sol["revolute.phi"])
    assert np.max(np.abs(energy)) < 1e-6


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("Pendulum")
    sol = compiled.simulate(3.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("body.phi", "revolute.w"):
        check_signal(name, sol[name], ref[name])


class PendulumBodyShape(Component):
    """Multibody.jl test "Pendulum with body shape": BodyShape(r = (1, 0), m = 1, I = 0.1) with
    the centre of mass at 0.5 m, g = 9.80665."""

    fixed = Fixed()
    revolute = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    rod = BodyShape(r=[1.0, 0.0], r_CM=[0.5, 0.0], m=1.0, I=0.1, g=[0.0, -9.80665])

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a)]


def test_body_shape_variant():
    cs = compile(PendulumBodyShape())
    assert set(cs.state_names) == {"revolute.phi", "revolute.w"}
    sol = cs.simulate(2.0, t_eval=[0.0, 1.0, 2.0], rtol=RTOL, atol=ATOL)
    # section 4.1 of docs/planar_mechanics.md (independent re-derivation, g = 9.80665)
    np.testing.assert_allclose(sol["rod.phi"][1:], [-3.14099, -0.00242], atol=2e-5)
    # the free frame_b is at the rod tip
    np.testing.assert_allclose(sol["rod.frame_b.x"], np.cos(sol["revolute.phi"]), atol=1e-12)
