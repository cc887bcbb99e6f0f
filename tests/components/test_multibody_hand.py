"""The branched tree of ``multibody.chains.Hand``: five fingers of four revolute joints and box
links each on a palm that turns about a wrist (the tree model of benchmarks/rhs_growth.py).

Checked: it compiles to an ODE in the 21 joint angles and rates, its one linear block (the wrist
couples the fingers) eliminated without a remainder; its start geometry is the one its
docstring states (fingertips against forward kinematics written here in numpy); with no damping
its mechanical energy is conserved over a second of swinging to the integration error.
"""

import numpy as np
import pytest

from acausal import compile
from acausal.components.multibody.chains import Hand
from acausal.components.multibody.energy import mechanical_energy
from acausal.errors import ParameterError

RTOL = 1e-8
LINKS = 4  # per finger


@pytest.fixture(scope="module")
def hand():
    model = Hand()
    return model, compile(model)


@pytest.fixture(scope="module")
def swing(hand):
    model, cs = hand
    return cs.simulate(1.0, rtol=RTOL, atol=RTOL)


def _rotation(axis: int, angle: float) -> np.ndarray:
    """Rotation matrix about coordinate axis ``axis`` (parent <- child)."""
    c, s = np.cos(angle), np.sin(angle)
    j, k = [(1, 2), (2, 0), (0, 1)][axis]
    rot = np.eye(3)
    rot[j, j] = rot[k, k] = c
    rot[j, k], rot[k, j] = -s, s
    return rot


def test_the_hand_is_an_ode_in_its_twenty_one_joints(hand):
    model, cs = hand
    joints = ["wrist"] + [f"fingers[{k}].joints[{i}]" for k in range(5) for i in range(LINKS)]
    assert cs.x.numel() == 42
    assert sorted(cs.state_names) == sorted([f"{j}.phi" for j in joints]
                                            + [f"{j}.w" for j in joints])
    # the wrist couples the fingers: one linear block of accelerations and cut forces, a tree,
    # eliminated leaves to root with nothing left for a numeric solve
    assert cs.z.numel() == 0
    (report,) = cs.linear_eliminations
    assert report.eliminated == report.size and not report.remainder


def test_the_start_geometry_is_the_documented_one(hand, swing):
    """Each fingertip at t = 0 from the docstring's knuckles, lengths and start angles: joint 0
    about y by the spread, three joints about x by the flexion, each link along its z axis."""
    model, _ = hand
    lengths = (0.03, 0.04, 0.045, 0.04, 0.032)
    spread = (0.6, 0.15, 0.05, -0.1, -0.25)
    wrist = _rotation(0, 0.2)
    for k in range(5):
        rot, tip = wrist, wrist @ np.array(Hand.KNUCKLES[k], float)
        for i in range(LINKS):
            rot = rot @ (_rotation(1, spread[k]) if i == 0 else _rotation(0, 0.3))
            tip = tip + rot @ np.array([0.0, 0.0, lengths[k]])
        got = np.asarray(swing[f"fingers[{k}].links[{LINKS - 1}].frame_b.r_0"])[:, 0]
        assert np.abs(got - tip).max() < 1e-12
    # positive flexion bends the fingers down (against y) and the thumb spreads towards +x
    thumb = np.asarray(swing[f"fingers[0].links[{LINKS - 1}].frame_b.r_0"])[:, 0]
    assert thumb[1] < 0 and thumb[0] > Hand.KNUCKLES[0][0]


def test_the_fingers_swing_and_conserve_energy(hand, swing):
    model, cs = hand
    sol = swing
    assert sol.stats["solver"] == "CVODE"
    # every finger moves: its last flexion joint turns by more than 0.1 rad within the second
    for k in range(5):
        phi = np.asarray(sol[f"fingers[{k}].joints[{LINKS - 1}].phi"])
        assert np.abs(phi - phi[0]).max() > 0.1
    # no damping: the energy is an invariant, its change is the integration error (~rtol
    # relative to the energy that moves, the kinetic energy)
    kinetic, potential = mechanical_energy(sol, cs, model.moving_links(), split=True)
    energy = kinetic + potential
    assert kinetic.max() > 0.01  # J: the fingers fall, the bound below is not vacuous
    assert np.abs(energy - energy[0]).max() < 100 * RTOL * kinetic.max()


def test_one_value_per_finger_is_required():
    with pytest.raises(ParameterError, match="one value per finger"):
        Hand(spread=(0.1, 0.2))
