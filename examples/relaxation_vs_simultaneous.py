"""Joint friction by relaxation versus the simultaneous solution (seed 002's notes).

A light slider (0.5 kg) slides at 1 m/s on a horizontal guide with Coulomb friction (mu = 0.5),
pressed down by 5 N, and carries a 10 kg bob on a 1 m arm (a free revolute) at an angle theta
from the vertical. The arm's reaction on the slider depends on the slider's acceleration, which
depends on the friction: the algebraic loop that the notes solve by relaxation (start with no
friction, solve, read the reaction, repeat).

For each theta the script prints the simultaneous solution (the reaction and the friction
solved together, as acausal's integrators do) and the relaxation with omega = 1 and 0.5:
iterations, or the last changes of the reaction when it does not converge.

Run:  python examples/relaxation_vs_simultaneous.py [--theta 1.0 -0.3]
"""

from __future__ import annotations

import argparse

import numpy as np

from acausal import Component, InitializationError, SimulationError, Variable, compile, connect
from acausal.components.blocks import Constant
from acausal.components.multibody import (
    Body,
    Fixed,
    FixedTranslation,
    Revolute,
    World,
    WorldForce,
)
from acausal.components.multibody.coulomb_joint_friction import (
    PrismaticWithCoulombFriction,
    relax_friction,
)
from acausal.initialize import initialize


class PressedSlider(Component):
    """The slider, its load and the arm; ``solution`` is the friction joint's option."""

    def __init__(self, solution: str = "simultaneous", theta: float = 1.0, **kw):
        super().__init__(**kw)
        self.world = World()
        self.fixed = Fixed()
        self.guide = PrismaticWithCoulombFriction(n=(1, 0, 0), mu=0.5, solution=solution,
                                                  s=Variable(start=0.0, fixed=True),
                                                  v=Variable(start=1.0, fixed=True))
        self.slider = Body(m=0.5, I_11=0.01, I_22=0.01, I_33=0.01)
        self.pin = Revolute(n=(0, 0, 1), phi=Variable(start=theta, fixed=True),
                            w=Variable(start=0.0, fixed=True))
        self.arm = FixedTranslation(r=(0.0, -1.0, 0.0))
        self.bob = Body(m=10.0, I_11=0.01, I_22=0.01, I_33=0.01)
        self.press = WorldForce()
        self.load = [Constant(k=k) for k in (0.0, -5.0, 0.0)]

    def connections(self):
        return [connect(self.fixed.frame_b, self.guide.frame_a),
                connect(self.guide.frame_b, self.slider.frame_a),
                connect(self.guide.frame_b, self.pin.frame_a),
                connect(self.pin.frame_b, self.arm.frame_a),
                connect(self.arm.frame_b, self.bob.frame_a),
                connect(self.press.frame_b, self.slider.frame_a),
                *(connect(c.y, i) for c, i in zip(self.load, self.press.force))]


def simultaneous(theta: float) -> dict[str, float]:
    """Every variable at t = 0 with the reaction and the friction solved together."""
    cs = compile(PressedSlider("simultaneous", theta=theta))
    p = cs.parameter_vector()
    init = initialize(cs, p, 0.0)
    obs = np.array(cs.function("observed")(0.0, init.x0, init.z0, p)).ravel()
    return {name: cs.locate(name)[0] * obs[cs.locate(name)[1]]
            for name in ("guide.normal_force", "guide.friction_force", "guide.a", "pin.a")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--theta", type=float, nargs="+", default=[1.0, -0.3],
                        help="arm angles from the vertical [rad] (default: 1.0 -0.3)")
    args = parser.parse_args(argv)
    for theta in args.theta:
        try:
            exact = simultaneous(theta)
        except InitializationError:
            exact = None
            print(f"theta = {theta:+.2f} rad: simultaneous  no solution: the friction raises "
                  "the reaction that drives it faster than it grows itself (the slider jams)")
        if exact is not None:
            print(f"theta = {theta:+.2f} rad: simultaneous  "
                  f"N = {exact['guide.normal_force']:9.4f} N, "
                  f"friction {exact['guide.friction_force']:9.4f} N, "
                  f"slider acceleration {exact['guide.a']:+9.4f} m/s2")
        relaxed = compile(PressedSlider("relaxation", theta=theta))
        for omega in (1.0, 0.5):
            try:
                res = relax_friction(relaxed, omega=omega, tol=1e-12)
            except SimulationError as err:
                last = err.result.history[-4:, 1]
                print(f"  relaxation omega = {omega}: no convergence in {err.result.iterations} "
                      "iterations; the vertical reaction keeps jumping: "
                      + ", ".join(f"{x:.2f}" for x in last) + " N")
                continue
            gap = ("" if exact is None else " (differs from the simultaneous one by "
                   f"{abs(res['guide.normal_force'] - exact['guide.normal_force']):.1e} N)")
            print(f"  relaxation omega = {omega}: {res.iterations} iterations, "
                  f"N = {res['guide.normal_force']:9.4f} N{gap}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
