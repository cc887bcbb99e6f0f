"""Alias elimination (acausal.compiler.structure.alias) on tiny hand-made models."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import (
    Component,
    Connector,
    Eq,
    Flow,
    InitializationError,
    Parameter,
    Potential,
    Variable,
    compile,
    connect,
    der,
)
from acausal.compiler.structure.alias import eliminate_aliases


class Pin(Connector):
    """Electrical pin: potential ``v``, current ``i`` (positive into the component)."""

    v = Potential(unit="V")
    i = Flow(unit="A")


class Resistor(Component):
    """``p.v - n.v = R p.i``; ``p.i + n.i = 0``."""

    R = Parameter(1.0, unit="Ohm")
    p = Pin()
    n = Pin()

    def equations(self):
        return [Eq(self.p.v - self.n.v, self.R * self.p.i), Eq(self.p.i + self.n.i, 0)]


class Ground(Component):
    """``p.v = 0``."""

    p = Pin()

    def equations(self):
        return [Eq(self.p.v, 0)]


class Source(Component):
    """Constant voltage: ``p.v - n.v = V``; ``p.i + n.i = 0``."""

    V = Parameter(1.0, unit="V")
    p = Pin()
    n = Pin()

    def equations(self):
        return [Eq(self.p.v - self.n.v, self.V), Eq(self.p.i + self.n.i, 0)]


class Circuit(Component):
    """Source -> resistor -> ground."""

    src = Source(V=2.0)
    res = Resistor(R=4.0)
    gnd = Ground()

    def connections(self):
        return [connect(self.src.p, self.res.p), connect(self.res.n, self.src.n),
                connect(self.src.n, self.gnd.p)]


class Flange(Connector):
    """1-D flange: position ``s``, force ``f``."""

    s = Potential(unit="m")
    f = Flow(unit="N")


class Body(Component):
    """Point mass on a line: ``der(s) = v``; ``m der(v) = flange_a.f + flange_b.f``;
    ``s = flange_a.s = flange_b.s``."""

    m = Parameter(1.0, unit="kg")
    flange_a = Flange()
    flange_b = Flange()
    s = Variable(unit="m")
    v = Variable(unit="m/s")

    def equations(self):
        return [Eq(self.s, self.flange_a.s), Eq(self.s, self.flange_b.s),
                Eq(der(self.s), self.v),
                Eq(self.m * der(self.v), self.flange_a.f + self.flange_b.f)]


def names_of(system) -> list[str]:
    return [system.name(v) for v in range(system.n_vars)]


def alias_of(system, amap, reduced, name: str) -> tuple[int, str | None]:
    """(sign, representative name) of an original variable (sign 0: identically zero)."""
    k = names_of(system).index(name)
    t = amap.target[k]
    return amap.sign[k], (reduced.name(t) if t >= 0 else None)


# --------------------------------------------------------------------------------------------


def test_connection_equations_are_removed_from_a_circuit(reduce_aliases):
    flat, system, reduced, amap = reduce_aliases(Circuit())
    # 2 + 2 + 1 component equations; connection sets {src.p, res.p}: 1 potential + 1 flow,
    # {res.n, src.n, gnd.p}: 2 potentials + 1 flow.
    assert system.n_eqs == 5 + 2 + 3 == 10
    assert system.n_vars == 10  # five pins
    # Left: Ohm's law and the source voltage (the ground fixes one potential to 0), plus the
    # three-member current sum at the ground node (not an alias when it is parsed; it reduces
    # to gnd.p.i = 0 only after substitution). Equal potentials and two-member current sums
    # are all gone.
    labels = sorted(reduced.sources[e].label for e in range(reduced.n_eqs))
    assert labels == ["connection set {gnd.p, res.n, src.n}", "equation 1 of Resistor 'res'",
                      "equation 1 of Source 'src'"]
    assert reduced.n_vars == reduced.n_eqs == 3
    assert system.n_eqs - reduced.n_eqs == 7


def test_circuit_alias_signs(reduce_aliases):
    flat, system, reduced, amap = reduce_aliases(Circuit())
    # ground and everything connected to it is zero
    for name in ("gnd.p.v", "src.n.v", "res.n.v"):
        assert alias_of(system, amap, reduced, name) == (0, None)
    # equal potentials: same representative, sign +1
    s1, r1 = alias_of(system, amap, reduced, "src.p.v")
    s2, r2 = alias_of(system, amap, reduced, "res.p.v")
    assert r1 == r2 is not None and s1 == s2 == 1
    # currents: res.p.i = -src.p.i (two-member connection sum) and res.n.i = -res.p.i
    currents = {n: alias_of(system, amap, reduced, n) for n in
                ("src.p.i", "res.p.i", "res.n.i", "src.n.i")}
    reps = {r for _, r in currents.values()}
    assert len(reps) == 1 and None not in reps
    assert currents["res.p.i"][0] == -currents["src.p.i"][0]
    assert currents["res.n.i"][0] == -currents["res.p.i"][0]
    assert currents["src.n.i"][0] == -currents["src.p.i"][0]
    # gnd.p.i takes the remainder of the three-member flow sum: not an alias of the others
    assert alias_of(system, amap, reduced, "gnd.p.i")[1] not in reps


def test_reduced_circuit_solves_to_ohms_law():
    cs = compile(Circuit())
    sol = cs.simulate(1.0, n_points=3)
    assert sol["res.p.i"] == pytest.approx([0.5] * 3)
    assert sol["src.p.i"] == pytest.approx([-0.5] * 3)
    assert sol["src.p.v"] == pytest.approx([2.0] * 3)
    assert sol["gnd.p.v"] == pytest.approx([0.0] * 3)


def test_der_x_equals_v_makes_v_the_derivative_of_x(reduce_aliases):
    class Point(Component):
        s = Variable()
        v = Variable()

        def equations(self):
            return [Eq(der(self.s), self.v), Eq(der(self.v), -self.s)]

    flat, system, reduced, amap = reduce_aliases(Point())
    assert system.n_eqs == 2
    assert reduced.n_eqs == 1  # der(s) = v is gone
    names = names_of(reduced)
    s, v = names.index("s"), names.index("v")
    assert reduced.var_to_diff[s] == v
    assert reduced.diff_to_var[v] == s
    assert "der(s)" not in names
    assert alias_of(system, amap, reduced, "der(s)") == (1, "v")
    # the remaining equation is der(v) + s = 0 in terms of the chain s -> v -> der(v)
    dv = reduced.var_to_diff[v]
    assert reduced.name(dv) == "der(v)"
    assert sorted(reduced.incidence[0]) == sorted([s, dv])


def test_der_x_equals_minus_v_keeps_the_sign(reduce_aliases):
    class Point(Component):
        s = Variable()
        v = Variable()

        def equations(self):
            return [Eq(der(self.s), -self.v), Eq(der(self.v), self.s)]

    flat, system, reduced, amap = reduce_aliases(Point())
    sign_v, rep_v = alias_of(system, amap, reduced, "v")
    sign_ds, rep_ds = alias_of(system, amap, reduced, "der(s)")
    # v = -der(s): one representative, opposite signs, and it is the derivative of s
    assert rep_v == rep_ds
    assert sign_v == -sign_ds
    s = names_of(reduced).index("s")
    assert reduced.var_to_diff[s] == names_of(reduced).index(rep_v)
    assert sign_ds == 1  # the chain link itself is der(s) = +rep
    assert reduced.n_eqs == 1


def test_der_x_equals_x_stays_an_equation(reduce_aliases):
    class Growth(Component):
        x = Variable()

        def equations(self):
            return [Eq(der(self.x), self.x)]

    flat, system, reduced, amap = reduce_aliases(Growth())
    assert reduced.n_eqs == 1
    x = names_of(reduced).index("x")
    assert reduced.var_to_diff[x] != -1
    assert alias_of(system, amap, reduced, "x") == (1, "x")


def test_derivatives_of_different_variables_are_not_merged(reduce_aliases):
    """der(a) = der(b) says nothing about a = b: it must stay an equation."""

    class Twins(Component):
        a = Variable()
        b = Variable()

        def equations(self):
            return [Eq(der(self.a), der(self.b)), Eq(der(self.a), -self.a + self.b)]

    flat, system, reduced, amap = reduce_aliases(Twins())
    names = names_of(reduced)
    assert "a" in names and "b" in names
    a, b = names.index("a"), names.index("b")
    assert reduced.var_to_diff[a] != reduced.var_to_diff[b]
    assert reduced.n_eqs == 2


def test_two_rigidly_connected_masses_share_one_derivative_chain(reduce_aliases):
    class TwoBodies(Component):
        b1 = Body(m=1.0)
        b2 = Body(m=3.0)

        def connections(self):
            return [connect(self.b1.flange_b, self.b2.flange_a)]

    flat, system, reduced, amap = reduce_aliases(TwoBodies())
    s_sign1, s1 = alias_of(system, amap, reduced, "b1.s")
    s_sign2, s2 = alias_of(system, amap, reduced, "b2.s")
    v_sign1, v1 = alias_of(system, amap, reduced, "b1.v")
    v_sign2, v2 = alias_of(system, amap, reduced, "b2.v")
    assert s1 == s2 and s_sign1 == s_sign2 == 1
    assert v1 == v2 and v_sign1 == v_sign2 == 1
    names = names_of(reduced)
    s, v = names.index(s1), names.index(v1)
    assert reduced.var_to_diff[s] == v
    # both accelerations are the one der(v)
    a = reduced.var_to_diff[v]
    assert a != -1
    assert alias_of(system, amap, reduced, "der(b1.v)") == alias_of(system, amap, reduced,
                                                                    "der(b2.v)")
    # exactly one derivative chain s -> v -> a
    chains = [u for u in range(reduced.n_vars) if reduced.var_to_diff[u] != -1]
    assert sorted(chains) == sorted([s, v])
    # left: the two Newton equations (with the internal cut force) only
    assert reduced.n_eqs == 2
    assert all("Body" in reduced.sources[e].label for e in range(reduced.n_eqs))


def test_conflicting_fixed_starts_on_aliases_raise_naming_both(build):
    class TwoBodies(Component):
        b1 = Body(s=Variable(start=0.0, fixed=True))
        b2 = Body(s=Variable(start=1.0, fixed=True))

        def connections(self):
            return [connect(self.b1.flange_b, self.b2.flange_a)]

    flat, system = build(TwoBodies())
    with pytest.raises(InitializationError) as info:
        eliminate_aliases(system)
    assert "b1.s" in str(info.value) and "b2.s" in str(info.value)
    # the same through compile()
    with pytest.raises(InitializationError, match=r"b1\.s.*b2\.s|b2\.s.*b1\.s"):
        compile(TwoBodies())


def test_conflicting_fixed_starts_through_a_sign_flip(reduce_aliases):
    """a = -b with fixed a = 1 and fixed b = 1 conflict (b would have to be -1)."""

    class Neg(Component):
        a = Variable(start=1.0, fixed=True)
        b = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(self.a, -self.b), Eq(der(self.a), -self.a)]

    with pytest.raises(InitializationError) as info:
        reduce_aliases(Neg())
    assert "'a'" in str(info.value) or "a (as" in str(info.value)
    assert "b (as" in str(info.value)


def test_consistent_fixed_starts_on_aliases_are_accepted(reduce_aliases):
    class Neg(Component):
        a = Variable(start=1.0, fixed=True)
        b = Variable(start=-1.0, fixed=True)

        def equations(self):
            return [Eq(self.a, -self.b), Eq(der(self.a), -self.a)]

    flat, system, reduced, amap = reduce_aliases(Neg())
    assert reduced.n_vars == 2  # a (or b) and its derivative
    rep = [i for i in reduced.info if i is not None]
    assert len(rep) == 1 and rep[0].fixed
    # the merged start is expressed for the representative, with its sign
    assert rep[0].start == (1.0 if rep[0].name == "a" else -1.0)


def test_fixed_nonzero_start_on_an_open_flow_raises(reduce_aliases):
    class Open(Component):
        b = Body(flange_a=Flange(f=Variable(start=2.0, fixed=True)))

    with pytest.raises(InitializationError, match=r"b\.flange_a\.f"):
        reduce_aliases(Open())


def test_alias_map_covers_every_original_variable(reduce_aliases):
    flat, system, reduced, amap = reduce_aliases(Circuit())
    assert amap.names == names_of(system)
    for sign, target in zip(amap.sign, amap.target):
        assert (sign == 0) == (target == -1)
        assert sign in (-1, 0, 1)
        assert target < reduced.n_vars


def test_mirrored_chains_merge_with_a_sign(reduce_aliases):
    """s2 = -s1 with der(s1) = v1 and der(s2) = v2: the chains merge with v2 = -v1."""

    class Mirror(Component):
        s1 = Variable(start=1.0, fixed=True)
        v1 = Variable(start=0.0, fixed=True)
        s2 = Variable()
        v2 = Variable()

        def equations(self):
            return [Eq(der(self.s1), self.v1), Eq(der(self.s2), self.v2), Eq(self.s2, -self.s1),
                    Eq(der(self.v1), -self.s1)]

    flat, system, reduced, amap = reduce_aliases(Mirror())
    assert reduced.n_eqs == 1
    s_sign1, s1 = alias_of(system, amap, reduced, "s1")
    s_sign2, s2 = alias_of(system, amap, reduced, "s2")
    v_sign1, v1 = alias_of(system, amap, reduced, "v1")
    v_sign2, v2 = alias_of(system, amap, reduced, "v2")
    assert s1 == s2 and s_sign1 == -s_sign2
    assert v1 == v2 and v_sign1 == -v_sign2
    names = names_of(reduced)
    assert reduced.var_to_diff[names.index(s1)] == names.index(v1)
    sol = compile(Mirror()).simulate(3.0, rtol=1e-10, atol=1e-12)
    assert sol["s2"] == pytest.approx(-np.cos(sol.t), abs=1e-7)
    assert sol["v2"] == pytest.approx(np.sin(sol.t), abs=1e-7)
    assert sol["der(s2)"] == pytest.approx(np.sin(sol.t), abs=1e-7)


def test_opposite_aliases_leave_a_real_equation():
    """x = y and x = -y: the second is not an alias any more, it says x = 0."""

    class Neg(Component):
        x = Variable(start=3.0)
        y = Variable(start=3.0)

        def equations(self):
            return [Eq(self.x, self.y), Eq(self.x, -self.y)]

    sol = compile(Neg()).simulate(1.0, n_points=2)
    assert list(sol["x"]) == [0.0, 0.0] and list(sol["y"]) == [0.0, 0.0]


def test_negative_derivative_alias_simulates_correctly():
    """der(s) = -v, der(v) = s: s'' = -s."""

    class Point(Component):
        s = Variable(start=1.0, fixed=True)
        v = Variable(start=0.0, fixed=True)

        def equations(self):
            return [Eq(der(self.s), -self.v), Eq(der(self.v), self.s)]

    sol = compile(Point()).simulate(3.0, rtol=1e-10, atol=1e-12)
    assert sol["s"] == pytest.approx(np.cos(sol.t), abs=1e-7)
    assert sol["v"] == pytest.approx(np.sin(sol.t), abs=1e-7)
    assert sol["der(s)"] == pytest.approx(-np.sin(sol.t), abs=1e-7)
