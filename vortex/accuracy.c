/* accuracy.c — the live accuracy readout (accuracy.h): the sample, the capture, the cpu worker
 * thread (the direct sum off the step's path) and the figure. The CUDA half is accuracy_gpu.cu;
 * the per-element math of both is accuracy_math.h. */
#define _POSIX_C_SOURCE 200809L /* pthreads */

#include "accuracy.h"
#include "clock.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accuracy_gpu.h"
#include "accuracy_math.h"

#ifndef VX_HAVE_CUDA
/* CPU-only build: a cuda simulation never exists (fmm_create refuses the backend). */
int vx_acc_gpu_start(vx_acc_gpu **g, const vx_sim_eval *e, const int *idx, int k, int k_g, char *err, size_t errlen) {
  (void)g; (void)e; (void)idx; (void)k; (void)k_g;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_acc_gpu_finish(vx_acc_gpu *g, int wait, const double **eng, const double **ref, double *ms_snap, double *ms_direct,
                      char *err, size_t errlen) {
  (void)g; (void)wait; (void)eng; (void)ref; (void)ms_snap; (void)ms_direct;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
void vx_acc_gpu_free(vx_acc_gpu *g) { (void)g; }
#endif

enum { ACC_IDLE = 0, ACC_CPU = 1, ACC_GPU = 2 };

struct vx_accuracy {
  int n_sample;
  uint64_t seed;
  long long n_captures;
  int state;                 /* ACC_IDLE, or where the capture in flight runs */
  int *idx;                  /* the sample: k particle indices, elements first */
  int k, k_g;
  /* cpu: the snapshot the worker reads (nothing else is shared with it) and what it writes */
  double *src, *tgt, *eng, *part, *ref;
  size_t c_src;
  int n_src, kernel;
  double sigma;
  pthread_t worker;
  atomic_int done;           /* set by the worker (release) after ref and ms_direct are written */
  double ms_direct;
  vx_acc_gpu *gpu;
  vx_acc_result pend;        /* the capture's facts, completed by vx_acc_poll */
  const double *r_eng, *r_ref; /* the last figure's arrays (vx_acc_last_arrays) */
};

static double now_s(void) { return 1e-3 * vx_clock_ms(); }

/* splitmix64 (Steele, Lea & Flood 2014): one well-mixed 64-bit value per counter. */
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

vx_accuracy *vx_acc_create(int n_sample, uint64_t seed, char *err, size_t errlen) {
  if (n_sample < 1 || n_sample > (1 << 20)) {
    snprintf(err, errlen, "accuracy sample size %d must be in 1..%d", n_sample, 1 << 20);
    return NULL;
  }
  vx_accuracy *a = calloc(1, sizeof *a);
  size_t k = (size_t)n_sample, nch = 64;
  if (a) {
    a->idx = malloc(sizeof(int) * k);
    a->tgt = malloc(sizeof(double) * 3 * k);
    a->eng = malloc(sizeof(double) * 12 * k);
    a->ref = malloc(sizeof(double) * 12 * k);
    a->part = malloc(sizeof(double) * 12 * k * nch);
  }
  if (!a || !a->idx || !a->tgt || !a->eng || !a->ref || !a->part) {
    vx_acc_destroy(a);
    snprintf(err, errlen, "out of host memory for the accuracy readout");
    return NULL;
  }
  a->n_sample = n_sample;
  a->seed = seed;
  atomic_init(&a->done, 0);
  return a;
}

/* Wait for the capture in flight, if any, and drop it. */
static void settle(vx_accuracy *a) {
  if (a->state == ACC_CPU) pthread_join(a->worker, NULL);
  a->state = ACC_IDLE;
}

void vx_acc_destroy(vx_accuracy *a) {
  if (!a) return;
  settle(a);
  vx_acc_gpu_free(a->gpu);
  free(a->idx), free(a->tgt), free(a->eng), free(a->ref), free(a->part), free(a->src);
  free(a);
}

int vx_acc_busy(const vx_accuracy *a) { return a->state != ACC_IDLE; }

/* The sample of this capture: up to half tracers, the rest elements (more of either when the other
 * runs short), drawn uniformly with replacement; elements first. */
static void draw_sample(vx_accuracy *a, int n_elem, int n_tracer) {
  int k_t = n_tracer < a->n_sample / 2 ? n_tracer : a->n_sample / 2;
  int k_e = n_elem < a->n_sample - k_t ? n_elem : a->n_sample - k_t;
  if (k_t < a->n_sample - k_e) k_t = n_tracer < a->n_sample - k_e ? n_tracer : a->n_sample - k_e;
  uint64_t base = mix64(a->seed) ^ (uint64_t)a->n_captures * 0xd1342543de82ef95ull;
  for (int t = 0; t < k_e + k_t; ++t) {
    uint64_t r = mix64(base + (uint64_t)t);
    int lo = t < k_e ? 0 : n_elem, n = t < k_e ? n_elem : n_tracer;
    a->idx[t] = lo + (int)((r >> 11) * 0x1.0p-53 * n);
  }
  a->k = k_e + k_t;
  a->k_g = k_e;
}

void vx_acc_direct_cpu(int kernel, double sigma, int n_src, const double *src, int k, int k_g, const double *tgt,
                       double *part, double *ref) {
  int nch = vx_acc_chunks(n_src);
  for (int c = 0; c < nch; ++c) {
    int j0, j1;
    vx_acc_chunk_range(n_src, nch, c, &j0, &j1);
    for (int t = 0; t < k; ++t)
      vx_acc_partial(kernel, sigma, src, j0, j1, tgt + 3 * (size_t)t, t < k_g, part + ((size_t)c * k + t) * 12);
  }
  for (int t = 0; t < k; ++t)
    for (int q = 0; q < 12; ++q) ref[12 * (size_t)t + q] = vx_acc_reduce(part, k, nch, t, q);
}

static void *worker_main(void *arg) {
  vx_accuracy *a = (vx_accuracy *)arg;
  double t0 = now_s();
  vx_acc_direct_cpu(a->kernel, a->sigma, a->n_src, a->src, a->k, a->k_g, a->tgt, a->part, a->ref);
  a->ms_direct = 1e3 * (now_s() - t0);
  atomic_store_explicit(&a->done, 1, memory_order_release);
  return NULL;
}

/* cpu: the snapshot into the readout's own arrays, then the worker. */
static int capture_cpu(vx_accuracy *a, const vx_sim_eval *e, char *err, size_t errlen) {
  int is_float = e->precision == VX_FLOAT;
  if (a->c_src < (size_t)e->n_elem) {
    free(a->src);
    a->src = malloc(sizeof(double) * 6 * ((size_t)e->n_elem + 1));
    a->c_src = a->src ? (size_t)e->n_elem : 0;
    if (!a->src) { snprintf(err, errlen, "out of host memory for the accuracy snapshot"); return -1; }
  }
  for (int j = 0; j < e->n_elem; ++j) vx_acc_snap_src(e->pos, e->alpha, is_float, j, a->src);
  for (int t = 0; t < a->k; ++t) vx_acc_snap_tgt(e->pos, e->vel, e->grad, is_float, t, a->idx[t], a->k_g, a->tgt, a->eng);
  a->n_src = e->n_elem;
  a->kernel = (int)e->kernel;
  a->sigma = e->sigma;
  atomic_store_explicit(&a->done, 0, memory_order_relaxed);
  if (pthread_create(&a->worker, NULL, worker_main, a)) {
    snprintf(err, errlen, "cannot start the accuracy readout's worker thread");
    return -1;
  }
  a->state = ACC_CPU;
  return 0;
}

int vx_acc_capture(vx_accuracy *a, const vx_sim_eval *e, char *err, size_t errlen) {
  if (a->state != ACC_IDLE) return 1;
  if (e->n_elem <= 0 || e->n_tot <= 0) return 1; /* no sources: nothing to measure */
  double t0 = now_s();
  draw_sample(a, e->n_elem, e->n_tot - e->n_elem);
  if (!e->grad) a->k_g = 0;
  a->n_captures++;
  memset(&a->pend, 0, sizeof a->pend);
  a->pend.step = e->step;
  a->pend.t = e->t;
  a->pend.captured_s = t0;
  if (e->on_device) {
    if (vx_acc_gpu_start(&a->gpu, e, a->idx, a->k, a->k_g, err, errlen)) return -1;
    a->state = ACC_GPU;
  } else if (capture_cpu(a, e, err, errlen)) {
    return -1;
  }
  a->pend.ms_capture = 1e3 * (now_s() - t0);
  return 0;
}

static int capture_hook(void *user, const vx_sim_eval *e, char *err, size_t errlen) {
  return vx_acc_capture((vx_accuracy *)user, e, err, errlen) < 0 ? -1 : 0;
}

int vx_acc_request(vx_accuracy *a, vx_sim *s) {
  if (a->state != ACC_IDLE) return 1;
  vx_sim_watch_next_eval(s, capture_hook, a);
  return 0;
}

/* 99th percentile by nearest rank of v[0..n) (sorts v). */
static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}
static double p99(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  int r = (int)ceil(0.99 * n) - 1;
  return v[r < 0 ? 0 : r];
}

/* err_l2 and err_p99 of components [q0, q0 + nq) of the first n samples (definitions: accuracy.h). */
static void stats_of(const double *eng, const double *ref, int n, int q0, int nq, double *l2, double *pp) {
  if (n <= 0) { *l2 = *pp = NAN; return; }
  double *e = malloc(sizeof(double) * (size_t)n), num = 0.0, den = 0.0;
  for (int t = 0; t < n; ++t) {
    double d2 = 0.0, r2 = 0.0;
    for (int q = q0; q < q0 + nq; ++q) {
      double d = eng[12 * (size_t)t + q] - ref[12 * (size_t)t + q];
      d2 += d * d;
      r2 += ref[12 * (size_t)t + q] * ref[12 * (size_t)t + q];
    }
    num += d2, den += r2;
    if (e) e[t] = sqrt(d2);
  }
  double rms = sqrt(den / n);
  *l2 = den > 0.0 ? sqrt(num / den) : (num == 0.0 ? 0.0 : INFINITY);
  if (!e) { *pp = NAN; return; } /* out of memory: the percentile is left out, not made up */
  for (int t = 0; t < n; ++t) e[t] = rms > 0.0 ? e[t] / rms : (e[t] == 0.0 ? 0.0 : INFINITY);
  *pp = p99(e, n);
  free(e);
}

void vx_acc_stats(const double *eng, const double *ref, int k, int k_g, vx_acc_result *r) {
  r->n_u = k;
  r->n_g = k_g;
  stats_of(eng, ref, k, 0, 3, &r->u_l2, &r->u_p99);
  stats_of(eng, ref, k_g, 3, 9, &r->g_l2, &r->g_p99);
}

int vx_acc_poll(vx_accuracy *a, int wait, vx_acc_result *r, char *err, size_t errlen) {
  const double *eng = a->eng, *ref = a->ref;
  if (a->state == ACC_IDLE) return 0;
  if (a->state == ACC_CPU) {
    if (!wait && !atomic_load_explicit(&a->done, memory_order_acquire)) return 0;
    pthread_join(a->worker, NULL); /* also the memory barrier for ref and ms_direct */
    a->pend.ms_direct = a->ms_direct;
  } else {
    int rc = vx_acc_gpu_finish(a->gpu, wait, &eng, &ref, &a->pend.ms_capture_gpu, &a->pend.ms_direct, err, errlen);
    if (rc == 0) return 0;
    if (rc < 0) { a->state = ACC_IDLE; return -1; }
  }
  a->state = ACC_IDLE;
  vx_acc_stats(eng, ref, a->k, a->k_g, &a->pend);
  a->r_eng = eng, a->r_ref = ref;
  *r = a->pend;
  return 1;
}

void vx_acc_last_arrays(const vx_accuracy *a, int *k, int *k_g, const int **idx, const double **eng, const double **ref) {
  *k = a->k, *k_g = a->k_g, *idx = a->idx, *eng = a->r_eng, *ref = a->r_ref;
}
