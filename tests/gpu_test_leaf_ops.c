/* gpu_test_leaf_ops.c — the GPU's leaf operators in each of their forms against the CPU engine
 * (label gpu; skipped without a device): k_p2m_spec with 1, 2, 4 and 8 warps a leaf and k_l2p
 * forming the derivative expansions itself or reading k_l2p_deriv's. The engine chooses both from
 * the leaves' occupancy (p2m_warps_per_leaf, l2p_fused); the test hooks p2m_wl and l2p_fused
 * (fmm_internal.h) force each form. In every case:
 *  - each GPU form, the engine's own choice first, vs the CPU engine: velocity and gradient within
 *    1e-12 relative (L2) in double, 1e-5 in float (gpu_test_fmm's GPU-vs-CPU thresholds);
 *  - gradient rows at and beyond n_grad left untouched (the fused L2P picks each chunk's kind).
 * Cases: uniform and rings, targets = sources or 15000 other points of which the first 10000 want
 * the gradient (both kinds of chunk in a leaf); p = 2, 5, 6, 8, 12 (k_p2m_spec) and 13 (k_p2m); float
 * and double; gradient on and off; the automatic level (a few dozen to a few hundred points a
 * leaf) and a forced level 2 (thousands: several chunks a leaf). Then one form run twice: bitwise
 * identical.
 * Run: build/tests/gpu_test_leaf_ops */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "fmm_internal.h"
#include "pointsets.h"
#include "test_check.h"
#include "test_twins.h"
#include "test_twin_eval.h"

#define N_SRC 20000
#define N_OTHER 15000      /* targets apart from the sources */
#define N_OTHER_GRAD 10000 /* of which those that want the gradient */

/* The GPU forms: the test hooks p2m_wl and l2p_fused (0: the engine's choice). */
static const fmm_gpu_hooks forms[5] = {{0, 0, 0}, {1, 1, 0}, {2, -1, 0}, {4, 1, 0}, {8, -1, 0}};

/* vx_twin_eval of pt on backend be in form f. */
static void eval(vx_backend be, fmm_params prm, fmm_gpu_hooks f, const vx_twin_points *pt, double *u, double *g) {
  prm.backend = be;
  fmm_ctx *ctx = vx_twin_create(be, prm);
  ctx->gpu_hooks = f;
  vx_twin_eval_on(ctx, prm, pt, u, g, NULL);
  fmm_destroy(ctx);
}

/* The parameters of a case: the singular kernel (the regularization is not these kernels' concern),
 * one tree on both backends. */
static fmm_params case_params(int p, int fl, int grad, int levels) {
  fmm_params prm = fmm_params_default();
  vx_test_one_tree_fmm(&prm);
  prm.leaf_size = VX_LEAF_GPU;
  prm.order = p;
  prm.precision = fl ? VX_FLOAT : VX_DOUBLE;
  prm.gradient = grad;
  prm.levels = levels;
  prm.kernel = VX_KERNEL_SINGULAR;
  return prm;
}

/* One case: the CPU, then every GPU form against it. w: 4 arrays of 9 n_tgt doubles. */
static void check_case(const char *set, const vx_twin_points *pt, int p, int fl, int grad, int levels, double *w[4]) {
  const fmm_params prm = case_params(p, fl, grad, levels);
  const double thr = fl ? 1e-5 : 1e-12;
  eval(VX_BACKEND_CPU, prm, forms[0], pt, w[0], w[1]);
  for (int f = 0; f < 5; ++f) {
    eval(VX_BACKEND_CUDA, prm, forms[f], pt, w[2], w[3]);
    const double e = vx_twin_err(w[2], w[3], w[0], w[1], pt, grad);
    const int ok = e <= thr && vx_twin_rows_untouched(w[3], pt, grad);
    printf("%-7s %s p=%2d %s %s L=%s: P2M warps a leaf %d, L2P fused %2d (0: auto) vs CPU %9.2e (<= %.0e) %s\n",
           set, pt->n_tgt == pt->n_src ? "same " : "other", p, fl ? "float " : "double", grad ? "grad" : "vel ",
           levels ? "2" : "auto", forms[f].p2m_wl, forms[f].l2p_fused, e, thr, ok ? "ok" : "FAIL");
    if (!ok) failures++;
  }
}

/* The points: N_SRC of the set with random strengths in [-1, 1]^3, and as targets the sources or
 * N_OTHER points of the same set from another seed. */
static vx_twin_points make_points(vx_dist dist, int other, double *spos, double *sstr, double *tpos) {
  vx_pointset(dist, N_SRC, 610 + dist, spos, NULL);
  uint64_t s = 910 + dist;
  for (int i = 0; i < 3 * N_SRC; ++i) sstr[i] = 2.0 * vx_rng_uniform(&s) - 1.0;
  vx_twin_points pt = {N_SRC, N_SRC, N_SRC, spos, sstr, spos};
  if (other) {
    vx_pointset(dist, N_OTHER, 710 + dist, tpos, NULL);
    pt.n_tgt = N_OTHER, pt.n_grad = N_OTHER_GRAD, pt.tpos = tpos;
  }
  return pt;
}

/* One form twice: bitwise identical (no races between a leaf's warps or a chunk's threads). */
static void check_repeatable(const vx_twin_points *pt, double *w[4]) {
  for (int fl = 0; fl < 2; ++fl) {
    const fmm_params prm = case_params(8, fl, 1, 0);
    eval(VX_BACKEND_CUDA, prm, forms[3], pt, w[0], w[1]);
    eval(VX_BACKEND_CUDA, prm, forms[3], pt, w[2], w[3]);
    const size_t n = (size_t)pt->n_tgt;
    const int same = !memcmp(w[0], w[2], sizeof(double) * 3 * n) && !memcmp(w[1], w[3], sizeof(double) * 9 * n);
    EXPECT(same, "P2M 4 warps a leaf, L2P fused, run twice in %s: results differ", fl ? "float" : "double");
    printf("P2M 4 warps a leaf, L2P fused, run twice, %s: %s\n", fl ? "float" : "double",
           same ? "bitwise identical ok" : "FAIL");
  }
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  double *spos = malloc(sizeof(double) * 3 * N_SRC), *sstr = malloc(sizeof(double) * 3 * N_SRC);
  double *tpos = malloc(sizeof(double) * 3 * N_OTHER), *w[4];
  for (int i = 0; i < 4; ++i) w[i] = malloc(sizeof(double) * 9 * N_SRC); /* N_SRC >= N_OTHER */
  if (!spos || !sstr || !tpos || !w[0] || !w[1] || !w[2] || !w[3]) { printf("out of memory\n"); return EXIT_FAILURE; }
  static const int order[] = {2, 5, 6, 8, 12, 13}, n_order = (int)(sizeof order / sizeof order[0]);
  for (int d = 0; d < 2; ++d)
    for (int other = 0; other < 2; ++other) {
      const vx_dist dist = d ? VX_DIST_RINGS : VX_DIST_UNIFORM;
      const vx_twin_points pt = make_points(dist, other, spos, sstr, tpos);
      for (int o = 0; o < n_order; ++o)
        for (int fl = 0; fl < 2; ++fl)
          for (int grad = 1; grad >= 0; --grad) check_case(d ? "rings" : "uniform", &pt, order[o], fl, grad, 0, w);
      for (int fl = 0; fl < 2; ++fl) check_case(d ? "rings" : "uniform", &pt, 8, fl, 1, 2, w);
    }
  const vx_twin_points pt = make_points(VX_DIST_UNIFORM, 1, spos, sstr, tpos);
  check_repeatable(&pt, w);
  free(spos), free(sstr), free(tpos);
  for (int i = 0; i < 4; ++i) free(w[i]);
  return vx_test_end("gpu_test_leaf_ops: every form of P2M and L2P equals the CPU engine's");
}
