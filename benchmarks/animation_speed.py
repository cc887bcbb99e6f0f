"""Animation speed: GIFs of a 3-D and a planar mechanism written with the default options.

Models (compiled and simulated with acausal's public API, then animated; only ``animate`` is
timed):

* ``pendulum3d``: MultiBody's ``Examples.Elementary.DoublePendulum``
  (``acausal.components.multibody.examples.DoublePendulum``: two ``BodyBox`` links on two
  ``Revolute`` joints, the first damped), drawn by
  ``acausal.components.multibody.animation.animate(sol, model, path)`` (boxes, joints, the world
  triad, the time).
* ``piston``: the slider-crank of ``examples/piston_engine.py`` (``PistonEngine``), drawn by
  ``acausal.components.planar.animation.animate(sol, drawing, path)`` with the example's
  drawing list (ground symbols, crank and connecting rod, joints, the piston box, its guide).

Both are simulated over ``--t-end`` seconds (10) with ``--n-points`` output points (1001), then
animated to a ``.gif`` with the defaults of ``animate`` (at most one frame per 1/fps of model
time, fps = 30: 301 frames for 10 s) or, with ``--stride K``, every K-th output point (the old
default was every point, ``--stride 1 --fps 25``). Printed per model: the frames in the file (read
back with Pillow), the file size, the simulation time and the wall-clock ``time.perf_counter``
seconds of ``animate`` (best of ``--repeat``; matplotlib is imported before timing).

Usage::

    python benchmarks/animation_speed.py                 # both models, defaults (a few seconds)
    python benchmarks/animation_speed.py --models pendulum3d --repeat 3
    python benchmarks/animation_speed.py --stride 1 --fps 25   # every output point (slow)
    python benchmarks/animation_speed.py --quick         # 1 s, 101 points (smoke test)
    python benchmarks/animation_speed.py --keep out/     # keep the GIFs in out/
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path

from acausal import compile

ROOT = Path(__file__).resolve().parents[1]


def _piston_engine():
    """The model class of examples/piston_engine.py (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("piston_engine_example",
                                                  ROOT / "examples" / "piston_engine.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pendulum3d():
    from acausal.components.multibody.animation import animate
    from acausal.components.multibody.examples import DoublePendulum

    model = DoublePendulum()
    return compile(model), lambda sol, path, **kw: animate(sol, model, path, **kw)


def piston():
    from acausal.components.planar.animation import Box, Rod, animate

    example = _piston_engine()
    model = example.PistonEngine()
    system = compile(model)  # the drawing takes the components of the compiled instance
    drawing = [model.fixed, model.fixedTranslationDisc, model.pistonRod,
               Box("bodyPiston.frame_a", width=0.25, height=0.15, color="tab:blue",
                   label="piston"),
               model.revoluteDrive, model.revoluteDisc, model.revolutePiston,
               Rod("fixed.frame", "bodyPiston.frame_a", width=1.0, color="lightgray")]
    return system, lambda sol, path, **kw: animate(sol, drawing, path, **kw)


MODELS = {"pendulum3d": pendulum3d, "piston": piston}


def measure(name: str, out_dir: Path, t_end: float, n_points: int, options: dict,
            repeat: int) -> dict:
    from PIL import Image

    system, draw = MODELS[name]()
    t0 = time.perf_counter()
    sol = system.simulate(t_end, n_points=n_points, progress=False)
    simulate_s = time.perf_counter() - t0
    path = out_dir / f"{name}.gif"
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        draw(sol, path, **options)
        best = min(best, time.perf_counter() - t0)
    with Image.open(path) as im:
        frames = im.n_frames
    return {"model": name, "points": sol.t.size, "frames": frames,
            "kB": path.stat().st_size / 1024, "simulate_s": simulate_s, "animate_s": best}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS))
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time (10 s)")
    parser.add_argument("--n-points", type=int, default=1001, help="output points (1001)")
    parser.add_argument("--fps", type=int, default=None, help="frame rate (animate's default)")
    parser.add_argument("--stride", type=int, default=None,
                        help="every K-th output point (t_stride=K) instead of the default rule")
    parser.add_argument("--repeat", type=int, default=1, help="best of K runs of animate")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="write the GIFs into DIR (default: a temporary folder)")
    parser.add_argument("--quick", action="store_true", help="1 s, 101 points (smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.t_end, args.n_points = 1.0, 101
    options = {}
    if args.fps is not None:
        options["fps"] = args.fps
    if args.stride is not None:
        options["t_stride"] = args.stride

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401  (imported before timing)

    print(f"{'model':<11} {'points':>6} {'frames':>6} {'GIF [kB]':>9} {'simulate [s]':>12} "
          f"{'animate [s]':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in args.models:
            r = measure(name, out_dir, args.t_end, args.n_points, options, args.repeat)
            print(f"{r['model']:<11} {r['points']:>6d} {r['frames']:>6d} {r['kB']:>9.0f} "
                  f"{r['simulate_s']:>12.3f} {r['animate_s']:>11.2f}", flush=True)


if __name__ == "__main__":
    main()
