"""Compile-time and simulation-speed scaling benchmarks for acausal.

Two models, each built at several sizes N:

``chain``
    N masses in a row (m = 1 kg). The first mass is tied to a ``Fixed`` wall by a
    ``SpringDamper`` (c = 1 N/m, d = 0.5 N.s/m), every further mass to the previous one by
    another ``SpringDamper``, and a ``ConstantForce`` of 1 N pulls the last mass; all built from
    ``acausal.components.translational`` and starting at rest at s = 0. Timed: ``compile(model)``,
    ``cs.simulate(10.0)`` (default output grid of 501 points, rtol 1e-6, atol 1e-8) and, in the
    same run, a hand-written CasADi model of the same chain (SX states s_i, v_i, parameters as a
    ``p`` input, ``casadi.integrator("F", "cvodes", ...)`` on the same grid and tolerances). The
    final positions of both must agree (the maximal difference is printed); the ratio
    simulate / hand-written is the overhead of the generated code and of ``simulate``.

``pendulum``
    N-link pendulum in Cartesian coordinates, an index-3 DAE: point masses m = 1 kg at (x_i, y_i)
    with velocities (vx_i, vy_i), each held at distance L = 1 m from the previous point (the first
    from a fixed pivot at the origin) by a rigid-rod constraint with Lagrange multiplier lam_i
    (rod force per length), gravity 9.81 m/s2 along -y. It starts at rest as a straight chain
    tilted by 0.1 rad: the x_i and vx_i starts are fixed, the y_i (hanging branch, y < 0), vy_i
    and lam_i starts are guesses, completed by the compiler's initialisation. Timed: compile and
    ``cs.simulate(2.0)``; there is no hand-written reference (``handwritten_s`` is null). The
    largest violation of the rod-length constraints over the run is printed as a sanity check.

What is timed (``time.perf_counter``, or CPU time with ``--clock cpu``; one run, the best of
three up to chain N = 1000 and pendulum N = 50):

* ``compile_s``: ``acausal.compile(model)`` (flattening to CasADi functions); building the
  component tree is not included.
* ``simulate_s``: the first ``cs.simulate(...)`` call on the compiled system: initialisation,
  creation of the SUNDIALS integrator, integration and evaluation of all observed variables.
* ``handwritten_s``: creation of the CasADi integrator plus the integration call (the SX model
  itself is built beforehand, as compile builds acausal's).

Usage::

    python benchmarks/compile_scaling.py                 # readable table, default sizes
    python benchmarks/compile_scaling.py --json          # one JSON list on stdout
    python benchmarks/compile_scaling.py --quick         # smallest sizes only (smoke test)
    python benchmarks/compile_scaling.py --sizes chain=10,100 pendulum=5
    python benchmarks/compile_scaling.py --sizes 10 20   # the same sizes for every model
    python benchmarks/compile_scaling.py --plot scaling.png   # also a log-log plot of compile_s
    python benchmarks/compile_scaling.py --clock cpu     # CPU time: steadier on a busy machine

The table is followed by each compile pass's share of ``compile_s`` and its time in seconds
(``cs.timings`` of the fastest compile) and, per model, the exponent b of ``compile_s ~ a N^b``
fitted by least squares in log-log over its sizes without the smallest one (whose time is mostly
fixed costs).

``--clock cpu`` measures everything, the compiler's pass timings included (they read
``time.perf_counter``), in this process's CPU time (``time.process_time``, user + system) instead
of wall-clock time: on a machine shared with other work the wall-clock times vary by 20-30 %.
The script runs against whichever acausal is imported, so an older revision is measured with
the same models by ``PYTHONPATH=<its worktree> python benchmarks/compile_scaling.py ...``.

Progress goes to stderr. With ``--json`` stdout holds only the JSON list of records
``{"model", "N", "compile_s", "simulate_s", "handwritten_s"}``. A size that fails (an exception
in compile or simulate, or a failed accuracy check) gets a record with null times and an
``"error"`` message, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from acausal import Component, Eq, Parameter, Variable, compile, connect, der
from acausal.components.translational import ConstantForce, Fixed, Mass, SpringDamper

DEFAULT_SIZES = {"chain": [10, 100, 1000, 3000, 10000], "pendulum": [5, 20, 50, 100]}
QUICK_SIZES = {"chain": [10], "pendulum": [5]}
#: Sizes up to these are timed three times (best of three); larger ones once. The chain at
#: N = 1000 and the pendulum at N = 50 are included because their numbers are targets: single
#: runs of 0.08 s vary by 20-30 % on a 2-core machine.
BEST_OF_UP_TO = {"chain": 1000, "pendulum": 50}
REPEATS = 3

RTOL, ATOL = 1e-6, 1e-8  # acausal's simulate defaults; the hand-written model uses the same

CHAIN_T_END = 10.0
CHAIN_M, CHAIN_C, CHAIN_D, CHAIN_F = 1.0, 1.0, 0.5, 1.0

PENDULUM_T_END = 2.0
PENDULUM_M, PENDULUM_L, PENDULUM_G = 1.0, 1.0, 9.81
PENDULUM_THETA0 = 0.1  # initial tilt of the straight chain [rad]


# -- models ---------------------------------------------------------------------------------------
class MassSpringChain(Component):
    """N masses: wall -SD- mass[0] -SD- mass[1] ... mass[N-1] <- constant force (SD: spring-damper).

    Equations: those of the components (translational library) and of the connections.
    """

    def __init__(self, N: int = 3, m: float = CHAIN_M, c: float = CHAIN_C, d: float = CHAIN_D,
                 force: float = CHAIN_F, **kw):
        super().__init__(**kw)
        self.N = N
        self.wall = Fixed()
        self.links = [SpringDamper(c=c, d=d) for _ in range(N)]
        self.masses = [Mass(m=m) for _ in range(N)]
        self.force = ConstantForce(f_constant=force)

    def connections(self):
        out = [connect(self.wall.flange, self.links[0].flange_a)]
        for i in range(self.N):
            out.append(connect(self.links[i].flange_b, self.masses[i].flange_a))
            if i + 1 < self.N:
                out.append(connect(self.masses[i].flange_b, self.links[i + 1].flange_a))
        out.append(connect(self.masses[-1].flange_b, self.force.flange))
        return out


class PendulumPoint(Component):
    """Variables of one pendulum point; its equations are written by :class:`PendulumChain`."""

    x = Variable(unit="m", description="horizontal position", state_priority=1)
    y = Variable(unit="m", description="vertical position (up)")
    vx = Variable(unit="m/s", description="horizontal velocity", state_priority=1)
    vy = Variable(unit="m/s", description="vertical velocity")
    lam = Variable(unit="N/m", description="rod force per length (Lagrange multiplier)")


class PendulumChain(Component):
    """N-link pendulum in Cartesian coordinates (index-3 DAE).

    With (x_0, y_0) = (0, 0) the pivot and lam_{N+1} = 0, for i = 1..N::

        der(x_i) = vx_i,  der(y_i) = vy_i
        m der(vx_i) = -lam_i (x_i - x_{i-1}) + lam_{i+1} (x_{i+1} - x_i)
        m der(vy_i) = -lam_i (y_i - y_{i-1}) + lam_{i+1} (y_{i+1} - y_i) - m g
        (x_i - x_{i-1})^2 + (y_i - y_{i-1})^2 = L^2

    (Newton's law with the constraint forces -lam grad(g)/2 of the rods; e.g. Hairer & Wanner,
    Solving ODEs II, sec. VII.1.) Start: at rest, a straight chain tilted by ``theta0``; x_i and
    vx_i are fixed, y_i (hanging branch), vy_i and lam_i are guesses.
    """

    m = Parameter(PENDULUM_M, unit="kg", description="mass of every point")
    L = Parameter(PENDULUM_L, unit="m", description="length of every rod")
    g = Parameter(PENDULUM_G, unit="m/s2", description="gravity, along -y")

    def __init__(self, N: int = 3, theta0: float = PENDULUM_THETA0, **kw):
        super().__init__(**kw)
        self.N = N
        L, m, g = PENDULUM_L, PENDULUM_M, PENDULUM_G
        self.points = [
            PendulumPoint(x=Variable(start=(i + 1) * L * math.sin(theta0), fixed=True),
                          y=Variable(start=-(i + 1) * L * math.cos(theta0)),
                          vx=Variable(start=0.0, fixed=True),
                          vy=Variable(start=0.0),
                          lam=Variable(start=m * g * (N - i) / L))
            for i in range(N)]

    def equations(self):
        pts, m, L, g = self.points, self.m, self.L, self.g
        eqs = []
        for i, p in enumerate(pts):
            xa, ya = (0, 0) if i == 0 else (pts[i - 1].x, pts[i - 1].y)
            fx, fy = -p.lam * (p.x - xa), -p.lam * (p.y - ya)
            if i + 1 < self.N:
                q = pts[i + 1]
                fx += q.lam * (q.x - p.x)
                fy += q.lam * (q.y - p.y)
            eqs += [Eq(der(p.x), p.vx), Eq(der(p.y), p.vy),
                    Eq(m * der(p.vx), fx), Eq(m * der(p.vy), fy - m * g),
                    Eq((p.x - xa) ** 2 + (p.y - ya) ** 2, L ** 2)]
        return eqs


# -- hand-written reference -----------------------------------------------------------------------
def handwritten_chain(N: int) -> tuple[dict, np.ndarray]:
    """The chain written directly in CasADi SX: states (s_0, v_0, s_1, v_1, ...), p = (m, c, d, F).

    Tension of spring-damper i (between mass i-1, or the wall at 0, and mass i):
    f_i = c_i (s_i - s_{i-1}) + d_i (v_i - v_{i-1}); m_i der(v_i) = f_{i+1} - f_i (f_N = F).
    """
    s = [ca.SX.sym(f"s_{i}") for i in range(N)]
    v = [ca.SX.sym(f"v_{i}") for i in range(N)]
    p = ca.SX.sym("p", 3 * N + 1)
    m, c, d, force = p[0:N], p[N:2 * N], p[2 * N:3 * N], p[3 * N]
    tension = []
    for i in range(N):
        ds = s[i] - s[i - 1] if i else s[i]
        dv = v[i] - v[i - 1] if i else v[i]
        tension.append(c[i] * ds + d[i] * dv)
    rhs = []
    for i in range(N):
        pull = tension[i + 1] if i + 1 < N else force
        rhs += [v[i], (pull - tension[i]) / m[i]]
    x = ca.vertcat(*[e for pair in zip(s, v) for e in pair])
    dae = {"x": x, "p": p, "ode": ca.vertcat(*rhs)}
    values = np.concatenate([np.full(N, CHAIN_M), np.full(N, CHAIN_C), np.full(N, CHAIN_D),
                             [CHAIN_F]])
    return dae, values


def simulate_handwritten(dae: dict, p: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Integrate from x = 0 on ``grid``; returns the states at grid[1:] (n_x x len(grid)-1)."""
    integ = ca.integrator("F", "cvodes", dae, float(grid[0]), grid[1:],
                          {"reltol": RTOL, "abstol": ATOL})
    n_x = dae["x"].numel()
    return np.array(integ(x0=np.zeros(n_x), p=p)["xf"].full())


def simulate_generated_ode(cs, grid: np.ndarray) -> np.ndarray:
    """acausal's generated right-hand side ``cs.ode`` integrated exactly like the hand-written
    model (CVODES, x0 = 0, same grid and tolerances): isolates the generated code from the rest of
    ``simulate`` (initialisation, observed variables)."""
    dae = {"x": cs.x, "p": cs.p, "t": cs.t, "ode": cs.ode}
    return simulate_handwritten(dae, cs.parameter_vector(), grid)


# -- benchmark runs -------------------------------------------------------------------------------
@dataclass
class Result:
    model: str
    N: int
    compile_s: float | None = None
    simulate_s: float | None = None
    handwritten_s: float | None = None
    generated_ode_s: float | None = None  # table only: cs.ode integrated like the hand-written
    n_states: int | None = None
    n_algebraic: int | None = None
    check: str = ""
    slowest_phase: str = ""
    phases: dict = field(default_factory=dict)  # cs.timings of the fastest compile
    error: str | None = None
    extra: dict = field(default_factory=dict)

    def record(self) -> dict:
        out = {"model": self.model, "N": self.N, "compile_s": self.compile_s,
               "simulate_s": self.simulate_s, "handwritten_s": self.handwritten_s}
        if self.error is not None:
            out["error"] = self.error
        return out


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def _slowest_phase(cs) -> str:
    timings = getattr(cs, "timings", None) or {}
    if not timings:
        return ""
    name = max(timings, key=timings.get)
    return f"{name} {timings[name]:.2f}s"


def run_chain(N: int, repeats: int) -> Result:
    res = Result("chain", N)
    compile_times, sim_times, hand_times = [], [], []
    for _ in range(repeats):
        model = MassSpringChain(N=N)
        dt, cs = _timed(lambda: compile(model))  # noqa: B023 - called at once
        if not compile_times or dt < min(compile_times):
            res.phases = dict(cs.timings)
        compile_times.append(dt)
        dt, sol = _timed(lambda: cs.simulate(CHAIN_T_END, rtol=RTOL, atol=ATOL))  # noqa: B023
        sim_times.append(dt)
    dae, p = handwritten_chain(N)
    gen_times = []
    for _ in range(repeats):
        dt, xs = _timed(lambda: simulate_handwritten(dae, p, sol.t))
        hand_times.append(dt)
        dt, _ = _timed(lambda: simulate_generated_ode(cs, sol.t))
        gen_times.append(dt)
    final_acausal = np.array([sol[f"masses[{i}].s"][-1] for i in range(N)])
    final_hand = xs[0::2, -1]
    diff = float(np.max(np.abs(final_acausal - final_hand)))
    scale = max(1.0, float(np.max(np.abs(final_hand))))
    res.check = f"max|ds_end|={diff:.1e}"
    if not diff <= 1e-4 * scale:
        raise AssertionError(f"chain N={N}: final positions of acausal and the hand-written "
                             f"model differ by {diff:.3g} (> {1e-4 * scale:.3g})")
    res.compile_s, res.simulate_s, res.handwritten_s = (min(compile_times), min(sim_times),
                                                        min(hand_times))
    res.generated_ode_s = min(gen_times)
    res.n_states, res.n_algebraic = cs.n_states, int(cs.z.numel())
    res.slowest_phase = _slowest_phase(cs)
    res.extra["max_final_diff"] = diff
    return res


def run_pendulum(N: int, repeats: int) -> Result:
    res = Result("pendulum", N)
    compile_times, sim_times = [], []
    for _ in range(repeats):
        model = PendulumChain(N=N)
        dt, cs = _timed(lambda: compile(model))  # noqa: B023
        if not compile_times or dt < min(compile_times):
            res.phases = dict(cs.timings)
        compile_times.append(dt)
        dt, sol = _timed(lambda: cs.simulate(PENDULUM_T_END, rtol=RTOL, atol=ATOL))  # noqa: B023
        sim_times.append(dt)
    drift = 0.0
    xa = ya = 0.0
    for i in range(N):
        x, y = sol[f"points[{i}].x"], sol[f"points[{i}].y"]
        drift = max(drift, float(np.max(np.abs((x - xa) ** 2 + (y - ya) ** 2 - PENDULUM_L ** 2))))
        xa, ya = x, y
    res.check = f"max|rod|={drift:.1e}"
    if not drift <= 1e-3:
        raise AssertionError(f"pendulum N={N}: rod-length constraints violated by {drift:.3g}")
    res.compile_s, res.simulate_s = min(compile_times), min(sim_times)
    res.n_states, res.n_algebraic = cs.n_states, int(cs.z.numel())
    res.slowest_phase = _slowest_phase(cs)
    res.extra["max_constraint_violation"] = drift
    return res


def _describe(exc: BaseException) -> str:
    """``Type: message``, with the innermost source location when the message is empty."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if not str(exc).strip() and exc.__traceback__ is not None:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        text += f" at {os.path.relpath(frame.filename)}:{frame.lineno} ({frame.name})"
    return text


RUNNERS = {"chain": run_chain, "pendulum": run_pendulum}


# -- command line ---------------------------------------------------------------------------------
def parse_sizes(items: list[str], models: list[str]) -> dict[str, list[int]]:
    """``["chain=10,100", "pendulum=5"]`` or bare numbers ``["10", "20"]`` (for every model)."""
    sizes: dict[str, list[int]] = {}
    bare: list[int] = []
    for item in items:
        if "=" in item:
            name, _, values = item.partition("=")
            if name not in RUNNERS:
                raise SystemExit(f"--sizes: unknown model {name!r} (known: {', '.join(RUNNERS)})")
            sizes[name] = [int(v) for v in values.split(",") if v.strip()]
        else:
            bare.extend(int(v) for v in item.split(",") if v.strip())
    if bare:
        for name in models:
            sizes.setdefault(name, bare)
    return {name: sizes[name] for name in models if name in sizes}


def _render(header: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, a dashed rule under the header."""
    widths = [max(len(h), *(len(row[k]) for row in rows)) if rows else len(h)
              for k, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def format_table(results: list[Result]) -> str:
    header = ["model", "N", "states", "alg", "compile_s", "simulate_s", "handwritten_s",
              "sim/hand", "ode_s", "ode/hand", "check", "slowest compile phase"]
    rows = []
    for r in results:
        if r.error is not None:
            rows.append([r.model, str(r.N), "", "", "FAILED", r.error.splitlines()[0][:90],
                         "", "", "", "", "", ""])
            continue
        hand = r.handwritten_s
        rows.append([r.model, str(r.N), str(r.n_states), str(r.n_algebraic),
                     f"{r.compile_s:.3f}", f"{r.simulate_s:.3f}",
                     f"{hand:.3f}" if hand is not None else "-",
                     f"{r.simulate_s / hand:.2f}" if hand else "-",
                     f"{r.generated_ode_s:.3f}" if r.generated_ode_s is not None else "-",
                     f"{r.generated_ode_s / hand:.2f}" if hand and r.generated_ode_s else "-",
                     r.check, r.slowest_phase])
    return _render(header, rows)


def format_phases(results: list[Result]) -> str:
    """Each compile pass's share of ``compile_s`` (``cs.timings`` of the fastest compile)."""
    names: list[str] = []
    for r in results:
        names += [n for n in r.phases if n not in names]
    header = ["model", "N", "compile_s", *names]
    rows = []
    for r in results:
        if r.error is not None or not r.phases:
            continue
        total = sum(r.phases.values())
        rows.append([r.model, str(r.N), f"{r.compile_s:.3f}",
                     *(f"{100 * r.phases[n] / total:.0f} %" if n in r.phases else "-"
                       for n in names)])
    return _render(header, rows)


def format_phase_seconds(results: list[Result]) -> str:
    """Each compile pass's time in seconds (``cs.timings`` of the fastest compile)."""
    names: list[str] = []
    for r in results:
        names += [n for n in r.phases if n not in names]
    header = ["model", "N", "compile_s", *names]
    rows = [[r.model, str(r.N), f"{r.compile_s:.3f}",
             *(f"{r.phases[n]:.3f}" if n in r.phases else "-" for n in names)]
            for r in results if r.error is None and r.phases]
    return _render(header, rows)


def fitted_exponents(results: list[Result]) -> dict[str, tuple[float, list[int]]]:
    """Per model: the exponent b of compile_s ~ a N^b (least squares in log-log) over its sizes
    without the smallest one, whose time is mostly fixed costs; needs three sizes or more."""
    out = {}
    for model in dict.fromkeys(r.model for r in results):
        pts = sorted((r.N, r.compile_s) for r in results
                     if r.model == model and r.error is None and r.compile_s)
        pts = pts[1:]
        if len(pts) < 2:
            continue
        logn, logt = np.log([n for n, _ in pts]), np.log([t for _, t in pts])
        out[model] = (float(np.polyfit(logn, logt, 1)[0]), [n for n, _ in pts])
    return out


def plot_scaling(results: list[Result], path: str) -> None:
    """Log-log plot of compile time against N, one line per model with its fitted exponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    exponents = fitted_exponents(results)
    fig, ax = plt.subplots(figsize=(6.4, 4.4), constrained_layout=True)
    for model, marker in zip(dict.fromkeys(r.model for r in results), "os^"):
        pts = sorted((r.N, r.compile_s) for r in results
                     if r.model == model and r.error is None and r.compile_s)
        if not pts:
            continue
        ns, ts = np.array(pts).T
        label = model
        if model in exponents:
            b, used = exponents[model]
            label += f": fitted exponent {b:.2f} (N = {used[0]}..{used[-1]})"
            k = [i for i, n in enumerate(ns) if n in used]
            a = np.exp(np.mean(np.log(ts[k]) - b * np.log(ns[k])))
            grid = np.geomspace(ns[k[0]], ns[k[-1]], 50)
            ax.plot(grid, a * grid ** b, "--", color="0.5", linewidth=1)
        ax.loglog(ns, ts, marker=marker, linestyle="-", label=label)
    ax.set_xlabel("N (masses of the chain, links of the pendulum)")
    ax.set_ylabel("compile time [s]")
    ax.set_title("acausal compile time (benchmarks/compile_scaling.py)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
    plt.close(fig)


@contextlib.contextmanager
def stdout_to_stderr(active: bool):
    """Send everything written to stdout (Python or C level, e.g. SUNDIALS) to stderr."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true",
                    help="print one JSON list of records on stdout, nothing else")
    ap.add_argument("--quick", action="store_true", help="only the smallest sizes (smoke test)")
    ap.add_argument("--sizes", nargs="+", metavar="SPEC",
                    help="sizes: MODEL=N1,N2 items, or bare numbers for every model")
    ap.add_argument("--models", nargs="+", choices=list(RUNNERS), default=list(RUNNERS),
                    help="models to run (default: all)")
    ap.add_argument("--plot", metavar="PNG",
                    help="also write a log-log plot of compile time against N to this file")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: wall-clock time (default); cpu: this process's CPU time, the "
                    "compiler's pass timings included")
    args = ap.parse_args(argv)
    if args.clock == "cpu":
        # every timing reads time.perf_counter, the compiler's laps (acausal.compiler.pipeline)
        # too: CPU time in its place
        time.perf_counter = time.process_time

    if args.sizes:
        sizes = parse_sizes(args.sizes, args.models)
    else:
        table = QUICK_SIZES if args.quick else DEFAULT_SIZES
        sizes = {name: table[name] for name in args.models}

    results: list[Result] = []
    with stdout_to_stderr(args.json):
        for name, ns in sizes.items():
            for N in ns:
                repeats = REPEATS if (N <= BEST_OF_UP_TO[name] and not args.quick) else 1
                print(f"[bench] {name} N={N} ...", file=sys.stderr, flush=True)
                t0 = time.perf_counter()
                try:
                    r = RUNNERS[name](N, repeats)
                except Exception as exc:  # noqa: BLE001 - report it, go on with the other sizes
                    traceback.print_exc(file=sys.stderr)
                    r = Result(name, N, error=_describe(exc))
                print(f"[bench] {name} N={N} done in {time.perf_counter() - t0:.1f}s"
                      + (f" (compile {r.compile_s:.3f}s, simulate {r.simulate_s:.3f}s)"
                         if r.error is None else " FAILED"), file=sys.stderr, flush=True)
                results.append(r)

    if args.json:
        print(json.dumps([r.record() for r in results]))
    else:
        print(format_table(results))
        print("\nShare of each compile pass in compile_s:")
        print(format_phases(results))
        print("\nEach compile pass in seconds:")
        print(format_phase_seconds(results))
        exponents = fitted_exponents(results)
        if exponents:
            print()
        for model, (b, used) in exponents.items():
            print(f"{model}: compile time grows like N^{b:.2f} (least squares over N = "
                  f"{', '.join(map(str, used))})")
    if args.plot:
        plot_scaling(results, args.plot)
    return 1 if any(r.error is not None for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
