"""Minimum-time drive of the planar segway: 1 m forward, from rest to rest, upright, with a
bounded motor torque, a bounded lean and a wheel that keeps its grip.

Model: :class:`SlippingSegway` of ``acausal.components.planar.examples`` (the segway of
``examples/segway.py`` with the motor torque ``motor.tau`` an ``Input`` and no controller: wheel
``Body`` on a ``OneDOFSlippingWheelJoint`` with the module's ``CONTACT``, pendulum on a
``Revolute`` at the axle), started upright and at rest at x = 0. States: ``wheel.phi_roll,
wheel.w_roll, wheel.x, wheel.v, body.phi, body.w``. The contact's longitudinal slip velocity is
``wheel.v_slip_long = v - R w_roll``; its friction coefficient ``limit_S_triple(vAdhesion,
vSlide, mu_A, mu_S, |v_slip_long|)`` rises to its peak ``mu_A`` at the adhesion slip
``wheel.vAdhesion = max(vAdhesion_min, sAdhesion |R w_roll|)`` (0.05 m/s, or 4 % of the rolling
speed above 1.25 m/s) and falls towards ``mu_S`` beyond it: there the wheel spins (or locks) and
loses traction. (Its twin on a wheel that rolls without slip, ``RollingSegway``, is the
controller's model of examples/segway_mpc.py.)

Problem (direct collocation, Radau IIA degree 3, IPOPT; ``acausal.OptimalControl``)::

    minimise    T
    subject to  the plant's equations; tau(t) piecewise constant per element
                |tau| <= TAU_MAX = 40 N m                 (motor torque)
                |v_slip_long| <= SLIP_BOUND * vAdhesion   (grip kept; SLIP_BOUND = 0.8)
                wheel.f_n <= -MIN_LOAD * (m_w + m_b) g    (the wheel carries at least half of
                                                           the weight; f_n is the joint's cut
                                                           force, -(m_w + m_b) g at rest)
                |body.phi| <= PITCH_MAX = 0.35 rad        (20 degrees of lean, a rider's limit)
                x(0) = 0, at rest, upright                (the model's fixed starts)
                x(T) = 1 m; v = w_roll = body.phi = body.w = 0 at T
                T_MIN <= T <= T_MAX

Why the margins (measured with this script's problem; "replay" = ``res.verify()``):

* ``SLIP_BOUND = 0.8``, not 1: at ``|v_slip_long| = vAdhesion`` the friction curve has zero
  slope, so the contact's slip dynamics (a pole near -6000 1/s while adhering, see
  segway_lqr.py) are neutrally stable there and unstable beyond: a wheel driven past it spins
  up or locks. The path constraint holds at the collocation points only; with the bound at 1.0
  or 0.9 the replayed wheel locks between them in the final braking (slip 30 to 40 times the
  adhesion slip at the end, 40 and 60 elements). At 0.8 the curve keeps 36 % of its slope at
  zero slip (``1.5 (1 - 0.8**2)`` of ``1.5``) and 94 % of the peak traction (``1.5 u - 0.5 u**3``
  at ``u = 0.8``): the margin a traction controller keeps.
* ``MIN_LOAD = 0.5``: without it the optimum whips the pendulum so hard that the wheel's load
  dips to 10 % of the weight (centripetal terms of the swinging body); the traction capacity
  ``mu_A |f_n|`` then collapses within an element whose torque is held, and the replayed wheel
  locks (slip 40 times the adhesion slip, 50 elements). With half the weight kept on the wheel
  the replay stays below 0.95 of the adhesion slip (40 to 80 elements), for 1 % more time.

``vAdhesion >= vAdhesion_min = 0.05 m/s > 0``, so the slip constraint is written as the smooth
ratio ``-0.8 <= v_slip_long / vAdhesion <= 0.8`` (the max() inside ``vAdhesion`` has a kink at
1.25 m/s, which IPOPT tolerates).

The guess is a simulation of segway.py's pole-placement controller driving to 1 m
(``ocp.solve(guess=sol)``). The result is checked by ``res.verify()``: acausal's simulation of
the plant with the optimal torque as its input (CVODE, rtol 1e-10), whose end difference is
compared with the result's error estimate ``res.collocation_error`` (docs/optimal_control.md). The
pendulum is open-loop unstable (pole 6.9 1/s), so any error grows by about exp(6.9 T) over the
drive; the two agree in size, not to many digits.

Run:  python examples/segway_min_time.py [--elements 60] [--tau-max 40] [--out DIR] [--no-plot]
Prints T*, the IPOPT iterations and the verification; writes ``segway_min_time.png`` and the
3-D view ``segway_min_time.html`` into --out (default: the current folder).
"""

from __future__ import annotations

import argparse
import sys
import time as _time
from pathlib import Path
from typing import Any

import numpy as np

from acausal import OptimalControl, compile

# the segway of segway.py (constants, feedback controller) and its open-loop plant
from acausal.components.planar.examples import (
    CONTACT,
    DISTANCE,
    M_B,
    M_W,
    G,
    Segway,
    SlippingSegway,
    place_gains,
)

TAU_MAX = 40.0               # N m, motor torque bound (a hub motor's peak torque)
PITCH_MAX = 0.35             # rad, lean bound (20 degrees)
SLIP_BOUND = 0.8             # |slip| <= SLIP_BOUND * adhesion slip (see the docstring)
MIN_LOAD = 0.5               # the wheel carries at least this fraction of the weight
WEIGHT = (M_W + M_B) * G     # N, the segway's weight (wheel and pendulum)
T_MIN, T_MAX = 0.5, 6.0      # s, bounds of the free end time
T_GUESS = 3.0                # s, end time of the guess (the feedback run is near 1 m there)
#: the slip expression bounded to [-1, 1]: slip velocity over the adhesion slip velocity
SLIP_RATIO = "wheel.v_slip_long/wheel.vAdhesion"
#: the end conditions "at rest, upright" (the slipping plant; the rolling model has no w_roll)
REST = ("wheel.v", "wheel.w_roll", "body.phi", "body.w")


def feedback_guess(t_end: float = 4.0) -> Any:
    """segway.py's pole-placement controller driving the slipping segway from upright rest at
    0 to ``DISTANCE`` (its gains, its model): the guess of the min-time problem."""
    k = place_gains()
    system = compile(Segway(k_x=k[0], k_theta=k[1], k_v=k[2], k_w=k[3], x_target=DISTANCE))
    return system.simulate(t_end, dt=0.01, rtol=1e-8, atol=1e-10,
                           start={"revolute.phi": 0.0})


def min_time_problem(system: Any, tau_max: float = TAU_MAX,
                     slip_bound: float = SLIP_BOUND) -> OptimalControl:
    """The minimum-time problem of the module docstring on ``system`` (the slipping plant)."""
    ocp = OptimalControl(system, t_start=0.0)
    ocp.control("motor.tau", lower=-tau_max, upper=tau_max, guess=0.0, nominal=tau_max)
    ocp.free_end_time(lower=T_MIN, upper=T_MAX, guess=T_GUESS)
    ocp.end("wheel.x", DISTANCE)
    for name in REST:
        ocp.end(name, 0.0)
    ocp.path(SLIP_RATIO, lower=-slip_bound, upper=slip_bound)
    ocp.path("body.phi", lower=-PITCH_MAX, upper=PITCH_MAX)
    ocp.path("wheel.f_n", upper=-MIN_LOAD * WEIGHT)
    ocp.minimize(mayer="time")
    return ocp


def solve(elements: int = 60, tau_max: float = TAU_MAX, slip_bound: float = SLIP_BOUND,
          verbose: bool = False) -> tuple[Any, OptimalControl, Any]:
    """Build the plant, the problem and the guess; solve. Returns ``(system, ocp, res)``."""
    system = compile(SlippingSegway())
    ocp = min_time_problem(system, tau_max, slip_bound)
    guess = feedback_guess()
    res = ocp.solve(elements=elements, degree=3, guess=guess, verbose=verbose)
    return system, ocp, res


def _plot(res: Any, check: Any, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 8))
    FigureCanvasAgg(fig)
    axes = fig.subplots(4, 1, sharex=True)
    sim = check.solution
    rows = [("wheel.x", "x [m]"), ("body.phi", "pitch [rad]"), ("motor.tau", "torque [N m]")]
    for ax, (name, label) in zip(axes, rows):
        ax.plot(res.t, res[name], "o", ms=3, label="collocation")
        ax.plot(sim.t, sim[name], "-", lw=1, label="re-simulated")
        ax.set_ylabel(label)
    ratio_col = np.asarray(res["wheel.v_slip_long"]) / np.asarray(res["wheel.vAdhesion"])
    ratio_sim = np.asarray(sim["wheel.v_slip_long"]) / np.asarray(sim["wheel.vAdhesion"])
    axes[3].plot(res.t, ratio_col, "o", ms=3)
    axes[3].plot(sim.t, ratio_sim, "-", lw=1)
    for bound in (-SLIP_BOUND, SLIP_BOUND):
        axes[3].axhline(bound, color="k", ls=":")
    axes[3].set_ylabel("slip / adhesion slip")
    axes[3].set_xlabel("t [s]")
    axes[0].axhline(DISTANCE, color="k", ls=":")
    axes[0].legend()
    axes[0].set_title(f"minimum-time segway drive: T* = {res.t_end:.4f} s")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Minimum-time 1 m drive of the segway with a "
                                     "torque bound and the wheel kept in adhesion.")
    parser.add_argument("--elements", type=int, default=60,
                        help="collocation elements (default 60)")
    parser.add_argument("--tau-max", type=float, default=TAU_MAX,
                        help=f"motor torque bound [N m] (default {TAU_MAX:g})")
    parser.add_argument("--out", type=Path, default=Path("."),
                        help="folder for the plot and the 3-D view (default: .)")
    parser.add_argument("--no-plot", action="store_true", help="no plot, no 3-D view")
    args = parser.parse_args(argv)

    wall = _time.perf_counter()
    system, ocp, res = solve(args.elements, args.tau_max)
    print(system.summary())
    print(f"\n{ocp}")
    print(f"status: {res.status} (success {res.success}), {res.iterations} IPOPT iterations, "
          f"build {res.build_time:.2f} s, solve {res.solve_time:.2f} s")
    print(f"T* = {res.t_end:.5f} s (bounds [{T_MIN:g}, {T_MAX:g}] s)")
    tau = np.asarray(res["motor.tau"])
    ratio = np.asarray(res["wheel.v_slip_long"]) / np.asarray(res["wheel.vAdhesion"])
    print(f"max |tau| = {np.max(np.abs(tau)):.3f} N m (bound {args.tau_max:g}), "
          f"max |slip|/vAdhesion = {np.max(np.abs(ratio)):.4f} (bound {SLIP_BOUND:g}; "
          f"vAdhesion_min {CONTACT['vAdhesion_min']:g} m/s, sAdhesion {CONTACT['sAdhesion']:g}), "
          f"max |pitch| = {np.max(np.abs(res['body.phi'])):.4f} rad (bound {PITCH_MAX:g}), "
          f"min wheel load |f_n| = {np.min(np.abs(res['wheel.f_n'])):.1f} N (bound "
          f"{MIN_LOAD * WEIGHT:.1f} N)")
    print("end: " + ", ".join(f"{n} = {res[n][-1]:.3e}" for n in ("wheel.x", *REST)))
    print(f"max constraint violation {res.max_violation:.2e}, "
          f"collocation error estimate {res.collocation_error:.2e}")
    check = res.verify()
    print("verification (simulate with the optimal torque), end differences: " + ", ".join(
        f"{n} {d:.2e}" for n, d in check.end_difference.items()))
    sim = check.solution
    replay = np.asarray(sim["wheel.v_slip_long"]) / np.asarray(sim["wheel.vAdhesion"])
    print(f"max end difference {check.max_difference:.2e} (estimate {res.collocation_error:.2e}); "
          f"re-simulated max |slip|/vAdhesion = {np.max(np.abs(replay)):.3f}")
    print(f"wall time {_time.perf_counter() - wall:.1f} s")
    if args.no_plot:
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        png = args.out / "segway_min_time.png"
        _plot(res, check, png)
        print(f"plot saved to {png}")
    except ImportError:
        print("(matplotlib not installed: no plot)")
    html = args.out / "segway_min_time.html"
    res.view(html)
    print(f"3-D view saved to {html}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
