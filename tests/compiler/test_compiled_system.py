"""The compiler's result and the user-facing facade (docs/architecture.md): the compiler
returns a CompiledModel (data, nothing that runs it); acausal.compile and Component.compile()
return a CompiledSystem, which adds simulate/linearize/trim/export_fmu/generate_c; other
realisations of a CompiledSystem are CompiledSystems too."""

import math

import numpy as np

from acausal import CompiledSystem, Eq, Parameter, Variable, compile, der
from acausal.compiler.compiled_model import CompiledModel
from acausal.compiler.pipeline import compile_model
from acausal.components.translational import Fixed, Mass, Spring
from acausal.language.model import Component, connect


class CartesianPendulum(Component):
    """Released near horizontal: no static choice of states is regular over the swing."""
    L = Parameter(1.0, unit="m")
    x = Variable(start=math.sin(1.4), fixed=True)
    y = Variable(start=-math.cos(1.4))
    vx = Variable(start=0.0, fixed=True)
    vy = Variable()
    lam = Variable()

    def equations(self):
        return [Eq(der(self.x), self.vx), Eq(der(self.y), self.vy),
                Eq(der(self.vx), -self.lam * self.x), Eq(der(self.vy), -self.lam * self.y - 9.81),
                Eq(self.x**2 + self.y**2, self.L**2)]


VERBS = ("simulate", "linearize", "trim", "export_fmu", "generate_c")


class Oscillator(Component):
    wall = Fixed()
    spring = Spring(c=100.0)
    mass = Mass(m=1.0)

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a)]


def test_the_compiler_returns_data_without_verbs():
    model = compile_model(Oscillator())
    assert type(model) is CompiledModel
    assert not any(hasattr(model, verb) for verb in VERBS)


def test_compile_and_component_compile_give_the_facade():
    for system in (compile(Oscillator()), Oscillator().compile()):
        assert type(system) is CompiledSystem and isinstance(system, CompiledModel)
        assert all(callable(getattr(system, verb)) for verb in VERBS)
    assert CompiledSystem.of(system) is system


def test_the_facade_shares_the_compiled_fields():
    model = compile_model(Oscillator())
    system = CompiledSystem.of(model)
    assert system.ode is model.ode and system.flat is model.flat and system.states == model.states
    # and simulates as the plain model would: s(t) = s0 cos(10 t) from the declared start
    sol = system.simulate(1.0, params={"mass.m": 1.0}, start={"mass.s": 0.1},
                          rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["mass.s"], 0.1 * np.cos(10.0 * sol.t), atol=1e-8)


def test_other_realisations_are_compiled_systems():
    system = compile(CartesianPendulum())
    assert system.dynamic_selection
    sol = system.simulate(2.0, rtol=1e-8, atol=1e-10)
    assert sol.state_switches  # the run went through another realisation
    others = system.cached("realizations", dict)
    assert len(others) >= 1 and all(type(other) is CompiledSystem for other in others.values())
