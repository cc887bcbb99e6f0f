"""CVODE's linear multistep method for a run: the user's, or chosen by the run (``"auto"``).

CVODE has two methods (Hindmarsh et al., "SUNDIALS: Suite of nonlinear and differential/
algebraic equation solvers", ACM TOMS 31(3), 2005): Adams-Moulton of orders 1 to 12, which
takes fewer right-hand sides where the solution's own time scale limits the step (a pendulum
chain: 1.4 to 2 times fewer, see docs/compiler.md, "Integration method"), and BDF of orders 1
to 5, whose stability lets the step grow far beyond the time scale of fast modes that have died
out (a stiff spring, a bristle or LuGre contact while sliding, chemical kinetics). Adams-Moulton
of order 3 and higher is stable only for ``h |lambda|`` up to about 6 (order 3), 3 (order 4),
1.8 (order 5) and less above on the negative real axis (Hairer and Wanner, "Solving Ordinary
Differential Equations II", 2nd ed., Springer 1996, section V.1); CVODE's Adams with Newton
iterations stays stable beyond that only at orders 1 and 2, so on a stiff problem it crawls at
low order, up to tens of times slower than BDF.

``integrator_options={"method": "auto"}`` (the default) decides as LSODA does (Petzold,
"Automatic selection of methods for solving stiff and nonstiff systems of ordinary differential
equations", SIAM J. Sci. Stat. Comput. 4(1), 1983), by the run: it starts with Adams and
compares the step the solver takes with the fastest eigenvalue of the model's Jacobian:

    sigma = rho(J) * dt / n_rhs

``rho(J)`` the spectral radius of the Jacobian CVODE evaluated last (in the solver's scaled
unknowns; a diagonal scaling leaves the eigenvalues as they are), or where that Jacobian is
SUNDIALS' own difference quotients (Adams on a dense Jacobian), of one estimated the same way
at the solver's latest point (:func:`estimated_jacobian`), ``dt / n_rhs`` the model time
the solver advanced per right-hand side over the last ``CHECK_EVERY`` or more of them (a step
costs 1 to 2 right-hand sides with Newton's method, so ``h |lambda|`` is about 1.5 sigma). An
accurate integration of a mode that is still alive keeps ``h |lambda|`` well below 1; Adams with
``sigma >= STIFF`` is running where only its lowest orders are stable: the model is stiff, and
the run goes on with BDF. With BDF, ``sigma <= NON_STIFF`` means the step resolves the fastest
mode with a wide margin, so Adams' stability costs nothing there: back to Adams. The gap
between the two bounds keeps a run from switching back and forth.

On problems of ``sundials.FIXED_POINT_FROM`` (30) unknowns or more "auto" lets Adams correct
by fixed-point iteration (LSODA's functional iteration in its non-stiff mode; both drivers run
it as Newton's iteration on a zero Jacobian, :attr:`.sundials.Problem.fixed_point`): no
Jacobian is built or evaluated, which on a large model is most of a run
with Newton's (the 100-link chain's exact 200 x 200 Jacobian: 53-63 s of a run against 6 s
without it; the 20-link chain's difference quotients: 2 160 of 5 886 right-hand sides). The
iteration converges only while ``h |lambda|`` stays below about 1, so on a stiff model it holds
the step there: ``sigma >= STIFF_FIXED_POINT`` (0.25; the Jacobian then estimated by difference
quotients) takes BDF, and where the iteration fails to converge in more than
``FIXED_POINT_FAILURES`` of the steps of a window (at every poll and call end) without the
test seeing stiffness, the run goes on with Newton's iteration, whose Jacobian the test then
reads. A user's ``"Adams"`` keeps Newton's iteration (no check watches it).

The checks are made at the ``PROGRESS_EVERY``-th right-hand sides, where both drivers call
Python anyway (progress display, Ctrl-C), and at the end of each solver call (events, time
events, output windows): at the first check after ``FIRST_CHECK`` right-hand sides of the run
and then after twice as many each time, so a run of n right-hand sides makes about log2(n/512)
checks and a short run none. Everything the test reads is counted, not timed: the choice is the
same on every machine. A switch in the middle of a solver call stops the solver as Ctrl-C does
(the right-hand side returns NaN, the solver returns with the last step it completed); the run
loop goes on from there with the other method, as after an event. An IDA run (a DAE) has
nothing to choose: IDA is BDF only.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .sundials import PROGRESS_EVERY, Settings

#: Adams gives way to BDF when ``sigma`` (see the module docstring) reaches this ...
STIFF = 2.0
#: Adams with fixed-point iteration goes over to Newton's iteration where more than this
#: fraction of its steps failed to converge over a window of at least ``FIXED_POINT_WINDOW``
#: steps: the iteration converges only while ``h |lambda|`` stays below about 1, so on a stiff
#: problem it fails and cuts the step again and again
FIXED_POINT_FAILURES = 0.05
FIXED_POINT_WINDOW = 20
#: ... and Adams with fixed-point iteration gives way to BDF at this ``sigma``: the iteration
#: holds the step at ``h |lambda|`` of about 1 (one to two right-hand sides a step), where an
#: accurate non-stiff run stays far below (the 30- and 100-link chains: 0.04 and 0.059)
STIFF_FIXED_POINT = 0.25
#: ... and BDF to Adams when ``sigma`` is at most this.
NON_STIFF = 0.1
#: Right-hand sides of a run before its first check; the next after twice as many, and so on.
FIRST_CHECK = PROGRESS_EVERY
#: The step size is measured over at least this many right-hand sides (from the last poll or
#: call end that had as many since the one before).
CHECK_EVERY = PROGRESS_EVERY
#: Jacobians of up to this many unknowns get all their eigenvalues (LAPACK); larger ones the
#: largest few (ARPACK, on the sparse matrix): LAPACK's dense eigenvalue routine costs the cube
#: of the size and, through a multi-threaded OpenBLAS on a busy machine, took up to a second for
#: 200 unknowns where ARPACK took milliseconds (measured during development)
DENSE_EIGENVALUES = 60


def spectral_radius(matrix) -> float:
    """The largest eigenvalue magnitude of a square matrix (numpy array, scipy sparse, or a
    scipy ``LinearOperator`` of its products with vectors).

    Up to ``DENSE_EIGENVALUES`` rows: all eigenvalues. Larger: ARPACK's largest (scipy's
    ``eigs``, implicitly restarted Arnoldi, to 1 %); where it does not converge, all
    eigenvalues up to 8 times that size, else Gershgorin's bound (the largest absolute row sum),
    which is never too small, so a doubtful case errs towards BDF."""
    n = matrix.shape[0]
    if n == 0:
        return 0.0

    def dense() -> np.ndarray:
        if hasattr(matrix, "matmat"):  # a LinearOperator: its columns, one product each
            return matrix.matmat(np.eye(n))
        return matrix.toarray() if hasattr(matrix, "toarray") else np.asarray(matrix, float)

    def dense_radius() -> float:
        return float(np.max(np.abs(np.linalg.eigvals(dense()))))

    if n <= DENSE_EIGENVALUES:
        return dense_radius()
    # scipy's sparse eigensolver loads here: large models only, and only when checked
    from scipy.sparse import csr_matrix
    from scipy.sparse.linalg import ArpackError, ArpackNoConvergence, eigs

    sparse = matrix if hasattr(matrix, "matmat") else csr_matrix(matrix)
    try:
        found = eigs(sparse, k=2, which="LM", tol=1e-2, maxiter=20 * n,
                     return_eigenvectors=False)
    except ArpackNoConvergence as exc:
        found = exc.eigenvalues
    except ArpackError:
        found = np.zeros(0)
    if len(found):
        return float(np.max(np.abs(found)))
    if n <= 8 * DENSE_EIGENVALUES:
        return dense_radius()
    return float(np.max(np.abs(dense()).sum(axis=1)))


def last_jacobian(prob):
    """The Jacobian CVODE evaluated last for ``prob`` (a :class:`~.sundials.Problem`), in its
    scaled unknowns, from the problem's own buffer (no evaluation of ours): a dense array up to
    ``DENSE_EIGENVALUES`` unknowns, else a scipy sparse matrix; None before the first one."""
    if prob._jac_buffer is None:
        return None
    values = np.asarray(prob._jac_buffer.out[0], float).ravel()
    rows, cols = prob._rows_nz, prob._cols_nz
    n = prob.n_x if prob.eliminated else prob.n_x + prob.n_z
    if values.size != len(rows) or not values.any() or not np.all(np.isfinite(values)):
        return None
    if n <= DENSE_EIGENVALUES:
        dense = np.zeros((n, n))
        dense[rows, cols] = values
        return dense
    from scipy.sparse import csr_matrix

    return csr_matrix((values, (rows, cols)), shape=(n, n))


def estimated_jacobian(prob):
    """The Jacobian of ``prob``'s right-hand side (scaled unknowns) at the solver's latest
    point (:meth:`~.sundials.Problem.last_point`) by forward difference quotients, for a run
    whose Jacobian Python does not see (SUNDIALS' own difference quotients): a dense
    array up to ``DENSE_EIGENVALUES`` unknowns (n + 1 right-hand sides), else a
    ``LinearOperator`` (one right-hand side a product, ARPACK takes tens). None where the point
    is not finite."""
    t, u = prob.last_point()
    if not (np.isfinite(t) and np.all(np.isfinite(u))):
        return None
    f = prob._f
    t_in, u_in, out = f.arg["t"], f.arg["u"], f.out[0]
    t_in[0] = t
    u_in[:] = u
    f()
    f0 = out.copy()
    n = u.size
    scale = np.sqrt(np.finfo(float).eps) * np.maximum(np.abs(u), 1.0)

    def product(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, float).ravel()
        size = np.max(np.abs(v))
        if size == 0.0:
            return np.zeros(n)
        h = np.sqrt(np.finfo(float).eps) * max(np.linalg.norm(u, np.inf), 1.0) / size
        u_in[:] = u + h * v
        f()
        return (out - f0) / h

    if n <= DENSE_EIGENVALUES:
        jac = np.empty((n, n))
        for j in range(n):
            u_in[:] = u
            u_in[j] += scale[j]
            f()
            jac[:, j] = (out - f0) / scale[j]
        return jac if np.all(np.isfinite(jac)) else None
    from scipy.sparse.linalg import LinearOperator

    return LinearOperator((n, n), matvec=product, dtype=float)


class MethodChoice:
    """The method of one run's CVODE calls: fixed where the user chose it, else chosen by the
    test of the module docstring. The run loop (:class:`~.hybrid.HybridSimulation`) asks it for
    the settings of each problem (:meth:`prepare`), installs its check in the solver's polls
    (:meth:`monitor`) and tells it how each solver call ended (:meth:`after_call`)."""

    def __init__(self, settings: Settings, t_start: float) -> None:
        self.auto = settings.method == "auto"
        #: the method CVODE uses now
        self.method = "Adams" if self.auto else settings.method
        #: the run's settings with the method CVODE uses now (what :meth:`prepare` hands out);
        #: "auto" lets Adams correct by fixed-point iteration where it applies (30 unknowns or
        #: more: Problem.fixed_point) until that iteration fails
        self.settings = dataclasses.replace(settings, method=self.method,
                                            fixed_point=self.auto)
        #: where the fixed-point iteration gave way to Newton's: (t, failures, steps) of the
        #: window that decided; None while it has not
        self.newton_from: tuple[float, int, int] | None = None
        self.fixed_point_ran = False  # some call corrected by fixed-point iteration
        self._fixed_point_ref = (0, 0)  # CVODE's (steps, failures) at the last look
        #: (time, new method, sigma) of each switch; the time is where the new method starts
        self.switches: list[tuple[float, str, float]] = []
        #: sigma at each check (the largest tells how far a non-stiff run was from a switch)
        self.sigmas: list[float] = []
        self.rhs = 0  # right-hand sides of the run so far (counted at polls and call ends)
        self.next_check = FIRST_CHECK
        self.step: float | None = None  # model time per right-hand side, measured last
        self._ref = (float(t_start), 0)  # (t, rhs) where that measurement starts
        self.pending = False  # a switch asked for inside a solver call: the solver stops

    # -- what the run loop calls -------------------------------------------------------------
    def prepare(self, prob) -> None:
        """``prob`` integrates with the method CVODE uses now (a change of method gives the
        problem a new solver at its next call)."""
        if not prob.is_dae and prob.settings is not self.settings:
            prob.settings = self.settings

    def monitor(self, prob, report):
        """The problem's progress callback (called every ``PROGRESS_EVERY`` right-hand sides by
        both drivers) with the check in front of ``report`` (the display's, or None)."""
        if not self.auto or prob.is_dae:
            return report

        every = getattr(prob, "poll_every", PROGRESS_EVERY)  # right-hand sides between polls

        def poll(t: float) -> None:
            self.rhs += every
            self.fixed_point_ran |= prob.fixed_point
            # the method test first: where it takes BDF, the corrector's failures do not matter
            if not self.pending and ((self._measure(t) and self._check(prob, t))
                                     or self._fixed_point_fails(prob, t)):
                self.pending = True
                prob.interrupted = True  # the solver stops at its next step (NaN)
            if report is not None:
                report(t)
        return poll

    def after_call(self, prob, t: float, status: int, problems: dict) -> bool:
        """A solver call of ``prob`` ended at ``t`` with ``status``; ``problems``: the run's
        (realisation, problem) entries, for the count of right-hand sides. True where the call
        was stopped for a switch and its failure status is none (the loop goes on from ``t``
        with the new method)."""
        if not self.auto or prob.is_dae:
            return False
        self.rhs = max(self.rhs, sum(entry[1].calls for entry in problems.values()))
        self.fixed_point_ran |= prob.fixed_point
        if self.pending:
            self.pending = False
            prob.interrupted = False  # set by us; a Ctrl-C is the run loop's own flag
            self._fixed_point_ref = (0, 0)  # the next call counts afresh
            if self.newton_from is not None and self.newton_from[0] is None:
                self.newton_from = (t, *self.newton_from[1:])  # Newton's starts here
            else:
                _, method, sigma = self.switches[-1]
                self.switches[-1] = (t, method, sigma)  # the new method starts where it stopped
                self._ref, self.step = (t, self.rhs), None
            return status < 0
        fails = status >= 0 and self._fixed_point_fails(prob, t)
        self._fixed_point_ref = (0, 0)  # the next call counts afresh
        if fails:
            self.newton_from = (t, *self.newton_from[1:])
        elif self._measure(t) and status >= 0:  # (after a failure the run ends, or re-selects)
            self._check(prob, t)  # a switch here costs nothing: the next call starts anew
        return False

    def describe(self, problems) -> str:
        """What ``sol.stats["method"]`` says: the method(s) that ran and why."""
        parts = []
        if any(not prob.is_dae for prob in problems):
            parts.append(self._cvode_text())
        if any(prob.is_dae for prob in problems):
            parts.append("BDF (IDA)")
        return "; ".join(parts)

    # -- the test ----------------------------------------------------------------------------
    def _fixed_point_fails(self, prob, t: float) -> bool:
        """Whether the fixed-point iteration of ``prob``'s present call failed to converge in
        more than ``FIXED_POINT_FAILURES`` of its steps since the last look (at least
        ``FIXED_POINT_WINDOW`` steps): then the run goes on with Newton's iteration (the same
        method; its Jacobian then serves the test above). True when it changed."""
        if self.newton_from is not None or not prob.fixed_point:
            return False
        steps, _, failures = prob.corrector_counts()
        ref_steps, ref_failures = self._fixed_point_ref
        window, failed = steps - ref_steps, failures - ref_failures
        if window < FIXED_POINT_WINDOW:
            return False
        self._fixed_point_ref = (steps, failures)
        if failed <= FIXED_POINT_FAILURES * window:
            return False
        self.newton_from = (None, failed, window)  # the time: where the solver stops
        self.settings = dataclasses.replace(self.settings, fixed_point=False)
        return True

    def _measure(self, t: float) -> bool:
        """Update the step measured per right-hand side; True when a check is due."""
        t_ref, rhs_ref = self._ref
        if self.rhs - rhs_ref >= CHECK_EVERY and t > t_ref:
            self.step = (t - t_ref) / (self.rhs - rhs_ref)
            self._ref = (t, self.rhs)
        return self.step is not None and self.rhs >= self.next_check

    def _check(self, prob, t: float) -> bool:
        """The test at ``t``; True when the method changed."""
        while self.next_check <= self.rhs:
            self.next_check *= 2
        jacobian = last_jacobian(prob)
        if jacobian is None:  # the solver evaluated none: estimated at its latest point
            jacobian = estimated_jacobian(prob)
        if jacobian is None:
            return False
        sigma = spectral_radius(jacobian) * self.step
        if not np.isfinite(sigma):
            return False
        self.sigmas.append(sigma)
        stiff = STIFF_FIXED_POINT if prob.fixed_point else STIFF
        if self.method == "Adams" and sigma >= stiff:
            new = "BDF"
        elif self.method == "BDF" and sigma <= NON_STIFF:
            new = "Adams"
        else:
            return False
        self.method = new
        self.settings = dataclasses.replace(self.settings, method=new)
        self.switches.append((t, new, sigma))
        if prob._jac_buffer is not None:  # not the next test's: a Jacobian of the old method
            prob._jac_buffer.out[0][:] = 0.0
        return True

    def _cvode_text(self) -> str:
        text = self._method_text()
        if not self.fixed_point_ran:
            return text
        note = "corrector: fixed-point iteration"
        if self.newton_from is not None and self.newton_from[0] is not None:
            t, failed, window = self.newton_from
            note += (f", Newton's from t = {t:.6g} ({failed} of {window} steps failed to "
                     "converge)")
        return f"{text[:-1]}; {note})"

    def _method_text(self) -> str:
        if not self.auto:
            return f"{self.method} (integrator_options)"
        start = "Adams"  # where "auto" starts, as LSODA
        if not self.switches:
            if not self.sigmas:
                if self.rhs < FIRST_CHECK:
                    return (f"{start} (auto: not checked, the run took fewer than "
                            f"{FIRST_CHECK} right-hand sides)")
                return f"{start} (auto: not checked)"
            return (f"{start} (auto: non-stiff, step x largest |eigenvalue| <= "
                    f"{max(self.sigmas):.2g} per right-hand side)")
        steps = ", ".join(f"{method} from t = {t:.6g}" for t, method, _ in self.switches)
        why = "; ".join(f"{'stiff' if method == 'BDF' else 'non-stiff'} at t = {t:.6g}, step "
                        f"x largest |eigenvalue| = {sigma:.2g}"
                        for t, method, sigma in self.switches)
        return f"{start}, {steps} (auto: {why})"
