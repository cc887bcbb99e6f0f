"""Unit checking: every equation of the flat model is dimensionally consistent.

Units are written as in Modelica (Modelica Language Specification 3.6, section 19.1): factors
joined by ``.``, an integer exponent written after the symbol, one ``/`` and parentheses:
``N.m``, ``m/s2``, ``kg.m2``, ``N.m.s/rad``, ``1/s``, ``1`` (dimensionless), with the SI prefixes
(``mm``, ``kN``, ``ms``, ``uA``). The symbols are resolved by ``sympy.physics.units``, a
maintained units library already among acausal's dependencies; what is compared is the
*dimension* of each unit (exponents of kg, m, s, A, K, mol, cd), not its scale.

Decisions, as Modelica tools and ModelingToolkit's ``validate_units`` make them:

* ``rad`` (and ``deg``, ``sr``) are dimensionless (SI: rad = m/m), so ``v = r w`` with r in m,
  w in rad/s and v in m/s is consistent.
* A variable or parameter without a unit (``unit=None``) has an unknown unit: a term containing
  it is not checked, it is never wrong.
* A number written in an equation takes the unit its place needs (Modelica's rule for literals):
  ``x - 0.5`` is fine for x in m. A product with a number factor (``0.001*z``, ``sin(3*time)``)
  is not checked either: the number may be a parameter's value the component folded in (a
  structural parameter, a product computed in Python) or a literal whose unit is implied, so
  the product's unit is inferred. A sign is not such a factor: ``-m*x`` is checked.
* ``der(x)`` has the unit of ``x`` per second; ``sin``, ``exp``, ``log``... need a dimensionless
  argument and are dimensionless; ``x**p`` with a number ``p`` raises the unit to that power,
  ``x**y`` needs both dimensionless; both sides of a relation in ``event_if``/``Piecewise``
  conditions, and the branches, have one unit.
* A sympy function of a library declares how units pass through it with the class attributes
  ``unit_branches`` (the positions of the arguments that share the result's unit) and
  ``unit_conditions`` (positions of relations); another function's result is unknown.
* ``time`` is in seconds; a model in which no variable or parameter declares a unit is not
  checked at all (it has nothing to compare, and ``sin(time)`` is fine there).
* A component declares an empirical law that is not dimensionally consistent with
  ``unit_free(Eq(...))``; ``compile(model, check_units=False)`` turns the check off for a model.

The check runs right after flattening, on each equation as its component wrote it, so that an
error names the component, the equation as written and the unit of each term. It is cheap: an
equation copied from the template of an identical component (see acausal.language.templates) is
not checked again, nor is a connection equation whose members declare one unit string (marked
when flattened), each unit string is parsed once, and only the symbols of the equations looked
at get a dimension.
"""

from __future__ import annotations

import functools
import itertools
import re
from fractions import Fraction
from typing import Any

import sympy as sp

from ..base.errors import ModelDefinitionError, UnitError
from ..language.events import Action
from ..language.symbolic import der, event_if, pre, time

#: Exponents are stored multiplied by this, so that square and cube roots stay integers.
_SCALE = 12
#: The SI base dimensions, in the order of a dimension vector, with their base units.
_BASE = ("mass", "length", "time", "current", "temperature", "amount_of_substance",
         "luminous_intensity")
_BASE_UNITS = ("kg", "m", "s", "A", "K", "mol", "cd")

Dim = tuple  # seven integers: the exponents of _BASE times _SCALE
ONE: Dim = (0,) * 7
SECOND: Dim = (0, 0, _SCALE, 0, 0, 0, 0)


class _Free:
    """The unit of a number written in an equation: whatever its place needs."""

    def __repr__(self) -> str:
        return "FREE"


FREE = _Free()
#: None stands for an unknown unit (a variable declared without one).

# --------------------------------------------------------------------------------------------
# Unit strings
# --------------------------------------------------------------------------------------------

#: Modelica's unit symbols and the names of the sympy quantities they stand for. A symbol not
#: here is tried as an SI prefix followed by one of them (``mm``, ``kN``, ``mA``).
_SYMBOLS = {
    "m": "meter", "s": "second", "kg": "kilogram", "g": "gram", "A": "ampere", "K": "kelvin",
    "mol": "mole", "cd": "candela", "rad": "radian", "sr": "radian", "deg": "degree",
    "Hz": "hertz", "N": "newton", "Pa": "pascal", "J": "joule", "W": "watt", "C": "coulomb",
    "V": "volt", "F": "farad", "Ohm": "ohm", "S": "siemens", "Wb": "weber", "T": "tesla",
    # sympy's SI knows no lumen and no sievert, and gives the steradian a dimension of its own
    # ("steradian"), which the SI counts as 1: each stands for the quantity of its SI dimension
    # (lm = cd.sr, Sv = J/kg as the gray, sr = m2/m2 as the radian)
    "H": "henry", "lm": "candela", "lx": "lux", "Bq": "becquerel", "Gy": "gray", "Sv": "gray",
    "kat": "katal", "min": "minute", "h": "hour", "d": "day", "l": "liter", "L": "liter",
    "bar": "bar", "degC": "kelvin", "rev": "radian", "eV": "electronvolt",
}
#: SI prefixes as Modelica writes them (``u`` for micro).
_PREFIXES = ("da", "Y", "Z", "E", "P", "T", "G", "M", "k", "h", "d", "c", "m", "u", "n", "p",
             "f", "a", "z", "y")
_FACTOR = re.compile(r"([A-Za-z]+)([+-]?\d+)?$")


class UnitSyntaxError(ValueError):
    """A unit string that is not a unit in Modelica's syntax."""


@functools.cache
def _symbol_dimension(symbol: str) -> Dim:
    from sympy.physics import units
    from sympy.physics.units.systems.si import SI, dimsys_SI

    name = _SYMBOLS.get(symbol)
    if name is None:
        for prefix in _PREFIXES:
            if symbol.startswith(prefix) and symbol[len(prefix):] in _SYMBOLS \
                    and symbol[len(prefix):] != "kg":
                name = _SYMBOLS[symbol[len(prefix):]]
                break
    if name is None:
        raise UnitSyntaxError(f"'{symbol}' is not a unit symbol")
    dimension = SI.get_quantity_dimension(getattr(units, name))
    powers = dimsys_SI.get_dimensional_dependencies(dimension)
    out = [0] * 7
    for base, power in powers.items():
        if str(base.name) not in _BASE:
            raise UnitSyntaxError(f"'{symbol}' has the dimension {base.name}, which is not one "
                                  "of the SI base dimensions")
        out[_BASE.index(str(base.name))] = int(Fraction(str(power)) * _SCALE)
    return tuple(out)


@functools.cache
def parse_unit(text: str) -> Dim:
    """The dimension of a unit written in Modelica's syntax (``"N.m/rad"``, ``"m/s2"``, ``"1"``).

    Raises UnitSyntaxError for a string that is not one.
    """
    text = text.strip()
    if not text:
        raise UnitSyntaxError("the unit is empty (use '1' for a dimensionless quantity, or no "
                              "unit at all)")
    return _parse_quotient(text, text)


def _parse_quotient(text: str, whole: str) -> Dim:
    if text.startswith("(") and _closing(text, 0) == len(text) - 1:
        return _parse_quotient(text[1:-1], whole)
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "/" and depth == 0:
            num = _parse_quotient(text[:i], whole)
            den = _parse_quotient(text[i + 1:], whole)
            return tuple(a - b for a, b in zip(num, den))
    if text == "1":
        return ONE
    out = ONE
    for factor in text.split("."):
        match = _FACTOR.match(factor)
        if not match:
            raise UnitSyntaxError(f"'{factor}' in '{whole}' is not a unit symbol with an "
                                  "optional integer exponent (write m2, s-1)")
        base = _symbol_dimension(match.group(1))
        power = int(match.group(2) or 1)
        out = tuple(a + power * b for a, b in zip(out, base))
    return out


def _closing(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        depth += (text[i] == "(") - (text[i] == ")")
        if depth == 0:
            return i
    return -1


#: Derived units shown by name in messages, after their base-unit form.
_NAMED = ("N", "J", "W", "Pa", "V", "Ohm", "C", "F", "H", "N.m", "N/m", "N.s/m", "kg.m2")


@functools.cache
def unit_text(dim: Dim) -> str:
    """A dimension written as a Modelica unit of base units, e.g. ``kg.m/s2 (N)``."""
    if dim == ONE:
        return "1"
    num, den = [], []
    for exponent, unit in zip(dim, _BASE_UNITS):
        power = Fraction(exponent, _SCALE)
        if power == 0:
            continue
        target = num if power > 0 else den
        power = abs(power)
        target.append(unit + ("" if power == 1 else str(power) if power.denominator == 1
                              else f"^({power})"))
    text = (".".join(num) or "1") + ("/" + ".".join(den) if den else "")
    for name in _NAMED:
        if parse_unit(name) == dim:
            return f"{text} ({name})"
    return text


# --------------------------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------------------------


class _Mismatch(Exception):
    """Terms of different units meet in ``expr`` (raised while walking an equation)."""

    def __init__(self, expr: Any, parts: list[tuple[Any, Any]], why: str) -> None:
        super().__init__(why)
        self.expr, self.parts, self.why = expr, parts, why


_DIMENSIONLESS_ARGUMENT = (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc, sp.asin, sp.acos,
                           sp.atan, sp.acot, sp.sinh, sp.cosh, sp.tanh, sp.asinh, sp.acosh,
                           sp.atanh, sp.exp, sp.log, sp.erf, sp.sinc)
_SIGNS = (sp.S.One, sp.S.NegativeOne)  # -x is Mul(-1, x): a sign, not a literal
_SAME_UNIT = (sp.Abs, sp.floor, sp.ceiling, sp.re, sp.im, pre)


class UnitWalker:
    """The dimension of expressions, given the units of the symbols they contain."""

    def __init__(self, dims: dict[sp.Symbol, Dim | None]) -> None:
        self.dims = dims
        self.cache: dict[Any, Any] = {}

    def dim(self, expr: Any) -> Any:
        """A Dim, FREE (a number) or None (unknown); raises _Mismatch."""
        if not isinstance(expr, sp.Basic):
            return FREE  # a Python number or bool in a condition
        if expr.is_Symbol:
            return self.dims.get(expr)  # time is among them (see symbol_dimensions)
        if expr.is_Number or expr.is_NumberSymbol or expr is sp.S.ImaginaryUnit:
            return FREE
        cached = self.cache.get(expr)
        if cached is not None or expr in self.cache:
            return cached
        out = self._compute(expr)
        self.cache[expr] = out
        return out

    def _compute(self, expr: Any) -> Any:
        if expr.is_Add:
            return self._agree(expr, expr.args, "the terms of a sum")
        if expr.is_Mul:
            total, free = ONE, True
            for factor in expr.args:
                if (factor.is_Number or factor.is_NumberSymbol) and factor not in _SIGNS:
                    # a number factor (0.001*z, 3*time) may be a parameter's value that the
                    # component folded in (a structural parameter, a product computed in
                    # Python) or a literal with an implied unit (sin(3*time)): its unit is
                    # inferred, as Modelica tools infer a literal's; the product is not checked
                    for rest in expr.args:
                        self.dim(rest)
                    return None
                d = self.dim(factor)
                if d is None:
                    # the other factors are still walked: a mismatch inside them counts
                    for rest in expr.args:
                        self.dim(rest)
                    return None
                if d is FREE:
                    continue
                free = False
                total = tuple(a + b for a, b in zip(total, d))
            return FREE if free else total
        if expr.is_Pow:
            return self._power(expr)
        if isinstance(expr, der):
            d = self.dim(expr.args[0])
            return d if d is None or d is FREE else tuple(a - b for a, b in zip(d, SECOND))
        if isinstance(expr, event_if):
            self._condition(expr.args[0])
            return self._agree(expr, expr.args[1:], "the two branches of event_if")
        if isinstance(expr, sp.Piecewise):
            for _, cond in expr.args:
                self._condition(cond)
            return self._agree(expr, [e for e, _ in expr.args], "the branches of a Piecewise")
        if isinstance(expr, (sp.Min, sp.Max)):
            return self._agree(expr, expr.args, f"the arguments of {type(expr).__name__}")
        if isinstance(expr, sp.atan2):
            self._agree(expr, expr.args, "the two arguments of atan2")
            return ONE
        if isinstance(expr, _DIMENSIONLESS_ARGUMENT):
            for arg in expr.args:
                d = self.dim(arg)
                if d is not None and d is not FREE and d != ONE:
                    raise _Mismatch(expr, [(arg, d)],
                                    f"the argument of {type(expr).__name__} must be "
                                    "dimensionless")
            return ONE
        if isinstance(expr, _SAME_UNIT):
            return self.dim(expr.args[0])
        if isinstance(expr, (sp.sign, sp.Heaviside)):
            self.dim(expr.args[0])
            return ONE
        if isinstance(expr, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
            self._condition(expr)
            return ONE
        branches = getattr(type(expr), "unit_branches", None)
        if branches is not None:  # a function that declares its unit rule (see the docstring)
            for i in getattr(type(expr), "unit_conditions", ()):
                self._condition(expr.args[i])
            return self._agree(expr, [expr.args[i] for i in branches],
                               f"the values of {type(expr).__name__}")
        for arg in expr.args:  # a function of unknown unit rules: its arguments still count
            if isinstance(arg, sp.Basic):
                self.dim(arg)
        return None

    def _agree(self, expr: Any, args: Any, what: str) -> Any:
        known: Any = None
        seen = []
        free = True
        for arg in args:
            d = self.dim(arg)
            seen.append((arg, d))
            if d is None:
                free = False
                continue
            if d is FREE:
                continue
            free = False
            if known is None:
                known = d
            elif d != known:
                raise _Mismatch(expr, seen + [(a, self.dim(a)) for a in args[len(seen):]],
                                f"{what} must have one unit")
        if known is not None:
            return known
        return FREE if free else None

    def _power(self, expr: Any) -> Any:
        base, exponent = expr.args
        b = self.dim(base)
        if exponent.is_Number:
            if b is None or b is FREE:
                return b
            power = Fraction(str(exponent)) if exponent.is_Rational else \
                Fraction(float(exponent)).limit_denominator(_SCALE)
            scaled = [power * x for x in b]
            if any(x.denominator != 1 for x in scaled):
                return None  # a power no unit of ours can state: unknown
            return tuple(int(x) for x in scaled)
        e = self.dim(exponent)
        for d in (e, b):
            if d is not None and d is not FREE and d != ONE:
                raise _Mismatch(expr, [(base, b), (exponent, e)],
                                "a power with a symbolic exponent needs a dimensionless base "
                                "and exponent")
        return FREE if b is FREE and e is FREE else ONE

    def _condition(self, cond: Any) -> None:
        """Check a condition: both sides of each relation in it (And/Or/Not of relations, or
        an expression of discrete variables) have one unit."""
        if isinstance(cond, sp.core.relational.Relational):
            self._agree(cond, cond.args, "the two sides of a relation")
            return
        if not isinstance(cond, sp.Basic):
            return
        for arg in cond.args:
            if not isinstance(arg, sp.Basic) or arg.is_Atom:
                continue
            if isinstance(arg, sp.logic.boolalg.Boolean):
                self._condition(arg)
            else:
                self.dim(arg)


# --------------------------------------------------------------------------------------------
# The check of a flat model
# --------------------------------------------------------------------------------------------


def symbol_dimensions(flat: Any, symbols: set | None = None) -> dict[sp.Symbol, Dim | None]:
    """The dimension of each variable and parameter symbol of a flat model (None: no unit);
    with ``symbols``, of those only (and ``time``), though every unit string is parsed.

    Raises ModelDefinitionError for a unit string that is not a unit, naming the first variable
    or parameter that has it."""
    return _dimensions(flat, symbols)[0]


def _dimensions(flat: Any, symbols: set | None) -> tuple[dict, dict]:
    """``symbol_dimensions`` and the dimension of every unit string the model declares."""
    dims: dict[sp.Symbol, Dim | None] = {time: SECOND}
    # found by name: a string's hash is cached, a sympy symbol's is a Python call, for each
    # of a large model's symbols (and an equal copy of a symbol from sympy's cache has the
    # same name)
    wanted = None if symbols is None else {s.name for s in symbols if isinstance(s, sp.Symbol)}
    parsed: dict[str, Dim] = {}
    for item in itertools.chain(flat.variables, flat.parameters):
        unit = item.unit
        if unit is not None and unit not in parsed:
            parsed[unit] = _dimension_of(item, unit)
        symbol = item.symbol
        if wanted is None or symbol.name in wanted:
            dims[symbol] = None if unit is None else parsed[unit]
    return dims, parsed


def _dimension_of(item: Any, unit: str) -> Dim:
    try:
        return parse_unit(unit)
    except UnitSyntaxError as exc:
        raise ModelDefinitionError(
            f"'{item.name}' (declared in '{item.origin or '<root>'}') has unit={unit!r}: "
            f"{exc}. Write the unit in Modelica's syntax (e.g. 'N.m', 'm/s2', 'kg.m2', "
            "'1' for dimensionless), or give no unit (unit=None) for an unknown one.") \
            from None


def check_units(flat: Any) -> None:
    """Raise UnitError for the first equation (or initial equation, or event action) of
    ``flat`` whose terms have different units. See the module docstring for the rules.

    Every unit string is parsed (a ModelDefinitionError names the first variable whose unit is
    not one); dimensions are given to the symbols of the equations looked at only: a large
    model's equations are mostly copies of checked ones and connections of one unit string.
    """
    equations = [eq for eq in (*flat.equations, *flat.initial_equations)
                 if eq.check_units and not eq.residual.is_Symbol]  # flow = 0: no terms
    symbols: set = set()
    for eq in equations:
        symbols.update(eq.residual.free_symbols)
    for event in flat.events:
        symbols.update(_free_symbols(event.condition))
        for action in event.actions:
            if isinstance(action, Action):
                symbols.update(_free_symbols(action.target))
                symbols.update(_free_symbols(action.value))
    dims, units = _dimensions(flat, symbols)
    if not units:
        return  # nothing declares a unit (a model of pure numbers): nothing to compare
    walker = UnitWalker(dims)
    for eq in equations:
        residual = eq.residual
        if residual.is_Add and _same_unit_symbols(residual.args, dims):
            continue  # a connection equation (a = b, sum of flows): most equations are
        try:
            walker.dim(residual)
        except _Mismatch as err:
            raise UnitError(_message(eq.label, eq.relation(), err, walker, dims)) \
                from None
    for event in flat.events:
        try:
            walker._condition(event.condition)
            for action in event.actions:
                if isinstance(action, Action):
                    walker._agree(action, [action.target, action.value],
                                  "the variable and the value it is given")
        except _Mismatch as err:
            raise UnitError(_message(event.label, None, err, walker, dims)) \
                from None


def _free_symbols(value: Any) -> set:
    return value.free_symbols if isinstance(value, sp.Basic) else set()


def _parts(err: _Mismatch, text: Any) -> str:
    return (f"{err.why}: " + ", ".join(f"{sp.sstr(part)} [{text(d)}]" for part, d in err.parts)
            + ".")


def _same_unit_symbols(terms: tuple, dims: dict) -> bool:
    """Whether ``terms`` are all symbols or negated symbols of one known unit (the quick
    answer for connection equations; False sends the equation to the full walk)."""
    first = None
    for term in terms:
        if not term.is_Symbol:
            if not (term.is_Mul and len(term.args) == 2 and term.args[0] is sp.S.NegativeOne
                    and term.args[1].is_Symbol):
                return False
            term = term.args[1]
        d = dims.get(term)
        if d is None:
            return False
        if first is None:
            first = d
        elif d != first:
            return False
    return True


def _message(label: str, relation: Any, err: _Mismatch, walker: UnitWalker,
             dims: dict) -> str:
    def text(d: Any) -> str:
        return "a number" if d is FREE else "unknown" if d is None else unit_text(d)

    lines = [f"Units do not match in {label}:"]
    if relation is not None and isinstance(relation, sp.Equality):
        lines.append(f"    {sp.sstr(relation.lhs)} = {sp.sstr(relation.rhs)}")
        sides = []
        for name, side in (("left", relation.lhs), ("right", relation.rhs)):
            try:
                sides.append(f"the {name} side is in [{text(walker.dim(side))}]")
            except _Mismatch as inner:  # this side is inconsistent by itself: show its terms
                err = inner
                sides.append(f"on the {name} side, " + _parts(inner, text))
        lines.append("  " + sides[0][0].upper() + sides[0][1:] + "; " + sides[1]
                     + ("" if sides[1].endswith(".") else "."))
    else:
        lines.append("  " + _parts(err, text))
    symbols = sorted({s for part, _ in err.parts if isinstance(part, sp.Basic)
                      for s in part.free_symbols if dims.get(s) is not None},
                     key=lambda s: s.name)[:8]
    if symbols:
        lines.append("  Declared units: " + ", ".join(f"{s.name} [{unit_text(dims[s])}]"
                                                      for s in symbols) + ".")
    if any(isinstance(part, sp.Basic) and part.has(time) for part, _ in err.parts) \
            and "dimensionless" in err.why:
        lines.append("  time is in seconds: a function of time needs a frequency, "
                     "sin(w*time) with w a parameter in rad/s, or a number (sin(2*pi*time), "
                     "sin(1.0*time)), whose unit is then implied.")
    lines.append("  Correct the equation or the units declared on its variables and parameters;"
                 " for an empirical law that cannot be consistent, write unit_free(Eq(...)) "
                 "in the component, or compile(model, check_units=False).")
    return "\n".join(lines)
