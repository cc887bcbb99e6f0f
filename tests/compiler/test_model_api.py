"""Public helpers of the language: declarations() and walk()."""

from acausal import Component, Parameter, Variable, compile, connect
from acausal.components.translational import Fixed, Mass, Spring


class Oscillator(Component):
    wall = Fixed()
    spring = Spring(c=10.0)
    mass = Mass(m=1.0, s=Variable(start=0.1, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a)]


def test_declarations_in_order_with_inherited_ones():
    decls = Spring.declarations()
    assert list(decls)[:4] == ["flange_a", "flange_b", "s_rel", "f"]  # from PartialCompliant
    assert isinstance(decls["c"], Parameter)


def test_walk_visits_every_bound_part_depth_first():
    model = Oscillator()
    compile(model)
    paths = [node.path for node in model.walk()]
    assert paths[:4] == ["", "wall", "wall.flange", "spring"]
    assert {"mass", "mass.flange_a", "mass.flange_b", "spring.flange_b"} <= set(paths)
