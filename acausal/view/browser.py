"""A headless Chromium for viewer pages: find it, open a page offline, take a screenshot.

Used by the viewer's tests and by ``tools/viewer_screenshot.py`` (the README's picture). It
drives the system's Chromium (Debian's ``chromium`` package, or ``$ACAUSAL_CHROMIUM``) through
Playwright for Python (``pip install playwright``; its own browser download is not needed).
Every request that is not to a ``file:``, ``data:`` or ``blob:`` address is refused, so a page
that opens here opens without a network.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import AcausalError

__all__ = ["BrowserPage", "chromium_path", "open_page", "screenshot", "why_no_browser"]

#: Chromium's flags for a closed network without a display (no GPU: WebGL runs on SwiftShader,
#: the software renderer; no background connections, which a closed network refuses).
CHROMIUM_FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--use-angle=swiftshader", "--enable-unsafe-swiftshader")
_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_path() -> str | None:
    """The Chromium executable: ``$ACAUSAL_CHROMIUM``, else the first of chromium,
    chromium-browser, google-chrome on the PATH; None if there is none."""
    given = os.environ.get("ACAUSAL_CHROMIUM")
    if given:
        return given if Path(given).exists() else None
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def why_no_browser() -> str | None:
    """None when pages can be opened here, else the reason (what to install)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install playwright)"
    if chromium_path() is None:
        return ("no Chromium found (install Debian's chromium package, or set ACAUSAL_CHROMIUM "
                "to a Chromium executable)")
    return None


@dataclass
class BrowserPage:
    """An open viewer page: ``page`` (Playwright's Page), what the page logged, the refused
    requests."""

    page: Any
    console: list[tuple[str, str]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Console errors and uncaught exceptions of the page."""
        return [text for kind, text in self.console if kind in ("error", "pageerror")]

    def evaluate(self, script: str, arg: Any = None) -> Any:
        return self.page.evaluate(script, arg)


@contextmanager
def open_page(path: str | Path, *, width: int = 1000, height: int = 700,
              timeout: float = 60.0, wait: bool = True) -> Iterator[BrowserPage]:
    """Open the viewer page ``path`` in headless Chromium with the network blocked, and (with
    ``wait``) wait until the viewer has started (``window.acausalViewer``) or failed."""
    reason = why_no_browser()
    if reason:
        raise AcausalError(f"Cannot open {path} in a browser: {reason}.")
    from playwright.sync_api import sync_playwright

    url = Path(path).resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="acausal-chromium-") as profile, \
            sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=chromium_path(), headless=True, args=list(CHROMIUM_FLAGS),
            viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            opened = BrowserPage(page)
            page.on("console", lambda m: opened.console.append((m.type, m.text)))
            page.on("pageerror", lambda e: opened.console.append(("pageerror", str(e))))

            def route(route_: Any) -> None:
                if route_.request.url.startswith(("file:", "data:", "blob:")):
                    route_.continue_()
                else:
                    opened.refused.append(route_.request.url)
                    route_.abort()

            context.route("**/*", route)
            page.goto(url)
            if wait:
                page.wait_for_function(
                    "window.acausalViewer !== undefined || "
                    "document.getElementById('status').textContent.startsWith('The viewer "
                    "failed')", timeout=timeout * 1000)
            yield opened
        finally:
            context.close()


def screenshot(html: str | Path, png: str | Path, *, time: float | None = None,
               width: int = 1000, height: int = 700, trails: bool | None = None) -> Path:
    """Open the viewer page ``html`` headless and save a screenshot to ``png``: at the output
    point at or before ``time`` (default: the first), with the trails shown or hidden."""
    with open_page(html, width=width, height=height) as opened:
        if opened.errors or not opened.evaluate("window.acausalViewer !== undefined"):
            raise AcausalError(f"{html} did not start in Chromium: {opened.errors}")
        if time is not None:
            opened.evaluate("(time) => { const v = window.acausalViewer; let k = 0;"
                            " while (k + 1 < v.n && v.timeAt(k + 1) <= time) k++;"
                            " v.setSample(k); }", time)
        if trails is not None:
            opened.page.locator("#trails").set_checked(bool(trails))
        opened.page.wait_for_timeout(200)
        png = Path(png)
        png.parent.mkdir(parents=True, exist_ok=True)
        opened.page.screenshot(path=str(png))
    return png
