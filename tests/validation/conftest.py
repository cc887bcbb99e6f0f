"""Helpers of the cross-validation suite.

The reference results (Dymola simulations of the Modelica PlanarMechanics examples, published by
DLR in ``DLR-SR/PlanarMechanics_ReferenceResults``) are NOT part of this repository. They are read
from ``$ACAUSAL_REFERENCE_DIR`` if set, else from ``<repository>/../shared/reference``; a test
that needs a missing file is skipped. Every test also asserts a few checkpoint values written
inline, which run without the reference files.

Comparison metric: ``max |y - y_ref| / (max(y_ref) - min(y_ref))`` over the compared time span
must be below ``1e-4`` (a signal that is constant in the reference is compared absolutely).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pytest

TOLERANCE = 1e-4


def reference_root() -> Path:
    """Folder holding the reference results (``planar_mechanics/...`` below it)."""
    env = os.environ.get("ACAUSAL_REFERENCE_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "reference"


def _load_reference(model: str, package: str = "planar_mechanics/PlanarMechanics/Examples",
                    t_max: float | None = None) -> dict[str, np.ndarray]:
    """Load ``<root>/<package>/<model>/<model>.csv`` as {column name: array}.

    Rows with a repeated time (event points, the duplicated final point) are dropped so that the
    "Time" column is strictly increasing; ``t_max`` drops rows after that time.
    Skips the calling test if the file is absent.
    """
    path = reference_root() / package / model / f"{model}.csv"
    if not path.is_file():
        pytest.skip(f"reference result {path} not available (set ACAUSAL_REFERENCE_DIR to the "
                    "folder holding planar_mechanics/ to run the comparison)")
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    header, data = rows[0], np.array([[float(v) for v in row] for row in rows[1:] if row])
    time = data[:, 0]
    keep = np.concatenate([[True], np.diff(time) > 0])
    if t_max is not None:
        keep &= time <= t_max + 1e-12
    return {name: data[keep, i] for i, name in enumerate(header)}


def _relative_error(actual, reference) -> float:
    """max |actual - reference| divided by the reference's range (max - min); if the reference
    is constant the absolute error is returned."""
    actual = np.asarray(actual, dtype=float)
    reference = np.asarray(reference, dtype=float)
    assert actual.shape == reference.shape, (actual.shape, reference.shape)
    span = float(np.max(reference) - np.min(reference))
    err = float(np.max(np.abs(actual - reference)))
    return err / span if span > 0.0 else err


def _check_signal(name: str, actual, reference, tol: float = TOLERANCE) -> float:
    """Assert the relative error of a signal is below ``tol``; return the error."""
    err = _relative_error(actual, reference)
    print(f"  {name}: max relative error {err:.3g}")
    assert err < tol, f"{name}: max |error| / range = {err:.3g} >= {tol:g}"
    return err


@pytest.fixture
def load_reference():
    """``load_reference(model, t_max=None)`` -> dict of reference columns (skips if absent)."""
    return _load_reference


@pytest.fixture
def check_signal():
    """``check_signal(name, actual, reference, tol=1e-4)``: assert the relative error."""
    return _check_signal


def _shifted_error(t, actual, reference, max_shift: float) -> float:
    """max over t_i of min over |tau| <= max_shift of |actual(t_i) - reference(t_i + tau)|,
    divided by the reference's range (reference linearly interpolated). For references whose
    own timing is less accurate than their values (see the tests that use it)."""
    best = np.abs(actual - reference)
    for tau in np.linspace(-max_shift, max_shift, 401):
        best = np.minimum(best, np.abs(actual - np.interp(t + tau, t, reference)))
    return float(best.max() / np.ptp(reference))


@pytest.fixture
def shifted_error():
    return _shifted_error


def pytest_collection_modifyitems(config, items):
    """The validation models' friction joints slip (or are unloaded when they hold): the
    end-of-run report of joints stuck through a whole run must not fire on any of them, so it
    is an error here (issue 40: the report fires on a stuck arm, never on these)."""
    here = Path(__file__).resolve().parent
    stuck_is_an_error = pytest.mark.filterwarnings(
        "error:Friction stuck:acausal.base.errors.SimulationWarning")
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(stuck_is_an_error)

