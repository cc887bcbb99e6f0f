"""The data of a viewer page: frames over time, shapes, trails and plots of one solution.

Everything the page shows comes from the solution's own output points: each frame that a shape
uses is sampled at every output time, as its origin (world coordinates) and its orientation (a
unit quaternion). Frames whose samples are equal (connected frames, a body's frame_a and the
joint it hangs on) are stored once. How precisely each array reaches the page is
:mod:`acausal.view.page`'s business (origins to 1e-12 of the motion's size).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.errors import AcausalError

__all__ = ["Scene", "build_scene", "quaternions"]

#: Shapes that can leave a trail (``trails=True``: those marked ``trail``, else all of them).
SOLID_KINDS = ("sphere", "box", "cylinder")


@dataclass
class Scene:
    """What the page receives: plain data (``meta``) and named numeric arrays."""

    meta: dict[str, Any]
    arrays: dict[str, np.ndarray] = field(default_factory=dict)


def quaternions(R: np.ndarray) -> np.ndarray:
    """Unit quaternions (x, y, z, w: three.js's order) of rotation matrices ``R`` (n, 3, 3),
    ``v_world = R v_local``; Shepperd's method, stable for every rotation. For ``R = T'`` it is
    ``acausal.library.rotations.quaternion_of(T)`` (MultiBody's Q, up to sign) over many
    matrices at once; the core cannot import the library, which works on one matrix."""
    R = np.asarray(R, dtype=float)
    n = R.shape[0]
    q = np.empty((n, 4))
    trace = R[:, 0, 0] + R[:, 1, 1] + R[:, 2, 2]
    diag = np.stack([R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]], axis=1)
    case = np.where(trace >= diag.max(axis=1), 3, diag.argmax(axis=1))
    for c in range(4):
        m = case == c
        if not m.any():
            continue
        r = R[m]
        if c == 3:
            s = 2.0 * np.sqrt(1.0 + trace[m])
            q[m] = np.stack([(r[:, 2, 1] - r[:, 1, 2]) / s, (r[:, 0, 2] - r[:, 2, 0]) / s,
                             (r[:, 1, 0] - r[:, 0, 1]) / s, s / 4], axis=1)
            continue
        i, j, k = c, (c + 1) % 3, (c + 2) % 3
        s = 2.0 * np.sqrt(np.maximum(1.0 + r[:, i, i] - r[:, j, j] - r[:, k, k], 0.0))
        part = np.empty((r.shape[0], 4))
        part[:, i] = s / 4
        part[:, j] = (r[:, j, i] + r[:, i, j]) / s
        part[:, k] = (r[:, k, i] + r[:, i, k]) / s
        part[:, 3] = (r[:, k, j] - r[:, j, k]) / s
        q[m] = part
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _frame_samples(sol, path: str | None) -> tuple[np.ndarray, np.ndarray, bool | None]:
    """(origins (n, 3), quaternions (n, 4), planar) of the frame ``path`` at the output points;
    ``None`` is the world frame (planar: None, as it belongs to 3-D and planar models alike)."""
    if path is None:
        n = sol.t.size
        return np.zeros((n, 3)), np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)), None
    if f"{path}.r_0" in sol and f"{path}.T" in sol:
        r = np.asarray(sol[f"{path}.r_0"], dtype=float).reshape(3, -1).T
        T = np.asarray(sol[f"{path}.T"], dtype=float).reshape(9, -1).T.reshape(-1, 3, 3)
        return r, quaternions(np.transpose(T, (0, 2, 1))), False  # T: world -> frame
    if f"{path}.x" in sol and f"{path}.y" in sol:
        n = sol.t.size
        phi = np.asarray(sol[f"{path}.phi"], dtype=float) if f"{path}.phi" in sol \
            else np.zeros(n)
        r = np.stack([np.asarray(sol[f"{path}.x"], float), np.asarray(sol[f"{path}.y"], float),
                      np.zeros(n)], axis=1)
        q = np.stack([np.zeros(n), np.zeros(n), np.sin(phi / 2), np.cos(phi / 2)], axis=1)
        return r, q, True
    raise AcausalError(f"'{path}' has no position in the solution (neither '{path}.r_0' and "
                       f"'{path}.T' of a 3-D frame nor '{path}.x' and '{path}.y' of a planar "
                       "frame): a Visual must be placed by a frame connector.")


def _multiply(q: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The quaternion products ``q r`` (n, 4; x, y, z, w): first ``r``'s turn, then ``q``'s."""
    qv, qw, rv, rw = q[:, :3], q[:, 3:4], r[:, :3], r[:, 3:4]
    return np.concatenate([qw * rv + rw * qv + np.cross(qv, rv),
                           qw * rw - np.sum(qv * rv, axis=1, keepdims=True)], axis=1)


def _spun(q: np.ndarray, axis, angle: np.ndarray) -> np.ndarray:
    """The orientations ``q`` turned further, in their own frame, by ``angle`` about ``axis``
    (a shape's ``spin``)."""
    e = np.asarray(axis, dtype=float)
    e = e / np.linalg.norm(e)
    half = np.asarray(angle, dtype=float).reshape(-1, 1) / 2
    return _multiply(q, np.concatenate([np.sin(half) * e, np.cos(half)], axis=1))


def _shape_centre(shape) -> np.ndarray:
    """Where a solid shape's centre is in its frame (see acausal.language.visuals): a solid of
    default length is centred on r_shape, one of given length starts there."""
    centre = np.array(shape.r_shape, dtype=float)
    if shape.length is not None:
        e = np.array(shape.length_direction, dtype=float)
        norm = np.linalg.norm(e)
        if norm > 0:
            centre = centre + e / norm * shape.length / 2
    return centre


def _rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v`` (3,) turned by each unit quaternion of ``q`` (n, 4; x, y, z, w)."""
    u, w = q[:, :3], q[:, 3:4]
    uv = np.cross(u, v)
    return v + 2.0 * (w * uv + np.cross(u, uv))


def _plot_groups(plots) -> list[list[str]]:
    if plots is None:
        return []
    if isinstance(plots, str):
        plots = [plots]
    groups = []
    for item in plots:
        names = [item] if isinstance(item, str) else list(item)
        for name in names:
            if not isinstance(name, str):
                raise AcausalError(f"plots: {name!r} is not a variable name; give names, or "
                                   "lists of names for several variables in one plot.")
        groups.append(names)
    return groups


def build_scene(sol, *, trails: Any = None, plots: Any = None,
                title: str | None = None) -> Scene:
    """The viewer's data for ``sol``: the compiled model's shapes, every frame they use sampled
    at the output points, trails (``True``: every body; or frame names) and plots (variable
    names; a list of names is one plot with several curves)."""
    visuals = sol.compiled.flat.visuals
    if not visuals:
        raise AcausalError(
            f"{sol.compiled.model_name} has no shapes to show: its components declare none "
            "(visual_shapes()). Planar and 3-D bodies, joints and forces of "
            "acausal.components do; give a custom component shapes with acausal.Visual.")
    n = sol.t.size
    if n == 0:
        raise AcausalError("The solution has no output points to show.")
    frame_index: dict[str | None, int] = {}
    origins: list[np.ndarray] = []
    rotations: list[np.ndarray] = []
    planar: list[bool | None] = []
    seen: dict[tuple[bytes, bytes], int] = {}
    frame_names: list[list[str]] = []

    def index_of(path: str | None, spin: tuple[str, Any] | None = None,
                 slide: tuple[str, Any] | None = None) -> int:
        """The index of the frame ``path`` (turned further by a shape's ``spin``, moved by its
        ``slide``: the name of its angle or position and the axis) among the stored frames."""
        key_name = path
        if spin is not None or slide is not None:
            key_name = "world" if path is None else path
            key_name += "".join(f"@{m[0]}" for m in (spin, slide) if m is not None)
        if key_name not in frame_index:
            r, q, flat = _frame_samples(sol, path)
            if slide is not None:  # along the axis in the frame (before the frame's own spin)
                e = np.asarray(slide[1], dtype=float)
                r = r + _rotate(q, e / np.linalg.norm(e)) \
                    * np.asarray(sol[slide[0]], dtype=float).reshape(-1, 1)
            if spin is not None:
                q = _spun(q, spin[1], sol[spin[0]])
            key = (r.tobytes(), q.astype(np.float32).tobytes())
            if key not in seen:  # the same motion (connected frames): stored once
                seen[key] = len(origins)
                origins.append(r)
                rotations.append(q)
                planar.append(flat)
                frame_names.append([])
            frame_index[key_name] = seen[key]
            frame_names[seen[key]].append("world" if key_name is None else key_name)
        return frame_index[key_name]

    shapes_data = []
    for shape in visuals:
        item = shape.as_dict()
        item["frame"] = index_of(shape.frame,
                                 None if shape.spin is None else (shape.spin, shape.spin_axis),
                                 None if shape.slide is None
                                 else (shape.slide, shape.slide_axis))
        item["frame_b"] = None if shape.frame_b is None else index_of(shape.frame_b)
        shapes_data.append(item)

    trail_points: list[np.ndarray] = []
    trail_list = []
    if trails is True:  # each body: the centre of its shape marked trail (else of each solid)
        marked = any(shape.trail for shape in visuals)
        for shape, item in zip(visuals, shapes_data):
            if (shape.trail or not marked) and shape.kind in SOLID_KINDS \
                    and shape.frame_b is None:
                f = item["frame"]
                centre = _shape_centre(shape)
                trail_list.append({"name": shape.component, "array": f"trail{len(trail_list)}"})
                trail_points.append(origins[f] + _rotate(rotations[f], centre))
    elif trails:
        for name in [trails] if isinstance(trails, str) else list(trails):
            f = index_of(str(name))
            trail_list.append({"name": str(name), "array": f"trail{len(trail_list)}"})
            trail_points.append(origins[f])

    groups = _plot_groups(plots)
    arrays: dict[str, np.ndarray] = {
        "t": np.asarray(sol.t, dtype=np.float64),
        "origins": np.stack(origins, axis=1).astype(np.float64),  # (n, frames, 3)
        "rotations": np.stack(rotations, axis=1),  # (n, frames, 4)
    }
    for item, points in zip(trail_list, trail_points):
        arrays[item["array"]] = points
    plot_meta = []
    for g, names in enumerate(groups):
        curves = []
        for c, name in enumerate(names):
            values = np.asarray(sol[name], dtype=float)  # an unknown name: UnknownNameError
            if values.ndim != 1:
                raise AcausalError(f"plots: '{name}' is a vector; plot its elements "
                                   f"('{name}[0]', ...).")
            key = f"plot{g}_{c}"
            arrays[key] = values
            curves.append({"name": name, "array": key, "unit": sol.unit(name) or ""})
        plot_meta.append({"curves": curves})

    meta = {
        "title": title or sol.compiled.model_name,
        "n": int(n),
        "frames": [{"names": names} for names in frame_names],
        "shapes": shapes_data,
        "trails": trail_list,
        "trails_on": bool(trail_list),
        "plots": plot_meta,
        # planar: every frame is (the world frame fits both)
        "planar": any(planar) and not any(flat is False for flat in planar),
    }
    return Scene(meta, arrays)
