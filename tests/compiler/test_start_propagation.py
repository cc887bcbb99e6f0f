"""Start values reach the iteration variables through linear two-variable equations.

A guess given on ``phi`` must select the root of a nonlinear equation even when the compiler
iterates on ``phi_abs = phi + off`` (Modelica tools propagate start values the same way).
"""

import math

import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, connect, der


class OffsetAlias(Component):
    off = Parameter(0.0, unit="rad")
    x = Variable(start=0.5, fixed=True)
    phi = Variable(start=-1.0)  # guess for the negative root of cos(phi + off) = x
    phi_abs = Variable()  # no start of its own

    def equations(self):
        return [Eq(der(self.x), 0), Eq(self.phi, self.phi_abs - self.off),
                Eq(sp.cos(self.phi_abs), self.x)]


class ScaledOffset(OffsetAlias):
    """The same relation written with a factor 2: not an offset alias, which the compiler would
    substitute (acausal.compiler.structure.offsets), so ``phi_abs`` stays the unknown."""

    def equations(self):
        return [Eq(der(self.x), 0), Eq(2 * self.phi, 2 * (self.phi_abs - self.off)),
                Eq(sp.cos(self.phi_abs), self.x)]


@pytest.mark.parametrize("off", [0.0, 0.3, -0.4])
@pytest.mark.parametrize("model, iterated", [
    # phi_abs = phi + off is substituted: phi, which has the guess, is iterated on
    (OffsetAlias, "phi"),
    # the start-less variable is iterated on: the guess reaches it through the equation
    (ScaledOffset, "phi_abs")], ids=["offset-alias", "scaled"])
def test_guess_selects_the_root_through_an_offset(off, model, iterated):
    cs = compile(model())
    assert cs.algebraic_names == [iterated]
    sol = cs.simulate(1.0, n_points=3, params={"off": off})
    assert sol["phi_abs"][0] == pytest.approx(-math.acos(0.5), abs=1e-10)
    assert sol["phi"][-1] == pytest.approx(-math.acos(0.5) - off, abs=1e-10)


def test_positive_guess_gives_the_other_root():
    cs = compile(OffsetAlias(phi=Variable(start=+1.0)))
    assert cs.simulate(1.0, n_points=2)["phi"][0] == pytest.approx(math.acos(0.5), abs=1e-10)


# -- a closed planar loop: guesses on the joints reach the bodies' angles ----------------------

# four-bar: ground pivots at (0, 0) and (G, 0); crank L1, coupler L2, rocker L3 (metres). With
# the crank at TH1 the loop closes at absolute angles TH2 (coupler) and TH3 (rocker), found by
# hand from the closure equations (checked below, not taken from acausal).
L1, L2, L3, G = 0.5, 1.2, 0.8, 1.0
TH1, TH2, TH3 = 1.0, 0.20478212391844933, 0.9808133088983201


def test_four_bar_angles_close_the_loop():
    x = L1 * math.cos(TH1) + L2 * math.cos(TH2) - G - L3 * math.cos(TH3)
    y = L1 * math.sin(TH1) + L2 * math.sin(TH2) - L3 * math.sin(TH3)
    assert abs(x) < 1e-12 and abs(y) < 1e-12


def four_bar(on_joints: bool):
    from acausal.components.planar.joints import Revolute
    from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

    def guess(value):
        return Variable(start=value)

    class FourBar(Component):
        world = World()
        ground_a = Fixed(r=[0.0, 0.0])
        ground_b = Fixed(r=[G, 0.0])
        j1 = Revolute(phi=Variable(start=TH1, fixed=True), w=Variable(start=0.0, fixed=True))
        crank = FixedTranslation(r=[L1, 0.0])
        b1 = Body(m=1.0, I=0.1)
        j2 = Revolute(phi=guess(TH2 - TH1)) if on_joints else Revolute()
        coupler = FixedTranslation(r=[L2, 0.0])
        b2 = Body(m=1.0, I=0.1, phi=guess(TH2)) if not on_joints else Body(m=1.0, I=0.1)
        j3 = Revolute(phi=guess(TH3 - TH2)) if on_joints else Revolute()
        rocker = FixedTranslation(r=[L3, 0.0])
        b3 = Body(m=1.0, I=0.1, phi=guess(TH3)) if not on_joints else Body(m=1.0, I=0.1)
        j4 = Revolute()

        def connections(self):
            return [connect(self.ground_a.frame, self.j1.frame_a),
                    connect(self.j1.frame_b, self.crank.frame_a),
                    connect(self.crank.frame_a, self.b1.frame_a),
                    connect(self.crank.frame_b, self.j2.frame_a),
                    connect(self.j2.frame_b, self.coupler.frame_a),
                    connect(self.coupler.frame_a, self.b2.frame_a),
                    connect(self.coupler.frame_b, self.j3.frame_a),
                    connect(self.j3.frame_b, self.rocker.frame_b),
                    connect(self.rocker.frame_a, self.b3.frame_a),
                    connect(self.rocker.frame_a, self.j4.frame_b),
                    connect(self.j4.frame_a, self.ground_b.frame)]

    return FourBar()


@pytest.mark.parametrize("on_joints", [True, False], ids=["guesses-on-joints",
                                                           "guesses-on-bodies"])
def test_four_bar_initialises_from_guesses_on_joints_or_bodies(on_joints):
    sol = compile(four_bar(on_joints)).simulate(0.01, n_points=2)
    assert sol["b1.phi"][0] == pytest.approx(TH1, abs=1e-9)
    assert sol["b2.phi"][0] == pytest.approx(TH2, abs=1e-9)
    assert sol["b3.phi"][0] == pytest.approx(TH3, abs=1e-9)
    assert sol["j2.phi"][0] == pytest.approx(TH2 - TH1, abs=1e-9)


def test_shared_evaluations_follow_the_parameters():
    """The propagation keeps each solution's value by the exact values of its symbols (shared
    by the rounds of initialize_with_branches): a parameter that changes between two calls
    gives the new value, and equal inputs give the value computed before."""
    from acausal.run.initialize import propagate_guesses

    cs = compile(ScaledOffset())  # (phi_abs the unknown: an offset alias is substituted)
    wanted = list(cs.states) + list(cs.algebraics)
    [phi_abs] = cs.algebraics
    off = [prm.name for prm in cs.flat.parameters].index("off")
    evaluated: dict = {}
    for value in (0.3, -0.4, 0.3, 0.0, -0.0):
        p = cs.parameter_vector()
        p[off] = value
        shared = propagate_guesses(cs, p, 0.0, wanted, evaluated)
        assert shared == propagate_guesses(cs, p, 0.0, wanted)  # computed afresh
        assert shared[phi_abs] == -1.0 + value
    # phi_abs's solution at 0.3 (once), -0.4, 0.0 and -0.0 (float.hex tells it from 0.0),
    # and der(x) = 0's (no symbols)
    assert len(evaluated) == 5
