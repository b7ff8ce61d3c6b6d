/* test_fmm.c — FMM against direct summation (CPU backend): velocity and gradient on uniform,
 * sphere and rings point sets. The relative L2 error must fall exponentially with the order p and
 * reach 1e-10 in double at p = 20 (sphere, rings; uniform random: p = 32, 2e-10); float must reach
 * its round-off floor. Also a regularized (Gaussian) kernel, the M2L's source-degree cut against the
 * full order, and p = 0, 1 edge orders. Fixed seeds, explicit thresholds. CTest runs it again with
 * VX_CPU_SIMD=baseline and =avx2: the pair loops of each instruction set (fmm_cpu_simd). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "fmm_internal.h" /* the context's translation tables, rebuilt without the M2L cut */
#include "pointsets.h"

static int failures = 0;

typedef struct { double vel, grad, p99, max; } errs;

/* Run the FMM with prm on n points of dist and compare with direct summation in double. full_m2l:
 * the M2L reads every multipole degree at every offset (tables rebuilt with tau = 0), else the
 * engine's own cut (VX_M2L_CUT_TAU). */
static errs run_m2l(vx_dist dist, int n, fmm_params prm, uint64_t seed, int full_m2l) {
  double *pos = malloc(sizeof(double) * 3 * n), *str = malloc(sizeof(double) * 3 * n);
  double *uref = malloc(sizeof(double) * 3 * n), *gref = malloc(sizeof(double) * 9 * n);
  double *u = malloc(sizeof(double) * 3 * n), *g = malloc(sizeof(double) * 9 * n);
  vx_pointset(dist, n, seed, pos, str);
  /* a float run is judged on its own (rounded) inputs: round them before the reference */
  if (prm.precision == VX_FLOAT)
    for (int i = 0; i < 3 * n; ++i) { pos[i] = (float)pos[i]; str[i] = (float)str[i]; }
  char err[256];
  fmm_params dp = prm;
  dp.precision = VX_DOUBLE;
  fmm_ctx *dctx = fmm_create(&dp, err, sizeof err);
  if (!dctx) { printf("fmm_create: %s\n", err); exit(EXIT_FAILURE); }
  fmm_io io = {.n_src = n, .src_pos = pos, .src_str = str, .n_tgt = n, .tgt_pos = pos, .vel = uref, .grad = gref, .on_device = 0};
  if (fmm_direct(dctx, &io, NULL, err, sizeof err)) { printf("direct: %s\n", err); exit(EXIT_FAILURE); }
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  if (!ctx) { printf("fmm_create: %s\n", err); exit(EXIT_FAILURE); }
  if (full_m2l) { /* the CPU backend (fmm_params_default's) reads ctx->tab at every evaluation */
    fmm_tables_free(&ctx->tab);
    if (fmm_tables_build_tau(&ctx->tab, prm.order, 0.0, err, sizeof err)) { printf("tables: %s\n", err); exit(EXIT_FAILURE); }
  }
  if (prm.precision == VX_FLOAT) {
    float *pf = malloc(sizeof(float) * 3 * n), *sf = malloc(sizeof(float) * 3 * n);
    float *uf = malloc(sizeof(float) * 3 * n), *gf = malloc(sizeof(float) * 9 * n);
    for (int i = 0; i < 3 * n; ++i) { pf[i] = (float)pos[i]; sf[i] = (float)str[i]; }
    fmm_io fio = {.n_src = n, .src_pos = pf, .src_str = sf, .n_tgt = n, .tgt_pos = pf, .vel = uf, .grad = gf, .on_device = 0};
    if (fmm_evaluate(ctx, &fio, NULL, err, sizeof err)) { printf("fmm: %s\n", err); exit(EXIT_FAILURE); }
    for (int i = 0; i < 3 * n; ++i) u[i] = uf[i];
    for (int i = 0; i < 9 * n; ++i) g[i] = gf[i];
    free(pf); free(sf); free(uf); free(gf);
  } else {
    fmm_io fio = {.n_src = n, .src_pos = pos, .src_str = str, .n_tgt = n, .tgt_pos = pos, .vel = u, .grad = g, .on_device = 0};
    if (fmm_evaluate(ctx, &fio, NULL, err, sizeof err)) { printf("fmm: %s\n", err); exit(EXIT_FAILURE); }
  }
  double nu = 0, du = 0, ng = 0, dg = 0;
  double *e = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) {
    double d2 = 0;
    for (int c = 0; c < 3; ++c) { d2 += (u[3 * i + c] - uref[3 * i + c]) * (u[3 * i + c] - uref[3 * i + c]); nu += uref[3 * i + c] * uref[3 * i + c]; }
    du += d2; e[i] = sqrt(d2);
    for (int c = 0; c < 9; ++c) { dg += (g[9 * i + c] - gref[9 * i + c]) * (g[9 * i + c] - gref[9 * i + c]); ng += gref[9 * i + c] * gref[9 * i + c]; }
  }
  double rms = sqrt(nu / n), mx = 0;
  for (int i = 0; i < n; ++i) { e[i] /= rms; if (e[i] > mx) mx = e[i]; }
  /* 99th percentile by partial selection: count how many exceed a bisected threshold */
  double lo = 0, hi = mx;
  for (int it = 0; it < 60; ++it) {
    double mid = 0.5 * (lo + hi); int c = 0;
    for (int i = 0; i < n; ++i) c += e[i] > mid;
    if (c > n / 100) lo = mid; else hi = mid;
  }
  errs r = {sqrt(du / nu), sqrt(dg / ng), hi, mx};
  free(e); free(pos); free(str); free(uref); free(gref); free(u); free(g);
  fmm_destroy(ctx); fmm_destroy(dctx);
  return r;
}

static errs run(vx_dist dist, int n, fmm_params prm, uint64_t seed) { return run_m2l(dist, n, prm, seed, 0); }

static void check(int ok, const char *what) {
  if (!ok) { printf("FAIL: %s\n", what); failures++; }
}

int main(void) {
  const vx_dist dists[3] = {VX_DIST_UNIFORM, VX_DIST_SPHERE, VX_DIST_RINGS};
  const int orders[6] = {4, 8, 12, 16, 20, 32};
  const int n = 3000;
  char what[256];
  printf("CPU pair loops: %s (VX_CPU_SIMD lowers it)\n", fmm_simd_name(fmm_cpu_simd()));
  for (int d = 0; d < 3; ++d) {
    double prev_v = 1, prev_g = 1;
    for (int k = 0; k < 6; ++k) {
      if (orders[k] == 32 && dists[d] != VX_DIST_UNIFORM) continue;
      fmm_params prm = fmm_params_default();
      prm.order = orders[k];
      prm.levels = 3;
      errs e = run(dists[d], n, prm, 7 + d);
      printf("double %-8s p=%2d  err_vel %.3e  err_grad %.3e  p99 %.3e  max %.3e\n", vx_dist_name(dists[d]), orders[k], e.vel,
             e.grad, e.p99, e.max);
      /* exponential decay: each +4 in p gains at least 4x until round-off (~1e-14) */
      snprintf(what, sizeof what, "%s double p=%d: velocity error %.3e not 4x below p-4's %.3e", vx_dist_name(dists[d]),
               orders[k], e.vel, prev_v);
      if (k > 0) check(e.vel < 0.25 * prev_v || e.vel < 1e-13, what);
      snprintf(what, sizeof what, "%s double p=%d: gradient error %.3e not 4x below p-4's %.3e", vx_dist_name(dists[d]),
               orders[k], e.grad, prev_g);
      if (k > 0) check(e.grad < 0.25 * prev_g || e.grad < 1e-13, what);
      snprintf(what, sizeof what, "%s double p=%d: p99/max %.3e/%.3e not bounded by 10x/100x the L2 error", vx_dist_name(dists[d]),
               orders[k], e.p99, e.max);
      check(e.p99 < 10 * e.vel + 1e-14 && e.max < 100 * e.vel + 1e-14, what); /* p99/L2 measured 3.2-4.6 */
      if (orders[k] == 20 && dists[d] != VX_DIST_UNIFORM) {
        snprintf(what, sizeof what, "%s double p=20: err_vel %.3e / err_grad %.3e above 1e-10", vx_dist_name(dists[d]), e.vel, e.grad);
        check(e.vel <= 1e-10 && e.grad <= 1e-10, what);
      }
      if (orders[k] == 32) {
        /* random-sign strengths in a uniform cube are the hardest case (far-field cancellation);
         * docs/MATH.md §7 */
        snprintf(what, sizeof what, "uniform double p=32: err_vel %.3e above 2e-10 or err_grad %.3e above 1e-10", e.vel, e.grad);
        check(e.vel <= 2e-10 && e.grad <= 1e-10, what);
      }
      prev_v = e.vel; prev_g = e.grad;
    }
    /* float: p = 8 reaches ~1e-6; raising p gains nothing beyond the round-off floor */
    fmm_params prm = fmm_params_default();
    prm.precision = VX_FLOAT;
    prm.levels = 3;
    prm.order = 8;
    errs f8 = run(dists[d], n, prm, 7 + d);
    prm.order = 14;
    errs f14 = run(dists[d], n, prm, 7 + d);
    printf("float  %-8s p= 8  err_vel %.3e  err_grad %.3e | p=14 err_vel %.3e  err_grad %.3e\n", vx_dist_name(dists[d]), f8.vel,
           f8.grad, f14.vel, f14.grad);
    snprintf(what, sizeof what, "%s float: err_vel %.3e (p=8) / %.3e (p=14) not near single round-off", vx_dist_name(dists[d]), f8.vel,
             f14.vel);
    check(f8.vel < 1e-4 && f14.vel < 2e-6 && f14.vel > 1e-9, what);
  }
  /* regularized kernel: same kernel in FMM and direct; the level cap (FMM_REG_CAP) keeps the far
   * field exact to reg_tol, the default (FMM_REG_AUTO) corrects within r_c below leaves 2σ wide; p = 12 */
  for (int mode = 0; mode < 2; ++mode) {
    fmm_params prm = fmm_params_default();
    prm.order = 12;
    prm.kernel = VX_KERNEL_GAUSS;
    prm.sigma = 0.004;
    prm.leaf_size = 16;
    prm.reg_correct = mode ? FMM_REG_AUTO : FMM_REG_CAP;
    errs e = run(VX_DIST_RINGS, n, prm, 3);
    printf("gauss sigma=0.004 rings p=12 %s  err_vel %.3e err_grad %.3e\n", mode ? "auto" : "cap ", e.vel, e.grad);
    /* measured: cap 6.8e-7 / 2.7e-6, auto 1.58e-6 / 1.73e-5 */
    if (!mode) check(e.vel < 1e-6 && e.grad < 1e-5, "gaussian kernel, capped, FMM vs direct above 1e-6 / 1e-5");
    else check(e.vel < 3e-6 && e.grad < 3e-5, "gaussian kernel, auto, FMM vs direct above 3e-6 / 3e-5");
  }
  /* the M2L's source-degree cut (docs/MATH.md §13), the engine's only behaviour, against the full
   * order at every offset (the same FMM with tables built at tau = 0): errors against direct
   * summation within 5 % of the full order's (0.99-1.03x at p = 8, 12, 20) */
  for (int d = 0; d < 3; d += 2)
    for (int k = 1; k < 5; k += 3) {
      fmm_params prm = fmm_params_default();
      prm.order = orders[k] == 16 ? 12 : orders[k];
      prm.levels = 3;
      errs cut = run_m2l(dists[d], n, prm, 7 + d, 0);
      errs full = run_m2l(dists[d], n, prm, 7 + d, 1);
      printf("M2L cut %-8s p=%2d  err_vel %.3e (full order %.3e)  err_grad %.3e (%.3e)\n", vx_dist_name(dists[d]),
             prm.order, cut.vel, full.vel, cut.grad, full.grad);
      snprintf(what, sizeof what, "%s p=%d: the M2L cut's errors %.3e / %.3e above 1.05x the full order's %.3e / %.3e",
               vx_dist_name(dists[d]), prm.order, cut.vel, cut.grad, full.vel, full.grad);
      check(cut.vel <= 1.05 * full.vel && cut.grad <= 1.05 * full.grad, what);
    }
  /* a context's tables carry the cut at VX_M2L_CUT_TAU, and it drops degrees at p = 8 */
  {
    char err[256] = "";
    fmm_params prm = fmm_params_default();
    prm.order = 8;
    fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
    int same = ctx != NULL, cut = 0;
    for (int g = 0; same && g < VX_GEO_N; ++g) {
      same &= ctx->tab.m2l_deg[g] == fmm_m2l_degree(8, ctx->tab.geo_len[g], VX_M2L_CUT_TAU);
      cut |= ctx->tab.m2l_deg[g] < 8;
    }
    printf("M2L cut in the context's tables (p = 8): %s\n", same && cut ? "ok" : "FAIL");
    check(same && cut, "the context's M2L degrees are not fmm_m2l_degree's at VX_M2L_CUT_TAU, or cut nothing at p = 8");
    fmm_destroy(ctx);
  }
  /* n_grad: gradient only for the first half of the targets; velocities unchanged, gradients of
   * the first half identical, the rest untouched */
  {
    const int m = 2000;
    double *pos = malloc(sizeof(double) * 3 * m), *str = malloc(sizeof(double) * 3 * m);
    double *u1 = malloc(sizeof(double) * 3 * m), *g1 = malloc(sizeof(double) * 9 * m);
    double *u2 = malloc(sizeof(double) * 3 * m), *g2 = malloc(sizeof(double) * 9 * m);
    vx_pointset(VX_DIST_RINGS, m, 5, pos, str);
    char err[256];
    fmm_params prm = fmm_params_default();
    prm.kernel = VX_KERNEL_GAUSS;
    prm.sigma = 0.002;
    fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
    for (int i = 0; i < 9 * m; ++i) g2[i] = -12345.0;
    fmm_io a = {m, pos, str, m, pos, u1, g1, 0, 0, FMM_TREE_BUILD, 0, NULL}, b = {m, pos, str, m, pos, u2, g2, 0, m / 2, FMM_TREE_BUILD, 0, NULL};
    int bad = !ctx || fmm_evaluate(ctx, &a, NULL, err, sizeof err) || fmm_evaluate(ctx, &b, NULL, err, sizeof err);
    for (int i = 0; !bad && i < 3 * m; ++i) bad |= u1[i] != u2[i];
    for (int i = 0; !bad && i < 9 * m; ++i) bad |= (i < 9 * (m / 2)) ? g1[i] != g2[i] : g2[i] != -12345.0;
    for (int d = 0; !bad && d < 2; ++d) { /* the direct sum honours n_grad too */
      for (int i = 0; i < 9 * m; ++i) g2[i] = -12345.0;
      bad |= fmm_direct(ctx, &b, NULL, err, sizeof err) || fmm_direct(ctx, &a, NULL, err, sizeof err);
      for (int i = 9 * (m / 2); !bad && i < 9 * m; ++i) bad |= g2[i] != -12345.0;
    }
    printf("n_grad = n/2: velocities and first-half gradients identical, rest untouched: %s\n", bad ? "FAIL" : "ok");
    check(!bad, "n_grad");
    fmm_destroy(ctx);
    free(pos); free(str); free(u1); free(g1); free(u2); free(g2);
  }
  /* degenerate orders still give the near field + monopole/dipole far field: measured 7.2e-2
   * (p = 0) and 2.3e-2 (p = 1), and the dipole must help */
  double low[2];
  for (int p = 0; p <= 1; ++p) {
    fmm_params prm = fmm_params_default();
    prm.order = p;
    prm.levels = 2;
    errs e = run(VX_DIST_UNIFORM, 500, prm, 11);
    printf("uniform p=%d err_vel %.3e\n", p, e.vel);
    low[p] = e.vel;
  }
  check(low[0] < 0.2 && low[1] < 0.07 && low[1] < low[0], "low-order errors within 0.2 (p = 0) and 0.07 (p = 1), p = 1 below p = 0");
  if (failures) { printf("%d failure(s)\n", failures); return EXIT_FAILURE; }
  printf("all FMM accuracy checks passed\n");
  return EXIT_SUCCESS;
}
