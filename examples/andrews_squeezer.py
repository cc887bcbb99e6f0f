"""Andrews' squeezing mechanism: seven bodies and ten revolute joints in a plane, built from the
planar component library, against the published reference solution.

The benchmark of Schiehlen (1990), Hairer & Wanner ("Solving Ordinary Differential Equations
II", 2nd ed., section VII.7) and the Test Set for IVP Solvers (Mazzia & Magherini, problem
"Andrews' squeezing mechanism"): a crank (angle ``beta``) driven by a constant torque
``mom = 0.033 N m`` squeezes, through a link (``theta``, relative to the crank), a point E that
three more chains hold: a lever about B (``gamma``) pulled by a spring from C, a two-body chain
about A (``delta``, then ``phi`` relative to it), and another about A (``epsilon``, then
``omega``). No gravity. One degree of freedom; the index-3 DAE of the literature becomes, after
acausal's index reduction, an ODE or index-1 DAE in two states.

Topology (points as in Hairer & Wanner's figure; ``dir(a) = (cos a, sin a)``)::

    O = (0, 0)           R = O + rr dir(beta)              CM1 = O + ra dir(beta)
                         E = R - d dir(beta + theta)       CM2 = R - da dir(beta + theta)
    B = (xb, yb)         E = B + R(gamma) (0, -ss)         D = B + R(gamma) (sd, -sc)
    A = (xa, ya)         P = A + R(delta) (zt, 0)          E = P + R(delta + phi) (0, -e)
                         Q = A + R(epsilon) (0, -u)        E = Q + R(epsilon + omega) (zf, 0)
    spring c0 = 4530 N/m, rest length l0 = 0.07785 m, between C = (xc, yc) and D (a planar TSDA)

(``R(a)`` the rotation by ``a``). Centres of mass: body 4 at ``e - ea`` from P towards E, body 6
at ``zf - fa`` from Q towards E; bodies 3, 5 and 7 turn about fixed points, so only the size of
their centre-of-mass offsets (sa, sb), (ta, tb), (ua, ub) matters without gravity. These are the
positions implied by the benchmark's mass matrix and constraints (checked term by term against
the Test Set's residual function). Parameters and the reference solution at t = 0.03 s (PSIDE,
rtol = atol = 1e-14) are the Test Set's.

Run ``python examples/andrews_squeezer.py`` (options ``--rtol``, ``--atol``): it simulates
0 .. 0.03 s and prints the seven angles next to the reference values.
"""

from __future__ import annotations

import argparse
import sys

from acausal import Component, Variable, compile, connect
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World
from acausal.components.planar.spring_damper_actuators import TSDA
from acausal.components.rotational import ConstantTorque

# -- the benchmark's data (SI), Test Set for IVP Solvers, problem "andrews" --------------------
M = dict(m1=.04325, m2=.00365, m3=.02373, m4=.00706, m5=.07050, m6=.00706, m7=.05498)
INERTIA = dict(i1=2.194e-6, i2=4.410e-7, i3=5.255e-6, i4=5.667e-7, i5=1.169e-5, i6=5.667e-7,
               i7=1.912e-5)
XA, YA, XB, YB, XC, YC = -.06934, -.00227, -0.03635, .03273, .014, .072
D, DA, E, EA, RR, RA = 28e-3, 115e-4, 2e-2, 1421e-5, 7e-3, 92e-5
SS, SA, SB, SC, SD = 35e-3, 1874e-5, 1043e-5, 18e-3, 2e-2
TA, TB, U, UA, UB = 2308e-5, 916e-5, 4e-2, 1228e-5, 449e-5
ZF, ZT, FA, MOM, C0, L0 = 2e-2, 4e-2, 1421e-5, 0.033, 4530.0, 0.07785

#: Consistent initial angles (rad) of the Test Set.
START = dict(beta=-0.0617138900142764496358948458001, theta=0.0,
             gamma=0.455279819163070380255912382449, phi=0.222668390165885884674473185609,
             delta=0.487364979543842550225598953530, omega=-0.222668390165885884674473185609,
             epsilon=1.23054744454982119249735015568)
#: Reference solution at t = 0.03 s (angles, rad; Test Set, PSIDE with rtol = atol = 1e-14).
REFERENCE = dict(beta=0.1581077119629904e+2, theta=-0.1575637105984298e+2,
                 gamma=0.4082224013073101e-1, phi=-0.5347301163226948,
                 delta=0.5244099658805304, omega=0.5347301163226948,
                 epsilon=0.1048080741042263e+1)
T_END = 0.03


def _joint(angle: float, fixed: bool = False, **kw) -> Revolute:
    return Revolute(phi=Variable(start=angle, fixed=fixed), w=Variable(start=0.0, fixed=fixed),
                    **kw)


def _body(offset, m: float, inertia: float) -> tuple[FixedTranslation, Body]:
    return FixedTranslation(r=list(offset)), Body(m=m, I=inertia)


class AndrewsSqueezer(Component):
    """The squeezer; joint angles ``j_beta.phi`` ... are the benchmark's seven coordinates."""

    world = World(g=0.0)  # the benchmark has no gravity

    def __init__(self, **kw):
        super().__init__(**kw)
        s = START
        self.origin, self.point_a = Fixed(r=[0.0, 0.0]), Fixed(r=[XA, YA])
        self.point_b, self.point_c = Fixed(r=[XB, YB]), Fixed(r=[XC, YC])
        # crank (beta), driven by mom, and the link to E (theta, relative)
        self.j_beta = _joint(s["beta"], fixed=True, use_axis_flange=True)
        self.drive = ConstantTorque(tau_constant=MOM)
        self.crank = FixedTranslation(r=[RR, 0.0])
        self.cm1, self.body1 = _body((RA, 0.0), M["m1"], INERTIA["i1"])
        self.j_theta = _joint(s["theta"])
        self.link = FixedTranslation(r=[-D, 0.0])
        self.cm2, self.body2 = _body((-DA, 0.0), M["m2"], INERTIA["i2"])
        # lever about B (gamma) with the spring point D
        self.j_gamma = _joint(s["gamma"])
        self.lever_e = FixedTranslation(r=[0.0, -SS])
        self.lever_d = FixedTranslation(r=[SD, -SC])
        self.cm3, self.body3 = _body((SA, SB), M["m3"], INERTIA["i3"])
        self.spring = TSDA(k=C0, l0=L0)  # the spring from C to D (c0, l0)
        # chain about A: delta, then phi (relative)
        self.j_delta = _joint(s["delta"])
        self.arm5 = FixedTranslation(r=[ZT, 0.0])
        self.cm5, self.body5 = _body((TA, TB), M["m5"], INERTIA["i5"])
        self.j_phi = _joint(s["phi"])
        self.arm4 = FixedTranslation(r=[0.0, -E])
        self.cm4, self.body4 = _body((0.0, -(E - EA)), M["m4"], INERTIA["i4"])
        # chain about A: epsilon, then omega (relative)
        self.j_epsilon = _joint(s["epsilon"])
        self.arm7 = FixedTranslation(r=[0.0, -U])
        self.cm7, self.body7 = _body((UA, UB), M["m7"], INERTIA["i7"])
        self.j_omega = _joint(s["omega"])
        self.arm6 = FixedTranslation(r=[ZF, 0.0])
        self.cm6, self.body6 = _body((ZF - FA, 0.0), M["m6"], INERTIA["i6"])
        # the three joints at E that close the loops (guesses: the relative angles at the start)
        link = s["beta"] + s["theta"]
        self.j_e3 = _joint(s["gamma"] - link)
        self.j_e4 = _joint(s["delta"] + s["phi"] - link)
        self.j_e6 = _joint(s["epsilon"] + s["omega"] - link)

    def connections(self):
        c = []

        def chain(*frames):
            c.extend(connect(a, b) for a, b in zip(frames[:-1], frames[1:]))

        chain(self.origin.frame, self.j_beta.frame_a)
        c.append(connect(self.drive.flange, self.j_beta.flange_a))
        for start, joint, parts in (
                (self.origin.frame, self.j_beta, [(self.crank, None), (self.cm1, self.body1)]),
                (self.point_b.frame, self.j_gamma, [(self.lever_e, None), (self.lever_d, None),
                                                    (self.cm3, self.body3)]),
                (self.point_a.frame, self.j_delta, [(self.arm5, None), (self.cm5, self.body5)]),
                (self.point_a.frame, self.j_epsilon, [(self.arm7, None),
                                                      (self.cm7, self.body7)])):
            if joint is not self.j_beta:
                chain(start, joint.frame_a)
            for translation, body in parts:
                chain(joint.frame_b, translation.frame_a)
                if body is not None:
                    chain(translation.frame_b, body.frame_a)
        # relative joints on the crank, the delta arm and the epsilon arm
        for base, joint, arm, cm, body in (
                (self.crank, self.j_theta, self.link, self.cm2, self.body2),
                (self.arm5, self.j_phi, self.arm4, self.cm4, self.body4),
                (self.arm7, self.j_omega, self.arm6, self.cm6, self.body6)):
            chain(base.frame_b, joint.frame_a)
            chain(joint.frame_b, arm.frame_a)
            chain(joint.frame_b, cm.frame_a)
            chain(cm.frame_b, body.frame_a)
        # E: the link's end holds the lever, the delta-phi chain and the epsilon-omega chain
        for other, joint in ((self.lever_e, self.j_e3), (self.arm4, self.j_e4),
                             (self.arm6, self.j_e6)):
            chain(self.link.frame_b, joint.frame_a)
            chain(joint.frame_b, other.frame_b)
        chain(self.point_c.frame, self.spring.frame_a)
        chain(self.spring.frame_b, self.lever_d.frame_b)
        return c


ANGLES = {"beta": "j_beta.phi", "theta": "j_theta.phi", "gamma": "j_gamma.phi",
          "phi": "j_phi.phi", "delta": "j_delta.phi", "omega": "j_omega.phi",
          "epsilon": "j_epsilon.phi"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rtol", type=float, default=1e-10, help="relative tolerance")
    parser.add_argument("--atol", type=float, default=1e-12, help="absolute tolerance")
    args = parser.parse_args(argv)
    cs = compile(AndrewsSqueezer())
    print(cs.summary())
    sol = cs.simulate(T_END, t_eval=[0.0, T_END], rtol=args.rtol, atol=args.atol)
    print(f"angles at t = {T_END} s (rtol {args.rtol:g}, atol {args.atol:g}):")
    worst = 0.0
    for name, var in ANGLES.items():
        got, ref = sol[var][-1], REFERENCE[name]
        worst = max(worst, abs(got - ref))
        print(f"  {name:8s} {got:+.12f}  reference {ref:+.12f}  difference {got - ref:+.2e}")
    print(f"largest difference {worst:.2e} rad")
    return 0


if __name__ == "__main__":
    sys.exit(main())
