"""1-D kinematic sources: prescribed position or speed of a rotational or translational flange
(after ``Modelica.Mechanics.Rotational.Sources.Position/Speed`` and
``Modelica.Mechanics.Translational.Sources.Position/Speed`` of the Modelica Standard Library,
with ``exact=true``, and ModelingToolkitStandardLibrary ``Mechanical.*.Position/Speed``).

The prescribed signal is given either

* as a sympy expression of :data:`acausal.time` and numbers (or a plain number) in the
  structural parameter ``phi_ref`` / ``w_ref`` / ``s_ref`` / ``v_ref``, e.g.
  ``sources.Position(phi_ref=2*sp.sin(time))``; it is fixed when the model is built (to vary it
  between runs without recompiling, drive the input from a block with numeric parameters); or
* with ``use_input=True``, through a signal connector of the same name
  (:class:`acausal.components.blocks.RealInput`) that a block drives.

The source is ideal (MSL ``exact=true``): the flange follows the signal exactly, so index
reduction differentiates the signal (twice for ``Position``, once for ``Speed``). A signal given
as an expression is differentiated symbolically; a signal coming through the input connector is
differentiated through the equations of the block that produces it.

The torque / force that the source must apply to follow the signal is the variable ``tau`` /
``f`` (positive along +phi / +s; it equals ``-flange.tau`` / ``-flange.f``, the cut torque
acting on the driven system). The support is fixed to the ground (MSL ``useSupport=false``).

Classes: :class:`Position`, :class:`Speed`, :class:`Accelerate` (rotational) and
:class:`TranslationalPosition`, :class:`TranslationalSpeed`, :class:`TranslationalAccelerate`;
the sub-namespaces ``rotational`` and ``translational`` of this
module expose them as ``sources.rotational.Position`` etc.
"""

from __future__ import annotations

from types import SimpleNamespace

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, der
from acausal.errors import ModelDefinitionError

from . import rotational as _rot
from . import translational as _trans
from .blocks import RealInput


def _reference(component, name: str):
    """The prescribed signal of a source: the input connector's ``u`` or the expression."""
    if component.use_input:
        return getattr(component, name).u
    value = getattr(component, name)
    if value is None:
        raise ModelDefinitionError(
            f"{type(component).__name__}: give '{name}' (an expression of acausal.time or a "
            "number), or set use_input=True and connect the signal input.")
    return sp.sympify(value)


class _KinematicSource(Component):
    """Shared constructor: with ``use_input=True`` the reference becomes a signal input."""

    _reference_name = ""

    def __init__(self, **overrides):
        use_input = overrides.get("use_input", False)
        if use_input and self._reference_name in overrides:
            raise ModelDefinitionError(
                f"{type(self).__name__}: give either {self._reference_name}=<expression> or "
                "use_input=True, not both.")
        super().__init__(**overrides)
        if use_input:
            setattr(self, self._reference_name, RealInput(required=True))


class Position(_KinematicSource):
    """Prescribed rotation angle of a rotational flange (MSL
    ``Rotational.Sources.Position(exact=true, useSupport=false)``).

    Equations::

        phi = phi_ref;  flange.phi = phi
        w = D(phi);  a = D(w)
        tau = -flange.tau        (driving torque, positive along +phi)

    ``phi_ref``: a sympy expression of ``acausal.time`` (or a number), or with
    ``use_input=True`` the signal input ``phi_ref`` [rad].
    """

    _reference_name = "phi_ref"
    use_input = Parameter(False, description="take the reference angle from the signal input "
                          "phi_ref instead of an expression")
    phi_ref = Parameter(None, structural=True, unit="rad",
                        description="reference angle: expression of acausal.time or number")
    flange = _rot.Flange()
    phi = Variable(unit="rad", description="angle of the flange (= phi_ref)")
    w = Variable(unit="rad/s", description="angular velocity D(phi)")
    a = Variable(unit="rad/s2", description="angular acceleration D(w)")
    tau = Variable(unit="N.m", description="torque applied by the source to the flange "
                   "(positive along +phi) needed to follow phi_ref")

    def equations(self):
        return [Eq(self.phi, _reference(self, "phi_ref")), Eq(self.flange.phi, self.phi),
                Eq(der(self.phi), self.w), Eq(der(self.w), self.a),
                Eq(self.tau, -self.flange.tau)]


class Speed(_KinematicSource):
    """Prescribed angular velocity of a rotational flange (MSL
    ``Rotational.Sources.Speed(exact=true, useSupport=false)``).

    Equations::

        w = w_ref;  flange.phi = phi
        D(phi) = w;  a = D(w)
        tau = -flange.tau        (driving torque, positive along +phi)

    ``phi`` is a state; its initial value is the start value of ``phi`` (default 0; override
    with ``Speed(w_ref=..., phi=Variable(start=..., fixed=True))``).
    ``w_ref``: a sympy expression of ``acausal.time`` (or a number), or with ``use_input=True``
    the signal input ``w_ref`` [rad/s].
    """

    _reference_name = "w_ref"
    use_input = Parameter(False, description="take the reference speed from the signal input "
                          "w_ref instead of an expression")
    w_ref = Parameter(None, structural=True, unit="rad/s",
                      description="reference angular velocity: expression of acausal.time or "
                      "number")
    flange = _rot.Flange()
    phi = Variable(start=0.0, unit="rad", description="angle of the flange (integral of w)",
                   state_priority=1)
    w = Variable(unit="rad/s", description="angular velocity (= w_ref)")
    a = Variable(unit="rad/s2", description="angular acceleration D(w)")
    tau = Variable(unit="N.m", description="torque applied by the source to the flange "
                   "(positive along +phi) needed to follow w_ref")

    def equations(self):
        return [Eq(self.w, _reference(self, "w_ref")), Eq(self.flange.phi, self.phi),
                Eq(der(self.phi), self.w), Eq(der(self.w), self.a),
                Eq(self.tau, -self.flange.tau)]


class TranslationalPosition(_KinematicSource):
    """Prescribed position of a translational flange (MSL
    ``Translational.Sources.Position(exact=true, useSupport=false)``).

    Equations::

        s = s_ref;  flange.s = s
        v = D(s);  a = D(v)
        f = -flange.f            (driving force, positive along +s)

    ``s_ref``: a sympy expression of ``acausal.time`` (or a number), or with ``use_input=True``
    the signal input ``s_ref`` [m].
    """

    _reference_name = "s_ref"
    use_input = Parameter(False, description="take the reference position from the signal "
                          "input s_ref instead of an expression")
    s_ref = Parameter(None, structural=True, unit="m",
                      description="reference position: expression of acausal.time or number")
    flange = _trans.Flange()
    s = Variable(unit="m", description="position of the flange (= s_ref)")
    v = Variable(unit="m/s", description="velocity D(s)")
    a = Variable(unit="m/s2", description="acceleration D(v)")
    f = Variable(unit="N", description="force applied by the source to the flange "
                 "(positive along +s) needed to follow s_ref")

    def equations(self):
        return [Eq(self.s, _reference(self, "s_ref")), Eq(self.flange.s, self.s),
                Eq(der(self.s), self.v), Eq(der(self.v), self.a),
                Eq(self.f, -self.flange.f)]


class TranslationalSpeed(_KinematicSource):
    """Prescribed velocity of a translational flange (MSL
    ``Translational.Sources.Speed(exact=true, useSupport=false)``).

    Equations::

        v = v_ref;  flange.s = s
        D(s) = v;  a = D(v)
        f = -flange.f            (driving force, positive along +s)

    ``s`` is a state; its initial value is the start value of ``s`` (default 0).
    ``v_ref``: a sympy expression of ``acausal.time`` (or a number), or with ``use_input=True``
    the signal input ``v_ref`` [m/s].
    """

    _reference_name = "v_ref"
    use_input = Parameter(False, description="take the reference velocity from the signal "
                          "input v_ref instead of an expression")
    v_ref = Parameter(None, structural=True, unit="m/s",
                      description="reference velocity: expression of acausal.time or number")
    flange = _trans.Flange()
    s = Variable(start=0.0, unit="m", description="position of the flange (integral of v)",
                 state_priority=1)
    v = Variable(unit="m/s", description="velocity (= v_ref)")
    a = Variable(unit="m/s2", description="acceleration D(v)")
    f = Variable(unit="N", description="force applied by the source to the flange "
                 "(positive along +s) needed to follow v_ref")

    def equations(self):
        return [Eq(self.v, _reference(self, "v_ref")), Eq(self.flange.s, self.s),
                Eq(der(self.s), self.v), Eq(der(self.v), self.a),
                Eq(self.f, -self.flange.f)]


class Accelerate(_KinematicSource):
    """Prescribed angular acceleration of a rotational flange (MSL
    ``Rotational.Sources.Accelerate(useSupport=false)``).

    Equations::

        a = a_ref;  flange.phi = phi
        D(phi) = w;  D(w) = a
        tau = -flange.tau        (driving torque, positive along +phi)

    ``phi`` and ``w`` are states; their initial values are their start values (default 0).
    ``a_ref``: a sympy expression of ``acausal.time`` (or a number), or with ``use_input=True``
    the signal input ``a_ref`` [rad/s2].
    """

    _reference_name = "a_ref"
    use_input = Parameter(False, description="take the reference acceleration from the signal "
                          "input a_ref instead of an expression")
    a_ref = Parameter(None, structural=True, unit="rad/s2",
                      description="reference angular acceleration: expression of acausal.time "
                      "or number")
    flange = _rot.Flange()
    phi = Variable(start=0.0, unit="rad", description="angle of the flange", state_priority=1)
    w = Variable(start=0.0, unit="rad/s", description="angular velocity D(phi)",
                 state_priority=1)
    a = Variable(unit="rad/s2", description="angular acceleration (= a_ref)")
    tau = Variable(unit="N.m", description="torque applied by the source to the flange "
                   "(positive along +phi) needed to follow a_ref")

    def equations(self):
        return [Eq(self.a, _reference(self, "a_ref")), Eq(self.flange.phi, self.phi),
                Eq(der(self.phi), self.w), Eq(der(self.w), self.a),
                Eq(self.tau, -self.flange.tau)]


class TranslationalAccelerate(_KinematicSource):
    """Prescribed acceleration of a translational flange (MSL
    ``Translational.Sources.Accelerate(useSupport=false)``).

    Equations::

        a = a_ref;  flange.s = s
        D(s) = v;  D(v) = a
        f = -flange.f            (driving force, positive along +s)

    ``s`` and ``v`` are states; their initial values are their start values (default 0).
    ``a_ref``: a sympy expression of ``acausal.time`` (or a number), or with ``use_input=True``
    the signal input ``a_ref`` [m/s2].
    """

    _reference_name = "a_ref"
    use_input = Parameter(False, description="take the reference acceleration from the signal "
                          "input a_ref instead of an expression")
    a_ref = Parameter(None, structural=True, unit="m/s2",
                      description="reference acceleration: expression of acausal.time or number")
    flange = _trans.Flange()
    s = Variable(start=0.0, unit="m", description="position of the flange", state_priority=1)
    v = Variable(start=0.0, unit="m/s", description="velocity D(s)", state_priority=1)
    a = Variable(unit="m/s2", description="acceleration (= a_ref)")
    f = Variable(unit="N", description="force applied by the source to the flange "
                 "(positive along +s) needed to follow a_ref")

    def equations(self):
        return [Eq(self.a, _reference(self, "a_ref")), Eq(self.flange.s, self.s),
                Eq(der(self.s), self.v), Eq(der(self.v), self.a),
                Eq(self.f, -self.flange.f)]


#: ``sources.rotational.Position`` / ``.Speed`` / ``.Accelerate`` (MSL ``Rotational.Sources``).
rotational = SimpleNamespace(Position=Position, Speed=Speed, Accelerate=Accelerate)
#: ``sources.translational.Position`` / ``.Speed`` / ``.Accelerate``.
translational = SimpleNamespace(Position=TranslationalPosition, Speed=TranslationalSpeed,
                                Accelerate=TranslationalAccelerate)
