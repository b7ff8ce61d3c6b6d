/* sim.c — the vortex-particle simulation (sim.h): creation from a scene, from particles or from a
 * saved state, destruction, the backend memory its arrays live in, and the plain getters. The step
 * is in sim_step.c; sim_internal.h lists the other pieces. In a build without CUDA this file also
 * supplies the CUDA half (sim_gpu.h, remesh.h) as calls that report the backend unavailable. */
#define _POSIX_C_SOURCE 200809L

#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_gpu.h"

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
int vx_gpu_energy_kernel(vx_precision prec, const void *pos, const void *alpha, int n, vx_kernel k, double sigma, double *e,
                         void **d_scratch, size_t *cap, char *err, size_t errlen) {
  (void)prec; (void)pos; (void)alpha; (void)n; (void)k; (void)sigma; (void)e; (void)d_scratch; (void)cap;
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
int vx_gpu_ring_tracers(vx_precision prec, const vx_tracer_source *q, uint64_t st, void *d_out, void **d_scratch, size_t *cap,
                        char *err, size_t errlen) {
  (void)prec; (void)q; (void)st; (void)d_out; (void)d_scratch; (void)cap;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
#endif

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
int sim_buf_reserve(vx_sim *s, void **p, size_t *cap, size_t bytes, char *err, size_t errlen) {
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
int sim_fetch_doubles(vx_sim *s, const void *src, size_t n, double *dst, char *err, size_t errlen) {
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
int sim_store_doubles(vx_sim *s, void *dst, const double *src, size_t n, char *err, size_t errlen) {
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

/* Swap a simulation buffer with a remeshing output buffer. */
void sim_swap_buf(void **p, size_t *cap, vx_mem *b) {
  void *tp = *p;
  size_t tc = *cap;
  *p = b->p;
  *cap = b->cap;
  b->p = tp;
  b->cap = tc;
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
  vx_mem_free(&s->rj.top_out, 0);
  vx_reproject_ws_free(&s->rpw, s->on_device);
  if (s->on_device) vx_remesh_ws_free_gpu(s->rws);
  else vx_remesh_ws_free_cpu(s->rws);
  vx_remesh_ws_free_cpu(s->rws_part);
  buf_free(s, &s->tp0, &s->c_tp0);
  buf_free(s, &s->tacc, &s->c_tacc);
  buf_free(s, &s->fil_pos, &s->c_fil_pos);
  buf_free(s, &s->fil_alpha, &s->c_fil_alpha);
  buf_free(s, &s->fil_scratch, &s->c_fil_scratch);
  buf_free(s, &s->draw_scratch, &s->c_draw_scratch);
  buf_free(s, &s->energy_scratch, &s->c_energy_scratch);
  fmm_destroy(s->fmm);
  fmm_destroy(s->fmm_e);
  free(s->ring);
  free(s->host);
  free(s->added);
  free(s->dye_rows);
  free(s->tr_place);
  free(s);
}

/* The RK scratch arrays (y0, acc) for the integrator in use; Euler needs none. */
int sim_reserve_scratch(vx_sim *s, char *err, size_t errlen) {
  if (s->prm.integrator == VX_EULER) return 0;
  size_t bp = 3 * s->rs * (size_t)s->n_tot, ba = 3 * s->rs * (size_t)s->n_elem;
  if (sim_buf_reserve(s, &s->pos0, &s->c_pos0, bp, err, errlen) || sim_buf_reserve(s, &s->alpha0, &s->c_alpha0, ba, err, errlen) ||
      sim_buf_reserve(s, &s->accp, &s->c_accp, bp, err, errlen) || sim_buf_reserve(s, &s->acca, &s->c_acca, ba, err, errlen))
    return -1;
  return 0;
}

/* cuda: the host ring array mirrored on the device (remeshing reads it there). */
int sim_upload_rings(vx_sim *s, char *err, size_t errlen) {
  if (!s->on_device) return 0;
  size_t b = sizeof(int) * ((size_t)s->n_elem + 1);
  if (sim_buf_reserve(s, (void **)&s->d_ring, &s->c_d_ring, b, err, errlen)) return -1;
  return s->n_elem ? vx_device_upload(s->d_ring, s->ring, sizeof(int) * (size_t)s->n_elem, err, errlen) : 0;
}

/* The energy watch takes a new reference at its first measurement from `after` time units on (the
 * energy jumped, or was never measured). */
void sim_energy_restart(vx_sim *s, double after) {
  s->e_ok = 0;
  s->t_energy = s->t + after;
}

/* The simulation around given particles (host doubles, copied): engine, backend arrays, rings.
 * No remeshing and no blow-up reference yet: the two ways of starting differ there. */
static vx_sim *sim_alloc(const vx_sim_params *prm, int n_elem, int n_tracer, const double *pos, const double *alpha,
                         const int *ring, char *err, size_t errlen) {
  if (sim_check_params(prm, err, errlen)) return NULL;
  if (n_elem < 0 || n_tracer < 0 || (long long)n_elem + n_tracer > (1LL << 30)) {
    snprintf(err, errlen, "bad particle counts (%d elements, %d tracers)", n_elem, n_tracer);
    return NULL;
  }
  vx_sim *s = calloc(1, sizeof *s);
  if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
  s->prm = *prm;
  s->health_id = -1; /* no health reduction kept yet */
  fmm_params fp = sim_engine_params(prm);
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
  if (sim_buf_reserve(s, &s->pos, &s->c_pos, bp, err, errlen) || sim_buf_reserve(s, &s->alpha, &s->c_alpha, ba, err, errlen) ||
      sim_buf_reserve(s, &s->vel, &s->c_vel, bp, err, errlen) ||
      sim_buf_reserve(s, &s->grad, &s->c_grad, 3 * bp, err, errlen) || sim_reserve_scratch(s, err, errlen) ||
      (s->on_device && sim_buf_reserve(s, &s->scratch, &s->c_scratch, 32, err, errlen)) ||
      sim_store_doubles(s, s->pos, pos, 3 * (size_t)s->n_tot, err, errlen) ||
      sim_store_doubles(s, s->alpha, alpha, 3 * (size_t)n_elem, err, errlen) || sim_upload_rings(s, err, errlen)) {
    vx_sim_destroy(s);
    return NULL;
  }
  return s;
}

vx_sim *vx_sim_create_from(const vx_sim_params *prm, int n_elem, int n_tracer, const double *pos, const double *alpha,
                           const int *ring, char *err, size_t errlen) {
  vx_sim *s = sim_alloc(prm, n_elem, n_tracer, pos, alpha, ring, err, errlen);
  if (s && (((s->prm.remesh_every > 0 && n_elem > 0 && vx_sim_remesh(s, err, errlen)) || sim_start_health(s, err, errlen)))) {
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
  sim_energy_restart(s, 0.0); /* the checkpoint keeps no energy: the watch starts again here */
  s->max_gradu = st->max_gradu; /* have_grad stays 0: no gradient of these particles yet, keep the measured value */
  s->rstats = st->remesh;
  if (sim_restore_tracer_step(s, st, err, errlen) || sim_dye_set(s, &st->dye, err, errlen)) {
    vx_sim_destroy(s);
    return NULL;
  }
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
  st->dye = s->dye;
  return 0;
}

vx_sim *vx_sim_create(const vx_sim_params *prm, const vx_scene *scene, char *err, size_t errlen) {
  vx_particles P;
  if (vx_particles_generate(scene, prm->tracers, &P, err, errlen)) return NULL;
  vx_sim_params p = *prm;
  if (!(p.sigma > 0.0)) p.sigma = vx_scene_sigma(scene, P.spacing);
  vx_sim *s = vx_sim_create_from(&p, P.n_elem, P.n_tracer, P.pos, P.alpha, P.ring, err, errlen);
  if (s) {
    s->n_rings = scene->n_rings;
    s->dye.seed = scene->seed; /* where the tracers just seeded are seeded again (sim_dye.c) */
    s->dye.n_rings = vx_tracer_sources(scene, prm->tracers, s->dye.ring);
  }
  vx_particles_free(&P);
  return s;
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
  if (pos && sim_fetch_doubles(s, s->pos, 3 * (size_t)s->n_elem, pos, err, errlen)) return -1;
  if (alpha && sim_fetch_doubles(s, s->alpha, 3 * (size_t)s->n_elem, alpha, err, errlen)) return -1;
  return 0;
}

int vx_sim_get_tracers(vx_sim *s, double *pos, char *err, size_t errlen) {
  const char *p = (const char *)s->pos + 3 * s->rs * (size_t)s->n_elem;
  return sim_fetch_doubles(s, p, 3 * (size_t)s->n_tracer, pos, err, errlen);
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
