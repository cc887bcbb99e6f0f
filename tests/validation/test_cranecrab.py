"""Cross-validation: PlanarMechanics ``Examples/CraneCrab.mo`` (t_end = 10 s).

Model: Fixed -> Prismatic(r = (1, 0), use_axis_flange, s0 = 0, v0 = 0) -> Body1(m = 1, I = 0.1); the
prismatic's 1-D flange is damped against its (grounded) support by a translational
Damper(d = 10) named ``damper1D`` (s_rel = prismatic.s). On Body1's frame: Revolute(phi0 = 150 deg,
w0 = 0) -> FixedTranslation(r = (0, -1)) -> Body(m = 0.5, I = 0.1); g = 9.81.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import translational
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-10, 1e-12


class CraneCrab(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    fixed = Fixed()
    prismatic = Prismatic(use_axis_flange=True, r=[1.0, 0.0], s=Variable(start=0.0, fixed=True),
                          v=Variable(start=0.0, fixed=True))
    support = translational.Fixed()
    damper1D = translational.Damper(d=10.0)
    body1 = Body(m=1.0, I=0.1)
    revolute = Revolute(phi=Variable(start=math.radians(150.0), fixed=True),
                        w=Variable(start=0.0, fixed=True))
    fixed_translation = FixedTranslation(r=[0.0, -1.0])
    body = Body(m=0.5, I=0.1)

    def connections(self):
        return [connect(self.fixed.frame, self.prismatic.frame_a),
                connect(self.prismatic.frame_b, self.body1.frame_a),
                connect(self.support.flange, self.damper1D.flange_a),
                connect(self.damper1D.flange_b, self.prismatic.flange_a),
                connect(self.prismatic.frame_b, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.fixed_translation.frame_a),
                connect(self.fixed_translation.frame_b, self.body.frame_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(CraneCrab())


def test_states_are_joint_coordinates(compiled):
    assert compiled.n_states == 4
    assert set(compiled.state_names) == {"prismatic.s", "prismatic.v", "revolute.phi",
                                         "revolute.w"}


def test_checkpoints(compiled):
    sol = compiled.simulate(10.0, t_eval=[0.0, 1.0, 10.0], rtol=RTOL, atol=ATOL)
    # section 4.12 of docs/planar_mechanics.md (Dymola reference values)
    np.testing.assert_allclose(sol["body.phi"][1:], [-0.265764, 0.634383], atol=2e-5)
    np.testing.assert_allclose(sol["damper1D.s_rel"][1:], [0.201653, -0.0224999], atol=2e-5)
    np.testing.assert_allclose(sol["damper1D.v_rel"][1:], [0.301903, 0.192689], atol=2e-5)
    np.testing.assert_allclose(sol["revolute.w"][1:], [-5.11848, -0.159007], atol=5e-5)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("CraneCrab")
    sol = compiled.simulate(10.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("body.phi", "damper1D.s_rel", "damper1D.v_rel", "revolute.w"):
        check_signal(name, sol[name], ref[name])
