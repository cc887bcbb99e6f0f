"""Cross-validation: PlanarMechanics ``Examples/SpringDamperDemo.mo`` (t_end = 5 s).

Model: Fixed -> FixedTranslation(r = (-1, 0)) -> SpringDamper(c_x = c_y = 5, d_x = d_y = 1,
c_phi = d_phi = 0) -> Body(m = 0.5, I = 0.1, r0 = (1, 1), v0 = 0); g = 9.81.
x and y decouple: 0.5 x'' = -5 (x + 1) - x';  0.5 y'' = -5 y - y' - 0.5*9.81.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.forces import SpringDamper
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-9, 1e-11

SIGNALS = {"body.phi": "body.phi", "body.r[1]": "body.r[0]", "body.r[2]": "body.r[1]",
           "body.v[1]": "body.v[0]", "body.v[2]": "body.v[1]", "body.w": "body.w"}


class SpringDamperDemo(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    fixed = Fixed()
    fixed_translation = FixedTranslation(r=[-1.0, 0.0])
    spring_damper = SpringDamper(c_x=5.0, c_y=5.0, d_x=1.0, d_y=1.0, c_phi=0.0, d_phi=0.0)
    body = Body(m=0.5, I=0.1, r=Variable(start=[1.0, 1.0], fixed=True),
                v=Variable(start=0.0, fixed=True), phi=Variable(start=0.0, fixed=True),
                w=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.fixed.frame, self.fixed_translation.frame_a),
                connect(self.fixed_translation.frame_b, self.spring_damper.frame_a),
                connect(self.spring_damper.frame_b, self.body.frame_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(SpringDamperDemo())


def test_states(compiled):
    assert compiled.n_states == 6


def test_checkpoints(compiled):
    sol = compiled.simulate(5.0, t_eval=[0.0, 1.0, 5.0], rtol=RTOL, atol=ATOL)
    # section 4.12 of docs/planar_mechanics.md (Dymola reference values)
    np.testing.assert_allclose(sol["body.r[0]"], [1.0, -1.69378, -1.00731], atol=2e-5)
    np.testing.assert_allclose(sol["body.r[1]"], [1.0, -1.66819, -0.988245], atol=2e-5)
    np.testing.assert_allclose(sol["body.v[0]"][-1], -0.0292149, atol=1e-5)
    np.testing.assert_allclose(sol["body.v[1]"][-1], -0.0289374, atol=1e-5)
    np.testing.assert_allclose(sol["body.phi"], 0.0, atol=1e-12)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("SpringDamperDemo")
    sol = compiled.simulate(5.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for ref_name, name in SIGNALS.items():
        check_signal(ref_name, sol[name], ref[ref_name])
