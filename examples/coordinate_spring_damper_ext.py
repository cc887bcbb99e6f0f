"""A 1 kg mass on a line tied to ground by Exudyn's CoordinateSpringDamperExt.

``flange_a`` of the element is fixed at 0, the mass sits on ``flange_b`` (offset 0, factors 1),
q(0) = 0; the mass obeys ``m dv/dt = f_ext - f_SD`` with ``f_SD`` the element's ``force``.
Friction: fDynamicFriction 5 N, fStaticFrictionOffset 2 N, exponentialDecayStatic 0.01 m/s,
fViscousFriction 0.5 N s/m; spring 1000 N/m, damper 1 N s/m.

Cases (``--case``):

* ``regularized``: frictionProportionalZone 1e-3 m/s (Exudyn's regularised Stribeck curve, no
  events), v(0) = 1 m/s, no external force, 1 s.
* ``bristle``: frictionProportionalZone 0 (bristle stick/slip automaton, events),
  stickingStiffness 1e5 N/m, stickingDamping 100 N s/m, external force 10 sin(2 pi t) N on the
  mass, v(0) = 1 m/s, initially slipping forward (initialFrictionMode = +1), 3 s.
* ``bristle-rest``: as ``bristle`` but from rest and initially stuck at q = 0
  (initialFrictionMode = 0, initialLastStickingPosition = 0), 3 s.
* ``limit-stops``: stiffness 0, damping 0, no friction; limit stops at -0.1 and 0.1 m
  (limitStopsStiffness 1e5 N/m, limitStopsDamping 50 N s/m), v(0) = 2 m/s, 1 s.

Run::

    python examples/coordinate_spring_damper_ext.py --case bristle --csv bristle.csv --png b.png

``--t-end T`` overrides the end time; ``--csv FILE`` writes the columns ``t,q,v,force`` every
0.1 ms (``force`` = the element's output ``force``, Exudyn's f_SD); ``--png FILE`` plots position,
velocity, friction force and the stick/slip mode (limit-stop state for ``limit-stops``).

Model and sources: :mod:`acausal.components.coordinate_spring_damper` (Exudyn
``ObjectConnectorCoordinateSpringDamperExt``, Exudyn documentation and source v1.11).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, connect, time
from acausal.components.coordinate_spring_damper import CoordinateSpringDamperExt
from acausal.components.translational import Fixed, Force, Mass

MASS = 1.0
FRICTION = {"stiffness": 1000.0, "damping": 1.0, "fDynamicFriction": 5.0,
            "fStaticFrictionOffset": 2.0, "exponentialDecayStatic": 0.01,
            "fViscousFriction": 0.5}
BRISTLE = {**FRICTION, "frictionProportionalZone": 0.0, "stickingStiffness": 1e5,
           "stickingDamping": 100.0}
CASES = {
    # name: (element parameters, v(0), force amplitude, end time)
    "regularized": ({**FRICTION, "frictionProportionalZone": 1e-3}, 1.0, 0.0, 1.0),
    "bristle": ({**BRISTLE, "initialFrictionMode": 1}, 1.0, 10.0, 3.0),
    "bristle-rest": ({**BRISTLE, "initialFrictionMode": 0,
                      "initialLastStickingPosition": 0.0}, 0.0, 10.0, 3.0),
    "limit-stops": ({"useLimitStops": True, "limitStopsLower": -0.1, "limitStopsUpper": 0.1,
                     "limitStopsStiffness": 1e5, "limitStopsDamping": 50.0}, 2.0, 0.0, 1.0),
}
COLUMNS = ("t", "q", "v", "force")
DT = 1e-4


class MassOnCoordinateSpringDamperExt(Component):
    """Mass on ``csd.flange_b``, ``csd.flange_a`` fixed at 0, external force
    ``force_amplitude sin(2 pi t)`` on the mass."""

    force_amplitude = Parameter(0.0, unit="N", description="amplitude of the external force")
    ground = Fixed()
    drive = Force()

    def __init__(self, csd_parameters: dict, v0: float, **kw):
        super().__init__(**kw)
        self.mass = Mass(m=MASS, s=Variable(start=0.0, fixed=True),
                         v=Variable(start=v0, fixed=True))
        self.csd = CoordinateSpringDamperExt(**csd_parameters)

    def equations(self):
        return [Eq(self.drive.f, self.force_amplitude * sp.sin(2 * sp.pi * time))]

    def connections(self):
        return [connect(self.ground.flange, self.csd.flange_a),
                connect(self.csd.flange_b, self.mass.flange_a),
                connect(self.drive.flange, self.mass.flange_b)]


def run(case: str, t_end: float | None = None):
    """Simulate one case; returns (solution, element parameters, model)."""
    params, v0, amplitude, default_end = CASES[case]
    model = MassOnCoordinateSpringDamperExt(params, v0, force_amplitude=amplitude)
    t_end = default_end if t_end is None else t_end
    sol = compile(model).simulate(t_end, dt=DT, rtol=1e-8, atol=1e-10)
    return sol, params, model


def friction_force(sol, params):
    """f_SD minus spring, damper and limit-stop contact: the friction part of the force."""
    q, v = sol["csd.displacement"], sol["csd.velocity"]
    f = sol["csd.force"] - params.get("stiffness", 0.0) * q - params.get("damping", 0.0) * v
    if params.get("useLimitStops"):
        state = sol["csd.limitStopState"]
        k, d = params["limitStopsStiffness"], params["limitStopsDamping"]
        f = f - np.where(state > 0, k * (q - params["limitStopsUpper"]) + d * v, 0.0)
        f = f - np.where(state < 0, k * (q - params["limitStopsLower"]) + d * v, 0.0)
    return f


def mode_history(sol, params, case):
    """(label, values) of the mode panel."""
    if case == "limit-stops":
        return "limit-stop state", sol["csd.limitStopState"]
    if params.get("frictionProportionalZone", 0.0) != 0.0:
        v = sol["csd.velocity"]
        zone = params["frictionProportionalZone"]
        return "slip direction\n(0: |v| <= v_reg)", np.where(np.abs(v) <= zone, 0, np.sign(v))
    return "friction mode\n(0 stick, +-1 slip)", sol["csd.frictionMode"]


def write_csv(sol, path: Path) -> None:
    sol.to_csv(path, dict(zip(COLUMNS, ("time", "mass.s", "mass.v", "csd.force"))), units=False)


def plot(sol, params, case: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    label, mode = mode_history(sol, params, case)
    fig, axes = plt.subplots(4, 1, figsize=(8, 9), sharex=True)
    panels = [(sol["mass.s"], "position q [m]"), (sol["mass.v"], "velocity v [m/s]"),
              (friction_force(sol, params), "friction force [N]"), (mode, label)]
    for ax, (y, name) in zip(axes, panels):
        ax.plot(sol.t, y, lw=1.0, drawstyle="steps-post" if y is mode else "default")
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    if case == "limit-stops":
        for value in (params["limitStopsLower"], params["limitStopsUpper"]):
            axes[0].axhline(value, color="k", lw=0.8, ls="--")
    axes[-1].set_xlabel("t [s]")
    fig.suptitle(f"CoordinateSpringDamperExt, case '{case}'")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=sorted(CASES), default="bristle")
    parser.add_argument("--t-end", type=float, default=None, help="end time [s]")
    parser.add_argument("--csv", type=Path, help="write t,q,v,force every 0.1 ms")
    parser.add_argument("--png", type=Path, help="plot position, velocity, friction, mode")
    args = parser.parse_args(argv)

    sol, params, model = run(args.case, args.t_end)
    meaning = model.csd.event_descriptions()
    q, v = sol["mass.s"], sol["mass.v"]
    energy = 0.5 * MASS * v**2 + 0.5 * params.get("stiffness", 0.0) * q**2
    print(f"case: {args.case}, t_end = {sol.t[-1]:g} s, {len(sol.events)} events")
    for t_e, labels in sol.events[:12]:
        # labels read "event <i> of CoordinateSpringDamperExt 'csd'"
        what = [meaning[int(lab.split()[1]) - 1] for lab in labels]
        print(f"  t = {t_e:.9f} s: {'; '.join(what)}")
    if len(sol.events) > 12:
        print(f"  ... ({len(sol.events) - 12} more)")
    print(f"final q = {q[-1]:.6g} m, v = {v[-1]:.6g} m/s, force = {sol['csd.force'][-1]:.6g} N")
    print(f"mechanical energy (mass + spring): {energy[0]:.6g} J -> {energy[-1]:.6g} J")
    if args.csv:
        write_csv(sol, args.csv)
        print(f"wrote {args.csv}")
    if args.png:
        try:
            plot(sol, params, args.case, args.png)
            print(f"wrote {args.png}")
        except ImportError:
            print("matplotlib is not installed: no plot", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
