"""The equation system the structural passes work on.

Variables and equations are integers; the incidence graph is a list of sorted variable lists per
equation. Each equation also carries its sympy residual (``residual = 0``) so that passes that need
symbols (alias detection, differentiation, solving) can work on one equation at a time, never on
the whole system at once.

Derivatives are variables too: ``der(x)`` in an equation is replaced by a placeholder variable
named ``der(x)`` and the pair is recorded in ``var_to_diff`` / ``diff_to_var`` (the ModelingToolkit
and Pantelides convention). Differentiated equations are linked by ``eq_to_diff`` / ``diff_to_eq``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import sympy as sp

from ...base.errors import ModelDefinitionError, did_you_mean
from ...language.symbolic import der, expression_atoms, real_symbol, substituted, time
from ..flatten import FlatEquation, FlatParameter, FlatSystem, FlatVariable


@dataclass
class EquationSystem:
    symbols: list[sp.Symbol]
    info: list[FlatVariable | None]  # None for derivative placeholders
    var_to_diff: list[int]
    diff_to_var: list[int]
    residuals: list[sp.Expr]
    incidence: list[list[int]]
    sources: list[FlatEquation]  # where each equation came from (original for derivatives)
    eq_to_diff: list[int]
    diff_to_eq: list[int]
    parameters: list[FlatParameter]
    index_of: dict[sp.Symbol, int] = field(default_factory=dict)

    # -- sizes and names -------------------------------------------------------------------
    @property
    def n_vars(self) -> int:
        return len(self.symbols)

    @property
    def n_eqs(self) -> int:
        return len(self.residuals)

    def name(self, v: int) -> str:
        return self.symbols[v].name

    def base_var(self, v: int) -> int:
        """The undifferentiated variable of a derivative chain."""
        while self.diff_to_var[v] != -1:
            v = self.diff_to_var[v]
        return v

    def order(self, v: int) -> int:
        k = 0
        while self.diff_to_var[v] != -1:
            v = self.diff_to_var[v]
            k += 1
        return k

    def describe_var(self, v: int) -> str:
        base = self.info[self.base_var(v)]
        where = f" (in {base.origin or '<root>'})" if base is not None else ""
        name = self.name(v)
        order = 0
        while name.startswith("der(", 4 * order):
            order += 1
        if order > 2:  # der(der(der(x))) ... written as the order, which can be large
            name = f"der^{order}({name[4 * order:len(name) - order]})"
        return f"'{name}'{where}"

    def describe_eq(self, e: int) -> str:
        k = 0
        while self.diff_to_eq[e] != -1:
            e = self.diff_to_eq[e]
            k += 1
        src = self.sources[e]
        text = src.describe()
        return text if k == 0 else f"{text}  [differentiated {k} time{'s' * (k > 1)}]"

    # -- growing ---------------------------------------------------------------------------
    def derivative_var(self, v: int) -> int:
        """The variable for der(v), created (as a placeholder) if it does not exist yet."""
        d = self.var_to_diff[v]
        if d != -1:
            return d
        symbol = real_symbol(f"der({self.name(v)})")
        d = len(self.symbols)
        self.symbols.append(symbol)
        self.info.append(None)
        self.var_to_diff.append(-1)
        self.diff_to_var.append(v)
        self.var_to_diff[v] = d
        self.index_of[symbol] = d
        return d

    def add_equation(self, residual: sp.Expr, source: FlatEquation, incidence: list[int]) -> int:
        self.residuals.append(residual)
        self.sources.append(source)
        self.incidence.append(incidence)
        self.eq_to_diff.append(-1)
        self.diff_to_eq.append(-1)
        return len(self.residuals) - 1

    def incidence_of(self, residual: sp.Expr, where: str, symbols=None) -> list[int]:
        """Sorted variables of ``residual`` (``symbols``: its symbols, when already known)."""
        inc = set()
        index_of = self.index_of
        parameters = None  # the parameter set, read at the first symbol that is no variable
        for s in (residual.free_symbols if symbols is None else symbols):
            v = index_of.get(s)
            if v is not None:
                inc.add(v)
                continue
            if parameters is None:
                parameters = self._param_set
            if s is not time and s not in parameters:
                raise ModelDefinitionError(
                    f"{where} uses '{s}', which is neither a variable nor a parameter of this "
                    "model." + did_you_mean(str(s), [x.name for x in self.symbols])
                    + " Declare it in the component, or use the bound attribute (self.x).")
        return sorted(inc)

    @property
    def _param_set(self) -> set:
        cached = self.__dict__.get("_param_set_cache")
        if cached is None:
            cached = {s for p in self.parameters for s in [p.symbol]}
            self.__dict__["_param_set_cache"] = cached
        return cached

    def copy(self) -> EquationSystem:
        new = copy.copy(self)
        for name in ("symbols", "info", "var_to_diff", "diff_to_var", "residuals", "sources",
                     "eq_to_diff", "diff_to_eq"):
            setattr(new, name, list(getattr(self, name)))
        new.incidence = [list(i) for i in self.incidence]
        new.index_of = dict(self.index_of)
        return new


def replace_derivatives(system: EquationSystem, residual: sp.Expr, where: str,
                        derivatives=None) -> sp.Expr:
    """Replace der(x) by the placeholder variable of x (innermost first for der(der(x))).

    ``derivatives``: the outermost der() sub-expressions of ``residual``, when already known.
    """
    while True:
        if derivatives is None or any(not d.args[0].is_Symbol for d in derivatives):
            derivatives = residual.atoms(der)  # all of them, der(x) inside der(der(x)) too
        if not derivatives:
            return residual
        rep = {}
        for d in derivatives:
            arg = d.args[0]
            if not arg.is_Symbol:
                continue
            v = system.index_of.get(arg)
            if v is not None:
                rep[d] = system.symbols[system.derivative_var(v)]
            elif arg in system._param_set:
                rep[d] = sp.S.Zero
            else:
                raise ModelDefinitionError(f"{where} takes der({arg}), but '{arg}' is not a "
                                           "variable of this model.")
        if not rep:
            raise ModelDefinitionError(f"{where}: cannot interpret {residual}.")
        if len(rep) == len(derivatives) and all(r is not sp.S.Zero for r in rep.values()):
            # distinct derivatives become distinct placeholder symbols: a plain renaming
            return substituted(residual, rep)
        residual = residual.xreplace(rep)
        derivatives = None


def build_equation_system(flat: FlatSystem) -> EquationSystem:
    """Integer structure of a flat system, with der() turned into placeholder variables."""
    n = len(flat.variables)
    system = EquationSystem(
        symbols=[v.symbol for v in flat.variables], info=list(flat.variables),
        var_to_diff=[-1] * n, diff_to_var=[-1] * n, residuals=[], incidence=[], sources=[],
        eq_to_diff=[], diff_to_eq=[], parameters=list(flat.parameters))
    system.index_of = {s: i for i, s in enumerate(system.symbols)}
    if len(system.index_of) != n:
        seen: set = set()
        dup = [v.name for v in flat.variables if v.symbol in seen or seen.add(v.symbol)]
        raise ModelDefinitionError(f"Variables declared twice: {dup}.")
    # the equations' lists filled here at once (add_equation's five appends per equation)
    residuals, incidence = system.residuals, system.incidence
    for eq in flat.equations:
        residual = eq.residual
        symbols, derivatives = expression_atoms(residual)
        if derivatives:
            residual = replace_derivatives(system, residual, eq.label, derivatives)
            symbols = expression_atoms(residual)[0]
        incidence.append(system.incidence_of(residual, eq.label, symbols))
        residuals.append(residual)
    system.sources.extend(flat.equations)
    system.eq_to_diff.extend([-1] * len(residuals))
    system.diff_to_eq.extend([-1] * len(residuals))
    return system
