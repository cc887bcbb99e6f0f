"""One self-contained HTML page that shows a solution in 3-D: :func:`view`, ``Solution.view``.

The page embeds everything it needs, so it opens from disk without a network: three.js
(vendored from the npm registry, MIT licence, ``vendor/three``), the viewer's own script and
style (``assets/``), and the scene (:mod:`acausal.view.scene`). Numbers travel as binary arrays:
each signal is quantised to a power-of-two step (frame origins to 2**-40 of the motion's largest
coordinate, 1e-12 relative; orientations, trails and plots to float32's 2**-24) and sent as its
second differences, which are small for a smooth motion; the whole is gzip-compressed and
base64-encoded, and the page inflates it with the browser's ``DecompressionStream``. A
10 000-point, 20-body run is a few MB (``tests/view/test_scene.py`` measures one).
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..base.errors import AcausalError
from .scene import Scene, build_scene

__all__ = ["THREE_VERSION", "View", "decoded", "encode_arrays", "page_html", "view"]

#: The three.js release in ``vendor/three`` (see its README for how to update it).
THREE_VERSION = "0.187.0"
_THREE_FILES = {"core": "three.core.js", "module": "three.module.js",
                "orbit": "OrbitControls.js"}


def _resource(*parts: str) -> bytes:
    return resources.files("acausal.view").joinpath(*parts).read_bytes()


@lru_cache(maxsize=1)
def _libraries() -> str:
    """The three.js modules, gzip-compressed and base64-encoded (once per process)."""
    return json.dumps({key: base64.b64encode(gzip.compress(_resource("vendor", "three", name),
                                                           9, mtime=0)).decode("ascii")
                       for key, name in _THREE_FILES.items()})


#: Relative resolution of each quantised array: 2**-bits of its largest magnitude. Frame
#: origins keep 1e-12 of the motion's size (what the page shows is the solution's number to
#: that); orientations, trails and plots keep 6e-8 (float32's), far below a pixel.
RESOLUTION_BITS = {"origins": 40}
DEFAULT_BITS = 24


def _quantum(values: np.ndarray, bits: int) -> float:
    """A power of two (so that scaling is exact) with max|values| / quantum < 2**bits."""
    largest = float(np.max(np.abs(values))) if values.size else 0.0
    exponent = int(np.ceil(np.log2(largest))) if largest > 0 else 0
    return float(2.0 ** (exponent - bits))


def _quantised(array: np.ndarray, bits: int) -> tuple[dict[str, Any], list[bytes]] | None:
    """``array`` (time first) as integers of a power-of-two quantum, sent as each series' first
    two values and its second differences (int32): smooth motions give small differences,
    whose high bytes are zero and compress to almost nothing. None when a difference does not
    fit int32 (a jump): the array then travels as float64."""
    a = np.asarray(array, dtype=np.float64)
    if a.ndim == 0 or a.shape[0] < 3 or a.size == 0 or not np.all(np.isfinite(a)):
        return None
    series = a.reshape(a.shape[0], -1).T  # one row per scalar signal
    quantum = _quantum(series, bits)
    ints = np.rint(series / quantum)  # exact integers below 2**(bits+1) <= 2**53
    second = np.diff(ints, n=2, axis=1)
    if np.max(np.abs(second)) >= 2**31:
        return None
    heads = np.ascontiguousarray(ints[:, :2]).astype("<f8")
    d2 = np.ascontiguousarray(second).astype("<i4")
    entry = {"encoding": "d2", "quantum": quantum, "shape": list(a.shape),
             "series": int(series.shape[0]), "count": int(a.shape[0])}
    return entry, [heads.tobytes(), _shuffled(d2)]


def _shuffled(a: np.ndarray) -> bytes:
    """Byte k of every element together (the high bytes of small numbers are alike)."""
    return a.view(np.uint8).reshape(-1, a.dtype.itemsize).T.tobytes() if a.size else b""


def decoded(entry: dict[str, Any], raw: bytes) -> np.ndarray:
    """One array back from the page's payload, as the page's script (loader.js) rebuilds it."""
    if entry["encoding"] == "raw":
        size = 8 if entry["dtype"] == "f8" else 4
        n = int(np.prod(entry["shape"]))
        planes = np.frombuffer(raw, np.uint8, n * size, entry["offset"]).reshape(size, n)
        return planes.T.copy().view("<f8" if size == 8 else "<f4").reshape(entry["shape"])
    m, n = entry["series"], entry["count"]
    heads = np.frombuffer(raw, "<f8", 2 * m, entry["offset"]).reshape(m, 2)
    planes = np.frombuffer(raw, np.uint8, 4 * m * (n - 2), entry["offset"] + 16 * m)
    d2 = planes.reshape(4, -1).T.copy().view("<i4").reshape(m, n - 2)
    # sums of integers below 2**53 in doubles: exact, as the page's loop is
    first = np.concatenate([heads[:, 1:] - heads[:, :1], d2], axis=1).cumsum(axis=1)
    ints = heads[:, :1] + np.concatenate([np.zeros((m, 1)), first.cumsum(axis=1)], axis=1)
    return (ints.T * entry["quantum"]).reshape(entry["shape"])


def encode_arrays(arrays: dict[str, np.ndarray]) -> tuple[dict[str, Any], str]:
    """(manifest, base64 text) of the arrays: each quantised to its resolution and sent as
    second differences (:func:`_quantised`; ``t`` and anything that does not fit: float64 or
    float32, byte-shuffled), all gzip-compressed together. The manifest tells the page how to
    rebuild each one (:func:`decoded` does it in Python)."""
    manifest: dict[str, Any] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, array in arrays.items():
        a = np.ascontiguousarray(array)
        if a.dtype not in (np.float64, np.float32):
            raise AcausalError(f"viewer array {name!r}: dtype {a.dtype} is not float32/64.")
        packed = None if name == "t" else _quantised(a, RESOLUTION_BITS.get(name, DEFAULT_BITS))
        if packed is None:
            a = a.astype(a.dtype.newbyteorder("<"), copy=False)
            entry = {"encoding": "raw", "dtype": "f8" if a.dtype.itemsize == 8 else "f4",
                     "shape": list(a.shape)}
            parts = [_shuffled(a)]
        else:
            entry, parts = packed
        entry["offset"] = offset
        manifest[name] = entry
        chunks.extend(parts)
        offset += sum(len(p) for p in parts)
    payload = gzip.compress(b"".join(chunks), 6, mtime=0)
    return manifest, base64.b64encode(payload).decode("ascii")


def _script_text(text: str) -> str:
    """Text safe inside a <script> element (no '</' that could end it)."""
    return text.replace("</", "<\\/")


def page_html(scene: Scene, *, height: int | None = None) -> str:
    """The whole HTML page of a scene (a string)."""
    manifest, blob = encode_arrays(scene.arrays)
    data = json.dumps({"meta": scene.meta, "manifest": manifest, "three": THREE_VERSION},
                      allow_nan=False)
    parts = {
        "TITLE": html.escape(str(scene.meta.get("title", "acausal"))),
        "STYLE": _resource("assets", "viewer.css").decode("utf-8"),
        "DATA": _script_text(data),
        "ARRAYS": blob,
        "LIBS": _libraries(),
        "VIEWER": _script_text(_resource("assets", "viewer.js").decode("utf-8")),
        "PLOTS": _script_text(_resource("assets", "plots.js").decode("utf-8")),
        "LOADER": _script_text(_resource("assets", "loader.js").decode("utf-8")),
        "HEIGHT": str(int(height)) + "px" if height else "100vh",
    }
    template = _resource("assets", "page.html").decode("utf-8")
    return re.sub(r"\{\{(\w+)\}\}", lambda m: parts[m.group(1)], template)


class View:
    """A written viewer page: ``path`` (None when not written to a file) and ``html``. In a
    notebook it displays itself inline (an iframe holding the page)."""

    def __init__(self, page: str, path: Path | None, height: int = 520):
        self.html = page
        self.path = path
        self.height = height

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
                f'style="width:100%;height:{self.height}px;border:1px solid #ddd"></iframe>')

    def __repr__(self) -> str:
        where = f" written to {self.path}" if self.path else ""
        return f"<View{where}: {len(self.html) / 1e6:.1f} MB page>"


def view(sol, path: Any = None, *, trails: Any = None, plots: Any = None,
         title: str | None = None, height: int = 520) -> View:
    """Show ``sol`` in the 3-D viewer: write the page to ``path`` (``.html``) when given, and
    return a :class:`View` (displayed inline in Jupyter).

    ``trails``: ``True`` draws the path of every body (the centre of each shape marked
    ``trail``, as the bodies of acausal.components mark theirs), or a list of frame names
    (``"body.frame_a"``: the path of its origin). ``plots``: variables plotted under the 3-D
    view with a cursor at the shown time; a name, or a list whose items are names or lists of
    names (one plot each). ``title``: the page's title (default: the model's name). ``height``: the
    inline view's height in pixels.
    """
    if path is not None:
        path = Path(path)
        if path.suffix.lower() not in (".html", ".htm"):
            raise AcausalError(f"view() writes an .html page, not '{path.name}': give a path "
                               "ending in .html.")
    scene = build_scene(sol, trails=trails, plots=plots, title=title)
    page = page_html(scene)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
    return View(page, path, height)
