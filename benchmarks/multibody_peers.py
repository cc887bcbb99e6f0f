"""A spatial pendulum chain of N links in acausal, Exudyn and MuJoCo: times and accuracy in one run.

The model (the same in all three tools, SI units)
-------------------------------------------------
* Gravity g = 9.80665 m/s2 along -y (acausal's multibody ``World()`` default).
* N rigid links, each a uniform box 0.5 m long along its local z axis with a 0.05 m x 0.05 m
  cross-section and mass 1 kg: centre of mass at (0, 0, 0.25) in the link frame, inertia about
  it diag(I_cross, I_cross, I_len) with I_cross = m (L^2 + W^2) / 12, I_len = m (W^2 + W^2) / 12;
  the next joint sits at (0, 0, 0.5) in the link frame.
* Joint i (i = 0 .. N-1) is a revolute joint at the start of link i (joint 0 at the world
  origin); its axis is x for even i and y for odd i (in the parent frame, which is the child
  frame at angle 0). Every joint starts at 0.3 rad and at rest; no damping, no friction.
* Simulated for 5 s (``--t-end``).

The three implementations
-------------------------
* **acausal**: ``acausal.components.multibody.chains.SpatialChain`` (``World``, ``Revolute``,
  ``BodyShape``), compiled with ``acausal.compile`` and integrated by ``cs.simulate``: SUNDIALS
  CVODE (through scikit-sundae) with its Adams method (``integrator_options={"method":
  "Adams"}``; ``--acausal-method BDF`` for the default method), rtol = atol = 1e-8, 501 output
  points. From 7 links on, the chain's linear loop (joint accelerations and cut forces) is
  solved inside the CasADi functions (docs/compiler.md, "Linear loops"). **acausal-tight**: the
  same at rtol = atol = 1e-11, the tolerance at which its tip at N = 20 stays within 1e-6 of
  the reference. **acausal-jit**, **acausal-jit-tight**: the same two with ``simulate(jit=True)``
  (the functions the solver calls at every step compiled to machine code by the system's C
  compiler, docs/compiler.md, "Native code"); ``simulate_s`` finds the compiled libraries in
  the cache folder, the note after the row gives the first simulate with an empty cache
  (``first_s``: the C compiler's run included), which happens once per model and machine.
* **default**: what a user's script gets from ``cs.simulate(t_end, rtol=1e-8, atol=1e-8)`` with
  no other option (method, output points, native code: acausal's defaults), each run in a fresh
  Python process (this script started again with an internal option) whose ``ACAUSAL_CACHE_DIR``
  is one new temporary folder: the first run finds it empty (``first_s``), a second run finds
  what the first left there once the background builders it started have ended, and the later
  runs (best of ``--repeat``, ``simulate_s``) what the second left (a run on ``-O0`` code starts
  its ``-O1`` upgrade, docs/compiler.md "Tiered native code"; the note gives the second run's
  time and how long each run's builders went on after it). The note gives what ``sol.stats``
  reports beyond the usual counts (for example which driver ran, and what the defaults did about
  native code) and each process's wall time (start-up, imports and exit included).
* **Exudyn**: one ``ObjectKinematicTree`` (minimal coordinates: one joint angle per link, the
  composite-rigid-body mass matrix, joint offsets from the parent joint, COM inertias in link
  coordinates, ``RevoluteX``/``RevoluteY`` joints), see the Exudyn documentation of
  ObjectKinematicTree and SensorKinematicTree (https://exudyn.readthedocs.io, items
  "ObjectKinematicTree", "SensorKinematicTree"). Integrated by ``mbs.SolveDynamic`` with the
  explicit ``DynamicSolverType.DOPRI5`` and automatic step size (``automaticStepSize``,
  ``relativeTolerance`` = ``absoluteTolerance`` = 1e-8, largest step 0.05 s via
  ``numberOfSteps``, first step 1e-3 s), see the Exudyn documentation of the explicit solvers
  and ``TimeIntegrationSettings``.
* **MuJoCo**: an MJCF model of N nested bodies, each with a ``hinge`` joint at its origin, an
  ``<inertial pos="0 0 0.25" mass="1" diaginertia=...>`` and the next body at (0, 0, 0.5); a
  site at (0, 0, 0.5) of the last body marks the tip; ``<option gravity="0 -9.80665 0"
  timestep="5e-4" integrator="RK4">`` with ``<flag contact="disable" energy="enable"/>``, see the
  MuJoCo documentation (https://mujoco.readthedocs.io: XML reference, "option/flag";
  programming guide, "rollout"). Fixed step RK4, so its accuracy is that of the step size, not
  of a tolerance. **mujoco-matched**: the same with the step chosen so that MuJoCo's tip error
  at t_end is at most that of the ``default`` row (else of the ``acausal`` row), both at
  tolerance 1e-8: a first guess from RK4's error ~ dt^4 and the dt = 5e-4 run, steps of 1.5x
  to bracket the largest step that meets it, four bisections in log dt (the step sizes tried
  and their errors go to the progress output, the neighbours of the chosen one into the note).
  Only where the reference's uncertainty is below a tenth of that error (N = 5, 20).

What is timed (``time.perf_counter``, best of ``--repeat``)
------------------------------------------------------------
* ``build_s``: acausal ``compile(model)`` (the component tree is built outside the timer);
  Exudyn: creating the system, its node, kinematic tree and sensors, and ``mbs.Assemble()``;
  MuJoCo: ``MjModel.from_xml_string``.
* ``simulate_s``: acausal ``cs.simulate(t_end, ...)`` (initialisation, solver set-up,
  integration, output); Exudyn ``mbs.SolveDynamic`` (sensors store the joint coordinates
  and velocities 500 times and the tip position); MuJoCo ``mujoco.rollout.rollout`` over
  t_end / 5e-4 steps (the stepping loop in C, one thread; the script falls back to a Python
  loop of ``mujoco.mj_step`` where ``mujoco.rollout`` does not exist and says so in the
  ``integrator`` column).
* ``sim/exu``: simulate_s divided by Exudyn's simulate_s at the same N. After the table, per N,
  the ratios of issue 42: the default row's first and later run over Exudyn, over
  mujoco-matched and over MuJoCo at dt = 5e-4.
* ``steps`` / ``rhs``: what the tool reports: acausal the right-hand-side evaluations counted
  by its solver wrapper; Exudyn the accepted (``it.currentStepIndex``) and rejected steps;
  MuJoCo the fixed number of steps (RK4: 4 evaluations of the dynamics per step).

Accuracy checks (not timed)
---------------------------
* Tip position (end of the last link) at t_end against a tight reference: Exudyn DOPRI5 with
  rtol = atol = 1e-12 (or, without Exudyn, acausal with rtol = atol = 1e-11). Its uncertainty is
  its difference from the same solver at 10 times the tolerance. A tip error within 1e-6
  passes (``tip_ok``) where that uncertainty is below 1e-7; otherwise the error is printed but
  not judged (``tip_ok`` null). The chain is chaotic: the 5 s tip is well defined at N = 5 and
  20 (uncertainty ~1e-8 at N = 20, where none of the timed runs meets 1e-6), but not at N = 50,
  where runs at 1e-8, 1e-10, 1e-11 differ by about 1 m and DOPRI5 at 1e-11 already runs into
  its round-off floor (the step size control hits ``minimumStepSize`` = 1e-8 s). The reference
  runs therefore have a watchdog (a pre-step function: stop at the smallest step or after
  --max-seconds / 2) and are not attempted at larger N once one was unusable. ``--check`` also
  runs acausal at 1e-11 and MuJoCo RK4 at dt = 6.25e-5 at t_end and prints the three and their
  differences (independent formulations: absolute coordinates with a DAE compiler, minimal
  coordinates with a recursive algorithm, and MuJoCo's own). MuJoCo's RK4 at dt = 5e-4 is not
  expected to meet 1e-6: its error is reported, never a failure.
* Energy drift: max over the output points of |E(t) - E(0)| divided by the energy scale, the
  largest kinetic energy over the run (the potential energy is only defined up to a constant,
  the kinetic energy is the energy that actually moves). E is kinetic + gravity potential
  (m g y of every centre of mass). acausal:
  ``acausal.components.multibody.energy.mechanical_energy`` from the solution; Exudyn: this
  script's own forward kinematics (numpy) from the stored joint angles and velocities; MuJoCo:
  ``data.energy`` (potential + kinetic, with ``mjENBL_ENERGY``; MuJoCo's potential energy is
  -sum m g.x_com, the same sign and zero as here: E(0) agrees with the other two) evaluated on
  ~500 of the rollout's states.
* ``--check``: before any timing matters, shows that the three tools simulate the same system:
  the initial position of every joint in acausal, Exudyn, MuJoCo and the numpy forward
  kinematics; the tip at t = 0.5 s in all three (acausal and Exudyn at tolerance 1e-8 must agree
  within 1e-6); the initial energy of each; the numpy forward kinematics against Exudyn's own
  tip sensor; and the tight references at t_end. Exits with status 1 when a check fails.

Usage::

    python benchmarks/multibody_peers.py                       # N = 5, 20, 50, 100, all tools
    python benchmarks/multibody_peers.py --sizes 5 20 --repeat 3
    python benchmarks/multibody_peers.py --tools exudyn mujoco --t-end 2
    python benchmarks/multibody_peers.py --sizes 20 --tools default exudyn mujoco mujoco-matched
    python benchmarks/multibody_peers.py --sizes 100 --tools default exudyn mujoco --no-reference
    python benchmarks/multibody_peers.py --json                # one JSON list on stdout only
    python benchmarks/multibody_peers.py --quick               # N = 3, 0.5 s (smoke test)
    python benchmarks/multibody_peers.py --check               # cross-checks at N = 2 and 5

A tool that is not installed is reported in one line and left out. A tool whose estimated time at
the next size (the previous size's build + simulate time scaled by (N_next / N_prev)^2) exceeds
``--max-seconds`` (120) skips the larger sizes with a note; nothing is killed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# the stdout redirection of --json, shared with the other benchmark (this script's folder is on
# sys.path when it runs)
from compile_scaling import stdout_to_stderr

from acausal import compile
from acausal.components.multibody.chains import SpatialChain
from acausal.components.multibody.energy import mechanical_energy
from acausal.run import native

# -- the model ----------------------------------------------------------------------------------
LENGTH, WIDTH, MASS, GRAVITY = 0.5, 0.05, 1.0, 9.80665
I_CROSS = MASS * (LENGTH**2 + WIDTH**2) / 12
I_LEN = MASS * (WIDTH**2 + WIDTH**2) / 12
PHI0 = 0.3
T_END = 5.0

# -- solver settings ----------------------------------------------------------------------------
TOL = 1e-8                 # rtol = atol of acausal and Exudyn in the timed runs
ACAUSAL_METHOD = "Adams"   # CVODE's method for acausal (non-stiff; BDF: --acausal-method BDF)
ACAUSAL_TIGHT_TOL = 1e-11  # tool "acausal-tight": the tolerance at which its tip is within 1e-6
REFERENCE_TOL = 1e-12      # Exudyn DOPRI5 reference
ACAUSAL_REFERENCE_TOL = 1e-11
TIP_TOL = 1e-6             # accuracy requirement on the tip at t_end
CHECK_TOL = 1e-6           # acausal vs Exudyn at t = 0.5 s (both at TOL) in --check
EXUDYN_MAX_STEP = 0.05     # s, Exudyn's largest step (t_end / numberOfSteps)
EXUDYN_FIRST_STEP = 1e-3   # s
MUJOCO_DT = 5e-4           # s, MuJoCo RK4 step
MUJOCO_REFERENCE_DT = MUJOCO_DT / 8   # --check: RK4 error ~dt^4, 4096 times smaller
N_INTERVALS = 500          # output / energy sampling intervals
TOOLS = ("acausal", "acausal-tight", "acausal-jit", "acausal-jit-tight", "default", "exudyn",
         "mujoco", "mujoco-matched")
#: the rows that time other runs of the same tools (not part of --check)
TIMING_VARIANTS = ("default", "mujoco-matched")
DEFAULT_CHILD = "--default-child"  # the default row's child process (internal option)
#: sol.stats entries every run has (the others, e.g. about native code, go into the note)
STANDARD_STATS = ("solver", "solver_calls", "rhs_evaluations", "root_evaluations", "events",
                  "state_checks")
MATCH_FACTOR = 1.5         # mujoco-matched: steps between bracketing step sizes
MATCH_BISECTIONS = 4       # then bisections of the bracket (in log dt): within 1.5^(1/16)
MATCH_TRIES = 8            # at most this many bracketing steps
INSTALL_HINT = "pip install -e '.[bench]'"


def joint_axis(i: int) -> int:
    """Index of joint i's axis: x (0) for even i, y (1) for odd i."""
    return 0 if i % 2 == 0 else 1


# -- numpy forward kinematics (independent of the three tools) ----------------------------------
def _rotations(axis: int, angle: np.ndarray) -> np.ndarray:
    """Rotation matrices (k, 3, 3) about coordinate axis ``axis`` by the angles (k,)."""
    c, s = np.cos(angle), np.sin(angle)
    rot = np.zeros(angle.shape + (3, 3))
    j, k = [(1, 2), (2, 0)][axis]
    rot[:, axis, axis] = 1.0
    rot[:, j, j] = c
    rot[:, k, k] = c
    rot[:, j, k] = -s
    rot[:, k, j] = s
    return rot


def chain_kinematics(q: np.ndarray, qd: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Joint origins (k, N, 3), tip (k, 3), kinetic and potential energy (k,) of the chain for
    joint angles ``q`` and velocities ``qd`` of shape (k, N)."""
    q = np.atleast_2d(q)
    qd = np.zeros_like(q) if qd is None else np.atleast_2d(qd)
    k, n = q.shape
    rot = np.broadcast_to(np.eye(3), (k, 3, 3))
    origin, omega, velocity = np.zeros((k, 3)), np.zeros((k, 3)), np.zeros((k, 3))
    inertia = np.diag([I_CROSS, I_CROSS, I_LEN])
    origins = np.empty((k, n, 3))
    kinetic, potential = np.zeros(k), np.zeros(k)
    for i in range(n):
        if i > 0:  # the joint sits at the end of the previous link
            arm = rot[:, :, 2] * LENGTH
            origin = origin + arm
            velocity = velocity + np.cross(omega, arm)
        rot = rot @ _rotations(joint_axis(i), q[:, i])
        omega = omega + rot[:, :, joint_axis(i)] * qd[:, i:i + 1]
        origins[:, i] = origin
        to_com = rot[:, :, 2] * (LENGTH / 2)
        v_com = velocity + np.cross(omega, to_com)
        w_body = np.einsum("kji,kj->ki", rot, omega)
        kinetic += 0.5 * MASS * np.sum(v_com**2, axis=1) \
            + 0.5 * np.einsum("ki,ij,kj->k", w_body, inertia, w_body)
        potential += MASS * GRAVITY * (origin[:, 1] + to_com[:, 1])
    tip = origin + rot[:, :, 2] * LENGTH
    return {"origins": origins, "tip": tip, "kinetic": kinetic, "potential": potential}


# -- one tool run -------------------------------------------------------------------------------
@dataclass
class Run:
    """The result of one tool at one size."""

    build_s: float
    simulate_s: float
    tip: np.ndarray                  # tip position at t_end
    energy: np.ndarray | None        # total energy at the output points
    kinetic: np.ndarray | None       # kinetic energy at the output points
    integrator: str
    steps: int | None = None
    rhs: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def drift(self) -> tuple[float | None, float | None]:
        """(max |E - E(0)| / max kinetic energy, max kinetic energy)."""
        if self.energy is None or self.kinetic is None:
            return None, None
        scale = float(np.max(self.kinetic))
        if not scale > 0:
            return None, scale
        return float(np.max(np.abs(self.energy - self.energy[0])) / scale), scale


# -- acausal ------------------------------------------------------------------------------------
@contextlib.contextmanager
def empty_native_cache():
    """acausal's native-code cache in a new temporary folder for the block (the user's own
    setting of the variable is restored afterwards)."""
    before = os.environ.get(native.CACHE_ENV)
    with tempfile.TemporaryDirectory(prefix="acausal-native-") as cache:
        os.environ[native.CACHE_ENV] = cache
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(native.CACHE_ENV, None)
            else:
                os.environ[native.CACHE_ENV] = before


def run_acausal(n: int, t_end: float, tol: float = TOL, repeat: int = 1,
                method: str | None = None, jit: bool = False) -> Run:
    method = method or ACAUSAL_METHOD
    best_build = best_sim = math.inf
    extra: dict[str, Any] = {}
    with empty_native_cache() if jit else contextlib.nullcontext():
        if jit:
            # the C compiler's run, once per model and machine: a first simulate with an empty
            # cache folder (not part of simulate_s, which finds the libraries in the cache)
            cs = compile(SpatialChain(n=n, link_length=LENGTH, width=WIDTH, m=MASS, phi0=PHI0))
            t0 = time.perf_counter()
            cs.simulate(t_end, rtol=tol, atol=tol, n_points=N_INTERVALS + 1, progress=False,
                        integrator_options={"method": method}, jit=True)
            extra["first_s"] = time.perf_counter() - t0
        for _ in range(repeat):
            model = SpatialChain(n=n, link_length=LENGTH, width=WIDTH, m=MASS, phi0=PHI0)
            t0 = time.perf_counter()
            cs = compile(model)
            best_build = min(best_build, time.perf_counter() - t0)
            t0 = time.perf_counter()
            sol = cs.simulate(t_end, rtol=tol, atol=tol, n_points=N_INTERVALS + 1,
                              progress=False, integrator_options={"method": method}, jit=jit)
            best_sim = min(best_sim, time.perf_counter() - t0)
    kinetic, potential = mechanical_energy(sol, cs, model.links, split=True)
    tip = np.asarray(sol[f"links[{n - 1}].frame_b.r_0"], dtype=float)[:, -1]
    origins0 = np.array([np.asarray(sol[f"links[{i}].frame_a.r_0"], dtype=float)[:, 0]
                         for i in range(n)])
    stats = getattr(sol, "stats", {}) or {}
    q = np.array([np.asarray(sol[f"joints[{i}].phi"], dtype=float) for i in range(n)]).T
    qd = np.array([np.asarray(sol[f"joints[{i}].w"], dtype=float) for i in range(n)]).T
    extra.update(sol=sol, t=np.asarray(sol.t), origins0=origins0, q=q, qd=qd)
    return Run(best_build, best_sim, tip, kinetic + potential, kinetic,
               f"CVODE {method} rtol=atol={tol:g}" + (", native code" if jit else ""),
               rhs=stats.get("rhs_evaluations"), extra=extra)


# -- Exudyn -------------------------------------------------------------------------------------
def _exudyn_settings(exu: Any, t_end: float, tol: float) -> Any:
    settings = exu.SimulationSettings()
    ti = settings.timeIntegration
    ti.endTime = t_end
    ti.numberOfSteps = max(1, math.ceil(t_end / EXUDYN_MAX_STEP))  # largest step t_end / this
    ti.automaticStepSize = True
    ti.initialStepSize = min(EXUDYN_FIRST_STEP, t_end)
    ti.relativeTolerance = tol
    ti.absoluteTolerance = tol
    ti.verboseMode = 0
    if hasattr(settings, "solution"):  # Exudyn >= 1.10 names
        settings.solution.file.write = False
        settings.solution.sensors.writePeriod = t_end / N_INTERVALS
    else:
        settings.solutionSettings.writeSolutionToFile = False
        settings.solutionSettings.sensorsWritePeriod = t_end / N_INTERVALS
    return settings


def build_exudyn(exu: Any, n: int, link_sensors: bool = False) -> tuple[Any, Any, dict]:
    """The chain as one Exudyn ObjectKinematicTree; returns the system container (which must
    outlive the system), the system and its sensor numbers."""
    import exudyn.itemInterface as ei

    container = exu.SystemContainer()
    mbs = container.AddSystem()
    node = mbs.AddNode(ei.NodeGenericODE2(referenceCoordinates=[0.0] * n,
                                          initialCoordinates=[PHI0] * n,
                                          initialCoordinates_t=[0.0] * n,
                                          numberOfODE2Coordinates=n))
    joint_types = [exu.JointType.RevoluteX, exu.JointType.RevoluteY]
    tree = mbs.AddObject(ei.ObjectKinematicTree(
        nodeNumber=node, gravity=[0.0, -GRAVITY, 0.0],
        jointTypes=[joint_types[joint_axis(i)] for i in range(n)],
        linkParents=list(range(-1, n - 1)),
        jointTransformations=exu.Matrix3DList([np.eye(3)] * n),
        # the offset of joint i from joint i-1, in link i-1 coordinates: the end of link i-1
        jointOffsets=exu.Vector3DList([[0.0, 0.0, 0.0]] + [[0.0, 0.0, LENGTH]] * (n - 1)),
        linkInertiasCOM=exu.Matrix3DList([np.diag([I_CROSS, I_CROSS, I_LEN])] * n),
        linkCOMs=exu.Vector3DList([[0.0, 0.0, LENGTH / 2]] * n),
        linkMasses=[MASS] * n))
    out = exu.OutputVariableType
    sensors = {
        "tip": mbs.AddSensor(ei.SensorKinematicTree(
            objectNumber=tree, linkNumber=n - 1, localPosition=[0.0, 0.0, LENGTH],
            outputVariableType=out.Position, storeInternal=True, writeToFile=False)),
        "q": mbs.AddSensor(ei.SensorNode(nodeNumber=node, outputVariableType=out.Coordinates,
                                         storeInternal=True, writeToFile=False)),
        "qd": mbs.AddSensor(ei.SensorNode(nodeNumber=node, outputVariableType=out.Coordinates_t,
                                          storeInternal=True, writeToFile=False)),
    }
    if link_sensors:  # the joint origins, for --check
        sensors["origins"] = [mbs.AddSensor(ei.SensorKinematicTree(
            objectNumber=tree, linkNumber=i, localPosition=[0.0, 0.0, 0.0],
            outputVariableType=out.Position, storeInternal=True, writeToFile=False))
            for i in range(n)]
    mbs.Assemble()
    return container, mbs, sensors


class Unfinished(RuntimeError):
    """A reference run stopped by its watchdog before t_end."""


def _watchdog(seconds: float, min_step: float, why: list[str]) -> Any:
    """An Exudyn pre-step function that stops the solver (returns False) after ``seconds`` of
    wall time or once the step size control has hit ``min_step`` (DOPRI5 then goes on at the
    smallest step and may need hours; Exudyn's own CPU timeout is not checked there)."""
    deadline = time.perf_counter() + seconds

    def pre_step(mbs: Any, t: float) -> bool:
        if mbs.sys["dynamicSolver"].it.currentStepSize <= min_step * (1 + 1e-9):
            why.append(f"the step size control hit minimumStepSize = {min_step:g} s at "
                       f"t = {t:.3g} s (round-off floor of the tolerance)")
            return False
        if time.perf_counter() > deadline:
            why.append(f"not finished within {seconds:g} s (at t = {t:.3g} s)")
            return False
        return True

    return pre_step


def run_exudyn(n: int, t_end: float, tol: float = TOL, repeat: int = 1,
               link_sensors: bool = False, watchdog_s: float | None = None) -> Run:
    """Build and solve the Exudyn chain. With ``watchdog_s`` (for the untimed references: a
    Python function runs before every step) the solver stops after so many seconds or when the
    step size reaches its lower limit, and :class:`Unfinished` is raised."""
    import exudyn as exu

    best_build = best_sim = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        container, mbs, sensors = build_exudyn(exu, n, link_sensors)
        best_build = min(best_build, time.perf_counter() - t0)
        origins0 = np.array([mbs.GetSensorValues(s) for s in sensors.get("origins", [])])
        settings = _exudyn_settings(exu, t_end, tol)
        why: list[str] = []
        if watchdog_s is not None:
            mbs.SetPreStepUserFunction(
                _watchdog(watchdog_s, settings.timeIntegration.minimumStepSize, why))
        t0 = time.perf_counter()
        ok = mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.DOPRI5)
        best_sim = min(best_sim, time.perf_counter() - t0)
        if not ok:
            raise RuntimeError(f"Exudyn SolveDynamic failed (N = {n})")
        if why:
            raise Unfinished(f"Exudyn DOPRI5 {tol:g} stopped: {why[0]}")
    tip = np.array(mbs.GetSensorValues(sensors["tip"]), dtype=float)
    q = np.asarray(mbs.GetSensorStoredData(sensors["q"]))
    qd = np.asarray(mbs.GetSensorStoredData(sensors["qd"]))
    kin = chain_kinematics(q[:, 1:], qd[:, 1:])
    it = mbs.sys["dynamicSolver"].it
    del container
    return Run(best_build, best_sim, tip, kin["kinetic"] + kin["potential"], kin["kinetic"],
               f"DOPRI5 rtol=atol={tol:g}", steps=int(it.currentStepIndex),
               extra={"rejected": int(it.rejectedAutomaticStepSizeSteps), "t": q[:, 0],
                      "origins0": origins0, "fk_tip": kin["tip"][-1], "q": q[:, 1:],
                      "qd": qd[:, 1:]})


# -- MuJoCo -------------------------------------------------------------------------------------
def mujoco_xml(n: int, dt: float = MUJOCO_DT) -> str:
    """MJCF of the chain: N nested bodies, the hinge of each at its body origin."""
    body = f'<site name="tip" pos="0 0 {LENGTH!r}"/>'
    for i in reversed(range(n)):
        axis = ("1 0 0", "0 1 0")[joint_axis(i)]
        pos = "0 0 0" if i == 0 else f"0 0 {LENGTH!r}"
        body = (f'<body name="link{i}" pos="{pos}">'
                f'<joint name="joint{i}" type="hinge" axis="{axis}"/>'
                f'<inertial pos="0 0 {LENGTH / 2!r}" mass="{MASS!r}" '
                f'diaginertia="{I_CROSS!r} {I_CROSS!r} {I_LEN!r}"/>{body}</body>')
    return (f'<mujoco model="chain{n}">'
            f'<option gravity="0 {-GRAVITY!r} 0" timestep="{dt!r}" integrator="RK4">'
            '<flag contact="disable" energy="enable"/></option>'
            f"<worldbody>{body}</worldbody></mujoco>")


def run_mujoco(n: int, t_end: float, repeat: int = 1, dt: float = MUJOCO_DT) -> Run:
    import mujoco

    try:
        from mujoco import rollout
    except ImportError:
        rollout = None
    nstep = max(1, math.ceil(t_end / dt - 1e-9))
    dt = t_end / nstep
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    best_build = best_sim = math.inf
    for _ in range(repeat):
        xml = mujoco_xml(n, dt)
        t0 = time.perf_counter()
        model = mujoco.MjModel.from_xml_string(xml)
        best_build = min(best_build, time.perf_counter() - t0)
        data = mujoco.MjData(model)
        data.qpos[:] = PHI0
        data.qvel[:] = 0.0
        mujoco.mj_forward(model, data)
        origins0 = np.array(data.xpos[1:])
        state0 = np.empty(mujoco.mj_stateSize(model, spec))
        mujoco.mj_getState(model, data, state0, spec)
        if rollout is not None:
            t0 = time.perf_counter()
            states, _ = rollout.rollout(model, data, state0, nstep=nstep)
            best_sim = min(best_sim, time.perf_counter() - t0)
            states = np.concatenate([state0[None], states[0]])
        else:
            states = np.empty((nstep + 1, state0.size))
            states[0] = state0
            t0 = time.perf_counter()
            for k in range(nstep):
                mujoco.mj_step(model, data)
                mujoco.mj_getState(model, data, states[k + 1], spec)
            best_sim = min(best_sim, time.perf_counter() - t0)
    samples = np.unique(np.linspace(0, nstep, N_INTERVALS + 1).round().astype(int))
    energy, kinetic, t = (np.empty(samples.size) for _ in range(3))
    for j, k in enumerate(samples):
        mujoco.mj_setState(model, data, states[k], spec)
        mujoco.mj_forward(model, data)
        energy[j], kinetic[j], t[j] = data.energy[0] + data.energy[1], data.energy[1], data.time
    mujoco.mj_setState(model, data, states[-1], spec)
    mujoco.mj_forward(model, data)
    tip = np.array(data.site_xpos[0], dtype=float)
    stepper = "rollout" if rollout is not None else "Python mj_step loop"
    return Run(best_build, best_sim, tip, energy, kinetic, f"RK4 dt={dt:g} ({stepper})",
               steps=nstep, rhs=4 * nstep, extra={"t": t, "origins0": origins0})


# -- acausal's defaults, each run in a fresh process ---------------------------------------------
def default_child(n: int, t_end: float) -> int:
    """The child process of the ``default`` row: build and compile the chain, then
    ``simulate(t_end, rtol=TOL, atol=TOL)`` with no other option; one JSON object on stdout
    (times, tip, energies, ``sol.stats``)."""
    with stdout_to_stderr(True):
        model = SpatialChain(n=n, link_length=LENGTH, width=WIDTH, m=MASS, phi0=PHI0)
        t0 = time.perf_counter()
        cs = compile(model)
        build_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        sol = cs.simulate(t_end, rtol=TOL, atol=TOL)
        simulate_s = time.perf_counter() - t0
        kinetic, potential = mechanical_energy(sol, cs, model.links, split=True)
        tip = np.asarray(sol[f"links[{n - 1}].frame_b.r_0"], dtype=float)[:, -1]
    out = {"build_s": build_s, "simulate_s": simulate_s, "tip": tip.tolist(),
           "kinetic": np.asarray(kinetic).tolist(), "potential": np.asarray(potential).tolist(),
           "stats": dict(getattr(sol, "stats", {}) or {})}
    print(json.dumps(out, default=str))  # numpy numbers and anything else as text
    return 0


def _default_process(n: int, t_end: float, cache: str) -> dict[str, Any]:
    """One fresh Python process running :func:`default_child` with ``cache`` as acausal's
    cache folder; its JSON, plus ``process_s`` (the process's wall time, start-up and exit
    included)."""
    import subprocess

    env = dict(os.environ, **{native.CACHE_ENV: cache})
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), DEFAULT_CHILD, str(n),
                           repr(t_end)], env=env, capture_output=True, text=True, check=False)
    process_s = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"the default row's process failed (N = {n}):\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = process_s
    return out


def _stats_note(stats: dict[str, Any]) -> str:
    """What ``sol.stats`` says beyond the counts every run has (driver, native code, ...)."""
    extra = {k: v for k, v in stats.items() if k not in STANDARD_STATS}
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in extra.items()) or "-"


def run_default(n: int, t_end: float, repeat: int = 1) -> Run:
    """``simulate(t_end, rtol=1e-8, atol=1e-8)`` with no other option, as a user's script runs
    it: each run in a fresh process, all with one new cache folder. The first run finds it
    empty (``first_s``: whatever the defaults do about native code happens there), the later
    ones (best of ``repeat``; ``simulate_s``) find what the first left in it."""
    from pathlib import Path

    from native_tiering import wait_for_builder

    with tempfile.TemporaryDirectory(prefix="acausal-default-") as cache:
        first = _default_process(n, t_end, cache)
        # what the first run's builders leave is there before the next run, as for a user who
        # runs the model again some time later; a run on -O0 code (a large model's first
        # build) starts its -O1 upgrade, which the runs after it load: the second run, then
        # the later ones (the steady state) once that build is done too
        builder_s = wait_for_builder(Path(cache))
        second = _default_process(n, t_end, cache)
        upgrade_s = wait_for_builder(Path(cache))
        later = min((_default_process(n, t_end, cache) for _ in range(repeat)),
                    key=lambda out: out["simulate_s"])
    kinetic, potential = np.array(later["kinetic"]), np.array(later["potential"])
    stats = later["stats"]
    note = (f"first run: {_stats_note(first['stats'])}, process {first['process_s']:.2f} s, "
            f"its builders {builder_s:.1f} s after it; second run: simulate "
            f"{second['simulate_s']:.3f} s, {_stats_note(second['stats'])}, its builders "
            f"{upgrade_s:.1f} s after it; "
            f"later run: {_stats_note(stats)}, process {later['process_s']:.2f} s")
    return Run(later["build_s"], later["simulate_s"], np.array(later["tip"]),
               kinetic + potential, kinetic,
               f"simulate() defaults ({stats.get('solver', '?')}) rtol=atol={TOL:g}",
               rhs=stats.get("rhs_evaluations"),
               extra={"first_s": first["simulate_s"], "note": note,
                      "first_stats": first["stats"], "stats": stats})


# -- MuJoCo at acausal's tip error ------------------------------------------------------------
def matched_mujoco_steps(n: int, t_end: float, ref_tip: np.ndarray, target: float,
                         log: Any) -> tuple[int | None, dict[int, float]]:
    """The number of RK4 steps over t_end with which MuJoCo's tip error at t_end is at most
    ``target``, as few as this search finds (None: none down to the smallest step tried), and
    the tip error of every step count tried.

    RK4's error scales like dt^4: the first guess is dt = 5e-4 x (target / error there)^(1/4);
    steps of MATCH_FACTOR bracket the largest step that meets the target, and MATCH_BISECTIONS
    bisections (in log dt) narrow the bracket. The chain is chaotic, so the error need not be
    monotonic in dt; the search returns a step that meets the target, next to one that does
    not."""
    errors: dict[int, float] = {}

    def ok(nstep: int) -> bool:
        if nstep not in errors:
            errors[nstep] = float(np.max(np.abs(
                run_mujoco(n, t_end, dt=t_end / nstep).tip - ref_tip)))
            print(f"  mujoco-matched: dt = {t_end / nstep:.3g} s, tip error "
                  f"{errors[nstep]:.2e} (target {target:.2e})", file=log, flush=True)
        return errors[nstep] <= target

    def steps(dt: float) -> int:
        return max(1, math.ceil(t_end / dt - 1e-9))

    base = steps(MUJOCO_DT)
    ok(base)
    guess = MUJOCO_DT * (target / max(errors[base], 1e-300)) ** 0.25
    nstep = steps(min(max(guess, MUJOCO_DT / 64), t_end))
    good = bad = None   # step counts that meet / miss the target (good > bad: smaller dt)
    for _ in range(MATCH_TRIES):
        if ok(nstep):
            good = nstep
            if bad is not None or nstep == 1:
                break
            nstep = max(1, steps(t_end / nstep * MATCH_FACTOR))
        else:
            bad = nstep
            if good is not None:
                break
            nstep = steps(t_end / nstep / MATCH_FACTOR)
    if good is None:
        return None, errors
    for _ in range(MATCH_BISECTIONS):
        if bad is None or good - bad <= 1:
            break
        mid = round(math.sqrt(good * bad))
        if mid in (good, bad):
            break
        if ok(mid):
            good = mid
        else:
            bad = mid
    return good, errors


def run_mujoco_matched(n: int, t_end: float, repeat: int, ref_tip: np.ndarray, target: float,
                       matched: str, log: Any) -> Run | str:
    """MuJoCo RK4 with the largest step the search finds whose tip error is at most
    ``target`` (the tip error of the ``matched`` row); the reason as text where none is."""
    nstep, errors = matched_mujoco_steps(n, t_end, ref_tip, target, log)
    if nstep is None:
        return (f"no RK4 step down to dt = {t_end / max(errors):.2g} s reaches the "
                f"{matched} row's tip error {target:.1e}")
    run = run_mujoco(n, t_end, repeat, dt=t_end / nstep)
    finer = [k for k in errors if k > nstep]
    coarser = [k for k in errors if k < nstep]
    run.extra["note"] = (
        f"dt matched to the {matched} row's tip error {target:.1e} ({len(errors)} step sizes "
        "tried" + (f"; dt = {t_end / max(coarser):.3g} s: {errors[max(coarser)]:.1e}"
                   if coarser else "")
        + (f"; dt = {t_end / min(finer):.3g} s: {errors[min(finer)]:.1e}" if finer else "")
        + ")")
    return run


def run_acausal_tight(n: int, t_end: float, repeat: int = 1) -> Run:
    """acausal at the tolerance its tip needs to stay within TIP_TOL of the reference."""
    return run_acausal(n, t_end, ACAUSAL_TIGHT_TOL, repeat)


def run_acausal_jit(n: int, t_end: float, repeat: int = 1) -> Run:
    """acausal with ``simulate(jit=True)`` at the benchmark's tolerance."""
    return run_acausal(n, t_end, TOL, repeat, jit=True)


def run_acausal_jit_tight(n: int, t_end: float, repeat: int = 1) -> Run:
    """acausal with ``simulate(jit=True)`` at the tolerance its tip needs."""
    return run_acausal(n, t_end, ACAUSAL_TIGHT_TOL, repeat, jit=True)


RUNNERS = {"acausal": run_acausal, "acausal-tight": run_acausal_tight,
           "acausal-jit": run_acausal_jit, "acausal-jit-tight": run_acausal_jit_tight,
           "default": run_default, "exudyn": run_exudyn, "mujoco": run_mujoco}


def available(tool: str) -> bool:
    """Whether a peer package imports (acausal always does: this script imports it)."""
    if tool.startswith("acausal") or tool == "default":
        return True
    try:
        importlib.import_module(tool.split("-")[0])  # mujoco-matched: mujoco
    except ImportError:
        return False
    return True


@dataclass
class Reference:
    """The tight reference of the tip at t_end, with its own uncertainty: the difference from
    the same solver at a 10 times larger tolerance."""

    tip: np.ndarray | None
    name: str
    uncertainty: float | None = None
    note: str | None = None

    def usable(self) -> bool:
        """Whether it can judge a tip error of TIP_TOL."""
        return self.uncertainty is not None and self.uncertainty <= TIP_TOL / 10


def reference_tip(n: int, t_end: float, budget: float) -> Reference:
    """Exudyn DOPRI5 at 1e-12 (else acausal at 1e-11), compared with the same at 10 times the
    tolerance; each Exudyn run stops after ``budget`` seconds or at its smallest step."""
    if available("exudyn"):
        name, tols = f"exudyn DOPRI5 {REFERENCE_TOL:g}", (10 * REFERENCE_TOL, REFERENCE_TOL)

        def solve(tol: float) -> np.ndarray:
            return run_exudyn(n, t_end, tol, watchdog_s=budget).tip
    else:
        name = f"acausal CVODE {ACAUSAL_METHOD} {ACAUSAL_REFERENCE_TOL:g}"
        tols = (10 * ACAUSAL_REFERENCE_TOL, ACAUSAL_REFERENCE_TOL)

        def solve(tol: float) -> np.ndarray:
            return run_acausal(n, t_end, tol).tip
    tips = []
    for tol in tols:
        try:
            tips.append(solve(tol))
        except Unfinished as err:
            return Reference(None, name, note=f"no reference: {err}")
    uncertainty = float(np.max(np.abs(tips[1] - tips[0])))
    ref = Reference(tips[1], name, uncertainty)
    if not ref.usable():
        ref.note = (f"tip not judged: the reference changes by {uncertainty:.1e} m between "
                    f"tolerances {tols[0]:g} and {tols[1]:g} (chaotic motion)")
    return ref


# -- the benchmark ------------------------------------------------------------------------------
def record(tool: str, n: int, t_end: float, run: Run | None, ref: Reference,
           note: str | None = None) -> dict[str, Any]:
    rec: dict[str, Any] = {"tool": tool, "N": n, "t_end": t_end, "build_s": None,
                           "simulate_s": None, "ratio_exudyn": None, "tip": None,
                           "tip_error": None, "tip_ok": None, "energy_drift": None,
                           "energy_scale": None, "steps": None, "rhs_evaluations": None,
                           "integrator": None, "first_s": None, "reference": ref.name,
                           "reference_uncertainty": ref.uncertainty,
                           "reference_note": ref.note, "note": note}
    if run is None:
        return rec
    drift, scale = run.drift()
    rec.update(build_s=run.build_s, simulate_s=run.simulate_s, tip=run.tip.tolist(),
               energy_drift=drift, energy_scale=scale, steps=run.steps,
               rhs_evaluations=run.rhs, integrator=run.integrator,
               first_s=run.extra.get("first_s"))
    if ref.tip is not None:
        err = float(np.max(np.abs(run.tip - ref.tip)))
        rec.update(tip_error=err, tip_ok=bool(err <= TIP_TOL) if ref.usable() else None)
    if "rejected" in run.extra:
        rec["note"] = f"{run.extra['rejected']} rejected steps"
    if "note" in run.extra:
        rec["note"] = run.extra["note"]
    return rec


def over_budget(last: tuple[int, float] | None, n: int, max_seconds: float) -> str | None:
    """Why a run at size n is skipped: its time estimated from the previous size (scaled by
    (n / n_prev)^2) exceeds max_seconds; None if it is not."""
    if last is None:
        return None
    n_prev, s_prev = last
    estimate = s_prev * (n / n_prev) ** 2
    if estimate <= max_seconds:
        return None
    return (f"skipped from N = {n}: estimated {estimate:.0f} s from {s_prev:.1f} s at "
            f"N = {n_prev} (> --max-seconds {max_seconds:g})")


def benchmark(sizes: list[int], tools: list[str], t_end: float, repeat: int,
              max_seconds: float, log: Any, reference: bool = True) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    last: dict[str, tuple[int, float]] = {}     # tool -> (N, seconds of one build + simulate)
    stopped: dict[str, str] = {}
    if not reference:
        stopped["reference"] = "no reference (--no-reference)"
    ref_name = f"exudyn DOPRI5 {REFERENCE_TOL:g}" if available("exudyn") else \
        f"acausal CVODE {ACAUSAL_METHOD} {ACAUSAL_REFERENCE_TOL:g}"
    for n in sizes:
        # the reference: once chaotic or unfinished, it will not be better at a larger N
        reason = stopped.get("reference") or over_budget(last.get("reference"), n, max_seconds)
        if reason is None:
            print(f"N = {n}: reference ...", file=log, flush=True)
            t0 = time.perf_counter()
            ref = reference_tip(n, t_end, max_seconds / 2)
            last["reference"] = (n, time.perf_counter() - t0)
            if not ref.usable():
                stopped["reference"] = f"no reference from N = {n} on ({ref.note})"
        else:
            stopped["reference"] = reason
            ref = Reference(None, ref_name, note=reason)
        unc = "" if ref.uncertainty is None else f", uncertainty {ref.uncertainty:.1e} m"
        print(f"N = {n}: reference tip at t = {t_end:g} s ({ref.name}): {ref.tip}{unc}"
              + (f"; {ref.note}" if ref.note else ""), file=log)
        row: list[dict[str, Any]] = []
        for tool in tools:
            if tool not in stopped:
                reason = over_budget(last.get(tool), n, max_seconds)
                if reason is not None:
                    stopped[tool] = reason
                    print(f"{tool}: {reason}", file=log)
            if tool in stopped:
                row.append(record(tool, n, t_end, None, ref, stopped[tool]))
                continue
            print(f"N = {n}: {tool} ...", file=log, flush=True)
            t0 = time.perf_counter()
            if tool == "mujoco-matched":
                run = matched_run(n, t_end, repeat, ref, row, log)
                if isinstance(run, str):
                    row.append(record(tool, n, t_end, None, ref, run))
                    continue
            else:
                run = RUNNERS[tool](n, t_end, repeat=repeat)
            if tool == "default":  # what grows with N: two compiles, two simulates
                cost = 2 * run.build_s + run.simulate_s + run.extra["first_s"]
            elif tool == "mujoco-matched":  # the search for the step included
                cost = time.perf_counter() - t0
            else:
                cost = run.build_s + run.simulate_s
            last[tool] = (n, cost)
            row.append(record(tool, n, t_end, run, ref))
        exudyn_sim = next((r["simulate_s"] for r in row if r["tool"] == "exudyn"), None)
        for r in row:
            if exudyn_sim and r["simulate_s"] is not None:
                r["ratio_exudyn"] = r["simulate_s"] / exudyn_sim
        records += row
    return records


def matched_run(n: int, t_end: float, repeat: int, ref: Reference,
                row: list[dict[str, Any]], log: Any) -> Run | str:
    """The ``mujoco-matched`` row: MuJoCo at the tip error of the ``default`` row at the same N
    (else of the ``acausal`` row: both at rtol 1e-8); the reason as text where it cannot be
    matched."""
    target = next(((r["tool"], r["tip_error"]) for tool in ("default", "acausal")
                   for r in row if r["tool"] == tool and r["tip_error"] is not None), None)
    if target is None:
        return "no tip error to match: run it with the default or acausal row"
    matched, error = target
    if ref.tip is None or ref.uncertainty is None or ref.uncertainty > error / 10:
        return (f"no reference accurate enough to match the {matched} row's tip error "
                f"{error:.1e} (its uncertainty must be below a tenth of it)")
    return run_mujoco_matched(n, t_end, repeat, ref.tip, error, matched, log)


def _fmt(value: Any, spec: str, width: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}{spec}}"


def print_table(records: list[dict[str, Any]]) -> None:
    print(f"{'tool':<17} {'N':>4} {'build_s':>8} {'simulate_s':>10} {'sim/exu':>8} "
          f"{'tip_err':>8} {'tip_ok':>6} {'E_drift':>8} {'steps':>6} {'rhs':>7}  integrator")
    for r in records:
        if r["simulate_s"] is None:
            print(f"{r['tool']:<17} {r['N']:>4}  {r['note']}")
            continue
        ok = {None: "-", True: "yes", False: "no"}[r["tip_ok"]]
        print(f"{r['tool']:<17} {r['N']:>4} {_fmt(r['build_s'], '.4f', 8)} "
              f"{_fmt(r['simulate_s'], '.3f', 10)} {_fmt(r['ratio_exudyn'], '.2f', 8)} "
              f"{_fmt(r['tip_error'], '.1e', 8)} {ok:>6} {_fmt(r['energy_drift'], '.1e', 8)} "
              f"{_fmt(r['steps'], 'd', 6)} {_fmt(r['rhs_evaluations'], 'd', 7)}  "
              f"{r['integrator']}" + (f"; {r['note']}" if r["note"] else "")
              + ("" if r["first_s"] is None else
                 f"; first simulate with an empty cache {r['first_s']:.2f} s"))
    seen = set()
    for r in records:
        if r["N"] in seen:
            continue
        seen.add(r["N"])
        unc = r["reference_uncertainty"]
        print(f"reference N = {r['N']}: tip at t = {r['t_end']:g} s from {r['reference']}"
              + ("" if unc is None else f", uncertainty {unc:.1e} m (vs 10 x its tolerance)")
              + (f"; {r['reference_note']}" if r["reference_note"] else ""))
    print_ratios(records)


def print_ratios(records: list[dict[str, Any]]) -> None:
    """The ratios of issue 42's done list, per N: the default row's simulate (first run with an
    empty cache, and later run) over Exudyn's, over MuJoCo's at equal tip error and over
    MuJoCo's at dt = 5e-4."""
    by = {(r["tool"], r["N"]): r for r in records if r["simulate_s"] is not None}
    lines = []
    for n in dict.fromkeys(r["N"] for r in records):
        default = by.get(("default", n))
        if default is None:
            continue
        times = (("first run", default["first_s"]), ("later run", default["simulate_s"]))
        parts = []
        for peer, label in (("exudyn", "Exudyn DOPRI5 1e-8"),
                            ("mujoco-matched", "MuJoCo RK4 at equal tip error"),
                            ("mujoco", f"MuJoCo RK4 dt={MUJOCO_DT:g}")):
            other = by.get((peer, n))
            if other is None:
                continue
            extra = ""
            if peer == "mujoco-matched":
                extra = (f" ({other['integrator'].split(' (')[0]}, tip error "
                         f"{other['tip_error']:.1e})")
            parts.append(f"  default / {label}{extra}: " + ", ".join(
                f"{name} {t / other['simulate_s']:.2f}" for name, t in times if t is not None))
        if parts:
            lines += [f"N = {n} (default: first run {default['first_s']:.3f} s, later run "
                      f"{default['simulate_s']:.3f} s, tip error "
                      f"{_fmt(default['tip_error'], '.1e', 0)})", *parts]
    if lines:
        print("\nratios of simulate_s:")
        print("\n".join(lines))


# -- --check ------------------------------------------------------------------------------------
def check(sizes: list[int], tools: list[str], t_end: float, max_seconds: float) -> bool:
    """Print the cross-checks that the three tools simulate the same system; True if all pass."""
    ok = True
    t_short = min(0.5, t_end)

    def verdict(value: float, limit: float) -> str:
        nonlocal ok
        ok = ok and bool(value <= limit)
        return "ok" if value <= limit else f"FAIL (> {limit:g})"

    for n in sizes:
        print(f"== N = {n}")
        fk0 = chain_kinematics(np.full((1, n), PHI0))
        runs: dict[str, Run] = {}
        for tool in tools:
            if tool == "exudyn":
                runs[tool] = run_exudyn(n, t_short, link_sensors=True)
            else:
                runs[tool] = RUNNERS[tool](n, t_short)
        print(f"initial joint origins (numpy forward kinematics), tip {fk0['tip'][0]}:")
        for i in range(n):
            print(f"  joint {i:>2}: {fk0['origins'][0, i]}")
        for tool, run in runs.items():
            diff = float(np.max(np.abs(run.extra["origins0"] - fk0["origins"][0])))
            print(f"  {tool:<8} max difference of the {n} initial joint origins: {diff:.1e} "
                  f"{verdict(diff, 1e-12)}")
        print(f"initial energy: numpy {fk0['potential'][0]:.12g} J; " + "; ".join(
            f"{tool} {run.energy[0]:.12g} J" for tool, run in runs.items()))
        for tool, run in runs.items():
            diff = abs(run.energy[0] - fk0["potential"][0])
            print(f"  {tool:<8} initial energy difference {diff:.1e} "
                  f"{verdict(diff, 1e-9 * abs(fk0['potential'][0]))}")
        print(f"tip at t = {t_short:g} s:")
        for tool, run in runs.items():
            print(f"  {tool:<8} {run.tip}  ({run.integrator})")
        if "acausal" in runs and "exudyn" in runs:
            diff = float(np.max(np.abs(runs["acausal"].tip - runs["exudyn"].tip)))
            print(f"  acausal - exudyn: {diff:.1e} {verdict(diff, CHECK_TOL)}")
            a, e = runs["acausal"], runs["exudyn"]
            # acausal's joint angles through the numpy kinematics against its own energy
            kin = chain_kinematics(a.extra["q"], a.extra["qd"])
            diff = float(np.max(np.abs(kin["kinetic"] + kin["potential"] - a.energy)))
            print(f"  numpy energy of acausal's joint trajectories - mechanical_energy: "
                  f"{diff:.1e} {verdict(diff, 1e-8 * np.max(np.abs(a.energy)))}")
            diff = float(np.max(np.abs(e.extra["fk_tip"] - e.tip)))
            print(f"  numpy tip of Exudyn's final joint angles - Exudyn's tip sensor: "
                  f"{diff:.1e} {verdict(diff, 1e-12)}")
        if "mujoco" in runs and "exudyn" in runs:
            diff = float(np.max(np.abs(runs["mujoco"].tip - runs["exudyn"].tip)))
            print(f"  mujoco - exudyn: {diff:.1e} (RK4 dt = {MUJOCO_DT:g}: not checked)")
        print(f"tight references at t = {t_end:g} s:")
        refs = {}
        if available("exudyn"):
            try:
                refs["exudyn"] = run_exudyn(n, t_end, REFERENCE_TOL, watchdog_s=max_seconds)
            except Unfinished as err:
                print(f"  exudyn   {err}")
        refs["acausal"] = run_acausal(n, t_end, ACAUSAL_REFERENCE_TOL)
        if available("mujoco"):
            refs["mujoco"] = run_mujoco(n, t_end, dt=MUJOCO_REFERENCE_DT)
        for tool, run in refs.items():
            print(f"  {tool:<8} {run.tip}  ({run.integrator}, simulate {run.simulate_s:.2f} s)")
        for tool in ("acausal", "mujoco"):
            if tool in refs and "exudyn" in refs:
                diff = float(np.max(np.abs(refs[tool].tip - refs["exudyn"].tip)))
                print(f"  {tool} - exudyn: {diff:.1e} (the tip tolerance of the benchmark is "
                      f"{TIP_TOL:g})")
    print("all checks passed" if ok else "SOME CHECKS FAILED")
    return ok


def main(argv: list[str] | None = None) -> int:
    global ACAUSAL_METHOD
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=None,
                        help="numbers of links (default 5 20 50 100; --check: 2 5)")
    parser.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS))
    parser.add_argument("--t-end", type=float, default=None, help="simulated time (5 s)")
    parser.add_argument("--repeat", type=int, default=1, help="best of K runs")
    parser.add_argument("--max-seconds", type=float, default=120.0,
                        help="skip larger sizes of a tool whose estimated run exceeds this")
    parser.add_argument("--quick", action="store_true", help="N = 3, 0.5 s (smoke test)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON list of records on stdout, nothing else")
    parser.add_argument("--check", action="store_true",
                        help="cross-check the tools' models instead of timing")
    parser.add_argument("--acausal-method", choices=("Adams", "BDF"), default=ACAUSAL_METHOD,
                        help="CVODE's method for acausal (Adams)")
    parser.add_argument("--no-reference", action="store_true",
                        help="no tight reference (tip errors not judged; mujoco-matched needs "
                             "one): the timings alone, e.g. at N = 100, where the chaotic "
                             "chain's reference is unusable and costs minutes")
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [DEFAULT_CHILD]:  # the default row's child process: N, t_end
        return default_child(int(argv[1]), float(argv[2]))
    args = parser.parse_args(argv)
    ACAUSAL_METHOD = args.acausal_method
    if args.quick:
        sizes, t_end = args.sizes or [3], args.t_end or 0.5
    else:
        sizes = args.sizes or ([2, 5] if args.check else [5, 20, 50, 100])
        t_end = args.t_end or T_END
    if min(sizes) < 1 or t_end <= 0 or args.repeat < 1:
        parser.error("sizes and --repeat must be positive, --t-end must be > 0")
    log = sys.stderr if args.json else sys.stdout
    tools = []
    for tool in dict.fromkeys(args.tools):
        if available(tool):
            tools.append(tool)
        else:
            print(f"{tool} not installed: {INSTALL_HINT}", file=log)
    if args.check:
        tools = [tool for tool in tools if tool not in TIMING_VARIANTS]
        return 0 if check(sizes, tools, t_end, args.max_seconds) else 1
    if args.json:
        with stdout_to_stderr(True):
            records = benchmark(sizes, tools, t_end, args.repeat, args.max_seconds, log,
                                not args.no_reference)
        print(json.dumps(records))
    else:
        records = benchmark(sizes, tools, t_end, args.repeat, args.max_seconds, log,
                            not args.no_reference)
        print()
        print_table(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
