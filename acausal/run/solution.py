"""Simulation results: every variable of the model by its dotted name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import casadi as ca
import numpy as np

from ..base.errors import SimulationError, UnknownNameError
from .buffers import Columns, columns


def non_finite_message(label: str, times: np.ndarray, values: np.ndarray,
                       names: list[str]) -> str:
    """What to say when some rows of ``values`` (one per name, one column per time) are not
    finite: from which time on, in which variables, and the likely cause."""
    finite = np.isfinite(values)
    rows = np.nonzero(~np.all(finite, axis=1))[0][:8]
    first = int(np.min(np.nonzero(~np.all(finite, axis=0))[0]))
    return (f"Non-finite values (NaN or inf) from t = {times[first]:g} on in {label}: "
            + ", ".join(names[i] for i in rows) + ". A division by zero or a singular "
            "configuration (e.g. a mechanism at a dead centre) is likely; check parameters and "
            "start values.")


#: Variables read one at a time are evaluated alone up to this many (see Solution._row); after
#: that, and for a table of many columns, every variable at once.
ROWS_ONE_BY_ONE = 16


def _rows_function(cs, rows: list[int]):
    """(evaluator over the output times, one parameter vector for all of them; whether it
    needs z) of the observed ``rows``."""
    outputs = cs.observed[rows]
    f = ca.Function("observed_rows", [cs.t, cs.x, cs.z, cs.p], [outputs])
    return Columns(f, (3,)), bool(cs.z.numel()) and ca.depends_on(outputs, cs.z)


class Solution:
    """Results on the output grid.

    ``sol["mass.s"]`` is a numpy array over ``sol.t`` for any variable of the model: states,
    algebraic and observed variables, aliases (connector variables), derivatives
    (``"der(mass.v)"``) and parameters (a constant array). A vector variable (``"body.r"``)
    gives a 2-D array, one row per element.

    ``stats`` says how the run went (empty for a model without states and without events,
    which no integrator runs; the user guide's section 5 has the same as a table):

    * ``solver``: the SUNDIALS integrator, ``"CVODE"`` for an ODE (also when the only
      algebraic variables are those of linear loops, solved inside the right-hand side),
      ``"IDA"`` for a DAE, ``"CVODE/IDA"`` when dynamic state selection switched between
      realisations that need each, ``""`` for a model without states (events on time alone);
    * ``driver``: what called the integrator and took its callbacks: ``"scikit-sundae"`` (the
      scikit-sundae package, a Python call per right-hand side, Jacobian and root function;
      the default) or ``"native"`` (acausal's compiled C driver with the functions in machine
      code, no Python per evaluation: ``simulate(jit=True)`` where it can be built, else a
      warning and ``"scikit-sundae"``, or ``jit="auto"`` with the machine code ready, see
      ``native_code``); ``"native/scikit-sundae"`` if a run used both;
    * ``solver_calls``: calls of the integrator, one per stretch of the run (cut at events,
      time events and switches of states; a long output grid is handed over in windows);
    * ``rhs_evaluations``: right-hand side (CVODE) or residual (IDA) evaluations by the
      integrator, not counting initialisation or the reading of results;
    * ``root_evaluations``: evaluations of the root function (the event indicators the
      integrator watches and the state-selection check);
    * ``events``: event instants (the entries of :attr:`events`);
    * ``state_checks``: checks of the chosen states' quality during the run (dynamic state
      selection; 0 without it);
    * ``method``: CVODE's linear multistep method and why, e.g. ``"Adams (auto: non-stiff,
      ...)"``, ``"Adams, BDF from t = 0.31 (auto: stiff at t = 0.31, ...)"`` (chosen by the
      run, :mod:`acausal.run.integrator_choice`), ``"BDF (integrator_options)"`` (the user's);
      ``"BDF (IDA)"`` for a DAE; ``""`` without states;
    * ``native_code``: machine code in the run: ``"none"`` (CasADi's virtual machine
      throughout), ``"cache"`` (loaded before the first step), ``"compiled"`` (``jit=True``),
      ``"switched"`` (``jit="auto"`` built it during the run and switched), ``"building"`` (not
      ready before the end), ``"no compiler"``, ``"failed"``;
    * ``native_switch``: ``{"t": model time, "wall_s": seconds into the run}`` of that switch,
      else None.

    A solution joined from segments (:func:`acausal.run.segments.join`: sampled controllers,
    the optimal control's ``verify().solution``) has ``solver`` (its first piece's),
    ``rhs_evaluations`` and ``events`` (summed over the pieces) and ``segments``, their number.
    """

    def __init__(self, compiled, t: np.ndarray, x: np.ndarray,
                 z: np.ndarray | Callable[[], np.ndarray], p: np.ndarray,
                 defaulted_states: list[str] | None = None, values: np.ndarray | None = None,
                 state_switches: list | None = None,
                 p_history: tuple[np.ndarray, np.ndarray] | None = None,
                 events: list | None = None, event_points: list | None = None) -> None:
        self.compiled = compiled
        self.t = t
        self.x = x  # states, one row per compiled.state_names
        # algebraic variables, one row per compiled.algebraic_names; a callable: computed on
        # first need (the run loop finishes them only when they are read, see ``z``)
        self._z = None if callable(z) else z
        self._z_source = z if callable(z) else None
        self._p = p
        # every variable, evaluated on first need (given when the states changed during the run)
        self._values: np.ndarray | None = values
        self._rows: dict[int, np.ndarray] = {}  # variables read one at a time (see _row)
        #: (time, new state names) for every dynamic re-selection of states during the run
        self.state_switches = list(state_switches or [])
        #: (time, [labels of the When clauses that fired]) for every event, in order
        self.events = list(events or [])
        # (realisation, t, x, z, p) just after each event; evaluated by event_values on need
        self._event_points = list(event_points or [])
        self._event_table: tuple[np.ndarray, np.ndarray] | None = None
        #: True when the run was stopped early (Ctrl-C): the grid ends where it stopped
        self.interrupted = False
        #: solver statistics of the run: solver, solver_calls, rhs_evaluations (right-hand side
        #: or residual evaluations), root_evaluations (of the event indicators SUNDIALS
        #: watches), events
        self.stats: dict = {}
        # parameters and discrete variables where they changed at events: (values, one column
        # per stretch; the number of output times of each stretch), expanded only where read
        self._p_history = p_history
        self._p_index = {n: i for i, n in enumerate(compiled.parameter_names)}
        discrete = set(compiled.discrete_names)
        self.parameters = {n: v for n, v in zip(compiled.parameter_names, p.tolist())
                           if n not in discrete}
        self.defaulted_states = list(defaulted_states or [])

    @property
    def z(self) -> np.ndarray:
        """The algebraic variables, one row per ``compiled.algebraic_names``, one column per
        output time (computed on first access where the run left them to the end)."""
        if self._z is None:
            z = np.asarray(self._z_source(), float)
            if not np.all(np.isfinite(z)):
                raise SimulationError(non_finite_message(
                    "algebraic variables", self.t, z, self.compiled.algebraic_names))
            self._z, self._z_source = z, None
        return self._z

    @z.setter
    def z(self, value: np.ndarray) -> None:
        self._z, self._z_source = value, None

    def _keep_points(self, index: np.ndarray) -> None:
        """Keep the output points at positions ``index`` of :attr:`t` only (sorted; repeats
        give a point twice). The run goes through times the user did not ask for (its start
        and end around a ``t_eval``, see :func:`acausal.run.simulate.run_grid`); positions past
        the end of an interrupted or failed run are left out."""
        index = np.asarray(index, int)
        index = index[index < self.t.size]
        self.t = self.t[index]
        self.x = self.x[:, index]
        if self._z is not None:
            self._z = self._z[:, index]
        elif self._z_source is not None:  # still finished on first need, then cut
            source = self._z_source
            self._z_source = lambda: np.asarray(source(), float)[:, index]
        if self._values is not None:
            self._values = self._values[:, index]
        self._rows = {k: row[index] for k, row in self._rows.items()}
        if self._p_history is not None:  # the stretches keep their order: recount them
            params, counts = self._p_history
            stretch = np.repeat(np.arange(counts.size), counts)[index]
            counts = np.bincount(stretch, minlength=counts.size)
            kept = counts > 0
            self._p_history = (params[:, kept], counts[kept])

    def _row(self, index: int) -> np.ndarray:
        if self._values is not None:
            return self._values[index]
        cs = self.compiled
        pos = cs.cached("state_position", lambda: {v: i for i, v in enumerate(cs.states)})
        if index in pos:
            return self.x[pos[index]]
        row = self._rows.get(index)
        if row is not None:
            return row
        if len(self._rows) < ROWS_ONE_BY_ONE:
            # a few variables read: each alone (its own expression, no algebraic variables
            # where it does not depend on them: a joint position needs no polishing of the
            # loop's forces), so that reading them costs little however fine the grid
            row = self._rows[index] = self._evaluate([index])[0]
            return row
        self._values = self._evaluate(None)
        return self._values[index]

    def _evaluate(self, rows: list[int] | None) -> np.ndarray:
        """The model's variables ``rows`` (None: all) at every output time, from the observed
        function (one column per time)."""
        cs = self.compiled
        if rows is None:  # one parameter vector for all points (of a stretch)
            f = columns(cs, "observed", lambda: cs.function("observed"), (3,))
            needs_z = cs.z.numel() > 0
        else:
            f, needs_z = cs.cached(("observed_rows", tuple(rows)),
                                   lambda: _rows_function(cs, rows))
        z = self.z if needs_z else np.zeros((cs.z.numel(), self.t.size))
        t_row = self.t.reshape(1, -1)
        if self._p_history is None:
            values = f(t_row, self.x, z, self._p)[0]
        else:  # stretch by stretch, each with its parameters
            params, counts = self._p_history
            ends = np.cumsum(counts)
            values = np.hstack([f(t_row[:, a:b], self.x[:, a:b], z[:, a:b], params[:, k])[0]
                                for k, (a, b) in enumerate(zip(ends - counts, ends))])
        if not np.all(np.isfinite(values)):
            names = [cs.system.name(v) for v in (range(cs.system.n_vars) if rows is None
                                                 else rows)]
            raise SimulationError(non_finite_message("the model's variables", self.t, values,
                                                     names))
        return values

    def _check_name(self, name: Any) -> None:
        """A name must be a string: anything else (a number, None, a list of names) would
        fail deep inside the look-up with a TypeError that does not say what was wrong."""
        if not isinstance(name, str):
            raise UnknownNameError(
                f"A Solution is read by variable name, a string such as sol['mass.s'] (or "
                f"'time'); got {name!r} ({type(name).__name__}). For several variables read "
                "each by its name, or use sol.to_pandas([...]) / sol.to_csv(path, [...]); "
                "sol.names() lists every name.")

    def _lookup(self, name: str) -> tuple:
        """Where ``name`` lives: ("parameter", index) for parameters and discrete variables,
        ("vector", element names), or ("variable", sign, index) (index -1: identically 0)."""
        if name in self._p_index:
            return ("parameter", self._p_index[name])
        if name not in self.compiled.locations():
            # a vector or matrix ("frame_a.T"), else an error with a suggestion (look for one
            # only then: the search compares the name with every variable name)
            rows = self._vector_rows(name)
            if rows is not None:
                return ("vector", rows)
        sign, index = self.compiled.locate(name)
        return ("variable", sign, index)

    def __getitem__(self, name: str) -> np.ndarray:
        self._check_name(name)
        if name in ("t", "time"):
            return self.t
        kind, *where = self._lookup(name)
        if kind == "parameter":
            if self._p_history is not None:
                params, counts = self._p_history
                return np.repeat(params[where[0]], counts)
            return np.full(self.t.shape, self._p[where[0]])
        if kind == "vector":
            return np.vstack([self[r] for r in where[0]])
        sign, index = where
        return np.zeros_like(self.t) if index == -1 else sign * self._row(index)

    def event_values(self, name: str) -> np.ndarray:
        """The value of a variable just after each event, in the order of :attr:`events`.

        Any name that ``sol[name]`` takes: a state, an algebraic or observed variable, a
        discrete variable (its value set by the event, e.g. a friction mode or the last
        sticking position) or a parameter. Output points need not fall on events: these are
        the values the run continued from, as Modelica tools store the right limit at an
        event instant."""
        self._check_name(name)
        if name in ("t", "time"):
            return np.array([e[0] for e in self.events], float)
        kind, *where = self._lookup(name)
        values, params = self._events_evaluated()
        if kind == "parameter":
            return params[where[0]].copy()
        if kind == "vector":
            return np.vstack([self.event_values(r) for r in where[0]])
        sign, index = where
        return np.zeros(values.shape[1]) if index == -1 else sign * values[index]

    def _events_evaluated(self) -> tuple[np.ndarray, np.ndarray]:
        """(every variable, every parameter) after each event: one column per event."""
        if self._event_table is None:
            cs = self.compiled
            n = len(self._event_points)
            values = np.empty((cs.system.n_vars, n))
            params = np.empty((len(cs.parameter_names), n))
            for k, (cur, t, x, z, p) in enumerate(self._event_points):
                values[:, k] = np.array(cur.function("observed")(t, x, z, p)).ravel()
                params[:, k] = p
            self._event_table = (values, params)
        return self._event_table

    def _vector_rows(self, name: str) -> list[str] | None:
        """The element names of a vector variable or parameter (``body.r[0]``, ...)."""
        return self.compiled.vector_elements(name)

    def to_state(self) -> dict[str, Any]:
        """The results as plain data (numpy arrays and lists), e.g. to send between processes;
        :meth:`from_state` rebuilds the Solution around the same compiled system."""
        return {"t": self.t, "x": self.x, "z": self.z, "p": self._p, "values": self._values,
                "defaulted": self.defaulted_states, "switches": self.state_switches,
                "events": self.events, "p_history": self._p_history,
                "interrupted": self.interrupted, "event_table": self._events_evaluated()}

    @classmethod
    def from_state(cls, compiled, state: dict[str, Any]) -> Solution:
        """The Solution of ``compiled`` whose data :meth:`to_state` returned."""
        sol = cls(compiled, state["t"], state["x"], state["z"], state["p"], state["defaulted"],
                  values=state["values"], state_switches=state["switches"],
                  p_history=state["p_history"], events=state["events"])
        sol.interrupted = state["interrupted"]
        sol._event_table = state.get("event_table")
        return sol

    def __contains__(self, name: str) -> bool:
        try:
            self[name]
        except UnknownNameError:
            return False
        return True

    def names(self) -> list[str]:
        """Every variable name available (sorted)."""
        return self.compiled.variable_names()

    def declared_names(self) -> list[str]:
        """Names of the variables declared in the model's components (no derivatives)."""
        return [v.name for v in self.compiled.flat.variables]

    # -- export -------------------------------------------------------------------------------
    def scalar_names(self, names: list[str] | None = None) -> list[str]:
        """The scalar columns for ``names`` (default: every declared variable): a vector
        variable or parameter (``body.r``) becomes its elements (``body.r[0]``, ``body.r[1]``)."""
        if names is None:
            return self.declared_names()
        if isinstance(names, str):
            names = [names]
        out: list[str] = []
        for name in names:
            if name in ("t", "time"):
                continue
            rows = None if name in self._p_index else self._vector_rows(name)
            if rows is None:
                if name not in self._p_index:
                    self.compiled.locate(name)  # a variable, or the error naming it
                rows = [name]
            out.extend(rows)
        return out

    def _columns(self, names) -> list[tuple[str, str, np.ndarray]]:
        """(header, dotted name or '', values) for each column; ``names`` as in to_csv."""
        if isinstance(names, dict):
            cols = []
            for header, source in names.items():
                if source is self.t:
                    source = "time"
                if isinstance(source, str):
                    cols.append((header, source, np.asarray(self[source], dtype=float)))
                else:
                    values = np.asarray(source, dtype=float).ravel()
                    if values.size != self.t.size:
                        from ..base.errors import InputError
                        raise InputError(f"Column '{header}' has {values.size} values; the "
                                         f"solution has {self.t.size} output times.")
                    cols.append((header, "", values))
            return cols
        scalars = self.scalar_names(names)
        if len(scalars) > ROWS_ONE_BY_ONE and self._values is None:
            self._values = self._evaluate(None)  # a table: every variable in one evaluation
        return [(n, n, np.asarray(self[n], dtype=float)) for n in scalars]

    def to_pandas(self, names: list[str] | dict | None = None):
        """A pandas DataFrame indexed by time, one column per scalar (vectors expanded, as in
        :meth:`to_csv`); the units are in ``df.attrs["units"]`` (requires pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            from ..base.errors import AcausalError
            raise AcausalError("to_pandas() needs pandas: pip install 'acausal[pandas]'.") from exc
        cols = self._columns(names)
        df = pd.DataFrame({h: v for h, _, v in cols}, index=pd.Index(self.t, name="time"))
        df.attrs["units"] = {h: self.unit(n) for h, n, _ in cols if n and self.unit(n)}
        return df

    def to_csv(self, path, names: list[str] | dict | None = None, *, units: bool = True,
               fmt: str = "%.12g") -> None:
        """Write time and the named variables as CSV, one column per scalar.

        ``names``: default every declared variable; a list of dotted names (a vector such as
        ``body.r`` gives ``body.r[0]``, ``body.r[1]``); or a dict ``{column: dotted name or
        array}`` for columns of your own naming. ``units=True`` puts each unit into the header
        (``time [s],mass.s [m]``); ``units=False`` writes the bare names.
        """
        cols = self._columns(names)
        # a dict may name the time column itself: {"t": "time", "q": "mass.s"}
        t_header = next((h for h, n, _ in cols if n in ("t", "time")), "time")
        cols = [c for c in cols if c[1] not in ("t", "time")]
        headers = [t_header + (" [s]" if units else "")]
        for header, name, _ in cols:
            unit = self.unit(name) if (units and name) else None
            headers.append(f"{header} [{unit}]" if unit else header)
        data = np.column_stack([self.t] + [v for _, _, v in cols])
        try:
            np.savetxt(path, data, delimiter=",", header=",".join(headers), comments="",
                       fmt=fmt)
        except OSError as exc:
            from ..base.errors import InputError
            raise InputError(f"to_csv: cannot write '{path}' ({exc.strerror or exc}); choose a "
                             "file in an existing folder you can write to.") from None

    def unit(self, name: str) -> str | None:
        """The unit of a variable, vector element, derivative (``der(x)``: unit of x per
        second) or parameter; None when none is declared."""
        if name in ("t", "time"):
            return "s"
        if name.startswith("der(") and name.endswith(")"):
            inner = self.unit(name[4:-1])
            return None if inner is None else per_second(inner)
        flat = self.compiled.flat
        units = self.compiled.cached("units", lambda: {
            **{v.name: v.unit for v in flat.variables},
            **{prm.name: prm.unit for prm in flat.parameters}})
        if name in units:
            return units[name]
        element = f"{name}[0]"  # a vector: the unit of its elements
        if element in units:
            return units[element]
        return None

    def view(self, path: Any = None, **options: Any):
        """Show this solution in the 3-D viewer: write one self-contained HTML page to ``path``
        (``.html``) and return a ``View`` that a notebook displays inline. Options:
        ``trails`` (True, or frame names), ``plots`` (variable names, or lists of names: one
        plot each), ``title``, ``height`` (of the inline view, px). See :func:`acausal.view.view`
        and the user guide's "Viewing results in 3-D"."""
        if _viewer is None:
            raise SimulationError("No viewer is registered: import acausal (its top package "
                                  "registers acausal.view.view) before calling view().")
        return _viewer(self, path, **options)

    def plot(self, *names: str, ax: Any = None, path: Any = None, title: str | None = None,
             **kwargs: Any):
        """Plot variables over time with matplotlib (vectors as one curve per element).

        Without ``ax``: one panel per unit, sharing the time axis ("time [s]" under the last),
        each y-axis labelled with its unit, the model's name as title, legends outside the
        curves. With ``ax``: every curve on that Axes. ``path``: save the figure there (PNG,
        PDF, ...) instead of leaving it to ``plt.show()``. Returns the list of Axes.
        """
        try:
            import matplotlib  # noqa: F401 - only whether it is installed
        except ImportError as exc:  # pragma: no cover
            from ..base.errors import AcausalError
            raise AcausalError("plot() needs matplotlib: pip install 'acausal[plot]'.") from exc
        scalars = self.scalar_names(list(names)) if names else list(
            self.compiled.state_names[:6])
        groups: dict[Any, list[str]] = {}
        for n in scalars:
            groups.setdefault(self.unit(n), []).append(n)
        # each panel tall enough for its legend (one line per curve, beside the axes)
        ratios = [max(2.2, 0.19 * len(g) + 0.6) for g in groups.values()]
        height = sum(ratios) + 1.0
        if ax is not None:
            axes, fig = [ax] * len(groups), ax.figure
        else:
            if path is not None:
                from matplotlib.backends.backend_agg import FigureCanvasAgg
                from matplotlib.figure import Figure

                fig = Figure(figsize=(9, height), layout="constrained")
                FigureCanvasAgg(fig)
                grid = fig.subplots(len(groups), 1, sharex=True, squeeze=False,
                                    height_ratios=ratios)
            else:
                import matplotlib.pyplot as plt

                fig, grid = plt.subplots(len(groups), 1, sharex=True, squeeze=False,
                                         figsize=(9, height), layout="constrained",
                                         height_ratios=ratios)
            axes = list(grid[:, 0])
        for axis, (unit, group) in zip(axes, groups.items()):
            for n in group:
                axis.plot(self.t, self[n], label=n, **kwargs)
            axis.set_ylabel(f"[{unit}]" if unit else "")
            axis.grid(True)
            axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
                        frameon=False)
        distinct = list(dict.fromkeys(axes))
        for axis in distinct[:-1]:
            axis.set_xlabel("")
        distinct[-1].set_xlabel("time [s]")
        distinct[0].set_title(title if title is not None else self.compiled.model_name)
        if path is not None:
            fig.savefig(path, dpi=100)
        return distinct

    def __repr__(self) -> str:
        # no points: a run stopped (Ctrl-C, a failure) before the first time of its t_eval
        span = f"t = {self.t[0]:g} .. {self.t[-1]:g}" if self.t.size else "no output time reached"
        return (f"<Solution of {self.compiled.model_name}: {self.t.size} points, {span}"
                + (f", {len(self.events)} events" if self.events else "")
                + (", interrupted" if self.interrupted else "") + ">")

    def _final_values(self, limit: int = 12) -> list[tuple[str, float, str]]:
        if not self.t.size:
            return []
        names = self.compiled.state_names[:limit]
        return [(n, float(self[n][-1]), self.unit(n) or "") for n in names]

    def _repr_html_(self) -> str:
        import html

        if not self.t.size:
            return f"<b>{html.escape(repr(self))}</b>"
        rows = "".join(f"<tr><td><code>{html.escape(n)}</code></td><td>{v:.6g}</td>"
                       f"<td>{html.escape(u)}</td></tr>" for n, v, u in self._final_values())
        return (f"<b>{html.escape(repr(self))}</b><table><tr><th>state</th>"
                f"<th>value at t = {self.t[-1]:g}</th><th>unit</th></tr>{rows}</table>")

    def _repr_latex_(self) -> str:
        import sympy as sp

        from ..language.symbolic import latex_symbol_names

        rows = []
        for n, v, u in self._final_values():
            symbol = sp.Symbol(n)
            name = latex_symbol_names({symbol}).get(symbol, n)
            rows.append(f"{name} &= {v:.6g}" + (rf"\ \mathrm{{{u}}}" if u else ""))
        return (r"$$\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}$$"
                if rows else "")


# The viewer (acausal.view, layer 4) sits above the run layer, so this module cannot import it:
# the top package registers acausal.view.view here, as it registers the compiler in the language.
_viewer: Callable[..., Any] | None = None


def register_viewer(view_function: Callable[..., Any]) -> None:
    """Make ``Solution.view`` call ``view_function(solution, path, **options)``."""
    global _viewer
    _viewer = view_function


def per_second(unit: str) -> str:
    """The unit of a time derivative: m -> m/s, m/s -> m/s2, rad/s2 -> rad/s3."""
    if unit in ("1", ""):
        return "1/s"
    for power in ("/s2", "/s3", "/s4"):
        if unit.endswith(power):
            return unit[:-1] + str(int(power[-1]) + 1)
    if unit.endswith("/s"):
        return unit + "2"
    return unit + "/s"
