"""Offset aliases (acausal.compiler.structure.offsets): ``a = +-b + c`` with ``c`` constant.

The defining equation stays, ``a`` is replaced by ``+-b + c`` everywhere else. What must hold:
the constraint through a chain of masses with lengths is differentiated once per link (not
three times), the solution satisfies every equation as written (the substituted ones too), the
offset follows a parameter changed at run time, and nothing is substituted whose offset can
change during a run or whose variable is in a derivative chain.
"""

from __future__ import annotations

import pytest
import sympy as sp

from acausal import Component, Discrete, Eq, Input, Parameter, Variable, compile, connect, der
from acausal.components.translational import ConstantForce, Fixed, Mass, SpringDamper

LENGTHS = (0.2, 0.5, 0.3)
STIFFNESS = (1.0, 2.0, 4.0)
FORCE = 2.0


class LongChain(Component):
    """wall -SD- mass[0] -SD- mass[1] -SD- mass[2] <- force; masses of lengths LENGTHS."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.wall = Fixed()
        self.links = [SpringDamper(c=c, d=3.0) for c in STIFFNESS]
        self.masses = [Mass(m=1.0, L=length) for length in LENGTHS]
        self.force = ConstantForce(f_constant=FORCE)

    def connections(self):
        out = [connect(self.wall.flange, self.links[0].flange_a)]
        for i in range(3):
            out.append(connect(self.links[i].flange_b, self.masses[i].flange_a))
            if i < 2:
                out.append(connect(self.masses[i].flange_b, self.links[i + 1].flange_a))
        out.append(connect(self.masses[-1].flange_b, self.force.flange))
        return out


def _rest_positions(lengths, stiffness=STIFFNESS):
    """Centres of the masses at rest: each spring stretched by FORCE / c from the wall at 0."""
    out, left = [], 0.0
    for length, c in zip(lengths, stiffness):
        left += FORCE / c
        out.append(left + length / 2)
        left += length
    return out


def _equations_with(system, name: str) -> list[int]:
    symbol = system.symbols[system.index_of[sp.Symbol(name, real=True)]]
    return [e for e in range(system.n_eqs) if symbol in system.residuals[e].free_symbols]


def test_the_constraint_through_the_flanges_is_differentiated_once_per_link():
    cs = compile(LongChain())
    system = cs.system
    differentiated = [e for e in range(system.n_eqs) if system.diff_to_eq[e] != -1]
    # the spring-dampers' s_rel = flange_b.s - flange_a.s, and the wall's flange (its position
    # enters the first one): without the substitution also both flange equations of each mass
    assert len(differentiated) == 3 + 1
    for i in range(3):  # a flange position is left in its own equation only
        assert len(_equations_with(system, f"links[{i}].flange_b.s")) == 1
    assert cs.state_names == [f"masses[{i}].{x}" for i in range(3) for x in ("s", "v")]


def test_the_solution_satisfies_the_equations_as_written():
    sol = compile(LongChain()).simulate(60.0, rtol=1e-8, atol=1e-10)
    for i, length in enumerate(LENGTHS):
        s = sol[f"masses[{i}].s"]
        assert sol[f"masses[{i}].flange_a.s"] == pytest.approx(s - length / 2, abs=1e-12)
        assert sol[f"masses[{i}].flange_b.s"] == pytest.approx(s + length / 2, abs=1e-12)
        # substituted: s_rel = flange_b.s - flange_a.s holds along the whole run
        stretch = sol[f"links[{i}].flange_b.s"] - sol[f"links[{i}].flange_a.s"]
        assert sol[f"links[{i}].s_rel"] == pytest.approx(stretch, abs=1e-12)
    for i, centre in enumerate(_rest_positions(LENGTHS)):
        assert sol[f"masses[{i}].s"][-1] == pytest.approx(centre, abs=1e-5)


def test_the_offset_follows_a_length_changed_at_run_time():
    lengths = (0.2, 1.5, 0.3)
    sol = compile(LongChain()).simulate(60.0, params={"masses[1].L": lengths[1]}, rtol=1e-8,
                                        atol=1e-10)
    for i, centre in enumerate(_rest_positions(lengths)):
        assert sol[f"masses[{i}].s"][-1] == pytest.approx(centre, abs=1e-5)
    assert sol["masses[1].flange_b.s"][-1] - sol["masses[1].flange_a.s"][-1] == \
        pytest.approx(lengths[1], abs=1e-12)


class Shifted(Component):
    """``y = x + off``; ``z = 2 y`` reads y. ``off``: a parameter, an input or a discrete."""

    def __init__(self, kind="parameter", **kw):
        super().__init__(**kw)
        self.off = {"parameter": Parameter(0.5, unit="m"), "input": Input(0.5, unit="m"),
                    "discrete": Discrete(start=0.5, unit="m")}[kind]

    x = Variable(start=0.0, fixed=True, unit="m")
    y = Variable(unit="m")
    z = Variable(unit="m")

    def equations(self):
        return [Eq(der(self.x), 1.0), Eq(self.y, self.x + self.off), Eq(self.z, 2 * self.y)]


@pytest.mark.parametrize("kind, substituted", [("parameter", True), ("input", False),
                                               ("discrete", False)])
def test_only_a_constant_offset_is_substituted(kind, substituted):
    """An input or a discrete variable changes during a run: y stays in z's equation."""
    cs = compile(Shifted(kind))
    (z_equation,) = _equations_with(cs.system, "z")
    reads_y = sp.Symbol("y", real=True) in cs.system.residuals[z_equation].free_symbols
    assert reads_y is not substituted
    sol = cs.simulate(1.0, n_points=3)
    assert sol["z"] == pytest.approx(2 * (sol["x"] + 0.5), abs=1e-12)


class Coasting(Component):
    """``q = p + off`` with ``p`` a state (``der(p) = w``): ``q`` is substituted though it has
    the start value, ``p`` not (its derivative would lose its meaning)."""

    off = Parameter(1.0, unit="m")
    p = Variable(start=0.0, fixed=True, unit="m")
    w = Variable(start=2.0, fixed=True, unit="m/s")
    q = Variable(start=5.0, unit="m")
    r = Variable(unit="m")

    def equations(self):
        return [Eq(der(self.p), self.w), Eq(der(self.w), 0), Eq(self.q, self.p + self.off),
                Eq(self.r, 3 * self.q)]


def test_a_variable_in_a_derivative_chain_is_not_substituted():
    cs = compile(Coasting())
    (r_equation,) = _equations_with(cs.system, "r")
    symbols = cs.system.residuals[r_equation].free_symbols
    assert sp.Symbol("p", real=True) in symbols and sp.Symbol("q", real=True) not in symbols
    sol = cs.simulate(1.0, n_points=3)
    assert sol["p"] == pytest.approx([0.0, 1.0, 2.0], abs=1e-9)
    assert sol["r"] == pytest.approx(3 * (sol["p"] + 1.0), abs=1e-12)


class PiecewiseOffset(Component):
    """``y = x + (p if p > 0 else 0)``, and y in a Piecewise condition: an offset that is a
    function of parameters is not substituted (sympy would turn the condition into an ITE)."""

    p = Parameter(0.5, unit="m")
    x = Variable(start=0.0, fixed=True, unit="m")
    y = Variable(unit="m")
    z = Variable(unit="m")

    def equations(self):
        return [Eq(der(self.x), 1.0),
                Eq(self.y, self.x + sp.Piecewise((self.p, self.p > 0), (0, True))),
                Eq(self.z, sp.Piecewise((self.y, self.y > 1), (0, True)))]


def test_an_offset_that_is_a_function_of_parameters_stays():
    sol = compile(PiecewiseOffset()).simulate(1.0, n_points=5)
    expected = [y if y > 1 else 0.0 for y in sol["x"] + 0.5]
    assert sol["z"] == pytest.approx(expected, abs=1e-12)
