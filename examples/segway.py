"""A planar segway: a wheel on a slipping contact with a pendulum body balanced on its axle.

Model (all planar components; g = 9.81):

* wheel: ``Body`` (m_w = 2 kg, I_w = 0.04 kg m^2) on a ``OneDOFSlippingWheelJoint`` (radius
  R = 0.2 m; vAdhesion_min = 0.05, vSlide_min = 0.15, sAdhesion = 0.04, sSlide = 0.12,
  mu_A = 0.8, mu_S = 0.4);
* pendulum (rider + frame): a ``Revolute`` at the wheel axle -> ``FixedTranslation`` (0, L),
  L = 0.6 m -> ``Body`` (m_b = 20 kg, I_b = 1.5 kg m^2 about its centre of mass). The pitch
  ``theta`` is the pendulum's absolute angle (CCW positive, 0 = upright; theta > 0 leans
  towards -x);
* motor: a 1-D ``Torque`` on the revolute's flange; it applies ``+tau`` to the pendulum and
  ``-tau`` to the wheel.

Controller (state feedback = PD on the pitch plus position/speed feedback)::

    tau = k_theta*theta + k_w*theta' + k_x*(x - x_target) + k_v*v

The gains place the poles of the model linearised about upright rolling (no slip)::

    M q'' = K q + B tau,   q = (x, theta)
    M = [[m_w + I_w/R^2 + m_b, -m_b L], [-m_b L, m_b L^2 + I_b]]
    K = [[0, 0], [0, m_b g L]],   B = (1/R, 1)

(Lagrange equations with the wheel angle -x/R; the motor does the work tau (theta' + x'/R)).
The nonlinear simulation then uses the full model with the slipping contact. The wheel starts
from exactly zero speed and spin, the pendulum leaning by 0.05 rad; the segway first moves back
under the pendulum, then drives to ``x_target`` = 2 m and stops upright.

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

from acausal import Component, Eq, Parameter, Variable, compile, connect
from acausal.components import rotational
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation
from acausal.components.planar.wheels import OneDOFSlippingWheelJoint

G = 9.81
R, M_W, I_W = 0.2, 2.0, 0.04          # wheel
L, M_B, I_B = 0.6, 20.0, 1.5          # pendulum (centre of mass at L above the axle)
X_TARGET = 2.0
PITCH0 = 0.05
POLES = (-2.0, -2.5, -3.0, -3.5)
CONTACT = {"vAdhesion_min": 0.05, "vSlide_min": 0.15, "sAdhesion": 0.04, "sSlide": 0.12,
           "mu_A": 0.8, "mu_S": 0.4, "radius": R}
COLUMNS = ("t", "x", "v", "pitch", "pitch_rate", "torque", "v_slip_long")


def linear_model():
    """(A, B) of the model linearised about upright rolling; state (x, theta, x', theta')."""
    mass = np.array([[M_W + I_W / R**2 + M_B, -M_B * L], [-M_B * L, M_B * L**2 + I_B]])
    stiffness = np.array([[0.0, 0.0], [0.0, M_B * G * L]])
    inv = np.linalg.inv(mass)
    a = np.zeros((4, 4))
    a[:2, 2:] = np.eye(2)
    a[2:, :2] = inv @ stiffness
    b = np.zeros(4)
    b[2:] = inv @ np.array([1.0 / R, 1.0])
    return a, b


def place_gains(poles=POLES) -> np.ndarray:
    """Gains ``k`` of ``tau = -k . (x - x_target, theta, x', theta')`` that put the closed-loop
    poles at ``poles`` (Ackermann's formula)."""
    a, b = linear_model()
    ctrb = np.column_stack([np.linalg.matrix_power(a, i) @ b for i in range(4)])
    char = np.poly(poles)  # coefficients of prod(s - p)
    p_of_a = sum(c * np.linalg.matrix_power(a, 4 - i) for i, c in enumerate(char))
    return np.linalg.solve(ctrb.T, np.eye(4)[-1]) @ p_of_a


def _fixed(value: float) -> Variable:
    return Variable(start=value, fixed=True)


def wheel_joint(grade: float = 0.0) -> OneDOFSlippingWheelJoint:
    """The wheel's contact, at rest at x = 0, on a road rising by ``grade`` [rad]."""
    return OneDOFSlippingWheelJoint(**CONTACT, grade=grade, x=_fixed(0.0), v=_fixed(0.0),
                                    phi_roll=_fixed(0.0), w_roll=_fixed(0.0))


def holding_torque(grade: float) -> float:
    """The motor torque that holds the segway still on a road rising by ``grade``: the road
    holds all the weight's pull along it, and the motor's reaction on the wheel balances the
    moment of that friction about the axle."""
    return (M_W + M_B) * G * np.sin(grade) * R


class Segway(Component):
    """Wheel + pendulum on a revolute at the axle, balanced by a state-feedback controller."""

    k_x = Parameter(0.0, unit="N.m/m", description="position gain")
    k_theta = Parameter(0.0, unit="N.m/rad", description="pitch gain (P)")
    k_v = Parameter(0.0, unit="N.m.s/m", description="speed gain")
    k_w = Parameter(0.0, unit="N.m.s/rad", description="pitch-rate gain (D)")
    x_target = Parameter(X_TARGET, unit="m", description="target position of the axle")

    wheel_body = Body(m=M_W, I=I_W, g=[0.0, -G])
    wheel = wheel_joint()
    spoke = FixedTranslation(r=[0.7 * R, 0.0])  # massless mark on the wheel (for the animation)
    revolute = Revolute(use_axis_flange=True, phi=_fixed(PITCH0), w=_fixed(0.0))
    rod = FixedTranslation(r=[0.0, L])
    body = Body(m=M_B, I=I_B, g=[0.0, -G])
    motor = rotational.Torque()
    target = Fixed(r=[X_TARGET, 0.0])         # marks the target on the ground (no forces)

    def equations(self):
        theta, omega = self.body.phi, self.body.w
        return [Eq(self.motor.tau, -(self.k_x * (self.wheel.x - self.x_target)
                                     + self.k_theta * theta + self.k_v * self.wheel.v
                                     + self.k_w * omega))]

    def connections(self):
        return [connect(self.wheel_body.frame_a, self.wheel.frame_a),
                connect(self.wheel_body.frame_a, self.spoke.frame_a),
                connect(self.wheel_body.frame_a, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a),
                connect(self.rod.frame_b, self.body.frame_a),
                connect(self.motor.flange, self.revolute.flange_a)]


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


def columns(sol) -> dict[str, np.ndarray]:
    return {"t": sol.t, "x": sol["wheel.x"], "v": sol["wheel.v"], "pitch": sol["body.phi"],
            "pitch_rate": sol["body.w"], "torque": sol["motor.tau"],
            "v_slip_long": sol["wheel.v_slip_long"]}


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
