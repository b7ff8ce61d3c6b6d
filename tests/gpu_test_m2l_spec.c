/* gpu_test_m2l_spec.c — the order-specialised M2L kernels (k_m2l_spec, issue 15) and the dense one
 * (k_m2l_dense) against the generic one and the CPU engine (label gpu; skipped without a device).
 * For p = 6, 8, 12, double and float, uniform and clustered (rings) points, automatic and forced levels:
 *  - VX_M2L=spec runs the specialised kernel (fmm_stats.m2l_kernel = p) at every level, VX_M2L=generic
 *    the generic one (0), and an order without a specialisation (p = 7) the generic one under spec;
 *  - VX_M2L=dense runs the dense kernel at every level >= 3 (m2l_dense_levels = levels - 2) for
 *    p = 6, 8, 12 and none for p = 7; dense vs the CPU engine: the GPU-vs-CPU thresholds below;
 *  - in float, VX_M2L=tc likewise runs the tensor-core kernel (k_m2l_tc, m2l_dense_tc) at every
 *    level >= 3, against the CPU engine with the same thresholds, and twice bitwise;
 *  - specialised vs generic: velocity and gradient ≤ 1e-12 relative in double, ≤ 1e-5 in float
 *    (they differ only in the M2L's rounding: same tree, P2M, M2M, L2L, L2P and near field);
 *  - specialised vs the CPU engine: the same thresholds as gpu_test_fmm's GPU-vs-CPU twins;
 *  - the specialised kernel run twice: bitwise identical.
 * The far field is a large share of every result here: 20000 points at leaf size 64 (level 4 or 5)
 * give thousands of M2L translations per level, and the forced level 4 with rings more.
 * Run: build/tests/gpu_test_m2l_spec */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "pointsets.h"
#include "test_check.h"
#include "test_twin_eval.h"
#include "test_twins.h"

/* The FMM on backend be with VX_M2L set to m2l (NULL: unset), host arrays; results in double,
 * the M2L kernel that ran in *kernel (fmm_stats.m2l_kernel). */
static void eval(vx_backend be, fmm_params prm, const char *m2l, int n, const double *pos, const double *str, double *u,
                 double *g, int *kernel, int *dense, int *levels, int *tc) {
  char err[256];
  if (m2l) setenv("VX_M2L", m2l, 1);
  else unsetenv("VX_M2L");
  prm.backend = be;
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  if (!ctx) { printf("fmm_create(%s, VX_M2L=%s): %s\n", vx_backend_name(be), m2l ? m2l : "", err); exit(EXIT_FAILURE); }
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

/* One case: the specialised kernel (auto) against the generic one and the CPU engine. */
static void check_case(vx_dist dist, int p, int fl, int levels, int n, const double *pos, const double *str, double *w[6]) {
  double *us = w[0], *gs = w[1], *ug = w[2], *gg = w[3], *uc = w[4], *gc = w[5];
  fmm_params prm = fmm_params_default();
  vx_test_one_tree_fmm(&prm);
  prm.order = p;
  prm.precision = fl ? VX_FLOAT : VX_DOUBLE;
  prm.levels = levels;
  int ks, kg, kc, kd, ds, dd, lv;
  eval(VX_BACKEND_CUDA, prm, "spec", n, pos, str, us, gs, &ks, &ds, NULL, NULL);
  eval(VX_BACKEND_CUDA, prm, "generic", n, pos, str, ug, gg, &kg, NULL, NULL, NULL);
  eval(VX_BACKEND_CPU, prm, NULL, n, pos, str, uc, gc, &kc, NULL, NULL, NULL);
  const double thr = fl ? 1e-5 : 1e-12;
  const int want = (p == 6 || p == 8 || p == 12) ? p : 0;
  char what[200], tag[80];
  snprintf(tag, sizeof tag, "%-7s %s p=%2d levels=%d", vx_dist_name(dist), fl ? "float " : "double", p, levels);
  snprintf(what, sizeof what, "%s: kernels auto -> %d, generic -> %d (want %d, 0)", tag, ks, kg, want);
  report(ks == want && kg == 0, what, ks == want && kg == 0 ? 0.0 : 1.0, 0);
  snprintf(what, sizeof what, "spec vs generic M2L, %s: velocity", tag);
  report(vx_twin_rel_l2(us, ug, 3 * (size_t)n) <= thr, what, vx_twin_rel_l2(us, ug, 3 * (size_t)n), thr);
  snprintf(what, sizeof what, "spec vs generic M2L, %s: gradient", tag);
  report(vx_twin_rel_l2(gs, gg, 9 * (size_t)n) <= thr, what, vx_twin_rel_l2(gs, gg, 9 * (size_t)n), thr);
  snprintf(what, sizeof what, "spec GPU vs CPU FMM, %s: velocity", tag);
  report(vx_twin_rel_l2(us, uc, 3 * (size_t)n) <= thr, what, vx_twin_rel_l2(us, uc, 3 * (size_t)n), thr);
  snprintf(what, sizeof what, "spec GPU vs CPU FMM, %s: gradient", tag);
  report(vx_twin_rel_l2(gs, gc, 9 * (size_t)n) <= thr, what, vx_twin_rel_l2(gs, gc, 9 * (size_t)n), thr);
  /* the dense kernel, into the spec arrays (done with) */
  eval(VX_BACKEND_CUDA, prm, "dense", n, pos, str, us, gs, &kd, &dd, &lv, NULL);
  const int want_dense = want ? lv - 2 : 0;
  snprintf(what, sizeof what, "%s: VX_M2L=dense -> %d dense levels of %d (want %d; spec: %d)", tag, dd, lv, want_dense, ds);
  report(dd == want_dense && ds == 0, what, dd == want_dense && ds == 0 ? 0.0 : 1.0, 0);
  snprintf(what, sizeof what, "dense GPU vs CPU FMM, %s: velocity", tag);
  report(vx_twin_rel_l2(us, uc, 3 * (size_t)n) <= thr, what, vx_twin_rel_l2(us, uc, 3 * (size_t)n), thr);
  snprintf(what, sizeof what, "dense GPU vs CPU FMM, %s: gradient", tag);
  report(vx_twin_rel_l2(gs, gc, 9 * (size_t)n) <= thr, what, vx_twin_rel_l2(gs, gc, 9 * (size_t)n), thr);
  if (!fl) return;
  /* the dense product on the tensor cores (float; a device of compute capability 8.0 or newer) */
  int tc = 0;
  eval(VX_BACKEND_CUDA, prm, "tc", n, pos, str, us, gs, &kd, &dd, &lv, &tc);
  snprintf(what, sizeof what, "%s: VX_M2L=tc -> %d tensor-core levels of %d (want %d)", tag, tc ? dd : 0, lv, want_dense);
  report((tc ? dd : 0) == want_dense, what, (tc ? dd : 0) == want_dense ? 0.0 : 1.0, 0);
  snprintf(what, sizeof what, "tensor-core GPU vs CPU FMM, %s: velocity", tag);
  report(vx_twin_rel_l2(us, uc, 3 * (size_t)n) <= thr, what, vx_twin_rel_l2(us, uc, 3 * (size_t)n), thr);
  snprintf(what, sizeof what, "tensor-core GPU vs CPU FMM, %s: gradient", tag);
  report(vx_twin_rel_l2(gs, gc, 9 * (size_t)n) <= thr, what, vx_twin_rel_l2(gs, gc, 9 * (size_t)n), thr);
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
  const int orders[4] = {6, 8, 12, 7};
  for (int d = 0; d < 2; ++d) {
    vx_pointset(dists[d], n, 300 + d, pos, str);
    for (int k = 0; k < 4; ++k)
      for (int fl = 0; fl < 2; ++fl)
        for (int lv = 0; lv < 2; ++lv) check_case(dists[d], orders[k], fl, lv ? 4 : 0, n, pos, str, w);
  }
  /* no races: the specialised kernel twice, bitwise */
  for (int fl = 0; fl < 2; ++fl) {
    fmm_params prm = fmm_params_default();
    vx_test_one_tree_fmm(&prm);
    prm.precision = fl ? VX_FLOAT : VX_DOUBLE;
    prm.order = 8;
    int k1, k2, d1, d2;
    eval(VX_BACKEND_CUDA, prm, "spec", n, pos, str, w[0], w[1], &k1, NULL, NULL, NULL);
    eval(VX_BACKEND_CUDA, prm, "spec", n, pos, str, w[2], w[3], &k2, NULL, NULL, NULL);
    int same = k1 == 8 && !memcmp(w[0], w[2], sizeof(double) * 3 * n) && !memcmp(w[1], w[3], sizeof(double) * 9 * n);
    report(same, fl ? "spec8 run twice, float: bitwise identical" : "spec8 run twice, double: bitwise identical",
           same ? 0.0 : 1.0, 0);
    eval(VX_BACKEND_CUDA, prm, "dense", n, pos, str, w[0], w[1], &k1, &d1, NULL, NULL);
    eval(VX_BACKEND_CUDA, prm, "dense", n, pos, str, w[2], w[3], &k2, &d2, NULL, NULL);
    same = d1 > 0 && d1 == d2 && !memcmp(w[0], w[2], sizeof(double) * 3 * n) && !memcmp(w[1], w[3], sizeof(double) * 9 * n);
    report(same, fl ? "dense8 run twice, float: bitwise identical" : "dense8 run twice, double: bitwise identical",
           same ? 0.0 : 1.0, 0);
    if (!fl) continue;
    int t1 = 0, t2 = 0;
    eval(VX_BACKEND_CUDA, prm, "tc", n, pos, str, w[0], w[1], &k1, &d1, NULL, &t1);
    eval(VX_BACKEND_CUDA, prm, "tc", n, pos, str, w[2], w[3], &k2, &d2, NULL, &t2);
    same = t1 && t2 && d1 > 0 && d1 == d2 && !memcmp(w[0], w[2], sizeof(double) * 3 * n) &&
           !memcmp(w[1], w[3], sizeof(double) * 9 * n);
    report(same, "tc8 run twice, float: bitwise identical", same ? 0.0 : 1.0, 0);
  }
  /* an unknown VX_M2L is refused when the engine is created */
  {
    char err[256];
    fmm_params prm = fmm_params_default();
    prm.backend = VX_BACKEND_CUDA;
    setenv("VX_M2L", "fast", 1);  /* neither auto, dense, spec nor generic */
    fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
    report(ctx == NULL && strstr(err, "VX_M2L") != NULL, "VX_M2L=fast refused by fmm_create", ctx ? 1.0 : 0.0, 0);
    fmm_destroy(ctx);
    unsetenv("VX_M2L");
  }
  free(pos); free(str);
  for (int i = 0; i < 6; ++i) free(w[i]);
  return vx_test_end("all specialised-M2L checks passed");
}
