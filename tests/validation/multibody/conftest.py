"""Helpers of the 3-D multibody validation against the Modelica MultiBody reference results.

The references (Dymola 2020x, DASSL, tolerance 1e-6, MSL 4.0; see
``../shared/reference/multibody/README.md``) are read from ``$ACAUSAL_REFERENCE_DIR/multibody``
or ``<repository>/../shared/reference/multibody`` and are never copied into the repository; a
test that needs a missing file is skipped, and every test also checks a few values written
inline. Modelica's 1-based array indices in column names (``r_0[1]``) map to acausal's 0-based
ones (``r_0[0]``).
"""

from __future__ import annotations

import re

import numpy as np
import pytest


def acausal_name(column: str) -> str:
    """A reference column name in acausal's spelling (0-based indices)."""
    return re.sub(r"\[(\d+)\]", lambda m: f"[{int(m.group(1)) - 1}]", column)


@pytest.fixture
def msl(load_reference):
    """``msl(model, t_max=None)``: the reference columns of ``multibody/<model>/<model>.csv``
    by acausal name ('time' first); skips the test when absent."""
    def load(model: str, t_max: float | None = None) -> dict[str, np.ndarray]:
        ref = load_reference(model, package="multibody", t_max=t_max)
        return {acausal_name(k): v for k, v in ref.items()}
    return load


@pytest.fixture
def compare(msl, check_signal):
    """``compare(compiled, model, t_max=None, names=None, renamed=None, **simulate options)``:
    simulate at the reference's output times and assert every compared signal (or ``names``)
    within 1e-4 of its range; returns (solution, {name: error}). ``renamed`` maps a prefix of
    a reference name to acausal's (MultiBody's BodyShape has a Body part ``body``; acausal's
    BodyShape is itself a Body: ``{"body.body.": "body."}``)."""
    def run(compiled, model: str, t_max: float | None = None, names: list[str] | None = None,
            renamed: dict[str, str] | None = None, **options):
        ref = msl(model, t_max=t_max)
        times = ref["time"]
        sol = compiled.simulate(float(times[-1]), t_eval=times, **options)
        errors = {}
        for name in names or [k for k in ref if k != "time"]:
            ours = name
            for old, new in (renamed or {}).items():
                if ours.startswith(old):
                    ours = new + ours[len(old):]
            errors[name] = check_signal(name, sol[ours], ref[name]) \
                if not _constant(ref[name]) else _check_constant(name, sol[ours], ref[name])
        return sol, errors
    return run


def _constant(values: np.ndarray) -> bool:
    """A signal that stays constant in the physics (its range in the reference is the
    reference solver's noise, below 1e-6 of its size): a relative error of its range would
    measure noise."""
    return np.ptp(values) <= 1e-6 * max(1.0, float(np.max(np.abs(values))))


def _check_constant(name: str, actual, reference) -> float:
    scale = max(1.0, float(np.max(np.abs(reference))))
    err = float(np.max(np.abs(np.asarray(actual) - reference))) / scale
    print(f"  {name}: constant signal, max error / max(1, |value|) {err:.3g}")
    assert err < 1e-4, f"{name}: constant signal, max error / max(1, |value|) = {err:.3g}"
    return err


@pytest.fixture
def energy():
    """``acausal.components.multibody.energy.mechanical_energy``."""
    from acausal.components.multibody.energy import mechanical_energy

    return mechanical_energy
