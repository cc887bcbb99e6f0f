"""3-D example: MultiBody's spatial four-bar (``Examples.Loops.Fourbar1``) built from acausal's
3-D library, its kinematic loop closed automatically.

Run:  python examples/spatial_fourbar.py [out_dir]

Five revolute joints and a prismatic joint form one kinematic loop with three steel cylinders
(7 joint coordinates, 6 loop constraints: 1 degree of freedom). Nothing marks a joint as a cut:
the compiler finds the loop in the connection graph of the frames' orientations and closes it
with 3 orientation and 3 position equations; index reduction then keeps j1's angle and speed as
the only states. The mechanism starts with j1 turning at 300 deg/s and moves under gravity only,
so its energy is conserved: the script prints the drift, and writes into out_dir (default: the
current folder) the 3-D viewer page (spatial_fourbar.html: open it in a browser, turn the view,
drag the time slider, with the bodies' trails and a plot of j1.w and j2.s), a plot
(spatial_fourbar.png) and a 3-D animation (spatial_fourbar.gif).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from acausal import compile
from acausal.components.multibody.energy import mechanical_energy
from acausal.components.multibody.examples import Fourbar1


def main(out_dir: Path = Path(".")) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    model = Fourbar1()
    system = compile(model)
    print(system.summary())
    [loop] = system.flat.loops
    print(f"\nloop closed by connect({loop.a.path}, {loop.b.path}) through "
          + ", ".join(loop.components))
    sol = system.simulate(5.0, dt=0.01, rtol=1e-9, atol=1e-11)
    e = mechanical_energy(sol, system, [model.b1, model.b2, model.b3])
    for tk in (1.0, 2.5, 5.0):
        k = int(np.argmin(np.abs(sol.t - tk)))
        print(f"t = {sol.t[k]:3.1f} s: j1.phi {sol['j1.phi'][k]:+9.4f} rad, "
              f"j1.w {sol['j1.w'][k]:+8.4f} rad/s, slider j2.s {sol['j2.s'][k]:+.4f} m")
    drift = float(np.max(np.abs(e - e[0])) / np.max(np.abs(e)))
    print(f"energy {e[0]:.6f} J, largest relative drift {drift:.1e}")
    page = sol.view(out_dir / "spatial_fourbar.html", trails=True, plots=["j1.w", "j2.s"],
                    title="spatial four-bar (MultiBody Fourbar1)")
    print(f"3-D view written to {page.path} (open it in a browser)")

    try:
        import matplotlib
    except ImportError:
        print("\n(matplotlib not installed: no plot or animation; pip install 'acausal[plot]')")
        return 0
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from acausal.components.multibody.animation import animate

    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    sol.plot("j1.w", "j2.v", ax=axes[0])
    sol.plot("j2.s", ax=axes[1])
    axes[1].set_xlabel("time [s]")
    fig.tight_layout()
    plot_path = out_dir / "spatial_fourbar.png"
    fig.savefig(plot_path, dpi=100)
    plt.close(fig)
    print(f"\nplot saved to {plot_path}")
    gif_path = animate(sol, model, out_dir / "spatial_fourbar.gif", fps=20, t_stride=5,
                       title="spatial four-bar (MultiBody Fourbar1)", dpi=60)
    print(f"animation saved to {gif_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")))
