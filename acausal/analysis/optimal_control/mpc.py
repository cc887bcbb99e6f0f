"""Nonlinear model predictive control from an optimal control problem.

``MPC(problem, horizon, sample_time)`` transcribes the problem once on a receding horizon of
length ``horizon`` (one element per sample period unless ``elements`` says otherwise) with the
start time and the measured states as parameters of the NLP: at each sample ``step(state, t)``
solves it from the measured states (every state of the problem's model fixed at its measured
value, the model's own start conditions replaced) and returns the controls for the coming
period, the first element's. Between steps the solution is shifted by one element and used as
the next start point with its multipliers (IPOPT's warm start). Path constraints declared
``soft=penalty`` may be violated at a quadratic cost, so a disturbed plant does not make the
problem infeasible. The objective's ``time`` is the plant's time, so a reference trajectory is
written in the Lagrange term (``"(cart.s - 0.5*sin(time))**2"``).

With ``jit="auto"`` (the default) the NLP's functions (the oracle and the derivatives IPOPT
calls) are compiled to machine code by the system's C compiler when there is one, into one
library in acausal's cache of compiled code (:func:`acausal.run.native.library_of`: the same
problem compiles once per machine, later MPCs load it), else they run in CasADi's virtual
machine; ``jit=True`` requires a compiler, ``jit=False`` never uses one.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from ...base.c_compiler import CompilerNotFoundError
from ...base.errors import InputError, OptimizationError, UnknownNameError, did_you_mean
from ...run.native import library_of
from ...run.solution import Solution
from .collocation import Scheme
from .guess import Guess
from .nlp import control_values
from .problem import FreeTime, Problem
from .sampled import Reader, simulate_sampled
from .solve import initial_vector, ipopt_options
from .transcription import transcribe

#: IPOPT's options for MPC steps unless ``ipopt=`` says otherwise: a warm start from the shifted
#: solution (its multipliers too), so a small barrier parameter and small pushes away from the
#: bounds, and tol 1e-6 (a control needs no more digits than the plant's measurements have);
#: on the segway MPC of examples/segway_mpc.py this halves the iterations of tol 1e-8 with
#: mu_init 1e-3 (benchmarks/optimal_control.py times the steps).
MPC_IPOPT = {"tol": 1e-6, "warm_start_init_point": "yes", "mu_init": 1e-5,
             "warm_start_bound_push": 1e-6, "warm_start_mult_bound_push": 1e-6}


@dataclass
class ClosedLoop:
    """A plant run under the MPC."""

    solution: Solution  # the plant's variables over the run
    sample_times: np.ndarray
    controls: dict[str, np.ndarray]  # each control from each sample on
    step_times: np.ndarray  # seconds of each MPC step (solve and shift)
    statuses: list[str] = field(default_factory=list)  # IPOPT's status per step

    @property
    def median_step_time(self) -> float:
        return float(np.median(self.step_times)) if self.step_times.size else math.nan


class MPC:
    """A receding-horizon controller from ``problem`` (see the module's docstring).

    ``horizon`` [s], ``sample_time`` [s]; ``elements``: of the horizon (default
    ``horizon / sample_time``); ``degree``, ``scheme``: the collocation; ``ipopt``: IPOPT
    options; ``jit``: ``"auto"``, ``True`` or ``False``.
    """

    def __init__(self, problem: Problem, horizon: float, sample_time: float, *,
                 elements: int | None = None, degree: int = 3, scheme: str = "radau",
                 ipopt: dict | None = None, jit: bool | str = "auto") -> None:
        if not isinstance(problem, Problem):
            raise InputError(f"MPC needs an OptimalControl problem, got "
                             f"{type(problem).__name__}.")
        for value, what in ((horizon, "horizon"), (sample_time, "sample_time")):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value) or value <= 0:
                raise InputError(f"{what} must be a positive number of seconds, got {value!r}.")
        if sample_time > horizon:
            raise InputError(f"sample_time {sample_time:g} s is longer than the horizon "
                             f"{horizon:g} s.")
        if isinstance(problem.t_end, FreeTime):
            raise InputError("An MPC has a fixed horizon: build its problem without "
                             "free_end_time().")
        if problem.mayer is None and problem.lagrange is None:
            raise InputError("The problem has no objective: call minimize(...) first.")
        if not problem.controls:
            raise InputError("The problem has no control: declare one with control(...).")
        if jit not in ("auto", True, False):
            raise InputError(f"jit must be 'auto', True or False, got {jit!r}.")
        self.problem = problem
        self.horizon = float(horizon)
        self.sample_time = float(sample_time)
        n = elements if elements is not None else max(1, round(horizon / sample_time))
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InputError(f"elements must be a whole number >= 1, got {elements!r}.")
        self.scheme = Scheme(degree, scheme)
        frac = np.full(int(n), 1.0 / int(n))
        tic = _time.perf_counter()
        self.nlp = transcribe(problem, None, frac, self.scheme, parametric_start=True,
                              horizon_length=self.horizon)
        opts = ipopt_options({**MPC_IPOPT, **(ipopt or {})}, False)
        # expanded to one SX graph: built once, evaluated at every step, where SX's virtual
        # machine beats the mapped MX graph a one-off solve is built as
        opts["expand"] = True
        self.solver = ca.nlpsol("mpc", "ipopt", {"x": self.nlp.w, "f": self.nlp.f,
                                                 "g": self.nlp.g, "p": self.nlp.theta}, opts)
        self.native = False
        if jit is not False:
            # the NLP's functions (the oracle and the derivatives IPOPT calls) as machine
            # code, kept in acausal's cache of compiled libraries: built once per machine
            try:
                functions = [self.solver.oracle()] + [self.solver.get_function(name)
                                                      for name in self.solver.get_function()]
                library = library_of(functions, "An MPC with jit")
                opts.pop("expand", None)
                self.solver = ca.nlpsol("mpc", "ipopt", str(library), opts)
                self.native = True
            except CompilerNotFoundError:
                if jit is True:
                    raise
        self.build_time = _time.perf_counter() - tic
        cs = problem.model
        self.state_names = cs.state_names
        self.w = None
        self.lam_x = np.zeros(self.nlp.w.numel())
        self.lam_g = np.zeros(self.nlp.g.numel())
        self.statuses: list[str] = []

    # -- one step ---------------------------------------------------------------------------
    def _state_vector(self, state: Any) -> np.ndarray:
        names = self.state_names
        if isinstance(state, dict):
            missing = [n for n in names if n not in state]
            if missing:
                raise InputError(f"step() needs every state of {self.problem.model.model_name}:"
                                 f" missing {', '.join(missing)}.")
            extra = [n for n in state if n not in names]
            if extra:
                raise UnknownNameError(f"step(): '{extra[0]}' is not a state of the MPC's "
                                       f"model.{did_you_mean(extra[0], names)} Its states are: "
                                       f"{', '.join(names)}.")
            x = np.array([float(state[n]) for n in names])
        else:
            x = np.asarray(state, float).ravel()
            if x.size != len(names):
                raise InputError(f"step() got {x.size} state values; the model has "
                                 f"{len(names)}: {', '.join(names)}.")
        if not np.all(np.isfinite(x)):
            raise InputError(f"step() got non-finite states: {x}.")
        return x

    def step(self, state: Any, t: float = 0.0) -> dict[str, float]:
        """The controls for the coming sample period from the measured ``state`` (a dict by
        state name, or a vector in the order of :attr:`state_names`) at time ``t``."""
        x = self._state_vector(state)
        nlp = self.nlp
        if self.w is None:
            self.w = self._first_guess(x, t)
        out = self.solver(x0=self.w, lam_x0=self.lam_x, lam_g0=self.lam_g, lbx=nlp.lbw,
                          ubx=nlp.ubw, lbg=nlp.lbg, ubg=nlp.ubg, p=np.concatenate([[t], x]))
        stats = self.solver.stats()
        self.statuses.append(str(stats.get("return_status", "")))
        w = np.array(out["x"].full()).ravel()
        if not np.all(np.isfinite(w)):
            raise OptimizationError(f"The MPC's NLP at t = {t:g} gave non-finite values "
                                    f"(status '{self.statuses[-1]}').",
                                    status=self.statuses[-1])
        controls = self._first_controls(w)
        self.w = self._shifted(w)
        self.lam_x = self._shifted(np.array(out["lam_x"].full()).ravel())
        self.lam_g = np.array(out["lam_g"].full()).ravel()
        return controls

    def _first_guess(self, x: np.ndarray, t: float) -> np.ndarray:
        problem = self.problem
        cs = problem.model
        guess = Guess(problem, {n: float(v) for n, v in zip(cs.state_names, x)}, x,
                      np.zeros(cs.z.numel()))
        return initial_vector(problem, self.nlp, guess, t, self.horizon)

    def _first_controls(self, w_scaled: np.ndarray) -> dict[str, float]:
        w = w_scaled * self.nlp.nominal
        u = {c.name: w[self.nlp.layout.u_index[c.name][0]] for c in self.problem.controls}
        values = control_values(self.problem, self.scheme, u, 0, None, 0.0)
        return {k: float(v) for k, v in values.items()}

    def _shifted(self, w: np.ndarray) -> np.ndarray:
        """``w`` moved one element earlier (the last element repeated): the next step's start
        point."""
        lay = self.nlp.layout
        out = w.copy()
        blocks = [lay.x_elements, lay.z_elements]
        for c in self.problem.controls:
            idx = lay.u_index[c.name][0]
            blocks.append(idx.reshape(len(lay.frac), -1))
        for block in blocks:
            if block.size and block.shape[0] > 1:
                out[block[:-1].ravel()] = w[block[1:].ravel()]
        return out

    # -- closed loop --------------------------------------------------------------------------
    def closed_loop(self, plant: Any, t_end: float, *, t_start: float = 0.0,
                    measure: dict[str, str | Callable] | None = None,
                    params: dict | None = None, start: dict | None = None,
                    rtol: float = 1e-8, atol: float = 1e-10,
                    points_per_sample: int = 5) -> ClosedLoop:
        """Run ``plant`` (any compiled model whose parameters include the controls, e.g. the
        hybrid model with slipping wheels) from ``t_start`` to ``t_end`` under this MPC.
        ``measure``: for each state of the MPC's model, the plant's variable name (or a
        function of the plant's values ``values[name]``) that measures it; default: the same
        names."""
        measure = dict(measure or {})
        for name in measure:
            if name not in self.state_names:
                raise UnknownNameError(f"measure: '{name}' is not a state of the MPC's model."
                                       f"{did_you_mean(name, self.state_names)}")
        sources = {n: measure.get(n, n) for n in self.state_names}
        for n, src in sources.items():
            if isinstance(src, str) and src not in plant.locations():
                raise UnknownNameError(
                    f"The plant {plant.model_name} has no variable '{src}' to measure the "
                    f"MPC's state '{n}'.{did_you_mean(src, list(plant.locations()))} Map it "
                    f"with measure={{'{n}': 'plant.variable'}}.")
        for c in self.problem.controls:
            if c.name not in plant.parameter_index():
                raise UnknownNameError(f"The plant {plant.model_name} has no parameter "
                                       f"'{c.name}' for the MPC's control.")
        step_times: list[float] = []

        def controller(t: float, values: Reader) -> dict:
            state = {n: (src(values) if callable(src) else values[src])
                     for n, src in sources.items()}
            tic = _time.perf_counter()
            u = self.step(state, t)
            step_times.append(_time.perf_counter() - tic)
            return u

        run = simulate_sampled(plant, t_start, t_end, self.sample_time, controller,
                               params=params, start=start, rtol=rtol, atol=atol,
                               points_per_sample=points_per_sample)
        return ClosedLoop(run.solution, run.sample_times, run.inputs, np.array(step_times),
                          list(self.statuses[-len(step_times):]))

    def __repr__(self) -> str:
        return (f"<MPC of {self.problem.model.model_name}: horizon {self.horizon:g} s, sample "
                f"{self.sample_time:g} s, {len(self.nlp.layout.frac)} elements, "
                f"{'machine code' if self.native else 'virtual machine'}>")
