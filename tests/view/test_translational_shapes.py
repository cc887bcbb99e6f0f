"""The 1-D translational bodies in the viewer: boxes in the world frame that slide along x by
their position (``Visual(slide=...)``); a mass with stops shows its stops."""

from __future__ import annotations

import numpy as np

from acausal import Component, Eq, Variable, compile, connect
from acausal.components import translational
from acausal.components.translational_friction import MassWithStopAndFriction
from acausal.view.scene import build_scene


class Oscillator(Component):
    """A 0.4 m long mass on a spring to a wall and a mass with stops pushed by a force."""

    wall = translational.Fixed()
    spring = translational.Spring(c=40.0)
    mass = translational.Mass(m=1.0, L=0.4, s=Variable(start=0.5, fixed=True),
                              v=Variable(start=0.0, fixed=True))
    push = translational.Force()
    slider = MassWithStopAndFriction(m=1.0, L=0.2, smin=-1.0, smax=1.0, F_Coulomb=0.5,
                                     F_Stribeck=0.0, s=Variable(start=0.0, fixed=True),
                                     v=Variable(start=0.0, fixed=True))

    def equations(self):
        return [Eq(self.push.f, 2.0)]

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.push.flange, self.slider.flange_a)]


def test_masses_are_boxes_that_slide_with_their_position():
    sol = compile(Oscillator()).simulate(2.0, dt=0.01)
    scene = build_scene(sol)
    shapes = {(s["component"], s["kind"], s["r_shape"][0]): s for s in scene.meta["shapes"]}
    box = shapes[("mass", "box", -0.2)]
    assert box["length"] == 0.4 and box["slide"] == "mass.s" and box["trail"]
    # where the page draws the box's centre: its frame's origin plus the centre in the frame
    origins = scene.arrays["origins"][:, box["frame"], :]
    centre = origins[:, 0] + box["r_shape"][0] + box["length"] / 2
    np.testing.assert_allclose(centre, sol["mass.s"], atol=1e-12)
    np.testing.assert_allclose(origins[:, 1:], 0.0)
    assert np.ptp(sol["mass.s"]) > 0.5  # it oscillates: the box moves
    # the mass with stops: its box slides; its stops are fixed plates at smin and smax
    slider = next(s for s in scene.meta["shapes"] if s["component"] == "slider"
                  and s["slide"] == "slider.s")
    np.testing.assert_allclose(scene.arrays["origins"][:, slider["frame"], 0],
                               sol["slider.s"], atol=1e-12)
    assert sol["slider.s"][-1] == 1.0 - 0.1  # pushed against the upper stop (smax - L/2)
    plates = sorted(s["r_shape"][0] for s in scene.meta["shapes"]
                    if s["component"] == "slider" and s["slide"] is None)
    assert plates == [-1.0, 1.0]
