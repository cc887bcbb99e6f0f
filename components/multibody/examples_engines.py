"""MultiBody's combustion engine examples and the utility parts they are built from (MSL 4.0,
git revision bd753330a, the revision the Dymola reference results were made with):

* :class:`GasForce2` - ``Modelica.Mechanics.MultiBody.Examples.Loops.Utilities.GasForce2``:
  a rough gas force of a cylinder as a function of the piston position and direction of motion
  (a 1-D translational force element);
* :class:`Cylinder` - ``Examples.Loops.Utilities.Cylinder``: one cylinder of an engine (crank
  with its crank pin, connecting rod, piston on a prismatic joint, gas force) whose planar loop
  is cut by a ``RevolutePlanarLoopConstraint``;
* :class:`Engine1b` - ``Examples.Loops.Engine1b`` (with ``Utilities.Engine1Base`` and
  ``Utilities.Engine1bBase``): the one-cylinder engine of ``Engine1a`` with a gas force;
* :class:`EngineV6` - ``Examples.Loops.EngineV6``: six cylinders in V on one crankshaft
  driving a load inertia braked by a quadratic speed-dependent torque, with the engine torque
  measured and filtered by a second-order critically damped filter.

Names, parameters, topology and initial values are MultiBody's, so that result columns such as
``load.w`` or ``filter.x[0]`` (Modelica ``filter.x[1]``) have the same meaning in both tools.

Differences to the Modelica models (none changes the motion):

* Animation parameters (``animation``, ``cylinderLength``/``cylinderDiameter`` of the joints,
  ``boxWidth``, ``animateWorld``) and the output aliases of EngineV6 (``engineSpeed_rpm``,
  ``engineTorque``, ``filteredEngineTorque``: ``load.w``, ``filter.u.u`` and ``filter.y.u``) are
  left out.
* MultiBody's ``stateSelect=StateSelect.always`` on the flywheel (``inertia``, ``load``) is
  ``state_priority=100`` on its ``phi`` and ``w``.
* GasForce2's two ``assert`` statements (``0 <= s_rel <= L``) are not modelled; the tests check
  the range of the piston travel instead.
* The ``if`` expressions of GasForce2's pressure are Modelica ``if`` expressions without
  ``noEvent``: a tool switches their branches at events. Here they are ``event_if`` (the
  branch is held between events and switched at the located crossing) - the pressure jumps
  when the piston reverses at a dead centre (``v_rel`` changes sign).
"""

from __future__ import annotations

import math

from acausal import Component, Eq, Parameter, Variable, connect, der, event_if
from acausal.components import rotational, translational
from acausal.components.blocks import CriticalDamping

from .interfaces import Frame
from .joints import Prismatic, Revolute, RevolutePlanarLoopConstraint
from .parts import BodyBox, BodyCylinder, FixedRotation, FixedTranslation
from .world import World

#: Modelica.Constants.R = k*N_A (exact since the 2019 SI), J/(mol.K)
R_MOLAR = 1.380649e-23 * 6.02214076e23
#: GasForce2's specific gas constant of air, R/0.0289651159 kg/mol, J/(kg.K)
R_AIR = R_MOLAR / 0.0289651159


def gas_pressure(x, v_rel):
    """GasForce2's cylinder pressure [Pa] at the normalized position ``x = 1 - s_rel/L`` and
    the relative piston velocity ``v_rel`` (< 0: compression), as an expression with
    ``event_if`` (symbols) or a number (floats).

    ::

        p = 1e5 * (if v_rel < 0 then (if x < 0.986061 then p_c1(x) else p_c2(x))
                                 else (if x > 0.933 then p_e2(x) else p_e1(x)))
        p_c1 = 177.4132 x^4 - 287.2189 x^3 + 151.8252 x^2 - 24.9973 x + 2.4
        p_c2 = 2836360 x^4 - 10569296 x^3 + 14761814 x^2 - 9158505 x + 2129670
        p_e2 = -3929704 x^4 + 14748765 x^3 - 20747000 x^2 + 12964477 x - 3036495
        p_e1 = 145.930 x^4 - 131.707 x^3 + 17.3438 x^2 + 17.9272 x + 2.4
    """
    p_c1 = 177.4132 * x**4 - 287.2189 * x**3 + 151.8252 * x**2 - 24.9973 * x + 2.4
    p_c2 = 2836360 * x**4 - 10569296 * x**3 + 14761814 * x**2 - 9158505 * x + 2129670
    p_e2 = -3929704 * x**4 + 14748765 * x**3 - 20747000 * x**2 + 12964477 * x - 3036495
    p_e1 = 145.930 * x**4 - 131.707 * x**3 + 17.3438 * x**2 + 17.9272 * x + 2.4
    if isinstance(x, (int, float)) and isinstance(v_rel, (int, float)):
        if v_rel < 0:
            return 1e5 * (p_c1 if x < 0.986061 else p_c2)
        return 1e5 * (p_e2 if x > 0.933 else p_e1)
    return 1e5 * event_if(v_rel < 0, event_if(x < 0.986061, p_c1, p_c2),
                          event_if(x > 0.933, p_e2, p_e1))


class GasForce2(translational.PartialCompliant):
    """Rough approximation of the gas force in a combustion engine's cylinder
    (``MultiBody.Examples.Loops.Utilities.GasForce2``): a 1-D force element between
    ``flange_a`` (the cylinder housing) and ``flange_b`` (the piston) whose pressure is a
    polynomial of the piston position, one for compression (``v_rel < 0``) and one for
    expansion.

    Parameters: ``L`` [m] length of the cylinder, ``d`` [m] its diameter, ``k0`` and ``k1``
    [m3] of the volume ``V = k0 + k1 (1 - x)``, ``k`` [J/K] gas constant of ``p V = k T``.

    Equations (with ``translational.PartialCompliant``: ``s_rel = flange_b.s - flange_a.s``,
    ``flange_b.f = f``, ``flange_a.f = -f``)::

        x = 1 - s_rel/L;  v_rel = der(s_rel)
        press = gas_pressure(x, v_rel)                  (see :func:`gas_pressure`)
        f = -press pi d^2/4
        V = k0 + k1 (1 - x);  dens = press/(R_air T);  press V = k T
        R_air = Modelica.Constants.R/0.0289651159

    The pressure pushes the flanges apart (``-f > 0``): its power into the mechanism is
    ``-f v_rel``. MultiBody asserts ``0 <= s_rel <= L`` (not modelled here).

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Loops/Utilities/GasForce2.mo``.
    """

    L = Parameter(0.35, min=0.0, unit="m", description="length of cylinder")
    d = Parameter(0.1, min=0.0, unit="m", description="diameter of cylinder")
    k0 = Parameter(0.01, unit="m3", description="volume V = k0 + k1*(1-x), x = 1 - s_rel/L")
    k1 = Parameter(1.0, unit="m3", description="volume V = k0 + k1*(1-x), x = 1 - s_rel/L")
    k = Parameter(1.0, unit="J/K", description="gas constant (p*V = k*T)")
    x = Variable(unit="1", description="normalized position of cylinder (= 1 - s_rel/L)")
    dens = Variable(unit="kg/m3", description="gas density")
    press = Variable(unit="Pa", description="cylinder pressure")
    V = Variable(unit="m3", description="gas volume")
    T = Variable(unit="K", start=300.0, description="gas temperature")
    v_rel = Variable(unit="m/s", description="relative piston velocity (< 0: compression)")

    def equations(self):
        return [*super().equations(),
                Eq(self.x, 1 - self.s_rel / self.L),
                Eq(self.v_rel, der(self.s_rel)),
                Eq(self.press, gas_pressure(self.x, self.v_rel)),
                Eq(self.f, -self.press * math.pi * self.d**2 / 4),
                Eq(self.V, self.k0 + self.k1 * (1 - self.x)),
                Eq(self.dens, self.press / (R_AIR * self.T)),
                Eq(self.press * self.V, self.k * self.T)]


def _two_axes(angle: float) -> dict:
    """FixedRotation options of MultiBody's ``TwoAxesVectors`` rotation by ``angle`` [rad] about
    x: ``n_x = (1, 0, 0)``, ``n_y = (0, cos angle, sin angle)``."""
    return dict(rotation_type="TwoAxesVectors", n_x=(1.0, 0.0, 0.0),
                n_y=(0.0, math.cos(angle), math.sin(angle)))


class Cylinder(Component):
    """One cylinder of a combustion engine with crank, connecting rod and piston
    (``MultiBody.Examples.Loops.Utilities.Cylinder``).

    Connectors (MultiBody ``Frame_a``): ``crank_a``/``crank_b`` the two ends of this cylinder's
    piece of the crankshaft, ``cylinder_a``/``cylinder_b`` the two ends of its piece of the
    engine block (``mounting``, ``crankLength`` along x). The crank (``crankAngle1``, ``crank1``
    to ``crank4``, ``crankAngle2``) turns its pin by ``crankAngleOffset`` about x; the cylinder
    axis is inclined by ``cylinderInclinationAngle`` about x (``cylinderInclination``). The loop
    crank pin - connecting rod - piston - cylinder is cut by the ``RevolutePlanarLoopConstraint``
    ``b1`` between the crank pin (``mid``) and the connecting rod; ``b2`` (a plain revolute)
    joins rod and piston; the piston slides on the prismatic joint ``cylinder`` (axis -y from
    the cylinder top, start guess s = -0.3 m as in MultiBody) with the gas force ``gasForce``
    (L = cylinderLength, d = 0.1 m) between its support and axis.

    Parameters (structural: they shape the parts when the model is built), SI units:
    ``cylinderTopPosition`` = 0.42 m (crankshaft to the cylinder top), ``pistonLength`` = 0.1 m,
    ``rodLength`` = 0.2 m, ``crankLength`` = 0.2 m (crankshaft piece along x),
    ``crankPinOffset`` = 0.1 m (crank radius), ``crankPinLength`` = 0.1 m,
    ``cylinderInclinationAngle`` = 0 rad, ``crankAngleOffset`` = 0 rad, ``cylinderLength`` =
    ``cylinderTopPosition - (pistonLength + rodLength - crankPinOffset)`` m (the maximum length
    of the gas volume; None: that default).

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Loops/Utilities/Cylinder.mo``.
    """

    cylinderTopPosition = Parameter(0.42, structural=True, unit="m",
                                    description="length from crank shaft to end of cylinder")
    pistonLength = Parameter(0.1, structural=True, unit="m", description="length of piston")
    rodLength = Parameter(0.2, structural=True, unit="m", description="length of rod")
    crankLength = Parameter(0.2, structural=True, unit="m",
                            description="length of crank shaft in x direction")
    crankPinOffset = Parameter(0.1, structural=True, unit="m",
                               description="offset of crank pin from center axis")
    crankPinLength = Parameter(0.1, structural=True, unit="m",
                               description="length of crank pin in x direction")
    cylinderInclinationAngle = Parameter(0.0, structural=True, unit="rad",
                                         description="inclination of cylinder")
    crankAngleOffset = Parameter(0.0, structural=True, unit="rad",
                                 description="offset for crank angle")
    cylinderLength = Parameter(None, structural=True, unit="m",
                               description="maximum length of cylinder volume (None: "
                               "cylinderTopPosition - (pistonLength + rodLength - "
                               "crankPinOffset))")
    cylinder_a = Frame()
    cylinder_b = Frame()
    crank_a = Frame()
    crank_b = Frame()

    def __init__(self, **kw):
        super().__init__(**kw)
        p = {name: kw.get(name, decl.default)
             for name, decl in self._class_declarations().items()
             if isinstance(decl, Parameter)}
        top, piston_length = p["cylinderTopPosition"], p["pistonLength"]
        rod_length, crank_length = p["rodLength"], p["crankLength"]
        pin_offset, pin_length = p["crankPinOffset"], p["crankPinLength"]
        cylinder_length = p["cylinderLength"]
        if cylinder_length is None:
            cylinder_length = top - (piston_length + rod_length - pin_offset)
        self.piston = BodyCylinder(diameter=0.1, r=(0.0, piston_length, 0.0))
        self.connectingRod = BodyBox(width_direction=(1.0, 0.0, 0.0), height=0.06, width=0.02,
                                     r_shape=(0.0, -0.02, 0.0), r=(0.0, rod_length, 0.0))
        self.b2 = Revolute(n=(1, 0, 0))
        self.crank4 = BodyBox(height=0.05, width_direction=(1.0, 0.0, 0.0), width=0.02,
                              r=(0.0, -pin_offset, 0.0))
        self.crank3 = BodyCylinder(r_shape=(-0.01, 0.0, 0.0), length=0.12, diameter=0.03,
                                   r=(pin_length, 0.0, 0.0))
        self.crank1 = BodyCylinder(diameter=0.05, r_shape=(-0.01, 0.0, 0.0), length=0.12,
                                   r=(crank_length - pin_length, 0.0, 0.0))
        self.crank2 = BodyBox(height=0.05, width_direction=(1.0, 0.0, 0.0), width=0.02,
                              r=(0.0, pin_offset, 0.0))
        self.b1 = RevolutePlanarLoopConstraint(n=(1, 0, 0))
        self.mid = FixedTranslation(r=(pin_length / 2, 0.0, 0.0))
        self.cylinder = Prismatic(use_axis_flange=True, n=(0, -1, 0), s=Variable(start=-0.3))
        self.mounting = FixedTranslation(r=(crank_length, 0.0, 0.0))
        self.cylinderInclination = FixedRotation(r=(crank_length - pin_length / 2, 0.0, 0.0),
                                                 **_two_axes(p["cylinderInclinationAngle"]))
        self.crankAngle1 = FixedRotation(**_two_axes(p["crankAngleOffset"]))
        self.crankAngle2 = FixedRotation(**_two_axes(-p["crankAngleOffset"]))
        self.cylinderTop = FixedTranslation(r=(0.0, top, 0.0))
        self.gasForce = GasForce2(L=cylinder_length, d=0.1)

    def connections(self):
        return [connect(self.b1.frame_a, self.mid.frame_b),
                connect(self.connectingRod.frame_a, self.b1.frame_b),
                connect(self.cylinder.frame_b, self.piston.frame_b),
                connect(self.crank1.frame_a, self.crankAngle1.frame_b),
                connect(self.b2.frame_a, self.piston.frame_a),
                connect(self.connectingRod.frame_b, self.b2.frame_b),
                connect(self.crank4.frame_b, self.crankAngle2.frame_a),
                connect(self.cylinderInclination.frame_b, self.cylinderTop.frame_a),
                connect(self.crank1.frame_b, self.crank2.frame_a),
                connect(self.crank3.frame_b, self.crank4.frame_a),
                connect(self.crank3.frame_a, self.crank2.frame_b),
                connect(self.crank2.frame_b, self.mid.frame_a),
                connect(self.cylinderTop.frame_b, self.cylinder.frame_a),
                connect(self.cylinderInclination.frame_a, self.cylinder_a),
                connect(self.mounting.frame_a, self.cylinder_a),
                connect(self.mounting.frame_b, self.cylinder_b),
                connect(self.crankAngle1.frame_a, self.crank_a),
                connect(self.crankAngle2.frame_b, self.crank_b),
                connect(self.cylinder.axis, self.gasForce.flange_b),
                connect(self.cylinder.support, self.gasForce.flange_a)]


def _flywheel(**kw) -> rotational.Inertia:
    """An inertia with MultiBody's ``stateSelect=StateSelect.always`` on phi and w, starting
    at phi = 0, w = 10 rad/s (both fixed), as the engines' flywheel and load."""
    return rotational.Inertia(phi=Variable(start=0.0, fixed=True, state_priority=100),
                              w=Variable(start=10.0, fixed=True, state_priority=100), **kw)


class Engine1b(Component):
    """``Examples.Loops.Engine1b``: the one-cylinder engine of ``Engine1a`` (crank on a
    bearing with a flywheel J = 1 kg m2 starting at 10 rad/s, connecting rod, piston) with the
    gas force ``gasForce`` (L = 0.35 m, d = 0.1 m) on the cylinder's prismatic joint. The
    planar loop is built for an exchange with ``JointRRP``: ``rod3`` (0.1 m) from the piston
    to the revolute ``b1``, ``rod1`` (0.2 m, the rod's length) from ``b1`` to the cut joint
    ``b2`` (``RevolutePlanarLoopConstraint``) at the crank pin, and the connecting rod's body
    hangs from ``b2.frame_b`` alone. One degree of freedom: ``inertia.phi``, ``inertia.w``.

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Loops/Engine1b.mo``, with
    ``Utilities/Engine1Base.mo`` and ``Utilities/Engine1bBase.mo``.
    """

    def __init__(self, **kw):
        super().__init__(**kw)
        # Utilities.Engine1Base
        self.world = World()
        self.piston = BodyCylinder(diameter=0.1, r=(0.0, -0.1, 0.0))
        self.connectingRod = BodyBox(width_direction=(1.0, 0.0, 0.0), width=0.02, height=0.06,
                                     r=(0.0, -0.2, 0.0))
        self.bearing = Revolute(use_axis_flange=True, n=(1, 0, 0))
        self.inertia = _flywheel(J=1.0)
        self.crank1 = BodyCylinder(diameter=0.05, r=(0.1, 0.0, 0.0))
        self.crank2 = BodyBox(height=0.05, width_direction=(1.0, 0.0, 0.0), width=0.02,
                              r=(0.0, 0.1, 0.0))
        self.crank3 = BodyCylinder(r=(0.1, 0.0, 0.0), diameter=0.03)
        self.crank4 = BodyBox(height=0.05, width_direction=(1.0, 0.0, 0.0), width=0.02,
                              r=(0.0, -0.1, 0.0))
        self.mid = FixedTranslation(r=(0.05, 0.0, 0.0))
        self.cylPosition = FixedTranslation(r=(0.15, 0.45, 0.0))
        # Utilities.Engine1bBase
        self.gasForce = GasForce2(d=0.1, L=0.35)
        # Engine1b
        self.b1 = Revolute(n=(1, 0, 0))
        self.b2 = RevolutePlanarLoopConstraint(n=(1, 0, 0))
        self.cylinder = Prismatic(use_axis_flange=True, n=(0, -1, 0))
        self.rod1 = FixedTranslation(r=(0.0, -0.2, 0.0))
        self.rod3 = FixedTranslation(r=(0.0, -0.1, 0.0))

    def connections(self):
        return [connect(self.world.frame_b, self.bearing.frame_a),
                connect(self.crank2.frame_a, self.crank1.frame_b),
                connect(self.bearing.frame_b, self.crank1.frame_a),
                connect(self.world.frame_b, self.cylPosition.frame_a),
                connect(self.crank3.frame_b, self.crank4.frame_a),
                connect(self.inertia.flange_b, self.bearing.axis),
                connect(self.crank2.frame_b, self.crank3.frame_a),
                connect(self.crank2.frame_b, self.mid.frame_a),
                connect(self.cylinder.frame_b, self.rod3.frame_a),
                connect(self.cylPosition.frame_b, self.cylinder.frame_a),
                connect(self.gasForce.flange_a, self.cylinder.support),
                connect(self.gasForce.flange_b, self.cylinder.axis),
                connect(self.piston.frame_a, self.cylinder.frame_b),
                connect(self.rod3.frame_b, self.b1.frame_a),
                connect(self.mid.frame_b, self.b2.frame_a),
                connect(self.b2.frame_b, self.connectingRod.frame_b),
                connect(self.b2.frame_b, self.rod1.frame_b),
                connect(self.b1.frame_b, self.rod1.frame_a)]


#: EngineV6's cylinders: (crankAngleOffset, cylinderInclinationAngle) in degrees
ENGINE_V6_CYLINDERS = ((-30.0, -30.0), (90.0, 30.0), (210.0, -30.0), (210.0, 30.0),
                       (90.0, -30.0), (-30.0, 30.0))


class EngineV6(Component):
    """``Examples.Loops.EngineV6``: a V6 engine, six :class:`Cylinder` s (crank angle offsets
    -30, 90, 210, 210, 90, -30 deg; cylinders inclined by -30 and +30 deg alternately) on one
    crankshaft (``bearing``, axis x) and one engine block fixed in the world. The crankshaft
    drives through the ``torqueSensor`` the ``load`` inertia (J = 1 kg m2, phi = 0 and
    w = 10 rad/s at the start, MultiBody's StateSelect.always), braked by ``load2``, a
    :class:`~acausal.components.rotational.QuadraticSpeedDependentTorque` (tau_nominal =
    -100 N.m at w_nominal = 200 rad/s). The measured torque is filtered by ``filter``, a
    ``CriticalDamping`` block (n = 2, f = 5 Hz, steady-state start). Six planar loops and one
    degree of freedom: the states are ``load.phi``, ``load.w`` and the filter's ``x``.

    Source: MSL 4.0 ``Modelica/Mechanics/MultiBody/Examples/Loops/EngineV6.mo``.
    """

    def __init__(self, **kw):
        super().__init__(**kw)
        self.bearing = Revolute(use_axis_flange=True, n=(1, 0, 0))
        self.world = World()
        for i, (offset, inclination) in enumerate(ENGINE_V6_CYLINDERS, start=1):
            setattr(self, f"cylinder{i}",
                    Cylinder(crankAngleOffset=math.radians(offset),
                             cylinderInclinationAngle=math.radians(inclination)))
        self.load = _flywheel(J=1.0)
        self.load2 = rotational.QuadraticSpeedDependentTorque(tau_nominal=-100.0,
                                                              w_nominal=200.0)
        self.torqueSensor = rotational.TorqueSensor()
        self.filter = CriticalDamping(n=2, init_type="steady_state", f=5.0)

    @property
    def cylinders(self) -> list[Cylinder]:
        return [getattr(self, f"cylinder{i}") for i in range(1, 7)]

    def connections(self):
        c = self.cylinders
        return [connect(self.bearing.frame_b, c[0].crank_a),
                *(connect(c[i].crank_b, c[i + 1].crank_a) for i in range(5)),
                *(connect(c[i].cylinder_b, c[i + 1].cylinder_a) for i in range(5)),
                connect(self.world.frame_b, c[0].cylinder_a),
                connect(self.world.frame_b, self.bearing.frame_a),
                connect(self.load2.flange, self.load.flange_b),
                connect(self.torqueSensor.flange_b, self.load.flange_a),
                connect(self.torqueSensor.tau, self.filter.u),
                connect(self.torqueSensor.flange_a, self.bearing.axis)]
