"""A wheel's road and rim mark in the viewer: the segway of examples/segway.py on a 5-degree
road. In the scene data (no browser): the road is a ``road`` shape in the world frame along the
grade, the wheel stays its radius above it, and the wheel's rim mark turns with the wheel. In
headless Chromium (skipped without one, as the other browser tests): the page builds the road
as long as the motion and it shows in the picture."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from acausal import Visual, compile
from acausal.components.planar import examples as segway
from acausal.view.scene import build_scene

GRADE = math.radians(5.0)
MARK = "#ffc800"  # the rim mark's colour (components/planar/viewer_shapes.py)


@pytest.fixture(scope="module")
def graded_segway():
    """examples/segway.py's segway (acausal.components.planar.examples), with its gains,
    driving 2 m up a 5-degree road (4 s)."""
    k = segway.place_gains()
    system = compile(segway.Segway(k_x=k[0], k_theta=k[1], k_v=k[2], k_w=k[3],
                                   wheel=segway.wheel_joint(GRADE)))
    return segway, system.simulate(4.0, dt=0.02, rtol=1e-8, atol=1e-10)


def _rotate(q, v):
    u, w = q[:, :3], q[:, 3:4]
    uv = np.cross(u, v)
    return v + 2.0 * (w * uv + np.cross(u, uv))


def test_the_scene_has_the_road_along_the_grade_under_the_wheel(graded_segway):
    segway, sol = graded_segway
    scene = build_scene(sol)
    shapes = scene.meta["shapes"]
    roads = [s for s in shapes if s["kind"] == "road"]
    assert len(roads) == 1 and roads[0]["component"] == "wheel"
    road = roads[0]
    assert scene.meta["frames"][road["frame"]]["names"] == ["world"]  # fixed in the world
    t_dir = np.array([math.cos(GRADE), math.sin(GRADE), 0.0])
    n_dir = np.array([-math.sin(GRADE), math.cos(GRADE), 0.0])
    np.testing.assert_allclose(road["length_direction"], t_dir, atol=1e-15)
    np.testing.assert_allclose(road["width_direction"], n_dir, atol=1e-15)
    np.testing.assert_allclose(road["r_shape"], 0.0)
    # the wheel's centre, where the page places it, is its radius above that road at every
    # output point (the wheel stands on the road the page draws)
    wheel_frame = next(f for f, frame in enumerate(scene.meta["frames"])
                       if "wheel.frame_a" in frame["names"])
    centre = scene.arrays["origins"][:, wheel_frame, :]
    np.testing.assert_allclose(centre @ n_dir, segway.R, atol=1e-12)
    assert np.ptp(centre @ t_dir) > 1.5  # it drove up the road


def test_the_rim_mark_turns_with_the_wheel(graded_segway):
    _, sol = graded_segway
    scene = build_scene(sol)
    marks = [s for s in scene.meta["shapes"] if s["component"] == "wheel"
             and s["color"] == MARK]
    assert len(marks) == 1
    mark = marks[0]
    f = mark["frame"]
    assert "wheel.frame_a" in scene.meta["frames"][f]["names"]
    # the mark's centre in the world, as the page places it, relative to the wheel's centre:
    # at the wheel's angle at every output point
    local = np.array(mark["r_shape"]) + np.array(mark["length_direction"]) * mark["length"] / 2
    offset = _rotate(scene.arrays["rotations"][:, f, :], local)
    angle = np.unwrap(np.arctan2(offset[:, 1], offset[:, 0]))
    np.testing.assert_allclose(angle, sol["wheel.frame_a.phi"], atol=1e-12)
    np.testing.assert_allclose(np.hypot(offset[:, 0], offset[:, 1]), np.linalg.norm(local),
                               rtol=1e-12)
    assert np.ptp(angle) > 2 * math.pi  # more than a turn: the rolling shows


@pytest.mark.usefixtures("browser_available")
def test_the_page_draws_the_road_as_long_as_the_motion(graded_segway, tmp_path):
    from PIL import Image

    from acausal.view.browser import open_page

    _, sol = graded_segway
    path = tmp_path / "segway_on_a_slope.html"
    sol.view(path)
    along = sol["wheel.x"]  # the centre's position along the road
    with open_page(path, width=800, height=500) as opened:
        assert opened.errors == [] and opened.refused == []
        box = opened.evaluate(
            "() => { const m = window.acausalViewer.scene.getObjectByName('road:wheel');"
            " m.geometry.computeBoundingBox(); const b = m.geometry.boundingBox;"
            " return [b.min.toArray(), b.max.toArray(), m.quaternion.toArray(),"
            " m.parent.name]; }")
        low, high, quaternion, parent = box
        assert parent == "frame:world"
        # the strip's local x runs up the road (its quaternion turns x by the grade about z)
        x, y, z, w = quaternion
        assert [x, y] == pytest.approx([0.0, 0.0], abs=1e-12)
        assert 2 * math.atan2(z, w) == pytest.approx(GRADE, abs=1e-12)
        # it reaches past both ends of the wheel's travel, its top is the road's surface (to
        # the float32 of three.js's geometry buffers: 6e-8 of the strip's 0.08 m thickness)
        assert low[0] < along.min() - 0.5 and high[0] > along.max() + 0.5
        assert high[1] == pytest.approx(0.0, abs=1e-8) and low[1] < -0.01

        def picture():
            png = opened.page.locator("#view3d canvas").screenshot()
            return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)

        shown = picture()
        opened.evaluate("() => { window.acausalViewer.scene.getObjectByName('road:wheel')"
                        ".visible = false; window.acausalViewer.setSample(0); }")
        opened.page.wait_for_timeout(200)
        hidden = picture()
        changed = np.any(np.abs(shown - hidden) > 8, axis=2)
        # the road covers a visible band of the picture, across most of its width
        assert changed.mean() > 0.005
        columns = np.flatnonzero(changed.any(axis=0))
        assert columns.size > 0.5 * changed.shape[1]
        assert opened.errors == []


def test_a_vehicle_wheel_rim_mark_spins_with_the_roll_angle():
    """A vehicle's wheel (seen from above; its frame follows the vehicle, not the rolling)
    driven straight along x: the rim mark is turned by the roll angle about the wheel's axis
    (Visual spin), so that at each output point it sits at the angle phi_roll on the rim."""
    from acausal import Component, Eq, connect
    from acausal.components import rotational
    from acausal.components.planar.parts import Body
    from acausal.components.planar.vehicle import IdealWheelJoint

    class Cart(Component):
        body = Body(m=10.0, I=1.0, g=[0.0, 0.0])
        wheel = IdealWheelJoint(radius=0.3, r=[1.0, 0.0])
        drive = rotational.Torque()

        def equations(self):
            return [Eq(self.drive.tau, 2.0)]

        def connections(self):
            return [connect(self.body.frame_a, self.wheel.frame_a),
                    connect(self.drive.flange, self.wheel.flange_a)]

    sol = compile(Cart()).simulate(3.0, n_points=61, rtol=1e-10, atol=1e-12)
    assert sol["wheel.phi_roll"][-1] > 2 * math.pi  # more than a turn
    scene = build_scene(sol)
    (mark,) = [s for s in scene.meta["shapes"] if s["spin"] is not None]
    assert mark["spin"] == "wheel.phi_roll" and mark["color"] == MARK
    assert "wheel.frame_a@wheel.phi_roll" in scene.meta["frames"][mark["frame"]]["names"]
    f = mark["frame"]
    local = np.array(mark["r_shape"]) + np.array(mark["length_direction"]) * mark["length"] / 2
    offset = _rotate(scene.arrays["rotations"][:, f, :], local)
    height = np.linalg.norm(local)
    theta = sol["wheel.phi_roll"]
    # rolling forward (+x) turns the top of the wheel forward: about the axis z x e = +y
    np.testing.assert_allclose(offset[:, 0], height * np.sin(theta), atol=1e-12)
    np.testing.assert_allclose(offset[:, 1], 0.0, atol=1e-12)
    np.testing.assert_allclose(offset[:, 2], height * np.cos(theta), atol=1e-12)
    # the disc itself stays placed by the wheel's own frame
    tyre = next(s for s in scene.meta["shapes"] if s["component"] == "wheel" and s is not mark)
    assert scene.meta["frames"][tyre["frame"]]["names"][0] in ("body.frame_a", "wheel.frame_a")


def test_a_spin_that_is_not_a_variable_of_the_component_is_refused():
    from acausal import Component
    from acausal.components.planar.interfaces import Frame
    from acausal.errors import ModelDefinitionError

    class Marked(Component):
        frame_a = Frame()

        def visual_shapes(self):
            return [Visual("box", "frame_a", spin="phi_rol")]

    with pytest.raises(ModelDefinitionError, match="spin='phi_rol' is not a scalar variable"):
        compile(Marked())
