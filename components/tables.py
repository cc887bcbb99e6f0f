"""One-dimensional tables (after ``Modelica.Blocks.Tables`` and
``Modelica.Blocks.Sources.CombiTimeTable`` of the Modelica Standard Library (MSL) 4.0).

Two ways to use a table:

* :func:`table_value` puts a table into another component's equations: ``table_value(table, u,
  column=1)`` is a sympy expression of ``u`` (a friction coefficient against the slip speed, a
  gear efficiency against the speed). The compiler differentiates it (its derivative is the
  slope, another table function) and evaluates it in CasADi.
* The blocks :class:`CombiTable1Ds` (one input, several output columns), :class:`CombiTable1Dv`
  (input ``i`` through column ``i``) and :class:`CombiTimeTable` (a table of time, whose kinks
  and jumps are time events), with MSL's parameter names.

A table is a 2-D array (numpy array, list or tuple of rows) or the path of a CSV file (rows of
numbers separated by commas, semicolons or blanks; lines starting with ``#`` and one header line
are skipped). Column 0 is the abscissa, non-decreasing; two equal abscissae make a jump (the
value switches from the first row's to the second row's there; MSL allows this in time tables,
the 1-D blocks require a strictly increasing abscissa as MSL's ``CombiTable1D*`` do). A table
of one row is a constant (MSL: no interpolation).

Interpolation (MSL ``Modelica.Blocks.Types.Smoothness``): ``"LinearSegments"`` (linear between
the rows) or ``"ConstantSegments"`` (the value of the row at or left of ``u``). MSL's cubic
Hermite options (``ContinuousDerivative`` etc.) are not provided.

Extrapolation outside ``[u_min, u_max]`` (MSL ``Modelica.Blocks.Types.Extrapolation``):

* ``"LastTwoPoints"`` (MSL's default): the line through the first (last) two rows; a jump pair
  at the end is held constant. As in MSL's C code, also for ``ConstantSegments``.
* ``"HoldLastPoint"``: the first (last) row's value.
* ``"Periodic"``: the table repeats with period ``u_max - u_min``.
* ``"NoExtrapolation"``: outside the range the value is NaN, so a run that reaches it stops
  with a :class:`acausal.errors.SimulationError` (the integrator's failure names the variables
  that turned NaN; a model without states reports them at the output point); evaluating the
  table at a number outside the range raises a ParameterError at once.

Source: MSL 4.0 ``Modelica/Blocks/Tables.mo`` (``CombiTable1Ds``, ``CombiTable1Dv``),
``Modelica/Blocks/Sources.mo`` (``CombiTimeTable``), ``Modelica/Blocks/Types.mo``
(``Smoothness``, ``Extrapolation``) and ``Modelica/Resources/C-Sources/ModelicaStandardTables.c``
(interpolation and extrapolation rules).
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from typing import Any, ClassVar

import casadi as ca
import numpy as np
import sympy as sp

from acausal import (
    Component,
    Discrete,
    Eq,
    Parameter,
    When,
    assign,
    initial,
    register_function,
    time,
)
from acausal.errors import ParameterError

from .blocks import RealInput, RealOutput

#: MSL ``Modelica.Blocks.Types.Extrapolation`` names.
EXTRAPOLATIONS = ("HoldLastPoint", "LastTwoPoints", "Periodic", "NoExtrapolation")
#: MSL ``Modelica.Blocks.Types.Smoothness`` names provided here.
SMOOTHNESS = ("LinearSegments", "ConstantSegments")


# -- reading and checking a table ----------------------------------------------------------------


def _read_csv(path: str | os.PathLike, where: str) -> np.ndarray:
    """Rows of numbers from a text file: separated by commas, semicolons or blanks; blank lines
    and lines starting with ``#`` skipped, and a first line that is not numbers (a header)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise ParameterError(f"{where}: cannot read the table file {str(path)!r} "
                             f"({exc.strerror or exc}). Give an existing CSV file or an "
                             "array.") from None
    rows: list[list[float]] = []
    header_seen = False
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        sep = "," if "," in text else (";" if ";" in text else None)
        fields = [f.strip() for f in text.split(sep)]
        try:
            rows.append([float(f) for f in fields])
        except ValueError:
            if rows or header_seen:
                raise ParameterError(f"{where}: line {number} of {str(path)!r} is not a row of "
                                     f"numbers: {text[:80]!r}. Only one header line is "
                                     "allowed, before the data.") from None
            header_seen = True
            continue
        if len(rows[-1]) != len(rows[0]):
            raise ParameterError(f"{where}: line {number} of {str(path)!r} has "
                                 f"{len(rows[-1])} numbers, the first row {len(rows[0])}: every "
                                 "row needs the same number of columns.")
    if not rows:
        raise ParameterError(f"{where}: the table file {str(path)!r} holds no rows of numbers.")
    return np.array(rows, dtype=float)


def load_table(table: Any, where: str = "table", strict: bool = False) -> np.ndarray:
    """The table as a float array of shape (rows, columns), checked.

    ``table``: a 2-D array-like or the path of a CSV file (see the module docstring). Raises a
    ParameterError (prefixed with ``where``) when it is not 2-D, has no row or fewer than 2
    columns, holds a value that is not a finite number, or its abscissa (column 0) decreases,
    repeats a value three times, or (``strict``) repeats a value at all.
    """
    if table is None:
        raise ParameterError(f"{where}: no table given. Give a 2-D array (first column the "
                             "abscissa) or the path of a CSV file.")
    if isinstance(table, (str, os.PathLike)):
        data = _read_csv(table, where)
    else:
        try:
            data = np.array(table, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(f"{where}: the table must be a 2-D array of numbers (rows of "
                                 "equal length) or the path of a CSV file.") from None
    if data.ndim != 2:
        raise ParameterError(f"{where}: the table must be 2-D (rows of abscissa and ordinates), "
                             f"got an array of shape {data.shape}; a single row is written "
                             "[[u, y]].")
    if data.shape[0] < 1 or data.shape[1] < 2:
        raise ParameterError(f"{where}: the table has shape {data.shape}; it needs at least one "
                             "row and 2 columns (the abscissa and an ordinate).")
    if not np.all(np.isfinite(data)):
        r, c = np.argwhere(~np.isfinite(data))[0]
        raise ParameterError(f"{where}: table[{r}, {c}] is {data[r, c]}: every entry must be a "
                             "finite number.")
    x = data[:, 0]
    for i in range(len(x) - 1):
        if x[i + 1] < x[i]:
            raise ParameterError(f"{where}: the abscissa (column 0) must be increasing, but "
                                 f"table[{i + 1}, 0] = {x[i + 1]} < table[{i}, 0] = {x[i]}.")
        if x[i + 1] == x[i]:
            if strict:
                raise ParameterError(f"{where}: the abscissa (column 0) must be strictly "
                                     f"increasing, but table[{i}, 0] = table[{i + 1}, 0] = "
                                     f"{x[i]} (a jump is allowed in time tables only).")
            if i + 2 < len(x) and x[i + 2] == x[i]:
                raise ParameterError(f"{where}: the abscissa value {x[i]} occurs three times "
                                     f"(rows {i} to {i + 2}); a jump is two rows with the same "
                                     "abscissa.")
    return data


def table_rows(table: Any, where: str = "table", strict: bool = False) -> tuple:
    """The table checked by :func:`load_table` (an array or a CSV path) as rows of floats: the
    value a structural table parameter with a numeric default accepts (it refuses a path)."""
    return tuple(tuple(float(v) for v in row) for row in load_table(table, where, strict))


class TableParameters:
    """Mixin of components whose structural parameters ``table_parameters`` are tables: each
    may be given as a 2-D array-like or the path of a CSV file. A path is read and checked when
    the component is created (:func:`table_rows`; an error names the class, the parameter and
    the file); an array is checked with the component's other parameters when the model is
    compiled (an error names the component's path)."""

    table_parameters: tuple[str, ...] = ()

    def __init__(self, **overrides):
        for name in self.table_parameters:
            value = overrides.get(name)
            if isinstance(value, (str, os.PathLike)):
                overrides[name] = table_rows(value, f"{type(self).__name__}: {name}")
        super().__init__(**overrides)


def check_option(value: Any, options: tuple[str, ...], what: str, where: str) -> str:
    """``value`` as one of ``options`` (MSL's enumeration literal, also written with its type
    prefix, e.g. ``"Modelica.Blocks.Types.Extrapolation.HoldLastPoint"``)."""
    name = value.rsplit(".", 1)[-1] if isinstance(value, str) else value
    if name not in options:
        raise ParameterError(f"{where}: {what} must be one of {', '.join(options)}; got "
                             f"{value!r}.")
    return name


# -- the piecewise description -------------------------------------------------------------------


@dataclass(frozen=True)
class Pieces:
    """A table column as pieces: knots ``X_0 < ... < X_{K-1}`` (the distinct abscissae),
    segment ``k`` on ``[X_k, X_{k+1})`` is ``starts[k] + slopes[k]*(u - X_k)``; ``left`` and
    ``right`` are ``(value at the end, slope)`` of the extrapolation; ``bounded``: NaN outside
    ``[X_0, X_{K-1}]`` (NoExtrapolation); ``periodic``: the segments repeat."""

    knots: tuple[float, ...]
    starts: tuple[float, ...]
    slopes: tuple[float, ...]
    left: tuple[float, float]
    right: tuple[float, float]
    bounded: bool = False
    periodic: bool = False

    def value(self, u: Any, slope: bool = False) -> np.ndarray:
        """The table (or its slope) at the numbers ``u``."""
        u = np.asarray(u, dtype=float)
        x = self.knots
        if self.periodic:
            u = x[0] + np.mod(u - x[0], x[-1] - x[0])
        k = np.searchsorted(np.asarray(x), u, side="right") - 1
        if self.periodic:  # rounding of the wrapped u: stay on the first or last segment
            k = np.clip(k, 0, len(x) - 2)
        out = np.empty(u.shape)
        for i in np.ndindex(u.shape):
            ui, ki = float(u[i]), int(k[i])
            if 0 <= ki < len(x) - 1:
                base, rate, at = self.starts[ki], self.slopes[ki], x[ki]
            elif ki < 0:
                (base, rate), at = self.left, x[0]
            else:
                (base, rate), at = self.right, x[-1]
            if self.bounded and not x[0] <= ui <= x[-1]:
                out[i] = math.nan
            else:
                out[i] = rate if slope else base + rate * (ui - at)
        return out

    def casadi(self, u: Any, slope: bool = False) -> Any:
        """The table (or its slope) as a CasADi expression of ``u``: a chain of ``if_else``
        that selects one segment, so the value at a knot is the row's value exactly."""
        x = self.knots
        n_seg = len(x) - 1

        def piece(base: float, rate: float, at: float) -> Any:
            return rate if slope else base + rate * (u - at)

        if self.periodic:
            span = x[-1] - x[0]
            u = x[0] + (u - x[0]) - span * ca.floor((u - x[0]) / span)
            out = piece(self.starts[-1], self.slopes[-1], x[-2])
            for k in range(n_seg - 2, -1, -1):
                out = ca.if_else(u < x[k + 1], piece(self.starts[k], self.slopes[k], x[k]), out)
            return out
        out = piece(*self.right, x[-1])
        for k in range(n_seg - 1, -1, -1):
            out = ca.if_else(u < x[k + 1], piece(self.starts[k], self.slopes[k], x[k]), out)
        out = ca.if_else(u < x[0], piece(*self.left, x[0]), out)
        if self.bounded:
            out = ca.if_else(ca.logic_or(u < x[0], u > x[-1]), math.nan, out)
        return out


def pieces_of(data: np.ndarray, column: int, extrapolation: str, smoothness: str,
              where: str = "table") -> Pieces:
    """The :class:`Pieces` of ``data[:, column]`` (a table checked by :func:`load_table`, at
    least two rows) under MSL's interpolation and extrapolation rules."""
    x, y = data[:, 0], data[:, column]
    knots, first, last = [], [], []  # distinct abscissae, first and last row of each
    for i, xi in enumerate(x):
        if knots and xi == knots[-1]:
            last[-1] = i
        else:
            knots.append(float(xi))
            first.append(i)
            last.append(i)
    constant = smoothness == "ConstantSegments"
    starts, slopes = [], []
    for k in range(len(knots) - 1):
        starts.append(float(y[last[k]]))
        slopes.append(0.0 if constant else
                      float((y[first[k + 1]] - y[last[k]]) / (knots[k + 1] - knots[k])))
    if extrapolation == "Periodic" and len(knots) < 2:
        raise ParameterError(f"{where}: a periodic table needs two different abscissae (its "
                             "period is u_max - u_min = 0).")

    def outer(i0: int, i1: int) -> float:  # slope through two end rows (0 across a jump)
        return 0.0 if x[i1] == x[i0] else float((y[i1] - y[i0]) / (x[i1] - x[i0]))

    n = len(x)
    if extrapolation == "HoldLastPoint":
        left, right = (float(y[0]), 0.0), (float(y[-1]), 0.0)
    elif extrapolation == "NoExtrapolation":  # only the end values count (NaN beyond)
        left = (float(y[0]), slopes[0] if slopes else 0.0)
        right = (float(y[-1]), slopes[-1] if slopes and x[-2] < x[-1] else 0.0)
    else:  # LastTwoPoints, also for ConstantSegments (MSL's C code); Periodic: unused
        left, right = (float(y[0]), outer(0, 1)), (float(y[-1]), outer(n - 2, n - 1))
    return Pieces(tuple(knots), tuple(starts), tuple(slopes), left, right,
                  bounded=extrapolation == "NoExtrapolation",
                  periodic=extrapolation == "Periodic")


# -- the sympy functions -------------------------------------------------------------------------


class TableFunction(sp.Function):
    """Base of the table functions made by :func:`table_value`: one subclass per table column,
    extrapolation and smoothness (``table_<digest>``), and one for its slope
    (``table_<digest>_slope``), each registered with its CasADi implementation.

    The derivative of a table is its slope function; the slope's derivative is zero (a
    piecewise-linear table; jumps contribute no Dirac impulse, as ``DiracDelta`` is zero in
    acausal's code generation). A number argument evaluates to a Float.
    """

    nargs = 1
    _pieces: ClassVar[Pieces]
    _source: ClassVar[tuple]  # what rebuilds the class in another process (pickling)
    _is_slope: ClassVar[bool] = False
    _slope_class: ClassVar[Any] = None

    @classmethod
    def eval(cls, u):
        if u.is_Number:
            return sp.Float(float(cls._pieces.value(float(u), slope=cls._is_slope)))
        return None

    def fdiff(self, argindex=1):
        if self._is_slope:
            return sp.S.Zero
        return type(self)._slope_class(self.args[0])

    def _eval_evalf(self, prec):
        u = self.args[0].evalf(prec)
        if u.is_Number:
            return sp.Float(float(self._pieces.value(float(u), slope=self._is_slope)), prec)
        return None

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._source, self._is_slope, self.args))

    def __reduce__(self):
        return self.__reduce_ex__(2)


#: table function classes by their source (table column, extrapolation, smoothness)
_CLASSES: dict[tuple, tuple[type, type]] = {}


def _function_classes(x: tuple, y: tuple, extrapolation: str, smoothness: str,
                      pieces: Pieces) -> tuple[type, type]:
    """The (value, slope) function classes of one table column, made and registered once."""
    source = (x, y, extrapolation, smoothness)
    found = _CLASSES.get(source)
    if found is not None:
        return found
    digest = hashlib.sha1(repr(source).encode()).hexdigest()[:10]
    common = {"_pieces": pieces, "_source": source, "__module__": __name__}
    slope_cls = type(f"table_{digest}_slope", (TableFunction,), {**common, "_is_slope": True})
    value_cls = type(f"table_{digest}", (TableFunction,),
                     {**common, "_is_slope": False, "_slope_class": slope_cls})
    register_function(value_cls, lambda u: pieces.casadi(u))
    register_function(slope_cls, lambda u: pieces.casadi(u, slope=True))
    _CLASSES[source] = (value_cls, slope_cls)
    return value_cls, slope_cls


def _rebuild(source: tuple, is_slope: bool, args: tuple) -> sp.Expr:
    """Unpickle a table function (in another process the class is made again)."""
    x, y, extrapolation, smoothness = source
    data = np.column_stack([np.array(x, dtype=float), np.array(y, dtype=float)])
    pieces = pieces_of(data, 1, extrapolation, smoothness)
    value_cls, slope_cls = _function_classes(x, y, extrapolation, smoothness, pieces)
    return (slope_cls if is_slope else value_cls)(*args)


def table_value(table: Any, u: Any, column: int = 1, extrapolation: str = "LastTwoPoints",
                smoothness: str = "LinearSegments", *, where: str = "table_value") -> sp.Expr:
    """The table's column ``column`` interpolated at ``u``: a sympy expression of ``u``.

    ``table``: a 2-D array-like or the path of a CSV file, column 0 the abscissa (see the module
    docstring); ``column``: the 0-based column of the ordinate (MSL's ``columns={2}`` is
    ``column=1``); ``extrapolation``: ``"LastTwoPoints"``, ``"HoldLastPoint"``,
    ``"Periodic"`` or ``"NoExtrapolation"``; ``smoothness``: ``"LinearSegments"`` or
    ``"ConstantSegments"``; ``where`` prefixes error messages (e.g. ``"Clutch 'clutch':
    mu_pos"``).

    Returns a Float for a table of one row or a number ``u``, otherwise a table function of
    ``u`` whose derivative is the table's slope (see :class:`TableFunction`). Bad tables and
    options raise a :class:`acausal.errors.ParameterError`.
    """
    data = load_table(table, where)
    extrapolation = check_option(extrapolation, EXTRAPOLATIONS, "extrapolation", where)
    smoothness = check_option(smoothness, SMOOTHNESS, "smoothness", where)
    if isinstance(column, bool) or not isinstance(column, (int, np.integer)) or \
            not 0 <= column < data.shape[1]:
        raise ParameterError(f"{where}: column {column!r} is out of range for a table of "
                             f"{data.shape[1]} columns; give 0 to {data.shape[1] - 1} (0 is "
                             "the abscissa, 1 the first ordinate: MSL's columns={2}).")
    if data.shape[0] == 1:
        return sp.Float(float(data[0, column]))
    pieces = pieces_of(data, int(column), extrapolation, smoothness, where)
    u = sp.sympify(u)
    if u.is_Number:
        value = float(pieces.value(float(u)))
        if math.isnan(value):
            raise ParameterError(f"{where}: u = {float(u)} lies outside the table's range "
                                 f"[{pieces.knots[0]}, {pieces.knots[-1]}] and extrapolation "
                                 "is NoExtrapolation.")
        return sp.Float(value)
    x = tuple(float(v) for v in data[:, 0])
    y = tuple(float(v) for v in data[:, column])
    value_cls, _ = _function_classes(x, y, extrapolation, smoothness, pieces)
    return value_cls(u)


# -- the blocks ----------------------------------------------------------------------------------


class _Table(Component):
    """Shared declarations and checks of the table blocks."""

    table = Parameter(None, structural=True, description="table matrix: abscissa in the first "
                      "column, ordinates in the others; or the path of a CSV file")
    columns = Parameter(None, structural=True, description="columns to interpolate, numbered as "
                        "in MSL (2 = the first ordinate column); default all ordinate columns")
    smoothness = Parameter("LinearSegments", description="'LinearSegments' or "
                           "'ConstantSegments'")
    extrapolation = Parameter("LastTwoPoints", description="'LastTwoPoints', 'HoldLastPoint', "
                              "'Periodic' or 'NoExtrapolation'")
    verboseRead = Parameter(True, description="accepted for MSL compatibility, no effect")
    verboseExtrapolation = Parameter(False, description="accepted for MSL compatibility, "
                                     "no effect")

    _strict = True  # MSL's 1-D tables need a strictly increasing abscissa
    #: options a subclass fixes (it removes their declarations): name -> value
    _fixed: ClassVar[dict] = {}

    def _setup(self, overrides: dict) -> None:
        decl = self._class_declarations()
        values = {k: overrides.get(k, decl[k].default) if k in decl else self._fixed[k]
                  for k in ("table", "columns", "smoothness", "extrapolation")}
        where = f"{type(self).__name__}"
        self._data = load_table(values["table"], where, strict=self._strict)
        self._extrapolation = check_option(values["extrapolation"], EXTRAPOLATIONS,
                                           "extrapolation", where)
        self._smoothness = check_option(values["smoothness"], SMOOTHNESS, "smoothness", where)
        n_col = self._data.shape[1]
        columns = values["columns"]
        if columns is None:
            columns = list(range(2, n_col + 1))
        elif isinstance(columns, (int, np.integer)) and not isinstance(columns, bool):
            columns = [int(columns)]
        columns = list(columns)
        for c in columns:
            if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or \
                    not 1 <= c <= n_col:
                raise ParameterError(f"{where}: columns {columns} holds {c!r}, out of range for "
                                     f"a table of {n_col} columns: give 2 to {n_col} (MSL "
                                     "numbering, 1 is the abscissa).")
        if not columns:
            raise ParameterError(f"{where}: columns is empty; give at least one column.")
        self._columns = [int(c) for c in columns]

    def _value(self, u: Any, k: int) -> sp.Expr:
        """Output ``k``'s table expression at ``u``."""
        return table_value(self._data, u, self._columns[k] - 1, self._extrapolation,
                           self._smoothness, where=type(self).__name__)

    @property
    def nout(self) -> int:
        """Number of outputs (MSL ``nout``)."""
        return len(self._columns)

    @property
    def u_min(self) -> float:
        """Smallest abscissa of the table (MSL ``u_min``)."""
        return float(self._data[0, 0])

    @property
    def u_max(self) -> float:
        """Largest abscissa of the table (MSL ``u_max``)."""
        return float(self._data[-1, 0])


class CombiTable1Ds(_Table):
    """Table look-up in one dimension with one input and ``nout`` outputs (MSL
    ``Blocks.Tables.CombiTable1Ds``).

    Equations: ``y[i] = table_value(table, u, column=columns[i] - 1, extrapolation,
    smoothness)`` for each of the ``columns`` (MSL numbering: ``columns=[2, 4]`` gives two
    outputs, from the table's second and fourth columns; default all ordinate columns). The
    abscissa must be strictly increasing. ``y`` is a list of RealOutputs (MSL ``y[1]`` is
    ``y[0]`` here); :attr:`u_min`, :attr:`u_max` are the table's range. No events: like MSL's
    table, the value is evaluated as written. ``tableOnFile``/``tableName``/``fileName`` of MSL
    are replaced by giving ``table`` as a CSV path; ``verboseRead``, ``verboseExtrapolation``
    are accepted and have no effect.

    Source: MSL 4.0 ``Modelica/Blocks/Tables.mo`` (block ``CombiTable1Ds``).
    """

    u = RealInput()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup(overrides)
        self.y = [RealOutput() for _ in self._columns]

    def equations(self):
        return [Eq(self.y[k].u, self._value(self.u.u, k)) for k in range(self.nout)]


class CombiTable1Dv(_Table):
    """Table look-up in one dimension with ``n`` inputs and ``n`` outputs: output ``i``
    interpolates input ``i`` in column ``columns[i]`` (MSL ``Blocks.Tables.CombiTable1Dv``).

    Equations: ``y[i] = table_value(table, u[i], column=columns[i] - 1, extrapolation,
    smoothness)``. ``u`` and ``y`` are lists of ``n = len(columns)`` signal connectors (MSL
    numbering of ``columns``; default all ordinate columns). Otherwise as
    :class:`CombiTable1Ds`.

    Source: MSL 4.0 ``Modelica/Blocks/Tables.mo`` (block ``CombiTable1Dv``).
    """

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup(overrides)
        self.u = [RealInput() for _ in self._columns]
        self.y = [RealOutput() for _ in self._columns]

    def equations(self):
        return [Eq(self.y[k].u, self._value(self.u[k].u, k)) for k in range(self.nout)]


def reached(t_switch: Any) -> sp.Basic:
    """``time >= t_switch`` written as ``time - t_switch >= 0``, for event conditions.

    Why: the compiler monitors the indicator ``lhs - rhs`` (which sympy re-orders) and
    evaluates the condition as written; for a sum ``t_switch`` the two round differently, so at
    the located root the condition can still be false, and the event is then lost (core issue,
    reproduced in the report of the tables work). With a zero right-hand side the indicator is
    the condition's own left-hand side, evaluated by the same expression.
    """
    return sp.GreaterThan(time - t_switch, 0, evaluate=False)


def before(t_switch: Any) -> sp.Basic:
    """``time < t_switch`` as ``time - t_switch < 0`` (see :func:`reached`)."""
    return sp.StrictLessThan(time - t_switch, 0, evaluate=False)


def _lt(a: Any, b: Any) -> sp.Basic:
    """``a < b`` without sympy's evaluation (no assumption queries: tables have many)."""
    return sp.StrictLessThan(a, b, evaluate=False)


def _line(base: float, rate: float, u: Any, at: float) -> sp.Expr:
    """``base + rate*(u - at)``, built without sympy's canonicalisation (a table has many)."""
    if rate == 0:
        return sp.Float(base)
    return sp.Add(sp.Float(base), sp.Mul(sp.Float(rate), sp.Add(u, sp.Float(-at),
                                                                  evaluate=False),
                                         evaluate=False), evaluate=False)


def _lookup(index: Any, values: list, default: Any) -> sp.Expr:
    """``values[index]`` for a Discrete ``index`` (0, 1, ...), ``default`` beyond."""
    branches = [(v, _lt(index, k + 0.5)) for k, v in enumerate(values)]
    return sp.Piecewise(*branches, (default, True), evaluate=False)


class CombiTimeTable(_Table):
    """Table look-up with respect to time (MSL ``Blocks.Sources.CombiTimeTable``).

    Equations (``tau = (time - shiftTime)/timeScale``, the table's abscissa is time)::

        y[i] = offset[i]                                        time < startTime
        y[i] = offset[i] + table_value(table, tau, columns[i] - 1, extrapolation, smoothness)
                                                                 time >= startTime

    Events: the start time and every distinct time ``t_k`` of the table (at ``time =
    shiftTime + timeScale*t_k``; for a periodic table in every period) are time events, as with
    MSL's default ``timeEvents = Always``: the integrator stops there and never steps across a
    kink or a jump. Between events each output is one linear (or constant) piece of time,
    selected by the Discrete ``seg``, the number of distinct table times passed (MSL's event
    interval), not by comparing time: at a jump (two rows with the same time) the value is the
    first row's limit before the event and the second row's from the event on, also at the
    event instant. ``seg`` is set at the start time by ``When(initial(), ...)`` and again by
    ``When(time >= shiftTime + timeScale*t_seg, ...)`` to the number of table times reached:
    one event condition whatever the table's length. The Discrete ``on`` is 1 from
    ``startTime``. Event conditions are written ``time - t >= 0`` (see :func:`reached`).

    Parameters: ``table`` (rows of time and values, or a CSV path; time non-decreasing, at most
    two equal times), ``columns`` (MSL numbering, default all), ``smoothness``,
    ``extrapolation`` (structural), ``timeScale`` [s] (> 0: the table's time unit in seconds),
    ``offset`` (one value or one per output), ``startTime`` [s] (output = offset before),
    ``shiftTime`` [s] (the table's time 0 is at ``shiftTime``; default the ``startTime`` given
    when the block is created). All four may change at run time (``params=``).
    ``y`` is a list of RealOutputs. ``t_minScaled``, ``t_maxScaled`` (properties) are the first
    and last time of the table. MSL's ``timeEvents`` choice is not provided (always events),
    nor its cubic Hermite smoothness options. A periodic table also counts its completed
    periods in the Discrete ``count`` (``seg`` then counts the times passed in the period).

    Source: MSL 4.0 ``Modelica/Blocks/Sources.mo`` (block ``CombiTimeTable``) and
    ``ModelicaStandardTables.c`` (event intervals, extrapolation).
    """

    _strict = False
    timeScale = Parameter(1.0, min=0.0, min_exclusive=True, unit="s",
                          description="time scale of the first table column (> 0)")
    offset = Parameter((0.0,), unit="1", description="offsets of the output signals (one value "
                       "or one per output)")
    startTime = Parameter(0.0, unit="s", description="output = offset for time < startTime")
    shiftTime = Parameter(0.0, unit="s", description="shift time of the first table column "
                          "(default startTime)")
    seg = Discrete(start=0.0, description="number of distinct table times passed (in the "
                   "current period for a periodic table)")
    on = Discrete(start=0.0, description="1 from startTime on, else 0")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if "shiftTime" not in overrides and "startTime" in overrides:
            self._overrides["shiftTime"] = overrides["startTime"]  # MSL: shiftTime=startTime
        self._setup(overrides)
        offset = overrides.get("offset", (0.0,))
        n_off = 1 if np.ndim(offset) == 0 else len(offset)
        if n_off not in (1, self.nout):
            raise ParameterError(f"CombiTimeTable: offset has {n_off} values for {self.nout} "
                                 "outputs; give one value or one per output.")
        self._knots = sorted({float(v) for v in self._data[:, 0]})
        rows = self._data.shape[0]
        self._periodic = self._extrapolation == "Periodic" and rows > 1
        if self._periodic and len(self._knots) < 2:
            raise ParameterError("CombiTimeTable: a periodic table needs two different times "
                                 "(its period is t_max - t_min = 0).")
        if self._periodic:
            self.count = Discrete(start=0.0, description="number of completed periods")
        self.y = [RealOutput() for _ in self._columns]

    @property
    def t_minScaled(self) -> float:  # noqa: N802 - MSL's name
        """First time of the table (in the table's time unit, MSL ``t_minScaled``)."""
        return self._knots[0]

    @property
    def t_maxScaled(self) -> float:  # noqa: N802 - MSL's name
        """Last time of the table (MSL ``t_maxScaled``)."""
        return self._knots[-1]

    def _offset(self, k: int) -> Any:
        off = self.offset
        if isinstance(off, sp.MatrixBase):
            return off[k] if len(off) > 1 else off[0]
        return off

    def _period(self) -> float:
        return self._knots[-1] - self._knots[0]

    def _tau(self) -> Any:
        """The table's time: ``(time - shiftTime)/timeScale``, minus the completed periods."""
        tau = (time - self.shiftTime) / self.timeScale
        return tau - self.count * self._period() if self._periodic else tau

    def _piece(self, pieces: Pieces, tau: Any) -> sp.Expr:
        """The column's value on the piece selected by ``seg`` (k times passed: piece k - 1)."""
        x, n_seg = pieces.knots, len(pieces.knots) - 1
        values = []
        if not self._periodic:  # before the first time: the left extrapolation
            values.append(sp.nan if pieces.bounded else _line(*pieces.left, tau, x[0]))
        values += [_line(pieces.starts[k], pieces.slopes[k], tau, x[k]) for k in range(n_seg)]
        if self._periodic:  # seg is 1 .. K-1 (0 only before the start: the first piece)
            return _lookup(self.seg - 1, values[:-1], values[-1])
        base, rate = pieces.right  # after the last time: the right extrapolation
        beyond = _line(base, rate, tau, x[-1])
        if pieces.bounded:  # NoExtrapolation: the last value at t_max, NaN after it
            beyond = sp.Piecewise((sp.nan, _lt(x[-1], tau)), (base, True), evaluate=False)
        return _lookup(self.seg, values, beyond)

    def equations(self):
        tau = self._tau()
        eqs = []
        for k, column in enumerate(self._columns):
            if self._data.shape[0] == 1:
                value = sp.Float(float(self._data[0, column - 1]))
            else:
                value = self._piece(pieces_of(self._data, column - 1, self._extrapolation,
                                              self._smoothness, "CombiTimeTable"), tau)
            value = sp.Piecewise((value, _lt(0.5, self.on)), (0, True), evaluate=False)
            eqs.append(Eq(self._outputs()[k].u, self._offset(k) + value))
        return eqs

    def _outputs(self) -> list:
        """The output connectors, one per column."""
        return self.y

    def events(self):
        on = [When(initial(), assign(self.on, sp.Piecewise((1, reached(self.startTime)),
                                                            (0, True)))),
              When(reached(self.startTime), assign(self.on, 1))]
        if self._data.shape[0] == 1:
            return on
        x, shift, scale = self._knots, self.shiftTime, self.timeScale

        def passed(times: list) -> sp.Expr:  # how many of the times are reached, evaluated
            return sp.Add(*[sp.Piecewise((1, reached(t)), (0, True), evaluate=False)  # as the
                            for t in times])  # event conditions are (no rounding mismatch)

        if not self._periodic:
            at = [shift + scale * xk for xk in x]
            next_time = shift + scale * _lookup(self.seg, x, x[-1])
            return [*on, When(initial(), assign(self.seg, passed(at))),
                    When(reached(next_time), assign(self.seg, passed(at)))]
        period, count, seg = self._period(), self.count, self.seg
        whole = sp.floor(((time - shift) / scale - x[0]) / period)
        # the count the period-end condition agrees with, also at a period's end
        ahead = reached(shift + scale * (x[0] + (whole + 1) * period))

        def passed_in(c: Any) -> sp.Expr:  # table times reached in period c
            return passed([shift + scale * (xk + c * period) for xk in x[:-1]])

        # seg = K - 1: the next time is the period's end, the next period's first time
        next_time = shift + scale * (_lookup(seg, x[:-1], x[-1]) + count * period)
        wrap = _lt(len(x) - 1.5, seg)
        return [*on, When(initial(),
                          assign(count, sp.Piecewise((whole + 1, ahead), (whole, True),
                                                     evaluate=False)),
                          assign(seg, sp.Piecewise((passed_in(whole + 1), ahead),
                                                   (passed_in(whole), True), evaluate=False))),
                When(reached(next_time),
                     assign(seg, sp.Piecewise((1, wrap), (seg + 1, True), evaluate=False)),
                     assign(count, sp.Piecewise((count + 1, wrap), (count, True),
                                                evaluate=False)))]
