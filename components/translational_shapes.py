"""What the 1-D translational bodies look like in the viewer: boxes in the world frame that
slide along x by their position (``Visual(slide="s")``; 1-D parts have no frame of their own).

A mass of length ``L`` is a block ``L`` long (``L/2`` wide and high) centred on its position
``s`` (a mass of no length a box of the viewer's default size); a mass with stops also shows
its stops, small grey blocks at ``smin`` and ``smax``; a vehicle is a box at its position. The
masses of one model share the x axis, as their positions do. Rotational parts have an angle
but no place and are not drawn. Each function takes the bound component and reads its
parameter values when the model is compiled (shapes do not follow parameters changed with
``params=``).
"""

from __future__ import annotations

from acausal import Visual

BODY, STOP = "#0080ff", "#9b9b9b"


def _box_at_s(length: float, color: str = BODY) -> Visual:
    """A box centred on the position ``s`` (``length`` 0: the viewer's default size)."""
    if length > 0:  # a block half as wide and high as long
        return Visual("box", None, r_shape=(-length / 2, 0.0, 0.0), length=length,
                      width=length / 2, height=length / 2, slide="s", color=color, trail=True)
    return Visual("box", None, slide="s", color=color, trail=True)


def mass(part) -> list[Visual]:
    """``Mass`` (and its relatives with ``L``): a box ``L`` long at ``s``."""
    return [_box_at_s(float(part.parameter_values()["L"]))]


def mass_with_stops(part) -> list[Visual]:
    """``MassWithStopAndFriction``: the mass's box and a plate at each stop."""
    values = part.parameter_values()
    plates = [Visual("box", None, r_shape=(float(values[name]), 0.0, 0.0), color=STOP)
              for name in ("smin", "smax")]
    return [mass(part)[0], *plates]


def vehicle(part) -> list[Visual]:
    """``Vehicle``: a box at its position ``s``."""
    return [_box_at_s(0.0)]
