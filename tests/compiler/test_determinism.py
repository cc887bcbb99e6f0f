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
sys.path.insert(0, sys.argv[1])
from acausal import Component, Eq, Parameter, Variable, compile, connect, der
from acausal.components.translational import ConstantForce, Fixed, Mass, SpringDamper
import andrews_squeezer, piston_engine


class Chain(Component):
    def __init__(self, n=6, **kw):
        super().__init__(**kw)
        self.n = n
        self.wall = Fixed()
        self.links = [SpringDamper() for _ in range(n)]
        self.masses = [Mass() for _ in range(n)]
        self.force = ConstantForce()

    def connections(self):
        out = [connect(self.wall.flange, self.links[0].flange_a)]
        for i in range(self.n):
            out.append(connect(self.links[i].flange_b, self.masses[i].flange_a))
            if i + 1 < self.n:
                out.append(connect(self.masses[i].flange_b, self.links[i + 1].flange_a))
        out.append(connect(self.masses[-1].flange_b, self.force.flange))
        return out


class Point(Component):
    x = Variable(start=0.5)
    y = Variable(start=-0.8)
    vx = Variable(start=0.0)
    vy = Variable(start=0.0)
    lam = Variable(start=10.0)


class Pendulum(Component):
    # two-link pendulum in Cartesian coordinates (index 3): the compiler chooses the states
    L = Parameter(1.0)
    g = Parameter(9.81)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.p = [Point(), Point(x=1.0, y=-1.6)]

    def equations(self):
        a, b = self.p
        return [Eq(der(a.x), a.vx), Eq(der(a.y), a.vy), Eq(der(b.x), b.vx), Eq(der(b.y), b.vy),
                Eq(der(a.vx), -a.lam * a.x + b.lam * (b.x - a.x)),
                Eq(der(a.vy), -a.lam * a.y + b.lam * (b.y - a.y) - self.g),
                Eq(der(b.vx), -b.lam * (b.x - a.x)),
                Eq(der(b.vy), -b.lam * (b.y - a.y) - self.g),
                Eq(a.x ** 2 + a.y ** 2, self.L ** 2),
                Eq((b.x - a.x) ** 2 + (b.y - a.y) ** 2, self.L ** 2)]


out = {}
for name, model in (("chain", Chain()), ("pendulum", Pendulum()),
                    ("piston", piston_engine.PistonEngine()),
                    ("andrews", andrews_squeezer.AndrewsSqueezer())):
    cs = compile(model)
    f = ca.Function("f", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg, cs.observed])
    out[name] = {
        "states": cs.state_names, "algebraic": cs.algebraic_names,
        "dummies": sorted(cs.system.name(v) for v in cs.dummies),
        "equations": [sp.sstr(r) for r in cs.system.residuals],
        "function": hashlib.sha256(f.serialize().encode()).hexdigest(),
    }
print(json.dumps(out))
"""


def _digest(seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "examples")], env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_compiled_systems_do_not_depend_on_the_hash_seed():
    first, second = _digest("1"), _digest("4242")
    assert first.keys() == second.keys()
    for name in first:
        for key in ("states", "algebraic", "dummies", "equations", "function"):
            assert first[name][key] == second[name][key], (name, key)
    # the digest is not empty: states were chosen and code generated
    assert first["pendulum"]["states"] and first["andrews"]["algebraic"]
