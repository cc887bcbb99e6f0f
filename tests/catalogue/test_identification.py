"""Issue 28, "nothing wrong passes silently": parameter identification.

The cases a user test found, each with the error class and a message that names the culprit, or
the right numbers:

1. ``mu_dynamic`` of the 3-D ``RevoluteWithFriction`` (LuGre law) stopped at IPOPT iteration 0
   ("Invalid_Number_Detected", "the Jacobian at the estimates is not finite"). Cause: the law's
   kinks (``|v|`` at zero slip speed, ``max(k0, mu_s N/delta)`` where the stiffness bound takes
   over) sit in the algebraic loop of the joint's own reaction; there the sensitivities of the
   algebraic variables jump, IDAS's corrector cannot step across (IDA_CONV_FAIL, then NaN).
   Now the joints use C1 versions of both, and the mechanism is identified; a model that still
   has such a kink is refused before IPOPT with a SimulationError that says where.
2. The summary of a failed fit said "0 experiment(s)".
3. ``plot()`` of a failed fit failed inside matplotlib.
4. One sample (fewer values than unknowns, or zero degrees of freedom) passed as converged
   with NaN standard deviations.
5. A signal whose length differs from the times was not named.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, connect, der
from acausal.analysis.identify import Experiment, IdentificationWarning, identify
from acausal.base.errors import InputError, ParameterError, SimulationError
from acausal.components.blocks import Constant, Sine
from acausal.components.multibody import Body, Fixed, World, WorldTorque
from acausal.components.multibody.joint_friction import RevoluteWithFriction
from acausal.components.translational import Fixed as Wall
from acausal.components.translational import Mass, SpringDamper
from acausal.library import friction as fr
from acausal.library.smooth import abs_huber, max_huber

# --------------------------------------------------------------------------------------------
# 1. mu_dynamic of the 3-D RevoluteWithFriction (LuGre)
# --------------------------------------------------------------------------------------------

MU_S, MU_D, R_P = 0.3, 0.2, 0.02
K0, DELTA = 1e5, 1e-5  # the joint's default bristle stiffness and max_stiction_deform
N_BOUND = K0 * DELTA / MU_S  # load at which the stiffness bound mu_s N/delta takes over: 3.3 N


class PinPendulum(Component):
    """A body with its centre of mass 0.2 m off the axis on a 3-D revolute joint with
    MotionSolve joint friction (LuGre, defaults) about the world z axis, gravity along -y, and a
    sinusoidal world torque about z. The pin's normal force is the joint's own reaction, which
    depends on the friction through the motion: an algebraic loop (integrated by IDAS)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.fixed = Fixed()
        self.joint = RevoluteWithFriction(n=(0, 0, 1), pin_radius=R_P, mu_static=MU_S,
                                          mu_dynamic=MU_D, stiction_trans_vel=1e-3)
        self.body = Body(m=1.0, r_CM=(0.2, 0.0, 0.0), I_11=0.01, I_22=0.01, I_33=0.01)
        self.twist = WorldTorque()
        self.drive = [Constant(k=0.0), Constant(k=0.0), Sine(amplitude=0.3, f=1.0)]

    def connections(self):
        return [connect(self.fixed.frame_b, self.joint.frame_a),
                connect(self.joint.frame_b, self.body.frame_a),
                connect(self.twist.frame_b, self.body.frame_a),
                *(connect(c.y, i) for c, i in zip(self.drive, self.twist.torque))]


@pytest.fixture(scope="module")
def pendulum():
    system = compile(PinPendulum())
    t = np.linspace(0.0, 2.0, 201)
    sol = system.simulate(2.0, t_eval=t, rtol=1e-10, atol=1e-12)
    return system, t, sol


def test_mu_dynamic_of_the_3d_revolute_with_friction_is_identified(pendulum):
    system, t, sol = pendulum
    # the data pass both points where the law had a kink, in the algebraic loop of a DAE
    assert system.z.numel() > 0
    w = np.asarray(sol["joint.w"])
    assert np.any(np.diff(np.sign(w[1:])) != 0)  # the slip speed crosses zero
    normal = np.asarray(sol["joint.normal_force"])
    assert normal.min() < N_BOUND < normal.max()
    phi = np.asarray(sol["joint.phi"])
    sigma = 1e-3 * np.ptp(phi)
    rng = np.random.default_rng(28)
    data = {"t": t, "joint.phi": phi + sigma * rng.standard_normal(t.size)}
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdentificationWarning)  # a doubtful fit fails the test
        result = identify(system, Experiment(data, sigma=sigma, name="swing"),
                          {"joint.mu_dynamic": 0.25})
    assert result.converged, result.message
    estimate, sd = result.estimates["joint.mu_dynamic"], result.std["joint.mu_dynamic"]
    assert np.isfinite(sd) and sd > 0
    # sigma is known, so sd is the spread the noise gives the estimate; the integration error
    # (identify's rtol 1e-8, the data's 1e-10) moves phi by ~1e-8 * 3 rad, 1e-5 of sigma:
    # negligible. 4 sd: a false alarm once in 16000 noise draws (and this draw is seeded).
    assert abs(estimate - MU_D) < 4 * sd, (estimate, sd)
    assert 0.25 - MU_D > 10 * sd  # the guess was far off: the fit really moved
    # the weighted residual variance of 200 degrees of freedom: 1 +- 0.1 (chi-square)
    assert result.dof == 200 and 0.7 < result.s2 < 1.3


def test_the_smooth_versions_equal_the_exact_ones_outside_their_band():
    x = sp.Symbol("x", real=True)
    eps = 1e-3
    f = abs_huber(x, eps)
    df = sp.diff(f, x)
    for value in (-2 * eps, -eps, eps, 0.5):
        assert float(f.subs(x, value)) == abs(value)
    assert float(f.subs(x, 0.0)) == pytest.approx(eps / 2, rel=1e-15)
    for edge in (-eps, eps):  # C1: the slopes meet at the band's edges
        inside, outside = edge * (1 - 1e-12), edge * (1 + 1e-12)
        assert float(df.subs(x, inside)) == pytest.approx(float(df.subs(x, outside)), abs=1e-9)
    a, b = sp.symbols("a b")
    m = max_huber(a, b, eps)
    assert float(m.subs({a: 1.0, b: 1.0 + 2 * eps})) == 1.0 + 2 * eps
    assert float(m.subs({a: 1.0, b: 1.0})) == pytest.approx(1.0 + eps / 4, rel=1e-15)
    # the stiffness bound of the LuGre laws: exact where k0 and F_s/delta differ by more than
    # stiffness_eps, and at most stiffness_eps/4 stiffer where they meet
    F = sp.Symbol("F")
    k_exact = fr.bristle_stiffness_bound(K0, F, DELTA)
    k_smooth = fr.bristle_stiffness_bound(K0, F, DELTA, stiffness_eps=1e-3 * K0)
    for level in (0.5, 2.0, 5.0):
        assert float(k_smooth.subs(F, level)) == float(k_exact.subs(F, level))
    assert float(k_smooth.subs(F, K0 * DELTA)) == pytest.approx(K0 * (1 + 2.5e-4), rel=1e-12)
    # lugre(v_eps=1e-9): the bristle rate at a slip of 1 mm/s differs by (v_eps/v)^2/2 = 5e-13
    v, z, N = sp.symbols("v z N")
    exact = fr.lugre(v, z, N, stiction_trans_vel=1e-3)
    smooth = fr.lugre(v, z, N, stiction_trans_vel=1e-3, v_eps=1e-9)
    point = {v: 1e-3, z: 2e-6, N: 10.0}
    rate = float(exact.state_derivative.subs(point))
    assert float(smooth.state_derivative.subs(point)) == pytest.approx(rate, rel=1e-11)


class KinkLoop(Component):
    """An oscillator braked by ``z`` with ``z + z^3 = c |v|``: a kink (|v| at v = 0) in an
    algebraic loop, the way the joint friction had one."""

    c = Parameter(2.0, min=0.0)
    x = Variable(start=0.0, fixed=True)
    v = Variable(start=1.0, fixed=True)
    z = Variable(guess=1.0)

    def equations(self):
        return [Eq(der(self.x), self.v), Eq(der(self.v), -10 * self.x - self.z),
                Eq(self.z + self.z**3, self.c * sp.Abs(self.v))]


@pytest.fixture(scope="module")
def kinked():
    return compile(KinkLoop())


def kinked_data(system, t_end, samples):
    t = np.linspace(0.0, t_end, samples)
    sol = system.simulate(t_end, t_eval=t, rtol=1e-10, atol=1e-12)
    return Experiment({"t": t, "x": np.asarray(sol["x"])}, sigma=1e-3, name="kinked")


def test_a_model_that_is_not_differentiable_is_refused_before_ipopt(kinked):
    # v crosses zero at t = 0.44 s: the sensitivities cannot be integrated across it
    with pytest.raises(SimulationError) as info:
        identify(kinked, kinked_data(kinked, 2.0, 101), {"c": 1.5})
    text = str(info.value)
    assert "'c'" in text and "experiment 'kinked'" in text
    assert "shooting interval t = 0.4 ... 0.6 s" in text
    assert re.search(r"at t = 0\.44\d* s", text), text
    assert "abs_huber" in text  # and what to do


# --------------------------------------------------------------------------------------------
# 2. and 3. a failed fit: its summary and its plot
# --------------------------------------------------------------------------------------------

def test_a_failed_fit_counts_its_experiments_and_plots_what_it_has(kinked, tmp_path):
    pytest.importorskip("matplotlib")
    # at the guess c = 0.5, v first reaches zero at t = 0.475 s, after the data (0 ... 0.46 s);
    # at the truth c = 2 at 0.44 s: IPOPT's first step crosses the kink and the sensitivities
    # fail there
    with pytest.warns(IdentificationWarning,
                      match=r"sensitivities cannot be computed at the estimates \(experiment "
                            r"'kinked'"):
        result = identify(kinked, kinked_data(kinked, 0.46, 51), {"c": 0.5},
                          method="single_shooting")
    assert not result.converged
    assert "1 experiment(s), 51 residuals" in str(result)
    assert list(result.times) == ["kinked"]
    assert np.all(np.isfinite(result.fitted["kinked"]["x"]))  # the last estimates, simulated
    path = tmp_path / "failed.png"
    fig = result.plot(path)
    assert path.stat().st_size > 0
    assert "NOT converged" in fig._suptitle.get_text()
    assert len(fig.axes) == 2  # the signal and its residuals
    with pytest.raises(InputError, match=r"nothing to plot: experiments= selects no "
                                         r"experiment \(the experiments are kinked\)"):
        result.plot(tmp_path / "none.png", experiments=[])
    with pytest.raises(InputError, match=r"no experiment 3: there are 1 \(kinked\)"):
        result.plot(tmp_path / "three.png", experiments=[3])


# --------------------------------------------------------------------------------------------
# 4. too few samples for the unknowns or for the statistics
# --------------------------------------------------------------------------------------------

class Oscillator(Component):
    wall = Wall()
    sd = SpringDamper(c=100.0, d=2.0)
    mass = Mass(m=1.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.sd.flange_a),
                connect(self.sd.flange_b, self.mass.flange_a)]


@pytest.fixture(scope="module")
def oscillator():
    system = compile(Oscillator())
    t = np.linspace(0.0, 1.0, 101)
    sol = system.simulate(1.0, t_eval=t, rtol=1e-10, atol=1e-12)
    return system, t, np.asarray(sol["mass.s"]), np.asarray(sol["mass.v"])


def test_fewer_values_than_unknowns_is_an_input_error(oscillator):
    system, t, s, _ = oscillator
    one = Experiment({"t": t[50:51], "mass.s": s[50:51]}, sigma=1e-3, t_start=0.0, name="one")
    with pytest.raises(InputError, match=r"give 1 measured value\(s\) \('one': 1 sample\(s\) x "
                                         r"1 signal\(s\)\) for 2 estimated unknown\(s\) \(2 "
                                         r"parameter\(s\): sd.c, sd.d\)"):
        identify(system, one, {"sd.c": 90.0, "sd.d": 2.5})


def test_one_sample_at_the_start_time_names_the_parameter(oscillator):
    system, t, s, _ = oscillator
    # without t_start the experiment starts at its only sample: the state there is the
    # initial state, which sd.c does not change
    one = Experiment({"t": t[50:51], "mass.s": s[50:51]}, sigma=1e-3, name="one")
    with pytest.raises(ParameterError, match=r"do not depend on 'sd.c' at its initial guess 90: "
                                             r".*exactly zero in every experiment.*start time"):
        identify(system, one, {"sd.c": 90.0})


def test_one_sample_with_sigma_has_deviations_and_no_s2(oscillator):
    system, t, s, _ = oscillator
    one = Experiment({"t": t[50:51], "mass.s": s[50:51]}, sigma=1e-3, t_start=0.0, name="one")
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdentificationWarning)
        result = identify(system, one, {"sd.c": 90.0})
    # one value, one unknown: the noise level being given, the standard deviation is
    # sigma/|d s(0.5)/d c|; s^2 has no degree of freedom to come from
    assert result.converged and result.dof == 0 and np.isnan(result.s2)
    sd = result.std["sd.c"]
    assert np.isfinite(sd) and sd > 0
    # noise-free data: the fit stops when the Gauss-Newton step is below step_tol = 0.01 sd,
    # so it is within ~0.01 sd of the truth (the integration error, rtol 1e-8 of s ~ 0.1 m
    # against sigma = 1e-3 m, adds 1e-6 sd); 0.02 sd allows for the step's linearisation
    assert abs(result.estimates["sd.c"] - 100.0) < 0.02 * sd
    assert "s^2 not available (dof 0)" in str(result)


def test_zero_degrees_of_freedom_without_sigma_says_why_there_are_no_deviations(oscillator):
    system, t, s, _ = oscillator
    two = Experiment({"t": t[[30, 60]], "mass.s": s[[30, 60]]}, t_start=0.0, name="two")
    with pytest.warns(IdentificationWarning,
                      match=r"no standard deviations: the experiments give as many measured "
                            r"values \(2\) as there are estimated unknowns \(2\).*sigma="):
        result = identify(system, two, {"sd.c": 95.0, "sd.d": 2.2})
    assert result.dof == 0 and np.isnan(result.s2)
    assert all(np.isnan(result.std[n]) for n in ("sd.c", "sd.d"))
    assert "no standard deviations" in result.message


# --------------------------------------------------------------------------------------------
# 5. a signal whose length differs from the times
# --------------------------------------------------------------------------------------------

def test_a_signal_of_the_wrong_length_is_named(oscillator):
    system, t, s, v = oscillator
    data = Experiment({"t": t, "mass.s": s, "mass.v": v[:-3]}, name="lab")
    with pytest.raises(InputError, match=r"Experiment 'lab': signal 'mass.v' has 98 values for "
                                         r"101 sample times"):
        identify(system, data, ["sd.c"])
    with pytest.raises(InputError, match=r"Experiment 'experiment 0': signal 'mass.s' has 100 "
                                         r"values for 101 sample times"):
        identify(system, {"t": t, "mass.s": s[:-1]}, ["sd.c"])
