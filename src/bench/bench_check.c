/* bench_check.c — vortexfmm-bench's accuracy figures (bench.h): the FMM's errors against the direct
 * sum at the --check targets, and --readout, the cost of the live accuracy readout
 * (vortex/accuracy.h) beside the evaluations it watches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "bench.h"

int compute_errors(run_result *r, const void *vel, const void *grad, int is_float, const int *idx, int k,
                   const double *ref_vel, const double *ref_grad) {
  double num = 0.0, den = 0.0, gnum = 0.0, gden = 0.0;
  double *e = xcalloc((size_t)k, sizeof(double), "per-target errors");
  if (!e) return -1;
  for (int t = 0; t < k; t++) {
    size_t it = idx ? (size_t)idx[t] : (size_t)t;
    double d2 = 0.0, r2 = 0.0;
    for (int c = 0; c < 3; c++) {
      double u = elem(vel, 3 * it + c, is_float), ur = ref_vel[3 * (size_t)t + c];
      d2 += (u - ur) * (u - ur);
      r2 += ur * ur;
    }
    num += d2, den += r2;
    e[t] = sqrt(d2);
    if (grad && ref_grad)
      for (int c = 0; c < 9; c++) {
        double g = elem(grad, 9 * it + c, is_float), gr = ref_grad[9 * (size_t)t + c];
        gnum += (g - gr) * (g - gr);
        gden += gr * gr;
      }
  }
  r->have_err = 1;
  r->err_vel = den > 0.0 ? sqrt(num / den) : (num == 0.0 ? 0.0 : INFINITY);
  r->err_grad = (grad && ref_grad) ? (gden > 0.0 ? sqrt(gnum / gden) : (gnum == 0.0 ? 0.0 : INFINITY)) : NAN;
  /* Per-target error relative to the rms reference speed; 99th percentile by nearest rank. */
  double rms = sqrt(den / k);
  for (int t = 0; t < k; t++) e[t] = rms > 0.0 ? e[t] / rms : (e[t] == 0.0 ? 0.0 : INFINITY);
  qsort(e, (size_t)k, sizeof *e, cmp_double);
  int rank = (int)ceil(0.99 * k) - 1;
  r->err_p99 = e[rank < 0 ? 0 : rank];
  r->err_max = e[k - 1];
  free(e);
  return 0;
}

/* --readout: the live accuracy readout (vortex/accuracy.h) on io's last evaluation, as the
 * simulation would run it (every point an element: sources = targets): on cuda the arrays go to
 * the device first (untimed), as the simulation keeps them. --repeat captures each waited for, then
 * --repeat evaluations each timed with a capture's direct sum in flight. Medians into r. 0, or 1. */
int readout_cost(const bench_opts *o, fmm_ctx *ctx, const fmm_io *io, run_result *r, double *tv) {
  const int n = io->n_src, cuda = fmm_get_params(ctx)->backend == VX_BACKEND_CUDA, R = o->repeat;
  const size_t es = o->precision == VX_FLOAT ? sizeof(float) : sizeof(double);
  const void *host[4] = {io->src_pos, io->src_str, io->vel, io->grad};
  const size_t len[4] = {3 * es * (size_t)n, 3 * es * (size_t)n, 3 * es * (size_t)n, 9 * es * (size_t)n};
  void *dev[4] = {NULL, NULL, NULL, NULL};
  char err[512];
  int rc = 1;
  double *m = xcalloc(4 * (size_t)R, sizeof(double), "readout timings");
  vx_accuracy *a = vx_acc_create(VX_ACC_SAMPLE, o->seed, err, sizeof err);
  if (!m || !a) goto out;
  vx_sim_eval e = {n, n, cuda, o->precision, o->kernel, fmm_get_params(ctx)->sigma, host[0], host[1], host[2], host[3], 0, 0.0};
  for (int k = 0; cuda && k < 4; k++)
    if (host[k] && (vx_device_alloc(&dev[k], len[k], err, sizeof err) || vx_device_upload(dev[k], host[k], len[k], err, sizeof err)))
      goto out;
  if (cuda) e.pos = dev[0], e.alpha = dev[1], e.vel = dev[2], e.grad = dev[3];
  vx_acc_result res;
  for (int i = 0; i < R; i++) {
    if (vx_acc_capture(a, &e, err, sizeof err) != 0 || vx_acc_poll(a, 1, &res, err, sizeof err) != 1) goto out;
    m[i] = res.ms_capture, m[R + i] = res.ms_capture_gpu, m[2 * R + i] = res.ms_direct;
  }
  r->ro_u_l2 = res.u_l2, r->ro_g_l2 = res.g_l2;
  for (int i = 0; i < R; i++) {
    fmm_stats st;
    if (vx_acc_capture(a, &e, err, sizeof err) != 0 || fmm_evaluate(ctx, io, &st, err, sizeof err) != 0 ||
        vx_acc_poll(a, 1, &res, err, sizeof err) != 1)
      goto out;
    m[3 * R + i] = st.t_total;
  }
  double *col[4] = {&r->ro_capture, &r->ro_snapshot, &r->ro_direct, &r->ro_eval};
  for (int c = 0; c < 4; c++) {
    memcpy(tv, m + (size_t)c * R, sizeof(double) * (size_t)R);
    *col[c] = median(tv, R);
  }
  r->have_ro = 1;
  rc = 0;
out:
  if (rc) fprintf(stderr, PROG ": readout: %s\n", m && a ? err : "out of memory");
  vx_acc_destroy(a);
  for (int k = 0; k < 4; k++) vx_device_free(dev[k]);
  free(m);
  return rc;
}
