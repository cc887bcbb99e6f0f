"""Mechanical energy of bodies from a simulation result (post-processing, numpy).

Energy is the invariant most 3-D checks rest on: it is computed here from each body's frame_a
position, velocity, orientation and angular velocity in a :class:`acausal.Solution`, not from
the equations the compiler solved, so it also exposes a wrong equation.
"""

from __future__ import annotations

import numpy as np


def mechanical_energy(sol, system, bodies, g: float = 9.80665, up: int = 1,
                      split: bool = False):
    """Kinetic plus potential energy (uniform gravity ``g`` along minus world axis ``up``) of
    :class:`~acausal.components.multibody.parts.Body`-like parts, at every output point.

    ``system`` is the compiled system (the masses are read from its parameters, so that a
    changed ``m`` counts), ``bodies`` the bound parts (their ``r_CM`` and inertia are
    structural). ``split=True`` returns ``(kinetic, potential)`` instead of their sum::

        K = sum m |v_0 + T' (w_a x r_CM)|^2 / 2 + w_a' I w_a / 2
        V = sum m g (r_0 + T' r_CM)[up]
    """
    kinetic = potential = 0.0
    values = system.parameters()
    for body in bodies:
        name = body.path
        m = values[f"{name}.m"]
        r_cm = np.array([float(x) for x in body.r_CM])
        inertia = np.array(body.inertia().evalf(), dtype=float)
        T = np.asarray(sol[f"{name}.frame_a.T"]).reshape(3, 3, -1).transpose(2, 0, 1)
        w = np.asarray(sol[f"{name}.w_a"]).T
        v_cm = np.asarray(sol[f"{name}.v_0"]).T + np.einsum("kji,kj->ki", T, np.cross(w, r_cm))
        h_cm = np.asarray(sol[f"{name}.r_0"]).T[:, up] + np.einsum("kji,j->ki", T, r_cm)[:, up]
        kinetic = kinetic + 0.5 * m * np.sum(v_cm**2, axis=1) \
            + 0.5 * np.einsum("ki,ij,kj->k", w, inertia, w)
        potential = potential + m * g * h_cm
    return (kinetic, potential) if split else kinetic + potential
