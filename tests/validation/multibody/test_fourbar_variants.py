"""Four-bars closed by one rod joint (``examples_fourbars``): MultiBody's
``Examples.Loops.Fourbar2`` and ``ModelicaTest.MultiBody.FourbarVariants.SphericalSpherical`` /
``UniversalSpherical`` (MSL 4.0), against the Dymola references and invariants.

The reference folders of the two ModelicaTest models are named ``FourbarSphericalSpherical`` and
``FourbarUniversalSpherical`` but hold ``SphericalSpherical.csv`` and ``UniversalSpherical.csv``
(the files keep the model's name), so they are read here rather than through the ``msl``
fixture, which expects ``<folder>/<folder>.csv``. Missing files skip the comparison; every test
also checks values written inline.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np
import pytest

from acausal import compile
from acausal.components.multibody.examples_fourbars import (
    Fourbar2,
    FourbarSphericalSpherical,
    FourbarVariantsUniversalSpherical,
)

RTOL, ATOL = 1e-10, 1e-12
G_N = 9.80665

#: model -> (class, reference folder, reference file stem, j2.s at t = 0)
MODELS = {
    "Fourbar2": (Fourbar2, "Fourbar2", "Fourbar2", -0.2),
    "FourbarSphericalSpherical": (FourbarSphericalSpherical, "FourbarSphericalSpherical",
                                  "SphericalSpherical", 0.0),
    "FourbarVariantsUniversalSpherical": (FourbarVariantsUniversalSpherical,
                                          "FourbarUniversalSpherical", "UniversalSpherical",
                                          0.2),
}

#: Dymola's values (reference CSVs, MSL 4.0-rc.1, DASSL, tolerance 1e-6): j1.phi and j1.w at
#: t = 1 s, j1.phi at t = 5 s.
CHECKPOINTS = {
    "Fourbar2": (7.788225815557349, 9.292077218815809, 40.24125761610312),
    "FourbarSphericalSpherical": (7.852206644060374, 9.579157731999414, 40.66378000428761),
    "FourbarVariantsUniversalSpherical": (7.788225815557348, 9.29207721881582,
                                          40.24125761610443),
}


@pytest.fixture(scope="module")
def systems():
    """model -> (instance, compiled system), built once for the module."""
    out = {}
    for name, (cls, *_) in MODELS.items():
        model = cls()
        out[name] = (model, compile(model))
    return out


def reference(name: str) -> dict[str, np.ndarray]:
    """The reference columns of ``name`` (``time`` first, repeated times dropped), read from
    ``$ACAUSAL_REFERENCE_DIR/multibody`` or ``<repository>/../shared/reference/multibody``;
    skips the test when absent (as ``tests/validation/conftest.py`` does)."""
    _, folder, stem, _ = MODELS[name]
    root = os.environ.get("ACAUSAL_REFERENCE_DIR") \
        or Path(__file__).resolve().parents[4] / "shared" / "reference"
    path = Path(root) / "multibody" / folder / f"{stem}.csv"
    if not path.is_file():
        pytest.skip(f"reference result {path} not available (set ACAUSAL_REFERENCE_DIR to the "
                    "folder holding multibody/ to run the comparison)")
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    data = np.array([[float(v) for v in row] for row in rows[1:] if row])
    keep = np.concatenate([[True], np.diff(data[:, 0]) > 0])
    return {column: data[keep, i] for i, column in enumerate(rows[0])}


def mechanical_energy(sol, cs, model, split=False):
    """Energy of the two cylinders plus, in the SphericalSpherical variant, the rod's 1 kg
    point mass (gravity along -y)."""
    from acausal.components.multibody.energy import mechanical_energy as bodies_energy

    kinetic, potential = bodies_energy(sol, cs, [model.b1, model.b2], split=True)
    if isinstance(model, FourbarSphericalSpherical):
        v, r = sol["sphericalSpherical.v_CM_0"], sol["sphericalSpherical.r_CM_0"]
        kinetic = kinetic + 0.5 * 1.0 * np.sum(v * v, axis=0)
        potential = potential + 1.0 * G_N * r[1]
    return (kinetic, potential) if split else kinetic + potential


@pytest.mark.parametrize("name", list(MODELS))
def test_one_degree_of_freedom_and_the_initial_geometry(name, systems):
    """j1.phi and j2.s tied by the rod's one distance constraint: one degree of freedom, with
    the crank as state (stateSelect = always). The rod joint does not relate its frames'
    orientations, so there is no orientation loop to cut. At t = 0 the slider sits where
    MultiBody's initialization puts it: the rod end at x = 1 m, so j2.s = 1 - b3.r[0]."""
    from acausal.run.initialize import NEWTON_TOL

    model, cs = systems[name]
    assert cs.state_names == ["j1.phi", "j1.w"]
    assert cs.flat.loops == []
    sol = cs.simulate(0.1, t_eval=[0.0, 0.1], rtol=RTOL, atol=ATOL)
    # the geometry at t = 0 is the initialisation's (the same for any rtol, atol): its Newton
    # solve stops once the residual is below NEWTON_TOL (1e-10) relative to the unknowns' size,
    # of order one here as are the loop equations' derivatives, so these are within NEWTON_TOL
    # (measured: 2.3e-13 in SphericalSpherical, where the computed rod length couples the
    # solve; exact in the others), and the loop keeps the rod at its length
    assert sol["j2.s"][0] == pytest.approx(MODELS[name][3], abs=NEWTON_TOL)
    # (exact up to the initialisation's Newton solve, which SphericalSpherical's computed rod
    # length makes a coupled one)
    assert sol["j1.phi"][0] == pytest.approx(0.0, abs=1e-14)
    w0 = 5.235987755983 if name == "Fourbar2" else 5.235987755982989
    assert sol["j1.w"][0] == pytest.approx(w0, rel=1e-15)
    rod = sol["b1.frame_b.r_0"] - sol["b2.frame_b.r_0"]
    np.testing.assert_allclose(np.linalg.norm(rod, axis=0), math.sqrt(1.1), rtol=NEWTON_TOL)
    np.testing.assert_allclose(sol["b2.frame_b.r_0"][:, 0], [1.0, 0.2, 0.0], atol=NEWTON_TOL)


@pytest.mark.parametrize("name", list(MODELS))
def test_energy_is_conserved(name, systems):
    """Nothing dissipates and nothing drives: the energy spread is the integration error,
    proportional to rtol (5e-7 of E at 1e-8, 1e-8..3e-8 at 1e-10, 1e-9..3e-9 at 1e-11)."""
    model, cs = systems[name]
    sol = cs.simulate(5.0, n_points=2001, rtol=1e-11, atol=1e-13)
    e = mechanical_energy(sol, cs, model)
    assert np.ptp(e) / np.max(np.abs(e)) < 1e-8


@pytest.mark.parametrize("name", list(MODELS))
def test_checkpoints(name, systems):
    """Dymola's values typed in: at 1 s within 1e-4 of the ranges; at 5 s within 5e-5 (the
    reference drifts: test_the_references_lose_energy)."""
    _, cs = systems[name]
    phi1, w1, phi5 = CHECKPOINTS[name]
    sol = cs.simulate(5.0, t_eval=[0.0, 1.0, 5.0], rtol=RTOL, atol=ATOL)
    assert sol["j1.phi"][1] == pytest.approx(phi1, abs=2e-4)
    assert sol["j1.w"][1] == pytest.approx(w1, abs=5e-4)
    assert sol["j1.phi"][2] == pytest.approx(phi5, abs=2e-3)


@pytest.mark.parametrize("name", list(MODELS))
def test_matches_the_reference_while_it_is_accurate(name, systems, check_signal):
    """j1.phi over the whole 5 s, j1.w over the first 2 s (as Fourbar_analytic in
    test_loops.py): after that the reference's j1.w drifts away (2.7e-4 of the range at 5 s)
    while ours does not depend on the tolerance."""
    _, cs = systems[name]
    ref = reference(name)
    sol = cs.simulate(5.0, t_eval=ref["time"], rtol=RTOL, atol=ATOL)
    check_signal("j1.phi", sol["j1.phi"], ref["j1.phi"])
    first = ref["time"] <= 2.0
    check_signal("j1.w (t <= 2 s)", sol["j1.w"][first], ref["j1.w"][first])
    loose = cs.simulate(5.0, t_eval=ref["time"], rtol=1e-8, atol=1e-10)
    ours = np.max(np.abs(loose["j1.w"] - sol["j1.w"]))
    # the looser run's error: its local errors (1e-10 + 1e-8 |j1.w| a step) summed over its
    # fewer than 3e3 steps (at most 2.6e3 right-hand sides): 3.6e-4 (measured 5e-5 and
    # 1.2e-4 at tolerances 0.8 .. 1.3 times these)
    assert ours < 3e3 * (1e-10 + 1e-8 * np.max(np.abs(sol["j1.w"])))
    assert np.max(np.abs(sol["j1.w"] - ref["j1.w"])) > 10 * ours


@pytest.mark.parametrize("name", list(MODELS))
def test_the_references_lose_energy(name, systems):
    """Why j1.w is compared over 2 s only. With one degree of freedom the energy is
    E = M(q) qd^2 / 2 + V(q) with M, V functions of q = j1.phi alone; tabulated over one
    revolution from our run, they give the energy of any (q, qd) trajectory. Along ours it
    stays within 1e-8 of E; along Dymola's it moves by more than 2e-5 of E (it loses
    1.2e-5, 2.2e-5 and 1.2e-5 of E over 5 s), which the frictionless model cannot."""
    from scipy.interpolate import CubicSpline

    model, cs = systems[name]
    table = cs.simulate(1.0, n_points=8001, rtol=1e-11, atol=1e-13)
    kinetic, potential = mechanical_energy(table, cs, model, split=True)
    assert table["j1.phi"][-1] > 2 * np.pi
    rows = np.flatnonzero(table["j1.phi"] <= 2 * np.pi)
    q = table["j1.phi"][rows]
    mass = CubicSpline(q, 2 * kinetic[rows] / table["j1.w"][rows] ** 2)
    height = CubicSpline(q, potential[rows])

    def energy(angle, speed):
        angle = np.mod(angle, 2 * np.pi)
        return 0.5 * mass(angle) * speed**2 + height(angle)

    ref = reference(name)
    run = cs.simulate(5.0, t_eval=ref["time"], rtol=1e-11, atol=1e-13)
    e0 = abs(kinetic[0] + potential[0])
    assert np.ptp(energy(run["j1.phi"], run["j1.w"])) < 1e-8 * e0
    assert np.ptp(energy(ref["j1.phi"], ref["j1.w"])) > 2e-5 * e0


@pytest.mark.xfail(strict=True, reason=(
    "the Dymola reference (DASSL, tolerance 1e-6) loses energy the model cannot lose "
    "(test_the_references_lose_energy); its j1.w then differs from acausal's by 2.7e-4 of the "
    "range at 5 s (1.2e-4..1.3e-4 at 3 s)"))
@pytest.mark.parametrize("name", list(MODELS))
def test_j1_w_over_the_whole_span(name, systems, check_signal):
    _, cs = systems[name]
    ref = reference(name)
    sol = cs.simulate(5.0, t_eval=ref["time"], rtol=RTOL, atol=ATOL)
    check_signal("j1.w", sol["j1.w"], ref["j1.w"])


def test_fourbar2_and_the_universal_spherical_variant_are_one_mechanism(systems):
    """Fourbar2 and FourbarVariants.UniversalSpherical differ only in where the slider's base
    ends (b3.r[0] = 1.2 and 0.8, j2.s = -0.2 and 0.2) and in the universal joint's first axis,
    which only turns the massless rod's frame: the same motion (Dymola's two results agree to
    3e-12 too). In the variant, frame_ia is the rod's frame of a universal joint: rRod_ia
    resolved in it is the rod, and the joint's second axis (fixed in frame_ia) stays
    perpendicular to its first (n1_a, fixed in frame_a) and to the rod."""
    times = np.linspace(0.0, 5.0, 501)
    a = systems["Fourbar2"][1].simulate(5.0, t_eval=times, rtol=RTOL, atol=ATOL)
    b = systems["FourbarVariantsUniversalSpherical"][1].simulate(5.0, t_eval=times, rtol=RTOL,
                                                                 atol=ATOL)
    # each run is within the sum of its local errors (ATOL + RTOL |x|) over its fewer than
    # 5e3 steps (at most 4.5e3 right-hand sides) of the motion, the difference within twice
    # that: 4e-5 in j1.phi (which turns to 40 rad), 1.2e-5 in j1.w (12 rad/s at most), 4.4e-7
    # in j2.s; measured 5.2e-7, 1.3e-6 and 4.9e-8 at rtol 0.8e-10 .. 1.3e-10. 1 % more mass of
    # b1 in one of them moves j1.phi by 4e-2
    for name, shift in (("j1.phi", 0.0), ("j1.w", 0.0), ("j2.s", 0.4)):
        bound = 2 * 5e3 * (ATOL + RTOL * np.max(np.abs(a[name])))
        np.testing.assert_allclose(b[name], a[name] + shift, rtol=0, atol=bound, err_msg=name)

    r_ia = np.array([-1.0, 0.3, 0.1])
    n1_a = np.array([0.0, 1.0, 0.1]) / np.linalg.norm([0.0, 1.0, 0.1])
    e2_ia = np.cross(n1_a, r_ia)
    e2_ia /= np.linalg.norm(e2_ia)
    T_ia = b["universalSpherical.frame_ia.T"].reshape(3, 3, -1).transpose(2, 0, 1)
    T_a = b["universalSpherical.frame_a.T"].reshape(3, 3, -1).transpose(2, 0, 1)
    rod = (b["universalSpherical.frame_b.r_0"] - b["universalSpherical.frame_a.r_0"]).T
    np.testing.assert_allclose(np.einsum("kij,kj->ki", T_ia, rod), np.tile(r_ia, (501, 1)),
                               atol=1e-10)
    axis2 = np.einsum("kji,j->ki", T_ia, e2_ia)  # resolved in the world
    axis1 = np.einsum("kji,j->ki", T_a, n1_a)
    np.testing.assert_allclose(np.einsum("ki,ki->k", axis1, axis2), 0.0, atol=1e-10)
    np.testing.assert_allclose(np.einsum("ki,ki->k", rod, axis2), 0.0, atol=1e-10)


def test_the_rod_length_is_computed_at_initialisation(systems):
    """ModelicaTest's SphericalSpherical variant fixes j2.s = 0 and lets MultiBody compute the
    rod length (``computeRodLength = true``): here ``compute_rod_length=True`` makes
    ``rod_length`` a parameter with fixed=False (guess 1 m), solved at initialisation with the
    initial values: the crank tip (0, 0.5, 0.1) to the rod end (1, 0.2, 0) is sqrt(1.1) m,
    a constant of the run (a column of the result)."""
    from acausal.run.initialize import NEWTON_TOL

    model, cs = systems["FourbarSphericalSpherical"]
    assert [cs.parameter_names[i] for i in cs.computed_parameters] == [
        "sphericalSpherical.rod_length"]
    sol = cs.simulate(1.0, n_points=11, rtol=RTOL, atol=ATOL)
    length = sol["sphericalSpherical.rod_length"]
    # solved by the initialisation's Newton iteration, to NEWTON_TOL (1e-10: its residual
    # relative to the unknowns' size, of order one; measured 2.2e-13), whatever rtol, atol
    np.testing.assert_allclose(length, math.sqrt(1.1), rtol=0, atol=NEWTON_TOL)
    rod = sol["sphericalSpherical.rRod_0"]
    np.testing.assert_allclose(np.linalg.norm(rod, axis=0), math.sqrt(1.1), atol=1e-9)
    # another fixed slider position gives another length, without compiling again
    sol = cs.simulate(0.1, n_points=2, rtol=RTOL, atol=ATOL, start={"j2.s": 0.1})
    np.testing.assert_allclose(sol["sphericalSpherical.rod_length"],
                               math.sqrt(1.1**2 + 0.3**2 + 0.1**2), atol=NEWTON_TOL)
