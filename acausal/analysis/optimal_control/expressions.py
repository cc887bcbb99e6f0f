"""Expressions of an optimal control problem, written with the model's variable names.

A user writes an objective, a path or an end constraint as a string (``"cart.s**2 + 0.1 *
force.f**2"``, ``"der(body.w)"``, ``"time"``) or as a sympy expression whose symbols carry the
model's dotted names. Each becomes a CasADi SX expression of the compiled model's ``(t, x, z,
p)`` through the observed function (``value(name) = sign * observed[index]``, see
:meth:`acausal.compiler.compiled_model.CompiledModel.locate`) and the parameter vector ``p``
(parameters, controls and design variables are entries of ``p``).
"""

from __future__ import annotations

import re
from typing import Any

import casadi as ca
import sympy as sp

from ...base.errors import InputError, UnknownNameError, did_you_mean
from ...compiler.codegen import Translator

#: A name as the model writes it: dotted, with element indices, or der() of one.
_TOKEN = re.compile(r"der\(\s*[A-Za-z_][\w.]*(?:\[\d+\])*\s*\)|[A-Za-z_][\w.]*(?:\[\d+\])*")

#: Names sympy reads as functions or constants (what an expression string may use besides the
#: model's names).
_SYMPY_NAMES = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                "exp", "log", "sqrt", "Abs", "abs", "sign", "Min", "Max", "min", "max", "pi",
                "E", "erf", "floor", "ceiling", "Piecewise", "Heaviside"}
_SYMPY_LOCALS = {"abs": sp.Abs, "min": sp.Min, "max": sp.Max}


def _derivative_name(token: str) -> str:
    """``der( a.b )`` written with spaces -> ``der(a.b)`` as the model names it."""
    inner = token[4:-1].strip()
    return f"der({inner})"


class ModelNames:
    """Reads expressions written with the model's names and makes SX of ``(t, x, z, p)``."""

    def __init__(self, cs) -> None:
        self.cs = cs

    def known(self, name: str) -> bool:
        cs = self.cs
        return name in ("time", "t") or name in cs.locations() or name in cs.parameter_index()

    def unknown_error(self, name: str, where: str) -> UnknownNameError:
        cs = self.cs
        candidates = list(cs.locations()) + cs.parameter_names + ["time"]
        return UnknownNameError(
            f"{where}: '{name}' is not a variable or parameter of {cs.model_name}."
            f"{did_you_mean(name, candidates)} Names are dotted paths as in sol[...] "
            "(e.g. 'body.phi', 'der(body.w)'); 'time' is the time.")

    def parse(self, expr: Any, where: str) -> sp.Expr:
        """A sympy expression whose free symbols are named by the model's names; raises an
        error naming ``where`` for an unknown name or a string that is no expression."""
        if isinstance(expr, (int, float)) and not isinstance(expr, bool):
            return sp.Float(expr)
        if isinstance(expr, sp.Basic):
            for s in expr.free_symbols:
                if not self.known(s.name):
                    raise self.unknown_error(s.name, where)
            return expr
        if not isinstance(expr, str) or not expr.strip():
            raise InputError(f"{where}: give a variable name or an expression string (or a "
                             f"sympy expression), got {expr!r}.")
        keys: dict[str, str] = {}  # model name -> placeholder in the string sympy reads

        def replace(match: re.Match) -> str:
            token = match.group(0)
            name = _derivative_name(token) if token.startswith("der(") else token
            if self.known(name):
                if name not in keys:
                    keys[name] = f"_v{len(keys)}"
                return keys[name]
            if token in _SYMPY_NAMES:
                return token
            raise self.unknown_error(name, where)

        text = _TOKEN.sub(replace, expr)
        try:
            parsed = sp.sympify(text, locals={**_SYMPY_LOCALS, **{
                key: sp.Symbol(name, real=True) for name, key in keys.items()}})
        except (sp.SympifyError, SyntaxError, TypeError) as err:
            raise InputError(f"{where}: {expr!r} is not an expression sympy can read ({err}). "
                             "Write it as Python arithmetic of the model's names, e.g. "
                             "'cart.s**2 + 0.1*force.f**2'.") from None
        if isinstance(parsed, sp.core.relational.Relational):
            raise InputError(f"{where}: {expr!r} is a relation; give the expression and its "
                             "bounds separately, e.g. path('wheel.slip', upper=0.1).")
        if not isinstance(parsed, sp.Expr):
            raise InputError(f"{where}: {expr!r} is not a scalar expression.")
        return parsed

    def symbol_values(self, expr: sp.Expr, p: Any) -> dict:
        """SX value of each free symbol of ``expr`` in ``(cs.t, cs.x, cs.z, p)``."""
        cs = self.cs
        out = {}
        index = cs.parameter_index()
        for s in expr.free_symbols:
            name = s.name
            if name in ("time", "t") and name not in cs.locations():
                out[s] = cs.t
            elif name in index:
                out[s] = p[index[name]]
            else:
                sign, v = cs.locate(name)
                out[s] = 0.0 if v < 0 else sign * cs.observed[v]
        return out

    def to_sx(self, expr: sp.Expr, p: Any = None) -> ca.SX:
        """The expression as SX of ``(cs.t, cs.x, cs.z, p)`` (``p`` default: ``cs.p``)."""
        p = self.cs.p if p is None else p
        return ca.SX(Translator(self.symbol_values(expr, p))(expr))

    def plain_name(self, expr: Any) -> str | None:
        """The name when ``expr`` is one variable or parameter name alone, else None."""
        if isinstance(expr, str) and self.known(expr.strip()):
            return expr.strip()
        if isinstance(expr, sp.Symbol) and self.known(expr.name):
            return expr.name
        return None
