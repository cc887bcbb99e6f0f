"""The viewer page in a real browser: headless Chromium (Debian's chromium package, driven by
Playwright), the page loaded from disk with every network request refused.

Checks: it starts without console errors and asks for nothing from a network; the 3-D canvas
is not blank; moving the time slider puts every frame where the solution says (to 1e-9 m; the
page carries origins to 2**-41 of the motion's size); play advances time; trails and plots show;
the notebook's iframe starts the same viewer. Skipped, with the reason, where no Chromium or no
Playwright is installed (.ci/run installs both).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from viewer_models import Pendulum, Top

import acausal

pytestmark = pytest.mark.usefixtures("browser_available")

RTOL, ATOL = 1e-8, 1e-10
ROOT = Path(__file__).resolve().parents[2]


def _open(path, **kw):
    from acausal.view.browser import open_page

    return open_page(path, **kw)


def _canvas_colours(opened):
    """(number of distinct colours, fraction of pixels unlike the background) of the 3-D view."""
    from PIL import Image

    png = opened.page.locator("#view3d canvas").screenshot()
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3)
    background = np.array([0xF4, 0xF6, 0xF8])
    unlike = np.any(np.abs(pixels.astype(int) - background) > 8, axis=1).mean()
    return len(np.unique(pixels, axis=0)), float(unlike)


def _move_slider(opened, k):
    """What a user does: drag the time slider to output point k (input events included)."""
    opened.page.locator("#slider").fill(str(k))
    assert opened.evaluate("window.acausalViewer.sample()") == k


@pytest.fixture(scope="module")
def pendulum_page(tmp_path_factory):
    sol = acausal.compile(Pendulum()).simulate(2.0, n_points=201, rtol=RTOL, atol=ATOL)
    path = tmp_path_factory.mktemp("view") / "pendulum.html"
    sol.view(path, trails=True, plots=["theta", ["w", "tip.x"]])
    return sol, path


@pytest.fixture(scope="module")
def top_page(tmp_path_factory):
    sol = acausal.compile(Top()).simulate(3.0, n_points=151, rtol=RTOL, atol=ATOL)
    path = tmp_path_factory.mktemp("view") / "top.html"
    sol.view(path)
    return sol, path


def test_planar_page_starts_offline_draws_and_follows_the_slider(pendulum_page):
    sol, path = pendulum_page
    with _open(path) as opened:
        assert opened.errors == []
        assert opened.refused == []  # nothing asked of a network: everything is in the file
        colours, unlike = _canvas_colours(opened)
        assert colours > 20 and unlike > 0.01, (colours, unlike)
        seen = []
        for k in (0, 37, 100, 200):
            _move_slider(opened, k)
            seen.append(opened.evaluate("window.acausalViewer.framePosition('tip')")[0])
            for frame in ("pivot", "tip"):
                x, y, z = opened.evaluate(f"window.acausalViewer.framePosition('{frame}')")
                assert abs(x - sol[f"{frame}.x"][k]) < 1e-9
                assert abs(y - sol[f"{frame}.y"][k]) < 1e-9
                assert z == 0.0
            label = opened.page.locator("#time").text_content()
            assert label == f"t = {sol.t[k]:.3f} s"
        # the slider moved the body: at t = 1 s (half a swing) the tip is on the other side
        assert seen[0] > 0.8 and seen[2] < -0.5, seen
        assert opened.errors == []


def test_3d_page_turns_frames_as_the_solution_says(top_page):
    sol, path = top_page
    with _open(path) as opened:
        assert opened.errors == [] and opened.refused == []
        for k in (0, 75, 150):
            _move_slider(opened, k)
            position = opened.evaluate("window.acausalViewer.framePosition('body')")
            expected = [sol[f"body.r_0[{i}]"][k] for i in range(3)]
            assert np.max(np.abs(np.array(position) - expected)) < 1e-9
            x, y, z, w = opened.evaluate("window.acausalViewer.frameQuaternion('body')")
            # T = Rz(angle)': the frame turned by +angle about z, q = (0, 0, sin, cos)(angle/2)
            half = sol["angle"][k] / 2
            shown, expected_q = np.array([x, y, z, w]), np.array([0, 0, np.sin(half),
                                                                   np.cos(half)])
            # q and -q are the same turn; the page carries 2**-24 (6e-8) per component
            assert min(np.max(np.abs(shown - expected_q)),
                       np.max(np.abs(shown + expected_q))) < 1e-6


def test_play_advances_time_and_pause_stops_it(pendulum_page):
    _, path = pendulum_page
    with _open(path) as opened:
        opened.page.locator("#speed").select_option("2")
        opened.page.locator("#play").click()
        opened.page.wait_for_function("window.acausalViewer.sample() > 20", timeout=10_000)
        opened.page.locator("#play").click()
        stopped = opened.evaluate("window.acausalViewer.sample()")
        opened.page.wait_for_timeout(300)
        assert opened.evaluate("window.acausalViewer.sample()") == stopped
        assert opened.errors == []


def test_orbit_and_zoom_move_the_camera_and_reset_brings_it_back(top_page):
    _, path = top_page
    camera = "window.acausalViewer.camera.position.toArray()"
    with _open(path) as opened:
        start = np.array(opened.evaluate(camera))
        box = opened.page.locator("#view3d canvas").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        mouse = opened.page.mouse
        mouse.move(x, y)
        mouse.down()
        mouse.move(x + 150, y + 40, steps=8)  # orbit: a left drag
        mouse.up()
        turned = np.array(opened.evaluate(camera))
        assert np.linalg.norm(turned - start) > 0.05 * np.linalg.norm(start)
        mouse.wheel(0, 400)  # zoom out
        opened.page.wait_for_timeout(300)
        zoomed = np.array(opened.evaluate(camera))
        assert np.linalg.norm(zoomed - turned) > 0.01 * np.linalg.norm(start)
        opened.page.locator("#reset").click()
        np.testing.assert_allclose(opened.evaluate(camera), start, rtol=1e-9, atol=1e-12)
        assert opened.errors == []


def test_trails_and_plots_show_on_the_page(pendulum_page):
    _, path = pendulum_page
    with _open(path) as opened:
        assert opened.page.locator("#plots canvas").count() == 2
        trails_visible = ("window.acausalViewer.scene.children.filter("
                          "o => o.type === 'Line' && o.visible).length")
        assert opened.page.locator("#trails").is_checked()  # trails=True: shown at the start
        assert opened.evaluate(trails_visible) == 1
        opened.page.locator("#trails").set_checked(False)
        assert opened.evaluate(trails_visible) == 0
        before = opened.page.locator("#plots canvas").first.screenshot()
        _move_slider(opened, 150)
        assert opened.page.locator("#plots canvas").first.screenshot() != before  # the cursor
        assert opened.errors == []


def test_the_notebook_iframe_starts_the_same_viewer(pendulum_page, tmp_path):
    sol, _ = pendulum_page
    view = sol.view(plots=["theta"])
    assert view.path is None
    wrapper = tmp_path / "notebook.html"
    wrapper.write_text(f"<!doctype html><html><body>{view._repr_html_()}</body></html>")
    with _open(wrapper, wait=False) as opened:
        frame = opened.page.frames[1]
        frame.wait_for_function("window.acausalViewer !== undefined", timeout=60_000)
        assert frame.evaluate("window.acausalViewer.n") == sol.t.size
        assert opened.errors == [] and opened.refused == []


def _frames_match(opened, sol, k, planar):
    """Every frame the page places, against the solution at output point k: the largest
    difference [m], and how far the frames are from where they were at point 0."""
    worst, moved = 0.0, 0.0
    for name in opened.evaluate("window.acausalViewer.frames"):
        if name == "world":  # the world frame of a component without frames: the origin
            continue
        shown = np.array(opened.evaluate(f"window.acausalViewer.framePosition('{name}')"))
        if planar:
            expected = np.array([sol[f"{name}.x"][k], sol[f"{name}.y"][k], 0.0])
            start = np.array([sol[f"{name}.x"][0], sol[f"{name}.y"][0], 0.0])
        else:
            expected = np.array([sol[f"{name}.r_0[{i}]"][k] for i in range(3)])
            start = np.array([sol[f"{name}.r_0[{i}]"][0] for i in range(3)])
        worst = max(worst, float(np.max(np.abs(shown - expected))))
        moved = max(moved, float(np.max(np.abs(expected - start))))
    return worst, moved


@pytest.mark.parametrize("case", ["multibody DoublePendulum", "planar PistonEngine"])
def test_component_models_move_as_their_solutions_say(case, tmp_path):
    if case.startswith("multibody"):
        from acausal.components.multibody.examples import DoublePendulum as Model  # noqa: N813
    else:
        from acausal.cli import load_model

        model_spec = str(ROOT / "examples" / "piston_engine.py") + ":PistonEngine"
        Model = type(load_model(model_spec)[0])  # noqa: N806 - a class
    sol = acausal.compile(Model()).simulate(2.0, n_points=401, rtol=RTOL, atol=ATOL)
    path = tmp_path / "model.html"
    sol.view(path, trails=True)
    with _open(path) as opened:
        assert opened.errors == [] and opened.refused == []
        colours, unlike = _canvas_colours(opened)
        assert colours > 20 and unlike > 0.01, (colours, unlike)
        largest_move = 0.0
        for k in (0, 133, 266, 400):
            _move_slider(opened, k)
            worst, moved = _frames_match(opened, sol, k, case.startswith("planar"))
            assert worst < 1e-9, (k, worst)
            largest_move = max(largest_move, moved)
        assert largest_move > 0.1  # the bodies did move between the points checked
        assert opened.errors == []


def test_the_readme_picture_is_taken_by_the_same_browser(tmp_path):
    """tools/viewer_screenshot.py (the README's picture) runs, and its picture shows a scene."""
    import subprocess
    import sys

    from PIL import Image

    result = subprocess.run([sys.executable, str(ROOT / "tools" / "viewer_screenshot.py"),
                             "--out", str(tmp_path)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    picture = np.asarray(Image.open(tmp_path / "viewer.png").convert("RGB"))
    assert picture.shape == (640, 960, 3)
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 100
    readme = (ROOT / "README.md").read_text()
    assert "![The 3-D viewer" in readme and (ROOT / "docs" / "images" / "viewer.png").exists()
