"""``Solution.to_csv``, ``to_pandas``, ``plot`` and ``unit`` for every variable of the planar
examples, vectors and derivatives included (a vector becomes one column or curve per element)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from acausal import InputError, UnknownNameError, compile

ROOT = Path(__file__).resolve().parents[1]


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _piston():
    return _example("piston_engine").PistonEngine()


def _crank_rocker():
    return _example("crank_rocker").CrankRocker()


def _slipping_wheel():
    return _example("slipping_wheel").build("thrown")


def _segway():
    segway = _example("segway")
    k = segway.place_gains()
    return segway.Segway(k_x=k[0], k_theta=k[1], k_v=k[2], k_w=k[3])


def _andrews():
    return _example("andrews_squeezer").AndrewsSqueezer()


MODELS = {"piston_engine": (_piston, 0.2), "crank_rocker": (_crank_rocker, 0.2),
          "slipping_wheel": (_slipping_wheel, 0.1), "segway": (_segway, 0.2),
          "andrews_squeezer": (_andrews, 0.001)}


@pytest.fixture(scope="module", params=list(MODELS))
def solution(request):
    build, t_end = MODELS[request.param]
    return compile(build()).simulate(t_end, n_points=21, progress=False)


def _vector_names(sol) -> list[str]:
    """The vector variables of the model by their base name (``body.r``)."""
    return sorted({n.rpartition("[")[0] for n in sol.declared_names() if n.endswith("]")})


def test_every_variable_goes_to_csv_with_units(solution, tmp_path):
    names = solution.names()  # declared, aliases and derivatives
    path = tmp_path / "all.csv"
    solution.to_csv(path, names)
    header = path.read_text().splitlines()[0].split(",")
    assert header[0] == "time [s]"
    assert len(header) == 1 + len(names)
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    assert data.shape == (21, len(header))
    assert np.all(np.isfinite(data))
    assert header[1] in (names[0], f"{names[0]} [{solution.unit(names[0])}]")
    assert data[:, 1] == pytest.approx(solution[names[0]], rel=1e-11, abs=1e-300)


def test_vectors_expand_into_element_columns(solution, tmp_path):
    vectors = _vector_names(solution)
    assert vectors, "every planar example has vector variables (positions)"
    path = tmp_path / "vectors.csv"
    solution.to_csv(path, vectors)
    header = path.read_text().splitlines()[0].split(",")
    for name in vectors:
        element = f"{name}[0]"
        unit = solution.unit(element)
        assert solution.unit(name) == unit  # a vector has its elements' unit
        assert (f"{element} [{unit}]" if unit else element) in header
    df = solution.to_pandas(vectors)
    assert list(df.columns) == solution.scalar_names(vectors)
    assert df[f"{vectors[0]}[1]"].to_numpy() == pytest.approx(solution[vectors[0]][1])
    assert df.attrs["units"][f"{vectors[0]}[0]"] == solution.unit(f"{vectors[0]}[0]")


def test_every_variable_to_pandas(solution):
    pd = pytest.importorskip("pandas")
    df = solution.to_pandas(solution.names())
    assert isinstance(df, pd.DataFrame) and df.shape == (21, len(solution.names()))
    assert df.index.name == "time"


def test_plot_every_declared_variable_and_vector(solution, tmp_path):
    pytest.importorskip("matplotlib")
    names = _vector_names(solution) + solution.compiled.state_names
    axes = solution.plot(*names, path=tmp_path / "p.png")
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    units = {solution.unit(n) for n in solution.scalar_names(names)}
    assert len(axes) == len(units)  # one panel per unit
    assert axes[-1].get_xlabel() == "time [s]"
    assert all(ax.get_xlabel() == "" for ax in axes[:-1])
    assert axes[0].get_title() == solution.compiled.model_name
    curves = sum(len(ax.get_lines()) for ax in axes)
    assert curves == len(solution.scalar_names(names))
    for ax in axes:
        unit = ax.get_ylabel()
        assert unit == "" or unit.startswith("[")


def test_every_declared_variable_plots(solution, tmp_path):
    pytest.importorskip("matplotlib")
    solution.plot(*solution.declared_names(), path=tmp_path / "all.png")
    assert (tmp_path / "all.png").stat().st_size > 0


def test_units_of_derivatives_and_parameters(solution):
    assert solution.unit("time") == "s"
    if solution.compiled.model_name != "PistonEngine":
        return
    assert solution.unit("der(revoluteDrive.phi)") == "rad/s"
    assert solution.unit("der(revoluteDrive.w)") == "rad/s2"
    assert solution.unit("der(bodyPiston.v)") == "m/s2"  # a vector's derivative
    assert solution.unit("bodyPiston.m") == "kg"


def test_export_errors_name_the_culprit(solution, tmp_path):
    with pytest.raises(UnknownNameError, match="no_such_variable"):
        solution.to_csv(tmp_path / "x.csv", ["no_such_variable"])
    with pytest.raises(InputError, match="cannot write"):
        solution.to_csv(tmp_path / "missing_folder" / "x.csv")
    with pytest.raises(InputError, match="21 output times"):
        solution.to_csv(tmp_path / "x.csv", {"q": np.zeros(3)})


def test_short_repr_and_notebook_displays(solution):
    cs = solution.compiled
    text = repr(cs)
    assert len(text) < 300 and cs.model_name in text and f"{cs.n_states} states" in text
    assert "<pre>" in cs._repr_html_() and cs.model_name in cs._repr_html_()
    latex = cs._repr_latex_()
    if len(cs.flat.equations) <= 80:
        assert latex.startswith("$$\\begin{aligned}")
    else:
        assert latex is None  # too long to show: the HTML summary is shown instead
    assert repr(solution).startswith(f"<Solution of {cs.model_name}: 21 points")
    html = solution._repr_html_()
    assert "<table>" in html and cs.state_names[0] in html
    assert solution._repr_latex_().startswith("$$\\begin{aligned}")
