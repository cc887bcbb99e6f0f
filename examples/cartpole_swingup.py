"""Cart-pole swing-up: minimum-effort optimal control with ``acausal.OptimalControl``.

The plant is built from the planar library (``acausal.components.planar``): a ``Prismatic``
joint along world x (``use_axis_flange=True``) carries the cart ``Body`` (m_c = 1 kg) and is
pushed by a 1-D translational ``Force`` whose force ``push.f`` is an input
(``Force(f=Input(...))``); a ``Revolute`` at the cart carries a massless rod
(``FixedTranslation``, length l = 0.5 m) and the pole's point mass (``Body``, m_p = 0.1 kg,
I = 0). World gravity g = 9.81 m/s2 along -y. The pole angle ``pole.phi`` is 0 hanging down and
pi upright (the rod is r = (0, -l) in the pole's frame: the mass is at
(s + l sin phi, -l cos phi)). The compiler selects the joint coordinates as states
(``cart.s, cart.v, pole.phi, pole.w``, ``state_priority=10`` of the planar joints); the
model is an ODE, equal to the closed form of ``benchmarks/optimal_control.py``:

    s'' = (F + m_p l sin(phi) phi'^2 + m_p g sin(phi) cos(phi)) / (m_c + m_p sin(phi)^2)
    phi'' = -(g sin(phi) + cos(phi) s'') / l

The problem (M. Kelly, "An Introduction to Trajectory Optimization: How to Do Your Own Direct
Collocation", SIAM Review 59(4), 2017, section 6 and appendix E, with this pole mass and the cart
brought back to ``distance``):

    minimise   integral_0^T F(t)^2 dt
    subject to the dynamics, |F| <= 20 N, F piecewise constant on the mesh elements,
               s, s', phi, phi' = 0 at t = 0 (hanging, at rest; the model's fixed starts),
               s = distance, s' = 0, phi = pi, phi' = 0 at t = T = 2 s (upright, at rest).

It is solved by Radau IIA collocation (degree 3) on a uniform mesh with IPOPT, started from the
guess phi = pi t / T, s = distance t / T (consistent rates, F = 0); the optimal force is then
re-simulated with ``simulate`` (CVODE) and the end states compared with the collocated ones
(``res.verify``).

Run:  python examples/cartpole_swingup.py [--elements 40] [--distance 0] [--out DIR] [--no-plot]
Prints the objective, IPOPT's iterations, build and solve times and the re-simulation check,
and writes ``cartpole_swingup.png`` (states and force) and ``cartpole_swingup.html`` (the 3-D
view) into ``--out`` (default: the current folder).
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from acausal import CompiledSystem, Component, Input, Variable, compile, connect
from acausal.components.planar import Body, Fixed, FixedTranslation, Prismatic, Revolute, World
from acausal.components.translational import Force

#: the problem's data (SI units): cart and pole masses, rod length, gravity, horizon, force bound
M_CART = 1.0
M_POLE = 0.1
LENGTH = 0.5
G = 9.81
T_END = 2.0
F_MAX = 20.0
#: where the cart ends (m); 0: back at its start
DISTANCE = 0.0
#: IPOPT options shared with the benchmark's twins (benchmarks/optimal_control.py): a tight
#: tolerance so that the three optima agree far below the discretisation error
IPOPT_OPTIONS: dict[str, Any] = {"tol": 1e-10, "linear_solver": "mumps", "print_level": 0,
                                 "sb": "yes"}
#: state names of the compiled model, in the order of the hand-written twins (s, v, phi, w)
STATES = ("cart.s", "cart.v", "pole.phi", "pole.w")
CONTROL = "push.f"


def cartpole_model(m_cart: float = M_CART, m_pole: float = M_POLE, length: float = LENGTH,
                   g: float = G) -> Component:
    """The cart-pole as a planar model (a ``Component`` instance, not compiled).

    Connections: Fixed track -> Prismatic ``cart`` (along x) -> cart Body and Revolute ``pole``
    -> FixedTranslation ``rod`` (0, -length) -> point-mass Body ``bob``; the Force ``push``
    (input ``push.f``, positive along +x) drives the prismatic joint's flange. All four joint
    coordinates start at 0 with ``fixed=True`` (hanging, at rest).
    """

    class CartPole(Component):
        world = World(g=g)
        track = Fixed()
        cart = Prismatic(use_axis_flange=True, r=[1.0, 0.0], s=Variable(start=0.0, fixed=True),
                         v=Variable(start=0.0, fixed=True))
        cart_body = Body(m=m_cart, I=0.0)
        push = Force(f=Input(0.0, unit="N"))
        pole = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
        rod = FixedTranslation(r=[0.0, -length])
        bob = Body(m=m_pole, I=0.0)

        def connections(self):
            return [connect(self.track.frame, self.cart.frame_a),
                    connect(self.cart.frame_b, self.cart_body.frame_a),
                    connect(self.cart.frame_b, self.pole.frame_a),
                    connect(self.pole.frame_b, self.rod.frame_a),
                    connect(self.rod.frame_b, self.bob.frame_a),
                    connect(self.push.flange, self.cart.flange_a)]

    return CartPole()


def build_cartpole(m_cart: float = M_CART, m_pole: float = M_POLE, length: float = LENGTH,
                   g: float = G) -> CompiledSystem:
    """The compiled cart-pole (states ``cart.s, cart.v, pole.phi, pole.w``; input ``push.f``)."""
    return compile(cartpole_model(m_cart, m_pole, length, g))


def guess_trajectory(t_end: float = T_END, distance: float = DISTANCE,
                     points: int = 201) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The initial guess shared by acausal and the benchmark's twins: the straight line between
    the boundary positions with its constant rates, ``phi = pi t/T``, ``s = distance t/T``,
    ``w = pi/T``, ``v = distance/T``, and no force. As name -> (times, values)."""
    t = np.linspace(0.0, t_end, points)
    ones = np.ones_like(t)
    return {"cart.s": (t, distance * t / t_end), "cart.v": (t, distance / t_end * ones),
            "pole.phi": (t, math.pi * t / t_end), "pole.w": (t, math.pi / t_end * ones),
            CONTROL: (t, 0.0 * t)}


@dataclass
class SwingUpProblem:
    """An ``OptimalControl`` of the swing-up and the options of its ``solve`` (mesh, scheme,
    guess, IPOPT). ``solve(**overrides)`` calls ``ocp.solve`` with them."""

    ocp: Any
    options: dict[str, Any] = field(default_factory=dict)

    def solve(self, **overrides: Any) -> Any:
        """``ocp.solve(**options)`` (keyword arguments override the stored options)."""
        return self.ocp.solve(**{**self.options, **overrides})


def swing_up_problem(system: CompiledSystem, elements: int = 40, *, degree: int = 3,
                     t_end: float = T_END, f_max: float = F_MAX, distance: float = DISTANCE,
                     ipopt: dict[str, Any] | None = None,
                     verbose: bool = False) -> SwingUpProblem:
    """The swing-up as an ``acausal.OptimalControl`` on ``system`` (from :func:`build_cartpole`).

    Control ``push.f``, piecewise constant per element, ``|F| <= f_max``; start: the model's
    fixed starts (hanging, at rest); end: ``cart.s = distance``, ``cart.v = 0``,
    ``pole.phi = pi``, ``pole.w = 0`` at ``t_end``; objective ``integral F^2 dt``. Solved by
    Radau collocation of ``degree`` on ``elements`` equal elements, from
    :func:`guess_trajectory`, with :data:`IPOPT_OPTIONS` updated by ``ipopt``.
    """
    from acausal import OptimalControl  # the optimal-control layer (acausal.analysis)

    ocp = OptimalControl(system, t_start=0.0, t_end=t_end)
    ocp.control(CONTROL, lower=-f_max, upper=f_max, guess=0.0, kind="constant")
    for name, value in zip(STATES, (distance, 0.0, math.pi, 0.0)):
        ocp.end(name, value)
    ocp.minimize(lagrange=f"{CONTROL}**2")
    options = {"elements": elements, "degree": degree, "scheme": "radau",
               "method": "collocation", "guess": guess_trajectory(t_end, distance),
               "ipopt": {**IPOPT_OPTIONS, **(ipopt or {})}, "verbose": verbose}
    return SwingUpProblem(ocp, options)


def plot(res: Any, path: Path) -> None:
    """States and force of the optimal swing-up, one panel each, saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = {"cart.s": "cart position s [m]", "cart.v": "cart velocity v [m/s]",
              "pole.phi": "pole angle phi [rad]", "pole.w": "pole rate w [rad/s]"}
    fig, axes = plt.subplots(5, 1, figsize=(7, 9), sharex=True)
    fine = np.linspace(float(res.t[0]), float(res.t[-1]), 401)
    for ax, name in zip(axes, STATES):  # the collocation polynomials, and the points
        ax.plot(fine, res.interpolate(name, fine), "-", lw=1)
        ax.plot(res.t, res[name], ".", ms=3)
        ax.set_ylabel(labels[name], fontsize=8)
        ax.grid(True, alpha=0.3)
    edges = np.asarray(res.elements, dtype=float)
    force = res.control_at(0.5 * (edges[1:] + edges[:-1]))[CONTROL]  # one value per element
    axes[-1].stairs(force, edges, baseline=None)
    axes[-1].set_ylabel("force F [N]", fontsize=8)
    axes[-1].set_xlabel("time [s]")
    axes[-1].grid(True, alpha=0.3)
    fig.suptitle(f"cart-pole swing-up: integral F^2 dt = {res.objective:.6g} N^2 s")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Solve, print the summary and the re-simulation check, write the plot and the 3-D view."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=40, help="mesh elements (default 40)")
    parser.add_argument("--distance", type=float, default=DISTANCE,
                        help="end position of the cart in m (default %(default)s)")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder of the outputs")
    parser.add_argument("--no-plot", action="store_true", help="write no plot and no 3-D view")
    args = parser.parse_args(argv)

    system = build_cartpole()
    print(f"states: {', '.join(system.state_names)}; inputs: {', '.join(system.input_names)}")
    problem = swing_up_problem(system, elements=args.elements, distance=args.distance)
    res = problem.solve()
    print(f"status: {res.status} (success {res.success}), IPOPT iterations {res.iterations}")
    print(f"objective integral F^2 dt = {res.objective:.10g} N^2 s")
    print(f"build {res.build_time:.3f} s, solve {res.solve_time:.3f} s")
    force = np.asarray(res.controls[CONTROL], dtype=float)
    print(f"max |F| = {np.max(np.abs(force)):.4f} N; end: "
          + ", ".join(f"{n} = {float(res[n][-1]):+.3e}" for n in STATES))
    check = res.verify(rtol=1e-10)
    worst = check.max_difference
    print(f"re-simulation (CVODE, rtol 1e-10): end difference max {worst:.3e}, "
          f"collocation error estimate {res.collocation_error:.3e}")
    if not args.no_plot:
        args.out.mkdir(parents=True, exist_ok=True)
        plot(res, args.out / "cartpole_swingup.png")
        res.view(str(args.out / "cartpole_swingup.html"))
        print(f"wrote {args.out / 'cartpole_swingup.png'} and {args.out / 'cartpole_swingup.html'}")
    return 0 if res.success else 1


if __name__ == "__main__":
    sys.exit(main())
