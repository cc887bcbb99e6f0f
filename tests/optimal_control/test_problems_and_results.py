"""Index-1 DAEs, guesses, design parameters, free starts, the result's interfaces and the MPC."""

from __future__ import annotations

import numpy as np
import pytest
from ocp_models import Sled

from acausal import (
    MPC,
    Component,
    Eq,
    Input,
    InputError,
    OptimalControl,
    Solution,
    UnknownNameError,
    Variable,
    compile,
    der,
)


class ImplicitDrag(Component):
    """A unit mass with a drag force given implicitly: ``f + f^3 = 2 v`` (a nonlinear
    algebraic equation the compiler leaves to the DAE's tear variable)."""

    u = Input(0.0)  # numbers without units: a unit mass, forces in N
    s = Variable(start=0.0, fixed=True)
    v = Variable(start=0.0, fixed=True)
    f = Variable(start=0.0)

    def equations(self):
        return [Eq(der(self.s), self.v), Eq(der(self.v), self.u - self.f),
                Eq(self.f + self.f**3, 2 * self.v)]


@pytest.fixture(scope="module")
def drag():
    system = compile(ImplicitDrag())
    assert system.algebraic_names == ["f"]  # a true DAE: f is a tear variable
    return system


def _drag_problem(drag):
    ocp = OptimalControl(drag, t_end=2.0)
    ocp.control("u", lower=-5.0, upper=5.0)
    ocp.end("s", 1.0).end("v", 0.0)
    ocp.path("f", upper=0.8)  # an algebraic variable bounded along the path
    ocp.minimize(lagrange="u**2")
    return ocp


def test_dae_with_algebraic_path_constraint(drag):
    res = _drag_problem(drag).solve(elements=30)
    assert res.success
    assert res["f"].max() <= 0.8 + 1e-7
    assert res["f"].max() > 0.79  # the bound is active: without it f would go higher
    # the algebraic equation holds at the mesh points
    f, v = res["f"], res["v"]
    assert np.max(np.abs(f + f**3 - 2 * v)) < 1e-8
    check = res.verify(rtol=1e-10)
    assert check.max_difference <= res.collocation_error + 1e-8


def test_the_optimum_does_not_depend_on_the_guess(drag):
    ocp = _drag_problem(drag)
    plain = ocp.solve(elements=30)
    sim = drag.simulate(2.0, params={"u": 0.5})
    from_sim = ocp.solve(elements=30, guess=sim)
    from_table = ocp.solve(elements=30, guess={"s": ([0.0, 2.0], [0.0, 1.0]), "u": 0.3})
    from_law = ocp.solve(elements=30, guess=lambda t, values: {"u": 2.0 * (1.0 - values["s"])
                                                               - 2.0 * values["v"]})
    for other in (from_sim, from_table, from_law):
        assert other.objective == pytest.approx(plain.objective, rel=1e-7)


def test_design_parameter_and_free_start():
    sled = compile(Sled())
    ocp = OptimalControl(sled, t_end=1.0)
    ocp.parameter("force.f", lower=0.0, upper=10.0, guess=1.0)  # a constant force to choose
    ocp.end("mass.s", 1.0)
    ocp.minimize(lagrange="force.f**2")
    res = ocp.solve(elements=10)
    assert res.design["force.f"] == pytest.approx(2.0, abs=1e-7)  # s(1) = f/2 = 1

    ocp = OptimalControl(sled, t_end=1.0)
    ocp.control("force.f")
    ocp.start("mass.s", lower=-1.0, upper=1.0)  # the start position is free within bounds
    ocp.start("mass.v", 0.5)  # and the start speed is set
    ocp.end("mass.s", 1.0).end("mass.v", 0.0)
    ocp.minimize(lagrange="force.f**2")
    res = ocp.solve(elements=20)
    assert res["mass.v"][0] == pytest.approx(0.5, abs=1e-9)
    assert -1.0 - 1e-9 <= res["mass.s"][0] <= 1.0 + 1e-9
    # analytic optimum: s(0) is free, so the costate of s vanishes there, and with no term in
    # s it stays zero; the force is then constant: v(1) = 0.5 + u = 0 gives u = -0.5, and
    # s(1) = s(0) + 0.5 - 0.25 = 1 gives s(0) = 0.75
    assert res["mass.s"][0] == pytest.approx(0.75, abs=1e-7)


def test_result_reads_like_a_solution(tmp_path, drag):
    res = _drag_problem(drag).solve(elements=12)
    assert isinstance(res, Solution)
    assert res.t[0] == 0.0 and res.t[-1] == pytest.approx(2.0)
    # interpolation through the mesh points reproduces them
    for name in ("s", "v", "f", "u", "der(v)"):
        assert np.allclose(res.interpolate(name, res.t[1:-1]), res[name][1:-1], atol=1e-10)
    mid = res.interpolate("s", np.array([0.5, 1.5]))
    assert np.all(np.diff(mid) > 0)
    frame = res.to_pandas(["s", "u"])
    assert {"s", "u"} <= set(frame.columns)
    assert np.allclose(frame["s"].to_numpy(), res["s"])
    assert res.controls["u"].shape == res.t.shape
    assert "objective" in res.summary() and "Solve_Succeeded" in repr(res)
    with pytest.raises(UnknownNameError):
        res["nothing"]
    with pytest.raises(InputError, match="horizon"):
        res.interpolate("s", [3.0])


def test_mpc_closed_loop_on_the_plant():
    sled = compile(Sled())
    ocp = OptimalControl(sled)
    ocp.control("force.f", lower=-1.0, upper=1.0)
    ocp.path("mass.v", lower=-0.5, upper=0.5, soft=100.0)
    ocp.minimize(lagrange="(mass.s - 1)**2 + 0.01*force.f**2")
    mpc = MPC(ocp, horizon=2.0, sample_time=0.1, jit=False)
    loop = mpc.closed_loop(sled, t_end=6.0)
    assert abs(loop.solution["mass.s"][-1] - 1.0) < 1e-3
    assert np.all(np.abs(loop.controls["force.f"]) <= 1.0 + 1e-8)
    assert loop.solution["mass.v"].max() < 0.5 + 1e-2  # soft: a small violation may cost less
    assert set(loop.statuses) == {"Solve_Succeeded"}
    assert loop.median_step_time > 0
    with pytest.raises(InputError, match="missing mass.v"):
        mpc.step({"mass.s": 0.0})
    with pytest.raises(UnknownNameError, match="'mass.w' is not a state"):
        mpc.step({"mass.s": 0.0, "mass.v": 0.0, "mass.w": 1.0})
    with pytest.raises(UnknownNameError, match="has no variable 'cart.s'"):
        mpc.closed_loop(sled, t_end=1.0, measure={"mass.s": "cart.s"})
    with pytest.raises(InputError, match="sample_time"):
        MPC(ocp, horizon=1.0, sample_time=2.0)


def test_mpc_in_machine_code_gives_the_same_controls():
    from acausal.base.c_compiler import CompilerNotFoundError, find_c_compiler

    try:
        find_c_compiler()
    except CompilerNotFoundError as exc:
        pytest.skip(f"no C compiler: {exc}")
    sled = compile(Sled())
    ocp = OptimalControl(sled)
    ocp.control("force.f", lower=-1.0, upper=1.0)
    ocp.minimize(lagrange="(mass.s - 1)**2 + 0.01*force.f**2")
    virtual = MPC(ocp, horizon=1.0, sample_time=0.1, jit=False)
    native = MPC(ocp, horizon=1.0, sample_time=0.1, jit=True)
    assert native.native and not virtual.native
    for state in ({"mass.s": 0.0, "mass.v": 0.0}, {"mass.s": 0.5, "mass.v": 0.3}):
        u_virtual, u_native = virtual.step(state), native.step(state)
        # the same NLP, evaluated by compiled code: the same iterates up to rounding, so the
        # controls agree far inside IPOPT's tolerance (MPC tol 1e-6)
        assert u_native["force.f"] == pytest.approx(u_virtual["force.f"], abs=1e-8)


@pytest.mark.parametrize("kind", ["constant", "collocated"])
def test_rate_bounds_hold(kind):
    """Minimum time from rest to rest over 1 m with |f| <= 1 and |df/dt| <= 2 N/s: the force
    ramps instead of switching (bang-bang without the rate bound takes T = 2 s); the rate bound
    holds as the docs define it on the control's parametrisation."""
    sled = compile(Sled())
    ocp = OptimalControl(sled)
    ocp.free_end_time(lower=0.5, upper=10.0, guess=3.0)
    ocp.control("force.f", lower=-1.0, upper=1.0, rate=(-2.0, 2.0), kind=kind)
    ocp.end("mass.s", 1.0).end("mass.v", 0.0)
    ocp.minimize(mayer="time")
    res = ocp.solve(elements=30)
    edges = res.elements
    h = np.diff(edges)
    tol = 2.0 * 1e-6  # IPOPT's constraint tolerance on rows of this size
    if kind == "constant":
        u = res.control_at(0.5 * (edges[1:] + edges[:-1]))["force.f"]
        rates = np.diff(u) / h[:-1]  # change to the next element over the element's length
    else:
        # the polynomial's derivative at the collocation points: second-order differences
        # from the left, inside each point's element (a Radau point may end its element)
        points = res.t[1:]
        eps = 1e-6 * float(edges[-1])

        def u(t):
            return res.control_at(t)["force.f"]

        rates = (3 * u(points) - 4 * u(points - eps) + u(points - 2 * eps)) / (2 * eps)
        left = u(edges[1:-1])
        # the next element's polynomial at its start (the boundary itself belongs to the
        # element that ends there): extrapolated from two points just after it
        right = 2 * u(edges[1:-1] + eps) - u(edges[1:-1] + 2 * eps)
        rates = np.concatenate([rates, (right - left) / h[:-1]])
    # differences of a polynomial of degree d - 1 = 2: exact up to rounding (~1e-16/eps)
    assert np.max(np.abs(rates)) <= 2.0 + tol + 1e-6
    assert res.t_end > 2.0 + 1e-2


def test_multiple_shooting_of_the_dae_agrees_with_collocation(drag):
    """The same DAE by multiple shooting over IDAS: each interval integrated at rtol 1e-10 with
    the algebraic variable as IDAS's, so with the same piecewise-constant control both
    transcriptions approximate the same optimum; they agree to the collocation's own error."""
    ocp = _drag_problem(drag)
    collocated = ocp.solve(elements=20)
    shot = ocp.solve(elements=20, method="shooting")
    assert shot.success
    assert shot["f"].max() <= 0.8 + 1e-7  # the path bound holds at the nodes
    # the objectives differ by the collocation's error (states off by ~1e-6 here, its
    # collocation_error); 1e-4 leaves room for the path constraint held at different points
    # (nodes against collocation points)
    assert shot.objective == pytest.approx(collocated.objective, rel=1e-4)
    check = shot.verify(rtol=1e-10)
    assert check.max_difference <= shot.collocation_error + 1e-8
