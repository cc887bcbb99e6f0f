"""The linear model's Jacobians at a point, and the linear model in states the user chooses.

``linear_parts`` evaluates CasADi's exact Jacobians of the compiled system
``der(x) = f(t, x, z, p)``, ``0 = g(t, x, z, p)``, ``v = h(t, x, z, p)`` at a consistent point
and eliminates the algebraic variables (``dz = -g_z^-1 (g_x dx + g_u du)``), which gives A, B and
the linearisation of every variable (``C_all``, ``D_all``) in the compiled states ``x``.

**States the user chooses** (``linearize(states=[...])``). The compiler picks the states by the
dummy-derivative method (a joint's relative angle, say); a control design often wants others
(the body's absolute pitch). Any variables ``y = H(t, x)`` whose linearisations
``T = dH/dx`` form an invertible matrix at the point are a valid set of states there, and the
linear model in them follows from the one in ``x`` exactly, for every model the compiler
accepts (also variables that no realisation could make states, such as a tip position)::

    A_y = (T A + T') T^-1     B_y = T B     C_y = C T^-1     D_y = D

``T'`` is the rate of change of ``T`` along the motion (the directional derivative of
``dH/dx`` along ``(1, der(x), der(z))``, computed by algorithmic differentiation, not by
differences). It vanishes at a steady state (trim); at a point that is not steady it is what
makes ``A_y`` the Jacobian of the model written in ``y`` (as a realisation with those states
would give it) rather than a mere similarity transform of ``A``. A chosen variable must not
depend directly on an input (``D`` row zero): a state changes only by integration.

A shorter list is completed with the compiled states, in their order, that keep the set
independent (``states=["body.phi"]`` replaces the joint angle it depends on and keeps the rest).

**Advice when a state cannot be dropped.** A state ``s`` is a free integrator in some choice of
states when a direction ``v`` of the compiled states exists along which nothing changes
(``A v = 0``, ``C v = 0``) but ``s`` does. ``removal_advice`` finds it, finds named variables
that stay constant along ``v`` to replace the states that move with ``s`` (sparsest linearisation
first, then the shortest name), checks the suggestion by building that linear model, and words
it as ``states=[...]`` and as the ``state_priority`` that makes the compiler choose them.
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from ..base.errors import InputError, SimulationError

#: Rows (normalised to a largest entry of 1) closer than this to the span of others are
#: dependent; a tolerance far above rounding (1e-16) and far below any physical coupling.
_RANK_TOL = 1e-8
#: An entry of A or C below this fraction of its row's largest entry is no dependency (rounding
#: of terms that cancel, or sin(1e-50) at a trimmed zero angle).
NEGLIGIBLE = 1e-12


@dataclass
class LinearParts:
    """Jacobians at a point in the compiled states: ``a``, ``b`` (inputs ``u_idx``), every
    observed variable's rows ``c_all``, ``d_all``, and what the change of states needs."""

    a: np.ndarray
    b: np.ndarray
    c_all: np.ndarray
    d_all: np.ndarray
    dz_dx: np.ndarray | None  # None for an ODE
    gx: np.ndarray
    gz: np.ndarray
    hz: np.ndarray


def _jacobians(cs) -> ca.Function:
    """f, g, h and their exact Jacobians w.r.t. x, z and p (built once per realisation)."""
    def build() -> ca.Function:
        outs = []
        for expr in (cs.ode, cs.alg, cs.observed):
            outs += [ca.jacobian(expr, cs.x), ca.jacobian(expr, cs.z), ca.jacobian(expr, cs.p)]
        return ca.Function("linearization", [cs.t, cs.x, cs.z, cs.p], outs)

    return cs.cached("linearization", build)


def linear_parts(cs, op, u_idx: list[int]) -> LinearParts:
    """The Jacobians of ``cs`` at ``op`` (an OperatingPoint of this realisation) with the
    algebraic variables eliminated. Raises SimulationError if ``g_z`` is singular there."""
    mats = [np.array(m.full()) for m in _jacobians(cs)(op.t, op.x, op.z, op.p)]
    fx, fz, fp, gx, gz, gp, hx, hz, hp = mats
    fu, gu, hu = fp[:, u_idx], gp[:, u_idx], hp[:, u_idx]
    a, b, c_all, d_all, dz_dx = fx, fu, hx, hu, None
    if cs.z.numel():
        try:
            dz_dx = -np.linalg.solve(gz, gx)
            dz_du = -np.linalg.solve(gz, gu)
        except np.linalg.LinAlgError:
            raise SimulationError(
                f"linearize(): the algebraic equations of {cs.model_name} are singular at the "
                f"operating point (d g/d z has rank {np.linalg.matrix_rank(gz)} of {gz.shape[0]}"
                "): it is not a regular point of the DAE (e.g. a mechanism at a dead centre). "
                "Choose another operating point.") from None
        a = a + fz @ dz_dx
        b = b + fz @ dz_du
        c_all = c_all + hz @ dz_dx
        d_all = d_all + hz @ dz_du
    return LinearParts(a, b, c_all, d_all, dz_dx, gx, gz, hz)


# --------------------------------------------------------------------------------------------
# the change of states
# --------------------------------------------------------------------------------------------

@dataclass
class StateChange:
    """New states ``y = T x`` (to first order) with ``T' = dT/dt`` along the motion."""

    names: list[str]
    T: np.ndarray
    dT: np.ndarray

    def apply(self, a: np.ndarray, b: np.ndarray, c: np.ndarray):
        """(A, B, C) in the new states; entries at the level of the products' rounding are set
        to exact zeros, so that a dependency that cancels (a free integrator) reads as none."""
        t_inv = np.linalg.inv(self.T)
        n = self.T.shape[0]
        tiny = 16.0 * (n + 1) * np.finfo(float).eps
        abs_inv = np.abs(t_inv)
        a_new = (self.T @ a + self.dT) @ t_inv
        bound = (np.abs(self.T) @ np.abs(a) + np.abs(self.dT)) @ abs_inv
        a_new[np.abs(a_new) <= tiny * bound] = 0.0
        b_new = self.T @ b
        b_new[np.abs(b_new) <= tiny * (np.abs(self.T) @ np.abs(b))] = 0.0
        c_new = c @ t_inv
        c_new[np.abs(c_new) <= tiny * (np.abs(c) @ abs_inv)] = 0.0
        return a_new, b_new, c_new


def _curvature_functions(cs, rows: tuple[int, ...]) -> tuple[ca.Function, ca.Function]:
    """``g_t`` and, for the observed variables ``rows``, the Jacobians w.r.t. x and z of the
    directional derivatives ``J_w(h) v``, ``J_w(g) v`` with ``w = (t, x, z)``,
    ``v = (1, vx, vz)``: the rates of change of h's and g's Jacobians along v (exact AD)."""
    def build_gt() -> ca.Function:
        return ca.Function("g_t", [cs.t, cs.x, cs.z, cs.p], [ca.jacobian(cs.alg, cs.t)])

    def build() -> ca.Function:
        vx, vz = ca.SX.sym("vx", cs.x.numel()), ca.SX.sym("vz", cs.z.numel())
        w, v = ca.vertcat(cs.t, cs.x, cs.z), ca.vertcat(ca.SX(1.0), vx, vz)
        h = ca.vertcat(*[cs.observed[r] for r in rows])
        dh, dg = ca.jtimes(h, w, v), ca.jtimes(cs.alg, w, v)
        return ca.Function("state_change", [cs.t, cs.x, cs.z, cs.p, vx, vz],
                           [ca.jacobian(dh, cs.x), ca.jacobian(dh, cs.z),
                            ca.jacobian(dg, cs.x), ca.jacobian(dg, cs.z)])

    return cs.cached("g_t", build_gt), cs.cached(("state_change", rows), build)


def _rate_of_t(cs, op, parts: LinearParts, rows: list[int], signs: list[float]) -> np.ndarray:
    """dT/dt along the motion for the chosen observed rows (module docstring)."""
    if not rows:
        return np.zeros((0, cs.n_states))
    f_gt, f_dt = _curvature_functions(cs, tuple(rows))
    xdot = np.array(cs.function("ode")(op.t, op.x, op.z, op.p).full()).ravel()
    zdot = np.zeros(cs.z.numel())
    if cs.z.numel():
        g_t = np.array(f_gt(op.t, op.x, op.z, op.p).full()).ravel()
        zdot = -np.linalg.solve(parts.gz, parts.gx @ xdot + g_t)
    dh_x, dh_z, dg_x, dg_z = [np.array(m.full()) for m in
                              f_dt(op.t, op.x, op.z, op.p, xdot, zdot)]
    rate = dh_x
    if cs.z.numel():
        # z_x = -g_z^-1 g_x, so (z_x)' = -g_z^-1 (g_x' + g_z' z_x)
        dz_x_rate = -np.linalg.solve(parts.gz, dg_x + dg_z @ parts.dz_dx)
        rate = rate + dh_z @ parts.dz_dx + parts.hz[rows] @ dz_x_rate
    return np.asarray(signs)[:, None] * rate


class _Basis:
    """Rows added one by one, each tested for independence of those before (rows normalised to
    a largest entry of 1, so that units do not decide)."""

    def __init__(self, n: int):
        self.rows: list[np.ndarray] = []
        self.q = np.zeros((0, n))

    def residual(self, row: np.ndarray) -> float:
        r = row / np.max(np.abs(row)) if np.any(row) else row
        return float(np.linalg.norm(r - self.q.T @ (self.q @ r))) if self.q.size else \
            float(np.linalg.norm(r))

    def independent(self, row: np.ndarray) -> bool:
        return bool(np.any(row)) and self.residual(row) > _RANK_TOL

    def add(self, row: np.ndarray) -> None:
        r = row / np.max(np.abs(row))
        rest = r - self.q.T @ (self.q @ r)
        rest = rest - self.q.T @ (self.q @ rest)  # twice: Gram-Schmidt keeps q orthonormal
        self.q = np.vstack([self.q, rest / np.linalg.norm(rest)])
        self.rows.append(row)

    def combination(self, row: np.ndarray) -> np.ndarray:
        """Coefficients of ``row`` in the rows added (least squares)."""
        return np.linalg.lstsq(np.array(self.rows).T, row, rcond=None)[0]


def _row(cs, parts: LinearParts, name: str) -> tuple[float, int, np.ndarray, np.ndarray]:
    """(sign, observed index, C row, D row) of a variable by dotted name, checked."""
    if not isinstance(name, str):
        raise InputError(f"states= takes variable names (strings), got {name!r}.")
    if name in cs.parameter_index():
        raise InputError(f"states=: '{name}' is a parameter or input of {cs.model_name}, not a "
                         "variable: a state is a variable that the model integrates.")
    sign, v = cs.locate(name)  # UnknownNameError with a suggestion
    if v < 0:
        raise InputError(f"states=: '{name}' is identically zero in {cs.model_name} and cannot "
                         "be a state.")
    return sign, v, sign * parts.c_all[v], sign * parts.d_all[v]


def _checked_row(cs, parts: LinearParts, name: str,
                 input_names: list[str]) -> tuple[float, int, np.ndarray]:
    """(sign, observed index, C row) of a chosen state, refused if it cannot be one."""
    sign, v, c_row, d_row = _row(cs, parts, name)
    if np.any(d_row) and np.max(np.abs(d_row)) > NEGLIGIBLE * max(np.max(np.abs(c_row)),
                                                                  np.max(np.abs(d_row))):
        moved = [u for u, dv in zip(input_names, d_row) if dv != 0.0]
        raise InputError(f"states=: '{name}' depends directly on the input {', '.join(moved)} "
                         "(no integration in between), so it cannot be a state; choose a "
                         "variable the inputs change only through der() (a position or a "
                         "velocity).")
    if not np.any(c_row):
        raise InputError(f"states=: '{name}' does not change with the states at this operating "
                         "point (its linearisation is zero), so it cannot be a state here. "
                         "Choose another variable or another point.")
    return sign, v, c_row


def state_change(cs, op, names: list[str], parts: LinearParts,
                 input_names: list[str]) -> StateChange:
    """The states ``names`` (completed with compiled states) as a :class:`StateChange` of the
    compiled states of ``cs`` at ``op``; InputError naming the dependent or invalid ones."""
    if isinstance(names, str):
        raise InputError(f"states must be a list of names, got the string {names!r}: write "
                         f"states=[{names!r}].")
    names, n = list(names), cs.n_states
    compiled = cs.state_names
    if len(names) > n:
        raise InputError(f"states= lists {len(names)} variables but {cs.model_name} has {n} "
                         f"states here ({', '.join(compiled) or 'none'}): give at most {n} "
                         "(a shorter list is completed with compiled states).")
    twice = sorted({nm for nm in names if names.count(nm) > 1})
    if twice:
        raise InputError(f"states= lists {', '.join(twice)} more than once.")
    checked = [_checked_row(cs, parts, name, input_names) for name in names]
    basis = _Basis(n)
    for name, (_, _, c_row) in zip(names, checked):
        if not basis.independent(c_row):
            every = np.array([row for _, _, row in checked])
            raise _dependent_error(cs, names, name, c_row, basis,
                                   every if len(names) == n else None)
        basis.add(c_row)
    out_names = list(names)
    for i, state in enumerate(compiled):  # complete the set in the compiled order
        if len(out_names) == n:
            break
        unit = np.eye(n)[i]
        if basis.independent(unit):
            basis.add(unit)
            out_names.append(state)
    t = np.array(basis.rows).reshape(n, n)
    d_t = np.zeros((n, n))
    d_t[:len(names)] = _rate_of_t(cs, op, parts, [v for _, v, _ in checked],
                                  [sign for sign, _, _ in checked])
    return StateChange(out_names, t, d_t)


def _dependent_error(cs, names: list[str], name: str, c_row: np.ndarray, basis: _Basis,
                     every: np.ndarray | None) -> InputError:
    """The error for a chosen state determined by the ones before it; ``every``: the rows of a
    complete list, whose null space names the compiled states it leaves undetermined."""
    earlier = names[:len(basis.rows)]
    coeff = basis.combination(c_row) if basis.rows else np.zeros(0)
    scale = np.max(np.abs(coeff)) if coeff.size else 0.0
    partners = [earlier[k] for k, c in enumerate(coeff) if abs(c) > _RANK_TOL * scale]
    msg = (f"states=: '{name}' is not independent of "
           f"{', '.join(partners) or 'the other chosen states'} at this operating point (its "
           "linearisation is a combination of theirs), so the chosen variables are no set of "
           "states.")
    if every is not None:
        null = _null_space(every)
        weight = np.max(np.abs(null), axis=1) if null.size else np.zeros(cs.n_states)
        loose = [s for s, w in zip(cs.state_names, weight) if w > 1e-6]
        if loose:
            msg += (f" Together they leave {', '.join(loose)} undetermined (a change of "
                    f"{'it' if len(loose) == 1 else 'those'} can move no chosen variable): "
                    f"replace '{name}' by a variable that depends on "
                    f"{loose[0] if len(loose) == 1 else 'one of them'}, or leave it out "
                    "(linearize completes the list with compiled states).")
    else:
        msg += (f" Leave '{name}' out (linearize completes the list with compiled states) or "
                "replace it.")
    return InputError(msg)


def _null_space(m: np.ndarray) -> np.ndarray:
    """Orthonormal basis (columns) of the null space of ``m`` with rows normalised."""
    if m.size == 0:
        return np.eye(m.shape[1]) if m.ndim == 2 else np.zeros((0, 0))
    scale = np.max(np.abs(m), axis=1, keepdims=True)
    scale[scale == 0.0] = 1.0
    _, sv, vt = np.linalg.svd(m / scale)
    rank = int(np.sum(sv > _RANK_TOL * max(sv[0] if sv.size else 0.0, 1e-300)))
    return vt[rank:].T


# --------------------------------------------------------------------------------------------
# advice for a state that cannot be dropped
# --------------------------------------------------------------------------------------------

def users_of(a: np.ndarray, c: np.ndarray, i: int) -> tuple[list[int], list[int]]:
    """Rows of ``a`` and of ``c`` that depend on state ``i`` (entries below NEGLIGIBLE of the
    row's largest one are rounding, not a dependency)."""
    def rows(m: np.ndarray) -> list[int]:
        if not m.size:
            return []
        scale = np.max(np.abs(m), axis=1)
        return [k for k in range(m.shape[0]) if abs(m[k, i]) > NEGLIGIBLE * scale[k]]

    return rows(a), rows(c)


def _candidates(cs, parts: LinearParts, v: np.ndarray,
                skip: set[int]) -> list[tuple[str, np.ndarray]]:
    """Named variables constant along ``v`` that could be states: (name, C row), sparsest row
    first, then the name with the fewest dots and characters (one name per variable)."""
    best: dict[int, tuple[tuple, str, np.ndarray]] = {}
    for name, (sign, idx) in cs.locations().items():
        if idx < 0 or idx in skip or name.startswith("der("):
            continue
        row, d_row = sign * parts.c_all[idx], parts.d_all[idx]
        scale = np.max(np.abs(row)) if row.size else 0.0
        if scale == 0.0 or (d_row.size and np.max(np.abs(d_row)) > NEGLIGIBLE * scale):
            continue
        if abs(row @ v) > _RANK_TOL * scale * np.linalg.norm(v) * np.sqrt(row.size):
            continue
        key = (int(np.sum(np.abs(row) > NEGLIGIBLE * scale)), name.count("."), len(name), name)
        if idx not in best or key < best[idx][0]:
            best[idx] = (key, name, row)
    return [(name, row) for _, name, row in sorted(best.values(), key=lambda e: e[0])]


def removal_advice(cs, op, parts: LinearParts, state_names: list[str], c_out: np.ndarray,
                   input_names: list[str], index: int) -> str:
    """What makes state ``index`` of a linear model in ``state_names`` removable: the
    ``states=`` (checked) and the ``state_priority`` that do it, or why nothing can."""
    n, name = cs.n_states, state_names[index]
    if len(state_names) != n:
        return (" Drop the free integrators first (before other states are removed), in "
                "states where they are free (linearize(states=[...])).")
    rows = np.array([_row(cs, parts, s)[2] for s in state_names])
    null = _null_space(np.vstack([parts.a, c_out]) if c_out.size else parts.a)
    s_row = rows[index]
    weight = null.T @ s_row if null.size else np.zeros(0)
    if not weight.size or weight @ weight <= _RANK_TOL * (s_row @ s_row):
        return (f" No choice of states makes '{name}' free: some state's derivative or an "
                "output changes with it whatever the other states are (it is no free "
                "integrator), so it has to stay in the model.")
    v = null @ weight
    v = v / (s_row @ v)
    moving = [k for k in range(n) if k != index
              and abs(rows[k] @ v) > _RANK_TOL * np.linalg.norm(rows[k]) * np.linalg.norm(v)]
    basis = _Basis(n)
    for k in range(n):
        if k not in moving:
            basis.add(rows[k])
    skip = {_row(cs, parts, s)[1] for s in state_names}
    chosen = []
    for cand, row in _candidates(cs, parts, v, skip):
        if len(basis.rows) == n:
            break
        if basis.independent(row):
            basis.add(row)
            chosen.append(cand)
    if len(basis.rows) < n:
        return ""
    replaced = [state_names[k] for k in moving]
    compiled = state_names == cs.state_names
    kept = [s for k, s in enumerate(state_names) if k not in moving]
    options = ([chosen] if compiled else []) + [chosen + kept]
    for states in options:
        if _removable(cs, op, parts, states, c_out, input_names, name):
            break
    else:
        return ""
    text = (f" It is free in other states: linearize(..., states={states!r}) uses "
            f"{', '.join(chosen)} instead of {', '.join(replaced)}, and then it can be dropped.")
    if compiled:
        info = [cs.system.info[_row(cs, parts, s)[1]] for s in replaced]
        level = max([i.state_priority for i in info if i is not None] + [0.0])
        owner, _, short = chosen[0].rpartition(".")
        text += (f" Or let the compiler choose {'it' if len(chosen) == 1 else 'them'}: give "
                 f"{', '.join(chosen)} a state_priority above {level:g} (that of "
                 f"{', '.join(replaced)}), e.g. {short.split('[')[0]}="
                 f"Variable(state_priority={level + 10:g}) where '{owner or cs.model_name}' is "
                 "created.")
    return text


def _removable(cs, op, parts: LinearParts, states: list[str], c_out: np.ndarray,
               input_names: list[str], name: str) -> bool:
    """Whether state ``name`` is free in the linear model in ``states`` (built and checked)."""
    try:
        change = state_change(cs, op, states, parts, input_names)
    except InputError:
        return False
    if name not in change.names:
        return False
    a, _, c = change.apply(parts.a, parts.b, c_out)
    on_a, on_c = users_of(a, c, change.names.index(name))
    return not on_a and not on_c
