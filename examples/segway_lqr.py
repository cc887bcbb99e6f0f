"""LQR control of the planar segway, designed from the model linearised by acausal.

The plant is the segway of ``examples/segway.py`` (a wheel on a slipping contact,
``OneDOFSlippingWheelJoint`` with the ``limit_S_triple`` slip law, and a pendulum body on its
axle) with the motor torque marked as an input (``rotational.Torque(tau=Input())``) and no
controller: ``OpenLoopSegway`` of ``acausal.components.planar.examples``. The steps, each one
call:

1. ``system.trim(fixed=...)``: the upright operating point (pitch 0, at x = 0, at rest; the
   torque that holds it is 0);
2. ``system.linearize(t, op, inputs=["motor.tau"], outputs=[...], states=STATES)``: (A, B, C,
   D) with exact Jacobians, in the states the controller feeds back. The compiler chose the
   joint's relative angle ``revolute.phi`` and rate as states; ``states=`` asks for the
   pendulum's *absolute* pitch ``body.phi`` and rate instead (an exact change of coordinates),
   in which the wheel's roll angle ``wheel.phi_roll`` is a free integrator that nothing depends
   on: ``StateSpace.without_states`` drops it (LQR needs a stabilisable system);
3. LQR (``scipy.linalg.solve_continuous_are``) with the weights ``Q``, ``R`` below;
4. the nonlinear segway (slip law and all) closed with ``tau = -K (x - x_op)`` and released
   from a 10-degree tilt, at rest: it must come back upright, near x = 0.

The linearised model is checked against the hand-derived rolling model of the segway
(``linear_model()`` of ``acausal.components.planar.examples``; its unstable pole sqrt of the
pendulum's gravity stiffness over the mass matrix), which the contact's slip law approximates
when it adheres.

Run:  python examples/segway_lqr.py [OUT_DIR] [--t-end 8] [--tilt-deg 10] [--csv FILE]
Prints the linear model's poles, the gains and the closed-loop poles, the response summary,
and saves ``segway_lqr.png`` (pitch, position and torque over time) in OUT_DIR.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy.linalg import solve_continuous_are

from acausal import Eq, Parameter, compile
from acausal.components import rotational

# the segway of segway.py without its controller, its rolling model and its CSV columns
from acausal.components.planar.examples import (
    COLUMNS,
    OpenLoopSegway,
    columns,
    linear_model,
)

#: the states the controller feeds back in place of the joint's (completed with the wheel's)
STATES = ["body.phi", "body.w"]
#: LQR weights on the states (wheel.w_roll, wheel.x, wheel.v, body.phi, body.w) and the torque
Q_WEIGHTS = {"wheel.w_roll": 1.0, "wheel.x": 10.0, "wheel.v": 1.0, "body.phi": 100.0,
             "body.w": 1.0}
R_WEIGHT = 1.0
TILT_DEG = 10.0
OUTPUTS = ["body.phi", "wheel.x", "wheel.v_slip_long"]


def _variable(component, dotted: str):
    """The symbol of a variable of ``component`` by its dotted name ('wheel.v')."""
    obj = component
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def closed_loop_class(state_names: list[str]):
    """The nonlinear segway with ``tau = tau_op - sum_i K_i (x_i - x_op_i)`` over the named
    states; gains and operating point are vector parameters (changeable without recompiling)."""
    n = len(state_names)

    class LQRSegway(OpenLoopSegway):
        # no unit: each gain is N.m per the unit of its state (rad, rad/s, m, m/s)
        K = Parameter(tuple([0.0] * n), description="LQR gains, tau = -K dx")
        x_op = Parameter(tuple([0.0] * n), description="operating point of the states")
        tau_op = Parameter(0.0, unit="N.m", description="torque at the operating point")
        motor = rotational.Torque()

        def equations(self):
            dx = [_variable(self, name) - self.x_op[i] for i, name in enumerate(state_names)]
            return [Eq(self.motor.tau, self.tau_op - sum(self.K[i] * dx[i] for i in range(n)))]

    return LQRSegway


def design():
    """Trim, linearise and design the LQR; returns (open-loop system, linear model, K)."""
    plant = compile(OpenLoopSegway())
    op = plant.trim(fixed={"body.phi": 0.0, "wheel.x": 0.0, "wheel.phi_roll": 0.0})
    full = plant.linearize(0.0, op, inputs=["motor.tau"], outputs=OUTPUTS, states=STATES)
    lin = full.without_states(["wheel.phi_roll"])
    q = np.diag([Q_WEIGHTS[name] for name in lin.state_names])
    r = np.array([[R_WEIGHT]])
    p = solve_continuous_are(lin.A, lin.B, q, r)
    k = np.linalg.solve(r, lin.B.T @ p)
    return plant, lin, k.ravel()


def simulate(t_end: float, tilt_deg: float):
    plant, lin, k = design()
    op = lin.operating_point
    model = closed_loop_class(lin.state_names)(
        K=tuple(k), x_op=tuple(op[name] for name in lin.state_names), tau_op=op["motor.tau"])
    system = compile(model)
    # released at rest, tilted: the joint angle (a fixed start of Segway) sets the pitch
    sol = system.simulate(t_end, dt=0.01, rtol=1e-8, atol=1e-10,
                          start={"revolute.phi": math.radians(tilt_deg)})
    return lin, k, sol


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="LQR for the segway from acausal's linearised "
                                     "model, tested on the nonlinear model.")
    parser.add_argument("out_dir", nargs="?", type=Path, default=Path("."))
    parser.add_argument("--t-end", type=float, default=8.0, help="end time [s] (default 8)")
    parser.add_argument("--tilt-deg", type=float, default=TILT_DEG,
                        help="initial tilt [deg] (default 10)")
    parser.add_argument("--csv", type=Path, help="write " + ",".join(COLUMNS) + " here")
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)

    lin, k, sol = simulate(args.t_end, args.tilt_deg)
    print(lin)
    slow = max(abs(e.real) for e in lin.eigenvalues() if abs(e) < 100.0)
    a_roll, _ = linear_model()
    rolling = max(np.linalg.eigvals(a_roll).real)
    print(f"\nunstable pole of the linearised slipping model: {slow:.5f} 1/s "
          f"(rolling model of segway.py: {rolling:.5f} 1/s)")
    print("LQR gains K (tau = -K dx): " + ", ".join(
        f"{name} {gain:.4g}" for name, gain in zip(lin.state_names, k)))
    poles = np.linalg.eigvals(lin.A - np.outer(lin.B[:, 0], k))
    print("closed-loop poles: " + ", ".join(f"{pole:.4g}" for pole in sorted(
        poles, key=lambda z: z.real)))
    data = columns(sol)
    print(f"\nreleased at {args.tilt_deg:g} deg: max |pitch| = "
          f"{math.degrees(np.max(np.abs(data['pitch']))):.2f} deg, final pitch = "
          f"{math.degrees(data['pitch'][-1]):.2e} deg, final x = {data['x'][-1]:.2e} m, "
          f"max |torque| = {np.max(np.abs(data['torque'])):.2f} N m, max |slip| = "
          f"{np.max(np.abs(data['v_slip_long'])):.4f} m/s")
    if args.csv:
        sol.to_csv(args.csv, {c: data[c] for c in COLUMNS}, units=False, fmt="%.10g")
        print(f"CSV written to {args.csv}")
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        print("(matplotlib not installed: no plot)")
        return 0
    fig = Figure(figsize=(7, 6))
    FigureCanvasAgg(fig)
    ax1, ax2, ax3 = fig.subplots(3, 1, sharex=True)
    ax1.plot(sol.t, np.degrees(data["pitch"]))
    ax1.set_ylabel("pitch [deg]")
    ax1.set_title(f"segway with LQR from the linearised model, released at {args.tilt_deg:g} deg")
    ax2.plot(sol.t, data["x"])
    ax2.set_ylabel("x [m]")
    ax3.plot(sol.t, data["torque"])
    ax3.set_ylabel("motor torque [N m]")
    ax3.set_xlabel("t [s]")
    for ax in (ax1, ax2, ax3):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    png = args.out_dir / "segway_lqr.png"
    fig.savefig(png, dpi=100)
    print(f"plot saved to {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
