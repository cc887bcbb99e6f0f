"""The evaluation of the NLP: residuals ``r(w)``, continuity gaps ``g(w)`` and their Jacobians.

:class:`Shooting`: multiple (or, with one interval, single) shooting on CasADi's integrators
(CVODES, IDAS) with exact forward sensitivities; :func:`initial_point` starts it from a
simulation at the initial guess and the measured values. :class:`HybridSingleShooting`: single
shooting through acausal's own hybrid simulation (models with events), with finite-difference
sensitivities.
"""

from __future__ import annotations

import re
import warnings

import casadi as ca
import numpy as np

from ...base.capture import captured
from ...base.errors import AcausalError
from ...compiler.compiled_model import CompiledModel
from .experiments import Run
from .parameters import Theta
from .result import IdentificationWarning
from .statistics import Evaluation


def _measurement_function(cs: CompiledModel, signals: list[str]) -> ca.Function:
    """h(t, x, z, p): the measured variables (sign applied; parameters and zeros as values)."""
    rows = []
    for s in signals:
        sign, index = cs.locate(s)
        rows.append(ca.SX(0.0) if index < 0 else sign * cs.observed[index])
    return ca.Function("measured", [cs.t, cs.x, cs.z, cs.p], [ca.vertcat(*rows)])


class Shooting:
    """Multiple (or, with one interval, single) shooting on CasADi integrators.

    Unknowns ``w = [theta / scale, free initial states, states at the cuts]``, the states
    scaled by their nominal values. Each interval is one call of an integrator whose grid is
    the interval's sample times relative to its start; time, the parameters and the nominal
    values are inputs, so intervals with the same relative grid share one integrator, called
    through a threaded ``map``.
    """

    def __init__(self, cs: CompiledModel, runs: list[Run], theta: Theta, intervals: int,
                 free_x0: list[int], rtol: float, atol: float, threads: int) -> None:
        self.cs, self.runs, self.theta = cs, runs, theta
        self.n_x, self.n_z = cs.x.numel(), cs.z.numel()
        self.n_theta = len(theta.names)
        self.free_x0 = list(free_x0)
        self.rtol, self.atol, self.threads = rtol, atol, threads
        self._dae = self._scaled_dae()
        self._integrators: dict = {}
        self._mapped: dict = {}
        self._layout(intervals)

    # -- structure ------------------------------------------------------------------------
    def _scaled_dae(self) -> dict:
        cs = self.cs
        tau = ca.SX.sym("tau")
        shift = ca.SX.sym("t_shift")
        xs, zs = ca.SX.sym("xs", self.n_x), ca.SX.sym("zs", self.n_z)
        dx, dz = ca.SX.sym("x_nominal", self.n_x), ca.SX.sym("z_nominal", self.n_z)
        ode, alg = ca.substitute([cs.ode, cs.alg], [cs.t, cs.x, cs.z],
                                 [tau + shift, dx * xs, dz * zs])
        dae = {"t": tau, "x": xs, "p": ca.vertcat(cs.p, shift, dx, dz), "ode": ode / dx}
        if self.n_z:
            dae.update(z=zs, alg=alg)
        return dae

    def _layout(self, intervals: int) -> None:
        """Cut points, unknowns and residual positions of every interval."""
        nx = self.n_x
        self.n_w = self.n_theta
        self.cuts, self.node_cols, self.r_offset = [], [], []
        self.g_offset, n_r, n_g = [], 0, 0
        self.x0_cols = []
        for run in self.runs:
            n = run.t.size
            k_max = max(1, min(intervals, n - 1)) if n > 1 else 1
            cuts = np.unique(np.round(np.linspace(0, n - 1, k_max + 1)).astype(int))
            if cuts.size == 1:  # one sample: one interval from t0 to it
                cuts = np.array([0, 0])
            self.cuts.append(cuts)
            cols = []
            first = np.full(nx, -1)
            for i in self.free_x0:
                first[i] = self.n_w
                self.n_w += 1
            self.x0_cols.append(first)
            cols.append(first)
            for _ in range(1, cuts.size - 1):
                cols.append(np.arange(self.n_w, self.n_w + nx))
                self.n_w += nx
            self.node_cols.append(cols)
            self.r_offset.append(n_r)
            n_r += run.y.size
            self.g_offset.append(n_g)
            n_g += nx * (cuts.size - 2)
        self.n_r, self.n_g = n_r, n_g
        # intervals grouped by their relative grid and signals: one integrator per group
        self.groups: dict = {}
        for e, run in enumerate(self.runs):
            cuts = self.cuts[e]
            for k in range(cuts.size - 1):
                a, b = cuts[k], cuts[k + 1]
                start = run.t0 if k == 0 else run.t[a]
                grid = run.t[a:b + 1] - start
                if k == 0 and run.t0 < run.t[0]:
                    grid = np.concatenate([[0.0], run.t[: b + 1] - start])
                length = float(f"{grid[-1]:.12g}")
                key = (tuple(np.round(grid / max(grid[-1], 1e-300), 10)) + (length,),
                       tuple(run.signals))
                self.groups.setdefault(key, {"grid": grid, "signals": run.signals,
                                             "members": []})["members"].append((e, k))

    def _functions(self, key) -> tuple[ca.Function, ca.Function]:
        """(values, values and Jacobians) of one interval of a group, as CasADi Functions."""
        if key in self._integrators:
            return self._integrators[key]
        group = self.groups[key]
        cs, th = self.cs, self.theta
        grid = np.asarray(group["grid"], float)
        if grid[-1] <= 0:  # a single sample at t0: a trivially short interval
            grid = np.array([0.0, 1e-12])
        h = _measurement_function(cs, group["signals"])
        plugin = "idas" if self.n_z else "cvodes"
        options = {"reltol": self.rtol, "abstol": self.atol, "max_num_steps": 200_000,
                   "fsens_err_con": True}
        if self.n_z:
            options["calc_ic"] = True
        integrator = ca.integrator(f"interval_{len(self._integrators)}", plugin, self._dae,
                                   0.0, grid, options)
        n_out = grid.size
        s = ca.MX.sym("s", self.n_x)
        theta = ca.MX.sym("theta", self.n_theta)
        p_run = ca.MX.sym("p", cs.p.numel())
        t_k = ca.MX.sym("t_k")
        dx, dz = ca.MX.sym("dx", self.n_x), ca.MX.sym("dz", self.n_z)
        z_guess = ca.MX.sym("z_guess", self.n_z)
        mask = np.ones(cs.p.numel())
        mask[th.index] = 0.0
        select = ca.DM(ca.Sparsity.triplet(cs.p.numel(), self.n_theta, list(th.index),
                                           list(range(self.n_theta))), 1.0)
        p = p_run * mask + ca.mtimes(select, th.scale * theta)
        args = {"x0": s, "p": ca.vertcat(p, t_k, dx, dz)}
        if self.n_z:
            args["z0"] = z_guess
        out = integrator(**args)
        xf = out["xf"] * ca.repmat(dx, 1, n_out)
        zf = out["zf"] * ca.repmat(dz, 1, n_out) if self.n_z else ca.MX(0, n_out)
        times = t_k + ca.DM(grid).T
        y = h.map(n_out)(times, xf, zf, ca.repmat(p, 1, n_out))
        outputs = ca.vertcat(ca.vec(y), out["xf"][:, -1])
        inputs = [s, theta, p_run, t_k, dx, dz, z_guess]
        values = ca.Function("interval", inputs, [outputs])
        jac = ca.Function("interval_jacobian", inputs,
                          [outputs, ca.jacobian(outputs, ca.vertcat(s, theta))])
        self._integrators[key] = (values, jac)
        return values, jac

    # -- evaluation -----------------------------------------------------------------------
    def node(self, w: np.ndarray, e: int, k: int) -> np.ndarray:
        cols = self.node_cols[e][k]
        base = self.x0_scaled[e] if k == 0 else np.zeros(self.n_x)
        return np.where(cols >= 0, w[np.maximum(cols, 0)], base)

    def set_point(self, x0_scaled: list[np.ndarray], nominal: list[np.ndarray],
                  z_nominal: list[np.ndarray], z_guess: list[list[np.ndarray]]) -> None:
        self.x0_scaled, self.nominal = x0_scaled, nominal
        self.z_nominal, self.z_guess = z_nominal, z_guess

    def _inputs(self, w: np.ndarray, e: int, k: int) -> list:
        run = self.runs[e]
        start = run.t0 if k == 0 else run.t[self.cuts[e][k]]
        node = self.node(w, e, k)
        if self.n_z:
            self._consistent_z(w, e, k, node, start)
        return [node, w[: self.n_theta], run.p, [start], self.nominal[e],
                self.z_nominal[e], self.z_guess[e][k]]

    def _consistent_z(self, w: np.ndarray, e: int, k: int, node: np.ndarray,
                      start: float) -> None:
        """Algebraic variables consistent with a node (Newton from the last ones), so that
        IDAS's own consistent-initialisation starts at its solution."""
        from ...run.initialize import solve_algebraic

        p = self.runs[e].p.copy()
        p[self.theta.index] = self.theta.scale * w[: self.n_theta]
        guess = self.z_guess[e][k] * self.z_nominal[e]
        try:
            z = solve_algebraic(self.cs, p, start, node * self.nominal[e], guess)
        except AcausalError:
            return
        if np.all(np.isfinite(z)):
            self.z_guess[e][k] = z / self.z_nominal[e]

    def evaluate(self, w: np.ndarray, jacobian: bool) -> Evaluation:
        r = np.zeros(self.n_r)
        g = np.zeros(self.n_g)
        jr = np.zeros((self.n_r, self.n_w)) if jacobian else None
        jg = np.zeros((self.n_g, self.n_w)) if jacobian else None
        fitted = [np.zeros_like(run.y) for run in self.runs]
        nx = self.n_x
        for key, group in self.groups.items():
            values, jac = self._functions(key)
            members = group["members"]
            columns = [self._inputs(w, e, k) for e, k in members]
            stacked = [np.column_stack([np.asarray(c[i], float).reshape(-1) for c in columns])
                       if columns[0][i] is not None and np.size(columns[0][i]) else
                       np.zeros((0, len(columns))) for i in range(7)]
            function = jac if jacobian else values
            if len(members) > 1:
                mapped_key = (key, jacobian)
                if mapped_key not in self._mapped:
                    self._mapped[mapped_key] = function.map(len(members), "thread",
                                                            self.threads)
                function = self._mapped[mapped_key]
            result = function(*stacked)
            outputs = np.array(result[0] if jacobian else result)
            if jacobian:
                jac_all = np.array(result[1])
            m = len(group["signals"])
            for c, (e, k) in enumerate(members):
                run = self.runs[e]
                cuts = self.cuts[e]
                a, b = cuts[k], cuts[k + 1]
                last = k == cuts.size - 2
                lead = 1 if (k == 0 and run.t0 < run.t[0]) else 0  # output at t0, no sample
                first = a
                n_use = (b - a + 1) if last else (b - a)
                if cuts.size == 2 and cuts[0] == cuts[1]:
                    n_use = 1
                vec = outputs[:, c]
                y_model = vec[lead * m: (lead + n_use) * m].reshape(n_use, m)
                fitted[e][first: first + n_use] = y_model
                rows = slice(self.r_offset[e] + first * m, self.r_offset[e] + (first + n_use) * m)
                weights = run.sqrt_w[first: first + n_use].reshape(-1)
                r[rows] = (y_model.reshape(-1) - run.y[first: first + n_use].reshape(-1)) * weights
                end = vec[-nx:]
                if not last:
                    g_rows = slice(self.g_offset[e] + k * nx, self.g_offset[e] + (k + 1) * nx)
                    g[g_rows] = end - self.node(w, e, k + 1)
                if not jacobian:
                    continue
                block = jac_all[:, c * (nx + self.n_theta): (c + 1) * (nx + self.n_theta)]
                d_y = block[lead * m: (lead + n_use) * m] * weights[:, None]
                d_end = block[-nx:]
                cols = self.node_cols[e][k]
                free = cols >= 0
                jr[rows, : self.n_theta] = d_y[:, nx:]
                jr[rows, cols[free]] = d_y[:, :nx][:, free]
                if not last:
                    jg[g_rows, : self.n_theta] = d_end[:, nx:]
                    jg[g_rows, cols[free]] = d_end[:, :nx][:, free]
                    nxt = self.node_cols[e][k + 1]
                    jg[g_rows, nxt] -= np.eye(nx)
        return Evaluation(r, g, fitted, jr, jg)

    def failures(self, w: np.ndarray) -> list[tuple[str, float, float, str]]:
        """The intervals whose integration with sensitivities fails at ``w``, one by one, in
        time order: ``[(experiment name, start time, end time, the integrator's last message
        with its time made absolute)]`` (for error messages)."""
        found = []
        for key, group in self.groups.items():
            _, jac = self._functions(key)
            for e, k in group["members"]:
                run, cuts = self.runs[e], self.cuts[e]
                start = run.t0 if k == 0 else float(run.t[cuts[k]])
                with captured(2, python=True) as output:
                    try:
                        jac(*self._inputs(w, e, k))
                        failed = False
                    except RuntimeError:
                        failed = True
                if failed:
                    said = [line.strip() for line in output.text.splitlines()
                            if "At t =" in line]
                    text = _absolute_time(said[-1][:200], start) if said else ""
                    found.append((run.name, float(start), float(run.t[cuts[k + 1]]), text))
        return sorted(found, key=lambda item: item[1])


class HybridSingleShooting:
    """Single shooting through acausal's own simulate (events handled), with forward
    finite-difference sensitivities of the residuals with respect to the scaled parameters."""

    def __init__(self, cs: CompiledModel, runs: list[Run], theta: Theta, rtol: float,
                 atol: float, fd_step: float) -> None:
        self.cs, self.runs, self.theta = cs, runs, theta
        self.n_theta = self.n_w = len(theta.names)
        self.n_r = sum(run.y.size for run in runs)
        self.n_g = 0
        self.rtol, self.atol, self.fd_step = rtol, atol, fd_step

    def _residuals(self, w: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        from ...run.simulate import simulate_compiled

        values = self.theta.scale * w[: self.n_theta]
        r, fitted = [], []
        for run in self.runs:
            params = dict(run.params)
            params.update(zip(self.theta.names, values.tolist()))
            grid = run.t if run.t0 == run.t[0] else np.concatenate([[run.t0], run.t])
            take = slice(grid.size - run.t.size, None)
            if grid.size == 1:  # one sample at the start time: simulate a moment past it
                grid, take = np.array([run.t0, run.t0 + 1e-9]), slice(0, 1)
            try:
                sol = simulate_compiled(self.cs, float(grid[-1]), t_start=float(grid[0]),
                                        t_eval=grid, params=params, start=run.start,
                                        rtol=self.rtol, atol=self.atol, progress=False)
                model = np.column_stack([np.asarray(sol[s], float) for s in run.signals])[take]
            except AcausalError:
                model = np.full_like(run.y, np.nan)
            fitted.append(model)
            r.append(((model - run.y) * run.sqrt_w).reshape(-1))
        return np.concatenate(r), fitted

    def evaluate(self, w: np.ndarray, jacobian: bool) -> Evaluation:
        r, fitted = self._residuals(w)
        if not jacobian:
            return Evaluation(r, np.zeros(0), fitted)
        jr = np.zeros((r.size, self.n_w))
        for i in range(self.n_w):
            step = self.fd_step * max(1.0, abs(w[i]))
            shifted = w.copy()
            shifted[i] += step
            jr[:, i] = (self._residuals(shifted)[0] - r) / step
        return Evaluation(r, np.zeros(0), fitted, jr, np.zeros((0, self.n_w)))


def initial_point(cs: CompiledModel, ev: Shooting, runs: list[Run], theta: Theta
                  ) -> np.ndarray:
    """Nominal values, start of the NLP and algebraic guesses from a simulation at the initial
    guess (acausal's simulate); the cuts of measured states start at the measured values."""
    from ...run.simulate import simulate_compiled
    from ...run.sundials import nominal_values

    w0 = np.zeros(ev.n_w)
    w0[: ev.n_theta] = 1.0
    guess = dict(zip(theta.names, theta.guess.tolist()))
    x0_scaled, nominals, z_nominals, z_guesses = [], [], [], []
    for e, run in enumerate(runs):
        grid = run.t if run.t0 == run.t[0] else np.concatenate([[run.t0], run.t])
        offset = grid.size - run.t.size
        xs = zs = None
        if grid.size > 1:
            try:
                sol = simulate_compiled(cs, float(grid[-1]), t_start=float(grid[0]),
                                        t_eval=grid, params={**run.params, **guess},
                                        start=run.start, progress=False)
                xs, zs = np.asarray(sol.x, float), np.asarray(sol.z, float)
                if xs.shape[1] != grid.size or not np.all(np.isfinite(xs)):
                    xs = zs = None
            except AcausalError:
                xs = zs = None
        if xs is None and grid.size > 1:
            warnings.warn(f"Experiment '{run.name}': the model could not be simulated at the "
                          "initial guess; the shooting intervals start from the initial state.",
                          IdentificationWarning, stacklevel=3)
        if xs is None:  # not simulated (it failed, or one sample at the start time)
            xs = np.tile(run.x0.reshape(-1, 1), (1, grid.size))
            zs = np.tile(run.z0.reshape(-1, 1), (1, grid.size))
        xs = xs[:, offset:] if grid.size > run.t.size else xs
        zs = zs[:, offset:] if grid.size > run.t.size else zs
        base, _ = nominal_values(cs, run.x0, run.z0)
        measured_states = _measured_states(cs, run)
        rates = _measured_rates(cs, measured_states)
        x_nominal = base[: ev.n_x].copy()
        for i in range(ev.n_x):
            size = max(np.abs(xs[i]).max(initial=0.0), abs(run.x0[i]))
            if i in measured_states:
                col, sign = measured_states[i]
                size = max(size, np.abs(run.y[:, col]).max())
            if size > 0:
                x_nominal[i] = size
        z_nominal = base[ev.n_x:].copy()
        for i in range(ev.n_z):
            size = np.abs(zs[i]).max(initial=0.0)
            if size > 0:
                z_nominal[i] = size
        nominals.append(x_nominal)
        z_nominals.append(z_nominal)
        x0_scaled.append(run.x0 / x_nominal)
        cuts = ev.cuts[e]
        guesses = []
        for k in range(cuts.size - 1):
            a = cuts[k]
            z_at = run.z0 if k == 0 else zs[:, a]
            guesses.append(z_at / z_nominal if ev.n_z else np.zeros(0))
            if k == 0:
                cols = ev.node_cols[e][0]
                free = cols >= 0
                w0[cols[free]] = run.x0[free] / x_nominal[free]
                continue
            node = xs[:, a].copy()
            for i, (col, sign) in measured_states.items():
                node[i] = sign * run.y[a, col]
            for j, (col, sign) in rates.items():
                node[j] = sign * _smoothed_derivative(run.t, run.y[:, col], a)
            w0[ev.node_cols[e][k]] = node / x_nominal
        z_guesses.append(guesses)
    ev.set_point(x0_scaled, nominals, z_nominals, z_guesses)
    return w0


def _absolute_time(message: str, start: float) -> str:
    """An integrator's ``At t = tau, ...`` with the time counted from the interval's start
    (``start``) written as the experiment's time."""
    return re.sub(r"At t = ([-+0-9.eE]+)",
                  lambda m: f"at t = {start + float(m.group(1)):.6g} s", message)


def _measured_rates(cs: CompiledModel, measured: dict[int, tuple[int, float]]
                    ) -> dict[int, tuple[int, float]]:
    """{state position j: (signal column, sign)} for unmeasured states that are the time
    derivative of a measured state (``der(mass.s) = mass.v``): their shooting nodes start at
    the smoothed derivative of the data."""
    out = {}
    for i, (col, sign) in measured.items():
        for j in range(cs.n_states):
            if j in measured or j in out:
                continue
            if ca.is_equal(cs.ode[i], cs.x[j], 1):
                out[j] = (col, sign)
            elif ca.is_equal(-cs.ode[i], cs.x[j], 2):
                out[j] = (col, -sign)
    return out


def _smoothed_derivative(t: np.ndarray, y: np.ndarray, k: int) -> float:
    """The slope at sample ``k`` of a least-squares quadratic through the samples around it
    (a Savitzky-Golay estimate: 1 % of the samples, at least 3, either side)."""
    half = max(3, t.size // 100)
    lo, hi = max(0, k - half), min(t.size, k + half + 1)
    if hi - lo < 3:
        return 0.0
    tau = t[lo:hi] - t[k]
    coefficients = np.polyfit(tau, y[lo:hi], 2)
    return float(coefficients[1])


def _measured_states(cs: CompiledModel, run: Run) -> dict[int, tuple[int, float]]:
    """{state position: (signal column, sign)} for signals that are (+-) a state."""
    position = {v: i for i, v in enumerate(cs.states)}
    out = {}
    for col, s in enumerate(run.signals):
        sign, index = cs.locate(s)
        if index in position and position[index] not in out:
            out[position[index]] = (col, float(sign))
    return out
