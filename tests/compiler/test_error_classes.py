"""Each class of user mistake gets an acausal error that names the culprit (issue 12).

Classes: leaks (a non-acausal exception escaping), silent acceptance (a mistake that simulated
without complaint), vague messages (the culprit not named), and command-line mistakes (exit 1,
one line on stderr). Each class has cases of its own, beyond the example the issue gave.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

import acausal
from acausal import (
    AcausalError,
    Component,
    Eq,
    InputError,
    ModelDefinitionError,
    ParameterError,
    SimulationError,
    StructurallySingularError,
    Variable,
    When,
    compile,
    connect,
    der,
    reinit,
    simulate,
)
from acausal.cli import main as cli_main
from acausal.components.planar.joint_friction import RevoluteWithFriction
from acausal.components.planar.parts import Body
from acausal.components.rotational import ConstantTorque, Inertia
from acausal.components.translational import Fixed, Mass, Spring

ROOT = Path(__file__).resolve().parents[2]
OSC = str(ROOT / "examples" / "mass_spring_damper.py") + ":Oscillator"


def named(exc_type, *fragments):
    """pytest.raises for ``exc_type`` (an acausal error) whose message has every fragment."""
    assert issubclass(exc_type, AcausalError)
    return _Named(exc_type, fragments)


class _Named:
    def __init__(self, exc_type, fragments):
        self.exc_type, self.fragments = exc_type, fragments

    def __enter__(self):
        self._ctx = pytest.raises(self.exc_type)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        suppressed = self._ctx.__exit__(*exc)
        text = str(self._ctx.excinfo.value)
        for fragment in self.fragments:
            assert fragment in text, f"{fragment!r} not in: {text}"
        return suppressed


class Oscillator(Component):
    wall = Fixed()
    spring = Spring(c=100.0)
    mass = Mass(m=2.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a)]


@pytest.fixture(scope="module")
def oscillator():
    return compile(Oscillator())


# -- leaks: a non-acausal exception must not escape -------------------------------------------


class BuildsItself(Component):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.inner = BuildsItself()


class Holder(Component):
    pass


def test_component_that_builds_itself_recursively():
    with named(ModelDefinitionError, "BuildsItself", "recursively"):
        BuildsItself()


def test_component_that_contains_itself():
    h = Holder()
    with named(ModelDefinitionError, "Holder", "itself"):
        h.me = h

    class Loop(Component):
        pass

    Loop.part = Loop()  # a class that contains an instance of itself, added afterwards
    if "_decl_cache" in Loop.__dict__:  # declarations are cached per class: see the new one
        del Loop._decl_cache
    with named(ModelDefinitionError, "Loop", "contains itself"):
        compile(Loop())


class Decay(Component):
    x = Variable(start=1.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), -self.x)]


def test_declaration_shadowing_a_variable():
    with named(ModelDefinitionError, "ShadowsX.x", "variable", "another name"):
        class ShadowsX(Decay):
            x = Mass()

        compile(ShadowsX())

    class ShadowsInInit(Decay):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.x = Mass()

    with named(ModelDefinitionError, "ShadowsInInit.x", "another name"):
        ShadowsInInit()


def test_equations_that_fail_inside_sympy_name_the_component():
    class AddsAPart(Component):
        part = Mass()
        y = Variable()

        def equations(self):
            return [Eq(self.y, self.part + 1)]  # a part is not a number

    with named(ModelDefinitionError, "AddsAPart", "equations()"):
        compile(AddsAPart())

    class Misspelt(Component):
        y = Variable()

        def equations(self):
            return [Eq(self.y, self.yy)]

    with named(ModelDefinitionError, "Misspelt", "equations()", "yy"):
        compile(Misspelt())


def test_parameter_of_the_wrong_shape():
    with named(ParameterError, "'m'", "scalar", "[1.0, 2.0]"):
        compile(Mass(m=[1.0, 2.0]))
    from acausal.components.planar.parts import FixedTranslation

    with named(ParameterError, "'r'", "vector of 2", "given 3"):
        compile(FixedTranslation(r=[1.0, 0.0, 0.0]))
    with named(ParameterError, "'r'", "vector of 2"):
        compile(FixedTranslation(r=1.0))


@pytest.mark.parametrize("call, fragment", [
    (lambda cs: cs.simulate("ten"), "t_end"),
    (lambda cs: cs.simulate(1.0, dt="fast"), "dt"),
    (lambda cs: cs.simulate(1.0, n_points=2.5), "n_points"),
    (lambda cs: cs.simulate(1.0, t_start=None), "t_start"),
    (lambda cs: simulate(cs, [1.0]), "t_end"),
], ids=["t_end-string", "dt-string", "n_points-fraction", "t_start-none", "t_end-list"])
def test_simulate_arguments_that_are_not_numbers(oscillator, call, fragment):
    with named(InputError, fragment):
        call(oscillator)


def test_simulate_takes_a_model():
    with named(InputError, "Component", "'ten'"):
        simulate("ten", 1.0)


# -- silent acceptance ----------------------------------------------------------------------


def test_connector_connected_with_itself():
    class SelfConnected(Component):
        mass = Mass()

        def connections(self):
            return [connect(self.mass.flange_a, self.mass.flange_a)]

    with named(ModelDefinitionError, "mass.flange_a", "itself"):
        compile(SelfConnected())

    class RootSelf(Component):
        spring = Spring()
        wall = Fixed()

        def connections(self):
            return [connect(self.wall.flange, self.spring.flange_a),
                    connect(self.spring.flange_b, self.spring.flange_b)]

    with named(ModelDefinitionError, "spring.flange_b", "itself"):
        compile(RootSelf())


@pytest.mark.parametrize("model, fragments", [
    (lambda: Oscillator(mass=Mass(m=-2.0)), ["mass.m", "-2", ">= 0"]),
    (lambda: Inertia(J=-1.0), ["J", ">= 0"]),
    (lambda: Body(m=1.0, I=-0.1), ["I", ">= 0"]),
    (lambda: Oscillator(spring=Spring(c=-5.0)), ["spring.c", ">= 0"]),
    (lambda: RevoluteWithFriction(mu_static=-0.3), ["mu_static", ">= 0"]),
], ids=["negative-mass", "negative-inertia", "negative-body-inertia", "negative-stiffness",
        "negative-friction-coefficient"])
def test_impossible_parameter_values_at_compile(model, fragments):
    with named(ParameterError, *fragments):
        compile(model())


def test_impossible_parameter_values_at_simulate(oscillator):
    with named(ParameterError, "mass.m", ">= 0"):
        oscillator.simulate(1.0, params={"mass.m": -1.0})
    with named(ParameterError, "spring.c", ">= 0"):
        oscillator.simulate(1.0, params={"spring.c": -100.0})
    assert oscillator.simulate(0.1, params={"spring.c": 0.0})["mass.s"][-1] == \
        pytest.approx(0.1)  # the bound itself is admissible


class Ramp(Component):
    x = Variable(start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), 1.0)]


@pytest.mark.parametrize("condition, fragment", [
    (lambda c: c.x - 0.5, "x - 0.5"),
    (lambda c: c.x, "not a relation"),
    (lambda c: sp.And(c.x > 0.2, c.x - 0.5), "x - 0.5"),
    (lambda c: sp.Gt(1, 0), "constant"),
], ids=["expression", "continuous-variable", "and-with-expression", "constant"])
def test_event_condition_that_is_not_a_relation(condition, fragment):
    class Resets(Ramp):
        def events(self):
            return [When(condition(self), reinit(self.x, 0.0))]

    with named(ModelDefinitionError, "Resets", fragment):
        compile(Resets())


@pytest.mark.parametrize("rhs, name", [
    (lambda c: 1 / c.x, "y"),
    (lambda c: sp.log(c.x), "y"),
    (lambda c: sp.sqrt(c.x - 1), "y"),
], ids=["division", "log-of-zero", "sqrt-of-negative"])
def test_variable_not_finite_from_the_start(rhs, name):
    class Broken(Ramp):
        y = Variable()

        def equations(self):
            return super().equations() + [Eq(self.y, rhs(self))]

    with named(SimulationError, "t = 0", "value of y", "not finite"):
        simulate(Broken(), 1.0)


# -- vague messages ---------------------------------------------------------------------------


class Spun(Component):
    torque = ConstantTorque(tau_constant=1.0)
    inertia = Inertia(J=0.0, phi=Variable(start=0.0, fixed=True),
                      w=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.torque.flange, self.inertia.flange_a)]


def test_zero_mass_or_inertia_names_the_parameter(oscillator):
    with named(SimulationError, "inertia.w", "inertia.J is 0"):
        simulate(Spun(), 1.0)
    with named(SimulationError, "mass.v", "mass.m is 0"):
        oscillator.simulate(1.0, params={"mass.m": 0.0})


def test_structurally_singular_names_the_undetermined_variable():
    class Unused(Ramp):
        y = Variable()
        z = Variable()

        def equations(self):
            return super().equations() + [Eq(self.y, 2 * self.x), Eq(self.x, self.y / 2)]

    with named(StructurallySingularError, "'z'", "undetermined", "One equation too many"):
        compile(Unused())

    class TwoForOne(Ramp):
        a = Variable()
        b = Variable()

        def equations(self):
            return super().equations() + [Eq(self.a, self.x), Eq(self.a, 3 * self.x)]

    with named(StructurallySingularError, "'b'"):
        compile(TwoForOne())


@pytest.mark.parametrize("options, name", [
    (dict(rtol=-1e-6), "rtol"), (dict(atol=0.0), "atol"), (dict(rtol="tight"), "rtol"),
    (dict(max_step=-1.0), "max_step"), (dict(integrator_options={"max_steps": 10}),
                                        "max_steps"),
], ids=["negative-rtol", "zero-atol", "string-rtol", "negative-max-step", "unknown-integrator"])
def test_bad_tolerances_name_the_option(oscillator, options, name):
    with named(InputError, name):
        oscillator.simulate(1.0, **options)


@pytest.mark.parametrize("options, fragments", [
    (dict(dtt=0.1), ["'dtt'", "Did you mean 'dt'"]),
    (dict(n_point=10), ["'n_point'", "Did you mean 'n_points'"]),
    (dict(parameters={"mass.m": 1.0}), ["'parameters'", "params"]),
], ids=["dtt", "n_point", "parameters"])
def test_misspelt_simulate_option(oscillator, options, fragments):
    with named(InputError, *fragments):
        oscillator.simulate(1.0, **options)
    with named(InputError, *fragments):
        simulate(Oscillator(), 1.0, **options)


class Blows(Component):
    x = Variable(start=1.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), self.x ** 2)]


class BlowsExp(Component):
    x = Variable(start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), sp.exp(3 * self.x))]


@pytest.mark.parametrize("jit", [False, True], ids=["virtual-machine", "native"])
@pytest.mark.parametrize("model, t_blow", [(Blows, 1.0), (BlowsExp, 1 / 3)],
                         ids=["x-squared", "exponential"])
def test_blow_up_reports_time_and_variable_quietly(model, t_blow, jit, capfd):
    # both code paths: the native library's run ends with a message about the output point
    # ("Trouble interpolating at tout"), the time reached is in an earlier one
    with named(SimulationError, "at t = ", " x") as info:
        simulate(model(), 2.0, progress=False, jit=jit)
    reached = float(str(info.value).split("at t = ")[1].split()[0])
    assert abs(reached - t_blow) < 1e-3
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""  # no solver chatter on the terminal


# -- start values reach the iteration variables -----------------------------------------------


def test_start_values_without_recompiling(oscillator):
    moved = oscillator.simulate(0.5, start={"mass.s": 0.3})
    assert moved["mass.s"][0] == pytest.approx(0.3)
    again = oscillator.simulate(0.5)
    assert again["mass.s"][0] == pytest.approx(0.1)  # the change lasted one run only
    with named(acausal.UnknownNameError, "mass.ss"):
        oscillator.simulate(0.5, start={"mass.ss": 0.3})
    with named(InputError, "mass.s", "not-a-number"):
        oscillator.simulate(0.5, start={"mass.s": "not-a-number"})


def test_vector_parameters_and_starts_without_recompiling():
    from acausal.components.planar.parts import Fixed as PlanarFixed
    from acausal.components.planar.parts import World as PlanarWorld

    class Falling(Component):
        world = PlanarWorld(g=9.81)  # the fall height below uses g = 9.81
        ground = PlanarFixed(r=[0.0, 0.0])
        body = Body(m=1.0, I=0.1, r=Variable(start=[0.0, 1.0], fixed=True),
                    v=Variable(start=[0.0, 0.0], fixed=True),
                    phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))

    cs = compile(Falling())
    sol = cs.simulate(0.5, params={"ground.r": [1.0, 2.0]}, start={"body.r": [2.0, 3.0]},
                      rtol=1e-10, atol=1e-12)
    assert sol["ground.r"][:, -1] == pytest.approx([1.0, 2.0])
    assert sol["body.r"][:, 0] == pytest.approx([2.0, 3.0])
    assert sol["body.r"][1, -1] == pytest.approx(3.0 - 9.81 * 0.5 ** 2 / 2, rel=1e-6)
    with named(ParameterError, "ground.r", "vector of 2"):
        cs.simulate(0.5, params={"ground.r": [1.0, 2.0, 3.0]})
    with named(InputError, "body.r", "vector of 2"):
        cs.simulate(0.5, start={"body.r": [1.0]})


# -- the command line: exit 1, one line on stderr -----------------------------------------------


def cli_error(args: list[str], capsys) -> str:
    status = cli_main(args)
    captured = capsys.readouterr()
    assert status == 1, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    return lines[0]


def test_cli_output_paths(tmp_path, capsys):
    a_file = tmp_path / "afile"
    a_file.write_text("")
    line = cli_error(["simulate", OSC, "--t-end", "0.1", "--csv", str(a_file / "out.csv")],
                     capsys)
    assert "--csv" in line and "is a file" in line
    line = cli_error(["simulate", OSC, "--t-end", "0.1", "--csv", str(tmp_path)], capsys)
    assert "--csv" in line and "folder" in line
    line = cli_error(["simulate", OSC, "--t-end", "0.1", "--png", str(a_file / "p.png"),
                      "--plot", "mass.s"], capsys)
    assert "--png" in line


def test_cli_structural_parameter_and_missing_ffmpeg(tmp_path, capsys, monkeypatch):
    crank = str(ROOT / "examples" / "crank_rocker.py") + ":CrankRocker"
    line = cli_error(["simulate", crank, "--t-end", "0.1", "--set", "slide.law=coulomb"], capsys)
    assert "'slide.law' is a structural parameter" in line and "compile again" in line
    line = cli_error(["simulate", crank, "--t-end", "0.1", "--set", "slide.law=1"], capsys)
    assert "structural" in line
    from matplotlib import animation

    monkeypatch.setattr(animation.writers, "is_available", lambda name: False)
    line = cli_error(["simulate", crank, "--t-end", "0.1", "--animate",
                      str(tmp_path / "a.mp4")], capsys)
    assert "ffmpeg" in line
    assert not (tmp_path / "a.mp4").exists()


def test_errors_are_one_family():
    for cls in (InputError, ParameterError, SimulationError, ModelDefinitionError,
                StructurallySingularError):
        assert issubclass(cls, AcausalError)


def test_verbose_passes_solver_messages_on(capfd):
    with pytest.raises(SimulationError):
        simulate(Blows(), 2.0, progress=False, verbose=True)
    assert "t + h = t" in capfd.readouterr().err  # SUNDIALS' own warning, shown on request
