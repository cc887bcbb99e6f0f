"""Cross-validation: PlanarMechanics ``Examples/SpringDemo.mo`` (t_end = 5 s).

Model: Fixed -> FixedTranslation(r = (1, 0)) -> [Spring(c_x = 1, c_y = 10, s_rely0 = -0.5,
c_phi = 1e5) || Damper(d = 1) || Prismatic(r = (0, 1), s0 = 0.2, v0 = 0)] -> Body(m = 0.5,
I = 0.1); g = 9.81. Minimal-coordinate ODE: 0.5 s'' = -10 (s + 0.5) - s' - 4.905.
The line damper's length passes through zero (s changes sign), which exercises its degenerate
branch guard.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.forces import Damper, Spring
from acausal.components.planar.joints import Prismatic
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-9, 1e-11


class SpringDemo(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    fixed = Fixed()
    fixed_translation = FixedTranslation(r=[1.0, 0.0])
    spring = Spring(c_x=1.0, c_y=10.0, s_rely0=-0.5, c_phi=1e5)
    damper = Damper(d=1.0)
    prismatic = Prismatic(r=[0.0, 1.0], s=Variable(start=0.2, fixed=True),
                          v=Variable(start=0.0, fixed=True))
    body = Body(m=0.5, I=0.1)

    def connections(self):
        hub, tip = self.fixed_translation.frame_b, self.body.frame_a
        return [connect(self.fixed.frame, self.fixed_translation.frame_a),
                connect(hub, self.spring.frame_a), connect(self.spring.frame_b, tip),
                connect(hub, self.damper.frame_a), connect(self.damper.frame_b, tip),
                connect(hub, self.prismatic.frame_a), connect(self.prismatic.frame_b, tip)]


@pytest.fixture(scope="module")
def compiled():
    return compile(SpringDemo())


def test_states_are_joint_coordinates(compiled):
    assert compiled.n_states == 2
    assert set(compiled.state_names) == {"prismatic.s", "prismatic.v"}


def test_checkpoints(compiled):
    sol = compiled.simulate(5.0, t_eval=[0.0, 1.0, 5.0], rtol=RTOL, atol=ATOL)
    # section 4.12 of docs/planar_mechanics.md (Dymola reference values)
    np.testing.assert_allclose(sol["prismatic.s"], [0.2, -1.23637, -0.998006], atol=2e-5)
    np.testing.assert_allclose(sol["prismatic.v"], [0.0, 1.88525, -0.00719661], atol=2e-5)
    np.testing.assert_allclose(sol["body.r[0]"], 1.0, atol=1e-12)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("SpringDemo")
    sol = compiled.simulate(5.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("prismatic.s", "prismatic.v"):
        check_signal(name, sol[name], ref[name])
