"""Test rigs for joints with friction (imported by the joint friction tests; this folder is put
on sys.path by conftest.py)."""

from __future__ import annotations

from acausal import Component, connect
from acausal.components.blocks import Constant
from acausal.components.multibody import Body, Fixed, World, WorldForce, WorldTorque

HEAVY = 1e6


class LoadedJoint(Component):
    """World -> Fixed -> joint -> body, with constant world force ``F`` and torque ``M`` on the
    body at frame_b's origin (Constant blocks: tunable through params ``f[i].k``, ``t[i].k``)."""

    def __init__(self, joint, body, F=(0.0, 0.0, 0.0), M=(0.0, 0.0, 0.0), drive=None,
                 force_sources=None, torque_sources=None, **kw):
        super().__init__(**kw)
        self.world = World(gravity_type="NoGravity")
        self.fixed = Fixed()
        self.joint = joint
        self.body = body
        self.push = WorldForce()
        self.twist = WorldTorque()
        self.f = force_sources or [Constant(k=k) for k in F]
        self.t = torque_sources or [Constant(k=k) for k in M]
        if drive is not None:
            self.drive = drive

    def connections(self):
        eqs = [connect(self.fixed.frame_b, self.joint.frame_a),
               connect(self.joint.frame_b, self.body.frame_a),
               connect(self.push.frame_b, self.body.frame_a),
               connect(self.twist.frame_b, self.body.frame_a),
               *(connect(c.y, i) for c, i in zip(self.f, self.push.force)),
               *(connect(c.y, i) for c, i in zip(self.t, self.twist.torque))]
        if hasattr(self, "drive"):
            eqs.append(connect(self.drive.flange, self.joint.axis))
        return eqs


def loads(F, M):
    return {**{f"f[{i}].k": F[i] for i in range(3)}, **{f"t[{i}].k": M[i] for i in range(3)}}


def heavy_body(**kw):
    return Body(m=HEAVY, I_11=HEAVY, I_22=HEAVY, I_33=HEAVY, **kw)


