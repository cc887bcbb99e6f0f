"""3-D joints with MotionSolve-style friction: each joint type under known steady loads, slid at
a known speed, against the normal-force recipe written out by hand (docs/joint_friction.md);
the ``inputs`` bits and ``effect`` switch exactly their terms; sticking below breakaway.

Rigs: frame_a fixed, frame_b carries a body on which constant world forces and torques act at
frame_b's origin. Revolute and prismatic joints are driven at constant speed through their axis
flange (the drive's torque/force is then the friction); the cylindrical, spherical and universal
joints have no flange, so their body is heavy (1e6 kg, 1e6 kg m2): the friction decelerates
it by a relative 1e-5 at most over the run, and the friction is compared with the recipe at the
speed of that instant. The LuGre law in steady sliding gives ``F = mu(v) N + k2 v`` with
``mu(v) = mu_d + (mu_s - mu_d) exp(-(v/V_s)^2)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from joint_rigs import LoadedJoint, heavy_body, loads

from acausal import Component, Variable, compile, connect
from acausal.components.blocks import Constant, Ramp
from acausal.components.multibody import Body
from acausal.components.multibody.joint_friction import (
    CylindricalWithFriction,
    PrismaticWithFriction,
    RevoluteWithFriction,
    SphericalWithFriction,
    UniversalWithFriction,
)
from acausal.components.sources import Speed, TranslationalSpeed
from acausal.errors import SimulationWarning

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
MU_S, MU_D, V_S, K2 = 0.3, 0.2, 1e-3, 0.4
LAW = dict(mu_static=MU_S, mu_dynamic=MU_D, stiction_trans_vel=V_S, normal_force_eps=1e-9)


def mu(v):
    return MU_D + (MU_S - MU_D) * np.exp(-(np.asarray(v) / V_S) ** 2)


# ------------------------------------------------------------------------------------------
# revolute: radial load, axial thrust, bending moment, preload
# ------------------------------------------------------------------------------------------

R_P, R_N, R_B, T_PRE, W0 = 0.02, 0.03, 0.05, 0.5, 2.0


@pytest.fixture(scope="module")
def revolute_rig():
    joint = RevoluteWithFriction(use_axis_flange=True, n=(0, 0, 1), pin_radius=R_P,
                                 friction_arm=R_N, bending_reaction_arm=R_B,
                                 torque_preload=T_PRE, **LAW)
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.2)
    return compile(LoadedJoint(joint, body, drive=Speed(w_ref=W0)))


def revolute_torque(F, M, bits="1111"):
    pre, reac, bend = (bits[0] == "1"), (bits[1] == "1"), (bits[2] == "1")
    N = (reac * (np.hypot(F[0], F[1]) + R_N / R_P * abs(F[2])) + bend * np.hypot(M[0], M[1])
         / R_B + pre * T_PRE / (MU_S * R_P))
    v = R_P * W0
    return R_P * (mu(v) * N + K2 * v), N


@pytest.mark.parametrize("F, M", [((30.0, 40.0, 0.0), (0, 0, 0)),       # radial load
                                  ((0.0, 0.0, 25.0), (0, 0, 0)),        # axial thrust
                                  ((0.0, 0.0, 0.0), (3.0, -4.0, 0.0)),  # bending moment
                                  ((0.0, 0.0, 0.0), (0, 0, 0)),         # preload alone
                                  ((30.0, 40.0, 10.0), (3.0, -4.0, 0.0))])
def test_revolute_friction_torque_follows_the_recipe(revolute_rig, F, M):
    sol = revolute_rig.simulate(0.5, dt=0.05, params=loads(F, M), **TIGHT)
    expected, N = revolute_torque(F, M)
    assert sol["joint.normal_force"][-1] == pytest.approx(N, rel=1e-9)
    assert sol["drive.tau"][-1] == pytest.approx(expected, rel=1e-6)
    assert sol["joint.friction_torque"][-1] == pytest.approx(expected, rel=1e-6)
    # the three LuGre terms: at steady sliding the bristle carries mu(v) N, the viscous term k2 v
    v = R_P * W0
    assert sol["joint.friction_bristle"][-1] == pytest.approx(mu(v) * N, rel=1e-6)
    assert sol["joint.friction_viscous"][-1] == pytest.approx(K2 * v, rel=1e-12)
    assert abs(sol["joint.friction_damping"][-1]) < 1e-9 * mu(v) * N
    # each load component by name
    assert sol["joint.n_radial"][-1] == pytest.approx(np.hypot(F[0], F[1]), abs=1e-8)
    assert sol["joint.n_axial"][-1] == pytest.approx(R_N / R_P * abs(F[2]), abs=1e-8)
    assert sol["joint.n_bending"][-1] == pytest.approx(np.hypot(M[0], M[1]) / R_B, abs=1e-8)


@pytest.mark.parametrize("bits", ["0111", "1011", "1101", "1110", "0000"])
def test_revolute_inputs_bits_remove_exactly_their_term(bits):
    F, M = (30.0, 40.0, 10.0), (3.0, -4.0, 0.0)
    joint = RevoluteWithFriction(use_axis_flange=True, n=(0, 0, 1), pin_radius=R_P,
                                 friction_arm=R_N, bending_reaction_arm=R_B,
                                 torque_preload=T_PRE, inputs=bits, **LAW)
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.2)
    cs = compile(LoadedJoint(joint, body, F, M, drive=Speed(w_ref=W0)))
    sol = cs.simulate(0.5, dt=0.05, **TIGHT)
    if bits[:3] == "000":
        assert "joint.bristle" not in cs.state_names
        np.testing.assert_array_equal(sol["joint.friction_torque"], 0.0)
        return
    expected, N = revolute_torque(F, M, bits)
    assert sol["joint.normal_force"][-1] == pytest.approx(N, rel=1e-9)
    assert sol["drive.tau"][-1] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("effect", ["Sliding", "Stiction"])
def test_revolute_effect(effect):
    F = (30.0, 40.0, 0.0)
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.2)
    slow = 0.5 * V_S / R_P  # slip speed V_S/2: inside the stiction band
    results = {}
    for w in (slow, W0):
        joint = RevoluteWithFriction(use_axis_flange=True, n=(0, 0, 1), pin_radius=R_P,
                                     effect=effect, **LAW)
        sol = compile(LoadedJoint(joint, body, F, drive=Speed(w_ref=w))).simulate(
            0.5, dt=0.05, **TIGHT)
        results[w] = sol["drive.tau"][-1]
    N = 50.0
    if effect == "Sliding":  # no Stribeck hump: mu_static -> mu_dynamic at every speed
        for w, tau in results.items():
            assert tau == pytest.approx(R_P * (MU_D * N + K2 * R_P * w), rel=1e-6)
    else:  # only below the transition velocity, with the full law
        assert results[slow] == pytest.approx(R_P * (mu(R_P * slow) * N + K2 * R_P * slow),
                                              rel=1e-6)
        assert results[W0] == 0.0


# ------------------------------------------------------------------------------------------
# prismatic (translational): radial load, bending over the overlap, torsion, preload
# ------------------------------------------------------------------------------------------

R_ARM, X_S0, F_PRE, V0 = 0.04, 0.25, 6.0, 0.5


def prismatic_rig(**kw):
    joint = PrismaticWithFriction(use_axis_flange=True, n=(1, 0, 0), reaction_arm=R_ARM,
                                  initial_overlap=X_S0, force_preload=F_PRE, **LAW, **kw)
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)
    return compile(LoadedJoint(joint, body, drive=TranslationalSpeed(v_ref=V0)))


@pytest.fixture(scope="module")
def prismatic_cs():
    return prismatic_rig()


@pytest.mark.parametrize("F, M", [((0.0, 30.0, 40.0), (0, 0, 0)),      # normal load
                                  ((0.0, 0.0, 0.0), (0, 3.0, -4.0)),   # bending
                                  ((0.0, 0.0, 0.0), (2.0, 0, 0)),      # torsion
                                  ((0.0, 0.0, 0.0), (0, 0, 0)),        # preload alone
                                  ((7.0, 30.0, 40.0), (2.0, 3.0, -4.0))])
def test_prismatic_friction_force_follows_the_recipe(prismatic_cs, F, M):
    sol = prismatic_cs.simulate(0.5, dt=0.05, params=loads(F, M), **TIGHT)
    N = (np.hypot(F[1], F[2]) + np.hypot(M[1], M[2]) / X_S0 + abs(M[0]) / R_ARM
         + F_PRE / MU_S)
    expected = mu(V0) * N + K2 * V0
    assert sol["joint.normal_force"][-1] == pytest.approx(N, rel=1e-9)
    # the drive also carries the applied axial force F[0]
    assert sol["drive.f"][-1] - (-F[0]) == pytest.approx(expected, rel=1e-6)
    assert sol["joint.friction_force"][-1] == pytest.approx(expected, rel=1e-6)
    assert sol["joint.n_torsion"][-1] == pytest.approx(abs(M[0]) / R_ARM, abs=1e-8)


@pytest.mark.parametrize("mode, sign", [("Increase", 1.0), ("Decrease", -1.0)])
def test_prismatic_overlap_follows_the_displacement(mode, sign):
    cs = prismatic_rig(overlap_delta=mode, inputs="0010")
    M = (0.0, 3.0, -4.0)
    sol = cs.simulate(0.3, dt=0.05, params=loads((0, 0, 0), M), **TIGHT)
    x_s = X_S0 + sign * V0 * sol.t
    np.testing.assert_allclose(sol["joint.overlap"], x_s, rtol=1e-9)
    np.testing.assert_allclose(sol["joint.n_bending"], 5.0 / x_s, rtol=1e-8)


def test_prismatic_sticks_below_breakaway_and_slides_above():
    """A pull along the axis, ramped up in 5 s and then held, on a slider pressed by N: below
    mu_static*N it sticks (the bristle deflection stays within max_stiction_deform = 1e-5 m;
    LuGre's pre-sliding displacement under a slowly applied load is -delta ln(1 - F/F_s) with
    the stiffness k = F_s/delta, within delta up to F = 0.63 F_s); above it slides."""
    delta, N = 1e-5, 100.0
    joint = PrismaticWithFriction(n=(1, 0, 0), mu_static=MU_S, mu_dynamic=MU_D,
                                  stiction_trans_vel=V_S, inputs="0100", max_stiction_deform=delta,
                                  s=Variable(start=0.0, fixed=True),
                                  v=Variable(start=0.0, fixed=True))
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)
    # slow ramp: the creep speed (dF/dt)/k/(1 - F/F_s) stays below 0.02 V_s; the quasi-static
    # formula is the limit of a slow ramp (measured: 0.57 % above it with this 5 s ramp,
    # 0.058 % with a 50 s ramp)
    pull = [Ramp(height=1.0, duration=5.0), Constant(k=0.0), Constant(k=N)]
    cs = compile(LoadedJoint(joint, body, force_sources=pull))
    f_s = MU_S * N
    for fraction in (0.5, 0.9):
        # below break-away the joint holds: the end-of-run report says so, naming it
        with pytest.warns(SimulationWarning, match="Friction stuck: PrismaticWithFriction 'joint'"):
            sol = cs.simulate(6.0, dt=0.01, params={"f[0].height": fraction * f_s}, **TIGHT)
        assert np.max(np.abs(sol["joint.bristle"])) <= delta
        creep = -delta * np.log(1 - fraction)
        assert sol["joint.s"][-1] == pytest.approx(creep, rel=1e-2)
        assert np.max(np.abs(sol["joint.s"])) <= max(delta, 1.01 * creep)
        assert abs(sol["joint.v"][-1]) < 1e-6  # stuck: the creep has stopped
        # the friction force (sign of the slip, i.e. resisting) carries the pull
        assert sol["joint.friction_force"][-1] == pytest.approx(fraction * f_s, rel=1e-6)
    sol = cs.simulate(6.0, dt=0.01, params={"f[0].height": 1.05 * f_s}, **TIGHT)
    # sliding: it accelerates with (F - mu_d N - k2 v)/m once the pull passes F_s
    assert sol["joint.v"][-1] > 0.5 * (1.05 * MU_S - MU_D) * N / 1.0
    assert sol["joint.friction_force"][-1] == pytest.approx(MU_D * N + K2 * sol["joint.v"][-1],
                                                            rel=1e-6)


# ------------------------------------------------------------------------------------------
# cylindrical: 2-D slip with the friction ellipse
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("inputs, T_pre", [("0100", 0.0), ("1100", 0.2), ("0010", 0.0)])
def test_cylindrical_friction_ellipse(inputs, T_pre):
    v0, w0 = 0.3, 20.0  # axial and circumferential surface speeds 0.3 and 0.4 m/s
    joint = CylindricalWithFriction(n=(1, 0, 0), pin_radius=R_P, initial_overlap=X_S0,
                                    force_preload=F_PRE, torque_preload=T_pre, inputs=inputs,
                                    v=Variable(start=v0, fixed=True),
                                    w=Variable(start=w0, fixed=True),
                                    s=Variable(start=0.0, fixed=True),
                                    phi=Variable(start=0.0, fixed=True), **LAW)
    F, M = (0.0, 30.0, 40.0), (0.0, 3.0, -4.0)
    sol = compile(LoadedJoint(joint, heavy_body(), F, M)).simulate(0.2, dt=0.05, **TIGHT)
    base = ("1" == inputs[1]) * 50.0 + ("1" == inputs[2]) * 5.0 / X_S0
    n_a = base + ("1" == inputs[0]) * F_PRE / MU_S
    n_c = base + ("1" == inputs[0]) * T_pre / (MU_S * R_P)
    va, vc = sol["joint.v"][-1], R_P * sol["joint.w"][-1]
    s = np.hypot(va / n_a, vc / n_c)
    speed = np.hypot(va, vc)
    expected = np.array([mu(speed) * va / s + K2 * va, mu(speed) * vc / s + K2 * vc])
    got = sol["joint.friction_force"][:, -1]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert sol["joint.friction_torque"][-1] == pytest.approx(R_P * expected[1], rel=1e-6)
    # the load part lies on the ellipse (F_a/(mu N_a))^2 + (F_c/(mu N_c))^2 = 1
    load = got - K2 * np.array([va, vc])
    assert (load[0] / (mu(speed) * n_a)) ** 2 + (load[1] / (mu(speed) * n_c)) ** 2 \
        == pytest.approx(1.0, rel=1e-6)
    # the heavy body barely slows (F t/(M v) = 7e-6): nearly constant slip speed
    assert va == pytest.approx(v0, rel=2e-5)


# ------------------------------------------------------------------------------------------
# spherical: 3-D slip on the ball
# ------------------------------------------------------------------------------------------

def test_spherical_friction_torque_opposes_the_relative_rotation():
    R_BALL = 0.03
    w0 = np.array([3.0, -4.0, 12.0])
    joint = SphericalWithFriction(ball_radius=R_BALL, torque_preload=T_PRE, **LAW)
    body = heavy_body(w_0_fixed=True, w_0_start=tuple(w0), angles_fixed=True,
                      r_0=Variable(start=[0.0, 0.0, 0.0]))
    F = (30.0, 40.0, 120.0)
    sol = compile(LoadedJoint(joint, body, F)).simulate(0.2, dt=0.05, **TIGHT)
    N = np.linalg.norm(F) + T_PRE / (MU_S * R_BALL)
    w_rel = sol["joint.w_rel"][:, -1]
    v = R_BALL * w_rel
    speed = np.linalg.norm(v)
    expected = R_BALL * (mu(speed) * N + K2 * speed) * v / speed
    assert sol["joint.normal_force"][-1] == pytest.approx(N, rel=1e-9)
    np.testing.assert_allclose(sol["joint.friction_torque"][:, -1], expected, rtol=1e-6)
    assert np.linalg.norm(w_rel) == pytest.approx(np.linalg.norm(w0), rel=1e-6)


# ------------------------------------------------------------------------------------------
# universal: friction on the chosen yoke's pin
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("yoke", ["I_YOKE", "j_yoke"])
def test_universal_friction_on_the_chosen_yoke(yoke):
    w0 = 5.0
    on_b = yoke.upper() == "I_YOKE"
    start = dict(w_b=Variable(start=w0, fixed=True), w_a=Variable(start=0.0, fixed=True)) \
        if on_b else dict(w_a=Variable(start=w0, fixed=True), w_b=Variable(start=0.0, fixed=True))
    joint = UniversalWithFriction(n_a=(1, 0, 0), n_b=(0, 1, 0), yoke_choice=yoke,
                                  pin_radius=R_P, friction_arm=R_N, bending_reaction_arm=R_B,
                                  phi_a=Variable(start=0.0, fixed=True),
                                  phi_b=Variable(start=0.0, fixed=True), **start, **LAW)
    F = (30.0, 0.0, 40.0) if on_b else (0.0, 30.0, 40.0)  # perpendicular to the pin axis
    sol = compile(LoadedJoint(joint, heavy_body(), F)).simulate(0.2, dt=0.05, **TIGHT)
    w = sol["joint.w_b" if on_b else "joint.w_a"][-1]
    v = R_P * w
    expected = R_P * (mu(v) * 50.0 + K2 * v)
    assert sol["joint.n_radial"][-1] == pytest.approx(50.0, rel=1e-6)
    assert sol["joint.friction_torque"][-1] == pytest.approx(expected, rel=1e-6)
    pin = "revolute_b" if on_b else "revolute_a"
    assert sol[f"joint.{pin}.tau"][-1] == pytest.approx(-expected, rel=1e-6)


# ------------------------------------------------------------------------------------------
# a planar mechanism from the 3-D friction joints = the planar friction joints
# ------------------------------------------------------------------------------------------

FRICTION_2D_3D = dict(mu_static=0.3, mu_dynamic=0.2, stiction_trans_vel=1e-2,
                      damping_effects=31.6)


def slider_pendulum(library, **friction):
    """A slider (prismatic with friction, normal load and bending from the pendulum) carrying a
    pendulum (revolute with pin friction), released from 1 rad, built from the planar library
    (``library = acausal.components.planar``) or from the 3-D one (``...multibody``)."""
    import acausal.components.multibody as mb

    spatial = library is mb
    friction = {**FRICTION_2D_3D, **friction}
    g = 9.81

    class SliderPendulum(Component):
        # the same parameters in both libraries (MultiBody's)
        world = library.World(n=(0.0, -1.0, 0.0) if spatial else (0.0, -1.0), g=g)
        fixed = library.Fixed()
        slider_joint = library.PrismaticWithFriction(
            **({"n": (1, 0, 0)} if spatial else {"r": [1.0, 0.0]}), initial_overlap=0.3,
            **friction, s=Variable(start=0.0, fixed=True), v=Variable(start=0.0, fixed=True))
        slider = library.Body(m=2.0, **(dict(I_11=0.01, I_22=0.01, I_33=0.01) if spatial
                                        else dict(I=0.01)))
        pin = library.RevoluteWithFriction(**({"n": (0, 0, 1)} if spatial else {}),
                                           pin_radius=0.02, **friction,
                                           phi=Variable(start=1.0, fixed=True),
                                           w=Variable(start=0.0, fixed=True))
        rod = library.FixedTranslation(r=(0.0, -0.5, 0.0) if spatial else [0.0, -0.5])
        bob = library.Body(m=1.0, **(dict(I_11=0.02, I_22=0.02, I_33=0.02) if spatial
                                     else dict(I=0.02)))

        def connections(self):
            return [connect(self.fixed.frame_b if spatial else self.fixed.frame,
                            self.slider_joint.frame_a),
                    connect(self.slider_joint.frame_b, self.slider.frame_a),
                    connect(self.slider_joint.frame_b, self.pin.frame_a),
                    connect(self.pin.frame_b, self.rod.frame_a),
                    connect(self.rod.frame_b, self.bob.frame_a)]

    return SliderPendulum()


def test_planar_mechanism_from_3d_friction_joints_equals_the_planar_one():
    """The slider-pendulum from the 3-D joints with friction and from the planar ones: the 3-D
    joints' normal forces reduce to the planar ones (axial thrust, out-of-plane bending and
    torsion are exactly 0), and both share the friction law, so the motions agree to the
    integration error of the two runs; a 1 % change of a friction parameter is far outside it."""
    import acausal.components.multibody as mb
    import acausal.components.planar as pl

    # Tolerance of the comparison, from the runs' tolerances. Each run is an independent
    # integration at RTOL, ATOL: IDA keeps each step's local error of every unknown y within
    # about RTOL |y| + ATOL (in an RMS over the unknowns); the global error at an output is
    # those local errors summed over the run and carried on by the dynamics, a multiple G of
    # RTOL |y| + ATOL. The exact solutions of the two models are equal, so the runs differ by at
    # most 2 G (ATOL + RTOL scale), each signal measured against its own range (the slider's
    # speed against the bob's speed: the slider only creeps on its bristles, at ~1e-3 of it).
    # Unknowns that start at 0 have the nominal value 1, i.e. the absolute tolerance ATOL; the
    # smallest of them, the bristle deflection (<= max_stiction_deform = 1e-5 m; every friction
    # force is stiffness x deflection) and the slider's 6e-5 m creep, are held to RTOL of their
    # own size only with ATOL <= RTOL * 1e-6 m, hence ATOL = RTOL * 1e-6.
    # G measured: 70 at most (slider s; its friction force 53; every other signal < 2), in 60
    # runs at RTOL 1e-8 with g changed by 1e-16 ... 1e-14 relative, which changes the step
    # sequence as another machine's rounding does; the two runs then differed by 49 (ATOL +
    # RTOL scale) at most (28 and 30 at RTOL 1e-7 and 1e-6). K = 500 > 2 G x 3.5. (The earlier
    # tolerance, 1e-6 of each signal's range at rtol 1e-10, allowed the slider s 100 x
    # (ATOL + RTOL |s|), less than 2 G, and failed on one machine.) A 1 % change of any friction
    # parameter moves some signal by >= 1.2e5 (ATOL + RTOL scale) (least: stiction_trans_vel,
    # in the pin's friction torque; mu_dynamic 1e6, damping_effects 1.6e5 in s), and a wrong
    # sign of the slider's axis by 2e8 (in s): >= 240 x the bound; the first is checked below.
    RTOL = 1e-8
    ATOL = RTOL * 1e-6
    K = 500
    names = ("slider_joint.s", "slider_joint.v", "pin.phi", "pin.w", "slider_joint.normal_force",
             "pin.normal_force", "slider_joint.friction_force", "pin.friction_torque")
    t = np.linspace(0.0, 2.0, 41)

    def run(model):  # the slider holds through the run: the stuck report is not the point here
        return compile(model).simulate(2.0, t_eval=t, rtol=RTOL, atol=ATOL, stuck_report=False)

    flat = run(slider_pendulum(pl))
    speed = 0.5 * np.max(np.abs(flat["pin.w"]))
    bound = {name: K * (ATOL + RTOL * (speed if name == "slider_joint.v"
                                       else np.max(np.abs(flat[name])))) for name in names}

    def worst(sol):
        """The largest difference to the planar run, as a fraction of its bound."""
        return max(np.max(np.abs(sol[name] - flat[name])) / bound[name] for name in names)

    space = run(slider_pendulum(mb))
    for name in names:
        np.testing.assert_allclose(space[name], flat[name], rtol=0, atol=bound[name],
                                   err_msg=name)
    # the comparison can fail: a 1 % larger stiction_trans_vel in the 3-D model (the change
    # of the friction law the signals show least) is far outside the bound
    assert worst(run(slider_pendulum(mb, stiction_trans_vel=1.01e-2))) > 100
    # the out-of-plane loads vanish (to rounding: 1e-12 of the 30 N in-plane loads); friction
    # acted (the pendulum lost energy)
    assert np.max(np.abs(space["pin.n_axial"])) < 1e-12 * 30.0
    assert np.max(np.abs(space["slider_joint.n_torsion"])) < 1e-12 * 30.0
    assert np.max(np.abs(space["pin.w"][-10:])) < np.max(np.abs(space["pin.w"]))
    assert space["pin.friction_work"][-1] > 0.01


def test_inactive_static_leaves_a_transient_run_unchanged(revolute_rig):
    """inactive='Static' switches friction off in static analyses only (MotionSolve); a
    simulation is a transient analysis, so the result is the same as with 'None'."""
    joint = RevoluteWithFriction(use_axis_flange=True, n=(0, 0, 1), pin_radius=R_P,
                                 friction_arm=R_N, bending_reaction_arm=R_B,
                                 torque_preload=T_PRE, inactive="static", **LAW)
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.2)
    static = compile(LoadedJoint(joint, body, drive=Speed(w_ref=W0)))
    F, M = (30.0, 40.0, 10.0), (3.0, -4.0, 0.0)
    a = static.simulate(0.5, dt=0.05, params=loads(F, M), **TIGHT)
    b = revolute_rig.simulate(0.5, dt=0.05, params=loads(F, M), **TIGHT)
    np.testing.assert_array_equal(a["drive.tau"], b["drive.tau"])
    assert a["drive.tau"][-1] == pytest.approx(revolute_torque(F, M)[0], rel=1e-6)


def test_revolute_sticks_below_breakaway_and_slides_above():
    """A torque about the axis, ramped up in 5 s and held, on a pin under a 50 N radial load:
    below mu_static*N*R_p the pin sticks (the surface deflection R_p*phi stays within the
    quasi-static creep -delta ln(1 - T/T_s), the bristle within delta); above it turns."""
    delta = 1e-5
    joint = RevoluteWithFriction(n=(0, 0, 1), pin_radius=R_P, inputs="0100", mu_static=MU_S,
                                 mu_dynamic=MU_D, stiction_trans_vel=V_S,
                                 max_stiction_deform=delta,
                                 phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=0.0, fixed=True))
    # a small inertia about the axis: the bristle mode (k R_p^2/I)^0.5 = 775 rad/s is damped
    # (zeta = 0.08) long before the load ends, and the ramp's start does not shake the pin
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=1e-3)
    twist = [Constant(k=0.0), Constant(k=0.0), Ramp(height=1.0, duration=5.0)]
    cs = compile(LoadedJoint(joint, body, F=(30.0, 40.0, 0.0), torque_sources=twist))
    t_s = MU_S * 50.0 * R_P
    for fraction in (0.5, 0.9):
        with pytest.warns(SimulationWarning, match="Friction stuck: RevoluteWithFriction 'joint'"):
            sol = cs.simulate(6.0, dt=0.01, params={"t[2].height": fraction * t_s}, **TIGHT)
        assert np.max(np.abs(sol["joint.bristle"])) <= delta
        creep = -delta * np.log(1 - fraction)
        # the quasi-static formula is the slow-ramp limit (prismatic test); this 5 s ramp
        # creeps 1.4 % more at 0.9 T_s (measured)
        assert R_P * sol["joint.phi"][-1] == pytest.approx(creep, rel=2e-2)
        assert abs(sol["joint.w"][-1]) < 1e-6
        assert sol["joint.friction_torque"][-1] == pytest.approx(fraction * t_s, rel=1e-6)
    sol = cs.simulate(6.0, dt=0.01, params={"t[2].height": 1.05 * t_s}, **TIGHT)
    v = R_P * sol["joint.w"][-1]
    assert v > 10 * V_S  # turning
    assert sol["joint.friction_torque"][-1] == pytest.approx(R_P * (MU_D * 50.0 + K2 * v),
                                                             rel=1e-6)
