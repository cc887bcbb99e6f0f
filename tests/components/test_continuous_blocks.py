"""The blocks of MSL ``Modelica.Blocks.Continuous`` and ``Blocks.Nonlinear.Limiter`` in
``acausal.components.blocks`` against independent references:

* step responses in closed form: Integrator, FirstOrder, SecondOrder (underdamped), Derivative,
  CriticalDamping (n first-order lags in series), PI, PID (with and without the D part);
* LimPID (PI, anti-windup): an open-loop run through three analytic pieces: held at yMax while
  the integrator relaxes to the bounded value the anti-windup feedback gives it, leaving the
  limit at once when the set point drops, held at yMin after a computed crossing time;
* Limiter: a sine clipped at +-uMax;
* Filter (CriticalDamping, Bessel, Butterworth, ChebyshevI; low and high pass) and the
  CriticalDamping block, linearised: gain at zero/infinite frequency, amplitude at the cut-off
  (MSL's -3 dB = 10^(-3/20) when normalised; 1/sqrt(2) for Butterworth and the CriticalDamping
  block), the Butterworth amplitude curve, and the poles of the unnormalised prototypes against
  scipy.signal (besselap with delay normalisation, cheb1ap) and textbook Butterworth poles;
* initialisation options and definition errors.

Solver tolerances rtol=1e-10, atol=1e-12; simulated values are compared at 1e-7, linearised ones
at 1e-9 (exact Jacobians).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.signal

from acausal import Component, Eq, Input, ParameterError, compile, connect
from acausal.components import event_sources
from acausal.components.blocks import (
    PI,
    PID,
    Constant,
    CriticalDamping,
    Derivative,
    Filter,
    FirstOrder,
    Integrator,
    Limiter,
    LimPID,
    Ramp,
    SecondOrder,
    Sine,
)

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
TOL = 1e-7
T = np.linspace(0.0, 3.0, 61)
MINUS_3DB = 10.0 ** (-3.0 / 20.0)


# --------------------------------------------------------------------------------------------
# Step responses (one model, one compilation)
# --------------------------------------------------------------------------------------------


class StepBank(Component):
    c_int = Constant(k=2.0)
    integrator = Integrator(k=3.0, y_start=0.5)
    c_fo = Constant(k=1.0)
    first = FirstOrder(k=2.0, T=0.5, init_type="initial_state", y_start=1.0)
    c_so = Constant(k=1.0)
    second = SecondOrder(k=1.5, w=4.0, D=0.3)
    c_cd = Constant(k=1.0)
    crit = CriticalDamping(n=3, f=0.5)
    c_der = Constant(k=2.0)
    derivative = Derivative(k=0.7, T=0.2, x_start=0.5)
    c_pi = Constant(k=0.8)
    pi = PI(k=2.0, T=0.4, init_type="initial_state", x_start=0.1)
    pi_out = PI(k=2.0, T=0.4, init_type="initial_output", y_start=3.0)
    c_pid = Constant(k=1.2)
    pid = PID(k=1.5, Ti=0.8, Td=0.5, Nd=5.0, xi_start=0.3)
    pid_no_d = PID(k=1.5, Ti=0.8, Td=0.0)
    pid_steady = PID(k=1.5, Ti=0.8, Td=0.5, Nd=5.0, init_type="steady_state")
    c_zero = Constant(k=0.0)

    def connections(self):
        return [connect(self.c_int.y, self.integrator.u), connect(self.c_fo.y, self.first.u),
                connect(self.c_so.y, self.second.u), connect(self.c_cd.y, self.crit.u),
                connect(self.c_der.y, self.derivative.u), connect(self.c_pi.y, self.pi.u),
                connect(self.c_pi.y, self.pi_out.u), connect(self.c_pid.y, self.pid.u),
                connect(self.c_pid.y, self.pid_no_d.u), connect(self.c_zero.y, self.pid_steady.u)]


@pytest.fixture(scope="module")
def steps():
    return compile(StepBank()).simulate(3.0, t_eval=T, **TIGHT)


def test_integrator(steps):
    np.testing.assert_allclose(steps["integrator.y.u"], 0.5 + 3.0 * 2.0 * T, atol=TOL)


def test_first_order_initial_state(steps):
    np.testing.assert_allclose(steps["first.y.u"], 2.0 - np.exp(-T / 0.5), atol=TOL)


def test_second_order_underdamped(steps):
    k, w, d = 1.5, 4.0, 0.3
    wd = w * math.sqrt(1 - d * d)
    y = k * (1 - np.exp(-d * w * T) * (np.cos(wd * T) + d / math.sqrt(1 - d * d)
                                       * np.sin(wd * T)))
    np.testing.assert_allclose(steps["second.y.u"], y, atol=TOL)
    yd = k * w / math.sqrt(1 - d * d) * np.exp(-d * w * T) * np.sin(wd * T)  # dy/dt
    np.testing.assert_allclose(steps["second.yd"], yd, atol=TOL)


def test_critical_damping_step(steps):
    alpha = math.sqrt(2 ** (1 / 3) - 1)
    w = 2 * math.pi * 0.5 / alpha
    e = np.exp(-w * T)
    np.testing.assert_allclose(steps["crit.x[0]"], 1 - e, atol=TOL)
    np.testing.assert_allclose(steps["crit.x[1]"], 1 - e * (1 + w * T), atol=TOL)
    np.testing.assert_allclose(steps["crit.y.u"], 1 - e * (1 + w * T + (w * T) ** 2 / 2),
                               atol=TOL)


def test_derivative_starts_at_x_start(steps):
    # init_type="none": x starts at x_start = 0.5 and relaxes to u = 2
    x = 2.0 + (0.5 - 2.0) * np.exp(-T / 0.2)
    np.testing.assert_allclose(steps["derivative.x"], x, atol=TOL)
    np.testing.assert_allclose(steps["derivative.y.u"], 0.7 / 0.2 * (2.0 - x), atol=TOL)


def test_pi(steps):
    np.testing.assert_allclose(steps["pi.y.u"], 2.0 * (0.1 + 0.8 * T / 0.4 + 0.8), atol=TOL)
    # initial output 3 = k*(x0 + u) -> x0 = 3/2 - 0.8
    np.testing.assert_allclose(steps["pi_out.y.u"], 2.0 * (0.7 + 0.8 * T / 0.4 + 0.8), atol=TOL)


def test_pid(steps):
    k, ti, nd, c = 1.5, 0.8, 5.0, 1.2
    t_d = 0.5 / nd
    xi = 0.3 + c * T / ti
    np.testing.assert_allclose(steps["pid.xi"], xi, atol=TOL)
    np.testing.assert_allclose(steps["pid.xd"], c * (1 - np.exp(-T / t_d)), atol=TOL)
    np.testing.assert_allclose(steps["pid.y.u"], k * (c + xi + nd * c * np.exp(-T / t_d)),
                               atol=TOL)
    # Td = 0: MSL's zeroGain derivative part contributes nothing
    np.testing.assert_allclose(steps["pid_no_d.y.u"], k * (c + c * T / ti), atol=TOL)
    # steady state with u = 0: everything stays at rest
    np.testing.assert_allclose(steps["pid_steady.y.u"], 0.0, atol=TOL)


# --------------------------------------------------------------------------------------------
# LimPID: limiter and anti-windup
# --------------------------------------------------------------------------------------------


class OpenLoopLimPID(Component):
    # set point 1 until t = 2, then -0.5 (a time event); measurement 0
    setpoint = event_sources.Step(height=-1.5, offset=1.0, start_time=2.0)
    measurement = Constant(k=0.0)
    pid = LimPID(controllerType="PI", k=2.0, Ti=0.5, Ni=0.9, yMax=1.5)

    def connections(self):
        return [connect(self.setpoint.y, self.pid.u_s),
                connect(self.measurement.y, self.pid.u_m)]


def test_limpid_anti_windup_pieces():
    k, ti, ni, y_max = 2.0, 0.5, 0.9, 1.5
    lam = 1 / (ni * ti)

    def saturated_rest(u_s, limit):  # der(xi) = 0 with y = limit, wp = 1, u_m = 0
        return u_s * (ni - 1.0) + limit / k

    t = np.linspace(0.0, 5.0, 101)
    sol = compile(OpenLoopLimPID()).simulate(5.0, t_eval=t, **TIGHT)
    # piece 1 (t < 2): y held at yMax; xi relaxes to a bounded value (no wind-up)
    rest1 = saturated_rest(1.0, y_max)
    xi2 = rest1 * (1 - math.exp(-lam * 2.0))
    # piece 2: unsaturated at once (y(2+) = k*(-0.5 + xi2) = 0.285); der(xi) = u_s/Ti = -1
    t3 = 2.0 + (xi2 - (-y_max / k + 0.5))  # y reaches yMin = -1.5 when xi = -0.25
    # piece 3: held at yMin
    rest3 = saturated_rest(-0.5, -y_max)
    xi = np.where(t < 2.0, rest1 * (1 - np.exp(-lam * t)),
                  np.where(t < t3, xi2 - (t - 2.0),
                           rest3 + (-0.25 - rest3) * np.exp(-lam * (t - t3))))
    y = np.where(t < 2.0, y_max, np.where(t < t3, k * (-0.5 + xi), -y_max))
    np.testing.assert_allclose(sol["pid.xi"], xi, atol=TOL)
    np.testing.assert_allclose(sol["pid.y.u"], y, atol=TOL)
    np.testing.assert_allclose(sol["pid.y_unlimited"],
                               k * (np.where(t < 2.0, 1.0, -0.5) + xi), atol=TOL)
    assert 0.6 < xi2 < 0.65 and 2.85 < t3 < 2.95  # the pieces are where the design puts them
    assert np.all(sol["pid.y.u"][t < 2.0] == pytest.approx(y_max, abs=1e-12))


# --------------------------------------------------------------------------------------------
# Limiter
# --------------------------------------------------------------------------------------------


class ClippedSine(Component):
    sine = Sine(amplitude=2.0, f=0.5)
    limiter = Limiter(uMax=1.0)  # uMin = -uMax; no state in the model: its events still run

    def connections(self):
        return [connect(self.sine.y, self.limiter.u)]


def test_limiter_clips_symmetrically():
    sol = compile(ClippedSine()).simulate(3.0, t_eval=T, **TIGHT)
    np.testing.assert_allclose(sol["limiter.y.u"], np.clip(2 * np.sin(np.pi * T), -1, 1),
                               atol=1e-12)
    assert sol["limiter.uMin"][0] == -1.0
    assert len(sol.events) == 6  # entering and leaving each limit: 1/6, 5/6, 7/6, ... s


# --------------------------------------------------------------------------------------------
# Filters, linearised
# --------------------------------------------------------------------------------------------

F_CUT, GAIN = 2.0, 1.7
W_CUT = 2 * math.pi * F_CUT


def _specs():
    out = {}
    for analog in ("CriticalDamping", "Bessel", "Butterworth", "ChebyshevI"):
        for kind in ("LowPass", "HighPass"):
            for order in (3, 4):
                out[f"{analog}_{kind}_{order}"] = dict(analogFilter=analog, filterType=kind,
                                                       order=order, f_cut=F_CUT, gain=GAIN)
    for analog in ("CriticalDamping", "Bessel", "ChebyshevI"):
        out[f"raw_{analog}"] = dict(analogFilter=analog, order=5, f_cut=F_CUT,
                                    normalized=False)
    return out


SPECS = _specs()


class FilterBank(Component):
    u = Input(0.0)

    def __init__(self, **overrides):
        super().__init__(**overrides)
        for name, spec in SPECS.items():
            setattr(self, name, Filter(**spec))
        self.crit_block = CriticalDamping(n=4, f=F_CUT, init_type="steady_state")

    def equations(self):
        return [Eq(getattr(self, name).u.u, self.u) for name in [*SPECS, "crit_block"]]


@pytest.fixture(scope="module")
def bank():
    names = [*SPECS, "crit_block"]
    lin = compile(FilterBank()).linearize(0.0, None, inputs=["u"],
                                          outputs=[f"{n}.y.u" for n in names])

    def response(name, w):
        k = names.index(name)
        n = lin.A.shape[0]
        h = lin.C[k] @ np.linalg.solve(1j * w * np.eye(n) - lin.A, lin.B[:, 0]) + lin.D[k, 0]
        return complex(h)

    def poles(name):
        idx = [i for i, s in enumerate(lin.state_names) if s.startswith(name + ".")]
        return np.linalg.eigvals(lin.A[np.ix_(idx, idx)])

    return response, poles


def _same_poles(actual, expected):
    key = lambda p: (round(p.real, 6), round(p.imag, 6))  # noqa: E731
    np.testing.assert_allclose(sorted(actual, key=key), sorted(expected, key=key),
                               rtol=1e-9, atol=1e-9 * abs(W_CUT))


@pytest.mark.parametrize("name", [n for n in SPECS if not n.startswith("raw_")])
def test_filter_gain_and_cutoff(bank, name):
    response, _ = bank
    butterworth = name.startswith("Butterworth")
    if name.split("_")[1] == "LowPass":
        assert response(name, 0.0) == pytest.approx(GAIN, rel=1e-9)
        assert abs(response(name, 1e4 * W_CUT)) < 1e-6 * GAIN
    else:
        assert abs(response(name, 0.0)) < 1e-9
        assert abs(response(name, 1e6 * W_CUT)) == pytest.approx(GAIN, rel=1e-9)
    target = GAIN / math.sqrt(2) if butterworth else GAIN * MINUS_3DB
    assert abs(response(name, W_CUT)) == pytest.approx(target, rel=1e-9)


def test_butterworth_amplitude_and_poles(bank):
    response, poles = bank
    for w in (0.3 * W_CUT, 1.7 * W_CUT):
        for n in (3, 4):
            lp = 1 / math.sqrt(1 + (w / W_CUT) ** (2 * n))
            hp = 1 / math.sqrt(1 + (W_CUT / w) ** (2 * n))
            assert abs(response(f"Butterworth_LowPass_{n}", w)) == pytest.approx(GAIN * lp,
                                                                                rel=1e-9)
            assert abs(response(f"Butterworth_HighPass_{n}", w)) == pytest.approx(GAIN * hp,
                                                                                 rel=1e-9)
    for n in (3, 4):
        expected = W_CUT * np.exp(1j * math.pi * (2 * np.arange(n) + n + 1) / (2 * n))
        _same_poles(poles(f"Butterworth_LowPass_{n}"), expected)


def test_unnormalized_prototypes_against_scipy(bank):
    response, poles = bank
    _, p_bessel, _ = scipy.signal.besselap(5, norm="delay")
    _same_poles(poles("raw_Bessel"), W_CUT * p_bessel)
    _, p_cheby, _ = scipy.signal.cheb1ap(5, 0.5)
    _same_poles(poles("raw_ChebyshevI"), W_CUT * p_cheby)
    _same_poles(poles("raw_CriticalDamping"), [-W_CUT] * 5)
    # Bessel: group delay 1/w_cut at zero frequency; -dH/ds / H at s = 0 (small s)
    h = response("raw_Bessel", 1e-4 * W_CUT)
    assert -np.angle(h) / (1e-4 * W_CUT) == pytest.approx(1 / W_CUT, rel=1e-7)


def test_normalized_critical_damping_poles(bank):
    _, poles = bank
    for n in (3, 4):
        alpha = math.sqrt(10 ** (3 / (10 * n)) - 1)
        _same_poles(poles(f"CriticalDamping_LowPass_{n}"), [-W_CUT / alpha] * n)


def test_critical_damping_block_cutoff(bank):
    response, poles = bank
    assert response("crit_block", 0.0) == pytest.approx(1.0, rel=1e-12)
    assert abs(response("crit_block", W_CUT)) == pytest.approx(1 / math.sqrt(2), rel=1e-9)
    _same_poles(poles("crit_block"), [-W_CUT / math.sqrt(2 ** 0.25 - 1)] * 4)


# --------------------------------------------------------------------------------------------
# Initialisation and errors
# --------------------------------------------------------------------------------------------


class FilterFromSteadyInput(Component):
    source = Constant(k=0.4)
    lp = Filter(analogFilter="Bessel", order=3, f_cut=5.0, gain=2.0, u_nominal=0.5)
    hp = Filter(analogFilter="ChebyshevI", filterType="HighPass", order=4, f_cut=5.0)
    out = Filter(analogFilter="Butterworth", order=2, f_cut=5.0, init_type="initial_output",
                 y_start=0.4)
    crit = CriticalDamping(n=2, f=1.0, init_type="initial_state", x_start=[0.2, 0.1])

    def connections(self):
        return [connect(self.source.y, c.u) for c in (self.lp, self.hp, self.out, self.crit)]


def test_filter_initialisation():
    sol = compile(FilterFromSteadyInput()).simulate(1.0, t_eval=[0.0, 0.5, 1.0], **TIGHT)
    np.testing.assert_allclose(sol["lp.y.u"], 0.8, atol=TOL)  # steady state: gain*u
    np.testing.assert_allclose(sol["hp.y.u"], 0.0, atol=TOL)  # steady state of a high pass
    np.testing.assert_allclose(sol["out.y.u"], 0.4, atol=TOL)  # y_start = u: at rest
    assert sol["crit.x[0]"][0] == pytest.approx(0.2, abs=1e-12)
    assert sol["crit.x[1]"][0] == pytest.approx(0.1, abs=1e-12)


@pytest.mark.parametrize("make", [
    lambda: Filter(filterType="BandPass"),
    lambda: Filter(analogFilter="Chebyshev"),
    lambda: LimPID(controllerType="PIDD"),
    lambda: Limiter(uMax=1.0, uMin=2.0),
    lambda: CriticalDamping(n=2, x_start=[0.0, 0.0, 0.0]),
])
def test_definition_errors(make):
    with pytest.raises(ParameterError):
        make()


def test_bad_init_type_is_named():
    class Bad(Component):
        src = Constant(k=1.0)
        pi = PI(init_type="steady")

        def connections(self):
            return [connect(self.src.y, self.pi.u)]

    with pytest.raises(ParameterError, match="init_type"):
        compile(Bad())


class LimPIDOptions(Component):
    u_s = Constant(k=0.3)
    u_m = Constant(k=0.1)
    u_ff = Ramp(height=1.0, duration=2.0)
    p_ff = LimPID(controllerType="P", k=2.0, kFF=0.4, with_feed_forward=True, yMax=5.0)
    pid = LimPID(controllerType="PID", k=1.0, Ti=1.0, Td=0.2, Nd=4.0, wd=0.5, yMax=10.0,
                 init_type="initial_output", y_start=0.5)
    def connections(self):
        return [connect(self.u_s.y, self.p_ff.u_s), connect(self.u_m.y, self.p_ff.u_m),
                connect(self.u_ff.y, self.p_ff.u_ff), connect(self.u_s.y, self.pid.u_s),
                connect(self.u_m.y, self.pid.u_m)]


def test_limpid_feed_forward_and_initial_output():
    sol = compile(LimPIDOptions()).simulate(2.0, t_eval=T[:41], **TIGHT)
    t = T[:41]
    np.testing.assert_allclose(sol["p_ff.y.u"], 2.0 * (0.3 - 0.1) + 0.4 * t / 2, atol=TOL)
    # D part starts at rest (xd = wd*u_s - u_m), so y_start = k*(yP + xi0) -> xi0 = 0.3;
    # unsaturated, the integrator sees the bare control error 0.2
    np.testing.assert_allclose(sol["pid.xd"], 0.5 * 0.3 - 0.1, atol=TOL)
    np.testing.assert_allclose(sol["pid.y.u"], 0.2 + 0.3 + 0.2 * t, atol=TOL)
    np.testing.assert_allclose(sol["pid.controlError"], 0.2, atol=TOL)
