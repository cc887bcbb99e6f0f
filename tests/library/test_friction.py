"""Friction laws of ``acausal.library.friction`` (and the helpers in ``acausal.library.smooth``).

Every expected value is computed independently of the library: hand calculations with ``math``
written out in the test, the value table of ``shared/docs/planar_mechanics.md`` section 3, or
closed-form solutions. Exact (rational) arithmetic is used where a property must hold exactly
(oddness, continuity, zero slope at the breakpoints).
"""

from __future__ import annotations

import math

import casadi as ca
import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, der
from acausal.compiler.codegen import Translator, translate
from acausal.library import friction as fr
from acausal.library import smooth

v, x, z, N = sp.symbols("v x z N", real=True)
R = sp.Rational


def casadi_eval(expr, values: dict):
    """Translate ``expr`` with acausal's code generator and evaluate it at ``values``."""
    syms = list(values)
    sx = [ca.SX.sym(str(s)) for s in syms]
    out = Translator(dict(zip(syms, sx)))(expr)
    return float(ca.Function("f", sx, [out])(*values.values()))


def sympy_eval(expr, values: dict) -> float:
    return float(sp.sympify(expr).subs(values).evalf(30))


# ---------------------------------------------------------------------------------------------
# limit_S_form / limit_S_triple: section-3 table
# ---------------------------------------------------------------------------------------------

TABLE = [
    (fr.limit_S_triple, (0.2, 0.5, 1.4, 1.2), [
        (-1, -1.2), (-0.5, -1.2), (-0.35, -1.3), (-0.2, -1.4), (-0.1, -0.9625), (0, 0),
        (0.05, 0.5140625), (0.1, 0.9625), (0.2, 1.4), (0.3, 1.348148148), (0.35, 1.3),
        (0.5, 1.2), (1, 1.2)]),
    (fr.limit_S_form, (-0.4, 0.6, 1.2, 1.4), [
        (-1, 1.2), (-0.4, 1.2), (-0.15, 1.23125), (0.1, 1.3), (0.35, 1.36875), (0.6, 1.4),
        (1, 1.4)]),
    (fr.limit_S_triple, (0.05, 0.15, 0.8, 0.4), [
        (1e-4, 0.0023999968), (0.01, 0.2368), (0.025, 0.55), (0.05, 0.8), (0.1, 0.6),
        (0.15, 0.4), (1, 0.4)]),
]
TABLE_CASES = [(f, p, xv, yv) for f, p, rows in TABLE for xv, yv in rows]


@pytest.mark.parametrize("func, params, xv, expected", TABLE_CASES)
def test_limit_S_table_sympy_and_casadi(func, params, xv, expected):
    expr = func(*params, x)
    # the table is printed with at most 10 significant digits
    assert sympy_eval(expr, {x: xv}) == pytest.approx(expected, abs=1e-9)
    assert casadi_eval(expr, {x: xv}) == pytest.approx(expected, abs=1e-9)
    # numbers in, number out
    assert float(func(*params, xv)) == pytest.approx(expected, abs=1e-9)


def test_limit_S_form_hand_calculation():
    # x_min=-0.4, x_max=0.6 -> u = 2x - 0.2; x = 0.35 -> u = 0.5, s = -0.0625 + 0.75 = 0.6875,
    # y = 0.6875*0.1 + 1.3 = 1.36875 (also in the table); x = 0.5 -> u = 0.8,
    # s = -0.256 + 1.2 = 0.944, y = 1.3944
    assert float(fr.limit_S_form(-0.4, 0.6, 1.2, 1.4, 0.5)) == pytest.approx(1.3944, abs=1e-14)
    # mirrored: x_min > x_max flips the curve (used by the negative branch of limit_S_triple)
    assert float(fr.limit_S_form(0.6, -0.4, 1.2, 1.4, 0.5)) == pytest.approx(
        2.6 - 1.3944, abs=1e-14)


# exact parameters for the structural checks
XM, XS, YM, YS = R(1, 5), R(1, 2), R(7, 5), R(6, 5)


def triple_exact():
    return fr.limit_S_triple(XM, XS, YM, YS, x)


def test_limit_S_triple_is_odd_exactly():
    e = triple_exact()
    points = [R(k, 40) for k in range(0, 41)] + [XM, XS, R(1, 3), R(7, 3), R(1, 10**6)]
    for q in points:
        assert sp.nsimplify(e.subs(x, -q) + e.subs(x, q)) == 0, q
    # and symbolically: piecewise_fold gives one flat Piecewise whose odd part simplifies to 0
    odd_part = sp.piecewise_fold(e + e.subs(x, -x))
    for q in [R(-3, 4), R(-1, 7), R(1, 9), R(3, 10)]:
        assert odd_part.subs(x, q) == 0


def test_limit_S_triple_shape():
    e = triple_exact()
    assert e.subs(x, 0) == 0
    assert e.subs(x, XM) == YM and e.subs(x, -XM) == -YM
    for q in [XS, R(3, 4), 2, 100]:
        assert e.subs(x, q) == YS and e.subs(x, -q) == -YS
    # slope at 0: 1.5*y_max/x_max
    assert sp.diff(e, x).subs(x, 0) == R(3, 2) * YM / XM


H = R(1, 10**12)


# One-sided second derivatives by hand. Middle piece: y = (7/5) s(5x), so y'' = -(7/5)*3u*25
# = -105 u. Outer piece (x > 1/5): u = 20x/3 - 7/3, y = -s(u)/10 + 13/10, so
# y'' = (3u/10)*(20/3)^2 = 40u/3 (u = -1 at x = 1/5, u = 1 at x = 1/2). Beyond x_sat: 0.
D2_SIDES = {XM: (R(-105), R(-40, 3)), XS: (R(40, 3), 0)}


@pytest.mark.parametrize("b", [XM, XS, -XM, -XS])
def test_limit_S_triple_C1_at_breakpoints(b):
    """Continuity and C1 from both sides (exact rationals); the second derivative jumps.

    Near a breakpoint b with y'(b) = 0: |y(b +- h) - y(b)| <= max|y''| h^2 / 2 and
    |y'(b +- h)| <= max|y''| h, with max|y''| = 105 for these parameters (see D2_SIDES).
    """
    e = triple_exact()
    d1 = sp.diff(e, x)
    d2 = sp.diff(e, x, 2)
    value = e.subs(x, b)
    for side in (-H, H):
        assert abs(e.subs(x, b + side) - value) <= 105 * H**2 / 2
        assert abs(d1.subs(x, b + side)) <= 105 * H
    assert d1.subs(x, b) == 0
    left, right = D2_SIDES[abs(b)]
    if b < 0:  # odd function: y'' is odd too, and the sides swap
        left, right = -right, -left
    assert abs(d2.subs(x, b - H) - left) <= R(1, 10**9)
    assert abs(d2.subs(x, b + H) - right) <= R(1, 10**9)


@pytest.mark.parametrize("b", [R(-2, 5), R(3, 5)])
def test_limit_S_form_C1_at_breakpoints(b):
    e = fr.limit_S_form(R(-2, 5), R(3, 5), R(6, 5), R(7, 5), x)
    d1 = sp.diff(e, x)
    # y = s(u)/10 + 13/10 with u = 2x - 1/5: |y''| = |(-3u)(2^2)/10| <= 6/5 near u = +-1
    for side in (-H, H):
        assert abs(e.subs(x, b + side) - e.subs(x, b)) <= R(6, 5) * H**2 / 2
        assert abs(d1.subs(x, b + side)) <= R(6, 5) * H


def test_limit_S_derivatives_match_finite_differences_and_casadi():
    e = fr.limit_S_triple(0.2, 0.5, 1.4, 1.2, x)
    d = sp.diff(e, x)
    h = 1e-6
    for xv in [-0.7, -0.4, -0.3, -0.15, -0.05, 0.03, 0.12, 0.25, 0.33, 0.45, 0.8]:
        fd = (sympy_eval(e, {x: xv + h}) - sympy_eval(e, {x: xv - h})) / (2 * h)
        assert sympy_eval(d, {x: xv}) == pytest.approx(fd, abs=1e-8)
        assert casadi_eval(d, {x: xv}) == pytest.approx(sympy_eval(d, {x: xv}), abs=1e-12)


def test_limit_S_triple_symbolic_parameters_translate():
    xm, xs, ym, ys = sp.symbols("xm xs ym ys", positive=True)
    e = fr.limit_S_triple(xm, xs, ym, ys, x)
    for xv in [-0.7, -0.3, -0.1, 0.0, 0.05, 0.3, 0.7]:
        vals = {xm: 0.2, xs: 0.5, ym: 1.4, ys: 1.2, x: xv}
        expected = float(fr.limit_S_triple(0.2, 0.5, 1.4, 1.2, xv))
        assert casadi_eval(e, vals) == pytest.approx(expected, abs=1e-13)
        assert sympy_eval(e, vals) == pytest.approx(expected, abs=1e-13)


# ---------------------------------------------------------------------------------------------
# Coulomb
# ---------------------------------------------------------------------------------------------

def test_coulomb_plain():
    e = fr.coulomb(v, 3.0)
    assert sympy_eval(e, {v: 0.2}) == 3.0
    assert sympy_eval(e, {v: -1e-9}) == -3.0
    assert sympy_eval(e, {v: 0}) == 0.0
    assert casadi_eval(e, {v: -2.0}) == -3.0 and casadi_eval(e, {v: 0.0}) == 0.0


@pytest.mark.parametrize("vv, expected", [
    (-1.0, -3.0), (-0.01, -3.0), (-0.004, -1.2), (0.0, 0.0), (0.0025, 0.75), (0.01, 3.0),
    (0.5, 3.0)])
def test_coulomb_linear(vv, expected):
    e = fr.coulomb(v, 3.0, regularization="linear", v_reg=0.01)  # slope 300 N s/m in the zone
    assert sympy_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-14)
    assert casadi_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-14)


@pytest.mark.parametrize("vv", [-0.5, -0.01, -1e-3, 0.0, 2e-4, 3e-3, 0.05])
def test_coulomb_tanh(vv):
    e = fr.coulomb(v, 3.0, regularization="tanh", v_reg=2e-3)
    expected = 3.0 * math.tanh(vv / 2e-3)
    assert sympy_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-14)
    assert casadi_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-14)
    d = sp.diff(e, v)
    assert sympy_eval(d, {v: vv}) == pytest.approx(3.0 / 2e-3 / math.cosh(vv / 2e-3) ** 2,
                                                    rel=1e-12)


def test_coulomb_limits_and_errors():
    fc, vr = sp.symbols("f_c v_r", positive=True)
    assert sp.limit(fr.coulomb(v, fc, "tanh", vr), v, sp.oo) == fc
    assert sp.limit(fr.coulomb(v, fc, "tanh", vr), v, -sp.oo) == -fc
    with pytest.raises(ValueError, match="regularization"):
        fr.coulomb(v, 1.0, regularization="atan")


# ---------------------------------------------------------------------------------------------
# Exudyn regularised Stribeck (friction_models.md 2.2)
# ---------------------------------------------------------------------------------------------

EXU = dict(fDynamicFriction=2.0, fStaticFrictionOffset=1.5, exponentialDecayStatic=0.05,
           fViscousFriction=4.0, frictionProportionalZone=0.01)


def exudyn_hand(vv, fD, fSO, v_exp, fV, v_reg):
    """Independent transcription of ExuPhysics::StribeckFunction (if/else, math module)."""
    if abs(vv) <= v_reg and v_reg != 0:
        return (fD + fSO) * vv / v_reg
    w = abs(vv) - v_reg
    e = 1.0 if v_exp == 0 else math.exp(-w / v_exp)
    sgn = (vv > 0) - (vv < 0)
    return sgn * (fD + fSO * e + fV * w)


@pytest.mark.parametrize("vv", [-1.0, -0.1, -0.01, -0.004, 0.0, 0.001, 0.0099, 0.01, 0.0101,
                                0.03, 0.2, 3.0])
@pytest.mark.parametrize("v_exp, v_reg", [(0.05, 0.01), (0.0, 0.01), (0.05, 0.0)])
def test_stribeck_exudyn_values(vv, v_exp, v_reg):
    kw = dict(EXU, exponentialDecayStatic=v_exp, frictionProportionalZone=v_reg)
    e = fr.stribeck_exudyn(v, **kw)
    expected = exudyn_hand(vv, 2.0, 1.5, v_exp, 4.0, v_reg)
    assert sympy_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-13)
    assert casadi_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-13)


def test_stribeck_exudyn_spot_values_by_hand():
    # v = 0.03: w = 0.02, S = 2 + 1.5 exp(-0.4) + 4*0.02 = 2.08 + 1.005480064...
    e = fr.stribeck_exudyn(v, **EXU)
    assert sympy_eval(e, {v: 0.03}) == pytest.approx(2.08 + 1.5 * 0.6703200460356393, abs=1e-14)
    # in the zone: (2 + 1.5) * 0.004/0.01 = 1.4
    assert sympy_eval(e, {v: -0.004}) == pytest.approx(-1.4, abs=1e-14)
    # continuous at |v| = v_reg: both branches give fD + fSO = 3.5
    for s in (-1, 1):
        assert sympy_eval(e, {v: s * (0.01 + 1e-13)}) == pytest.approx(s * 3.5, abs=1e-9)


def test_stribeck_exudyn_symbolic_parameters_match_numeric():
    fD, fSO, ve, fV, vr = sp.symbols("fD fSO v_exp fV v_reg", nonnegative=True)
    e = fr.stribeck_exudyn(v, fDynamicFriction=fD, fStaticFrictionOffset=fSO,
                           exponentialDecayStatic=ve, fViscousFriction=fV,
                           frictionProportionalZone=vr)
    for v_exp, v_reg in [(0.05, 0.01), (0.0, 0.01), (0.05, 0.0), (0.0, 0.0)]:
        for vv in [-0.3, -0.01, -0.002, 0.0, 0.005, 0.01, 0.05, 1.0]:
            vals = {fD: 2.0, fSO: 1.5, ve: v_exp, fV: 4.0, vr: v_reg, v: vv}
            expected = exudyn_hand(vv, 2.0, 1.5, v_exp, 4.0, v_reg)
            assert sympy_eval(e, vals) == pytest.approx(expected, abs=1e-13)
            assert casadi_eval(e, vals) == pytest.approx(expected, abs=1e-13)


def test_stribeck_exudyn_large_zone_does_not_overflow():
    # v_reg / v_exp = 1000: exp(v_reg/v_exp) would overflow if split off as a factor
    kw = dict(EXU, exponentialDecayStatic=1e-3, frictionProportionalZone=1.0)
    e = fr.stribeck_exudyn(v, **kw)
    for vv in [1.0005, 1.5, -2.0]:
        expected = exudyn_hand(vv, 2.0, 1.5, 1e-3, 4.0, 1.0)
        assert casadi_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-12)
        assert casadi_eval(sp.diff(e, v), {v: vv}) == pytest.approx(
            4.0 - 1.5 / 1e-3 * math.exp(-(abs(vv) - 1.0) / 1e-3), rel=1e-12)


def test_stribeck_exudyn_limits_and_derivative():
    fD, fSO, ve, fV, vr = sp.symbols("fD fSO v_exp fV v_reg", positive=True)
    e = fr.stribeck_exudyn(v, fDynamicFriction=fD, fStaticFrictionOffset=fSO,
                           exponentialDecayStatic=ve, fViscousFriction=fV,
                           frictionProportionalZone=vr)
    sliding = e.args[-1][0]  # the "otherwise" branch
    # there w = |v| - v_reg >= 0, so the library's max(w, 0) in the exponent is w itself
    # (sympy's limit() cannot expand Max in a series)
    sliding = sliding.replace(lambda a: isinstance(a, sp.Max),
                              lambda a: sp.Add(*[b for b in a.args if b != 0]))
    assert sp.simplify(sp.limit(sliding - fV * (v - vr), v, sp.oo)) == fD
    assert sp.simplify(sp.limit(sliding - fV * (v + vr), v, -sp.oo)) == -fD
    num = fr.stribeck_exudyn(v, **EXU)
    d = sp.diff(num, v)
    h = 1e-7
    for vv in [-0.5, -0.02, -0.005, 0.003, 0.012, 0.04, 0.7]:
        fd = (sympy_eval(num, {v: vv + h}) - sympy_eval(num, {v: vv - h})) / (2 * h)
        assert sympy_eval(d, {v: vv}) == pytest.approx(fd, rel=1e-7)
        assert casadi_eval(d, {v: vv}) == pytest.approx(sympy_eval(d, {v: vv}), rel=1e-12)
    # inside the zone the slope is (fD + fSO)/v_reg = 350
    assert sympy_eval(d, {v: 0.001}) == pytest.approx(350.0, rel=1e-14)


# ---------------------------------------------------------------------------------------------
# Simscape-style Stribeck
# ---------------------------------------------------------------------------------------------

def simscape_hand(vv, F_brk, F_C, f, v_brk):
    v_st = v_brk * math.sqrt(2.0)
    v_coul = v_brk / 10.0
    return (math.sqrt(2.0 * math.e) * (F_brk - F_C) * math.exp(-(vv / v_st) ** 2) * vv / v_st
            + F_C * math.tanh(vv / v_coul) + f * vv)


@pytest.mark.parametrize("vv", [-2.0, -0.1, -0.02, -1e-3, 0.0, 5e-4, 0.01, 0.1, 0.5, 10.0])
def test_stribeck_simscape_values(vv):
    e = fr.stribeck_simscape(v, 25.0, 20.0, 0.7, 0.1)
    expected = simscape_hand(vv, 25.0, 20.0, 0.7, 0.1)
    assert sympy_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-12)
    assert casadi_eval(e, {v: vv}) == pytest.approx(expected, abs=1e-12)
    # explicit thresholds give the same curve
    e2 = fr.stribeck_simscape(v, 25.0, 20.0, 0.7, v_st=0.1 * math.sqrt(2), v_coul=0.01)
    assert sympy_eval(e2, {v: vv}) == pytest.approx(expected, abs=1e-12)


def test_stribeck_simscape_properties():
    Fb, Fc, f, vb = sp.symbols("F_brk F_C f v_brk", positive=True)
    e = fr.stribeck_simscape(v, Fb, Fc, f, vb)
    assert sp.simplify(sp.limit(e - f * v, v, sp.oo)) == Fc
    assert sp.simplify(sp.limit(e - f * v, v, -sp.oo)) == -Fc
    assert sp.simplify(e + e.subs(v, -v)) == 0  # odd
    # the Stribeck term alone peaks at v = v_brk with height F_brk - F_C
    stribeck = e - Fc * sp.tanh(10 * v / vb) - f * v
    assert sp.simplify(sp.diff(stribeck, v).subs(v, vb)) == 0
    assert sp.simplify(stribeck.subs(v, vb)) == Fb - Fc
    # total at v_brk: F_brk + F_C (tanh(10) - 1) + f v_brk
    num = fr.stribeck_simscape(v, 25.0, 20.0, 0.7, 0.1)
    assert sympy_eval(num, {v: 0.1}) == pytest.approx(
        25.0 + 20.0 * (math.tanh(10.0) - 1.0) + 0.07, abs=1e-12)
    d = sp.diff(num, v)
    h = 1e-7
    for vv in [-0.3, -0.05, 0.002, 0.04, 0.2]:
        fd = (sympy_eval(num, {v: vv + h}) - sympy_eval(num, {v: vv - h})) / (2 * h)
        assert sympy_eval(d, {v: vv}) == pytest.approx(fd, rel=1e-6)
        assert casadi_eval(d, {v: vv}) == pytest.approx(sympy_eval(d, {v: vv}), rel=1e-12)
    with pytest.raises(ValueError, match="v_brk"):
        fr.stribeck_simscape(v, 25.0, 20.0, 0.7, v_st=0.1)


# ---------------------------------------------------------------------------------------------
# LuGre (MotionSolve MV-9003 / Canudas de Wit)
# ---------------------------------------------------------------------------------------------

LG = dict(stiction_trans_vel=1e-3, mu_static=0.4, mu_dynamic=0.25, bristle_stiffness=1e5,
          damping_effects=316.0, viscous_effects=0.4)


def lugre_hand(vv, zz, NN, Vs, mus, mud, k0, k1, k2):
    Fc, Fs = mud * NN, mus * NN
    G = (Fc + (Fs - Fc) * math.exp(-((vv / Vs) ** 2))) / k0
    zdot = vv - abs(vv) * zz / G
    return zdot, k0 * zz + k1 * zdot + k2 * vv


@pytest.mark.parametrize("vv, zz", [(2e-3, 1e-6), (-5e-4, 3e-6), (0.0, -2e-6), (0.1, 9e-6),
                                    (-0.02, -1e-5)])
def test_lugre_values(vv, zz):
    L = fr.lugre(v, z, N, **LG)
    assert L.state == z
    zdot, force = lugre_hand(vv, zz, 50.0, 1e-3, 0.4, 0.25, 1e5, 316.0, 0.4)
    vals = {v: vv, z: zz, N: 50.0}
    assert sympy_eval(L.state_derivative, vals) == pytest.approx(zdot, rel=1e-12, abs=1e-18)
    assert sympy_eval(L.force, vals) == pytest.approx(force, rel=1e-12, abs=1e-12)
    assert casadi_eval(L.state_derivative, vals) == pytest.approx(zdot, rel=1e-12, abs=1e-18)
    assert casadi_eval(L.force, vals) == pytest.approx(force, rel=1e-12, abs=1e-12)
    g = 50.0 * (0.25 + 0.15 * math.exp(-((vv / 1e-3) ** 2)))
    assert sympy_eval(L.g, vals) == pytest.approx(g, rel=1e-14)
    assert sympy_eval(fr.lugre_g(v, N, 0.4, 0.25, 1e-3), vals) == pytest.approx(g, rel=1e-14)


def test_lugre_steady_state():
    Vs, mus, mud, k0, k1, k2 = sp.symbols("V_s mu_s mu_d k0 k1 k2", positive=True)
    L = fr.lugre(v, z, N, stiction_trans_vel=Vs, mu_static=mus, mu_dynamic=mud,
                 bristle_stiffness=k0, damping_effects=k1, viscous_effects=k2)
    g = mud * N + (mus - mud) * N * sp.exp(-(v / Vs) ** 2)
    assert sp.simplify(L.g - g) == 0
    for sgn, vsym in [(1, sp.Symbol("w", positive=True)), (-1, sp.Symbol("w", negative=True))]:
        z_ss = sgn * g.subs(v, vsym) / k0        # z_ss = sign(v) G(v), G = g/k0
        sub = {v: vsym, z: z_ss}
        assert sp.simplify(L.state_derivative.subs(sub)) == 0
        assert sp.simplify(L.force.subs(sub) - (sgn * g.subs(v, vsym) + k2 * vsym)) == 0
    # F_ss(v) -> sign(v) mu_d N + k2 v for |v| >> V_s; -> mu_s N at v -> 0+
    F_ss = g + k2 * v
    assert sp.limit(F_ss - k2 * v, v, sp.oo) == mud * N
    assert sp.limit(F_ss, v, 0, "+") == mus * N


def test_lugre_effect_modes():
    vals_slow = {v: 2e-4, z: 1e-6, N: 50.0}
    vals_fast = {v: 5e-3, z: 1e-6, N: 50.0}
    full = fr.lugre(v, z, N, **LG)
    sliding = fr.lugre(v, z, N, **LG, effect="sliding")
    stiction = fr.lugre(v, z, N, **LG, effect="Stiction")
    # Sliding: no Stribeck hump, g = mu_d N everywhere
    assert sp.simplify(sliding.g - 0.25 * N) == 0
    zdot, force = lugre_hand(2e-4, 1e-6, 50.0, 1e-3, 0.25, 0.25, 1e5, 316.0, 0.4)
    assert sympy_eval(sliding.force, vals_slow) == pytest.approx(force, rel=1e-12)
    # Stiction: same as All below V_s, zero force at and above it; state equation unchanged
    assert sympy_eval(stiction.force, vals_slow) == pytest.approx(
        sympy_eval(full.force, vals_slow), rel=1e-14)
    assert sympy_eval(stiction.force, vals_fast) == 0.0
    assert casadi_eval(stiction.force, vals_fast) == 0.0
    assert casadi_eval(stiction.force, vals_slow) == pytest.approx(
        sympy_eval(full.force, vals_slow), rel=1e-12)
    assert stiction.state_derivative == full.state_derivative
    with pytest.raises(ValueError, match="effect"):
        fr.lugre(v, z, N, **LG, effect="Static")


def test_lugre_defaults_are_motionsolve_values_in_SI():
    L = fr.lugre(v, z, N, stiction_trans_vel=1e-3)
    vals = {v: 3e-4, z: 2e-6, N: 10.0}
    zdot, force = lugre_hand(3e-4, 2e-6, 10.0, 1e-3, 0.3, 0.2, 1e5, 316.0, 0.4)
    assert sympy_eval(L.force, vals) == pytest.approx(force, rel=1e-12)


def test_lugre_derivatives():
    L = fr.lugre(v, z, N, **LG)
    h = 1e-9
    for expr in (L.state_derivative, L.force):
        for var, (vv, zz) in [(v, (7e-4, 2e-6)), (z, (-3e-4, 1e-6))]:
            d = sp.diff(expr, var)
            base = {v: vv, z: zz, N: 50.0}
            up = dict(base)
            dn = dict(base)
            up[var] = base[var] + h
            dn[var] = base[var] - h
            fd = (sympy_eval(expr, up) - sympy_eval(expr, dn)) / (2 * h)
            assert sympy_eval(d, base) == pytest.approx(fd, rel=1e-6)
            assert casadi_eval(d, base) == pytest.approx(sympy_eval(d, base), rel=1e-11)


# ---------------------------------------------------------------------------------------------
# LaTeX and translation of everything at once
# ---------------------------------------------------------------------------------------------

def all_laws():
    L = fr.lugre(v, z, N, stiction_trans_vel=1e-3)
    return {
        "limit_S_form": fr.limit_S_form(-0.4, 0.6, 1.2, 1.4, v),
        "limit_S_triple": fr.limit_S_triple(0.2, 0.5, 1.4, 1.2, v),
        "coulomb": fr.coulomb(v, 2.0),
        "coulomb_linear": fr.coulomb(v, 2.0, "linear", 1e-2),
        "coulomb_tanh": fr.coulomb(v, 2.0, "tanh", 1e-2),
        "stribeck_exudyn": fr.stribeck_exudyn(v, **EXU),
        "stribeck_simscape": fr.stribeck_simscape(v, 25.0, 20.0, 0.7, 0.1),
        "lugre_g": fr.lugre_g(v, N, 0.3, 0.2, 1e-3),
        "lugre_zdot": L.state_derivative,
        "lugre_force": L.force,
    }


@pytest.mark.parametrize("name", list(all_laws()))
def test_latex(name):
    expr = all_laws()[name]
    for text in (fr.to_latex(expr), sp.latex(expr)):
        assert isinstance(text, str) and len(text) > 10
    assert fr.to_latex(expr) == sp.latex(expr)


def test_latex_of_lugre_result():
    text = fr.to_latex(fr.lugre(v, z, N, stiction_trans_vel=1e-3))
    assert r"\dot z" in text and "F =" in text


def test_translate_all_laws_matches_sympy():
    laws = all_laws()
    sv, sz, sn = ca.SX.sym("v"), ca.SX.sym("z"), ca.SX.sym("N")
    outs = translate(list(laws.values()), {v: sv, z: sz, N: sn})
    f = ca.Function("f", [sv, sz, sn], outs)
    for vv in [-0.7, -0.05, -1e-3, 0.0, 4e-4, 0.02, 0.3, 2.0]:
        vals = {v: vv, z: 1e-6, N: 30.0}
        got = [float(o) for o in f(vv, 1e-6, 30.0)]
        for (name, expr), g in zip(laws.items(), got):
            assert g == pytest.approx(sympy_eval(expr, vals), rel=1e-12, abs=1e-12), name


# ---------------------------------------------------------------------------------------------
# smooth helpers
# ---------------------------------------------------------------------------------------------

def test_smooth_helpers():
    assert sympy_eval(smooth.sign_tanh(x, 0.1), {x: 0.05}) == pytest.approx(math.tanh(0.5))
    assert sympy_eval(smooth.sign_sqrt(x, 0.1), {x: -0.1}) == pytest.approx(-1 / math.sqrt(2))
    assert sympy_eval(smooth.abs_sqrt(x, 0.3), {x: 0.4}) == pytest.approx(0.5)
    step = smooth.step_cubic(x, 1.0, 2.0, 3.0, 6.0)
    # d = 0.25: 2 + 4 * 0.0625 * 2.5 = 2.625
    for xv, expected in [(0.0, 2.0), (1.0, 2.0), (1.5, 2.625), (2.0, 4.0), (3.0, 6.0),
                         (9.0, 6.0)]:
        assert sympy_eval(step, {x: xv}) == pytest.approx(expected, abs=1e-14)
        assert casadi_eval(step, {x: xv}) == pytest.approx(expected, abs=1e-14)
    d = sp.diff(step, x)
    for b in (1.0, 3.0):
        for s in (-1e-9, 1e-9):
            assert abs(sympy_eval(d, {x: b + s})) < 1e-8


# ---------------------------------------------------------------------------------------------
# End to end: a block sliding to rest under tanh-regularised Coulomb friction
# ---------------------------------------------------------------------------------------------

class SlidingBlock(Component):
    """Block on a floor: ``der(s) = v``; ``m der(v) = -coulomb(v, mu m g, "tanh", v_reg)``."""

    m = Parameter(2.0, unit="kg", description="mass")
    mu = Parameter(0.3, unit="1", description="friction coefficient")
    g = Parameter(9.81, unit="m/s2", description="gravity")
    v_reg = Parameter(0.01, unit="m/s", description="regularisation velocity")
    s = Variable(unit="m", start=0.0, fixed=True)
    v = Variable(unit="m/s", start=1.0, fixed=True)

    def equations(self):
        f = fr.coulomb(self.v, self.mu * self.m * self.g, regularization="tanh",
                       v_reg=self.v_reg)
        return [Eq(der(self.s), self.v), Eq(self.m * der(self.v), -f)]


def test_sliding_block_decelerates_at_mu_g():
    v0, mu, g, vr = 1.0, 0.3, 9.81, 0.01
    a = mu * g
    t_stop = v0 / a                                   # 0.3398 s
    cs = compile(SlidingBlock())
    assert cs.n_states == 2
    sol = cs.simulate(t_stop + 0.3, n_points=2001, rtol=1e-10, atol=1e-12)
    t, vs, ss = sol.t, sol["v"], sol["s"]
    # Exact solution of v' = -a tanh(v/vr): vr*ln(sinh(v/vr)) decreases at rate a
    exact = vr * np.arcsinh(np.sinh(v0 / vr) * np.exp(-a * t / vr))
    assert np.max(np.abs(vs - exact)) < 1e-7
    # Until near stop the motion is v0 - a t; the regularisation lowers the deceleration by
    # a(1 - tanh(v/vr)), which integrates to at most vr*ln(1 + exp(-2 v/vr)) (+ solver error)
    v_lin = v0 - a * t
    sliding = v_lin > 5 * vr
    bound = vr * np.log1p(np.exp(-2 * v_lin[sliding] / vr)) + 1e-7
    assert np.all(np.abs(vs[sliding] - v_lin[sliding]) <= bound)
    assert np.all(np.abs(ss[sliding] - (v0 * t[sliding] - 0.5 * a * t[sliding] ** 2)) < 1e-6)
    # at rest: |v| tiny; the distance exceeds v0^2/(2a) by exactly pi^2 vr^2/(12 a)
    assert abs(vs[-1]) < 1e-9
    assert ss[-1] == pytest.approx(v0**2 / (2 * a) + math.pi**2 * vr**2 / (12 * a), abs=1e-7)


class LuGreBlock(Component):
    """Block pushed by a constant force ``F_ext`` against LuGre friction (normal force m g):
    ``der(s) = v``; ``der(z) = lugre.state_derivative``; ``m der(v) = F_ext - lugre.force``."""

    m = Parameter(1.0, unit="kg", description="mass")
    g = Parameter(9.81, unit="m/s2", description="gravity")
    F_ext = Parameter(0.0, unit="N", description="applied force")
    s = Variable(unit="m", start=0.0, fixed=True)
    v = Variable(unit="m/s", start=0.0, fixed=True)
    z = Variable(unit="m", start=0.0, fixed=True)

    def equations(self):
        # V_s = 0.1 m/s: the velocity overshoot of the bristle oscillation (~F/(m sqrt(k0/m))
        # ~ 1e-2 m/s) stays well below V_s, so a force below mu_s N cannot break it loose
        law = fr.lugre(self.v, self.z, self.m * self.g, **dict(LG, stiction_trans_vel=0.1))
        return [Eq(der(self.s), self.v), Eq(der(self.z), law.state_derivative),
                Eq(self.m * der(self.v), self.F_ext - law.force)]


def test_lugre_block_sticks_below_and_slides_above_breakaway():
    Nn = 9.81
    cs = compile(LuGreBlock())
    # below breakaway (0.3 N < mu_s N = 0.4 N): pre-sliding only, z -> F/k0 and v -> 0
    stick = cs.simulate(1.0, n_points=201, params={"F_ext": 0.3 * Nn}, rtol=1e-10, atol=1e-14)
    assert abs(stick["v"][-1]) < 1e-8
    assert stick["z"][-1] == pytest.approx(0.3 * Nn / 1e5, rel=1e-6)
    assert stick["s"][-1] < 1e-4  # micrometres of creep, not sliding
    # above breakaway (0.5 N > 0.4 N): slides; once |v| >> V_s the deceleration force is
    # mu_d N + k2 v (steady LuGre), so dv/dt -> (0.5 - 0.25) g - 0.4 v
    slide = cs.simulate(1.0, n_points=201, params={"F_ext": 0.5 * Nn}, rtol=1e-10, atol=1e-14)
    k2 = 0.4
    a0 = 0.25 * Nn
    t = slide.t
    late = t > 0.5
    # exact solution of v' = a0 - k2 v shifted by the (short) breakaway transient: compare slopes
    dv = np.gradient(slide["v"], t)
    assert np.allclose(dv[late][1:-1], a0 - k2 * slide["v"][late][1:-1], rtol=1e-4)
