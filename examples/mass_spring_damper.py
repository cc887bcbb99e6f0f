"""Main example: a mass on a spring and a damper, composed from library components.

Run:  python examples/mass_spring_damper.py
Prints the compiled system, a few simulated values against the analytic solution, the equations
in LaTeX, and saves a plot (mass_spring_damper.png) when matplotlib is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from acausal import Component, Variable, compile, connect
from acausal.components.translational import Damper, Fixed, Mass, Spring


class Oscillator(Component):
    """Wall - spring (c = 100 N/m) and damper (d = 2 N s/m) in parallel - mass (m = 2 kg)."""

    wall = Fixed()
    spring = Spring(c=100.0)
    damper = Damper(d=2.0)
    mass = Mass(m=2.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.wall.flange, self.damper.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.damper.flange_b, self.mass.flange_a)]


def analytic_position(t: np.ndarray, m: float, c: float, d: float, s0: float) -> np.ndarray:
    """Under-damped free response from s(0) = s0, v(0) = 0."""
    wn = np.sqrt(c / m)
    zeta = d / (2.0 * np.sqrt(c * m))
    wd = wn * np.sqrt(1.0 - zeta**2)
    return s0 * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))


def main(out_dir: Path = Path(".")) -> int:
    system = compile(Oscillator())
    print(system.summary())
    sol = system.simulate(5.0, rtol=1e-10, atol=1e-12)
    exact = analytic_position(sol.t, m=2.0, c=100.0, d=2.0, s0=0.1)
    error = np.max(np.abs(sol["mass.s"] - exact))
    print("\nmass.s at t = 1, 2, 5 s: " + ", ".join(
        f"{np.interp(tk, sol.t, sol['mass.s']):+.6f}" for tk in (1.0, 2.0, 5.0)))
    print(f"largest deviation from the analytic solution: {error:.2e} m")
    print(f"spring force at t = 0: {sol['spring.f'][0]:.3f} N, "
          f"wall reaction at t = 0: {sol['wall.flange.f'][0]:.3f} N")
    print("\nEquations (LaTeX):")
    print(system.to_latex())
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\n(matplotlib not installed: no plot; pip install 'acausal[plot]')")
        return 0
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    sol.plot("mass.s", ax=axes[0])
    axes[0].plot(sol.t, exact, "k:", label="analytic")
    axes[0].legend()
    sol.plot("spring.f", "damper.f", ax=axes[1])
    fig.tight_layout()
    path = out_dir / "mass_spring_damper.png"
    fig.savefig(path, dpi=100)
    print(f"\nplot saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")))
