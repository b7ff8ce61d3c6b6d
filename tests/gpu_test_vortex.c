/* gpu_test_vortex.c — the CUDA half of the vortex module against its CPU twin (label gpu).
 *  1. The stage kernel and the CPU loop (both around stage_t.h) on random inputs, every stage
 *     kind and stretching scheme, double and float: |gpu - cpu| <= atol + rtol·|cpu|.
 *  1b. The relaxation kernel and the conservative correction (conserve_gpu.cu against conserve.c):
 *     relaxed and corrected strengths to round-off, the moments to 1e-12, W and I restored.
 *  1c. The reprojection (reproject_gpu.cu against reproject.c) of random elements: the changes to
 *     round-off, then the strengths after it and the rms ratio it reports.
 *  2. The blow-up reduction: max|α|, max|∇u| and the NaN/Inf flag equal on both backends.
 *  2a. The kernel energy E_σ (energy_gpu.cu against diag.c's host sum) of random particles, every
 *     kernel with a stream function, double and float: to 1e-12 (the same pairs, summed in
 *     another order).
 *  2b. Remeshing (remesh.c vs remesh_gpu.cu) of random particles, double and float, with and
 *     without diffusion and drop: the same nodes in the same order, strengths to round-off.
 *  3. Every scene in assets/ (tracers cut to 2048) for 10 RK4 steps on both backends: ring
 *     centroids and radii, impulse, total vorticity, max|α| (the diagnostics) and tracer
 *     positions agree, relative to the ring radius / strength scale, to per-case tolerances about
 *     5x the larger of two measurements (H200 and H100, docs/VALIDATION.md, "GPU against CPU"):
 *     round-off grown over 10 steps in double,
 *     float's rounding for the float run; the values measured are beside each case in main().
 * Exits 77 (skipped) when no CUDA device is usable. Run: ctest -L gpu --output-on-failure */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conserve.h"
#include "diag.h"
#include "remesh.h"
#include "reproject.h"
#include "sim.h"
#include "sim_gpu.h"
#include "stage.h"
#include "test_check.h"
#include "test_vortex.h"

static uint64_t rng = 12345;
static double urand(void) { return vx_test_lcg11(&rng); } /* in [-1, 1) */

/* ---------------------------------------------------------------- 1. stage kernel twin */

/* The worst |gpu - cpu| / (atol + rtol·|cpu|) of the stage cases so far, per precision. */
static double stage_worst[2];

static void stage_case(vx_precision prec, int first, int last, int stretching) {
  const int ne = 3001, nt = 10007;
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double);
  size_t sz[8] = {3 * (size_t)nt, 3 * (size_t)ne, 3 * (size_t)nt, 3 * (size_t)ne, 3 * (size_t)nt, 3 * (size_t)ne,
                  3 * (size_t)nt, 9 * (size_t)nt};
  void *h[8], *g[8], *d[8];
  char err[256];
  for (int k = 0; k < 8; ++k) {
    h[k] = malloc(sz[k] * rs);
    g[k] = malloc(sz[k] * rs);
    if (!h[k] || !g[k]) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
    for (size_t i = 0; i < sz[k]; ++i) {
      double v = urand();
      if (prec == VX_FLOAT) ((float *)h[k])[i] = (float)v; else ((double *)h[k])[i] = v;
    }
    if (vx_device_alloc(&d[k], sz[k] * rs, err, sizeof err) || vx_device_upload(d[k], h[k], sz[k] * rs, err, sizeof err)) {
      FAIL("device setup: %s", err);
      return;
    }
  }
  vx_stage_args a;
  memset(&a, 0, sizeof a);
  a.n_elem = ne; a.n_tot = nt; a.stretching = stretching;
  a.first = first; a.last = last; a.w = 1.0 / 3.0; a.c = 0.5; a.dt = 0.01;
  vx_stage_args ah = a, ad = a;
  ah.pos = h[0]; ah.alpha = h[1]; ah.pos0 = h[2]; ah.alpha0 = h[3]; ah.acc_pos = h[4]; ah.acc_alpha = h[5]; ah.vel = h[6]; ah.grad = h[7];
  ad.pos = d[0]; ad.alpha = d[1]; ad.pos0 = d[2]; ad.alpha0 = d[3]; ad.acc_pos = d[4]; ad.acc_alpha = d[5]; ad.vel = d[6]; ad.grad = d[7];
  for (int t = 0; t < nt; ++t) {
    if (prec == VX_FLOAT) vx_stage_target_f(&ah, t); else vx_stage_target_d(&ah, t);
  }
  if (vx_gpu_stage(prec, &ad, err, sizeof err)) { FAIL("stage kernel: %s", err); return; }
  double atol = prec == VX_FLOAT ? 1e-6 : 1e-14, rtol = prec == VX_FLOAT ? 1e-5 : 1e-13, worst = 0.0;
  for (int k = 0; k < 6; ++k) {
    if (vx_device_download(g[k], d[k], sz[k] * rs, err, sizeof err)) { FAIL("download: %s", err); return; }
    for (size_t i = 0; i < sz[k]; ++i) {
      double c = prec == VX_FLOAT ? ((float *)h[k])[i] : ((double *)h[k])[i];
      double x = prec == VX_FLOAT ? ((float *)g[k])[i] : ((double *)g[k])[i];
      double e = fabs(x - c) / (atol + rtol * fabs(c));
      if (e > worst) worst = e;
    }
  }
  if (worst > stage_worst[prec == VX_FLOAT]) stage_worst[prec == VX_FLOAT] = worst;
  if (worst > 1.0)
    FAIL("stage kernel (%s, first %d, last %d, stretching %d) differs from the CPU loop: %.2f x tolerance",
         prec == VX_FLOAT ? "float" : "double", first, last, stretching, worst);
  for (int k = 0; k < 8; ++k) { free(h[k]); free(g[k]); vx_device_free(d[k]); }
}

/* ---------------------------------------------------------------- 1a. the tracers' settle kernel */

static void *random_twin(vx_precision prec, size_t n, double offset, void **d);

/* vx_gpu_settle against the CPU loop of vx_settle_target on random positions (sim_tracers.c: sim_tracers_settle_move). */
static void settle_case(vx_precision prec, double f, double gh) {
  const int n = 10007;
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double), m = 3 * (size_t)n;
  void *dp, *d0, *da;
  void *hp = random_twin(prec, m, 0.5, &dp), *h0 = random_twin(prec, m, 0.5, &d0), *ha = random_twin(prec, m, 0.0, &da);
  void *g = malloc(m * rs);
  char err[256];
  if (!g) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  for (int t = 0; t < n; ++t) {
    if (prec == VX_FLOAT) vx_settle_target_f((float *)hp, (const float *)h0, (const float *)ha, (float)f, (float)gh, t);
    else vx_settle_target_d((double *)hp, (const double *)h0, (const double *)ha, f, gh, t);
  }
  if (vx_gpu_settle(prec, dp, d0, da, n, f, gh, err, sizeof err) || vx_gpu_sync(err, sizeof err) ||
      vx_device_download(g, dp, m * rs, err, sizeof err)) {
    FAIL("settle kernel: %s", err);
    return;
  }
  double worst = 0.0, ulp = prec == VX_FLOAT ? 1.2e-7 : 2.3e-16;
  for (size_t i = 0; i < m; ++i) {
    double c = prec == VX_FLOAT ? ((float *)hp)[i] : ((double *)hp)[i], x = prec == VX_FLOAT ? ((float *)g)[i] : ((double *)g)[i];
    worst = fmax(worst, fabs(x - c) / (ulp * (1.0 + fabs(c))));
  }
  /* the same two operations on each side; a fused multiply-add on the device may round once less */
  printf("settle kernel vs CPU loop (%s, f = %g, gH = %g): %.2f ulp\n", prec == VX_FLOAT ? "float" : "double", f, gh, worst);
  if (!(worst <= 2.0)) FAIL("settle kernel (%s) differs from the CPU loop by %.2f ulp", prec == VX_FLOAT ? "float" : "double", worst);
  free(hp), free(h0), free(ha), free(g);
  vx_device_free(dp), vx_device_free(d0), vx_device_free(da);
}

/* ---------------------------------------------------------------- 1b. relaxation + correction */

/* Fill a host array of n reals with random values in [-1, 1] (+ offset) and upload a copy. */
static void *random_twin(vx_precision prec, size_t n, double offset, void **d) {
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double);
  void *h = malloc(n * rs);
  char err[256];
  if (!h) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  for (size_t i = 0; i < n; ++i) {
    double v = urand() + offset;
    if (prec == VX_FLOAT) ((float *)h)[i] = (float)v; else ((double *)h)[i] = v;
  }
  if (vx_device_alloc(d, n * rs, err, sizeof err) || vx_device_upload(*d, h, n * rs, err, sizeof err)) {
    FAIL("device setup: %s", err);
    exit(EXIT_FAILURE);
  }
  return h;
}

/* The ring mode's correction (sim_control.c): the axial one on one ring's block, an offset run of the
 * arrays, on both sides from strengths already equal; the block's own impulse moved first by
 * scaling its strengths, so the correction has work to do. */
static void ring_block_case(vx_precision prec, void *hp, void *ha, void *dp, void *da, void *ds, void *ga, int ne, double atol) {
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double), off = 3 * rs * (size_t)(ne / 3);
  int nb = ne / 4;
  char err[256];
  double m0[VX_MOMENTS_N], dc = 0.0, dd = 0.0;
  if (vx_moments(prec, 0, (char *)hp + off, (char *)ha + off, nb, NULL, m0, err, sizeof err)) { FAIL("moments: %s", err); return; }
  for (size_t i = 0; i < 3 * (size_t)nb; ++i) {
    if (prec == VX_FLOAT) ((float *)((char *)ha + off))[i] *= 0.99f;
    else ((double *)((char *)ha + off))[i] *= 0.99;
  }
  if (vx_device_upload(da, ha, 3 * rs * ne, err, sizeof err) ||
      vx_conserve(prec, 0, (char *)hp + off, (char *)ha + off, nb, NULL, m0, m0 + 3, VX_CONSERVE_AXIAL, &dc, err, sizeof err) ||
      vx_conserve(prec, 1, (char *)dp + off, (char *)da + off, nb, ds, m0, m0 + 3, VX_CONSERVE_AXIAL, &dd, err, sizeof err) ||
      vx_device_download(ga, da, 3 * rs * ne, err, sizeof err)) { FAIL("ring block: %s", err); return; }
  double worst = 0.0;
  for (size_t i = 0; i < 3 * (size_t)ne; ++i) {
    double c = prec == VX_FLOAT ? ((float *)ha)[i] : ((double *)ha)[i], x = prec == VX_FLOAT ? ((float *)ga)[i] : ((double *)ga)[i];
    worst = fmax(worst, fabs(x - c) / (atol + 10 * atol * fabs(c)));
  }
  /* what is put back is measured against max(|I0|, ½ Σ|α| L) (conserve.h), for these random
   * strengths mostly the second: 1.2e-4 (double) and 3.9e-4 (float) on the H200 */
  if (worst > 1.0 || !(dc > 5e-5) || fabs(dd - dc) > 1e-5 * dc)
    FAIL("ring block (%s): device vs host %.2f x tolerance, |dI|/|I| put back device %.6g, host %.6g", prec == VX_FLOAT ? "float" : "double",
         worst, dd, dc);
  printf("ring block correction (%s): |dI|/|I| put back %.3g, worst %.3f x tolerance\n", prec == VX_FLOAT ? "float" : "double", dc, worst);
}

static void relax_conserve_case(vx_precision prec) {
  const int ne = 50021;
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double);
  void *dp, *da, *dg, *ds;
  void *hp = random_twin(prec, 3 * (size_t)ne, 2.0, &dp), *ha = random_twin(prec, 3 * (size_t)ne, 0.0, &da);
  void *hg = random_twin(prec, 9 * (size_t)ne, 0.0, &dg), *ga = malloc(3 * rs * ne);
  char err[256];
  double m0[VX_MOMENTS_N], md[VX_MOMENTS_N], mc[VX_MOMENTS_N], dc = 0.0, dd = 0.0;
  if (!ga || vx_device_alloc(&ds, VX_CONSERVE_SCRATCH, err, sizeof err)) { FAIL("setup: %s", err); exit(EXIT_FAILURE); }
  if (vx_moments(prec, 0, hp, ha, ne, NULL, m0, err, sizeof err) ||
      vx_moments(prec, 1, dp, da, ne, ds, md, err, sizeof err)) { FAIL("moments: %s", err); return; }
  for (int c = 0; c < VX_MOMENTS_N; ++c)
    if (fabs(md[c] - m0[c]) > 1e-12 * (fabs(m0[c]) + m0[6])) FAIL("moment %d: device %.17g, host %.17g", c, md[c], m0[c]);
  for (int t = 0; t < ne; ++t) {
    if (prec == VX_FLOAT) vx_relax_f(0.3f, (const float *)hg + 9 * (size_t)t, (float *)ha + 3 * (size_t)t);
    else vx_relax_d(0.3, (const double *)hg + 9 * (size_t)t, (double *)ha + 3 * (size_t)t);
  }
  if (vx_gpu_relax(prec, da, dg, ne, 0.3, err, sizeof err)) { FAIL("relax kernel: %s", err); return; }
  if (vx_conserve(prec, 0, hp, ha, ne, NULL, m0, m0 + 3, VX_CONSERVE_FULL, &dc, err, sizeof err) ||
      vx_conserve(prec, 1, dp, da, ne, ds, m0, m0 + 3, VX_CONSERVE_FULL, &dd, err, sizeof err) ||
      vx_device_download(ga, da, 3 * rs * ne, err, sizeof err)) { FAIL("conserve: %s", err); return; }
  double atol = prec == VX_FLOAT ? 1e-6 : 1e-14, worst = 0.0;
  for (size_t i = 0; i < 3 * (size_t)ne; ++i) {
    double c = prec == VX_FLOAT ? ((float *)ha)[i] : ((double *)ha)[i], x = prec == VX_FLOAT ? ((float *)ga)[i] : ((double *)ga)[i];
    double e = fabs(x - c) / (atol + 10 * atol * fabs(c));
    if (e > worst) worst = e;
  }
  if (worst > 1.0) FAIL("relaxed + corrected strengths (%s): device vs host %.2f x tolerance", prec == VX_FLOAT ? "float" : "double", worst);
  if (fabs(dd - dc) > (prec == VX_FLOAT ? 1e-6 : 1e-12) * dc || !(dc > 0.0)) FAIL("relaxation's impulse change: device %.6g, host %.6g", dd, dc);
  if (vx_moments(prec, 1, dp, da, ne, ds, mc, err, sizeof err)) { FAIL("moments: %s", err); return; }
  double tol = prec == VX_FLOAT ? 1e-5 : 1e-12; /* float: the strengths' own rounding */
  for (int c = 0; c < 6; ++c)
    if (fabs(mc[c] - m0[c]) > tol * m0[6]) FAIL("invariant %d after the correction: %.10g, before %.10g", c, mc[c], m0[c]);
  printf("relaxation + correction (%s): |dI|/|I| put back %.3g, worst %.3f x tolerance\n", prec == VX_FLOAT ? "float" : "double", dc, worst);
  ring_block_case(prec, hp, ha, dp, da, ds, ga, ne, atol);
  free(hp); free(ha); free(hg); free(ga);
  vx_device_free(dp); vx_device_free(da); vx_device_free(dg); vx_device_free(ds);
}

/* The reprojection (reproject_gpu.cu against reproject.c) of random elements: δ to round-off (the
 * same neighbours in the same order; float: the exponentials' rounding), then the whole step, α −= δ
 * with the rms ratio, on both. */
static void reproject_case(vx_precision prec) {
  const int ne = 20011;
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double);
  void *dp, *da, *dg, *dd;
  void *hp = random_twin(prec, 3 * (size_t)ne, 2.0, &dp), *ha = random_twin(prec, 3 * (size_t)ne, 0.0, &da);
  void *hg = random_twin(prec, 9 * (size_t)ne, 0.0, &dg), *hd = malloc(3 * rs * ne), *gd = malloc(3 * rs * ne);
  char err[256];
  vx_reproject_geom G = vx_reproject_geom_make(0.08, 0.8, 0.05);
  vx_reproject_ws wc = {0}, wg = {0};
  double rc = 0.0, rg = 0.0;
  if (!hd || !gd || vx_device_alloc(&dd, 3 * rs * ne, err, sizeof err)) { FAIL("setup: %s", err); exit(EXIT_FAILURE); }
  if (vx_reproject_delta_cpu(prec, hp, ha, ne, hp, ha, hg, ne, &G, &wc, hd, err, sizeof err) ||
      vx_reproject_delta_gpu(prec, dp, da, dg, ne, &G, &wg, dd, err, sizeof err) ||
      vx_device_download(gd, dd, 3 * rs * ne, err, sizeof err)) { FAIL("reproject: %s", err); return; }
  double worst = 0.0, s2 = 0.0;
  for (size_t i = 0; i < 3 * (size_t)ne; ++i) {
    double c = prec == VX_FLOAT ? ((float *)hd)[i] : ((double *)hd)[i], x = prec == VX_FLOAT ? ((float *)gd)[i] : ((double *)gd)[i];
    worst = fmax(worst, fabs(x - c)), s2 += c * c;
  }
  worst /= sqrt(s2 / (3.0 * ne));
  double tol = prec == VX_FLOAT ? 1e-5 : 1e-13;
  if (!(worst <= tol)) FAIL("reprojection delta (%s): device vs host %.3g of the rms delta", prec == VX_FLOAT ? "float" : "double", worst);
  if (vx_reproject(prec, 0, hp, ha, hg, ne, &G, &wc, &rc, err, sizeof err) ||
      vx_reproject(prec, 1, dp, da, dg, ne, &G, &wg, &rg, err, sizeof err) ||
      vx_device_download(gd, da, 3 * rs * ne, err, sizeof err)) { FAIL("reproject: %s", err); return; }
  double wa = 0.0;
  for (size_t i = 0; i < 3 * (size_t)ne; ++i) {
    double c = prec == VX_FLOAT ? ((float *)ha)[i] : ((double *)ha)[i], x = prec == VX_FLOAT ? ((float *)gd)[i] : ((double *)gd)[i];
    wa = fmax(wa, fabs(x - c));
  }
  if (!(wa <= tol * rc * 10.0 + (prec == VX_FLOAT ? 1e-6 : 1e-15)) || !(fabs(rg - rc) <= tol * rc) || !(rc > 0.0))
    FAIL("reprojection (%s): strengths differ by %.3g, rms ratio device %.9g host %.9g", prec == VX_FLOAT ? "float" : "double", wa, rg, rc);
  printf("reprojection (%s): delta %.2g of its rms apart, rms ratio %.4g on both\n", prec == VX_FLOAT ? "float" : "double", worst, rc);
  vx_reproject_ws_free(&wc, 0), vx_reproject_ws_free(&wg, 1);
  free(hp), free(ha), free(hg), free(hd), free(gd);
  vx_device_free(dp), vx_device_free(da), vx_device_free(dg), vx_device_free(dd);
}

/* ---------------------------------------------------------------- 2. reduction */

static void health_case(vx_precision prec, int inject_nan) {
  const int ne = 70001, nt = 200003;
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double);
  void *hp = malloc(3 * rs * nt), *ha = malloc(3 * rs * ne), *hg = malloc(9 * rs * nt), *dp, *da, *ds, *dg;
  if (!hp || !ha || !hg) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  double want = 0.0, want_g = 0.0;
  for (int i = 0; i < nt; ++i) {
    double s2 = 0.0;
    for (int c = 0; c < 9; ++c) {
      double v = urand() * (i == 777 ? 5.0 : 1.0) * (i >= ne ? 100.0 : 1.0); /* tracers' rows do not count */
      if (prec == VX_FLOAT) { ((float *)hg)[9 * i + c] = (float)v; v = (float)v; } else ((double *)hg)[9 * i + c] = v;
      s2 += v * v;
    }
    if (i < ne && s2 > want_g) want_g = s2;
  }
  for (int i = 0; i < 3 * nt; ++i) {
    double v = urand();
    if (prec == VX_FLOAT) ((float *)hp)[i] = (float)v; else ((double *)hp)[i] = v;
  }
  for (int i = 0; i < ne; ++i) {
    double s2 = 0.0;
    for (int c = 0; c < 3; ++c) {
      double v = urand() * (i == 4242 ? 7.0 : 1.0);
      if (prec == VX_FLOAT) { ((float *)ha)[3 * i + c] = (float)v; v = (float)v; } else ((double *)ha)[3 * i + c] = v;
      s2 += v * v;
    }
    if (s2 > want) want = s2;
  }
  if (inject_nan) {
    if (prec == VX_FLOAT) ((float *)hp)[3 * (nt - 5) + 1] = NAN; else ((double *)hp)[3 * (nt - 5) + 1] = NAN;
  }
  char err[256];
  if (vx_device_alloc(&dp, 3 * rs * nt, err, sizeof err) || vx_device_alloc(&da, 3 * rs * ne, err, sizeof err) ||
      vx_device_alloc(&ds, 32, err, sizeof err) || vx_device_alloc(&dg, 9 * rs * nt, err, sizeof err) ||
      vx_device_upload(dg, hg, 9 * rs * nt, err, sizeof err) || vx_device_upload(dp, hp, 3 * rs * nt, err, sizeof err) ||
      vx_device_upload(da, ha, 3 * rs * ne, err, sizeof err)) {
    FAIL("device setup: %s", err);
    return;
  }
  double m2, g2;
  int bad;
  if (vx_gpu_health(prec, dp, da, dg, ne, nt, ds, &m2, &g2, &bad, err, sizeof err)) { FAIL("health: %s", err); return; }
  if (fabs(m2 - want) > 1e-12 * want) FAIL("device max|alpha|^2 %.17g != %.17g", m2, want);
  if (fabs(g2 - want_g) > 1e-12 * want_g) FAIL("device max|grad u|^2 %.17g != %.17g", g2, want_g);
  if (bad != inject_nan) FAIL("device non-finite flag %d, expected %d", bad, inject_nan);
  free(hp); free(ha); free(hg); vx_device_free(dp); vx_device_free(da); vx_device_free(ds); vx_device_free(dg);
}

/* ---------------------------------------------------------------- 2a. kernel energy */

/* n random particles in a cube of side 1 (a spread of ρ from 0 past the Gaussian's far branch at
 * σ = 0.05), the host sum over the device's own values read back in double. */
static void energy_case(vx_precision prec, vx_kernel k, int n) {
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double);
  void *dp, *da;
  void *hp = random_twin(prec, 3 * (size_t)n, 0.0, &dp), *ha = random_twin(prec, 3 * (size_t)n, 0.0, &da);
  double *xp = malloc(sizeof(double) * 6 * (size_t)n), e_gpu, sigma = 0.05;
  char err[256];
  if (!xp) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  for (size_t i = 0; i < 3 * (size_t)n; ++i) {
    xp[i] = 0.5 * (prec == VX_FLOAT ? ((float *)hp)[i] : ((double *)hp)[i]);
    xp[3 * (size_t)n + i] = prec == VX_FLOAT ? ((float *)ha)[i] : ((double *)ha)[i];
    if (prec == VX_FLOAT) ((float *)hp)[i] = (float)xp[i]; else ((double *)hp)[i] = xp[i];
  }
  if (vx_device_upload(dp, hp, 3 * rs * (size_t)n, err, sizeof err)) { FAIL("upload: %s", err); exit(EXIT_FAILURE); }
  double e_cpu = vx_energy_kernel(n, xp, xp + 3 * (size_t)n, k, sigma);
  void *scratch = NULL;
  size_t cap = 0;
  if (vx_gpu_energy_kernel(prec, dp, da, n, k, sigma, &e_gpu, &scratch, &cap, err, sizeof err)) FAIL("kernel energy: %s", err);
  else if (!(fabs(e_gpu - e_cpu) <= 1e-12 * fabs(e_cpu)))
    FAIL("kernel energy (kernel %d, %s, n %d): device %.17g, host %.17g", (int)k, prec == VX_FLOAT ? "float" : "double", n, e_gpu,
         e_cpu);
  double e_none;
  if (vx_gpu_energy_kernel(prec, dp, da, n, VX_KERNEL_SINGULAR, sigma, &e_none, &scratch, &cap, err, sizeof err) || !isnan(e_none))
    FAIL("kernel energy of the singular kernel: %g, expected NaN", e_none);
  free(hp); free(ha); free(xp); vx_device_free(dp); vx_device_free(da); vx_device_free(scratch);
}

/* ---------------------------------------------------------------- 2b. remeshing twin */

static void remesh_case(vx_precision prec, double c2, double drop, double drop_abs) {
  const int n = 20011, ntr = 7;
  int fl = prec == VX_FLOAT;
  size_t rs = fl ? sizeof(float) : sizeof(double);
  void *hp = malloc(3 * rs * (n + ntr)), *ha = malloc(3 * rs * n), *dp, *da, *dr;
  int *hr = malloc(sizeof(int) * n);
  if (!hp || !ha || !hr) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  for (int i = 0; i < 3 * (n + ntr); ++i) vx_store(hp, fl, (size_t)i, 0.5 + 0.2 * urand());
  for (int i = 0; i < 3 * n; ++i) vx_store(ha, fl, (size_t)i, urand());
  for (int i = 0; i < n; ++i) hr[i] = i % 5;
  char err[256];
  if (vx_device_alloc(&dp, 3 * rs * (n + ntr), err, sizeof err) || vx_device_alloc(&da, 3 * rs * n, err, sizeof err) ||
      vx_device_alloc(&dr, sizeof(int) * n, err, sizeof err) || vx_device_upload(dp, hp, 3 * rs * (n + ntr), err, sizeof err) ||
      vx_device_upload(da, ha, 3 * rs * n, err, sizeof err) || vx_device_upload(dr, hr, sizeof(int) * n, err, sizeof err)) {
    FAIL("remesh device setup: %s", err);
    return;
  }
  vx_remesh_job jc, jg;
  memset(&jc, 0, sizeof jc);
  jc.n_elem = n; jc.n_tracer = ntr; jc.is_float = fl; jc.h = 0.011; jc.c2 = c2; jc.drop = drop; jc.drop_abs = drop_abs;
  jc.origin[0] = 0.0031, jc.origin[1] = -0.0052, jc.origin[2] = 0.0007; /* a lattice off (0, 0, 0) */
  jg = jc;
  jc.pos = hp; jc.alpha = ha; jc.ring = hr;
  jg.pos = dp; jg.alpha = da; jg.ring = dr;
  vx_remesh_ws *wc = NULL, *wg = NULL;
  if (vx_remesh_cpu(&wc, &jc, err, sizeof err) || vx_remesh_gpu(&wg, &jg, err, sizeof err)) { FAIL("remesh: %s", err); return; }
  size_t np = 3 * (size_t)(jg.n_out + ntr), na = 3 * (size_t)jg.n_out;
  void *gp = malloc(rs * np + 1), *ga = malloc(rs * na + 1);
  int *gr = malloc(sizeof(int) * jg.n_out + 1);
  if (!gp || !ga || !gr) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  if (jc.n_out != jg.n_out || jc.n_nodes != jg.n_nodes) {
    FAIL("remesh (%s): cpu %d/%d nodes kept, gpu %d/%d", fl ? "float" : "double", jc.n_out, jc.n_nodes, jg.n_out, jg.n_nodes);
  } else if (vx_device_download(gp, jg.pos_out.p, rs * np, err, sizeof err) ||
             vx_device_download(ga, jg.alpha_out.p, rs * na, err, sizeof err) ||
             vx_device_download(gr, jg.ring_out.p, sizeof(int) * jg.n_out, err, sizeof err)) {
    FAIL("remesh download: %s", err);
  } else {
    double ep = 0, ea = 0, amax = jc.max_alpha;
    int er = 0;
    for (size_t i = 0; i < np; ++i) ep = fmax(ep, fabs(vx_load(gp, fl, i) - vx_load(jc.pos_out.p, fl, i)));
    for (size_t i = 0; i < na; ++i) ea = fmax(ea, fabs(vx_load(ga, fl, i) - vx_load(jc.alpha_out.p, fl, i)) / amax);
    for (int i = 0; i < jg.n_out; ++i) er += gr[i] != ((int *)jc.ring_out.p)[i];
    /* strengths: measured 0 (float: the same operations in the same order) and <= 3.6e-16 (double,
     * H100); 2 float ulps, and 4x the double measurement */
    double tol = fl ? 2.4e-7 : 1.5e-15;
    printf("  remesh %-6s c2=%.2f drop=%.0e/%.0e: %d of %d nodes, positions %.1e, strengths %.1e (tolerance %.1e), rings differ %d\n",
           fl ? "float" : "double", c2, drop, drop_abs, jg.n_out, jg.n_nodes, ep, ea, tol, er);
    if (ep != 0.0 || !(ea <= tol) || er) FAIL("remesh twin differs: positions %.3e, strengths %.3e, rings %d", ep, ea, er);
  }
  free(gp); free(ga); free(gr); free(hp); free(ha); free(hr);
  vx_device_free(dp); vx_device_free(da); vx_device_free(dr);
  vx_mem_free(&jc.pos_out, 0); vx_mem_free(&jc.alpha_out, 0); vx_mem_free(&jc.ring_out, 0);
  vx_mem_free(&jg.pos_out, 1); vx_mem_free(&jg.alpha_out, 1); vx_mem_free(&jg.ring_out, 1);
  vx_remesh_ws_free_cpu(wc);
  vx_remesh_ws_free_gpu(wg);
}

/* ---------------------------------------------------------------- 3. scenes on both backends */

static int run_scene(const vx_scene *sc, vx_backend b, vx_precision prec, int direct, vx_diag *d, double *tr, int *ntr) {
  vx_sim_params p = vx_sim_params_from_scene(sc);
  vx_test_one_tree(&p);
  p.backend = b;
  p.precision = prec;
  p.direct = direct;
  /* the twins compared are the two backends' FMMs: no direct sum in place of the FMM where the CUDA
   * float units say it pays (fmm_params.allow_direct; gpu_test_fmm checks that choice) */
  p.fmm_only = 1;
  p.integrator = VX_RK4;
  p.tracers = 2048;
  char err[256];
  vx_sim *s = vx_sim_create(&p, sc, err, sizeof err);
  if (!s) { FAIL("%s on %s: %s", sc->name, vx_backend_name(b), err); return -1; }
  for (int k = 0; k < 10; ++k)
    if (vx_sim_step(s, err, sizeof err)) { FAIL("%s: step: %s", sc->name, err); vx_sim_destroy(s); return -1; }
  if (vx_diag_compute(s, 1 << 20, d, err, sizeof err) || vx_sim_get_tracers(s, tr, err, sizeof err)) {
    FAIL("%s: %s", sc->name, err);
    vx_sim_destroy(s);
    return -1;
  }
  *ntr = vx_sim_n_tracers(s);
  printf("  %-12s %-4s %-6s %-6s %.3f ms/step\n", sc->name, vx_backend_name(b), prec == VX_FLOAT ? "float" : "double",
         direct ? "direct" : "fmm", vx_sim_last_stats(s)->t_step);
  vx_sim_destroy(s);
  return 0;
}

static void compare_scene(const char *name, vx_precision gprec, int direct, double tol, double tol_tr) {
  char path[1024], err[256];
  const char *dir = getenv("VX_ASSETS_DIR"); /* the tree may sit elsewhere than where it was built */
  snprintf(path, sizeof path, "%s/%s.scene", dir && *dir ? dir : VX_ASSETS_DIR, name);
  vx_scene sc;
  if (vx_scene_load(path, &sc, err, sizeof err)) { FAIL("%s", err); return; }
  vx_diag dc, dg;
  double *tc = malloc(sizeof(double) * 3 * 2048), *tg = malloc(sizeof(double) * 3 * 2048);
  if (!tc || !tg) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  int nc, ng;
  if (run_scene(&sc, VX_BACKEND_CPU, VX_DOUBLE, direct, &dc, tc, &nc) ||
      run_scene(&sc, VX_BACKEND_CUDA, gprec, direct, &dg, tg, &ng)) {
    free(tc); free(tg);
    return;
  }
  double L = sc.rings[0].radius, A = dc.max_alpha, e = 0.0;
  for (int r = 0; r < dc.n_rings; ++r) {
    for (int i = 0; i < 3; ++i) e = fmax(e, fabs(dc.ring_c[r][i] - dg.ring_c[r][i]) / L);
    e = fmax(e, fabs(dc.ring_R[r] - dg.ring_R[r]) / L);
  }
  /* the impulse relative to |I|, or to one ring's πΓR² where the total is smaller: head-on rings'
   * I ≈ 0 would turn the last bits of a round-off difference into a relative error of 1e-11 */
  const double ring_I = VX_PI * fabs(sc.rings[0].circulation) * L * L;
  double Is = fmax(sqrt(dc.I[0] * dc.I[0] + dc.I[1] * dc.I[1] + dc.I[2] * dc.I[2]), ring_I);
  for (int i = 0; i < 3; ++i) {
    e = fmax(e, fabs(dc.I[i] - dg.I[i]) / Is);
    e = fmax(e, fabs(dc.W[i] - dg.W[i]) / A);
  }
  e = fmax(e, fabs(dc.max_alpha - dg.max_alpha) / A);
  double et = 0.0;
  for (int i = 0; i < 3 * nc && nc == ng; ++i) et = fmax(et, fabs(tc[i] - tg[i]) / L);
  printf("  %-12s %s cuda-%s vs cpu-double: diagnostics %.2e, tracers %.2e (tolerances %.1e, %.1e)\n", name,
         direct ? "direct" : "fmm   ", gprec == VX_FLOAT ? "float " : "double", e, et, tol, tol_tr);
  if (!(e <= tol)) FAIL("%s: diagnostics differ by %.3e > %.1e", name, e, tol);
  if (nc != ng || !(et <= tol_tr)) FAIL("%s: tracer positions differ by %.3e > %.1e (%d vs %d tracers)", name, et, tol_tr, nc, ng);
  free(tc);
  free(tg);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  for (int prec = 0; prec < 2; ++prec)
    for (int st = 0; st < 3; ++st) {
      stage_case((vx_precision)prec, 1, 1, st);
      stage_case((vx_precision)prec, 1, 0, st);
      stage_case((vx_precision)prec, 0, 0, st);
      stage_case((vx_precision)prec, 0, 1, st);
    }
  int f0 = failures; /* each section's verdict is its own */
  printf("stage kernel vs CPU loop: %s (worst %.3f x tolerance in double, %.3f x in float)\n", failures > f0 ? "FAILED" : "ok",
         stage_worst[0], stage_worst[1]);
  f0 = failures;
  settle_case(VX_DOUBLE, -0.5, 0.012);
  settle_case(VX_FLOAT, -0.1875, 0.009);
  relax_conserve_case(VX_DOUBLE);
  relax_conserve_case(VX_FLOAT);
  reproject_case(VX_DOUBLE);
  reproject_case(VX_FLOAT);
  health_case(VX_DOUBLE, 0);
  health_case(VX_DOUBLE, 1);
  health_case(VX_FLOAT, 0);
  health_case(VX_FLOAT, 1);
  printf("settling, relaxation, correction, reprojection and the blow-up reduction: %s\n", failures > f0 ? "FAILED" : "ok");
  f0 = failures;
  for (int prec = 0; prec < 2; ++prec) {
    energy_case((vx_precision)prec, VX_KERNEL_GAUSS, 3001);
    energy_case((vx_precision)prec, VX_KERNEL_GAUSS, 5003); /* tiles of several column chunks */
    energy_case((vx_precision)prec, VX_KERNEL_RM, 257);
    energy_case((vx_precision)prec, VX_KERNEL_WL, 1000);
  }
  printf("kernel energy vs the host sum: %s\n", failures > f0 ? "FAILED" : "ok");
  f0 = failures;
  for (int prec = 0; prec < 2; ++prec) {
    remesh_case((vx_precision)prec, 0.0, 0.0, 0.0);
    remesh_case((vx_precision)prec, 0.1, 1e-2, 0.0);
    remesh_case((vx_precision)prec, 0.05, 0.0, 0.02);
  }
  printf("remeshing vs CPU pipeline: %s\n", failures > f0 ? "FAILED" : "ok");
  /* tolerances (diagnostics, tracers) about 5x the larger of the two measurements beside them
   * (H200 / H100); the double tracers at a few ulps of the positions */
  /* single_ring with the full correction its derived numerics apply: 8.1e-13 (H200), the correction's
   * moments summed in another order on each device (as merger's below) */
  compare_scene("single_ring", VX_DOUBLE, 0, 1.5e-12, 5e-15); /* tracers 1.3e-15 (H200) */
  /* merger with its full correction (conserve.h; W taken to zero every step): 3.0e-13 and 2.2e-12
   * in two H100 runs (2.0e-13 with the axial one, 4.0e-14 / 2.4e-15 without), the moments summed in another order on
   * each device and the correction's λ, set by a W that is round-off itself, differing by as much */
  compare_scene("merger", VX_DOUBLE, 0, 1e-11, 5e-15);      /* 8.3e-13 (H200, transpose stretching, the reprojection); tracers 1.5e-15 */
  /* headon: 3.6e-15 (H200, the reprojection; 3.2e-15 in three H100 runs without) with the impulse relative to one ring's πΓR²: relative to its own
   * |I| ≈ 1e-6 the same round-off reads 8.2e-13 … 2.3e-11 */
  compare_scene("headon", VX_DOUBLE, 0, 3e-14, 5e-15);        /* tracers 7.4e-16 … 1.1e-15 */
  compare_scene("oblique", VX_DOUBLE, 0, 2.5e-13, 6e-15);     /* 5.3e-14 (H200, the reprojection); tracers 2.7e-15 */
  /* direct: the same correction's round-off as the FMM's above, 2.3e-12 (H200; 7.3e-14 and 7.0e-13 in two
   * H100 runs with the classical stretching; 2.6e-15 / 1.3e-14 without the correction) */
  compare_scene("merger", VX_DOUBLE, 1, 1e-11, 5e-15);      /* tracers 2.2e-15 */
  /* float on cuda: with the scene's tracer_every the elements' own calls build the elements' tree, as
   * --tracers 0 does, and their W = Σα in float parts from double's: 6.9e-4 of max|α| (H200) on the
   * derived merger's lattice of 10 010 elements; the tracers 9.2e-6 (H200): the reprojection puts
   * the float engine's curl, to its truncation error, into the strengths every step */
  compare_scene("merger", VX_FLOAT, 0, 1.5e-3, 4.5e-5);
  return vx_test_end("all GPU vortex checks passed");
}
