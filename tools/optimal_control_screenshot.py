"""Take the README's picture of an optimal motion: docs/images/cartpole_swingup.png.

Run from the repository root (needs Chromium and Playwright, as the viewer's tests do)::

    python tools/optimal_control_screenshot.py            # rewrite docs/images/cartpole_swingup.png
    python tools/optimal_control_screenshot.py --out DIR  # write the page and picture there

It solves the minimum-effort swing-up of ``examples/cartpole_swingup.py`` (40 elements), writes
the result's 3-D view (``res.view``: the collocation mesh's points, the pole's trail and a plot
of the optimal force and the pole angle) and photographs it at t = 1.5 s in headless Chromium
with :func:`acausal.view.browser.screenshot`, as tools/viewer_screenshot.py does.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _example():
    spec = importlib.util.spec_from_file_location("cartpole_swingup",
                                                  ROOT / "examples" / "cartpole_swingup.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["cartpole_swingup"] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="folder for the page and the picture "
                        "(default: the page in a temporary folder, the picture in docs/images)")
    args = parser.parse_args(argv)

    from acausal.view.browser import screenshot, why_no_browser

    reason = why_no_browser()
    if reason:
        print(f"cannot take the screenshot: {reason}", file=sys.stderr)
        return 1
    example = _example()
    res = example.swing_up_problem(example.build_cartpole(), elements=40).solve()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        page = res.view(folder / "cartpole_swingup.html", trails=True,
                        plots=[[example.CONTROL], ["pole.phi"]],
                        title=f"cart-pole swing-up, minimum effort: objective "
                              f"{res.objective:.6g} N^2 s")
        png = ((args.out / "cartpole_swingup.png") if args.out
               else ROOT / "docs" / "images" / "cartpole_swingup.png")
        screenshot(page.path, png, time=1.5, width=960, height=640, trails=True)
    print(f"screenshot written to {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
