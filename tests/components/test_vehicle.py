"""Component tests of ``acausal.components.planar.vehicle``: planetary / differential gear
kinematics and torque balance, air resistance against its formula, the friction wheels' sign
conventions and their regularity when starting exactly at rest."""

from __future__ import annotations

import casadi as ca
import numpy as np
import pytest
import sympy as sp

from acausal import Component, Variable, compile, connect
from acausal.compiler.codegen import translate
from acausal.components import blocks, rotational
from acausal.components.planar.parts import Body
from acausal.components.planar.vehicle import (
    AirResistanceLongitudinal,
    DifferentialGear,
    DryFrictionWheelJoint,
    IdealPlanetary,
    SlipBasedWheelJoint,
    _norm,
)

RTOL, ATOL = 1e-10, 1e-12
NO_GRAVITY = [0.0, 0.0]


# ---------------------------------------------------------------------------------------------
# IdealPlanetary / DifferentialGear
# ---------------------------------------------------------------------------------------------

class PlanetaryRig(Component):
    """Torque 3 on the sun (inertia 0.5), carrier inertia 2, ring inertia 1.5."""

    gear = IdealPlanetary(ratio=2.0)
    sun = rotational.Inertia(J=0.5, phi=Variable(start=0.0, fixed=True),
                             w=Variable(start=0.0, fixed=True))
    carrier = rotational.Inertia(J=2.0, phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=0.0, fixed=True))
    ring = rotational.Inertia(J=1.5)
    torque = rotational.ConstantTorque(tau_constant=3.0)

    def connections(self):
        return [connect(self.torque.flange, self.sun.flange_a),
                connect(self.sun.flange_b, self.gear.sun),
                connect(self.gear.carrier, self.carrier.flange_a),
                connect(self.gear.ring, self.ring.flange_a)]


def test_planetary_kinematics_and_torque_balance():
    cs = compile(PlanetaryRig())
    assert cs.n_states == 4
    sol = cs.simulate(2.0, n_points=21, rtol=RTOL, atol=ATOL)
    k = 2.0
    np.testing.assert_allclose((1 + k) * sol["gear.carrier.phi"],
                               sol["gear.sun.phi"] + k * sol["gear.ring.phi"], atol=1e-9)
    ts, tc, tr = sol["gear.sun.tau"], sol["gear.carrier.tau"], sol["gear.ring.tau"]
    np.testing.assert_allclose(tr, k * ts, atol=1e-9)
    np.testing.assert_allclose(tc, -(1 + k) * ts, atol=1e-9)
    np.testing.assert_allclose(ts + tc + tr, 0.0, atol=1e-9)
    # lossless: power into the gear is zero
    power = ts * sol["sun.w"] + tc * sol["carrier.w"] + tr * sol["ring.w"]
    np.testing.assert_allclose(power, 0.0, atol=1e-8)
    # energy: work of the torque = kinetic energy of the three inertias
    kinetic = 0.5 * (0.5 * sol["sun.w"] ** 2 + 2.0 * sol["carrier.w"] ** 2
                     + 1.5 * sol["ring.w"] ** 2)
    np.testing.assert_allclose(kinetic, 3.0 * sol["sun.phi"], rtol=1e-8, atol=1e-12)


class PlanetaryFixedCarrier(Component):
    """Carrier fixed: sun and ring counter-rotate with ring.phi = -sun.phi/ratio."""

    gear = IdealPlanetary(ratio=2.0)
    fixed = rotational.Fixed()
    sun = rotational.Inertia(J=0.5, phi=Variable(start=0.0, fixed=True),
                             w=Variable(start=0.0, fixed=True))
    ring = rotational.Inertia(J=1.5)
    torque = rotational.ConstantTorque(tau_constant=3.0)

    def connections(self):
        return [connect(self.torque.flange, self.sun.flange_a),
                connect(self.sun.flange_b, self.gear.sun),
                connect(self.gear.carrier, self.fixed.flange),
                connect(self.gear.ring, self.ring.flange_a)]


def test_planetary_fixed_carrier_analytic():
    sol = compile(PlanetaryFixedCarrier()).simulate(1.0, t_eval=[0.0, 0.5, 1.0], rtol=RTOL,
                                                    atol=ATOL)
    acc = 3.0 / (0.5 + 1.5 / 2.0**2)  # reflected ring inertia J_r/ratio^2
    np.testing.assert_allclose(sol["sun.w"], acc * np.array([0.0, 0.5, 1.0]), rtol=1e-9)
    np.testing.assert_allclose(sol["ring.phi"], -sol["sun.phi"] / 2.0, atol=1e-12)


class DifferentialRig(Component):
    """Torque 25 on the differential input; left inertia 1, right inertia 3."""

    diff = DifferentialGear()
    torque = rotational.ConstantTorque(tau_constant=25.0)
    left = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                              w=Variable(start=0.0, fixed=True))
    right = rotational.Inertia(J=3.0, phi=Variable(start=0.0, fixed=True),
                               w=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.torque.flange, self.diff.flange_b),
                connect(self.diff.flange_left, self.left.flange_a),
                connect(self.diff.flange_right, self.right.flange_a)]


def test_differential_splits_torque_equally():
    t = np.linspace(0.0, 2.0, 11)
    sol = compile(DifferentialRig()).simulate(2.0, t_eval=t, rtol=RTOL, atol=ATOL)
    # each side gets T/2 = 12.5 N m (section 2.19)
    np.testing.assert_allclose(sol["left.w"], 12.5 * t / 1.0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sol["right.w"], 12.5 * t / 3.0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sol["diff.flange_left.tau"], -12.5, rtol=1e-12)
    np.testing.assert_allclose(sol["diff.flange_right.tau"], -12.5, rtol=1e-12)
    np.testing.assert_allclose(sol["diff.flange_b.tau"], 25.0, rtol=1e-12)
    # the input turns with the mean of the two sides
    np.testing.assert_allclose(sol["diff.flange_b.phi"],
                               0.5 * (sol["left.phi"] + sol["right.phi"]), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# AirResistanceLongitudinal
# ---------------------------------------------------------------------------------------------

class DragBody(Component):
    """Free body (no gravity) coasting along its driving direction e0 = R(phi0) r/|r|."""

    body = Body(m=10.0, I=1.0, g=NO_GRAVITY)
    drag = AirResistanceLongitudinal(c_W=0.4, area=2.0, rho=1.2, r=[0.0, 2.0])

    def __init__(self, phi0=0.3, speed=3.0, **kw):
        super().__init__(**kw)
        e0 = [-np.sin(phi0), np.cos(phi0)]  # R(phi0) * (0, 1)
        self.body = Body(m=10.0, I=1.0, g=NO_GRAVITY,
                         r=Variable(start=0.0, fixed=True),
                         v=Variable(start=[speed * e0[0], speed * e0[1]], fixed=True),
                         phi=Variable(start=phi0, fixed=True), w=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.body.frame_a, self.drag.frame_a)]


@pytest.mark.parametrize("speed", [3.0, -3.0])
def test_air_resistance_formula(speed):
    phi0 = 0.3
    t = np.linspace(0.0, 5.0, 11)
    sol = compile(DragBody(phi0=phi0, speed=speed)).simulate(5.0, t_eval=t, rtol=RTOL,
                                                             atol=ATOL)
    e0 = np.array([-np.sin(phi0), np.cos(phi0)])
    v_long = sol["body.v[0]"] * e0[0] + sol["body.v[1]"] * e0[1]
    np.testing.assert_allclose(sol["drag.vAir[0]"], -v_long, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(sol["drag.vAir[1]"], 0.0, atol=1e-12)
    np.testing.assert_allclose(sol["drag.fDrag"], 0.5 * 2.0 * 1.2 * v_long**2 * 0.4, rtol=1e-10)
    np.testing.assert_allclose(sol["body.w"], 0.0, atol=1e-12)  # no torque
    if speed > 0:
        # m v' = -0.5 rho c_W A v^2  ->  v = v0/(1 + k v0 t)
        k = 0.5 * 1.2 * 0.4 * 2.0 / 10.0
        np.testing.assert_allclose(v_long, speed / (1 + k * speed * t), rtol=1e-8)
        # cut force on the element along +e0 (the body is pushed back)
        np.testing.assert_allclose(sol["drag.frame_a.fx"], sol["drag.fDrag"] * e0[0],
                                   rtol=1e-10)
        np.testing.assert_allclose(sol["drag.frame_a.fy"], sol["drag.fDrag"] * e0[1],
                                   rtol=1e-10)
    else:
        # driving backwards: no drag (Modelica: f_long = 0 for vAir[1] > -v_eps)
        np.testing.assert_allclose(v_long, speed, rtol=1e-12)
        np.testing.assert_allclose(sol["drag.f_long"], 0.0, atol=0.0)


# ---------------------------------------------------------------------------------------------
# Friction wheels: signs, dynamic load, regularity at rest
# ---------------------------------------------------------------------------------------------

def _wheel_on_free_body(kind, v0=0.0, torque=0.0, load=0.0):
    class WheelOnBody(Component):
        """A free body (m = 10, I = 1, no gravity) carrying a wheel (radius 0.3, r = (1, 0))
        whose flange has an inertia J = 0.1 and an optional constant torque."""

        body = Body(m=10.0, I=1.0, g=NO_GRAVITY, r=Variable(start=0.0, fixed=True),
                    v=Variable(start=[v0, 0.0], fixed=True), phi=Variable(start=0.0, fixed=True),
                    w=Variable(start=0.0, fixed=True))
        inertia = rotational.Inertia(J=0.1, phi=Variable(start=0.0, fixed=True),
                                     w=Variable(start=0.0, fixed=True))
        engine = rotational.ConstantTorque(tau_constant=torque)
        if kind == "dry":
            wheel = DryFrictionWheelJoint(radius=0.3, r=[1.0, 0.0], N=100.0, vAdhesion=0.1,
                                          vSlide=0.3, mu_A=0.8, mu_S=0.4)
        else:
            wheel = SlipBasedWheelJoint(radius=0.3, r=[1.0, 0.0], N=100.0)
            load_signal = blocks.Constant(k=load)

        def connections(self):
            c = [connect(self.body.frame_a, self.wheel.frame_a),
                 connect(self.wheel.flange_a, self.inertia.flange_b),
                 connect(self.engine.flange, self.inertia.flange_a)]
            if kind != "dry":
                c.append(connect(self.load_signal.y, self.wheel.dynamicLoad))
            return c

    return compile(WheelOnBody())


@pytest.mark.parametrize("kind", ["dry", "slip"])
def test_sliding_wheel_spins_up_to_rolling(kind):
    """Body launched at 1 m/s on a non-spinning wheel: friction decelerates the body and spins
    the wheel up until it rolls. Momentum-like balance m v + (J/R) w = m v0 gives
    v_end = m v0/(m + J/R^2)."""
    cs = _wheel_on_free_body(kind, v0=1.0)
    sol = cs.simulate(3.0, t_eval=[0.0, 0.01, 3.0], rtol=RTOL, atol=ATOL)
    name = "wheel"
    assert sol[f"{name}.f_long"][1] > 0.0           # slip > 0 -> resisting cut force > 0
    assert sol["body.v[0]"][1] < 1.0 and sol["inertia.w"][1] > 0.0
    v_end = 10.0 / (10.0 + 0.1 / 0.09)
    assert sol["body.v[0]"][-1] == pytest.approx(v_end, rel=1e-6)
    assert sol["inertia.w"][-1] * 0.3 == pytest.approx(v_end, rel=1e-6)
    # conserved exactly during the whole transient
    np.testing.assert_allclose(10.0 * sol["body.v[0]"] + 0.1 / 0.3 * sol["inertia.w"], 10.0,
                               rtol=1e-9)


def test_slip_wheel_dynamic_load_lifts_wheel():
    """fN = max(0, N + dynamicLoad): a load of -200 N lifts the wheel, no friction acts."""
    cs = _wheel_on_free_body("slip", v0=1.0, load=-200.0)
    sol = cs.simulate(1.0, t_eval=[0.0, 1.0], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["wheel.fN"], 0.0, atol=0.0)
    np.testing.assert_allclose(sol["body.v[0]"], 1.0, rtol=1e-12)
    np.testing.assert_allclose(sol["inertia.w"], 0.0, atol=1e-12)


@pytest.mark.parametrize("kind", ["dry", "slip"])
def test_regular_exactly_at_rest(kind):
    """Start at exactly zero speed and spin: the ODE right-hand side and its Jacobian are finite
    (no 1e-10 nudge needed), and a driving torque starts the wheel."""
    cs = _wheel_on_free_body(kind, torque=2.0)
    x0 = np.zeros(cs.n_states)
    p = cs.parameter_vector()
    jac = ca.Function("ode_jacobian", [cs.t, cs.x, cs.z, cs.p], [ca.jacobian(cs.ode, cs.x)])
    rhs = np.array(cs.function("ode")(0.0, x0, np.zeros(cs.z.numel()), p))
    J = np.array(jac(0.0, x0, np.zeros(cs.z.numel()), p))
    assert np.all(np.isfinite(rhs)) and np.all(np.isfinite(J))
    sol = cs.simulate(1.0, t_eval=[0.0, 1.0], rtol=RTOL, atol=ATOL)
    assert sol["inertia.w"][0] == 0.0 and sol["body.v[0]"][0] == 0.0
    assert sol["inertia.w"][-1] > 0.0 and sol["body.v[0]"][-1] > 0.0


def test_norm_is_regular_where_sqrt_is_not():
    x, y = sp.symbols("x y")
    X, Y = ca.SX.sym("x"), ca.SX.sym("y")
    for expr, finite in ((_norm(x, y), True), (sp.sqrt(x**2 + y**2), False)):
        e = translate([expr], {x: X, y: Y})[0]
        J = ca.Function("J", [X, Y], [ca.jacobian(e, ca.vertcat(X, Y))])
        assert bool(np.all(np.isfinite(np.array(J(0.0, 0.0))))) is finite
        np.testing.assert_allclose(np.array(J(3.0, 4.0)).ravel(), [0.6, 0.8])
