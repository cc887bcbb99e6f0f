"""The CasADi functions a solver problem evaluates, built from a compiled realisation: CVODE's
right-hand side or IDA's residual in the scaled unknowns, the root functions and indicators,
the exact Jacobian (built where a solver first asks for it), and for a system whose algebraic
equations are linear in z, the functions around the numeric solve of that loop. Also their
swap for machine code (:meth:`SolverFunctions.use_native`), taking over the values their
buffers hold.

:class:`SolverFunctions` is the part of :class:`~.sundials.Problem` that builds; the problem
drives the solver with them (``run/sundials.py``).
"""

from __future__ import annotations

import casadi as ca
import numpy as np

from . import native
from .buffers import Buffered

#: CasADi's linear solver for linear algebraic loops solved inside the generated functions:
#: LAPACK's LU with partial pivoting (a third of the time of CasADi's own sparse QR on the
#: dense 38 x 38 loop of a 20-link chain), else that QR (no pivoting, stable for any regular
#: matrix) where a CasADi build lacks the LAPACK plugin.
LINEAR_SOLVER = "lapacklu" if ca.has_linsol("lapacklu") else "qr"
#: Compiled functions whose outputs keep their sparsity (:meth:`SolverFunctions.native_functions`):
#: IDA's Jacobian, whose nonzeros (CasADi's compressed-column order) are what the solver reads.
SPARSE_OUTPUTS = frozenset({"res_jac"})


def _carry(before: Buffered | None, now: Buffered) -> None:
    """The inputs ``now`` shares with ``before`` (parameters, nominal values, row scales,
    live rows) take ``before``'s values: functions replaced mid-run go on from them."""
    if before is not None:
        for name, values in now.arg.items():
            if name in before.arg and before.arg[name].shape == values.shape:
                values[:] = before.arg[name]


def algebraic_jacobian(cs) -> ca.SX:
    """``dg/dz`` of the compiled algebraic equations (symbolic, sparse; built once)."""
    return cs.cached("algebraic_jacobian_sx", lambda: ca.jacobian(cs.alg, cs.z))


def linear_in_algebraics(cs) -> bool:
    """Whether the algebraic equations ``g(t, x, z, p) = 0`` are linear in z (a linear loop
    that tearing left), so that z can be solved inside the right-hand side."""
    return cs.cached("linear_in_algebraics", lambda: not ca.depends_on(
        algebraic_jacobian(cs), cs.z))


class SolverFunctions:
    """Building and installing a problem's CasADi functions (a base of
    :class:`~.sundials.Problem`, which sets the attributes these methods read: ``n_x``,
    ``n_z``, ``is_dae``, ``_jac_buffer``, ``_jac_build``, ``_compilable``, ``_native``)."""

    def _build(self, cs, g_rows):
        """CVODE's or IDA's functions from the compiled expressions (SX); their Jacobian's
        sparsity."""
        n = self.n_x + self.n_z
        t, p = cs.t, cs.p
        u, d = ca.SX.sym("u", n), ca.SX.sym("d", n)  # scaled unknowns, nominal values
        scaled = d * u  # y in terms of the scaled unknowns
        y_sym = ca.vertcat(cs.x, cs.z)
        ode = ca.substitute([cs.ode, cs.alg], [y_sym], [scaled])
        f_scaled = ode[0] / d[:self.n_x] if self.n_x else ode[0]
        g_rows = ca.substitute(g_rows, y_sym, scaled)
        names = ["t", "u", "p", "d"]
        # root functions as SUNDIALS sees them: live * g + hold (a masked row is a constant)
        live, hold = ca.SX.sym("live", g_rows.numel()), ca.SX.sym("hold", g_rows.numel())
        roots = ca.Function("roots", [t, u, p, d, live, hold], [live * g_rows + hold],
                            names + ["live", "hold"], ["g"])
        indicators = ca.Function("indicators", [t, u, p, d], [g_rows], names, ["g"])
        if not self.is_dae:
            f = ca.Function("rhs", [t, u, p, d], [f_scaled], names, ["f"])
            # the exact Jacobian is built where a solver first asks for it (Newton's iteration):
            # a non-stiff run with fixed-point iteration never does, and building it is most
            # of the set-up of a large model (0.3 s of a 20-link chain's 0.5 s); its sparsity
            # costs a pass over the expression graph
            self._jac_build = lambda: ca.Function(
                "rhs_jac", [t, u, p, d], [ca.jacobian(f_scaled, u)], names, ["j"])
            sparsity = ca.jacobian_sparsity(f_scaled, u)
        else:
            up, cj, r = ca.SX.sym("up", n), ca.SX.sym("cj"), ca.SX.sym("r", self.n_z)
            alg = ode[1]
            res = ca.vertcat(up[:self.n_x] - f_scaled, alg / r)
            # each Jacobian once: d(res)/du + cj d(res)/du' = [cj [I 0] - f_u; g_u / r]
            j_f, j_g = ca.jacobian(f_scaled, u), ca.jacobian(alg, u)
            eye = ca.horzcat(ca.SX.eye(self.n_x), ca.SX(self.n_x, self.n_z))
            jac = ca.vertcat(cj * eye - j_f, j_g / ca.repmat(r, 1, n))
            dae_names = ["t", "u", "up", "p", "d", "r", "cj"]
            f = ca.Function("res", [t, u, up, p, d, r], [res], dae_names[:6], ["res"])
            f_jac = ca.Function("res_jac", [t, u, up, p, d, r, cj], [jac], dae_names, ["j"])
            self._alg_jac = ca.Function("alg_jac", [t, u, p, d], [j_g])
            self._jac_build = lambda: f_jac  # (installed below where it is compiled)
            self._xdot = ca.Function("xdot", [t, u, p, d], [f_scaled])
            self._rate_buffers: dict[str, Buffered] = {}  # see _buffered
            # z' from d/dt g(t, x, z) = 0: g_z z' = -(g_t + g_x x'), for a consistent start
            g_x, g_z = j_g[:, :self.n_x], j_g[:, self.n_x:]
            self._alg_rates = ca.Function(
                "alg_rates", [t, u, p, d],
                [ca.densify(g_z), ca.jacobian(alg, t) + ca.mtimes(g_x, f_scaled),
                 ca.densify(g_x)])
            sparsity = jac.sparsity()
        # what the solver calls at every step can become machine code; CVODE's Jacobian,
        # called now and then (or never: Adams' quotients), stays in the virtual machine (see
        # native.compiled), IDA's, called every few steps, is compiled with them (-O0:
        # native.QUICK_TO_BUILD), up to a size where -O0 code runs no faster
        compiled_jacobian = self.is_dae and \
            f_jac.n_instructions() <= native.UNOPTIMISED_UP_TO
        functions = [f, roots, indicators] + ([f_jac] if compiled_jacobian else [])
        # the driver's slots (native_driver.c): the compiled driver calls IDA's Jacobian itself
        self._compilable = (functions, (0, 1, None, 3)[:len(functions)], self._install)
        self._install(functions)
        return sparsity

    def _state_rates(self, t: float, u: np.ndarray, p: np.ndarray) -> np.ndarray:
        """x' in the scaled unknowns at (t, u) (a DAE's problem)."""
        f = self._buffered("xdot", self._xdot)
        return f.evaluate(t, u, p, self.nominal)[0]

    def _algebraic_rates(self, t: float, u: np.ndarray, p: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(g_z, g_t + g_x x', g_x) at (t, u) as dense arrays (a DAE's problem)."""
        f = self._buffered("alg_rates", self._alg_rates)
        g_z, rhs, g_x = f.evaluate(t, u, p, self.nominal)
        return (g_z.reshape(self.n_z, self.n_z, order="F"), rhs,
                g_x.reshape(self.n_z, self.n_x, order="F"))  # CasADi: column by column

    def _buffered(self, name: str, f: ca.Function) -> Buffered:
        """``f`` with dense outputs, evaluated into buffers (built once): the run loop
        evaluates it at every restart, where a call with numpy arrays would convert each
        input and output through DM (several times the evaluation for a dense matrix)."""
        buffers = self._rate_buffers
        if name not in buffers:
            dense = ca.Function(f.name(), f.sx_in(), [ca.densify(o) for o in f.call(f.sx_in())])
            buffers[name] = Buffered(dense)
        return buffers[name]

    @property
    def _jac(self) -> Buffered:
        """The solver's Jacobian (evaluated into its buffer), built here on first use; its
        constant inputs taken over from the right-hand side's."""
        if self._jac_buffer is None:
            self._jac_buffer = Buffered(self._jac_build())
            _carry(self._f, self._jac_buffer)
        return self._jac_buffer

    @_jac.setter
    def _jac(self, value: Buffered) -> None:
        self._jac_buffer = value

    def _buffers(self) -> list[Buffered]:
        """The functions' buffers that exist (the Jacobian's only once built)."""
        return [b for b in (self._f, self._jac_buffer, self._g, self._g_raw) if b is not None]

    def _install(self, functions: list[ca.Function]) -> None:
        """The right-hand side (or residual), root functions and indicators the solver
        evaluates, in the virtual machine or as machine code, taking over the values the
        present ones hold (parameters, nominal values, live rows)."""
        f, roots, indicators, *jacobian = functions
        old = getattr(self, "_f", None), getattr(self, "_g", None), getattr(self, "_g_raw", None)
        self._f, self._g, self._g_raw = Buffered(f), Buffered(roots), Buffered(indicators)
        self._g.arg["live"][:] = 1.0
        for before, now in zip(old, (self._f, self._g, self._g_raw)):
            _carry(before, now)
        if jacobian:  # IDA's Jacobian (built with the functions)
            before, self._jac = self._jac_buffer, Buffered(jacobian[0])
            _carry(before, self._jac)

    def _build_eliminated(self, cs, g_rows) -> None:
        """CVODE's functions for a system whose algebraic equations are linear in z,
        ``g = A(t, x, p) z + b(t, x, p)``: ``z = -A^-1 b`` is a numeric linear solve (LU) inside
        the CasADi function (MX), so CVODE integrates the states only and no Python runs
        between the solver and the solve. The Jacobian is exact, from the partial derivatives
        (below)."""
        zero = ca.DM.zeros(self.n_z)
        a_sx = algebraic_jacobian(cs)
        b_sx = ca.substitute(cs.alg, cs.z, zero)
        linear = ca.Function("linear_loop", [cs.t, cs.x, cs.p], [a_sx, b_sx])
        ode = ca.Function("ode", [cs.t, cs.x, cs.z, cs.p], [cs.ode, g_rows])
        # the Jacobian from the partial derivatives (SX) and the same solve, not by
        # differentiating through the MX graph (ten times cheaper to evaluate and to build):
        # g(x, z(x)) = 0 gives dz/dx = -A^-1 dg/dx, so df/dx = f_x + f_z dz/dx
        self._partials = ca.Function("ode_partials", [cs.t, cs.x, cs.z, cs.p],
                                     [ca.densify(ca.jacobian(cs.ode, cs.x)),
                                      ca.densify(ca.jacobian(cs.ode, cs.z)),
                                      ca.densify(ca.jacobian(cs.alg, cs.x))])
        # what every right-hand side evaluates can become machine code (the loop's LU: below,
        # or the driver's)
        self._compilable = ([linear, ode], (0, 2), self._install_loop)
        self._install_loop([linear, ode])

    def _install_loop(self, functions: list[ca.Function]) -> None:
        """The solver's functions of a linear loop around ``linear`` (A, b) and ``ode``, in the
        virtual machine or as machine code (see :meth:`_install`)."""
        linear, ode = functions
        n_x = self.n_x
        old = {k: getattr(self, k, None) for k in ("_g", "_g_raw", "_f", "_jac_buffer")}
        n_g = ode.numel_out(1)
        t, p = ca.MX.sym("t"), ca.MX.sym("p", linear.numel_in(2))
        u, d = ca.MX.sym("u", n_x), ca.MX.sym("d", n_x + self.n_z)
        x = d[:n_x] * u
        a, b = linear(t, x, p)
        z = ca.solve(a, -b, LINEAR_SOLVER)
        xdot, g = ode(t, x, z, p)
        f_scaled = xdot / d[:n_x]
        names = ["t", "u", "p", "d"]
        live, hold = ca.MX.sym("live", n_g), ca.MX.sym("hold", n_g)
        self._g = Buffered(ca.Function("roots", [t, u, p, d, live, hold], [live * g + hold],
                                       names + ["live", "hold"], ["g"]))
        self._g.arg["live"][:] = 1.0
        self._g_raw = Buffered(ca.Function("indicators", [t, u, p, d], [g], names, ["g"]))
        self._f = Buffered(ca.Function("rhs", [t, u, p, d], [f_scaled], names, ["f"]))
        f_x, f_z, g_x = self._partials(t, x, z, p)
        jac_x = f_x - ca.mtimes(f_z, ca.solve(a, g_x, LINEAR_SOLVER))
        d_x = d[:n_x]
        jac_u = jac_x * ca.mtimes(1 / d_x, d_x.T)  # in the scaled unknowns u = x / d_x
        self._jac = Buffered(ca.Function("rhs_jac", [t, u, p, d], [jac_u], names, ["j"]))
        for k, buffered in old.items():
            _carry(buffered, getattr(self, k))
        # z at the output points, from the unscaled states
        xs = ca.MX.sym("x", n_x)
        a, b = linear(t, xs, p)
        self._z_of = ca.Function("z_of", [t, xs, p], [ca.solve(a, -b, LINEAR_SOLVER)])
        self._z_columns = None

    def native_functions(self) -> list[ca.Function]:
        """The SX functions that become machine code (:mod:`.native`), their outputs made
        dense (as the compiled driver writes them; IDA's Jacobian keeps its sparsity:
        :data:`SPARSE_OUTPUTS`); built once."""
        if not hasattr(self, "_dense"):
            # a function whose outputs are dense already is taken as it is: rebuilding it
            # costs a symbolic evaluation (12 ms of a 20-link chain's 0.17 s run from the cache)
            self._dense = [f if f.name() in SPARSE_OUTPUTS or all(
                               f.sparsity_out(k).is_dense() for k in range(f.n_out())) else
                           ca.Function(f.name(), f.sx_in(),
                                       [ca.densify(o) for o in f.call(f.sx_in())],
                                       f.name_in(), f.name_out())
                           for f in self._compilable[0]]
        return self._dense

    def renew_solver(self) -> None:
        """The next solver call starts a new solver: the compiled driver where it has come
        into the cache since (:meth:`.tiering.NativeTier.driver_ready`)."""
        self._solver = None
        self._solver_settings = None
        self._roots = None

    def use_native(self, libraries: list) -> None:
        """Evaluate :meth:`native_functions` from their compiled ``libraries`` (in order) from
        now on; the next solver call starts a new solver (the compiled driver where it is
        available), so a run may switch here between two of its solver calls."""
        _, slots, install = self._compilable
        dense = self.native_functions()
        self._native = [(slot, path, f.name()) for f, path, slot in zip(dense, libraries, slots)
                        if slot is not None]
        install([ca.external(f.name(), str(path)) for f, path in zip(dense, libraries)])
        self.jit = True
        self.tier = None
        self.renew_solver()
