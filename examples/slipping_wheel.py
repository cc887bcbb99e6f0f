"""A single wheel on a slipping contact (OneDOFSlippingWheelJoint).

Wheel: radius R = 0.1 m, mass m = 1 kg, inertia J = 0.005 kg m^2 about its centre, g = 9.81;
contact: vAdhesion_min = 0.05, vSlide_min = 0.15, sAdhesion = 0.04, sSlide = 0.12, mu_A = 0.8,
mu_S = 0.4.

Scenarios:

* ``--scenario thrown``: thrown forward (+x) at v0 = 2 m/s without spin. The wheel slides, the
  friction force slows it down and spins it up until it rolls. ``J w - m R v`` is conserved, so
  it ends rolling at ``v0 m/(m + J/R^2)`` = 1.3333 m/s.
* ``--scenario torque``: from rest (exactly zero speed and spin), a constant torque of 1 N m
  drives the wheel so that it rolls towards +x (clockwise, i.e. -1 N m CCW). It rolls with a
  small slip and nearly the rolling acceleration ``R tau/(J + m R^2)`` = 6.67 m/s^2.

Run::

    python examples/slipping_wheel.py --scenario thrown --t-end 1 --csv thrown.csv --png thrown.png

``--csv FILE`` writes the columns ``t,x,v,w_roll,v_slip_long,f_long`` every 1 ms: ``x``/``v``
position/speed of the wheel centre, ``w_roll`` the rolling speed (positive when rolling towards
+x), ``v_slip_long = v - R w_roll`` the slip velocity of the contact point and ``f_long`` the
longitudinal force the ground applies to the wheel (positive towards +x; the joint's variable
``f_long`` is the cut force on the joint, i.e. the opposite).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from acausal import Component, Eq, Parameter, Variable, compile, connect
from acausal.components.planar.parts import Body
from acausal.components.planar.sources import WorldTorque
from acausal.components.planar.wheels import OneDOFSlippingWheelJoint

RADIUS, MASS, INERTIA, G = 0.1, 1.0, 0.005, 9.81
CONTACT = {"vAdhesion_min": 0.05, "vSlide_min": 0.15, "sAdhesion": 0.04, "sSlide": 0.12,
           "mu_A": 0.8, "mu_S": 0.4, "radius": RADIUS}
COLUMNS = ("t", "x", "v", "w_roll", "v_slip_long", "f_long")


def _fixed(value: float) -> Variable:
    return Variable(start=value, fixed=True)


class SlippingWheel(Component):
    """Body (the wheel's mass and inertia) on a OneDOFSlippingWheelJoint, with a torque
    ``drive_torque`` on the wheel (CCW positive; negative drives towards +x)."""

    drive_torque = Parameter(0.0, unit="N.m", description="torque on the wheel (CCW positive)")
    body = Body(m=MASS, I=INERTIA, g=[0.0, -G])
    wheel = OneDOFSlippingWheelJoint(**CONTACT, x=_fixed(0.0), v=_fixed(0.0),
                                     phi_roll=_fixed(0.0), w_roll=_fixed(0.0))
    drive = WorldTorque()

    def equations(self):
        return [Eq(self.drive.torque, self.drive_torque)]

    def connections(self):
        return [connect(self.body.frame_a, self.wheel.frame_a),
                connect(self.drive.frame_b, self.body.frame_a)]


def build(scenario: str) -> SlippingWheel:
    if scenario == "thrown":
        return SlippingWheel(wheel=OneDOFSlippingWheelJoint(
            **CONTACT, x=_fixed(0.0), v=_fixed(2.0), phi_roll=_fixed(0.0), w_roll=_fixed(0.0)))
    if scenario == "torque":
        return SlippingWheel(drive_torque=-1.0)
    raise ValueError(f"unknown scenario {scenario!r}")


def simulate(scenario: str, t_end: float):
    """Simulate a scenario, sampled every 1 ms; returns the Solution."""
    n = int(round(t_end / 1e-3))
    times = np.linspace(0.0, n * 1e-3, n + 1)
    return compile(build(scenario)).simulate(times[-1], t_eval=times, rtol=1e-10, atol=1e-12)


def columns(sol) -> dict[str, np.ndarray]:
    """The CSV columns, by their names in COLUMNS."""
    return {"t": sol.t, "x": sol["wheel.x"], "v": sol["wheel.v"], "w_roll": sol["wheel.w_roll"],
            "v_slip_long": sol["wheel.v_slip_long"],
            "f_long": -sol["wheel.f_long"]}  # ground force on the wheel


def summary(scenario: str, data: dict[str, np.ndarray]) -> str:
    v, w = data["v"][-1], data["w_roll"][-1]
    lines = [f"scenario: {scenario}, t_end = {data['t'][-1]:g} s",
             f"final position x = {data['x'][-1]:.6f} m",
             f"final speed v = {v:.6f} m/s, rolling speed R*w_roll = {RADIUS * w:.6f} m/s",
             f"final slip v_slip_long = {data['v_slip_long'][-1]:.3e} m/s",
             f"largest |ground force| = {np.max(np.abs(data['f_long'])):.4f} N "
             f"(mu_A m g = {CONTACT['mu_A'] * MASS * G:.4f} N)"]
    if scenario == "thrown":
        expected = 2.0 * MASS / (MASS + INERTIA / RADIUS**2)
        lines.append(f"expected final rolling speed v0 m/(m + J/R^2) = {expected:.6f} m/s "
                     f"(relative deviation {abs(v / expected - 1.0):.2e})")
        rolling = np.abs(data["v_slip_long"]) < 1e-6
        if rolling.any():
            lines.append(f"rolling (|slip| < 1e-6 m/s) from t = {data['t'][rolling][0]:.3f} s")
    else:
        acc = RADIUS * 1.0 / (INERTIA + MASS * RADIUS**2)
        lines.append(f"mean acceleration {v / data['t'][-1]:.4f} m/s^2 (pure rolling: "
                     f"{acc:.4f} m/s^2)")
    return "\n".join(lines)


def plot(path: Path, scenario: str, data: dict[str, np.ndarray]) -> bool:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        print("(matplotlib not installed: no plot)")
        return False
    fig = Figure(figsize=(7, 6))
    FigureCanvasAgg(fig)
    ax1, ax2, ax3 = fig.subplots(3, 1, sharex=True)
    t = data["t"]
    ax1.plot(t, data["v"], label="v")
    ax1.plot(t, RADIUS * data["w_roll"], "--", label="R w_roll")
    ax1.set_ylabel("m/s")
    ax1.legend()
    ax1.set_title(f"slipping wheel, scenario '{scenario}'")
    ax2.plot(t, data["v_slip_long"])
    ax2.set_ylabel("slip [m/s]")
    ax3.plot(t, data["f_long"])
    ax3.set_ylabel("ground force [N]")
    ax3.set_xlabel("t [s]")
    for ax in (ax1, ax2, ax3):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", choices=("thrown", "torque"), default="thrown")
    parser.add_argument("--t-end", type=float, default=1.0, help="end time [s] (default 1)")
    parser.add_argument("--csv", type=Path, help="write t,x,v,w_roll,v_slip_long,f_long here")
    parser.add_argument("--png", type=Path, help="save a plot here")
    args = parser.parse_args(argv)
    if args.t_end <= 0:
        parser.error("--t-end must be positive")
    sol = simulate(args.scenario, args.t_end)
    data = columns(sol)
    print(summary(args.scenario, data))
    if args.csv:
        sol.to_csv(args.csv, data, units=False)
        print(f"CSV written to {args.csv}")
    if args.png and plot(args.png, args.scenario, data):
        print(f"plot saved to {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
