/* dacc.c — the accuracy readout of a spread simulation (dacc.h). */
#include "dacc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accuracy_math.h"
#include "fmm.h"

#define GOLDEN 0.6180339887498949
#define BLOCKS 64 /* sample blocks of the direct sum, one a thread at a time */

void vx_dacc_init(vx_dacc *a, const vx_comm *c, int n_sample, uint64_t seed) {
  memset(a, 0, sizeof *a);
  a->c = *c;
  a->n_sample = n_sample > 0 ? n_sample : 1;
  a->u = (double)(seed % 1000003u) / 1000003.0;
}

static int hook(void *user, const vx_sim_eval *e, char *err, size_t errlen) {
  return vx_dacc_measure((vx_dacc *)user, e, err, errlen);
}

void vx_dacc_request(vx_dacc *a, vx_sim *s) { vx_sim_watch_next_eval(s, hook, a); }

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* n·w reals of the run's precision (backend memory) into the host array h. */
static int fetch(const void *p, int on_device, size_t bytes, void *h, char *err, size_t errlen) {
  if (!bytes) return 0;
  if (on_device) return vx_device_download(h, p, bytes, err, errlen);
  memcpy(h, p, bytes);
  return 0;
}

/* This rank's part of a capture, its n elements the global ones from off on: the samples it holds
 * (positions into tgt, 3 a sample; the engine's values into eng, 12 a sample; *kr of them) and its
 * sources (6 an element, into src). 0, or -1 with err. */
static int snapshot(const vx_dacc *a, const vx_sim_eval *e, long long off, long long N, int k, double *src, double *tgt,
                    double *eng, int *kr, char *err, size_t errlen) {
  const int n = e->n_elem, isf = e->precision == VX_FLOAT;
  const size_t rs = isf ? sizeof(float) : sizeof(double), b3 = 3 * rs * (size_t)n;
  char *h = malloc(b3 * (e->grad ? 6 : 3) + 1);
  int *idx = malloc(sizeof(int) * ((size_t)k + 1));
  int rc = h && idx ? 0 : -1;
  if (rc) snprintf(err, errlen, "out of host memory for the accuracy readout's %d elements", n);
  char *pos = h, *alpha = h + b3, *vel = h + 2 * b3, *grad = e->grad ? h + 3 * b3 : NULL;
  if (!rc)
    rc = fetch(e->pos, e->on_device, b3, pos, err, errlen) || fetch(e->alpha, e->on_device, b3, alpha, err, errlen) ||
                 fetch(e->vel, e->on_device, b3, vel, err, errlen) ||
                 (grad && fetch(e->grad, e->on_device, 3 * b3, grad, err, errlen))
             ? -1
             : 0;
  *kr = 0;
  for (int j = 0; !rc && j < k; j++) {
    const long long g = (long long)(((double)j + a->u) * (double)N / (double)k);
    if (g >= off && g < off + n) idx[(*kr)++] = (int)(g - off);
  }
  for (int j = 0; !rc && j < n; j++) vx_acc_snap_src(pos, alpha, isf, j, src);
  for (int t = 0; !rc && t < *kr; t++) vx_acc_snap_tgt(pos, vel, grad, isf, t, idx[t], grad ? *kr : 0, tgt, eng);
  free(h), free(idx);
  return rc;
}

/* The direct sum of the n sources at the k samples, the samples in BLOCKS blocks on the threads (each block
 * vx_acc_direct_cpu's sum, in its order: the same figure at any thread count). */
static void direct_blocks(int kernel, double sigma, int n, const double *src, int k, int g, const double *tgt, double *part,
                          double *ref) {
  const size_t per = 12 * (size_t)vx_acc_chunks(n);
#pragma omp parallel for schedule(dynamic, 1)
  for (int b = 0; b < BLOCKS; b++) {
    const int t0 = (int)((long long)k * b / BLOCKS), t1 = (int)((long long)k * (b + 1) / BLOCKS);
    if (t1 > t0)
      vx_acc_direct_cpu(kernel, sigma, n, src, t1 - t0, g ? t1 - t0 : 0, tgt + 3 * (size_t)t0, part + per * (size_t)t0,
                        ref + 12 * (size_t)t0);
  }
}

int vx_dacc_measure(vx_dacc *a, const vx_sim_eval *e, char *err, size_t errlen) {
  const vx_comm *c = &a->c;
  const int R = c->size, n = e->n_elem, g = e->grad != NULL;
  const double t0 = now_ms();
  int *cnt = malloc(sizeof(int) * 2 * (size_t)R), *dsp = cnt ? cnt + R : NULL, ok = cnt != NULL;
  if (!ok) snprintf(err, errlen, "out of host memory");
  if (!vx_comm_agree(c, ok) ||
      vx_comm_check(MPI_Allgather(&n, 1, MPI_INT, cnt, 1, MPI_INT, c->comm), "MPI_Allgather (readout)", err, errlen)) {
    if (ok) snprintf(err, errlen, "another rank failed in the accuracy readout");
    free(cnt);
    return -1;
  }
  long long N = 0, off = 0;
  for (int r = 0; r < R; r++) off += r < c->rank ? cnt[r] : 0, N += cnt[r];
  const int k = (int)(N < a->n_sample ? N : a->n_sample);
  double *src = malloc(sizeof(double) * 6 * ((size_t)n + 1)), *tgt = malloc(sizeof(double) * 3 * ((size_t)k + 1));
  double *eng = malloc(sizeof(double) * 12 * ((size_t)k + 1)), *all = malloc(sizeof(double) * 15 * ((size_t)k + 1));
  double *part = malloc(sizeof(double) * 12 * (size_t)vx_acc_chunks(n) * ((size_t)k + 1)), *ref = all + 3 * (size_t)k;
  int kr = 0;
  ok = src && tgt && eng && all && part;
  if (!ok) snprintf(err, errlen, "out of host memory for the accuracy readout (%d samples)", k);
  if (ok && snapshot(a, e, off, N, k, src, tgt, eng, &kr, err, errlen)) ok = 0;
  int rc = vx_comm_agree(c, ok) ? 0 : -1;
  if (rc && ok) snprintf(err, errlen, "another rank failed in the accuracy readout");
  /* every sample's position at every rank, rank by rank; the engine's values at rank 0 */
  if (!rc && vx_comm_check(MPI_Allgather(&kr, 1, MPI_INT, cnt, 1, MPI_INT, c->comm), "MPI_Allgather (samples)", err, errlen)) rc = -1;
  for (int r = 0, s = 0; !rc && r < R; r++) dsp[r] = s, s += cnt[r];
  for (int r = 0; !rc && r < R; r++) cnt[r] *= 3, dsp[r] *= 3;
  if (!rc && vx_comm_check(MPI_Allgatherv(tgt, 3 * kr, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, c->comm), "MPI_Allgatherv (samples)",
                           err, errlen))
    rc = -1;
  for (int r = 0; !rc && r < R; r++) cnt[r] *= 4, dsp[r] *= 4;
  if (!rc && vx_comm_check(MPI_Gatherv(c->rank ? eng : MPI_IN_PLACE, 12 * kr, MPI_DOUBLE, eng, cnt, dsp, MPI_DOUBLE, 0, c->comm),
                           "MPI_Gatherv (the engine's values)", err, errlen))
    rc = -1;
  /* this rank's sources at every sample, the parts summed at rank 0 */
  if (!rc) {
    direct_blocks((int)e->kernel, e->sigma, n, src, k, g, all, part, ref);
    rc = vx_comm_check(MPI_Reduce(c->rank ? ref : MPI_IN_PLACE, ref, 12 * k, MPI_DOUBLE, MPI_SUM, 0, c->comm),
                       "MPI_Reduce (the direct sums)", err, errlen);
  }
  if (!rc) {
    memset(&a->res, 0, sizeof a->res);
    if (c->rank == 0) vx_acc_stats(eng, ref, k, g ? k : 0, &a->res);
    a->res.step = e->step, a->res.t = e->t;
    a->res.ms_direct = now_ms() - t0;
    a->ready = 1;
    a->u += GOLDEN;
    a->u -= (double)(long long)a->u;
  }
  free(cnt), free(src), free(tgt), free(eng), free(all), free(part);
  return rc;
}
