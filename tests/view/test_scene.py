"""The viewer's data, without a browser: frames sampled from the solution, quaternions, the
binary encoding the page decodes, trails, plots and the errors a user can act on."""

from __future__ import annotations

import base64
import gzip
import json
import re

import numpy as np
import pytest
from viewer_models import Pendulum, Top

import acausal
from acausal import AcausalError, Component, Visual
from acausal.errors import ModelDefinitionError, UnknownNameError
from acausal.library.rotations import quaternion_of
from acausal.view.page import decoded, encode_arrays, page_html
from acausal.view.scene import Scene, build_scene, quaternions

RTOL, ATOL = 1e-8, 1e-10


@pytest.fixture(scope="module")
def pendulum():
    return acausal.compile(Pendulum()).simulate(2.0, n_points=201, rtol=RTOL, atol=ATOL)


@pytest.fixture(scope="module")
def top():
    return acausal.compile(Top()).simulate(3.0, n_points=151, rtol=RTOL, atol=ATOL)


def _decode(manifest, blob):
    raw = gzip.decompress(base64.b64decode(blob))
    return {name: decoded(entry, raw) for name, entry in manifest.items()}


def _rotation(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def test_quaternions_give_back_the_rotations_in_every_branch():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(400, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    R = np.array([_rotation(v) for v in q])
    # rotations by pi about each axis exercise Shepperd's three non-trace branches
    R = np.concatenate([R, np.diag([1.0, -1, -1])[None], np.diag([-1.0, 1, -1])[None],
                        np.diag([-1.0, -1, 1])[None], np.eye(3)[None]])
    q = quaternions(R)
    back = np.array([_rotation(v) for v in q])
    np.testing.assert_allclose(back, R, atol=1e-14)
    # the library's one-matrix version (of T = R', MultiBody's convention): the same turn
    for Rk, qk in zip(R, q):
        ref = np.array(quaternion_of(Rk.T))
        assert min(np.max(np.abs(qk - ref)), np.max(np.abs(qk + ref))) < 1e-14


def test_encoding_keeps_each_array_to_its_resolution():
    rng = np.random.default_rng(2)
    t = np.linspace(0.0, 2.0, 500)
    smooth = np.stack([np.sin(3 * t) * 7.0, np.cos(t) + 100.0, t**2], axis=1)[:, None, :]
    arrays = {"t": t, "origins": smooth, "rotations": np.cos(smooth / 9),
              "f32": rng.normal(size=11).astype(np.float32), "empty": np.zeros(0)}
    manifest, blob = encode_arrays(arrays)
    back = _decode(manifest, blob)
    np.testing.assert_array_equal(back["t"], t)  # time travels as float64, bit for bit
    # origins: within half a quantum, 2**-41 of the largest coordinate (100: 4.5e-11)
    assert manifest["origins"]["encoding"] == "d2"
    assert np.max(np.abs(back["origins"] - smooth)) <= 100.0 * 2.0**-40
    assert np.max(np.abs(back["origins"] - smooth)) > 0  # quantised indeed, not a copy
    assert np.max(np.abs(back["rotations"] - np.cos(smooth / 9))) <= 2.0**-24
    # origins jumping by their whole size between two points: the second differences of 2**40
    # steps do not fit int32 -> sent as float64, bit for bit
    jump = {"origins": np.where(t < 1, 0.0, 1.0) * rng.normal(size=t.size)}
    manifest, blob = encode_arrays(jump)
    assert manifest["origins"]["encoding"] == "raw"
    np.testing.assert_array_equal(_decode(manifest, blob)["origins"], jump["origins"])
    f32 = arrays["f32"].astype(float)
    assert np.max(np.abs(back["f32"] - f32)) <= 2.0 ** (np.ceil(np.log2(np.max(abs(f32)))) - 25)
    assert back["empty"].size == 0
    with pytest.raises(AcausalError, match="float32/64"):
        encode_arrays({"i": np.arange(3)})


def test_planar_frames_are_the_solution_s_positions_and_angles(pendulum):
    scene = build_scene(pendulum)
    frames = {name: f for f, frame in enumerate(scene.meta["frames"]) for name in frame["names"]}
    assert scene.meta["planar"] is True
    origins, rotations = scene.arrays["origins"], scene.arrays["rotations"]
    tip = frames["tip"]
    np.testing.assert_array_equal(origins[:, tip, 0], pendulum["tip.x"])  # the same float64
    np.testing.assert_array_equal(origins[:, tip, 1], pendulum["tip.y"])
    # the angle phi turns the frame about z: q = (0, 0, sin(phi/2), cos(phi/2))
    phi = pendulum["tip.phi"]
    np.testing.assert_allclose(rotations[:, tip, 2], np.sin(phi / 2), rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(rotations[:, tip, 3], np.cos(phi / 2), rtol=1e-15, atol=1e-15)
    kinds = [s["kind"] for s in scene.meta["shapes"]]
    assert kinds == ["cylinder", "sphere", "gravity"]
    assert scene.meta["shapes"][0]["frame_b"] == tip  # the rod spans pivot..tip


def test_3d_frames_turn_as_the_solution_s_orientation(top):
    scene = build_scene(top)
    f = {name: i for i, frame in enumerate(scene.meta["frames"]) for name in frame["names"]}
    assert scene.meta["planar"] is False
    angle = 2.0 * top.t  # w t: closed form of the model
    R = np.array([_rotation(q) for q in scene.arrays["rotations"][:, f["body"]]])
    expected = np.array([[[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]]
                         for a in angle])
    # angle = w t integrated: the run's error is K (atol + rtol |angle|), K = 100 (a 1 %
    # error in w gives 0.06)
    np.testing.assert_allclose(R, expected, atol=100 * (ATOL + RTOL * 6.0))
    np.testing.assert_array_equal(scene.arrays["origins"][:, f["body"], 0], top["body.r_0[0]"])


def test_trails_follow_each_body_s_centre_and_named_frames(pendulum, top):
    scene = build_scene(pendulum, trails=True)
    (trail,) = scene.meta["trails"]  # the one solid shape with one frame: the sphere
    points = scene.arrays[trail["array"]]
    # the sphere of length 0.2 starts at the tip along the frame's x axis: centre 0.1 along it
    phi = pendulum["tip.phi"]
    np.testing.assert_allclose(points[:, 0], pendulum["tip.x"] + 0.1 * np.cos(phi), atol=1e-14)
    np.testing.assert_allclose(points[:, 1], pendulum["tip.y"] + 0.1 * np.sin(phi), atol=1e-14)
    named = build_scene(top, trails=["body"])
    np.testing.assert_array_equal(named.arrays["trail0"][:, 1], top["body.r_0[1]"])
    with pytest.raises(AcausalError, match="'nowhere' has no position"):
        build_scene(top, trails=["nowhere"])


def test_plots_carry_each_variable_and_refuse_unknown_names(pendulum):
    scene = build_scene(pendulum, plots=["theta", ["w", "tip.x"]])
    curves = [[c["name"] for c in p["curves"]] for p in scene.meta["plots"]]
    assert curves == [["theta"], ["w", "tip.x"]]
    key = scene.meta["plots"][1]["curves"][0]["array"]
    np.testing.assert_array_equal(scene.arrays[key], pendulum["w"])
    assert scene.meta["plots"][1]["curves"][0]["unit"] == "rad/s"
    with pytest.raises(UnknownNameError, match="thetta"):
        build_scene(pendulum, plots=["thetta"])
    with pytest.raises(AcausalError, match="not a variable name"):
        build_scene(pendulum, plots=[[1.0]])


def test_view_writes_one_self_contained_page(pendulum, tmp_path):
    out = pendulum.view(tmp_path / "sub" / "pendulum.html", plots=["theta"], title="A <test>")
    text = out.path.read_text()
    assert out.html == text
    assert "<title>A &lt;test&gt;</title>" in text
    # no address the page could load from: every script is inline
    assert not re.search(r"<script[^>]+src=", text)
    assert not re.search(r"""(href|src)=["']https?:""", text)
    data = json.loads(re.search(r'id="acausal-data">(.*?)</script>', text, re.S).group(1))
    assert data["three"] == "0.187.0" and data["meta"]["n"] == 201
    assert "srcdoc=" in out._repr_html_()  # inline in a notebook: the same page in an iframe
    with pytest.raises(AcausalError, match=r"\.html page"):
        pendulum.view(tmp_path / "pendulum.png")


def test_a_model_without_shapes_is_refused_with_what_to_do():
    class Decay(Component):
        x = acausal.Variable(start=1.0)

        def equations(self):
            return [acausal.Eq(acausal.der(self.x), -self.x)]

    sol = acausal.compile(Decay()).simulate(1.0)
    with pytest.raises(AcausalError, match="no shapes to show.*acausal.Visual"):
        sol.view()


def test_bad_visuals_are_refused_when_compiling_naming_the_component():
    from acausal.components.translational import Flange

    class Bad(Pendulum):
        flange = Flange()

        def __init__(self, shape, **kw):
            super().__init__(**kw)
            self.shape = shape

        def visual_shapes(self):
            return [self.shape]

    class Holder(Component):
        def __init__(self, shape):
            super().__init__()
            self.arm = Bad(shape)

    for shape, message in [(Visual("cone", "tip"), "kind 'cone' is not one of"),
                           (Visual("box", "flange"), "Flange, which has no position"),
                           (Visual("box", "tip", length_direction=(0, 0, 0)), "zero vector"),
                           (Visual("box", "frame_a"), "frame='frame_a' is not a connector"),
                           (Visual("box", "tip", length=-1.0), "length=-1.0 must be"),
                           (Visual("box", "tip", r_shape=(1.0,)), "r_shape"),
                           ("box", "return a list of acausal.Visual")]:
        with pytest.raises(ModelDefinitionError, match=message) as info:
            acausal.compile(Holder(shape))
        assert "'arm'" in str(info.value)


def test_a_10000_point_20_body_run_stays_a_few_megabytes():
    rng = np.random.default_rng(3)
    n, bodies = 10_000, 20
    t = np.linspace(0, 10, n)
    # smooth motions, as a solution's are (a random walk would not compress at all)
    phase = rng.uniform(0, 2 * np.pi, size=(bodies, 3))
    origins = np.sin(t[:, None, None] * rng.uniform(0.5, 3, (bodies, 3)) + phase) \
        + np.arange(bodies)[None, :, None]
    angles = np.cumsum(rng.normal(scale=1e-3, size=(n, bodies, 3)), axis=0)
    quat = np.concatenate([np.sin(angles / 2), np.cos(np.linalg.norm(angles, axis=2,
                                                                      keepdims=True) / 2)], 2)
    quat /= np.linalg.norm(quat, axis=2, keepdims=True)
    scene = Scene({"title": "size", "n": n, "frames": [], "shapes": [], "trails": [],
                   "plots": [], "planar": False},
                  {"t": t, "origins": origins, "rotations": quat})
    size = len(page_html(scene).encode())
    raw = origins.nbytes + quat.astype(np.float32).nbytes
    print(f"page {size / 1e6:.2f} MB for {raw / 1e6:.1f} MB of frames")
    assert size < 6e6


def test_without_a_browser_the_reason_names_what_to_install(monkeypatch, tmp_path):
    from acausal.view import browser

    monkeypatch.setenv("ACAUSAL_CHROMIUM", str(tmp_path / "no-such-chromium"))
    assert browser.chromium_path() is None
    reason = browser.why_no_browser()
    assert reason is not None and ("chromium" in reason.lower() or "playwright" in reason.lower())
    with pytest.raises(AcausalError, match="Cannot open .* in a browser"):
        with browser.open_page(tmp_path / "page.html"):
            pass
