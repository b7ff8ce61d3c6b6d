/* sim.c — the vortex-particle simulation (sim.h): state in backend memory, the right-hand side
 * from one engine call per stage, the Runge–Kutta stages (CPU loop here, CUDA kernels in
 * sim_gpu.cu, both around stage_t.h), the blow-up check and the host getters. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
int vx_gpu_health(vx_precision prec, const void *pos, const void *alpha, int n_elem, int n_tot, void *d_scratch,
                  double *max_a2, int *bad, char *err, size_t errlen) {
  (void)prec; (void)pos; (void)alpha; (void)n_elem; (void)n_tot; (void)d_scratch; (void)max_a2; (void)bad;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
#endif

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ memory */

static void buf_free(const vx_sim *s, void **p, size_t *cap) {
  if (*p) {
    if (s->on_device) vx_device_free(*p);
    else free(*p);
  }
  *p = NULL;
  *cap = 0;
}

/* Grow a backend buffer to at least bytes (contents not kept). Called at creation and when the
 * integrator first needs its scratch arrays, never per step once sized. */
static int buf_reserve(vx_sim *s, void **p, size_t *cap, size_t bytes, char *err, size_t errlen) {
  if (*p && *cap >= bytes) return 0;
  buf_free(s, p, cap);
  if (bytes == 0) bytes = 1;
  if (s->on_device) {
    if (vx_device_alloc(p, bytes, err, errlen)) return -1;
  } else {
    *p = malloc(bytes);
    if (!*p) { snprintf(err, errlen, "out of memory (%zu bytes of particle arrays)", bytes); return -1; }
  }
  *cap = bytes;
  return 0;
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
  return p;
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
  return 0;
}

static fmm_params engine_params(const vx_sim_params *p) {
  fmm_params f = fmm_params_default();
  f.backend = p->backend;
  f.precision = p->precision;
  f.order = p->order;
  f.leaf_size = p->leaf_size > 0 ? p->leaf_size : 64;
  f.kernel = p->kernel;
  f.sigma = p->sigma;
  f.gradient = p->stretching != VX_STRETCH_NONE;
  f.verbose = p->verbose;
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
  fmm_destroy(s->fmm);
  free(s->ring);
  free(s->host);
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

vx_sim *vx_sim_create_from(const vx_sim_params *prm, int n_elem, int n_tracer, const double *pos, const double *alpha,
                           const int *ring, char *err, size_t errlen) {
  if (check_params(prm, err, errlen)) return NULL;
  if (n_elem < 0 || n_tracer < 0 || (long long)n_elem + n_tracer > (1LL << 30)) {
    snprintf(err, errlen, "bad particle counts (%d elements, %d tracers)", n_elem, n_tracer);
    return NULL;
  }
  vx_sim *s = calloc(1, sizeof *s);
  if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
  s->prm = *prm;
  fmm_params fp = engine_params(prm);
  s->fmm = fmm_create(&fp, err, errlen);
  if (!s->fmm) { free(s); return NULL; }
  s->prm.backend = fmm_get_params(s->fmm)->backend;
  s->on_device = s->prm.backend == VX_BACKEND_CUDA;
  s->rs = prm->precision == VX_FLOAT ? sizeof(float) : sizeof(double);
  s->n_elem = n_elem;
  s->n_tracer = n_tracer;
  s->n_tot = n_elem + n_tracer;
  s->ring = malloc(sizeof(int) * (size_t)n_elem + 1);
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
      (s->on_device && buf_reserve(s, &s->scratch, &s->c_scratch, 16, err, errlen)) ||
      store_doubles(s, s->pos, pos, 3 * (size_t)s->n_tot, err, errlen) ||
      store_doubles(s, s->alpha, alpha, 3 * (size_t)n_elem, err, errlen)) {
    vx_sim_destroy(s);
    return NULL;
  }
  return s;
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

/* One engine call at the current state y: velocity at [elements, tracers], gradient too unless
 * stretching is off. */
static int evaluate(vx_sim *s, char *err, size_t errlen) {
  fmm_io io;
  memset(&io, 0, sizeof io);
  io.n_src = s->n_elem;
  io.src_pos = s->pos;
  io.src_str = s->alpha;
  io.n_tgt = s->n_tot;
  io.tgt_pos = s->pos;
  io.vel = s->vel;
  io.grad = s->prm.stretching == VX_STRETCH_NONE ? NULL : s->grad;
  io.on_device = s->on_device;
  io.n_grad = s->n_elem; /* tracers are passive: velocity only */
  fmm_stats st;
  memset(&st, 0, sizeof st);
  int rc = s->prm.direct ? fmm_direct(s->fmm, &io, &st, err, errlen) : fmm_evaluate(s->fmm, &io, &st, err, errlen);
  if (rc) return -1;
  vx_step_stats *S = &s->stats;
  S->t_tree += st.t_tree;
  S->t_far += st.t_p2m + st.t_m2m + st.t_m2l + st.t_l2l + st.t_l2p;
  S->t_near += st.t_p2p;
  S->evaluations++;
  S->levels = st.levels;
  fmm_stats *E = &S->engine;
  E->t_tree += st.t_tree, E->t_p2m += st.t_p2m, E->t_m2m += st.t_m2m, E->t_m2l += st.t_m2l;
  E->t_l2l += st.t_l2l, E->t_l2p += st.t_l2p, E->t_p2p += st.t_p2p, E->t_total += st.t_total, E->t_copy += st.t_copy;
  E->n_m2l += st.n_m2l, E->n_p2p += st.n_p2p;
  E->levels = st.levels, E->level_capped = st.level_capped;
  E->n_src_leaves = st.n_src_leaves, E->n_tgt_leaves = st.n_tgt_leaves;
  return 0;
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

int vx_sim_step(vx_sim *s, char *err, size_t errlen) {
  /* Butcher weights (w) and next-stage nodes (c) of the low-storage form in stage.h */
  static const double w_euler[1] = {1.0}, w_rk2[2] = {0.5, 0.5}, w_rk4[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  static const double c_rk2[2] = {1.0, 0.0}, c_rk4[4] = {0.5, 0.5, 1.0, 0.0};
  const double *w = w_euler, *c = w_euler;
  int ns = 1;
  if (s->prm.integrator == VX_RK2) { w = w_rk2; c = c_rk2; ns = 2; }
  else if (s->prm.integrator == VX_RK4) { w = w_rk4; c = c_rk4; ns = 4; }
  if (reserve_scratch(s, err, errlen)) return -1;

  double t0 = now_ms();
  memset(&s->stats, 0, sizeof s->stats);
  double t_eval = 0.0;
  vx_stage_args a;
  memset(&a, 0, sizeof a);
  a.n_elem = s->n_elem;
  a.n_tot = s->n_tot;
  a.pos = s->pos;
  a.alpha = s->alpha;
  a.pos0 = ns > 1 ? s->pos0 : NULL;
  a.alpha0 = ns > 1 ? s->alpha0 : NULL;
  a.acc_pos = ns > 1 ? s->accp : NULL;
  a.acc_alpha = ns > 1 ? s->acca : NULL;
  a.vel = s->vel;
  a.grad = s->grad;
  a.stretching = (int)s->prm.stretching;
  a.dt = s->prm.dt;
  for (int k = 0; k < ns; ++k) {
    double te = now_ms();
    if (evaluate(s, err, errlen)) return -1;
    t_eval += now_ms() - te;
    a.first = k == 0;
    a.last = k == ns - 1;
    a.w = w[k];
    a.c = c[k];
    if (s->on_device) {
      if (vx_gpu_stage(s->prm.precision, &a, err, errlen)) return -1;
    } else {
      stage_cpu(&a, s->prm.precision);
    }
  }
  if (s->on_device && vx_gpu_sync(err, errlen)) return -1;
  s->t += s->prm.dt;
  s->steps++;
  s->stats.t_step = now_ms() - t0;
  s->stats.t_eval = t_eval;
  s->stats.t_integrate = s->stats.t_step - t_eval;
  return 0;
}

/* ------------------------------------------------------------------ setters */

static int engine_update(vx_sim *s, const vx_sim_params *np, char *err, size_t errlen) {
  fmm_params f = engine_params(np);
  f.backend = s->prm.backend;
  return fmm_set_params(s->fmm, &f, err, errlen);
}

int vx_sim_set_dt(vx_sim *s, double dt, char *err, size_t errlen) {
  if (!(dt > 0.0 && isfinite(dt))) { snprintf(err, errlen, "time step dt %g must be > 0", dt); return -1; }
  s->prm.dt = dt;
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
  return 0;
}
int vx_sim_set_sigma(vx_sim *s, double sigma, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.sigma = sigma;
  if (!(sigma > 0.0 && isfinite(sigma))) { snprintf(err, errlen, "sigma %g must be > 0", sigma); return -1; }
  if (engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
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

/* ------------------------------------------------------------------ getters */

const vx_sim_params *vx_sim_params_get(const vx_sim *s) { return &s->prm; }
int vx_sim_n_elements(const vx_sim *s) { return s->n_elem; }
int vx_sim_n_tracers(const vx_sim *s) { return s->n_tracer; }
int vx_sim_n_rings(const vx_sim *s) { return s->n_rings; }
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

int vx_sim_element_velocity(vx_sim *s, double *vel, char *err, size_t errlen) {
  fmm_io io;
  memset(&io, 0, sizeof io);
  io.n_src = s->n_elem;
  io.src_pos = s->pos;
  io.src_str = s->alpha;
  io.n_tgt = s->n_elem;
  io.tgt_pos = s->pos;
  io.vel = s->vel;
  io.grad = NULL;
  io.on_device = s->on_device;
  int rc = s->prm.direct ? fmm_direct(s->fmm, &io, NULL, err, errlen) : fmm_evaluate(s->fmm, &io, NULL, err, errlen);
  if (rc) return -1;
  return fetch_doubles(s, s->vel, 3 * (size_t)s->n_elem, vel, err, errlen);
}

int vx_sim_check(vx_sim *s, double *max_alpha, int *nonfinite, char *err, size_t errlen) {
  double m = 0.0;
  int bad = 0;
  if (s->on_device) {
    if (vx_gpu_health(s->prm.precision, s->pos, s->alpha, s->n_elem, s->n_tot, s->scratch, &m, &bad, err, errlen))
      return -1;
  } else {
    int n = s->n_tot, ne = s->n_elem;
    if (s->prm.precision == VX_FLOAT) {
      const float *p = (const float *)s->pos, *a = (const float *)s->alpha;
#pragma omp parallel for schedule(static) reduction(max : m) reduction(| : bad)
      for (int t = 0; t < n; ++t) {
        double a2 = vx_health_target_f(p, a, ne, t, &bad);
        if (a2 > m) m = a2;
      }
    } else {
      const double *p = (const double *)s->pos, *a = (const double *)s->alpha;
#pragma omp parallel for schedule(static) reduction(max : m) reduction(| : bad)
      for (int t = 0; t < n; ++t) {
        double a2 = vx_health_target_d(p, a, ne, t, &bad);
        if (a2 > m) m = a2;
      }
    }
  }
  *max_alpha = sqrt(m);
  *nonfinite = bad;
  return 0;
}

fmm_ctx *vx_sim_engine(vx_sim *s) { return s->fmm; }

const void *vx_sim_positions_raw(const vx_sim *s, int *on_device) {
  if (on_device) *on_device = s->on_device;
  return s->pos;
}
const void *vx_sim_strengths_raw(const vx_sim *s, int *on_device) {
  if (on_device) *on_device = s->on_device;
  return s->alpha;
}
