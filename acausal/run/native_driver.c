/*
 * acausal's compiled solver driver (simulate(jit=True), acausal/run/native_solver.py).
 *
 * CVODE or IDA (SUNDIALS 7, the libraries scikit-sundae ships) integrating a model whose
 * functions CasADi's code generator wrote as C and the system compiler built
 * (acausal/run/native.py): the right-hand side (or residual) and the root functions are called
 * from here directly, so no Python runs per evaluation. Python is called back only where it is
 * rare or must decide: CVODE's exact Jacobian (evaluated in CasADi's virtual machine, tens to
 * hundreds of times a run; CVODE's Adams on a dense Jacobian takes SUNDIALS' difference
 * quotients here instead, as scikit-sundae does without a Jacobian function; IDA's, evaluated
 * every few steps, is compiled and called from here), the run loop's
 * watch root function (dynamic state selection, throttled on
 * its side) and a poll every `poll_every` right-hand sides (progress display and Ctrl-C).
 *
 * What one solve does is what scikit-sundae's normal-mode solve does (so that both paths take
 * the same steps): (re)initialise at tspan[0], stop time tspan[n-1], CVode/IDASolve in normal
 * mode towards each output time in turn; every root function is terminal, so the first root
 * ends the call with its point as the last output row and its flags in `roots_out`.
 *
 * Three kinds of problem (the inputs of each generated function are fixed by
 * acausal/run/sundials.py; outputs are dense):
 *   KIND_ODE   CVODE;  rhs(t, u, p, d) -> f,  roots(t, u, p, d, live, hold) -> g
 *   KIND_DAE   IDA;    res(t, u, up, p, d, r) -> res,  roots as for KIND_ODE
 *   KIND_LOOP  CVODE on the states of a model whose algebraic equations are linear in z:
 *              loop(t, x, p) -> (A, b) with A z + b = 0 (A dense, column-major),
 *              ode(t, x, z, p) -> (xdot, g); x = d u, z = -A^-1 b by LU with partial
 *              pivoting here, f = xdot / d, roots = live g + hold.
 * The solver's unknowns u are scaled (u = y / d); the generated functions take that into
 * account (KIND_LOOP: here).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ACAUSAL_SUNINDEX
#define ACAUSAL_SUNINDEX int
#endif

/* -- the parts of the SUNDIALS 7 API used here (declared, so that no headers are needed) -- */
typedef double sunrealtype;
typedef ACAUSAL_SUNINDEX sunindextype;
typedef int SUNComm; /* SUNDIALS built without MPI */
typedef int SUNErrCode;
typedef struct _SUNContext *SUNContext;
typedef struct _generic_N_Vector *N_Vector;
typedef struct _generic_SUNMatrix *SUNMatrix;
typedef struct _generic_SUNLinearSolver *SUNLinearSolver;
typedef void (*SUNErrHandlerFn)(int line, const char *func, const char *file, const char *msg,
                                SUNErrCode err_code, void *err_user_data, SUNContext sunctx);
typedef int (*CVRhsFn)(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data);
typedef int (*CVRootFn)(sunrealtype t, N_Vector y, sunrealtype *gout, void *user_data);
typedef int (*CVLsJacFn)(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix Jac,
                         void *user_data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
typedef int (*IDAResFn)(sunrealtype tt, N_Vector yy, N_Vector yp, N_Vector rr,
                        void *user_data);
typedef int (*IDARootFn)(sunrealtype t, N_Vector y, N_Vector yp, sunrealtype *gout,
                         void *user_data);
typedef int (*IDALsJacFn)(sunrealtype tt, sunrealtype c_j, N_Vector yy, N_Vector yp,
                          N_Vector rr, SUNMatrix Jac, void *user_data, N_Vector tmp1,
                          N_Vector tmp2, N_Vector tmp3);

SUNErrCode SUNContext_Create(SUNComm comm, SUNContext *sunctx_out);
SUNErrCode SUNContext_Free(SUNContext *ctx);
SUNErrCode SUNContext_ClearErrHandlers(SUNContext sunctx);
SUNErrCode SUNContext_PushErrHandler(SUNContext sunctx, SUNErrHandlerFn err_fn,
                                     void *err_user_data);
typedef struct SUNLogger_ *SUNLogger;
SUNErrCode SUNContext_GetLogger(SUNContext sunctx, SUNLogger *logger);
SUNErrCode SUNLogger_SetWarningFilename(SUNLogger logger, const char *warning_filename);
N_Vector N_VNew_Serial(sunindextype vec_length, SUNContext sunctx);
void N_VDestroy(N_Vector v);
sunrealtype *N_VGetArrayPointer(N_Vector v);
SUNMatrix SUNDenseMatrix(sunindextype M, sunindextype N, SUNContext sunctx);
sunrealtype *SUNDenseMatrix_Data(SUNMatrix A);
SUNMatrix SUNSparseMatrix(sunindextype M, sunindextype N, sunindextype NNZ, int sparsetype,
                          SUNContext sunctx);
sunrealtype *SUNSparseMatrix_Data(SUNMatrix A);
sunindextype *SUNSparseMatrix_IndexValues(SUNMatrix A);
sunindextype *SUNSparseMatrix_IndexPointers(SUNMatrix A);
void SUNMatDestroy(SUNMatrix A);
SUNLinearSolver SUNLinSol_Dense(N_Vector y, SUNMatrix A, SUNContext sunctx);
SUNMatrix SUNBandMatrix(sunindextype N, sunindextype mu, sunindextype ml, SUNContext sunctx);
SUNLinearSolver SUNLinSol_Band(N_Vector y, SUNMatrix A, SUNContext sunctx);
#ifdef ACAUSAL_SUPERLUMT
SUNLinearSolver SUNLinSol_SuperLUMT(N_Vector y, SUNMatrix A, int num_threads,
                                    SUNContext sunctx);
#endif
SUNErrCode SUNLinSolFree(SUNLinearSolver S);

void *CVodeCreate(int lmm, SUNContext sunctx);
int CVodeInit(void *cvode_mem, CVRhsFn f, sunrealtype t0, N_Vector y0);
int CVodeReInit(void *cvode_mem, sunrealtype t0, N_Vector y0);
int CVodeSStolerances(void *cvode_mem, sunrealtype reltol, sunrealtype abstol);
int CVodeSetUserData(void *cvode_mem, void *user_data);
int CVodeSetLinearSolver(void *cvode_mem, SUNLinearSolver LS, SUNMatrix A);
int CVodeSetJacFn(void *cvode_mem, CVLsJacFn jac);
int CVodeGetNumSteps(void *cvode_mem, long int *nsteps);
int CVodeGetNumNonlinSolvIters(void *cvode_mem, long int *nniters);
int CVodeGetNumNonlinSolvConvFails(void *cvode_mem, long int *nnfails);
int CVodeRootInit(void *cvode_mem, int nrtfn, CVRootFn g);
int CVodeSetMaxStep(void *cvode_mem, sunrealtype hmax);
int CVodeSetMaxOrd(void *cvode_mem, int maxord);
int CVodeSetMaxNumSteps(void *cvode_mem, long int mxsteps);
int CVodeSetStopTime(void *cvode_mem, sunrealtype tstop);
int CVodeClearStopTime(void *cvode_mem);
int CVode(void *cvode_mem, sunrealtype tout, N_Vector yout, sunrealtype *tret, int itask);
int CVodeGetRootInfo(void *cvode_mem, int *rootsfound);
void CVodeFree(void **cvode_mem);

void *IDACreate(SUNContext sunctx);
int IDAInit(void *ida_mem, IDAResFn res, sunrealtype t0, N_Vector yy0, N_Vector yp0);
int IDAReInit(void *ida_mem, sunrealtype t0, N_Vector yy0, N_Vector yp0);
int IDASStolerances(void *ida_mem, sunrealtype reltol, sunrealtype abstol);
int IDASVtolerances(void *ida_mem, sunrealtype reltol, N_Vector abstol);
int IDASetUserData(void *ida_mem, void *user_data);
int IDASetLinearSolver(void *ida_mem, SUNLinearSolver LS, SUNMatrix A);
int IDASetJacFn(void *ida_mem, IDALsJacFn jac);
int IDARootInit(void *ida_mem, int nrtfn, IDARootFn g);
int IDASetId(void *ida_mem, N_Vector id);
int IDASetMaxStep(void *ida_mem, sunrealtype hmax);
int IDASetMaxOrd(void *ida_mem, int maxord);
int IDASetMaxNumSteps(void *ida_mem, long int mxsteps);
int IDASetStopTime(void *ida_mem, sunrealtype tstop);
int IDAClearStopTime(void *ida_mem);
int IDASolve(void *ida_mem, sunrealtype tout, sunrealtype *tret, N_Vector yret, N_Vector ypret,
             int itask);
int IDAGetRootInfo(void *ida_mem, int *rootsfound);
void IDAFree(void **ida_mem);

#define CV_ADAMS 1
#define CV_BDF 2
#define SUN_NORMAL 1 /* CV_NORMAL, IDA_NORMAL */
#define SUN_ROOT_RETURN 2
#define SUN_TSTOP_RETURN 1
#define CSC_MAT 0

/* -- CasADi's generated functions ---------------------------------------------------------- */
typedef long long int casadi_int;
typedef int (*casadi_eval)(const double **arg, double **res, casadi_int *iw, double *w,
                           int mem);
typedef int (*casadi_work)(casadi_int *sz_arg, casadi_int *sz_res, casadi_int *sz_iw,
                           casadi_int *sz_w);

typedef struct {
  casadi_eval eval;
  const double **arg;
  double **res;
  casadi_int *iw;
  double *w;
} Fn;

static int fn_bind(Fn *f, void *eval, void *work) {
  casadi_int n_arg = 0, n_res = 0, n_iw = 0, n_w = 0;
  f->eval = (casadi_eval)eval;
  if (((casadi_work)work)(&n_arg, &n_res, &n_iw, &n_w)) return -1;
  f->arg = calloc(n_arg > 8 ? n_arg : 8, sizeof(double *));
  f->res = calloc(n_res > 2 ? n_res : 2, sizeof(double *));
  f->iw = calloc(n_iw > 1 ? n_iw : 1, sizeof(casadi_int));
  f->w = calloc(n_w > 1 ? n_w : 1, sizeof(double));
  return (f->arg && f->res && f->iw && f->w) ? 0 : -1;
}

static void fn_free(Fn *f) {
  free((void *)f->arg);
  free(f->res);
  free(f->iw);
  free(f->w);
  memset(f, 0, sizeof(Fn));
}

static int fn_call(Fn *f) { return f->eval(f->arg, f->res, f->iw, f->w, 0); }

/* -- the driver ------------------------------------------------------------------------------ */
enum { KIND_ODE = 0, KIND_DAE = 1, KIND_LOOP = 2 };

typedef int (*jacobian_callback)(double t, double cj);
typedef double (*watch_callback)(double t);
typedef int (*poll_callback)(double t);

typedef struct {
  int kind, n, n_x, n_z, n_rows, watch, sparse;
  Fn main, roots, ode; /* main: rhs, res or loop; ode: KIND_LOOP only */
  const double *p, *d, *r, *live, *hold;
  /* Python callbacks and the buffers they share with the driver */
  jacobian_callback jacobian;
  double *jac_u, *jac_up;      /* the point, written here before the call */
  const double *jac_values;    /* its nonzeros, CasADi's compressed-column order */
  const casadi_int *jac_colind, *jac_row;
  int jac_nnz;
  Fn jac_fn;  /* IDA's Jacobian compiled (slot 3): called here, into jac_values, not Python */
  double cj;  /* its input cj */
  watch_callback watch_fn;
  double *watch_u;
  poll_callback poll;
  long poll_every;
  double *poll_u; /* the unknowns at the last poll (and at the end of a call), for Python */
  /* SUNDIALS */
  SUNContext ctx;
  void *mem;
  N_Vector y, yp, atol, id;
  SUNMatrix A;
  SUNLinearSolver LS;
  int initialised;
  /* work */
  double t, t_first, t_target; /* the time of an evaluation; the call's start and output */
  double *x, *z, *a, *b, *xdot, *g;
  int *pivots;
  long calls, root_calls;
  int stop; /* set by the poll: the right-hand side returns NaN, the solver stops */
  /* what a call reports, read by Python from these arrays (set once) */
  long *counters; /* output rows, right-hand sides, root function evaluations */
  int *roots_out; /* the flags of the root functions that stopped the call */
  char *message;  /* the last error SUNDIALS reported in the call ("" if none) */
  int message_size;
} Driver;

static void error_handler(int line, const char *func, const char *file, const char *msg,
                          SUNErrCode code, void *data, SUNContext ctx) {
  (void)line, (void)file, (void)ctx;
  Driver *D = (Driver *)data;
  /* the format of scikit-sundae's handler: acausal/run/sundials.py reads both alike */
  if (D->message && D->message_size > 0)
    snprintf(D->message, (size_t)D->message_size, "\n[%s, Error: %d] %s\n", func ? func : "",
             (int)code, msg ? msg : "");
}

static void count_call(Driver *D, double t, const double *u) {
  D->calls++;
  if (D->poll && D->calls % D->poll_every == 0) {
    if (D->poll_u) memcpy(D->poll_u, u, sizeof(double) * D->n);
    if (D->poll(t)) D->stop = 1;
  }
}

static void fill_nan(double *v, int n) {
  for (int i = 0; i < n; i++) v[i] = NAN;
}

/* z = -A^-1 b: LU with partial pivoting of the dense column-major A (overwritten); NaN when
 * A is singular (the solver then fails its step, as with LAPACK's solve). */
static void solve_loop(int n, double *a, const double *b, double *z, int *piv) {
  for (int k = 0; k < n; k++) {
    int p = k;
    double big = fabs(a[k + k * n]);
    for (int i = k + 1; i < n; i++)
      if (fabs(a[i + k * n]) > big) big = fabs(a[i + k * n]), p = i;
    piv[k] = p;
    if (big == 0.0) {
      fill_nan(z, n);
      return;
    }
    if (p != k)
      for (int j = 0; j < n; j++) {
        double s = a[k + j * n];
        a[k + j * n] = a[p + j * n];
        a[p + j * n] = s;
      }
    double inv = 1.0 / a[k + k * n];
    for (int i = k + 1; i < n; i++) a[i + k * n] *= inv;
    for (int j = k + 1; j < n; j++) {
      double akj = a[k + j * n];
      if (akj != 0.0)
        for (int i = k + 1; i < n; i++) a[i + j * n] -= a[i + k * n] * akj;
    }
  }
  /* the row interchanges first (they were applied to whole rows of L too), then L and U */
  for (int i = 0; i < n; i++) z[i] = -b[i];
  for (int k = 0; k < n; k++)
    if (piv[k] != k) {
      double s = z[k];
      z[k] = z[piv[k]];
      z[piv[k]] = s;
    }
  for (int k = 0; k < n; k++)
    for (int i = k + 1; i < n; i++) z[i] -= a[i + k * n] * z[k];
  for (int k = n - 1; k >= 0; k--) {
    z[k] /= a[k + k * n];
    for (int i = 0; i < k; i++) z[i] -= a[i + k * n] * z[k];
  }
}

/* KIND_LOOP: xdot and g at (t, u) */
static int loop_eval(Driver *D, double t, const double *u) {
  int nx = D->n_x;
  for (int i = 0; i < nx; i++) D->x[i] = D->d[i] * u[i];
  D->t = t;
  if (fn_call(&D->main)) return -1;
  solve_loop(D->n_z, D->a, D->b, D->z, D->pivots);
  return fn_call(&D->ode);
}

static int cv_rhs(double t, N_Vector y, N_Vector ydot, void *user) {
  Driver *D = (Driver *)user;
  double *f = N_VGetArrayPointer(ydot);
  if (D->kind == KIND_LOOP) {
    if (loop_eval(D, t, N_VGetArrayPointer(y))) return -1;
    for (int i = 0; i < D->n_x; i++) f[i] = D->xdot[i] / D->d[i];
  } else {
    D->t = t;
    D->main.arg[1] = N_VGetArrayPointer(y);
    D->main.res[0] = f;
    if (fn_call(&D->main)) return -1;
  }
  if (D->stop) fill_nan(f, D->n);
  count_call(D, t, N_VGetArrayPointer(y));
  return 0;
}

static int ida_res(double t, N_Vector y, N_Vector yp, N_Vector rr, void *user) {
  Driver *D = (Driver *)user;
  double *res = N_VGetArrayPointer(rr);
  D->t = t;
  D->main.arg[1] = N_VGetArrayPointer(y);
  D->main.arg[2] = N_VGetArrayPointer(yp);
  D->main.res[0] = res;
  if (fn_call(&D->main)) return -1;
  if (D->stop) fill_nan(res, D->n);
  count_call(D, t, N_VGetArrayPointer(y));
  return 0;
}

static int roots_at(Driver *D, double t, const double *u, double *gout) {
  if (D->n_rows) {
    if (D->kind == KIND_LOOP) {
      if (loop_eval(D, t, u)) return -1;
      for (int i = 0; i < D->n_rows; i++) gout[i] = D->live[i] * D->g[i] + D->hold[i];
    } else {
      D->t = t;
      D->roots.arg[1] = u;
      D->roots.res[0] = gout;
      if (fn_call(&D->roots)) return -1;
    }
  }
  if (D->watch) {
    /* SUNDIALS evaluates the root functions at the output times too (interpolated); the
     * watch is +1 there by its contract (sundials.Problem.set_watch): no Python call */
    if (t == D->t_first || t == D->t_target) {
      gout[D->n_rows] = 1.0;
    } else {
      memcpy(D->watch_u, u, sizeof(double) * D->n);
      gout[D->n_rows] = D->watch_fn(t);
    }
  }
  D->root_calls++;
  return 0;
}

static int cv_roots(double t, N_Vector y, double *gout, void *user) {
  return roots_at((Driver *)user, t, N_VGetArrayPointer(y), gout);
}

static int ida_roots(double t, N_Vector y, N_Vector yp, double *gout, void *user) {
  (void)yp;
  return roots_at((Driver *)user, t, N_VGetArrayPointer(y), gout);
}

static int fill_jacobian(Driver *D, SUNMatrix J) {
  const double *v = D->jac_values;
  int n = D->n;
  if (D->sparse) {
    sunindextype *ptr = SUNSparseMatrix_IndexPointers(J), *idx = SUNSparseMatrix_IndexValues(J);
    double *data = SUNSparseMatrix_Data(J);
    for (int j = 0; j <= n; j++) ptr[j] = (sunindextype)D->jac_colind[j];
    for (int k = 0; k < D->jac_nnz; k++) idx[k] = (sunindextype)D->jac_row[k], data[k] = v[k];
    return 0;
  }
  double *data = SUNDenseMatrix_Data(J);
  memset(data, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int j = 0; j < n; j++)
    for (casadi_int k = D->jac_colind[j]; k < D->jac_colind[j + 1]; k++)
      data[D->jac_row[k] + (size_t)j * n] = v[k];
  return 0;
}

static int cv_jac(double t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
                  N_Vector t2, N_Vector t3) {
  (void)fy, (void)t1, (void)t2, (void)t3;
  Driver *D = (Driver *)user;
  memcpy(D->jac_u, N_VGetArrayPointer(y), sizeof(double) * D->n);
  if (D->jacobian(t, 0.0)) return -1; /* Python keeps the exception, raised after the call */
  return fill_jacobian(D, J);
}

/* The zero Jacobian of the fixed-point iteration (acausal_driver_setup): CVODE has zeroed the
 * matrix before it asks. */
static int cv_zero_jac(double t, N_Vector y, N_Vector fy, SUNMatrix J, void *user,
                       N_Vector t1, N_Vector t2, N_Vector t3) {
  (void)t, (void)y, (void)fy, (void)J, (void)user, (void)t1, (void)t2, (void)t3;
  return 0;
}

static int ida_jac(double t, double cj, N_Vector y, N_Vector yp, N_Vector rr, SUNMatrix J,
                   void *user, N_Vector t1, N_Vector t2, N_Vector t3) {
  (void)rr, (void)t1, (void)t2, (void)t3;
  Driver *D = (Driver *)user;
  if (D->jac_fn.eval) { /* compiled: its nonzeros into the buffer Python's would fill */
    D->t = t, D->cj = cj;
    D->jac_fn.arg[1] = N_VGetArrayPointer(y), D->jac_fn.arg[2] = N_VGetArrayPointer(yp);
    D->jac_fn.res[0] = (double *)D->jac_values;
    if (fn_call(&D->jac_fn)) return -1;
    return fill_jacobian(D, J);
  }
  memcpy(D->jac_u, N_VGetArrayPointer(y), sizeof(double) * D->n);
  memcpy(D->jac_up, N_VGetArrayPointer(yp), sizeof(double) * D->n);
  if (D->jacobian(t, cj)) return -1;
  return fill_jacobian(D, J);
}

/* -- the interface (ctypes, acausal/run/native_solver.py) ------------------------------------ */
void acausal_driver_free(Driver *D);

Driver *acausal_driver_new(int kind, int n, int n_x, int n_z, int n_rows, int watch,
                           int sparse) {
  Driver *D = calloc(1, sizeof(Driver));
  if (!D) return NULL;
  D->kind = kind, D->n = n, D->n_x = n_x, D->n_z = n_z, D->n_rows = n_rows;
  D->watch = watch, D->sparse = sparse, D->poll_every = 512;
  if (kind == KIND_LOOP) {
    D->x = calloc(n_x + 1, sizeof(double));
    D->z = calloc(n_z + 1, sizeof(double));
    D->a = calloc((size_t)n_z * n_z + 1, sizeof(double));
    D->b = calloc(n_z + 1, sizeof(double));
    D->xdot = calloc(n_x + 1, sizeof(double));
    D->g = calloc(n_rows + 1, sizeof(double));
    D->pivots = calloc(n_z + 1, sizeof(int));
    if (!(D->x && D->z && D->a && D->b && D->xdot && D->g && D->pivots)) {
      acausal_driver_free(D);
      return NULL;
    }
  }
  return D;
}

/* slot 0: rhs / res / loop, 1: roots, 2: ode (KIND_LOOP), 3: IDA's Jacobian. The constant
 * inputs are the caller's arrays (p, d, r, live, hold), read at every call. */
int acausal_driver_function(Driver *D, int slot, void *eval, void *work, const double *p,
                            const double *d, const double *r, const double *live,
                            const double *hold) {
  Fn *f = slot == 0 ? &D->main : slot == 1 ? &D->roots : slot == 3 ? &D->jac_fn : &D->ode;
  if (fn_bind(f, eval, work)) return -1;
  D->p = p, D->d = d, D->r = r, D->live = live, D->hold = hold;
  f->arg[0] = &D->t;
  if (D->kind == KIND_LOOP) {
    if (slot == 0) { /* loop(t, x, p) -> (A, b) */
      f->arg[1] = D->x, f->arg[2] = p;
      f->res[0] = D->a, f->res[1] = D->b;
    } else { /* ode(t, x, z, p) -> (xdot, g) */
      f->arg[1] = D->x, f->arg[2] = D->z, f->arg[3] = p;
      f->res[0] = D->xdot, f->res[1] = D->g;
    }
  } else if (slot == 0 && D->kind == KIND_DAE) { /* res(t, u, up, p, d, r) */
    f->arg[3] = p, f->arg[4] = d, f->arg[5] = r;
  } else if (slot == 3) { /* res_jac(t, u, up, p, d, r, cj) */
    f->arg[3] = p, f->arg[4] = d, f->arg[5] = r, f->arg[6] = &D->cj;
  } else if (slot == 0) { /* rhs(t, u, p, d) */
    f->arg[2] = p, f->arg[3] = d;
  } else { /* roots(t, u, p, d, live, hold) */
    f->arg[2] = p, f->arg[3] = d, f->arg[4] = live, f->arg[5] = hold;
  }
  return 0;
}

void acausal_driver_callbacks(Driver *D, jacobian_callback jacobian, double *jac_u,
                              double *jac_up, const double *jac_values,
                              const casadi_int *jac_colind, const casadi_int *jac_row,
                              int jac_nnz, watch_callback watch_fn, double *watch_u,
                              poll_callback poll, long poll_every, double *poll_u) {
  D->jacobian = jacobian, D->jac_u = jac_u, D->jac_up = jac_up, D->jac_values = jac_values;
  D->jac_colind = jac_colind, D->jac_row = jac_row, D->jac_nnz = jac_nnz;
  D->watch_fn = watch_fn, D->watch_u = watch_u;
  D->poll = poll, D->poll_every = poll_every > 0 ? poll_every : 512;
  D->poll_u = poll_u;
}

/* The solver with its settings (once; new settings make a new driver). atol: one value, or
 * (atol_vector != NULL) one per unknown; id (IDA): 1 differential, 0 algebraic;
 * quotients (CVODE, dense): SUNDIALS' own difference-quotient Jacobian (n right-hand sides
 * here, no Python) instead of the exact one from Python; fixed_point (CVODE's Adams): the
 * corrector's fixed-point iteration instead of Newton's: Newton's iteration on a zero Jacobian,
 * whose matrix I - gamma J is the identity, so each correction is gamma f(y) + a - y, the
 * fixed-point iteration's, and its "linear solve" a diagonal one: the iteration scikit-sundae
 * runs, and fewer right-hand sides than SUNDIALS' own fixed-point solver (docs/compiler.md,
 * "Jacobians"). */
int acausal_driver_setup(Driver *D, int bdf, int quotients, int fixed_point, double rtol,
                         double atol,
                         const double *atol_vector, const double *id, double max_step,
                         int max_order, long max_num_steps, const char *log_file,
                         long *counters, int *roots_out, char *message, int message_size) {
  int flag;
  SUNLogger logger = NULL;
  D->counters = counters, D->roots_out = roots_out;
  D->message = message, D->message_size = message_size;
  if (SUNContext_Create(0, &D->ctx)) return -100;
  SUNContext_ClearErrHandlers(D->ctx);
  SUNContext_PushErrHandler(D->ctx, error_handler, D);
  /* warnings (such as "t + h = t") go to this file, not to the terminal */
  if (log_file && !SUNContext_GetLogger(D->ctx, &logger) && logger)
    SUNLogger_SetWarningFilename(logger, log_file);
  D->y = N_VNew_Serial(D->n, D->ctx);
  if (!D->y) return -101;
  memset(N_VGetArrayPointer(D->y), 0, sizeof(double) * D->n);
  if (D->kind == KIND_DAE) {
    D->yp = N_VNew_Serial(D->n, D->ctx);
    if (!D->yp) return -101;
    memset(N_VGetArrayPointer(D->yp), 0, sizeof(double) * D->n);
  }
  int zero_jacobian = D->kind != KIND_DAE && fixed_point && !bdf;
  if (zero_jacobian) { /* a diagonal matrix: a band of width 0 */
    D->A = SUNBandMatrix(D->n, 0, 0, D->ctx);
    D->LS = D->A ? SUNLinSol_Band(D->y, D->A, D->ctx) : NULL;
  } else if (D->sparse) {
#ifdef ACAUSAL_SUPERLUMT
    D->A = SUNSparseMatrix(D->n, D->n, D->jac_nnz > 0 ? D->jac_nnz : 1, CSC_MAT, D->ctx);
    D->LS = D->A ? SUNLinSol_SuperLUMT(D->y, D->A, 1, D->ctx) : NULL;
#else
    return -102;
#endif
  } else {
    D->A = SUNDenseMatrix(D->n, D->n, D->ctx);
    D->LS = D->A ? SUNLinSol_Dense(D->y, D->A, D->ctx) : NULL;
  }
  if (!D->A || !D->LS) return -103;
  if (D->kind == KIND_DAE) {
    D->mem = IDACreate(D->ctx);
    if (!D->mem) return -104;
    if ((flag = IDASetUserData(D->mem, D))) return flag;
    if ((flag = IDAInit(D->mem, ida_res, 0.0, D->y, D->yp))) return flag;
    if (atol_vector) {
      D->atol = N_VNew_Serial(D->n, D->ctx);
      if (!D->atol) return -101;
      memcpy(N_VGetArrayPointer(D->atol), atol_vector, sizeof(double) * D->n);
      flag = IDASVtolerances(D->mem, rtol, D->atol);
    } else {
      flag = IDASStolerances(D->mem, rtol, atol);
    }
    if (flag) return flag;
    if ((flag = IDASetLinearSolver(D->mem, D->LS, D->A))) return flag;
    if ((flag = IDASetJacFn(D->mem, ida_jac))) return flag;
    if (D->n_rows + D->watch && (flag = IDARootInit(D->mem, D->n_rows + D->watch, ida_roots)))
      return flag;
    D->id = N_VNew_Serial(D->n, D->ctx);
    if (!D->id) return -101;
    memcpy(N_VGetArrayPointer(D->id), id, sizeof(double) * D->n);
    if ((flag = IDASetId(D->mem, D->id))) return flag;
    if (max_step > 0 && (flag = IDASetMaxStep(D->mem, max_step))) return flag;
    if (max_order > 0 && (flag = IDASetMaxOrd(D->mem, max_order))) return flag;
    if ((flag = IDASetMaxNumSteps(D->mem, max_num_steps))) return flag;
  } else {
    D->mem = CVodeCreate(bdf ? CV_BDF : CV_ADAMS, D->ctx);
    if (!D->mem) return -104;
    if ((flag = CVodeSetUserData(D->mem, D))) return flag;
    if ((flag = CVodeInit(D->mem, cv_rhs, 0.0, D->y))) return flag;
    if ((flag = CVodeSStolerances(D->mem, rtol, atol))) return flag;
    if ((flag = CVodeSetLinearSolver(D->mem, D->LS, D->A))) return flag;
    if (zero_jacobian)
      flag = CVodeSetJacFn(D->mem, cv_zero_jac);
    else if (!(quotients && !D->sparse))
      flag = CVodeSetJacFn(D->mem, cv_jac);
    if (flag) return flag;
    if (D->n_rows + D->watch && (flag = CVodeRootInit(D->mem, D->n_rows + D->watch, cv_roots)))
      return flag;
    if (max_step > 0 && (flag = CVodeSetMaxStep(D->mem, max_step))) return flag;
    if (max_order > 0 && (flag = CVodeSetMaxOrd(D->mem, max_order))) return flag;
    if ((flag = CVodeSetMaxNumSteps(D->mem, max_num_steps))) return flag;
  }
  return 0;
}

/* One solver call over tspan[0..n_t-1] from (y0, yp0) (unscaled as the solver sees them);
 * output rows t_out[k], y_out[k*n..] for k < counters[0] (row 0: the start), the last a root's
 * point when the call returns SUN_ROOT_RETURN (flags in roots_out). Returns the last flag. */
int acausal_driver_solve(Driver *D, int n_t, const double *tspan, const double *y0,
                         const double *yp0, double *t_out, double *y_out) {
  int flag, k = 1, dae = D->kind == KIND_DAE;
  double t = tspan[0];
  D->calls = 0, D->root_calls = 0, D->stop = 0;
  D->t_first = tspan[0];
  D->counters[0] = 1, D->counters[1] = 0, D->counters[2] = 0;
  if (D->message_size > 0) D->message[0] = '\0';
  memcpy(N_VGetArrayPointer(D->y), y0, sizeof(double) * D->n);
  if (dae) memcpy(N_VGetArrayPointer(D->yp), yp0, sizeof(double) * D->n);
  flag = dae ? IDAReInit(D->mem, tspan[0], D->y, D->yp) : CVodeReInit(D->mem, tspan[0], D->y);
  if (flag) return flag;
  flag = dae ? IDASetStopTime(D->mem, tspan[n_t - 1]) : CVodeSetStopTime(D->mem, tspan[n_t - 1]);
  if (flag) return flag;
  t_out[0] = tspan[0];
  memcpy(y_out, y0, sizeof(double) * D->n);
  while (k < n_t) {
    D->t_target = tspan[k];
    flag = dae ? IDASolve(D->mem, tspan[k], &t, D->y, D->yp, SUN_NORMAL)
               : CVode(D->mem, tspan[k], D->y, &t, SUN_NORMAL);
    t_out[k] = t;
    memcpy(y_out + (size_t)k * D->n, N_VGetArrayPointer(D->y), sizeof(double) * D->n);
    k++;
    if (flag == SUN_ROOT_RETURN) {
      if (dae)
        IDAGetRootInfo(D->mem, D->roots_out);
      else
        CVodeGetRootInfo(D->mem, D->roots_out);
      break;
    }
    if (flag == SUN_TSTOP_RETURN || flag < 0) break;
  }
  D->counters[0] = k, D->counters[1] = D->calls, D->counters[2] = D->root_calls;
  if (D->poll_u) memcpy(D->poll_u, N_VGetArrayPointer(D->y), sizeof(double) * D->n);
  if (dae)
    IDAClearStopTime(D->mem);
  else
    CVodeClearStopTime(D->mem);
  fflush(NULL); /* the logger's warnings into their file, for Python to read */
  return flag;
}

/* CVODE's counts since the present call began (CVodeReInit resets them): steps, nonlinear
 * iterations, nonlinear convergence failures; zeros for IDA. */
void acausal_driver_statistics(Driver *D, long *out) {
  out[0] = out[1] = out[2] = 0;
  if (!D->mem || D->kind == KIND_DAE) return;
  CVodeGetNumSteps(D->mem, &out[0]);
  CVodeGetNumNonlinSolvIters(D->mem, &out[1]);
  CVodeGetNumNonlinSolvConvFails(D->mem, &out[2]);
}

void acausal_driver_free(Driver *D) {
  if (!D) return;
  if (D->mem) {
    if (D->kind == KIND_DAE)
      IDAFree(&D->mem);
    else
      CVodeFree(&D->mem);
  }
  if (D->LS) SUNLinSolFree(D->LS);
  if (D->A) SUNMatDestroy(D->A);
  N_Vector vs[4] = {D->y, D->yp, D->atol, D->id};
  for (int i = 0; i < 4; i++)
    if (vs[i]) N_VDestroy(vs[i]);
  if (D->ctx) SUNContext_Free(&D->ctx);
  fn_free(&D->main), fn_free(&D->roots), fn_free(&D->ode), fn_free(&D->jac_fn);
  free(D->x), free(D->z), free(D->a), free(D->b), free(D->xdot), free(D->g), free(D->pivots);
  free(D);
}
