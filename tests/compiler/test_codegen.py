"""The sympy -> CasADi translator (acausal.compiler.codegen) and the function registry."""

from __future__ import annotations

import math

import casadi as ca
import numpy as np
import pytest
import sympy as sp

from acausal import (
    Component,
    Eq,
    ModelDefinitionError,
    Variable,
    compile,
    der,
    register_function,
    time,
)
from acausal.compiler.codegen import Translator, translate

x, y, z = sp.symbols("x y z", real=True)

POINTS = [(-2.5, 0.7), (-0.3, -1.1), (0.0, 2.0), (0.4, 0.4), (1.7, -0.2), (3.0, 5.0)]


def evaluate(expr, xv, yv, zv=0.5):
    """Translate ``expr`` in (x, y, z) to SX and evaluate it numerically."""
    sx = ca.SX.sym("x")
    sy = ca.SX.sym("y")
    sz = ca.SX.sym("z")
    out = Translator({x: sx, y: sy, z: sz})(expr)
    f = ca.Function("f", [sx, sy, sz], [out])
    return float(f(xv, yv, zv))


def reference(expr, xv, yv, zv=0.5):
    """sympy's value, or None where it is not a finite real number (e.g. 1/x at x = 0)."""
    value = expr.subs({x: xv, y: yv, z: zv}).evalf(30)
    if not value.is_real or not value.is_finite:
        return None
    return float(value)


@pytest.mark.parametrize("expr", [
    x + 2 * y - 3,
    x * y / (1 + y ** 2),
    -x,
    -x * y,
    -x * y * z,  # a negation of the rest of the product
    sp.Mul(sp.Float(-1.0), x, evaluate=False),  # a float -1 is a negation too
    sp.Mul(sp.Float(-1.0), x, y, evaluate=False),
    sp.Mul(-2, x, y ** -2, evaluate=False),  # a negative power divides
    x ** 2, x ** 3, x ** 5, x ** -1, x ** -2, (1 + y ** 2) ** -3,
    sp.sqrt(1 + x ** 2), (2 + y) ** sp.Rational(3, 2), (1 + x ** 2) ** 0.25,
    (1 + x ** 2) ** y,
    sp.Abs(x), sp.Abs(x - y),
    sp.sign(x - 0.4), sp.sign(y), sp.sign(x),
    sp.Min(x, y), sp.Max(x, y), sp.Min(x, y, 0.1), sp.Max(x, y, -1),
    sp.atan2(y, x), sp.atan2(-y, x - 1),
    sp.sin(x) * sp.cos(y) + sp.tan(y / 10),
    sp.exp(-x) + sp.log(2 + y ** 2), sp.tanh(x), sp.sinh(y), sp.cosh(x),
    sp.asin(x / 4), sp.acos(y / 6), sp.atan(x),
    sp.floor(x), sp.ceiling(y),
    sp.pi * x + sp.E,
    sp.Heaviside(x),
    sp.Mod(x, 1.5),
], ids=str)
def test_translation_matches_sympy(expr):
    checked = 0
    for xv, yv in POINTS:
        expected = reference(expr, xv, yv)
        if expected is None:
            continue
        checked += 1
        got = evaluate(expr, xv, yv)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), (xv, yv)
    assert checked >= len(POINTS) - 1


def test_piecewise_with_otherwise():
    expr = sp.Piecewise((x ** 2, x < 0), (sp.sqrt(x), x < 1), (1 + y, True))
    for xv, yv in POINTS:
        expected = xv ** 2 if xv < 0 else (math.sqrt(xv) if xv < 1 else 1 + yv)
        assert evaluate(expr, xv, yv) == pytest.approx(expected, rel=1e-14)


def test_piecewise_without_otherwise_is_nan_outside():
    expr = sp.Piecewise((x, x > 0))
    assert evaluate(expr, 2.0, 0.0) == 2.0
    assert math.isnan(evaluate(expr, -2.0, 0.0))


def test_piecewise_with_compound_conditions():
    expr = sp.Piecewise((1, sp.And(x > 0, y > 0)), (2, sp.Or(x > 1, sp.Not(y < 1))), (3, True))
    for xv, yv in POINTS:
        expected = 1 if (xv > 0 and yv > 0) else (2 if (xv > 1 or not yv < 1) else 3)
        assert evaluate(expr, xv, yv) == expected, (xv, yv)


@pytest.mark.parametrize("rel, op", [
    (x < y, lambda a, b: a < b), (x <= y, lambda a, b: a <= b),
    (x > y, lambda a, b: a > b), (x >= y, lambda a, b: a >= b),
    (sp.Eq(x, y), lambda a, b: a == b), (sp.Ne(x, y), lambda a, b: a != b),
], ids=["lt", "le", "gt", "ge", "eq", "ne"])
def test_relations_are_zero_one(rel, op):
    for xv, yv in POINTS + [(1.0, 1.0)]:
        assert evaluate(rel, xv, yv) == float(op(xv, yv)), (xv, yv)


def test_logic():
    for xv, yv in POINTS:
        assert evaluate(sp.And(x > 0, y > 0), xv, yv) == float(xv > 0 and yv > 0)
        assert evaluate(sp.Or(x > 0, y > 0), xv, yv) == float(xv > 0 or yv > 0)
        assert evaluate(sp.Not(x > 0), xv, yv) == float(not xv > 0)
        three = sp.And(x > -1, y > -1, x < y)
        assert evaluate(three, xv, yv) == float(xv > -1 and yv > -1 and xv < yv)
    assert evaluate(sp.true, 0, 0) == 1.0
    assert evaluate(sp.false, 0, 0) == 0.0


def test_constants_and_numbers():
    assert evaluate(sp.Integer(3), 0, 0) == 3.0
    assert evaluate(sp.Rational(1, 4), 0, 0) == 0.25
    assert evaluate(sp.pi, 0, 0) == pytest.approx(math.pi)
    tr = Translator({})
    assert tr(2) == 2.0 and tr(0.5) == 0.5


def test_dirac_delta_is_zero():
    # sympy produces DiracDelta when it differentiates sign or Heaviside (index reduction)
    assert evaluate(sp.diff(sp.sign(x), x), 0.3, 0) == 0.0
    assert evaluate(sp.diff(sp.Heaviside(x), x) * y, 0.3, 2.0) == 0.0


def test_translate_list_and_shared_cache():
    sx = ca.SX.sym("x")
    outs = translate([x + 1, (x + 1) ** 2], {x: sx})
    f = ca.Function("f", [sx], outs)
    assert [float(o) for o in f(2.0)] == [3.0, 9.0]


def test_unknown_symbol_raises():
    with pytest.raises(ModelDefinitionError, match="'y'"):
        Translator({x: ca.SX.sym("x")})(x + y)


def test_unknown_function_raises_model_definition_error():
    class mystery(sp.Function):
        pass

    with pytest.raises(ModelDefinitionError, match="mystery") as info:
        evaluate(mystery(x) + 1, 1.0, 0.0)
    assert "register_function" in str(info.value)


def test_register_function_for_a_custom_class():
    class softplus(sp.Function):
        """log(1 + exp(x)) with its derivative, for index reduction."""

        def fdiff(self, argindex=1):
            return 1 / (1 + sp.exp(-self.args[0]))

    register_function(softplus, lambda a: ca.log(1 + ca.exp(a)))
    for xv, yv in POINTS:
        assert evaluate(softplus(x) * y, xv, yv) == pytest.approx(math.log1p(math.exp(xv)) * yv)
    # its derivative (as index reduction would produce it) translates too
    d = sp.diff(softplus(x ** 2), x)
    assert evaluate(d, 0.7, 0) == pytest.approx(2 * 0.7 / (1 + math.exp(-0.49)))


def test_register_function_for_a_multi_argument_function():
    class hypot2(sp.Function):
        nargs = 2

    register_function(hypot2, lambda a, b: ca.sqrt(a * a + b * b))
    assert evaluate(hypot2(x, y), 3.0, 4.0) == pytest.approx(5.0)


def test_registered_function_is_found_for_subclasses():
    class base_fn(sp.Function):
        pass

    class derived_fn(base_fn):
        pass

    register_function(base_fn, lambda a: 2 * a)
    assert evaluate(derived_fn(x), 1.5, 0) == 3.0


def test_register_function_rejects_non_classes():
    with pytest.raises(ModelDefinitionError):
        register_function(sp.sin(x), ca.sin)
    with pytest.raises(ModelDefinitionError):
        register_function(math.sin, ca.sin)


def test_custom_function_in_a_compiled_model():
    class cubic_drag(sp.Function):
        def fdiff(self, argindex=1):
            return 3 * self.args[0] ** 2

    register_function(cubic_drag, lambda a: a * a * a)

    class Decay(Component):
        v = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(der(self.v), -cubic_drag(self.v))]

    sol = compile(Decay()).simulate(2.0, n_points=5, rtol=1e-10, atol=1e-12)
    # v' = -v^3, v(0) = 1  ->  v = 1 / sqrt(1 + 2 t)
    assert sol["v"] == pytest.approx(1 / np.sqrt(1 + 2 * sol.t), rel=1e-7)


def test_unknown_function_in_a_model_raises_at_compile():
    class gizmo(sp.Function):
        pass

    class Uses(Component):
        v = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(der(self.v), -gizmo(self.v))]

    with pytest.raises(ModelDefinitionError, match="gizmo"):
        compile(Uses())


def test_piecewise_and_abs_in_a_compiled_model():
    class Saturated(Component):
        """der(s) = clip(1 - s, -0.5, 0.5) + |sin(time)| * 0"""

        s = Variable(start=-2.0, fixed=True)

        def equations(self):
            e = 1 - self.s
            return [Eq(der(self.s), sp.Piecewise((0.5, e > 0.5), (-0.5, e < -0.5), (e, True))
                       + 0 * sp.Abs(sp.sin(time)))]

    sol = compile(Saturated()).simulate(8.0, t_eval=[0.0, 1.0, 5.0, 8.0], rtol=1e-10,
                                        atol=1e-12)
    # s rises at 0.5 until s = 0.5 (t = 5), then s -> 1 exponentially
    assert sol["s"][:3] == pytest.approx([-2.0, -1.5, 0.5], abs=1e-6)
    assert sol["s"][3] == pytest.approx(1 - 0.5 * math.exp(-3.0), abs=1e-6)


def test_abs_constraint_differentiated_by_index_reduction():
    """A bead on the diamond |x| + |y| = 1: Pantelides differentiates Abs twice (sign, then
    DiracDelta, which is zero away from the corners)."""

    class Diamond(Component):
        x = Variable(start=0.5, fixed=True)
        y = Variable(start=-0.5)
        vx = Variable(start=0.0, fixed=True)
        vy = Variable()
        lam = Variable()

        def equations(self):
            return [Eq(der(self.x), self.vx), Eq(der(self.y), self.vy),
                    Eq(der(self.vx), -self.lam * sp.sign(self.x)),
                    Eq(der(self.vy), -self.lam * sp.sign(self.y) - 9.81),
                    Eq(sp.Abs(self.x) + sp.Abs(self.y), 1)]

    sol = compile(Diamond()).simulate(0.3, rtol=1e-9, atol=1e-11)
    assert np.max(np.abs(np.abs(sol["x"]) + np.abs(sol["y"]) - 1)) < 1e-8
    # sliding down the side y = x - 1 under gravity: acceleration g/2 along each axis
    assert sol["x"][-1] == pytest.approx(0.5 - 9.81 / 4 * 0.3 ** 2, rel=1e-6)


def test_latex_of_a_squared_derivative():
    """Differentiated constraints contain der(x)**2; LaTeX printing must handle the power."""
    import sympy as sp

    from acausal import der

    x = sp.Symbol("x", real=True)
    tex = sp.latex(der(x) ** 2 + der(der(x)))
    assert r"\left(\dot{x}\right)^{2}" in tex
