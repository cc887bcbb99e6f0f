"""Minimum-effort push of a block against stick/slip friction: optimise a smooth twin, verify
on the hybrid model.

Models (1-D translational; the block and the push are the same parts in both):

* hybrid :class:`Block`: a ``Mass`` (m = 1 kg, states ``mass.s``, ``mass.v``) pushed by a
  ``Force`` whose value ``push.f`` is an ``Input``, lying on a ``GroundFriction`` (exact
  stick/slip Coulomb friction of acausal.components.friction, after MSL
  ``SupportFriction``/``PartialFriction``: kinetic force F_C = mu m g = 2.943 N, static
  force peak*F_C = 3.532 N, a discrete mode -1/0/+1 switched by ``When`` clauses);
* smooth twin :class:`SmoothBlock`: the same with :class:`SmoothGroundFriction`, the friction
  force ``F(v) = limit_S_triple(V_ADHESION, V_SLIDE, peak F_C, F_C, v)``
  (acausal.library.friction; odd, C1, rising with slope 1.5 peak F_C / V_ADHESION through 0 to
  the static level at V_ADHESION = 3 mm/s, falling to F_C from V_SLIDE = 9 mm/s on): a
  regularised Stribeck curve with the same static and kinetic levels and no events. Its
  time constant near rest, m V_ADHESION / (1.5 peak F_C) = 0.6 ms, is far below an element
  (50 ms): stiff, which Radau collocation tolerates; with 1 mm/s, though, IPOPT ends in the
  local optimum that slides for the whole 2 s (18.6 instead of 16.5 N**2 s, measured).

Problem (fixed time T = 2 s, direct collocation on the twin, IPOPT)::

    minimise    integral_0^T f(t)**2 dt              (f = push.f, piecewise constant)
    subject to  m s'' = f - F(s'),  |f| <= F_MAX
                s(0) = 0, v(0) = 0,  s(T) = D = 1 m, v(T) = 0

Reference (exact Coulomb friction, Pontryagin): while the block slides forward the dynamics
are linear, m v' = f - F_C, the costate of v is affine in t and so is the optimal force. A
motion that takes T1 <= T and then rests (stuck, f = 0) costs at best
``F_C**2 T1 + 12 m**2 D**2 / T1**3`` with ``f(t) = F_C + (6 m D / T1**2)(1 - 2 t / T1)``; the
best duration is ``T1 = sqrt(6 m D / F_C)`` = 1.428 s (when below T), where the force falls to
exactly 0 as the block stops, and ``J* = (4/3) F_C**2 T1`` = 16.49 N**2 s. Using all of T
(the affine force over [0, T], 18.82 N**2 s) is only a local optimum: sliding longer costs
F_C**2 per second. ``f*(0) = 2 F_C`` = 5.89 N exceeds the static force (3.53 N), so the block
breaks away at once; at rest the push is 0, so the hybrid block sticks at T1 and stays.
The guess is this reference, so IPOPT starts in the global optimum's basin.

``OptimalControl(block, smooth_twin=twin)`` optimises the twin and ``res.verify()`` replays
the optimal force on the hybrid block, element by element (acausal's run loop, stick/slip events
located). The block starts stuck (``mode = 0``) with the push at its model value 0; as the first
element sets the push to f(0) > static friction, the breakaway clause fires at t = 0, and the
stop clause fires where the block comes to rest. Without the twin, ``OptimalControl(block)``
refuses the model and names its events.

Run:  python examples/friction_optimal_control.py [--elements 40] [--out DIR] [--no-plot]
Prints the optimal cost against J*, the hybrid replay's end state and writes
``friction_optimal_control.png`` into --out.
"""

from __future__ import annotations

import argparse
import sys
import time as _time
from pathlib import Path
from typing import Any

import numpy as np

from acausal import (
    Component,
    Eq,
    Input,
    OptimalControl,
    Parameter,
    Variable,
    compile,
    connect,
    der,
)
from acausal.components import translational
from acausal.components.friction import GroundFriction
from acausal.errors import ModelDefinitionError
from acausal.library.friction import limit_S_triple

M, MU, G = 1.0, 0.3, 9.81           # kg, 1, m/s2
F_COULOMB = MU * M * G              # N, kinetic friction
PEAK = 1.2                          # static friction = PEAK * F_COULOMB
V_ADHESION, V_SLIDE = 3e-3, 9e-3    # m/s, the twin's regularisation (see the docstring)
DISTANCE, T_END = 1.0, 2.0          # m, s
F_MAX = 20.0                        # N, bound of the push


class SmoothGroundFriction(Component):
    """Friction of a flange against the ground with the smooth Stribeck-like curve
    ``f = limit_S_triple(v_adhesion, v_slide, peak F_Coulomb, F_Coulomb, v_rel)``.

    Equations: ``s_rel = flange.s``; ``v_rel = der(s_rel)``; ``flange.f = f``; ``f`` as above
    (positive against positive ``v_rel``, the sign convention of ``GroundFriction``)."""

    flange = translational.Flange()
    F_Coulomb = Parameter(F_COULOMB, min=0.0, unit="N", description="kinetic friction force")
    peak = Parameter(PEAK, min=1.0, unit="1", description="static / kinetic friction")
    v_adhesion = Parameter(V_ADHESION, min=0.0, unit="m/s",
                           description="slip velocity of the static peak")
    v_slide = Parameter(V_SLIDE, min=0.0, unit="m/s",
                        description="slip velocity from which f = F_Coulomb")
    s_rel = Variable(unit="m", description="position of the flange")
    v_rel = Variable(unit="m/s", description="velocity der(s_rel)")
    f = Variable(unit="N", description="friction force (positive against positive v_rel)")

    def equations(self):
        law = limit_S_triple(self.v_adhesion, self.v_slide, self.peak * self.F_Coulomb,
                             self.F_Coulomb, self.v_rel)
        return [Eq(self.s_rel, self.flange.s), Eq(der(self.s_rel), self.v_rel),
                Eq(self.flange.f, self.f), Eq(self.f, law)]


class Block(Component):
    """The hybrid model: a pushed mass on stick/slip ground friction, at rest and stuck."""

    mass = translational.Mass(m=M, s=Variable(start=0.0, fixed=True),
                              v=Variable(start=0.0, fixed=True))
    push = translational.Force(f=Input(0.0, unit="N"))
    friction = GroundFriction(F_Coulomb=F_COULOMB, peak=PEAK)

    def connections(self):
        return [connect(self.push.flange, self.mass.flange_a),
                connect(self.friction.flange, self.mass.flange_b)]


class SmoothBlock(Block):
    """The smooth twin: the same block on :class:`SmoothGroundFriction` (no events)."""

    friction = SmoothGroundFriction()


def motion_time() -> float:
    """T1 = min(T, sqrt(6 m D / F_C)) [s]: how long the optimal motion slides (docstring)."""
    return min(T_END, float(np.sqrt(6.0 * M * DISTANCE / F_COULOMB)))


def coulomb_optimum(t: Any) -> tuple[np.ndarray, float]:
    """The optimal force f*(t) [N] and cost J* [N**2 s] with exact Coulomb friction (module
    docstring): affine while sliding on [0, T1], 0 at rest after T1."""
    t1 = motion_time()
    t = np.asarray(t, float)
    force = np.where(t <= t1, F_COULOMB + 6.0 * M * DISTANCE / t1**2 * (1.0 - 2.0 * t / t1),
                     0.0)
    return force, F_COULOMB**2 * t1 + 12.0 * M**2 * DISTANCE**2 / t1**3


def coulomb_guess(n: int = 101) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The exact-Coulomb optimum as a guess: f*(t), and v(t), s(t) integrated from it
    (``v = a (t - t**2/T1)``, ``s = a (t**2/2 - t**3/(3 T1))``, ``a = 6 D / T1**2`` while
    sliding, then at rest at D)."""
    t1 = motion_time()
    t = np.linspace(0.0, T_END, n)
    tm = np.minimum(t, t1)
    a = 6.0 * DISTANCE / t1**2
    return {"push.f": (t, coulomb_optimum(t)[0]), "mass.v": (t, a * (tm - tm**2 / t1)),
            "mass.s": (t, a * (tm**2 / 2 - tm**3 / (3 * t1)))}


def problem(block: Any, twin: Any = None) -> OptimalControl:
    """The minimum-effort problem of the module docstring (on the twin when given)."""
    ocp = OptimalControl(block, t_start=0.0, t_end=T_END, smooth_twin=twin)
    ocp.control("push.f", lower=-F_MAX, upper=F_MAX, guess=F_COULOMB)
    ocp.end("mass.s", DISTANCE)
    ocp.end("mass.v", 0.0)
    ocp.minimize(lagrange="push.f**2")
    return ocp


def refusal_message(block: Any) -> str:
    """The error ``OptimalControl(block)`` raises for the hybrid model without a twin."""
    try:
        OptimalControl(block, t_end=T_END)
    except ModelDefinitionError as err:
        return str(err)
    raise AssertionError("OptimalControl accepted a model with events and no smooth twin")


def solve(elements: int = 40) -> tuple[Any, Any, Any]:
    """Compile both models, solve on the twin; returns ``(block, res, check)`` with ``check``
    the replay on the hybrid block."""
    block = compile(Block())
    twin = compile(SmoothBlock())
    res = problem(block, twin).solve(elements=elements, degree=3, guess=coulomb_guess())
    return block, res, res.verify()


def _plot(res: Any, check: Any, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 6))
    FigureCanvasAgg(fig)
    ax1, ax2, ax3 = fig.subplots(3, 1, sharex=True)
    sim = check.solution
    t = np.linspace(0.0, T_END, 201)
    ax1.plot(res.t, res["push.f"], "o", ms=3, label="optimal push (twin)")
    ax1.plot(t, coulomb_optimum(t)[0], "k:", label="exact-Coulomb optimum")
    ax1.axhline(PEAK * F_COULOMB, color="tab:red", lw=0.8, ls="--", label="static friction")
    ax1.set_ylabel("force [N]")
    ax1.legend(fontsize=8)
    for ax, name, label in ((ax2, "mass.s", "s [m]"), (ax3, "mass.v", "v [m/s]")):
        ax.plot(res.t, res[name], "o", ms=3, label="twin (collocation)")
        ax.plot(sim.t, sim[name], "-", lw=1, label="hybrid (re-simulated)")
        ax.set_ylabel(label)
    ax2.legend(fontsize=8)
    ax3.set_xlabel("t [s]")
    for ax in (ax1, ax2, ax3):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Minimum-effort push against stick/slip "
                                     "friction: smooth twin optimised, hybrid model verified.")
    parser.add_argument("--elements", type=int, default=40,
                        help="collocation elements (default 40)")
    parser.add_argument("--out", type=Path, default=Path("."),
                        help="folder for the plot (default: .)")
    parser.add_argument("--no-plot", action="store_true", help="no plot")
    args = parser.parse_args(argv)

    wall = _time.perf_counter()
    block, res, check = solve(args.elements)
    print(block.summary())
    print("\nwithout a smooth twin, OptimalControl(block) refuses:\n  " + refusal_message(block))
    _, j_star = coulomb_optimum(0.0)
    print(f"\ntwin optimum: {res.status}, {res.iterations} IPOPT iterations, cost "
          f"{res.objective:.5f} N^2 s (exact-Coulomb optimum J* = {j_star:.5f}: "
          f"{100 * (res.objective / j_star - 1):+.3f} %)")
    f_opt, _ = coulomb_optimum(res.t)
    moving = np.asarray(res["mass.v"]) > 1e-3
    print(f"push: f(0+) = {res['push.f'][1]:.4f} N (f*(0) = {2 * F_COULOMB:.4f} N), the block "
          f"slides until t = {res.t[moving][-1]:.3f} s (T1 = {motion_time():.3f} s); largest "
          f"difference to f*(t) {np.max(np.abs(res['push.f'] - f_opt)):.4f} N")
    print(f"collocation error estimate {res.collocation_error:.2e}")
    sim = check.solution
    print("hybrid replay (stick/slip events located by the run loop): end s = "
          f"{sim['mass.s'][-1]:.6f} m (target {DISTANCE:g}), "
          f"v = {sim['mass.v'][-1]:.2e} m/s, mode {sim['friction.mode'][-1]:+.0f}; "
          "events: " + "; ".join(f"t = {t:.4f} ({', '.join(labels)})"
                                  for t, labels in sim.events))
    print("end differences (hybrid - twin): " + ", ".join(
        f"{n} {d:.2e}" for n, d in check.end_difference.items()))
    print(f"wall time {_time.perf_counter() - wall:.1f} s")
    if not args.no_plot:
        args.out.mkdir(parents=True, exist_ok=True)
        try:
            png = args.out / "friction_optimal_control.png"
            _plot(res, check, png)
            print(f"plot saved to {png}")
        except ImportError:
            print("(matplotlib not installed: no plot)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
