"""Spatial slider-crank with MotionSolve joint friction read from XML: energy balance.

Run:  python examples/joint_friction_3d.py [--t-end T] [--out DIR] [--no-plot] [--csv FILE]

What it models: a spatial slider-crank under gravity (world y up, g = 9.80665 m/s2), released
from rest with the crank horizontal. A steel crank (100 mm, on a ``Revolute`` about the world z
axis at the origin) carries a ball joint (``Spherical``) at its tip; a steel connecting rod
(300 mm) runs from the ball to a Hooke joint (``Universal``) on a slider; the slider, a sleeve
with a weight hanging below it, slides and turns on a guide rod (``Cylindrical``) through
(0, -50, 120) mm along (1, -0.3, 0.2): the guide is skew to the crank's plane z = 0, so the rod
moves out of that plane and every joint carries 3-D reactions. The mechanism has two degrees
of freedom: the crank angle and the turn of the sleeve (with the rod) about the guide.

The four joints are built plain, keyed by MotionSolve joint ids (301001 ... 301004), and the
friction is added by ``from_motionsolve_xml`` from the ``<Force_JointFriction .../>`` elements
of ``FRICTION_XML`` below, in MotionSolve's N-mm-s units (lubricated steel: mu_static 0.08 ...
0.12, pin and ball radii 4 ... 10 mm). Every joint has MotionSolve's LuGre friction driven by
its own reaction force and moment (radial load, axial thrust, bending moment, preload); the
normal force of each joint is a variable of the joint (``normal_force``), and so is the work
its friction took from the mechanism (``friction_work``, a state). The kinematic loop (crank ->
ball -> rod -> Hooke joint -> slider -> guide -> ground) is closed by the compiler; the start
values of the slider position and the Hooke angles are computed from the geometry, so that the
loop is closed exactly at the start.

LuGre parameter choice: ``damping_effects="0.01"`` N s/mm (10 N s/m), about a thirtieth of
MotionSolve's default 0.316 N s/mm (316 N s/m). The friction depends on the joint's reaction,
which depends on the friction: an algebraic loop whose sensitivity dF/dN is about
``damping_effects*|v_slip|/N`` (docs/joint_friction.md, "Known numerical limits"). With the
default the loop folds (no solution; IDA stops with the joint friction's advice) 0.008 s after
the release; with 31.6 N s/m (the value that document suggests) it still folds at t = 0.20 s,
when the sleeve slides at 0.85 m/s on a normal force of 3.7 N (k1 |v|/N = 7); 25 N s/m runs;
10 N s/m leaves a margin. The motion hardly depends on it (the friction work of each joint is
the same to 4 digits for 10 and 25 N s/m).
Tolerances: rtol 1e-10, atol 1e-12 (the bristle deflections are of order 1e-5 m).

What it prints: the model summary (states), the friction parameters read from the XML, the
crank angle, slider position and sleeve angle at a few times, the friction work of each joint at
the end and the energy balance: kinetic + potential energy + the friction work of all joints
(``mechanical_energy`` of the three bodies plus the joints' ``friction_work``) stays constant;
its largest relative drift (relative to the energy gravity released, V(0) - min V) is printed.

What it writes into ``--out`` (default: the current folder), unless ``--no-plot``:
``joint_friction_3d.html`` (the 3-D viewer: open it in a browser; time slider, play, the bodies'
trails, the crank angle and the joints' normal forces plotted under the view),
``joint_friction_3d.png`` (crank angle, slider position, sleeve angle; friction torque or force
per joint; normal force per joint) and ``joint_friction_3d_energy.png`` (kinetic, potential
energy and friction work; the balance and its drift). ``--csv FILE`` writes ``t, crank_angle,
crank_speed, slider_s, sleeve_angle, kinetic, potential, W_<joint>... , balance`` every 10 ms.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from acausal import Component, Variable, compile, connect
from acausal.components.multibody import (
    Body,
    BodyCylinder,
    Cylindrical,
    Fixed,
    Revolute,
    Spherical,
    Universal,
    World,
    from_motionsolve_xml,
    read_force_joint_friction,
)
from acausal.components.multibody.energy import mechanical_energy

# -- geometry and masses (SI) -----------------------------------------------------------------
CRANK = 0.1                                   # crank length [m]: tip at CRANK (cos, sin, 0)
CRANK_DIAMETER = 0.03                         # steel crank: 0.54 kg
ROD = 0.3                                     # connecting rod, ball centre to Hooke centre [m]
ROD_DIAMETER = 0.012                          # steel rod: 0.26 kg
GUIDE_POINT = np.array([0.0, -0.05, 0.12])    # a point of the guide axis [m]
GUIDE = np.array([1.0, -0.3, 0.2]) / np.linalg.norm([1.0, -0.3, 0.2])   # guide direction
SLIDER_MASS = 0.2                             # sleeve with its weight [kg]
SLIDER_DROP = 0.03                            # centre of mass below the guide axis [m]
PHI0 = 0.0                                    # crank angle at the release [rad]
G = 9.80665

#: MotionSolve joint ids of the four joints (attribute names of the model).
JOINT_IDS = {"crank_bearing": 301001, "ball": 301002, "hooke": 301003, "sleeve": 301004}

#: The friction of the four joints as a MotionSolve model would state it (units N-mm-s).
FRICTION_XML = """\
<!-- Force_JointFriction elements of the spatial slider-crank, MotionSolve units N-mm-s -->
<Force_JointFriction id="1" label="crank bearing" joint_id="301001" mu_static="0.1"
    mu_dynamic="0.06" inactive="NONE" stiction_trans_vel="1." effect="All"
    torque_preload="0." friction_arm="10." pin_radius="8." bending_reaction_arm="20."
    inputs="1111" bristle_stiffness="100." damping_effects="0.01" viscous_effects="0.0004"/>
<Force_JointFriction id="2" label="ball joint" joint_id="301002" mu_static="0.12"
    mu_dynamic="0.08" stiction_trans_vel="1." effect="All" torque_preload="0."
    ball_radius="10." inputs="1111" bristle_stiffness="100." damping_effects="0.01"
    viscous_effects="0.0004"/>
<Force_JointFriction id="3" label="Hooke joint" joint_id="301003" mu_static="0.1"
    mu_dynamic="0.06" stiction_trans_vel="1." effect="All" torque_preload="0."
    friction_arm="5." pin_radius="4." bending_reaction_arm="8." yoke_choice="i_yoke"
    inputs="1111" bristle_stiffness="100." damping_effects="0.01" viscous_effects="0.0004"/>
<Force_JointFriction id="4" label="slider sleeve" joint_id="301004" mu_static="0.08"
    mu_dynamic="0.05" stiction_trans_vel="1." effect="All" force_preload="0."
    torque_preload="0." pin_radius="10." initial_overlap="50." overlap_delta="Constant"
    inputs="1111" bristle_stiffness="100." damping_effects="0.01" viscous_effects="0.0004"/>
"""
UNITS = "N-mm-s"
TOLERANCES = {"rtol": 1e-10, "atol": 1e-12}
DT = 0.01


def start_geometry(phi0: float = PHI0) -> tuple[float, np.ndarray]:
    """Slider position ``s`` on the guide and rod direction (unit, from the Hooke joint to the
    ball) that close the loop at crank angle ``phi0`` (the slider beyond the crank)."""
    tip = CRANK * np.array([np.cos(phi0), np.sin(phi0), 0.0])
    along = float((tip - GUIDE_POINT) @ GUIDE)
    off2 = float((tip - GUIDE_POINT) @ (tip - GUIDE_POINT)) - along**2
    s0 = along + np.sqrt(ROD**2 - off2)
    rod = (tip - (GUIDE_POINT + s0 * GUIDE)) / ROD
    return s0, rod


class SpatialSliderCrank(Component):
    """Crank (Revolute) - ball (Spherical) - rod - Hooke joint (Universal) - slider on a skew
    guide (Cylindrical), with the joints' friction read from ``xml``.

    The rod's frame is the world frame when the Hooke angles and the sleeve angle are 0; its
    frame_b is at ``ROD`` along the start direction of the rod, and the Hooke axes are
    perpendicular to that direction (and to each other), so all three start at 0."""

    def __init__(self, xml: str = FRICTION_XML, units: str = UNITS, phi0: float = PHI0, **kw):
        super().__init__(**kw)
        s0, rod = start_geometry(phi0)
        n_a = np.cross(rod, [0.0, 1.0, 0.0])
        n_a /= np.linalg.norm(n_a)
        n_b = np.cross(rod, n_a)
        plain = {
            JOINT_IDS["crank_bearing"]: Revolute(n=(0, 0, 1), phi=Variable(start=phi0, fixed=True),
                                                 w=Variable(start=0.0, fixed=True)),
            JOINT_IDS["ball"]: Spherical(),
            JOINT_IDS["hooke"]: Universal(n_a=tuple(n_a), n_b=tuple(n_b)),
            JOINT_IDS["sleeve"]: Cylindrical(n=tuple(GUIDE), s=Variable(start=s0),
                                             phi=Variable(start=0.0, fixed=True),
                                             w=Variable(start=0.0, fixed=True)),
        }
        joints = from_motionsolve_xml(xml, plain, units=units)
        self.world = World()
        self.crank_bearing = joints[JOINT_IDS["crank_bearing"]]
        self.ball = joints[JOINT_IDS["ball"]]
        self.hooke = joints[JOINT_IDS["hooke"]]
        self.sleeve = joints[JOINT_IDS["sleeve"]]
        self.crank = BodyCylinder(r=(CRANK, 0.0, 0.0), diameter=CRANK_DIAMETER)
        self.rod = BodyCylinder(r=tuple(ROD * rod), diameter=ROD_DIAMETER)
        self.guide = Fixed(r=tuple(GUIDE_POINT))
        down = np.array([0.0, -1.0, 0.0]) - float(-GUIDE[1]) * GUIDE   # perpendicular to it
        self.slider = Body(m=SLIDER_MASS, r_CM=tuple(SLIDER_DROP * down / np.linalg.norm(down)),
                           I_11=1e-4, I_22=1e-4, I_33=1e-4)

    def connections(self):
        return [connect(self.world.frame_b, self.crank_bearing.frame_a),
                connect(self.crank_bearing.frame_b, self.crank.frame_a),
                connect(self.crank.frame_b, self.ball.frame_a),
                connect(self.guide.frame_b, self.sleeve.frame_a),
                connect(self.sleeve.frame_b, self.slider.frame_a),
                connect(self.slider.frame_a, self.hooke.frame_a),
                connect(self.hooke.frame_b, self.rod.frame_a),
                connect(self.rod.frame_b, self.ball.frame_b)]

    def bodies(self) -> list:
        return [self.crank, self.rod, self.slider]


def friction_torques(sol) -> dict[str, np.ndarray]:
    """Friction torque [N m] of each joint (signed as the joint's slip; the ball's magnitude)."""
    return {"crank bearing": sol["crank_bearing.friction_torque"],
            "ball |torque|": np.linalg.norm(np.asarray(sol["ball.friction_torque"]), axis=0),
            "Hooke pin": sol["hooke.friction_torque"],
            "sleeve (about the guide)": sol["sleeve.friction_torque"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t-end", type=float, default=4.0, help="end time [s] (default 4)")
    parser.add_argument("--out", type=Path, default=Path("."),
                        help="folder for the plots and the 3-D view (default: the current "
                        "folder)")
    parser.add_argument("--no-plot", action="store_true", help="write no plots and no 3-D view")
    parser.add_argument("--csv", type=Path, help="write the motion, the energies and the "
                        "friction work per joint here (every 10 ms)")
    args = parser.parse_args(argv)
    if not args.t_end > 0:
        parser.error("--t-end must be > 0")

    print("friction read from the XML (SI):")
    for element in read_force_joint_friction(FRICTION_XML, units=UNITS):
        shown = {k: element[k] for k in (
            "mu_static", "mu_dynamic", "pin_radius", "ball_radius", "friction_arm",
            "bending_reaction_arm", "initial_overlap", "damping_effects") if k in element}
        print(f"  {element['joint_id']} {element['label']:<14s} "
              + ", ".join(f"{k} {v:g}" for k, v in shown.items()))
    model = SpatialSliderCrank()
    system = compile(model)
    print(system.summary())
    names = list(JOINT_IDS)
    print("joints: " + ", ".join(f"{n} = {type(getattr(model, n)).__name__}" for n in names))

    sol = system.simulate(args.t_end, dt=DT, **TOLERANCES)
    kinetic, potential = mechanical_energy(sol, system, model.bodies(), g=G, split=True)
    work = {n: np.asarray(sol[f"{n}.friction_work"]) for n in names}
    total_work = sum(work.values())
    balance = kinetic + potential + total_work
    released = max(float(potential[0] - np.min(potential)), 1e-300)
    drift = float(np.max(np.abs(balance - balance[0])) / released)

    print()
    for tk in sorted({tk for tk in (0.0, 0.5, 1.0, 2.0) if tk < args.t_end} | {args.t_end}):
        k = int(np.argmin(np.abs(sol.t - tk)))
        print(f"t = {sol.t[k]:4.2f} s: crank angle {sol['crank_bearing.phi'][k]:+8.4f} rad, "
              f"speed {sol['crank_bearing.w'][k]:+8.4f} rad/s, slider s {sol['sleeve.s'][k]:.4f} m,"
              f" sleeve angle {sol['sleeve.phi'][k]:+.4f} rad")
    print(f"\nfriction work at t = {sol.t[-1]:g} s:")
    for n in names:
        peak = np.max(np.abs(sol[f"{n}.normal_force"]))
        print(f"  {n:<14s} {work[n][-1]:.6f} J   (largest normal force {peak:7.2f} N)")
    print(f"  {'total':<14s} {total_work[-1]:.6f} J")
    print("out-of-plane loads on the crank bearing (0 in a planar slider-crank): largest "
          f"n_axial {np.max(sol['crank_bearing.n_axial']):.2f} N, "
          f"n_bending {np.max(sol['crank_bearing.n_bending']):.2f} N")
    print(f"\nenergy released by gravity V(0) - min V: {released:.6f} J")
    print(f"kinetic energy at the end: {kinetic[-1]:.3e} J")
    print(f"friction work / released energy: {total_work[-1] / released:.4f}")
    print(f"energy balance K + V + W_friction: {balance[0]:.9f} J at the start, "
          f"{balance[-1]:.9f} J at the end")
    print(f"largest relative drift of the balance {drift:.2e}")

    if args.csv:
        columns = {"t": sol.t, "crank_angle": sol["crank_bearing.phi"],
                   "crank_speed": sol["crank_bearing.w"], "slider_s": sol["sleeve.s"],
                   "sleeve_angle": sol["sleeve.phi"], "kinetic": kinetic, "potential": potential,
                   **{f"W_{n}": w for n, w in work.items()}, "balance": balance}
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        sol.to_csv(args.csv, columns, units=False, fmt="%.12g")
        print(f"CSV written to {args.csv}")

    if args.no_plot:
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    page = sol.view(args.out / "joint_friction_3d.html", trails=True,
                    plots=["crank_bearing.phi", [f"{n}.normal_force" for n in names]],
                    title="spatial slider-crank with joint friction")
    print(f"\n3-D view written to {page.path} (open it in a browser)")
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        print("(matplotlib not installed: no plots; pip install 'acausal[plot]')")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    t = sol.t
    fig = Figure(figsize=(8, 10))
    FigureCanvasAgg(fig)
    ax1, ax2, ax3, ax4 = fig.subplots(4, 1, sharex=True)
    ax1.plot(t, sol["crank_bearing.phi"], label="crank angle [rad]")
    ax1.plot(t, sol["sleeve.phi"], label="sleeve angle about the guide [rad]")
    ax1.plot(t, 10 * (np.asarray(sol["sleeve.s"]) - sol["sleeve.s"][0]),
             label="slider travel x 10 [m]")
    ax1.legend(fontsize=8)
    ax1.set_title("spatial slider-crank with joint friction (MotionSolve Force_JointFriction)")
    for label, y in friction_torques(sol).items():
        ax2.plot(t, 1e3 * np.asarray(y), label=label)
    ax2.set_ylabel("friction torque [N mm]")
    ax2.legend(fontsize=8)
    ax3.plot(t, np.asarray(sol["sleeve.friction_force"])[0], label="sleeve, along the guide")
    ax3.set_ylabel("friction force [N]")
    ax3.legend(fontsize=8)
    for n in names:
        ax4.plot(t, sol[f"{n}.normal_force"], label=n)
    ax4.set_ylabel("normal force [N]")
    ax4.set_xlabel("time [s]")
    ax4.legend(fontsize=8)
    for ax in (ax1, ax2, ax3, ax4):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    path = args.out / "joint_friction_3d.png"
    fig.savefig(path, dpi=90)
    print(f"\nplot saved to {path}")

    fig = Figure(figsize=(10, 6))
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    ax1.plot(t, kinetic, label="kinetic K")
    ax1.plot(t, potential - potential[0], label="potential V - V(0)")
    for n in names:
        ax1.plot(t, work[n], label=f"friction work {n}", lw=0.8)
    ax1.plot(t, balance - balance[0], "k--", label="K + V + W - (K + V + W)(0)")
    ax1.set_ylabel("energy [J]")
    ax1.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax2.plot(t, (balance - balance[0]) / released)
    ax2.set_ylabel("balance drift / released")
    ax2.set_xlabel("time [s]")
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    path = args.out / "joint_friction_3d_energy.png"
    fig.savefig(path, dpi=90)
    print(f"plot saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
