/* gpu_test_m2l_spec.c — the M2L kernels of the CUDA engine in the full FMM against the CPU engine
 * (label gpu; skipped without a device). For every p of FMM_SPEC_ORDER_MIN..MAX (k_m2l_spec) and 13
 * (the generic k_m2l),
 * double and float, uniform and clustered (rings) points, automatic and forced levels:
 *  - the kernel that ran (fmm_stats.m2l_kernel: p for the specialised orders, 0 for the generic);
 *  - GPU vs the CPU engine: velocity and gradient ≤ 1e-12 relative in double, ≤ 1e-5 in float
 *    (gpu_test_fmm's GPU-vs-CPU twins);
 *  - in float, with the test hook m2l_tc_all (fmm_internal.h), the tensor-core kernel (k_m2l_tc)
 *    at every level >= 3 for the orders it is built for (fmm_spec_order) and none for the others (a device of compute capability 8.0 or
 *    newer), against the CPU engine with the same thresholds: the engine runs it by itself only on
 *    levels far larger than a test's;
 *  - each run twice: bitwise identical.
 * The far field is a large share of every result here: 20000 points at leaf size 64 (level 4 or 5)
 * give thousands of M2L translations per level, and the forced level 4 with rings more.
 * Run: build/tests/gpu_test_m2l_spec */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "fmm_internal.h"
#include "pointsets.h"
#include "test_check.h"
#include "test_twin_eval.h"
#include "test_twins.h"

/* The FMM on backend be, with the test hook m2l_tc_all set to tc_all, host arrays; results in
 * double, the M2L kernel that ran in *kernel (fmm_stats.m2l_kernel). */
static void eval(vx_backend be, fmm_params prm, int tc_all, int n, const double *pos, const double *str, double *u,
                 double *g, int *kernel, int *dense, int *levels, int *tc) {
  char err[256];
  prm.backend = be;
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  if (!ctx) { printf("fmm_create(%s): %s\n", vx_backend_name(be), err); exit(EXIT_FAILURE); }
  ctx->gpu_hooks.m2l_tc_all = tc_all;
  const int fl = prm.precision == VX_FLOAT;
  const size_t rs = fl ? sizeof(float) : sizeof(double);
  void *P = malloc(rs * 3 * n), *S = malloc(rs * 3 * n), *U = malloc(rs * 3 * n), *G = malloc(rs * 9 * n);
  if (!P || !S || !U || !G) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  for (int i = 0; i < 3 * n; ++i) {
    if (fl) { ((float *)P)[i] = (float)pos[i]; ((float *)S)[i] = (float)str[i]; }
    else { ((double *)P)[i] = pos[i]; ((double *)S)[i] = str[i]; }
  }
  fmm_io io = {.n_src = n, .src_pos = P, .src_str = S, .n_tgt = n, .tgt_pos = P, .vel = U, .grad = G, .on_device = 0};
  fmm_stats st;
  memset(&st, 0, sizeof st);
  if (fmm_evaluate(ctx, &io, &st, err, sizeof err)) { printf("fmm on %s: %s\n", vx_backend_name(be), err); exit(EXIT_FAILURE); }
  for (int i = 0; i < 3 * n; ++i) u[i] = fl ? ((float *)U)[i] : ((double *)U)[i];
  for (int i = 0; i < 9 * n; ++i) g[i] = fl ? ((float *)G)[i] : ((double *)G)[i];
  *kernel = st.m2l_kernel;
  if (dense) *dense = st.m2l_dense_levels;
  if (levels) *levels = st.levels;
  if (tc) *tc = st.m2l_dense_tc;
  free(P); free(S); free(U); free(G);
  fmm_destroy(ctx);
}

static void report(int ok, const char *what, double v, double thr) {
  printf("%-72s %9.2e (<= %.0e) %s\n", what, v, thr, ok ? "ok" : "FAIL");
  if (!ok) failures++;
}

/* Two runs' results bitwise the same. */
static int same_bits(const double *u1, const double *g1, const double *u2, const double *g2, int n) {
  return !memcmp(u1, u2, sizeof(double) * 3 * n) && !memcmp(g1, g2, sizeof(double) * 9 * n);
}

/* One case: the engine's own choice, then (float) the tensor-core kernel at every level it can run
 * at, against the CPU engine, each twice. w: 6 arrays of 9 n doubles. */
static void check_case(vx_dist dist, int p, int fl, int levels, int n, const double *pos, const double *str, double *w[6]) {
  double *ug = w[0], *gg = w[1], *u2 = w[2], *g2 = w[3], *uc = w[4], *gc = w[5];
  fmm_params prm = fmm_params_default();
  vx_test_one_tree_fmm(&prm);
  prm.order = p;
  prm.precision = fl ? VX_FLOAT : VX_DOUBLE;
  prm.levels = levels;
  int kg, k2, kc, dd, lv, tc = 0;
  eval(VX_BACKEND_CUDA, prm, 0, n, pos, str, ug, gg, &kg, NULL, NULL, NULL);
  eval(VX_BACKEND_CUDA, prm, 0, n, pos, str, u2, g2, &k2, NULL, NULL, NULL);
  eval(VX_BACKEND_CPU, prm, 0, n, pos, str, uc, gc, &kc, NULL, NULL, NULL);
  const double thr = fl ? 1e-5 : 1e-12;
  const int want = fmm_spec_order(p) ? p : 0, tc_built = fmm_spec_order(p);
  char what[200], tag[80];
  snprintf(tag, sizeof tag, "%-7s %s p=%2d levels=%d", vx_dist_name(dist), fl ? "float " : "double", p, levels);
  snprintf(what, sizeof what, "%s: M2L kernel %d (want %d)", tag, kg, want);
  report(kg == want, what, kg == want ? 0.0 : 1.0, 0);
  snprintf(what, sizeof what, "GPU vs CPU FMM, %s: velocity", tag);
  report(vx_twin_rel_l2(ug, uc, 3 * (size_t)n) <= thr, what, vx_twin_rel_l2(ug, uc, 3 * (size_t)n), thr);
  snprintf(what, sizeof what, "GPU vs CPU FMM, %s: gradient", tag);
  report(vx_twin_rel_l2(gg, gc, 9 * (size_t)n) <= thr, what, vx_twin_rel_l2(gg, gc, 9 * (size_t)n), thr);
  snprintf(what, sizeof what, "GPU FMM run twice, %s: bitwise identical", tag);
  report(same_bits(ug, gg, u2, g2, n), what, same_bits(ug, gg, u2, g2, n) ? 0.0 : 1.0, 0);
  if (!fl) return;
  /* the dense product on the tensor cores (float; a device of compute capability 8.0 or newer) */
  eval(VX_BACKEND_CUDA, prm, 1, n, pos, str, ug, gg, &kg, &dd, &lv, &tc);
  eval(VX_BACKEND_CUDA, prm, 1, n, pos, str, u2, g2, &k2, NULL, NULL, NULL);
  const int want_dense = tc_built ? lv - 2 : 0;
  if (!tc && want_dense) {
    printf("%s: no tensor-core levels (a device without TF32 tensor cores): skipped\n", tag);
    return;
  }
  snprintf(what, sizeof what, "%s: m2l_tc_all -> %d tensor-core levels of %d (want %d)", tag, dd, lv, want_dense);
  report(dd == want_dense, what, dd == want_dense ? 0.0 : 1.0, 0);
  snprintf(what, sizeof what, "tensor-core GPU vs CPU FMM, %s: velocity", tag);
  report(vx_twin_rel_l2(ug, uc, 3 * (size_t)n) <= thr, what, vx_twin_rel_l2(ug, uc, 3 * (size_t)n), thr);
  snprintf(what, sizeof what, "tensor-core GPU vs CPU FMM, %s: gradient", tag);
  report(vx_twin_rel_l2(gg, gc, 9 * (size_t)n) <= thr, what, vx_twin_rel_l2(gg, gc, 9 * (size_t)n), thr);
  snprintf(what, sizeof what, "tensor-core GPU FMM run twice, %s: bitwise identical", tag);
  report(same_bits(ug, gg, u2, g2, n), what, same_bits(ug, gg, u2, g2, n) ? 0.0 : 1.0, 0);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  const int n = 20000;
  double *pos = malloc(sizeof(double) * 3 * n), *str = malloc(sizeof(double) * 3 * n), *w[6];
  for (int i = 0; i < 6; ++i) w[i] = malloc(sizeof(double) * 9 * n);
  if (!pos || !str) { printf("out of memory\n"); return EXIT_FAILURE; }
  const vx_dist dists[2] = {VX_DIST_UNIFORM, VX_DIST_RINGS};
  for (int d = 0; d < 2; ++d) {
    vx_pointset(dists[d], n, 300 + d, pos, str);
    for (int p = FMM_SPEC_ORDER_MIN; p <= FMM_SPEC_ORDER_MAX + 1; ++p)
      for (int fl = 0; fl < 2; ++fl)
        for (int lv = 0; lv < 2; ++lv) check_case(dists[d], p, fl, lv ? 4 : 0, n, pos, str, w);
  }
  free(pos); free(str);
  for (int i = 0; i < 6; ++i) free(w[i]);
  return vx_test_end("all M2L checks passed");
}
