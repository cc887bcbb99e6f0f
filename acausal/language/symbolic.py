"""Symbolic building blocks shared by the language and the compiler: time and ``der``."""

from __future__ import annotations

import sympy as sp

from ..base.errors import ModelDefinitionError

#: The independent variable. Named ``time`` as in Modelica; printed as ``t`` in LaTeX.
time = sp.Symbol("time", real=True)


def _shared_fact_constructor():
    """A constructor of real symbols that share one assumption knowledge base.

    ``sympy.Symbol(name, real=True)`` derives the facts of ``real=True`` afresh for every symbol
    and keeps them in a dictionary of its own: about 0.6 kB and 2.7 us per symbol against 0.14 kB
    and 0.3 us for a shared one (benchmarks/micro_costs.py). The facts of a real symbol are the
    same for all of them, so acausal's symbols share those of one prototype (equal and hashed
    exactly like sympy's own). The internals this uses are checked here; on any other sympy,
    ``sympy.Symbol`` is used as it is.
    """
    prototype = sp.Symbol("acausal_real_prototype", real=True)
    try:
        facts = (prototype._assumptions, prototype._assumptions_orig, prototype._assumptions0)

        def make(name: str) -> sp.Symbol:
            obj = sp.Expr.__new__(sp.Symbol)
            obj.name = name
            obj._assumptions, obj._assumptions_orig, obj._assumptions0 = facts
            return obj

        probe = make("acausal_probe")
        reference = sp.Symbol("acausal_probe", real=True)
        if probe == reference and hash(probe) == hash(reference) and probe.is_real \
                and probe.is_commutative and (probe - reference) == 0:
            return make
    except (AttributeError, TypeError):
        pass
    return lambda name: sp.Symbol(name, real=True)


#: ``real_symbol(name)`` is ``sympy.Symbol(name, real=True)``, built faster and smaller.
real_symbol = _shared_fact_constructor()


class der(sp.Function):
    """Time derivative of a variable or of an expression: ``der(x)``.

    ``der`` of a matrix (a vector variable) is taken element-wise. ``der`` of an expression is
    expanded by the chain rule during flattening; parameters and numbers have derivative zero.
    """

    nargs = 1

    @classmethod
    def eval(cls, arg):
        if arg.is_Number:
            return sp.S.Zero
        return None

    def __new__(cls, arg, **kwargs):
        if isinstance(arg, sp.MatrixBase):
            return arg.applyfunc(lambda a: der(a))
        return super().__new__(cls, arg, **kwargs)

    @classmethod
    def renamed(cls, arg: sp.Expr) -> der:
        """``der(arg)`` built without sympy's function machinery (evaluation, the cache), for
        renaming an existing ``der(x)``: it is the same object as ``der(arg)`` (equal, same
        hash) for a fraction of the cost."""
        obj = sp.Basic.__new__(cls, arg)
        obj.nargs = _ONE_ARGUMENT
        return obj

    def _latex(self, printer, exp=None):
        inner = printer._print(self.args[0])
        if self.args[0].is_Symbol:
            tex = r"\dot{%s}" % inner
        else:
            tex = r"\frac{d}{dt}\left(%s\right)" % inner
        # sympy passes exp when the derivative is raised to a power (der(x)**2)
        return tex if exp is None else r"\left(%s\right)^{%s}" % (tex, exp)

    def _sympystr(self, printer):
        return "der(%s)" % printer._print(self.args[0])


_ONE_ARGUMENT = der(sp.Symbol("x")).nargs


class pre(sp.Function):
    """The value just before the current event (Modelica ``pre``).

    Event actions are always computed from the values just before the event, so inside
    ``When`` actions and conditions ``pre(x)`` and ``x`` are the same; ``pre`` documents intent.
    """

    nargs = 1


class initial(sp.Function):  # noqa: N801 - mirrors Modelica's initial()
    """``When(initial(), assign(d, value), ...)``: set discrete variables at the start time
    (Modelica's ``when initial() then``), e.g. a friction element's mode from the sign of its
    initial relative speed. ``value`` is computed from the consistent initial values;
    initialisation repeats until the values and the discrete variables agree (a few rounds).
    The clause never fires after the start. Only ``assign`` actions (give states start values).
    """

    nargs = 0


class event_if(sp.Function):
    """``event_if(condition, a, b)``: ``a`` where ``condition`` holds, else ``b``, switching
    only at located events (Modelica's event-generating ``if``).

    Plain ``Piecewise``/``Abs``/``Max`` are evaluated as written without events (``noEvent``
    semantics); ``event_if`` instead keeps the branch fixed between events, so the integrator
    never steps across the switch.
    """

    nargs = 3


def Eq(lhs, rhs) -> sp.Equality:  # noqa: N802 - mirrors sympy.Eq
    """An unevaluated equation ``lhs = rhs``.

    Same as ``sympy.Eq(lhs, rhs, evaluate=False)``: sympy's evaluating ``Eq`` asks the assumption
    system whether both sides are equal, which costs about a millisecond per equation and
    dominates the build time of large models. A list or tuple side is a column vector, so that
    ``Eq(self.r, [0, 0, 0])`` equates a vector variable element by element (sympy cannot
    sympify a list).
    """
    if isinstance(lhs, (list, tuple)):
        lhs = sp.Matrix(lhs)
    if isinstance(rhs, (list, tuple)):
        rhs = sp.Matrix(rhs)
    return sp.Equality(lhs, rhs, evaluate=False)


def matrix_residuals(lhs, rhs, where: str) -> list[tuple[sp.Expr, sp.Equality]]:
    """The scalar residuals (with each element's equation for display) of a vector or matrix
    equation ``lhs = rhs``; ``where`` names it (``"equation 2 of Point 'p'"``).

    Both sides must have the same shape: a vector equated to a scalar (``Eq(frame.r_0, 0)``)
    is refused with a ModelDefinitionError that names the sides, their shapes and what to
    write instead (sympy would fail with "Data type not understood")."""
    sides = [sp.Matrix(x) if isinstance(x, (sp.MatrixBase, sp.Tuple)) else x
             for x in (lhs, rhs)]
    shapes = [x.shape if isinstance(x, sp.MatrixBase) else None for x in sides]
    if shapes[0] != shapes[1]:
        path = where.rpartition(" '")[2].rstrip("'") if where.endswith("'") else ""
        path = "" if path == "<root>" else path  # the model itself: names without a prefix
        names = [_side_name(x, path) for x in sides]
        vector = 0 if shapes[0] is not None else 1
        n = sides[vector].shape[0] * sides[vector].shape[1]
        other = sides[1 - vector]
        if shapes[1 - vector] is None:  # a vector and a scalar
            value = sp.sstr(other, full_prec=False)
            listed = f"[{', '.join([value] * n)}]" if n <= 6 else f"{value}*sp.ones({n}, 1)"
            fix = (f"to give every element the value {value}, write Eq({names[vector]}, "
                   f"{listed}); or write one equation per element, e.g. "
                   f"Eq({names[vector]}[0], {value})")
        else:
            fix = ("write both sides with the same number of elements in the same shape (a "
                   "column vector: sp.Matrix([...]) or a list), or one equation per element")
        raise ModelDefinitionError(
            f"{where}: Eq({names[0]}, {names[1]}) equates {_shape_text(shapes[0])} with "
            f"{_shape_text(shapes[1])}: both sides of an equation need the same shape. "
            f"{fix[0].upper() + fix[1:]}.")
    lhs_m, rhs_m = sides
    if shapes[0] is None:
        return [(residual(lhs, rhs), sp.Equality(lhs, rhs, evaluate=False))]
    diff = lhs_m - rhs_m
    return [(diff[i], sp.Equality(lhs_m[i], rhs_m[i], evaluate=False))
            for i in range(diff.shape[0] * diff.shape[1])]


def _shape_text(shape: tuple | None) -> str:
    if shape is None:
        return "a scalar"
    rows, cols = shape
    if cols == 1 or rows == 1:
        return f"a {max(rows, cols)}-vector"
    return f"a {rows}x{cols} matrix"


def _side_name(side, path: str) -> str:
    """A side as the component writes it: ``self.frame.r_0`` for the elements of a vector
    variable (symbols ``fix.frame.r_0[0]``, ``[1]``, ...) of the component at ``path``."""
    if isinstance(side, sp.MatrixBase):
        names = [getattr(x, "name", None) for x in side]
        base = names[0][:-3] if names and names[0] and names[0].endswith("[0]") else None
        if base and names == [f"{base}[{i}]" for i in range(len(names))]:
            inside = base[len(path) + 1:] if path and base.startswith(path + ".") else \
                (base if not path else None)
            return f"self.{inside}" if inside else base
        text = sp.sstr(list(side), full_prec=False)
        return text if len(text) <= 60 else text[:57] + "..."
    text = sp.sstr(side, full_prec=False)
    return text if len(text) <= 60 else text[:57] + "..."


class UnitFree:
    """A relation the compiler's unit check leaves out: see :func:`unit_free`."""

    __slots__ = ("relation",)

    def __init__(self, relation: object) -> None:
        self.relation = relation

    def __repr__(self) -> str:
        return f"unit_free({self.relation!r})"


def unit_free(relation: object) -> UnitFree:
    """Mark an equation (a relation, or a matrix relation) of ``equations()`` or
    ``initial_equations()`` as exempt from the unit check: an empirical law whose terms cannot
    have consistent units (a fitted polynomial in a speed, a friction curve in mixed units).
    Everything else about it is as without the mark. Prefer declaring units that make the law
    consistent (a coefficient in N.s2/m2); see docs/user_guide.md, "Units"."""
    if isinstance(relation, UnitFree):
        return relation
    return UnitFree(relation)


def sum_of(terms) -> sp.Expr:
    """The sum of scalar expressions, unevaluated (kept in order, nothing combined).

    Built by ``Add._from_args``: sympy's ``Add(..., evaluate=False)`` costs about fifteen times
    more (argument conversion and its cache; benchmarks/micro_costs.py), which counts when a
    model has 10^5 equations.
    """
    terms = list(terms)
    if not terms:
        return sp.S.Zero
    if len(terms) == 1:
        return terms[0]
    return sp.Add._from_args(terms, True)  # scalar expressions commute


def product_of(factors) -> sp.Expr:
    """The product of scalar expressions, unevaluated but flat: nested products are opened
    and their numbers multiplied into one leading coefficient (so ``-x`` stays
    recognisable as ``-1 * x``)."""
    coeff = sp.S.One
    rest = []
    for f in factors:
        for g in (f.args if f.is_Mul else (f,)):
            if g.is_Number:
                # sympy's multiplication of numbers costs a microsecond: skipped for a 1
                coeff = g if coeff is sp.S.One else coeff if g is sp.S.One else coeff * g
            else:
                rest.append(g)
    if coeff is sp.S.Zero:
        return coeff
    if coeff is not sp.S.One:
        rest.insert(0, coeff)
    if not rest:
        return coeff
    return rest[0] if len(rest) == 1 else sp.Mul._from_args(rest, True)


def reciprocal(x: sp.Expr) -> sp.Expr:
    """``1/x`` as the unevaluated power ``x**-1``: what ``Pow(x, -1, evaluate=False)`` builds,
    without its argument conversion and cache look-up (about 6 us where this costs 0.5 us; code
    generation divides by a coefficient of nearly every equation it solves)."""
    out = sp.Expr.__new__(sp.Pow, x, sp.S.NegativeOne)
    out.is_commutative = x.is_commutative
    return out


def _negated(term: sp.Expr) -> sp.Expr:
    if term.is_Number:
        return -term
    return product_of((sp.S.NegativeOne, term))


def residual(lhs: sp.Expr, rhs: sp.Expr) -> sp.Expr:
    """``lhs - rhs`` as a sum of terms, built without sympy's canonicalisation.

    sympy's evaluated subtraction sorts and combines terms, which costs ~0.1 ms per equation and
    dominates flattening of large models. When the two sides share a symbol the terms may cancel,
    so the evaluated subtraction is used; otherwise the terms are simply concatenated.
    """
    if isinstance(lhs, sp.Symbol) and isinstance(rhs, sp.Symbol) and lhs != rhs:
        # two different symbols (every equality of a connection): the general path's result,
        # without its conversions and symbol sets
        return sum_of([lhs, _negated(rhs)])
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    if rhs is sp.S.Zero:  # identity checks only: .is_zero would ask the assumption system
        return lhs
    if lhs is sp.S.Zero:
        return -rhs
    if lhs.free_symbols & rhs.free_symbols:
        return lhs - rhs
    terms = list(lhs.args) if lhs.is_Add else [lhs]
    terms.extend(_negated(t) for t in (rhs.args if rhs.is_Add else (rhs,)))
    return sum_of(terms)


def substituted(expr: sp.Basic, mapping: dict) -> sp.Basic:
    """``expr`` with the sub-expressions in ``mapping`` replaced, the tree rebuilt as it is.

    For renamings: ``mapping`` must send distinct atoms (symbols, ``der(x)``) to distinct
    symbols or negated symbols, so that no terms can combine or cancel. Sums and products then
    keep their terms in order (sympy's ``_from_args``: no sorting, no collecting), which costs
    about 7 us for a spring-damper's force equation where ``xreplace``, which re-evaluates every
    node, costs about 95 us (benchmarks/micro_costs.py); a product that receives a negated
    symbol is flattened (:func:`product_of`).
    """
    new = mapping.get(expr)
    if new is not None:
        return new
    return _substituted_below(expr, mapping)


def _substituted_below(expr: sp.Basic, mapping: dict) -> sp.Basic:
    """:func:`substituted` of a node that is not itself in ``mapping``. Each argument is looked
    up here, and only one that has arguments of its own is descended into: most arguments are
    symbols and numbers, which then cost no call."""
    args = expr.args
    if not args:
        return expr
    new_args = []
    changed = False
    for a in args:
        b = mapping.get(a)
        if b is None:
            b = a if a.is_Atom else _substituted_below(a, mapping)
        if b is not a:
            changed = True
        new_args.append(b)
    if not changed:
        # nothing renamed below: the node itself (rebuilding it costs time, and sympy rewrites
        # some nodes when they are built, e.g. a Piecewise inside a condition becomes an ITE)
        return expr
    return rebuilt(expr, tuple(new_args))


def rebuilt(expr: sp.Basic, new_args: tuple) -> sp.Basic:
    """The node ``expr`` with the arguments ``new_args`` (renamed ones, see
    :func:`substituted`), without sympy's evaluation."""
    if type(expr) is der and new_args[0].is_Symbol:
        return der.renamed(new_args[0])
    if expr.is_Add:
        return expr.func._from_args(new_args, expr.is_commutative)
    if expr.is_Mul:
        if any(a.is_Mul for a in new_args):
            return product_of(new_args)
        return expr.func._from_args(new_args, expr.is_commutative)
    try:  # the expression was evaluated already: evaluating again would only cost time
        return expr.func(*new_args, evaluate=False)
    except TypeError:  # a node whose class takes no evaluate flag (a Piecewise branch)
        return expr.func(*new_args)


def expression_atoms(expr: sp.Basic) -> tuple[list, list]:
    """The symbols of ``expr`` outside ``der()``, and its outermost ``der()`` sub-expressions
    (one walk of the tree; sympy's ``free_symbols`` and ``has`` walk it once each).

    A sub-expression that occurs several times (the same object) is walked once: repeated
    differentiation shares sub-trees (the product rule keeps the other factors), so the tree
    of a constraint differentiated k times can be exponentially larger than its graph."""
    symbols, derivatives = [], []
    stack = [expr]
    seen: set[int] = set()
    pop, push, found = stack.pop, stack.extend, symbols.append  # bound once: every node
    while stack:
        node = pop()
        if node.is_Symbol:
            found(node)
        elif isinstance(node, der):
            derivatives.append(node)
        else:
            args = node.args  # a property in sympy: read once
            if args:
                key = id(node)
                if key not in seen:
                    seen.add(key)
                    push(args)
    return symbols, derivatives


def latex_symbol_names(symbols) -> dict:
    """Map each flattened symbol to a readable LaTeX name (dots kept, ``time`` as ``t``)."""
    names = {time: "t"}
    for s in symbols:
        if s is time or not isinstance(s, sp.Symbol):
            continue
        # Every name is set explicitly: sympy would otherwise read suffixes such as "_ddot" or
        # "_hat" in a plain name (theta1_ddot) as accents.
        head, _, tail = s.name.rpartition(".")
        tail_tex = tail.replace("_", r"\_")
        head_tex = head.replace("_", r"\_")
        names[s] = r"\mathrm{%s}.%s" % (head_tex, tail_tex) if head else tail_tex
    return names
