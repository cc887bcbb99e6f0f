"""LuGre friction between two 1-D translational flanges.

The dynamic friction model of Canudas de Wit, Olsson, Astrom and Lischinsky (1995) as a
compliant element in the style of the Modelica Standard Library's ``Translational`` package:
two flanges, a relative displacement ``s_rel = flange_b.s - flange_a.s`` and a force ``f`` that
acts against the relative motion. Friction against the ground is the usual Modelica pattern:
connect ``flange_a`` to a :class:`~acausal.components.translational.Fixed` and ``flange_b`` to
the sliding mass (as for ``Spring`` or ``Damper``).

Unlike the exact stick/slip element :class:`acausal.components.friction.Friction` (a hybrid
automaton with events), LuGre friction is a smooth ODE: stiction is a stiff bristle spring,
so a model with this element has no events, can be integrated by CVODES with exact parameter
sensitivities and is suited to parameter identification (:func:`acausal.identify.identify`).
"""

from __future__ import annotations

from acausal import Component, Eq, Parameter, Variable, der
from acausal.library.friction import lugre

from . import translational as _trans

__all__ = ["LuGreFriction"]


class LuGreFriction(Component):
    r"""LuGre friction between ``flange_a`` and ``flange_b`` (Canudas de Wit et al. 1995, with
    the parameter names of Altair MotionSolve's ``Force_JointFriction``).

    Equations (``v = v_rel``, ``N = normal_force``)::

        s_rel = flange_b.s - flange_a.s;   v_rel = der(s_rel)
        g(v)  = mu_dynamic*N + (mu_static - mu_dynamic)*N*exp(-(v/stiction_trans_vel)^2)
        der(z) = v - bristle_stiffness*|v|*z/g(v)
        f     = bristle_stiffness*z + damping_effects*der(z) + viscous_effects*v
        flange_b.f = f;   flange_a.f = -f

    ``f`` has the sign of ``v_rel`` in sliding: it resists the motion of flange_b relative to
    flange_a (the mass on flange_b feels ``-f``, the body on flange_a ``+f``). In steady sliding
    ``f = sign(v) g(v) + viscous_effects*v``; at rest the bristles deflect elastically up to
    ``|z| <= mu_static*N/bristle_stiffness`` (presliding displacement).

    Parameter mapping to Canudas de Wit et al. (1995): ``bristle_stiffness`` = sigma0,
    ``damping_effects`` = sigma1, ``viscous_effects`` = sigma2, ``mu_static*N`` = F_s,
    ``mu_dynamic*N`` = F_c, ``stiction_trans_vel`` = v_s (the paper's example: sigma0 = 1e5 N/m,
    sigma1 = sqrt(1e5) N s/m, sigma2 = 0.4 N s/m, F_c = 1 N, F_s = 1.5 N, v_s = 1e-3 m/s).
    MotionSolve calls the three stiffness terms k0, k1, k2 and gives them in N-mm-s; here they
    are SI.

    The law itself is :func:`acausal.library.friction.lugre` (``effect="All"``, no bound on the
    deflection). Sources: C. Canudas de Wit, H. Olsson, K. J. Astrom, P. Lischinsky, "A new
    model for control of systems with friction", IEEE Trans. Automatic Control 40(3):419-425,
    1995; Altair MotionSolve tutorial MV-9003 (LuGre friction) and ``Force_JointFriction``
    reference (parameter names); MSL ``Translational.Interfaces.PartialCompliant`` (flanges).
    """

    flange_a = _trans.Flange()
    flange_b = _trans.Flange()
    mu_static = Parameter(0.3, min=0.0, unit="1",
                          description="static friction coefficient (F_s = mu_static*N)")
    mu_dynamic = Parameter(0.2, min=0.0, unit="1",
                           description="dynamic (Coulomb) friction coefficient (F_c = "
                           "mu_dynamic*N)")
    stiction_trans_vel = Parameter(1e-3, min=0.0, unit="m/s",
                                   description="Stribeck velocity v_s of the transition from "
                                   "static to dynamic friction")
    bristle_stiffness = Parameter(1e5, min=0.0, unit="N/m",
                                  description="bristle stiffness sigma0 (MotionSolve k0)")
    damping_effects = Parameter(316.0, min=0.0, unit="N.s/m",
                                description="bristle damping sigma1 (MotionSolve k1)")
    viscous_effects = Parameter(0.4, min=0.0, unit="N.s/m",
                                description="viscous friction sigma2 (MotionSolve k2)")
    normal_force = Parameter(1.0, min=0.0, unit="N", description="normal force N (> 0)")
    s_rel = Variable(unit="m", description="relative displacement flange_b.s - flange_a.s")
    v_rel = Variable(unit="m/s", description="relative velocity der(s_rel)")
    z = Variable(start=0.0, unit="m", description="mean bristle deflection (LuGre state)")
    f = Variable(unit="N", description="friction force, positive against positive v_rel")

    def equations(self):
        law = lugre(self.v_rel, self.z, self.normal_force,
                    stiction_trans_vel=self.stiction_trans_vel, mu_static=self.mu_static,
                    mu_dynamic=self.mu_dynamic, bristle_stiffness=self.bristle_stiffness,
                    damping_effects=self.damping_effects, viscous_effects=self.viscous_effects)
        return [Eq(self.s_rel, self.flange_b.s - self.flange_a.s),
                Eq(self.v_rel, der(self.s_rel)),
                Eq(der(self.z), law.state_derivative),
                Eq(self.f, law.force),
                Eq(self.flange_b.f, self.f),
                Eq(self.flange_a.f, -self.f)]
