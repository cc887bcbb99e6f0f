"""SUNDIALS' CVODE (ODEs) and IDA (index-1 DAEs) with their own root finding, driven by the
compiled CasADi functions.

Why not ``casadi.integrator``: CasADi 3.8's integrator events are experimental (IDAS ignores zero
crossings, CVODES fires one direction only: casadi/casadi#4393), and an integrator call cannot
report progress or stop cleanly part-way. scikit-sundae (BSD-3, binary wheels that carry
SUNDIALS) exposes CVODE and IDA with root functions, stop times and step-wise use; we call the
generated CasADi functions from its callbacks through CasADi function *buffers*, which costs
~0.3 us a call instead of ~20 us for an ordinary call, and give the solvers CasADi's exact
Jacobians (dense below ``SPARSE_FROM`` unknowns, SuperLU_MT sparse above), built when a solver
first asks for one: CVODE's Adams on a dense Jacobian takes SUNDIALS' difference quotients
instead (:attr:`Problem.quotient_jacobian`), and Adams on 30 unknowns or more corrects by
fixed-point iteration, which scikit-sundae runs as Newton's on a zero Jacobian
(:attr:`Problem.fixed_point`). With
``simulate(jit=True)`` the SX functions the solver calls at every step are machine code
(:mod:`.native`) and a compiled driver takes scikit-sundae's place, calling them without Python
in between (:mod:`.native_solver`, the same SUNDIALS calls); everything else stays the same.

The solvers work on scaled unknowns ``u = y / nominal`` and scaled residuals (Modelica's
``nominal``): see :func:`nominal_values`. With ``rtol``/``atol`` as given, the absolute tolerance
of a variable is ``atol * nominal``, the usual meaning in Modelica tools.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from dataclasses import dataclass

import casadi as ca
import numpy as np

from ..base.capture import captured
from . import native, native_solver, tiering
from .buffers import Buffered, Columns
from .solver_functions import SolverFunctions, linear_in_algebraics

#: Systems with at least this many unknowns use the sparse direct solver (SuperLU_MT).
SPARSE_FROM = 60
#: CVODE's Adams corrects by fixed-point iteration from this many unknowns on
#: (:attr:`Problem.fixed_point`); below, Newton's iteration with SUNDIALS' difference quotients
#: (n right-hand sides per Jacobian). Measured (docs/compiler.md, "Jacobians"): on the spatial
#: chain fixed point takes 14 % fewer right-hand sides at 16 unknowns, 20 % fewer at 30 and 34 %
#: fewer at 40, but 10-20 % more on Van der Pol, the pendulum and the 5-link chain (10 unknowns)
#: and 80 % more on the 10-mass chain (20 unknowns, mildly stiff), where the quotients are cheap.
FIXED_POINT_FROM = 30
#: scikit-sundae's fixed-point iteration (:attr:`Problem.fixed_point`) solves its diagonal
#: systems as a band of width 0 up to this many unknowns (scikit-sundae keeps an n x n array
#: for a banded Jacobian: 72 MB here), as a sparse matrix above
DIAGONAL_BAND_UP_TO = 3000
#: Internal steps allowed between two output times (a guard against hangs, not a tuning knob).
MAX_NUM_STEPS = 50_000
#: RHS/residual calls between two progress reports (checked cheaply in the callback).
PROGRESS_EVERY = 512

# Return flags (SUNDIALS 7 cvode.h / ida.h), for messages that name the solver's own flag.
CVODE_FLAGS = {
    -1: "CV_TOO_MUCH_WORK", -2: "CV_TOO_MUCH_ACC", -3: "CV_ERR_FAILURE", -4: "CV_CONV_FAILURE",
    -5: "CV_LINIT_FAIL", -6: "CV_LSETUP_FAIL", -7: "CV_LSOLVE_FAIL", -8: "CV_RHSFUNC_FAIL",
    -9: "CV_FIRST_RHSFUNC_ERR", -10: "CV_REPTD_RHSFUNC_ERR", -11: "CV_UNREC_RHSFUNC_ERR",
    -12: "CV_RTFUNC_FAIL", -13: "CV_NLS_INIT_FAIL", -14: "CV_NLS_SETUP_FAIL",
    -15: "CV_CONSTR_FAIL", -16: "CV_NLS_FAIL", -20: "CV_MEM_FAIL", -21: "CV_MEM_NULL",
    -22: "CV_ILL_INPUT", -23: "CV_NO_MALLOC", -24: "CV_BAD_K", -25: "CV_BAD_T",
    -26: "CV_BAD_DKY", -27: "CV_TOO_CLOSE", -28: "CV_VECTOROP_ERR",
}
IDA_FLAGS = {
    -1: "IDA_TOO_MUCH_WORK", -2: "IDA_TOO_MUCH_ACC", -3: "IDA_ERR_FAIL", -4: "IDA_CONV_FAIL",
    -5: "IDA_LINIT_FAIL", -6: "IDA_LSETUP_FAIL", -7: "IDA_LSOLVE_FAIL", -8: "IDA_RES_FAIL",
    -9: "IDA_REP_RES_ERR", -10: "IDA_RTFUNC_FAIL", -11: "IDA_CONSTR_FAIL",
    -12: "IDA_FIRST_RES_FAIL", -13: "IDA_LINESEARCH_FAIL", -14: "IDA_NO_RECOVERY",
    -15: "IDA_NLS_INIT_FAIL", -16: "IDA_NLS_SETUP_FAIL", -17: "IDA_NLS_FAIL",
    -20: "IDA_MEM_NULL", -21: "IDA_MEM_FAIL", -22: "IDA_ILL_INPUT", -23: "IDA_NO_MALLOC",
    -24: "IDA_BAD_EWT", -25: "IDA_BAD_K", -26: "IDA_BAD_T", -27: "IDA_BAD_DKY",
    -28: "IDA_VECTOROP_ERR",
}
#: Flags whose usual cause is a tolerance too tight for the model's scale (advice differs).
TOLERANCE_FLAGS = {"CV_TOO_MUCH_ACC", "IDA_TOO_MUCH_ACC"}
ROOT_RETURN = 2


def reported_roots(result) -> list[int]:
    """Positions of the root functions that stopped the solver (last event row)."""
    if result.i_events is None or len(result.i_events) == 0:
        return []
    last = result.i_events[-1] if np.ndim(result.i_events) == 2 else result.i_events
    return np.flatnonzero(last).tolist()


def flag_name(solver: str, status: int) -> str:
    table = CVODE_FLAGS if solver == "CVODE" else IDA_FLAGS
    return table.get(int(status), f"{solver} flag {int(status)}")


def _last_solver_message(text: str) -> str:
    """The last distinct message SUNDIALS printed, without its [LEVEL][rank][file:line]
    prefixes."""
    import re

    messages = []
    for part in re.split(r"\[(?:WARNING|ERROR|INFO|DEBUG)\]|\n\s*\n", text):
        clean = " ".join(re.sub(r"^(\s*\[[^\]]*\])+", "", part.strip()).split())
        if clean and "has been issued mxhnil times" not in clean and clean not in messages:
            messages.append(clean)
    return messages[-1][:300] if messages else ""


def fast(cs, which: str) -> Buffered:
    """``cs.function(which)`` (inputs t, x, z, p) as a cached :class:`Buffered`, for the
    evaluations the run loop makes at every event."""
    return cs.cached(("buffered", which), lambda: Buffered(cs.function(which)))


@dataclass
class Settings:
    """Integrator settings shared by every segment of a run."""

    rtol: float
    atol: float
    max_step: float | None
    max_num_steps: int = MAX_NUM_STEPS
    max_order: int | None = None
    suppress_algebraic: bool = False
    #: CVODE's linear multistep method: "BDF" (stiff), "Adams" (non-stiff ODEs) or "auto"
    #: (chosen by the run, :mod:`.integrator_choice`); a DAE is always integrated by IDA's BDF
    method: str = "auto"
    #: the functions the solver calls as machine code (:mod:`.native`): True (compiled before
    #: the run), False (CasADi's virtual machine) or "auto" (tiered: :mod:`.tiering`)
    jit: bool | str = "auto"
    #: CVODE's Adams may correct by fixed-point iteration on problems of ``FIXED_POINT_FROM``
    #: unknowns or more where the compiled driver runs (:attr:`Problem.fixed_point`); set by
    #: the run's method choice for "auto", which goes over to Newton's iteration where it fails
    fixed_point: bool = False
    verbose: bool = False  # pass SUNDIALS' own messages on to stderr (else kept for errors)
    #: what an event sequence that accumulates like Zeno behaviour does: "raise", "warn", "off"
    zeno: str = "raise"


def problem_for(cs, rows: list[int], jit: bool | str = False) -> Problem:
    """The (cached) SUNDIALS problem of a compiled realisation: its CasADi functions and
    Jacobian are built once, whatever the parameters, nominal values and tolerances (``jit``:
    compiled to machine code, see :mod:`.native`; ``"auto"``: tiered, :mod:`.tiering`)."""
    mode = "auto" if jit == "auto" else bool(jit)
    return cs.cached(("sundials_problem", tuple(rows), mode),
                     lambda: Problem(cs, rows, mode))


def nominal_values(cs, x0: np.ndarray, z0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nominal size of each unknown (states, then algebraic variables), and which of them
    were declared.

    A declared ``Variable(nominal=...)`` wins; otherwise the larger of |start| and |initial
    value|, when that is at least ``NOMINAL_FLOOR``; otherwise 1 (Modelica's default). So a
    reaction force of 2e4 N or an angle of 0.06 rad is measured in its own size, which keeps
    IDA's Newton matrix well conditioned and makes ``atol`` relative to each variable's scale.
    (:meth:`Problem.set_parameters` raises the algebraic variables' nominal values to the range
    their equations give them, :meth:`Problem.solve` to the size they reach in the run.)
    """
    values = np.concatenate([np.asarray(x0, float), np.asarray(z0, float)])
    nominal = np.ones(values.size)
    declared_mask = np.zeros(values.size, bool)
    for k, v in enumerate(list(cs.states) + list(cs.algebraics)):
        info = cs.system.info[v]
        declared = getattr(info, "nominal", None) if info is not None else None
        if declared is not None:
            nominal[k] = abs(float(declared))
            declared_mask[k] = True
            continue
        size = abs(values[k]) if np.isfinite(values[k]) else 0.0
        start = getattr(info, "start", None) if info is not None else None
        try:
            size = max(size, abs(float(start))) if start is not None else size
        except (TypeError, ValueError):
            pass
        if size >= NOMINAL_FLOOR:
            nominal[k] = size
    return nominal, declared_mask


#: Smallest derived nominal value (below it the default 1 is kept: a value that starts near zero
#: says nothing about its scale).
NOMINAL_FLOOR = 1e-3
#: During a DAE run an undeclared algebraic variable's nominal value becomes its size where a
#: solver call starts or stops once it has outgrown the nominal value by this factor.
NOMINAL_GROWTH = 2.0


class Problem(SolverFunctions):
    """One realisation of a compiled system prepared for CVODE or IDA.

    Unknowns ``y = [x; z]`` are scaled as ``u = y / nominal``. CVODE integrates
    ``du/dt = f(t, D u) / D_x``; IDA solves ``F(t, u, u') = 0`` with the differential rows
    ``(D_x u_x' - f) / D_x`` and the algebraic rows ``g / R`` (``R``: the largest entry of each
    algebraic row of the Jacobian at the start, after column scaling: row equilibration).
    Event indicators that depend on states are SUNDIALS root functions. An interrupted run
    (Ctrl-C with the display on) makes the callbacks return NaN: the solver fails its error
    test at once and returns the output points it had reached (no Python exception crosses
    SUNDIALS, so nothing computed is lost, and no extra root function costs time at every
    output point).
    """

    def __init__(self, cs, rows: list[int], jit: bool | str = False) -> None:
        self.n_x, self.n_z = cs.x.numel(), cs.z.numel()
        #: the solver's Jacobian, built on first use (:attr:`_jac`) by ``_jac_build`` where it
        #: is not built with the functions
        self._jac_buffer: Buffered | None = None
        self._jac_build = None
        #: the option: True, False or "auto" (see Settings.jit)
        self.mode = jit
        #: the SX functions the solver calls are machine code now (:meth:`use_native`)
        self.jit = False
        #: (the functions to compile, the driver's slot of each, what installs them)
        self._compilable: tuple[list, tuple, object] | None = None
        #: the algebraic equations are linear in z (a linear loop left by tearing): CVODE
        #: integrates the states alone and z = -A^-1 b is solved inside the CasADi functions
        self.eliminated = self.n_z > 0 and linear_in_algebraics(cs)
        self.is_dae = self.n_z > 0 and not self.eliminated
        self.solver_name = "IDA" if self.is_dae else "CVODE"
        self.rows = list(rows)  # indices into cs's event indicators handled by root finding
        n = self.n_x + self.n_z
        # jit: (slot, library, symbol) of the compiled functions the driver calls
        self._native: list[tuple[int, object, str]] | None = None
        indicators = [g for ev in cs.events for g in ev.indicators]
        g_rows = ca.vertcat(*[indicators[i] for i in self.rows]) if self.rows else ca.SX(0, 1)
        if self.eliminated:
            self._build_eliminated(cs, g_rows)
            sparsity = self._jac.function.sparsity_out(0)
            n_solver = self.n_x
        else:
            sparsity = self._build(cs, g_rows)
            n_solver = n
        self.n_solver = n_solver  # the solver's unknowns (the states alone for a linear loop)
        self.sparse = n_solver >= SPARSE_FROM
        #: the sparsity of the solver's Jacobian (CasADi's), known without building it
        self.jacobian_sparsity = sparsity
        self._rows_nz, self._cols_nz = sparsity.get_triplet()
        self._solver = None
        self._solver_settings: tuple | None = None
        self.settings: Settings | None = None
        self.nominal = np.ones(n)
        self._unit_nominal = True
        self.row_scale = np.ones(self.n_z)
        self.interrupted = False
        self.calls = 0
        self.root_calls = 0
        #: evaluations of the zero Jacobian (scikit-sundae's fixed-point iteration, see
        #: :attr:`fixed_point`), and (right-hand sides, those evaluations) where the present
        #: solver call began
        self.zero_jacobians = 0
        self._call_began = (0, 0)
        self.progress = None
        self._equilibrated = False
        self._roots = None
        #: an extra root function after the event indicators, ``watch(t, u) -> +1.0 / -1.0``
        #: (see :meth:`set_watch`); None: no such column
        self.watch = None
        self._z_columns: Columns | None = None  # z_at's evaluator
        #: right-hand sides between two polls of the compiled driver (progress, Ctrl-C)
        self.poll_every = PROGRESS_EVERY
        #: which code drives the solver: "scikit-sundae" (Python callbacks) or "native" (the
        #: compiled driver, :mod:`.native_solver`, with jit)
        self.driver = "scikit-sundae"
        #: where the machine code came from: "" (none), "cache", "compiled" (before the run,
        #: jit=True), "built" (in the background, jit="auto")
        self.native_from = ""
        #: jit="auto" while the functions are in the virtual machine (:mod:`.tiering`)
        self.tier = None
        if jit is True:
            libraries, built = native.ensure(self.native_functions())
            self.use_native(libraries)
            self.native_from = "compiled" if built else "cache"
        elif jit == "auto":
            # machine code from the cache is loaded before the first step (the run loop's
            # RunTiers.before_call), once its keys are computed beside the run's set-up
            self.tier = tiering.NativeTier(self)

    @property
    def quotient_jacobian(self) -> bool:
        """Whether the solver takes SUNDIALS' difference-quotient Jacobian instead of the exact
        one: CVODE's Adams on a dense Jacobian. A non-stiff run evaluates few Jacobians (one
        in tens of steps, n right-hand sides each), and the exact one's symbolic build is most
        of a large model's set-up (0.3 s of the 20-link chain's 0.5 s, its evaluations in the
        virtual machine 0.2 s more); BDF and IDA, which evaluate it often on stiff problems,
        and sparse problems (no sparse quotients in SUNDIALS) take the exact one."""
        s = self.settings
        return (not self.is_dae and not self.sparse and s is not None
                and s.method.upper() == "ADAMS")

    @property
    def fixed_point(self) -> bool:
        """Whether the solver corrects by fixed-point iteration: CVODE's Adams where the
        settings allow it, on problems of ``FIXED_POINT_FROM`` (30) unknowns or more. There a
        Jacobian costs more than the fixed point's extra iterations: SUNDIALS' difference
        quotients take n right-hand sides each (the 20-link chain: 2 160 of its 5 886), and on
        sparse problems (``SPARSE_FROM``), which the quotients do not serve, the exact Jacobian
        is the costliest part of the run (the 100-link chain's 200 x 200 Jacobian of a
        217 000-instruction right-hand side). Smaller problems take the quotients.

        Both drivers run it as Newton's iteration on a zero Jacobian (scikit-sundae offers
        Newton's only, and SUNDIALS' own fixed-point solver took more right-hand sides):
        Newton's matrix ``I - gamma J`` is then the identity and each correction is the
        fixed-point iteration's, ``y <- y_pred + gamma f(y) - a`` (the same convergence test,
        at most 3 iterations a step); its "linear solve" is a diagonal one (:meth:`_create`,
        ``native_driver.c``)."""
        return self._solver is not None and self.fixed_point_asked

    @property
    def fixed_point_asked(self) -> bool:
        """Whether the settings ask for fixed-point iteration where it applies (CVODE's Adams
        on ``FIXED_POINT_FROM`` unknowns or more; the compiled driver decides with this)."""
        s = self.settings
        return (not self.is_dae and self.n_solver >= FIXED_POINT_FROM and s is not None
                and s.fixed_point and s.method.upper() == "ADAMS")

    def corrector_counts(self) -> tuple[int, int, int]:
        """CVODE's steps, nonlinear iterations and nonlinear convergence failures since the
        present (or last) solver call began (see :attr:`fixed_point`).

        scikit-sundae does not report them during a call, so for its fixed-point iteration
        (a zero Jacobian) the right-hand sides stand in for the steps and the iterations (a
        step takes one or more), and the zero Jacobian's evaluations for the failures: CVODE
        evaluates the Jacobian again after each convergence failure, otherwise only every 51
        steps, so a non-stiff run shows a small fraction (below the method test's 5 %:
        tests/compiler/test_integrator_choice.py) and one whose iteration fails in many steps
        a large one."""
        if self.driver == "native":
            return self._solver.statistics()
        calls, zero_jacobians = self._call_began
        rhs = self.calls - calls
        return rhs, rhs, self.zero_jacobians - zero_jacobians

    def last_point(self) -> tuple[float, np.ndarray]:
        """(t, u): the latest point of the solver's that Python sees: the compiled driver's
        last poll or the end of its last call, else scikit-sundae's last right-hand side."""
        if self.driver == "native" and self._solver is not None:
            return float(self._solver.poll_t), self._solver.poll_u.copy()
        return float(self._f.arg["t"][0]), self._f.arg["u"].copy()

    def _solver_unknowns(self, y: np.ndarray) -> np.ndarray:
        """The solver's scaled unknowns for y = [x; z]."""
        u = np.asarray(y, float) / self.nominal
        return u[:self.n_x] if self.eliminated else u

    def _unknowns(self, t: np.ndarray, u: np.ndarray) -> np.ndarray:
        """y = [x; z] (rows: times) from the solver's scaled unknowns (rows: times)."""
        u = np.atleast_2d(u)
        if not self.eliminated:
            return u if self._unit_nominal else u * self.nominal
        xs = u * self.nominal[:self.n_x]
        return np.hstack([xs, self.z_at(np.atleast_1d(np.asarray(t, float)), xs.T).T])

    # -- set-up ------------------------------------------------------------------------------
    def begin(self, nominal: np.ndarray, settings: Settings, progress=None,
              declared: np.ndarray | None = None) -> None:
        """A new run: nominal values (``declared``: those the model gave), settings and the
        progress callback."""
        self._set_nominal(nominal)
        self._declared = np.zeros(self.nominal.size, bool) if declared is None else declared
        self.settings = settings
        self.progress = progress
        self.interrupted = False
        self.calls = self.zero_jacobians = 0
        self.root_calls = 0
        self._equilibrated = False
        if self._jac_buffer is not None:  # no Jacobian of an earlier run for the method test
            self._jac_buffer.out[0][:] = 0.0

    def _set_nominal(self, nominal: np.ndarray) -> None:
        self.nominal = np.asarray(nominal, float).copy()
        self._unit_nominal = bool(np.all(self.nominal == 1.0))  # no scaling to undo
        for b in self._buffers():
            b.arg["d"][:] = self.nominal

    def _grow_nominal(self, y: np.ndarray) -> None:
        """Raise the nominal values of undeclared algebraic variables that ``y`` = [x; z] shows
        outgrown (NOMINAL_GROWTH): values taken at the start understate a machine that speeds up
        (EngineV6's rod accelerations grow with the square of its speed, 10 to 565 rad/s), and
        where such a variable crosses zero IDA's error test asks for atol * nominal, at
        atol = 1e-12 below its rounding error. Only where a call starts or stops (an event,
        the end, a window), so that the output grid does not change the steps."""
        z = np.abs(np.asarray(y, float)[self.n_x:])
        grow = (~self._declared[self.n_x:] & np.isfinite(z)
                & (z > NOMINAL_GROWTH * self.nominal[self.n_x:]))
        if grow.any():
            nominal = self.nominal.copy()
            nominal[self.n_x:][grow] = z[grow]
            self._set_nominal(nominal)

    def set_parameters(self, p: np.ndarray, t: float, y: np.ndarray) -> None:
        """New parameters (and discrete variables). At the first (t, y) of a run a DAE also

        * raises the nominal value of each algebraic variable (not declared) to the range its
          equations give it over the states' ranges, ``sum_j |dz_i/dx_j| * nominal(x_j)``
          (``dz/dx = -g_z^-1 g_x``): an acceleration that starts at 0 but follows angles with a
          gain of 1e5 s^-2 is measured in 1e5, not in 1 (its absolute tolerance would else be
          below its rounding error, and IDA's Newton test could never be met);
        * equilibrates the algebraic rows (each divided by its largest Jacobian entry)."""
        p = np.asarray(p, float)
        for b in self._buffers():
            b.arg["p"][:] = p
        self._p = p.copy()
        if self.is_dae and not self._equilibrated:
            u = y / self.nominal
            g_z, _, g_x = self._algebraic_rates(t, u, p)
            try:
                sens = np.abs(np.linalg.solve(g_z, g_x)).sum(axis=1) * self.nominal[self.n_x:]
            except np.linalg.LinAlgError:
                sens = np.zeros(self.n_z)
            free = ~self._declared[self.n_x:] & np.isfinite(sens)
            if free.any():
                nominal = self.nominal.copy()
                z_nom = nominal[self.n_x:]
                z_nom[free] = np.maximum(z_nom[free], sens[free])
                self._set_nominal(nominal)
            u = y / self.nominal
            jm = np.abs(np.array(self._alg_jac(t, u, p, self.nominal).full()))
            scale = jm.max(axis=1) if jm.size else np.ones(self.n_z)
            self.row_scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
            self._f.arg["r"][:] = self.row_scale
            self._jac.arg["r"][:] = self.row_scale
            self._equilibrated = True

    def set_watch(self, watch) -> None:
        """A root function of the run loop's own after the event indicators (None: none):
        ``watch(t, u)`` with the solver's scaled unknowns returns +1.0 while all is well and
        -1.0 from the point where the solver should stop (SUNDIALS then locates that point
        between two steps and returns with its root flag: the last root position,
        ``len(rows)``). It runs where the solver evaluates its root functions, at every step,
        so it must be cheap or throttle itself. Dynamic state selection checks its state
        choice this way. SUNDIALS evaluates the root functions at the output times too
        (interpolated): there the watch must return +1.0 (the compiled driver does not call
        it there)."""
        self.watch = watch

    def watch_fired(self, reported: list[int]) -> bool:
        """Whether the watch column is among the ``reported`` roots."""
        return self.watch is not None and len(self.rows) in reported

    def unknowns_at(self, t: float, u: np.ndarray) -> np.ndarray:
        """y = [x; z] at one point from the solver's scaled unknowns (for a watch)."""
        return self._unknowns(np.array([t]), np.asarray(u, float).reshape(1, -1))[0]

    def set_live(self, live: np.ndarray, t: float, y: np.ndarray,
                 g: np.ndarray | None = None) -> None:
        """Root functions to watch (True) and to hold at a constant of their present sign
        (False) until the next solver call (see ``hybrid.RelationGates``); ``g``: their values
        at (t, y) where the caller has them."""
        live = np.asarray(live, bool)
        if live.all():
            self._g.arg["live"][:] = 1.0
            self._g.arg["hold"][:] = 0.0
            return
        if g is None:
            raw = self._g_raw
            raw.arg["t"][0] = t
            raw.arg["u"][:] = self._solver_unknowns(y)
            raw()
            g = raw.out[0]
        self._g.arg["live"][:] = live
        self._g.arg["hold"][:] = np.where(live, 0.0, np.where(g < 0, -1.0, 1.0))

    def _solver_for(self):
        key = (self.settings, self.watch is not None)
        if self._solver is not None and self._solver_settings == key:
            return self._solver
        s = self.settings
        self._solver_settings = key
        self._roots = None
        native_driver = native_solver.for_problem(self)
        if native_driver is not None:
            self._solver, self.driver = native_driver, "native"
            return self._solver
        # scikit-sundae (and the scipy it pulls in) load here, on first use: ~0.5 s that
        # `import acausal` need not pay (benchmarks/import_time.py)
        import sksundae as sun
        from scipy.sparse import csc_matrix

        self.driver = "scikit-sundae"
        n = self.n_x if self.eliminated else self.n_x + self.n_z
        opts = dict(rtol=s.rtol, atol=s.atol, max_num_steps=s.max_num_steps)
        if s.max_step is not None:
            opts["max_step"] = float(s.max_step)
        if s.max_order is not None:
            opts["max_order"] = int(s.max_order)
        if self.sparse:
            pattern = csc_matrix((np.ones(len(self._rows_nz)), (self._rows_nz, self._cols_nz)),
                                 shape=(n, n))
            opts.update(linsolver="sparse", sparsity=pattern)
        n_roots = len(self.rows) + (self.watch is not None)
        with warnings.catch_warnings():
            # scikit-sundae warns that our exact Jacobian replaces its sparse approximation
            warnings.simplefilter("ignore", UserWarning)
            self._solver = self._create(sun, opts, n, n_roots)
        return self._solver

    def _create(self, sun, opts: dict, n: int, n_roots: int):
        s = self.settings
        self._roots = None
        if n_roots:
            roots = self._root_function(dae=self.is_dae)
            roots.terminal, roots.direction = [True] * n_roots, [0] * n_roots
            opts.update(eventsfn=roots, num_events=n_roots)
            self._roots = roots
        if self.is_dae:
            if s.suppress_algebraic:
                atol = np.full(n, s.atol)
                atol[self.n_x:] = 1e6 * max(s.atol, 1.0)
                opts["atol"] = atol
            opts.update(algebraic_idx=list(range(self.n_x, n)))
            return sun.ida.IDA(self._residual_function(), jacfn=self._jacobian_function(),
                               **opts)
        if self.fixed_point_asked:
            # fixed-point iteration as Newton's on a zero Jacobian (see fixed_point): a band
            # matrix of width 0, whose "factorisation" costs n operations (SuperLU_MT's solves
            # cost far more, even on a diagonal: measured during development); scikit-sundae
            # keeps a dense n x n array for a banded Jacobian, so the largest problems take the
            # sparse diagonal
            if n <= DIAGONAL_BAND_UP_TO:
                opts.update(linsolver="band", lband=0, uband=0)
                opts.pop("sparsity", None)
            else:
                from scipy.sparse import identity

                opts.update(linsolver="sparse", sparsity=identity(n, format="csc"))
            return sun.cvode.CVODE(self._residual_function(),
                                   jacfn=self._zero_jacobian_function(), method=s.method,
                                   **opts)
        return sun.cvode.CVODE(self._residual_function(),
                               jacfn=None if self.quotient_jacobian else
                               self._jacobian_function(), method=s.method, **opts)

    # -- callbacks (hot: closures over local names, no attribute look-ups and no Python method
    # between SUNDIALS and CasADi's buffer evaluation per call) -------------------------------
    def _residual_function(self):
        f = self._f
        call, t_in, u_in, out = f.raw, f.arg["t"], f.arg["u"], f.out[0]
        every = PROGRESS_EVERY
        me = self
        nan = np.nan

        # once interrupted, no evaluation: the solver's next iterates are NaN, which a linear
        # loop's LU inside the function would report as an error instead of returning NaN
        if not self.is_dae:
            def rhs(t, y, yp):
                if me.interrupted:
                    yp[:] = nan
                else:
                    t_in[0] = t
                    u_in[:] = y
                    call()
                    yp[:] = out
                me.calls += 1
                if me.calls % every == 0 and me.progress is not None:
                    me._report(t)
            return rhs

        up_in = f.arg["up"]

        # a near-copy of rhs on purpose: one more input, and a shared helper would cost a
        # Python call per evaluation on the hottest path
        def residual(t, y, yp, res):
            if me.interrupted:
                res[:] = nan
            else:
                t_in[0] = t
                u_in[:] = y
                up_in[:] = yp
                call()
                res[:] = out
            me.calls += 1
            if me.calls % every == 0 and me.progress is not None:
                me._report(t)
        return residual

    def _report(self, t):
        try:
            self.progress(t)
        except KeyboardInterrupt:  # Ctrl-C while drawing: the solver stops at its next step
            self.interrupted = True

    def _zero_jacobian_function(self):
        me = self

        def zero_jacobian(t, y, yp, jj):  # jj: scikit-sundae's zeros, left as they are
            me.zero_jacobians += 1
        return zero_jacobian

    def _jacobian_function(self):
        j = self._jac
        call, t_in, u_in, out = j.raw, j.arg["t"], j.arg["u"], j.out[0]
        rows, cols, sparse = self._rows_nz, self._cols_nz, self.sparse

        if not self.is_dae:
            def jacobian(t, y, yp, jj):
                t_in[0] = t
                u_in[:] = y
                call()
                if sparse:
                    jj[:] = out
                else:
                    jj[rows, cols] = out
            return jacobian

        up_in, cj_in = j.arg["up"], j.arg["cj"]

        def jacobian_dae(t, y, yp, res, cj, jj):
            t_in[0] = t
            u_in[:] = y
            up_in[:] = yp
            cj_in[0] = cj
            call()
            if sparse:
                jj[:] = out
            else:
                jj[rows, cols] = out
        return jacobian_dae

    def _root_function(self, dae: bool):
        g = self._g
        call, t_in, u_in, out = g.raw, g.arg["t"], g.arg["u"], g.out[0]
        me = self
        n_rows = len(self.rows)

        if self.watch is None:
            def roots(t, y, events):
                t_in[0] = t
                u_in[:] = y
                call()
                events[:] = out
                me.root_calls += 1
        else:
            def roots(t, y, events):
                if n_rows:
                    t_in[0] = t
                    u_in[:] = y
                    call()
                    events[:n_rows] = out
                events[n_rows] = me.watch(t, y)
                me.root_calls += 1

        if not dae:
            return roots

        def roots_dae(t, y, yp, events):
            roots(t, y, events)
        return roots_dae

    # -- driving -------------------------------------------------------------------------------
    def start_derivative(self, t: float, u: np.ndarray) -> np.ndarray:
        """Consistent u' at a consistent point: x' = f exactly and z' from the differentiated
        algebraic equations. IDA's residual does not contain z', but its first steps are
        predicted from it: a z' of 0 for accelerations or forces that change at 1e7 per second
        makes the error test fail until the step size underflows (at tight tolerances)."""
        up = np.zeros(u.size)
        up[:self.n_x] = self._state_rates(t, u, self._p)
        g_z, rhs, _ = self._algebraic_rates(t, u, self._p)
        try:
            z_rate = -np.linalg.solve(g_z, rhs.ravel())
        except np.linalg.LinAlgError:
            z_rate = np.zeros(self.n_z)
        if np.all(np.isfinite(z_rate)):
            up[self.n_x:] = z_rate
        return up

    def solve(self, tspan: np.ndarray, y0: np.ndarray):
        """Integrate over ``tspan`` (outputs at its points, a hard stop at its last one) from
        ``y0 = [x; z]`` (consistent). Returns the solver's result (scikit-sundae's, or the
        compiled driver's :class:`~.native_solver.NativeResult`) with unscaled ``y``.
        Where z is solved from x (:attr:`eliminated`), only the last row gets its z (the run
        loop continues from it); the others are NaN until :meth:`z_at` computes them."""
        solver = self._solver_for()
        self._forget_events()
        if self.is_dae:  # between solver calls only: each call restarts IDA from y0
            self._grow_nominal(y0)
        u0 = self._solver_unknowns(y0)
        up0 = self.start_derivative(float(tspan[0]), u0) if self.is_dae else None
        if self.driver == "native":  # SUNDIALS' messages come back with the result
            out = solver.solve(tspan, u0, up0)
            self._said(out.message)
        else:
            self._call_began = (self.calls, self.zero_jacobians)
            with self._quiet():
                out = solver.solve(tspan, u0, up0) if self.is_dae else solver.solve(tspan, u0)
        if not self.eliminated:
            out.y = self._unknowns(out.t, out.y)
            if self.is_dae:
                self._grow_nominal(out.y[-1])
        else:
            y = np.full((len(out.t), self.n_x + self.n_z), np.nan)
            y[:, :self.n_x] = np.atleast_2d(out.y) * self.nominal[:self.n_x]
            y[-1] = self._unknowns(out.t[-1:], np.atleast_2d(out.y)[-1:])[0]
            out.y = y
        return out

    def z_at(self, times: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """z (one column per time) from the states xs (columns) where the algebraic equations
        are linear in z: the solve of the right-hand side, once per point."""
        if self._z_columns is None:
            self._z_columns = Columns(self._z_of, shared=(2,))
        return self._z_columns(np.asarray(times, float).reshape(1, -1), xs, self._p)[0]

    def completed(self, t: float, y: np.ndarray) -> np.ndarray:
        """y = [x; z] with z computed where :meth:`solve` left it out."""
        if not self.eliminated or np.all(np.isfinite(y[self.n_x:])):
            return y
        x = y[:self.n_x]
        return np.concatenate([x, self.z_at(np.array([t]), x.reshape(-1, 1))[:, 0]])

    def _forget_events(self) -> None:
        """scikit-sundae keeps the events it found on the root function object across solver
        calls (and converts the whole list after every call): start each call afresh."""
        roots = self._roots
        if roots is not None:
            roots._i, roots._t, roots._y = [], [], []
            roots._i_cnt[:] = 0

    @contextlib.contextmanager
    def _quiet(self):
        """SUNDIALS' own messages (scikit-sundae's prints to ``sys.stdout`` and the C library's
        warnings on file descriptor 1) are kept for our error text instead of reaching the
        user's terminal: ``last_message``."""
        self.last_message = ""
        with captured(1, python=True) as output:
            yield
        self._said(output.text)

    def _said(self, text: str) -> None:
        """What SUNDIALS printed in a solver call: its last message kept for errors, all of it
        on stderr when verbose (not the failure of a call the run loop stopped itself: Ctrl-C,
        a change of method)."""
        text = text.strip()
        self.messages = text
        self.last_message = _last_solver_message(text) if text else ""
        if text and self.settings is not None and self.settings.verbose and not self.interrupted:
            print(text, file=sys.stderr)

    last_message = ""
    #: everything SUNDIALS said in the last solver call
    messages = ""
