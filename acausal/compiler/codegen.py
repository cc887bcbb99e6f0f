"""Translation of sympy expressions to CasADi SX through one function registry.

Every sympy function a model may use maps to a CasADi implementation here. ``library/`` (or a
user) adds smooth functions with :func:`register_function`. Unknown functions raise an error that
names the function and says how to register it.

``Piecewise`` becomes nested ``if_else``; relations and logic become CasADi's 0/1 comparisons.
These generate no events: they are evaluated as written (Modelica ``noEvent`` semantics).
``DiracDelta`` (which sympy produces when differentiating ``sign`` or ``Heaviside``) is zero
everywhere it is evaluated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import casadi as ca
import sympy as sp

from ..base.errors import ModelDefinitionError

# CasADi's Python operators and functions (``a * b``, ``ca.sin``) try several overloads before
# they reach C++: about 10 microseconds per node. ``SX.binary``/``SX.unary`` with the operation
# code build the same node directly in about 1.5 microseconds (benchmarks/micro_costs.py), which
# makes code generation of large models several times faster.
_binary = ca.SX.binary
_unary = ca.SX.unary
_ADD, _MUL, _DIV, _NEG = ca.OP_ADD, ca.OP_MUL, ca.OP_DIV, ca.OP_NEG
_MINUS_ONE = sp.S.NegativeOne


def _op1(code: int) -> Callable[[Any], Any]:
    return lambda x: _unary(code, x)


def _op2(code: int) -> Callable[[Any, Any], Any]:
    return lambda x, y: _binary(code, x, y)


def _fold(op):
    def f(*args):
        out = args[0]
        for a in args[1:]:
            out = op(out, a)
        return out
    return f


def _heaviside(x, h0=0.5):
    return ca.if_else(x > 0, 1, ca.if_else(x < 0, 0, h0))


def _mod(a, b):
    return a - b * ca.floor(a / b)  # sympy's Mod: the result has the sign of the divisor


_REGISTRY: dict[type, Callable[..., Any]] = {
    sp.sin: _op1(ca.OP_SIN), sp.cos: _op1(ca.OP_COS), sp.tan: _op1(ca.OP_TAN),
    sp.asin: _op1(ca.OP_ASIN), sp.acos: _op1(ca.OP_ACOS), sp.atan: _op1(ca.OP_ATAN),
    sp.atan2: _op2(ca.OP_ATAN2),
    sp.sinh: _op1(ca.OP_SINH), sp.cosh: _op1(ca.OP_COSH), sp.tanh: _op1(ca.OP_TANH),
    sp.asinh: _op1(ca.OP_ASINH), sp.acosh: _op1(ca.OP_ACOSH), sp.atanh: _op1(ca.OP_ATANH),
    sp.exp: _op1(ca.OP_EXP), sp.log: _op1(ca.OP_LOG), sp.Abs: _op1(ca.OP_FABS),
    sp.sign: _op1(ca.OP_SIGN), sp.floor: _op1(ca.OP_FLOOR), sp.ceiling: _op1(ca.OP_CEIL),
    sp.erf: _op1(ca.OP_ERF),
    sp.Min: _fold(_op2(ca.OP_FMIN)), sp.Max: _fold(_op2(ca.OP_FMAX)),
    sp.Heaviside: _heaviside, sp.DiracDelta: lambda *a: 0.0, sp.Mod: _mod,
    sp.And: _fold(_op2(ca.OP_AND)), sp.Or: _fold(_op2(ca.OP_OR)), sp.Not: _op1(ca.OP_NOT),
}

_RELATIONS = {"<": (ca.OP_LT, False), "<=": (ca.OP_LE, False), ">": (ca.OP_LT, True),
              ">=": (ca.OP_LE, True), "==": (ca.OP_EQ, False), "!=": (ca.OP_NE, False)}


def register_function(sympy_function: type, casadi_implementation: Callable[..., Any]) -> None:
    """Tell the code generator how to evaluate ``sympy_function`` (a sympy Function class).

    ``casadi_implementation`` receives the CasADi arguments and returns a CasADi expression.
    sympy must also know the function's derivative (define ``fdiff``) if it appears in equations
    that index reduction differentiates.
    """
    if not (isinstance(sympy_function, type) and issubclass(sympy_function, sp.Basic)):
        raise ModelDefinitionError(f"register_function needs a sympy Function class, got "
                                   f"{sympy_function!r}.")
    _REGISTRY[sympy_function] = casadi_implementation


def _lookup(cls: type):
    for klass in cls.__mro__:
        impl = _REGISTRY.get(klass)
        if impl is not None:
            return impl
    return None


class Translator:
    """Translate sympy expressions to SX, sharing a cache of already translated sub-trees."""

    def __init__(self, symbol_map: dict[sp.Symbol, Any]) -> None:
        self.symbol_map = symbol_map
        self.cache: dict[sp.Basic, Any] = {}

    def __call__(self, expr: Any) -> Any:
        if isinstance(expr, (int, float)):
            return float(expr)
        return self._tr(expr if isinstance(expr, sp.Basic) else sp.sympify(expr))

    def _tr(self, e: sp.Basic):
        if e.is_Symbol:  # a dictionary look-up already: not cached a second time
            try:
                return self.symbol_map[e]
            except KeyError:
                raise ModelDefinitionError(
                    f"No value for symbol '{e}' in generated code.") from None
        cached = self.cache.get(e)
        if cached is not None:
            return cached
        # sums and products, nearly all the nodes of a model's equations, without the general
        # dispatch of _translate (a Python call less per node)
        out = self._sum(e) if e.is_Add else self._product(e) if e.is_Mul else self._translate(e)
        self.cache[e] = out
        return out

    def _sum(self, e: sp.Add):
        args = [self._tr(a) for a in e.args]
        out = args[0]
        for a in args[1:]:
            out = _binary(_ADD, out, a)
        return out

    def _product(self, e: sp.Mul):
        args = e.args
        first = args[0]
        # -x stays a negation instead of a multiplication (an identity test first: sympy's
        # comparison with a Python number costs microseconds, and most products are -x)
        if first.is_Number and (first is _MINUS_ONE or (first.is_Integer and first.p == -1)
                                or (first.is_Float and float(first) == -1.0)):
            rest = self._tr(sp.Mul._from_args(args[1:], e.is_commutative)) \
                if len(args) > 2 else self._tr(args[1])
            return _unary(_NEG, rest)
        divisors = [a for a in args if a.is_Pow and a.exp.is_Number and a.exp.is_negative]
        if not divisors:
            out = self._tr(first)  # no divisor (most products): the factors in order
            for a in args[1:]:
                out = _binary(_MUL, out, self._tr(a))
            return out
        num = [a for a in args if not (a.is_Pow and a.exp.is_Number and a.exp.is_negative)]
        # x**-1 (nearly every divisor) divides by x itself: sympy's evaluated x**1 costs
        # microseconds to give the same x
        den = [a.base if a.exp is _MINUS_ONE else a.base ** (-a.exp) for a in divisors]
        out = None
        for a in num:
            t = self._tr(a)
            out = t if out is None else _binary(_MUL, out, t)
        out = 1.0 if out is None else out
        for a in den:
            out = _binary(_DIV, out, self._tr(a))
        return out

    def _translate(self, e: sp.Basic):
        if e.is_Add:
            return self._sum(e)
        if e.is_Mul:
            return self._product(e)
        if e.is_Symbol:
            try:
                return self.symbol_map[e]
            except KeyError:
                raise ModelDefinitionError(
                    f"No value for symbol '{e}' in generated code.") from None
        if e.is_Number or e is sp.pi or e is sp.E or isinstance(e, sp.NumberSymbol):
            return float(e)
        if e.is_Pow:
            base, exp = e.args
            b = self._tr(base)
            if exp == sp.S.Half:
                return _unary(ca.OP_SQRT, b)
            if exp == -1:
                return _binary(ca.OP_DIV, 1.0, b)
            if exp.is_Integer:
                n = int(exp)
                if n == 2:
                    return _binary(ca.OP_MUL, b, b)
                return _binary(ca.OP_CONSTPOW, b, n) if n > 0 else \
                    _binary(ca.OP_DIV, 1.0, _binary(ca.OP_CONSTPOW, b, -n))
            if exp.is_Number:
                return _binary(ca.OP_CONSTPOW, b, float(exp))
            return _binary(ca.OP_POW, b, self._tr(exp))
        if isinstance(e, sp.Piecewise):
            out = float("nan")
            for expr, cond in reversed(e.args):
                value = self._tr(expr)
                if cond is sp.true:
                    out = value
                else:
                    out = ca.if_else(self._tr(cond), value, out)
            return out
        if isinstance(e, sp.core.relational.Relational):
            a, b = self._tr(e.lhs), self._tr(e.rhs)
            code, swap = _RELATIONS[e.rel_op]
            return _binary(code, b, a) if swap else _binary(code, a, b)
        if e is sp.true:
            return 1.0
        if e is sp.false:
            return 0.0
        impl = _lookup(type(e))
        if impl is None:
            raise ModelDefinitionError(
                f"The code generator does not know the function '{type(e).__name__}' (in "
                f"{e}). Register a CasADi implementation with acausal.register_function().")
        return impl(*[self._tr(a) for a in e.args])


def translate(exprs, symbol_map: dict[sp.Symbol, Any]) -> list:
    """Translate a list of sympy expressions with a fresh translator."""
    tr = Translator(symbol_map)
    return [tr(e) for e in exprs]
