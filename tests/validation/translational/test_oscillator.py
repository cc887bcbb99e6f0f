"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.Oscillator`` against its Dymola
reference (``../shared/reference/translational/Oscillator``), and a proof that the reference
misses 1e-4 of the range by its own integration error.

Two masses (m = 1 kg, L = 1 m, at rest at s = -0.5 m) hang on springs (c = 1e4 N/m,
s_rel0 = 1 m) from walls at 1 m and are driven by ``f = sin(2 pi 15.9155 t)``, within 1e-6 of
the resonance ``sqrt(c/m) = 100 rad/s``; the second also has a ``Damper(d=10)`` in parallel
with its spring. With ``x = s + 0.5``: ``x'' + d x' + c x = sin(w t)``, ``x(0) = x'(0) = 0``,
solved in closed form (inline). The undamped amplitude grows linearly.

Our run (rtol 1e-8) is within 4e-6 of the closed form; Dymola's (DASSL, tolerance 1e-6) is
4.8e-4 of the range off it for mass1 and 1.8e-4 for damper1: the reference itself does not
reach 1e-4. ``test_reference_error_is_its_own`` proves that our difference to the reference
is the reference's error (our result equals the closed form far below 1e-4), and the 1e-4
comparison is an expected failure for this reason.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect
from acausal.components import translational as tr
from acausal.components.blocks import Sine

RTOL, ATOL = 1e-8, 1e-10
#: error allowed against the closed form, relative to each signal's range: the global error
#: of the run at rtol 1e-8 (measured 3.4e-6) with a margin
ERR = 2e-5
SIGNALS = ["damper1.s_rel", "damper1.v_rel", "mass1.s", "mass1.v"]
F = 15.9155  # Hz, MSL's sine1.f and sine2.f
C, D = 1e4, 10.0


def at_rest() -> dict:
    return {"s": Variable(start=-0.5, fixed=True), "v": Variable(start=0.0, fixed=True)}


class Oscillator(Component):
    mass1 = tr.Mass(L=1, m=1, **at_rest())
    spring1 = tr.Spring(s_rel0=1, c=C)
    fixed1 = tr.Fixed(s0=1)
    force1 = tr.Force()
    sine1 = Sine(f=F)
    mass2 = tr.Mass(L=1, m=1, **at_rest())
    spring2 = tr.Spring(s_rel0=1, c=C)
    fixed2 = tr.Fixed(s0=1)
    force2 = tr.Force()
    sine2 = Sine(f=F)
    damper1 = tr.Damper(d=D)

    def equations(self):
        # MSL: connect(sine1.y, force1.f), connect(sine2.y, force2.f)
        return [Eq(self.force1.f, self.sine1.y.u), Eq(self.force2.f, self.sine2.y.u)]

    def connections(self):
        return [connect(self.mass1.flange_b, self.spring1.flange_a),
                connect(self.spring2.flange_a, self.damper1.flange_a),
                connect(self.mass2.flange_b, self.spring2.flange_a),
                connect(self.damper1.flange_b, self.spring2.flange_b),
                connect(self.spring1.flange_b, self.fixed1.flange),
                connect(self.force2.flange, self.mass2.flange_a),
                connect(self.force1.flange, self.mass1.flange_a),
                connect(self.spring2.flange_b, self.fixed2.flange)]


def driven(t: np.ndarray, d: float) -> tuple[np.ndarray, np.ndarray]:
    """``x'' + d x' + C x = sin(w t)`` from rest, ``w = 2 pi F`` (under-damped or undamped,
    off resonance): (x, x') as the steady response plus the free motion that cancels it at
    t = 0."""
    w = 2 * np.pi * F
    h = 1 / (C - w**2 + 1j * d * w)  # the response to exp(i w t)
    xp, vp = np.imag(h * np.exp(1j * w * t)), np.imag(1j * w * h * np.exp(1j * w * t))
    sigma = d / 2
    wd = np.sqrt(C - sigma**2)
    a = -np.imag(h)
    b = (-np.imag(1j * w * h) + sigma * a) / wd
    e = np.exp(-sigma * t)
    x = xp + e * (a * np.cos(wd * t) + b * np.sin(wd * t))
    v = vp + e * ((b * wd - sigma * a) * np.cos(wd * t) - (a * wd + sigma * b) * np.sin(wd * t))
    return x, v


def closed_form(t: np.ndarray) -> dict[str, np.ndarray]:
    """The compared signals in closed form: mass1.s = x - 0.5 (undamped), damper1.s_rel =
    1 - x (damped: the damper spans from mass2.flange_b = x to the wall at 1 m)."""
    x1, v1 = driven(t, 0.0)
    x2, v2 = driven(t, D)
    return {"mass1.s": x1 - 0.5, "mass1.v": v1, "damper1.s_rel": 1 - x2, "damper1.v_rel": -v2}


def relative_errors(values: dict, expected: dict, span: dict) -> dict[str, float]:
    return {k: float(np.max(np.abs(np.asarray(values[k]) - expected[k])) / span[k])
            for k in SIGNALS}


@pytest.fixture(scope="module")
def compiled():
    return compile(Oscillator())


def test_closed_form_and_checkpoints(compiled):
    t = np.linspace(0.0, 1.0, 1001)
    sol = compiled.simulate(1.0, t_eval=t, rtol=RTOL, atol=ATOL)
    exact = closed_form(t)
    span = {k: float(np.ptp(v)) for k, v in exact.items()}
    errors = relative_errors(sol, exact, span)
    assert max(errors.values()) < ERR, errors
    # checkpoints at t = 1 s: the closed form's mass1.s = -0.5043369571 (the reference's last
    # row has -0.5043345946, 2.4e-4 of the range 0.0096 m away) and damper1.s_rel =
    # 1.0008570115 from the reference, within 1e-4 of its range (0.0020 m) there
    assert sol["mass1.s"][-1] == pytest.approx(-0.5043369571, abs=ERR * span["mass1.s"])
    assert sol["damper1.s_rel"][-1] == pytest.approx(1.0008570115, abs=1e-4 * 0.0020)


def test_reference_error_is_its_own(compiled):
    """The reference is further from the closed form than 1e-4 of the range, and our
    difference to it is that error: ours equals the closed form within ERR."""
    ref = msl_1d.load("translational", "Oscillator")
    assert msl_1d.comparison_signals("translational", "Oscillator") == SIGNALS
    t = msl_1d.output_times(ref)
    keep = msl_1d.output_rows(ref)
    reference = {k: ref[k][keep] for k in SIGNALS}
    span = {k: float(np.ptp(ref[k])) for k in SIGNALS}
    exact = closed_form(t)
    reference_errors = relative_errors(reference, exact, span)
    print("reference against the closed form:", reference_errors)
    assert reference_errors["mass1.s"] > 4e-4 and reference_errors["damper1.s_rel"] > 1.5e-4
    sol = compiled.simulate(1.0, t_eval=t, rtol=RTOL, atol=ATOL)
    ours = relative_errors(sol, exact, span)
    print("ours against the closed form:", ours)
    assert max(ours.values()) < ERR
    against_reference = relative_errors(sol, reference, span)
    for k in SIGNALS:
        assert against_reference[k] == pytest.approx(reference_errors[k], abs=ERR)


@pytest.mark.xfail(strict=True, reason="the Dymola reference is 4.8e-4 (mass1) and 1.8e-4 "
                   "(damper1) of the range off the closed form (test_reference_error_is_its_own)")
def test_against_reference(compiled):
    ref = msl_1d.load("translational", "Oscillator")
    sol = compiled.simulate(1.0, t_eval=msl_1d.output_times(ref), rtol=RTOL, atol=ATOL)
    msl_1d.compare(sol, ref, SIGNALS)
