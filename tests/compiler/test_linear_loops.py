"""Linear algebraic loops solved inside the generated functions, and CVODE's Adams method.

A spatial chain of revolute joints and bodies (``multibody.chains.SpatialChain``) leaves, after
tearing, a linear loop in the coupled accelerations and cut forces (2N - 2 tear variables for
N links). Loops of at most ``MAX_SYMBOLIC_LINEAR_LOOP`` tear variables are solved symbolically
in the compiled expressions; larger ones stay algebraic variables z with
``g = A(t, x, p) z + b(t, x, p)``, and the solver problem solves them by a numeric LU inside its
CasADi functions: CVODE integrates the states alone (see docs/compiler.md, "Linear loops").
Checked against physics (energy is conserved), the algebraic equations (z consistent at every
output point) and the same chain with the loop solved symbolically instead.
"""

import numpy as np
import pytest

import acausal.compiler.realize as realize
from acausal import InputError, compile
from acausal.components.multibody.chains import SpatialChain
from acausal.components.multibody.energy import mechanical_energy
from acausal.run.solver_functions import linear_in_algebraics

N = 8  # 14 tear variables: more than MAX_SYMBOLIC_LINEAR_LOOP
RTOL = 1e-10


@pytest.fixture(scope="module")
def chain():
    # the torn loop kept (the compiler eliminates this chain's loop in the order of its
    # sparsity: tests/compiler/test_linear_elimination.py); a loop whose pivots pass through
    # zero leaves such a remainder
    model = SpatialChain(n=N)
    with realize.torn_linear_loops():
        return model, compile(model)


def test_the_chain_leaves_a_linear_loop_that_cvode_integrates(chain):
    model, cs = chain
    assert cs.z.numel() == 2 * N - 2 > realize.MAX_SYMBOLIC_LINEAR_LOOP
    assert linear_in_algebraics(cs)
    sol = cs.simulate(1.0, rtol=RTOL, atol=RTOL)
    assert sol.stats["solver"] == "CVODE"
    # z at the output points solves the algebraic equations (to rounding error, relative to
    # the size of their terms)
    alg = cs.function("alg").map(sol.t.size)
    res = np.array(alg(sol.t.reshape(1, -1), sol.x, sol.z,
                       np.tile(cs.parameter_values.reshape(-1, 1), (1, sol.t.size))))
    assert np.abs(res).max() < 1e-9 * max(1.0, np.abs(sol.z).max())
    # no damping: the energy is an invariant (its change is the integration error, ~rtol)
    energy = mechanical_energy(sol, cs, model.links)
    kinetic, _ = mechanical_energy(sol, cs, model.links, split=True)
    assert np.abs(energy - energy[0]).max() < 100 * RTOL * kinetic.max()


def test_the_numeric_solve_agrees_with_the_symbolic_one(chain, monkeypatch):
    _, cs = chain
    bdf = {"method": "BDF"}  # the same integrator for both: the comparison is of the solves
    sol = cs.simulate(1.0, rtol=RTOL, atol=RTOL, integrator_options=bdf)
    monkeypatch.setattr(realize, "MAX_SYMBOLIC_LINEAR_LOOP", 2 * N)
    monkeypatch.setattr(realize, "ELIMINATE_LINEAR_BLOCKS", False)
    symbolic = compile(SpatialChain(n=N))
    assert symbolic.z.numel() == 0  # the loop solved in the expressions: an ODE
    ref = symbolic.simulate(1.0, rtol=RTOL, atol=RTOL, integrator_options=bdf)
    tip = f"links[{N - 1}].frame_b.r_0"
    # the same ODE for CVODE: the two differ by rounding, amplified over the run
    assert np.abs(sol[tip] - ref[tip]).max() < 1e-9


def test_adams_is_cvodes_other_method(chain):
    _, cs = chain
    bdf = cs.simulate(1.0, rtol=RTOL, atol=RTOL, integrator_options={"method": "BDF"})
    adams = cs.simulate(1.0, rtol=RTOL, atol=RTOL, integrator_options={"method": "Adams"})
    tip = f"links[{N - 1}].frame_b.r_0"
    assert np.abs(adams[tip] - bdf[tip]).max() < 1e-7
    # non-stiff: Adams' higher orders take fewer right-hand sides at this tolerance
    assert adams.stats["rhs_evaluations"] < bdf.stats["rhs_evaluations"]
    with pytest.raises(InputError, match="method"):
        cs.simulate(1.0, integrator_options={"method": "RK4"})
