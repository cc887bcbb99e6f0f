"""Cross-validation: PlanarMechanics ``Examples/DoublePendulum.mo`` (t_end = 10 s; chaotic, so
the trajectories are compared up to t = 3 s only).

Model: Fixed -> Revolute(phi0 = 0, w0 = 0) -> FixedTranslation(r = (1, 0)) -> Body(m = 1, I = 0.1);
that body's frame -> Revolute1(phi0 = 0, w0 = 0, relative angle) -> FixedTranslation(r = (0.4, 0))
-> Body1(m = 0.2, I = 0.01); g = 9.81.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-10, 1e-12
T_COMPARE = 3.0


class DoublePendulum(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    fixed = Fixed()
    revolute = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    fixed_translation = FixedTranslation(r=[1.0, 0.0])
    body = Body(m=1.0, I=0.1)
    revolute1 = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    fixed_translation1 = FixedTranslation(r=[0.4, 0.0])
    body1 = Body(m=0.2, I=0.01)

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.fixed_translation.frame_a),
                connect(self.fixed_translation.frame_b, self.body.frame_a),
                connect(self.body.frame_a, self.revolute1.frame_a),
                connect(self.revolute1.frame_b, self.fixed_translation1.frame_a),
                connect(self.fixed_translation1.frame_b, self.body1.frame_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(DoublePendulum())


def test_states_are_joint_coordinates(compiled):
    assert compiled.n_states == 4
    assert set(compiled.state_names) == {"revolute.phi", "revolute.w", "revolute1.phi",
                                         "revolute1.w"}


def test_checkpoints(compiled):
    sol = compiled.simulate(3.0, t_eval=[0.0, 0.5, 1.0, 2.0, 3.0], rtol=RTOL, atol=ATOL)
    # section 4.3 of docs/planar_mechanics.md (Dymola reference values)
    np.testing.assert_allclose(sol["revolute.phi"][1:], [-1.05325, -2.76132, -1.3214, -0.858899],
                               atol=1e-4)
    np.testing.assert_allclose(sol["revolute.w"][1:], [-3.74609, -2.34457, 3.2339, -3.33224],
                               atol=1e-4)
    np.testing.assert_allclose(sol["revolute1.phi"][1:], [0.492858, -0.677494, 0.575336, 1.24465],
                               atol=1e-4)
    np.testing.assert_allclose(sol["revolute1.w"][1:], [-0.559083, -0.427987, 8.07832, -3.04902],
                               atol=1e-3)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("DoublePendulum", t_max=T_COMPARE)
    sol = compiled.simulate(T_COMPARE, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("revolute.phi", "revolute.w", "revolute1.phi", "revolute1.w"):
        check_signal(name, sol[name], ref[name])
