"""Cross-validation: PlanarMechanics ``Examples/FreeBody.mo`` (t_end = 3 s).

Model: a single Body(m = 1, I = 0.1) falling freely; all start values 0; g = 9.81.
Analytic: r[2] = -4.905 t^2, v[2] = -9.81 t; x and phi stay 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile
from acausal.components.planar.parts import Body, World

RTOL, ATOL = 1e-9, 1e-11

# Modelica (1-based) names in the reference -> our (0-based) names
SIGNALS = {"body.phi": "body.phi", "body.r[1]": "body.r[0]", "body.r[2]": "body.r[1]",
           "body.v[1]": "body.v[0]", "body.v[2]": "body.v[1]", "body.w": "body.w"}


class FreeBody(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    body = Body(m=1.0, I=0.1, r=Variable(start=0.0, fixed=True), v=Variable(start=0.0, fixed=True),
                phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))


@pytest.fixture(scope="module")
def compiled():
    return compile(FreeBody())


def test_states(compiled):
    assert compiled.n_states == 6


def test_checkpoints(compiled):
    sol = compiled.simulate(3.0, t_eval=[0.0, 1.0, 3.0], rtol=RTOL, atol=ATOL)
    # section 4.12 of docs/planar_mechanics.md: t = 3 -> r2 = -44.145, v2 = -29.43
    np.testing.assert_allclose(sol["body.r[1]"], [0.0, -4.905, -44.145], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(sol["body.v[1]"], [0.0, -9.81, -29.43], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(sol["body.r[0]"], 0.0, atol=1e-12)
    np.testing.assert_allclose(sol["body.phi"], 0.0, atol=1e-12)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("FreeBody")
    sol = compiled.simulate(3.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for ref_name, name in SIGNALS.items():
        check_signal(ref_name, sol[name], ref[ref_name])
