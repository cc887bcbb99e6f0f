"""Planar animation helper (``acausal.components.planar.animation``): resolving what to draw,
drawing one instant, writing a GIF, and the errors a user can hit."""

from __future__ import annotations

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
