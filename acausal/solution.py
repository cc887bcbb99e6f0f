"""Simulation results: every variable of the model by its dotted name."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import UnknownNameError


class Solution:
    """Results on the output grid.

    ``sol["mass.s"]`` is a numpy array over ``sol.t`` for any variable of the model: states,
    algebraic and observed variables, aliases (connector variables), derivatives
    (``"der(mass.v)"``) and parameters (a constant array). A vector variable (``"body.r"``)
    gives a 2-D array, one row per element.
    """

    def __init__(self, compiled, t: np.ndarray, x: np.ndarray, z: np.ndarray, p: np.ndarray,
                 defaulted_states: list[str] | None = None, values: np.ndarray | None = None,
                 state_switches: list | None = None, p_history: np.ndarray | None = None,
                 events: list | None = None) -> None:
        self.compiled = compiled
        self.t = t
        self.x = x  # states, one row per compiled.state_names
        self.z = z  # algebraic variables, one row per compiled.algebraic_names
        self._p = p
        # every variable, evaluated on first need (given when the states changed during the run)
        self._values: np.ndarray | None = values
        #: (time, new state names) for every dynamic re-selection of states during the run
        self.state_switches = list(state_switches or [])
        #: (time, [labels of the When clauses that fired]) for every event, in order
        self.events = list(events or [])
        #: True when the run was stopped early (Ctrl-C): the grid ends where it stopped
        self.interrupted = False
        #: solver statistics of the run: solver, solver_calls, rhs_evaluations (right-hand side
        #: or residual evaluations), events
        self.stats: dict = {}
        # parameters and discrete variables at every output time (they change at events)
        self._p_history = p_history
        self._p_index = {n: i for i, n in enumerate(compiled.parameter_names)}
        discrete = set(compiled.discrete_names)
        self.parameters = {n: v for n, v in zip(compiled.parameter_names, p.tolist())
                           if n not in discrete}
        self.defaulted_states = list(defaulted_states or [])

    def _row(self, index: int) -> np.ndarray:
        if self._values is not None:
            return self._values[index]
        cs = self.compiled
        pos = cs._functions.get("state_position")
        if pos is None:
            pos = {v: i for i, v in enumerate(cs.states)}
            cs._functions["state_position"] = pos
        if index in pos:
            return self.x[pos[index]]
        if self._values is None:
            # Observed variables: one evaluation of the observed function per output time.
            f = cs.function("observed")
            n = self.t.size
            p_cols = self._p_history if self._p_history is not None \
                else np.tile(self._p.reshape(-1, 1), (1, n))
            values = np.array(f.map(n)(self.t.reshape(1, -1), self.x, self.z, p_cols))
            bad = ~np.all(np.isfinite(values), axis=1)
            if bad.any():
                from .errors import SimulationError
                names = [cs.system.name(v) for v in np.nonzero(bad)[0][:8]]
                raise SimulationError(
                    "Non-finite values (NaN or inf) in: " + ", ".join(names) + ". A division "
                    "by zero or a singular configuration is likely in the equations that "
                    "compute them.")
            self._values = values
        return self._values[index]

    def __getitem__(self, name: str) -> np.ndarray:
        if name in ("t", "time"):
            return self.t
        if name in self._p_index:
            if self._p_history is not None:
                return self._p_history[self._p_index[name]].copy()
            return np.full(self.t.shape, self._p[self._p_index[name]])
        try:
            sign, index = self.compiled.locate(name)
        except UnknownNameError:
            rows = self._vector_rows(name)
            if rows is None:
                raise
            return np.vstack([self[r] for r in rows])
        if index == -1:
            return np.zeros_like(self.t)
        return sign * self._row(index)

    def _vector_rows(self, name: str) -> list[str] | None:
        """The element names of a vector variable or parameter (``body.r[0]``, ...)."""
        rows = []
        while True:
            candidate = f"{name}[{len(rows)}]"
            if candidate not in self._p_index:
                try:
                    self.compiled.locate(candidate)
                except UnknownNameError:
                    break
            rows.append(candidate)
        return rows or None

    def to_state(self) -> dict[str, Any]:
        """The results as plain data (numpy arrays and lists), e.g. to send between processes;
        :meth:`from_state` rebuilds the Solution around the same compiled system."""
        return {"t": self.t, "x": self.x, "z": self.z, "p": self._p, "values": self._values,
                "defaulted": self.defaulted_states, "switches": self.state_switches,
                "events": self.events, "p_history": self._p_history,
                "interrupted": self.interrupted}

    @classmethod
    def from_state(cls, compiled, state: dict[str, Any]) -> Solution:
        """The Solution of ``compiled`` whose data :meth:`to_state` returned."""
        sol = cls(compiled, state["t"], state["x"], state["z"], state["p"], state["defaulted"],
                  values=state["values"], state_switches=state["switches"],
                  p_history=state["p_history"], events=state["events"])
        sol.interrupted = state["interrupted"]
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

    def to_pandas(self, names: list[str] | None = None):
        """A pandas DataFrame indexed by time (requires the ``pandas`` extra)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            from .errors import AcausalError
            raise AcausalError("to_pandas() needs pandas: pip install 'acausal[pandas]'.") from exc
        cols = names if names is not None else self.declared_names()
        return pd.DataFrame({n: self[n] for n in cols}, index=pd.Index(self.t, name="time"))

    def to_csv(self, path, names: list[str] | None = None) -> None:
        """Write time and the named variables (default: all declared ones) as CSV."""
        cols = names if names is not None else self.declared_names()
        data = np.column_stack([self.t] + [self[n] for n in cols])
        header = ",".join(["time"] + cols)
        np.savetxt(path, data, delimiter=",", header=header, comments="", fmt="%.12g")

    def unit(self, name: str) -> str | None:
        for v in self.compiled.flat.variables:
            if v.name == name:
                return v.unit
        return None

    def plot(self, *names: str, ax: Any = None, **kwargs: Any):
        """Plot the named variables over time with matplotlib; returns the Axes."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover
            from .errors import AcausalError
            raise AcausalError("plot() needs matplotlib: pip install 'acausal[plot]'.") from exc
        if ax is None:
            _, ax = plt.subplots()
        for n in names:
            unit = self.unit(n)
            ax.plot(self.t, self[n], label=f"{n} [{unit}]" if unit else n, **kwargs)
        ax.set_xlabel("time [s]")
        ax.legend()
        ax.grid(True)
        return ax

    def __repr__(self) -> str:
        return (f"<Solution of {self.compiled.model_name}: {self.t.size} points, "
                f"t = {self.t[0]:g} .. {self.t[-1]:g}>")
