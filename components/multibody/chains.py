"""A spatial pendulum chain: N links on revolute joints whose axes alternate between x and y.

The model of the multibody benchmarks (``benchmarks/multibody_peers.py``, the same chain in
Exudyn and MuJoCo) and of ``tests/compiler/test_linear_loops.py``: each link is a uniform box
``link_length`` long along its z axis with a square cross-section ``width`` x ``width`` and mass
``m``, hung from the previous link's end (the first from the world origin) by a revolute joint,
axis x for even and y for odd joints; every joint starts at ``phi0`` at rest. Gravity is the
world's (9.80665 m/s2 along -y). With these axes the chain moves in 3-D, so it exercises the
coupling terms of the spatial equations of motion that a planar chain leaves out.

Inertia about the centre of mass (at half the length)::

    I_11 = I_22 = m (length^2 + width^2) / 12,   I_33 = m (2 width^2) / 12
"""

from __future__ import annotations

from acausal import Component, Variable, connect

from .joints import Revolute
from .parts import BodyShape
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
        i_cross = m * (link_length**2 + width**2) / 12
        i_axial = m * 2 * width**2 / 12
        self.world = World()
        self.joints = [Revolute(n=(1, 0, 0) if i % 2 == 0 else (0, 1, 0),
                                phi=Variable(start=float(phi0), fixed=True),
                                w=Variable(start=0.0, fixed=True)) for i in range(n)]
        self.links = [BodyShape(r=(0.0, 0.0, link_length), r_CM=(0.0, 0.0, link_length / 2),
                                m=m, I_11=i_cross, I_22=i_cross, I_33=i_axial)
                      for _ in range(n)]

    def connections(self):
        return serial_connections(self.world, self.joints, self.links)


def serial_connections(world, joints: list, links: list) -> list:
    """The connections of a serial chain: world -> joints[0] -> links[0] -> joints[1] -> ...
    (each joint's ``frame_b`` to its link's ``frame_a``, each link's ``frame_b`` to the next
    joint's ``frame_a``), for any chain of two-frame joints and parts."""
    out = [connect(world.frame_b, joints[0].frame_a)]
    for i, (joint, link) in enumerate(zip(joints, links)):
        out.append(connect(joint.frame_b, link.frame_a))
        if i + 1 < len(joints):
            out.append(connect(link.frame_b, joints[i + 1].frame_a))
    return out
