"""Nonlinear MPC of the planar segway: the controller predicts with a rolling wheel, the plant
slips.

Models (both from ``acausal.components.planar.examples``: the segway of examples/segway.py
without its controller, as in examples/segway_min_time.py):

* controller model :class:`RollingSegway`: the wheel rolls without slip
  (``OneDOFRollingWheelJoint``); states ``wheel.x, wheel.v, body.phi, body.w``; control the
  motor torque ``motor.tau`` (an ``Input``);
* plant :class:`SlippingSegway`: the same segway on segway.py's slipping contact
  (``OneDOFSlippingWheelJoint`` with ``limit_S_triple`` adhesion/sliding friction), six states.
  The MPC measures the plant's ``wheel.x, wheel.v, body.phi, body.w`` (same names).

The MPC's problem on a receding horizon ``[t, t + HORIZON]`` (Radau collocation, one element
per sample period, IPOPT warm-started from the shifted previous solution)::

    minimise  integral of  Q_X (x - r(time))**2 + Q_PHI phi**2 + Q_W phi'**2 + Q_V v**2
                           + R_TAU tau**2
    subject to  the rolling model from the measured state,  |tau| <= TAU_MAX,
                |body.phi| <= PITCH_MAX (soft: violations cost SOFT_PENALTY * violation**2)

with the reference a ramp to 1 m, ``r(t) = DISTANCE * min(1, t / T_RAMP)``, written in the
Lagrange term with ``time`` (the plant's time: the MPC shifts it with the horizon). The
torque found for the first sample period is applied to the plant (zero-order hold), the plant
is simulated over the period (CVODE), measured, and the MPC solves again
(``mpc.closed_loop(plant, t_end)``).

Run:  python examples/segway_mpc.py [--t-end 5] [--out DIR] [--no-plot] [--no-jit]
Prints the median and largest MPC step time, the tracking errors (largest after the ramp, and at
the end) and writes ``segway_mpc.png`` into --out. ``--no-jit`` keeps the NLP in CasADi's
virtual machine; by default (``jit="auto"``) it is compiled to machine code when a C compiler is
found, which costs seconds of build for a few percent per step on this small NLP
(benchmarks/optimal_control.py measures both).
"""

from __future__ import annotations

import argparse
import sys
import time as _time
from pathlib import Path
from typing import Any

import numpy as np

from acausal import MPC, OptimalControl, compile
from acausal.components.planar.examples import DISTANCE, RollingSegway, SlippingSegway

HORIZON = 1.5        # s: a few times the pendulum's time constant 1/6.9 s and the ramp's pace
SAMPLE_TIME = 0.05   # s
T_RAMP = 2.0         # s, the reference reaches DISTANCE at T_RAMP
TAU_MAX = 20.0       # N m
PITCH_MAX = 0.35     # rad (soft)
SOFT_PENALTY = 1e3
Q_X, Q_PHI, Q_W, Q_V, R_TAU = 100.0, 10.0, 1.0, 1.0, 1e-3
REFERENCE = f"{DISTANCE}*Min(1, time/{T_RAMP})"
STATES = ("wheel.x", "wheel.v", "body.phi", "body.w")


def reference(t: Any) -> np.ndarray:
    """The position reference r(t) [m] (the same ramp as :data:`REFERENCE`)."""
    return DISTANCE * np.minimum(1.0, np.asarray(t, float) / T_RAMP)


def mpc_problem(model: Any) -> OptimalControl:
    """The tracking problem of the module docstring on ``model`` (the rolling segway); no end
    time: the MPC sets the horizon."""
    ocp = OptimalControl(model)
    ocp.control("motor.tau", lower=-TAU_MAX, upper=TAU_MAX, guess=0.0, nominal=TAU_MAX)
    ocp.path("body.phi", lower=-PITCH_MAX, upper=PITCH_MAX, soft=SOFT_PENALTY)
    ocp.minimize(lagrange=f"{Q_X}*(wheel.x - {REFERENCE})**2 + {Q_PHI}*body.phi**2 + "
                          f"{Q_W}*body.w**2 + {Q_V}*wheel.v**2 + {R_TAU}*motor.tau**2")
    return ocp


def run(t_end: float = 5.0, horizon: float = HORIZON, sample_time: float = SAMPLE_TIME,
        jit: bool | str = "auto") -> tuple[MPC, Any]:
    """Build the MPC on the rolling model and run it against the slipping plant for ``t_end``
    seconds; returns ``(mpc, loop)``."""
    model = compile(RollingSegway())
    plant = compile(SlippingSegway())
    mpc = MPC(mpc_problem(model), horizon=horizon, sample_time=sample_time, jit=jit)
    loop = mpc.closed_loop(plant, t_end, measure={n: n for n in STATES})
    return mpc, loop


def tracking_errors(loop: Any, t_ramp: float = T_RAMP) -> dict[str, float]:
    """Largest |x - r| over the run, largest after ``t_ramp + 1 s`` and |x - r| at the end."""
    sol = loop.solution
    err = np.abs(np.asarray(sol["wheel.x"]) - reference(sol.t))
    late = sol.t >= t_ramp + 1.0
    return {"max": float(err.max()),
            "max_after_ramp": float(err[late].max()) if late.any() else float("nan"),
            "final": float(err[-1])}


def _plot(loop: Any, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    sol = loop.solution
    fig = Figure(figsize=(7, 7))
    FigureCanvasAgg(fig)
    ax1, ax2, ax3, ax4 = fig.subplots(4, 1, sharex=True)
    ax1.plot(sol.t, sol["wheel.x"], label="plant x")
    ax1.plot(sol.t, reference(sol.t), "k:", label="reference")
    ax1.set_ylabel("x [m]")
    ax1.legend()
    ax1.set_title("segway under MPC (rolling model) with the slipping plant")
    ax2.plot(sol.t, sol["body.phi"])
    ax2.set_ylabel("pitch [rad]")
    ax3.step(loop.sample_times, loop.controls["motor.tau"], where="post")
    ax3.set_ylabel("torque [N m]")
    ax4.plot(sol.t, sol["wheel.v_slip_long"])
    ax4.set_ylabel("slip [m/s]")
    ax4.set_xlabel("t [s]")
    for ax in (ax1, ax2, ax3, ax4):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="MPC of the segway (rolling model) tracking a "
                                     "1 m ramp, run against the slipping plant.")
    parser.add_argument("--t-end", type=float, default=5.0, help="run time [s] (default 5)")
    parser.add_argument("--out", type=Path, default=Path("."),
                        help="folder for the plot (default: .)")
    parser.add_argument("--no-plot", action="store_true", help="no plot")
    parser.add_argument("--no-jit", action="store_true",
                        help="run the NLP's functions in CasADi's virtual machine instead of "
                        "compiling them to machine code (no C compiler run, faster build)")
    args = parser.parse_args(argv)

    wall = _time.perf_counter()
    mpc, loop = run(args.t_end, jit=False if args.no_jit else "auto")
    print(mpc)
    print(f"build {mpc.build_time:.2f} s; {loop.step_times.size} steps")
    steps_ms = 1e3 * loop.step_times
    print(f"MPC step time: median {np.median(steps_ms):.1f} ms, largest {steps_ms.max():.1f} ms "
          f"(sample time {1e3 * mpc.sample_time:g} ms)")
    failed = [s for s in loop.statuses if s not in ("Solve_Succeeded",
                                                    "Solved_To_Acceptable_Level")]
    print(f"IPOPT statuses: {len(loop.statuses) - len(failed)} solved, {len(failed)} not"
          + (f" ({', '.join(sorted(set(failed)))})" if failed else ""))
    errors = tracking_errors(loop)
    sol = loop.solution
    print(f"tracking error |x - r|: largest {errors['max']:.4f} m, largest after "
          f"t = {T_RAMP + 1:g} s {errors['max_after_ramp']:.2e} m, at the end "
          f"{errors['final']:.2e} m")
    print(f"end: x = {sol['wheel.x'][-1]:.5f} m, v = {sol['wheel.v'][-1]:.2e} m/s, pitch = "
          f"{sol['body.phi'][-1]:.2e} rad; max |pitch| {np.max(np.abs(sol['body.phi'])):.3f} "
          f"rad, max |tau| {np.max(np.abs(loop.controls['motor.tau'])):.2f} N m, max |slip| "
          f"{np.max(np.abs(sol['wheel.v_slip_long'])):.4f} m/s")
    print(f"wall time {_time.perf_counter() - wall:.1f} s")
    if not args.no_plot:
        args.out.mkdir(parents=True, exist_ok=True)
        try:
            png = args.out / "segway_mpc.png"
            _plot(loop, png)
            print(f"plot saved to {png}")
        except ImportError:
            print("(matplotlib not installed: no plot)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
