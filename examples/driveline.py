"""A hill start: engine torque, a clutch engaged on a ramp of normal force, a lossy gearbox and
a vehicle on a grade (issue 41's driveline example).

Run:  python examples/driveline.py [--out OUT_DIR] [--t-end T] [--grade G] [--csv FILE]

The model is ``HillStart`` of ``acausal.components.driveline_examples`` (its docstring has the
parts and their data): the clutch starts free (no normal force), slips backwards while the
vehicle rolls back and the engine pulls it up, and locks when its slip reaches zero. The script
prints the clutch's mode changes, the lock time and the energy balance (engine work = kinetic +
potential energy + clutch heat + gearbox heat + road losses); with ``--out`` it writes
``driveline.png`` (speeds, clutch torque and normal force, vehicle speed) there.

CSV columns (every 10 ms): ``t, engine_w, gear_input_w, vehicle_v, vehicle_s, clutch_tau,
clutch_mode, gearbox_mode, pedal``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from acausal import compile
from acausal.components.driveline_examples import HillStart

MODES = {1.0: "slips forward", 0.0: "stuck", -1.0: "slips backward", 2.0: "free"}
COLUMNS = ("t", "engine_w", "gear_input_w", "vehicle_v", "vehicle_s", "clutch_tau",
           "clutch_mode", "gearbox_mode", "pedal")
SIGNALS = ("engine.w", "gearInput.w", "vehicle.v", "vehicle.s", "clutch.tau", "clutch.mode",
           "gearbox.mode", "pedal.y.u")


def simulate(t_end: float = 6.0, grade: float = 0.08, system=None):
    """``(system, sol)``: the hill start on ``grade`` (tan of the road angle), every 10 ms."""
    cs = system if system is not None else compile(HillStart())
    sol = cs.simulate(t_end, dt=0.01, params={"vehicle.inclinationConstant": grade},
                      rtol=1e-8, atol=1e-10)
    return cs, sol


def energy_balance(sol) -> tuple[float, float]:
    """``(engine work, sum of where it went)`` at the end of the run [J] (masses, inertias,
    gravity and grade read from the run's parameters)."""
    m, g, grade = (float(sol[name][0]) for name in
                   ("vehicle.m", "vehicle.g", "vehicle.inclinationConstant"))
    kinetic = 0.5 * float(sol["engine.J"][0]) * sol["engine.w"] ** 2 \
        + 0.5 * float(sol["gearInput.J"][0]) * sol["gearInput.w"] ** 2 \
        + 0.5 * m * sol["vehicle.v"] ** 2
    potential = m * g * math.sin(math.atan(grade)) * sol["vehicle.s"]
    spent = (kinetic[-1] - kinetic[0]) + (potential[-1] - potential[0]) \
        + sol["E_clutch"][-1] + sol["E_gear"][-1] + sol["E_road"][-1]
    return float(sol["W_engine"][-1]), float(spent)


def clutch_modes(sol) -> list[tuple[float, str]]:
    """``[(t, mode name), ...]``: the clutch's mode at the start and after each change."""
    out = [(0.0, MODES[float(sol["clutch.mode"][0])])]
    for t, value in zip([t for t, _ in sol.events], sol.event_values("clutch.mode")):
        name = MODES[float(value)]
        if name != out[-1][1]:
            out.append((float(t), name))
    return out


def plot(sol, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    axes[0].plot(sol.t, sol["engine.w"], label="engine")
    axes[0].plot(sol.t, sol["gearInput.w"], label="gearbox input")
    axes[0].set_ylabel("speed [rad/s]")
    axes[0].legend()
    # clutch.tau acts against positive slip w_rel = gearbox input - engine: its negative is
    # the torque the clutch passes from the engine to the gearbox
    axes[1].plot(sol.t, -sol["clutch.tau"], label="torque through the clutch [N.m]")
    axes[1].plot(sol.t, 100 * sol["pedal.y.u"], "--", label="normal force [% of fn_max]")
    axes[1].legend()
    axes[2].plot(sol.t, sol["vehicle.v"], label="vehicle speed [m/s]")
    axes[2].plot(sol.t, sol["vehicle.s"], label="vehicle position [m]")
    axes[2].set_xlabel("t [s]")
    axes[2].legend()
    for t, name in clutch_modes(sol)[1:]:
        for ax in axes:
            ax.axvline(t, color="grey", lw=0.5)
        axes[0].annotate(f"clutch {name}", (t, axes[0].get_ylim()[1]), fontsize=8,
                         rotation=90, va="top", ha="right")
    axes[0].set_title("Hill start: clutch on a pedal ramp, lossy gearbox, 8 % grade")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="folder for driveline.png")
    parser.add_argument("--t-end", type=float, default=6.0, help="end time [s] (default 6)")
    parser.add_argument("--grade", type=float, default=0.08,
                        help="road inclination tan(angle) (default 0.08)")
    parser.add_argument("--csv", type=Path, help="write the results to this CSV file")
    args = parser.parse_args(argv)
    _, sol = simulate(args.t_end, args.grade)
    for t, name in clutch_modes(sol):
        print(f"t = {t:8.5f} s: clutch {name}")
    work, spent = energy_balance(sol)
    print(f"engine work {work:.3f} J = kinetic + potential + heat + road {spent:.3f} J "
          f"(difference {work - spent:.2e} J)")
    if args.csv:
        data = np.column_stack([sol.t] + [sol[name] for name in SIGNALS])
        np.savetxt(args.csv, data, delimiter=",", header=",".join(COLUMNS), comments="")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        plot(sol, args.out / "driveline.png")
        print(f"wrote {args.out / 'driveline.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
