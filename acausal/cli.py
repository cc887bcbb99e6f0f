"""The ``acausal`` command line (also ``python -m acausal``).

Commands::

    acausal simulate MODEL --t-end 10 [--set NAME=VALUE ...] [--csv FILE] [--columns NAMES]
                           [--plot NAMES] [--png FILE] [--animate FILE.gif]
                           [--html FILE.html [--trails]]
    acausal equations MODEL [--latex] [--reduced]
    acausal info MODEL
    acausal fmu MODEL OUT.fmu [--kind co-simulation] [--outputs NAMES] [--set NAME=VALUE ...]

``MODEL`` is ``MODULE:Name``: ``MODULE`` a file path (``examples/piston_engine.py``) or a dotted
module (``mypackage.models``); ``Name`` a Component subclass (created with no arguments), a
factory function with no arguments that returns a Component instance, or a Component instance.
``:Name`` may be left out when the module defines exactly one Component subclass.

Errors in the model or the input (a wrong path, model, parameter or variable name, a failed
initialisation or integration) are printed as one ``error: ...`` line (followed by a list only
where the user needs one, e.g. the variables no equation determines) and exit with status 1;
``--traceback`` shows the Python traceback as well. A usage mistake (an unknown option, a value
that is not a number, a missing argument) is one ``error: ...`` line too, with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import math
import os
import re
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from .base.errors import AcausalError, ParameterError, UnknownNameError, did_you_mean

__all__ = ["CommandLineError", "load_model", "main", "planar_drawing"]


class CommandLineError(AcausalError):
    """Bad command-line input: a path, module or model that cannot be found or used."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one ``error: ...`` line (exit status 2) like every
    other error of the command line: argparse itself prints the whole usage block first,
    which buries the one line that says what is wrong."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (`{self.prog} --help` lists the options)\n")


# -- loading a model ----------------------------------------------------------------------------


def _split_spec(spec: str) -> tuple[str, str | None]:
    module, sep, name = spec.rpartition(":")
    if not sep or not module or any(c in name for c in "/\\") or name.endswith(".py"):
        return spec, None  # no ':Name' (or a Windows drive letter: C:\models\x.py)
    return module, name


def _looks_like_path(module: str) -> bool:
    return module.endswith(".py") or "/" in module or "\\" in module or os.path.isfile(module)


def _where(exc: BaseException, filename: str | None = None) -> str:
    """' (file.py, line 12)' of the innermost frame in ``filename`` (or the innermost frame)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" ({exc.filename}, line {exc.lineno})"
    if filename is not None:
        mine = [f for f in frames if os.path.abspath(f.filename) == os.path.abspath(filename)]
        frames = mine or frames
    if not frames:
        return ""
    return f" ({frames[-1].filename}, line {frames[-1].lineno})"


def _import_file(path: Path):
    if path.is_dir():
        raise CommandLineError(f"'{path}' is a folder: give a Python file and a model, "
                               "e.g. path/to/model.py:Model.")
    if not path.is_file():
        hint = ""
        if path.parent.is_dir():
            hint = did_you_mean(path.name, [p.name for p in path.parent.glob("*.py")])
        raise CommandLineError(f"No such file: '{path}'.{hint}")
    resolved = path.resolve()
    name = "_acausal_model_" + re.sub(r"\W", "_", resolved.stem)
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise CommandLineError(f"'{path}' is not a Python file that can be imported.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    folder = str(resolved.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # as `python file.py` does: sibling modules import
    try:
        spec.loader.exec_module(module)
    except AcausalError:
        raise
    except Exception as exc:
        sys.modules.pop(name, None)
        raise CommandLineError(f"Importing '{path}' failed: {type(exc).__name__}: {exc}"
                               f"{_where(exc, str(resolved))}") from exc
    return module


def _import_module(dotted: str):
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError as exc:
        if exc.name and (dotted == exc.name or dotted.startswith(exc.name + ".")):
            raise CommandLineError(
                f"No module named '{dotted}' (and no file of that name): give a file path "
                "(path/to/model.py) or an importable dotted module (package.module).") from exc
        raise CommandLineError(f"Importing '{dotted}' failed: {type(exc).__name__}: "
                               f"{exc}{_where(exc)}") from exc
    except AcausalError:
        raise
    except Exception as exc:
        raise CommandLineError(f"Importing '{dotted}' failed: {type(exc).__name__}: "
                               f"{exc}{_where(exc)}") from exc


def _models_in(module) -> list[str]:
    """Names of the Component subclasses and factories defined in ``module``."""
    from .language.model import Component

    out = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj) and issubclass(obj, Component):
            out.append(name)
    return out


def load_model(spec: str):
    """The model instance named by ``MODULE[:Name]`` and a label for it."""
    from .language.model import Component

    module_name, attr = _split_spec(spec)
    module = (_import_file(Path(module_name)) if _looks_like_path(module_name)
              else _import_module(module_name))
    models = _models_in(module)
    if attr is None:
        if len(models) != 1:
            listed = ", ".join(models) or "none"
            raise CommandLineError(
                f"Name the model: '{module_name}:Model' (Component classes in '{module_name}': "
                f"{listed}).")
        attr = models[0]
    if not hasattr(module, attr):
        candidates = models + [n for n, o in vars(module).items()
                               if inspect.isfunction(o) and not n.startswith("_")]
        raise UnknownNameError(
            f"'{module_name}' has no model named '{attr}'." + did_you_mean(attr, candidates)
            + f" Component classes in it: {', '.join(models) or 'none'}.")
    obj = getattr(module, attr)
    label = f"{module_name}:{attr}"
    if isinstance(obj, Component):
        return obj, label
    if not callable(obj):
        raise CommandLineError(f"'{label}' is a {type(obj).__name__}, not a Component class or "
                               "a function that returns a model.")
    kind = "class" if inspect.isclass(obj) else "function"
    if inspect.isclass(obj) and not issubclass(obj, Component):
        raise CommandLineError(f"'{label}' is a class but not a Component subclass.")
    try:
        inspect.signature(obj).bind()
    except TypeError:
        raise CommandLineError(
            f"'{label}' cannot be called without arguments {inspect.signature(obj)}: give a "
            "Component class whose parameters all have defaults, or a function without "
            "arguments that returns the model instance.") from None
    except ValueError:  # no signature available (a builtin): just try
        pass
    try:
        model = obj()
    except AcausalError:
        raise
    except Exception as exc:
        raise CommandLineError(f"Creating the model '{label}' failed: {type(exc).__name__}: "
                               f"{exc}{_where(exc)}") from exc
    if not isinstance(model, Component):
        raise CommandLineError(f"The {kind} '{label}' returned {type(model).__name__}, not a "
                               "Component instance.")
    return model, label


# -- names and values ---------------------------------------------------------------------------


def _split_list(values: Sequence[str] | None) -> list[str]:
    """``['a,b', 'c']`` -> ``['a', 'b', 'c']`` (options that take name lists may repeat)."""
    out: list[str] = []
    for v in values or []:
        out.extend(s.strip() for s in v.split(",") if s.strip())
    return out


def parse_assignments(items: Sequence[str] | None, system=None) -> dict[str, float]:
    """``['body.m=2', 'c=1e3,d=4']`` -> ``{'body.m': 2.0, 'c': 1000.0, 'd': 4.0}``.

    With the compiled ``system``, a structural parameter is named as such (it needs the model
    changed and compiled again, whatever the value)."""
    params: dict[str, float] = {}
    for item in items or []:
        for part in item.split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, value = part.partition("=")
            name, value = name.strip(), value.strip()
            if not sep or not name or not value:
                raise ParameterError(f"--set '{part}': write NAME=VALUE, e.g. --set body.m=2.")
            if system is not None and name in system.flat.structural:
                raise system.structural_parameter_error(name)
            try:
                number = float(value)
            except ValueError:
                raise ParameterError(f"--set {name}={value}: '{value}' is not a number.") \
                    from None
            if not math.isfinite(number):
                raise ParameterError(f"--set {name}={value}: give a finite number.")
            if name in params and params[name] != number:  # else the last would win silently
                raise ParameterError(f"--set {name} is given twice ({params[name]:g} and "
                                     f"{number:g}): give each parameter once.")
            params[name] = number
    return params


def check_output_path(path: str, option: str) -> None:
    """Fail before simulating when ``path`` cannot be written: it is a folder, a parent is a
    file, or the folder cannot be created or written to. Missing folders are created."""
    target = Path(path)
    if target.is_dir():
        raise CommandLineError(f"{option} {path}: this is a folder; give a file name, e.g. "
                               f"{target / ('out' + (target.suffix or '.csv'))}.")
    for parent in target.parents:
        if parent.exists() and not parent.is_dir():
            raise CommandLineError(f"{option} {path}: '{parent}' is a file, not a folder; "
                                   "choose another path.")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandLineError(f"{option} {path}: cannot create the folder '{target.parent}' "
                               f"({exc.strerror}); choose another path.") from None
    if not os.access(target.parent, os.W_OK) or (target.exists()
                                                 and not os.access(target, os.W_OK)):
        raise CommandLineError(f"{option} {path}: no permission to write there; choose another "
                               "path.")


def expand_names(system, names: Sequence[str], option: str) -> list[str]:
    """Check variable names against the compiled system; vectors become their elements."""
    out: list[str] = []
    for name in names:
        if name in system.parameter_names or name in ("time", "t"):
            out.append(name)
            continue
        try:
            system.locate(name)
            out.append(name)
            continue
        except UnknownNameError:
            pass
        rows = system.vector_elements(name)
        if not rows:
            hint = did_you_mean(name, system.variable_names() + system.parameter_names)
            raise UnknownNameError(f"{option}: '{name}' is not a variable of "
                                   f"{system.model_name}.{hint} (`acausal info` lists the "
                                   "parameters; `acausal equations` shows the variables.)")
        out.extend(rows)
    return out


# -- drawing planar models ----------------------------------------------------------------------


def _walk(node):
    yield from node.walk()


def planar_drawing(model) -> list:
    """Shapes for :func:`acausal.components.planar.animation.animate` from the planar parts of a
    compiled model instance: ground, rods, bodies, joints, springs and wheels."""
    from .components.planar import forces, joints, parts
    from .components.planar.animation import Point

    wheels: tuple = ()
    try:
        from .components.planar import vehicle
        from .components.planar import wheels as wheel_module

        wheels = (wheel_module.IdealRolling, wheel_module.DryFrictionBasedRolling,
                  wheel_module.OneDOFRollingWheelJoint, wheel_module.OneDOFSlippingWheelJoint,
                  vehicle._WheelBase)
    except (ImportError, AttributeError):  # pragma: no cover - older component sets
        pass
    order = [(parts.Fixed,), (forces.Spring, forces.Damper, forces.SpringDamper),
             (parts.FixedTranslation, parts.BodyShape), (joints.Prismatic,), wheels,
             (parts.Body,), (joints.Revolute,)]
    found: list[list] = [[] for _ in order]
    for node in _walk(model):
        for k, kinds in enumerate(order):
            if kinds and isinstance(node, kinds):
                found[k].append(node)
                break
    drawing: list = []
    for k, items in enumerate(found):
        for node in items:
            if order[k] is wheels:
                drawing.append(Point(f"{node.path}.frame_a", size=22.0, color="silver",
                                     label=node.path))
            else:
                drawing.append(node)
    return drawing


# -- commands -----------------------------------------------------------------------------------


def _compile(args):
    from . import compile as compile_model

    model, label = load_model(args.model)
    system = compile_model(model, progress=None if args.verbose else False,
                           check_units=not args.no_unit_check)
    return model, label, system


def _fmt(value: float) -> str:
    return f"{value:.6g}"


def cmd_info(args) -> int:
    _, label, system = _compile(args)
    s = system.system
    print(system.summary())
    roots = [e for e in range(s.n_eqs) if s.diff_to_eq[e] == -1 and s.eq_to_diff[e] != -1]
    n_diff = sum(1 for e in range(s.n_eqs) if s.diff_to_eq[e] != -1)
    print(f"index reduction: {len(roots)} equation(s) differentiated, {n_diff} derivative "
          f"equation(s) added, {len(system.dummies)} dummy derivative(s)")
    for k, e in enumerate(roots):
        if k == 20 and len(roots) > 21:
            print(f"  ... and {len(roots) - 20} more (`acausal equations --reduced` lists all)")
            break
        top = e
        while s.eq_to_diff[top] != -1:
            top = s.eq_to_diff[top]
        print(f"  {s.describe_eq(top)}")
    if system.events or system.discrete_names:
        print(f"events: {len(system.events)} When clause(s); discrete variables: "
              + (", ".join(system.discrete_names) or "-"))
    params = [p for p in system.flat.parameters if not p.discrete]
    print(f"parameters ({len(params)}; change with --set NAME=VALUE):")
    width = max((len(p.name) for p in params), default=0)
    for p in params:
        unit = f" {p.unit}" if p.unit else ""
        desc = f"  {p.description}" if p.description else ""
        print(f"  {p.name:<{width}} = {_fmt(p.value)}{unit}{desc}")
    total = sum(system.timings.values())
    stages = ", ".join(f"{k} {v:.2f}" for k, v in system.timings.items())
    print(f"compiled in {total:.2f} s ({stages})")
    print(f"source: {label}")
    return 0


def _equation_text(relation) -> str:
    import sympy as sp

    if isinstance(relation, sp.Equality):
        return f"{sp.sstr(relation.lhs)} = {sp.sstr(relation.rhs)}"
    return f"{sp.sstr(relation)} = 0"


def cmd_equations(args) -> int:
    _, _, system = _compile(args)
    if args.latex:
        print(system.to_latex(reduced=args.reduced))
        return 0
    if args.reduced:
        s = system.system
        relations = system.equations(reduced=True)
        labels = [s.describe_eq(e).split(": ", 1)[0] for e in range(s.n_eqs)]
        labels = [lab + ("  [differentiated]" if s.diff_to_eq[e] != -1 else "")
                  for e, lab in enumerate(labels)]
        print(f"# {len(relations)} equations of {system.model_name} after alias elimination "
              "and index reduction (residual = 0)")
    else:
        relations = [eq.relation() for eq in system.flat.equations]
        labels = [eq.label for eq in system.flat.equations]
        print(f"# {len(relations)} equations of {system.model_name} as written in its "
              "components")
    for relation, label in zip(relations, labels):
        print(f"{_equation_text(relation)}    # {label}")
    return 0


def _need_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CommandLineError("Plots and animations need matplotlib: "
                               "pip install 'acausal[plot]'.") from None


def _check_image_suffix(path: str) -> None:
    """--png FILE: matplotlib picks the format from the suffix; it fails on one it does not
    know only after the simulation, and without a suffix writes FILE.png, not FILE."""
    _need_matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise CommandLineError(
            f"--png {path}: " + (f"'.{suffix}' is not an image format matplotlib writes"
                                 if suffix else "the file name has no suffix")
            + f"; end it in .png (or .{', .'.join(sorted(formats))}).")


def _check_display() -> None:
    _need_matplotlib()
    import matplotlib

    if matplotlib.get_backend().lower() in ("agg", "pdf", "ps", "svg", "cairo", "template"):
        raise CommandLineError("--plot without --png shows a window, but there is no display "
                               "here: add --png FILE.")


def _plot(sol, names: list[str], title: str, png: str | None) -> None:
    _need_matplotlib()
    sol.plot(*names, title=title, path=png)
    if png is None:
        import matplotlib.pyplot as plt

        plt.show()
    else:
        print(f"plot written to {png}")


def _animate(sol, drawing, title: str, path: str, fps: int | None) -> None:
    """Write the animation: ``drawing`` is a list of planar shapes, or a model instance whose
    3-D parts are drawn (``acausal.components.multibody.animation``). At most one frame per
    1/fps of model time (30 unless --fps), so that the file plays in model real time."""
    from .components.planar.animation import frame_points

    if isinstance(drawing, list):
        from .components.planar.animation import animate
    else:
        from .components.multibody.animation import animate

    fps = 30 if fps is None else fps
    out = animate(sol, drawing, path, fps=fps, title=title)
    n_frames = frame_points(sol.t, fps)[0].size
    print(f"animation written to {out} ({n_frames} frames at {fps} fps, model real time)")


def _check_simulate_options(args) -> None:
    """The checks of options that need no model, made before compiling it."""
    # options that only refine another one would be ignored without it: say so instead
    if args.columns and not args.csv:
        raise CommandLineError("--columns chooses the columns of --csv: add --csv FILE (or "
                               "leave --columns out).")
    if args.fps is not None and not args.animate:
        raise CommandLineError("--fps sets the frame rate of --animate: add --animate FILE.gif "
                               "(or leave --fps out).")
    if args.fps is not None and args.fps < 1:
        raise CommandLineError(f"--fps {args.fps}: give a positive whole number of frames per "
                               "second, e.g. --fps 25.")
    if args.png:
        _check_image_suffix(args.png)
    if args.html and Path(args.html).suffix.lower() not in (".html", ".htm"):
        raise CommandLineError(f"--html {args.html}: the viewer writes an .html page; give a "
                               "file name ending in .html.")
    if args.trails and not args.html:
        raise CommandLineError("--trails draws body paths in the --html page: add --html "
                               "FILE.html (or leave --trails out).")


def cmd_simulate(args) -> int:
    _check_simulate_options(args)
    model, label, system = _compile(args)
    params = parse_assignments(args.set, system)
    system.parameter_vector(params)  # unknown names and bad values fail before integrating
    plot_names = expand_names(system, _split_list(args.plot), "--plot")
    columns = expand_names(system, _split_list(args.columns), "--columns") if args.columns \
        else None
    drawing: Any = []
    for option, path in (("--csv", args.csv), ("--png", args.png), ("--animate", args.animate),
                         ("--html", args.html)):
        if path:
            check_output_path(path, option)
    if args.html and not system.flat.visuals:
        raise CommandLineError(f"--html: {system.model_name} has no shapes to show (its "
                               "components declare none); planar and 3-D parts of "
                               "acausal.components do.")
    if args.animate:
        if Path(args.animate).suffix.lower() not in (".gif", ".mp4"):
            raise CommandLineError(f"--animate {args.animate}: write a .gif (or .mp4 with "
                                   "ffmpeg).")
        _need_matplotlib()
        if Path(args.animate).suffix.lower() == ".mp4":
            from matplotlib import animation

            if not animation.writers.is_available("ffmpeg"):
                raise CommandLineError(f"--animate {args.animate}: writing .mp4 needs ffmpeg on "
                                       "the PATH (install it), or write a .gif instead.")
        drawing = planar_drawing(model)
        if not drawing:
            from .components.multibody.animation import shapes_of

            if shapes_of(model):
                drawing = model  # a 3-D model: drawn by the multibody animation
            else:
                raise CommandLineError(
                    f"--animate: {system.model_name} has no planar or 3-D parts (bodies, rods, "
                    "joints of acausal.components.planar or .multibody) to draw.")
    if plot_names and not args.png and not args.html:
        _check_display()  # --plot alone opens a window; with --html the page shows the plots
    if args.png and not plot_names:
        plot_names = list(system.state_names[:6])
        if not plot_names:
            raise CommandLineError("--png: the model has no states; name what to plot with "
                                   "--plot NAMES.")
    options: dict[str, Any] = {"t_start": args.t_start, "params": params, "rtol": args.rtol,
                               "atol": args.atol, "max_step": args.max_step,
                               "progress": False if args.quiet else None,
                               "jit": args.jit or "auto"}
    if args.dt is not None:
        options["dt"] = args.dt
    elif args.n_points is not None:
        options["n_points"] = args.n_points
    sol = system.simulate(args.t_end, **options)
    interrupted = getattr(sol, "interrupted", False)
    print(f"{system.model_name}: simulated t = {_fmt(sol.t[0])} .. {_fmt(sol.t[-1])} s "
          f"({sol.t.size} points"
          + (f", {len(sol.events)} events" if sol.events else "")
          + (f", {len(sol.state_switches)} state switches" if sol.state_switches else "")
          + (", INTERRUPTED" if interrupted else "") + ")")
    if params:
        print("parameters: " + ", ".join(f"{k} = {_fmt(v)}" for k, v in params.items()))
    shown = [n for n in (plot_names or system.state_names) if n not in ("t", "time")][:12]
    if shown:
        width = max(len(n) for n in shown)
        print(f"final values (t = {_fmt(sol.t[-1])} s):")
        for n in shown:
            unit = sol.unit(n)
            print(f"  {n:<{width}} = {_fmt(float(sol[n][-1]))}" + (f" {unit}" if unit else ""))
    if args.csv:
        sol.to_csv(args.csv, [c for c in columns if c not in ("t", "time")]
                   if columns else None)
        print(f"CSV written to {args.csv}")
    if args.html:
        page = sol.view(args.html, trails=True if args.trails else None,
                        plots=[n for n in plot_names if n not in ("t", "time")] or None,
                        title=system.model_name)
        print(f"viewer page written to {page.path} (open it in a browser)")
    if plot_names and (args.png or (args.plot and not args.html)):
        _plot(sol, [n for n in plot_names if n not in ("t", "time")], system.model_name,
              args.png)
    if args.animate:
        _animate(sol, drawing, system.model_name, args.animate, args.fps)
    return 130 if interrupted else 0


def cmd_fmu(args) -> int:
    """Export the model as an FMI 2.0 FMU (see docs/fmu_export.md)."""
    from .export.fmu import export_fmu

    if Path(args.output).suffix.lower() != ".fmu":
        raise CommandLineError(f"{args.output}: an FMU file name ends in .fmu, e.g. "
                               f"{Path(args.output).with_suffix('.fmu')}.")
    check_output_path(args.output, "OUT.fmu")
    _, _, system = _compile(args)
    params = parse_assignments(args.set, system)
    outputs = expand_names(system, _split_list(args.outputs), "--outputs") if args.outputs \
        else None
    path = export_fmu(system, args.output, kind=args.kind, outputs=outputs, params=params,
                      stop_time=args.stop_time, compiler=args.compiler)
    n_ind = sum(len(ev.indicators) for ev in system.events)
    print(f"{system.model_name}: FMI 2.0 {args.kind} FMU written to {path} "
          f"({system.n_states} states, {system.z.numel()} algebraic variables solved in the "
          f"FMU, {len(system.parameter_names)} parameters, {n_ind} event indicators"
          + (f", outputs {', '.join(outputs)}" if outputs else "") + ")")
    return 0


# -- argument parsing ---------------------------------------------------------------------------

_EPILOG = """\
MODEL is MODULE:Name, e.g. examples/piston_engine.py:PistonEngine or mypackage.models:Robot.
Name is a Component class (created without arguments) or a function returning a model.

examples:
  acausal info examples/piston_engine.py:PistonEngine
  acausal equations examples/mass_spring_damper.py:Oscillator --latex
  acausal simulate examples/piston_engine.py:PistonEngine --t-end 10 --set bodyPiston.m=2 \\
      --csv out.csv --plot revoluteDrive.w,prismatic.s --png out.png --animate out.gif
  acausal fmu examples/piston_engine.py:PistonEngine piston.fmu --outputs prismatic.s
"""


def build_parser() -> argparse.ArgumentParser:
    from .base.version import __version__

    parser = _Parser(
        prog="acausal", description="Compile and simulate acausal models from the command line.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"acausal {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("model", metavar="MODEL", help="MODULE:Name (file path or dotted module)")
    common.add_argument("--traceback", action="store_true",
                        help="show the Python traceback of an error")
    common.add_argument("-v", "--verbose", action="store_true",
                        help="print the compiler stages and their times")
    common.add_argument("--no-unit-check", action="store_true",
                        help="compile without checking the equations' units "
                             "(compile(check_units=False))")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    sim = sub.add_parser("simulate", parents=[common], help="simulate a model",
                         description="Compile, initialise and integrate a model; write CSV, "
                                     "plots and animations.")
    sim.add_argument("--t-end", type=float, required=True, help="end time [s]")
    sim.add_argument("--t-start", type=float, default=0.0, help="start time [s] (default 0)")
    grid = sim.add_mutually_exclusive_group()
    grid.add_argument("--dt", type=float, help="output step [s]")
    grid.add_argument("--n-points", type=int, help="number of output points (default 501)")
    sim.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="parameter value (repeat, or comma-separate: --set a=1,b=2)")
    sim.add_argument("--rtol", type=float, default=1e-6, help="relative tolerance (1e-6)")
    sim.add_argument("--atol", type=float, default=1e-8, help="absolute tolerance (1e-8)")
    sim.add_argument("--max-step", type=float, help="largest integrator step [s]")
    sim.add_argument("--csv", metavar="FILE", help="write time and variables as CSV")
    sim.add_argument("--columns", action="append", metavar="NAMES",
                     help="variables for --csv (comma-separated; default: all declared ones)")
    sim.add_argument("--plot", action="append", metavar="NAMES",
                     help="variables to plot (comma-separated; one panel per unit)")
    sim.add_argument("--png", metavar="FILE", help="save the plot here (default: the states "
                     "when --plot is not given); without it --plot opens a window")
    sim.add_argument("--animate", metavar="FILE", help="animate the planar parts (.gif; .mp4 "
                     "with ffmpeg)")
    sim.add_argument("--fps", type=int, help="frames per second of --animate (default 30; at "
                     "most one frame per 1/fps of model time, played in model real time)")
    sim.add_argument("--html", metavar="FILE", help="write the 3-D viewer page (.html, opens "
                     "offline in a browser; --plot NAMES are plotted under the 3-D view)")
    sim.add_argument("--trails", action="store_true", help="draw the bodies' paths in the "
                     "--html page")
    sim.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sim.add_argument("--jit", action="store_true", help="compile the solver's functions to "
                     "machine code with the C compiler before the run (cached; default: the "
                     "run starts at once and switches to machine code when it pays, see "
                     "docs/compiler.md)")
    sim.set_defaults(func=cmd_simulate)

    eqs = sub.add_parser("equations", parents=[common], help="print the equations",
                         description="Print the model's equations (as written, or the "
                                     "index-reduced system the code is generated from).")
    eqs.add_argument("--latex", action="store_true", help="LaTeX (aligned) instead of text")
    eqs.add_argument("--reduced", action="store_true",
                     help="after alias elimination and index reduction")
    eqs.set_defaults(func=cmd_equations)

    info = sub.add_parser("info", parents=[common], help="sizes, states, index reduction, "
                          "parameters", description="Compile a model and describe it.")
    info.set_defaults(func=cmd_info)

    fmu = sub.add_parser("fmu", parents=[common], help="export an FMI 2.0 FMU",
                         description="Compile a model and export it as an FMI 2.0 FMU "
                                     "built with the system C compiler (see "
                                     "docs/fmu_export.md).")
    fmu.add_argument("output", metavar="OUT.fmu", help="the FMU file to write")
    fmu.add_argument("--kind", choices=["model-exchange", "co-simulation"],
                     default="model-exchange", help="model-exchange (default: the importer's "
                     "solver integrates) or co-simulation (an embedded solver integrates; the "
                     "FMU keeps its model-exchange interface too)")
    fmu.add_argument("--outputs", action="append", metavar="NAMES",
                     help="variables exported with causality output (comma-separated; the "
                          "others stay visible as locals)")
    fmu.add_argument("--set", "--param", action="append", metavar="NAME=VALUE", dest="set",
                     help="parameter default in the FMU (repeat, or comma-separate)")
    fmu.add_argument("--stop-time", type=float, help="stopTime of the DefaultExperiment [s]")
    fmu.add_argument("--compiler", metavar="CC", help="C compiler (default: $CC, cc, gcc or "
                     "clang on the PATH)")
    fmu.set_defaults(func=cmd_fmu)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 error, 2 usage, 130 interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except AcausalError as exc:
        if args.traceback:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as exc:  # a bug (in acausal or in the model's Python code)
        if args.traceback:
            traceback.print_exc()
        else:
            print(f"error: unexpected {type(exc).__name__}: {exc}{_where(exc)}; run again with "
                  "--traceback for the full traceback.", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
