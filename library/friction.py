"""Friction laws as pure functions that return sympy expressions.

Nothing here is a component: each function takes sympy expressions (symbols of a model, numbers)
and returns a sympy expression that a component puts into its equations. The expressions use only
functions the code generator knows (``Piecewise``, ``Abs``, ``sign``, ``exp``, ``tanh``), so sympy
can differentiate them (index reduction) and :mod:`acausal.compiler.codegen` lowers them to CasADi
(``Piecewise`` becomes nested ``if_else``; no events are generated, as Modelica's ``noEvent``).

**Sign convention (all laws).** The returned force ``F`` has the sign of the slip velocity ``v``
in sliding: it is the force that *resists* the motion. The force acting on the moving part is
``-F`` (MotionSolve writes its LuGre force with this minus sign; Exudyn subtracts the spring-damper
force ``f_SD`` that contains the friction term). ``limit_S_form`` / ``limit_S_triple`` return a
dimensionless coefficient (or whatever ``y`` is) with the same convention.

Print any result as LaTeX with :func:`to_latex` (which is ``sympy.latex``).

Sources are cited per function (public documentation and source code).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from acausal.errors import ParameterError

from .smooth import abs_sqrt, max_huber

__all__ = [
    "LuGre",
    "LuGreVector",
    "coulomb",
    "limit_S_form",
    "limit_S_triple",
    "lugre",
    "lugre_g",
    "lugre_vector",
    "bristle_stiffness_bound",
    "slip_law_vector",
    "stribeck_exudyn",
    "stribeck_simscape",
    "to_latex",
]

_S = sp.sympify


def to_latex(expr, **kwargs) -> str:
    """LaTeX for any expression returned here (a thin wrapper around ``sympy.latex``)."""
    if isinstance(expr, LuGre):
        return (r"\dot z = %s,\qquad F = %s" % (sp.latex(expr.state_derivative, **kwargs),
                                                 sp.latex(expr.force, **kwargs)))
    return sp.latex(_S(expr), **kwargs)


# --------------------------------------------------------------------------------------------
# PlanarMechanics S-shaped limiters
# --------------------------------------------------------------------------------------------

def limit_S_form(x_min, x_max, y_min, y_max, x):
    r"""S-shaped C1 transition from ``y_min`` (at ``x <= x_min``) to ``y_max`` (at ``x >= x_max``).

    .. math::
        u = \left(x - \tfrac{x_{max} + x_{min}}{2}\right)\frac{2}{x_{max} - x_{min}},\qquad
        s(u) = \begin{cases} 1 & u > 1\\ -1 & u < -1\\ -\tfrac12 u^3 + \tfrac32 u & \text{else}
        \end{cases}

        y = s\,\frac{y_{max} - y_{min}}{2} + \frac{y_{max} + y_{min}}{2}

    The cubic has ``s'(+-1) = 0``, so ``y`` is C1 (the second derivative jumps at ``u = +-1``).
    ``x_max < x_min`` is allowed (the curve is then mirrored), as ``limit_S_triple`` uses it.

    Source: DLR PlanarMechanics ``Utilities/Functions/limitBySform.mo`` (``smoothOrder=1``) and
    its Multibody.jl twin ``limit_S_form`` (``src/PlanarMechanics/components.jl``).
    """
    x_min, x_max, y_min, y_max, x = (_S(a) for a in (x_min, x_max, y_min, y_max, x))
    u = (x - (x_max + x_min) / 2) * 2 / (x_max - x_min)
    half = sp.Rational(1, 2)
    s = sp.Piecewise((1, u > 1), (-1, u < -1), (-half * u**3 + 3 * half * u, True))
    return s * (y_max - y_min) / 2 + (y_max + y_min) / 2


def limit_S_triple(x_max, x_sat, y_max, y_sat, x):
    r"""Point-symmetric (odd) triple-S curve: 0 at 0, peak ``y_max`` at ``x_max``, ``y_sat`` beyond.

    .. math::
        y(x) = \begin{cases}
          \mathrm{S}(x_{max}, x_{sat}, y_{max}, y_{sat}, x) & x > x_{max}\\
          \mathrm{S}(-x_{max}, -x_{sat}, -y_{max}, -y_{sat}, x) & x < -x_{max}\\
          \mathrm{S}(-x_{max}, x_{max}, -y_{max}, y_{max}, x) & \text{else}
        \end{cases}

    with ``S = limit_S_form``. Odd in ``x``, C1 (zero slope at ``+-x_max`` and ``+-x_sat``),
    ``+-y_sat`` for ``|x| >= x_sat``, slope ``1.5 y_max/x_max`` at 0. Requires
    ``0 < x_max < x_sat``.

    The wheels use it as a slip-friction coefficient:
    ``mu = limit_S_triple(vAdhesion, vSlide, mu_A, mu_S, v_slip)`` (adhesion peak ``mu_A`` at
    ``vAdhesion``, sliding value ``mu_S`` from ``vSlide`` on).

    Source: DLR PlanarMechanics ``Utilities/Functions/limitByStriple.mo`` and Multibody.jl
    ``limit_S_triple`` (``src/PlanarMechanics/components.jl``); call convention from
    Dyad/Multibody.jl ``OneDOFSlippingWheelJoint``.
    """
    x_max, x_sat, y_max, y_sat, x = (_S(a) for a in (x_max, x_sat, y_max, y_sat, x))
    return sp.Piecewise(
        (limit_S_form(x_max, x_sat, y_max, y_sat, x), x > x_max),
        (limit_S_form(-x_max, -x_sat, -y_max, -y_sat, x), x < -x_max),
        (limit_S_form(-x_max, x_max, -y_max, y_max, x), True))


# --------------------------------------------------------------------------------------------
# Coulomb
# --------------------------------------------------------------------------------------------

def coulomb(v, f_c, regularization=None, v_reg=1e-3):
    r"""Coulomb friction force ``f_c sign(v)``, optionally regularised around ``v = 0``.

    * ``regularization=None``: :math:`F = f_c\,\mathrm{sign}(v)` (``sign(0) = 0``; discontinuous).
    * ``"linear"``: a linear zone of half-width ``v_reg``,
      :math:`F = f_c\,v/v_{reg}` for :math:`|v| \le v_{reg}`, else :math:`f_c\,\mathrm{sign}(v)`
      (continuous, kink at :math:`\pm v_{reg}`).
    * ``"tanh"``: :math:`F = f_c \tanh(v/v_{reg})` (smooth; relative error below
      :math:`2 e^{-2|v|/v_{reg}}`).

    Parameters: ``v`` slip velocity [m/s], ``f_c`` Coulomb force level [N] (e.g. ``mu*N``),
    ``v_reg`` regularisation velocity [m/s] (default 1e-3). Returns the resisting force [N]
    (sign of ``v``; the moving part feels ``-F``).

    Source: textbook Coulomb law; the linear zone is Exudyn's ``frictionProportionalZone`` idea
    (Exudyn documentation), the tanh form is the Coulomb term of Simscape's Translational
    Friction block.
    """
    v, f_c, v_reg = _S(v), _S(f_c), _S(v_reg)
    if regularization is None:
        return f_c * sp.sign(v)
    if regularization == "linear":
        return sp.Piecewise((f_c, v > v_reg), (-f_c, v < -v_reg), (f_c * v / v_reg, True))
    if regularization == "tanh":
        return f_c * sp.tanh(v / v_reg)
    raise ParameterError(f"coulomb(): regularization must be None, 'linear' or 'tanh', got "
                     f"{regularization!r}.")


# --------------------------------------------------------------------------------------------
# Exudyn regularised Stribeck
# --------------------------------------------------------------------------------------------

def stribeck_exudyn(v, *, frictionProportionalZone, fDynamicFriction=0.0,
                    fStaticFrictionOffset=0.0, exponentialDecayStatic=1e-3,
                    fViscousFriction=0.0):
    r"""Regularised Stribeck friction force exactly as Exudyn computes it.

    Exudyn ``ObjectConnectorCoordinateSpringDamperExt``, friction case 1
    (``frictionProportionalZone`` :math:`= v_{reg} \ne 0`), function
    ``ExuPhysics::StribeckFunction``:

    .. math::
        S(v) = \begin{cases}
          (f_D + f_{SO})\,v / v_{reg} & |v| \le v_{reg} \text{ and } v_{reg} \ne 0\\
          \mathrm{sign}(v)\,\bigl(f_D + f_{SO} e^{-w/v_{exp}} + f_V\,w\bigr),\ w = |v| - v_{reg}
          & \text{otherwise}
        \end{cases}

    and the exponential term is replaced by 1 when :math:`v_{exp} = 0`. Note the shift
    ``w = |v| - v_reg`` in both the exponential and the viscous term (so ``S`` is continuous at
    ``|v| = v_reg``), and ``sign(0) = 0``. The expression writes the exponent as
    ``-max(w, 0)/v_exp`` (identical on the branch where it is used) so that sympy cannot split
    off a factor ``exp(v_reg/v_exp)`` that would overflow when ``v_reg >> v_exp``.

    Keyword arguments use Exudyn's (pre-1.12) names:

    * ``fDynamicFriction`` :math:`f_D` [N] (Exudyn >= 1.12: ``dynamicFrictionForce``),
    * ``fStaticFrictionOffset`` :math:`f_{SO}` [N] (``staticFrictionOffsetForce``),
    * ``exponentialDecayStatic`` :math:`v_{exp}` [m/s] (default 1e-3, as Exudyn),
    * ``fViscousFriction`` :math:`f_V` [N s/m] (``viscousFrictionFactor``),
    * ``frictionProportionalZone`` :math:`v_{reg}` [m/s], required here. With 0 the function
      returns Exudyn's unregularised curve ``S0`` (``sign(v)(f_D + f_SO e^{-|v|/v_exp} +
      f_V |v|)``); Exudyn itself then uses its stick/slip bristle automaton (case 2), which is
      *not* this function.

    Numeric zero / non-zero ``v_reg`` and ``v_exp`` are resolved in Python; symbolic ones keep
    the tests ``v_reg != 0`` and ``v_exp == 0`` in the expression.

    Source: EXUDYN ``main/src/Utilities/Physics.h`` and
    ``main/src/Objects/CObjectConnectorCoordinateSpringDamperExt.cpp`` (commit ``e44aca1b``,
    v1.11).
    """
    v = _S(v)
    f_d, f_so = _S(fDynamicFriction), _S(fStaticFrictionOffset)
    v_exp, f_v = _S(exponentialDecayStatic), _S(fViscousFriction)
    v_reg = _S(frictionProportionalZone)
    w = sp.Abs(v) - v_reg
    # exp(-max(w, 0)/v_exp) equals exp(-w/v_exp) on the branch where it is used (w >= 0 there).
    # The max() only keeps sympy from splitting exp(-|v|/v_exp + v_reg/v_exp) into the factor
    # exp(v_reg/v_exp), which overflows for v_reg >> v_exp (inf * 0 = nan).
    if v_exp.is_zero:
        decay = sp.Integer(1)
    elif v_exp.is_zero is False:
        decay = sp.exp(-sp.Max(w, 0) / v_exp)
    else:
        decay = sp.Piecewise((1, sp.Eq(v_exp, 0)), (sp.exp(-sp.Max(w, 0) / v_exp), True))
    sliding = sp.sign(v) * (f_d + f_so * decay + f_v * w)
    in_zone = sp.And(sp.Abs(v) <= v_reg, sp.Ne(v_reg, 0))
    return sp.Piecewise(((f_d + f_so) * v / v_reg, in_zone), (sliding, True))


# --------------------------------------------------------------------------------------------
# Simscape-style smooth Stribeck
# --------------------------------------------------------------------------------------------

def stribeck_simscape(v, F_brk, F_C, f_viscous, v_brk=None, *, v_st=None, v_coul=None):
    r"""Smooth, memoryless Stribeck + Coulomb + viscous curve (Simscape Translational Friction).

    .. math::
        F = \sqrt{2e}\,(F_{brk} - F_C)\,e^{-(v/v_{St})^2}\,\frac{v}{v_{St}}
            + F_C \tanh\!\left(\frac{v}{v_{Coul}}\right) + f\,v,
        \qquad v_{St} = \sqrt2\,v_{brk},\quad v_{Coul} = v_{brk}/10

    Parameters: ``v`` relative velocity [m/s]; ``F_brk`` breakaway friction force [N];
    ``F_C`` Coulomb friction force [N]; ``f_viscous`` viscous coefficient ``f`` [N s/m];
    ``v_brk`` breakaway friction velocity [m/s]. ``v_st`` (Stribeck velocity threshold) and
    ``v_coul`` (Coulomb velocity threshold) default to the Simscape relations above and can be
    given explicitly instead (then ``v_brk`` may be omitted). The Stribeck term peaks, with
    value ``F_brk - F_C``, at ``v = v_St/sqrt(2) = v_brk``. For the rotational block read
    torque, angular velocity and N m s/rad. The PB/AB variants use ``F_brk = K_brk F_N`` and
    ``F_C = K_C F_N``.

    Source: MathWorks Simscape documentation, "Translational Friction" / "Rotational Friction"
    (Foundation Library) reference pages, e.g.
    https://www.mathworks.com/help/simscape/ref/translationalfriction.html
    """
    v, F_brk, F_C, f_viscous = (_S(a) for a in (v, F_brk, F_C, f_viscous))
    if v_st is None or v_coul is None:
        if v_brk is None:
            raise ParameterError("stribeck_simscape(): give v_brk, or both v_st and v_coul.")
        v_brk = _S(v_brk)
        v_st = sp.sqrt(2) * v_brk if v_st is None else v_st
        v_coul = v_brk / 10 if v_coul is None else v_coul
    v_st, v_coul = _S(v_st), _S(v_coul)
    return (sp.sqrt(2 * sp.E) * (F_brk - F_C) * sp.exp(-(v / v_st) ** 2) * v / v_st
            + F_C * sp.tanh(v / v_coul) + f_viscous * v)


# --------------------------------------------------------------------------------------------
# LuGre (MotionSolve / Canudas de Wit)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LuGre:
    """Result of :func:`lugre`: the caller adds ``Eq(der(state), state_derivative)`` and uses
    ``force`` (resisting force, sign of ``v``; the moving part feels ``-force``)."""

    state: sp.Expr             # bristle deflection z [m], the symbol passed by the caller
    state_derivative: sp.Expr  # dz/dt [m/s]
    force: sp.Expr             # F = sigma0 z + sigma1 dz/dt + sigma2 v [N] (gated for "Stiction")
    g: sp.Expr                 # Stribeck curve g(v) = Fc + (Fs - Fc) exp(-(v/Vs)^2) [N]
    terms: tuple = ()          # (k z, k1 dz/dt, k2 v) [N], ungated: the force's three effects


@dataclass(frozen=True)
class LuGreVector:
    """Result of :func:`lugre_vector` (lists, one entry per slip direction)."""

    state_derivatives: list    # dz_i/dt [m/s]
    forces: list               # F_i [N] (gated for "Stiction")
    terms: list                # (k z_i, k1 dz_i/dt, k2 v_i) per direction [N], ungated
    stiffness: sp.Expr         # bristle stiffness k used [N/m]


def lugre_g(v, normal_force, mu_static, mu_dynamic, stiction_trans_vel):
    r"""LuGre Stribeck curve :math:`g(v) = F_c + (F_s - F_c)\,e^{-(v/V_s)^2}` [N].

    :math:`F_c = \mu_d N`, :math:`F_s = \mu_s N`. MotionSolve's tutorial writes
    :math:`G = g/k_0` (a deflection); this function returns the force-level ``g`` of Canudas de
    Wit et al. (1995). Source: Altair MotionSolve tutorial MV-9003 (LuGre friction).
    """
    v, N = _S(v), _S(normal_force)
    mu_s, mu_d, v_s = _S(mu_static), _S(mu_dynamic), _S(stiction_trans_vel)
    f_c = mu_d * N
    f_s = mu_s * N
    return f_c + (f_s - f_c) * sp.exp(-(v / v_s) ** 2)


_EFFECTS = {"all": "All", "stiction": "Stiction", "sliding": "Sliding"}


def lugre(v, z, normal_force, *, stiction_trans_vel, mu_static=0.3, mu_dynamic=0.2,
          bristle_stiffness=1e5, damping_effects=316.0, viscous_effects=0.4, effect="All",
          max_stiction_deform=None, v_eps=0, stiffness_eps=None):
    r"""LuGre friction (Canudas de Wit et al. 1995) in the form Altair MotionSolve documents.

    .. math::
        G(v) = \frac{F_c + (F_s - F_c)\,e^{-(v/V_s)^2}}{k_0},\quad
        F_c = \mu_d N,\ F_s = \mu_s N

        \dot z = v - \frac{|v|\,z}{G(v)},\qquad
        F = k_0 z + k_1 \dot z + k_2 v

    (``k0, k1, k2`` = sigma0, sigma1, sigma2 of Canudas de Wit; ``G = g/sigma0`` so
    ``dz/dt = v - sigma0 |v| z / g(v)``). MotionSolve applies ``-F`` to the joint; this function
    returns ``F`` (sign of ``v``), like the other laws here. Steady sliding:
    ``z_ss = sign(v) G(v)``, ``F_ss = sign(v) g(v) + k2 v``. ``normal_force`` must be positive.

    Arguments (SI; names of MotionSolve's ``Force_JointFriction`` XML attributes):

    * ``v`` slip velocity [m/s]; ``z`` the caller's bristle-state symbol [m];
      ``normal_force`` N [N];
    * ``stiction_trans_vel`` V_s [m/s] (required: MotionSolve's default 0.1 is in model
      length units, which the reference does not pin down);
    * ``mu_static`` (0.3), ``mu_dynamic`` (0.2, the Python-API default) [-];
    * ``bristle_stiffness`` k0 [N/m] (1e5), ``damping_effects`` k1 [N s/m] (316),
      ``viscous_effects`` k2 [N s/m] (0.4): MotionSolve's defaults 100 / 0.316 / 0.0004 are
      absolute values in N-mm-s (Canudas de Wit's 1e5 N/m, ~316 N s/m, 0.4 N s/m), converted
      to SI here;
    * ``effect``: ``"All"`` (full model); ``"Sliding"`` (no stiction: F_s := F_c, i.e.
      mu_static -> mu_dynamic); ``"Stiction"`` (the force is applied only while ``|v| < V_s``
      and is 0 above; the state equation is unchanged). Case-insensitive.

    * ``max_stiction_deform`` delta [m] (optional; MotionSolve's "maximum deformation that can
      occur in a joint for static friction"): the bristle stiffness used is
      ``k = max(k0, F_s/delta)``, so that the deflection at rest, ``|z| <= g(0)/k = F_s/k``,
      never exceeds delta. ``None`` or 0: ``k = k0`` (no bound). [REC, friction_models.md 1.2:
      "a clamp on |z|"; a stiffer bristle clamps smoothly where a clamp on the state would jump.]

    * ``v_eps`` [m/s] (default 0: the law as written) and ``stiffness_eps`` [N/m] (default
      None: the exact ``max``): regularisations that make the law differentiable everywhere,
      ``|v|`` replaced by ``sqrt(v^2 + v_eps^2)`` (:func:`~acausal.library.smooth.abs_sqrt`;
      the steady force changes by the relative amount ``(v_eps/v)^2/2``, and at rest the
      bristle creeps at about ``v_eps``) and the bound's ``max`` by
      :func:`~acausal.library.smooth.max_huber` of width ``stiffness_eps`` (exact where
      ``k0`` and ``F_s/delta`` differ by more than that). Where the law sits
      in an algebraic loop (a joint whose normal force is its own reaction) its kinks make the
      parameter sensitivities of the algebraic variables jump, which the integrator of an
      identification cannot step across; the joints of :mod:`acausal.components` pass both.

    Returns a :class:`LuGre` with ``state``, ``state_derivative``, ``force`` and ``g``.

    Source: Altair MotionSolve LuGre tutorial MV-9003 and ``Force_JointFriction`` reference
    (attribute names, defaults, ``effect``; the SI conversion of the N-mm-s defaults is ours);
    C. Canudas de Wit,
    H. Olsson, K. J. Astrom, P. Lischinsky, IEEE TAC 40(3):419-425, 1995.
    """
    try:
        mode = _EFFECTS[str(effect).lower()]
    except KeyError:
        raise ParameterError(f"lugre(): effect must be 'All', 'Stiction' or 'Sliding', got "
                         f"{effect!r}.") from None
    v, z = _S(v), _S(z)
    k0, k1, k2 = _S(bristle_stiffness), _S(damping_effects), _S(viscous_effects)
    v_s = _S(stiction_trans_vel)
    mu_s = mu_dynamic if mode == "Sliding" else mu_static
    g = lugre_g(v, normal_force, mu_s, mu_dynamic, v_s)
    k0 = bristle_stiffness_bound(k0, mu_s * _S(normal_force), max_stiction_deform,
                                 stiffness_eps)
    big_g = g / k0
    speed = sp.Abs(v) if _S(v_eps).is_zero else abs_sqrt(v, v_eps)
    zdot = v - speed * z / big_g
    force = k0 * z + k1 * zdot + k2 * v
    if mode == "Stiction":
        force = sp.Piecewise((force, sp.Abs(v) < v_s), (0, True))
    return LuGre(state=z, state_derivative=zdot, force=force, g=g,
                 terms=(k0 * z, k1 * zdot, k2 * v))


def bristle_stiffness_bound(bristle_stiffness, static_level, max_stiction_deform,
                            stiffness_eps=None):
    r"""Bristle stiffness that keeps the deflection at rest within ``max_stiction_deform``:
    :math:`k = \max(k_0, F_s/\delta)` [N/m]; ``delta`` ``None`` or 0 gives ``k0`` unchanged.
    (A symbolic ``delta`` keeps the test ``delta > 0`` in the expression.) ``stiffness_eps``
    [N/m]: the smooth maximum :func:`~acausal.library.smooth.max_huber` of that width instead
    of ``max`` (exact where ``k0`` and ``F_s/delta`` differ by more than ``stiffness_eps``, at
    most ``stiffness_eps/4`` stiffer, differentiable where they cross); None: the exact
    ``max``."""
    k0 = _S(bristle_stiffness)
    if max_stiction_deform is None:
        return k0
    delta = _S(max_stiction_deform)
    if delta.is_zero:
        return k0

    def larger(a, b):
        return sp.Max(a, b) if stiffness_eps is None else max_huber(a, b, stiffness_eps)

    if delta.is_positive:
        return larger(k0, _S(static_level) / delta)
    # A symbolic delta may be 0 at run time: divide by max(delta, 1e-30) so that the branch
    # not taken stays finite (generated code evaluates both branches of a Piecewise).
    bound = larger(k0, _S(static_level) / sp.Max(delta, sp.Float(1e-30)))
    return sp.Piecewise((bound, delta > 0), (k0, True))


def _slip_measure(v, normal_forces, v_eps):
    r"""``s = sqrt(sum (v_i/N_i)^2 + (v_eps/N_1)^2)`` [m/(s N)]: the slip speed measured in
    units of each direction's load; ``s = |v|/N`` when all loads are equal and ``v_eps = 0``."""
    total = sum(((vi / Ni) ** 2 for vi, Ni in zip(v, normal_forces)), sp.Integer(0))
    return sp.sqrt(total + (_S(v_eps) / normal_forces[0]) ** 2)


def lugre_vector(v, z, normal_forces, *, stiction_trans_vel, mu_static=0.3, mu_dynamic=0.2,
                 bristle_stiffness=1e5, damping_effects=316.0, viscous_effects=0.4, effect="All",
                 max_stiction_deform=None, v_eps=1e-9, stiffness_eps=None):
    r"""LuGre friction on a surface that slides in 2 or 3 directions, with one bristle state per
    direction and a friction *ellipse* (ellipsoid) when the directions carry different loads.

    .. math::
        \mu(v) = \mu_d + (\mu_s - \mu_d)\,e^{-|v|^2/V_s^2},\qquad
        s = \sqrt{\textstyle\sum_j (v_j/N_j)^2 + (v_\epsilon/N_1)^2}

        \dot z_i = v_i - k\,z_i\,s/\mu(v),\qquad F_i = k z_i + k_1 \dot z_i + k_2 v_i

    with ``k = max(k0, mu_s max_j N_j / delta)`` (see :func:`bristle_stiffness_bound`).
    Steady sliding: ``F_i = mu(v) v_i / s + k2 v_i``: the force is parallel to ``v``, resists it,
    and its load-driven part lies on the ellipse :math:`\sum_i (F_i/(\mu N_i))^2 = 1`. With one
    direction and ``v_eps = 0`` this is exactly :func:`lugre` (``s = |v|/N``). With equal loads it
    is the isotropic vector LuGre law (friction circle or sphere), ``dz/dt = v - k |v| z/g(|v|)``.
    ``v_eps`` [m/s] (default 1e-9) keeps ``s`` differentiable at ``v = 0``; it changes the steady
    force by the relative amount ``(v_eps/|v|)^2/2``.

    ``stiffness_eps``: as :func:`lugre` (a smooth maximum in the stiffness bound).

    Arguments as :func:`lugre`, with ``v``, ``z`` and ``normal_forces`` sequences of equal
    length (the load ``N_i`` that limits the friction in direction ``i``, > 0). Returns a
    :class:`LuGreVector`; ``effect="Stiction"`` gates its forces by ``|v| < V_s``.

    Source: the isotropic law and the scaling to an ellipse are recorded in the project's
    friction notes (friction_models.md 1.3, [REC]); the scalar law is Canudas de Wit et al. 1995
    as MotionSolve documents it (MV-9003). The choice of a force parallel to the slip velocity
    (rather than the ellipse's maximum-dissipation direction) is ours, written down in
    docs/joint_friction.md.
    """
    try:
        mode = _EFFECTS[str(effect).lower()]
    except KeyError:
        raise ParameterError(f"lugre_vector(): effect must be 'All', 'Stiction' or 'Sliding', "
                             f"got {effect!r}.") from None
    v = [_S(x) for x in v]
    z = [_S(x) for x in z]
    normals = [_S(x) for x in normal_forces]
    if not (len(v) == len(z) == len(normals)) or not v:
        raise ParameterError("lugre_vector(): v, z and normal_forces need the same length.")
    k1, k2 = _S(damping_effects), _S(viscous_effects)
    mu_s = _S(mu_dynamic if mode == "Sliding" else mu_static)
    mu_d, v_s = _S(mu_dynamic), _S(stiction_trans_vel)
    speed2 = sum((x**2 for x in v), sp.Integer(0))
    mu = mu_d + (mu_s - mu_d) * sp.exp(-speed2 / v_s**2)
    n_max = normals[0] if len(normals) == 1 else sp.Max(*normals)
    k = bristle_stiffness_bound(bristle_stiffness, mu_s * n_max, max_stiction_deform,
                                stiffness_eps)
    s = _slip_measure(v, normals, v_eps)
    zdot = [vi - k * zi * s / mu for vi, zi in zip(v, z)]
    terms = [(k * zi, k1 * zd, k2 * vi) for zi, zd, vi in zip(z, zdot, v)]
    forces = [sum(t, sp.Integer(0)) for t in terms]
    if mode == "Stiction":
        forces = [sp.Piecewise((f, speed2 < v_s**2), (0, True)) for f in forces]
    return LuGreVector(state_derivatives=zdot, forces=forces, terms=terms, stiffness=k)


def slip_law_vector(v, normal_forces, coefficient, *, viscous=0, v_eps=1e-9):
    r"""A memoryless friction law on a surface sliding in several directions:
    :math:`F_i = c(|v|)\,v_i/s + f_v v_i` with ``s`` as in :func:`lugre_vector`, where
    ``coefficient`` is a function ``c(speed)`` returning the friction coefficient at the slip
    speed ``|v|`` (e.g. ``mu_d*tanh(speed/v_reg)``). The load-driven part lies on the friction
    ellipse :math:`\sum_i (F_i/(c N_i))^2 = 1` and is parallel to ``v``; in one direction it is
    ``c(|v|) N sign(v)``. Returns the list of forces (sign of the slip velocity)."""
    v = [_S(x) for x in v]
    normals = [_S(x) for x in normal_forces]
    speed = sp.sqrt(sum((x**2 for x in v), sp.Integer(0)) + _S(v_eps) ** 2)
    c = coefficient(speed)
    s = _slip_measure(v, normals, v_eps)
    return [c * vi / s + _S(viscous) * vi for vi in v]
