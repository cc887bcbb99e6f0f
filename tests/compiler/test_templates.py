"""Equation templates: equations derived once per kind of component instance and renamed.

The renamed equations must be the equations each instance's own ``equations()`` gives (the
same relation, possibly with terms in another order), and instances that differ in anything
their equations can read (structural parameters, plain attributes, shared outer parts) must
not share a template.
"""

import sys
from pathlib import Path

import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, connect, der
from acausal.compiler.flatten import flatten
from acausal.components.translational import ConstantForce, Fixed, Mass, SpringDamper
from acausal.language.symbolic import product_of, real_symbol, substituted, sum_of

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))


class Chain(Component):
    def __init__(self, n=4, **kw):
        super().__init__(**kw)
        self.n = n
        self.wall = Fixed()
        self.links = [SpringDamper(c=1.0 + i, d=0.5) for i in range(n)]
        self.masses = [Mass(m=1.0 + i) for i in range(n)]
        self.force = ConstantForce(f_constant=2.0)

    def connections(self):
        out = [connect(self.wall.flange, self.links[0].flange_a)]
        for i in range(self.n):
            out.append(connect(self.links[i].flange_b, self.masses[i].flange_a))
            if i + 1 < self.n:
                out.append(connect(self.masses[i].flange_b, self.links[i + 1].flange_a))
        out.append(connect(self.masses[-1].flange_b, self.force.flange))
        return out


def _examples():
    import andrews_squeezer
    import coordinate_spring_damper_ext as csde
    import crank_rocker
    import piston_engine
    import segway
    import slipping_wheel

    from acausal.components.multibody.chains import SpatialChain

    return [("chain", lambda: Chain(4)),
            ("spatial chain", lambda: SpatialChain(4)),
            ("piston engine", piston_engine.PistonEngine),
            ("andrews squeezer", andrews_squeezer.AndrewsSqueezer),
            ("crank-rocker", crank_rocker.CrankRocker),
            ("segway", segway.Segway),
            ("slipping wheel", lambda: slipping_wheel.build("thrown")),
            *[(f"coordinate spring damper {case}",
               lambda case=case: csde.MassOnCoordinateSpringDamperExt(csde.CASES[case][0], 0.1))
              for case in csde.CASES]]


def _equal(a: sp.Expr, b: sp.Expr) -> bool:
    return a == b or sp.expand(a - b) == 0


@pytest.mark.parametrize("name,make", _examples(), ids=[n for n, _ in _examples()])
def test_renamed_equations_are_the_instances_own(name, make):
    shared = flatten(make())
    own = flatten(make(), share_templates=False)
    assert [e.label for e in shared.equations] == [e.label for e in own.equations]
    for a, b in zip(shared.equations, own.equations):
        assert _equal(a.residual, b.residual), (a.label, a.residual, b.residual)
        assert _equal(a.relation().lhs - a.relation().rhs, b.relation().lhs - b.relation().rhs)
    assert [v.name for v in shared.variables] == [v.name for v in own.variables]
    assert [p.name for p in shared.parameters] == [p.name for p in own.parameters]
    assert len(shared.events) == len(own.events)


def test_a_kind_of_component_derives_its_equations_once():
    calls = []

    class Counted(Mass):
        def equations(self):
            calls.append(self.path)
            return super().equations()

    class Row(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.masses = [Counted(m=1.0) for _ in range(5)]
            self.links = [SpringDamper() for _ in range(4)]

        def connections(self):
            return [connect(self.masses[i].flange_b, self.links[i].flange_a) for i in range(4)] \
                + [connect(self.links[i].flange_b, self.masses[i + 1].flange_a)
                   for i in range(4)]

    flat = flatten(Row())
    assert calls == ["masses[0]"]
    for i in range(5):  # each instance still has its own equations, in its own names
        own = [e.residual for e in flat.equations if e.origin == f"masses[{i}]"]
        assert len(own) == 5
        assert all(s.name.startswith(f"masses[{i}].") for r in own for s in r.free_symbols)


def test_a_chain_of_frames_derives_each_kind_once(monkeypatch):
    """The joints and links of a multibody chain share templates although the connection graph
    marks each frame with its own neighbour towards the root (``_graph_parent``, another node
    for every link): one derivation per kind (the joints alternate between two axes), every
    other instance renamed."""
    from acausal.compiler import flatten as flatten_module
    from acausal.components.multibody.chains import SpatialChain

    derived = []
    own = flatten_module._component_equations

    def counted(comp, where, var_symbols):
        derived.append(comp.path)
        return own(comp, where, var_symbols)

    monkeypatch.setattr(flatten_module, "_component_equations", counted)
    flat = flatten(SpatialChain(6))
    assert derived == ["", "world", "joints[0]", "joints[1]", "links[0]"]
    assert len([e for e in flat.equations if e.origin == "links[5]"]) == \
        len([e for e in flat.equations if e.origin == "links[0]"])


class Gain(Component):
    """y = k u with a plain Python number k (not a parameter): part of the template key."""

    u = Variable()
    y = Variable()

    def __init__(self, k=1.0, **kw):
        super().__init__(**kw)
        self.k = k

    def equations(self):
        return [Eq(self.y, self.k * self.u)]


class Source(Component):
    u = Variable()
    level = Parameter(1.0)
    use_ramp = Parameter(False)

    def equations(self):
        from acausal import time
        return [Eq(self.u, self.level * time if self.use_ramp else self.level)]


def test_instances_that_differ_in_what_equations_read_do_not_share():
    class Model(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.sources = [Source(use_ramp=False), Source(use_ramp=True), Source(use_ramp=False)]
            self.gains = [Gain(k=2.0), Gain(k=3.0), Gain(k=2.0)]

        def equations(self):
            return [Eq(g.u, s.u) for g, s in zip(self.gains, self.sources)]

    flat = flatten(Model())
    by_origin = {e.origin: e.residual for e in flat.equations if e.origin}
    t = sp.Symbol("time", real=True)
    for i, (k, ramp) in enumerate([(2.0, False), (3.0, True), (2.0, False)]):
        y, u = (sp.Symbol(f"gains[{i}].{n}", real=True) for n in ("y", "u"))
        assert _equal(by_origin[f"gains[{i}]"], y - k * u)
        su, level = (sp.Symbol(f"sources[{i}].{n}", real=True) for n in ("u", "level"))
        assert _equal(by_origin[f"sources[{i}]"], su - (level * t if ramp else level))


def test_a_flag_computed_from_a_parameter_value_separates_templates():
    """CoordinateSpringDamperExt decides in __init__, from the friction parameters' values,
    whether it has the bristle friction law: two instances that differ there differ in their
    equations although their parameters are the same symbols."""
    from acausal.components.coordinate_spring_damper import CoordinateSpringDamperExt

    class Pair(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.dry = CoordinateSpringDamperExt(stiffness=1.0, fDynamicFriction=0.0)
            self.rough = CoordinateSpringDamperExt(stiffness=1.0, fDynamicFriction=1.0,
                                                   stickingStiffness=1e3)

    def count(flat, origin):
        return sorted(len(e.residual.free_symbols) for e in flat.equations
                      if e.origin == origin)

    shared, own = flatten(Pair()), flatten(Pair(), share_templates=False)
    assert count(shared, "rough") == count(own, "rough") != count(own, "dry")
    assert len(shared.events) == len(own.events)


def test_elements_with_a_user_force_function_derive_their_own_equations():
    """Exudyn's user function is told which element it serves (here: the path)."""
    from acausal.components.coordinate_spring_damper import CoordinateSpringDamperExt

    def uf(mbs, t, item, q, v, *args):
        return (2.0 if item.endswith("[1]") else 1.0) * q

    class Pair(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.springs = [CoordinateSpringDamperExt(springForceUserFunction=uf)
                            for _ in range(2)]

    flat = flatten(Pair())
    force = {e.origin: e.residual for e in flat.equations if "equation 3 " in e.label}
    f1, q1 = (sp.Symbol(f"springs[1].{n}", real=True) for n in ("force", "displacement"))
    assert _equal(force["springs[1]"], f1 - 2.0 * q1)


def test_a_component_that_reads_outside_its_parts_keeps_its_own_equations():
    """A part whose equations use a symbol reached through a reference to a sibling cannot be
    renamed (the sibling is another one for every instance): it is derived per instance."""

    class Follower(Component):
        x = Variable()

        def __init__(self, leader=None, **kw):
            super().__init__(**kw)
            object.__setattr__(self, "_leader_index", leader)

        def equations(self):
            leader = self._parent.leaders[self._leader_index]
            return [Eq(self.x, 2 * leader.x)]

    class Leader(Component):
        x = Variable()

        def equations(self):
            return [Eq(self.x, 1.0)]

    class Model(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.leaders = [Leader(), Leader()]
            self.followers = [Follower(leader=0), Follower(leader=1)]

    flat = flatten(Model())
    res = {e.origin: e.residual for e in flat.equations}
    f1, l1 = sp.Symbol("followers[1].x", real=True), sp.Symbol("leaders[1].x", real=True)
    assert _equal(res["followers[1]"], f1 - 2 * l1)


def test_shares_equations_false_derives_every_instance():
    calls = []

    class PathDependent(Component):
        shares_equations = False
        x = Variable()

        def equations(self):
            calls.append(self.path)
            return [Eq(self.x, len(self.path))]

    class Model(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.parts = [PathDependent() for _ in range(3)]

    flat = flatten(Model())
    assert calls == ["parts[0]", "parts[1]", "parts[2]"]
    for i, eq in enumerate(flat.equations):
        assert _equal(eq.residual, sp.Symbol(f"parts[{i}].x", real=True) - 8)


def test_each_instance_keeps_its_own_parameter_values():
    """Renamed equations carry each instance's own parameter symbols: at rest under the end
    force F = 2 N every spring carries F and stretches by F / c_i with its own c_i = 1 + i
    (dampers raised to 3 N s/m so that the chain settles within the run)."""
    damped = {f"links[{i}].d": 3.0 for i in range(3)}
    sol = compile(Chain(3)).simulate(300.0, params=damped, rtol=1e-8, atol=1e-10)
    for i in range(3):
        assert sol[f"links[{i}].f"][-1] == pytest.approx(2.0, abs=1e-6)
        assert sol[f"links[{i}].s_rel"][-1] == pytest.approx(2.0 / (1.0 + i), abs=1e-6)


def test_renaming_helpers_keep_the_expression():
    x, y, z, a = (real_symbol(n) for n in "xyza")
    assert x == sp.Symbol("x", real=True) and hash(x) == hash(sp.Symbol("x", real=True))
    assert x.is_real and x.is_positive is None
    e = a * sp.sin(x) + (x - y) ** 2 - z * der(y)
    renamed = substituted(e, {x: y, y: -z, der(y): a})
    assert sp.expand(renamed - (a * sp.sin(y) + (y + z) ** 2 - z * a)) == 0
    assert product_of([sp.Integer(-1), -x, 2 * y]) == 2 * x * y
    assert sum_of([x]) is x and sum_of([]) == 0
    assert sp.expand(sum_of([x, -y, 3 * z]) - (x - y + 3 * z)) == 0


def test_renaming_keeps_the_sub_trees_it_does_not_touch():
    """A sub-tree without a renamed symbol is the same object afterwards (not rebuilt: sympy
    rewrites some nodes when they are built, and rebuilding costs time)."""
    x, y, z = (real_symbol(n) for n in "xyz")
    untouched = sp.Piecewise((sp.sin(y), y > 0), (0, True))
    renamed = substituted(x * untouched + 2, {x: z})
    assert renamed == z * untouched + 2
    assert any(arg is untouched for term in renamed.args for arg in term.args)
    assert substituted(untouched, {x: z}) is untouched
