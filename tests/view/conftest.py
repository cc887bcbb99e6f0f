"""The viewer's tests: viewer_models.py importable (pytest runs with --import-mode=importlib,
which does not put test folders on sys.path), and a skip with the reason where no headless
Chromium can open a page."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def browser_available() -> None:
    from acausal.view.browser import why_no_browser

    reason = why_no_browser()
    if reason:
        pytest.skip(f"the viewer's browser tests need a headless Chromium: {reason}")
