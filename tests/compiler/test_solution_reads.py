"""Reading a few variables of a solution evaluates those alone.

``sol[name]`` for a variable that is neither a state nor a parameter evaluates the model's
observed function over the output points. A handful of variables read one at a time are
evaluated alone (their own expressions), and without the algebraic variables where they do not
depend on them, so a fine output grid costs little when a plot reads two signals; past
``ROWS_ONE_BY_ONE`` variables, and for a table, every variable is evaluated at once. Both must
give the same numbers as evaluating the whole model.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import compile
from acausal.compiler.realize import torn_linear_loops
from acausal.components.multibody.chains import SpatialChain
from acausal.run import solution as solution_module


@pytest.fixture(scope="module")
def chain():
    """An 8-link chain: its loop's forces and accelerations are algebraic variables, computed
    from the states at the output points on first need; positions depend on states only (the
    loop kept torn: the compiler would eliminate this tree's loop in the order of its
    sparsity)."""
    with torn_linear_loops():
        cs = compile(SpatialChain(n=8))
    return cs, cs.simulate(1.0, n_points=201, rtol=1e-8, atol=1e-8,
                           integrator_options={"method": "Adams"})


def whole_model(sol):
    cs = sol.compiled
    return np.array(cs.function("observed")(sol.t.reshape(1, -1), sol.x, sol.z,
                                            cs.parameter_vector()))


def test_a_position_is_read_without_the_loop_solve(chain):
    cs, sol = chain
    fresh = cs.simulate(1.0, n_points=201, rtol=1e-8, atol=1e-8,
                        integrator_options={"method": "Adams"})
    tip = fresh["links[7].frame_b.r_0"]
    assert fresh._z is None  # the algebraic variables were not computed for it
    force = fresh["joints[3].frame_a.f"]  # a cut force needs them
    assert fresh._z is not None
    expected = whole_model(fresh)
    for name, values in (("links[7].frame_b.r_0", tip), ("joints[3].frame_a.f", force)):
        rows = [cs.locate(f"{name}[{i}]") for i in range(3)]
        np.testing.assert_array_equal(values, np.array([s * expected[r] for s, r in rows]))


def test_many_reads_switch_to_the_whole_model(chain, monkeypatch):
    cs, _ = chain
    sol = cs.simulate(1.0, n_points=51, rtol=1e-8, atol=1e-8,
                      integrator_options={"method": "Adams"})
    monkeypatch.setattr(solution_module, "ROWS_ONE_BY_ONE", 2)
    names = [f"links[{i}].frame_b.r_0[0]" for i in range(5)]
    values = [sol[n] for n in names]
    assert sol._values is not None  # after two single reads, all at once
    expected = whole_model(sol)
    for name, v in zip(names, values):
        sign, row = cs.locate(name)
        np.testing.assert_array_equal(v, sign * expected[row])


def test_a_table_evaluates_the_whole_model_once(chain):
    cs, _ = chain
    sol = cs.simulate(1.0, n_points=51, rtol=1e-8, atol=1e-8,
                      integrator_options={"method": "Adams"})
    names = sol.scalar_names()[:solution_module.ROWS_ONE_BY_ONE + 5]
    columns = sol._columns(names)
    assert sol._values is not None and not sol._rows
    assert [c[0] for c in columns] == names
