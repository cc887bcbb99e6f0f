"""The same model compiles to the same system in every process, whatever Python's hash seed.

String hashing is randomised per process (``PYTHONHASHSEED``), so iterating over a set of
symbols or a dict keyed by them in hash order would change the choice of states, the order of
equations or the generated code from one run to the next. Two subprocesses with different seeds
compile the same models and print a digest: state and algebraic names, dummy derivatives, every
equation after index reduction, and the bytes of the generated CasADi function.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import hashlib, json, sys
import casadi as ca
import sympy as sp
sys.path[:0] = sys.argv[1:3]
from acausal import compile
import andrews_squeezer, piston_engine
from compile_scaling import MassSpringChain, PendulumChain  # the benchmark's models
from acausal.components.multibody.examples import Fourbar1

out = {}
for name, model in (("chain", MassSpringChain(N=6)), ("pendulum", PendulumChain(N=3)),
                    ("piston", piston_engine.PistonEngine()),
                    ("andrews", andrews_squeezer.AndrewsSqueezer()),
                    ("fourbar1", Fourbar1())):  # a 3-D loop closed by the connection graph
    cs = compile(model)
    f = ca.Function("f", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg, cs.observed])
    out[name] = {
        "states": cs.state_names, "algebraic": cs.algebraic_names,
        "dummies": sorted(cs.system.name(v) for v in cs.dummies),
        "equations": [sp.sstr(r) for r in cs.system.residuals],
        "function": hashlib.sha256(f.serialize().encode()).hexdigest(),
        "loops": [(lp.a.path, lp.b.path, lp.components) for lp in cs.flat.loops],
    }
print(json.dumps(out))
"""


def _digest(seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "examples"),
                           str(ROOT / "benchmarks")], env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_compiled_systems_do_not_depend_on_the_hash_seed():
    first, second = _digest("1"), _digest("4242")
    assert first.keys() == second.keys()
    for name in first:
        for key in ("states", "algebraic", "dummies", "equations", "function", "loops"):
            assert first[name][key] == second[name][key], (name, key)
    # the digest is not empty: states were chosen and code generated
    assert first["pendulum"]["dummies"] and first["andrews"]["algebraic"]
    assert first["fourbar1"]["loops"] and first["fourbar1"]["states"] == ["j1.phi", "j1.w"]
