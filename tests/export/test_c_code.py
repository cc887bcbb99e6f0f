"""``system.generate_c(directory)``: the generated C, compiled with the system C compiler and
loaded with ctypes, evaluates every function as the CasADi function does (to 1e-12 of each
value's magnitude, at random points), and the README, names and example program are right."""

from __future__ import annotations

import ctypes
import json
import re
import subprocess

import numpy as np
import pytest

from acausal.export.c_code import compile_shared_library, model_functions

FUNCTIONS = ["ode", "alg", "observed", "jac_ode_x", "jac_ode_z", "jac_alg_x", "jac_alg_z",
             "jac_ode_p"]
DOUBLE_P = ctypes.POINTER(ctypes.c_double)
MODEL_NAMES = ["oscillator", "piston_engine", "stick_slip"]  # see conftest.MODELS


def _pointer(array: np.ndarray):
    return array.ctypes.data_as(DOUBLE_P)


@pytest.fixture(scope="module")
def built(compiled, c_compiler, tmp_path_factory):
    """name -> (system, folder, loaded library) for each model."""
    out = {}
    for name in MODEL_NAMES:
        system = compiled(name)
        folder = system.generate_c(tmp_path_factory.mktemp(name), name=name)
        library = compile_shared_library([folder / f"{name}.c", folder / f"{name}_model.c"],
                                         folder / f"lib{name}.so", compiler=c_compiler,
                                         hide_symbols=False)
        out[name] = (system, folder, ctypes.CDLL(str(library)))
    return out


def _random_point(system, rng):
    t = float(rng.uniform(0.0, 3.0))
    x = rng.normal(size=system.x.numel())
    z = rng.normal(size=system.z.numel())
    p = system.parameter_values * (1.0 + 0.1 * rng.normal(size=system.p.numel()))
    return t, x, z, p


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_function_equals_casadi(built, name):
    """The compiled wrappers ``<name>_<function>_eval`` against CasADi's own evaluation of the
    same Function, at 5 random points (t, x, z, p): equal to 1e-12 of each value."""
    system, _, lib = built[name]
    reference = {ef.function.name(): ef.function for ef in model_functions(system, name)}
    rng = np.random.default_rng(16)
    for what in FUNCTIONS + (["event_indicators", "event_conditions"] if system.events else []):
        f = reference[f"{name}_{what}"]
        wrapper = getattr(lib, f"{name}_{what}_eval")
        for _ in range(5):
            t, x, z, p = _random_point(system, rng)
            expected = np.array(f(t, x, z, p)).ravel(order="F")  # dense, column-major
            got = np.full(max(expected.size, 1), np.nan)
            status = wrapper(ctypes.c_double(t), _pointer(x), _pointer(z), _pointer(p),
                             _pointer(got))
            assert status == 0
            got = got[:expected.size]
            assert np.array_equal(np.isnan(got), np.isnan(expected)), what
            ok = ~np.isnan(expected)
            assert np.all(np.abs(got[ok] - expected[ok]) <= 1e-12 * np.abs(expected[ok])), what


def test_event_updates_equal_casadi(built):
    system, _, lib = built["stick_slip"]
    reference = {ef.function.name(): ef.function for ef in model_functions(system, "stick_slip")}
    rng = np.random.default_rng(3)
    for k in range(len(system.events)):
        t, x, z, p = _random_point(system, rng)
        x_new, p_new = (np.array(v).ravel() for v in
                        reference[f"stick_slip_event_update_{k}"](t, x, z, p))
        got_x, got_p = np.zeros(x.size), np.zeros(p.size)
        status = getattr(lib, f"stick_slip_event_update_{k}_eval")(
            ctypes.c_double(t), _pointer(x), _pointer(z), _pointer(p), _pointer(got_x),
            _pointer(got_p))
        assert status == 0
        np.testing.assert_allclose(got_x, x_new, rtol=1e-12, atol=0)
        np.testing.assert_allclose(got_p, p_new, rtol=1e-12, atol=0)


def test_casadi_calling_convention(built):
    """The raw function with caller-provided work vectors, as the README describes it:
    ``F_work`` gives the sizes, ``arg``/``res`` point to (t, x, z, p) and the outputs."""
    system, _, lib = built["piston_engine"]
    c_int = ctypes.c_longlong  # casadi_int
    sizes = [c_int() for _ in range(4)]
    assert lib.piston_engine_jac_alg_z_work(*[ctypes.byref(s) for s in sizes]) == 0
    n_arg, n_res, n_iw, n_w = (s.value for s in sizes)
    assert n_arg >= 4 and n_res >= 1
    t, x, z, p = _random_point(system, np.random.default_rng(5))
    t_arr = np.array([t])
    out = np.zeros(system.z.numel() ** 2)
    arg = (DOUBLE_P * n_arg)(*([_pointer(a) for a in (t_arr, x, z, p)]
                               + [None] * (n_arg - 4)))
    res = (DOUBLE_P * n_res)(*([_pointer(out)] + [None] * (n_res - 1)))
    iw = (c_int * max(n_iw, 1))()
    w = (ctypes.c_double * max(n_w, 1))()
    assert lib.piston_engine_jac_alg_z(arg, res, iw, w, 0) == 0
    expected = np.array(system.function("alg").jacobian()(t, x, z, p, 0)[2]).ravel(order="F")
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-300)


def test_names_and_json(built):
    system, folder, lib = built["piston_engine"]
    for what, expected in (("state", system.state_names), ("algebraic", system.algebraic_names),
                           ("parameter", system.parameter_names)):
        table = (ctypes.c_char_p * len(expected)).in_dll(lib, f"piston_engine_{what}_names")
        assert [s.decode() for s in table] == expected
    defaults = (ctypes.c_double * system.p.numel()).in_dll(lib, "piston_engine_parameter_defaults")
    np.testing.assert_array_equal(np.array(defaults), system.parameter_values)
    info = json.loads((folder / "piston_engine.json").read_text())
    # np: the world's g, n[0], n[1] and the parts' parameters
    assert info["sizes"] == {"nx": 2, "nz": 4, "np": 19, "ny": system.observed.numel(),
                             "n_events": 0, "n_indicators": 0}
    assert [s["name"] for s in info["states"]] == system.state_names
    assert info["variables"]["bodyPiston.frame_a.fx"]["index"] >= 0
    sign, index = system.locate("prismatic.frame_a.fx")
    assert info["variables"]["prismatic.frame_a.fx"] == {"sign": sign, "index": index}
    # the initial values are consistent: g(0, x0, z0, p) = 0
    g = np.array(system.function("alg")(0.0, info["x_start"], info["z_start"],
                                        system.parameter_values)).ravel()
    assert np.max(np.abs(g)) < 1e-9


def test_readme_example_compiles_and_runs(built, c_compiler, tmp_path):
    """The C program of the README, compiled as the README says, prints der(x) at the start."""
    system, folder, _ = built["piston_engine"]
    readme = (folder / "README.md").read_text()
    for function in ("piston_engine_ode", "piston_engine_jac_alg_z", "piston_engine_observed"):
        assert f"`{function}`" in readme
    assert "casadi_int" in readme and "_work" in readme and "column-major" in readme
    program = re.search(r"```c\n(#include \"piston_engine_model.h\".*?)```", readme, re.S)
    assert program is not None
    main = folder / "main.c"
    main.write_text(program.group(1))
    exe = tmp_path / "main"
    subprocess.run([c_compiler, "-O2", str(main), str(folder / "piston_engine.c"),
                    str(folder / "piston_engine_model.c"), "-lm", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    result = subprocess.run([str(exe)], check=True, capture_output=True, text=True)
    printed = dict(re.findall(r"der\((\S+)\) = (\S+)", result.stdout))
    info = json.loads((folder / "piston_engine.json").read_text())
    xdot = np.array(system.function("ode")(0.0, info["x_start"], info["z_start"],
                                           system.parameter_values)).ravel()
    for name, value in zip(system.state_names, xdot):
        assert float(printed[name]) == pytest.approx(value, rel=1e-5, abs=1e-12)
