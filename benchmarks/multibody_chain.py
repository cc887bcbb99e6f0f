"""Compile and simulate time of a 3-D chain of N bodies (issue 14: N = 20 under 10 s).

Model: the world, then N times ``Revolute`` (axis alternating z and y, so that the chain
moves in 3-D) followed by ``BodyShape`` (r = (0.5, 0, 0), r_CM = (0.25, 0, 0), m = 1 kg,
I = diag(0.001, 0.02, 0.02) kg m2), started at rest with every joint at 0.1 rad. Timed
(``time.perf_counter``, best of ``--repeat``): ``acausal.compile(model)`` and ``cs.simulate(2.0)``
(rtol 1e-6, atol 1e-8). The total energy at the end (kinetic + gravity) minus the initial one is
printed as a sanity check (no damping: it should be near 0).

Usage::

    python benchmarks/multibody_chain.py                 # N = 5, 10, 20
    python benchmarks/multibody_chain.py --sizes 20 40
    python benchmarks/multibody_chain.py --quick         # N = 3 only (smoke test)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from acausal import Component, Variable, compile
from acausal.components.multibody import BodyShape, Revolute, World
from acausal.components.multibody.chains import serial_connections
from acausal.components.multibody.energy import mechanical_energy


class Chain(Component):
    """N revolute joints and links, alternating axes z and y."""

    def __init__(self, n: int = 20, **kw):
        super().__init__(**kw)
        self.world = World()
        self.joints = [Revolute(n=(0, 0, 1) if i % 2 == 0 else (0, 1, 0),
                                phi=Variable(start=0.1, fixed=True),
                                w=Variable(start=0.0, fixed=True)) for i in range(n)]
        self.links = [BodyShape(r=(0.5, 0.0, 0.0), r_CM=(0.25, 0.0, 0.0), m=1.0, I_11=0.001,
                                I_22=0.02, I_33=0.02) for _ in range(n)]

    def connections(self):
        return serial_connections(self.world, self.joints, self.links)


def run(n: int, repeat: int) -> dict:
    best_compile = best_sim = np.inf
    for _ in range(repeat):
        model = Chain(n)
        t0 = time.perf_counter()
        cs = compile(model)
        best_compile = min(best_compile, time.perf_counter() - t0)
        t0 = time.perf_counter()
        sol = cs.simulate(2.0, rtol=1e-6, atol=1e-8)
        best_sim = min(best_sim, time.perf_counter() - t0)
    e = mechanical_energy(sol, cs, model.links)
    return dict(N=n, states=cs.n_states, compile_s=best_compile, simulate_s=best_sim,
                energy_change=float(e[-1] - e[0]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[5, 10, 20])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="N = 3 only")
    args = parser.parse_args(argv)
    sizes = [3] if args.quick else args.sizes
    print(f"{'N':>4} {'states':>6} {'compile_s':>10} {'simulate_s':>11} {'energy change':>14}")
    for n in sizes:
        r = run(n, args.repeat)
        print(f"{r['N']:>4} {r['states']:>6} {r['compile_s']:>10.2f} {r['simulate_s']:>11.2f} "
              f"{r['energy_change']:>14.2e}")


if __name__ == "__main__":
    main()
