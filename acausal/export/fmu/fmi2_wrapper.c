/* acausal's FMI 2.0 wrapper (see docs/fmu_export.md).
 *
 * Written for acausal from the FMI 2.0.4 specification (Modelica Association, "Functional
 * Mock-up Interface for Model Exchange and Co-Simulation", version 2.0.4, 2022): the types and
 * function signatures of its sections 2.1, 3.2 and 4.2 are declared below in our own words; no
 * header file of the standard or of another project is copied. The wrapper calls the
 * CasADi-generated functions (model_functions.h) and reads the tables of model_data.h, both
 * written for each model by acausal's export (acausal/export/fmu/c_tables.py); this file is
 * the same for every model and is copied into the FMU unchanged. What it does:
 *
 * - fmi2ExitInitializationMode: damped Newton on acausal's square initialisation system in
 *   w = (x, z) (algebraic equations, fixed start values, initial equations, start values of the
 *   free states; built by acausal/run/initial_system.py, as for acausal's own initialisation),
 *   event_if branches set from their conditions (as acausal.run.simulate does);
 * - every evaluation of a DAE: damped Newton on g(t, x, z, p) = 0 for z with the generated dense
 *   Jacobian dg/dz, warm-started from the last z; failure is fmi2Discard (continuous time) or
 *   fmi2Error with a message naming the equations; for a model whose states acausal selects
 *   dynamically, dg/dz becoming singular is reported (the FMU keeps the exported states);
 * - events: the relations of the When conditions are the event indicators; a relation's truth
 *   value changes only at events (an indicator exactly on zero at the located crossing counts as
 *   crossed); fmi2NewDiscreteStates fires the clauses whose condition changed from false to
 *   true, applies their actions in declaration order and iterates until nothing more fires;
 *   indicators that cannot change any condition for the current discrete variables are held
 *   constant (as acausal's RelationGates do);
 * - co-simulation (when exported so): an embedded Dormand-Prince 5(4) integrator with adaptive
 *   steps, event location by bisection on the step size and the same event iteration. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32) || defined(__CYGWIN__)
#define ACAUSAL_FMI_API __declspec(dllexport)
#else
#define ACAUSAL_FMI_API __attribute__((visibility("default")))
#endif

/* ---- FMI 2.0 platform types (specification section 2.1.2) ---------------------------------- */
typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;
#define fmi2True 1
#define fmi2False 0

/* ---- status, instance kind, callbacks (sections 2.1.3 and 2.1.5) --------------------------- */
typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum {
  fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated
} fmi2StatusKind;
typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment env, fmi2String instanceName,
                                   fmi2Status status, fmi2String category,
                                   fmi2String message, ...);
typedef void *(*fmi2CallbackAllocateMemory)(size_t nobj, size_t size);
typedef void (*fmi2CallbackFreeMemory)(void *obj);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment env, fmi2Status status);
typedef struct {
  fmi2CallbackLogger logger;
  fmi2CallbackAllocateMemory allocateMemory;
  fmi2CallbackFreeMemory freeMemory;
  fmi2StepFinished stepFinished;
  fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

/* ---- event information of model exchange (section 3.2.2) ------------------------------------ */
typedef struct {
  fmi2Boolean newDiscreteStatesNeeded;
  fmi2Boolean terminateSimulation;
  fmi2Boolean nominalsOfContinuousStatesChanged;
  fmi2Boolean valuesOfContinuousStatesChanged;
  fmi2Boolean nextEventTimeDefined;
  fmi2Real nextEventTime;
} fmi2EventInfo;

/* ---- the model: CasADi functions and acausal's tables ---------------------------------------- */
#include "model_functions.h"
typedef int (*model_fn)(const casadi_real **arg, casadi_real **res, casadi_int *iw,
                        casadi_real *w, int mem);
#include "model_data.h"

enum { MODE_INSTANTIATED, MODE_INIT, MODE_EVENT, MODE_CONTINUOUS, MODE_TERMINATED, MODE_ERROR };
enum { VR_PARAMETER, VR_INPUT, VR_DISCRETE, VR_STATE, VR_DERIVATIVE, VR_OBSERVED };
enum { REL_GT, REL_GE, REL_LT, REL_LE, REL_EQ, REL_NE };

#define LEN(n) ((n) > 0 ? (n) : 1)
#define NEWTON_TOL 1e-10      /* step size relative to (1 + |w|) at which Newton stops */
#define NEWTON_MAX_ITER 50
#define MAX_EVENT_ITERATIONS 50
#define MAX_BRANCH_ROUNDS 5
#define CHECK_TOL 1e-6        /* residual of an over-specified initial condition */
#define MESSAGE_LEN 2048
#define SINGULAR_DROP 1e-4    /* dynamic state selection: the smallest pivot of dg/dz (rows
                                 scaled) below this fraction of its initial value is singular */
#define CS_DEFAULT_RTOL 1e-6  /* co-simulation: relative tolerance without fmi2SetupExperiment's */

typedef struct {
  /* set at instantiation, kept by fmi2SetFMUstate */
  char name[256];
  fmi2CallbackLogger logger;
  fmi2ComponentEnvironment env;
  int logging_on;
  /* the model's values */
  int mode;
  double t, t_start;
  double x[LEN(NX)], z[LEN(NZ)], p[LEN(NP)];
  double s[LEN(NX)];           /* start values of the states (fmi2SetReal before init) */
  double xdot[LEN(NX)], y[LEN(NY)], ind[LEN(NI)], cond[LEN(NE)];
  int z_ok, xdot_ok, y_ok, ind_ok, init_ok;
  double min_pivot, pivot_ref;  /* of the last Newton matrix, and at the start */
  /* event bookkeeping */
  int rel[LEN(NI)], rel_pre[LEN(NI)], cond_pre[LEN(NE)], live[LEN(NI)];
  double g_pre[LEN(NI)], held[LEN(NI)], r_in[LEN(NI)];
  long n_events;
  /* Newton scratch (size NW = NX + NZ covers both solves) */
  double nw_r[LEN(NW)], nw_rt[LEN(NW)], nw_dw[LEN(NW)], nw_wt[LEN(NW)], nw_scale[LEN(NW)];
  double nw_w[LEN(NW)], nw_a[LEN(NW) * LEN(NW)];
  int nw_piv[LEN(NW)];
  double chk[LEN(NCHK)], x_new[LEN(NX)], p_new[LEN(NP)];
  /* co-simulation: the embedded solver */
  int cosim, quiet, values_changed;
  double rtol, h;
  double k[7][LEN(NX)], cs_xs[LEN(NX)], cs_x0[LEN(NX)], cs_x1[LEN(NX)], cs_xh[LEN(NX)];
  double cs_g0[LEN(NI)], cs_g1[LEN(NI)];
  /* CasADi work vectors */
  const casadi_real *arg[SZ_ARG];
  casadi_real *res[SZ_RES];
  casadi_int iw[LEN(SZ_IW)];
  casadi_real w[LEN(SZ_W)];
} Model;

static int event_iteration(Model *m, int at_event, int *changed, const char *where);

/* ---- logging --------------------------------------------------------------------------------- */
static void say(Model *m, fmi2Status status, const char *category, const char *fmt, ...) {
  char text[MESSAGE_LEN], escaped[2 * MESSAGE_LEN];
  va_list ap;
  size_t i, k = 0;
  if (m == NULL || m->logger == NULL) return;
  /* problems always reach the importer, other messages when logging is on */
  if (status < fmi2Discard && !m->logging_on) return;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  for (i = 0; text[i] != 0 && k + 2 < sizeof escaped; i++) {  /* the message is a format */
    if (text[i] == '%') escaped[k++] = '%';
    escaped[k++] = text[i];
  }
  escaped[k] = 0;
  m->logger(m->env, m->name, status, category, escaped);
}

static fmi2Status fail(Model *m, const char *where, const char *fmt, ...) {
  char text[MESSAGE_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  say(m, fmi2Error, "logStatusError", "%s: %s", where, text);
  return fmi2Error;
}

/* A failed evaluation: in model exchange's continuous-time mode fmi2Discard (FMI 2.0 section
   2.1.3: the integrator may retry with a smaller step, e.g. when an iterative solver did not
   converge), otherwise fmi2Error. */
static fmi2Status failure_status(const Model *m) {
  return m->mode == MODE_CONTINUOUS && !m->cosim ? fmi2Discard : fmi2Error;
}

static void trouble(Model *m, const char *where, const char *fmt, ...) {
  char text[MESSAGE_LEN];
  va_list ap;
  fmi2Status status = failure_status(m);
  if (m->quiet) return;  /* a trial step of the embedded solver: a smaller one follows */
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  say(m, status, status == fmi2Discard ? "logStatusDiscard" : "logStatusError", "%s: %s%s",
      where, text, status == fmi2Discard ? " (fmi2Discard: a smaller step may succeed)" : "");
}

static int bad_mode(Model *m, const char *where, int allowed_mask) {
  static const char *names[] = {"instantiated", "initialization", "event", "continuous-time",
                                "terminated", "error"};
  if (m == NULL) return 1;
  if (allowed_mask & (1 << m->mode)) return 0;
  say(m, fmi2Error, "logStatusError", "%s: not allowed in %s mode", where, names[m->mode]);
  return 1;
}
#define IN(mode) (1 << (mode))
#define ANY_LIVE (IN(MODE_INSTANTIATED) | IN(MODE_INIT) | IN(MODE_EVENT) | IN(MODE_CONTINUOUS))

/* ---- calling the CasADi functions ------------------------------------------------------------ */
static int call(Model *m, model_fn f, const double *a0, const double *a1, const double *a2,
                const double *a3, const double *a4, double *r0, double *r1) {
  int i;
  for (i = 0; i < SZ_ARG; i++) m->arg[i] = NULL;
  for (i = 0; i < SZ_RES; i++) m->res[i] = NULL;
  m->arg[0] = a0; m->arg[1] = a1; m->arg[2] = a2; m->arg[3] = a3; m->arg[4] = a4;
  m->res[0] = r0; m->res[1] = r1;
  return f(m->arg, m->res, m->iw, m->w, 0);
}

static int all_finite(const double *v, int n) {
  int i;
  for (i = 0; i < n; i++) if (!isfinite(v[i])) return 0;
  return 1;
}

static double max_abs(const double *v, int n) {
  double out = 0.0;
  int i;
  for (i = 0; i < n; i++) if (fabs(v[i]) > out) out = fabs(v[i]);
  return out;
}

static void invalidate(Model *m) { m->z_ok = m->xdot_ok = m->y_ok = m->ind_ok = 0; }

/* ---- dense linear solve (LU with partial pivoting, column-major) ----------------------------- */
static int lu_solve(double *a, int n, int *piv, double *b) {
  int i, j, k;
  for (k = 0; k < n; k++) {
    int best = k;
    double big = fabs(a[k + n * k]);
    for (i = k + 1; i < n; i++) {
      if (fabs(a[i + n * k]) > big) { big = fabs(a[i + n * k]); best = i; }
    }
    if (!(big > 0.0) || !isfinite(big)) return -1;
    piv[k] = best;
    if (best != k) {
      for (j = 0; j < n; j++) {
        double t = a[k + n * j];
        a[k + n * j] = a[best + n * j];
        a[best + n * j] = t;
      }
      { double t = b[k]; b[k] = b[best]; b[best] = t; }
    }
    for (i = k + 1; i < n; i++) {
      double f = a[i + n * k] / a[k + n * k];
      if (f == 0.0) continue;
      for (j = k + 1; j < n; j++) a[i + n * j] -= f * a[k + n * j];
      b[i] -= f * b[k];
    }
  }
  for (k = n - 1; k >= 0; k--) {
    double sum = b[k];
    for (j = k + 1; j < n; j++) sum -= a[k + n * j] * b[j];
    b[k] = sum / a[k + n * k];
  }
  return 0;
}

/* ---- damped Newton with row equilibration ---------------------------------------------------- */
typedef int (*newton_res)(Model *m, const double *w, double *r);
typedef int (*newton_jac)(Model *m, const double *w, double *a);

static double scaled_norm(const double *r, const double *scale, int n) {
  double out = 0.0;
  int i;
  for (i = 0; i < n; i++) {
    double v = fabs(r[i]) / scale[i];
    if (!(v <= out)) out = v;  /* NaN propagates */
  }
  return out;
}

/* 0: converged (w updated), 1: singular Jacobian, 2: no progress or too many iterations,
   3: a function evaluation failed or was not finite */
static int newton(Model *m, int n, double *w, newton_res F, newton_jac J) {
  double *r = m->nw_r, *rt = m->nw_rt, *dw = m->nw_dw, *wt = m->nw_wt, *scale = m->nw_scale;
  double *a = m->nw_a;
  int it, i, j;
  if (n == 0) return 0;
  if (F(m, w, r) || !all_finite(r, n)) return 3;
  for (it = 0; it < NEWTON_MAX_ITER; it++) {
    double norm, lam = 1.0;
    if (J(m, w, a) || !all_finite(a, n * n)) return 3;
    for (i = 0; i < n; i++) {
      double big = 0.0;
      for (j = 0; j < n; j++) if (fabs(a[i + n * j]) > big) big = fabs(a[i + n * j]);
      scale[i] = big > 0.0 ? big : 1.0;
      for (j = 0; j < n; j++) a[i + n * j] /= scale[i];
      dw[i] = -r[i] / scale[i];
    }
    if (lu_solve(a, n, m->nw_piv, dw)) return 1;
    if (!all_finite(dw, n)) return 1;
    /* the pivots in the equations' own scale (rows permuted as the LU did): how close to
       singular dg/dz is, compared with its value at the start (dynamic state selection) */
    memcpy(wt, scale, sizeof(double) * n);
    for (i = 0; i < n; i++) {
      double t = wt[i];
      wt[i] = wt[m->nw_piv[i]];
      wt[m->nw_piv[i]] = t;
    }
    m->min_pivot = INFINITY;
    for (i = 0; i < n; i++) m->min_pivot = fmin(m->min_pivot, fabs(a[i + n * i]) * wt[i]);
    if (max_abs(dw, n) <= NEWTON_TOL * (1.0 + max_abs(w, n))) {
      for (i = 0; i < n; i++) w[i] += dw[i];
      return 0;
    }
    norm = scaled_norm(r, scale, n);
    for (;;) {
      for (i = 0; i < n; i++) wt[i] = w[i] + lam * dw[i];
      if (F(m, wt, rt) == 0 && all_finite(rt, n)
          && scaled_norm(rt, scale, n) < (1.0 - 1e-4 * lam) * norm) break;
      lam *= 0.5;
      if (lam < 1e-6) return 2;
    }
    memcpy(w, wt, sizeof(double) * n);
    memcpy(r, rt, sizeof(double) * n);
  }
  return 2;
}

/* the algebraic equations g(t, x, z, p) = 0 in z */
static int alg_res(Model *m, const double *z, double *r) {
  return call(m, m_alg, &m->t, m->x, z, m->p, NULL, r, NULL);
}
static int alg_jac(Model *m, const double *z, double *a) {
  return call(m, m_alg_jac, &m->t, m->x, z, m->p, NULL, a, NULL);
}

static void name_worst(Model *m, const double *r, int n, const char *const *labels,
                       char *out, size_t len) {
  int used[3] = {-1, -1, -1}, k, i;
  size_t pos = 0;
  out[0] = 0;
  for (k = 0; k < 3 && k < n; k++) {
    int best = -1;
    double big = -1.0;
    for (i = 0; i < n; i++) {
      double v = isfinite(r[i]) ? fabs(r[i]) : INFINITY;
      if ((i == used[0]) || (i == used[1])) continue;
      if (v > big) { big = v; best = i; }
    }
    if (best < 0) break;
    used[k] = best;
    pos += snprintf(out + pos, pos < len ? len - pos : 0, "%s%s (residual %.3g)",
                    k ? "; " : "", labels[best], r[best]);
  }
  (void)m;
}

static int solve_z(Model *m, const char *where) {
  int status;
  if (m->z_ok || NZ == 0) { m->z_ok = 1; return 0; }
  memcpy(m->nw_w, m->z, sizeof(double) * LEN(NZ));
  status = newton(m, NZ, m->nw_w, alg_res, alg_jac);
  if (status == 0 && DYNAMIC_SELECTION && m->pivot_ref > 0.0
      && m->min_pivot < SINGULAR_DROP * m->pivot_ref) {
    trouble(m, where, "at t = %.17g the algebraic equations have become singular in %s (the "
            "smallest pivot of dg/dz fell to %.2g of its initial value): the states chosen at "
            "export time no longer determine the model. acausal re-selects its states during "
            "its own simulation; this FMU does not.", m->t, Z_NAMES_TEXT,
            m->min_pivot / m->pivot_ref);
    return -1;
  }
  if (status == 0) {
    memcpy(m->z, m->nw_w, sizeof(double) * LEN(NZ));
    if (m->pivot_ref == 0.0) m->pivot_ref = m->min_pivot;
    m->z_ok = 1;
    return 0;
  }
  {
    char worst[MESSAGE_LEN / 2];
    alg_res(m, m->nw_w, m->nw_r);
    name_worst(m, m->nw_r, NZ, ALG_LABEL, worst, sizeof worst);
    trouble(m, where, "at t = %.17g the algebraic equations have no solution near the last one "
         "(%s; Newton from the previous values of %s). Largest residuals: %s.%s",
         m->t, status == 1 ? "their Jacobian dg/dz is singular" :
         status == 3 ? "the equations are not finite there" : "Newton did not converge",
         Z_NAMES_TEXT, worst,
         DYNAMIC_SELECTION ? " The model's states were chosen once at export time; acausal "
         "re-selects them during its own simulation, this FMU does not: the chosen states may "
         "have become singular here." : "");
    return -1;
  }
}

static int eval_xdot(Model *m, const char *where) {
  if (m->xdot_ok) return 0;
  if (solve_z(m, where)) return -1;
  if (call(m, m_ode, &m->t, m->x, m->z, m->p, NULL, m->xdot, NULL)) {
    trouble(m, where, "evaluating the right-hand side failed at t = %.17g", m->t);
    return -1;
  }
  if (!all_finite(m->xdot, NX)) {
    int i;
    for (i = 0; i < NX && isfinite(m->xdot[i]); i++) {}
    trouble(m, where, "at t = %.17g the derivative of %s is not finite (a division by zero or a "
         "singular configuration).%s", m->t, X_NAMES[i < NX ? i : 0],
         DYNAMIC_SELECTION ? " The states were chosen once at export time and are not "
         "re-selected by this FMU." : "");
    return -1;
  }
  m->xdot_ok = 1;
  return 0;
}

static int eval_y(Model *m, const char *where) {
  if (m->y_ok) return 0;
  if (solve_z(m, where)) return -1;
  if (call(m, m_observed, &m->t, m->x, m->z, m->p, NULL, m->y, NULL)) {
    trouble(m, where, "evaluating the variables failed at t = %.17g", m->t);
    return -1;
  }
  m->y_ok = 1;
  return 0;
}

static int eval_ind(Model *m, const char *where) {
  if (m->ind_ok || NI == 0) { m->ind_ok = 1; return 0; }
  if (solve_z(m, where)) return -1;
  if (call(m, m_indicators, &m->t, m->x, m->z, m->p, NULL, m->ind, NULL)) {
    trouble(m, where, "evaluating the event indicators failed at t = %.17g", m->t);
    return -1;
  }
  m->ind_ok = 1;
  return 0;
}

/* ---- relations and conditions ---------------------------------------------------------------- */
static int rel_truth(int kind, double g) {
  switch (kind) {
    case REL_GT: return g > 0.0;
    case REL_GE: return g >= 0.0;
    case REL_LT: return g < 0.0;
    case REL_LE: return g <= 0.0;
    case REL_EQ: return g == 0.0;
    default: return g != 0.0;
  }
}

/* at an event: an indicator exactly on zero that was not before has crossed (the integrator
   stopped there because of it), so the relation takes its value on the other side */
static int rel_at_event(int kind, double g, double g_pre, int previous) {
  if (g == 0.0 && kind <= REL_LE) {
    if (g_pre > 0.0) return rel_truth(kind, -1.0);
    if (g_pre < 0.0) return rel_truth(kind, 1.0);
    return previous;
  }
  return rel_truth(kind, g);
}

static int eval_conditions(Model *m, int at_event, const char *where) {
  int k;
  if (NE == 0) return 0;
  if (eval_ind(m, where)) return -1;
  for (k = 0; k < NI; k++) {
    m->rel[k] = at_event ? rel_at_event(REL_KIND[k], m->ind[k], m->g_pre[k], m->rel_pre[k])
                         : rel_truth(REL_KIND[k], m->ind[k]);
    m->r_in[k] = m->rel[k] ? 1.0 : 0.0;
  }
  if (call(m, m_conditions, &m->t, m->x, m->z, m->p, m->r_in, m->cond, NULL)) {
    fail(m, where, "evaluating the event conditions failed at t = %.17g", m->t);
    return -1;
  }
  return 0;
}

/* which indicators can change their clause's condition for the current discrete variables:
   the others are held constant (no useless event at their crossings) */
static void update_live(Model *m) {
  int e, k;
  for (k = 0; k < NI; k++) {
    m->live[k] = 1;
    m->held[k] = m->ind[k] >= 0.0 ? 1.0 : -1.0;
  }
  for (e = 0; e < NE; e++) {
    int first = EV_FIRST[e], n = EV_COUNT[e], combo, j, value[1 << MAX_GATED];
    if (!EV_GATED[e] || n == 0) continue;
    for (k = 0; k < NI; k++) m->r_in[k] = m->rel[k] ? 1.0 : 0.0;
    for (combo = 0; combo < (1 << n); combo++) {
      for (j = 0; j < n; j++) m->r_in[first + j] = (combo >> j) & 1 ? 1.0 : 0.0;
      if (call(m, m_conditions, &m->t, m->x, m->z, m->p, m->r_in, m->cond, NULL)) return;
      value[combo] = m->cond[e] > 0.5;
    }
    for (j = 0; j < n; j++) {
      int live = 0;
      for (combo = 0; combo < (1 << n) && !live; combo++)
        if (!((combo >> j) & 1) && value[combo] != value[combo | (1 << j)]) live = 1;
      m->live[first + j] = live;
    }
  }
}

static void remember_relations(Model *m) {
  int k, e;
  for (k = 0; k < NI; k++) { m->rel_pre[k] = m->rel[k]; m->g_pre[k] = m->ind[k]; }
  for (e = 0; e < NE; e++) m->cond_pre[e] = m->cond[e] > 0.5;
}

/* ---- initialisation -------------------------------------------------------------------------- */
static int init_res(Model *m, const double *w, double *r) {
  return call(m, m_init_res, w, &m->t, m->p, m->s, NULL, r, NULL);
}
static int init_jac(Model *m, const double *w, double *a) {
  return call(m, m_init_jac, w, &m->t, m->p, m->s, NULL, a, NULL);
}

static int solve_initial(Model *m, const char *where) {
  int status, i;
  double *w = m->nw_w;
  for (i = 0; i < NX; i++) w[i] = m->s[i];
  for (i = 0; i < NZ; i++) w[NX + i] = Z_START[i];
  status = newton(m, NW, w, init_res, init_jac);
  if (status != 0) {
    char worst[MESSAGE_LEN / 2];
    init_res(m, w, m->nw_r);
    name_worst(m, m->nw_r, NW, INIT_LABEL, worst, sizeof worst);
    fail(m, where, "initialisation failed at t = %.17g (%s). Largest residuals: %s. Give "
         "start values closer to a consistent state, or check the parameters.", m->t,
         status == 1 ? "singular Jacobian" : status == 3 ? "equations not finite"
         : "Newton did not converge", worst);
    return -1;
  }
  if (NCHK > 0) {
    call(m, m_init_check, w, &m->t, m->p, m->s, NULL, m->chk, NULL);
    for (i = 0; i < NCHK; i++) {
      if (!(fabs(m->chk[i]) <= CHECK_TOL * (1.0 + fabs(m->chk[i])))) {
        fail(m, where, "over-specified initial conditions: %s does not hold (residual %.3g) "
             "together with the others; change the start values set for the states.",
             CHECK_LABEL[i], m->chk[i]);
        return -1;
      }
    }
  }
  for (i = 0; i < NX; i++) m->x[i] = w[i];
  for (i = 0; i < NZ; i++) m->z[i] = w[NX + i];
  invalidate(m);
  m->z_ok = 1;
  return 0;
}

static int initialize_model(Model *m, const char *where) {
  int round, b;
  if (m->init_ok) return 0;
  m->t = m->t_start;
  invalidate(m);
  if (solve_initial(m, where)) return -1;
  for (round = 0; round <= MAX_BRANCH_ROUNDS && NB > 0; round++) {
    int changed = 0;
    if (eval_conditions(m, 0, where)) return -1;
    for (b = 0; b < NB; b++) {
      double value = m->cond[BRANCH_EVENT[b]] > 0.5 ? 1.0 : 0.0;
      if (m->p[BRANCH_P[b]] != value) { m->p[BRANCH_P[b]] = value; changed = 1; }
    }
    if (!changed) break;
    if (round == MAX_BRANCH_ROUNDS) {
      fail(m, where, "the event_if branches at the start time do not settle: their conditions "
           "change with the initial values they select.");
      return -1;
    }
    invalidate(m);
    if (solve_initial(m, where)) return -1;
  }
  m->pivot_ref = 0.0;  /* the reference for the singularity check: dg/dz at the start */
  m->z_ok = 0;
  if (eval_xdot(m, where)) return -1;
  if (NE > 0) {
    if (eval_conditions(m, 0, where)) return -1;
    remember_relations(m);
    update_live(m);
  }
  m->init_ok = 1;
  say(m, fmi2OK, "logEvents", "initialised at t = %.17g", m->t);
  return 0;
}

static void set_defaults(Model *m) {
  int i;
  m->mode = MODE_INSTANTIATED;
  m->t = m->t_start = 0.0;
  for (i = 0; i < NX; i++) m->x[i] = m->s[i] = X_START[i];
  for (i = 0; i < NZ; i++) m->z[i] = Z_START[i];
  for (i = 0; i < NP; i++) m->p[i] = P_DEFAULT[i];
  for (i = 0; i < NI; i++) { m->live[i] = 1; m->rel[i] = m->rel_pre[i] = 0; m->g_pre[i] = 0.0; }
  for (i = 0; i < NE; i++) m->cond_pre[i] = 0;
  m->n_events = 0;
  m->init_ok = 0;
  m->pivot_ref = 0.0;
  m->rtol = CS_DEFAULT_RTOL;
  m->h = 0.0;
  m->values_changed = 0;
  m->quiet = 0;
  invalidate(m);
}

/* ---- FMI functions: common (section 2.1) ----------------------------------------------------- */
ACAUSAL_FMI_API const char *fmi2GetTypesPlatform(void) { return "default"; }
ACAUSAL_FMI_API const char *fmi2GetVersion(void) { return "2.0"; }

ACAUSAL_FMI_API fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn,
                                               size_t nCategories, const fmi2String categories[]) {
  Model *m = (Model *)c;
  (void)nCategories; (void)categories;
  if (m == NULL) return fmi2Error;
  m->logging_on = loggingOn ? 1 : 0;
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                                              fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                              const fmi2CallbackFunctions *functions,
                                              fmi2Boolean visible, fmi2Boolean loggingOn) {
  Model *m;
  (void)fmuResourceLocation; (void)visible;
  m = (Model *)calloc(1, sizeof(Model));
  if (m == NULL) return NULL;
  snprintf(m->name, sizeof m->name, "%s", instanceName ? instanceName : MODEL_IDENTIFIER);
  if (functions != NULL) {
    m->logger = functions->logger;
    m->env = functions->componentEnvironment;
  }
  m->logging_on = loggingOn ? 1 : 0;
  if (fmuType == fmi2CoSimulation && !COSIMULATION) {
    say(m, fmi2Error, "logStatusError", "fmi2Instantiate: this FMU supports model exchange "
        "only (export it again with kind=\"co-simulation\")");
    free(m);
    return NULL;
  }
  m->cosim = fmuType == fmi2CoSimulation;
  if (fmuGUID == NULL || strcmp(fmuGUID, MODEL_GUID) != 0) {
    say(m, fmi2Error, "logStatusError", "fmi2Instantiate: the GUID %s does not match this "
        "binary's %s (a modelDescription.xml from another export?)",
        fmuGUID ? fmuGUID : "(null)", MODEL_GUID);
    free(m);
    return NULL;
  }
  set_defaults(m);
  return m;
}

ACAUSAL_FMI_API void fmi2FreeInstance(fmi2Component c) { free(c); }

ACAUSAL_FMI_API fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                                               fmi2Real tolerance, fmi2Real startTime,
                                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
  Model *m = (Model *)c;
  (void)stopTimeDefined; (void)stopTime;
  if (bad_mode(m, "fmi2SetupExperiment", IN(MODE_INSTANTIATED))) return fmi2Error;
  if (toleranceDefined && tolerance > 0.0) m->rtol = tolerance;
  m->t = m->t_start = startTime;
  m->init_ok = 0;
  invalidate(m);
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2EnterInitializationMode", IN(MODE_INSTANTIATED))) return fmi2Error;
  m->mode = MODE_INIT;
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2ExitInitializationMode", IN(MODE_INIT))) return fmi2Error;
  if (initialize_model(m, "fmi2ExitInitializationMode")) {
    m->mode = MODE_ERROR;
    return fmi2Error;
  }
  m->mode = MODE_EVENT;
  m->values_changed = 0;  /* the initialisation used them */
  if (m->cosim) {  /* co-simulation: the initial event iteration, then step mode */
    int changed;
    if (event_iteration(m, 1, &changed, "fmi2ExitInitializationMode")) {
      m->mode = MODE_ERROR;
      return fmi2Error;
    }
    m->mode = MODE_CONTINUOUS;
  }
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2Terminate(fmi2Component c) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2Terminate", ANY_LIVE | IN(MODE_ERROR))) return fmi2Error;
  m->mode = MODE_TERMINATED;
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2Reset(fmi2Component c) {
  Model *m = (Model *)c;
  if (m == NULL) return fmi2Error;
  set_defaults(m);
  return fmi2OK;
}

/* ---- getting and setting values --------------------------------------------------------- */
ACAUSAL_FMI_API fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, fmi2Real value[]) {
  Model *m = (Model *)c;
  size_t i;
  if (bad_mode(m, "fmi2GetReal", ANY_LIVE | IN(MODE_TERMINATED))) return fmi2Error;
  for (i = 0; i < nvr; i++) {
    fmi2ValueReference r = vr[i];
    int kind, index;
    if (r >= NVR) return fail(m, "fmi2GetReal", "unknown value reference %u", r);
    kind = VR_KIND[r];
    index = VR_INDEX[r];
    if (kind >= VR_STATE && m->mode == MODE_INIT && !m->init_ok) {
      if (initialize_model(m, "fmi2GetReal")) return fmi2Error;
    }
    switch (kind) {
      case VR_PARAMETER: case VR_INPUT: case VR_DISCRETE: value[i] = m->p[index]; break;
      case VR_STATE: value[i] = m->x[index]; break;
      case VR_DERIVATIVE:
        if (eval_xdot(m, "fmi2GetReal")) return failure_status(m);
        value[i] = m->xdot[index];
        break;
      default:
        if (index < 0) { value[i] = 0.0; break; }
        if (eval_y(m, "fmi2GetReal")) return failure_status(m);
        value[i] = VR_SIGN[r] * m->y[index];
    }
  }
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Real value[]) {
  Model *m = (Model *)c;
  size_t i;
  if (bad_mode(m, "fmi2SetReal", ANY_LIVE)) return fmi2Error;
  for (i = 0; i < nvr; i++) {
    fmi2ValueReference r = vr[i];
    int kind, index, before_init;
    if (r >= NVR) return fail(m, "fmi2SetReal", "unknown value reference %u", r);
    kind = VR_KIND[r];
    index = VR_INDEX[r];
    before_init = m->mode == MODE_INSTANTIATED || m->mode == MODE_INIT;
    if (!isfinite(value[i]))
      return fail(m, "fmi2SetReal", "%s: the value is not finite", VR_NAME[r]);
    switch (kind) {
      case VR_INPUT: m->p[index] = value[i]; m->values_changed = 1; break;
      case VR_PARAMETER:
        if (!before_init && m->mode != MODE_EVENT && !m->cosim)
          return fail(m, "fmi2SetReal", "%s is a tunable parameter: change it in "
                      "initialization or event mode (fmi2EnterEventMode)", VR_NAME[r]);
        if (value[i] < VR_MIN[r] || value[i] > VR_MAX[r])
          return fail(m, "fmi2SetReal", "%s = %.17g is outside its bounds [%.17g, %.17g]",
                      VR_NAME[r], value[i], VR_MIN[r], VR_MAX[r]);
        m->p[index] = value[i];
        m->values_changed = 1;
        break;
      case VR_DISCRETE:
        if (!before_init)
          return fail(m, "fmi2SetReal", "%s is a discrete variable: its start value can be "
                      "set before initialisation only", VR_NAME[r]);
        m->p[index] = value[i];
        break;
      case VR_STATE:
        if (!before_init)
          return fail(m, "fmi2SetReal", "%s is a state: set its start value before "
                      "initialisation, later use fmi2SetContinuousStates", VR_NAME[r]);
        m->s[index] = m->x[index] = value[i];
        break;
      default:
        return fail(m, "fmi2SetReal", "%s is calculated by the model and cannot be set",
                    VR_NAME[r]);
    }
    if (before_init) m->init_ok = 0;
    invalidate(m);
  }
  return fmi2OK;
}

static fmi2Status no_variables(Model *m, const char *where, size_t nvr) {
  if (m == NULL) return fmi2Error;
  if (nvr == 0) return fmi2OK;
  return fail(m, where, "this model has Real variables only");
}

ACAUSAL_FMI_API fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[],
                                          size_t nvr, fmi2Integer value[]) {
  (void)vr; (void)value;
  return no_variables((Model *)c, "fmi2GetInteger", nvr);
}
ACAUSAL_FMI_API fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[],
                                          size_t nvr, fmi2Boolean value[]) {
  (void)vr; (void)value;
  return no_variables((Model *)c, "fmi2GetBoolean", nvr);
}
ACAUSAL_FMI_API fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[],
                                         size_t nvr, fmi2String value[]) {
  (void)vr; (void)value;
  return no_variables((Model *)c, "fmi2GetString", nvr);
}
ACAUSAL_FMI_API fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[],
                                          size_t nvr, const fmi2Integer value[]) {
  (void)vr; (void)value;
  return no_variables((Model *)c, "fmi2SetInteger", nvr);
}
ACAUSAL_FMI_API fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[],
                                          size_t nvr, const fmi2Boolean value[]) {
  (void)vr; (void)value;
  return no_variables((Model *)c, "fmi2SetBoolean", nvr);
}
ACAUSAL_FMI_API fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[],
                                         size_t nvr, const fmi2String value[]) {
  (void)vr; (void)value;
  return no_variables((Model *)c, "fmi2SetString", nvr);
}

/* ---- FMU state (section 2.1.8): a copy of the instance --------------------------------------- */
ACAUSAL_FMI_API fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state) {
  Model *m = (Model *)c, *copy;
  if (m == NULL || state == NULL) return fmi2Error;
  copy = (Model *)(*state != NULL ? *state : malloc(sizeof(Model)));
  if (copy == NULL) return fail(m, "fmi2GetFMUstate", "out of memory");
  memcpy(copy, m, sizeof(Model));
  *state = copy;
  return fmi2OK;
}

static void restore(Model *m, const Model *saved) {
  char name[sizeof m->name];
  fmi2CallbackLogger logger = m->logger;
  fmi2ComponentEnvironment env = m->env;
  int logging = m->logging_on;
  memcpy(name, m->name, sizeof name);
  memcpy(m, saved, sizeof(Model));
  memcpy(m->name, name, sizeof name);
  m->logger = logger;
  m->env = env;
  m->logging_on = logging;
}

ACAUSAL_FMI_API fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state) {
  Model *m = (Model *)c;
  if (m == NULL || state == NULL) return fmi2Error;
  restore(m, (const Model *)state);
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state) {
  (void)c;
  if (state != NULL) { free(*state); *state = NULL; }
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state,
                                                      size_t *size) {
  (void)c; (void)state;
  *size = sizeof(Model) + sizeof(MODEL_GUID);
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state,
                                                 fmi2Byte serializedState[], size_t size) {
  Model *m = (Model *)c;
  if (m == NULL || state == NULL) return fmi2Error;
  if (size < sizeof(Model) + sizeof(MODEL_GUID))
    return fail(m, "fmi2SerializeFMUstate", "buffer too small");
  memcpy(serializedState, MODEL_GUID, sizeof(MODEL_GUID));
  memcpy(serializedState + sizeof(MODEL_GUID), state, sizeof(Model));
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2DeSerializeFMUstate(fmi2Component c,
                                                   const fmi2Byte serializedState[], size_t size,
                                                   fmi2FMUstate *state) {
  Model *m = (Model *)c, *copy;
  if (m == NULL || state == NULL) return fmi2Error;
  if (size != sizeof(Model) + sizeof(MODEL_GUID)
      || memcmp(serializedState, MODEL_GUID, sizeof(MODEL_GUID)) != 0)
    return fail(m, "fmi2DeSerializeFMUstate", "the data were not serialized by this FMU");
  copy = (Model *)malloc(sizeof(Model));
  if (copy == NULL) return fail(m, "fmi2DeSerializeFMUstate", "out of memory");
  memcpy(copy, serializedState + sizeof(MODEL_GUID), sizeof(Model));
  *state = copy;
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2GetDirectionalDerivative(
    fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
    const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[],
    fmi2Real dvUnknown[]) {
  (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown;
  (void)dvUnknown;
  return fail((Model *)c, "fmi2GetDirectionalDerivative", "not provided by this FMU "
              "(providesDirectionalDerivative=\"false\")");
}

/* ---- model exchange (section 3.2) ------------------------------------------------------- */
ACAUSAL_FMI_API fmi2Status fmi2EnterEventMode(fmi2Component c) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2EnterEventMode", IN(MODE_EVENT) | IN(MODE_CONTINUOUS))) return fmi2Error;
  m->mode = MODE_EVENT;
  return fmi2OK;
}

/* The clauses whose condition became true fire, in declaration order, each computed from the
   values before it; repeated until nothing more fires (event iteration). ``at_event``: the
   relations take their values after the located crossing (see rel_at_event). */
static int event_iteration(Model *m, int at_event, int *changed, const char *where) {
  int iteration, e, i;
  *changed = 0;
  if (NE == 0) return 0;
  if (eval_conditions(m, at_event, where)) return -1;
  for (iteration = 0; ; iteration++) {
    int fired = 0;
    int fire[LEN(NE)];
    for (e = 0; e < NE; e++) {
      fire[e] = m->cond[e] > 0.5 && !m->cond_pre[e];
      fired |= fire[e];
    }
    remember_relations(m);
    if (!fired) break;
    if (iteration == MAX_EVENT_ITERATIONS) {
      for (e = 0; e < NE && !fire[e]; e++) {}
      fail(m, where, "event iteration did not settle at t = %.17g: %s keeps firing. Check that "
           "the actions do not make their own conditions true again.", m->t, EV_LABEL[e]);
      return -1;
    }
    for (e = 0; e < NE; e++) {
      if (!fire[e]) continue;
      if (call(m, EV_UPDATE[e], &m->t, m->x, m->z, m->p, NULL, m->x_new, m->p_new)) {
        fail(m, where, "evaluating the actions of %s failed", EV_LABEL[e]);
        return -1;
      }
      if (!all_finite(m->x_new, NX) || !all_finite(m->p_new, NP)) {
        fail(m, where, "the actions of %s give non-finite values at t = %.17g", EV_LABEL[e],
             m->t);
        return -1;
      }
      for (i = 0; i < NX; i++) if (m->x_new[i] != m->x[i]) *changed = 1;
      memcpy(m->x, m->x_new, sizeof(double) * LEN(NX));
      memcpy(m->p, m->p_new, sizeof(double) * LEN(NP));
      m->n_events++;
      say(m, fmi2OK, "logEvents", "t = %.17g: %s", m->t, EV_LABEL[e]);
    }
    invalidate(m);  /* z stays as the Newton start for the new values */
    if (eval_conditions(m, 0, where)) return -1;
  }
  update_live(m);
  return 0;
}

ACAUSAL_FMI_API fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info) {
  Model *m = (Model *)c;
  static const char *where = "fmi2NewDiscreteStates";
  int changed = 0;
  if (bad_mode(m, where, IN(MODE_EVENT))) return fmi2Error;
  info->newDiscreteStatesNeeded = fmi2False;
  info->terminateSimulation = fmi2False;
  info->nominalsOfContinuousStatesChanged = fmi2False;
  info->valuesOfContinuousStatesChanged = fmi2False;
  info->nextEventTimeDefined = fmi2False;
  info->nextEventTime = 0.0;
  if (event_iteration(m, 1, &changed, where)) return fmi2Error;
  info->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2EnterContinuousTimeMode", IN(MODE_EVENT))) return fmi2Error;
  m->mode = MODE_CONTINUOUS;
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                                       fmi2Boolean *enterEventMode,
                                                       fmi2Boolean *terminateSimulation) {
  Model *m = (Model *)c;
  (void)noSetFMUStatePriorToCurrentPoint;
  if (bad_mode(m, "fmi2CompletedIntegratorStep", IN(MODE_CONTINUOUS))) return fmi2Error;
  *enterEventMode = fmi2False;
  *terminateSimulation = fmi2False;
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2SetTime", IN(MODE_EVENT) | IN(MODE_CONTINUOUS))) return fmi2Error;
  if (m->t != time) { m->t = time; invalidate(m); }
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[],
                                                   size_t nx) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2SetContinuousStates", IN(MODE_EVENT) | IN(MODE_CONTINUOUS)))
    return fmi2Error;
  if (nx != (size_t)NX) return fail(m, "fmi2SetContinuousStates", "%u states given, the "
                                    "model has %d", (unsigned)nx, NX);
  if (NX > 0 && memcmp(m->x, x, sizeof(double) * NX) != 0) {
    memcpy(m->x, x, sizeof(double) * NX);
    invalidate(m);
  }
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[],
                                              size_t nx) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2GetDerivatives", ANY_LIVE | IN(MODE_TERMINATED))) return fmi2Error;
  if (nx != (size_t)NX) return fail(m, "fmi2GetDerivatives", "%u derivatives asked for, the "
                                    "model has %d states", (unsigned)nx, NX);
  if (m->mode == MODE_INIT && initialize_model(m, "fmi2GetDerivatives")) return fmi2Error;
  if (eval_xdot(m, "fmi2GetDerivatives")) return failure_status(m);
  if (NX > 0) memcpy(derivatives, m->xdot, sizeof(double) * NX);
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[],
                                                  size_t ni) {
  Model *m = (Model *)c;
  size_t k;
  if (bad_mode(m, "fmi2GetEventIndicators", ANY_LIVE | IN(MODE_TERMINATED))) return fmi2Error;
  if (ni != (size_t)NI) return fail(m, "fmi2GetEventIndicators", "%u indicators asked for, "
                                    "the model has %d", (unsigned)ni, NI);
  if (m->mode == MODE_INIT && initialize_model(m, "fmi2GetEventIndicators")) return fmi2Error;
  if (eval_ind(m, "fmi2GetEventIndicators")) return failure_status(m);
  for (k = 0; k < ni; k++) eventIndicators[k] = m->live[k] ? m->ind[k] : m->held[k];
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx) {
  Model *m = (Model *)c;
  if (bad_mode(m, "fmi2GetContinuousStates", ANY_LIVE | IN(MODE_TERMINATED))) return fmi2Error;
  if (nx != (size_t)NX) return fail(m, "fmi2GetContinuousStates", "%u states asked for, the "
                                    "model has %d", (unsigned)nx, NX);
  if (NX > 0) memcpy(x, m->x, sizeof(double) * NX);
  return fmi2OK;
}

ACAUSAL_FMI_API fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[],
                                                             size_t nx) {
  Model *m = (Model *)c;
  size_t i;
  if (m == NULL) return fmi2Error;
  if (nx != (size_t)NX) return fail(m, "fmi2GetNominalsOfContinuousStates", "%u nominals asked "
                                    "for, the model has %d states", (unsigned)nx, NX);
  for (i = 0; i < nx; i++) x_nominal[i] = X_NOMINAL[i];
  return fmi2OK;
}

/* ---- co-simulation (section 4.2) ------------------------------------------------------------
 * An embedded explicit Runge-Kutta method of order 5 with an embedded order-4 error estimate
 * (J. R. Dormand, P. J. Prince, "A family of embedded Runge-Kutta formulae", J. Comput. Appl.
 * Math. 6 (1980) 19-26), adaptive steps (error per step below rtol * |x| + rtol * nominal),
 * DAE algebraic variables solved at every stage as in model exchange. Events: after each
 * accepted step the event indicators are compared with their values at the step's start; a
 * sign change is located by bisection on the step size (to EVENT_TIME_TOL of the time) and the
 * event iteration runs at the first point past the crossing; the step then goes on from there.
 * Inputs are held constant over a communication step. */
#define CS_MAX_STEPS 50000000L
#define EVENT_TIME_TOL 1e-13
#define CS_MAX_EVENTS_AT_ONCE 1000

static const double DP_C[7] = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
static const double DP_A[7][6] = {
  {0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
  {1.0 / 5, 0.0, 0.0, 0.0, 0.0, 0.0},
  {3.0 / 40, 9.0 / 40, 0.0, 0.0, 0.0, 0.0},
  {44.0 / 45, -56.0 / 15, 32.0 / 9, 0.0, 0.0, 0.0},
  {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729, 0.0, 0.0},
  {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656, 0.0},
  {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
/* order 5 minus order 4 weights: the error estimate */
static const double DP_E[7] = {71.0 / 57600, 0.0, -71.0 / 16695, 71.0 / 1920,
                               -17253.0 / 339200, 22.0 / 525, -1.0 / 40};

static int cs_rhs(Model *m, double t, const double *x, double *out) {
  m->t = t;
  memcpy(m->x, x, sizeof(double) * LEN(NX));
  invalidate(m);
  if (eval_xdot(m, "fmi2DoStep")) return -1;
  memcpy(out, m->xdot, sizeof(double) * LEN(NX));
  return 0;
}

/* one step of size h from (t, x): the new states in xout, the scaled error norm in *err;
   afterwards the instance holds (t + h, xout) with z solved there */
static int dopri_step(Model *m, double t, const double *x, double h, double *xout, double *err) {
  int stage, j, i;
  double sum = 0.0;
  for (stage = 0; stage < 7; stage++) {
    for (i = 0; i < NX; i++) {
      double acc = 0.0;
      for (j = 0; j < stage; j++) acc += DP_A[stage][j] * m->k[j][i];
      m->cs_xs[i] = x[i] + h * acc;
    }
    if (cs_rhs(m, t + DP_C[stage] * h, m->cs_xs, m->k[stage])) return -1;
  }
  memcpy(xout, m->cs_xs, sizeof(double) * LEN(NX));
  for (i = 0; i < NX; i++) {
    double e = 0.0, scale;
    for (j = 0; j < 7; j++) e += DP_E[j] * m->k[j][i];
    scale = m->rtol * (X_NOMINAL[i] + fmax(fabs(x[i]), fabs(xout[i])));
    sum += (h * e / scale) * (h * e / scale);
  }
  *err = NX > 0 ? sqrt(sum / NX) : 0.0;
  return isfinite(*err) ? 0 : -1;
}

/* which live indicators changed side between g0 and g1 (leaving zero counts, as the
   relation's value changes there) */
static int crossed_any(const Model *m, const double *g0, const double *g1) {
  int k;
  for (k = 0; k < NI; k++) {
    if (!m->live[k]) continue;
    if (g0[k] > 0.0 ? g1[k] <= 0.0 : g0[k] < 0.0 ? g1[k] >= 0.0 : g1[k] != 0.0) return 1;
  }
  return 0;
}

static int cs_indicators(Model *m, double *g) {
  if (NI == 0) return 0;
  if (eval_ind(m, "fmi2DoStep")) return -1;
  memcpy(g, m->ind, sizeof(double) * LEN(NI));
  return 0;
}

static fmi2Status cs_advance(Model *m, double t_end) {
  static const char *where = "fmi2DoStep";
  double t = m->t, *x0 = m->cs_x0, *x1 = m->cs_x1, *g0 = m->cs_g0, *g1 = m->cs_g1;
  double proposal = m->h > 0.0 ? m->h : t_end - t;  /* the next step size, kept across calls */
  long steps = 0;
  int at_once = 0, changed, same_time;
  double last_event = -INFINITY;
  memcpy(x0, m->x, sizeof(double) * LEN(NX));
  if (cs_indicators(m, g0)) return fmi2Error;
  while (t < t_end) {
    double err = 0.0, t1, h = proposal;
    int status, last;
    if (++steps > CS_MAX_STEPS)
      return fail(m, where, "more than %ld steps between t = %.17g and %.17g: the model is "
                  "too stiff for the embedded explicit solver; use the model-exchange "
                  "interface with an implicit solver", CS_MAX_STEPS, m->t, t_end);
    last = h >= t_end - t;
    if (last) h = t_end - t;
    m->quiet = 1;
    status = dopri_step(m, t, x0, h, x1, &err);
    m->quiet = 0;
    if (status != 0 || err > 1.0) {
      h *= status != 0 ? 0.25 : fmax(0.2, 0.9 * pow(err, -0.2));
      proposal = h;
      if (h <= 4.0 * EVENT_TIME_TOL * fmax(1.0, fabs(t))) {
        if (status != 0) {  /* say why, with the messages of the failed evaluation */
          double dummy;
          dopri_step(m, t, x0, 4.0 * EVENT_TIME_TOL * fmax(1.0, fabs(t)), x1, &dummy);
        }
        return fail(m, where, "the step size fell below its minimum at t = %.17g (%s)", t,
                    status != 0 ? "the model could not be evaluated" :
                    "the error test failed repeatedly");
      }
      continue;
    }
    t1 = last ? t_end : t + h;
    if (cs_indicators(m, g1)) return fmi2Error;
    if (NI > 0 && crossed_any(m, g0, g1)) {
      /* bisection on the step size: the first point past the crossing */
      double lo = 0.0, hi = h, dummy;
      int k;
      memcpy(m->cs_xh, x1, sizeof(double) * LEN(NX));
      while (hi - lo > EVENT_TIME_TOL * fmax(1.0, fabs(t) + h)) {
        double mid = 0.5 * (lo + hi);
        if (dopri_step(m, t, x0, mid, x1, &dummy) || cs_indicators(m, g1)) return fmi2Error;
        if (crossed_any(m, g0, g1)) {
          hi = mid;
          memcpy(m->cs_xh, x1, sizeof(double) * LEN(NX));
        } else {
          lo = mid;
        }
      }
      m->t = t + hi;
      memcpy(m->x, m->cs_xh, sizeof(double) * LEN(NX));
      invalidate(m);
      for (k = 0; k < NI; k++) if (m->live[k]) m->g_pre[k] = g0[k];
      if (event_iteration(m, 1, &changed, where)) return fmi2Error;
      same_time = m->t - last_event <= 100.0 * EVENT_TIME_TOL * fmax(1.0, fabs(m->t));
      at_once = same_time ? at_once + 1 : 0;
      last_event = m->t;
      if (at_once > CS_MAX_EVENTS_AT_ONCE)
        return fail(m, where, "chattering: more than %d events at t = %.17g",
                    CS_MAX_EVENTS_AT_ONCE, m->t);
      t = m->t;
      memcpy(x0, m->x, sizeof(double) * LEN(NX));
      if (cs_indicators(m, g0)) return fmi2Error;
      continue;
    }
    t = t1;
    memcpy(x0, x1, sizeof(double) * LEN(NX));
    memcpy(g0, g1, sizeof(double) * LEN(NI));
    {
      double grown = h * (err > 0.0 ? fmin(5.0, fmax(0.2, 0.9 * pow(err, -0.2))) : 5.0);
      /* a last step cut short to reach t_end says little about the size that fits */
      proposal = last && h < proposal ? fmax(proposal, grown) : grown;
    }
  }
  m->h = proposal;
  m->t = t_end;
  memcpy(m->x, x0, sizeof(double) * LEN(NX));
  invalidate(m);
  return fmi2OK;
}

static fmi2Status not_cosimulation(Model *m, const char *where) {
  if (m == NULL) return fmi2Error;
  return fail(m, where, "this instance is not a co-simulation instance");
}

ACAUSAL_FMI_API fmi2Status fmi2SetRealInputDerivatives(fmi2Component c,
                                                       const fmi2ValueReference vr[], size_t nvr,
                                                       const fmi2Integer order[],
                                                       const fmi2Real value[]) {
  (void)vr; (void)order; (void)value;
  if (nvr == 0) return fmi2OK;
  return fail((Model *)c, "fmi2SetRealInputDerivatives", "inputs are held constant over a "
              "communication step (canInterpolateInputs=\"false\")");
}
ACAUSAL_FMI_API fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c,
                                                        const fmi2ValueReference vr[], size_t nvr,
                                                        const fmi2Integer order[],
                                                        fmi2Real value[]) {
  (void)vr; (void)order; (void)value;
  if (nvr == 0) return fmi2OK;
  return fail((Model *)c, "fmi2GetRealOutputDerivatives", "not provided "
              "(maxOutputDerivativeOrder=\"0\")");
}

ACAUSAL_FMI_API fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                                      fmi2Real communicationStepSize,
                                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
  Model *m = (Model *)c;
  fmi2Status status;
  (void)noSetFMUStatePriorToCurrentPoint;
  if (m == NULL || !m->cosim) return not_cosimulation(m, "fmi2DoStep");
  if (bad_mode(m, "fmi2DoStep", IN(MODE_CONTINUOUS))) return fmi2Error;
  if (!(communicationStepSize >= 0.0))
    return fail(m, "fmi2DoStep", "the communication step size %.17g is negative",
                communicationStepSize);
  if (fabs(currentCommunicationPoint - m->t) > 1e-9 * fmax(1.0, fabs(m->t)))
    return fail(m, "fmi2DoStep", "the communication point %.17g is not the FMU's time %.17g",
                currentCommunicationPoint, m->t);
  m->t = currentCommunicationPoint;
  if (m->values_changed) {  /* parameters or inputs set since the last step */
    int changed;
    m->values_changed = 0;
    invalidate(m);
    if (event_iteration(m, 0, &changed, "fmi2DoStep")) {
      m->mode = MODE_ERROR;
      return fmi2Error;
    }
  }
  status = cs_advance(m, currentCommunicationPoint + communicationStepSize);
  if (status != fmi2OK) m->mode = MODE_ERROR;
  return status;
}

ACAUSAL_FMI_API fmi2Status fmi2CancelStep(fmi2Component c) {
  return fail((Model *)c, "fmi2CancelStep", "fmi2DoStep never returns fmi2Pending here");
}
ACAUSAL_FMI_API fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s,
                                         fmi2Status *value) {
  Model *m = (Model *)c;
  if (m == NULL || !m->cosim) return not_cosimulation(m, "fmi2GetStatus");
  if (s != fmi2DoStepStatus) return fmi2Discard;
  *value = m->mode == MODE_ERROR ? fmi2Error : fmi2OK;
  return fmi2OK;
}
ACAUSAL_FMI_API fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s,
                                             fmi2Real *value) {
  Model *m = (Model *)c;
  if (m == NULL || !m->cosim) return not_cosimulation(m, "fmi2GetRealStatus");
  if (s != fmi2LastSuccessfulTime) return fmi2Discard;
  *value = m->t;
  return fmi2OK;
}
ACAUSAL_FMI_API fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s,
                                                fmi2Integer *value) {
  Model *m = (Model *)c;
  (void)s; (void)value;
  if (m == NULL || !m->cosim) return not_cosimulation(m, "fmi2GetIntegerStatus");
  return fmi2Discard;
}
ACAUSAL_FMI_API fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s,
                                                fmi2Boolean *value) {
  Model *m = (Model *)c;
  if (m == NULL || !m->cosim) return not_cosimulation(m, "fmi2GetBooleanStatus");
  if (s != fmi2Terminated) return fmi2Discard;
  *value = fmi2False;
  return fmi2OK;
}
ACAUSAL_FMI_API fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s,
                                               fmi2String *value) {
  Model *m = (Model *)c;
  (void)s; (void)value;
  if (m == NULL || !m->cosim) return not_cosimulation(m, "fmi2GetStringStatus");
  return fmi2Discard;
}
