"""Costs of the single operations that decide compile time, old way against the way acausal does it.

The rules in ``docs/compiler.md`` ("Keeping the passes linear") quote these numbers; this script
measures them on the machine at hand (each a fresh operation, no sympy cache hits)::

    python benchmarks/micro_costs.py
    python benchmarks/micro_costs.py --quick   # fewer repetitions, a 50-mass chain (smoke test)

Rows: a real symbol (time and memory), an unevaluated sum, renaming one equation, the time
derivative of a squared distance, one CasADi node, and compiling the 1000-mass chain of
``compile_scaling.py`` with Python's cyclic garbage collector running or paused.
"""

from __future__ import annotations

import gc
import itertools
import sys
import time
import tracemalloc
from pathlib import Path

import casadi as ca
import sympy as sp

from acausal import Component, Eq, Variable, der
from acausal.compiler.flatten import flatten
from acausal.compiler.structure.pantelides import time_derivative
from acausal.compiler.structure.system import build_equation_system
from acausal.language.symbolic import real_symbol, residual, substituted, sum_of

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compile_scaling import MassSpringChain  # noqa: E402

N = 20000  # repetitions of each small operation (--quick: 500)
CHAIN_N = 1000  # masses of the chain compiled with and without the collector (--quick: 50)
_names = (f"v{i}" for i in itertools.count())  # fresh names: nothing comes from a cache


def per_call_us(fn, n: int | None = None) -> float:
    n = N if n is None else n
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def bytes_per_call(fn, n: int = 5000) -> float:
    keep = []
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(n):
        keep.append(fn())
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    return sum(s.size_diff for s in after.compare_to(before, "filename")) / n


def symbols() -> list[tuple[str, str, str]]:
    old = lambda: sp.Symbol(next(_names), real=True)  # noqa: E731
    new = lambda: real_symbol(next(_names))  # noqa: E731
    return [("real symbol: time", f"{per_call_us(old):.1f} us", f"{per_call_us(new):.1f} us"),
            ("real symbol: memory", f"{bytes_per_call(old):.0f} B", f"{bytes_per_call(new):.0f} B")]


def sums() -> tuple[str, str, str]:
    def terms():
        return [real_symbol(next(_names)) for _ in range(4)]
    pool = [terms() for _ in range(N)]
    it = iter(pool)
    old = per_call_us(lambda: sp.Add(*next(it), evaluate=False))
    it = iter(pool)
    new = per_call_us(lambda: sum_of(next(it)))
    return ("sum of 4 terms, unevaluated", f"{old:.1f} us (Add(evaluate=False))",
            f"{new:.1f} us (sum_of)")


def renaming() -> tuple[str, str, str]:
    names = ("f", "c", "s_rel", "s_rel0", "d", "v_rel")
    f, c, s, s0, d, v = (real_symbol(n) for n in names)
    template = residual(f, c * (s - s0) + d * v)
    maps = [{x: real_symbol(f"links[{k}].{x.name}") for x in (f, c, s, s0, d, v)}
            for k in range(N)]
    it = iter(maps)
    old = per_call_us(lambda: template.xreplace(next(it)))
    it = iter(maps)
    new = per_call_us(lambda: substituted(template, next(it)))
    return ("rename a spring-damper equation", f"{old:.1f} us (xreplace)",
            f"{new:.1f} us (substituted)")


class _Rod(Component):
    x0 = Variable()
    y0 = Variable()
    x1 = Variable()
    y1 = Variable()

    def equations(self):
        return [Eq(der(v), 1) for v in (self.x0, self.y0, self.x1, self.y1)]


def derivative() -> tuple[str, str, str]:
    system = build_equation_system(flatten(_Rod()))
    x0, y0, x1, y1 = system.symbols[:4]
    g = (x1 - x0) ** 2 + (y1 - y0) ** 2 - 1
    dvars = [system.symbols[system.derivative_var(v)] for v in range(4)]

    def by_sympy_diff():  # the chain rule through sympy.diff, as Pantelides did it before
        return sp.Add(*[sp.diff(g, v) * dv for v, dv in zip((x0, y0, x1, y1), dvars)])

    n = 500
    return ("d/dt of a squared distance", f"{per_call_us(by_sympy_diff, n):.0f} us (sympy.diff)",
            f"{per_call_us(lambda: time_derivative(system, g), n):.0f} us (time_derivative)")


def casadi_node() -> tuple[str, str, str]:
    x = ca.SX.sym("x", 2)
    a, b = x[0], x[1]
    old = per_call_us(lambda: a * b)
    new = per_call_us(lambda: ca.SX.binary(ca.OP_MUL, a, b))
    return ("one CasADi SX product", f"{old:.1f} us (a * b)", f"{new:.1f} us (SX.binary)")


def garbage_collector() -> tuple[str, str, str]:
    from acausal.compiler.pipeline import _compile

    def best_of_two(paused: bool) -> float:
        times = []
        for _ in range(2):
            model = MassSpringChain(N=CHAIN_N)
            gc.enable()
            if paused:
                gc.disable()
            t0 = time.perf_counter()
            _compile(model, None, 10.0, 10.0, False, check_units=True)
            times.append(time.perf_counter() - t0)
            gc.enable()
        return min(times)

    return (f"compile the N = {CHAIN_N} chain", f"{best_of_two(False):.2f} s (collector running)",
            f"{best_of_two(True):.2f} s (collector paused)")


def main(argv: list[str] | None = None) -> int:
    global N, CHAIN_N
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--quick"]):
        print("usage: python benchmarks/micro_costs.py [--quick]", file=sys.stderr)
        return 2
    if args:
        N, CHAIN_N = 500, 50
    rows = [*symbols(), sums(), renaming(), derivative(), casadi_node(), garbage_collector()]
    header = ("operation", "before", "acausal now")
    widths = [max(len(r[k]) for r in (header, *rows)) for k in range(3)]
    for row in (header, tuple("-" * w for w in widths), *rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
