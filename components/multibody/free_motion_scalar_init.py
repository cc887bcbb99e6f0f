"""``FreeMotionScalarInit``: a massless measuring joint between two frames whose relative
position, velocity, acceleration, angular velocity and angular acceleration are variables one
element at a time, so that a model can be *initialised* by them (``fixed=True`` on the element,
or an initial equation), e.g. a double pendulum started with its tip at a given point
(``Examples.Elementary.DoublePendulumInitTip``).

Source: ``Modelica.Mechanics.MultiBody.Joints.FreeMotionScalarInit`` (MSL 4.0).
"""

from __future__ import annotations

from acausal import Component, Eq, Parameter, Variable, der
from acausal.library.rotations import vector

from .interfaces import Frame, T, vector_equations

#: MultiBody's StateSelect.never: the elements are never states (index reduction makes them
#: dummy derivatives; the joints keep their coordinates)
NEVER = -100


class FreeMotionScalarInit(Component):
    """Measures frame_b relative to frame_a without transmitting anything (6 degrees of
    freedom, no constraint, no force). Each group of variables exists when its flag is set:

    * ``use_r``: ``r_rel_a_1..3`` [m]: ``r_rel_a = T_a (b.r_0 - a.r_0)`` (resolved in frame_a);
    * ``use_v`` (with use_r): ``v_rel_a_i = D(r_rel_a_i)`` [m/s];
    * ``use_a`` (with use_v): ``a_rel_a_i = D(v_rel_a_i)`` [m/s2];
    * ``use_w``: ``w_rel_b_1..3`` [rad/s]: ``w_rel_b = w_b - T_b T_a' w_a`` (resolved in frame_b);
    * ``use_z`` (with use_w): ``z_rel_b_i = D(w_rel_b_i)`` [rad/s2].

    Equations::

        a.f = 0;  a.t = 0;  b.f = 0;  b.t = 0

    Their ``state_priority`` is -100 (MultiBody's default ``StateSelect.never`` for each
    element): index reduction keeps the mechanism's joint coordinates as states and makes these
    dummy derivatives. Give an element ``fixed=True`` with a ``start`` (as MSL's
    ``r_rel_a_1(start=0.7, fixed=true)``) to fix it at the start.

    MultiBody's angle group (``use_angle``, ``use_angle_d``, ``use_angle_dd``: the angles of
    the relative rotation about ``sequence_start``) is not provided: a ``ParameterError``
    says so.

    Source: ``MultiBody.Joints.FreeMotionScalarInit`` (MSL 4.0).
    """

    use_r = Parameter(False, description="relative position elements r_rel_a_1..3")
    use_v = Parameter(False, description="relative velocity elements v_rel_a_1..3 (use_r)")
    use_a = Parameter(False, description="relative acceleration elements a_rel_a_1..3 (use_v)")
    use_w = Parameter(False, description="relative angular velocity elements w_rel_b_1..3")
    use_z = Parameter(False, description="relative angular acceleration z_rel_b_1..3 (use_w)")
    use_angle = Parameter(False, description="(not provided) relative angles")
    frame_a = Frame()
    frame_b = Frame()

    #: (flag, flags it needs, variable stem) of each group, in MSL's order
    GROUPS = (("use_r", (), "r_rel_a"), ("use_v", ("use_r",), "v_rel_a"),
              ("use_a", ("use_r", "use_v"), "a_rel_a"), ("use_w", (), "w_rel_b"),
              ("use_z", ("use_w",), "z_rel_b"))

    r_rel_a_1 = Variable(start=0.0, unit="m", state_priority=NEVER,
                         description="T_a (b.r_0 - a.r_0), element 1 (use_r)")
    r_rel_a_2 = Variable(start=0.0, unit="m", state_priority=NEVER,
                         description="T_a (b.r_0 - a.r_0), element 2 (use_r)")
    r_rel_a_3 = Variable(start=0.0, unit="m", state_priority=NEVER,
                         description="T_a (b.r_0 - a.r_0), element 3 (use_r)")

    v_rel_a_1 = Variable(start=0.0, unit="m/s", state_priority=NEVER,
                         description="D(r_rel_a), element 1 (use_v)")
    v_rel_a_2 = Variable(start=0.0, unit="m/s", state_priority=NEVER,
                         description="D(r_rel_a), element 2 (use_v)")
    v_rel_a_3 = Variable(start=0.0, unit="m/s", state_priority=NEVER,
                         description="D(r_rel_a), element 3 (use_v)")

    a_rel_a_1 = Variable(start=0.0, unit="m/s2", state_priority=NEVER,
                         description="D(v_rel_a), element 1 (use_a)")
    a_rel_a_2 = Variable(start=0.0, unit="m/s2", state_priority=NEVER,
                         description="D(v_rel_a), element 2 (use_a)")
    a_rel_a_3 = Variable(start=0.0, unit="m/s2", state_priority=NEVER,
                         description="D(v_rel_a), element 3 (use_a)")

    w_rel_b_1 = Variable(start=0.0, unit="rad/s", state_priority=NEVER,
                         description="w_b - T_b T_a^T w_a, element 1 (use_w)")
    w_rel_b_2 = Variable(start=0.0, unit="rad/s", state_priority=NEVER,
                         description="w_b - T_b T_a^T w_a, element 2 (use_w)")
    w_rel_b_3 = Variable(start=0.0, unit="rad/s", state_priority=NEVER,
                         description="w_b - T_b T_a^T w_a, element 3 (use_w)")

    z_rel_b_1 = Variable(start=0.0, unit="rad/s2", state_priority=NEVER,
                         description="D(w_rel_b), element 1 (use_z)")
    z_rel_b_2 = Variable(start=0.0, unit="rad/s2", state_priority=NEVER,
                         description="D(w_rel_b), element 2 (use_z)")
    z_rel_b_3 = Variable(start=0.0, unit="rad/s2", state_priority=NEVER,
                         description="D(w_rel_b), element 3 (use_z)")

    def _on(self, stem: str) -> bool:
        flag, needs, _ = next(g for g in self.GROUPS if g[2] == stem)
        return bool(getattr(self, flag)) and all(getattr(self, n) for n in needs)

    def equations(self):
        from acausal.errors import ParameterError

        if self.use_angle:
            raise ParameterError(
                f"FreeMotionScalarInit '{self.path}': use_angle (the relative angles) is not "
                "provided; initialise the orientation with the joints' own angles or with a "
                "Spherical/FreeMotion's angles_fixed and angles_start.")
        fa, fb = self.frame_a, self.frame_b
        eqs = [*(e for x in (fa.f, fa.t, fb.f, fb.t) for e in vector_equations(x, [0, 0, 0]))]
        groups = {stem: [getattr(self, f"{stem}_{i}") for i in (1, 2, 3)]
                  for _, _, stem in self.GROUPS}
        # a group that is off is 0 (MultiBody removes it: a conditional declaration)
        eqs += [Eq(x, 0) for stem, xs in groups.items() if not self._on(stem) for x in xs]
        groups = {stem: xs for stem, xs in groups.items() if self._on(stem)}
        if "r_rel_a" in groups:
            r_rel = T(fa) * (vector(fb.r_0) - vector(fa.r_0))
            eqs += [Eq(groups["r_rel_a"][i], r_rel[i]) for i in range(3)]
        for lower, upper in (("r_rel_a", "v_rel_a"), ("v_rel_a", "a_rel_a"),
                             ("w_rel_b", "z_rel_b")):
            if upper in groups:
                eqs += [Eq(der(groups[lower][i]), groups[upper][i]) for i in range(3)]
        if "w_rel_b" in groups:
            w_rel = vector(fb.w) - T(fb) * T(fa).T * vector(fa.w)
            eqs += [Eq(groups["w_rel_b"][i], w_rel[i]) for i in range(3)]
        return eqs
