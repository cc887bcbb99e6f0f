"""Animation of planar mechanisms from a simulation result (matplotlib, headless).

Usage::

    from acausal.components.planar.animation import animate, Rod, Point
    model = PistonEngine()
    sol = compile(model).simulate(10.0, n_points=501)
    animate(sol, [model.fixed, model.fixedTranslationDisc, model.pistonRod,
                  model.revoluteDrive, model.bodyPiston, model.prismatic],
            "piston.gif")  # 30 frames per second of model time: 301 frames

What to draw (the ``drawing`` list) may hold

* **component objects** of the compiled model instance (``model.body``): ``Body`` -> a dot,
  ``FixedTranslation`` / ``BodyShape`` -> a rod from frame_a to frame_b, ``Revolute`` -> a joint
  circle, ``Prismatic`` -> a slider line plus a block, ``Fixed`` -> a ground symbol, planar
  ``Spring`` / ``Damper`` / ``SpringDamper`` -> a zig-zag, a wheel joint of
  :mod:`.wheels` (``IdealRolling``, ``OneDOFSlippingWheelJoint``, ...) -> a tyre dot and its
  road (:class:`Road`, along the joint's ``grade``); any other component with ``frame_a`` and
  ``frame_b`` -> a line;
* **names**: a frame connector (``"body.frame_a"``) or a component that has frames (``"body"``,
  ``"pistonRod"``) -> drawn as the component object would be (a component with frame_a and
  frame_b becomes a rod, with one frame a dot); a pair of names ``("a.frame_b", "b.frame_a")``
  -> a rod between the two frames;
* **explicit shapes**: :class:`Point`, :class:`Rod`, :class:`Joint`, :class:`Ground`,
  :class:`Box`, :class:`Spring`, :class:`Road` with styling options.

Frames are read from the solution as ``<frame>.x``, ``<frame>.y`` and ``<frame>.phi`` (every
connector variable is available in a :class:`acausal.Solution`). The figure is built on the Agg
canvas (no display needed). ``.gif`` files are written with Pillow (which ships with
matplotlib); ``.mp4`` needs ffmpeg on the PATH.

Which output points become frames (:func:`frame_points`, also used by
``acausal.components.multibody.animation``): by default (``fps=30``, ``t_stride=None``) at most
one frame per 1/fps of model time: for each time ``t[0] + j/fps`` up to the end, the output
point nearest to it, each point once (shown for as many frame periods as it is nearest to), the
last point always; the file plays in model real time whatever the output grid (uniform or not).
An explicit ``t_stride=k`` draws every k-th output point instead, one per frame. Only what moves
is drawn again for each frame (the axes, ticks and grid are drawn once); GIF frames share one
palette. ``progress`` shows the progress bar of ``simulate`` while the frames are written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from acausal import Component
from acausal.errors import AcausalError

__all__ = ["Box", "Ground", "Joint", "Point", "Road", "Rod", "Spring", "animate", "draw",
           "frame_points", "shapes_of"]


# -- explicit shapes ----------------------------------------------------------------------------


@dataclass
class Point:
    """A dot at a frame (a body, a mass). ``trace=True`` also draws its path so far."""

    frame: str
    size: float = 10.0
    color: str | None = None
    label: str | None = None
    trace: bool = False


@dataclass
class Rod:
    """A straight line from frame ``a`` to frame ``b`` (a rigid rod, a link)."""

    a: str
    b: str
    width: float = 4.0
    color: str | None = None
    label: str | None = None


@dataclass
class Joint:
    """A small hollow circle at a frame (a revolute joint)."""

    frame: str
    size: float = 9.0
    color: str = "black"


@dataclass
class Ground:
    """A ground symbol (filled triangle) under a fixed frame."""

    frame: str
    size: float = 12.0
    color: str = "dimgray"


@dataclass
class Box:
    """A rectangle centred at a frame and rotated with the frame's angle (a piston, a crab)."""

    frame: str
    width: float = 0.2
    height: float = 0.1
    color: str | None = None
    label: str | None = None


@dataclass
class Spring:
    """A zig-zag line from frame ``a`` to frame ``b`` (a spring or damper)."""

    a: str
    b: str
    coils: int = 8
    amplitude: float = 0.04
    color: str = "tab:gray"


@dataclass
class Road:
    """The road of a wheel: the line through the origin at the angle ``grade`` [rad] to the x
    axis (rising towards +x for ``grade > 0``; the wheel joints' ``grade``), across the whole
    picture. It does not move."""

    grade: float = 0.0
    width: float = 3.0
    color: str = "dimgray"


Shape = Point | Rod | Joint | Ground | Box | Spring | Road


# -- resolving the drawing list -----------------------------------------------------------------


def _has_frame(solution, name: str) -> bool:
    return f"{name}.x" in solution and f"{name}.y" in solution


def _component_path(obj) -> str:
    try:
        return obj.path
    except AcausalError as exc:
        raise AcausalError(
            f"{type(obj).__name__} object is not part of a compiled model: pass the component "
            "of the model instance that was compiled (model.body), or its name ('body')."
        ) from exc


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _shapes_of_component(obj, solution) -> list[Shape]:
    from . import forces, joints, parts, wheels

    path = _component_path(obj)
    if isinstance(obj, wheels._OnRoad):  # a wheel rolling on a road
        return [Road(float(obj.parameter_values()["grade"])),
                Point(_join(path, "frame_a"), size=22.0, color="silver", label=path)]
    if isinstance(obj, parts.Fixed):
        return [Ground(_join(path, "frame"))]
    if isinstance(obj, parts.Body):
        return [Point(_join(path, "frame_a"), label=path)]
    if isinstance(obj, joints.Revolute):
        return [Joint(_join(path, "frame_a"))]
    if isinstance(obj, joints.Prismatic):
        return [Rod(_join(path, "frame_a"), _join(path, "frame_b"), width=1.5, color="tab:gray"),
                Box(_join(path, "frame_a"), color="tab:blue", label=path)]
    if isinstance(obj, (forces.Spring, forces.Damper, forces.SpringDamper)):
        return [Spring(_join(path, "frame_a"), _join(path, "frame_b"))]
    if isinstance(obj, (parts.FixedTranslation, parts.BodyShape)):
        return [Rod(_join(path, "frame_a"), _join(path, "frame_b"))]
    return _shapes_of_name(path, solution)


def _shapes_of_name(name: str, solution) -> list[Shape]:
    if _has_frame(solution, name):
        return [Point(name)]
    a, b = _join(name, "frame_a"), _join(name, "frame_b")
    if _has_frame(solution, a) and _has_frame(solution, b):
        return [Rod(a, b, label=name)]
    for single in (a, b, _join(name, "frame")):
        if _has_frame(solution, single):
            return [Point(single, label=name)]
    raise AcausalError(f"Cannot draw '{name}': it is neither a frame (no '{name}.x' in the "
                       "solution) nor a component with frame_a/frame_b/frame.")


def shapes_of(solution, drawing: Iterable[Any]) -> list[Shape]:
    """Resolve a drawing list (shapes, names, name pairs, component objects) into shapes."""
    shapes: list[Shape] = []
    for item in drawing:
        if isinstance(item, Shape):
            shapes.append(item)
        elif isinstance(item, str):
            shapes.extend(_shapes_of_name(item, solution))
        elif isinstance(item, tuple) and len(item) == 2 and all(isinstance(s, str) for s in item):
            shapes.append(Rod(*item))
        elif isinstance(item, Component):
            shapes.extend(_shapes_of_component(item, solution))
        else:
            raise AcausalError(f"Cannot draw {item!r}: give a shape, a frame or component name, "
                               "a pair of frame names, or a component object.")
    for shape in shapes:  # fail early on unknown frames
        for frame in _frames_of(shape):
            if not _has_frame(solution, frame):
                raise AcausalError(f"'{frame}' is not a frame of the solution (no '{frame}.x').")
    return shapes


def _frames_of(shape: Shape) -> list[str]:
    if isinstance(shape, (Rod, Spring)):
        return [shape.a, shape.b]
    if isinstance(shape, Road):
        return []
    return [shape.frame]


# -- drawing ------------------------------------------------------------------------------------


class _Frames:
    """Cached (x, y, phi) arrays of the frames over the selected output points."""

    def __init__(self, solution, index: np.ndarray):
        self._sol = solution
        self._index = index
        self._cache: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def __call__(self, frame: str):
        if frame not in self._cache:
            sol, idx = self._sol, self._index
            phi = sol[f"{frame}.phi"][idx] if f"{frame}.phi" in sol else np.zeros(idx.size)
            self._cache[frame] = (sol[f"{frame}.x"][idx], sol[f"{frame}.y"][idx], phi)
        return self._cache[frame]


def _zigzag(xa, ya, xb, yb, coils, amplitude):
    d = np.array([xb - xa, yb - ya])
    length = float(np.hypot(*d))
    if length < 1e-12:
        return np.array([xa, xb]), np.array([ya, yb])
    e = d / length
    n = np.array([-e[1], e[0]])
    s = np.linspace(0.0, 1.0, 2 * coils + 3)
    offsets = np.zeros_like(s)
    offsets[2:-2] = amplitude * np.where(np.arange(s.size - 4) % 2 == 0, 1.0, -1.0)
    pts = np.outer(s * length, e) + np.outer(offsets, n) + np.array([xa, ya])
    return pts[:, 0], pts[:, 1]


def _box_corners(x, y, phi, width, height):
    c, s = np.cos(phi), np.sin(phi)
    local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]) * [width / 2, height / 2]
    return x + c * local[:, 0] - s * local[:, 1], y + s * local[:, 0] + c * local[:, 1]


class _Scene:
    """The matplotlib artists of all shapes; ``update(k)`` moves them to output point k."""

    def __init__(self, ax, shapes: Sequence[Shape], frames: _Frames, times: np.ndarray,
                 title: str | None):
        self.ax, self.shapes, self.frames, self.times = ax, list(shapes), frames, times
        self.title = title
        self.artists: list[Any] = []
        colors = iter(["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
                       "tab:brown", "tab:pink", "tab:olive", "tab:cyan"] * 100)
        for shape in self.shapes:
            color = getattr(shape, "color", None) or next(colors)
            label = getattr(shape, "label", None)
            if isinstance(shape, Rod):
                (art,) = ax.plot([], [], "-", lw=shape.width, color=color, label=label,
                                 solid_capstyle="round", zorder=2)
            elif isinstance(shape, Spring):
                (art,) = ax.plot([], [], "-", lw=1.2, color=color, zorder=2)
            elif isinstance(shape, Point):
                (art,) = ax.plot([], [], "o", ms=shape.size, color=color, label=label, zorder=4)
                if shape.trace:
                    (trace,) = ax.plot([], [], "-", lw=0.8, color=color, alpha=0.6, zorder=1)
                    art = (art, trace)
            elif isinstance(shape, Joint):
                (art,) = ax.plot([], [], "o", ms=shape.size, mfc="white", mec=shape.color,
                                 mew=1.5, zorder=5)
            elif isinstance(shape, Ground):
                (art,) = ax.plot([], [], "^", ms=shape.size, color=shape.color, zorder=1)
            elif isinstance(shape, Box):
                (art,) = ax.fill([], [], color=color, alpha=0.8, label=label, zorder=3)
            elif isinstance(shape, Road):  # drawn once: it does not move
                ax.axline((0.0, 0.0), (np.cos(shape.grade), np.sin(shape.grade)),
                          lw=shape.width, color=shape.color, zorder=1)
                art = None
            self.artists.append(art)
        self.time_text = ax.text(0.02, 0.96, "", transform=ax.transAxes, va="top")

    def update(self, k: int):
        f = self.frames
        for shape, art in zip(self.shapes, self.artists):
            if isinstance(shape, Rod):
                xa, ya, _ = f(shape.a)
                xb, yb, _ = f(shape.b)
                art.set_data([xa[k], xb[k]], [ya[k], yb[k]])
            elif isinstance(shape, Spring):
                xa, ya, _ = f(shape.a)
                xb, yb, _ = f(shape.b)
                art.set_data(*_zigzag(xa[k], ya[k], xb[k], yb[k], shape.coils, shape.amplitude))
            elif isinstance(shape, Point):
                x, y, _ = f(shape.frame)
                dot = art[0] if isinstance(art, tuple) else art
                dot.set_data([x[k]], [y[k]])
                if isinstance(art, tuple):
                    art[1].set_data(x[: k + 1], y[: k + 1])
            elif isinstance(shape, (Joint, Ground)):
                x, y, _ = f(shape.frame)
                art.set_data([x[k]], [y[k]])
            elif isinstance(shape, Box):
                x, y, phi = f(shape.frame)
                art.set_xy(np.column_stack(_box_corners(x[k], y[k], phi[k], shape.width,
                                                        shape.height)))
        prefix = f"{self.title}   " if self.title else ""
        self.time_text.set_text(f"{prefix}t = {self.times[k]:.2f} s")

    def moving(self) -> list[Any]:
        """The artists :meth:`update` changes."""
        out = [self.time_text]
        for art in self.artists:
            if art is not None:  # a road: drawn once
                out.extend(art if isinstance(art, tuple) else (art,))
        return out

    def limits(self, margin: float = 0.15):
        xs, ys = [np.zeros(0)], [np.zeros(0)]
        for shape in self.shapes:
            for frame in _frames_of(shape):
                x, y, _ = self.frames(frame)
                xs.append(x)
                ys.append(y)
        x, y = np.concatenate(xs), np.concatenate(ys)
        if x.size == 0:  # nothing that moves (a road alone)
            return (-1.0, 1.0), (-1.0, 1.0)
        span = max(float(np.ptp(x)), float(np.ptp(y)), 0.5)
        pad = margin * span + 0.1
        return (float(x.min()) - pad, float(x.max()) + pad), (float(y.min()) - pad,
                                                              float(y.max()) + pad)


def _figure(figsize):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def _setup(solution, drawing, index, xlim, ylim, title, figsize):
    shapes = shapes_of(solution, drawing)
    if not shapes:
        raise AcausalError("Nothing to draw: the drawing list is empty.")
    frames = _Frames(solution, index)
    fig = _figure(figsize)
    ax = fig.add_subplot(1, 1, 1)
    scene = _Scene(ax, shapes, frames, solution.t[index], title)
    auto_x, auto_y = scene.limits()
    ax.set_xlim(*(xlim or auto_x))
    ax.set_ylim(*(ylim or auto_y))
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.grid(True, alpha=0.3)
    if any(getattr(s, "label", None) for s in shapes):
        ax.legend(loc="upper right", fontsize="small")
    return fig, scene


def draw(solution, drawing: Iterable[Any], t: float | None = None, *, ax_limits=None,
         title: str | None = None, figsize=(6.0, 5.0)):
    """Draw the mechanism at the output point nearest to time ``t`` (default: the first one);
    returns the matplotlib Figure (Agg canvas; save it with ``fig.savefig(path)``).
    ``ax_limits = ((xmin, xmax), (ymin, ymax))`` fixes the axes."""
    index = np.arange(solution.t.size)
    k = 0 if t is None else int(np.argmin(np.abs(solution.t - t)))
    xlim, ylim = ax_limits if ax_limits is not None else (None, None)
    fig, scene = _setup(solution, drawing, index, xlim, ylim, title, figsize)
    scene.update(k)
    return fig


# -- frames and files (shared with acausal.components.multibody.animation) --------------------


def checked_output(path, fps: int, t_stride: int | None = None) -> Path:
    """The animation file as a Path, after checking its type, the frame rate and the stride
    (``None``: the frame rule of :func:`frame_points`; ``.mp4`` needs ffmpeg on the PATH)."""
    from matplotlib import animation

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise AcausalError(f"animate() writes .gif or .mp4 files, not '{path.suffix}'.")
    if int(fps) < 1 or (t_stride is not None and int(t_stride) < 1):
        raise AcausalError("fps and t_stride must be positive integers.")
    if suffix == ".mp4" and not animation.writers.is_available("ffmpeg"):
        raise AcausalError("Writing .mp4 needs ffmpeg on the PATH; write a .gif instead.")
    return path


def frame_points(t, fps: int = 30, t_stride: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The output points an animation draws: ``(index, periods)``, frame i showing output
    point ``index[i]`` for ``periods[i]`` frame periods of 1/fps.

    ``t_stride=None``: at most one frame per 1/fps of model time. For each target time
    ``t[0] + j/fps`` (j = 0, 1, ... while it is <= ``t[-1]``) the output point nearest to it
    (``t`` may be non-uniform, e.g. with the points events add); a point nearest to several
    targets is drawn once and shown for as many periods; the last point is always drawn. The
    file then plays in model real time. An integer ``t_stride``: every ``t_stride``-th output
    point, each shown for one period."""
    t = np.asarray(t, dtype=float)
    n = t.size
    if t_stride is not None:
        index = np.arange(0, n, int(t_stride))
        return index, np.ones(index.size, dtype=int)
    if n < 2:
        return np.zeros(n, dtype=int), np.ones(n, dtype=int)
    targets = t[0] + np.arange(int(np.floor((t[-1] - t[0]) * fps * (1 + 1e-12))) + 1) / fps
    after = np.searchsorted(t, targets, side="right")  # the first point later than the target
    below, above = np.clip(after - 1, 0, n - 1), np.clip(after, 0, n - 1)
    nearest = np.where(np.abs(t[above] - targets) < np.abs(targets - t[below]), above, below)
    index, periods = np.unique(nearest, return_counts=True)
    if index[-1] != n - 1:
        index, periods = np.append(index, n - 1), np.append(periods, 1)
    return index, periods


def _blit_order(ax, moving) -> list:
    """The artists drawn again on every frame, in the order a full draw of ``ax`` draws them:
    the moving ones and every other artist of ``ax`` stacked at or above the lowest moving one
    (spines, legend, texts). The rest, drawn once into the background, is the axes patch, the
    3-D panes, the ticks, tick labels, axis labels and grid (which thus stay under a moving
    artist of a lower zorder, a ground mark or a trace, rather than over it)."""
    low = min(a.get_zorder() for a in moving)
    skip = {id(a) for a in (ax.patch, ax.xaxis, ax.yaxis, getattr(ax, "zaxis", None))}
    if not (ax.axison and ax.get_frame_on()):
        skip |= {id(s) for s in ax.spines.values()}
    ids = {id(a) for a in moving}
    children = sorted((a for a in ax.get_children() if id(a) not in skip),
                      key=lambda a: a.get_zorder())  # stable: the order of a full draw
    return [a for a in children if id(a) in ids or a.get_zorder() >= low]


class _Blitter:
    """The figure's frames as images: the static background drawn once, each frame restores it
    and draws the moving artists and those above them (blitting): the pixels of a full redraw
    of the figure (but for the one exception :func:`_blit_order` names)."""

    def __init__(self, fig, moving, dpi: int):
        fig.set_dpi(dpi)
        self.fig, self.canvas = fig, fig.canvas
        self.order = _blit_order(fig.axes[0], moving)
        for artist in self.order:
            artist.set_animated(True)  # left out of the background
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(fig.bbox)
        self.renderer = self.canvas.get_renderer()

    def rgba(self) -> np.ndarray:
        """The current frame as an (h, w, 4) uint8 array (a view of the canvas buffer)."""
        self.canvas.restore_region(self.background)
        for artist in self.order:
            artist.draw(self.renderer)
        return np.asarray(self.canvas.buffer_rgba())


def _palette(samples: list[np.ndarray]) -> np.ndarray:
    """One GIF palette, (256, 3) uint8, for frames like ``samples`` (RGBA arrays), of colours
    they contain: all of them when they have at most 256; else their 64 most frequent ones (the
    background, the panes, the lines' and texts' own colours), then, one at a time, the colour
    farthest from those chosen (so that no colour, however few its pixels, a thin blue axis,
    ends far from its entry; anti-aliased edges share entries)."""
    keys = np.concatenate([_keys(s) for s in samples])
    colours, counts = np.unique(keys, return_counts=True)
    colours = colours[np.argsort(-counts, kind="stable")]
    if colours.size <= 256:
        chosen = colours
    else:
        rgb = _rgb_of(colours).astype(np.int32)
        nearest = np.full(colours.size, np.iinfo(np.int32).max)
        picks = list(range(64))
        for j in picks:
            nearest = np.minimum(nearest, ((rgb - rgb[j]) ** 2).sum(axis=1))
        while len(picks) < 256:
            j = int(np.argmax(nearest))
            picks.append(j)
            nearest = np.minimum(nearest, ((rgb - rgb[j]) ** 2).sum(axis=1))
        chosen = colours[picks]
    palette = _rgb_of(chosen)
    return np.concatenate([palette, np.repeat(palette[:1], 256 - len(palette), axis=0)])


def _keys(rgba: np.ndarray) -> np.ndarray:
    """Each pixel's colour as one 24-bit integer (red in the low byte), flat."""
    return np.ascontiguousarray(rgba).reshape(-1).view(np.uint32) & 0xFFFFFF


def _rgb_of(keys: np.ndarray) -> np.ndarray:
    return np.stack([keys & 255, (keys >> 8) & 255, keys >> 16], axis=1).astype(np.uint8)


class _GifFile:
    """Frames mapped to one palette (from sample frames spread over the animation; each colour
    to its nearest palette entry, remembered in a table of all 2**24 colours, so that the
    background stays exactly white) and written at the end with Pillow; frame durations in
    whole centiseconds (GIF's unit), rounded so that the file keeps the real time of
    ``periods / fps``."""

    def __init__(self, path: Path, fps: int, samples: list[np.ndarray]):
        self.path, self.fps, self.frames, self.periods = path, fps, [], []
        self.palette = _palette(samples)
        self.table = np.zeros(1 << 24, dtype=np.uint8)  # colour -> palette entry
        self.known = np.zeros(1 << 24, dtype=bool)

    def _indices(self, rgba: np.ndarray) -> np.ndarray:
        keys = _keys(rgba)
        new = np.unique(keys[~self.known[keys]])
        entries = self.palette.astype(np.int32)
        for start in range(0, new.size, 4096):
            chunk = new[start: start + 4096]
            d = ((_rgb_of(chunk).astype(np.int32)[:, None, :] - entries[None]) ** 2).sum(axis=2)
            self.table[chunk] = d.argmin(axis=1)
            self.known[chunk] = True
        return self.table[keys]

    def add(self, rgba: np.ndarray, periods: int) -> None:
        from PIL import Image

        h, w = rgba.shape[:2]
        image = Image.frombytes("P", (w, h), self._indices(rgba).tobytes())
        image.putpalette(self.palette.tobytes())
        self.frames.append(image)
        self.periods.append(periods)

    def close(self) -> None:
        ends = np.round(np.cumsum(self.periods) * 100.0 / self.fps)
        durations = 10 * np.maximum(np.diff(ends, prepend=0.0), 1).astype(int)  # ms
        self.frames[0].save(self.path, save_all=True, append_images=self.frames[1:],
                            duration=[int(d) for d in durations], loop=0)


class _Mp4File:
    """Raw RGBA frames piped to ffmpeg (H.264, yuv420p) at ``fps`` frames a second; a frame
    shown for several periods is written that many times."""

    def __init__(self, path: Path, fps: int, size: tuple[int, int]):
        import subprocess

        from matplotlib import animation, rcParams

        command = [animation.FFMpegWriter.bin_path(), "-f", "rawvideo", "-vcodec", "rawvideo",
                   "-s", f"{size[0]}x{size[1]}", "-pix_fmt", "rgba", "-framerate", str(fps),
                   "-loglevel", "error", "-i", "pipe:", "-vcodec", rcParams["animation.codec"],
                   "-pix_fmt", "yuv420p", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-y",
                   str(path)]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def add(self, rgba: np.ndarray, periods: int) -> None:
        data = rgba.tobytes()
        try:
            for _ in range(periods):
                self.proc.stdin.write(data)
        except BrokenPipeError:
            self.close()  # ffmpeg stopped: raises with its message
            raise

    def close(self) -> None:
        _, err = self.proc.communicate()
        if self.proc.returncode != 0:
            raise AcausalError(f"ffmpeg failed ({self.proc.returncode}): "
                               f"{err.decode(errors='replace').strip()[-2000:]}")

    def abort(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def write_frames(fig, path: Path, fps: int, periods, update, dpi: int, moving,
                 progress: bool | None = None) -> None:
    """Write the animation: frame i drawn by ``update(i)`` (which moves the artists in
    ``moving``; nothing else of the figure may change) and shown for ``periods[i]`` periods of
    1/fps; ``.gif`` with Pillow, ``.mp4`` with ffmpeg. ``progress``: the progress bar of
    ``simulate`` on stderr (None: on a terminal)."""
    from acausal.progress import ProgressBar, progress_enabled

    periods = [int(p) for p in periods]
    n = len(periods)
    frames = _Blitter(fig, moving, dpi)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".gif":
        samples = []
        for i in np.unique(np.linspace(0, n - 1, min(n, 8)).round().astype(int)):
            update(int(i))
            samples.append(frames.rgba().copy())
        out: Any = _GifFile(path, fps, samples)
    else:
        out = _Mp4File(path, fps, fig.canvas.get_width_height())
    bar = ProgressBar(f"animate {path.name}", n, progress_enabled(progress), unit="frames")
    done = 0
    try:
        for i in range(n):
            update(i)
            out.add(frames.rgba(), periods[i])
            done = i + 1
            bar.update(done)
        out.close()
    except BaseException:
        if isinstance(out, _Mp4File):
            out.abort()
        bar.close(f"stopped after {done} frames")
        raise
    bar.close()


def animate(solution, drawing: Iterable[Any], path, fps: int = 30, t_stride: int | None = None,
            *, ax_limits=None, title: str | None = None, figsize=(6.0, 5.0), dpi: int = 80,
            progress: bool | None = None) -> Path:
    """Animate the mechanism over the output points of ``solution`` and save it to ``path``.

    ``drawing``: what to draw (see the module docstring). ``fps``: frames per second of the
    file (30). ``t_stride=None`` (the default): at most one frame per 1/fps of model time, the
    output point nearest to each time ``t[0] + j/fps`` (a point nearest to several is shown that
    long; the last point always), so the file plays in model real time whatever the output grid
    (see :func:`frame_points`); an integer ``t_stride``: every ``t_stride``-th output point, one
    per frame (real time when ``fps * t_stride * dt == 1``). ``.gif`` is written with Pillow
    (one palette for all frames), ``.mp4`` with ffmpeg. ``ax_limits = ((xmin, xmax), (ymin,
    ymax))`` fixes the axes (default: fitted to the whole motion). ``progress``: show the
    progress bar of ``simulate`` while writing (None: when stderr is a terminal). Returns the
    path written.
    """
    path = checked_output(path, fps, t_stride)
    index, periods = frame_points(solution.t, int(fps), t_stride)
    xlim, ylim = ax_limits if ax_limits is not None else (None, None)
    fig, scene = _setup(solution, drawing, np.arange(solution.t.size), xlim, ylim, title,
                        figsize)
    write_frames(fig, path, int(fps), periods, lambda i: scene.update(int(index[i])), dpi,
                 scene.moving(), progress)
    return path
