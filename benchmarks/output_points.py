"""What output points cost: the same run with 100 and with 5 000 output points.

Models: MultiBody's ``Fourbar1`` (a closed spatial loop, IDA, dynamic state selection), 5 s at
rtol 1e-8, atol 1e-10; the 20-link spatial chain of ``benchmarks/multibody_peers.py``
(``multibody.chains.SpatialChain``, a linear loop solved inside CVODE's right-hand side), 5 s
with CVODE's Adams method at rtol = atol = 1e-10. Timed (``time.perf_counter``, best of
``--repeat``, after one untimed run that builds the solver functions): ``cs.simulate`` with
``n_points`` = 100 and 5 000. Printed: the times, their ratio and the solver's right-hand-side
evaluations (equal when the output points do not change the solver's steps).

Then, separately, the first read of one variable at every output point: Fourbar1's prismatic
joint position ``j2.s`` (an algebraic variable: the loop's unknowns are polished at the output
points when first needed) and the chain's tip ``links[19].frame_b.r_0`` (a function of the
states alone: a variable read alone is evaluated alone, without the loop's solve). This is where
the number of output points costs evaluations of the model. Printed: ``simulate`` alone (what
the output grid costs the integration) and ``simulate`` plus that read.

Usage::

    python benchmarks/output_points.py              # both models, best of 2
    python benchmarks/output_points.py --models fourbar1 --repeat 3
    python benchmarks/output_points.py --jit        # the solver's functions as native code
"""

from __future__ import annotations

import argparse
import time

from acausal import compile
from acausal.components.multibody.chains import SpatialChain
from acausal.components.multibody.examples import Fourbar1

MODELS = {
    "fourbar1": (Fourbar1, dict(rtol=1e-8, atol=1e-10), "j2.s"),
    "chain20": (lambda: SpatialChain(n=20),
                dict(rtol=1e-10, atol=1e-10, integrator_options={"method": "Adams"}),
                "links[19].frame_b.r_0"),
}
POINTS = (100, 5000)


def measure(name: str, repeat: int, jit: bool = False) -> dict:
    build, options, read = MODELS[name]
    options = dict(options, jit=jit)
    cs = compile(build())
    cs.simulate(5.0, n_points=POINTS[0], **options)[read]  # builds and caches the functions
    out: dict = {"model": name}
    for n in POINTS:
        best = best_read = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            sol = cs.simulate(5.0, n_points=n, **options)
            t1 = time.perf_counter()
            sol[read]
            t2 = time.perf_counter()
            best, best_read = min(best, t1 - t0), min(best_read, t2 - t0)
        out[n] = (best, best_read, sol.stats["rhs_evaluations"], sol.stats["solver"])
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--jit", action="store_true",
                        help="simulate with jit=True (native code; compiled in the untimed run)")
    args = parser.parse_args(argv)
    print(f"{'model':<9} {'solver':<6} {'':<16} {'100 points [s]':>14} {'5000 points [s]':>15} "
          f"{'ratio':>6}")
    for name in args.models:
        r = measure(name, args.repeat, args.jit)
        (t1, r1, n1, solver), (t2, r2, n2, _) = r[POINTS[0]], r[POINTS[1]]
        print(f"{name:<9} {solver:<6} {'simulate':<16} {t1:>14.3f} {t2:>15.3f} {t2 / t1:>6.2f}")
        print(f"{'':<9} {'':<6} {'simulate + read':<16} {r1:>14.3f} {r2:>15.3f} {r2 / r1:>6.2f}")
        print(f"{'':<9} {'':<6} {'RHS evaluations':<16} {n1:>14d} {n2:>15d}")


if __name__ == "__main__":
    main()
