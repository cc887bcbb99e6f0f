"""Sparse symbolic elimination of linear blocks (acausal/compiler/linear_elimination.py).

Checked on hand-made systems against numpy's dense solve (a tridiagonal system eliminates with
no fill; a pivot that passes through zero is never taken; a block with no safe pivot is left
whole; the safe pivots found on the samples' ranges are those of the test at every sample) and
on the spatial chain of revolute
joints and boxes, whose acceleration block is a tree: it compiles to an ODE (no algebraic
variables left), conserves energy, agrees with the numeric LU of the torn loop, and its
right-hand side grows linearly with the number of links; EngineV6's loops are eliminated
without pivots on expressions.
"""

import casadi as ca
import numpy as np
import pytest

import acausal.compiler.realize as realize
from acausal import compile
from acausal.compiler.linear_elimination import (
    SAMPLES,
    THRESHOLD,
    _Probe,
    _Samples,
    eliminate,
)
from acausal.components.multibody.chains import SpatialChain
from acausal.components.multibody.energy import mechanical_energy

RTOL = 1e-10


def _eliminate(a: ca.SX, b: ca.SX, x: ca.SX, rng: np.random.Generator):
    nz = ca.vertcat(*a.nonzeros())
    f = ca.Function("nz", [x], [nz])
    points = rng.uniform(-3.0, 3.0, (x.numel(), SAMPLES))
    samples = np.column_stack([np.array(f(points[:, k])).ravel() for k in range(SAMPLES)])
    names = [f"u{i}" for i in range(a.size1())]
    return eliminate(a, b, samples, x, ca.SX(0, 1), names)


def _solution(elimination, n):
    rem = [ca.SX.sym(f"r{k}") for k in range(len(elimination.remainder_cols))]
    if rem:
        solved = ca.solve(elimination.remainder_a, -elimination.remainder_b)
        rem = [solved[k] for k in range(len(rem))]
    values = elimination.solve(rem)
    return ca.vertcat(*[values[i] for i in range(n)])


def test_a_tridiagonal_system_eliminates_without_fill():
    n = 30
    x = ca.SX.sym("x", n)
    a = ca.SX(n, n)
    for i in range(n):
        a[i, i] = 4.0 + ca.cos(x[i])  # never zero: safe at every point
        if i + 1 < n:
            a[i, i + 1] = ca.sin(x[i])
            a[i + 1, i] = 1.0
    b = ca.vertcat(*[ca.sin(x[i]) + i for i in range(n)])
    elimination = _eliminate(a, b, x, np.random.default_rng(1))
    assert elimination.report.fill == 0
    assert elimination.report.remainder == []
    u = _solution(elimination, n)
    f = ca.Function("u", [x], [u, ca.densify(a), b])
    for point in np.random.default_rng(2).uniform(-5, 5, (4, n)):
        got, a_num, b_num = (np.array(m) for m in f(point))
        assert np.allclose(got.ravel(), np.linalg.solve(a_num, -b_num).ravel(), rtol=1e-12,
                           atol=1e-12)


def test_a_pivot_that_passes_through_zero_is_not_taken():
    # u0 sin(x) + u1 = b0, u0 = b1: sin(x) is a nonzero entry at almost every point, but a
    # pivot on it fails at x = 0; the elimination must take the two entries 1 instead
    x = ca.SX.sym("x")
    a = ca.SX(2, 2)
    a[0, 0] = ca.sin(x)
    a[0, 1] = 1.0
    a[1, 0] = 1.0
    b = ca.vertcat(-2.0, -3.0)
    elimination = _eliminate(a, b, x, np.random.default_rng(3))
    u = _solution(elimination, 2)
    value = np.array(ca.Function("u", [x], [u])(0.0)).ravel()
    assert np.all(np.isfinite(value))
    assert np.allclose(value, [3.0, 2.0])


def test_a_block_whose_pivots_all_change_sign_is_left_as_remainder():
    # the pivots of this block change sign wherever they are taken: all stays in the remainder
    x = ca.SX.sym("x", 2)
    a = ca.SX(2, 2)
    a[0, 0], a[0, 1] = ca.sin(x[0]), ca.cos(x[0])
    a[1, 0], a[1, 1] = -ca.cos(x[1]), ca.sin(x[1])
    elimination = _eliminate(a, ca.vertcat(1.0, 2.0), x, np.random.default_rng(4))
    assert len(elimination.remainder_cols) == 2
    assert elimination.report.eliminated == 0


def test_the_safe_pivots_are_those_of_the_test_at_every_sample():
    # the probes decide the threshold test on each entry's range of samples where it suffices
    # and compare sample by sample elsewhere: the safe rows must be those of the test at every
    # sample (magnitudes within two decades in the first columns, over nine in the others,
    # entries that change sign, a NaN, an infinity)
    rng = np.random.default_rng(5)
    n = 12
    entries = [(i, j) for i in range(n) for j in range(n) if i == j or rng.random() < 0.4]
    sign = rng.choice([-1.0, 1.0], (len(entries), 1))
    decades = np.array([[(-1, 1) if j < n // 2 else (-6, 3)] for _, j in entries])
    values = sign * 10.0 ** rng.uniform(decades[..., 0], decades[..., 1]) \
        * rng.uniform(0.5, 2.0, (len(entries), SAMPLES))
    values[rng.random(len(entries)) < 0.15, 0] *= -1.0
    values[rng.random(len(entries)) < 0.1] *= 10.0 ** rng.uniform(-4, 0, SAMPLES)
    values[3, 5], values[17, 2] = np.nan, np.inf
    probe = _Probe(n, entries, values, [True] * len(entries), [False] * len(entries),
                   [0] * n, _Samples(SAMPLES))
    for j in range(n):
        ids = [k for k, (_, col) in enumerate(entries) if col == j]
        v = values[ids]
        a = np.abs(v)
        ok = (np.all(v > 0, axis=1) | np.all(v < 0, axis=1)) \
            & np.all(a >= THRESHOLD * a.max(axis=0), axis=1)
        expected = {entries[k][0] for k, passes in zip(ids, ok) if passes}
        assert {i for i, _ in probe._safe_rows(j)} == expected


N = 8  # 14 tear variables: more than MAX_SYMBOLIC_LINEAR_LOOP


@pytest.fixture(scope="module")
def chain():
    model = SpatialChain(n=N)
    return model, compile(model)


def test_the_chain_is_an_ode_after_elimination(chain):
    model, cs = chain
    assert cs.z.numel() == 0
    (report,) = cs.linear_eliminations
    assert report.eliminated == report.size and not report.remainder
    assert "eliminated in its sparsity's order" in cs.summary()
    sol = cs.simulate(1.0, rtol=RTOL, atol=RTOL)
    # no damping: the energy is an invariant (its change is the integration error, ~rtol)
    energy = mechanical_energy(sol, cs, model.links)
    kinetic, _ = mechanical_energy(sol, cs, model.links, split=True)
    assert np.abs(energy - energy[0]).max() < 100 * RTOL * kinetic.max()


def test_the_elimination_agrees_with_the_numeric_solve_of_the_torn_loop(chain, monkeypatch):
    _, cs = chain
    sol = cs.simulate(1.0, rtol=RTOL, atol=RTOL)
    monkeypatch.setattr(realize, "ELIMINATE_LINEAR_BLOCKS", False)
    torn = compile(SpatialChain(n=N))
    assert torn.z.numel() == 2 * N - 2
    ref = torn.simulate(1.0, rtol=RTOL, atol=RTOL)
    tip = f"links[{N - 1}].frame_b.r_0"
    # the same ODE for CVODE: the two differ by rounding, amplified over the run
    assert np.abs(sol[tip] - ref[tip]).max() < 1e-8


def _instructions(n: int) -> int:
    cs = compile(SpatialChain(n=n))
    return ca.Function("f", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg]).n_instructions()


def test_the_right_hand_side_grows_linearly():
    # a dense solve of the torn loop grows like N^3; the elimination like N: eliminated body by
    # body (the components' levels), each link adds the same work a few links away from the
    # free end; the links nearer it cost less, so doubling N from 20 more than doubles the
    # count (measured: 2.21x; by the unknowns' own levels, 2.52x)
    small, large = _instructions(20), _instructions(40)
    assert large < 2.35 * small


def test_a_loop_is_eliminated_without_pivots_on_expressions_where_an_order_allows():
    # EngineV6's six loops: by components the elimination takes three pivots on expressions
    # (one vanishes 0.04 s into the run, where IDA then fails), from the ends of the unknowns'
    # graph none; the race takes an order without them wherever one exists
    from acausal.components.multibody.examples_engines import EngineV6

    (report,) = compile(EngineV6()).linear_eliminations
    assert report.expression_pivots == 0 and report.remainder
