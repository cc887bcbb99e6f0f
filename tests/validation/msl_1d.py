"""Shared helpers of the MSL 4.0 Rotational and Translational example validation.

The references (MAP-LIB_ReferenceResults v4.0.0, Dymola 2020x, DASSL, tolerance 1e-6; see
``../shared/reference/rotational/README.md``) are read from ``$ACAUSAL_REFERENCE_DIR`` or
``<repository>/../shared/reference`` and never copied into the repository: a test whose CSV is
absent skips the comparison with the reason, and still checks its inline checkpoint numbers.

The CSVs store each event twice (the values before and after, at the same time). Signals are
compared at the reference's output times away from the event instants (``1e-4`` of each
signal's range); discrete signals (``mode``, ``startForward``, ...) are compared as a sequence
of values with the times at which they change.

Sections: loading and running (:func:`load`, :func:`require`, :func:`comparison_signals`,
:func:`run_example`, :func:`output_times`, :func:`value_at`); continuous signals
(:func:`compare`, :func:`compare_listed`, :func:`check_against_reference`,
:func:`check_checkpoints`, :func:`check_values_at`; against an exact motion :func:`check_exact`,
:func:`errors_from_exact`); discrete signals (:func:`sequence`, :func:`check_sequence`,
:func:`reference_sequence`, :func:`mode_sequence`, :func:`settled_start`, :func:`collapse`,
:func:`break_aways`, :func:`reference_starts`, :func:`check_break_aways`, :func:`check_modes`,
:func:`check_mode_checkpoints`, :func:`compare_with_modes`).
"""

from __future__ import annotations

import csv
import math
import os
import time as clock
from pathlib import Path

import numpy as np
import pytest

from acausal import Component, compile

TOLERANCE = 1e-4
#: the last parts of the names of MSL's discrete friction signals: compared as sequences
DISCRETE = ("mode", "startForward", "startBackward")


def reference_root() -> Path:
    env = os.environ.get("ACAUSAL_REFERENCE_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "reference"


def load(package: str, model: str, required: bool = True) -> dict[str, np.ndarray] | None:
    """All rows of ``<root>/<package>/<model>/<model>.csv`` (events twice) as {name: array};
    skips the calling test (or returns None with ``required=False``) when the file is absent."""
    path = reference_root() / package / model / f"{model}.csv"
    if not path.is_file():
        if not required:
            return None
        pytest.skip(f"reference result {path} not available (set ACAUSAL_REFERENCE_DIR to the "
                    "folder holding rotational/ and translational/ to run the comparison)")
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    data = np.array([[float(v) for v in row] for row in rows[1:] if row])
    return {name: data[:, i] for i, name in enumerate(rows[0])}


def require(ref: dict[str, np.ndarray] | None, package: str,
            model: str) -> dict[str, np.ndarray]:
    """``ref`` when it was found (``load(..., required=False)``), else skip the calling test
    with the reason: for a test whose first part runs without the reference."""
    return ref if ref is not None else load(package, model)


def comparison_signals(package: str, model: str, continuous: bool = False) -> list[str]:
    """The signals of the reference's ``comparisonSignals.txt`` (``time``, listed first, left
    out); ``continuous=True`` also leaves out the discrete ones (:data:`DISCRETE`)."""
    path = reference_root() / package / model / "comparisonSignals.txt"
    names = path.read_text().split()[1:]
    if continuous:
        names = [n for n in names if n.rsplit(".", 1)[-1] not in DISCRETE]
    return names


def run_example(model: Component, package: str, name: str, stop: float, points: int,
                **solver: object):
    """``(sol, ref)``: ``model`` compiled and simulated from 0 to ``stop`` [s] at the
    reference's output times, or, without the reference (``ref`` None), at ``points`` equally
    spaced times; ``solver`` are the ``rtol``/``atol`` (and ``integrator_options``) of
    ``simulate``."""
    ref = load(package, name, required=False)
    t_eval = output_times(ref) if ref is not None else np.linspace(0.0, stop, points)
    start = clock.perf_counter()
    sol = compile(model).simulate(stop, t_eval=t_eval, **solver)
    print(f"{name}: compile and simulate {clock.perf_counter() - start:.2f} s")
    return sol, ref


def event_times(ref: dict[str, np.ndarray]) -> np.ndarray:
    """The instants the reference stores twice (its events; the last row may repeat too)."""
    t = ref["time"]
    return np.unique(t[1:][np.diff(t) == 0.0])


def smooth_rows(ref: dict[str, np.ndarray], margin: float) -> np.ndarray:
    """A mask of the rows at least ``margin`` [s] away from every event instant (the values
    there do not depend on where exactly a solver put the event)."""
    t = ref["time"]
    keep = np.ones(t.size, bool)
    for te in event_times(ref):
        keep &= np.abs(t - te) >= margin
    return keep


def output_rows(ref: dict[str, np.ndarray]) -> np.ndarray:
    """A mask of the reference's rows that keeps each time once (of an event's two rows the
    first, the value before the event)."""
    return np.concatenate([[True], np.diff(ref["time"]) > 0])


def output_times(ref: dict[str, np.ndarray]) -> np.ndarray:
    """The reference's output times without the repeated event rows (strictly increasing)."""
    return ref["time"][output_rows(ref)]


def value_at(sol, name: str, t: float) -> float:
    """``name`` of a run at ``t`` [s], interpolated linearly between its output points."""
    return float(np.interp(t, np.asarray(sol.t), np.asarray(sol[name])))


def compare(sol, ref: dict[str, np.ndarray], names: list[str], margin: float = 0.0,
            renamed: dict[str, str] | None = None, tol: float = TOLERANCE) -> dict[str, float]:
    """Assert each signal of ``names`` within ``tol`` of its reference range at the reference's
    rows ``margin`` [s] away from its events (``sol`` sampled by interpolating its own output,
    which must be at the reference's output times: ``t_eval=output_times(ref)``). A signal
    constant in the reference is compared absolutely. Returns {name: relative error}."""
    keep = smooth_rows(ref, margin) if margin > 0 else np.ones(ref["time"].size, bool)
    t = ref["time"][keep]
    errors = {}
    for name in names:
        ours = (renamed or {}).get(name, name)
        actual = np.interp(t, np.asarray(sol.t), np.asarray(sol[ours], float))
        expected = ref[name][keep]
        span = float(np.ptp(ref[name]))
        err = float(np.max(np.abs(actual - expected)))
        rel = err / span if span > 0 else err
        print(f"  {name}: max relative error {rel:.3g}")
        errors[name] = rel
    bad = {k: v for k, v in errors.items() if not v < tol}
    assert not bad, f"signals beyond {tol:g} of their range: " + ", ".join(
        f"{k} {v:.3g}" for k, v in bad.items())
    return errors


def check_against_reference(compiled, package: str, model: str, stop: float,
                            signals: list[str], **solver: float) -> dict[str, float]:
    """The whole comparison of a run without events: skips without the reference; simulates
    ``compiled`` (a compiled model) to ``stop`` [s] at the reference's output times with
    ``solver`` (``rtol``, ``atol``); asserts that ``signals`` are the reference's
    ``comparisonSignals.txt`` and each within :data:`TOLERANCE` of its range
    (:func:`compare_listed`)."""
    ref = load(package, model)
    sol = compiled.simulate(stop, t_eval=output_times(ref), **solver)
    errors = compare_listed(sol, ref, package, model, signals)
    print(f"{model} worst relative error", max(errors.values()))
    return errors


def compare_listed(sol, ref: dict[str, np.ndarray], package: str, model: str,
                   signals: list[str], margin: float = 0.0) -> dict[str, float]:
    """Assert that ``signals`` are the reference's ``comparisonSignals.txt``, then compare
    them (:func:`compare` with ``margin``)."""
    assert comparison_signals(package, model) == signals
    return compare(sol, ref, signals, margin=margin)


def check_checkpoints(sol, expected: dict[str, dict[float, float]], rel: float,
                      absolute: float) -> None:
    """Assert ``{name: {t: value}}`` (reference values written in a test) at the output point
    nearest each ``t``, within ``rel * |value| + absolute``."""
    t_out = np.asarray(sol.t)
    for name, values in expected.items():
        for t, value in values.items():
            k = int(np.argmin(np.abs(t_out - t)))
            assert sol[name][k] == pytest.approx(value, abs=rel * abs(value) + absolute), \
                (name, t)


def check_values_at(sol, names: list[str], checkpoints: dict[float, list[float]],
                    ranges: dict[str, float] | list[float], tol: float = TOLERANCE) -> None:
    """Assert ``{t: [value of each of names]}`` (reference values written in a test) within
    ``tol`` of each signal's range (``ranges``: by name, or in the order of ``names``), the run
    interpolated at ``t`` (:func:`value_at`)."""
    spans = [ranges[n] for n in names] if isinstance(ranges, dict) else list(ranges)
    for t, values in checkpoints.items():
        for name, expected, span in zip(names, values, spans):
            assert abs(value_at(sol, name, t) - expected) < tol * span, (name, t)


# -- an exact (closed-form or independently integrated) motion ----------------------------------


def check_exact(sol, exact: dict[str, np.ndarray], ranges: dict[str, float],
                tol: float) -> None:
    """Assert each signal of ``exact`` (at the run's output times) within ``tol`` of
    ``ranges[name]`` everywhere."""
    for name, motion in exact.items():
        err = np.max(np.abs(np.asarray(sol[name]) - motion)) / ranges[name]
        print(f"  {name}: max error against the exact motion {err:.2e} of the range")
        assert err < tol, name


def errors_from_exact(sol, ref: dict[str, np.ndarray], name: str,
                      motion: np.ndarray) -> tuple[float, float]:
    """``(reference's, ours)``: the largest distance of the reference's ``name`` and of the
    run's from the exact ``motion`` (at the run's output times, which must be the reference's),
    relative to the reference's range of ``name``."""
    keep = output_rows(ref)
    assert np.array_equal(ref["time"][keep], np.asarray(sol.t))
    span = float(np.ptp(ref[name]))
    ref_err = float(np.max(np.abs(ref[name][keep] - motion)) / span)
    our_err = float(np.max(np.abs(np.asarray(sol[name]) - motion)) / span)
    print(f"{name}: reference {ref_err:.2e}, ours {our_err:.2e} of the range from the exact "
          "motion")
    return ref_err, our_err


# -- discrete signals --------------------------------------------------------------------------


def sequence(times: np.ndarray, values: np.ndarray) -> list[tuple[float, float]]:
    """``[(t, value), ...]``: the first value and every change of a discrete signal, with the
    time at which it changes."""
    values = np.asarray(values, float)
    out = [(float(times[0]), float(values[0]))]
    for k in range(1, values.size):
        if values[k] != values[k - 1]:
            out.append((float(times[k]), float(values[k])))
    return out


def check_sequence(name: str, ours: list[tuple[float, float]],
                   reference: list[tuple[float, float]], time_tol: float) -> None:
    """Assert the same values in the same order, each change within ``time_tol`` [s]."""
    vals, ref_vals = [v for _, v in ours], [v for _, v in reference]
    assert vals == ref_vals, f"{name}: mode sequence {vals} differs from the reference's {ref_vals}"
    for (t, v), (tr, _) in zip(ours, reference):
        assert abs(t - tr) <= time_tol, f"{name}: change to {v:g} at t = {t:.9g} s, " \
            f"the reference's at {tr:.9g} s (allowed {time_tol:g} s)"


def reference_sequence(ref: dict[str, np.ndarray], name: str) -> list[tuple[float, float]]:
    """:func:`sequence` of the reference's column ``name``. Of an event's two rows the second
    holds the value after it, so a change is dated at the event instant."""
    return sequence(ref["time"], ref[name])


def event_rows(sol, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(times, values)`` of a run's ``name``: its value at the first output time, then its
    value just after each event of ``sol.events`` (``sol.event_values``: every event, whatever
    clause fired it), at the event's time."""
    times = [float(sol.t[0])] + [float(t) for t, _ in sol.events]
    values = [float(sol[name][0]), *sol.event_values(name)]
    return np.array(times), np.array(values, float)


def mode_sequence(sol, name: str) -> list[tuple[float, float]]:
    """:func:`sequence` of a run's discrete ``name`` over :func:`event_rows`: the start value
    and each change, dated at the event after which the new value holds. Where ``sol.events``
    holds several events at one instant (an event iteration), a value held only within the
    instant is an entry of its own (:func:`collapse` removes it)."""
    return sequence(*event_rows(sol, name))


def settled_start(seq: list[tuple[float, float]], within: float) -> list[tuple[float, float]]:
    """``seq`` with a Stuck (0) start left within ``within`` [s] replaced by the mode it left
    to (taken as the initial mode: a start the solver settled in its first step)."""
    if len(seq) > 1 and seq[0][1] == 0.0 and seq[1][0] < within:
        return [(0.0, seq[1][1])] + seq[2:]
    return seq


def collapse(seq: list[tuple[float, float]], shorter_than: float):
    """``(kept, dropped)``: the instantaneous modes removed from ``seq``.

    An entry held for less than ``shorter_than`` [s] (the next entry's time minus its own; the
    last entry is held to the end) is dropped (e.g. a Stuck that a tool holds for 1e-12 s at an
    impact, within the event iteration). The entry after a run of dropped ones is dated at the
    last dropped entry's time (when that is after the last kept entry): the change began there.
    An entry that repeats the last kept value is merged into it."""
    kept, dropped = [seq[0]], []
    for (t, v), (t_next, _) in zip(seq[1:], seq[2:] + [(math.inf, None)]):
        if t_next - t < shorter_than:
            dropped.append((t, v))
            continue
        start = dropped[-1][0] if dropped and dropped[-1][0] > kept[-1][0] else t
        if v != kept[-1][1]:
            kept.append((start, v))
    return kept, dropped


def break_aways(seq: list[tuple[float, float]], direction: float,
                reversals: bool = False) -> list[float]:
    """The instants a mode sequence (forward 1, stuck 0, backward -1, free 2) starts sliding
    in ``direction`` (+1 or -1), as MSL's ``startForward``/``startBackward`` mark them: the
    change from Stuck (0) to ``direction``; with ``reversals=True`` also the direct change from
    the opposite slide (which passes Stuck within one event: MSL's ``pre(mode) == Backward``
    term). A change from Free (2) is no break-away."""
    before_modes = (0.0, -direction) if reversals else (0.0,)
    return [t for (_, before), (t, after) in zip(seq, seq[1:])
            if after == direction and before in before_modes]


def reference_starts(ref: dict[str, np.ndarray], column: str) -> list[float]:
    """The instants at which the reference's Boolean ``column`` (``<element>.startForward`` or
    ``startBackward``) becomes true: a pulse, true at one event instant (the second of its two
    rows) and false again at the next event; a column true at the start counts at the start
    time (MSL's ``initial()`` term). The mode itself changes at this or a later event, when the
    relative speed has left zero."""
    return [t for t, v in reference_sequence(ref, column) if v == 1.0]


def check_break_aways(element: str, ours: list[tuple[float, float]], ref: dict[str, np.ndarray],
                      time_tol: float, reversals: bool = False) -> None:
    """Assert the break-aways of our mode sequence ``ours`` of ``element`` at the reference's
    ``startForward``/``startBackward`` instants (:func:`reference_starts`).

    ``reversals=False``: ours (from Stuck only) and the reference's are the same number, in
    order, each within ``time_tol`` [s]. ``reversals=True`` (ours also counting a direct
    reversal, which the reference does not mark): each of the reference's has one of ours
    closer than ``time_tol``."""
    for column, direction in (("startForward", 1.0), ("startBackward", -1.0)):
        theirs = reference_starts(ref, f"{element}.{column}")
        found = break_aways(ours, direction, reversals)
        if not reversals:
            assert len(found) == len(theirs), (element, column, found, theirs)
            np.testing.assert_allclose(found, theirs, rtol=0, atol=time_tol)
            continue
        for t in theirs:
            assert min(abs(np.array(found) - t), default=math.inf) < time_tol, \
                (element, column, t, found)


def check_modes(sol, ref: dict[str, np.ndarray], elements: tuple[str, ...] | list[str],
                time_tol: float) -> None:
    """For each friction ``element``: its mode sequence as the reference's (nothing collapsed,
    each change within ``time_tol`` [s]) and its break-aways one to one at the reference's
    ``startForward``/``startBackward`` instants (:func:`check_break_aways`)."""
    for element in elements:
        ours = mode_sequence(sol, f"{element}.mode")
        check_sequence(f"{element}.mode", ours, reference_sequence(ref, f"{element}.mode"),
                       time_tol)
        check_break_aways(element, ours, ref, time_tol)


def check_mode_checkpoints(sol, expected: dict[str, list[tuple[float, float]]],
                           time_tol: float) -> None:
    """Assert ``{element: [(t, mode), ...]}`` (the reference's, written in a test) as the
    mode sequences of the run's elements, each change within ``time_tol`` [s]."""
    for element, expected_sequence in expected.items():
        check_sequence(f"{element}.mode", mode_sequence(sol, f"{element}.mode"),
                       expected_sequence, time_tol)


def compare_with_modes(sol, package: str, model: str, elements: tuple[str, ...] | list[str],
                       time_tol: float) -> list[str]:
    """The whole comparison of a run with friction elements: skips without the reference;
    every continuous signal of ``comparisonSignals.txt`` (:func:`compare`, ``time_tol`` away
    from the events) and each element's modes and break-aways (:func:`check_modes`). Returns
    the continuous signals compared."""
    ref = load(package, model)
    names = comparison_signals(package, model, continuous=True)
    compare(sol, ref, names, margin=time_tol)
    check_modes(sol, ref, elements, time_tol)
    return names
