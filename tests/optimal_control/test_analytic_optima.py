"""Published and analytic optima reproduced from models built with acausal components.

* Bryson-Denham (Bryson & Ho, "Applied Optimal Control", 1975, section 3.11): a unit mass
  driven by a force u, minimise int_0^1 u^2/2 dt from x = 0, v = 1 to x = 0, v = -1 with
  x <= l. For l <= 1/6 the constraint is active on [3l, 1 - 3l] and J* = 4/(9 l); the optimal
  u is linear on the unconstrained arcs, so a collocated control with element boundaries at
  the junctions is exact up to IPOPT's tolerance.
* Minimum time of the double integrator from rest at 0 to rest at 1 with |u| <= 1: bang-bang,
  T* = 2; with |v| <= 0.5 as well: accelerate 0.5 s, coast 1.5 s, brake 0.5 s, T* = 2.5.
* JModelica.org's Van der Pol problem (its users' guide, "Optimal control" tutorial):
  der(x1) = (1 - x2^2) x1 - x2 + u, der(x2) = x1, x(0) = (0, 1), u <= 0.75, minimise
  int_0^20 (x1^2 + x2^2 + u^2) dt; with the control collocated, 100 Radau elements of degree
  5 give 3.174951 there.

Each optimum is re-simulated with ``simulate``'s run loop at rtol 1e-10 and must reach the
optimal end state within the collocation error the result reports (plus the simulation's own
tolerance).
"""

from __future__ import annotations

import numpy as np
import pytest
from ocp_models import Sled

from acausal import Component, Eq, Input, OptimalControl, Variable, compile, der
from acausal.components.translational import Mass

#: IPOPT's default tolerance here (acausal's IPOPT_DEFAULTS["tol"]) bounds the optimality of
#: every optimum below; the objective and end time carry errors of that order.
IPOPT_TOL = 1e-8


class MovingSled(Sled):
    """The sled starting at x = 0 with v = 1 (Bryson-Denham)."""

    mass = Mass(m=1.0, s=Variable(start=0.0, fixed=True), v=Variable(start=1.0, fixed=True))


class VanDerPol(Component):
    """JModelica's Van der Pol oscillator with a control u."""

    u = Input(0.0)
    x1 = Variable(start=0.0, fixed=True)
    x2 = Variable(start=1.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x1), (1 - self.x2**2) * self.x1 - self.x2 + self.u),
                Eq(der(self.x2), self.x1)]


@pytest.fixture(scope="module")
def sled():
    return compile(MovingSled())


@pytest.fixture(scope="module")
def double_integrator():
    return compile(Sled())


def _check_resimulation(res, rtol=1e-10):
    check = res.verify(rtol=rtol)
    scale = max(1.0, float(np.abs(res.x).max()))
    # the simulation's own error: of the order of rtol times the states' size per unit time
    allowance = res.collocation_error + 100 * rtol * scale
    assert check.max_difference <= allowance, (check, res.end_errors)
    return check


@pytest.mark.parametrize("limit", [1 / 9, 1 / 12])
def test_bryson_denham(sled, limit):
    ocp = OptimalControl(sled, t_end=1.0)
    ocp.control("force.f", kind="collocated")
    ocp.end("mass.s", 0.0).end("mass.v", -1.0)
    ocp.path("mass.s", upper=limit)
    ocp.minimize(lagrange="force.f**2/2")
    res = ocp.solve(elements=36, degree=3)   # junctions 3l = 1/3, 1/4 are element boundaries
    exact = 4 / (9 * limit)
    assert res.success
    assert abs(res.objective - exact) / exact < 1e-4
    # the state constraint holds at every point, the end conditions hold
    assert res["mass.s"].max() <= limit + 1e-7
    assert abs(res["mass.s"][-1]) < 1e-7 and abs(res["mass.v"][-1] + 1.0) < 1e-7
    _check_resimulation(res)


@pytest.mark.parametrize("scheme", ["radau", "legendre"])
def test_minimum_time_double_integrator(double_integrator, scheme):
    ocp = OptimalControl(double_integrator)
    ocp.free_end_time(lower=0.5, upper=10.0, guess=3.0)
    ocp.control("force.f", lower=-1.0, upper=1.0)
    ocp.end("mass.s", 1.0).end("mass.v", 0.0)
    ocp.minimize(mayer="time")
    res = ocp.solve(elements=20, degree=3, scheme=scheme)
    assert abs(res.t_end - 2.0) < 1e-6
    assert abs(res.objective - 2.0) < 1e-6
    # bang-bang: full force forward, then full force back
    u = res.control_at(np.array([0.5, 1.5]))["force.f"]
    assert u[0] == pytest.approx(1.0, abs=1e-6) and u[1] == pytest.approx(-1.0, abs=1e-6)
    _check_resimulation(res)

    ocp.path("mass.v", lower=-0.5, upper=0.5)
    res = ocp.solve(elements=20, degree=3, scheme=scheme)
    assert abs(res.t_end - 2.5) < 1e-6
    assert res["mass.v"].max() <= 0.5 + 1e-7
    _check_resimulation(res)


def test_minimum_time_by_multiple_shooting(double_integrator):
    ocp = OptimalControl(double_integrator)
    ocp.free_end_time(lower=0.5, upper=10.0, guess=3.0)
    ocp.control("force.f", lower=-1.0, upper=1.0)
    ocp.end("mass.s", 1.0).end("mass.v", 0.0)
    ocp.path("mass.v", lower=-0.5, upper=0.5)
    ocp.minimize(mayer="time")
    res = ocp.solve(elements=20, method="shooting")
    assert abs(res.t_end - 2.5) < 1e-6
    _check_resimulation(res)


def test_van_der_pol_jmodelica():
    vdp = compile(VanDerPol())
    ocp = OptimalControl(vdp, t_end=20.0)
    ocp.control("u", upper=0.75, kind="collocated")
    ocp.minimize(lagrange="x1**2 + x2**2 + u**2")
    res = ocp.solve(elements=100, degree=5)
    assert abs(res.objective - 3.17495) < 1e-4
    assert res["u"].max() <= 0.75 + 1e-8
    _check_resimulation(res)


def test_mesh_refinement_reduces_the_collocation_error():
    vdp = compile(VanDerPol())
    ocp = OptimalControl(vdp, t_end=20.0)
    ocp.control("u", upper=0.75)
    ocp.minimize(lagrange="x1**2 + x2**2 + u**2")
    coarse = ocp.solve(elements=20, degree=3)
    fine = ocp.solve(elements=20, degree=3, refine=1e-7)
    assert fine.refinements >= 1
    assert len(fine.elements) > len(coarse.elements)
    assert fine.element_errors().max() <= 1e-7 or fine.refinements == 5
    assert fine.collocation_error < coarse.collocation_error / 100
    _check_resimulation(fine)
