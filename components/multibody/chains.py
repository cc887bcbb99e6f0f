"""Chains of revolute joints and box links: a serial one (:class:`SpatialChain`) and a branched
one (:class:`Hand`, five fingers on a palm), the models of the multibody benchmarks.

:class:`SpatialChain` is a spatial pendulum chain: N links on revolute joints whose axes
alternate between x and y. It is the model of ``benchmarks/multibody_peers.py`` (the same chain
in Exudyn and MuJoCo), of ``benchmarks/rhs_growth.py`` and of
``tests/compiler/test_linear_loops.py``: each link is a uniform box ``link_length`` long along
its z axis with a square cross-section ``width`` x ``width`` and mass ``m``, hung from the
previous link's end (the first from the world origin) by a revolute joint, axis x for even and
y for odd joints; every joint starts at ``phi0`` at rest. Gravity is the world's (9.80665 m/s2
along -y). With these axes the chain moves in 3-D, so it exercises the coupling terms of the
spatial equations of motion that a planar chain leaves out.

Inertia of a box link (:func:`box_link`) about its centre of mass (at half the length)::

    I_11 = I_22 = m (length^2 + width^2) / 12,   I_33 = m (2 width^2) / 12

:class:`Hand` is a tree of the same parts: five :class:`Finger` chains of four links hanging
from a palm fixed to the world (geometry in its docstring).
"""

from __future__ import annotations

from acausal import Component, Variable, connect
from acausal.errors import ParameterError

from .interfaces import Frame
from .joints import Revolute
from .parts import BodyShape, FixedTranslation
from .world import World


class SpatialChain(Component):
    """N revolute joints and box links (see the module docstring); ``joints[i]`` and
    ``links[i]`` are the parts, ``links[-1].frame_b`` the tip.

    Arguments (the structure, fixed when the model is built; each link's mass and inertia stay
    parameters of its ``BodyShape``): ``n`` links, ``link_length`` [m], ``width`` [m], ``m``
    [kg] per link, ``phi0`` [rad] the start angle of every joint.
    """

    def __init__(self, n: int = 20, link_length: float = 0.5, width: float = 0.05,
                 m: float = 1.0, phi0: float = 0.3, **kw):
        super().__init__(**kw)
        self.world = World()
        self.joints = [Revolute(n=(1, 0, 0) if i % 2 == 0 else (0, 1, 0),
                                phi=Variable(start=float(phi0), fixed=True),
                                w=Variable(start=0.0, fixed=True)) for i in range(n)]
        self.links = [box_link(link_length, width, m) for _ in range(n)]

    def connections(self):
        return serial_connections(self.world, self.joints, self.links)


def serial_connections(world, joints: list, links: list) -> list:
    """The connections of a serial chain: world -> joints[0] -> links[0] -> joints[1] -> ...
    (each joint's ``frame_b`` to its link's ``frame_a``, each link's ``frame_b`` to the next
    joint's ``frame_a``), for any chain of two-frame joints and parts."""
    return chain_from(world.frame_b, joints, links)


def chain_from(frame, joints: list, links: list) -> list:
    """The connections of a serial chain hanging from ``frame``: frame -> joints[0] ->
    links[0] -> joints[1] -> ... (as :func:`serial_connections`)."""
    out = [connect(frame, joints[0].frame_a)]
    for i, (joint, link) in enumerate(zip(joints, links)):
        out.append(connect(joint.frame_b, link.frame_a))
        if i + 1 < len(joints):
            out.append(connect(link.frame_b, joints[i + 1].frame_a))
    return out


def box_link(length: float, width: float, m: float) -> BodyShape:
    """A uniform box link ``length`` long along its z axis, ``width`` x ``width`` across, of
    mass ``m``: frame_a at one end, frame_b at the other, the centre of mass halfway (the links
    of :class:`SpatialChain` and :class:`Hand`)."""
    i_cross = m * (length**2 + width**2) / 12
    i_axial = m * 2 * width**2 / 12
    return BodyShape(r=(0.0, 0.0, length), r_CM=(0.0, 0.0, length / 2), m=m, I_11=i_cross,
                     I_22=i_cross, I_33=i_axial)


class Finger(Component):
    """One finger of :class:`Hand`: a serial chain from ``frame_a`` (the knuckle) of revolute
    joints and box links (:func:`box_link`), ``joints[i]`` at the start of ``links[i]``.

    Joint 0 turns about y (spreading the finger sideways, abduction), the others about x
    (bending it, flexion); in the hand's frame (palm fixed, y up) the flexion axes are
    horizontal, so gravity bends the fingers, and the spreading axis is vertical. Joint 0 starts
    at ``spread``, the others at ``flexion``, all at rest.

    Arguments (the structure, fixed when the model is built): ``n`` joints and links,
    ``link_length`` [m], ``width`` [m], ``m`` [kg] per link, ``spread`` and ``flexion`` [rad].
    """

    frame_a = Frame()

    def __init__(self, n: int = 4, link_length: float = 0.04, width: float = 0.015,
                 m: float = 0.02, spread: float = 0.0, flexion: float = 0.3, **kw):
        super().__init__(**kw)
        self.joints = [Revolute(n=(0, 1, 0) if i == 0 else (1, 0, 0),
                                phi=Variable(start=float(spread if i == 0 else flexion),
                                             fixed=True),
                                w=Variable(start=0.0, fixed=True)) for i in range(n)]
        self.links = [box_link(link_length, width, m) for _ in range(n)]

    def connections(self):
        return chain_from(self.frame_a, self.joints, self.links)


class Hand(Component):
    """A 3-D hand of five fingers of four links each on a palm that turns about a wrist joint:
    a branched tree of 21 revolute joints (42 states), the tree benchmark next to the serial
    :class:`SpatialChain` (``benchmarks/rhs_growth.py``). The wrist couples the fingers: the
    accelerations and cut forces of the whole hand are one linear block.

    Geometry (the world's frame: x across the palm, y up against gravity, 9.80665 m/s2 along
    -y, z from the wrist to the fingertips):

    * ``wrist``: a ``Revolute`` about x at the world origin, starting at ``wrist_angle``
      (0.2 rad: the palm tilted down), at rest;
    * ``palm``: a :func:`box_link` from the wrist (its frame_a on the wrist's frame_b) to
      (0, 0, 0.1 m) in its own frame, 0.08 m x 0.08 m across, 0.4 kg;
    * ``knuckles[k]``: a ``FixedTranslation`` from the wrist to the base of finger k, in the
      palm's frame: thumb (0.05, 0, 0.03), index (0.03, 0, 0.1), middle (0.01, 0, 0.1),
      ring (-0.01, 0, 0.1), little (-0.03, 0, 0.1) [m];
    * ``fingers[k]``: a :class:`Finger` of four box links 0.015 m x 0.015 m across and 0.02 kg
      each, the links 0.03, 0.04, 0.045, 0.04, 0.032 m long (thumb to little finger). At zero
      angles every finger points along the palm's z. They start spread sideways by 0.6,
      0.15, 0.05, -0.1, -0.25 rad (joint 0, about y; positive towards +x) and bent by 0.3 rad
      in each of the three flexion joints (about x; positive bends the tip down), at rest; no
      damping, so the mechanical energy is conserved.

    Arguments (structure, fixed when the model is built): ``link_lengths`` [m] and ``spread``
    [rad] one per finger (thumb first), ``flexion`` [rad] the start of every flexion joint,
    ``wrist_angle`` [rad] the wrist's start, ``width`` [m] and ``m`` [kg] of every finger link.
    """

    KNUCKLES = ((0.05, 0.0, 0.03), (0.03, 0.0, 0.1), (0.01, 0.0, 0.1), (-0.01, 0.0, 0.1),
                (-0.03, 0.0, 0.1))
    NAMES = ("thumb", "index", "middle", "ring", "little")

    def __init__(self, link_lengths: tuple = (0.03, 0.04, 0.045, 0.04, 0.032),
                 spread: tuple = (0.6, 0.15, 0.05, -0.1, -0.25), flexion: float = 0.3,
                 wrist_angle: float = 0.2, width: float = 0.015, m: float = 0.02, **kw):
        super().__init__(**kw)
        if len(link_lengths) != len(self.KNUCKLES) or len(spread) != len(self.KNUCKLES):
            raise ParameterError(
                f"Hand: link_lengths and spread need one value per finger "
                f"({', '.join(self.NAMES)}), got {len(link_lengths)} and {len(spread)}.")
        self.world = World()
        self.wrist = Revolute(n=(1, 0, 0), phi=Variable(start=float(wrist_angle), fixed=True),
                              w=Variable(start=0.0, fixed=True))
        self.palm = box_link(0.1, 0.08, 0.4)
        self.knuckles = [FixedTranslation(r=r) for r in self.KNUCKLES]
        self.fingers = [Finger(n=4, link_length=float(length), width=width, m=m,
                               spread=float(s), flexion=float(flexion))
                        for length, s in zip(link_lengths, spread)]

    def finger_links(self) -> list:
        """Every finger link, finger by finger."""
        return [link for finger in self.fingers for link in finger.links]

    def moving_links(self) -> list:
        """The palm and every finger link (for :func:`.energy.mechanical_energy`)."""
        return [self.palm, *self.finger_links()]

    def connections(self):
        out = [connect(self.world.frame_b, self.wrist.frame_a),
               connect(self.wrist.frame_b, self.palm.frame_a)]
        for knuckle, finger in zip(self.knuckles, self.fingers):
            out += [connect(self.palm.frame_a, knuckle.frame_a),
                    connect(knuckle.frame_b, finger.frame_a)]
        return out
