"""A minimal progress display for long compilations and simulations (stderr, terminals only)."""

from __future__ import annotations

import sys
import time


def progress_enabled(progress: bool | None) -> bool:
    """``None``: on when standard error is a terminal; ``True``/``False``: as given."""
    if progress is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())
    return bool(progress)


class _OneLine:
    """What both displays share: one line of stderr, redrawn at most ten times a second."""

    WIDTH = 30

    def __init__(self, label: str, enabled: bool) -> None:
        self.label = label
        self.enabled = enabled
        self.start = time.perf_counter()
        self._last = -1.0

    def _due(self, force: bool) -> float | None:
        """The time now when the line should be redrawn, else None."""
        if not self.enabled:
            return None
        now = time.perf_counter()
        if not force and now - self._last < 0.1:
            return None
        self._last = now
        return now

    @classmethod
    def _bar(cls, frac: float) -> str:
        filled = int(round(frac * cls.WIDTH))
        return "#" * filled + "." * (cls.WIDTH - filled)

    def _end(self, message: str) -> None:
        sys.stderr.write(f"  {message}\n" if message else "\n")
        sys.stderr.flush()


class ProgressBar(_OneLine):
    """``simulate [#########.........]  45%  t = 4.5 / 10 s`` on one line of stderr."""

    def __init__(self, label: str, total: float, enabled: bool, unit: str = "s") -> None:
        super().__init__(label, enabled)
        self.total = total
        self.unit = unit

    def update(self, value: float, force: bool = False) -> None:
        now = self._due(force)
        if now is None:
            return
        frac = 0.0 if self.total <= 0 else min(max(value / self.total, 0.0), 1.0)
        sys.stderr.write(f"\r{self.label} [{self._bar(frac)}] {frac * 100:5.1f}%  {value:.4g} / "
                         f"{self.total:.4g} {self.unit}  ({now - self.start:.1f} s)")
        sys.stderr.flush()

    def close(self, message: str = "") -> None:
        if not self.enabled:
            return
        self.update(self.total if not message else self._value_for_close(), force=True)
        self._end(message)

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


class CountProgress(_OneLine):
    """``simulate_many [#########.........]  3 / 8 done, 1 failed, about 4.2 s left`` on one
    line of stderr, for work counted in items (the members of a sweep) rather than in time.

    The time left is the mean rate so far times the items left: with workers in parallel the
    rate already includes the parallelism, so the estimate needs no knowledge of where the
    items run. Quiet unless ``enabled`` (see :func:`progress_enabled`)."""

    def __init__(self, label: str, total: int, enabled: bool) -> None:
        super().__init__(label, enabled)
        self.total = int(total)
        self.done = 0
        self.failed = 0

    def update(self, done: int, failed: int = 0, force: bool = False) -> None:
        """Show ``done`` items finished, ``failed`` of them with an error."""
        self.done, self.failed = int(done), int(failed)
        now = self._due(force)
        if now is None:
            return
        sys.stderr.write("\r" + self.line(now))
        sys.stderr.flush()

    def line(self, now: float | None = None) -> str:
        """The text of the display (without the carriage return)."""
        now = time.perf_counter() if now is None else now
        elapsed = now - self.start
        frac = 1.0 if self.total <= 0 else min(max(self.done / self.total, 0.0), 1.0)
        text = f"{self.label} [{self._bar(frac)}] {self.done} / {self.total} done"
        if self.failed:
            text += f", {self.failed} failed"
        left = self.total - self.done
        if left > 0 and self.done > 0:
            text += f", about {elapsed / self.done * left:.1f} s left"
        return text + f"  ({elapsed:.1f} s)"

    def close(self, message: str = "") -> None:
        """Draw the final state and end the line, with ``message`` after it."""
        if not self.enabled:
            return
        self.update(self.done, self.failed, force=True)
        self._end(message)
