"""What a component asks the run to watch: :class:`StuckMonitor`, a friction contact that holds
its load through a whole run.

A friction joint whose normal force is much larger than its load never moves, and nothing in
the results says why: the joint angle barely changes, and the user suspects the solver. A
component with friction therefore lists its contacts in ``monitors()`` (a method of
:class:`~acausal.language.model.Component`, empty by default), each one a
:class:`StuckMonitor` made of its own variables and parameters::

    class PinWithFriction(Component):
        ...
        def monitors(self):
            return [StuckMonitor(
                quantity="torque",
                slip=self.pin_radius * self.w, speed_limit=self.stiction_trans_vel,
                travel=self.pin_radius * self.phi, travel_limit=10 * self.max_stiction_deform,
                capacity=self.pin_radius * self.mu_static * self.normal_force,
                held=self.friction_torque, motion=(self.phi, "rad"),
                details=(("normal force", self.normal_force, "N"),),
                advice="reduce mu_static or the normal force")]

The compiler checks each monitor (:func:`check_monitor`: every name a variable or parameter of
the model) and keeps it with the flat model (``FlatSystem.monitors``); the core never imports a
component library. At the end of ``simulate`` the run layer (:mod:`acausal.run.stuck_report`)
reads the expressions at the output points and warns (``SimulationWarning``) about each contact
that stayed stuck through the whole run while it held a load: its path, the largest friction
it could hold (``capacity``) against the largest load it held (``held``), the ``details`` and
the ``advice``. ``simulate(stuck_report=False)`` switches the report off.

**Stuck** means: at every output point the slip speed ``|slip|`` is at most ``speed_limit``,
and the slip travel from the start (``travel(t) - travel(t_start)``, or the integral of
``slip`` over the output points where no ``travel`` is given) stays within ``travel_limit``
(``None``: not tested). The load counts when the largest ``|held|`` reaches
:data:`acausal.run.stuck_report.LOAD_FRACTION` of the largest ``capacity``: a joint stuck by
design with nothing to hold is not reported.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import sympy as sp

from ..base.errors import ModelDefinitionError
from .symbolic import der

__all__ = ["QUANTITIES", "StuckMonitor", "check_monitor"]

#: What a contact holds, and the unit its capacity and load are given in.
QUANTITIES = {"torque": "N.m", "force": "N"}


@dataclass(frozen=True)
class StuckMonitor:
    """A friction contact the run reports when it stays stuck through the whole run while it
    holds a load (see the module docstring). Expressions are sympy expressions of the
    component's variables and parameters (numbers allowed); a vector (several slip directions,
    a torque vector) is a sequence of expressions, taken by its Euclidean norm."""

    quantity: str  # "torque" or "force": what ``capacity`` and ``held`` are (N.m or N)
    slip: Any  # slip velocity at the contact (a scalar or a sequence), in m/s or rad/s
    speed_limit: Any  # |slip| at most this at every output point counts as stuck
    capacity: Any  # the largest friction the contact can hold now (mu_static * N * arm)
    held: Any  # the friction load it transmits (a scalar or a sequence)
    travel: Any = None  # a position whose rate is ``slip`` (None: slip integrated)
    travel_limit: Any = None  # |travel - travel(t_start)| within this counts as stuck
    motion: Any = None  # (the joint's coordinate, its unit): its largest change is quoted
    details: tuple = ()  # (label, expression, unit): largest values quoted in the report
    advice: str = ""  # what to change to let the contact slip
    component: str = ""  # the declaring component's path (set by the compiler)
    label: str = ""  # how the report names it: "RevoluteWithFriction 'arm_joint'" (compiler)

    def expressions(self) -> list[sp.Expr]:
        """Every expression of the monitor (for the compiler's name check)."""
        out = [*self.slip, self.speed_limit, self.capacity, *self.held]
        out += [*self.travel] if self.travel is not None else []
        out += [self.travel_limit] if self.travel_limit is not None else []
        out += [self.motion[0]] if self.motion is not None else []
        return out + [expr for _, expr, _ in self.details]


def _vector(value: Any, field_name: str, where: str) -> tuple[sp.Expr, ...]:
    items = list(value) if isinstance(value, (list, tuple, sp.MatrixBase)) else [value]
    if not items:
        raise ModelDefinitionError(f"{where}: StuckMonitor {field_name} is empty: give an "
                                   "expression or a sequence of them.")
    return tuple(_scalar(item, field_name, where) for item in items)


def _scalar(value: Any, field_name: str, where: str) -> sp.Expr:
    try:
        expr = sp.sympify(value)
    except (sp.SympifyError, TypeError, ValueError):
        expr = None
    if not isinstance(expr, sp.Expr):
        raise ModelDefinitionError(f"{where}: StuckMonitor {field_name}={value!r} is not an "
                                   "expression of the component's variables and parameters.")
    if expr.has(der):  # the run reads values at the output points, not derivatives
        raise ModelDefinitionError(f"{where}: StuckMonitor {field_name}={value} contains der(): "
                                   "use the variable that holds the derivative (a velocity).")
    return expr


def check_monitor(monitor: Any, component: Any, where: str, known: set) -> StuckMonitor:
    """``monitor`` checked against the component that declared it (``where``: how errors name
    it) and the model's variable and parameter symbols ``known``; vectors as tuples,
    expressions sympified, ``component`` and ``label`` set. Raises a ModelDefinitionError that
    names the component and the field."""
    if not isinstance(monitor, StuckMonitor):
        raise ModelDefinitionError(f"{where}.monitors() returned {monitor!r}: return a list of "
                                   "acausal.StuckMonitor declarations.")
    if monitor.quantity not in QUANTITIES:
        raise ModelDefinitionError(f"{where}: StuckMonitor quantity={monitor.quantity!r} is not "
                                   f"one of {', '.join(QUANTITIES)}.")
    slip = _vector(monitor.slip, "slip", where)
    travel = None if monitor.travel is None else _vector(monitor.travel, "travel", where)
    if travel is not None and len(travel) != len(slip):
        raise ModelDefinitionError(f"{where}: StuckMonitor travel has {len(travel)} components "
                                   f"and slip {len(slip)}: give one position per slip direction.")
    details = []
    for item in monitor.details:
        try:
            label, expr, unit = item
        except (TypeError, ValueError):
            raise ModelDefinitionError(f"{where}: StuckMonitor details entry {item!r} is not "
                                       "(label, expression, unit).") from None
        details.append((str(label), _scalar(expr, f"details {label!r}", where), str(unit)))
    motion = monitor.motion
    if motion is not None:
        if not (isinstance(motion, (tuple, list)) and len(motion) == 2):
            raise ModelDefinitionError(f"{where}: StuckMonitor motion={motion!r} is not "
                                       "(expression, unit).")
        motion = (_scalar(motion[0], "motion", where), str(motion[1]))
    checked = replace(
        monitor, slip=slip, travel=travel, held=_vector(monitor.held, "held", where),
        speed_limit=_scalar(monitor.speed_limit, "speed_limit", where),
        capacity=_scalar(monitor.capacity, "capacity", where),
        travel_limit=None if monitor.travel_limit is None
        else _scalar(monitor.travel_limit, "travel_limit", where),
        motion=motion, details=tuple(details), advice=str(monitor.advice),
        component=component.path,
        label=where)
    unknown = sorted({str(s) for e in checked.expressions() for s in e.free_symbols} - known)
    if unknown:
        raise ModelDefinitionError(f"{where}: StuckMonitor reads {', '.join(unknown)}, which "
                                   "are not variables or parameters of the model: build its "
                                   "expressions from the component's own declarations.")
    return checked
