"""Crank-rocker with a frictional slider (Wang, Wang, Zhuang 2013), built from planar components.

Run:  python examples/crank_rocker.py [--damping C] [--t-end T] [--gravity] [--csv FILE]

The model is ``CrankRocker`` of ``acausal.components.planar.examples_crank_rocker`` (its
docstring states the mechanism, the paper's data, the friction law and the energy integrals): a
rocker with a viscous moment ``-c*theta1_dot`` (``--damping C``, the paper's c = 0 or 8 N m s/rad),
a crank driven at omega = 3 rad/s, a slider on the crank that slides along the rocker with
Coulomb friction mu = 0.2, switched at located events (``--v-reg V``: the regularised
``tanh(v/V)`` instead). No gravity unless ``--gravity`` (standard gravity 9.80665 m/s2; the
paper's example has none). The script prints the paper's checkpoints (theta2 = k pi) and the
energy balance ``W_drive = E_friction + E_damping + Delta KE``.

CSV columns (every 1 ms): ``t, theta1, theta1_dot, theta2, driving_torque, normal_force,
friction_force, slip_velocity``: driving_torque = torque of the drive on the crank in the
+theta2 sense; normal_force = force of the slider on the rocker along the rocker normal
(cos theta1, -sin theta1); friction_force = friction force on the slider along the rocker
(sin theta1, cos theta1) (towards A positive); slip_velocity = d|OB|/dt.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from acausal import compile
from acausal.components.planar.examples_crank_rocker import OMEGA, CrankRocker

G_N = 9.80665  # standard gravity for --gravity (the paper's example has none)
COLUMNS = ("t", "theta1", "theta1_dot", "theta2", "driving_torque", "normal_force",
           "friction_force", "slip_velocity")


#: IDAS options: the algebraic variables are left out of IDAS's local error test. When the
#: normal reaction crosses zero (c = 0 at theta2 = 0, pi) the friction force mu*|lambda|_eps has
#: a kink of width ~eps/|d lambda/dt| (~1e-9 s) that the error test on the algebraic
#: variables cannot pass (IDA_ERR_FAIL); the states (the energy integrals) stay error-controlled
#: and the algebraic variables are solved by Newton at every step.
INTEGRATOR_OPTIONS = {"suppress_algebraic": True}


def simulate(damping: float = 0.0, t_end: float = 4 * np.pi / OMEGA, gravity: bool = False,
             v_reg: float | None = None, dt: float = 1e-3, system=None, t_eval=None):
    """Compile (unless ``system`` is given) and simulate on a grid of step ``dt`` from 0 to
    ``t_end`` rounded to a multiple of ``dt`` (or on ``t_eval``); returns ``(system, sol)``."""
    cs = system if system is not None else compile(CrankRocker(v_reg=v_reg))
    params = {"damper.d": damping, "world.g": G_N if gravity else 0.0}
    if t_eval is None:
        n = max(int(round(t_end / dt)), 1)
        t_eval = np.arange(n + 1) * dt
    sol = cs.simulate(float(t_eval[-1]), t_eval=t_eval, params=params, rtol=1e-10, atol=1e-12,
                      integrator_options=INTEGRATOR_OPTIONS)
    return cs, sol


def energy_balance(sol) -> tuple[float, float]:
    """``(W_drive, E_friction + E_damping + Delta KE)`` at the end of the run."""
    ke = sol["kinetic_energy"]
    return (float(sol["work_drive"][-1]),
            float(sol["energy_friction"][-1] + sol["energy_damping"][-1] + ke[-1] - ke[0]))


def write_csv(sol, path) -> None:
    sol.to_csv(path, {"t": "time", **{c: c for c in COLUMNS[1:]}}, units=False, fmt="%.10g")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--damping", type=float, default=0.0, metavar="C",
                    help="rocker damping c [N m s/rad] (paper: 0 or 8)")
    ap.add_argument("--t-end", type=float, default=4 * np.pi / OMEGA, metavar="T",
                    help="end time [s] (default: two crank revolutions, 4 pi/omega)")
    ap.add_argument("--gravity", action="store_true",
                    help="add standard gravity g = 9.80665 m/s2 along -y")
    ap.add_argument("--v-reg", type=float, default=None, metavar="V",
                    help="use a tanh-regularised Coulomb law with this velocity [m/s] "
                    "instead of the exact event-switched one")
    ap.add_argument("--csv", default=None, metavar="FILE", help="write the results every 1 ms")
    args = ap.parse_args(argv)

    cs, sol = simulate(args.damping, args.t_end, args.gravity, args.v_reg)
    print(cs.summary())
    print(f"\nc = {args.damping:g} N m s/rad, gravity {'on' if args.gravity else 'off'}, "
          f"{len(sol.events)} friction sign switches")
    th2 = sol["theta2"]
    for target in np.arange(0.0, th2[-1] + 1e-9, np.pi):
        k = int(np.argmin(np.abs(th2 - target)))
        print(f"theta2 = {th2[k]:7.4f}: theta1 = {sol['theta1'][k]:+.3e}, "
              f"theta1_ddot = {sol['theta1_ddot'][k]:+.3e}, "
              f"torque = {sol['driving_torque'][k]:+.4e} N m, "
              f"normal = {sol['normal_force'][k]:+.4e} N, "
              f"friction = {sol['friction_force'][k]:+.4e} N")
    w_drive, w_out = energy_balance(sol)
    print(f"drive work {w_drive:.10g} J; friction {sol['energy_friction'][-1]:.10g} J + damping "
          f"{sol['energy_damping'][-1]:.10g} J + delta KE "
          f"{sol['kinetic_energy'][-1] - sol['kinetic_energy'][0]:.3e} J = {w_out:.10g} J; "
          f"relative mismatch {abs(w_drive - w_out) / max(abs(w_drive), 1e-300):.1e}")
    if args.csv:
        write_csv(sol, args.csv)
        print(f"results written to {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
