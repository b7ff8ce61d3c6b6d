/* sim.c — the vortex-particle simulation (sim.h): state in backend memory, the right-hand side
 * from one engine call per stage, the Runge–Kutta stages (CPU loop here, CUDA kernels in
 * sim_gpu.cu, both around stage_t.h), the blow-up check and the host getters. */
#define _POSIX_C_SOURCE 200809L

#include "sim.h"
#include "clock.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coarsen.h"
#include "compact.h"
#include "diag.h"
#include "conserve.h"
#include "remesh.h"
#include "sim_gpu.h"
#include "stage.h"

struct vx_sim {
  vx_sim_params prm;
  fmm_ctx *fmm;
  int on_device;             /* cuda backend: every array below is a device array */
  size_t rs;                 /* bytes of one real */
  int n_elem, n_tracer, n_tot;
  int n_rings;
  int *ring;                 /* host */
  /* backend memory, with capacities in bytes */
  void *pos, *alpha, *pos0, *alpha0, *accp, *acca, *vel, *grad, *scratch;
  size_t c_pos, c_alpha, c_pos0, c_alpha0, c_accp, c_acca, c_vel, c_grad, c_scratch;
  void *host;                /* host staging for the getters */
  size_t c_host;
  double t;
  long long steps;
  vx_step_stats stats;
  /* long-run control */
  int *d_ring;               /* cuda: the ring of each element on the device (remeshing reads it) */
  size_t c_d_ring;
  vx_remesh_ws *rws;         /* the remeshing pipeline's scratch */
  vx_remesh_job rj;          /* its output buffers, swapped with pos / alpha / ring after each remeshing */
  vx_remesh_stats rstats;
  double since_remesh;       /* simulated time since the last remeshing (the diffusion it owes) */
  int steps_since_remesh;
  double amax0;              /* max|α| at the start: the blow-up rule's reference */
  /* the blow-up rule's energy watch (VX_SIM_ENERGY_RISE): reference, lowest and last measured
   * (valid when e_ok), and the time after which the next measurement is due */
  double e0, e_min, e_last, t_energy;
  int e_ok;
  int have_grad;             /* grad holds the elements' gradient of an evaluation of this state's particles */
  /* the tracers' rows of vel (and of grad when field_grad) hold the last step's last evaluation:
   * within one step of the current positions (vx_sim_tracer_field); 0 after creation and remeshing
   * (the arrays were regrown for another element count) */
  int field_ok, field_grad;
  int want_tracer_grad;      /* the last stage of each step computes ∇u at the tracers too */
  double max_gradu;          /* max |∇u| over the elements, last measured */
  /* the health reduction of the current state, kept so that the step's own check (substeps) and
   * the caller's vx_sim_health after it cost one reduction and one device read-back, not two */
  long long state_id, health_id;  /* state_id changes with the particles; health_id: whose reduction is kept */
  double h_m2, h_g2;
  int h_bad;
  /* the conservative correction after relaxation and dropping (conserve.h) */
  void *cons;                /* backend scratch of VX_CONSERVE_SCRATCH bytes (cuda only) */
  size_t c_cons;
  vx_conserve_stats cstats;
  /* vx_sim_watch_next_eval: the next step's first engine call goes to watch_fn, once */
  vx_sim_eval_fn watch_fn;
  void *watch_user;
  vx_sim_added *added;       /* rings added while running (vx_sim_add_ring), oldest first */
  int n_added, c_added;
  /* the tracers' own step (prm.tracer_every = m > 1, docs/MATH.md §15): one classical RK4 step of m
   * element steps, its four stages evaluated in calls of their own beside the elements' first and last */
  fmm_ctx *fmm_e;            /* with tracers, the elements' calls (created when first needed): their tree
                                is kept in it, the tracers' calls keep theirs in fmm */
  void *tp0, *tacc;          /* the tracers' y0 and acc (stage.h) over their step, 3*n_tracer each */
  size_t c_tp0, c_tacc;
  int tr_m;                  /* m of the tracer step under way */
  int tr_steps, tr_stage;    /* element steps and tracer stages done in it (0, 0: none under way) */
  double tr_h;               /* the size of its element steps */
};

#ifndef VX_HAVE_CUDA
/* CPU-only build: the cuda backend never gets this far (fmm_create refuses it). */
int vx_gpu_sync(char *err, size_t errlen) {
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_gpu_stage(vx_precision prec, const vx_stage_args *a, char *err, size_t errlen) {
  (void)prec; (void)a;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_gpu_relax(vx_precision prec, void *alpha, const void *grad, int n_elem, double f, char *err, size_t errlen) {
  (void)prec; (void)alpha; (void)grad; (void)n_elem; (void)f;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_gpu_settle(vx_precision prec, void *pos, const void *pos0, const void *acc, int n, double f, double gh, char *err,
                  size_t errlen) {
  (void)prec; (void)pos; (void)pos0; (void)acc; (void)n; (void)f; (void)gh;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_gpu_health(vx_precision prec, const void *pos, const void *alpha, const void *grad, int n_elem, int n_tot,
                  void *d_scratch, double *max_a2, double *max_g2, int *bad, char *err, size_t errlen) {
  (void)prec; (void)pos; (void)alpha; (void)grad; (void)n_elem; (void)n_tot; (void)d_scratch; (void)max_a2; (void)max_g2;
  (void)bad;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_remesh_gpu(vx_remesh_ws **ws, vx_remesh_job *j, char *err, size_t errlen) {
  (void)ws; (void)j;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
void vx_remesh_ws_free_gpu(vx_remesh_ws *ws) { (void)ws; }
int vx_gpu_copy(void *d_dst, const void *d_src, size_t bytes, char *err, size_t errlen) {
  (void)d_dst; (void)d_src; (void)bytes;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_gpu_gather(vx_precision prec, void *d_dst, const void *d_src, const int *d_idx, int n, char *err, size_t errlen) {
  (void)prec; (void)d_dst; (void)d_src; (void)d_idx; (void)n;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
#endif

static double now_ms(void) { return vx_clock_ms(); }

/* ------------------------------------------------------------------ memory */

/* The simulation's backend arrays are (pointer, capacity) pairs grown through mem.h. */
static void buf_free(const vx_sim *s, void **p, size_t *cap) {
  vx_mem b = {*p, *cap};
  vx_mem_free(&b, s->on_device);
  *p = NULL;
  *cap = 0;
}

/* Grow a backend buffer to at least bytes (contents not kept). Called at creation, when the
 * integrator first needs its scratch arrays and after a remeshing, never per step once sized. */
static int buf_reserve(vx_sim *s, void **p, size_t *cap, size_t bytes, char *err, size_t errlen) {
  vx_mem b = {*p, *cap};
  int rc = vx_mem_reserve(&b, bytes, s->on_device, err, errlen);
  *p = b.p;
  *cap = b.cap;
  return rc;
}

static void *host_staging(vx_sim *s, size_t bytes) {
  if (s->c_host >= bytes && s->host) return s->host;
  free(s->host);
  s->host = malloc(bytes ? bytes : 1);
  s->c_host = s->host ? bytes : 0;
  return s->host;
}

/* Copy n reals from backend memory src into host doubles dst. */
static int fetch_doubles(vx_sim *s, const void *src, size_t n, double *dst, char *err, size_t errlen) {
  const void *h = src;
  if (s->on_device) {
    void *st = host_staging(s, n * s->rs);
    if (!st) { snprintf(err, errlen, "out of memory for a host copy"); return -1; }
    if (vx_device_download(st, src, n * s->rs, err, errlen)) return -1;
    h = st;
  }
  if (s->prm.precision == VX_FLOAT) {
    const float *f = (const float *)h;
    for (size_t i = 0; i < n; ++i) dst[i] = f[i];
  } else {
    memcpy(dst, h, n * sizeof(double));
  }
  return 0;
}

/* Copy n host doubles into backend memory dst, in the run's precision. */
static int store_doubles(vx_sim *s, void *dst, const double *src, size_t n, char *err, size_t errlen) {
  void *h = dst;
  if (s->on_device || s->prm.precision == VX_FLOAT) {
    h = host_staging(s, n * s->rs);
    if (!h) { snprintf(err, errlen, "out of memory for a host copy"); return -1; }
  }
  if (s->prm.precision == VX_FLOAT) {
    float *f = (float *)h;
    for (size_t i = 0; i < n; ++i) f[i] = (float)src[i];
  } else if (h != (void *)src) {
    memcpy(h, src, n * sizeof(double));
  }
  if (s->on_device) return vx_device_upload(dst, h, n * s->rs, err, errlen);
  if (h != dst) memcpy(dst, h, n * s->rs);
  return 0;
}

/* ------------------------------------------------------------------ parameters */

vx_sim_params vx_sim_params_from_scene(const vx_scene *sc) {
  vx_sim_params p;
  memset(&p, 0, sizeof p);
  p.backend = sc->backend;
  p.precision = sc->precision;
  p.order = sc->order;
  p.leaf_size = sc->leaf_size;
  p.kernel = sc->kernel;
  p.sigma = sc->sigma;
  p.dt = sc->dt;
  p.integrator = sc->integrator;
  p.stretching = sc->stretching;
  p.direct = sc->direct;
  p.tracers = -1;
  p.relax = sc->relax;
  p.relax_every = sc->relax_every;
  p.remesh_every = sc->remesh_every;
  p.remesh_h = sc->remesh_h;
  vx_scene_remesh_origin(sc, p.remesh_origin);
  p.remesh_drop = sc->remesh_drop;
  p.remesh_coarsen = sc->remesh_coarsen;
  p.viscosity = sc->viscosity;
  p.lcfl = sc->lcfl;
  p.tracer_every = sc->tracer_every;
  p.conserve = sc->conserve;
  return p;
}

/* The lattice spacing in use: remesh_h, else σ. */
static double lattice_h(const vx_sim_params *p) { return p->remesh_h > 0.0 ? p->remesh_h : p->sigma; }

static int check_control(const vx_sim_params *p, char *err, size_t errlen) {
  if (!(p->relax >= 0.0 && p->relax <= 1.0)) { snprintf(err, errlen, "relaxation factor %g must be in [0, 1]", p->relax); return -1; }
  if (p->relax > 0.0 && p->relax_every < 1) {
    snprintf(err, errlen, "relaxation interval %d must be >= 1 step", p->relax_every);
    return -1;
  }
  if (p->remesh_every < 0) { snprintf(err, errlen, "remeshing interval %d must be >= 0 (0: off)", p->remesh_every); return -1; }
  if (!(p->remesh_h >= 0.0 && isfinite(p->remesh_h))) { snprintf(err, errlen, "remeshing spacing %g must be >= 0", p->remesh_h); return -1; }
  if (!(p->remesh_drop >= 0.0 && p->remesh_drop <= 0.1)) {
    snprintf(err, errlen, "remeshing drop threshold %g must be in [0, 0.1]", p->remesh_drop);
    return -1;
  }
  if (!(p->remesh_coarsen >= 0.0 && p->remesh_coarsen <= 10.0)) {
    snprintf(err, errlen, "remesh_coarsen %g must be in [0, 10] (0: a fixed lattice)", p->remesh_coarsen);
    return -1;
  }
  if (!(p->lcfl >= 0.0 && p->lcfl <= 10.0)) { snprintf(err, errlen, "lcfl %g must be in [0, 10] (0: no substeps)", p->lcfl); return -1; }
  if (p->tracer_every != 0 && !vx_tracer_every_ok(p->tracer_every)) {
    snprintf(err, errlen, "tracer_every %d must be 1, 2 or 4 (element steps a tracer step spans)", p->tracer_every);
    return -1;
  }
  if (!(p->viscosity >= 0.0 && isfinite(p->viscosity))) { snprintf(err, errlen, "viscosity %g must be >= 0", p->viscosity); return -1; }
  double h = lattice_h(p);
  if (p->remesh_every > 0 && !(h > 0.0)) {
    snprintf(err, errlen, "remeshing needs a lattice spacing: set remesh_h (the %s kernel has no sigma)", vx_kernel_name(p->kernel));
    return -1;
  }
  if (p->viscosity > 0.0 && p->remesh_every <= 0) {
    snprintf(err, errlen, "viscosity %g acts at remeshing: turn remeshing on (remesh_every > 0)", p->viscosity);
    return -1;
  }
  if (p->viscosity > 0.0 && p->viscosity * p->dt / (h * h) > VX_REMESH_C2_MAX) {
    snprintf(err, errlen, "viscosity %g too large for dt %g and lattice spacing %g: nu*dt/h^2 = %.3g exceeds %.3g", p->viscosity,
             p->dt, h, p->viscosity * p->dt / (h * h), VX_REMESH_C2_MAX);
    return -1;
  }
  return 0;
}

static int check_params(const vx_sim_params *p, char *err, size_t errlen) {
  if (!(p->dt > 0.0 && isfinite(p->dt))) { snprintf(err, errlen, "time step dt %g must be > 0", p->dt); return -1; }
  if (p->integrator < VX_EULER || p->integrator > VX_RK4) { snprintf(err, errlen, "unknown integrator"); return -1; }
  if (p->stretching < VX_STRETCH_CLASSICAL || p->stretching > VX_STRETCH_NONE) {
    snprintf(err, errlen, "unknown stretching scheme");
    return -1;
  }
  if (p->kernel != VX_KERNEL_SINGULAR && !(p->sigma > 0.0 && isfinite(p->sigma))) {
    snprintf(err, errlen, "kernel %s needs sigma > 0 (got %g)", vx_kernel_name(p->kernel), p->sigma);
    return -1;
  }
  return check_control(p, err, errlen);
}

int vx_sim_params_check(const vx_sim_params *p, char *err, size_t errlen) { return check_params(p, err, errlen); }

static fmm_params engine_params(const vx_sim_params *p) {
  fmm_params f = fmm_params_default();
  f.backend = p->backend;
  f.precision = p->precision;
  f.order = p->order;
  f.leaf_size = p->leaf_size; /* 0: the backend's (fmm_leaf_size) */
  f.min_leaves = p->min_leaves;
  f.level_rule = p->level_rule;
  f.keep_move = p->keep_move;
  f.kernel = p->kernel;
  f.sigma = p->sigma;
  f.gradient = p->stretching != VX_STRETCH_NONE;
  f.verbose = p->verbose;
  f.allow_direct = 1; /* the elements alone, while few, by the direct sum where the cost model says it pays */
  /* measurement switches (docs/BENCHMARKS.md, issue 12): VX_DIRECT=0 never the direct sum in place of the
   * FMM, VX_LEVELS=L forces the finest level,
   * VX_REG_CORRECT=0|1|2 fmm_params.reg_correct (FMM_REG_CAP, _CORRECT, _AUTO), VX_REG_TOL=T the tolerance,
   * VX_KEEP_MOVE=F fmm_params.keep_move (0: never, every stage builds its tree), VX_LEVEL_RULE=leaf|cost
   * fmm_params.level_rule (anything else: the backend's) */
  const char *lv = getenv("VX_LEVELS"), *rc = getenv("VX_REG_CORRECT"), *rt = getenv("VX_REG_TOL");
  const char *km = getenv("VX_KEEP_MOVE"), *lr = getenv("VX_LEVEL_RULE");
  const char *dr = getenv("VX_DIRECT");
  if (dr && !strcmp(dr, "0")) f.allow_direct = 0;
  if (lv) f.levels = atoi(lv);
  if (lr) f.level_rule = !strcmp(lr, "leaf") ? FMM_LEVEL_RULE_LEAF : !strcmp(lr, "cost") ? FMM_LEVEL_RULE_COST : FMM_LEVEL_RULE_AUTO;
  if (rc) f.reg_correct = atoi(rc);
  if (rt) f.reg_tol = atof(rt);
  if (km) { /* not a number: NaN, which fmm_create refuses with a message naming keep_move */
    char *end;
    const double v = strtod(km, &end);
    f.keep_move = end == km || *end ? NAN : v > 0.0 ? v : -1.0;
  }
  return f;
}

/* ------------------------------------------------------------------ create / destroy */

void vx_sim_destroy(vx_sim *s) {
  if (!s) return;
  buf_free(s, &s->pos, &s->c_pos);
  buf_free(s, &s->alpha, &s->c_alpha);
  buf_free(s, &s->pos0, &s->c_pos0);
  buf_free(s, &s->alpha0, &s->c_alpha0);
  buf_free(s, &s->accp, &s->c_accp);
  buf_free(s, &s->acca, &s->c_acca);
  buf_free(s, &s->vel, &s->c_vel);
  buf_free(s, &s->grad, &s->c_grad);
  buf_free(s, &s->scratch, &s->c_scratch);
  buf_free(s, &s->cons, &s->c_cons);
  buf_free(s, (void **)&s->d_ring, &s->c_d_ring);
  vx_mem_free(&s->rj.pos_out, s->on_device);
  vx_mem_free(&s->rj.alpha_out, s->on_device);
  vx_mem_free(&s->rj.ring_out, s->on_device);
  if (s->on_device) vx_remesh_ws_free_gpu(s->rws);
  else vx_remesh_ws_free_cpu(s->rws);
  buf_free(s, &s->tp0, &s->c_tp0);
  buf_free(s, &s->tacc, &s->c_tacc);
  fmm_destroy(s->fmm);
  fmm_destroy(s->fmm_e);
  free(s->ring);
  free(s->host);
  free(s->added);
  free(s);
}

/* The RK scratch arrays (y0, acc) for the integrator in use; Euler needs none. */
static int reserve_scratch(vx_sim *s, char *err, size_t errlen) {
  if (s->prm.integrator == VX_EULER) return 0;
  size_t bp = 3 * s->rs * (size_t)s->n_tot, ba = 3 * s->rs * (size_t)s->n_elem;
  if (buf_reserve(s, &s->pos0, &s->c_pos0, bp, err, errlen) || buf_reserve(s, &s->alpha0, &s->c_alpha0, ba, err, errlen) ||
      buf_reserve(s, &s->accp, &s->c_accp, bp, err, errlen) || buf_reserve(s, &s->acca, &s->c_acca, ba, err, errlen))
    return -1;
  return 0;
}

/* cuda: the host ring array mirrored on the device (remeshing reads it there). */
static int upload_rings(vx_sim *s, char *err, size_t errlen) {
  if (!s->on_device) return 0;
  size_t b = sizeof(int) * ((size_t)s->n_elem + 1);
  if (buf_reserve(s, (void **)&s->d_ring, &s->c_d_ring, b, err, errlen)) return -1;
  return s->n_elem ? vx_device_upload(s->d_ring, s->ring, sizeof(int) * (size_t)s->n_elem, err, errlen) : 0;
}

/* The energy watch takes a new reference at its next measurement (the energy jumped, or was
 * never measured). */
static void energy_restart(vx_sim *s) {
  s->e_ok = 0;
  s->t_energy = s->t;
}

static int sim_velocity(vx_sim *s, int tracers, double *vel, char *err, size_t errlen);
static void tracers_settle(vx_sim *s);
static int restore_tracer_step(vx_sim *s, const vx_sim_state *st, char *err, size_t errlen);

/* Measure the energy when due (VX_SIM_ENERGY_EVERY): one engine call over the elements, the
 * elements and their velocities copied to the host. */
static int energy_watch(vx_sim *s, char *err, size_t errlen) {
  if (s->n_elem == 0 || s->t < s->t_energy) return 0;
  size_t n3 = 3 * (size_t)s->n_elem;
  double *buf = malloc(sizeof(double) * 3 * n3);
  if (!buf) { snprintf(err, errlen, "out of host memory for the energy watch"); return -1; }
  int rc = vx_sim_get_elements(s, buf, buf + n3, err, errlen) || sim_velocity(s, 0, buf + 2 * n3, err, errlen);
  if (!rc) {
    double e = vx_energy(s->n_elem, buf, buf + n3, buf + 2 * n3);
    if (!s->e_ok) s->e0 = s->e_min = e, s->e_ok = 1;
    s->e_last = e;
    if (e < s->e_min) s->e_min = e;
    s->t_energy = s->t + VX_SIM_ENERGY_EVERY;
  }
  free(buf);
  return rc ? -1 : 0;
}

/* The blow-up rule's reference, max|α| of the start. */
static int start_health(vx_sim *s, char *err, size_t errlen) {
  int bad = 0;
  energy_restart(s);
  return vx_sim_check(s, &s->amax0, &bad, err, errlen);
}

/* The simulation around given particles (host doubles, copied): engine, backend arrays, rings.
 * No remeshing and no blow-up reference yet: the two ways of starting differ there. */
static vx_sim *sim_alloc(const vx_sim_params *prm, int n_elem, int n_tracer, const double *pos, const double *alpha,
                         const int *ring, char *err, size_t errlen) {
  if (check_params(prm, err, errlen)) return NULL;
  if (n_elem < 0 || n_tracer < 0 || (long long)n_elem + n_tracer > (1LL << 30)) {
    snprintf(err, errlen, "bad particle counts (%d elements, %d tracers)", n_elem, n_tracer);
    return NULL;
  }
  vx_sim *s = calloc(1, sizeof *s);
  if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
  s->prm = *prm;
  s->health_id = -1; /* no health reduction kept yet */
  fmm_params fp = engine_params(prm);
  s->fmm = fmm_create(&fp, err, errlen);
  if (!s->fmm) { free(s); return NULL; }
  s->prm.backend = fmm_get_params(s->fmm)->backend;
  s->on_device = s->prm.backend == VX_BACKEND_CUDA;
  s->rs = prm->precision == VX_FLOAT ? sizeof(float) : sizeof(double);
  s->n_elem = n_elem;
  s->n_tracer = n_tracer;
  s->n_tot = n_elem + n_tracer;
  s->ring = malloc(sizeof(int) * ((size_t)n_elem + 1));
  if (!s->ring) { snprintf(err, errlen, "out of memory"); vx_sim_destroy(s); return NULL; }
  s->n_rings = n_elem ? 1 : 0;
  for (int i = 0; i < n_elem; ++i) {
    s->ring[i] = ring ? ring[i] : 0;
    if (s->ring[i] + 1 > s->n_rings) s->n_rings = s->ring[i] + 1;
  }
  size_t bp = 3 * s->rs * (size_t)s->n_tot, ba = 3 * s->rs * (size_t)n_elem;
  if (buf_reserve(s, &s->pos, &s->c_pos, bp, err, errlen) || buf_reserve(s, &s->alpha, &s->c_alpha, ba, err, errlen) ||
      buf_reserve(s, &s->vel, &s->c_vel, bp, err, errlen) ||
      buf_reserve(s, &s->grad, &s->c_grad, 3 * bp, err, errlen) || reserve_scratch(s, err, errlen) ||
      (s->on_device && buf_reserve(s, &s->scratch, &s->c_scratch, 32, err, errlen)) ||
      store_doubles(s, s->pos, pos, 3 * (size_t)s->n_tot, err, errlen) ||
      store_doubles(s, s->alpha, alpha, 3 * (size_t)n_elem, err, errlen) || upload_rings(s, err, errlen)) {
    vx_sim_destroy(s);
    return NULL;
  }
  return s;
}

vx_sim *vx_sim_create_from(const vx_sim_params *prm, int n_elem, int n_tracer, const double *pos, const double *alpha,
                           const int *ring, char *err, size_t errlen) {
  vx_sim *s = sim_alloc(prm, n_elem, n_tracer, pos, alpha, ring, err, errlen);
  if (s && (((s->prm.remesh_every > 0 && n_elem > 0 && vx_sim_remesh(s, err, errlen)) || start_health(s, err, errlen)))) {
    vx_sim_destroy(s);
    return NULL;
  }
  return s;
}

vx_sim *vx_sim_create_from_state(const vx_sim_params *prm, const vx_sim_state *st, int n_elem, int n_tracer,
                                 const double *pos, const double *alpha, const int *ring, char *err, size_t errlen) {
  if (!(st->t >= 0.0 && isfinite(st->t)) || st->steps < 0 || st->steps_since_remesh < 0 || !(st->since_remesh >= 0.0) ||
      !(st->amax0 >= 0.0 && isfinite(st->amax0)) || !(st->max_gradu >= 0.0) || st->remesh.count < 0 || st->n_rings < 0) {
    snprintf(err, errlen, "bad saved state (time %g, step %lld)", st->t, st->steps);
    return NULL;
  }
  vx_sim *s = sim_alloc(prm, n_elem, n_tracer, pos, alpha, ring, err, errlen);
  if (!s) return NULL;
  s->t = st->t;
  s->steps = st->steps;
  s->n_rings = st->n_rings;
  s->since_remesh = st->since_remesh;
  s->steps_since_remesh = st->steps_since_remesh;
  s->amax0 = st->amax0;
  energy_restart(s); /* the checkpoint keeps no energy: the watch starts again here */
  s->max_gradu = st->max_gradu; /* have_grad stays 0: no gradient of these particles yet, keep the measured value */
  s->rstats = st->remesh;
  if (restore_tracer_step(s, st, err, errlen)) { vx_sim_destroy(s); return NULL; }
  return s;
}

int vx_sim_export_state(vx_sim *s, vx_sim_state *st, char *err, size_t errlen) {
  double m;
  int bad;
  if (vx_sim_check(s, &m, &bad, err, errlen)) return -1;
  memset(st, 0, sizeof *st);
  st->t = s->t;
  st->steps = s->steps;
  st->n_rings = s->n_rings;
  st->since_remesh = s->since_remesh;
  st->steps_since_remesh = s->steps_since_remesh;
  st->amax0 = s->amax0;
  st->max_gradu = s->max_gradu;
  st->remesh = s->rstats;
  st->tr_m = s->tr_m, st->tr_steps = s->tr_steps, st->tr_stage = s->tr_stage, st->tr_h = s->tr_h;
  return 0;
}

int vx_sim_tracer_step(vx_sim *s, double *y0, double *acc, char *err, size_t errlen) {
  size_t n = 3 * (size_t)s->n_tracer;
  if (s->tr_steps == 0 || n == 0) return 0;
  return fetch_doubles(s, s->tp0, n, y0, err, errlen) || fetch_doubles(s, s->tacc, n, acc, err, errlen) ? -1 : 0;
}

/* A saved tracer step under way (st->tr_steps > 0) taken up again. */
static int restore_tracer_step(vx_sim *s, const vx_sim_state *st, char *err, size_t errlen) {
  if (st->tr_steps <= 0) return 0;
  if (st->tr_m < 2 || st->tr_m > 4 || st->tr_steps >= st->tr_m || st->tr_stage < 1 || st->tr_stage > 3 || !(st->tr_h > 0.0) ||
      !st->tr_y0 || !st->tr_acc) {
    snprintf(err, errlen, "bad saved tracer step (span %d, %d steps, %d stages done)", st->tr_m, st->tr_steps, st->tr_stage);
    return -1;
  }
  size_t n = 3 * (size_t)s->n_tracer, b = n * s->rs;
  s->tr_m = st->tr_m, s->tr_steps = st->tr_steps, s->tr_stage = st->tr_stage, s->tr_h = st->tr_h;
  return buf_reserve(s, &s->tp0, &s->c_tp0, b, err, errlen) || buf_reserve(s, &s->tacc, &s->c_tacc, b, err, errlen) ||
                 store_doubles(s, s->tp0, st->tr_y0, n, err, errlen) || store_doubles(s, s->tacc, st->tr_acc, n, err, errlen)
             ? -1
             : 0;
}

vx_sim *vx_sim_create(const vx_sim_params *prm, const vx_scene *scene, char *err, size_t errlen) {
  vx_particles P;
  if (vx_particles_generate(scene, prm->tracers, &P, err, errlen)) return NULL;
  vx_sim_params p = *prm;
  if (!(p.sigma > 0.0)) p.sigma = vx_scene_sigma(scene, P.spacing);
  vx_sim *s = vx_sim_create_from(&p, P.n_elem, P.n_tracer, P.pos, P.alpha, P.ring, err, errlen);
  if (s) s->n_rings = scene->n_rings;
  vx_particles_free(&P);
  return s;
}

/* ------------------------------------------------------------------ stepping */

/* One engine call of io on ctx: the FMM, or direct summation with prm.direct; its statistics into st
 * (NULL: none, a call outside the steps). */
static int plain_call(vx_sim *s, fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  return s->prm.direct ? fmm_direct(ctx, io, st, err, errlen) : fmm_evaluate(ctx, io, st, err, errlen);
}

/* One engine call, its times and counts summed into the step's stats; its levels, leaves and kernels
 * described there when `shown` (the tracers' call, or the elements' without tracers: the tree
 * the renderer's occupancy reads, vx_sim_engine). */
static int engine_call(vx_sim *s, fmm_ctx *ctx, fmm_io *io, int shown, char *err, size_t errlen) {
  fmm_stats st;
  memset(&st, 0, sizeof st);
  if (plain_call(s, ctx, io, &st, err, errlen)) return -1;
  vx_step_stats *S = &s->stats;
  S->t_tree += st.t_tree;
  S->t_far += st.t_p2m + st.t_m2m + st.t_m2l + st.t_l2l + st.t_l2p;
  S->t_near += st.t_p2p;
  S->evaluations++;
  fmm_stats *E = &S->engine;
  E->t_tree += st.t_tree, E->t_p2m += st.t_p2m, E->t_m2m += st.t_m2m, E->t_m2l += st.t_m2l;
  E->t_l2l += st.t_l2l, E->t_l2p += st.t_l2p, E->t_p2p += st.t_p2p, E->t_total += st.t_total, E->t_copy += st.t_copy;
  E->n_m2l += st.n_m2l, E->n_p2p += st.n_p2p;
  E->reg_err = fmax(E->reg_err, st.reg_err);
  for (int l = 0; l <= VX_LMAX; ++l) E->t_m2l_level[l] += st.t_m2l_level[l];
  E->tree_kept += st.tree_kept; /* summed: the calls that kept the step's tree */
  E->tree_moved = fmax(E->tree_moved, st.tree_moved);
  if (!shown) return 0;
  S->levels = st.levels;
  E->levels = st.levels, E->level_capped = st.level_capped;
  E->n_src_leaves = st.n_src_leaves, E->n_tgt_leaves = st.n_tgt_leaves;
  E->r_cut = st.r_cut;
  for (int l = 0; l <= VX_LMAX; ++l) E->m2l_fill[l] = st.m2l_fill[l];
  E->m2l_kernel = st.m2l_kernel, E->m2l_dense_levels = st.m2l_dense_levels, E->m2l_dense_tc = st.m2l_dense_tc;
  E->p2p_kernel = st.p2p_kernel;
  return 0;
}

/* The engine of the elements' calls when there are tracers (whose calls keep their tree in s->fmm),
 * created on first use with the parameters of the main one. */
static fmm_ctx *elements_engine(vx_sim *s, char *err, size_t errlen) {
  if (s->n_tracer == 0) return s->fmm;
  if (!s->fmm_e) {
    fmm_params fp = *fmm_get_params(s->fmm);
    s->fmm_e = fmm_create(&fp, err, errlen);
  }
  return s->fmm_e;
}

/* The io of an engine call at the current state for the elements' rows: velocity, and with `grad`
 * (and stretching on) the gradient, at the elements from the elements. */
static void elements_io(const vx_sim *s, int grad, int tree, fmm_io *io) {
  memset(io, 0, sizeof *io);
  io->n_src = io->n_tgt = io->n_grad = s->n_elem;
  io->src_pos = io->tgt_pos = s->pos;
  io->src_str = s->alpha;
  io->vel = s->vel;
  io->grad = grad && s->prm.stretching != VX_STRETCH_NONE ? s->grad : NULL;
  io->on_device = s->on_device;
  io->tree = tree;
}

/* The same for the tracers' rows: velocity at the tracers from the elements, passive unless the
 * gradient is asked for too (their vorticity, for colour). */
static void tracers_io(const vx_sim *s, int grad, int tree, fmm_io *io) {
  size_t r3 = 3 * s->rs * (size_t)s->n_elem;
  memset(io, 0, sizeof *io);
  io->n_src = s->n_elem;
  io->src_pos = s->pos;
  io->src_str = s->alpha;
  io->n_tgt = io->n_grad = s->n_tracer;
  io->tgt_pos = (const char *)s->pos + r3;
  io->vel = (char *)s->vel + r3;
  io->grad = grad && s->prm.stretching != VX_STRETCH_NONE ? (char *)s->grad + 3 * r3 : NULL;
  io->passive = io->grad == NULL;
  io->on_device = s->on_device;
  io->tree = tree;
}

/* The elements' engine call at the current state, on the elements' own tree (tree: fmm_io.tree; a
 * step's first stage builds and keeps it, its later stages reuse it, docs/MATH.md §14). The tracers
 * never enter it: passive tracers leave the elements' dynamics as it is without them, to the bit
 * (docs/MATH.md §15). */
static int evaluate_elements(vx_sim *s, int tree, char *err, size_t errlen) {
  fmm_io io;
  elements_io(s, 1, tree, &io);
  fmm_ctx *ctx = elements_engine(s, err, errlen);
  return ctx ? engine_call(s, ctx, &io, s->n_tracer == 0, err, errlen) : -1;
}

/* The tracers' engine call at the current state (the gradient too with tracer_grad), on the tracers'
 * own tree kept in s->fmm: the occupancy the renderer reads (vx_sim_engine). */
static int evaluate_tracers(vx_sim *s, int tracer_grad, int tree, char *err, size_t errlen) {
  fmm_io io;
  tracers_io(s, tracer_grad, tree, &io);
  if (engine_call(s, s->fmm, &io, 1, err, errlen)) return -1;
  s->field_ok = 1;
  s->field_grad = io.grad != NULL;
  return 0;
}

/* The engine calls of one stage at the current state y: the elements' (tree_e), then with `tracers`
 * the tracers' (tree_t), each on its own tree (evaluate_elements, evaluate_tracers). */
static int evaluate(vx_sim *s, int tracers, int tracer_grad, int tree_e, int tree_t, char *err, size_t errlen) {
  if (s->n_elem > 0 && evaluate_elements(s, tree_e, err, errlen)) return -1;
  if (s->n_tracer == 0) s->field_ok = 1, s->field_grad = 1;
  if (!tracers || s->n_tracer == 0) return 0; /* the tracers' rows keep their last evaluation */
  return evaluate_tracers(s, tracer_grad, tree_t, err, errlen);
}

static void stage_cpu(const vx_stage_args *a, vx_precision prec) {
  int n = a->n_tot;
  if (prec == VX_FLOAT) {
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; ++t) vx_stage_target_f(a, t);
  } else {
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; ++t) vx_stage_target_d(a, t);
  }
}

/* The moments of the elements (conserve.h): the linear invariants and the correction's weights. */
static int element_moments(vx_sim *s, double *m, char *err, size_t errlen) {
  if (s->on_device && buf_reserve(s, &s->cons, &s->c_cons, VX_CONSERVE_SCRATCH, err, errlen)) return -1;
  return vx_moments(s->prm.precision, s->on_device, s->pos, s->alpha, s->n_elem, s->cons, m, err, errlen);
}

/* The impulse the correction restores: I of the moments m0; in the full mode less ½ c×W of m0, c the
 * |α|-weighted centroid: taking W to zero at c moves I by exactly that (the λ term of conserve.h),
 * so the origin-dependent part that the drift of W had put into I leaves with it. */
static void restored_impulse(int mode, const double *m0, double *i_target) {
  double c[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 3; ++k) {
    i_target[k] = m0[3 + k];
    if (mode == VX_CONSERVE_FULL && m0[6] > 0.0) c[k] = m0[7 + k] / m0[6];
  }
  i_target[0] -= 0.5 * (c[1] * m0[2] - c[2] * m0[1]);
  i_target[1] -= 0.5 * (c[2] * m0[0] - c[0] * m0[2]);
  i_target[2] -= 0.5 * (c[0] * m0[1] - c[1] * m0[0]);
}

/* Bring the elements' I back to that of m0 (the moments before a relaxation or a drop), and in the
 * full mode W to zero, its value for any vorticity of compact support (∫ω dV = ∮ x (ω·n) dS = 0 since
 * ∇·ω = 0; the classical stretching lets Σα drift, and a W ≠ 0 makes I depend on the origin: rings
 * that travel 12 units then show a transverse "impulse" z×W/2, docs/VALIDATION.md §14); adds the
 * relative impulse put back to *sum_di. */
static int restore_invariants(vx_sim *s, const double *m0, double *sum_di, char *err, size_t errlen) {
  const double w_zero[3] = {0.0, 0.0, 0.0};
  double i_target[3];
  restored_impulse(s->prm.conserve, m0, i_target);
  double di = 0.0;
  if (vx_conserve(s->prm.precision, s->on_device, s->pos, s->alpha, s->n_elem, s->cons, w_zero, i_target,
                  (vx_conserve_mode)s->prm.conserve, &di, err, errlen))
    return -1;
  *sum_di += di;
  return 0;
}

/* Pedrizzetti's relaxation (stage_t.h, vx_relax) with the gradient just evaluated, then the
 * conservative correction of what it changed in W and I (prm.conserve). */
static int relax_strengths(vx_sim *s, char *err, size_t errlen) {
  double m0[VX_MOMENTS_N];
  int keep = s->prm.conserve != VX_CONSERVE_OFF;
  if (keep && element_moments(s, m0, err, errlen)) return -1;
  if (s->on_device) {
    if (vx_gpu_relax(s->prm.precision, s->alpha, s->grad, s->n_elem, s->prm.relax, err, errlen)) return -1;
  } else if (s->prm.precision == VX_FLOAT) {
    float *a = (float *)s->alpha, f = (float)s->prm.relax;
    const float *g = (const float *)s->grad;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < s->n_elem; ++t) vx_relax_f(f, g + 9 * (size_t)t, a + 3 * (size_t)t);
  } else {
    double *a = (double *)s->alpha;
    const double *g = (const double *)s->grad;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < s->n_elem; ++t) vx_relax_d(s->prm.relax, g + 9 * (size_t)t, a + 3 * (size_t)t);
  }
  s->cstats.relaxations++;
  return keep ? restore_invariants(s, m0, &s->cstats.di_relax, err, errlen) : 0;
}

/* An engine call failed mid-step: a blow-up when the state has gone non-finite (the octree refuses
 * such coordinates), else the engine's own failure. */
static int step_failed(vx_sim *s, long long step, const char *where, char *err, size_t errlen) {
  char e2[256];
  double m;
  int bad = 0;
  if (vx_sim_check(s, &m, &bad, e2, sizeof e2) == 0 && bad) {
    snprintf(err, errlen, "simulation blew up at step %lld (t=%g), %s: NaN or Inf in the particle state", step, s->t, where);
    return VX_SIM_BLOWUP;
  }
  return -1;
}

/* Remeshing is due after this step: its interval is over, or the diffusion it owes would pass the
 * kernel's limit c² <= VX_REMESH_C2_MAX within the next step. */
static int remesh_due(const vx_sim *s) {
  if (s->prm.remesh_every <= 0 || s->n_elem == 0) return 0;
  if (s->steps_since_remesh >= s->prm.remesh_every) return 1;
  double h = lattice_h(&s->prm);
  return s->prm.viscosity > 0.0 && s->prm.viscosity * (s->since_remesh + s->prm.dt) / (h * h) > VX_REMESH_C2_MAX;
}

void vx_sim_watch_next_eval(vx_sim *s, vx_sim_eval_fn fn, void *user) {
  s->watch_fn = fn;
  s->watch_user = user;
}

/* The armed watcher, if any, gets the engine call just made over the first n_tgt particles
 * (disarmed first: once per arming). */
static int hand_eval(vx_sim *s, int n_tgt, char *err, size_t errlen) {
  vx_sim_eval_fn fn = s->watch_fn;
  if (!fn) return 0;
  s->watch_fn = NULL;
  vx_sim_eval e;
  memset(&e, 0, sizeof e);
  e.n_elem = s->n_elem;
  e.n_tot = n_tgt;
  e.on_device = s->on_device;
  e.precision = s->prm.precision;
  e.kernel = s->prm.kernel;
  e.sigma = s->prm.sigma;
  e.pos = s->pos;
  e.alpha = s->alpha;
  e.vel = s->vel;
  e.grad = s->prm.stretching == VX_STRETCH_NONE ? NULL : s->grad;
  e.step = s->steps;
  e.t = s->t;
  return fn(s->watch_user, &e, err, errlen);
}

/* Butcher weights (w) and next-stage nodes (c) of the low-storage form in stage.h */
static const double w_euler[1] = {1.0}, w_rk2[2] = {0.5, 0.5}, w_rk4[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
static const double c_rk2[2] = {1.0, 0.0}, c_rk4[4] = {0.5, 0.5, 1.0, 0.0};

/* ---- the tracers' own step (prm.tracer_every, docs/MATH.md §15) */

/* The most element steps a tracer step may span: tracer_every; 1 (the tracers ride every stage of the
 * elements' own scheme) without tracers or with Euler (no call at the step's end). */
static int tracer_cadence(const vx_sim *s) {
  return s->prm.tracer_every > 1 && s->prm.integrator != VX_EULER && s->n_tracer > 0 ? s->prm.tracer_every : 1;
}

/* The tracers' RK4 stage that element stage k of ns carries in the tracer step under way, or -1. The
 * four, at times 0, H/2, H/2 and H of H = m·h, are the first call of element step 0, the last of step
 * m/2 − 1, the first of step m/2 and the last of step m − 1 (each stage's node: its first call is at
 * the step's start, its last at the step's end). */
static int tracer_stage_at(const vx_sim *s, int k, int ns) {
  int m = s->tr_m, i = s->tr_steps;
  if (k == 0) return i == 0 ? 0 : i == m / 2 ? 2 : -1;
  if (k == ns - 1) return i == m / 2 - 1 ? 1 : i == m - 1 ? 3 : -1;
  return -1;
}

/* Stage j of the tracers' RK4 step after a call that carried them: their rows of pos and vel, their
 * own y0 and acc (tp0, tacc), step H = m·h. */
static int tracer_stage(vx_sim *s, int j, char *err, size_t errlen) {
  size_t off = 3 * s->rs * (size_t)s->n_elem;
  vx_stage_args a;
  memset(&a, 0, sizeof a);
  a.n_tot = s->n_tracer;
  a.pos = (char *)s->pos + off;
  a.pos0 = s->tp0;
  a.acc_pos = s->tacc;
  a.vel = (const char *)s->vel + off;
  a.stretching = (int)VX_STRETCH_NONE;
  a.first = j == 0;
  a.last = j == 3;
  a.w = w_rk4[j];
  a.c = c_rk4[j];
  a.dt = s->tr_m * s->tr_h;
  s->tr_stage = j + 1;
  if (s->on_device) return vx_gpu_stage(s->prm.precision, &a, err, errlen);
  stage_cpu(&a, s->prm.precision);
  return 0;
}

/* Between element steps inside a tracer step the tracers stand at their position at the current time
 * (what the renderer, the getters and a checkpoint see), y0 + f·(y − y0) + g·H·acc of their next stage
 * point y; the next element step takes them back. By the stages done (j) at τ = (element steps done)·h
 * (docs/MATH.md §15): j = 1, τ = H/4 (k1): Euler, y0 + τ·k1; j = 2, τ = H/2: Heun, y0 + (H/4)(k1 + k2);
 * j = 3, τ = 3H/4: the velocity linear through k1 at 0 and k2 ≈ k3 at H/2, y0 + (3H/4)(k1 + 3k3)/4 to
 * second order. */
static void tracer_settle_coeffs(const vx_sim *s, double *f, double *gh) {
  static const double fj[4] = {1.0, 0.5, -0.5, -3.0 / 16}, gj[4] = {0.0, 0.0, 1.5, 9.0 / 8};
  int j = s->tr_steps > 0 ? s->tr_stage : 0;
  *f = fj[j];
  *gh = gj[j] * s->tr_m * s->tr_h;
}

/* The tracers' rows of pos to the current time (back = 0) or back to their next stage point (back = 1)
 * inside a tracer step (stage_t.h, vx_settle_target). */
static int tracers_settle_move(vx_sim *s, int back, char *err, size_t errlen) {
  double f, gh;
  tracer_settle_coeffs(s, &f, &gh);
  if ((f == 1.0 && gh == 0.0) || s->n_tracer == 0) return 0;
  if (back) gh = -gh / f, f = 1.0 / f;
  void *p = (char *)s->pos + 3 * s->rs * (size_t)s->n_elem;
  if (s->on_device) return vx_gpu_settle(s->prm.precision, p, s->tp0, s->tacc, s->n_tracer, f, gh, err, errlen);
  int n = s->n_tracer;
  if (s->prm.precision == VX_FLOAT) {
    const float *y0 = (const float *)s->tp0, *acc = (const float *)s->tacc;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; ++t) vx_settle_target_f((float *)p, y0, acc, (float)f, (float)gh, t);
  } else {
    const double *y0 = (const double *)s->tp0, *acc = (const double *)s->tacc;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; ++t) vx_settle_target_d((double *)p, y0, acc, f, gh, t);
  }
  return 0;
}

/* End the tracer step under way where the tracers stand (at the current time: tracer_settle_coeffs)
 * before its element steps change size (dt, substeps, integrator or tracer_every changed) or
 * tracers are added. */
static void tracers_settle(vx_sim *s) { s->tr_steps = s->tr_stage = 0; }

/* The span of a new tracer step of element steps dt: the most of m, m/2, ... 1 whose H = span·dt keeps
 * H·max|∇u| <= VX_SIM_TRACER_LCFL (the tracers' RK4 on a core's rotation, docs/MATH.md §15); m while
 * max|∇u| is unmeasured. */
static int tracer_span(const vx_sim *s, int m, double dt) {
  while (m > 1 && s->max_gradu > 0.0 && m * dt * s->max_gradu > VX_SIM_TRACER_LCFL) m /= 2;
  return m;
}

/* Before element steps of size dt, the tracers asking for steps of up to m of them: a tracer step
 * under way that cannot go on (dt changed, m below its span) is ended; a new one takes its span and
 * h; the tracers' y0 and acc are sized; the tracers go back to their next stage point. The span of
 * the step under way (1: the tracers ride every call), or -1 with err. */
static int tracer_step_begin(vx_sim *s, int m, double dt, char *err, size_t errlen) {
  if (s->tr_steps > 0 && (m < s->tr_m || dt != s->tr_h)) tracers_settle(s);
  if (s->tr_steps == 0) {
    int span = tracer_span(s, m, dt);
    if (span == 1) return 1;
    s->tr_m = span, s->tr_h = dt;
  }
  size_t b = 3 * s->rs * (size_t)s->n_tracer;
  if (buf_reserve(s, &s->tp0, &s->c_tp0, b, err, errlen) || buf_reserve(s, &s->tacc, &s->c_tacc, b, err, errlen) ||
      tracers_settle_move(s, 1, err, errlen))
    return -1;
  return s->tr_m;
}

/* The stages of one step, one elements' engine call each, and a tracers' call in the stages that
 * carry them (every stage, or with the tracers' own step, m > 1, those of tracer_stage_at); each kind
 * builds its tree at its first call of the step. A relaxation step relaxes the strengths after the
 * first call (its gradient) and before the first stage update. */
static int run_stages(vx_sim *s, double dt, int may_relax, double *t_eval, char *err, size_t errlen) {
  const double *w = w_euler, *c = w_euler;
  int ns = 1;
  if (s->prm.integrator == VX_RK2) { w = w_rk2; c = c_rk2; ns = 2; }
  else if (s->prm.integrator == VX_RK4) { w = w_rk4; c = c_rk4; ns = 4; }
  int m = tracer_step_begin(s, tracer_cadence(s), dt, err, errlen);
  if (m < 0) return -1;
  s->stats.tracer_span = m;
  s->state_id++; /* the stages change the particles and the gradient: a kept health reduction is stale */
  int relax_now = may_relax && s->prm.relax > 0.0 && s->prm.stretching != VX_STRETCH_NONE &&
                  s->steps % s->prm.relax_every == 0;
  vx_stage_args a;
  memset(&a, 0, sizeof a);
  a.n_elem = s->n_elem;
  a.n_tot = m > 1 ? s->n_elem : s->n_tot;
  a.pos = s->pos;
  a.alpha = s->alpha;
  a.pos0 = ns > 1 ? s->pos0 : NULL;
  a.alpha0 = ns > 1 ? s->alpha0 : NULL;
  a.acc_pos = ns > 1 ? s->accp : NULL;
  a.acc_alpha = ns > 1 ? s->acca : NULL;
  a.vel = s->vel;
  a.grad = s->grad;
  a.stretching = (int)s->prm.stretching;
  a.dt = dt;
  int built[2] = {0, 0}; /* this step's elements' / tracers' calls have built their tree */
  for (int k = 0; k < ns; ++k) {
    int j = m > 1 ? tracer_stage_at(s, k, ns) : -1, with = m == 1 || j >= 0;
    int tracer_grad = s->want_tracer_grad && (m > 1 || k == ns - 1);
    double te = now_ms();
    if (evaluate(s, with, tracer_grad, built[0] ? FMM_TREE_REUSE : FMM_TREE_BUILD_KEEP,
                 built[1] ? FMM_TREE_REUSE : FMM_TREE_BUILD_KEEP, err, errlen)) {
      char where[32];
      snprintf(where, sizeof where, "RK stage %d", k + 1);
      return step_failed(s, s->steps + 1, where, err, errlen);
    }
    built[0] = 1, built[1] |= with;
    *t_eval += now_ms() - te;
    /* the step's first call: its state at the start */
    if (k == 0 && may_relax && hand_eval(s, with ? s->n_tot : s->n_elem, err, errlen)) return -1;
    a.first = k == 0;
    a.last = k == ns - 1;
    a.w = w[k];
    a.c = c[k];
    if (k == 0 && relax_now && relax_strengths(s, err, errlen)) return -1;
    if (s->on_device) {
      if (vx_gpu_stage(s->prm.precision, &a, err, errlen)) return -1;
    } else {
      stage_cpu(&a, s->prm.precision);
    }
    if (j >= 0 && tracer_stage(s, j, err, errlen)) return -1;
  }
  if (m > 1 && ++s->tr_steps == m) s->tr_steps = s->tr_stage = 0;
  if (m > 1 && tracers_settle_move(s, 0, err, errlen)) return -1; /* to the current time */
  s->have_grad = s->prm.stretching != VX_STRETCH_NONE;
  return 0;
}

/* How many substeps the next step needs: dt·max|∇u| (last measured) over the target, rounded up. */
static int substeps_needed(const vx_sim *s) {
  if (!(s->prm.lcfl > 0.0) || !(s->max_gradu > 0.0)) return 1;
  double k = ceil(s->prm.dt * s->max_gradu / s->prm.lcfl);
  return k < 1.0 ? 1 : k > VX_SIM_MAX_SUBSTEPS ? VX_SIM_MAX_SUBSTEPS : (int)k;
}

int vx_sim_step(vx_sim *s, char *err, size_t errlen) {
  if (reserve_scratch(s, err, errlen)) return -1;
  double t0 = now_ms(), t_eval = 0.0, dt = s->prm.dt;
  memset(&s->stats, 0, sizeof s->stats);
  int ns = substeps_needed(s);
  for (int k = 0; k < ns; ++k) {
    int rc = run_stages(s, dt / ns, k == 0, &t_eval, err, errlen);
    if (rc) return rc;
    s->t += dt / ns;
    s->since_remesh += dt / ns;
    if (ns > 1 || s->prm.lcfl > 0.0) {
      double m;
      int bad;
      if (vx_sim_check(s, &m, &bad, err, errlen)) return -1; /* max|∇u| for the next substep */
    }
  }
  if (s->on_device && vx_gpu_sync(err, errlen)) return -1;
  s->steps++;
  s->steps_since_remesh++;
  if (remesh_due(s)) {
    double m;
    int bad;
    /* measure max|∇u| while the gradient still belongs to these particles (the LCFL number);
     * with substeps on, the last substep has just measured it */
    if (!(s->prm.lcfl > 0.0) && vx_sim_check(s, &m, &bad, err, errlen)) return -1;
    if (vx_sim_remesh(s, err, errlen)) return step_failed(s, s->steps, "remeshing", err, errlen);
  }
  double tw = now_ms(); /* the watch's engine call counts as evaluation time */
  if (energy_watch(s, err, errlen)) return step_failed(s, s->steps, "measuring the energy", err, errlen);
  t_eval += now_ms() - tw;
  s->stats.substeps = ns;
  s->stats.t_step = now_ms() - t0;
  s->stats.t_eval = t_eval;
  s->stats.t_remesh = s->steps_since_remesh == 0 ? s->rstats.ms : 0.0;
  s->stats.t_integrate = s->stats.t_step - t_eval - s->stats.t_remesh;
  return 0;
}

/* ------------------------------------------------------------------ remeshing */

/* Swap a simulation buffer with a remeshing output buffer. */
static void swap_buf(void **p, size_t *cap, vx_mem *b) {
  void *tp = *p;
  size_t tc = *cap;
  *p = b->p;
  *cap = b->cap;
  b->p = tp;
  b->cap = tc;
}

/* After a remeshing: the new rings on the host, the per-target arrays sized for the new count. */
static int adopt_remesh(vx_sim *s, char *err, size_t errlen) {
  s->n_elem = s->rj.n_out;
  s->n_tot = s->n_elem + s->n_tracer;
  s->field_ok = 0;
  if (s->on_device) {
    swap_buf((void **)&s->d_ring, &s->c_d_ring, &s->rj.ring_out);
    int *r = realloc(s->ring, sizeof(int) * ((size_t)s->n_elem + 1));
    if (!r) { snprintf(err, errlen, "out of host memory for the rings"); return -1; }
    s->ring = r;
    if (s->n_elem && vx_device_download(s->ring, s->d_ring, sizeof(int) * (size_t)s->n_elem, err, errlen)) return -1;
  } else {
    vx_mem rb = {s->ring, 0};
    s->ring = (int *)s->rj.ring_out.p;
    s->rj.ring_out = rb;
    vx_mem_free(&s->rj.ring_out, 0);   /* host ring arrays are not reused: sizes vary */
  }
  size_t bp = 3 * s->rs * (size_t)s->n_tot;
  return buf_reserve(s, &s->vel, &s->c_vel, bp, err, errlen) || buf_reserve(s, &s->grad, &s->c_grad, 3 * bp, err, errlen) ||
                 reserve_scratch(s, err, errlen)
             ? -1
             : 0;
}

static int engine_update(vx_sim *s, const vx_sim_params *np, char *err, size_t errlen);

/* The remeshed field's scale and radius (coarsen.h): the radius from the moments on the backend; the
 * scale (the nodes read back to the host) only when the radius allows a doubling, else 0. */
static int measure_lattice(vx_sim *s, double h, vx_lattice_field *f, char *err, size_t errlen) {
  double m[VX_MOMENTS_N];
  f->scale = 0.0;
  if (element_moments(s, m, err, errlen)) return -1;
  f->radius = vx_field_radius(m);
  if (!vx_coarsen_may(f->radius, h)) return 0;
  size_t n3 = 3 * (size_t)s->n_elem;
  double *x = malloc(sizeof(double) * 2 * (n3 ? n3 : 1));
  if (!x) { snprintf(err, errlen, "out of host memory measuring the lattice field"); return -1; }
  int rc = fetch_doubles(s, s->pos, n3, x, err, errlen) || fetch_doubles(s, s->alpha, n3, x + n3, err, errlen) ||
           vx_lattice_scale(x, x + n3, s->n_elem, h, s->prm.remesh_origin, &f->scale, err, errlen);
  free(x);
  return rc ? -1 : 0;
}

/* After a remeshing on spacing h: when the field is resolved on 2h (coarsen.h), h and σ double, the
 * blow-up rule's reference follows the strengths' density (α = ω·h³: ×8), the energy watch restarts
 * (σ changed the smoothed field's energy), and the field is remeshed onto the new lattice. */
static int coarsen_lattice(vx_sim *s, double h, char *err, size_t errlen) {
  vx_lattice_field f;
  if (measure_lattice(s, h, &f, err, errlen)) return -1;
  if (!vx_coarsen_due(&f, h, s->prm.remesh_coarsen)) return 0;
  s->rstats.scale = f.scale;
  vx_sim_params np = s->prm;
  np.sigma *= 2.0;
  if (np.remesh_h > 0.0) np.remesh_h *= 2.0;
  if (engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  s->amax0 *= 8.0;
  energy_restart(s);
  s->rstats.coarsenings++;
  return vx_sim_remesh(s, err, errlen);
}

int vx_sim_remesh(vx_sim *s, char *err, size_t errlen) {
  double t0 = now_ms(), h = lattice_h(&s->prm);
  if (!(h > 0.0)) { snprintf(err, errlen, "remeshing needs a lattice spacing (remesh_h or sigma)"); return -1; }
  if (s->n_elem == 0) return 0;
  vx_remesh_job *j = &s->rj;
  j->n_elem = s->n_elem;
  j->n_tracer = s->n_tracer;
  j->is_float = s->prm.precision == VX_FLOAT;
  j->pos = s->pos;
  j->alpha = s->alpha;
  j->ring = s->on_device ? s->d_ring : s->ring;
  j->h = h;
  for (int c = 0; c < 3; ++c) j->origin[c] = s->prm.remesh_origin[c];
  j->c2 = s->prm.viscosity * s->since_remesh / (h * h);
  if (j->c2 > VX_REMESH_C2_MAX) j->c2 = VX_REMESH_C2_MAX;
  j->drop = s->prm.remesh_drop;
  /* after the first remeshing the threshold is absolute, drop·max|α| of the start: relative to the
   * current max|α|, a local spike would raise it and strip a ring's weaker nodes, and a decaying
   * (viscous) max would keep ever more of the diffusing fringe — unless the lattice coarsens as that
   * fringe spreads (coarsen.h), when it stays relative: an absolute cut would strip the decaying field
   * and its impulse (docs/VALIDATION.md §33) */
  j->drop_abs = s->rstats.count > 0 && !(s->prm.remesh_coarsen > 0.0) ? s->prm.remesh_drop * s->amax0 : 0.0;
  /* remeshing conserves W and I to round-off (docs/MATH.md §9) except for the dropped nodes */
  double m0[VX_MOMENTS_N];
  int keep = s->prm.conserve != VX_CONSERVE_OFF && j->drop > 0.0;
  if (keep && element_moments(s, m0, err, errlen)) return -1;
  int rc = s->on_device ? vx_remesh_gpu(&s->rws, j, err, errlen) : vx_remesh_cpu(&s->rws, j, err, errlen);
  if (rc) return -1;
  int n_before = s->n_elem;
  swap_buf(&s->pos, &s->c_pos, &j->pos_out);
  swap_buf(&s->alpha, &s->c_alpha, &j->alpha_out);
  if (adopt_remesh(s, err, errlen)) return -1;
  if (keep && restore_invariants(s, m0, &s->cstats.di_drop, err, errlen)) return -1;
  s->since_remesh = 0.0;
  s->steps_since_remesh = 0;
  s->have_grad = 0;
  s->state_id++;
  vx_remesh_stats *R = &s->rstats;
  R->count++;
  R->n_before = n_before;
  R->n_nodes = j->n_nodes;
  R->n_after = j->n_out;
  R->c2 = j->c2;
  R->h = h;
  if (s->prm.remesh_coarsen > 0.0 && coarsen_lattice(s, h, err, errlen)) return -1;
  R->ms = now_ms() - t0; /* the field's measure and any coarsening's remeshing included */
  return 0;
}

/* ------------------------------------------------------------------ rings added and removed */

/* Copy bytes within backend memory. */
static int copy_backend(vx_sim *s, void *dst, const void *src, size_t bytes, char *err, size_t errlen) {
  if (bytes == 0) return 0;
  if (s->on_device) return vx_gpu_copy(dst, src, bytes, err, errlen);
  memcpy(dst, src, bytes);
  return 0;
}

/* The arrays that follow the particle count (velocity, gradient, RK scratch, device rings) after
 * it changed, and the state marked new: no gradient of these particles, no kept health. */
static int adopt_count(vx_sim *s, char *err, size_t errlen) {
  size_t bp = 3 * s->rs * (size_t)s->n_tot;
  s->have_grad = 0;
  s->state_id++;
  return buf_reserve(s, &s->vel, &s->c_vel, bp, err, errlen) || buf_reserve(s, &s->grad, &s->c_grad, 3 * bp, err, errlen) ||
                 reserve_scratch(s, err, errlen) || upload_rings(s, err, errlen)
             ? -1
             : 0;
}

/* The new positions [old elements, new elements, old tracers, new tracers] and strengths [old, new]
 * into the remeshing job's output buffers (free between remeshings), the old blocks moved within
 * backend memory, the new ones stored from the host. */
static int build_grown(vx_sim *s, int ne, int nt, const double *pos, const double *alpha, char *err, size_t errlen) {
  size_t r3 = 3 * s->rs, n0 = (size_t)s->n_elem, t0 = (size_t)s->n_tracer;
  vx_mem *P = &s->rj.pos_out, *A = &s->rj.alpha_out;
  if (vx_mem_reserve(P, r3 * (n0 + (size_t)ne + t0 + (size_t)nt), s->on_device, err, errlen) ||
      vx_mem_reserve(A, r3 * (n0 + (size_t)ne), s->on_device, err, errlen))
    return -1;
  char *p = (char *)P->p, *a = (char *)A->p;
  const char *op = (const char *)s->pos;
  return copy_backend(s, p, op, r3 * n0, err, errlen) || store_doubles(s, p + r3 * n0, pos, 3 * (size_t)ne, err, errlen) ||
                 copy_backend(s, p + r3 * (n0 + ne), op + r3 * n0, r3 * t0, err, errlen) ||
                 store_doubles(s, p + r3 * (n0 + ne + t0), pos + 3 * (size_t)ne, 3 * (size_t)nt, err, errlen) ||
                 copy_backend(s, a, s->alpha, r3 * n0, err, errlen) ||
                 store_doubles(s, a + r3 * n0, alpha, 3 * (size_t)ne, err, errlen)
             ? -1
             : 0;
}

int vx_sim_add_ring(vx_sim *s, int n_elem, int n_tracer, const double *pos, const double *alpha, char *err, size_t errlen) {
  if (n_elem <= 0 || n_tracer < 0 || (long long)s->n_tot + n_elem + n_tracer > (1LL << 30)) {
    snprintf(err, errlen, "bad ring to add (%d elements, %d tracers, to %d particles; at most 2^30 in all)", n_elem, n_tracer,
             s->n_tot);
    return -1;
  }
  tracers_settle(s); /* the new tracers start their step with the others */
  if (s->n_rings >= VX_SIM_MAX_RINGS) { snprintf(err, errlen, "too many rings (at most %d)", VX_SIM_MAX_RINGS); return -1; }
  if (s->n_added == s->c_added) {
    int c = s->c_added ? 2 * s->c_added : 8;
    vx_sim_added *na = realloc(s->added, sizeof *na * (size_t)c);
    if (!na) { snprintf(err, errlen, "out of host memory"); return -1; }
    s->added = na, s->c_added = c;
  }
  int *r = realloc(s->ring, sizeof(int) * ((size_t)s->n_elem + (size_t)n_elem + 1));
  if (!r) { snprintf(err, errlen, "out of host memory for the rings"); return -1; }
  s->ring = r;
  if (build_grown(s, n_elem, n_tracer, pos, alpha, err, errlen)) return -1;
  swap_buf(&s->pos, &s->c_pos, &s->rj.pos_out);
  swap_buf(&s->alpha, &s->c_alpha, &s->rj.alpha_out);
  for (int i = 0; i < n_elem; ++i) s->ring[s->n_elem + i] = s->n_rings;
  double a2 = 0.0; /* a simulation that started without elements takes its blow-up reference from its first ring */
  for (size_t i = 0; i < (size_t)n_elem; ++i) {
    double m = alpha[3 * i] * alpha[3 * i] + alpha[3 * i + 1] * alpha[3 * i + 1] + alpha[3 * i + 2] * alpha[3 * i + 2];
    if (m > a2) a2 = m;
  }
  if (!(s->amax0 > 0.0)) s->amax0 = sqrt(a2);
  energy_restart(s);
  s->added[s->n_added].ring = s->n_rings;
  s->added[s->n_added++].n_tracer = n_tracer;
  s->n_rings++;
  s->n_elem += n_elem;
  s->n_tracer += n_tracer;
  s->n_tot = s->n_elem + s->n_tracer;
  return adopt_count(s, err, errlen);
}

/* Rows idx[0..n) of pos (and the first ne of them of alpha) into the job's output buffers. */
static int gather_kept(vx_sim *s, const int *idx, int n, int ne, char *err, size_t errlen) {
  size_t r3 = 3 * s->rs;
  vx_mem *P = &s->rj.pos_out, *A = &s->rj.alpha_out;
  if (vx_mem_reserve(P, r3 * (size_t)n, s->on_device, err, errlen) || vx_mem_reserve(A, r3 * (size_t)ne, s->on_device, err, errlen))
    return -1;
  if (s->on_device) {
    vx_mem *D = &s->rj.ring_out; /* device ints, free between remeshings: the index list */
    if (vx_mem_reserve(D, sizeof(int) * (size_t)n, 1, err, errlen) ||
        (n && vx_device_upload(D->p, idx, sizeof(int) * (size_t)n, err, errlen)))
      return -1;
    return vx_gpu_gather(s->prm.precision, P->p, s->pos, (const int *)D->p, n, err, errlen) ||
                   vx_gpu_gather(s->prm.precision, A->p, s->alpha, (const int *)D->p, ne, err, errlen)
               ? -1
               : 0;
  }
  int f = s->prm.precision == VX_FLOAT;
  for (int i = 0; i < n; ++i) vx_gather_row(P->p, s->pos, idx, f, (size_t)i);
  for (int i = 0; i < ne; ++i) vx_gather_row(A->p, s->alpha, idx, f, (size_t)i);
  return 0;
}

int vx_sim_remove_ring(vx_sim *s, char *err, size_t errlen) {
  if (s->n_added == 0) return 1;
  vx_sim_added top = s->added[s->n_added - 1];
  int nt = s->n_tracer - top.n_tracer, ne = 0;
  int *idx = malloc(sizeof(int) * ((size_t)s->n_elem + (size_t)nt + 1));
  if (!idx) { snprintf(err, errlen, "out of host memory"); return -1; }
  for (int i = 0; i < s->n_elem; ++i)
    if (s->ring[i] != top.ring) idx[ne++] = i;
  for (int t = 0; t < nt; ++t) idx[ne + t] = s->n_elem + t;
  if (gather_kept(s, idx, ne + nt, ne, err, errlen)) { free(idx); return -1; }
  swap_buf(&s->pos, &s->c_pos, &s->rj.pos_out);
  swap_buf(&s->alpha, &s->c_alpha, &s->rj.alpha_out);
  for (int i = 0; i < ne; ++i) s->ring[i] = s->ring[idx[i]]; /* idx[i] >= i: in place */
  free(idx);
  s->n_added--;
  energy_restart(s);
  if (top.ring == s->n_rings - 1) s->n_rings--;
  s->n_elem = ne;
  s->n_tracer = nt;
  s->n_tot = ne + nt;
  return adopt_count(s, err, errlen);
}

const vx_sim_added *vx_sim_added_rings(const vx_sim *s, int *n) {
  *n = s->n_added;
  return s->added;
}

int vx_sim_set_added_rings(vx_sim *s, const vx_sim_added *a, int n, char *err, size_t errlen) {
  long long tr = 0;
  for (int i = 0; i < n; ++i) {
    tr += a[i].n_tracer;
    if (a[i].ring < 0 || a[i].ring >= s->n_rings || a[i].n_tracer < 0 || tr > s->n_tracer) {
      snprintf(err, errlen, "added ring %d (ring %d, %d tracers) does not fit this simulation", i, a[i].ring, a[i].n_tracer);
      return -1;
    }
  }
  vx_sim_added *na = n ? malloc(sizeof *na * (size_t)n) : NULL;
  if (n && !na) { snprintf(err, errlen, "out of host memory"); return -1; }
  if (n) memcpy(na, a, sizeof *na * (size_t)n);
  free(s->added);
  s->added = na;
  s->n_added = s->c_added = n;
  return 0;
}

/* ------------------------------------------------------------------ setters */

static int engine_update(vx_sim *s, const vx_sim_params *np, char *err, size_t errlen) {
  fmm_params f = engine_params(np);
  f.backend = s->prm.backend;
  return fmm_set_params(s->fmm, &f, err, errlen) || (s->fmm_e && fmm_set_params(s->fmm_e, &f, err, errlen)) ? -1 : 0;
}

int vx_sim_set_dt(vx_sim *s, double dt, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.dt = dt;
  if (check_params(&np, err, errlen)) return -1;
  s->prm.dt = dt;
  return 0;
}
int vx_sim_set_tracer_every(vx_sim *s, int m, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.tracer_every = m;
  if (check_params(&np, err, errlen)) return -1;
  s->prm.tracer_every = m;
  return 0;
}
int vx_sim_set_integrator(vx_sim *s, vx_integrator integ, char *err, size_t errlen) {
  if (integ < VX_EULER || integ > VX_RK4) { snprintf(err, errlen, "unknown integrator %d", (int)integ); return -1; }
  vx_integrator old = s->prm.integrator;
  s->prm.integrator = integ;
  if (reserve_scratch(s, err, errlen)) { s->prm.integrator = old; return -1; }
  return 0;
}
int vx_sim_set_stretching(vx_sim *s, vx_stretching st, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.stretching = st;
  if (check_params(&np, err, errlen) || engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  return 0;
}
int vx_sim_set_kernel(vx_sim *s, vx_kernel k, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.kernel = k;
  if (k < VX_KERNEL_SINGULAR || k > VX_KERNEL_GAUSS) { snprintf(err, errlen, "unknown kernel %d", (int)k); return -1; }
  if (check_params(&np, err, errlen) || engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  energy_restart(s);
  return 0;
}
int vx_sim_set_sigma(vx_sim *s, double sigma, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.sigma = sigma;
  if (!(sigma > 0.0 && isfinite(sigma))) { snprintf(err, errlen, "sigma %g must be > 0", sigma); return -1; }
  if (engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  energy_restart(s);
  return 0;
}
int vx_sim_set_order(vx_sim *s, int order, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.order = order;
  if (engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  return 0;
}
int vx_sim_set_direct(vx_sim *s, int direct) {
  s->prm.direct = direct != 0;
  return 0;
}

/* Apply a copy of the parameters that differs only in the long-run controls, when they pass. */
static int set_control(vx_sim *s, const vx_sim_params *np, char *err, size_t errlen) {
  if (check_params(np, err, errlen)) return -1;
  s->prm = *np;
  return 0;
}
int vx_sim_set_relax(vx_sim *s, double f, int every, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.relax = f;
  np.relax_every = every;
  return set_control(s, &np, err, errlen);
}
int vx_sim_set_remesh(vx_sim *s, int every, double h, double drop, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.remesh_every = every;
  np.remesh_h = h;
  np.remesh_drop = drop;
  return set_control(s, &np, err, errlen);
}
int vx_sim_set_coarsen(vx_sim *s, double ratio, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.remesh_coarsen = ratio;
  return set_control(s, &np, err, errlen);
}
int vx_sim_set_lcfl(vx_sim *s, double lcfl, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.lcfl = lcfl;
  return set_control(s, &np, err, errlen);
}
int vx_sim_set_viscosity(vx_sim *s, double nu, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.viscosity = nu;
  return set_control(s, &np, err, errlen);
}

/* ------------------------------------------------------------------ getters */

const vx_sim_params *vx_sim_params_get(const vx_sim *s) { return &s->prm; }
int vx_sim_n_elements(const vx_sim *s) { return s->n_elem; }
int vx_sim_n_tracers(const vx_sim *s) { return s->n_tracer; }
int vx_sim_n_rings(const vx_sim *s) { return s->n_rings; }
vx_conserve_stats vx_sim_conserve_stats(const vx_sim *s) { return s->cstats; }
const int *vx_sim_rings(const vx_sim *s) { return s->ring; }
double vx_sim_time(const vx_sim *s) { return s->t; }
long long vx_sim_steps_done(const vx_sim *s) { return s->steps; }
const vx_step_stats *vx_sim_last_stats(const vx_sim *s) { return &s->stats; }

int vx_sim_get_elements(vx_sim *s, double *pos, double *alpha, char *err, size_t errlen) {
  if (pos && fetch_doubles(s, s->pos, 3 * (size_t)s->n_elem, pos, err, errlen)) return -1;
  if (alpha && fetch_doubles(s, s->alpha, 3 * (size_t)s->n_elem, alpha, err, errlen)) return -1;
  return 0;
}

int vx_sim_get_tracers(vx_sim *s, double *pos, char *err, size_t errlen) {
  const char *p = (const char *)s->pos + 3 * s->rs * (size_t)s->n_elem;
  return fetch_doubles(s, p, 3 * (size_t)s->n_tracer, pos, err, errlen);
}

/* u from the elements at the elements, and with `tracers` at the tracers too, on the backend (the
 * calls of the step: each on its own tree), then copied to the host in double (elements, then
 * tracers). */
static int sim_velocity(vx_sim *s, int tracers, double *vel, char *err, size_t errlen) {
  fmm_io io;
  elements_io(s, 0, FMM_TREE_BUILD, &io);
  fmm_ctx *ctx = elements_engine(s, err, errlen);
  if (!ctx || plain_call(s, ctx, &io, NULL, err, errlen)) return -1;
  int n = s->n_elem;
  if (tracers && s->n_tracer > 0) {
    tracers_io(s, 0, FMM_TREE_BUILD, &io);
    if (plain_call(s, s->fmm, &io, NULL, err, errlen)) return -1;
    s->field_ok = 1, s->field_grad = 0;
    n = s->n_tot;
  }
  return fetch_doubles(s, s->vel, 3 * (size_t)n, vel, err, errlen);
}

void vx_sim_set_tracer_gradient(vx_sim *s, int on) { s->want_tracer_grad = on != 0; }

int vx_sim_tracer_field(vx_sim *s, int gradient, const void **vel, const void **grad, char *err, size_t errlen) {
  if (gradient && s->prm.stretching == VX_STRETCH_NONE) {
    snprintf(err, errlen, "no velocity gradient with stretching off: the engine computes none");
    return -1;
  }
  if (s->n_tracer > 0 && (!s->field_ok || (gradient && !s->field_grad)) && evaluate_tracers(s, gradient, FMM_TREE_BUILD, err, errlen)) return -1;
  size_t off = 3 * s->rs * (size_t)s->n_elem;
  if (vel) *vel = (const char *)s->vel + off;
  if (grad) *grad = s->field_grad ? (const char *)s->grad + 3 * off : NULL;
  return 0;
}

int vx_sim_element_velocity(vx_sim *s, double *vel, char *err, size_t errlen) {
  return sim_velocity(s, 0, vel, err, errlen);
}

int vx_sim_point_velocity(vx_sim *s, double *vel, char *err, size_t errlen) {
  if (s->n_elem == 0) {
    memset(vel, 0, sizeof(double) * 3 * (size_t)s->n_tot);
    return 0;
  }
  return sim_velocity(s, 1, vel, err, errlen);
}

/* The health reduction: max |α|², max |∇u|² (when the gradient is valid) and the non-finite flag. */
static int reduce_health(vx_sim *s, double *m, double *g2, int *bad, char *err, size_t errlen) {
  if (s->health_id == s->state_id) {
    *m = s->h_m2, *g2 = s->h_g2, *bad = s->h_bad;
    return 0;
  }
  const void *grad = s->have_grad ? s->grad : NULL;
  *m = *g2 = 0.0;
  *bad = 0;
  if (s->on_device) {
    if (vx_gpu_health(s->prm.precision, s->pos, s->alpha, grad, s->n_elem, s->n_tot, s->scratch, m, g2, bad, err, errlen))
      return -1;
    s->health_id = s->state_id, s->h_m2 = *m, s->h_g2 = *g2, s->h_bad = *bad;
    return 0;
  }
  int n = s->n_tot, ne = s->n_elem, b = 0;
  double mm = 0.0, gg = 0.0;
  if (s->prm.precision == VX_FLOAT) {
    const float *p = (const float *)s->pos, *a = (const float *)s->alpha, *g = (const float *)grad;
#pragma omp parallel for schedule(static) reduction(max : mm, gg) reduction(| : b)
    for (int t = 0; t < n; ++t) {
      double a2 = vx_health_target_f(p, a, g, ne, t, &b, &gg);
      if (a2 > mm) mm = a2;
    }
  } else {
    const double *p = (const double *)s->pos, *a = (const double *)s->alpha, *g = (const double *)grad;
#pragma omp parallel for schedule(static) reduction(max : mm, gg) reduction(| : b)
    for (int t = 0; t < n; ++t) {
      double a2 = vx_health_target_d(p, a, g, ne, t, &b, &gg);
      if (a2 > mm) mm = a2;
    }
  }
  *m = mm;
  *g2 = gg;
  *bad = b;
  s->health_id = s->state_id, s->h_m2 = mm, s->h_g2 = gg, s->h_bad = b;
  return 0;
}

int vx_sim_check(vx_sim *s, double *max_alpha, int *nonfinite, char *err, size_t errlen) {
  double m, g2;
  if (reduce_health(s, &m, &g2, nonfinite, err, errlen)) return -1;
  *max_alpha = sqrt(m);
  if (s->have_grad) s->max_gradu = sqrt(g2);
  return 0;
}

int vx_sim_health(vx_sim *s, vx_health *h, char *err, size_t errlen) {
  memset(h, 0, sizeof *h);
  if (vx_sim_check(s, &h->max_alpha, &h->nonfinite, err, errlen)) return -1;
  h->alpha0 = s->amax0;
  h->max_gradu = s->max_gradu;
  h->lcfl = s->prm.dt * s->max_gradu;
  h->energy = s->e_ok ? s->e_last : NAN;
  h->energy0 = s->e_ok ? s->e0 : NAN;
  h->energy_min = s->e_ok ? s->e_min : NAN;
  int grew = h->max_alpha > VX_SIM_BLOWUP_FACTOR * s->amax0;
  int gained = s->e_ok && s->e0 > 0.0 && s->e_last - s->e_min > VX_SIM_ENERGY_RISE * s->e0;
  h->blown_up = h->nonfinite || grew || gained;
  if (!h->blown_up) return 0;
  if (h->nonfinite)
    snprintf(err, errlen, "simulation blew up at step %lld (t=%g): NaN or Inf in the particle state", s->steps, s->t);
  else if (grew)
    snprintf(err, errlen, "simulation blew up at step %lld (t=%g): max|alpha| = %g exceeds %g times its initial value %g",
             s->steps, s->t, h->max_alpha, VX_SIM_BLOWUP_FACTOR, s->amax0);
  else
    snprintf(err, errlen,
             "simulation broke down at step %lld (t=%g): its energy rose to %.4g, %.1f %% of its reference %.4g above its "
             "lowest %.4g (an unforced flow cannot gain energy; max|alpha| x%.3g)",
             s->steps, s->t, s->e_last, 100.0 * (s->e_last - s->e_min) / s->e0, s->e0, s->e_min, h->max_alpha / s->amax0);
  return VX_SIM_BLOWUP;
}

void vx_control_rates_for_dt(double dt, double dt_new, double *relax, int *remesh_every) {
  if (!(dt > 0.0 && dt_new > 0.0 && isfinite(dt) && isfinite(dt_new))) return;
  const double r = dt_new / dt;
  if (*relax > 0.0 && *relax < 1.0) *relax = 1.0 - pow(1.0 - *relax, r);
  if (*remesh_every > 0) {
    const double k = round(*remesh_every / r);
    *remesh_every = k < 1.0 ? 1 : k > (double)INT_MAX ? INT_MAX : (int)k;
  }
}

int vx_sim_dt_advice(vx_sim *s, double dt, char *msg, size_t msglen) {
  vx_health h;
  int rc = vx_sim_health(s, &h, msg, msglen);
  if (rc < 0) return -1;
  msg[0] = 0;
  double lcfl = dt * h.max_gradu, hh = lattice_h(&s->prm), nu = s->prm.viscosity;
  double lim = s->prm.lcfl > 0.0 ? VX_SIM_MAX_SUBSTEPS * s->prm.lcfl : VX_SIM_LCFL_MAX;
  if (h.max_gradu > 0.0 && s->prm.lcfl > 0.0 && lcfl > lim) {
    snprintf(msg, msglen, "dt = %g is too large for this flow: it needs over %d substeps (dt*max|grad u| = %.3g); use dt <= %.3g",
             dt, VX_SIM_MAX_SUBSTEPS, lcfl, lim / h.max_gradu);
    return 1;
  }
  if (h.max_gradu > 0.0 && s->prm.lcfl <= 0.0 && lcfl > VX_SIM_LCFL_MAX) {
    snprintf(msg, msglen, "dt = %g is too large for this flow: dt*max|grad u| = %.2f > %.1f, expect a blow-up; use dt <= %.3g",
             dt, lcfl, VX_SIM_LCFL_MAX, VX_SIM_LCFL_MAX / h.max_gradu);
    return 1;
  }
  if (nu > 0.0 && hh > 0.0 && nu * dt / (hh * hh) > VX_REMESH_C2_MAX) {
    snprintf(msg, msglen, "dt = %g is too large for viscosity %g on lattice spacing %g: use dt <= %.3g", dt, nu, hh,
             VX_REMESH_C2_MAX * hh * hh / nu);
    return 1;
  }
  return 0;
}

const vx_remesh_stats *vx_sim_remesh_stats(const vx_sim *s) { return &s->rstats; }

fmm_ctx *vx_sim_engine(vx_sim *s) { return s->fmm; }

void vx_sim_forget_level_choice(vx_sim *s) {
  fmm_forget_level_choice(s->fmm);
  if (s->fmm_e) fmm_forget_level_choice(s->fmm_e);
}

const void *vx_sim_positions_raw(const vx_sim *s, int *on_device) {
  if (on_device) *on_device = s->on_device;
  return s->pos;
}
const void *vx_sim_strengths_raw(const vx_sim *s, int *on_device) {
  if (on_device) *on_device = s->on_device;
  return s->alpha;
}
