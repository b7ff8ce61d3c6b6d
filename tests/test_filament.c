/* test_filament.c — the tracers' view of the filaments (vortex/filament.h), on the CPU:
 *   1. runs: the runs of one ring id, and more than VX_FIL_MAX_BLOCKS refused;
 *   2. the merge chosen for leapfrog_big's rings (16 384 stations 43 to a σ of 0.005, here with a
 *      wave of mode 5 and a twist out of plane): every 16th station, 0.37 σ apart;
 *   3. the field the tracers see: velocity at 3000 points 0–8 σ from a station (the direct Gaussian
 *      sum in double) from the merged sources against every station, within 1e-5 of max|u|
 *      (measured 5.1e-6; every 32nd, which the rule refuses, 2e-5);
 *   4. runs that are no filament stay whole: a ring whose elements go around its cross-section
 *      (a thick ring's layers), a run shorter than VX_FIL_MIN_STATIONS, a count without a power of
 *      two (m = 1) and one with only 2^3 (m at most 8);
 *   5. the float loops merge as the double ones do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filament.h"
#include "fmm.h"
#include "pointsets.h"
#include "test_check.h"

#define PI 3.14159265358979323846
#define SIGMA 0.005

/* A closed wavy filament of n stations (radius R (1 + 0.02 cos 5φ), height 0.01 sin 3φ), strengths
 * Γ times the central chord. */
static void filament(int n, double R, double *pos, double *alpha) {
  for (int i = 0; i < n; ++i) {
    double ph = 2.0 * PI * i / n, r = R * (1.0 + 0.02 * cos(5.0 * ph));
    pos[3 * i] = 0.5 + r * cos(ph), pos[3 * i + 1] = 0.5 + r * sin(ph), pos[3 * i + 2] = 0.5 + 0.01 * sin(3.0 * ph);
  }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) alpha[3 * i + k] = 0.5 * (pos[3 * ((i + 1) % n) + k] - pos[3 * ((i + n - 1) % n) + k]);
}

/* Plan the runs of n elements of one ring: its m (0 on failure). */
static int plan_one(int is_float, const void *pos, const void *alpha, int n, vx_fil_blocks *bl, int *merged_n) {
  int *ring = calloc((size_t)n, sizeof *ring), merged = 0;
  double gap[VX_FIL_MAX_BLOCKS], mis[VX_FIL_MAX_BLOCKS];
  if (!ring || vx_fil_runs(ring, n, bl)) { free(ring); return 0; }
  free(ring);
  vx_fil_stats_cpu(is_float, pos, alpha, bl, gap, mis);
  *merged_n = vx_fil_plan(bl, gap, mis, SIGMA, &merged);
  return bl->b[0].m;
}

static void test_runs(void) {
  const int ids[] = {0, 0, 0, 1, 1, 2, 2, 2, 2};
  vx_fil_blocks bl;
  EXPECT(vx_fil_runs(ids, 9, &bl) == 0 && bl.n == 3, "three runs expected, got %d", bl.n);
  EXPECT(bl.b[1].first == 3 && bl.b[1].count == 2 && bl.b[2].first == 5 && bl.b[2].count == 4, "the runs' bounds");
  int many[2 * VX_FIL_MAX_BLOCKS + 2];
  for (int i = 0; i < 2 * VX_FIL_MAX_BLOCKS + 2; ++i) many[i] = i / 2;
  EXPECT(vx_fil_runs(many, 2 * VX_FIL_MAX_BLOCKS + 2, &bl) == -1, "more than %d runs must be refused", VX_FIL_MAX_BLOCKS);
}

/* The velocity of the sources at the targets, the Gaussian kernel summed directly in double. */
static int direct(int ns, const double *sp, const double *sa, int nt, const double *tp, double *u) {
  char err[256];
  fmm_params p = fmm_params_default();
  p.backend = VX_BACKEND_CPU, p.precision = VX_DOUBLE, p.kernel = VX_KERNEL_GAUSS, p.sigma = SIGMA;
  fmm_ctx *ctx = fmm_create(&p, err, sizeof err);
  fmm_io io = {.n_src = ns, .src_pos = sp, .src_str = sa, .n_tgt = nt, .tgt_pos = tp, .vel = u};
  int rc = !ctx || fmm_direct(ctx, &io, NULL, err, sizeof err);
  if (rc) FAIL("direct sum: %s", err);
  fmm_destroy(ctx);
  return rc;
}

static void test_field(void) {
  const int n = 16384, nt = 3000;
  double *pos = malloc(sizeof(double) * 3 * n), *alpha = malloc(sizeof(double) * 3 * n);
  double *mp = malloc(sizeof(double) * 3 * n), *ma = malloc(sizeof(double) * 3 * n);
  double *tp = malloc(sizeof(double) * 3 * nt), *u = malloc(sizeof(double) * 3 * nt), *um = malloc(sizeof(double) * 3 * nt);
  vx_fil_blocks bl;
  int nm = 0;
  if (!pos || !alpha || !mp || !ma || !tp || !u || !um) { FAIL("out of host memory"); goto done; }
  filament(n, 0.3, pos, alpha);
  int m = plan_one(0, pos, alpha, n, &bl, &nm);
  printf("  leapfrog_big's ring: %d stations %.3g sigma apart, every %d-th kept: %d sources %.3g sigma apart\n", n,
         2.0 * PI * 0.3 / n / SIGMA, m, nm, m * 2.0 * PI * 0.3 / n / SIGMA);
  EXPECT(m == 16 && nm == n / 16, "m = 16 expected (0.37 sigma apart; 32 would be 0.74), got %d", m);
  vx_fil_merge_cpu(0, pos, alpha, &bl, mp, ma);
  uint64_t seed = 11;
  for (int t = 0; t < nt; ++t) {
    int j = (int)(vx_rng_uniform(&seed) * n) % n;
    double d[3], r = 8.0 * SIGMA * vx_rng_uniform(&seed), l = 0.0;
    for (int k = 0; k < 3; ++k) d[k] = vx_rng_uniform(&seed) - 0.5, l += d[k] * d[k];
    for (int k = 0; k < 3; ++k) tp[3 * t + k] = pos[3 * j + k] + r * d[k] / sqrt(l);
  }
  if (direct(n, pos, alpha, nt, tp, u) || direct(nm, mp, ma, nt, tp, um)) goto done;
  double umax = 0.0, emax = 0.0;
  for (int i = 0; i < 3 * nt; ++i) umax = fmax(umax, fabs(u[i])), emax = fmax(emax, fabs(um[i] - u[i]));
  printf("  velocity 0-8 sigma from the filament: max |merged - full| = %.2e of max|u| %.4g\n", emax / umax, umax);
  EXPECT(emax <= 1e-5 * umax, "the merged sources' field is %.2e of max|u| from the full one (bound 1e-5)", emax / umax);
done:
  free(pos), free(alpha), free(mp), free(ma), free(tp), free(u), free(um);
}

/* A ring of 512 stations of 7 elements around the cross-section each (a thick ring's layer), a
 * 12-station filament, 3·5·7·9 stations and 8·125 stations. */
static void test_not_merged(void) {
  const int ns = 512, nc = 7, n = ns * nc;
  double *pos = malloc(sizeof(double) * 3 * n), *alpha = malloc(sizeof(double) * 3 * n);
  vx_fil_blocks bl;
  int nm = 0;
  if (!pos || !alpha) { FAIL("out of host memory"); goto done; }
  for (int s = 0; s < ns; ++s)
    for (int c = 0; c < nc; ++c) {
      double ph = 2.0 * PI * s / ns, th = 2.0 * PI * c / nc, r = 0.3 + 0.003 * cos(th);
      double *p = pos + 3 * (size_t)(s * nc + c), *a = alpha + 3 * (size_t)(s * nc + c);
      p[0] = r * cos(ph), p[1] = r * sin(ph), p[2] = 0.003 * sin(th);
      a[0] = -sin(ph), a[1] = cos(ph), a[2] = 0.0;
    }
  EXPECT(plan_one(0, pos, alpha, n, &bl, &nm) == 1 && nm == n, "a thick ring's layers must stay whole");
  filament(12, 0.01, pos, alpha);
  EXPECT(plan_one(0, pos, alpha, 12, &bl, &nm) == 1, "a run of 12 stations must stay whole");
  filament(945, 0.003, pos, alpha);
  EXPECT(plan_one(0, pos, alpha, 945, &bl, &nm) == 1, "945 stations (no factor 2) must stay whole");
  filament(1000, 0.003, pos, alpha);
  int m = plan_one(0, pos, alpha, 1000, &bl, &nm);
  EXPECT(m == 8 && nm == 125, "1000 stations 0.0038 sigma apart: m = 8 expected, got %d", m);
done:
  free(pos), free(alpha);
}

/* The float loops: the same m and the same merged sources to float's rounding. */
static void test_float(void) {
  const int n = 4096;
  double *pd = malloc(sizeof(double) * 3 * n), *ad = malloc(sizeof(double) * 3 * n);
  float *pf = malloc(sizeof(float) * 3 * n), *af = malloc(sizeof(float) * 3 * n);
  double *md = malloc(sizeof(double) * 6 * n);
  float *mf = malloc(sizeof(float) * 6 * n);
  vx_fil_blocks bd, bf;
  int nd = 0, nf = 0;
  if (!pd || !ad || !pf || !af || !md || !mf) { FAIL("out of host memory"); goto done; }
  filament(n, 0.2, pd, ad);
  for (int i = 0; i < 3 * n; ++i) pf[i] = (float)pd[i], af[i] = (float)ad[i];
  int m = plan_one(0, pd, ad, n, &bd, &nd), mfl = plan_one(1, pf, af, n, &bf, &nf);
  EXPECT(m == mfl && m > 1, "float and double must merge alike (m %d and %d)", mfl, m);
  vx_fil_merge_cpu(0, pd, ad, &bd, md, md + 3 * (size_t)n);
  vx_fil_merge_cpu(1, pf, af, &bf, mf, mf + 3 * (size_t)n);
  double e = 0.0;
  for (int i = 0; i < 3 * nd; ++i)
    e = fmax(e, fmax(fabs(mf[i] - md[i]), fabs(mf[3 * n + i] - md[3 * n + i]) / 1e-4));
  EXPECT(e <= 1e-6, "float merge differs from double by %.2e", e);
done:
  free(pd), free(ad), free(pf), free(af), free(md), free(mf);
}

int main(void) {
  test_runs();
  test_field();
  test_not_merged();
  test_float();
  return vx_test_end("the tracers see the filaments through their merged stations");
}
