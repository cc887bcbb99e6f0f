"""3-D animation of a multibody model from a simulation result (matplotlib, headless).

Usage::

    from acausal.components.multibody.animation import animate
    model = Fourbar1()
    sol = compile(model).simulate(5.0, n_points=251)
    animate(sol, model, "fourbar.gif")  # 30 frames per second of model time: 151 frames

``animate`` draws every part of the model it knows: ``BodyBox`` as a box and ``BodyCylinder``
as a cylinder (wire frames, placed and turned by frame_a's ``r_0`` and ``T``), ``Body`` as a
sphere at its centre of mass, ``BodyShape``/``FixedTranslation`` as a rod from frame_a to
frame_b, joints as a dot, line forces as a dashed line, and the world frame and (with
``triads=True``) every body's frame_a as a triad of axes (x red, y green, z blue). Frames are
read from the solution as ``<frame>.r_0`` and ``<frame>.T``. The figure is built on the Agg
canvas (no display needed); ``.gif`` files are written with Pillow (which ships with
matplotlib), ``.mp4`` needs ffmpeg on the PATH.

Frames: by default (``fps=30``, ``t_stride=None``) at most one per 1/fps of model time, the
output point nearest to each time ``t[0] + j/fps``, so that the file plays in model real time;
``t_stride=k`` draws every k-th output point (see
:func:`acausal.components.planar.animation.frame_points`, which also writes the frames: the
axes are drawn once and only the parts and the time are drawn again; a part's edges are one
line artist). ``progress`` shows the progress bar of ``simulate`` while writing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from acausal.errors import AcausalError

from . import forces, joints, parts
from .world import World

__all__ = ["animate", "shapes_of"]


def shapes_of(model) -> list[tuple]:
    """What :func:`animate` draws for a compiled model instance: (kind, component) pairs."""
    out = []
    for node in model.walk():
        if isinstance(node, parts.BodyBox):
            out.append(("box", node))
        elif isinstance(node, parts.BodyCylinder):
            out.append(("cylinder", node))
        elif isinstance(node, parts.BodyShape):
            out.append(("rod", node))
            out.append(("sphere", node))
        elif isinstance(node, (parts.Body, parts.PointMass)):
            out.append(("sphere", node))
        elif isinstance(node, (parts.FixedTranslation, parts.FixedRotation)):
            out.append(("rod", node))
        elif isinstance(node, forces.LineForceBase):
            out.append(("line", node))
        elif isinstance(node, (joints.Revolute, joints.Prismatic, joints.Spherical,
                               joints.RevolutePlanarLoopConstraint)):
            out.append(("joint", node))
        elif isinstance(node, World):
            out.append(("world", node))
    return out


def _frame(sol, path: str, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r = np.asarray(sol[f"{path}.r_0"])[:, k].T  # (n, 3)
    T = np.asarray(sol[f"{path}.T"])[:, k].T.reshape(-1, 3, 3)  # rows: local axes in world
    return r, T


def _box_edges(length, width, height, r_shape, R_local):
    """The 12 edges of a box in frame_a coordinates."""
    corners = np.array([[x, y, z] for x in (0, length) for y in (-width / 2, width / 2)
                        for z in (-height / 2, height / 2)])
    corners = r_shape + corners @ R_local
    pairs = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5),
             (2, 6), (3, 7)]
    return [np.array([corners[a], corners[b]]) for a, b in pairs]


def _cylinder_edges(length, radius, r_shape, R_local, n=16):
    angles = np.linspace(0, 2 * np.pi, n + 1)
    ring = np.stack([np.zeros_like(angles), radius * np.cos(angles), radius * np.sin(angles)], 1)
    ends = [r_shape + ring @ R_local, r_shape + (ring + [length, 0, 0]) @ R_local]
    lines = [ends[0], ends[1]]
    for j in range(0, n, 4):
        lines.append(np.array([ends[0][j], ends[1][j]]))
    return lines


def _local_axes(direction, width_direction=(0.0, 1.0, 0.0)) -> np.ndarray:
    from acausal.library.rotations import from_nxy

    return np.array(from_nxy(direction, width_direction).evalf(), dtype=float)


def _polyline(lines: list[np.ndarray]) -> np.ndarray:
    """Several polylines as one (m, 3) array, separated by rows of NaN (one artist draws them)."""
    gap = np.full((1, 3), np.nan)
    return np.concatenate([part for line in lines for part in (line, gap)])[:-1]


def _segments(sol, kind: str, node, k: np.ndarray) -> np.ndarray:
    """The polyline (world coordinates, NaN rows between separate lines) of one part at the
    output points ``k``: an (n, m, 3) array."""
    path = node.path
    if kind in ("box", "cylinder"):
        r, T = _frame(sol, f"{path}.frame_a", k)
        r_vec = np.array([float(x) for x in node.r])
        r_shape = np.array([float(x) for x in node.r_shape])
        direction = node.length_direction if node.length_direction is not None \
            else r_vec - r_shape
        if np.linalg.norm(direction) == 0:
            direction = (1.0, 0.0, 0.0)
        length = node.length if node.length is not None else np.linalg.norm(r_vec - r_shape)
        if kind == "box":
            width = node.width if node.width is not None else length / 20
            height = node.height if node.height is not None else width
            local = _box_edges(length, width, height, r_shape,
                               _local_axes(direction, node.width_direction))
        else:
            diameter = node.diameter if node.diameter is not None else length / 20
            local = _cylinder_edges(length, diameter / 2, r_shape, _local_axes(direction))
        return r[:, None, :] + np.einsum("mj,nji->nmi", _polyline(local), T)
    if kind in ("rod", "line"):
        a = np.asarray(sol[f"{path}.frame_a.r_0"])[:, k].T
        b = np.asarray(sol[f"{path}.frame_b.r_0"])[:, k].T
        return np.stack([a, b], axis=1)
    raise AcausalError(f"unknown shape kind {kind!r}")


def _points(sol, kind: str, node, k: np.ndarray) -> np.ndarray:
    path = node.path
    if kind == "sphere":
        r, T = _frame(sol, f"{path}.frame_a", k)
        r_cm = np.array([float(x) for x in getattr(node, "r_CM", (0.0, 0.0, 0.0))])
        return r + np.einsum("nji,j->ni", T, r_cm)
    return np.asarray(sol[f"{path}.frame_a.r_0"])[:, k].T


def _view(p: np.ndarray):
    """matplotlib's z axis is up: world (x, y, z) is shown as (x, -z, y), world y up."""
    p = np.atleast_2d(p)
    return p[:, 0], -p[:, 2], p[:, 1]


def animate(solution, model, path, fps: int = 30, t_stride: int | None = None, *,
            triads: bool = False, title: str | None = None, figsize=(6.0, 5.5), dpi: int = 80,
            elev: float = 25.0, azim: float = -60.0, progress: bool | None = None) -> Path:
    """Animate the 3-D parts of ``model`` (the compiled model instance) over the output points
    of ``solution`` and save it to ``path`` (``.gif`` or ``.mp4``); returns the path.

    ``fps``: frames per second of the file (30). ``t_stride=None`` (the default): at most one
    frame per 1/fps of model time, the output point nearest to each time ``t[0] + j/fps`` (a
    point nearest to several is shown that long; the last point always), so the file plays in
    model real time whatever the output grid (see
    :func:`acausal.components.planar.animation.frame_points`); an integer ``t_stride``: every
    ``t_stride``-th output point, one per frame. ``triads``: draw every body's frame_a axes.
    The view: matplotlib's ``elev``/``azim`` (degrees), world y up. ``progress``: show the
    progress bar of ``simulate`` while writing (None: when stderr is a terminal).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..planar.animation import checked_output, frame_points, write_frames

    path = checked_output(path, fps, t_stride)
    shapes = shapes_of(model)
    if not shapes:
        raise AcausalError(f"{type(model).__name__} has no 3-D parts to draw.")
    k, periods = frame_points(solution.t, int(fps), t_stride)
    lines = [(kind, _segments(solution, kind, node, k))
             for kind, node in shapes if kind in ("box", "cylinder", "rod", "line")]
    dots = [(kind, _points(solution, kind, node, k)) for kind, node in shapes
            if kind in ("sphere", "joint")]
    frames = [_frame(solution, f"{node.path}.frame_a", k) for kind, node in shapes
              if triads and kind in ("box", "cylinder", "sphere")]
    cloud = np.concatenate([p.reshape(-1, 3) for _, p in lines + dots] + [np.zeros((1, 3))])
    low, high = np.nanmin(cloud, axis=0), np.nanmax(cloud, axis=0)
    centre, half = (low + high) / 2, max(float(np.max(high - low)) / 2, 1e-3) * 1.1
    size = half / 4

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(projection="3d")
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(-centre[2] - half, -centre[2] + half)
    ax.set_zlim(centre[1] - half, centre[1] + half)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("-z [m]")
    ax.set_zlabel("y [m]")
    ax.view_init(elev=elev, azim=azim)
    if title:
        ax.set_title(title)
    moving = []  # (positions over the frames, artist)
    for kind, pts in lines:  # one artist a part: its edges are separated by NaN rows
        style = dict(color="tab:gray", lw=1.0, ls="--") if kind == "line" else \
            dict(color="tab:blue" if kind in ("box", "cylinder") else "k", lw=1.5)
        moving.append((pts, ax.plot(*_view(pts[0]), **style)[0]))
    for kind, pts in dots:
        style = dict(color="tab:orange", marker="o", ms=6) if kind == "sphere" else \
            dict(color="k", marker="o", ms=3)
        moving.append((pts, ax.plot(*_view(pts[0]), ls="", **style)[0]))
    for r, T in frames:
        for j, c in enumerate(("r", "g", "b")):
            pts = np.stack([r, r + size * T[:, j, :]], axis=1)
            moving.append((pts, ax.plot(*_view(pts[0]), color=c, lw=1.0)[0]))
    for j, c in enumerate(("r", "g", "b")):
        ax.plot(*_view(np.array([np.zeros(3), size * np.eye(3)[j]])), color=c, lw=2.0)
    time_text = ax.text2D(0.02, 0.95, "", transform=ax.transAxes)

    def update(i: int) -> None:
        for pts, obj in moving:
            obj.set_data_3d(*_view(pts[i]))
        time_text.set_text(f"t = {solution.t[k[i]]:.3f} s")

    write_frames(fig, path, int(fps), periods, update, dpi,
                 [obj for _, obj in moving] + [time_text], progress)
    return path
