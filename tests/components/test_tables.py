"""1-D tables (``acausal.components.tables``) against closed-form values: interpolation and each
MSL extrapolation mode at chosen points (through the sympy evaluation and through the generated
CasADi code), the slope as the derivative, tables from CSV files and numpy arrays, the blocks
CombiTable1Ds/CombiTable1Dv, a time table integrated by an ODE against the exact integral of
its piecewise-linear function (with its jumps and kinks as time events), and the errors for
bad tables."""

from __future__ import annotations

import math
import pickle

import casadi as ca
import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Variable, compile, connect, der, time
from acausal.compiler.codegen import translate
from acausal.components.blocks import Ramp
from acausal.components.tables import (
    CombiTable1Ds,
    CombiTable1Dv,
    CombiTimeTable,
    load_table,
    table_value,
)
from acausal.errors import ParameterError, SimulationError
from acausal.run.ensemble import deserialize_system, serialize_system

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
#: MSL's documentation example of CombiTable1Ds: y = u^2 sampled at 0, 1, 2, 4
SQUARES = [[0.0, 0.0], [1.0, 1.0], [2.0, 4.0], [4.0, 16.0]]
U = sp.Symbol("u", real=True)


def through_casadi(expr: sp.Expr, points) -> np.ndarray:
    """``expr`` (a function of U) evaluated by the generated CasADi code."""
    u = ca.SX.sym("u")
    f = ca.Function("f", [u], translate([expr], {U: u}))
    return np.array([float(f(p)) for p in points])


def test_msl_documentation_example_and_extrapolation_modes():
    """MSL's example (u = 1 -> 1, 1.5 -> 2.5, 2 -> 4, -1 -> -1 by extrapolation) and each mode
    at points left of, inside and right of [0, 4]; sympy and CasADi must agree."""
    points = [-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 9.0]
    expected = {
        # the first segment's line (slope 1) left, the last segment's (slope 6) right
        "LastTwoPoints": [-1.0, 0.0, 0.5, 1.0, 2.5, 4.0, 10.0, 16.0, 22.0, 46.0],
        "HoldLastPoint": [0.0, 0.0, 0.5, 1.0, 2.5, 4.0, 10.0, 16.0, 16.0, 16.0],
        # period 4: -1 -> 3, 5 -> 1, 9 -> 1
        "Periodic": [10.0, 0.0, 0.5, 1.0, 2.5, 4.0, 10.0, 0.0, 1.0, 1.0],
        "NoExtrapolation": [math.nan, 0.0, 0.5, 1.0, 2.5, 4.0, 10.0, 16.0, math.nan, math.nan],
    }
    for mode, values in expected.items():
        expr = table_value(SQUARES, U, extrapolation=mode)
        np.testing.assert_allclose(through_casadi(expr, points), values, rtol=0, atol=1e-14,
                                   err_msg=mode)
        for p, v in zip(points, values):
            if math.isnan(v):
                with pytest.raises(ParameterError, match="NoExtrapolation"):
                    table_value(SQUARES, p, extrapolation=mode)
            else:
                assert float(table_value(SQUARES, p, extrapolation=mode)) == \
                    pytest.approx(v, abs=1e-14)
                assert float(expr.subs(U, p)) == pytest.approx(v, abs=1e-14)


def test_constant_segments_and_a_jump():
    """ConstantSegments: the row at or left of u; outside, MSL's C code extrapolates through the
    end rows even then (LastTwoPoints). A repeated abscissa is a jump to the second row."""
    expr = table_value(SQUARES, U, smoothness="ConstantSegments")
    points = [-1.0, 0.0, 0.99, 1.0, 1.5, 3.99, 4.0, 5.0]
    np.testing.assert_allclose(through_casadi(expr, points),
                               [-1.0, 0.0, 0.0, 1.0, 1.0, 4.0, 16.0, 22.0], atol=1e-14)
    held = table_value(SQUARES, U, smoothness="ConstantSegments", extrapolation="HoldLastPoint")
    np.testing.assert_allclose(through_casadi(held, [-1.0, 5.0]), [0.0, 16.0], atol=1e-14)
    jump = [[0.0, 0.0], [1.0, 1.0], [1.0, 3.0], [2.0, 0.0]]
    np.testing.assert_allclose(through_casadi(table_value(jump, U), [0.5, 0.999, 1.0, 1.5, 3.0]),
                               [0.5, 0.999, 3.0, 1.5, -3.0], atol=1e-14)


def test_single_row_is_a_constant_and_column_choice():
    assert table_value([[2.0, 7.0]], U) == 7.0
    three = [[0.0, 1.0, 10.0], [2.0, 3.0, 30.0]]
    np.testing.assert_allclose(through_casadi(table_value(three, U, column=2), [1.0, 3.0]),
                               [20.0, 40.0], atol=1e-13)
    np.testing.assert_allclose(through_casadi(table_value(three, U, column=0), [1.5]), [1.5])


def test_slope_is_the_derivative():
    """d/du of the table is its slope (1, 3, 6 on the segments of SQUARES; the extrapolation's
    slope outside); the slope's own derivative is 0."""
    for mode, slopes in (("LastTwoPoints", [1.0, 1.0, 3.0, 6.0, 6.0]),
                         ("HoldLastPoint", [0.0, 1.0, 3.0, 6.0, 0.0]),
                         ("Periodic", [6.0, 1.0, 3.0, 6.0, 1.0])):
        expr = table_value(SQUARES, U, extrapolation=mode)
        d = sp.diff(expr, U)
        assert sp.diff(d, U) == 0
        np.testing.assert_allclose(through_casadi(d, [-0.5, 0.5, 1.5, 3.0, 4.5]), slopes,
                                   atol=1e-14, err_msg=mode)
    # chain rule through an argument expression
    assert sp.diff(table_value(SQUARES, 2 * U), U).subs(U, 0.75) == pytest.approx(6.0)


class TableOfTime(Component):
    """x = table(time) with der(x) = v: index reduction differentiates the table, so v is its
    slope; z' = -table2(z) is a nonlinear ODE through a table (the Jacobian uses the slope)."""

    x = Variable()
    v = Variable()
    z = Variable(start=5.0, fixed=True)

    def equations(self):
        return [Eq(self.x, table_value(SQUARES, time)), Eq(der(self.x), self.v),
                Eq(der(self.z), -table_value([[0.0, 0.0], [10.0, 20.0]], self.z))]


def test_table_in_equations_is_differentiated_by_the_compiler():
    t = np.array([0.25, 0.75, 1.5, 3.0, 4.5])
    sol = compile(TableOfTime()).simulate(5.0, t_eval=np.concatenate([[0.0], t]), **TIGHT)
    np.testing.assert_allclose(sol["x"][1:], [0.25, 0.75, 2.5, 10.0, 19.0], atol=1e-12)
    np.testing.assert_allclose(sol["v"][1:], [1.0, 1.0, 3.0, 6.0, 6.0], atol=1e-12)
    # z' = -2 z inside the table's range: z = 5 exp(-2 t), to the global error of a run at
    # rtol 1e-10 (a few 1e-9 here: 50 rtol times the largest value)
    np.testing.assert_allclose(sol["z"][1:], 5.0 * np.exp(-2.0 * t), rtol=0,
                               atol=50 * TIGHT["rtol"] * 5.0)


def test_table_from_csv_file_and_numpy_array(tmp_path):
    path = tmp_path / "squares.csv"
    path.write_text("# y = u^2\nu,y\n0, 0\n1, 1\n\n2, 4\n4, 16\n")
    semi = tmp_path / "squares.txt"
    semi.write_text("0 0\n1 1\n2 4\n4 16\n")
    for source in (path, str(semi), np.array(SQUARES), tuple(map(tuple, SQUARES))):
        np.testing.assert_array_equal(load_table(source), np.array(SQUARES))
        np.testing.assert_allclose(through_casadi(table_value(source, U), [1.5, 3.0, 5.0]),
                                   [2.5, 10.0, 22.0], atol=1e-14)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("0, 0\n1, 1, 2\n")
    with pytest.raises(ParameterError, match="line 2 .* 3 numbers"):
        load_table(ragged)
    text = tmp_path / "text.csv"
    text.write_text("u,y\n0, 0\nend\n")
    with pytest.raises(ParameterError, match="line 3 .* not a row of numbers"):
        load_table(text)
    with pytest.raises(ParameterError, match="cannot read"):
        load_table(tmp_path / "missing.csv")


class Table1D(Component):
    """A ramp u = t (0 -> 5 over 5 s) through CombiTable1Ds (two columns) and CombiTable1Dv."""

    def __init__(self, table, **kw):
        super().__init__()
        self.ramp = Ramp(height=5.0, duration=5.0)
        self.ds = CombiTable1Ds(table=table, **kw)
        self.dv = CombiTable1Dv(table=table, columns=[3, 2], **kw)

    def connections(self):
        return [connect(self.ramp.y, self.ds.u), connect(self.ramp.y, self.dv.u[0]),
                connect(self.ramp.y, self.dv.u[1])]


def test_combi_table_1ds_and_1dv(tmp_path):
    table = np.array([[0.0, 0.0, 1.0], [1.0, 1.0, -1.0], [2.0, 4.0, 0.0], [4.0, 16.0, 2.0]])
    csv = tmp_path / "t.csv"
    np.savetxt(csv, table, delimiter=",", header="u,y1,y2")
    t = np.array([0.0, 0.5, 1.5, 3.0, 4.5])
    y1 = np.array([0.0, 0.5, 2.5, 10.0, 16.0])  # held at 16 beyond u = 4
    y2 = np.array([1.0, 0.0, -0.5, 1.0, 2.0])
    for source in (table, str(csv)):
        model = Table1D(source, extrapolation="HoldLastPoint")
        assert model.ds.nout == 2 and model.ds.u_min == 0.0 and model.ds.u_max == 4.0
        sol = compile(model).simulate(5.0, t_eval=t)
        np.testing.assert_allclose(sol["ds.y[0].u"], y1, atol=1e-13)
        np.testing.assert_allclose(sol["ds.y[1].u"], y2, atol=1e-13)
        np.testing.assert_allclose(sol["dv.y[0].u"], y2, atol=1e-13)  # column 3 first
        np.testing.assert_allclose(sol["dv.y[1].u"], y1, atol=1e-13)


def piecewise_integral(table: np.ndarray, col: int, t: float, hold: bool) -> float:
    """Exact integral from the first table time to ``t`` of the piecewise-linear column (the
    jumps have no area); beyond the end the last value (``hold``) or the last line."""
    x, y = table[:, 0], table[:, col]
    total = 0.0
    for i in range(len(x) - 1):
        a, b = x[i], min(x[i + 1], t)
        if b > a:
            slope = (y[i + 1] - y[i]) / (x[i + 1] - x[i])
            total += (b - a) * (y[i] + 0.5 * slope * (b - a))
    if t > x[-1]:
        d = t - x[-1]
        slope = 0.0 if hold else (y[-1] - y[-2]) / (x[-1] - x[-2])
        total += d * (y[-1] + 0.5 * slope * d)
    return total


#: the time table of MSL's Translational.Examples.Vehicle (torque, inclination)
VEHICLE = np.array([[0, 0, 0], [5, 0, 0], [5, 5.6, 0], [10.8, 5.6, 0], [10.8, 1, 0],
                    [20, 1, 0], [20, 2.8, 0.05], [25, 2.8, 0.05], [25, 1, 0], [50, 1, 0],
                    [50, -5, 0], [55, -5, 0], [55, 0, 0], [60, 0, 0]], dtype=float)


class Integrated(Component):
    """x[k]' = table output k."""

    def __init__(self, n=1, **table):
        super().__init__()
        self.tt = CombiTimeTable(**table)
        self.n = n
        self.x = Variable(shape=n, start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x[k]), self.tt.y[k].u) for k in range(self.n)]


def assert_integral(sol, name, exact):
    x = sol[name]
    tol = 10 * TIGHT["rtol"] * (np.max(np.abs(exact)) + 1.0)
    assert np.max(np.abs(x - exact)) <= tol, np.max(np.abs(x - exact))


def test_time_table_ode_against_exact_integral_vehicle_table():
    """The Vehicle table (jumps at 5, 10.8, 20, 25, 50, 55 s, held after 60 s): each output
    integrated over 70 s equals the exact integral; every jump is an event at its time."""
    t = np.linspace(0.0, 70.0, 141)
    sol = compile(Integrated(2, table=VEHICLE, extrapolation="HoldLastPoint")).simulate(
        70.0, t_eval=t, **TIGHT)
    for k in (0, 1):
        exact = np.array([piecewise_integral(VEHICLE, k + 1, ti, hold=True) for ti in t])
        assert_integral(sol, f"x[{k}]", exact)
    assert sol["x[0]"][-1] == pytest.approx(5.6 * 5.8 + 9.2 + 2.8 * 5 + 25 - 25, abs=1e-8)
    times = [ev[0] for ev in sol.events]
    np.testing.assert_allclose(times, [5, 10.8, 20, 25, 50, 55, 60], rtol=1e-14)
    # at a jump the output point holds the value after it: 5.6 at t = 5, 1 at 10.8 is not a
    # grid point; 2.8 at t = 20
    assert sol["tt.y[0].u"][10] == 5.6 and sol["tt.y[0].u"][40] == 2.8
    assert sol["tt.y[1].u"][40] == 0.05


def test_time_table_start_shift_scale_offset_and_extrapolation():
    """y = offset + table((t - shiftTime)/timeScale) from startTime on, offset before; linear
    extrapolation through the last two rows after the table."""
    table = np.array([[0.0, 1.0], [1.0, 2.0], [1.0, 0.0], [2.0, 3.0]])
    model = Integrated(table=table, startTime=0.5, shiftTime=0.3, timeScale=2.0,
                       offset=[0.25])
    t = np.linspace(0.0, 6.0, 61)
    sol = compile(model).simulate(6.0, t_eval=t, **TIGHT)
    tau = (t - 0.3) / 2.0
    y = 0.25 + np.where(t < 0.5, 0.0, np.where(tau < 1.0, 1.0 + tau,
                                                np.where(tau < 2.0, 3.0 * (tau - 1.0),
                                                         3.0 + 3.0 * (tau - 2.0))))
    np.testing.assert_allclose(sol["tt.y[0].u"], y, atol=1e-12)
    # integral: 0.25 t + int_{0.5}^{t} table((s - 0.3)/2) ds = 2 * int_{0.1}^{tau} table
    exact = 0.25 * t + np.array([0.0 if ti < 0.5 else
                                 2.0 * (piecewise_integral(table, 1, (ti - 0.3) / 2, False)
                                        - piecewise_integral(table, 1, 0.1, False))
                                 for ti in t])
    assert_integral(sol, "x[0]", exact)
    # the table times 0, 1, 2 at 0.3, 2.3, 4.3 s, the start at 0.5 s
    np.testing.assert_allclose([ev[0] for ev in sol.events], [0.3, 0.5, 2.3, 4.3], rtol=1e-14)
    # the same times and offset given at run time to a table compiled with the defaults
    again = compile(Integrated(table=table)).simulate(
        6.0, t_eval=t, params={"tt.startTime": 0.5, "tt.shiftTime": 0.3, "tt.timeScale": 2.0,
                               "tt.offset[0]": 0.25}, **TIGHT)
    np.testing.assert_allclose(again["tt.y[0].u"], y, atol=1e-12)


def test_periodic_and_constant_time_tables():
    """A periodic table (period 2 s, a jump at 1 s and one at each period's end, 0.5 -> 0)
    started at t = 3.3 (the period count is set at the start time), a ConstantSegments table
    and a table that is a single jump."""
    table = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 3.0], [2.0, 0.5]])
    t = np.linspace(3.3, 7.9, 47)
    sol = compile(Integrated(table=table, extrapolation="Periodic")).simulate(
        7.9, t_start=3.3, t_eval=t, **TIGHT)
    phase = np.mod(t, 2.0)
    y = np.where(phase < 1.0, phase, 3.0 - 2.5 * (phase - 1.0))
    np.testing.assert_allclose(sol["tt.y[0].u"], y, atol=1e-12)
    per_period = 0.5 + 1.75

    def integral(s):  # from 0 to s
        k, r = divmod(s, 2.0)
        return k * per_period + (0.5 * r * r if r < 1 else
                                 0.5 + 3 * (r - 1) - 1.25 * (r - 1) ** 2)

    exact = np.array([integral(ti) - integral(3.3) for ti in t])
    assert_integral(sol, "x[0]", exact)
    # the jumps at 5 and 7 s, the period ends at 4 and 6 s
    np.testing.assert_allclose([ev[0] for ev in sol.events], [4, 5, 6, 7], rtol=1e-14)
    steps = np.array([[0.0, 1.0], [1.0, 2.0], [3.0, -1.0]])
    t = np.linspace(0.0, 4.0, 41)
    sol = compile(Integrated(table=steps, smoothness="ConstantSegments",
                             extrapolation="HoldLastPoint")).simulate(4.0, t_eval=t, **TIGHT)
    np.testing.assert_allclose(sol["tt.y[0].u"], np.where(t < 1, 1.0, np.where(t < 3, 2.0, -1.0)),
                               atol=1e-14)
    exact = np.where(t < 1, t, np.where(t < 3, 1 + 2 * (t - 1), 5 - (t - 3)))
    assert_integral(sol, "x[0]", exact)
    step = np.array([[1.5, -1.0], [1.5, 2.0]])  # -1 before 1.5 s, 2 from then on
    sol = compile(Integrated(table=step)).simulate(4.0, t_eval=t, **TIGHT)
    np.testing.assert_allclose(sol["tt.y[0].u"], np.where(t < 1.5, -1.0, 2.0), atol=1e-14)
    assert_integral(sol, "x[0]", np.where(t < 1.5, -t, -1.5 + 2 * (t - 1.5)))


def test_no_extrapolation_stops_the_run():
    table = [[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]]
    with pytest.raises(SimulationError):
        compile(Integrated(table=table, extrapolation="NoExtrapolation")).simulate(3.0, dt=0.25)
    # inside its range the same table runs
    sol = compile(Integrated(table=table, extrapolation="NoExtrapolation")).simulate(
        2.0, dt=0.25, **TIGHT)
    assert sol["x[0]"][-1] == pytest.approx(1.0, abs=1e-9)


def test_compiled_table_pickles_for_other_processes():
    expr = table_value(SQUARES, U, extrapolation="Periodic")
    again = pickle.loads(pickle.dumps(expr))
    assert again == expr and float(again.subs(U, 5.0)) == 1.0
    cs = compile(TableOfTime())
    copy = deserialize_system(serialize_system(cs))
    a = cs.simulate(2.0, dt=0.5, **TIGHT)
    b = copy.simulate(2.0, dt=0.5, **TIGHT)
    np.testing.assert_allclose(a["z"], b["z"], rtol=1e-12)


@pytest.mark.parametrize("table, kwargs, match", [
    ([0.0, 1.0, 2.0], {}, "must be 2-D"),
    ([[0.0], [1.0]], {}, "at least one row and 2 columns"),
    ([[0.0, 1.0], [2.0, 0.0], [1.0, 3.0]], {}, "must be increasing"),
    ([[0.0, 1.0], [1.0, 0.0], [1.0, 3.0], [1.0, 4.0]], {}, "occurs three times"),
    ([[0.0, 1.0], [1.0, math.nan]], {}, "finite number"),
    ([["a", 1.0], [1.0, 2.0]], {}, "2-D array of numbers"),
    (None, {}, "no table given"),
    (SQUARES, {"column": 2}, "column 2 is out of range"),
    (SQUARES, {"column": -1}, "out of range"),
    (SQUARES, {"extrapolation": "Linear"}, "extrapolation must be one of"),
    (SQUARES, {"smoothness": "ContinuousDerivative"}, "smoothness must be one of"),
    ([[1.0, 1.0], [1.0, 2.0]], {"extrapolation": "Periodic"}, "periodic table"),
])
def test_bad_tables_raise_parameter_errors(table, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        table_value(table, U, **kwargs)


def test_bad_blocks_raise_parameter_errors():
    jump = [[0.0, 1.0], [1.0, 0.0], [1.0, 3.0]]
    with pytest.raises(ParameterError, match="strictly increasing"):
        CombiTable1Ds(table=jump)
    with pytest.raises(ParameterError, match="columns .* out of range"):
        CombiTable1Ds(table=SQUARES, columns=[3])
    with pytest.raises(ParameterError, match="no table given"):
        CombiTable1Dv()
    with pytest.raises(ParameterError, match="offset has 3 values"):
        CombiTimeTable(table=VEHICLE, offset=[1.0, 2.0, 3.0])
    with pytest.raises(ParameterError, match="periodic table"):
        CombiTimeTable(table=[[1.0, 1.0], [1.0, 2.0]], extrapolation="Periodic")
    # MSL's enumeration literal with its type prefix is accepted
    table = CombiTimeTable(table=jump, extrapolation="Modelica.Blocks.Types.Extrapolation."
                           "HoldLastPoint")
    assert table.t_minScaled == 0.0 and table.t_maxScaled == 1.0 and table.nout == 1
