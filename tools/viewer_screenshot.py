"""Take the README's picture of the 3-D viewer: docs/images/viewer.png.

Run from the repository root (needs Chromium and Playwright, as the viewer's tests do)::

    python tools/viewer_screenshot.py                 # rewrite docs/images/viewer.png
    python tools/viewer_screenshot.py --out DIR       # write viewer.html and viewer.png there

It runs MultiBody's spatial four-bar (``examples/spatial_fourbar.py``'s model, 5 s), writes its
viewer page with the bodies' trails and a plot of j1.w and j2.s, and photographs the page at
t = 1.2 s in headless Chromium with :func:`acausal.view.browser.screenshot`, the same browser
and page loading the tests use (tests/view/test_viewer_browser.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="folder for viewer.html and viewer.png "
                        "(default: the page in a temporary folder, the picture in docs/images)")
    args = parser.parse_args(argv)

    from acausal import compile
    from acausal.components.multibody.examples import Fourbar1
    from acausal.view.browser import screenshot, why_no_browser

    reason = why_no_browser()
    if reason:
        print(f"cannot take the screenshot: {reason}", file=sys.stderr)
        return 1
    sol = compile(Fourbar1()).simulate(5.0, dt=0.01, rtol=1e-9, atol=1e-11)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        page = sol.view(folder / "viewer.html", trails=True, plots=[["j1.w", "j2.s"]],
                        title="spatial four-bar (MultiBody Fourbar1)")
        png = (args.out / "viewer.png") if args.out else ROOT / "docs" / "images" / "viewer.png"
        screenshot(page.path, png, time=1.2, width=960, height=640, trails=True)
    print(f"screenshot written to {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
