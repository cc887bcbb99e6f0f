"""A minimal progress display for long compilations and simulations (stderr, terminals only)."""

from __future__ import annotations

import sys
import time


def progress_enabled(progress: bool | None) -> bool:
    """``None``: on when standard error is a terminal; ``True``/``False``: as given."""
    if progress is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())
    return bool(progress)


class ProgressBar:
    """``simulate [#########.........]  45%  t = 4.5 / 10 s`` on one line of stderr."""

    WIDTH = 30

    def __init__(self, label: str, total: float, enabled: bool, unit: str = "s") -> None:
        self.label = label
        self.total = total
        self.enabled = enabled
        self.unit = unit
        self.start = time.perf_counter()
        self._last = -1.0

    def update(self, value: float, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self._last < 0.1:  # at most ten redraws a second
            return
        self._last = now
        frac = 0.0 if self.total <= 0 else min(max(value / self.total, 0.0), 1.0)
        filled = int(round(frac * self.WIDTH))
        bar = "#" * filled + "." * (self.WIDTH - filled)
        sys.stderr.write(f"\r{self.label} [{bar}] {frac * 100:5.1f}%  {value:.4g} / "
                         f"{self.total:.4g} {self.unit}  ({now - self.start:.1f} s)")
        sys.stderr.flush()

    def close(self, message: str = "") -> None:
        if not self.enabled:
            return
        self.update(self.total if not message else self._value_for_close(), force=True)
        sys.stderr.write(f"  {message}\n" if message else "\n")
        sys.stderr.flush()

    def _value_for_close(self) -> float:
        return self.total


class StageLog:
    """Compilation stages, one line each with their time (shown when enabled)."""

    def __init__(self, label: str, enabled: bool) -> None:
        self.label = label
        self.enabled = enabled

    def stage(self, name: str, seconds: float) -> None:
        if self.enabled:
            sys.stderr.write(f"{self.label}: {name} {seconds:.2f} s\n")
            sys.stderr.flush()
