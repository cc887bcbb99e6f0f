"""A planar segway: a wheel on a slipping contact with a pendulum body balanced on its axle,
driven to a target by state feedback.

Model: ``Segway`` of ``acausal.components.planar.examples`` (its docstring and the module's state
the components, the data and the equations): wheel ``Body`` on a ``OneDOFSlippingWheelJoint``
(radius R = 0.2 m), a pendulum (m_b = 20 kg, centre of mass L = 0.6 m above the axle) on a
``Revolute`` at the axle, a motor torque between them, and the controller::

    tau = -(k_x (x - x_target) + k_theta theta + k_v v + k_w theta')

The gains (``place_gains()`` there) place the poles of the model linearised about upright
rolling (no slip) at -2, -2.5, -3, -3.5 1/s. The nonlinear simulation then uses the full model
with the slipping contact. The wheel starts from exactly zero speed and spin, the pendulum
leaning by 0.05 rad; the segway first moves back under the pendulum, then drives to
``x_target`` = 2 m and stops upright.

Run:  python examples/segway.py [OUT_DIR] [--t-end 10] [--csv FILE] [--grade-deg 0]
Prints a summary, saves ``segway.png`` (a plot) and ``segway.gif`` (an animation made with
``acausal.components.planar.animation``) in OUT_DIR (default: the current directory).
``--csv`` writes the columns ``t,x,v,pitch,pitch_rate,torque,v_slip_long`` every 10 ms.
``--grade-deg 5`` puts the segway on a road rising by 5 degrees towards +x (the wheel joint's
``grade``; ``x`` is then measured along the road) and prints the torque that holds it,
``(m_w + m_b) g sin(grade) R``, against the final torque of the run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from acausal import compile
from acausal.components.planar.examples import (
    COLUMNS,
    POLES,
    X_TARGET,
    Segway,
    columns,
    holding_torque,
    place_gains,
    wheel_joint,
)
from acausal.components.planar.parts import Fixed


def simulate(t_end: float = 10.0, grade: float = 0.0):
    k = place_gains()
    gains = {"k_x": k[0], "k_theta": k[1], "k_v": k[2], "k_w": k[3]}
    if grade:  # the wheel on the road, the target's mark on it
        model = Segway(**gains, wheel=wheel_joint(grade),
                       target=Fixed(r=[X_TARGET * np.cos(grade), X_TARGET * np.sin(grade)]))
    else:
        model = Segway(**gains)
    system = compile(model)
    sol = system.simulate(t_end, dt=0.01, rtol=1e-8, atol=1e-10)
    return model, system, sol, k


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Planar segway driving to a target position.")
    parser.add_argument("out_dir", nargs="?", type=Path, default=Path("."))
    parser.add_argument("--t-end", type=float, default=10.0, help="end time [s] (default 10)")
    parser.add_argument("--csv", type=Path, help="write t,x,v,pitch,pitch_rate,torque,"
                        "v_slip_long here")
    parser.add_argument("--grade-deg", type=float, default=0.0,
                        help="road rising by this angle towards +x [deg] (default 0: level)")
    args = parser.parse_args(argv)
    out_dir = args.out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    grade = np.radians(args.grade_deg)

    model, system, sol, k = simulate(args.t_end, grade)
    data = columns(sol)
    print(system.summary())
    print("\ngains: k_x = %.4g, k_theta = %.4g, k_v = %.4g, k_w = %.4g (poles %s)"
          % (*k, ", ".join(f"{p:g}" for p in POLES)))
    pitch = data["pitch"]
    print(f"max |pitch| = {np.max(np.abs(pitch)):.4f} rad")
    print(f"final position x = {data['x'][-1]:.4f} m (target {X_TARGET:g} m)")
    print(f"final pitch = {pitch[-1]:.2e} rad, final speed = {data['v'][-1]:.2e} m/s")
    print(f"max |torque| = {np.max(np.abs(data['torque'])):.2f} N m, "
          f"max |slip| = {np.max(np.abs(data['v_slip_long'])):.4f} m/s")
    if grade:
        print(f"on a {args.grade_deg:g}-degree road: final torque {data['torque'][-1]:.4f} N m, "
              f"holding torque (m_w + m_b) g sin(grade) R = {holding_torque(grade):.4f} N m")
    if args.csv:
        sol.to_csv(args.csv, {c: data[c] for c in COLUMNS}, units=False, fmt="%.10g")
        print(f"CSV written to {args.csv}")

    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        print("(matplotlib not installed: no plot, no animation)")
        return 0
    fig = Figure(figsize=(7, 6))
    FigureCanvasAgg(fig)
    ax1, ax2, ax3 = fig.subplots(3, 1, sharex=True)
    ax1.plot(sol.t, data["x"], label="x")
    ax1.axhline(X_TARGET, color="k", ls=":", label="target")
    ax1.set_ylabel("x [m]")
    ax1.legend()
    ax2.plot(sol.t, pitch)
    ax2.set_ylabel("pitch [rad]")
    ax3.plot(sol.t, data["torque"])
    ax3.set_ylabel("motor torque [N m]")
    ax3.set_xlabel("t [s]")
    for ax in (ax1, ax2, ax3):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    png = out_dir / "segway.png"
    fig.savefig(png, dpi=100)
    print(f"plot saved to {png}")

    from acausal.components.planar.animation import Joint, Point, Road, Rod, animate

    drawing = [Road(grade)] if grade else []
    drawing += [model.target,                                         # ground mark
               Rod("rod.frame_a", "rod.frame_b", width=5.0, color="tab:blue"),
               Point("wheel_body.frame_a", size=38.0, color="silver"),    # tyre
               Point("spoke.frame_b", size=6.0, color="black"),           # rim mark (spin)
               Joint("revolute.frame_a"),
               Point("body.frame_a", size=14.0, color="tab:red", label="body")]
    rise = [np.tan(grade) * x for x in (-1.0, 3.0)]  # the road's height at the picture's ends
    gif = animate(sol, drawing, out_dir / "segway.gif", fps=10, t_stride=10,
                  ax_limits=((-1.0, 3.0), (-0.2 + min(0.0, *rise), 1.2 + max(0.0, *rise))),
                  title="segway", figsize=(7.0, 3.0))
    print(f"animation saved to {gif}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
