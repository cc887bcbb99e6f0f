"""Blocks.Math (Gain, Feedback, Add, Add3) and Blocks.Sources.KinematicPTP2
(``acausal.components.math_blocks``) against closed-form values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from acausal import Component, compile, connect
from acausal.components.blocks import Constant, Ramp, Sine
from acausal.components.math_blocks import Add, Add3, Feedback, Gain, KinematicPTP2, ptp_profile
from acausal.errors import ParameterError

TIGHT = {"rtol": 1e-10, "atol": 1e-12}


class _Signals(Component):
    """u1 = sin(2 pi t), u2 = 3 t (ramp over 10 s), u3 = 2: through Gain, Feedback, Add, Add3."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.s1 = Sine(amplitude=1.0, f=1.0)
        self.s2 = Ramp(height=30.0, duration=10.0)
        self.s3 = Constant(k=2.0)
        self.gain = Gain(k=-2.5)
        self.feedback = Feedback()
        self.add = Add(k1=2.0, k2=-0.5)
        self.add3 = Add3(k1=1.0, k2=2.0, k3=-3.0)

    def connections(self):
        return [connect(self.s1.y, self.gain.u), connect(self.s1.y, self.feedback.u1),
                connect(self.s2.y, self.feedback.u2), connect(self.s1.y, self.add.u1),
                connect(self.s2.y, self.add.u2), connect(self.s1.y, self.add3.u1),
                connect(self.s2.y, self.add3.u2), connect(self.s3.y, self.add3.u3)]


def test_math_blocks_against_closed_form():
    t = np.linspace(0.0, 2.0, 41)
    sol = compile(_Signals()).simulate(2.0, t_eval=t, **TIGHT)
    u1, u2 = np.sin(2 * np.pi * t), 3.0 * t
    assert np.allclose(sol["gain.y.u"], -2.5 * u1, atol=1e-12)
    assert np.allclose(sol["feedback.y.u"], u1 - u2, atol=1e-12)
    assert np.allclose(sol["add.y.u"], 2.0 * u1 - 0.5 * u2, atol=1e-12)
    assert np.allclose(sol["add3.y.u"], u1 + 2.0 * u2 - 6.0, atol=1e-12)


def test_ptp_without_constant_speed_phase():
    """q 0 -> 1, qd_max = qdd_max = 1: Ta1 = Ta2 = 1 (no constant-speed phase), Te = 2;
    q = t^2/2 (t < 1), 1/2 + (t - 1) - (t - 1)^2/2 (1 <= t < 2), 1 after."""
    block = KinematicPTP2(q_begin=(0.0,), q_end=(1.0,), qd_max=(1.0,), qdd_max=(1.0,))
    assert block.endTime == pytest.approx(2.0, abs=1e-15)
    t = np.linspace(0.0, 2.5, 26)
    sol = compile(block).simulate(2.5, t_eval=t, **TIGHT)
    q = np.where(t < 1, t**2 / 2, np.where(t < 2, 0.5 + (t - 1) - (t - 1) ** 2 / 2, 1.0))
    qd = np.where(t < 1, t, np.where(t < 2, 1 - (t - 1), 0.0))
    qdd = np.where(t < 1, 1.0, np.where(t < 2, -1.0, 0.0))
    assert np.allclose(sol["q[0].u"], q, atol=1e-14)
    assert np.allclose(sol["qd[0].u"], qd, atol=1e-14)
    # at t = 1, 2 the stored value is the one after the (time) event
    assert np.allclose(sol["qdd[0].u"], qdd, atol=1e-14)
    assert [e for e, _ in sol.events] == pytest.approx([1.0, 2.0], abs=1e-12)


def test_ptp_with_constant_speed_phase_and_two_axes():
    """Axis 1: q 0 -> 2 with qd_max = qdd_max = 1 sets the profile (sd_max = sdd_max = 1/2,
    Ta2 = 1 < Ta1 = sqrt(2): constant speed from t = 1 to Tv = 2, Te = 3); axis 2 (1 -> 0)
    follows the same normalised path s: q2 = 1 - s."""
    block = KinematicPTP2(q_begin=(0.0, 1.0), q_end=(2.0, 0.0), qd_max=(1.0, 5.0),
                          qdd_max=(1.0, 5.0), startTime=0.5)
    assert block.nout == 2
    assert block.endTime == pytest.approx(3.5, abs=1e-14)
    t = np.linspace(0.0, 4.0, 81)
    sol = compile(block).simulate(4.0, t_eval=t, **TIGHT)
    tau = t - 0.5
    q1 = np.where(tau < 0, 0.0, np.where(tau < 1, tau**2 / 2, np.where(
        tau < 2, 0.5 + (tau - 1), np.where(tau < 3, 1.5 + (tau - 2) - (tau - 2) ** 2 / 2, 2.0))))
    assert np.allclose(sol["q[0].u"], q1, atol=1e-13)
    assert np.allclose(sol["q[1].u"], 1 - q1 / 2, atol=1e-13)
    assert np.max(sol["qd[0].u"]) == pytest.approx(1.0, abs=1e-13)
    assert np.min(sol["qdd[1].u"]) == pytest.approx(-0.5, abs=1e-13)
    # qd is the derivative of q and qdd that of qd (numerically, between the switches)
    h = 1e-6
    for x in (0.7, 1.2, 2.0, 3.3):  # in each phase
        q_minus, qd_minus, _ = block.reference(x - h)
        q_plus, qd_plus, _ = block.reference(x + h)
        _, qd, qdd = block.reference(x)
        for i in range(2):
            assert (q_plus[i] - q_minus[i]) / (2 * h) == pytest.approx(qd[i], abs=1e-8)
            assert (qd_plus[i] - qd_minus[i]) / (2 * h) == pytest.approx(qdd[i], abs=1e-8)


def test_ptp_full_robot_profile():
    """FullRobot's path: axis 5 (220 deg at 3.1 rad/s) limits the speed, axis 3 (125 deg at
    15 rad/s2) the acceleration: sd_max = 3.1/(220 deg), sdd_max = 15/(125 deg)."""
    d = math.radians
    p = ptp_profile([d(x) for x in (-60, 20, 90, 0, -110, 0)],
                    [d(x) for x in (60, -70, -35, 45, 110, 45)],
                    [3, 1.5, 5, 3.1, 3.1, 4.1], [15, 15, 15, 60, 60, 60])
    assert p["sd_max"] == pytest.approx(3.1 / d(220), rel=1e-14)
    assert p["sdd_max"] == pytest.approx(15 / d(125), rel=1e-14)
    assert not p["noWphase"]
    assert p["endTime"] == pytest.approx(1 / p["sd_max"] + p["sd_max"] / p["sdd_max"], 1e-14)
    assert p["s3"] == pytest.approx(1.0, abs=1e-14)


def test_ptp_errors_and_rest():
    with pytest.raises(ParameterError):
        KinematicPTP2(q_begin=(0.0, 1.0, 2.0), q_end=(1.0, 2.0))
    with pytest.raises(ParameterError):
        KinematicPTP2(qd_max=(0.0,))
    block = KinematicPTP2(q_begin=(0.3,), q_end=(0.3,))  # no motion: q stays, endTime = start
    assert block.endTime == 0.0
    assert block.reference(1.0) == ([0.3], [0.0], [0.0])
    assert isinstance(sp.sympify(block.reference(0.0)[0][0]), sp.Float)
