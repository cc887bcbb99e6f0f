"""``export_fmu``: checks its arguments, initialises the model as acausal does, builds the
tables (:mod:`.variables`, :mod:`.events`, the initialisation system of
:mod:`acausal.run.initial_system`), writes modelDescription.xml (:mod:`.model_description`)
and the C sources (:mod:`.c_tables`, CasADi's code generation, ``fmi2_wrapper.c``), compiles
the binary with the system C compiler and zips the FMU."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import uuid
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...base.errors import InitializationError, InputError
from ...run.initial_system import build_initial_system
from ...run.initialize import event_if_branches
from ..c_code import (
    c_identifier,
    compile_shared_library,
    file_in_the_way,
    find_c_compiler,
    initial_point,
    shared_library_suffix,
    write_casadi_code,
)
from .c_tables import FMI2_WRAPPER, WRAPPER_FILE, casadi_functions, data_header
from .events import gated_events, relation_kinds
from .model_description import model_description
from .variables import mark_outputs, scalar_variables

if TYPE_CHECKING:
    from ...compiler.compiled_model import CompiledModel

SUPPORTED_FMI_VERSIONS = ("2.0",)
SUPPORTED_KINDS = ("model-exchange", "co-simulation")


def fmi2_platform(platform: str | None = None, bits: int | None = None) -> str:
    """The FMI 2.0 name of the binaries folder: ``linux64``, ``darwin64``, ``win64`` (or
    ``...32`` for a 32-bit Python)."""
    platform = sys.platform if platform is None else platform
    bits = (64 if sys.maxsize > 2**32 else 32) if bits is None else bits
    if platform.startswith("win") or platform == "cygwin":
        return f"win{bits}"
    if platform == "darwin":
        return f"darwin{bits}"
    return f"linux{bits}"


# -- checking the arguments ---------------------------------------------------------------------


def _check_kind(fmi_version: Any, kind: Any) -> None:
    if str(fmi_version) not in SUPPORTED_FMI_VERSIONS:
        raise InputError(
            f"fmi_version={fmi_version!r} is not supported: acausal exports FMI "
            f"{', '.join(SUPPORTED_FMI_VERSIONS)} (fmi_version=\"2.0\"), which every current "
            "FMI importer reads.")
    if kind not in SUPPORTED_KINDS:
        raise InputError(f"kind={kind!r} is not supported: acausal exports "
                         "kind=\"model-exchange\" FMUs (the importer's solver integrates) and "
                         "kind=\"co-simulation\" FMUs (an embedded solver integrates; the FMU "
                         "keeps its model-exchange interface too).")


def _output_path(path: Any) -> Path:
    try:
        target = Path(path)
    except TypeError:
        raise InputError(f"export_fmu(): path must be a file path such as 'model.fmu', got "
                         f"{path!r}.") from None
    if target.is_dir():
        raise InputError(f"export_fmu(): '{target}' is a folder; give a file name such as "
                         f"{target / 'model.fmu'}.")
    if target.suffix.lower() != ".fmu":
        raise InputError(f"export_fmu(): '{target}' should end in .fmu (importers look for "
                         "that suffix), e.g. " + str(target.with_suffix(".fmu")) + ".")
    blocking = file_in_the_way(target.parent)
    if blocking is not None:  # found before the slow part, not when the FMU is zipped
        raise InputError(f"export_fmu(): cannot write '{target}': '{blocking}' is a file, not "
                         "a folder. Choose a path in a folder (or move that file).")
    return target


# -- the starting point ------------------------------------------------------------------------


def _realisation(system, x0: np.ndarray, z0: np.ndarray, p: np.ndarray, t0: float):
    """The realisation acausal's own simulation starts with (it may switch states at the
    initial point when the compiler chose them from start values only), with its x0 and z0."""
    from ...run.hybrid import choose_states
    from ...run.initialize import solve_algebraic

    sel = system.selector
    if not (system.dynamic_selection and sel is not None and sel.max_level > 0):
        return system, x0, z0
    v = np.array(system.function("observed")(t0, x0, z0, p)).ravel()
    best, _ = choose_states(sel, system.dummies, t0, v, 1.0)
    if best is None:
        return system, x0, z0
    cur = system.realization(best)
    x1 = v[cur.states]
    z1 = solve_algebraic(cur, p, t0, x1, v[cur.algebraics]) if cur.algebraics else np.zeros(0)
    return cur, np.asarray(x1, float), np.asarray(z1, float)


# -- export -------------------------------------------------------------------------------------


def export_fmu(system: CompiledModel, path: str | os.PathLike, *, fmi_version: str = "2.0",
               kind: str = "model-exchange", outputs: list[str] | str | None = None,
               params: dict[str, float] | None = None, model_identifier: str | None = None,
               description: str | None = None, start_time: float = 0.0,
               stop_time: float | None = None, compiler: str | os.PathLike | None = None,
               c_flags: tuple[str, ...] = ("-O2",)) -> Path:
    """Write ``system`` as an FMI 2.0 FMU to ``path`` (a ``.fmu`` file).

    ``kind="model-exchange"``: the importer's solver integrates the model;
    ``kind="co-simulation"``: the FMU also has a co-simulation interface whose embedded solver
    (Dormand-Prince 5(4) with event location) integrates between communication points.

    ``outputs``: variable names (dotted, vectors by their base name) exported with
    ``causality="output"``; every other variable is ``"local"`` (an importer such as FMPy can
    still record it). ``params``: parameter values (by dotted name) that become the FMU's
    defaults. ``model_identifier``: the binary's name (default: the model's name as a C
    identifier). ``start_time``: the time of the export's initialisation and of
    DefaultExperiment; ``stop_time``: DefaultExperiment's stop time. ``compiler``: the C
    compiler (default: ``$CC``, ``cc``, ``gcc``, ``clang``); ``c_flags``: its options.

    The export initialises the model as :func:`acausal.run.simulate` does (with ``params``); the
    consistent states are the states' start values. The FMU solves the same initialisation
    system again in C at ``fmi2ExitInitializationMode`` for the parameters and start values
    the importer set. Returns the path written. Raises :class:`acausal.InputError` for an
    unsupported ``fmi_version`` or ``kind``, an :class:`acausal.UnknownNameError` for an
    unknown output, :class:`acausal.export.c_code.CompilerNotFoundError` without a C compiler.
    """
    from ...compiler.compiled_model import CompiledModel
    from ...run.sundials import nominal_values

    _check_kind(fmi_version, kind)
    if not isinstance(system, CompiledModel):
        raise InputError(f"export_fmu() takes a CompiledSystem (model.compile()), got "
                         f"{type(system).__name__}.")
    target = _output_path(path)
    identifier = c_identifier(model_identifier if model_identifier is not None
                              else system.model_name)
    if model_identifier is not None and identifier != model_identifier:
        raise InputError(f"model_identifier={model_identifier!r} must be a C identifier "
                         f"(letters, digits, _), e.g. {identifier!r}.")
    start_time = float(start_time)
    if not np.isfinite(start_time):
        raise InputError(f"start_time must be a finite time, got {start_time!r}.")
    if stop_time is not None and not (np.isfinite(float(stop_time))
                                      and float(stop_time) > start_time):
        raise InputError(f"stop_time must be a finite time after start_time ({start_time}), "
                         f"got {stop_time!r}.")
    if system.computed_parameters:
        names = ", ".join(system.parameter_names[i] for i in system.computed_parameters)
        raise InputError(
            f"export_fmu(): {names} is computed at initialisation (a parameter with "
            "fixed=False), which the FMU's initialisation does not do yet. Simulate once, read "
            "the computed value (sol[name]) and give it as a number (e.g. "
            "compute_rod_length=False, rod_length=value) before exporting.")
    p0 = system.parameter_vector(params)
    x0, z0, p0, note = initial_point(system, p0, start_time)
    if note:
        raise InitializationError(f"export_fmu(): {note}. The FMU starts from consistent "
                                  "initial values: fix the model's start values first.")
    cs, x0, z0 = _realisation(system, x0, z0, p0, start_time)
    init = build_initial_system(cs, settable_starts=True)
    kinds = relation_kinds(cs)
    gated = gated_events(cs)
    branches = event_if_branches(cs)
    nominal = nominal_values(cs, x0, z0)[0][:cs.x.numel()]
    variables = scalar_variables(cs, x0, p0, init.exact)
    mark_outputs(cs, variables, outputs)
    cc = find_c_compiler(compiler)  # after the checks of the arguments, before the slow part
    functions = casadi_functions(cs, init)
    sources = ["model_functions.c", WRAPPER_FILE]
    xml = model_description(
        cs, variables, model_identifier=identifier,
        description=description or f"{cs.model_name}, exported by acausal",
        n_indicators=len(kinds), start_time=start_time, stop_time=stop_time,
        source_files=sources, cosimulation=kind == "co-simulation")
    with tempfile.TemporaryDirectory(prefix="acausal_fmu_") as tmp:
        build = Path(tmp)
        src = build / "sources"
        src.mkdir()
        # CasADi's code of the functions; its symbols stay inside the binary (only the FMI
        # functions are exported)
        write_casadi_code(functions, src, "model_functions", with_export=False)
        data = data_header(cs, variables, functions, init, model_identifier=identifier,
                           x0=x0, z0=z0, p0=p0, nominal=nominal, kinds=kinds, gated=gated,
                           branches=branches, cosimulation=kind == "co-simulation")
        digest = hashlib.sha256()
        for part in ((src / "model_functions.c").read_text(), data, xml, FMI2_WRAPPER):
            digest.update(part.encode())
        guid = "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, "acausal:" + digest.hexdigest())) + "}"
        (src / "model_data.h").write_text(data.replace("@GUID@", guid))
        (src / WRAPPER_FILE).write_text(FMI2_WRAPPER)
        xml = xml.replace("@GUID@", guid)
        (build / "modelDescription.xml").write_text(xml, encoding="utf-8")
        binary = build / "binaries" / fmi2_platform() / (identifier + shared_library_suffix())
        compile_shared_library([src / s for s in sources], binary, compiler=cc,
                               include_dirs=(src,), flags=tuple(c_flags))
        partial = target.with_name(target.name + ".part")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            zf = zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED)
        except OSError as exc:  # no permission, a read-only or vanished folder
            raise InputError(f"export_fmu(): cannot write '{target}' ({exc.strerror or exc}); "
                             "choose a file in a folder you can write to.") from None
        with zf:
            zf.write(build / "modelDescription.xml", "modelDescription.xml")
            zf.write(binary, binary.relative_to(build).as_posix())
            for name in ("model_functions.c", "model_functions.h", "model_data.h",
                         WRAPPER_FILE):
                zf.write(src / name, f"sources/{name}")
        os.replace(partial, target)
    return target
