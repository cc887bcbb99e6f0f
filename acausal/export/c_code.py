"""Plain C code of a compiled system, for embedding in a controller, an MPC or a test bench.

``system.generate_c(directory)`` writes the model's CasADi functions as C through CasADi's own
code generator (``casadi.CodeGenerator``): the right-hand side ``der(x) = f(t, x, z, p)``, the
algebraic residual ``0 = g(t, x, z, p)``, every variable of the model (the observed values),
the Jacobians ``df/dx``, ``df/dz``, ``dg/dx``, ``dg/dz`` and ``df/dp`` (dense, column-major),
and, for models with ``When`` clauses, the event indicators, conditions and actions. Around
them it writes a small header with the sizes, the names of every index, the default parameter
values and consistent initial values, one-call wrappers that need no work vectors, a JSON file
with the same names, and a README with the calling convention and a compile command.

The generated code depends on nothing but ``<math.h>``. The C compiler helpers
(:mod:`acausal.base.c_compiler`, re-exported here) are shared with :mod:`acausal.export.fmu`,
which builds an FMU's binary from the same functions, and with the run layer's native
functions (``simulate(jit=True)``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import casadi as ca
import numpy as np

from ..base import c_compiler
from ..base.c_compiler import (
    CCompilerError,
    CompilerNotFoundError,
    find_c_compiler,
    shared_library_suffix,
)
from ..base.errors import AcausalError, InputError

if TYPE_CHECKING:
    from ..compiler.compiled_model import CompiledModel

__all__ = ["CompilerNotFoundError", "ExportError", "c_identifier", "compile_shared_library",
           "file_in_the_way", "find_c_compiler", "generate_c", "shared_library_suffix"]

#: C types of the generated code (CasADi's defaults, written out so the README can say them).
CASADI_REAL = "double"
CASADI_INT = "long long int"


class ExportError(AcausalError):
    """Exporting a model (C code, FMU) failed: a compiler error, an unsupported option, a
    model the export cannot represent. The message says what to change."""


# -- paths ------------------------------------------------------------------------------------


def file_in_the_way(folder: Path) -> Path | None:
    """The file that stops ``folder`` from being created or used as a folder: ``folder``
    itself or the nearest of its parents that exists, when that is not a folder; else None.
    Path.mkdir would fail on it with a bare FileExistsError (or NotADirectoryError), only
    after the slow part of an export."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return None if candidate.is_dir() else candidate
    return None


# -- names ------------------------------------------------------------------------------------


def c_identifier(text: str, fallback: str = "model") -> str:
    """``text`` as a C identifier: letters, digits and ``_``, not starting with a digit."""
    ident = re.sub(r"\W", "_", str(text), flags=re.ASCII).strip("_")
    ident = re.sub(r"_+", "_", ident)
    if not ident:
        ident = fallback
    if ident[0].isdigit():
        ident = "m_" + ident
    return ident


def c_string(text: str) -> str:
    """A C string literal (ASCII; other characters as octal escapes of their UTF-8 bytes)."""
    out = []
    for byte in str(text).encode("utf-8"):
        ch = chr(byte)
        if ch in "\\\"":
            out.append("\\" + ch)
        elif 32 <= byte < 127 and ch != "?":  # '?' escaped: no trigraphs
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_double(value: float) -> str:
    """A C double literal that reads back exactly (17 significant digits)."""
    value = float(value)
    if np.isnan(value):
        return "NAN"
    if np.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    text = repr(value)
    return text if any(c in text for c in ".eE") else text + ".0"


def c_array(ctype: str, name: str, values: list[str], per_line: int = 4,
            static: bool = False) -> str:
    """``[static] const ctype name[n] = {...};`` (one dummy element when ``values`` is empty:
    C has no arrays of size 0)."""
    items = list(values) or ["0"]
    lines = []
    for k in range(0, len(items), per_line):
        lines.append("  " + ", ".join(items[k:k + per_line]))
    qualifier = "static const" if static else "const"
    return f"{qualifier} {ctype} {name}[{len(items)}] = {{\n" + ",\n".join(lines) + "\n};\n"


def compile_shared_library(sources: list[Path], output: Path, **options: Any) -> Path:
    """:func:`acausal.base.c_compiler.compile_shared_library` (same options), with a failure of
    the compiler on the exported code raised as :class:`ExportError`."""
    try:
        return c_compiler.compile_shared_library(sources, output, **options)
    except CompilerNotFoundError:
        raise
    except CCompilerError as exc:
        raise ExportError(str(exc)) from exc


# -- the functions ------------------------------------------------------------------------------


@dataclass
class ExportFunction:
    """One generated C function: the CasADi Function and what the README says about it."""

    function: ca.Function
    summary: str
    outputs: list[str]  # description of each output (sizes and layout)


def _txzp(system) -> list[ca.SX]:
    return [system.t, system.x, system.z, system.p]


def _dense_jacobian(f: ca.SX, x: ca.SX) -> ca.SX:
    if f.numel() == 0 or x.numel() == 0:
        return ca.SX.zeros(f.numel(), x.numel())
    return ca.densify(ca.jacobian(f, x))


def event_relation_functions(system) -> tuple[ca.SX, ca.SX]:
    """(event indicators, event conditions) of ``system`` as SX column vectors."""
    indicators = [g for ev in system.events for g in ev.indicators]
    ind = ca.vertcat(*indicators) if indicators else ca.SX(0, 1)
    cond = ca.vertcat(*[ev.condition for ev in system.events]) if system.events \
        else ca.SX(0, 1)
    return ind, cond


def model_functions(system: CompiledModel, prefix: str, *, jacobians: bool = True,
                    parameter_jacobian: bool = True) -> list[ExportFunction]:
    """The functions :func:`generate_c` writes, named ``<prefix>_<what>``, all with the inputs
    ``(t, x, z, p)``."""
    ins = _txzp(system)
    names = ["t", "x", "z", "p"]
    nx, nz, np_ = system.x.numel(), system.z.numel(), system.p.numel()
    out: list[ExportFunction] = []

    def add(what: str, exprs: list[ca.SX], out_names: list[str], summary: str,
            layout: list[str]) -> None:
        f = ca.Function(f"{prefix}_{what}", ins, exprs, names, out_names)
        out.append(ExportFunction(f, summary, layout))

    add("ode", [system.ode], ["xdot"], "right-hand side der(x) = f(t, x, z, p)",
        [f"xdot[{nx}]"])
    add("alg", [system.alg], ["g"], "algebraic residual g(t, x, z, p) (0 when z is consistent)",
        [f"g[{nz}]"])
    add("observed", [system.observed], ["y"],
        f"every variable of the model (names: {prefix}_observed_names)",
        [f"y[{system.observed.numel()}]"])
    if jacobians:
        for what, f, wrt, rows, cols in (("jac_ode_x", system.ode, system.x, nx, nx),
                                         ("jac_ode_z", system.ode, system.z, nx, nz),
                                         ("jac_alg_x", system.alg, system.x, nz, nx),
                                         ("jac_alg_z", system.alg, system.z, nz, nz)):
            of, by = what.split("_")[1], what.split("_")[2]
            add(what, [_dense_jacobian(f, wrt)], [f"d{of}_d{by}"],
                f"Jacobian d{'f' if of == 'ode' else 'g'}/d{by}, dense column-major",
                [f"J[{rows}*{cols}], J[i + {rows}*j] = d out_i / d {by}_j"])
        if parameter_jacobian:
            add("jac_ode_p", [_dense_jacobian(system.ode, system.p)], ["dode_dp"],
                "Jacobian df/dp, dense column-major",
                [f"J[{nx}*{np_}], J[i + {nx}*j] = d xdot_i / d p_j"])
    if system.events:
        ind, cond = event_relation_functions(system)
        add("event_indicators", [ind], ["indicators"],
            "zero-crossing functions of the When conditions (lhs - rhs of each relation)",
            [f"indicators[{ind.numel()}]"])
        add("event_conditions", [cond], ["conditions"],
            "1 where a When clause's condition holds, else 0 (a clause fires when its "
            "condition changes from 0 to 1)", [f"conditions[{len(system.events)}]"])
        for k, ev in enumerate(system.events):
            f = ca.Function(f"{prefix}_event_update_{k}", ins, [ev.x_new, ev.p_new], names,
                            ["x_new", "p_new"])
            out.append(ExportFunction(f, f"actions of {ev.label}: states and parameters "
                                         "after the clause fires", [f"x_new[{nx}]",
                                                                    f"p_new[{np_}]"]))
    return out


def write_casadi_code(functions: list[ca.Function], directory: Path, basename: str, *,
                      with_export: bool = True) -> Path:
    """Generate ``basename.c`` and ``basename.h`` in ``directory`` with CasADi's code
    generator; returns the path of the C file. ``with_export``: mark the functions for export
    from a shared library (DLL)."""
    directory.mkdir(parents=True, exist_ok=True)
    opts = {"with_header": True, "casadi_real": CASADI_REAL, "casadi_int": CASADI_INT,
            "with_export": with_export, "verbose": False}
    gen = ca.CodeGenerator(f"{basename}.c", opts)
    for f in functions:
        gen.add(f)
    cwd = os.getcwd()
    try:  # CasADi writes into the current folder
        os.chdir(directory)
        gen.generate()
    finally:
        os.chdir(cwd)
    return directory / f"{basename}.c"


# -- names and start values -------------------------------------------------------------------


def observed_names(system) -> list[str]:
    return [system.system.name(v) for v in range(system.system.n_vars)]


def initial_point(system, p: np.ndarray, t0: float = 0.0) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray, str]:
    """Consistent (x0, z0, p) at ``t0`` from acausal's initialisation (event_if branches set
    as simulate() does), and a note: empty, or why declared guesses were used instead."""
    from ..run.initialize import initialize_with_branches

    p = np.array(p, dtype=float)
    try:
        init = initialize_with_branches(system, p, t0)
    except AcausalError as exc:
        x0 = np.array([_guess(system, v) for v in system.states], dtype=float)
        z0 = np.array([_guess(system, v) for v in system.algebraics], dtype=float)
        return x0, z0, p, f"the initialisation failed ({exc}); declared start values are used"
    return np.asarray(init.x0, float), np.asarray(init.z0, float), p, ""


def _guess(system, v: int) -> float:
    info = system.system.info[v]
    if info is None:
        return 0.0
    g = info.guess if info.guess is not None else info.start
    try:
        return float(g) if g is not None else 0.0
    except (TypeError, ValueError):
        return 0.0


def variable_table(system) -> dict[str, Any]:
    """Sizes, names, units and defaults of every index, as written to the JSON file."""
    info = system.system.info

    def described(indices: list[int]) -> list[dict[str, Any]]:
        out = []
        for k, v in enumerate(indices):
            item = {"index": k, "name": system.system.name(v)}
            if info[v] is not None:
                item.update(unit=info[v].unit, description=info[v].description)
            out.append(item)
        return out

    params = []
    for k, prm in enumerate(system.flat.parameters):
        params.append({"index": k, "name": prm.name, "default": float(system.parameter_values[k]),
                       "unit": prm.unit, "description": prm.description,
                       "kind": "input" if prm.is_input else "discrete" if prm.discrete
                       else "parameter", "min": prm.min, "max": prm.max})
    aliases = {name: {"sign": sign, "index": index}
               for name, (sign, index) in sorted(system.locations().items())}
    return {"model": system.model_name,
            "sizes": {"nx": system.x.numel(), "nz": system.z.numel(),
                      "np": system.p.numel(), "ny": system.observed.numel(),
                      "n_events": len(system.events),
                      "n_indicators": sum(len(ev.indicators) for ev in system.events)},
            "states": described(system.states), "algebraics": described(system.algebraics),
            "parameters": params, "observed": described(list(range(system.system.n_vars))),
            "variables": aliases,
            "events": [ev.label for ev in system.events]}


# -- the files ----------------------------------------------------------------------------------


def _model_header(prefix: str, guard: str, system, functions: list[ExportFunction]) -> str:
    up = prefix.upper()
    lines = [f"/* {prefix}_model.h: sizes, names and one-call wrappers of the model "
             f"{system.model_name}.", " * Generated by acausal; see README.md. */",
             f"#ifndef {guard}", f"#define {guard}", "", f'#include "{prefix}.h"', "",
             f"#define {up}_NX {system.x.numel()}  /* states x */",
             f"#define {up}_NZ {system.z.numel()}  /* algebraic variables z */",
             f"#define {up}_NP {system.p.numel()}  /* parameters p (incl. inputs, discrete) */",
             f"#define {up}_NY {system.observed.numel()}  /* observed variables y */",
             f"#define {up}_NE {len(system.events)}  /* When clauses */",
             f"#define {up}_NI {sum(len(ev.indicators) for ev in system.events)}"
             "  /* event indicators */", "",
             "/* Names of each index (dotted names as in acausal). */"]
    for what in ("state", "algebraic", "parameter", "observed"):
        lines.append(f"extern const char *const {prefix}_{what}_names[];")
    lines += ["", "/* Default parameter values; consistent initial values at t = 0 for them. */",
              f"extern const double {prefix}_parameter_defaults[];",
              f"extern const double {prefix}_x_start[];",
              f"extern const double {prefix}_z_start[];", "",
              "/* One-call wrappers: the work vectors live on the stack. Return 0 on success. */"]
    for ef in functions:
        lines.append(_wrapper_signature(ef) + ";")
    lines += ["", f"#endif /* {guard} */", ""]
    return "\n".join(lines)


def _wrapper_signature(ef: ExportFunction) -> str:
    f = ef.function
    outs = ", ".join(f"double *{f.name_out(i)}" for i in range(f.n_out()))
    return (f"int {f.name()}_eval(double t, const double *x, const double *z, const double *p, "
            f"{outs})")


def _model_source(prefix: str, system, functions: list[ExportFunction], x0, z0, p0) -> str:
    names = {"state": system.state_names, "algebraic": system.algebraic_names,
             "parameter": system.parameter_names, "observed": observed_names(system)}
    parts = [f"/* {prefix}_model.c: names, defaults and wrappers of the model "
             f"{system.model_name}. Generated by acausal. */",
             f'#include "{prefix}_model.h"', ""]
    for what, items in names.items():
        parts.append(c_array("char *const", f"{prefix}_{what}_names",
                             [c_string(n) for n in items]))
    parts.append(c_array("double", f"{prefix}_parameter_defaults", [c_double(v) for v in p0]))
    parts.append(c_array("double", f"{prefix}_x_start", [c_double(v) for v in x0]))
    parts.append(c_array("double", f"{prefix}_z_start", [c_double(v) for v in z0]))
    for ef in functions:
        f = ef.function
        name = f.name()
        outs = "; ".join(f"res[{i}] = {f.name_out(i)}" for i in range(f.n_out()))
        parts.append(
            f"{_wrapper_signature(ef)} {{\n"
            f"  const casadi_real *arg[{name}_SZ_ARG + 1];\n"
            f"  casadi_real *res[{name}_SZ_RES + 1];\n"
            f"  casadi_int iw[{name}_SZ_IW + 1];\n"
            f"  casadi_real w[{name}_SZ_W + 1];\n"
            f"  arg[0] = &t; arg[1] = x; arg[2] = z; arg[3] = p;\n"
            f"  {outs};\n"
            f"  return {name}(arg, res, iw, w, 0);\n}}\n")
    return "\n".join(parts)


def _readme(prefix: str, system, functions: list[ExportFunction], table: dict, x0, z0,
            note: str) -> str:
    nx, nz, np_, ny = (table["sizes"][k] for k in ("nx", "nz", "np", "ny"))
    up = prefix.upper()
    lines = [
        f"# C code of the model `{system.model_name}`",
        "",
        f"Generated by acausal {_version()} with CasADi {ca.__version__} code generation. "
        "Plain C99, depends only on `<math.h>`.",
        "",
        "## The model",
        "",
        "```",
        "der(x) = f(t, x, z, p)      (ode)",
        "     0 = g(t, x, z, p)      (alg; no rows for an ODE)",
        "     y = h(t, x, z, p)      (observed: every variable of the model)",
        "```",
        "",
        "* `t`: time [s], one number;",
        f"* `x`: the {nx} states; `z`: the {nz} algebraic variables of the index-1 DAE "
        "(tear variables of nonlinear loops: given `t, x, p` they are defined by `g = 0`, "
        "so solve `g(t, x, z, p) = 0` for `z` with Newton's method and "
        f"`{prefix}_jac_alg_z` before calling `{prefix}_ode`);",
        f"* `p`: the {np_} parameters, with every input and discrete variable;",
        f"* `y`: the {ny} observed variables, in the order of `{prefix}_observed_names`. "
        "A variable not in that list (an alias such as `spring.flange_b.s`) is "
        "`sign * y[index]` with the sign and index listed under `variables` in "
        f"`{prefix}.json` (index -1: the variable is 0).",
        "",
        "All vectors are plain `double` arrays; matrices are dense and column-major: "
        "`J[i + rows*j] = d out_i / d in_j`.",
        "",
        "## Files",
        "",
        f"* `{prefix}.c`, `{prefix}.h`: the functions, generated by CasADi;",
        f"* `{prefix}_model.h`, `{prefix}_model.c`: sizes (`{up}_NX`, `{up}_NZ`, `{up}_NP`, "
        f"`{up}_NY`), names of every index, default parameters, consistent initial values, "
        "and one-call wrappers;",
        f"* `{prefix}.json`: the same names with units, descriptions, defaults, bounds and the "
        "alias table, for tools.",
        "",
        "## Functions",
        "",
        "Every function takes the inputs `(t, x, z, p)` in this order.",
        "",
        "| function | output(s) | what |",
        "|---|---|---|",
    ]
    for ef in functions:
        lines.append(f"| `{ef.function.name()}` | {', '.join(f'`{o}`' for o in ef.outputs)} "
                     f"| {ef.summary} |")
    lines += [
        "",
        "### Calling convention (CasADi's)",
        "",
        "Each function `F` comes as",
        "",
        "```c",
        "int F(const casadi_real **arg, casadi_real **res, casadi_int *iw, casadi_real *w, "
        "int mem);",
        "int F_work(casadi_int *sz_arg, casadi_int *sz_res, casadi_int *sz_iw, "
        "casadi_int *sz_w);",
        "```",
        "",
        f"with `casadi_real` = `{CASADI_REAL}` and `casadi_int` = `{CASADI_INT}` (define them "
        "before including the header to change them). `arg[0..3]` point to `t, x, z, p`; "
        "`res[k]` to the k-th output (a null pointer skips it). `F_work` gives the lengths of "
        "the pointer arrays `arg` and `res` and of the integer and real work vectors `iw` and "
        "`w` that the caller provides (they are also the macros `F_SZ_ARG`, `F_SZ_RES`, "
        "`F_SZ_IW`, `F_SZ_W` in the header); `mem` is 0. The functions are reentrant: they "
        "keep no state outside `w`. `F_sparsity_out(k)` gives an output's (here dense) "
        "pattern, `F_n_in()`/`F_name_in(i)` describe the inputs. The return value is 0 on "
        "success.",
        "",
        "The wrappers `F_eval(t, x, z, p, out...)` in the model header put the work vectors on "
        "the stack and call `F`:",
        "",
        "```c",
        f'#include "{prefix}_model.h"',
        "#include <stdio.h>",
        "",
        "int main(void) {",
        f"  double x[{up}_NX + 1], z[{up}_NZ + 1], xdot[{up}_NX + 1];",
        f"  for (int i = 0; i < {up}_NX; i++) x[i] = {prefix}_x_start[i];",
        f"  for (int i = 0; i < {up}_NZ; i++) z[i] = {prefix}_z_start[i];",
        f"  if ({prefix}_ode_eval(0.0, x, z, {prefix}_parameter_defaults, xdot)) return 1;",
        f"  for (int i = 0; i < {up}_NX; i++)",
        f'    printf("der(%s) = %g\\n", {prefix}_state_names[i], xdot[i]);',
        "  return 0;",
        "}",
        "```",
        "",
        "Compile (any C99 compiler):",
        "",
        "```sh",
        f"cc -O2 -c {prefix}.c {prefix}_model.c                 # objects for your program",
        f"cc -O2 main.c {prefix}.c {prefix}_model.c -lm -o main  # or a program directly",
        f"cc -O2 -shared -fPIC {prefix}.c {prefix}_model.c -lm -o lib{prefix}.so",
        "```",
        "",
        "## Names",
        "",
        f"### States x ({nx})",
        "",
    ]
    lines += _name_lines(table["states"], x0, "start")
    lines += ["", f"### Algebraic variables z ({nz})", ""]
    lines += _name_lines(table["algebraics"], z0, "start") if nz else ["(none: the model is an "
                                                                      "ODE)"]
    lines += ["", f"### Parameters p ({np_})", "", "| index | name | default | unit | kind | "
              "description |", "|---|---|---|---|---|---|"]
    for item in table["parameters"]:
        lines.append(f"| {item['index']} | `{item['name']}` | {float(item['default'])!r} | "
                     f"{item['unit'] or ''} | {item['kind']} | {item['description'] or ''} |")
    lines += ["", f"### Observed variables y ({ny})", "",
              f"In the order of `{prefix}_observed_names` (aliases: see `{prefix}.json`):", ""]
    lines.append(", ".join(f"{k}: `{item['name']}`" for k, item in
                           enumerate(table["observed"])))
    lines += ["", "## Initial values", "",
              f"`{prefix}_x_start` and `{prefix}_z_start` are consistent initial values at "
              "t = 0 for the default parameters, from acausal's initialisation "
              "(fixed start values, initial equations, algebraic constraints). For other "
              "parameters they are a starting guess only: solve `g = 0` for `z` again, and "
              "compute consistent states in acausal (`system.simulate(..., params=...)`) "
              "where fixed start values depend on the parameters."]
    if note:
        lines += ["", f"Note: {note}."]
    if system.events:
        lines += ["", "## Events", "",
                  f"The model has {len(system.events)} When clause(s). A clause fires when "
                  f"its condition (`{prefix}_event_conditions`) changes from 0 to 1; locate "
                  f"that instant by the sign changes of `{prefix}_event_indicators`, then apply "
                  f"`{prefix}_event_update_<k>` (new states and parameters) for each firing "
                  "clause in order, solve `z` again and repeat until nothing more fires (event "
                  "iteration, see acausal's docs/events.md)."]
    if system.dynamic_selection:
        lines += ["", "## State selection", "",
                  "acausal re-selects this model's states during a simulation when the chosen "
                  "ones become a poor choice; this code is the realisation chosen at compile "
                  "time and does not switch."]
    return "\n".join(lines) + "\n"


def _name_lines(items: list[dict], values, label: str) -> list[str]:
    lines = [f"| index | name | {label} | unit | description |", "|---|---|---|---|---|"]
    for item, value in zip(items, values):
        lines.append(f"| {item['index']} | `{item['name']}` | {float(value)!r} | "
                     f"{item.get('unit') or ''} | {item.get('description') or ''} |")
    return lines


def _version() -> str:
    from ..base.version import __version__

    return __version__


def generate_c(system: CompiledModel, directory: str | os.PathLike, *, name: str | None = None,
               jacobians: bool = True, parameter_jacobian: bool = True,
               params: dict[str, float] | None = None) -> Path:
    """Write ``system``'s functions as plain C into ``directory`` (created if needed).

    ``name`` (default: the model's name as a C identifier, lower case) prefixes every
    function and file: ``<name>.c/.h`` (CasADi's code: ``<name>_ode``, ``<name>_alg``,
    ``<name>_observed``, the dense Jacobians ``<name>_jac_ode_x``, ``_ode_z``, ``_alg_x``,
    ``_alg_z`` and, with ``parameter_jacobian``, ``_ode_p``; event functions for models with
    When clauses), ``<name>_model.h/.c`` (sizes, names, defaults, initial values, one-call
    wrappers), ``<name>.json`` (the names for tools) and ``README.md`` (calling convention and
    compile command). ``params`` overrides parameter defaults (by dotted name). Returns the
    directory. Nothing is compiled here (see README.md for the command).
    """
    from ..compiler.compiled_model import CompiledModel

    if not isinstance(system, CompiledModel):
        raise InputError(f"generate_c() takes a CompiledSystem (model.compile()), got "
                         f"{type(system).__name__}.")
    try:
        directory = Path(directory)
    except TypeError:
        raise InputError(f"generate_c(): directory must be a folder path such as 'model_c', "
                         f"got {directory!r}.") from None
    blocking = file_in_the_way(directory)
    if blocking == directory:
        raise InputError(f"generate_c(): '{directory}' is a file; give a folder to write the C "
                         "code into.")
    if blocking is not None:
        raise InputError(f"generate_c(): cannot create the folder '{directory}': '{blocking}' "
                         "is a file, not a folder. Choose another folder (or move that file).")
    prefix = c_identifier(name if name is not None else system.model_name.lower())
    if name is not None and prefix != name:
        raise InputError(f"generate_c(name={name!r}): the name prefixes C functions, so it must "
                         f"be a C identifier (letters, digits, _), e.g. {prefix!r}.")
    p0 = system.parameter_vector(params)
    x0, z0, p0, note = initial_point(system, p0)
    functions = model_functions(system, prefix, jacobians=jacobians,
                                parameter_jacobian=parameter_jacobian)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"generate_c(): cannot create '{directory}' ({exc.strerror}).") from None
    write_casadi_code([ef.function for ef in functions], directory, prefix)
    guard = f"{prefix.upper()}_MODEL_H"
    (directory / f"{prefix}_model.h").write_text(_model_header(prefix, guard, system, functions))
    (directory / f"{prefix}_model.c").write_text(_model_source(prefix, system, functions, x0, z0,
                                                                p0))
    table = variable_table(system)
    for item, value in zip(table["parameters"], p0):
        item["default"] = float(value)
    table["x_start"] = [float(v) for v in x0]
    table["z_start"] = [float(v) for v in z0]
    table["functions"] = {ef.function.name(): {"inputs": ["t", "x", "z", "p"],
                                               "outputs": ef.outputs, "what": ef.summary}
                          for ef in functions}
    (directory / f"{prefix}.json").write_text(json.dumps(table, indent=1) + "\n")
    (directory / "README.md").write_text(_readme(prefix, system, functions, table, x0, z0, note))
    return directory

