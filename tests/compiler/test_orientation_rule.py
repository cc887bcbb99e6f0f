"""The orientation rule der(T) = -skew(w) T (acausal/compiler/structure/orientation_rule.py)."""

from __future__ import annotations

import numpy as np
import pytest

import acausal
import acausal.compiler.pipeline as pipeline
import acausal.compiler.structure.orientation_rule as orientation_rule
from acausal.components.multibody.chains import SpatialChain
from acausal.components.multibody.examples import Fourbar1


def _without_rule(system, aliases, dummies):
    return system, aliases, dummies, None


def _states(cs, t_end: float) -> dict[str, np.ndarray]:
    sol = cs.simulate(t_end, rtol=1e-12, atol=1e-14, dynamic_state_selection=False)
    return {name: np.asarray(sol[name]) for name in cs.state_names}


def test_the_chain_keeps_no_derivative_of_an_orientation():
    cs = acausal.compile(SpatialChain(n=5))
    rule = cs.orientation_rule
    assert not rule.skipped
    assert rule.equations_removed == rule.variables_removed > 0
    names = [cs.system.name(v) for v in range(cs.system.n_vars)]
    assert not [n for n in names if n.startswith("der(") and ".T[" in n]
    assert (f"orientation rule der(T) = -skew(w) T: {rule.variables_removed} derivatives"
            in cs.summary())


def test_the_chain_moves_as_without_the_rule(monkeypatch):
    with_rule = _states(acausal.compile(SpatialChain(n=4)), 1.0)
    monkeypatch.setattr(pipeline, "apply_orientation_rule", _without_rule)
    without = _states(acausal.compile(SpatialChain(n=4)), 1.0)
    assert with_rule.keys() == without.keys()
    for name, x in with_rule.items():
        assert np.max(np.abs(x - without[name])) < 1e-8, name


def test_a_kinematic_loop_moves_as_without_the_rule(monkeypatch):
    """Fourbar1 (closed by the orientation residue) selects its states numerically, so the
    rule leaves it alone; with static selection it is a kinematic loop (joint angles that are
    not states), which the rule skips by default (orientation_rule.WITH_LOOPS); applied, the
    loop moves as without it."""
    assert acausal.compile(Fourbar1()).orientation_rule is None
    monkeypatch.setattr(pipeline, "DYNAMIC_SELECTION_LIMIT", -1)
    assert acausal.compile(Fourbar1()).orientation_rule.skipped.startswith("a kinematic loop")
    monkeypatch.setattr(orientation_rule, "WITH_LOOPS", True)
    cs = acausal.compile(Fourbar1())
    assert cs.orientation_rule.equations_removed > 0 and not cs.orientation_rule.skipped
    with_rule = _states(cs, 1.0)
    monkeypatch.setattr(pipeline, "apply_orientation_rule", _without_rule)
    without = _states(acausal.compile(Fourbar1()), 1.0)
    for name, x in with_rule.items():
        assert np.max(np.abs(x - without[name])) < 1e-8, name


def test_asking_a_rewritten_model_for_dynamic_state_selection_is_told_it_has_none():
    cs = acausal.compile(SpatialChain(n=2))
    assert not cs.orientation_rule.skipped and cs.selector is None
    with pytest.warns(RuntimeWarning, match="stay the ones the compiler chose"):
        cs.simulate(0.01, dynamic_state_selection=True)
