/* gpu_test_fmm_reg.c — the GPU regularization corrections (k_corr) against their CPU twin
 * (cpu_corr_leaves + cpu_corr_leaf), docs/MATH.md §10. Label gpu; exits 77 (skipped) without a
 * CUDA device. On random ring points with random strengths, for every smoothing kernel, thin and
 * thick cores (σ up to four leaf widths: corrections over many leaves, and over the whole cube for
 * the algebraic kernels), automatic and forced levels, double and float: GPU FMM vs CPU FMM on
 * the same tree within atol + rtol|ref| style relative L2 bounds (1e-12 double, 1e-5 float, as
 * gpu_test_fmm), the same r_cut and reg_err from both backends, and GPU FMM vs GPU direct within
 * the CPU test's (tests/test_fmm_reg.c) thresholds.
 * Run: ctest --test-dir build -L gpu --output-on-failure */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "pointsets.h"
#include "test_check.h"
#include "test_twin_eval.h"
#include "test_twins.h"

static void report(int ok, const char *what, double v, double thr) {
  printf("%-72s %9.2e (<= %.0e) %s\n", what, v, thr, ok ? "ok" : "FAIL");
  if (!ok) failures++;
}

/* FMM (or direct) on a backend in the run's precision; results in double, stats in *st. */
static void eval(vx_backend be, fmm_params prm, int direct, int n, const double *pos, const double *str, double *u, double *g,
                 fmm_stats *st) {
  char err[256];
  prm.backend = be;
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  if (!ctx) { printf("fmm_create(%s): %s\n", vx_backend_name(be), err); exit(EXIT_FAILURE); }
  const int fl = prm.precision == VX_FLOAT;
  const size_t rs = fl ? sizeof(float) : sizeof(double);
  void *P = malloc(rs * 3 * n), *S = malloc(rs * 3 * n), *U = malloc(rs * 3 * n), *G = malloc(rs * 9 * n);
  for (int i = 0; i < 3 * n; ++i) {
    if (fl) ((float *)P)[i] = (float)pos[i], ((float *)S)[i] = (float)str[i];
    else ((double *)P)[i] = pos[i], ((double *)S)[i] = str[i];
  }
  fmm_io io = {.n_src = n, .src_pos = P, .src_str = S, .n_tgt = n, .tgt_pos = P, .vel = U, .grad = G, .n_grad = n / 2};
  int rc = direct ? fmm_direct(ctx, &io, st, err, sizeof err) : fmm_evaluate(ctx, &io, st, err, sizeof err);
  if (rc) { printf("%s on %s: %s\n", direct ? "direct" : "fmm", vx_backend_name(be), err); exit(EXIT_FAILURE); }
  for (int i = 0; i < 3 * n; ++i) u[i] = fl ? ((float *)U)[i] : ((double *)U)[i];
  /* n_grad = n/2: velocity-only targets (tracers) take the shorter cut-off; rows beyond are not written */
  for (int i = 0; i < 9 * n; ++i) g[i] = i < 9 * (n / 2) ? (fl ? ((float *)G)[i] : ((double *)G)[i]) : 0.0;
  free(P), free(S), free(U), free(G);
  fmm_destroy(ctx);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  const int n = 20000;
  double *pos = malloc(sizeof(double) * 3 * n), *str = malloc(sizeof(double) * 3 * n);
  double *u1 = malloc(sizeof(double) * 3 * n), *g1 = malloc(sizeof(double) * 9 * n);
  double *u2 = malloc(sizeof(double) * 3 * n), *g2 = malloc(sizeof(double) * 9 * n);
  /* ring points with random strengths (uniform in [-1, 1]^3): no symmetry hides a missed pair */
  vx_pointset(VX_DIST_RINGS, n, 21, pos, str);
  uint64_t s = 77;
  for (int i = 0; i < 3 * n; ++i) str[i] = 2.0 * vx_rng_uniform(&s) - 1.0;
  const double cores[2] = {0.003, 0.04};
  const int levels[2] = {0, 6};
  char what[200];
  for (int kern = VX_KERNEL_POLY; kern <= VX_KERNEL_GAUSS; ++kern)
    for (int c = 0; c < 2; ++c)
      for (int l = 0; l < 2; ++l)
        for (int prec = 0; prec < 2; ++prec) {
          fmm_params prm = fmm_params_default();
          vx_test_one_tree_fmm(&prm);
          prm.kernel = (vx_kernel)kern;
          prm.sigma = cores[c];
          prm.levels = levels[l];
          prm.precision = prec ? VX_FLOAT : VX_DOUBLE;
          prm.order = 8;
          prm.reg_correct = 1; /* the leaf-size level with corrections, not the capped tree */
          fmm_stats sc, sg;
          eval(VX_BACKEND_CPU, prm, 0, n, pos, str, u1, g1, &sc);
          eval(VX_BACKEND_CUDA, prm, 0, n, pos, str, u2, g2, &sg);
          /* float, thick core at level 6: the corrections cancel singular far-field terms up to
           * ~60x the result, and float's rounding of those shows. Each backend's own rounding there
           * (float against double on one tree, CPU, Rosenhead-Moore) is 4.5e-5; GPU vs CPU is about
           * 3.6e-5, the two summing the pairs in different orders */
          const double thr = prec ? (c == 1 && l == 1 ? 8e-5 : 1e-5) : 1e-12;
          const double e = fmax(vx_twin_rel_l2(u2, u1, 3 * (size_t)n), vx_twin_rel_l2(g2, g1, 9 * (size_t)n));
          snprintf(what, sizeof what, "GPU vs CPU FMM %-5s sigma=%.3f level %d %s: velocity and gradient",
                   vx_kernel_name((vx_kernel)kern), cores[c], sg.levels, prec ? "float " : "double");
          report(e <= thr, what, e, thr);
          snprintf(what, sizeof what, "  same level, r_cut and reg_err on both (r_cut %.3g, reg_err %.1e)", sg.r_cut, sg.reg_err);
          int same = sc.levels == sg.levels && sc.r_cut == sg.r_cut && sc.reg_err == sg.reg_err;
          report(same, what, same ? 0.0 : 1.0, 0);
        }
  /* GPU FMM vs GPU direct: thick Gaussian core at level 6 (σ = 4 leaf widths), p = 12, double.
   * With random-sign strengths the smooth regularized field is small against the singular far
   * field that the corrections cancel, so the truncation error is large relative to it: measured
   * 1.85e-4 / 1.38e-2 (docs/MATH.md §10) */
  {
    fmm_params prm = fmm_params_default();
    vx_test_one_tree_fmm(&prm);
    prm.kernel = VX_KERNEL_GAUSS;
    prm.sigma = 0.04;
    prm.levels = 6;
    prm.order = 12;
    fmm_stats st;
    eval(VX_BACKEND_CUDA, prm, 1, n, pos, str, u1, g1, &st);
    eval(VX_BACKEND_CUDA, prm, 0, n, pos, str, u2, g2, &st);
    double ev = vx_twin_rel_l2(u2, u1, 3 * (size_t)n), eg = vx_twin_rel_l2(g2, g1, 9 * (size_t)n);
    report(ev <= 4e-4, "GPU FMM vs GPU direct, gauss sigma=0.04 level 6 p=12: velocity", ev, 4e-4);
    report(eg <= 3e-2, "GPU FMM vs GPU direct, gauss sigma=0.04 level 6 p=12: gradient", eg, 3e-2);
  }
  free(pos), free(str), free(u1), free(g1), free(u2), free(g2);
  if (failures) { printf("%d failure(s)\n", failures); return EXIT_FAILURE; }
  printf("all GPU regularization checks passed\n");
  return EXIT_SUCCESS;
}
