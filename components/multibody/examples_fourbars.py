"""Three spatial four-bar variants of MultiBody whose coupler is a single rod joint
(MSL 4.0, git revision bd753330a, the revision the Dymola reference results were made with):

* :class:`Fourbar2` - ``Modelica.Mechanics.MultiBody.Examples.Loops.Fourbar2``: the coupler is a
  ``Joints.UniversalSpherical`` rod, universal joint at the slider's cylinder, spherical joint
  at the crank;
* :class:`FourbarSphericalSpherical` -
  ``ModelicaTest.MultiBody.FourbarVariants.SphericalSpherical``: a
  ``Joints.SphericalSpherical`` rod carrying a 1 kg point mass at its middle;
* :class:`FourbarVariantsUniversalSpherical` -
  ``ModelicaTest.MultiBody.FourbarVariants.UniversalSpherical``: a massless
  ``Joints.UniversalSpherical`` rod with a tilted first universal axis (0, 1, 0.1).
  (``examples.FourbarUniversalSpherical`` is a different model: ``Fourbar_analytic`` with a
  universal-spherical rod inside its JointSSP assembly, hence the longer name.)

All three are one mechanism: a crank ``b1`` (cylinder from (0, 0, 0) to (0, 0.5, 0.1) turning
about the world x axis on ``j1``), a slider ``j2`` along x carrying the cylinder ``b2`` (0.2 m
along y), and a rod of length sqrt(1.1) m between the crank's tip and ``b2``'s tip; the slider's
base ``b3`` sits at (1.2, 0, 0), (1, 0, 0) or (0.8, 0, 0), and j2.s starts at -0.2, 0 and 0.2,
so that the rod's slider end starts at (1, 0.2, 0) in each. The rod joint is one distance
constraint between its ends (its end joints' rotations carry no inertia: the rod is massless, or
carries a point mass whose position its ends fix), so the two joint coordinates j1.phi and j2.s
less that constraint leave one degree of freedom, driven by gravity alone from j1.w = 300 deg/s;
nothing dissipates.

Differences to the Modelica models (none changes the motion):

* ``computeRodLength = true`` (Fourbar2, SphericalSpherical) makes MultiBody compute the rod
  length during initialization from a fixed j2.s. ``SphericalSpherical`` does the same here
  (``compute_rod_length=True``: a parameter with ``fixed=False``); ``UniversalSpherical``'s
  length comes from its structural ``rRod_ia``, so Fourbar2 is given the value that
  initialization yields, sqrt(1.1) m (the crank tip (0, 0.5, 0.1) to the rod end (1, 0.2, 0)),
  and its j2.s is a start guess (not fixed: the loop determines it).
* The visualizers (``Visualizers.FixedFrame`` on ``frame_ia``) and the output aliases
  ``j1_phi``, ``j2_s``, ``j1_w``, ``j2_v`` are left out (``j1.phi`` etc. are the same values).
* ``Fourbar2`` needs no ``Joints.Assemblies.JointUSR``: MSL 4.0 builds it with the plain
  ``Joints.UniversalSpherical`` joint, as here.
"""

from __future__ import annotations

import math

from acausal import Component, Variable, connect

from .joints import Prismatic, Revolute, SphericalSpherical, UniversalSpherical
from .parts import BodyCylinder, FixedTranslation
from .world import World

#: The rod length computeRodLength = true yields (crank tip (0, 0.5, 0.1), rod end (1, 0.2, 0)).
ROD_LENGTH = math.sqrt(1.1)


class _ModelicaTestFourbar(Component):
    """The parts the ModelicaTest four-bar variants share: world, crank ``j1``/``b1``, slider
    ``j2``/``b2`` and its base ``b3`` (at ``b3_r``); the subclass adds the rod."""

    def __init__(self, b3_r, j2_start, w_start=5.235987755982989, j2_fixed=False, **kw):
        super().__init__(**kw)
        self.world = World()
        # stateSelect = StateSelect.always
        self.j1 = Revolute(n=(1, 0, 0), phi=Variable(start=0.0, fixed=True, state_priority=100),
                           w=Variable(start=w_start, fixed=True, state_priority=100))
        self.j2 = Prismatic(n=(1, 0, 0), s=Variable(start=j2_start, fixed=j2_fixed))
        self.b1 = BodyCylinder(r=(0.0, 0.5, 0.1), diameter=0.05)
        self.b2 = BodyCylinder(r=(0.0, 0.2, 0.0), diameter=0.05)
        self.b3 = FixedTranslation(r=b3_r)

    def rod(self):
        raise NotImplementedError

    def connections(self):
        rod = self.rod()
        return [connect(self.j2.frame_b, self.b2.frame_a),
                connect(self.j1.frame_b, self.b1.frame_a),
                connect(self.j1.frame_a, self.world.frame_b),
                connect(self.b1.frame_b, rod.frame_b),
                connect(rod.frame_a, self.b2.frame_b),
                connect(self.b3.frame_a, self.world.frame_b),
                connect(self.b3.frame_b, self.j2.frame_a)]


class Fourbar2(_ModelicaTestFourbar):
    """``Modelica.Mechanics.MultiBody.Examples.Loops.Fourbar2`` (MSL 4.0): the four-bar of
    ``Fourbar1`` with its three revolute joints at the crank and two at the coupler replaced by a
    massless ``UniversalSpherical`` rod (universal joint at ``b2``'s tip, first axis
    n1_a = (0, 1, 0), spherical joint at the crank's tip; rRod_ia = (-1, 0.3, 0.1)). Slider base
    b3 at (1.2, 0, 0); j2.s starts at -0.2 (fixed in MultiBody, where it determines the rod
    length: here the length sqrt(1.1) is given and j2.s is the guess; see the module notes).
    One degree of freedom: j1.phi, j1.w (j1.w(0) = 5.235987755983 rad/s)."""

    def __init__(self, **kw):
        super().__init__(b3_r=(1.2, 0.0, 0.0), j2_start=-0.2, w_start=5.235987755983, **kw)
        # computeRodLength = true: the length is |rRod_ia| = sqrt(1.1), the value MultiBody's
        # initialization computes from j2.s = -0.2
        self.universalSpherical = UniversalSpherical(n1_a=(0, 1, 0), rRod_ia=(-1.0, 0.3, 0.1))

    def rod(self):
        return self.universalSpherical


class FourbarSphericalSpherical(_ModelicaTestFourbar):
    """``ModelicaTest.MultiBody.FourbarVariants.SphericalSpherical`` (MSL 4.0): the coupler is a
    ``SphericalSpherical`` rod with a point mass m = 1 kg at its middle (no rotational inertia),
    from ``b2``'s tip (frame_a) to the crank's tip (frame_b). Slider base b3 at (1, 0, 0), j2.s
    fixed at 0 and ``compute_rod_length=True`` as in MultiBody: the rod length is computed at
    initialisation (guess 1 m; the result is sqrt(1.1) m). One degree of freedom: j1.phi, j1.w."""

    def __init__(self, **kw):
        super().__init__(b3_r=(1.0, 0.0, 0.0), j2_start=0.0, j2_fixed=True, **kw)
        self.sphericalSpherical = SphericalSpherical(compute_rod_length=True, rod_length=1.0,
                                                     m=1.0)

    def rod(self):
        return self.sphericalSpherical


class FourbarVariantsUniversalSpherical(_ModelicaTestFourbar):
    """``ModelicaTest.MultiBody.FourbarVariants.UniversalSpherical`` (MSL 4.0): a massless
    ``UniversalSpherical`` rod, rRod_ia = (-1, 0.3, 0.1) (length sqrt(1.1), computeRodLength =
    false as here), first universal axis n1_a = (0, 1, 0.1); slider base b3 at (0.8, 0, 0) and
    j2.s free (start 0; the loop puts it at 0.2, the branch nearest the start). Named after its
    package because ``examples.FourbarUniversalSpherical`` is a variant of ``Fourbar_analytic``.
    One degree of freedom: j1.phi, j1.w."""

    def __init__(self, **kw):
        super().__init__(b3_r=(0.8, 0.0, 0.0), j2_start=0.0, **kw)
        self.universalSpherical = UniversalSpherical(n1_a=(0, 1, 0.1), rRod_ia=(-1.0, 0.3, 0.1))

    def rod(self):
        return self.universalSpherical
