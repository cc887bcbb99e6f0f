"""Cross-validation: PlanarMechanics ``Examples/KinematicLoop.mo`` and
``Examples/KinematicLoop_DynamicStateSelection.mo`` (t_end = 6 s).

Model (section 4.10 of docs/planar_mechanics.md; topology from the Modelica example):
Fixed origin O -> Revolute1 -> FixedTranslation1 (0, -0.5) -> point P.
Prismatic1 (r = (1, 0), use_axis_flange; s0 = 0.4, v0 = 0 fixed) from O to Q = (s, 0); its flange is
held by a 1-D SpringDamper(c = 20, d = 4, s_rel0 = 0.4) anchored to a 1-D Fixed.
Q -> Revolute3 -> FixedTranslation2 (0, -0.5) -> Revolute2 -> P (closes the loop).
P -> Revolute4 (phi0 = -40 deg, w0 = 0 fixed) -> FixedTranslation3 (0, -0.6)
-> Body(m = 1, I = 0.1).
Guesses: revolute1.phi = asin(0.4), revolute3.phi = -asin(0.4). g = 9.81. 2 degrees of freedom.

* ``KinematicLoop``: Modelica sets ``stateSelect = always`` on revolute1 and revolute4; here
  their phi/w get ``state_priority = 100`` (above the library's 10).
* ``KinematicLoop_DynamicStateSelection``: no state hints at all (every joint coordinate gets
  ``state_priority = 0``); Dymola reports 2 sets of dynamic state selection, so any static choice
  becomes singular somewhere: the core has to (re)select states during the simulation.

Both models also give the revolute3 guess on ``revolute3.frame_b.phi`` (core bug 1 in
/tmp/scratch/bugs_planar_loops.md: the start value of ``revolute3.phi`` is not used as the guess of
the algebraic variable ``revolute3.frame_b.phi``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import translational
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-9, 1e-11
PHI1_GUESS = math.asin(0.4 / 0.5 / 2)  # = asin(0.4), as in the Modelica example
PHI4_START = -0.69813170079773  # -40 deg


def kinematic_loop(priority: float | None) -> Component:
    """The KinematicLoop model; ``priority`` is the state priority of revolute1/revolute4
    (``None`` = dynamic state selection variant: every joint coordinate gets priority 0)."""
    dynamic = priority is None
    hint = 0 if dynamic else priority
    free = {"phi": Variable(state_priority=0), "w": Variable(state_priority=0)} if dynamic else {}

    class KinematicLoop(Component):
        world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
        fixed = Fixed()
        revolute1 = Revolute(phi=Variable(start=PHI1_GUESS, state_priority=hint),
                             w=Variable(state_priority=hint))
        fixedTranslation1 = FixedTranslation(r=[0.0, -0.5])
        prismatic1 = Prismatic(use_axis_flange=True, r=[1.0, 0.0],
                               s=Variable(start=0.4, fixed=True,
                                          **({"state_priority": 0} if dynamic else {})),
                               v=Variable(start=0.0, fixed=True,
                                          **({"state_priority": 0} if dynamic else {})))
        springDamper1D = translational.SpringDamper(c=20.0, d=4.0, s_rel0=0.4)
        fixed1D = translational.Fixed()
        revolute3 = Revolute(phi=Variable(start=-PHI1_GUESS,
                                          **({"state_priority": 0} if dynamic else {})),
                             **({"w": Variable(state_priority=0)} if dynamic else {}))
        fixedTranslation2 = FixedTranslation(r=[0.0, -0.5])
        revolute2 = Revolute(**free)
        revolute4 = Revolute(phi=Variable(start=PHI4_START, fixed=True, state_priority=hint),
                             w=Variable(start=0.0, fixed=True, state_priority=hint))
        fixedTranslation3 = FixedTranslation(r=[0.0, -0.6])
        body = Body(m=1.0, I=0.1)

        def connections(self):
            return [connect(self.fixed.frame, self.revolute1.frame_a),
                    connect(self.revolute1.frame_b, self.fixedTranslation1.frame_a),
                    connect(self.fixed.frame, self.prismatic1.frame_a),
                    connect(self.fixed1D.flange, self.springDamper1D.flange_a),
                    connect(self.springDamper1D.flange_b, self.prismatic1.flange_a),
                    connect(self.prismatic1.frame_b, self.revolute3.frame_a),
                    connect(self.revolute3.frame_b, self.fixedTranslation2.frame_a),
                    connect(self.fixedTranslation1.frame_b, self.revolute2.frame_a),
                    connect(self.revolute2.frame_b, self.fixedTranslation2.frame_b),
                    connect(self.fixedTranslation1.frame_b, self.revolute4.frame_a),
                    connect(self.revolute4.frame_b, self.fixedTranslation3.frame_a),
                    connect(self.fixedTranslation3.frame_b, self.body.frame_a)]

    return KinematicLoop()


# -- KinematicLoop (manual state selection) ------------------------------------------------------


@pytest.fixture(scope="module")
def compiled():
    return compile(kinematic_loop(priority=100))


def test_states(compiled):
    assert compiled.n_states == 4
    assert set(compiled.state_names) == {"revolute1.phi", "revolute1.w", "revolute4.phi",
                                         "revolute4.w"}


def test_checkpoints(compiled):
    sol = compiled.simulate(6.0, t_eval=[0.0, 1.0, 3.0, 6.0], rtol=RTOL, atol=ATOL)
    # section 4.10 of docs/planar_mechanics.md (Dymola reference values)
    np.testing.assert_allclose(sol["revolute1.phi"], [0.411517, 0.355757, 0.3478, 0.318542],
                               atol=2e-5)
    np.testing.assert_allclose(sol["revolute1.w"], [0.0, 0.00773035, -0.0518806, 0.0753775],
                               atol=2e-5)
    np.testing.assert_allclose(sol["revolute4.phi"], [-0.698132, -0.157486, -0.246081, -0.26874],
                               atol=2e-5)
    np.testing.assert_allclose(sol["revolute4.w"], [0.0, -0.320591, -0.497144, 0.42138],
                               atol=5e-5)
    # the loop stays closed: s = sin(revolute1.phi) (two links of 0.5 m, symmetric about P)
    np.testing.assert_allclose(sol["prismatic1.s"], np.sin(sol["revolute1.phi"]), atol=1e-9)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("KinematicLoop")
    sol = compiled.simulate(6.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("revolute1.phi", "revolute1.w", "revolute4.phi", "revolute4.w"):
        check_signal(name, sol[name], ref[name])


# -- KinematicLoop_DynamicStateSelection ---------------------------------------------------------

DSS_SIGNALS = ("body.phi", "body.w", "revolute2.phi", "revolute2.w", "revolute4.phi",
               "revolute4.w", "springDamper1D.s_rel", "springDamper1D.v_rel")


@pytest.fixture(scope="module")
def compiled_dss():
    return compile(kinematic_loop(priority=None))


def test_dss_states(compiled_dss):
    assert compiled_dss.n_states == 4


def test_dss_checkpoints(compiled_dss):
    sol = compiled_dss.simulate(6.0, t_eval=[0.0, 1.0, 3.0, 6.0], rtol=RTOL, atol=ATOL)
    # section 4.10 of docs/planar_mechanics.md (same motion as the manual variant)
    np.testing.assert_allclose(sol["revolute1.phi"], [0.411517, 0.355757, 0.3478, 0.318542],
                               atol=2e-5)
    np.testing.assert_allclose(sol["revolute4.w"], [0.0, -0.320591, -0.497144, 0.42138],
                               atol=5e-5)
    # DynamicStateSelection CSV at t = 6
    np.testing.assert_allclose(
        [sol[n][-1] for n in ("body.phi", "body.w", "revolute2.phi", "springDamper1D.s_rel",
                              "springDamper1D.v_rel")],
        [0.0498026, 0.496765, -0.637084, 0.313182, 0.0715867], atol=5e-5)


def test_dss_against_reference(compiled_dss, load_reference, check_signal):
    ref = load_reference("KinematicLoop_DynamicStateSelection")
    sol = compiled_dss.simulate(6.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in DSS_SIGNALS:
        check_signal(name, sol[name], ref[name])
