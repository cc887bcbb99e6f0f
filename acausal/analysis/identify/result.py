"""What :func:`~acausal.analysis.identify.identify` returns: :class:`IdentificationResult`
(summary, table, simulate, plot), built from the fit by :func:`build_result` (estimates,
standard deviations, correlation, checks of the fit), and :class:`IdentificationWarning` for
a result that is doubtful."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...base.errors import AcausalError, InputError
from ...compiler.compiled_model import CompiledModel
from .statistics import covariance, lag1_autocorrelation

#: ``status`` of a fit stopped by acausal's own test: the full Gauss-Newton step from the last
#: iterate would move every estimate by less than ``step_tol`` standard deviations.
STEP_CONVERGED = "Converged_Gauss_Newton_Step"
#: Lag-1 autocorrelation of a signal's residuals above which the fit is reported as not
#: following those data (white noise gives ~0 +- 1/sqrt(samples)).
MISFIT_AUTOCORRELATION = 0.8


class IdentificationWarning(UserWarning):
    """The fit did not converge, an estimate lies on a bound, or a parameter is not
    identifiable from the data: the result is returned, with the reason in its ``message``."""


class IdentificationResult:
    """What :func:`identify` found.

    ``estimates``, ``std`` (standard deviations) and ``initial_guess``: dicts by parameter name;
    ``covariance`` and ``correlation``: arrays in the order of ``parameters``; ``residuals``,
    ``fitted`` and ``measured``: ``{experiment name: {signal: array}}`` over ``times[name]``
    (residual = measured - fitted); ``initial_states``: ``{experiment: {state: value}}`` (with
    ``initial_state_std`` when estimated); ``s2``: the weighted residual variance
    ``sum w r^2 / dof`` (``dof`` = measured values - estimated unknowns; with ``dof = 0``
    ``s2`` is NaN, and so are the standard deviations unless every sigma is known);
    ``sigma_known``: whether the covariance used the given sigmas (True)
    or ``s2`` (False); ``converged``, ``status`` (IPOPT's return status), ``message`` (why a
    result is doubtful, or ""), ``iterations``, ``history`` (cost per iteration), ``seconds``.
    """

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        return (f"<IdentificationResult of {self.model_name}: {len(self.parameters)} "
                f"parameters, {state}, cost {self.cost:.4g}>")

    def __str__(self) -> str:
        lines = []
        if self.status == STEP_CONVERGED:
            state = (f"converged (Gauss-Newton step < {self.step_tol:g} standard deviations)")
        elif self.converged:
            state = f"converged (IPOPT: {self.status})"
        else:
            state = f"did NOT converge (IPOPT: {self.status})"
        lines.append(f"Identification of {self.model_name}: {state} after {self.iterations} "
                     f"iterations, {self.seconds:.2f} s")
        shooting = (f"multiple shooting, {self.intervals} intervals per experiment"
                    if self.method == "multiple_shooting" else "single shooting")
        if self.sensitivities == "finite differences":
            shooting += " (hybrid simulation, finite-difference sensitivities)"
        lines.append(f"{shooting}; {len(self.times)} experiment(s), {self.n_residuals} "
                     f"residuals, {self.n_estimated} estimated unknowns")
        if self.message:
            lines.append(f"note: {self.message}")
        width = max(len(n) for n in self.parameters + ["parameter"])
        lines.append("")
        lines.append(f"{'parameter':<{width}}  {'estimate':>12}  {'std. dev.':>10}  "
                     f"{'rel. %':>7}  {'initial':>11}  unit")
        for n in self.parameters:
            est, sd = self.estimates[n], self.std[n]
            rel = abs(sd / est) * 100 if est != 0 and np.isfinite(sd) else float("nan")
            mark = "  (at a bound)" if n in self.at_bounds else ""
            lines.append(f"{n:<{width}}  {est:>12.6g}  {sd:>10.3g}  {rel:>7.3g}  "
                         f"{self.initial_guess[n]:>11.4g}  {self.units.get(n, '')}{mark}")
        for run_name, values in self.initial_states.items():
            sds = self.initial_state_std.get(run_name, {})
            for state, value in values.items():
                if state in sds:
                    lines.append(f"{run_name}: initial {state} = {value:.6g} +- {sds[state]:.3g}")
        basis = ("the given sigmas (s^2 taken as 1)" if self.sigma_known
                 else "s^2 estimated from the residuals")
        s2 = f"s^2 = {self.s2:.4g}" if np.isfinite(self.s2) else "s^2 not available"
        lines.append(f"standard deviations: s^2 (J^T W J)^-1 with {basis}; {s2} "
                     f"(dof {self.dof})")
        if len(self.parameters) > 1:
            lines.append("correlation:")
            short = [f"[{k}]" for k in range(len(self.parameters))]
            lines.append(" " * (width + 6) + "".join(f"{s:>8}" for s in short))
            for k, n in enumerate(self.parameters):
                row = "".join(f"{c:>8.3f}" for c in self.correlation[k])
                lines.append(f"{short[k]:>4}  {n:<{width}}{row}")
        lines.append("fit (RMS of measured - fitted):")
        for run_name, signals in self.residuals.items():
            for s, res in signals.items():
                span = float(np.ptp(self.measured[run_name][s]))
                rms = float(np.sqrt(np.mean(res**2)))
                share = f" ({100 * rms / span:.3g} % of range)" if span > 0 else ""
                unit = self.signal_units.get(s, "")
                rho = self.residual_autocorrelation[run_name][s]
                lines.append(f"  {run_name}: {s}  {rms:.4g} {unit}{share}, residual "
                             f"autocorrelation {rho:.2f}")
        return "\n".join(lines)

    def table(self):
        """The estimates as a pandas DataFrame (estimate, std, relative std, initial guess,
        lower and upper bound, unit) indexed by parameter name."""
        import pandas as pd

        return pd.DataFrame(
            {"estimate": [self.estimates[n] for n in self.parameters],
             "std": [self.std[n] for n in self.parameters],
             "rel_std": [abs(self.std[n] / self.estimates[n]) if self.estimates[n] else np.nan
                         for n in self.parameters],
             "initial": [self.initial_guess[n] for n in self.parameters],
             "lower": [self.bounds[n][0] for n in self.parameters],
             "upper": [self.bounds[n][1] for n in self.parameters],
             "unit": [self.units.get(n, "") for n in self.parameters]},
            index=pd.Index(self.parameters, name="parameter"))

    def simulate(self, experiment: int | str = 0, **options: Any):
        """Simulate one experiment (by index or name) with the estimated parameters (and
        initial states, where estimated) and its own known parameters and start values, from
        its start time over its sample times (when that starts before the first sample, the
        Solution starts there too); options as for :func:`acausal.run.simulate`."""
        from ...run.simulate import simulate_compiled

        names = list(self.times)
        if isinstance(experiment, int) and not isinstance(experiment, bool):
            if not -len(names) <= experiment < len(names):
                raise InputError(f"No experiment {experiment}: there are {len(names)}.")
            key = names[experiment]
        else:
            key = experiment
        if key not in self.times:
            raise InputError(f"No experiment '{key}'; the experiments are "
                             f"{', '.join(names)}.")
        params = dict(self._run_params[key])
        params.update(self.estimates)
        start = dict(self._run_start[key])
        start.update(self.initial_states_estimated.get(key, {}))
        t, t0 = self.times[key], self._run_t0[key]
        options.setdefault("t_eval", t if t0 == t[0] else np.concatenate([[t0], t]))
        options.setdefault("t_start", t0)
        return simulate_compiled(self.compiled, float(t[-1]), params=params, start=start,
                                 **options)

    def plot(self, path: Any = None, *, residuals: bool = True, experiments: Any = None):
        """Measured (dots) and fitted (line) values of every signal of every experiment, one
        panel each, with the residuals beside them (``residuals=False``: without). ``path``:
        save the figure there (PNG, PDF, ...; no window) and return it; otherwise a pyplot
        figure. ``experiments``: names or indices to show (default all). Returns the Figure.

        A fit that did not converge is plotted too, at its last estimates (the title says so);
        where the model could not be evaluated there, the panels show the data alone and say
        why. Selecting no experiment raises an InputError."""
        try:
            import matplotlib  # noqa: F401 - only whether it is installed
        except ImportError as exc:  # pragma: no cover
            raise AcausalError("plot() needs matplotlib: pip install 'acausal[plot]'.") from exc
        names = list(self.times)
        if experiments is not None:
            if isinstance(experiments, (str, int)):
                experiments = [experiments]
            chosen = []
            for e in experiments:
                if isinstance(e, int) and not isinstance(e, bool):
                    if not -len(names) <= e < len(names):
                        raise InputError(f"plot(): no experiment {e}: there are {len(names)} "
                                         f"({', '.join(names)}).")
                    e = names[e]
                if e not in self.times:
                    raise InputError(f"plot(): no experiment '{e}'; the experiments are "
                                     f"{', '.join(names)}.")
                chosen.append(e)
            names = chosen
        panels = [(e, s) for e in names for s in self.measured[e]]
        if not panels:
            raise InputError("plot(): nothing to plot: experiments= selects no experiment "
                             f"(the experiments are {', '.join(self.times) or 'none'}).")
        n_cols = 2 if residuals else 1
        size = (11 if residuals else 8, 2.3 * len(panels) + 0.8)
        if path is not None:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure

            fig = Figure(figsize=size, layout="constrained")
            FigureCanvasAgg(fig)
        else:
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=size, layout="constrained")
        widths = [3, 1.3] if residuals else [1]
        axes = fig.subplots(len(panels), n_cols, squeeze=False, width_ratios=widths)
        for row, (e, s) in enumerate(panels):
            t = self.times[e]
            unit = self.signal_units.get(s, "")
            ax = axes[row, 0]
            ax.plot(t, self.measured[e][s], ".", ms=2.5, color="0.55", label="measured")
            model = self.fitted[e][s]
            ax.plot(t, model, "-", lw=1.3, color="C0", label="fitted")
            ax.set_ylabel(f"{s}\n[{unit}]" if unit else s, fontsize="small")
            missing = "" if np.any(np.isfinite(model)) else (
                " (no fitted values: the model could not be evaluated at the estimates)")
            ax.set_title(e + missing, fontsize="small", loc="left")
            ax.grid(True, alpha=0.3)
            if row == 0:
                ax.legend(fontsize="small", loc="best")
            if residuals:
                rax = axes[row, 1]
                rax.plot(t, self.residuals[e][s], ".", ms=2, color="C3")
                rax.axhline(0.0, color="k", lw=0.6)
                rax.set_title("measured - fitted", fontsize="small", loc="left")
                rax.grid(True, alpha=0.3)
        for ax in axes[-1]:
            ax.set_xlabel("time [s]")
        fig.suptitle(f"identification of {self.model_name}"
                     + ("" if self.converged else f" (NOT converged: {self.status})"))
        if path is not None:
            fig.savefig(path, dpi=100)
        return fig


def build_result(cs, runs, theta, evaluator, w, final, info, method, intervals, free_x0,
                 events, rounds, seconds, step_tol) -> IdentificationResult:
    """The :class:`IdentificationResult` of a fit: estimates and standard deviations (the
    covariance at the last iterate, scaled by ``s^2`` unless every sigma is known), the checks
    that make a result doubtful (no convergence, an estimate on a bound, a parameter the data do
    not determine, residuals correlated in time: an :class:`IdentificationWarning`), and the
    measured and fitted signals."""
    n = len(theta.names)
    n_r = final.r.size
    n_estimated = evaluator.n_w - evaluator.n_g
    dof = n_r - n_estimated  # >= 0: identify() refuses fewer values than unknowns
    ssr = float(final.r @ final.r)
    s2 = ssr / dof if dof > 0 else float("nan")
    sigma_known = all(run.known_sigma for run in runs)
    messages = []
    jacobian = final.jr is not None and bool(np.all(np.isfinite(final.jr)))
    if jacobian:
        cov_w, _ = covariance(final.jr, final.jg)
    else:
        cov_w = np.full((evaluator.n_w, evaluator.n_w), np.nan)
        why = info.get("final_failure")
        messages.append("the sensitivities cannot be computed at the estimates"
                        + (f" ({why})" if why else "") + ", so there are no standard "
                        "deviations: the model is not differentiable along the trajectory "
                        "there (a kink or a square root at zero, often in an algebraic loop; "
                        "see docs/identification.md)")
    if dof == 0 and not sigma_known:
        messages.append(
            f"no standard deviations: the experiments give as many measured values ({n_r}) as "
            f"there are estimated unknowns ({n_estimated}), so the residuals cannot estimate the "
            "noise level (0 degrees of freedom); give sigma= for every signal, or measure more "
            "samples")
    factor = 1.0 if sigma_known else s2
    cov_w = cov_w * factor
    scale = theta.scale
    cov = cov_w[:n, :n] * np.outer(scale, scale)
    std = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    std = np.where(np.isnan(np.diag(cov)), np.nan, std)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(std, std)
    estimates = scale * w[:n]
    unidentified = [theta.names[k] for k in range(n) if not np.isfinite(std[k])]
    if unidentified and jacobian and np.isfinite(factor):
        messages.append("the data do not determine " + ", ".join(unidentified)
                        + " (singular Gauss-Newton Hessian): measure signals that depend on "
                        "them, fix them, or add an experiment that excites them")
    span = theta.upper - theta.lower
    at_bounds = [theta.names[k] for k in range(n)
                 if (np.isfinite(theta.lower[k]) and estimates[k] - theta.lower[k]
                     <= 1e-6 * max(abs(estimates[k]), np.nan_to_num(span[k], posinf=1.0)))
                 or (np.isfinite(theta.upper[k]) and theta.upper[k] - estimates[k]
                     <= 1e-6 * max(abs(estimates[k]), np.nan_to_num(span[k], posinf=1.0)))]
    if at_bounds:
        messages.append(", ".join(at_bounds) + " ended on a bound: the standard deviation "
                        "there is not meaningful; widen the bound or check the model")
    models = (final.fitted if len(final.fitted) == len(runs)  # (none: the evaluation failed)
              else [np.full_like(run.y, np.nan) for run in runs])
    autocorrelation = {}
    misfits = []
    for run, model in zip(runs, models):
        autocorrelation[run.name] = {}
        for i, sig in enumerate(run.signals):
            residual = run.y[:, i] - model[:, i]
            rho = (lag1_autocorrelation(residual) if np.all(np.isfinite(residual))
                   else float("nan"))
            autocorrelation[run.name][sig] = rho
            if rho > MISFIT_AUTOCORRELATION:
                misfits.append(f"{run.name}: {sig} ({rho:.2f})")
    if misfits:
        messages.append(
            "the residuals of " + ", ".join(misfits) + " are strongly correlated in time "
            "(lag-1 autocorrelation): the model does not follow these data (a local minimum, "
            "a wrong model or input, or correlated noise); the standard deviations assume "
            "independent noise. Look at result.plot(); try another initial guess")
    converged = bool(info["success"]) and not info["interrupted"]
    if info["interrupted"]:
        messages.insert(0, "stopped by the user (Ctrl-C): the estimates are those of the last "
                        "iteration")
    elif not converged:
        messages.insert(0, f"IPOPT did not converge ({info['status']}): the estimates are those "
                        "of its last iterate; try a better initial guess, more intervals, "
                        "bounds, or max_iter")
    message = "; ".join(messages)
    if message:
        warnings.warn(f"identify({cs.model_name}): {message}.", IdentificationWarning,
                      stacklevel=3)
    times, measured, fitted, residuals = {}, {}, {}, {}
    for run, model in zip(runs, models):
        times[run.name] = run.t
        measured[run.name] = {s: run.y[:, i] for i, s in enumerate(run.signals)}
        fitted[run.name] = {s: model[:, i] for i, s in enumerate(run.signals)}
        residuals[run.name] = {s: run.y[:, i] - model[:, i] for i, s in enumerate(run.signals)}
    initial_states, initial_std, estimated_x0 = {}, {}, {}
    names = cs.state_names
    for e, run in enumerate(runs):
        if events:
            break
        x0 = evaluator.node(w, e, 0) * evaluator.nominal[e]
        initial_states[run.name] = dict(zip(names, x0.tolist()))
        cols = evaluator.x0_cols[e]
        if free_x0:
            sd = {names[i]: float(np.sqrt(max(cov_w[cols[i], cols[i]], 0.0))
                                  * evaluator.nominal[e][i]) for i in free_x0}
            initial_std[run.name] = sd
            estimated_x0[run.name] = {names[i]: float(x0[i]) for i in free_x0}
    units = {}
    declared = {prm.name: prm.unit for prm in cs.flat.parameters}
    units = {nm: declared.get(nm) or "" for nm in theta.names}
    signal_units = {}
    variable_units = {v.name: v.unit for v in cs.flat.variables}
    for run in runs:
        for s in run.signals:
            signal_units[s] = variable_units.get(s) or _alias_unit(cs, s, variable_units)
    return IdentificationResult(
        model_name=cs.model_name, compiled=cs, parameters=list(theta.names),
        estimates=dict(zip(theta.names, estimates.tolist())),
        std=dict(zip(theta.names, std.tolist())), covariance=cov, correlation=corr,
        initial_guess=dict(zip(theta.names, theta.guess.tolist())),
        bounds={nm: (float(lo), float(hi)) for nm, lo, hi in
                zip(theta.names, theta.lower, theta.upper)},
        units=units, signal_units=signal_units, at_bounds=at_bounds, times=times,
        measured=measured, fitted=fitted, residuals=residuals, initial_states=initial_states,
        initial_state_std=initial_std, initial_states_estimated=estimated_x0,
        cost=0.5 * ssr, s2=s2, dof=dof, n_residuals=n_r, n_estimated=n_estimated,
        sigma_known=sigma_known, converged=converged, status=info["status"], message=message,
        iterations=info["iterations"], history=info["history"], interrupted=info["interrupted"],
        method=method, intervals=int(intervals) if method == "multiple_shooting" else 1,
        sensitivities="finite differences" if events else "CVODES/IDAS forward sensitivities",
        reinitializations=rounds, seconds=seconds, step_tol=step_tol,
        residual_autocorrelation=autocorrelation,
        _run_params={run.name: dict(run.params) for run in runs},
        _run_start={run.name: dict(run.start) for run in runs},
        _run_t0={run.name: run.t0 for run in runs})


def _alias_unit(cs: CompiledModel, name: str, units: dict) -> str:
    """The unit of a variable that is known under another name (an alias, a derivative)."""
    if name.startswith("der(") and name.endswith(")"):
        from ...run.solution import per_second

        inner = units.get(name[4:-1])
        return per_second(inner) if inner else ""
    sign, index = cs.locate(name)
    if index >= 0:
        return units.get(cs.system.name(index)) or ""
    return ""
