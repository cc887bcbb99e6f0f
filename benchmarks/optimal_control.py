"""Optimal control: the cart-pole swing-up solved by acausal, a hand-written CasADi ``Opti``
collocation and rockit, on the same discretisation.

The problem is the one of ``examples/cartpole_swingup.py`` (cart 1 kg, point-mass pole 0.1 kg
at l = 0.5 m, g = 9.81 m/s2; from hanging at rest to upright at rest with the cart back at
``distance`` in T = 2 s; |F| <= 20 N; minimise integral F^2 dt). The three solvers share:

* the mesh: ``--elements`` equal elements on [0, T];
* the scheme: Radau IIA collocation of degree 3 (the state a polynomial of degree 3 on each
  element through its start and the three Radau points, the ODE imposed at the Radau points,
  continuity of the state at the element ends);
* the control: one force value per element (piecewise constant);
* the objective's quadrature: sum_k h_k sum_j B_j F_k^2 with the Radau weights B_j (sum 1):
  exactly sum_k h_k F_k^2, the integral of the piecewise-constant force squared;
* the states: cart position, velocity, pole angle, rate (acausal's selected states
  ``cart.s, cart.v, pole.phi, pole.w``; collocation commutes with an affine change of states,
  so with the same states the three discrete problems are the same NLP up to the formulation
  of the (eliminated or kept) algebraic variables);
* the initial guess of ``guess_trajectory`` (straight lines between the boundary values);
* IPOPT with ``tol = 1e-10``, MUMPS, ``print_level = 0``.

The hand-written twin writes the cart-pole ODE in closed form. Derivation (Lagrange; the
cart at s, the point mass m_p at (s + l sin phi, -l cos phi), phi = 0 hanging down; as
M. Kelly, "An Introduction to Trajectory Optimization", SIAM Review 59(4), 2017, appendix E):

    T = 1/2 (m_c + m_p) s'^2 + m_p l s' phi' cos(phi) + 1/2 m_p l^2 phi'^2,
    V = -m_p g l cos(phi),
    (m_c + m_p) s'' + m_p l cos(phi) phi'' - m_p l sin(phi) phi'^2 = F,
    m_p l cos(phi) s'' + m_p l^2 phi'' + m_p g l sin(phi) = 0,

and eliminating phi'' from the first with the second:

    s'' = (F + m_p l sin(phi) phi'^2 + m_p g sin(phi) cos(phi)) / (m_c + m_p sin(phi)^2),
    phi'' = -(g sin(phi) + cos(phi) s'') / l.

Radau IIA coefficients: ``casadi.collocation_points(degree, "radau")`` gives tau_1..tau_d
(tau_d = 1); with tau_0 = 0 the Lagrange basis l_r of (tau_0..tau_d) gives the derivative
matrix C[r, j] = l_r'(tau_j), the end weights D[r] = l_r(1) and the quadrature weights
B[j] = integral_0^1 l_j (numpy polynomials).

rockit (``rockit-meco``): ``Ocp(T=...)``, ``DirectCollocation(N=elements, M=1, degree=3,
scheme="radau")`` (one integration step a control interval), ``ocp.integral(F**2)`` (its
quadrature with the same Radau weights), controls piecewise constant by construction.

Timings (``time.perf_counter``, median of ``--repeat``), the same split for the three:

* *total*: the wall time from nothing (the twins) or from the compiled model (acausal: the
  ``OptimalControl`` declarations and ``solve()``) to the solution;
* *solve*: the IPOPT run, the call of CasADi's ``nlpsol`` (acausal: ``res.solve_time``, the
  wall time of that call; Opti and rockit: ``t_wall_total`` of their ``nlpsol`` statistics,
  with ``record_time``);
* *build* = total - solve: declarations, transcription, the guess, and the construction of
  CasADi's NLP solver (its derivative functions, which Opti and rockit build inside their
  ``solve()``). acausal's own ``res.build_time`` (transcription and ``nlpsol`` construction
  only) is kept in the JSON records as ``reported_build_time``.

acausal's compile of the model (once, shared by the repeats) is reported apart.

Usage::

    python benchmarks/optimal_control.py                      # 40 elements, median of 3
    python benchmarks/optimal_control.py --elements 100 --repeat 5 --json out.json
    python benchmarks/optimal_control.py --scaling 25 100 400  # build time vs mesh (default)
    python benchmarks/optimal_control.py --scaling            # no scaling table
    python benchmarks/optimal_control.py --mpc-t-end 0        # no MPC timing

MPC steps: the segway MPC of ``examples/segway_mpc.py`` (rolling-wheel model, horizon 1.5 s,
30 elements, sample 50 ms) in closed loop with the slipping plant for ``--mpc-t-end`` seconds,
its NLP in machine code (``jit="auto"``: the first run compiles it into acausal's cache,
later runs load it) and in CasADi's virtual machine; each step is timed from the measured
state to the returned torque (the solve, warm-started, and the shift), the median reported.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import casadi as ca
import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _load_example() -> Any:
    """``examples/cartpole_swingup.py`` as a module (the model, the problem's data, the guess)."""
    path = ROOT / "examples" / "cartpole_swingup.py"
    spec = importlib.util.spec_from_file_location("_acausal_example_cartpole_swingup", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


example = _load_example()


@dataclass
class Run:
    """One solve: who solved it, the optimum and IPOPT's report, the times (s), and the
    trajectory on the mesh points (states in the order s, v, phi, w; force per element)."""

    solver: str
    objective: float
    iterations: int
    success: bool
    build_time: float
    solve_time: float
    reported_build_time: float | None = None  # acausal's res.build_time
    t: list[float] = field(default_factory=list, repr=False)
    states: list[list[float]] = field(default_factory=list, repr=False)
    force: list[float] = field(default_factory=list, repr=False)

    @property
    def total_time(self) -> float:
        """Build plus solve [s]."""
        return self.build_time + self.solve_time


def cartpole_ode(x: Any, force: Any, m_cart: float = example.M_CART,
                 m_pole: float = example.M_POLE, length: float = example.LENGTH,
                 g: float = example.G) -> Any:
    """The right-hand side (s', v', phi', w') of the closed-form cart-pole (derivation in the
    module docstring) for the state x = (s, v, phi, w) and the force; CasADi or numpy."""
    _, v, phi, w = (x[i] for i in range(4))
    sin, cos = (ca.sin, ca.cos) if isinstance(x, (ca.MX, ca.SX, ca.DM)) else (np.sin, np.cos)
    accel = ((force + m_pole * length * sin(phi) * w**2 + m_pole * g * sin(phi) * cos(phi))
             / (m_cart + m_pole * sin(phi) ** 2))
    alpha = -(g * sin(phi) + cos(phi) * accel) / length
    return ca.vertcat(v, accel, w, alpha) if isinstance(x, (ca.MX, ca.SX)) else \
        np.array([v, accel, w, alpha])


def radau_coefficients(degree: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Radau IIA collocation on [0, 1]: points tau (with tau_0 = 0 prepended, length d+1),
    derivative matrix C ((d+1) x d, C[r, j] = l_r'(tau_{j+1})), end weights D (d+1,
    D[r] = l_r(1)) and quadrature weights B (d, B[j] = integral_0^1 of the Lagrange basis of
    the d collocation points). Points from ``casadi.collocation_points``, the rest numpy."""
    tau = np.concatenate([[0.0], ca.collocation_points(degree, "radau")])
    C = np.zeros((degree + 1, degree))
    D = np.zeros(degree + 1)
    for r in range(degree + 1):
        basis = np.poly1d([1.0])
        for q in range(degree + 1):
            if q != r:
                basis *= np.poly1d([1.0, -tau[q]]) / (tau[r] - tau[q])
        D[r] = basis(1.0)
        C[r] = np.polyder(basis)(tau[1:])
    B = np.zeros(degree)
    for j in range(degree):
        basis = np.poly1d([1.0])
        for q in range(degree):
            if q != j:
                basis *= np.poly1d([1.0, -tau[q + 1]]) / (tau[j + 1] - tau[q + 1])
        integral = np.polyint(basis)
        B[j] = integral(1.0) - integral(0.0)
    return tau, C, D, B


def _guess_at(times: np.ndarray, t_end: float, distance: float) -> np.ndarray:
    """The shared initial guess (``guess_trajectory`` of the example) at ``times``: 4 x n."""
    guess = example.guess_trajectory(t_end, distance)
    return np.array([np.interp(times, *guess[name]) for name in example.STATES])


def solve_opti(elements: int = 40, degree: int = 3, t_end: float = example.T_END,
               f_max: float = example.F_MAX, distance: float = example.DISTANCE,
               ipopt: dict[str, Any] | None = None) -> Run:
    """The swing-up as a hand-written CasADi ``Opti`` Radau collocation (see the module
    docstring): variables X_k (element starts, k = 0..N), Z_kj (collocation states), F_k;
    constraints sum_r Z_kr C[r, j] = h f(Z_kj, F_k), X_{k+1} = sum_r Z_kr D[r] (Z_k0 = X_k),
    boundary values, -f_max <= F_k <= f_max; objective sum_k h sum_j B_j F_k^2."""
    start = time.perf_counter()
    tau, C, D, B = radau_coefficients(degree)
    h = t_end / elements
    opti = ca.Opti()
    X = [opti.variable(4)]
    Z: list[Any] = []
    F = []
    objective = 0
    for k in range(elements):
        Fk = opti.variable()
        Zk = opti.variable(4, degree)
        points = ca.horzcat(X[k], Zk)
        for j in range(degree):
            slope = ca.mtimes(points, C[:, j])
            opti.subject_to(slope == h * cartpole_ode(Zk[:, j], Fk))
            objective = objective + h * B[j] * Fk**2
        X.append(opti.variable(4))
        opti.subject_to(X[k + 1] == ca.mtimes(points, D))
        opti.subject_to(opti.bounded(-f_max, Fk, f_max))
        F.append(Fk)
        Z.append(Zk)
    opti.subject_to(X[0] == 0)
    opti.subject_to(X[-1] == ca.DM([distance, 0.0, math.pi, 0.0]))
    opti.minimize(objective)
    mesh = np.linspace(0.0, t_end, elements + 1)
    for k in range(elements):
        opti.set_initial(X[k], _guess_at(mesh[k:k + 1], t_end, distance))
        opti.set_initial(Z[k], _guess_at(mesh[k] + h * tau[1:], t_end, distance))
        opti.set_initial(F[k], 0.0)
    opti.set_initial(X[-1], _guess_at(mesh[-1:], t_end, distance))
    # detect_simple_bounds: Opti writes -f_max <= F_k <= f_max as a constraint row; CasADi
    # passes such rows to IPOPT as bounds of the variable when asked, as acausal (and rockit)
    # write them. Same problem, same iterates: with rows IPOPT takes other steps (11
    # iterations here against 13 with bounds, on the same optimum).
    opti.solver("ipopt", {"print_time": False, "record_time": True,
                          "detect_simple_bounds": True},
                {**example.IPOPT_OPTIONS, **(ipopt or {})})
    try:
        sol = opti.solve()
        success = True
    except RuntimeError:  # IPOPT failed: report what it reached
        sol = opti.debug
        success = False
    total = time.perf_counter() - start
    stats = opti.stats()
    solve = float(stats["t_wall_total"])
    states = np.hstack([np.reshape(sol.value(x), (4, 1)) for x in X])
    return Run("opti", float(sol.value(objective)), int(stats["iter_count"]),
               success and bool(stats["success"]), total - solve, solve, None, mesh.tolist(),
               states.tolist(), [float(sol.value(f)) for f in F])


def rockit_available() -> bool:
    """Whether ``rockit`` (PyPI: rockit-meco) can be imported."""
    return importlib.util.find_spec("rockit") is not None


def solve_rockit(elements: int = 40, degree: int = 3, t_end: float = example.T_END,
                 f_max: float = example.F_MAX, distance: float = example.DISTANCE,
                 ipopt: dict[str, Any] | None = None) -> Run:
    """The swing-up in rockit: ``DirectCollocation(N=elements, M=1, degree, scheme="radau")``,
    the same ODE (:func:`cartpole_ode`), piecewise-constant control, ``ocp.integral(F**2)``,
    the same guess and IPOPT options. Raises ``ImportError`` without rockit."""
    import rockit

    start = time.perf_counter()
    ocp = rockit.Ocp(T=t_end)
    x = ocp.state(4)
    force = ocp.control()
    ocp.set_der(x, cartpole_ode(x, force))
    ocp.subject_to(ocp.at_t0(x) == 0)
    ocp.subject_to(ocp.at_tf(x) == ca.DM([distance, 0.0, math.pi, 0.0]))
    # a control has N values: no constraint at t_end (include_last=False), as the twins
    ocp.subject_to(-f_max <= (force <= f_max), include_last=False)
    ocp.add_objective(ocp.integral(force**2))
    ocp.set_initial(x, ca.vertcat(distance * ocp.t / t_end, distance / t_end,
                                  math.pi * ocp.t / t_end, math.pi / t_end))
    ocp.set_initial(force, 0.0)
    options = {f"ipopt.{k}": v for k, v in {**example.IPOPT_OPTIONS, **(ipopt or {})}.items()}
    # bounds of the control as IPOPT bounds, as acausal and the Opti twin pass them (see there)
    ocp.solver("ipopt", {"print_time": False, "record_time": True,
                         "detect_simple_bounds": True, **options})
    ocp.method(rockit.DirectCollocation(N=elements, M=1, degree=degree, scheme="radau"))
    try:
        sol = ocp.solve()
        success = True
    except RuntimeError:
        sol = ocp.non_converged_solution
        success = False
    total = time.perf_counter() - start
    stats = sol.stats
    solve = float(stats["t_wall_total"])
    t, states = sol.sample(x, grid="control")
    _, forces = sol.sample(force, grid="control")
    return Run("rockit", float(sol.value(ocp.objective)), int(stats["iter_count"]),
               success and bool(stats["success"]), total - solve, solve, None,
               np.ravel(t).tolist(),
               np.asarray(states).T.tolist(), np.ravel(forces)[:elements].tolist())


def solve_acausal(elements: int = 40, degree: int = 3, t_end: float = example.T_END,
                  f_max: float = example.F_MAX, distance: float = example.DISTANCE,
                  ipopt: dict[str, Any] | None = None, system: Any = None) -> Run:
    """The swing-up by ``acausal.OptimalControl`` (``swing_up_problem`` of the example) on the
    compiled cart-pole ``system`` (compiled here when None)."""
    system = system if system is not None else example.build_cartpole()
    start = time.perf_counter()
    problem = example.swing_up_problem(system, elements=elements, degree=degree, t_end=t_end,
                                       f_max=f_max, distance=distance, ipopt=ipopt)
    res = problem.solve()
    return run_of_result(res, time.perf_counter() - start)


def run_of_result(res: Any, total: float | None = None) -> Run:
    """A :class:`Run` of an ``OptimalControlResult``: the states at the element boundaries
    (``res.elements``, from the collocation polynomials, which pass through them), the force
    at the elements' midpoints (``res.control_at``: one value per element); build time
    ``total - res.solve_time`` (``total``: the wall time from the compiled model to ``res``;
    None: ``res.build_time``)."""
    bounds = np.asarray(res.elements, dtype=float)
    states = np.array([res.interpolate(name, bounds) for name in example.STATES])
    force = res.control_at(0.5 * (bounds[1:] + bounds[:-1]))[example.CONTROL]
    solve = float(res.solve_time)
    build = float(res.build_time) if total is None else total - solve
    return Run("acausal", float(res.objective), int(res.iterations), bool(res.success),
               build, solve, float(res.build_time), bounds.tolist(),
               states.tolist(), np.asarray(force, dtype=float).tolist())


def acausal_available() -> bool:
    """Whether ``from acausal import OptimalControl`` works."""
    try:
        from acausal import OptimalControl  # noqa: F401
    except ImportError:
        return False
    return True


def median_run(solve: Callable[..., Run], repeat: int, **kwargs: Any) -> Run:
    """``solve(**kwargs)`` ``repeat`` times; the last run with the median times (the optimum
    is the same every time)."""
    runs = [solve(**kwargs) for _ in range(repeat)]
    last = runs[-1]
    last.build_time = statistics.median(r.build_time for r in runs)
    last.solve_time = statistics.median(r.solve_time for r in runs)
    if last.reported_build_time is not None:
        last.reported_build_time = statistics.median(r.reported_build_time for r in runs)
    return last


def compare(elements: int, repeat: int, distance: float = example.DISTANCE) -> dict[str, Any]:
    """The three solvers on one mesh: their runs (median times) and the compile time."""
    runs: dict[str, Run | None] = {}
    compile_time = None
    if acausal_available():
        start = time.perf_counter()
        system = example.build_cartpole()
        compile_time = time.perf_counter() - start
        runs["acausal"] = median_run(solve_acausal, repeat, elements=elements,
                                     distance=distance, system=system)
    else:
        runs["acausal"] = None
    runs["opti"] = median_run(solve_opti, repeat, elements=elements, distance=distance)
    runs["rockit"] = (median_run(solve_rockit, repeat, elements=elements, distance=distance)
                      if rockit_available() else None)
    return {"elements": elements, "repeat": repeat, "compile_time": compile_time, "runs": runs}


def build_scaling(sizes: Sequence[int], repeat: int) -> list[dict[str, float]]:
    """Build and solve times (medians of ``repeat``) of acausal and, for reference, of the
    Opti twin at each mesh size."""
    system = example.build_cartpole()
    rows = []
    for n in sizes:
        run = median_run(solve_acausal, repeat, elements=n, system=system)
        twin = median_run(solve_opti, repeat, elements=n)
        rows.append({"elements": n, "build_time": run.build_time,
                     "reported_build_time": run.reported_build_time,
                     "solve_time": run.solve_time, "iterations": run.iterations,
                     "objective": run.objective, "opti_build_time": twin.build_time})
    return rows


def _ratio(a: Run | None, b: Run | None, key: str) -> str:
    if a is None or b is None:
        return "-"
    return f"{getattr(a, key) / getattr(b, key):.2f}"


def report(result: dict[str, Any], scaling: list[dict[str, float]]) -> str:
    """The markdown tables of :func:`compare` and :func:`build_scaling`."""
    runs = result["runs"]
    lines = [f"cart-pole swing-up, {result['elements']} elements, Radau degree 3, "
             f"median of {result['repeat']}"
             + (f"; acausal compile {result['compile_time']:.3f} s"
                if result["compile_time"] is not None else ""), "",
             "| solver | objective [N^2 s] | rel. diff. to Opti | iterations | build [s] | "
             "solve [s] | total [s] |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    reference = runs["opti"].objective
    for name, run in runs.items():
        if run is None:
            why = ("skipped: rockit-meco not installed (pip install rockit-meco)"
                   if name == "rockit" else "skipped: acausal.OptimalControl not available")
            lines.append(f"| {name} | {why} | | | | | |")
        else:
            lines.append(f"| {name} | {run.objective:.12g} | "
                         f"{(run.objective - reference) / reference:.1e} | {run.iterations} | "
                         f"{run.build_time:.4f} | {run.solve_time:.4f} | "
                         f"{run.build_time + run.solve_time:.4f} |")
    a = runs.get("acausal")
    lines += ["", "| ratio | build | solve | total |", "| --- | ---: | ---: | ---: |"]
    for peer, label in (("opti", "Opti"), ("rockit", "rockit")):
        b = runs.get(peer)
        lines.append(f"| acausal/{label} | {_ratio(a, b, 'build_time')} | "
                     f"{_ratio(a, b, 'solve_time')} | {_ratio(a, b, 'total_time')} |")
    if scaling:
        lines += ["", "| elements | acausal build [s] | per element [ms] | res.build_time [s] | "
                  "per element [ms] | solve [s] | iterations | Opti build [s] | "
                  "per element [ms] |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
                  "---: | ---: |"]
        for row in scaling:
            n = row["elements"]
            lines.append(f"| {n} | {row['build_time']:.4f} | "
                         f"{1e3 * row['build_time'] / n:.2f} | "
                         f"{row['reported_build_time']:.4f} | "
                         f"{1e3 * row['reported_build_time'] / n:.2f} | "
                         f"{row['solve_time']:.4f} | {row['iterations']} | "
                         f"{row['opti_build_time']:.4f} | "
                         f"{1e3 * row['opti_build_time'] / n:.2f} |")
        base, last = scaling[0], scaling[-1]
        size = last["elements"] / base["elements"]
        lines += ["", f"growth {base['elements']} -> {last['elements']} elements relative to "
                  "linear (1 = linear): acausal build "
                  f"{last['build_time'] / base['build_time'] / size:.2f}, res.build_time "
                  f"{last['reported_build_time'] / base['reported_build_time'] / size:.2f}, "
                  f"Opti build {last['opti_build_time'] / base['opti_build_time'] / size:.2f}"]
    return "\n".join(lines)


def mpc_step_times(t_end: float) -> list[dict[str, Any]]:
    """Median and largest MPC step of the segway MPC, compiled and in the virtual machine."""
    folder = str(Path(__file__).resolve().parents[1] / "examples")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import segway_mpc

    out = []
    for jit in ("auto", False):
        tic = time.perf_counter()
        mpc, loop = segway_mpc.run(t_end=t_end, jit=jit)
        out.append({"jit": str(jit), "native": mpc.native, "build_time": mpc.build_time,
                    "steps": int(loop.step_times.size),
                    "median_step": float(np.median(loop.step_times)),
                    "max_step": float(np.max(loop.step_times)),
                    "solved": sum(s == "Solve_Succeeded" for s in loop.statuses),
                    "wall_time": time.perf_counter() - tic})
    return out


def mpc_report(rows: list[dict[str, Any]]) -> str:
    lines = ["", "segway MPC (examples/segway_mpc.py), closed loop with the slipping plant:", "",
             "| NLP functions | build [s] | steps | solved | median step [ms] | "
             "largest step [ms] |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        kind = "machine code" if r["native"] else "virtual machine"
        lines.append(f"| {kind} | {r['build_time']:.2f} | {r['steps']} | {r['solved']} | "
                     f"{1e3 * r['median_step']:.1f} | {1e3 * r['max_step']:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the comparison (and acausal's build-time scaling), print the tables, write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=40, help="mesh elements (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="repeats; medians are reported")
    parser.add_argument("--distance", type=float, default=example.DISTANCE,
                        help="end position of the cart in m (default %(default)s)")
    parser.add_argument("--scaling", type=int, nargs="*", default=[25, 100, 400],
                        help="mesh sizes of acausal's build-time scaling (none: skip)")
    parser.add_argument("--json", type=Path, default=None, help="write the records to FILE")
    parser.add_argument("--mpc-t-end", type=float, default=5.0,
                        help="seconds of the segway MPC's closed loop to time (0: none)")
    args = parser.parse_args(argv)

    result = compare(args.elements, args.repeat, args.distance)
    scaling = build_scaling(args.scaling, args.repeat) if acausal_available() else []
    print(report(result, scaling))
    if result["runs"]["rockit"] is None:
        print("rockit skipped: rockit-meco not installed (pip install rockit-meco)")
    mpc = mpc_step_times(args.mpc_t_end) if args.mpc_t_end > 0 and acausal_available() else []
    if mpc:
        print(mpc_report(mpc))
    if args.json is not None:
        records = {"elements": result["elements"], "repeat": result["repeat"],
                   "compile_time": result["compile_time"],
                   "runs": {k: (asdict(v) if v is not None else None)
                            for k, v in result["runs"].items()},
                   "scaling": scaling, "mpc": mpc}
        args.json.write_text(json.dumps(records, indent=1) + "\n")
    ok = all(run.success for run in result["runs"].values() if run is not None)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
