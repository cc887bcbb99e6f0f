"""The law shared by the planar and 3-D spring-damper-actuators (TSDA, RSDA) of the
generalized-forces notes (seed ``002``): ``k (x - x0) + c dx/dt + f_F sign(dx/dt) + f_act(x,
dx/dt, t)``, its options and checks. See docs/spring_damper_actuators.md."""

from __future__ import annotations

import sympy as sp

from acausal import Component, Parameter, event_if, time
from acausal.errors import ModelDefinitionError, ParameterError
from acausal.library.friction import coulomb

__all__ = ["EVENT_RATE_TOL", "REGULARIZATIONS", "RotationalLaw", "SpringDamperActuatorLaw",
           "TranslationalLaw", "coulomb_term"]

#: Ways of writing the Coulomb term ``f_F sign(rate)``.
REGULARIZATIONS = ("tanh", "linear", "event")

#: ``regularization="event"`` switches the sign where the rate crosses this value [m/s or rad/s]
#: instead of exactly 0, so that an element starting at rest starts on a definite branch. Events
#: are located to ~1e-12 s, in which the rate moves by ~1e-12 at 1 m/s2; a smaller threshold
#: could fire the same switch twice (the planar friction joints use the same value).
EVENT_RATE_TOL = 1e-9


def coulomb_term(rate: sp.Expr, level: sp.Expr, regularization: str,
                 rate_reg: sp.Expr) -> sp.Expr:
    """The Coulomb term ``level sign(rate)`` of a spring-damper-actuator, written as
    ``regularization`` asks (``"tanh"``, ``"linear"`` or ``"event"``, see the module
    docstring). Returns the resisting force (torque): it has the sign of ``rate``."""
    how = str(regularization).lower()
    if how == "event":
        return level * event_if(rate > EVENT_RATE_TOL, 1, -1)
    if how in ("tanh", "linear"):
        return coulomb(rate, level, regularization=how, v_reg=rate_reg)
    raise ParameterError(f"coulomb_term(): regularization must be one of "
                         f"{', '.join(REGULARIZATIONS)}, got {regularization!r}.")


class SpringDamperActuatorLaw(Component):
    """The law shared by the TSDA and the RSDA of both libraries: checks of the structural
    options when an element is created, and :meth:`law`.

    ``_user_function`` names the element's actuator parameter (``"f_act"`` or ``"T_act"``).
    """

    _user_function = "f_act"

    regularization = Parameter("tanh", structural=True,
                               description="Coulomb term: 'tanh', 'linear' or 'event'")

    def __init__(self, **overrides) -> None:
        decl = self._class_declarations()
        name = type(self).__name__
        reg = overrides.get("regularization", decl["regularization"].default)
        if not isinstance(reg, str) or reg.lower() not in REGULARIZATIONS:
            raise ParameterError(f"{name}: regularization must be one of "
                                 f"{', '.join(repr(r) for r in REGULARIZATIONS)}, got {reg!r}.")
        fn = overrides.get(self._user_function)
        if fn is not None and not callable(fn):
            raise ParameterError(f"{name}: {self._user_function} must be None or a function "
                                 f"{self._user_function}(q, q_dot, t) returning a sympy "
                                 f"expression, got {fn!r}.")
        super().__init__(**overrides)
        self._actuated = fn is not None

    @property
    def shares_equations(self) -> bool:
        """An element with an actuator function derives its own equations (the function may
        differ between elements that are otherwise alike)."""
        return not self._actuated

    def law(self, q: sp.Expr, q_dot: sp.Expr, stiffness: sp.Expr, q0: sp.Expr,
            damping: sp.Expr, level: sp.Expr, rate_reg: sp.Expr) -> sp.Expr:
        """``stiffness (q - q0) + damping q_dot + coulomb_term(q_dot, level) + act(q, q_dot,
        t)``."""
        out = (stiffness * (q - q0) + damping * q_dot
               + coulomb_term(q_dot, level, self.regularization, rate_reg))
        fn = getattr(self, self._user_function)
        if fn is None:
            return out
        try:
            act = sp.sympify(fn(q, q_dot, time))
        except Exception as exc:  # the user's code: say where it was called from
            raise ModelDefinitionError(
                f"{type(self).__name__} '{self.path}': {self._user_function}(q, q_dot, t) "
                f"failed with {type(exc).__name__}: {exc}. It is called once, with sympy "
                "symbols, and must return a sympy expression (use sp.sin, sp.Piecewise, ...; "
                "no Python 'if' on the arguments).") from exc
        if not isinstance(act, sp.Expr) or act.is_Matrix:
            raise ModelDefinitionError(
                f"{type(self).__name__} '{self.path}': {self._user_function}(q, q_dot, t) must "
                f"return a scalar sympy expression, got {act!r}.")
        return out + act


class TranslationalLaw(SpringDamperActuatorLaw):
    """The TSDA's parameters (planar and 3-D) and its tension
    ``f = k (l - l0) + c l_dot + f_F sign(l_dot) + f_act(l, l_dot, t)``."""

    _user_function = "f_act"

    k = Parameter(1.0, unit="N/m", description="stiffness (negative allowed)")
    l0 = Parameter(0.0, unit="m", min=0.0, description="undeformed length l_o")
    c = Parameter(0.0, unit="N.s/m", min=0.0, description="damping coefficient")
    f_F = Parameter(0.0, unit="N", min=0.0, description="Coulomb friction force level")
    v_reg = Parameter(1e-3, unit="m/s", min=0.0,
                      description="regularisation speed of the Coulomb term (tanh, linear)")
    f_act = Parameter(None, structural=True,
                      description="actuator force f_act(l, l_dot, t) -> sympy expression [N]")

    def tension(self, length: sp.Expr, length_dot: sp.Expr) -> sp.Expr:
        return self.law(length, length_dot, self.k, self.l0, self.c, self.f_F, self.v_reg)


class RotationalLaw(SpringDamperActuatorLaw):
    """The RSDA's parameters (planar and 3-D) and its torque
    ``T = k_theta (theta - theta0) + c_theta theta_dot + T_F sign(theta_dot) + T_act(...)``."""

    _user_function = "T_act"

    k_theta = Parameter(1.0, unit="N.m/rad", description="rotational stiffness (negative allowed)")
    theta0 = Parameter(0.0, unit="rad", description="undeformed angle theta_o")
    c_theta = Parameter(0.0, unit="N.m.s/rad", min=0.0, description="rotational damping")
    T_F = Parameter(0.0, unit="N.m", min=0.0, description="Coulomb friction torque level")
    w_reg = Parameter(1e-3, unit="rad/s", min=0.0,
                      description="regularisation rate of the Coulomb term (tanh, linear)")
    T_act = Parameter(None, structural=True,
                      description="actuator torque T_act(theta, theta_dot, t) -> sympy "
                      "expression [N.m]")

    def torque(self, theta: sp.Expr, theta_dot: sp.Expr) -> sp.Expr:
        return self.law(theta, theta_dot, self.k_theta, self.theta0, self.c_theta, self.T_F,
                        self.w_reg)
