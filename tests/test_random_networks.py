"""Property test: random networks of 1-D and planar components, with random parameters and start
values (impossible ones included), either simulate to finite values or raise an acausal error:
never another exception, never a hang.

Each example is built from a drawn description (component kinds, parameters, which connector
goes to which node), compiled and simulated over a short time under a wall-clock limit.
"""

from __future__ import annotations

import contextlib
import signal

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from acausal import AcausalError, Component, Variable, compile, connect  # noqa: E402
from acausal.components import translational as tr  # noqa: E402
from acausal.components.planar import joints as pj  # noqa: E402
from acausal.components.planar import parts as pp  # noqa: E402

TIME_LIMIT = 60  # s, wall clock per example: compile and simulate; beyond it counts as a hang


class Hang(Exception):
    """Raised by the alarm: the example ran past TIME_LIMIT."""


@contextlib.contextmanager
def time_limit(seconds: int):
    def on_alarm(signum, frame):
        raise Hang(f"no result after {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def outcome(build) -> str:
    """'finite' or the acausal error's class name; any other exception fails the test."""
    with time_limit(TIME_LIMIT):
        try:
            model = build()
            sol = compile(model).simulate(0.2, n_points=5, progress=False)
            values = [sol[n] for n in sol.declared_names()]
        except AcausalError as exc:
            return type(exc).__name__
    for name, v in zip(sol.declared_names(), values):
        assert np.all(np.isfinite(v)), f"{name} is not finite and no error was raised"
    return "finite"


# -- 1-D translational networks ---------------------------------------------------------------

# a parameter value: mostly ordinary, sometimes zero, negative or huge (impossible values must be
# refused with an acausal error, possible ones must simulate)
values = st.one_of(st.floats(0.1, 100.0), st.sampled_from([0.0, -1.0, 1e6, 1e-6]))
starts = st.one_of(st.none(), st.floats(-1.0, 1.0))

ONE_D = {
    "mass": (tr.Mass, ("flange_a", "flange_b"), ("m",)),
    "spring": (tr.Spring, ("flange_a", "flange_b"), ("c",)),
    "damper": (tr.Damper, ("flange_a", "flange_b"), ("d",)),
    "spring_damper": (tr.SpringDamper, ("flange_a", "flange_b"), ("c", "d")),
    "fixed": (tr.Fixed, ("flange",), ("s0",)),
    "force": (tr.ConstantForce, ("flange",), ("f_constant",)),
}


@st.composite
def one_d_networks(draw):
    n_nodes = draw(st.integers(1, 4))
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(sorted(ONE_D)))
        cls, connectors, names = ONE_D[kind]
        params = {name: draw(values) for name in names}
        if kind == "mass":
            start, fixed = draw(starts), draw(st.booleans())
            if start is not None:
                params["s"] = Variable(start=start, fixed=fixed)
        nodes = [draw(st.sampled_from([*range(n_nodes), None])) for _ in connectors]
        parts.append((cls, params, connectors, nodes))
    return parts


def build_one_d(parts):
    class Network(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.parts = [cls(**params) for cls, params, _, _ in parts]

        def connections(self):
            first: dict[int, object] = {}
            out = []
            for part, (_, _, connectors, nodes) in zip(self.parts, parts):
                for name, node in zip(connectors, nodes):
                    if node is None:
                        continue
                    flange = getattr(part, name)
                    if node in first:
                        out.append(connect(first[node], flange))
                    else:
                        first[node] = flange
            return out

    return Network()


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(one_d_networks())
def test_random_one_d_networks(parts):
    hypothesis.event(outcome(lambda: build_one_d(parts)))


# -- planar chains and loops -------------------------------------------------------------------


@st.composite
def planar_mechanisms(draw):
    """A chain from the ground: joint, rod, body, joint, rod, body, ...; sometimes closed back to
    a second ground pivot by a last joint (a kinematic loop)."""
    links = []
    for _ in range(draw(st.integers(1, 3))):
        joint = draw(st.sampled_from(["revolute", "prismatic"]))
        length = draw(st.one_of(st.floats(0.2, 2.0), st.sampled_from([0.0, -1.0])))
        mass = draw(values)
        inertia = draw(values)
        guess = draw(starts)
        links.append((joint, length, mass, inertia, guess))
    closed = draw(st.booleans())
    pivot = draw(st.floats(0.5, 2.0))
    return links, closed, pivot


def build_planar(description):
    links, closed, pivot = description

    class Mechanism(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = pp.World()
            self.ground = pp.Fixed()
            joints, rods, bodies = [], [], []
            for joint, length, mass, inertia, guess in links:
                coordinate = {} if guess is None else (
                    {"phi": Variable(start=guess)} if joint == "revolute" else
                    {"s": Variable(start=guess)})
                joints.append(pj.Revolute(**coordinate) if joint == "revolute"
                              else pj.Prismatic(r=[1.0, 0.0], **coordinate))
                rods.append(pp.FixedTranslation(r=[length, 0.0]))
                bodies.append(pp.Body(m=mass, I=inertia))
            # lists of parts are declared when assigned: assign them complete
            self.joints, self.rods, self.bodies = joints, rods, bodies
            if closed:
                self.pivot = pp.Fixed(r=[pivot, 0.0])
                self.closing = pj.Revolute()

        def connections(self):
            out = []
            frame = self.ground.frame
            for joint, rod, body in zip(self.joints, self.rods, self.bodies):
                out += [connect(frame, joint.frame_a), connect(joint.frame_b, rod.frame_a),
                        connect(rod.frame_b, body.frame_a)]
                frame = rod.frame_b
            if closed:
                out += [connect(frame, self.closing.frame_a),
                        connect(self.closing.frame_b, self.pivot.frame)]
            return out

    return Mechanism()


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(planar_mechanisms())
def test_random_planar_mechanisms(description):
    hypothesis.event(outcome(lambda: build_planar(description)))


def test_the_property_can_fail():
    """The checker itself: a hang and a non-acausal exception are caught as failures."""
    with pytest.raises(Hang):
        with time_limit(1):
            while True:
                pass

    def broken():
        raise RuntimeError("not an acausal error")

    with pytest.raises(RuntimeError):
        outcome(broken)
