"""The stuck-joint report: at the end of a run, a ``SimulationWarning`` for every friction
contact (:class:`~acausal.language.monitors.StuckMonitor`, declared by the component) that
stayed stuck through the whole run while it held a load.

Why: a joint whose friction can hold far more than its load (MotionSolve's 1 mm default arms
turn a bending moment of 12 N m into a normal force of 12 kN) does not move, and the results
alone do not say why; the user suspects the model or the solver. The report names the joint,
the largest friction it could hold against the largest load it held, what made the normal
force (the monitor's ``details``) and what to change (its ``advice``).

The test reads the monitor's expressions at the output points of the run (so a run with very
few output points is checked at those few instants), cheapest first: the slip speed (stuck:
``|slip| <= speed_limit`` at every point), then the travel from the start (within
``travel_limit``), and only for a contact that passed both, its capacity and load (the load
counts when its largest value reaches :data:`LOAD_FRACTION` of the largest capacity).
``simulate(stuck_report=False)`` switches it off; so does the standard warnings filter
(``warnings.filterwarnings("ignore", "Friction stuck", SimulationWarning)``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import casadi as ca
import numpy as np
import sympy as sp

from ..base.errors import SimulationError, SimulationWarning, user_stacklevel
from ..compiler.codegen import translate
from ..language.monitors import QUANTITIES, StuckMonitor
from .buffers import Columns
from .solution import Solution

__all__ = ["HEADLINE", "LOAD_FRACTION", "StuckContact", "report_stuck", "stuck_contacts"]

#: A contact's load counts when its largest value reaches this fraction of the largest friction
#: it could hold: below it the contact holds (next to) nothing (a joint stuck by design with no
#: load, round-off of a load that is zero by symmetry), and staying stuck is no news.
LOAD_FRACTION = 1e-3

#: The first words of the warning (what a warnings filter can match).
HEADLINE = "Friction stuck"


@dataclass
class StuckContact:
    """A contact that stayed stuck through a run: its monitor and the largest values read."""

    monitor: StuckMonitor
    capacity: float  # largest friction it could hold (N.m or N)
    held: float  # largest load it held
    details: list[tuple[str, float, str]]  # (label, largest value, unit)
    moved: float | None = None  # largest change of the joint's coordinate (monitor.motion)

    def sentence(self, t_start: float, t_end: float) -> str:
        """What the report says of this contact."""
        m = self.monitor
        unit = QUANTITIES[m.quantity]
        text = (f"{m.label} stayed stuck for the whole run ({_number(t_start)} to "
                f"{_number(t_end)} s): the largest friction {m.quantity} it could hold was "
                f"{_number(self.capacity)} {unit}, against at most {_number(self.held)} {unit} "
                f"of {m.quantity} held ({_percent(self.held / self.capacity)} of it)")
        if self.moved is not None:
            text += f"; it moved by at most {_number(self.moved)} {m.motion[1]}"
        if self.details:
            text += "; largest " + ", ".join(f"{label} {_number(value)} {u}".rstrip()
                                             for label, value, u in self.details)
        text += "."
        if m.advice:
            text += f" To let it slip: {m.advice.rstrip('.')}."
        return text


def stuck_contacts(sol: Solution) -> list[StuckContact]:
    """The monitored contacts of ``sol``'s model that stayed stuck over all of its output
    points while holding a load (see the module docstring)."""
    cs = sol.compiled
    monitors = cs.flat.monitors
    if not monitors or sol.t.size < 2:
        return []
    # the slip speeds of all contacts in one evaluation (what rules most of them out)
    try:
        rows = _evaluate(sol, "slip", [e for m in monitors for e in (*m.slip, m.speed_limit)])
    except SimulationError:  # a value not finite: the run's results say so when read
        return []
    out = []
    start = 0
    for index, m in enumerate(monitors):
        slip, limit = rows[start:start + len(m.slip)], rows[start + len(m.slip)]
        start += len(m.slip) + 1
        if np.any(np.sqrt(np.sum(slip ** 2, axis=0)) > limit):
            continue
        try:
            contact = _stuck_contact(sol, index, m, slip)
        except SimulationError:
            continue
        if contact is not None:
            out.append(contact)
    return out


def _stuck_contact(sol: Solution, index: int, m: StuckMonitor, slip: np.ndarray
                   ) -> StuckContact | None:
    """The contact of monitor ``index``, whose slip speed stayed within its bound (``slip``:
    its slip velocity at the output points), if its travel stayed within its bound and it
    held a load; else None."""
    if m.travel_limit is not None:
        if m.travel is not None:
            values = _evaluate(sol, ("travel", index), [*m.travel, m.travel_limit])
            moved = values[:-1] - values[:-1, :1]
        else:  # the slip integrated over the output points (trapezoids)
            values = _evaluate(sol, ("travel", index), [m.travel_limit])
            steps = 0.5 * (slip[:, 1:] + slip[:, :-1]) * np.diff(sol.t)
            moved = np.hstack([np.zeros((steps.shape[0], 1)), np.cumsum(steps, axis=1)])
        if np.max(np.sqrt(np.sum(moved ** 2, axis=0))) > np.max(values[-1]):
            return None
    motion = [m.motion[0]] if m.motion is not None else []
    rest = _evaluate(sol, ("load", index), [m.capacity, *m.held, *motion,
                                            *(expr for _, expr, _ in m.details)])
    capacity = float(np.max(rest[0]))
    held = float(np.max(np.sqrt(np.sum(rest[1:1 + len(m.held)] ** 2, axis=0))))
    if not (capacity > 0 and held >= LOAD_FRACTION * capacity):
        return None
    first = 1 + len(m.held) + len(motion)
    moved = float(np.max(np.abs(rest[first - 1] - rest[first - 1, 0]))) if motion else None
    details = [(label, float(np.max(row)), unit)
               for (label, _, unit), row in zip(m.details, rest[first:])
               if np.any(row != 0)]  # a part that is zero throughout says nothing
    return StuckContact(m, capacity, held, details, moved)


def report_stuck(sol: Solution) -> None:
    """Warn (``SimulationWarning``) about the contacts of :func:`stuck_contacts`, one warning
    for the run, one sentence per contact."""
    contacts = stuck_contacts(sol)
    if not contacts:
        return
    t0, t1 = float(sol.t[0]), float(sol.t[-1])
    if len(contacts) == 1:
        head = f"{HEADLINE}: "
    else:
        head = f"{HEADLINE}: {len(contacts)} friction contacts stayed stuck for the whole run:\n"
    body = "\n".join(("  " if len(contacts) > 1 else "") + c.sentence(t0, t1) for c in contacts)
    warnings.warn(f"{head}{body}\nPass simulate(..., stuck_report=False) to silence this "
                  "report (docs/joint_friction.md, 'Stuck joints').", SimulationWarning,
                  stacklevel=user_stacklevel())


def _evaluate(sol: Solution, key: object, exprs: list[sp.Expr]) -> np.ndarray:
    """``exprs`` at the output points, one row per expression; ``key`` names them in the
    compiled model's cache (the CasADi function is built once per compiled model)."""
    cs = sol.compiled

    def build():
        symbols = sorted({s for e in exprs for s in e.free_symbols}, key=str)
        v = ca.SX.sym("v", max(len(symbols), 1))
        out = translate(exprs, {s: v[k] for k, s in enumerate(symbols)})
        f = ca.Function("stuck_monitors", [v], [ca.vertcat(*out)])
        return Columns(f), [str(s) for s in symbols]

    f, names = cs.cached(("stuck_monitors", key), build)
    rows = np.vstack([np.asarray(sol[n], float).reshape(1, -1) for n in names]) if names \
        else np.zeros((1, sol.t.size))
    return np.asarray(f(rows)[0], float).reshape(len(exprs), sol.t.size)


def _number(x: float) -> str:
    """A value for the report: 4 significant digits, whole numbers from 1000 on."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    if abs(x) >= 1000:
        return f"{x:.0f}"
    return f"{x:.4g}"


def _percent(ratio: float) -> str:
    return f"{100 * ratio:.2g} %" if ratio < 0.1 else f"{100 * ratio:.0f} %"
