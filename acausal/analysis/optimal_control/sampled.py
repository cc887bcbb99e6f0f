"""A model run under a sampled controller: at each sample time the controller reads the model's
variables and sets its inputs, held until the next sample (zero-order hold).

Used for a guess from a feedback law (``solve(guess=law)``) and for an MPC's closed loop
(:meth:`acausal.analysis.optimal_control.MPC.closed_loop`), where the plant may be a hybrid
model (stick/slip friction, slipping wheels): each sample period is one segment of the run loop
(:mod:`acausal.run.segments`), events inside it included.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...base.errors import InputError, SimulationError
from ...run.segments import RunPoint, initial_point, join, run_segment
from ...run.solution import Solution
from .problem import FreeTime
from .start import changed_starts

#: Samples of a feedback-law guess over the horizon.
GUESS_SAMPLES = 200


class Reader:
    """What a controller reads at a sample: ``values["cart.s"]``, ``values.t``."""

    def __init__(self, point: RunPoint) -> None:
        self.point = point
        self.t = point.t

    def __getitem__(self, name: str) -> float:
        return self.point.value(name)


@dataclass
class SampledRun:
    solution: Solution
    sample_times: np.ndarray
    inputs: dict[str, np.ndarray]  # each input's value from each sample on
    step_times: np.ndarray = field(default_factory=lambda: np.zeros(0))  # controller's seconds


def simulate_sampled(cs, t_start: float, t_end: float, sample_time: float,
                     controller: Callable[[float, Reader], dict], *,
                     point: RunPoint | None = None, params: dict | None = None,
                     start: dict | None = None, rtol: float = 1e-8, atol: float = 1e-10,
                     points_per_sample: int = 5, timer: Callable[[], float] | None = None
                     ) -> SampledRun:
    """Run ``cs`` from ``t_start`` to ``t_end``; every ``sample_time`` seconds
    ``controller(t, values)`` returns ``{input name: value}`` (names of parameters of ``cs``),
    held for the sample period."""
    if not (isinstance(sample_time, (int, float)) and sample_time > 0):
        raise InputError(f"sample_time must be a positive number of seconds, got "
                         f"{sample_time!r}.")
    clock = timer or _time.perf_counter
    point = point if point is not None else initial_point(cs, t_start, params, start)
    index = cs.parameter_index()
    n = max(1, math.ceil((t_end - t_start) / sample_time - 1e-9))
    times = t_start + sample_time * np.arange(n + 1)
    times[-1] = t_end
    inputs: dict[str, list[float]] = {}
    step_times = []
    solutions = []
    for k in range(n):
        tic = clock()
        command = controller(float(times[k]), Reader(point))
        step_times.append(clock() - tic)
        if not isinstance(command, dict):
            raise InputError(f"The controller must return a dict of input values by name, got "
                             f"{command!r} at t = {times[k]:g}.")
        p = point.p.copy()
        for name, value in command.items():
            if name not in index:
                raise InputError(f"The controller sets '{name}', which is not a parameter of "
                                 f"{cs.model_name}.")
            value = float(value)
            if not math.isfinite(value):
                raise SimulationError(f"The controller gave {name} = {value} at t = "
                                      f"{times[k]:g}.")
            p[index[name]] = value
            inputs.setdefault(name, []).append(value)
        sol, point = run_segment(point, float(times[k + 1]), p, n_points=points_per_sample,
                                 rtol=rtol, atol=atol)
        solutions.append(sol)
    return SampledRun(join(solutions), times[:-1],
                      {k: np.array(v) for k, v in inputs.items()}, np.array(step_times))


def guess_by_feedback(problem, law: Callable[[float, Reader], dict]) -> Solution:
    """The problem's model simulated under ``law`` over the horizon (the free end time's guess),
    from the model's start: a guess for every variable."""
    t_end = problem.t_end.guess if isinstance(problem.t_end, FreeTime) else problem.t_end
    fixed = dict(problem.start_values)
    point = None
    if fixed:
        with changed_starts(problem.model, fixed, []):
            point = initial_point(problem.model, problem.t_start, p=problem.p)
    run = simulate_sampled(problem.model, problem.t_start, float(t_end),
                           (float(t_end) - problem.t_start) / GUESS_SAMPLES, law, point=point,
                           params=problem.params, rtol=1e-6, atol=1e-8, points_per_sample=2)
    return run.solution

