"""Animation helpers (``acausal.components.planar.animation``, and the 3-D one of
``acausal.components.multibody.animation``): resolving what to draw, drawing one instant, which
output points become frames, writing a GIF (frames drawn by blitting, as a full redraw draws
them), the progress option, and the errors a user can hit."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from acausal import AcausalError, Component, Variable, compile, connect  # noqa: E402
from acausal.components.planar.animation import (  # noqa: E402
    Box,
    Ground,
    Joint,
    Point,
    Rod,
    Spring,
    animate,
    draw,
    frame_points,
    shapes_of,
)
from acausal.components.planar.forces import SpringDamper  # noqa: E402
from acausal.components.planar.joints import Revolute  # noqa: E402
from acausal.components.planar.parts import Body, Fixed, FixedTranslation  # noqa: E402


class Pendulum(Component):
    fixed = Fixed()
    revolute = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    rod = FixedTranslation(r=[1.0, 0.0])
    body = Body(m=1.0, I=0.1)
    spring = SpringDamper(c_x=1.0, c_y=1.0, d_x=0.1, d_y=0.1, c_phi=0.0, d_phi=0.0)

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a),
                connect(self.rod.frame_b, self.body.frame_a),
                connect(self.fixed.frame, self.spring.frame_a),
                connect(self.body.frame_a, self.spring.frame_b)]


@pytest.fixture(scope="module")
def model_and_solution():
    model = Pendulum()
    sol = compile(model).simulate(1.0, n_points=11, rtol=1e-8, atol=1e-10)
    return model, sol


def test_shapes_from_component_objects(model_and_solution):
    model, sol = model_and_solution
    shapes = shapes_of(sol, [model.fixed, model.revolute, model.rod, model.body, model.spring])
    assert [type(s) for s in shapes] == [Ground, Joint, Rod, Point, Spring]
    assert shapes[2] == Rod("rod.frame_a", "rod.frame_b")
    assert shapes[3].frame == "body.frame_a"


def test_shapes_from_names(model_and_solution):
    _, sol = model_and_solution
    shapes = shapes_of(sol, ["rod", "body.frame_a", "body", ("fixed.frame", "body.frame_a"),
                             Box("body.frame_a")])
    assert shapes[0] == Rod("rod.frame_a", "rod.frame_b", label="rod")
    assert shapes[1] == Point("body.frame_a")
    assert shapes[2].frame == "body.frame_a"
    assert shapes[3] == Rod("fixed.frame", "body.frame_a")
    assert isinstance(shapes[4], Box)


def test_draw_places_the_rod_at_the_solution(model_and_solution):
    model, sol = model_and_solution
    fig = draw(sol, [model.rod], t=1.0)
    line = fig.axes[0].lines[0]
    x, y = line.get_data()
    k = sol.t.size - 1
    np.testing.assert_allclose(x, [0.0, np.cos(sol["revolute.phi"][k])], atol=1e-12)
    np.testing.assert_allclose(y, [0.0, np.sin(sol["revolute.phi"][k])], atol=1e-12)


def test_animate_writes_a_gif(model_and_solution, tmp_path):
    model, sol = model_and_solution
    drawing = [model.fixed, model.rod, model.revolute, Point("body.frame_a", trace=True),
               model.spring, Box("body.frame_a", width=0.1, height=0.1)]
    path = animate(sol, drawing, tmp_path / "sub" / "pendulum.gif", fps=10, t_stride=2)
    data = path.read_bytes()
    assert data[:6] in (b"GIF87a", b"GIF89a")
    from PIL import Image

    with Image.open(path) as im:
        assert im.n_frames == 6  # 11 points, every 2nd


def test_errors(model_and_solution, tmp_path):
    model, sol = model_and_solution
    with pytest.raises(AcausalError, match="not a frame"):
        shapes_of(sol, [Rod("rod.frame_a", "nowhere")])
    with pytest.raises(AcausalError, match="Cannot draw 'nothing'"):
        shapes_of(sol, ["nothing"])
    with pytest.raises(AcausalError, match="compiled"):
        shapes_of(sol, [Pendulum().rod])  # an instance that was never compiled
    with pytest.raises(AcausalError, match="Cannot draw"):
        shapes_of(sol, [42])
    with pytest.raises(AcausalError, match=".gif or .mp4"):
        animate(sol, [model.rod], tmp_path / "x.avi")
    with pytest.raises(AcausalError, match="empty"):
        animate(sol, [], tmp_path / "x.gif")
    with pytest.raises(AcausalError, match="positive"):
        animate(sol, [model.rod], tmp_path / "x.gif", t_stride=0)


# -- which output points become frames ----------------------------------------------------------


def _check_default_frames(t: np.ndarray, fps: int) -> tuple[np.ndarray, np.ndarray]:
    """frame_points' rule against a brute-force reading of it: the output point nearest to each
    target time t[0] + j/fps, each once, the last point always."""
    index, periods = frame_points(t, fps)
    targets = t[0] + np.arange(int(np.floor((t[-1] - t[0]) * fps + 1e-9)) + 1) / fps
    nearest = [int(np.argmin(np.abs(t - target))) for target in targets]
    expected = sorted(set(nearest) | {t.size - 1})
    assert [float(t[i]) for i in index] == [float(t[i]) for i in expected]
    assert np.all(np.diff(index) > 0) and index[-1] == t.size - 1
    assert periods.sum() == targets.size + (nearest[-1] != t.size - 1)
    return index, periods


def test_default_frames_one_per_frame_period_of_model_time():
    t = np.linspace(0.0, 10.0, 1001)
    index, periods = _check_default_frames(t, 30)
    assert index.size == 301 and np.all(periods == 1)
    targets = np.arange(301) / 30
    assert np.max(np.abs(t[index] - targets)) <= 0.5 / 30
    assert frame_points(t, 25)[0].size == 251


def test_default_frames_on_a_non_uniform_grid():
    rng = np.random.default_rng(1)
    # random spacing plus the repeated points events add (before and after the event)
    t = np.sort(np.concatenate([[0.0, 10.0], rng.uniform(0.0, 10.0, 3000), [2.5, 2.5, 7.1]]))
    index, periods = _check_default_frames(t, 30)
    assert index.size == 301 and np.all(periods == 1)
    assert np.max(np.abs(t[index] - np.arange(301) / 30)) <= 0.5 / 30
    # denser at the start than later: still one frame per period of model time
    t = np.concatenate([np.linspace(0.0, 1.0, 1001), np.linspace(1.01, 4.0, 300)])
    index, _ = _check_default_frames(t, 30)
    assert index.size == 121


def test_default_frames_on_a_coarse_grid_hold_each_point():
    t = np.linspace(0.0, 10.0, 21)  # 2 points per second at 30 frames per second
    index, periods = _check_default_frames(t, 30)
    assert index.tolist() == list(range(21))
    assert periods.sum() == 301 and periods[1:-1].tolist() == [15] * 19


def test_default_frames_keep_the_last_point():
    t = np.linspace(0.0, 1.01, 102)  # the end is no multiple of 1/30 s
    index, periods = _check_default_frames(t, 30)
    assert index.size == 32 and index[-1] == 101 and periods[-1] == 1
    assert frame_points(np.array([0.0]), 30)[0].tolist() == [0]


def test_explicit_stride_takes_every_kth_point():
    t = np.linspace(0.0, 10.0, 1001)
    index, periods = frame_points(t, 30, t_stride=4)
    assert index.tolist() == list(range(0, 1001, 4)) and np.all(periods == 1)
    assert frame_points(t, 30, t_stride=1)[0].size == 1001


# -- files ----------------------------------------------------------------------------------------


def _gif_frames(path) -> tuple[int, list[int]]:
    from PIL import Image

    with Image.open(path) as im:
        durations = []
        for i in range(im.n_frames):
            im.seek(i)
            durations.append(im.info["duration"])
        return im.n_frames, durations


@pytest.fixture(scope="module")
def dense_solution():
    model = Pendulum()
    return model, compile(model).simulate(1.0, n_points=101, rtol=1e-8, atol=1e-10)


def test_default_gif_has_the_chosen_frames_in_model_real_time(dense_solution, tmp_path, capsys):
    model, sol = dense_solution
    drawing = [model.fixed, model.rod, model.revolute, Point("body.frame_a", trace=True),
               model.spring, Box("body.frame_a", width=0.1, height=0.1)]
    path = animate(sol, drawing, tmp_path / "default.gif", progress=False)
    n_frames, durations = _gif_frames(path)
    assert n_frames == frame_points(sol.t, 30)[0].size == 31
    assert sum(durations) == 1030  # 31 frames of 1/30 s, in whole centiseconds
    assert capsys.readouterr().err == ""  # progress=False: nothing on stderr
    animate(sol, drawing, tmp_path / "bar.gif", fps=10, progress=True)
    err = capsys.readouterr().err
    assert "animate bar.gif" in err and "11 / 11 frames" in err


def test_3d_gif_frames_and_progress(tmp_path, capsys):
    from acausal.components.multibody.animation import animate as animate_3d
    from acausal.components.multibody.examples import Pendulum as Pendulum3D

    model = Pendulum3D()
    sol = compile(model).simulate(0.5, n_points=51)
    path = animate_3d(sol, model, tmp_path / "pendulum3d.gif", progress=False, triads=True)
    assert _gif_frames(path)[0] == frame_points(sol.t, 30)[0].size == 16
    assert capsys.readouterr().err == ""
    path = animate_3d(sol, model, tmp_path / "stride.gif", fps=10, t_stride=5, progress=True)
    assert _gif_frames(path)[0] == 11
    assert "11 / 11 frames" in capsys.readouterr().err


def test_blitted_frames_equal_a_full_redraw(dense_solution, tmp_path, monkeypatch):
    """Only what moves is drawn again for each frame: the result has the pixels of a full
    redraw of the figure (planar and 3-D)."""
    import acausal.components.planar.animation as planar_animation
    from acausal.components.multibody.animation import animate as animate_3d
    from acausal.components.multibody.examples import Pendulum as Pendulum3D

    compared = []

    def compare(fig, path, fps, periods, update, dpi, moving, progress=None):
        blitter = planar_animation._Blitter(fig, moving, dpi)
        for i in (0, len(periods) // 2, len(periods) - 1):
            update(i)
            blitted = blitter.rgba().copy()
            buffer = io.BytesIO()
            fig.savefig(buffer, format="rgba", dpi=dpi)  # draws everything
            full = np.frombuffer(buffer.getvalue(), np.uint8).reshape(blitted.shape)
            np.testing.assert_array_equal(blitted, full)
        compared.append(path.name)

    monkeypatch.setattr(planar_animation, "write_frames", compare)
    model, sol = dense_solution
    # a ground mark and a trace (zorder 1) would lie over the grid: left out here
    animate(sol, [model.rod, model.revolute, Point("body.frame_a", label="body"), model.spring,
                  Box("body.frame_a", width=0.1, height=0.1)], tmp_path / "planar.gif",
            title="pendulum")
    model3d = Pendulum3D()
    sol3d = compile(model3d).simulate(0.5, n_points=51)
    animate_3d(sol3d, model3d, tmp_path / "spatial.gif", triads=True, title="3-D")
    assert compared == ["planar.gif", "spatial.gif"]
