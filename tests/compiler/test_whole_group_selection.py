"""State selection decided by priorities and structure (dummy_derivatives._pick_whole_groups).

Where the lowest priority groups of a level's part have exactly as many columns as it has rows
and those columns are certified regular, every greedy choice (dense elimination or QR with
column pivoting) takes exactly those columns; ``_pick_whole_groups`` returns them without the
dense QR, and None wherever the numbers could decide. These tests check both halves: it agrees
with the greedy choices whenever it answers, and it declines a split group or a (nearly)
singular block.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal.compiler.flatten import flatten
from acausal.compiler.structure import dummy_derivatives as dd
from acausal.compiler.structure.alias import eliminate_aliases
from acausal.compiler.structure.pantelides import pantelides
from acausal.compiler.structure.system import build_equation_system
from acausal.components.multibody.chains import SpatialChain


def _random_part(rng, m: int, extra: int) -> tuple[np.ndarray, list[float]]:
    """A sparse m x (m + extra) block and its priorities: m columns of priorities 0, 1 or 2
    (random) that are regular with probability one (a diagonal plus sparse noise), and
    ``extra`` columns of priority 5; the columns are shuffled, as the groups are found by
    priority, not by position."""
    density = rng.uniform(0.05, 0.3)
    a = np.where(rng.random((m, m + extra)) < density, rng.normal(size=(m, m + extra)), 0.0)
    a[np.arange(m), np.arange(m)] += rng.choice([-1.0, 1.0], m) * rng.uniform(0.5, 2.0, m)
    prios = [float(p) for p in rng.integers(0, 3, m)] + [5.0] * extra
    order = rng.permutation(m + extra)
    return a[:, order], [prios[k] for k in order]


def test_agrees_with_both_greedy_choices_whenever_it_answers():
    rng = np.random.default_rng(42)
    answered = 0
    for _ in range(200):
        m, extra = int(rng.integers(2, 40)), int(rng.integers(0, 6))
        a, prios = _random_part(rng, m, extra)
        whole = dd._pick_whole_groups(a, prios, m)
        dense = dd._pick_columns(a, prios, m)
        by_qr = dd._pick_columns_by_qr(a, prios, m)
        assert dense is not None and by_qr is not None
        assert sorted(dense) == sorted(by_qr)
        if whole is not None:
            answered += 1
            assert sorted(whole) == sorted(dense)
            assert all(prios[c] < 5.0 for c in whole)
    # the blocks are regular with probability one: nearly all must be decided here
    assert answered >= 190


def test_a_group_split_by_the_numbers_is_left_to_the_greedy_choice():
    # one row, two columns of equal priority: which one is the dummy is a numerical choice
    a = np.array([[0.3, -0.9]])
    assert dd._pick_whole_groups(a, [0.0, 0.0], 1) is None
    assert dd._pick_columns_by_qr(a, [0.0, 0.0], 1) == [1]
    # groups of 2 and 2 columns for 3 rows: the second group is split
    a = np.eye(3, 4) + np.eye(3, 4, 1)
    assert dd._pick_whole_groups(a, [0.0, 0.0, 1.0, 1.0], 3) is None


def test_a_singular_block_of_the_lowest_groups_is_left_to_the_greedy_choice():
    # the two lowest-priority columns are equal: the greedy choice swaps one for column 2
    a = np.array([[1.0, 1.0, 0.0],
                  [2.0, 2.0, 1.0]])
    prios = [0.0, 0.0, 1.0]
    assert dd._pick_whole_groups(a, prios, 2) is None
    assert sorted(dd._pick_columns_by_qr(a, prios, 2)) in ([0, 2], [1, 2])


@pytest.mark.parametrize("gap", [1e-8, 1e-10])
def test_a_nearly_singular_block_is_left_to_the_greedy_choice(gap):
    # sigma_min of the lowest columns is ~gap * 0.5: above the rank tolerance (1e-9 of the
    # largest entry) for gap = 1e-8, below it for 1e-10. Both are within the certificate's
    # margin, so the greedy choices decide: all of the lowest columns in the first case, the
    # third column instead of one of them in the second.
    a = np.array([[1.0, 1.0, 0.0],
                  [1.0, 1.0 + gap, 1.0]])
    prios = [0.0, 0.0, 1.0]
    assert dd._pick_whole_groups(a, prios, 2) is None
    expected = [[0, 1]] if gap > dd.RANK_TOLERANCE else [[0, 2], [1, 2]]
    assert sorted(dd._pick_columns_by_qr(a, prios, 2)) in expected
    assert sorted(dd._pick_columns(a, prios, 2)) in expected


def test_non_finite_or_zero_blocks_are_left_to_the_greedy_choice():
    assert dd._pick_whole_groups(np.array([[np.nan, 1.0]]), [0.0, 1.0], 1) is None
    assert dd._pick_whole_groups(np.zeros((2, 2)), [0.0, 0.0], 2) is None


def _selector(model):
    flat = flatten(model)
    system, _ = eliminate_aliases(build_equation_system(flat))
    pantelides(system)
    point = {v: float(i.start) for v, i in enumerate(system.info)
             if i is not None and i.start is not None}
    params = {p.symbol: float(p.value) for p in flat.parameters}
    return system, point, params


def test_spatial_chain_is_decided_by_structure_with_the_same_states(monkeypatch):
    # Every part of both levels brought into the QR range: the chain's choice (all rotation
    # matrix entries and frame velocities, none of the joint angles) is certified part by part
    # and equals the QR's.
    monkeypatch.setattr(dd, "DENSE_SELECTION_LIMIT", 0)
    system, point, params = _selector(SpatialChain(n=6))
    answers = []
    whole = dd._pick_whole_groups

    def spy(a, prios, m):
        answers.append(whole(a, prios, m))
        return answers[-1]

    monkeypatch.setattr(dd, "_pick_whole_groups", spy)
    dummies = dd.StateSelector(system, params).select(point)
    assert len(answers) >= 2 and all(pick is not None for pick in answers)
    states = sorted(system.name(v) for v in dd.states_after_selection(system, dummies))
    assert states == sorted(f"joints[{i}].{v}" for i in range(6) for v in ("phi", "w"))

    monkeypatch.setattr(dd, "_pick_whole_groups", lambda a, prios, m: None)
    assert dd.StateSelector(system, params).select(point) == dummies


def test_pendulum_choice_by_numbers_still_goes_through_the_qr(monkeypatch, pendulum):
    # x and y have equal priority: near the bottom |y| > |x|, so der(vy)/vy are the dummies.
    monkeypatch.setattr(dd, "DENSE_SELECTION_LIMIT", 0)
    system, point, params = _selector(pendulum(0.4))
    selector = dd.StateSelector(system, params)
    dummies = selector.select(point)
    assert sorted(system.name(v) for v in dummies) == ["der(vy)", "vy"]
    assert selector.decided_by_numbers
