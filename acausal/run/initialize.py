"""Consistent initial values.

Unknowns: the states ``x`` and the algebraic variables ``z`` of the compiled DAE. Equations:

1. the algebraic equations ``g(t0, x, z, p) = 0``;
2. one equation ``v = start`` for every variable declared ``fixed=True`` (any variable: a state,
   an algebraic one, a dummy derivative, an alias; it is expressed through the observed
   function), and the model's ``initial_equations()``;
3. as many *default* equations ``x_i = start_i`` (start 0 when none is given) as are needed to
   make the system square, for the states that (1) and (2) leave structurally free, states with
   a start value first.

:mod:`acausal.run.initial_system` builds this system (the FMU export generates the same one as
C). A start value that is not ``fixed`` is a guess only. Fixed values that cannot all hold are
detected structurally (an unmatched fixed equation), checked numerically after the solve, and
reported by name when they conflict. The square system is solved by a damped Newton method on
CasADi's exact Jacobian, each linear solve equilibrated (columns scaled by the unknowns' sizes,
rows by their largest entry).
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from ..base.errors import AcausalError, InitializationError, SimulationError
from .buffers import Buffered
from .initial_system import build_initial_system
from .solver_functions import algebraic_jacobian

NEWTON_TOL = 1e-10
NEWTON_MAX_ITER = 60
#: Newton's linear solves are dense (equilibrated least squares) up to this many unknowns,
#: sparse above.
DENSE_NEWTON = 1500


@dataclass
class InitialValues:
    x0: np.ndarray
    z0: np.ndarray
    residual_norm: float
    defaulted: list[str]  # states whose start value was used as initial value


def _declared_guess(cs, v: int) -> float | None:
    info = cs.system.info[v]
    if info is None:
        return None
    g = info.guess if info.guess is not None else info.start
    return None if g is None else float(g)


def _guesses(cs, indices, propagated: dict[int, float] | None = None) -> np.ndarray:
    vals = []
    for v in indices:
        g = propagated.get(v) if propagated else None
        if g is None:
            g = _declared_guess(cs, v)
        vals.append(0.0 if g is None else g)
    return np.array(vals, dtype=float)


def propagate_guesses(cs, p: np.ndarray, t0: float, wanted: list[int],
                      evaluated: dict | None = None) -> dict[int, float]:
    """Guesses for iteration variables, carried through the equations.

    A start value given on one variable carries over to others: an equation in which all
    variables but one have a value (a start value, a value from parameters, or one propagated
    before) and which is linear in the remaining one gives that one a value. This is how
    Modelica tools propagate start values through ``phi_b = phi_a + phi`` or ``s_rel = s_b - s_a``.

    Start values are ranked by where they were written (Modelica's priority: higher up in the
    hierarchy first, fixed values first of all): the values propagated from the stronger ones
    replace a library component's own default start (a body's angle 0) on the variables they
    reach, so guesses on a loop's joint angles reach the bodies' angles. Returns the
    propagated value of each ``wanted`` variable that one stronger than its own start reaches.
    ``evaluated``: the values of the equations' solutions computed so far, by the values of
    their symbols (see :func:`_spread`; shared between the rounds of
    :func:`initialize_with_branches`, whose parameters differ in the branches only).
    """
    from ..language.symbolic import time

    system = cs.system
    ranked: dict[int, tuple[int, float]] = {}  # v -> (rank, value); rank -1: fixed
    for v in range(system.n_vars):
        g = _declared_guess(cs, v)
        if g is not None:
            info = system.info[v]
            ranked[v] = (-1 if info.fixed else info.start_depth, g)
    levels = sorted({rank for rank, _ in ranked.values()})
    wanted_set = set(wanted)
    # only algebraic variables without a start, or variables with a start weaker than the
    # strongest, can gain one (a state without any start keeps Modelica's default 0)
    algebraic = set(cs.algebraics)
    if not any((v in algebraic and v not in ranked) or (v in ranked and ranked[v][0] > levels[0])
               for v in wanted_set):
        return {}
    base_values: dict = {prm.symbol: float(p[i]) for i, prm in enumerate(cs.flat.parameters)}
    base_values[time] = t0
    eqs_of: dict[int, list[int]] = {}
    for e in range(system.n_eqs):
        for v in system.incidence[e]:
            eqs_of.setdefault(v, []).append(e)
    settled: dict[int, float] = {}  # values carried from stronger levels
    evaluated = {} if evaluated is None else evaluated
    for level in levels or [0]:
        known = dict(settled)
        for v, (rank, g) in ranked.items():
            if rank <= level and v not in known:
                known[v] = g
        values = dict(base_values)
        values.update({system.symbols[v]: g for v, g in known.items()})
        _spread(system, known, values, eqs_of, cs.cached("guess_solutions", dict), evaluated)
        for v, g in known.items():
            settled.setdefault(v, g)
    return {v: settled[v] for v in wanted_set if v in settled
            and (v not in ranked or settled[v] != ranked[v][1])}


def _spread(system, known: dict[int, float], values: dict, eqs_of: dict,
            solutions: dict, evaluated: dict) -> None:
    """Give values to the variables that equations with one unknown left determine linearly.

    ``solutions`` caches each equation's solution for a variable (sympy, structural) across
    runs, with the symbols it contains; the values are computed by the code generator's
    translator with numbers for symbols (CasADi folds them: microseconds a node, where
    sympy's ``xreplace`` re-evaluated every node it rebuilt). ``evaluated`` keeps each value
    by the exact values of those symbols: every level of the propagation, and each round of
    :func:`initialize_with_branches`, evaluates mostly the same solutions with the same numbers
    again (EngineV6: 878 evaluations instead of 1 726, the larger part of its
    initialisation)."""
    from ..compiler.codegen import Translator
    from ..compiler.structure.blt import linear_solution

    numbers = Translator(values)

    missing = [sum(1 for v in system.incidence[e] if v not in known)
               for e in range(system.n_eqs)]
    queue = [e for e in range(system.n_eqs) if missing[e] == 1]
    while queue:
        e = queue.pop()
        if missing[e] != 1:
            continue
        target = next(v for v in system.incidence[e] if v not in known)
        key = (e, target)
        if key not in solutions:
            found = linear_solution(system.residuals[e], system.symbols[target])
            solutions[key] = None if found is None else (found[0], tuple(found[0].free_symbols))
        if solutions[key] is None:
            continue
        solution, symbols = solutions[key]
        # keyed by the inputs' exact values (float.hex tells -0.0 from 0.0)
        inputs = (key, tuple(None if (v := values.get(x)) is None else float(v).hex()
                             for x in symbols))
        value = evaluated.get(inputs)
        if value is None:
            try:
                value = float(numbers(solution))
            except (AcausalError, RuntimeError, TypeError, ValueError):
                value = np.nan  # a symbol without a value (a discrete variable), not a number
            evaluated[inputs] = value
        if not np.isfinite(value):
            continue
        known[target] = value
        values[system.symbols[target]] = value
        for e2 in eqs_of.get(target, ()):
            missing[e2] -= 1
            if missing[e2] == 1:
                queue.append(e2)


def initialize(cs, p: np.ndarray, t0: float, evaluated: dict | None = None) -> InitialValues:
    """Initial states and algebraic variables of ``cs`` for parameters ``p`` at time ``t0``:
    the system of :func:`acausal.run.initial_system.build_initial_system`, with the states'
    guesses (propagated through the equations) as the start values of the defaulted states.
    The parameters declared ``fixed=False`` are solved too and written into ``p`` (in
    place: ``p`` is the vector the run goes on with). ``evaluated``: see
    :func:`propagate_guesses`."""
    n_x, n_z = cs.x.numel(), cs.z.numel()
    propagated = propagate_guesses(cs, p, t0, list(cs.states) + list(cs.algebraics),
                                   evaluated)
    x_guess = _guesses(cs, cs.states, propagated)
    z_guess = _guesses(cs, cs.algebraics, propagated)
    system = build_initial_system(cs)
    s = system.start_values(x_guess)
    names = cs.state_names
    defaulted = [names[i] for i in system.defaulted]
    if system.only_states_fixed:
        # Common case: no coupled solve needed for x (fixed values and guesses).
        z0 = solve_algebraic(cs, p, t0, s, z_guess) if n_z else np.zeros(0)
        return InitialValues(s, z0, 0.0, defaulted)

    # General case: Newton on the square system, then the over-specified conditions.
    f = ca.Function("init_res", [system.w, cs.t, cs.p, system.s], [system.residual])
    computed = cs.computed_parameters
    w0 = np.concatenate([x_guess, z_guess, p[computed]])  # a computed parameter's guess: p
    sol, norm = newton(f, w0, t0, p, system.labels, extra=(s,))
    # the computed parameters are constants of the run from here on (p is the run's vector)
    p[computed] = sol[n_x + n_z:]
    if system.check_labels:
        check = ca.Function("init_check", [system.w, cs.t, cs.p, system.s], [system.check])
        r = np.array(check(sol, t0, p, s).full()).ravel()
        bad = [j for j in range(len(r)) if abs(r[j]) > 1e-6 * (1 + abs(r[j]))]
        if bad:
            conflicting = {system.check_fixed[j] for j in bad}
            others = [label for k, label in enumerate(system.fixed_labels)
                      if k not in conflicting]
            raise InitializationError(
                "Over-specified initial conditions: these cannot hold together with the rest:\n  "
                + "\n  ".join(f"{system.check_labels[j]} (residual {r[j]:.3g})" for j in bad)
                + ("\nthe other fixed values are:\n  " + "\n  ".join(others) if others else "")
                + "\nRemove fixed=True from one of the conflicting variables.")
    return InitialValues(sol[:n_x], sol[n_x:n_x + n_z], norm, defaulted)


def solve_algebraic(cs, p, t0, x0, z_guess) -> np.ndarray:
    """The algebraic variables z for given states (Newton from ``z_guess``); the CasADi
    functions are built once per compiled system (this runs after every event)."""

    def build():
        res = ca.Function("alg_res", [cs.z, cs.t, cs.p, cs.x], [cs.alg])
        if cs.z.numel() > DENSE_NEWTON:
            return res, ca.Function("alg_jac", [cs.z, cs.t, cs.p, cs.x],
                                    [algebraic_jacobian(cs)])
        # evaluated into buffers: a call with numpy arrays converts through DM, several times
        # the evaluation itself for a dense Jacobian (EngineV6's 48 x 48: 0.2 ms a call,
        # measured during development)
        jac = ca.Function("alg_jac", [cs.z, cs.t, cs.p, cs.x],
                          [ca.densify(algebraic_jacobian(cs))])
        return Buffered(res), Buffered(jac)

    fs = cs.cached("algebraic_newton", build)
    z0, _ = newton(fs[0], z_guess, t0, p, list(cs.algebraic_equations), extra=(x0,),
                    jac=fs[1], regular=True)
    return z0


def newton(f: ca.Function | Buffered, w0: np.ndarray, t0: float, p: np.ndarray,
           labels: list[str], extra: tuple = (), jac: ca.Function | Buffered | None = None,
           regular: bool = False):
    """Damped Newton on f(w, t0, p, *extra) = 0; raises InitializationError naming the worst
    residuals. ``jac`` (same inputs) is built from f when not given. For repeated solves
    ``f`` and ``jac`` may be :class:`~.buffers.Buffered` (``jac``'s output dense, at most
    :data:`DENSE_NEWTON` unknowns): the same numbers without conversions per call.

    A dense step is a least-squares solve (a start system may be redundant or short of
    equations); ``regular``: the Jacobian is square and regular near the solution (an index-1
    system's algebraic part, solved after every event), so an LU takes the step, and the
    least squares only where its pivots say it is numerically singular (EngineV6's 48 x 48
    after each of its 330 events: 0.3 ms a step by least squares, 0.04 ms by LU)."""
    n = w0.size
    if n == 0:
        return w0, 0.0
    if jac is None:
        w_sym = ca.SX.sym("w", n)
        ins = [f.sx_in(i) for i in range(1, f.n_in())]
        jac = ca.Function("newton_jacobian", [w_sym, *ins],
                          [ca.jacobian(f(w_sym, *ins), w_sym)])
    w = w0.astype(float).copy()

    if isinstance(f, Buffered):
        def residual(wv):
            return f.evaluate(wv, t0, p, *extra)[0]
    else:
        def residual(wv):
            return np.array(f(wv, t0, p, *extra).full()).ravel()

    def jacobian(wv):  # dense up to DENSE_NEWTON unknowns, else CasADi's sparse DM
        if isinstance(jac, Buffered):
            return jac.evaluate(wv, t0, p, *extra)[0].reshape(n, n, order="F")
        jm = jac(wv, t0, p, *extra)
        return np.array(jm.full()) if n <= DENSE_NEWTON else jm

    r = residual(w)
    norm = np.linalg.norm(r, np.inf) if r.size else 0.0
    nudges = 0
    for _ in range(NEWTON_MAX_ITER):
        if not np.all(np.isfinite(r)):
            break
        if norm < NEWTON_TOL * (1 + np.linalg.norm(w, np.inf)):
            return w, norm
        jm = jacobian(w)
        try:
            if n <= DENSE_NEWTON:
                # equilibrated: columns by the unknowns' sizes, rows by their largest entry, so
                # that forces of 1e4 N next to angles of 0.06 rad do not ruin the solve
                jd = jm
                cols = np.where(np.abs(w) >= 1e-3, np.abs(w), 1.0)
                rows = np.abs(jd * cols).max(axis=1)
                rows = np.where(np.isfinite(rows) & (rows > 0), rows, 1.0)
                scaled = _dense_step(jd * cols / rows[:, None], -r / rows, regular)
                step = cols * scaled
            else:
                step = np.array(ca.solve(jm, ca.DM(-r), "csparse").full()).ravel()
        except Exception:  # singular Jacobian: report below
            break
        if not np.any(step) and nudges < 3:
            # a zero step with a nonzero residual: the unknowns sit where the residual's
            # gradient vanishes (a squared distance at a guess of 0): move them off that point
            nudges += 1
            w = w + 1e-2 * (1.0 + np.abs(w)) * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
            r = residual(w)
            norm = np.linalg.norm(r, np.inf)
            continue
        lam = 1.0
        while lam > 1e-6:
            w_new = w + lam * step
            r_new = residual(w_new)
            norm_new = np.linalg.norm(r_new, np.inf)
            if np.isfinite(norm_new) and norm_new < (1 - 1e-4 * lam) * norm + 1e-300:
                break
            lam *= 0.5
        else:
            break
        w, r, norm = w_new, r_new, norm_new
    if r.size and np.all(np.isfinite(r)) and norm < 1e-8 * (1 + np.linalg.norm(w, np.inf)):
        return w, norm
    worst = np.argsort(-np.nan_to_num(np.abs(r), nan=np.inf))[:5]
    raise InitializationError(
        "Initialisation did not converge (no consistent initial values found from the start "
        "values). Largest residuals:\n  " + "\n  ".join(f"{labels[k]}: {r[k]:.3g}" for k in worst)
        + "\nGive better start values (guesses) for the variables in these equations, or check "
        "that the fixed start values are physically possible.")


#: An LU pivot below this fraction of the largest (of an equilibrated matrix) counts as
#: numerically singular: the step is then the least-squares one.
SINGULAR_PIVOT = 1e-10


def _dense_step(a: np.ndarray, b: np.ndarray, regular: bool) -> np.ndarray:
    """The solution of ``a x = b``: by LU where ``regular`` (see :func:`newton`) and its
    pivots allow it, else the least-squares (minimum-norm) one."""
    if regular and a.shape[0] == a.shape[1]:
        import warnings

        from scipy.linalg import LinAlgWarning, lu_factor, lu_solve

        with warnings.catch_warnings():  # an exactly singular matrix: least squares below
            warnings.simplefilter("ignore", LinAlgWarning)
            lu, piv = lu_factor(a, check_finite=False)
        pivots = np.abs(np.diag(lu))
        if np.all(np.isfinite(pivots)) and pivots.min() > SINGULAR_PIVOT * pivots.max():
            return lu_solve((lu, piv), b, check_finite=False)
    return np.linalg.lstsq(a, b, rcond=None)[0]


def event_if_branches(cs) -> list[tuple[int, int]]:
    """``(parameter index, event index)`` of each ``event_if`` branch variable: the When clause
    whose action sets it to 1 (flattening lowers ``event_if(c, ...)`` to a branch variable
    switched by ``When(c, assign(d, 1))`` and ``When(Not(c), assign(d, 0))``); at the start
    the variable is 1 where that clause's condition holds. Also what the FMU export tabulates."""
    sets_one = {}
    for e, ev in enumerate(cs.flat.events):
        for action in ev.actions:
            if action.kind == "assign" and action.value == 1:
                sets_one.setdefault(action.target, e)
    return [(i, sets_one[prm.symbol]) for i, prm in enumerate(cs.flat.parameters)
            if prm.follows is not None]


def initialize_with_branches(cs, p: np.ndarray, t0: float) -> InitialValues:
    """Initial values, as :func:`initialize`; besides, the ``event_if`` branches start on the
    side whose condition holds at ``t0``, and the ``When(initial(), assign(...))`` clauses set
    their discrete variables from the initial values (both in ``p``, in place).

    The branch and discrete variables are inputs of the initialisation, and the conditions and
    assigned values depend on the initial values: iterate until they agree with the solution
    (a few rounds at most).
    """
    branches = event_if_branches(cs)
    at_start = [k for k, ev in enumerate(cs.events) if ev.at_start]
    evaluated: dict = {}  # the guesses' propagation, shared by the rounds
    init = initialize(cs, p, t0, evaluated)
    if not branches and not at_start:
        return init
    conditions = cs.function("event_conditions") if branches else None
    for _ in range(5):
        changed: set[int] = set()
        if branches:
            cond = np.array(conditions(t0, init.x0, init.z0, p)).ravel() > 0.5
            for i, event in branches:
                value = 1.0 if cond[event] else 0.0
                if p[i] != value:
                    p[i] = value
                    changed.add(i)
        for k in at_start:
            # in declaration order, each from the initial values and the discrete values the
            # clauses before it set (as the clauses of one event)
            p_new = np.array(cs.function(f"event_update_{k}")(
                t0, init.x0, init.z0, p)[1], float).ravel()
            moved = np.nonzero(p_new != p)[0]
            p[moved] = p_new[moved]
            changed.update(moved.tolist())
        if not changed:
            return init
        init = initialize(cs, p, t0, evaluated)
    names = ", ".join(sorted(cs.flat.parameters[i].name for i in changed))
    raise SimulationError(
        f"The event_if branches and the When(initial(), ...) assignments at the start time do "
        f"not settle: {names} keep changing with the initial values they select. Give start "
        "values that agree with one choice (e.g. a friction element's speed away from zero).")
