"""Small models: acausal's ``simulate`` against CasADi's own CVODES on the generated functions.

Issue 26's target: a small model's ``simulate`` within 1.1x of CasADi's integrator run on
acausal's generated right-hand side. Models (ODEs, no events):

``vanderpol``
    x' = y, y' = mu (1 - x^2) y - x with mu = 1, from (2, 0); 1 000 s (about 160 limit
    cycles), rtol 1e-8, atol 1e-10.
``chain10``
    the 10-mass spring-damper chain of ``benchmarks/compile_scaling.py`` (20 states), 100 s,
    rtol 1e-6, atol 1e-8.
``pendulum``
    a pendulum in its angle, phi'' = -g/L sin(phi) (g = 9.81 m/s2, L = 1 m), from 2 rad at
    rest; 200 s, rtol 1e-10, atol 1e-12.

Timed (``time.perf_counter``, best of ``--repeat``, after one untimed run that builds and
caches everything): ``cs.simulate(t_end, n_points=501)`` without and with ``jit=True`` (with:
the compiled functions come from the cache, the solver is driven from C,
``acausal/run/native_solver.py``); CasADi: ``casadi.integrator("F", "cvodes", {"x": cs.x,
"p": cs.p, "t": cs.t, "ode": cs.ode}, 0, grid, {"reltol", "abstol"})`` built and called
(``casadi_s``), and called again on the built integrator (``casadi_call_s``: its integration
alone). The final states of acausal and CasADi must agree within 1e-3 of their size (a check
that both integrate the same model; over hundreds of periods their global errors differ more
than the tolerances).

Usage::

    python benchmarks/small_models.py                 # table
    python benchmarks/small_models.py --repeat 5 --models vanderpol
    python benchmarks/small_models.py --json          # records on stdout
    python benchmarks/small_models.py --quick         # shorter runs, one repeat (smoke test)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import casadi as ca
import numpy as np
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, der

sys.path.insert(0, str(Path(__file__).parent))
from compile_scaling import MassSpringChain  # noqa: E402


class VanDerPol(Component):
    """x' = y, y' = mu (1 - x^2) y - x."""

    mu = Parameter(1.0, unit="1", description="damping parameter")
    x = Variable(start=2.0, fixed=True)
    y = Variable(start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), self.y),
                Eq(der(self.y), self.mu * (1 - self.x**2) * self.y - self.x)]


class AnglePendulum(Component):
    """phi'' = -g / L sin(phi)."""

    g = Parameter(9.81, unit="m/s2", description="gravity")
    L = Parameter(1.0, unit="m", description="length")
    phi = Variable(start=2.0, fixed=True, unit="rad")
    w = Variable(start=0.0, fixed=True, unit="rad/s")

    def equations(self):
        return [Eq(der(self.phi), self.w), Eq(der(self.w), -self.g / self.L * sp.sin(self.phi))]


MODELS = {
    "vanderpol": (VanDerPol, 1000.0, 1e-8, 1e-10),
    "chain10": (lambda: MassSpringChain(N=10), 100.0, 1e-6, 1e-8),
    "pendulum": (AnglePendulum, 200.0, 1e-10, 1e-12),
}


def best(fn, repeat: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return min(times), value


def measure(name: str, repeat: int, quick: bool) -> dict:
    build, t_end, rtol, atol = MODELS[name]
    if quick:
        t_end /= 20
    cs = compile(build())
    options = dict(n_points=501, rtol=rtol, atol=atol)
    for jit in (False, True):  # builds, compiles and caches
        cs.simulate(t_end, jit=jit, **options)
    plain_s, plain = best(lambda: cs.simulate(t_end, **options), repeat)
    jit_s, driven = best(lambda: cs.simulate(t_end, jit=True, **options), repeat)
    grid = plain.t
    dae = {"x": cs.x, "p": cs.p, "t": cs.t, "ode": cs.ode}
    x0 = plain.x[:, 0]
    p = cs.parameter_vector()

    def with_casadi():
        integrator = ca.integrator("F", "cvodes", dae, float(grid[0]), grid[1:],
                                   {"reltol": rtol, "abstol": atol})
        return integrator, integrator(x0=x0, p=p)["xf"]

    casadi_s, (integrator, xf) = best(with_casadi, repeat)
    call_s, _ = best(lambda: integrator(x0=x0, p=p)["xf"], repeat)
    final = np.array(xf)[:, -1]
    diff = float(np.max(np.abs(final - driven.x[:, -1])))
    scale = max(1.0, float(np.max(np.abs(final))))
    if not diff <= 1e-3 * scale:  # the same model (not an accuracy test: global errors grow)
        raise AssertionError(f"{name}: final states of acausal and CasADi differ by {diff:.3g}")
    return {"model": name, "states": int(cs.x.numel()), "t_end": t_end,
            "rhs": int(driven.stats["rhs_evaluations"]), "driver": driven.stats["driver"],
            "simulate_s": plain_s, "simulate_jit_s": jit_s, "casadi_s": casadi_s,
            "casadi_call_s": call_s, "final_diff": diff}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1/20 of the time, one repeat")
    parser.add_argument("--json", action="store_true", help="JSON records on stdout")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    records = [measure(name, repeat, args.quick) for name in args.models]
    if args.json:
        print(json.dumps(records))
        return 0
    print(f"{'model':<10} {'states':>6} {'rhs':>7} {'simulate':>9} {'jit':>9} {'casadi':>9} "
          f"{'call':>9} {'sim/cas':>8} {'jit/cas':>8} {'jit/call':>8}  driver")
    for r in records:
        print(f"{r['model']:<10} {r['states']:>6} {r['rhs']:>7} {r['simulate_s']:>9.4f} "
              f"{r['simulate_jit_s']:>9.4f} {r['casadi_s']:>9.4f} {r['casadi_call_s']:>9.4f} "
              f"{r['simulate_s'] / r['casadi_s']:>8.2f} "
              f"{r['simulate_jit_s'] / r['casadi_s']:>8.2f} "
              f"{r['simulate_jit_s'] / r['casadi_call_s']:>8.2f}  {r['driver']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
