"""The compiler pipeline: runs the passes in order.

    Component tree --flatten--> FlatSystem --structure check--> --alias elimination-->
    --Pantelides--> --dummy derivatives (state selection)--> --BLT/tearing, codegen-->
    CompiledModel (CasADi SX expressions of one realisation, see realize.py)

Each pass is a module of its own (flatten.py, structure/); this module only orders them, times
them and names a structural error's kinematic loop or forgotten connect (connection_check.py).
"""

from __future__ import annotations

import contextlib
import gc
import time as _time

import sympy as sp

from ..base.errors import ModelDefinitionError, StructuralError, StructurallySingularError
from ..base.progress import StageLog, progress_enabled
from ..language.model import Component
from .compiled_model import CompiledModel
from .connection_check import explain_structural_error, warn_open_connectors
from .flatten import FlatSystem, flatten
from .realize import realize
from .structure.alias import (
    alias_preference,
    compose_alias_maps,
    eliminate_aliases,
    has_alias_equations,
)
from .structure.checks import check_structure
from .structure.dummy_derivatives import StateSelector
from .structure.offsets import substitute_offset_aliases
from .structure.orientation_rule import apply_orientation_rule
from .structure.pantelides import pantelides
from .structure.system import EquationSystem, build_equation_system
from .units import check_units as check_flat_units

#: Dynamic state selection is used when priorities left the choice to numbers and the
#: differentiated constraints number at most this many (planar mechanisms, not large chains).
DYNAMIC_SELECTION_LIMIT = 120


def _start_point(system: EquationSystem) -> dict[int, float]:
    point = {}
    for v, info in enumerate(system.info):
        if info is None:
            continue
        value = info.guess if info.guess is not None else info.start
        if value is not None:
            try:
                point[v] = float(value)
            except (TypeError, ValueError):
                pass
    return point


def compile_model(model: Component, stabilization: str | None = None, alpha: float = 10.0,
                  beta: float = 10.0, progress: bool | None = False,
                  check_units: bool = True) -> CompiledModel:
    """Compile a model (a Component instance) into a :class:`CompiledModel`.

    ``stabilization=None`` (default): index reduction by Pantelides and dummy derivatives, the
    constraints hold exactly. ``stabilization="baumgarte"``: the constraint-stabilised index-1
    formulation used in the multibody literature (J. Baumgarte, 1972): every constraint ``g``
    that index reduction differentiates twice is replaced by ``g'' + 2 alpha g' + beta^2 g = 0``
    (once: ``g' + 2 alpha g = 0``) and all positions and velocities are states, so the
    constraints drift slightly; ``alpha`` and ``beta`` [1/s] set how fast the drift decays.
    ``progress=True`` prints each stage and its time to stderr (``None``: on a terminal).
    ``check_units=True`` (default): every equation must be dimensionally consistent in the
    units its variables and parameters declare (a UnitError names the first that is not; see
    :mod:`acausal.compiler.units`); ``False`` skips the check for this model.
    """
    if stabilization not in (None, "baumgarte"):
        raise ModelDefinitionError(f"stabilization={stabilization!r}: use None (index "
                                   "reduction) or 'baumgarte'.")
    if not isinstance(check_units, bool):
        raise ModelDefinitionError(f"check_units={check_units!r}: use True or False.")
    with _cyclic_gc_paused():
        return _compile(model, stabilization, alpha, beta, progress, check_units)


@contextlib.contextmanager
def _cyclic_gc_paused():
    """Pause Python's cyclic garbage collector while compiling.

    Compiling allocates hundreds of thousands of sympy and CasADi objects that all stay alive
    until the end; every full collection walks all of them, which made compile time grow faster
    than the model (it nearly doubled the compile time of a 1000-mass chain, see
    benchmarks/micro_costs.py).
    Reference counting still frees what is released; the collector runs again afterwards.

    What compiling keeps is long-lived (the compiled model holds it): it goes to the oldest
    generation at once (``gc.freeze()`` then ``gc.unfreeze()``, which moves every tracked object
    there without looking at it), where only full collections visit it. Otherwise the first
    young collection after compiling walked all of it, a tenth of a second for a 1000-mass
    chain. A program that froze objects itself (``gc.freeze()`` before forking workers) keeps
    them frozen: then nothing is moved. The passes avoid reference cycles, so that little
    garbage is moved along (tests/compiler/test_compile_memory.py).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _compile(model: Component, stabilization: str | None, alpha: float, beta: float,
             progress: bool | None, check_units: bool) -> CompiledModel:
    timings: dict[str, float] = {}
    clock = _time.perf_counter()
    log = StageLog(f"compile {type(model).__name__}", progress_enabled(progress))

    def lap(name: str) -> None:
        nonlocal clock
        now = _time.perf_counter()
        timings[name] = now - clock
        log.stage(name, now - clock)
        clock = now

    flat = flatten(model)
    lap("flatten")
    if check_units:
        check_flat_units(flat)
        lap("units")
    with _loops_named_in(flat, model):
        compiled = _compile_flat(flat, stabilization, alpha, beta, timings, lap)
    # the topology holds the model's connectors: not kept, so that a compiled system pickles
    # (sweeps, Dask) without the user's model classes
    flat.topology = None
    return compiled


@contextlib.contextmanager
def _loops_named_in(flat: FlatSystem, model: Component):
    """A structural error among the parts of a closed loop of overdetermined connectors (a
    kinematic loop) is re-raised with the loop's components and the connector's advice for a
    loop whose closing equations are dependent (a planar loop of 3-D joints); an advice given
    as a function is asked with the loop's components (it tells a planar loop from a spatial
    one). The components the error names add their ``structural_advice()``."""
    try:
        yield
    except StructuralError as err:
        # a forgotten connect explains it better than any equation: named first
        text = explain_structural_error(flat.topology, str(err)) or str(err)
        involved = [loop for loop in flat.loops
                    if any(_mentions_component(text, path) for path in loop.components)]
        # the structural_advice() of the components the error names (e.g. a free body
        # without inertia)
        advice = [f"\n{hint}" for node in model.walk() if isinstance(node, Component)
                  and node.path and _mentions_component(text, node.path)
                  for hint in [_structural_advice(node)] if hint]
        if not involved and not advice:
            if text == str(err):
                raise
            raise type(err)(text) from err
        nodes = {node.path: node for node in model.walk()} if any(
            callable(loop.hint) for loop in involved) else {}
        for loop in involved:
            hint = loop.hint(
                [nodes[c] for c in loop.components if c in nodes]) if callable(loop.hint) \
                else loop.hint
            advice.append(
                f"\nThese equations belong to the kinematic loop closed by "
                f"connect({loop.a.path}, {loop.b.path}), through "
                + ", ".join(f"'{c}'" for c in loop.components) + ". " + hint)
        raise type(err)(text + "".join(advice)) from err


def _structural_advice(node: Component) -> str:
    try:
        return str(node.structural_advice() or "")
    except Exception:  # noqa: BLE001 - advice must not hide the structural error it explains
        return ""


def _mentions_component(text: str, path: str) -> bool:
    return any(f"{before}{path}{after}" in text for before in ("'", " ", "{", "(")
               for after in (".", "'"))


def _compile_flat(flat: FlatSystem, stabilization, alpha, beta, timings, lap) -> CompiledModel:
    system = build_equation_system(flat)
    check_structure(system)
    lap("structure")
    reduced, aliases = eliminate_aliases(system)
    del system  # the unreduced system is not needed any more: free its memory for the next passes
    while has_alias_equations(reduced):  # substitution can create new ones (a = b + c, c = -b)
        reduced, second = eliminate_aliases(reduced)
        aliases = compose_alias_maps(aliases, second)
    substitute_offset_aliases(reduced, alias_preference)
    warn_open_connectors(flat, aliases)
    lap("alias")
    matching = pantelides(reduced)
    del matching
    lap("pantelides")
    if stabilization == "baumgarte":
        reduced = baumgarte_system(reduced, alpha, beta)
        compiled = realize(flat, reduced, aliases, set(), CompiledModel)
        lap("blt and codegen")
        compiled.timings = timings
        return compiled
    param_values = {p.symbol: float(p.value) for p in flat.parameters}
    selector = StateSelector(reduced, param_values)
    dummies = selector.select(_start_point(reduced))
    lap("state selection")
    dynamic = selector.decided_by_numbers and selector.level_size <= DYNAMIC_SELECTION_LIMIT
    rule = None
    if not dynamic:  # the selector's choices at run time refer to the system it selected on
        reduced, aliases, dummies, rule = apply_orientation_rule(reduced, aliases, dummies)
        lap("orientation rule")
    compiled = realize(flat, reduced, aliases, dummies, CompiledModel)
    lap("blt and codegen")
    compiled.selector = selector if rule is None or rule.skipped else None
    compiled.orientation_rule = rule
    compiled.dynamic_selection = dynamic
    compiled.timings = timings
    return compiled


def baumgarte_system(system: EquationSystem, alpha: float, beta: float) -> EquationSystem:
    """Replace each differentiated equation chain by its Baumgarte-stabilised combination."""
    out = EquationSystem(symbols=list(system.symbols), info=list(system.info),
                         var_to_diff=list(system.var_to_diff),
                         diff_to_var=list(system.diff_to_var), residuals=[], incidence=[],
                         sources=[], eq_to_diff=[], diff_to_eq=[], parameters=system.parameters)
    out.index_of = dict(system.index_of)
    for e in range(system.n_eqs):
        if system.diff_to_eq[e] != -1:
            continue  # part of a chain, combined at its root
        chain = [e]
        while system.eq_to_diff[chain[-1]] != -1:
            chain.append(system.eq_to_diff[chain[-1]])
        if len(chain) == 1:
            out.add_equation(system.residuals[e], system.sources[e], list(system.incidence[e]))
            continue
        if len(chain) == 2:
            weights = [2.0 * alpha, 1.0]
        elif len(chain) == 3:
            weights = [beta**2, 2.0 * alpha, 1.0]
        else:
            raise StructurallySingularError(
                "Baumgarte stabilisation covers constraints of index 3 at most; this one is "
                f"differentiated {len(chain) - 1} times: {system.describe_eq(e)}")
        residual = sp.Add(*[w * system.residuals[k] for w, k in zip(weights, chain)])
        incidence = sorted({v for k in chain for v in system.incidence[k]})
        out.add_equation(residual, system.sources[e], incidence)
    return out


