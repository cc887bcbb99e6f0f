"""Planar example: a piston engine (slider-crank) built from the planar library.

Run:  python examples/piston_engine.py [out_dir]

A crank (bodyDrive, I = 0.1 kg m2) turns about a fixed axis; a 0.3 m crank arm and a 0.8 m
connecting rod push a 3 kg piston along the x axis. The crank starts at phi = 0 with
w = -2.5 rad/s; nothing dissipates, so the kinetic energy stays at 0.5*0.1*2.5^2 = 0.3125 J
while the speed varies with the crank angle. The initialisation finds the piston position
s = -1.1 m from the guess s = 0.

The model is the Modelica example ``PlanarMechanics.Examples.PistonEngine`` (dzimmer/
PlanarMechanics) rebuilt with acausal components. The script prints a summary, saves a plot
(piston_engine.png) and an animation (piston_engine.gif) into out_dir (default: the current
folder).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from acausal import Component, Variable, compile, connect
from acausal.components.planar.animation import Box, Rod, animate
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation


class PistonEngine(Component):
    """Slider-crank: crank (revoluteDrive + bodyDrive + 0.3 m arm), connecting rod (0.8 m),
    piston (bodyPiston on a prismatic joint along x through the crank axis)."""

    fixed = Fixed()
    revoluteDrive = Revolute(phi=Variable(start=0.0, fixed=True, state_priority=100),
                             w=Variable(start=-2.5, fixed=True, state_priority=100))
    bodyDrive = Body(m=1.0, I=0.1)
    fixedTranslationDisc = FixedTranslation(r=[0.3, 0.0])
    revoluteDisc = Revolute(phi=Variable(start=0.0))
    pistonRod = FixedTranslation(r=[0.8, 0.0])
    revolutePiston = Revolute()
    bodyPiston = Body(m=3.0, I=0.1)
    prismatic = Prismatic(r=[1.0, 0.0], s=Variable(start=0.0))  # a guess, not fixed
    fixed1 = Fixed()

    def connections(self):
        return [connect(self.fixed.frame, self.revoluteDrive.frame_a),
                connect(self.revoluteDrive.frame_b, self.fixedTranslationDisc.frame_a),
                connect(self.revoluteDrive.frame_b, self.bodyDrive.frame_a),
                connect(self.fixedTranslationDisc.frame_b, self.revoluteDisc.frame_a),
                connect(self.revoluteDisc.frame_b, self.pistonRod.frame_a),
                connect(self.pistonRod.frame_b, self.revolutePiston.frame_b),
                connect(self.revolutePiston.frame_a, self.prismatic.frame_a),
                connect(self.prismatic.frame_a, self.bodyPiston.frame_a),
                connect(self.prismatic.frame_b, self.fixed1.frame)]


def kinetic_energy(sol) -> np.ndarray:
    """0.5*I*w^2 of the crank plus 0.5*m*v^2 of the piston (the piston does not rotate)."""
    return 0.5 * 0.1 * sol["bodyDrive.w"] ** 2 + 0.5 * 3.0 * sol["bodyPiston.v[0]"] ** 2


def main(out_dir: Path = Path(".")) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    model = PistonEngine()
    system = compile(model)
    print(system.summary())
    sol = system.simulate(10.0, dt=0.02, rtol=1e-9, atol=1e-11)
    energy = kinetic_energy(sol)
    print(f"\ninitial piston position: s = {sol['prismatic.s'][0]:.6f} m (from the guess 0)")
    for tk in (1.0, 5.0, 10.0):
        k = int(np.argmin(np.abs(sol.t - tk)))
        print(f"t = {sol.t[k]:4.1f} s: crank angle {sol['revoluteDrive.phi'][k]:+9.5f} rad, "
              f"speed {sol['revoluteDrive.w'][k]:+8.5f} rad/s, "
              f"piston x {sol['bodyPiston.r[0]'][k]:+.5f} m")
    drift = np.max(np.abs(energy - energy[0])) / energy[0]
    print(f"kinetic energy {energy[0]:.6f} J, largest relative drift {drift:.1e}")

    try:
        import matplotlib
    except ImportError:
        print("\n(matplotlib not installed: no plot or animation; pip install 'acausal[plot]')")
        return 0
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 7))
    sol.plot("revoluteDrive.w", ax=axes[0])
    sol.plot("bodyPiston.r[0]", "bodyPiston.v[0]", ax=axes[1])
    axes[2].plot(sol.t, energy, label="kinetic energy [J]")
    axes[2].set_ylim(0.3, 0.325)
    axes[2].legend()
    axes[2].grid(True)
    axes[2].set_xlabel("time [s]")
    fig.tight_layout()
    plot_path = out_dir / "piston_engine.png"
    fig.savefig(plot_path, dpi=100)
    plt.close(fig)
    print(f"\nplot saved to {plot_path}")

    drawing = [model.fixed, model.fixedTranslationDisc, model.pistonRod,
               Box("bodyPiston.frame_a", width=0.25, height=0.15, color="tab:blue",
                   label="piston"),
               model.revoluteDrive, model.revoluteDisc, model.revolutePiston,
               Rod("fixed.frame", "bodyPiston.frame_a", width=1.0, color="lightgray")]
    # every 4th point of the 0.02 s grid at 12.5 frames/s: real time
    gif_path = animate(sol, drawing, out_dir / "piston_engine.gif", fps=12, t_stride=4,
                       title="piston engine", ax_limits=((-0.45, 1.35), (-0.45, 0.45)),
                       figsize=(6.0, 3.4), dpi=72)
    print(f"animation saved to {gif_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")))
