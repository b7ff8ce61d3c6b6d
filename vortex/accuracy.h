/* accuracy.h — the live accuracy readout: the very velocities and gradients one engine
 * call of the simulation produced, at a random sample of elements and tracers, against direct
 * summation with the same kernel and σ, in double. The capture copies what the reference needs
 * (the sources, the sampled targets and the engine's values there) on the caller's thread and
 * returns; the direct sum runs off the step's path — a worker thread on the cpu backend, a second
 * CUDA stream (non-blocking) on cuda — and vx_acc_poll hands the figure over once it is done.
 *
 *   err_l2  = sqrt(Σ_i |e_i|² / Σ_i |r_i|²)                      e = engine − reference, r = reference
 *   err_p99 = (99th percentile of |e_i|, nearest rank) / sqrt(Σ_i |r_i|² / n)
 * over the n samples; |·| is the Euclidean norm for u and the Frobenius norm for ∇u (docs/MATH.md
 * §7, "the live readout"). Velocity: sampled elements and tracers; gradient: sampled elements.
 *
 *   vx_accuracy *a = vx_acc_create(512, seed, err, sizeof err);
 *   vx_acc_request(a, sim);              // the next step's first engine call is captured
 *   vx_sim_step(sim, ...);
 *   if (vx_acc_poll(a, 0, &r, ...) == 1) show(r);   // later frames; wait = 1 blocks
 *   vx_acc_destroy(a); */
#ifndef VX_ACCURACY_H
#define VX_ACCURACY_H

#include <stddef.h>
#include <stdint.h>
#include "hd.h"
#include "sim.h"

VX_EXTERN_C_BEGIN

/* Default sample size: half elements, half tracers (all elements when there are no tracers). */
#define VX_ACC_SAMPLE 512
/* The program's sample seed (the window's and the batch's readouts; a new sample each capture). */
#define VX_ACC_SEED 0x5eed

typedef struct {
  int n_u, n_g;             /* samples: velocity (elements, then tracers), gradient (the elements among them) */
  double u_l2, u_p99;       /* velocity: relative L2 error and 99th percentile (definitions above) */
  double g_l2, g_p99;       /* gradient: the same; NaN when n_g == 0 (no gradient computed) */
  long long step;           /* the state measured: after `step` steps (the first stage of step + 1) */
  double t;                 /* its simulated time */
  double captured_s;        /* when it was captured, CLOCK_MONOTONIC seconds (app_now's clock): the age */
  double ms_capture;        /* ms the capture held the caller's thread (cpu: the copy; cuda: host launch time) */
  double ms_capture_gpu;    /* cuda: the snapshot kernel's time on the main (default) stream; 0 on cpu */
  double ms_direct;         /* the direct sum's ms (worker wall time, or the side stream's event time) */
} vx_acc_result;

typedef struct vx_accuracy vx_accuracy;

/* A readout of n_sample targets (>= 1) drawn with seed; NULL with err on failure. */
vx_accuracy *vx_acc_create(int n_sample, uint64_t seed, char *err, size_t errlen);
/* Waits for work in flight, then frees (NULL: no-op). */
void vx_acc_destroy(vx_accuracy *a);
/* 1 while a capture's direct sum is in flight or its result not yet taken by vx_acc_poll. */
int vx_acc_busy(const vx_accuracy *a);
/* Capture e (a vx_sim_eval: the state and what the engine made of it) and start the direct sum.
 * 0; 1 when busy (nothing captured); -1 with err. On cuda the snapshot is ordered on the default
 * stream after the engine's work and before whatever is queued next. */
int vx_acc_capture(vx_accuracy *a, const vx_sim_eval *e, char *err, size_t errlen);
/* Arm s so that its next step's first engine call is captured (vx_sim_watch_next_eval). 0; 1 when
 * busy (not armed). The readout must outlive the arming (or vx_sim_watch_next_eval(s, NULL, NULL)). */
int vx_acc_request(vx_accuracy *a, vx_sim *s);
/* The finished capture's figure: 1 with *r (once per capture), 0 when none is ready, -1 with err
 * (the result is dropped; the readout can capture again). wait: block until it is ready. */
int vx_acc_poll(vx_accuracy *a, int wait, vx_acc_result *r, char *err, size_t errlen);

/* ---- the pieces, for the twin test (gpu_test_accuracy) and the GPU half (accuracy_gpu.cu) ----
 * Snapshot layout, all double: src 6 per element (x y z αx αy αz), tgt 3 per sample, eng and ref 12
 * per sample (u[3], then ∇u[9] row-major for the first k_g samples). */

/* Source chunks the direct sum is split into (one home: cpu and gpu alike). */
VX_HD static inline int vx_acc_chunks(int n_src) {
  int c = (n_src + 511) / 512;
  return c < 1 ? 1 : c > 64 ? 64 : c;
}

/* The reference on the host: for each sample t < k and chunk c, the partial sum over that chunk's
 * sources into part[(c*k + t)*12], then the chunks summed in order into ref (times 1/(4π)): the
 * CPU twin of the side stream's kernels. part holds vx_acc_chunks(n_src)*k*12 doubles. */
void vx_acc_direct_cpu(int kernel, double sigma, int n_src, const double *src, int k, int k_g, const double *tgt,
                       double *part, double *ref);
/* After vx_acc_poll returned 1: the sample (k indices, the first k_g with gradients) and the
 * engine's and the reference's values there (12 per sample), until the next capture. */
void vx_acc_last_arrays(const vx_accuracy *a, int *k, int *k_g, const int **idx, const double **eng, const double **ref);
/* The figure from eng and ref (12 per sample; gradients for the first k_g). */
void vx_acc_stats(const double *eng, const double *ref, int k, int k_g, vx_acc_result *r);

VX_EXTERN_C_END
#endif
