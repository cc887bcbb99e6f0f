"""The hybrid benchmark runs (--quick) and reports its records; no timing is asserted."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_hybrid_benchmark_quick_json():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hybrid_events.py"),
                          "--quick", "--json"], capture_output=True, text=True, timeout=300,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    assert [r["model"] for r in records] == ["quarter_car", "bristle"]
    for r in records:
        for key in ("compile_s", "event_s", "smooth_s", "event/smooth", "regularised_s",
                    "event/regularised", "bar/plain", "events", "rhs_event", "rhs_smooth",
                    "check"):
            assert key in r, key
        assert r["events"] >= 1 and r["rhs_event"] > 0
    bristle = records[1]
    # the replay twin (the same element, its events replaced by smooth inputs) and the
    # regularised law are both timed; the check line states the twin's distance
    assert bristle["regularised_s"] > 0 and "max |twin - event|" in bristle["check"]
