"""Operating points and linearisation: ``trim`` finds a steady state, ``linearize`` gives the
state-space matrices (A, B, C, D) there, for control design.

The compiled system is ``der(x) = f(t, x, z, p)``, ``0 = g(t, x, z, p)`` with every variable an
observed expression ``h(t, x, z, p)``. Inputs ``u`` are entries of ``p`` (variables declared or
marked with :class:`~acausal.Input`, or any numeric parameter). At a consistent point, the
algebraic variables follow the states and inputs through ``g = 0`` (implicit function theorem,
``g_z`` regular for an index-1 DAE)::

    dz = -g_z^-1 (g_x dx + g_u du)
    A = f_x + f_z dz/dx    B = f_u + f_z dz/du
    C = h_x + h_z dz/dx    D = h_u + h_z dz/du

All partial derivatives are CasADi's exact (algorithmic) Jacobians of the generated functions;
nothing is differenced numerically. The states are the ones the compiler selected (the
dummy-derivative method); for a model whose states are re-selected during a run
(``system.dynamic_selection``), the selection a simulation would start with at the operating
point is used (the rule of ``hybrid.choose_states``) and named in ``StateSpace.state_names``.
``linearize(states=[...])`` gives the model in states the user chooses instead (an exact change
of coordinates, :mod:`acausal.analysis.state_choice`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from ..base.errors import (
    InitializationError,
    InputError,
    ParameterError,
    UnknownNameError,
    did_you_mean,
)
from ..run.initialize import initialize, newton, solve_algebraic
from ..run.segments import RunPoint
from ..run.simulate import as_time
from .state_choice import linear_parts, removal_advice, state_change, users_of


@dataclass
class OperatingPoint:
    """A consistent point of a compiled system: time, states, algebraic variables, parameters.

    ``op["body.phi"]`` reads any variable (or parameter) by its dotted name. ``system`` is the
    realisation whose states ``x`` are (see ``state_names``).
    """

    system: Any
    t: float
    x: np.ndarray
    z: np.ndarray
    p: np.ndarray
    residual: float = 0.0  # largest residual of the equations that define the point

    @property
    def state_names(self) -> list[str]:
        return self.system.state_names

    def __getitem__(self, name: str) -> float:
        return RunPoint(self.system, self.t, self.x, self.z, self.p).value(name)

    def derivatives(self) -> np.ndarray:
        """der(x) at this point (zero at a steady state found by :func:`trim`)."""
        return np.array(self.system.function("ode")(self.t, self.x, self.z, self.p).full()).ravel()

    def values(self) -> dict[str, float]:
        """Every state, algebraic variable and input by name."""
        out = dict(zip(self.state_names, self.x.tolist()))
        out.update(zip(self.system.algebraic_names, self.z.tolist()))
        for name in self.system.input_names:
            out[name] = self[name]
        return out

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.6g}" for k, v in list(self.values().items())[:8])
        return f"<OperatingPoint t={self.t:g}: {shown}>"


@dataclass
class StateSpace:
    """Linear model ``dx' = A dx + B du``, ``dy = C dx + D du`` about ``operating_point``
    (deviations from it), with the names of states, inputs and outputs."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    state_names: list[str]
    input_names: list[str]
    output_names: list[str]
    operating_point: OperatingPoint
    units: dict[str, str | None] = field(default_factory=dict)

    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of A (the linearised system's poles) [1/s]."""
        return np.linalg.eigvals(self.A) if self.A.size else np.zeros(0)

    def state_index(self, name: str) -> int:
        """Position of a state in x (the name as in ``state_names``)."""
        return _position(name, self.state_names, "state")

    def without_states(self, names: list[str]) -> StateSpace:
        """The same model without states that no other state's derivative and no output depends
        on (a wheel's roll angle, a position under a purely velocity-dependent law): LQR and
        pole placement need a stabilisable system, which such free integrators are not. An
        output that is a dropped state itself (the default outputs are the states) goes with it.

        A state is free only in some choices of states (a wheel's roll angle is, when the
        body's absolute pitch is a state rather than the joint angle between them): the error
        for one that is not free here names the ``states=`` of :func:`linearize` (and the
        ``state_priority``) in which it is, when there is one."""
        if isinstance(names, str):
            raise InputError(f"without_states takes a list of state names, got the string "
                             f"{names!r}: write without_states([{names!r}]).")
        drop = [self.state_index(n) for n in names]
        keep = [i for i in range(len(self.state_names)) if i not in drop]
        outs = [k for k, name in enumerate(self.output_names) if name not in names]
        for i in drop:
            on_a, on_c = users_of(self.A, self.C[outs], i)
            users = [self.state_names[k] for k in on_a if k in keep]
            users += [self.output_names[outs[k]] for k in on_c]
            if users:
                raise InputError(
                    f"State '{self.state_names[i]}' cannot be removed: the derivative or value "
                    f"of {', '.join(users[:6])} depends on it. Only states nothing depends on "
                    "can be dropped." + self._removal_advice(i, outs))
        return StateSpace(self.A[np.ix_(keep, keep)], self.B[keep], self.C[np.ix_(outs, keep)],
                          self.D[outs], [self.state_names[i] for i in keep],
                          list(self.input_names), [self.output_names[k] for k in outs],
                          self.operating_point, dict(self.units))

    def _removal_advice(self, i: int, outs: list[int]) -> str:
        """The states= / state_priority under which state ``i`` would be free ('' if none),
        with the outputs ``outs`` kept."""
        op = self.operating_point
        cs = op.system
        parts = linear_parts(cs, op, _input_indices(cs, self.input_names))
        if self.output_names == self.state_names:  # the default outputs follow the states
            outs = []
        _, rows = _output_rows(cs, [self.output_names[k] for k in outs])
        c_out = np.array([sign * parts.c_all[v] if kind == "v" and v >= 0
                          else np.zeros(cs.n_states) for kind, sign, v in rows])
        return removal_advice(cs, op, parts, self.state_names,
                              c_out.reshape(len(rows), cs.n_states), self.input_names, i)

    def to_scipy(self):
        """The model as ``scipy.signal.StateSpace`` (for bode, step, lsim)."""
        from scipy import signal

        return signal.StateSpace(self.A, self.B, self.C, self.D)

    def __repr__(self) -> str:
        return (f"<StateSpace {len(self.state_names)} states ({', '.join(self.state_names[:6])}"
                f"{', ...' if len(self.state_names) > 6 else ''}), inputs "
                f"{self.input_names}, {len(self.output_names)} outputs>")

    def __str__(self) -> str:
        def table(m, rows, cols, title):
            if not m.size:
                return f"{title}: (empty)"
            width = max([len(c) for c in cols] + [12])
            head = " " * 24 + "".join(f"{c[-width:]:>{width + 1}}" for c in cols)
            lines = [f"{title}:", head]
            for r, row in zip(rows, m):
                lines.append(f"{r[-24:]:>24}" + "".join(f"{v:>{width + 1}.5g}" for v in row))
            return "\n".join(lines)

        return "\n".join([
            repr(self),
            table(self.A, self.state_names, self.state_names, "A"),
            table(self.B, self.state_names, self.input_names, "B"),
            table(self.C, self.output_names, self.state_names, "C"),
            table(self.D, self.output_names, self.input_names, "D"),
            "eigenvalues of A: " + ", ".join(f"{e:.6g}" for e in self.eigenvalues())])


def _position(name: str, names: list[str], what: str) -> int:
    try:
        return names.index(name)
    except ValueError:
        raise UnknownNameError(f"'{name}' is not a {what} here.{did_you_mean(name, names)} "
                               f"The {what}s are: {', '.join(names)}.") from None


# --------------------------------------------------------------------------------------------
# operating points
# --------------------------------------------------------------------------------------------

def _input_indices(cs, inputs: list[str] | None) -> list[int]:
    """Positions in p of the named inputs (any numeric parameter; default: declared Inputs)."""
    names = cs.input_names if inputs is None else list(inputs)
    if isinstance(inputs, str):
        raise InputError(f"inputs must be a list of names, got the string {inputs!r}: write "
                         f"inputs=[{inputs!r}].")
    index = cs.parameter_index()
    out = []
    for name in names:
        if name in cs.flat.structural:
            raise cs.structural_parameter_error(name)
        if name not in index:
            hint = did_you_mean(name, cs.parameter_names)
            known = ", ".join(cs.input_names) or "none declared"
            raise UnknownNameError(
                f"'{name}' is not an input or parameter of {cs.model_name}.{hint} Inputs are "
                f"variables declared with Input (here: {known}) or any numeric parameter; mark "
                "a source's value as an input when creating it, e.g. Torque(tau=Input()).")
        if cs.flat.parameters[index[name]].discrete:
            raise ParameterError(f"'{name}' is a discrete variable (it changes only at events) "
                                 "and cannot be an input of a linear model.")
        out.append(index[name])
    return out


def _output_rows(cs, outputs: list[str] | None) -> tuple[list[str], list[tuple[str, float, int]]]:
    """Names and ("v", sign, observed index) or ("p", 1, parameter index) of the outputs;
    default: the compiled states."""
    if isinstance(outputs, str):
        raise InputError(f"outputs must be a list of names, got the string {outputs!r}: write "
                         f"outputs=[{outputs!r}].")
    names = cs.state_names if outputs is None else list(outputs)
    params = cs.parameter_index()
    rows = []
    for name in names:
        if name in params:  # an input or parameter as output: a row of D (or zero)
            rows.append(("p", 1.0, params[name]))
        else:
            rows.append(("v", *cs.locate(name)))  # UnknownNameError with a suggestion
    return names, rows


def _named_values(cs, values: dict[str, float] | None, what: str) -> list[tuple[int, float, str]]:
    """(observed index, value / sign, name) for variables held at given values."""
    if values is None:
        return []
    if not isinstance(values, dict):
        raise InputError(f"{what} must be a dict of values by dotted name, got {values!r}.")
    out = []
    for name, value in values.items():
        for element, number in cs.elements(name, value, what):
            sign, v = cs.locate(element)
            if v < 0:
                raise InputError(f"'{element}' in {what} is identically zero in this model and "
                                 "cannot be set.")
            out.append((v, number / sign, element))
    return out


def _realization_at(cs, t: float, x: np.ndarray, z: np.ndarray, p: np.ndarray):
    """The realisation a simulation would start with at this point (dynamic state selection
    only: the same rule as simulate, hybrid.choose_states)."""
    if not (cs.dynamic_selection and cs.selector is not None and cs.selector.max_level > 0):
        return cs, x, z
    from ..run.hybrid import choose_states

    values = np.array(cs.function("observed")(t, x, z, p).full()).ravel()
    best, _ = choose_states(cs.selector, cs.dummies, t, values, 1.0)
    if best is None:
        return cs, x, z
    other = cs.realization(best)
    return other, values[other.states], values[other.algebraics]


def operating_point(system, t: float = 0.0, point: Any = None, *,
                    params: dict[str, float] | None = None,
                    start: dict[str, float] | None = None) -> OperatingPoint:
    """A consistent operating point of ``system`` at time ``t``.

    ``point``: ``None`` (the initial values from the declared start values, as
    ``simulate`` starts), an :class:`OperatingPoint` (used as it is), a dict of values by dotted
    name (those variables take these values; the other states keep their initial values; the
    algebraic variables follow), or an array of the states in ``system.state_names`` order.
    ``params`` and ``start`` as for ``simulate``.
    """
    if isinstance(point, OperatingPoint):
        if params is not None or start is not None:
            raise InputError("An OperatingPoint carries its own parameters and states: give "
                             "params/start to trim() (or to operating_point()) instead.")
        return point
    cs = system
    t = as_time(t, "t")
    p = cs.parameter_vector(params)
    with cs.start_values(start):
        init = initialize(cs, p, t)
    x, z = init.x0, init.z0
    if point is None:
        pass
    elif isinstance(point, dict):
        return _solve_point(cs, t, p, x, z, held=_named_values(cs, point, "the operating point"),
                            steady=[], free_inputs=[], what="operating point")
    else:
        try:
            x = np.asarray(point, dtype=float).ravel()
        except (TypeError, ValueError):
            raise InputError(f"The operating point must be None, a dict of values by name, an "
                             f"OperatingPoint or an array of states, got {point!r}.") from None
        if x.size != cs.n_states:
            raise InputError(f"The operating point has {x.size} values but {cs.model_name} has "
                             f"{cs.n_states} states ({', '.join(cs.state_names)}).")
        if not np.all(np.isfinite(x)):
            raise InputError("The operating point's state values must be finite.")
        if cs.z.numel():
            z = solve_algebraic(cs, p, t, x, z)
    real, x, z = _realization_at(cs, t, x, z, p)
    return OperatingPoint(real, t, x, z, p)


def _solve_point(cs, t, p, x0, z0, held, steady: list[int], free_inputs: list[int],
                 what: str) -> OperatingPoint:
    """Newton (minimum-norm steps, equilibrated) on g = 0, der(x_i) = 0 for i in ``steady``
    and the held values, in the states, the algebraic variables and the free inputs.

    The system may be under-determined (a position that nothing depends on, a family of
    steady states): minimum-norm steps from the initial values pick the solution nearest to
    them, so start values choose among solutions (a pendulum hanging or upright).
    """
    n_x, n_z = cs.x.numel(), cs.z.numel()
    u_sym = ca.SX.sym("u", len(free_inputs))
    p_sym = ca.SX.sym("p", p.size)
    p_used = ca.vertcat(*[u_sym[free_inputs.index(i)] if i in free_inputs else p_sym[i]
                          for i in range(p.size)]) if p.size else ca.SX(0, 1)
    w = ca.vertcat(cs.x, cs.z, u_sym)
    rows, labels = [], []
    if n_z:
        rows.append(cs.alg)
        labels += list(cs.algebraic_equations)
    if steady:
        rows.append(ca.vertcat(*[cs.ode[i] for i in steady]))
        labels += [f"der({cs.state_names[i]}) = 0" for i in steady]
    for v, value, name in held:
        rows.append(cs.observed[v] - value)
        labels.append(f"{name} = {value:g}")
    residual = ca.substitute(ca.vertcat(*rows), cs.p, p_used) if rows else ca.SX(0, 1)
    f = ca.Function("point_residual", [w, cs.t, p_sym], [residual])
    w0 = np.concatenate([x0, z0, p[free_inputs]])
    if residual.numel():
        try:
            sol, norm = newton(f, w0, t, p, labels)
        except InitializationError as err:
            raise InitializationError(
                f"No {what} found: the equations that define it did not converge from the "
                "start values. " + str(err).split("values). ", 1)[-1]) from None
    else:
        sol, norm = w0, 0.0
    p_new = p.copy()
    p_new[free_inputs] = sol[n_x + n_z:]
    real, x, z = _realization_at(cs, t, sol[:n_x], sol[n_x:n_x + n_z], p_new)
    return OperatingPoint(real, t, x, z, p_new, float(norm))


def trim(system, *, t: float = 0.0, fixed: dict[str, float] | None = None,
         steady: list[str] | None = None, inputs: list[str] | None = None,
         params: dict[str, float] | None = None,
         start: dict[str, float] | None = None) -> OperatingPoint:
    """A steady operating point: ``der(x) = 0`` with some variables held at given values.

    * ``fixed``: variables held at values (``{"revolute.phi": pi}``), any variable by name;
    * ``steady``: the states whose derivative must vanish (default: all; give a subset for a
      steady motion, e.g. leave out a position that grows at constant speed);
    * ``inputs``: inputs or parameters that trim may change to reach the steady state (the
      torque that holds a pendulum at an angle); the others keep their values;
    * ``params``, ``start`` as for ``simulate``; start values choose among several steady
      states (the one nearest to them is found).

    Solved by Newton's method with minimum-norm steps on CasADi's exact Jacobian; variables
    that the conditions leave free keep their initial values. Raises InitializationError
    naming the equations that cannot be satisfied.
    """
    cs = system
    t = as_time(t, "t")
    p = cs.parameter_vector(params)
    free_inputs = _input_indices(cs, inputs or [])
    with cs.start_values(start):
        init = initialize(cs, p, t)
    if steady is None:
        steady_idx = list(range(cs.n_states))
    else:
        if isinstance(steady, str):
            raise InputError(f"steady must be a list of state names, got {steady!r}.")
        steady_idx = [_position(n, cs.state_names, "state") for n in steady]
    held = _named_values(cs, fixed, "fixed")
    return _solve_point(cs, t, p, init.x0, init.z0, held, steady_idx, free_inputs, "steady state")


# --------------------------------------------------------------------------------------------
# linearisation
# --------------------------------------------------------------------------------------------

def linearize(system, t: float = 0.0, operating_point_: Any = None, *,
              inputs: list[str] | None = None, outputs: list[str] | None = None,
              states: list[str] | None = None, params: dict[str, float] | None = None,
              start: dict[str, float] | None = None) -> StateSpace:
    """State-space matrices of ``system`` about an operating point, with names.

    ``operating_point_``: as :func:`operating_point` (``None``: the initial values; an
    :class:`OperatingPoint` from :func:`trim`; a dict of values by name; an array of states).
    ``inputs``: names of inputs or parameters, the columns of B and D (default: the variables
    declared with Input). ``outputs``: any variables by dotted name, the rows of C and D
    (default: the states, C = I). ``states``: variables by dotted name to be the states of the
    linear model instead of the compiled ones (e.g. a body's absolute angle instead of a
    joint's relative one); a shorter list is completed with compiled states, in their order,
    that keep the set independent. The change of states is exact (also away from a steady
    state, see :mod:`acausal.analysis.state_choice`); an InputError names chosen variables
    that are no valid set of states (dependent, or moved directly by an input). The algebraic
    variables are eliminated with the exact Jacobians (module docstring). Raises
    SimulationError if ``g_z`` is singular at the point (not an index-1 point of the DAE).
    """
    op = operating_point(system, t, operating_point_, params=params, start=start)
    cs = op.system
    u_idx = _input_indices(cs, inputs)
    in_names = [cs.parameter_names[i] for i in u_idx]
    parts = linear_parts(cs, op, u_idx)
    change = None if states is None else state_change(cs, op, states, parts, in_names)
    state_names = list(cs.state_names) if change is None else change.names
    out_names, out_rows = _output_rows(cs, state_names if outputs is None else outputs)
    n_x, n_u = cs.n_states, len(u_idx)
    c = np.zeros((len(out_rows), n_x))
    d = np.zeros((len(out_rows), n_u))
    for k, (kind, sign, v) in enumerate(out_rows):
        if kind == "p":
            d[k] = [1.0 if i == v else 0.0 for i in u_idx]
        elif v >= 0:
            c[k], d[k] = sign * parts.c_all[v], sign * parts.d_all[v]
    a, b = parts.a, parts.b
    if change is not None:
        a, b, c = change.apply(a, b, c)
    declared = {v.name: v.unit for v in cs.flat.variables}
    units = {name: declared.get(name) for name in state_names + list(out_names)}
    for name, i in zip(in_names, u_idx):
        units[name] = cs.flat.parameters[i].unit
    return StateSpace(a, b, c, d, state_names, in_names, out_names, op, units)


__all__ = ["OperatingPoint", "StateSpace", "linearize", "operating_point", "trim"]
