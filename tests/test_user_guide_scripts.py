"""The sweep scripts of the user guide (section 8) run as a reader saves them: each block is
written verbatim to a file and run with ``python script.py`` in a fresh interpreter, from a
folder outside the repository.

``tests/test_docs.py`` runs the guide's blocks inside the test process, where the ``if __name__
== "__main__":`` guard is merely true; only a real script shows that the guard does its work:
Dask's workers (always spawned) and ``spawn`` workers import the script again, and without the
guard they would rerun the sweep (``RuntimeError: Nanny failed to start``, issue 40).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "user_guide.md"


def _section_8_blocks() -> list[str]:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("## 8. Parameter sweeps and ensembles")
    end = text.index("\n## 9.", start)
    return re.findall(r"^```python\n(.*?)^```$", text[start:end], flags=re.S | re.M)


def _block(marker: str) -> str:
    found = [b for b in _section_8_blocks() if marker in b]
    assert len(found) == 1, f"one block of the user guide's section 8 with {marker!r}"
    return found[0]


def _run(tmp_path: Path, name: str, code: str, *args: str,
         timeout: float = 300) -> subprocess.CompletedProcess:
    script = tmp_path / name
    script.write_text(code, encoding="utf-8")
    proc = subprocess.run([sys.executable, *args, str(script)], cwd=tmp_path, check=False,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc


def _finals(line: str) -> list[float]:
    """The numbers of a printed numpy array ``[ 0.0037 -0.0336 ...]``."""
    return [float(x) for x in line[line.index("[") + 1:line.index("]")].split()]


@pytest.fixture(scope="module")
def forked(tmp_path_factory) -> list[str]:
    """The process sweep run as a script with the platform's start method (fork on Linux up
    to Python 3.13): its lines of output."""
    code = _block("processes=2")
    assert 'if __name__ == "__main__":' in code
    return _run(tmp_path_factory.mktemp("sweep"), "sweep.py", code).stdout.splitlines()


def test_process_sweep_runs_as_a_script(forked):
    # six members printed with their parameters, then the last values, then the reason
    assert len(forked) == 8 and all(line.startswith("{'spring.c'") for line in forked[:6]), forked
    finals = _finals(forked[6])
    assert len(finals) == 6 and len(set(finals)) == 6  # different parameters, different runs
    assert forked[7] == "in worker processes (processes=2)"


def test_process_sweep_runs_as_a_script_with_spawned_workers(tmp_path, forked):
    """The same script with ``spawn`` (the default on macOS and Windows; forkserver, which also
    imports the script, is Linux's from Python 3.14): the workers import it as ``__mp_main__``
    and, thanks to the guard, do not rerun the sweep."""
    script = tmp_path / "sweep.py"
    script.write_text(_block("processes=2"), encoding="utf-8")
    launcher = ("import multiprocessing, runpy, sys\n"
                "multiprocessing.set_start_method('spawn')\n"
                "runpy.run_path(sys.argv[1], run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-c", launcher, str(script)], cwd=tmp_path,
                          check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout.splitlines()
    assert len(out) == 8 and out[7] == "in worker processes (processes=2)", out
    assert out[6] == forked[6]  # the same numbers to the last printed digit


def test_dask_sweep_runs_as_a_script(tmp_path, forked):
    if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
        pytest.skip("dask.distributed is not installed (pip install -e '.[dask]')")
    code = _block("client=client")
    assert 'if __name__ == "__main__":' in code
    out = _run(tmp_path, "dask_sweep.py", code).stdout.strip().splitlines()
    finals = _finals(out[-1])
    assert out[-1].endswith("dask") and len(finals) == 4, out
    # the first four members of the process sweep have the same parameters, in order
    assert finals == _finals(forked[6])[:4]  # identical runs print identical digits
