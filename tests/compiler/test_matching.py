"""Maximum bipartite matching (acausal.compiler.structure.matching) on hand-made incidence lists."""

from __future__ import annotations

import random
import sys

import networkx as nx
import pytest

from acausal.compiler.structure.matching import Matching, maximum_matching


def assert_valid(m: Matching, incidence, n_vars: int) -> int:
    """The matching is consistent and uses only incident pairs; returns its size."""
    assert len(m.eq_to_var) == len(incidence)
    assert len(m.var_to_eq) == n_vars
    size = 0
    for e, v in enumerate(m.eq_to_var):
        if v == -1:
            continue
        assert v in incidence[e], f"equation {e} matched to non-incident variable {v}"
        assert m.var_to_eq[v] == e
        size += 1
    for v, e in enumerate(m.var_to_eq):
        if e != -1:
            assert m.eq_to_var[e] == v
    return size


def test_perfect_matching_of_a_square_system():
    incidence = [[0, 1], [1, 2], [2]]
    m = maximum_matching(3, 3, incidence)
    assert assert_valid(m, incidence, 3) == 3
    # equation 2 can only take variable 2, which forces 1 -> 1 and 0 -> 0
    assert m.eq_to_var == [0, 1, 2]


def test_deficient_graph_leaves_equations_and_variables_unmatched():
    # three equations that all contain only variable 0, and a variable nobody uses
    incidence = [[0], [0], [0]]
    m = maximum_matching(3, 2, incidence)
    assert assert_valid(m, incidence, 2) == 1
    assert m.eq_to_var.count(-1) == 2
    assert m.var_to_eq[1] == -1


def test_empty_equation_is_unmatched():
    incidence = [[], [0]]
    m = maximum_matching(2, 1, incidence)
    assert m.eq_to_var == [-1, 0]


def test_augmenting_path_is_needed_after_the_greedy_pass():
    # Greedy gives eq0 -> v0; eq1 can only use v0, so eq0 must move to v1.
    incidence = [[0, 1], [0]]
    m = maximum_matching(2, 2, incidence)
    assert assert_valid(m, incidence, 2) == 2
    assert m.eq_to_var == [1, 0]


def test_augmenting_path_through_several_equations():
    # greedy: e0->0, e1->1, e2->2; e3 only has 0: path e3-0-e0-1-e1-2-e2-3
    incidence = [[0, 1], [1, 2], [2, 3], [0]]
    m = maximum_matching(4, 4, incidence)
    assert assert_valid(m, incidence, 4) == 4
    assert m.eq_to_var == [1, 2, 3, 0]


def test_allowed_restricts_the_variables():
    incidence = [[0, 1], [1]]
    m = maximum_matching(2, 2, incidence, allowed=lambda v: v != 0)
    assert assert_valid(m, incidence, 2) == 1
    assert m.var_to_eq[0] == -1


def test_failed_augment_reports_the_singular_subset():
    incidence = [[0, 1], [0, 1], [0, 1]]
    m = maximum_matching(3, 3, incidence)
    assert assert_valid(m, incidence, 3) == 2
    free = m.eq_to_var.index(-1)
    visited_eqs: list[int] = []
    visited_vars: list[int] = []
    assert not m.augment(free, incidence, None, visited_eqs, visited_vars)
    assert sorted(visited_eqs) == [0, 1, 2]
    assert sorted(visited_vars) == [0, 1]
    # a failed search leaves the matching unchanged
    assert assert_valid(m, incidence, 3) == 2


def test_grow_adds_unmatched_slots():
    m = maximum_matching(1, 1, [[0]])
    m.grow(3, 4)
    assert m.eq_to_var == [0, -1, -1]
    assert m.var_to_eq == [0, -1, -1, -1]
    assert m.augment(2, [[0], [], [0, 3]])
    assert m.eq_to_var[2] == 3


def test_long_chain_needs_no_recursion():
    """20000 equations whose last one forces an augmenting path through all the others."""
    n = 20000
    incidence = [[i, i + 1] for i in range(n - 1)] + [[0]]
    limit = sys.getrecursionlimit()
    assert n > limit  # a recursive search would fail here
    m = maximum_matching(n, n, incidence)
    assert assert_valid(m, incidence, n) == n
    assert m.eq_to_var[-1] == 0
    assert m.eq_to_var[0] == 1
    assert m.eq_to_var[n - 2] == n - 1


def test_long_chain_of_deficient_system():
    n = 20000
    incidence = [[i, i + 1] for i in range(n - 1)] + [[0], [0]]
    m = maximum_matching(n + 1, n, incidence)
    assert assert_valid(m, incidence, n) == n


@pytest.mark.parametrize("any_perfect", [False, True])
@pytest.mark.parametrize("seed", range(30))
def test_size_agrees_with_networkx_on_random_graphs(seed, any_perfect):
    rng = random.Random(seed)
    n_eqs = rng.randint(1, 25)
    n_vars = rng.randint(1, 25)
    density = rng.uniform(0.05, 0.3)
    incidence = [sorted({v for v in range(n_vars) if rng.random() < density})
                 for _ in range(n_eqs)]
    m = maximum_matching(n_eqs, n_vars, incidence, any_perfect=any_perfect)
    size = assert_valid(m, incidence, n_vars)
    g = nx.Graph()
    eqs = [("e", e) for e in range(n_eqs)]
    g.add_nodes_from(eqs)
    g.add_nodes_from(("v", v) for v in range(n_vars))
    g.add_edges_from((("e", e), ("v", v)) for e, vs in enumerate(incidence) for v in vs)
    reference = nx.bipartite.maximum_matching(g, top_nodes=eqs)
    assert size == len(reference) // 2


@pytest.mark.parametrize("any_perfect", [False, True])
@pytest.mark.parametrize("seed", range(20))
def test_perfect_matchings_found_on_random_square_systems(seed, any_perfect):
    # a hidden perfect matching (a permutation) plus random extra entries: the Karp-Sipser start
    # must complete to a perfect matching
    rng = random.Random(seed)
    n = rng.randint(2, 60)
    perm = list(range(n))
    rng.shuffle(perm)
    incidence = [sorted({perm[e]} | {v for v in range(n) if rng.random() < 0.08})
                 for e in range(n)]
    m = maximum_matching(n, n, incidence, any_perfect=any_perfect)
    assert assert_valid(m, incidence, n) == n


@pytest.mark.parametrize("seed", range(40))
def test_phases_complete_what_karp_sipser_leaves(seed):
    """Square systems of three variables an equation around a hidden permutation: Karp-Sipser
    leaves an equation or two unmatched in a third of them, and the phases
    (``any_perfect=True``, the structural check) must complete every one to a perfect
    matching, as the searches one equation after another do."""
    rng = random.Random(seed)
    n = rng.randint(20, 200)
    perm = list(range(n))
    rng.shuffle(perm)
    incidence = [sorted({perm[e], rng.randrange(n), rng.randrange(n)}) for e in range(n)]
    for any_perfect in (True, False):
        m = maximum_matching(n, n, incidence, any_perfect=any_perfect)
        assert assert_valid(m, incidence, n) == n


def test_chains_are_matched_without_augmenting_paths(monkeypatch):
    # the plain greedy start leaves the last equation of this chain to an augmenting path
    # through all the others (test_long_chain_needs_no_recursion); Karp-Sipser's rule matches
    # the equation with a single variable first and the rest follows
    calls = []
    original = Matching.augment

    def counted(self, *args, **kw):
        calls.append(args[0])
        return original(self, *args, **kw)

    monkeypatch.setattr(Matching, "augment", counted)
    n = 2000
    incidence = [[i, i + 1] for i in range(n - 1)] + [[0]]
    m = maximum_matching(n, n, incidence)
    assert assert_valid(m, incidence, n) == n
    assert calls == []


def test_a_singular_system_names_the_later_conflicting_equation():
    # two equations for one variable: the start that would keep the later one is not used
    # when the matching is not perfect, so the error names the later one, as always
    incidence = [[0], [0]]
    m = maximum_matching(2, 1, incidence)
    assert m.eq_to_var == [0, -1]


def test_a_variable_listed_twice_in_an_equation_counts_once():
    """Karp-Sipser's degrees count each variable of an equation once (a repeated entry would
    make a variable look shared and an equation look larger than they are)."""
    incidence = [[0, 0, 1], [1, 1], [2, 1, 2]]
    m = maximum_matching(3, 3, incidence)
    assert sorted(m.eq_to_var) == [0, 1, 2]
    assert m.eq_to_var[1] == 1 and m.eq_to_var[0] == 0 and m.eq_to_var[2] == 2
    assert incidence == [[0, 0, 1], [1, 1], [2, 1, 2]]  # the caller's lists are left as given
