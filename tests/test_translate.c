/* test_translate.c — the expansion math checked against its definitions (docs/MATH.md §1–5):
 * real solid harmonics vs explicit Legendre formulas and the addition theorem; derivative maps vs
 * analytic gradients and Hessians; rotations orthogonal, invertible, equal to eq. 18 on column 0,
 * and equal to evaluating at rotated points; M2M, L2L exact; M2L vs direct P2L; the pair-wise M2L
 * of the order-specialised GPU kernel (rcr_m2l_pairs) equal to rcr_translate's; the derivative map degree by
 * degree (the GPU L2P's split) equal to it all at once, bit for bit. Double and float.
 * Thresholds about 5x the errors on x86-64 with gcc 12 -O3 (the value beside each): round-off, so a compiler that contracts differently may need a factor more, but a
 * lost term or a wrong sign shows as orders of magnitude. Run: build/tests/test_translate */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pointsets.h"
#include "sph.h"
#include "tables.h"
#include "test_check.h"
#include "translate.h"

static void check(int ok, const char *what, double val, double thr) {
  printf("%-58s %10.3e  (threshold %.1e)  %s\n", what, val, thr, ok ? "ok" : "FAIL");
  if (!ok) failures++;
}

/* Associated Legendre P_n^m(μ) without the Condon–Shortley phase. */
static double plm(int n, int m, double mu) {
  double pmm = 1.0, s = sqrt(1.0 - mu * mu);
  for (int i = 1; i <= m; ++i) pmm *= (2 * i - 1) * s;
  if (n == m) return pmm;
  double p1 = mu * (2 * m + 1) * pmm;
  if (n == m + 1) return p1;
  double p0 = pmm;
  for (int k = m + 2; k <= n; ++k) {
    double p2 = ((2 * k - 1) * mu * p1 - (k + m - 1) * p0) / (k - m);
    p0 = p1; p1 = p2;
  }
  return p1;
}
static double fact(int n) { double f = 1; for (int i = 2; i <= n; ++i) f *= i; return f; }
static double ylm(int n, int m, double th, double ph) {
  int a = abs(m);
  double nrm = sqrt((a ? 2.0 : 1.0) * fact(n - a) / fact(n + a)) * plm(n, a, cos(th));
  return m >= 0 ? nrm * cos(a * ph) : nrm * sin(a * ph);
}

static void rand_vec(uint64_t *s, double r, double *v) {
  for (int i = 0; i < 3; ++i) v[i] = r * (2 * vx_rng_uniform(s) - 1);
}

#define P 20
#define NC VX_NCOEF(P)

/* 7. The pair-wise M2L (rcr_m2l_pairs: the stages k_m2l_spec runs, lanes owning pairs (n, ±a)) equals
 * rcr_translate's M2L to round-off, at the specialised orders and one more, in both precisions, on
 * offsets with and without an azimuth (cs as the GPU tables hold it: cos aφ, sin aφ). */
static void check_pairs(void) {
  int t_ok = 1;
  for (int t = 0; t < VX_NPAIR(VX_PMAX); ++t) {
    int n, a;
    vx_pair_na(t, &n, &a);
    t_ok &= a >= 0 && a <= n && n * (n + 1) / 2 + a == t;
  }
  check(t_ok, "vx_pair_na inverts t = n(n+1)/2 + a up to VX_PMAX", t_ok ? 0.0 : 1.0, 0.5);
  const int orders[4] = {6, 8, 12, 5}, offs[4][3] = {{2, 0, 0}, {0, 0, -2}, {3, 1, -2}, {-2, 3, 3}};
  char err[256];
  uint64_t seed = 77;
  for (int k = 0; k < 4; ++k) {
    const int p = orders[k], nc = VX_NCOEF(p);
    fmm_tables T;
    if (fmm_tables_build(&T, p, err, sizeof err)) { printf("tables (p=%d): %s\n", p, err); exit(EXIT_FAILURE); }
    static double M[3 * VX_NCOEF(12)], L1[3 * VX_NCOEF(12)], L2[3 * VX_NCOEF(12)], w1[3 * VX_NCOEF(12)],
        w2[3 * VX_NCOEF(12)];
    static float Mf[3 * VX_NCOEF(12)], L1f[3 * VX_NCOEF(12)], L2f[3 * VX_NCOEF(12)], w1f[3 * VX_NCOEF(12)],
        w2f[3 * VX_NCOEF(12)];
    double ed = 0, ef = 0, edd = 0, edf = 0, erf = 0;
    static double D[VX_NCOEF(12) * VX_NCOEF(12)];
    static float Df[VX_NCOEF(12) * VX_NCOEF(12)];
    char what[96];
    for (int o = 0; o < 4; ++o) {
      const int g = vx_geo_index(offs[o][0], offs[o][1], offs[o][2]);
      const double phi = atan2(T.geo_sphi[g], T.geo_cphi[g]);
      double cs[2 * 13], ipow[2 * 12 + 2];
      float csf[2 * 13], ipowf[2 * 12 + 2];
      for (int a = 0; a <= p; ++a) cs[2 * a] = cos(a * phi), cs[2 * a + 1] = sin(a * phi);
      ipow[0] = 1; for (int i = 1; i < 2 * p + 2; ++i) ipow[i] = ipow[i - 1] / T.geo_len[g];
      for (int i = 0; i < 2 * p + 2; ++i) ipowf[i] = (float)ipow[i];
      for (int i = 0; i < 2 * p + 2; ++i) csf[i] = (float)cs[i];
      for (int i = 0; i < 3 * nc; ++i) M[i] = 2.0 * vx_rng_uniform(&seed) - 1.0, Mf[i] = (float)M[i];
      const double *rt = T.roty + (size_t)T.geo_theta[g] * T.roty_stride;
      const float *rtf = T.roty_f + (size_t)T.geo_theta[g] * T.roty_stride;
      for (int i = 0; i < 3 * nc; ++i) L1[i] = L2[i] = 0.5, L1f[i] = L2f[i] = 0.5f; /* both add into out */
      rcr_translate_d(M, L1, p, T.m2l_deg[g], T.geo_cphi[g], T.geo_sphi[g], rt, T.m2l, ipow, 2, w1, w2);
      rcr_m2l_pairs_d(M, L2, p, T.m2l_deg[g], cs, rt, T.m2l, ipow, w1, w2);
      rcr_translate_f(Mf, L1f, p, T.m2l_deg[g], T.geo_cphi_f[g], T.geo_sphi_f[g], rtf, T.m2l_f, ipowf, 2, w1f, w2f);
      rcr_m2l_pairs_f(Mf, L2f, p, T.m2l_deg[g], csf, rtf, T.m2l_f, ipowf, w1f, w2f);
      double nd = 0, nf = 0;
      for (int i = 0; i < 3 * nc; ++i) nd = fmax(nd, fabs(L1[i])), nf = fmax(nf, fabs((double)L1f[i]));
      for (int i = 0; i < 3 * nc; ++i) {
        ed = fmax(ed, fabs(L2[i] - L1[i]) / nd);
        ef = fmax(ef, fabs((double)L2f[i] - (double)L1f[i]) / nf);
      }
      /* the dense operator (k_m2l_dense's matrix) against rcr_translate, double and float */
      if (fmm_m2l_dense(&T, g, D)) { printf("out of memory\n"); exit(EXIT_FAILURE); }
      for (size_t i = 0; i < (size_t)nc * nc; ++i) Df[i] = (float)D[i];
      for (int i = 0; i < 3 * nc; ++i) L2[i] = 0.5, L2f[i] = 0.5f;
      m2l_dense_apply_d(D, M, L2, nc);
      m2l_dense_apply_f(Df, Mf, L2f, nc);
      for (int i = 0; i < 3 * nc; ++i) {
        edd = fmax(edd, fabs(L2[i] - L1[i]) / nd);
        edf = fmax(edf, fabs((double)L2f[i] - L1[i]) / nd);
        erf = fmax(erf, fabs((double)L1f[i] - L1[i]) / nd);
      }
    }
    snprintf(what, sizeof what, "p=%2d: the M2L cut reads degrees <= %d, %d along (3,1,-2), (-2,3,3)", p,
             T.m2l_deg[vx_geo_index(3, 1, -2)], T.m2l_deg[vx_geo_index(-2, 3, 3)]);
    check(T.m2l_deg[vx_geo_index(3, 1, -2)] < p && T.m2l_deg[vx_geo_index(-2, 3, 3)] < p &&
              T.m2l_deg[vx_geo_index(2, 0, 0)] == p, what, 0, 0);
    snprintf(what, sizeof what, "dense M2L operator == rcr_translate, p=%2d, double (max rel)", p);
    check(edd < 2e-15, what, edd, 2e-15); /* measured 1.2e-16 .. 6.6e-16 */
    snprintf(what, sizeof what, "dense M2L in float vs double rcr, p=%2d (max rel; rcr in float: %.1e)", p, erf);
    check(edf < 3 * erf + 1e-7, what, edf, 3 * erf + 1e-7);
    snprintf(what, sizeof what, "pair-wise M2L == rcr_translate, p=%2d, double (max rel)", p);
    check(ed < 1e-15, what, ed, 1e-15); /* measured 0 .. 1.5e-16 */
    snprintf(what, sizeof what, "pair-wise M2L == rcr_translate, p=%2d, float (max rel)", p);
    check(ef < 6e-7, what, ef, 6e-7); /* measured 0: the same float operations; 5 ulp for a compiler that contracts */
    fmm_tables_free(&T);
  }
}

/* sph_deriv_degrees one degree at a time, highest first, into buffers filled with NaN (the GPU's
 * L2P splits the degrees over threads) against sph_deriv's all degrees at once: the number of
 * output reals (double and float, p = 1..P, the last L of section 3's kind) whose bits differ. */
static int deriv_by_degree_differs(void) {
  static double Ld[3 * NC], wd[3][3 * NC], dd[3][3 * NC];
  static float Lf[3 * NC], wf[3][3 * NC], df[3][3 * NC];
  uint64_t seed = 777;
  for (int i = 0; i < 3 * NC; ++i) Ld[i] = vx_rng_uniform(&seed) - 0.5, Lf[i] = (float)Ld[i];
  int bad = 0;
  for (int p = 1; p <= P; ++p) {
    const int no = 3 * VX_NCOEF(p - 1);
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < no; ++i) dd[k][i] = NAN, df[k][i] = NAN;
    sph_deriv_d(Ld, p, wd[0], wd[1], wd[2]);
    sph_deriv_f(Lf, p, wf[0], wf[1], wf[2]);
    for (int n = p; n >= 1; --n) {
      sph_deriv_degrees_d(Ld, n, n, dd[0], dd[1], dd[2]);
      sph_deriv_degrees_f(Lf, n, n, df[0], df[1], df[2]);
    }
    for (int k = 0; k < 3; ++k)
      bad += memcmp(dd[k], wd[k], sizeof(double) * no) != 0, bad += memcmp(df[k], wf[k], sizeof(float) * no) != 0;
  }
  return bad;
}

int main(void) {
  uint64_t seed = 12345;
  double a[NC], b[NC];

  /* 1. ℛ against r^n Y_n^m from explicit Legendre functions */
  double e1 = 0;
  for (int t = 0; t < 50; ++t) {
    double x[3]; rand_vec(&seed, 1.0, x);
    double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), th = acos(x[2] / r), ph = atan2(x[1], x[0]);
    sph_regular_d(x[0], x[1], x[2], 12, a);
    for (int n = 0; n <= 12; ++n)
      for (int m = -n; m <= n; ++m) {
        double ref = pow(r, n) * ylm(n, m, th, ph);
        double d = fabs(a[VX_IDX(n, m)] - ref) / (pow(r, n) + 1e-300);
        if (d > e1) e1 = d;
      }
  }
  check(e1 < 2.5e-14, "regular harmonics vs explicit r^n Y_n^m (max rel)", e1, 2.5e-14); /* measured 4.7e-15 */

  /* 2. addition theorem 1/|x-y| = Σ ℛ(y) 𝒮(x), |y|/|x| = 0.25 */
  double e2 = 0;
  for (int t = 0; t < 50; ++t) {
    double x[3], y[3]; rand_vec(&seed, 1.0, x); rand_vec(&seed, 1.0, y);
    double rx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), ry = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    for (int i = 0; i < 3; ++i) y[i] *= 0.25 * rx / ry;
    sph_regular_d(y[0], y[1], y[2], P, a);
    sph_irregular_d(x[0], x[1], x[2], P, b);
    double s = 0; for (int i = 0; i < NC; ++i) s += a[i] * b[i];
    double d[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
    double ref = 1.0 / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (fabs(s - ref) / ref > e2) e2 = fabs(s - ref) / ref;
  }
  check(e2 < 7e-13, "addition theorem, p=20, |y|/|x|=0.25 (max rel)", e2, 7e-13); /* measured 1.4e-13 */

  /* 3. derivative maps: L = 𝒮(y) is the local expansion of 1/|x-y| about 0 (×3 components
   * with different weights); compare ∇ and the Hessian with the analytic ones at small x. */
  double e3 = 0, e4 = 0;
  static double L[3 * NC], Lx[3 * NC], Ly[3 * NC], Lz[3 * NC], H[3][3][3 * NC];
  for (int t = 0; t < 30; ++t) {
    double y[3], x[3]; rand_vec(&seed, 1.0, y);
    double ry = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    for (int i = 0; i < 3; ++i) y[i] /= ry; /* |y| = 1 */
    rand_vec(&seed, 0.1, x);
    double w[3] = {1.0, -2.0, 0.5};
    sph_irregular_d(y[0], y[1], y[2], P, b);
    for (int i = 0; i < NC; ++i) for (int c = 0; c < 3; ++c) L[3 * i + c] = w[c] * b[i];
    sph_deriv_d(L, P, Lx, Ly, Lz);
    double *D1[3] = {Lx, Ly, Lz};
    for (int k = 0; k < 3; ++k) sph_deriv_d(D1[k], P - 1, H[k][0], H[k][1], H[k][2]);
    sph_regular_d(x[0], x[1], x[2], P, a);
    double d[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], r = sqrt(r2);
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) {
        double s = 0; for (int i = 0; i < VX_NCOEF(P - 1); ++i) s += D1[k][3 * i + c] * a[i];
        double ref = -w[c] * d[k] / (r2 * r);
        if (fabs(s - ref) > e3) e3 = fabs(s - ref);
        for (int l = 0; l < 3; ++l) {
          double s2 = 0; for (int i = 0; i < VX_NCOEF(P - 2); ++i) s2 += H[k][l][3 * i + c] * a[i];
          double ref2 = w[c] * (3 * d[k] * d[l] - (k == l) * r2) / (r2 * r2 * r);
          if (fabs(s2 - ref2) > e4) e4 = fabs(s2 - ref2);
        }
      }
  }
  check(e3 < 1.5e-14, "derivative map: gradient of 1/|x-y| (max abs, |∇|~1)", e3, 1.5e-14); /* measured 3.1e-15 */
  check(e4 < 2e-13, "derivative map twice: Hessian of 1/|x-y| (max abs)", e4, 2e-13);      /* measured 4.1e-14 */
  const int nbad = deriv_by_degree_differs();
  check(nbad == 0, "derivative map degree by degree == all degrees (outputs differing)", nbad, 0.5);

  /* 4. rotations: orthogonal, D(β)D(-β) = I, eq. 18 on column 0, ℛ(Qx) = D ℛ(x) */
  int nr = vx_roty_off(P + 1);
  double *D = malloc(sizeof(double) * nr), *Di = malloc(sizeof(double) * nr);
  if (!D || !Di) { printf("out of memory\n"); return EXIT_FAILURE; }
  double beta = 0.7345;
  fmm_roty_matrix(beta, P, D);
  fmm_roty_matrix(-beta, P, Di);
  double eo = 0, ei = 0, e18 = 0;
  for (int n = 0; n <= P; ++n) {
    for (int blk = 0; blk < 2; ++blk) {
      int w = blk ? n : n + 1;
      double *A = D + vx_roty_off(n) + (blk ? (n + 1) * (n + 1) : 0), *B = Di + vx_roty_off(n) + (blk ? (n + 1) * (n + 1) : 0);
      for (int i = 0; i < w; ++i)
        for (int j = 0; j < w; ++j) {
          double s = 0, s2 = 0;
          for (int k = 0; k < w; ++k) { s += A[i * w + k] * A[j * w + k]; s2 += A[i * w + k] * B[k * w + j]; }
          if (fabs(s - (i == j)) > eo) eo = fabs(s - (i == j));
          if (fabs(s2 - (i == j)) > ei) ei = fabs(s2 - (i == j));
        }
    }
    /* eq. 18: ℛ_n^m(Q ẑ) = column m' = 0; Q ẑ = (sin β, 0, cos β) */
    for (int m = 0; m <= n; ++m) {
      double ref = ylm(n, m, beta, 0.0);
      double d = fabs(D[vx_roty_off(n) + m * (n + 1)] - ref);
      if (d > e18) e18 = d;
    }
  }
  check(eo < 5e-14, "y-rotation D D^T = I, p=20 (max abs)", eo, 5e-14);                /* measured 9.3e-15 */
  check(ei < 5e-14, "y-rotation D(β) D(-β) = I (max abs)", ei, 5e-14);                 /* measured 9.3e-15 */
  check(e18 < 2.5e-14, "y-rotation column m'=0 equals eq. 18 (max abs)", e18, 2.5e-14); /* measured 4.7e-15 */
  double ev = 0;
  static double v3[3 * NC], w3[3 * NC];
  for (int t = 0; t < 20; ++t) {
    double x[3]; rand_vec(&seed, 1.0, x);
    double phi = 2 * VX_PI * vx_rng_uniform(&seed);
    /* ℛ(R_y(β) x) = D ℛ(x) */
    sph_regular_d(x[0], x[1], x[2], P, a);
    sph_regular_d(x[0] * cos(beta) + x[2] * sin(beta), x[1], -x[0] * sin(beta) + x[2] * cos(beta), P, b);
    for (int i = 0; i < NC; ++i) for (int c = 0; c < 3; ++c) v3[3 * i + c] = a[i];
    rot_y_d(v3, w3, P, D, 1);
    for (int i = 0; i < NC; ++i) if (fabs(w3[3 * i + 1] - b[i]) > ev) ev = fabs(w3[3 * i + 1] - b[i]);
    /* ℛ(R_z(-φ) x) = D_z(-φ) ℛ(x) */
    double cp = cos(phi), sp = sin(phi);
    sph_regular_d(x[0] * cp + x[1] * sp, -x[0] * sp + x[1] * cp, x[2], P, b);
    rot_z_d(v3, w3, P, cp, sp, 1);
    for (int i = 0; i < NC; ++i) if (fabs(w3[3 * i + 2] - b[i]) > ev) ev = fabs(w3[3 * i + 2] - b[i]);
    rot_z_d(w3, v3, P, cp, sp, 0); /* and back */
    for (int i = 0; i < NC; ++i) if (fabs(v3[3 * i] - a[i]) > ev) ev = fabs(v3[3 * i] - a[i]);
  }
  check(ev < 5e-13, "rotations applied to ℛ(x) equal ℛ at rotated points", ev, 5e-13); /* measured 1.1e-13 */
  free(D); free(Di);

  /* 5. translations through the tables, in box-scaled form (docs/MATH.md §5) */
  char err[256];
  fmm_tables T;
  if (fmm_tables_build(&T, P, err, sizeof err)) { printf("tables: %s\n", err); return EXIT_FAILURE; }
  static double Mc[3 * NC], Mp[3 * NC], Mref[3 * NC], wk1[3 * NC], wk2[3 * NC], Lc[3 * NC];
  double em2m = 0, el2l = 0, em2l = 0;
  for (int oct = 0; oct < 8; ++oct) {
    int sx = (oct & 1) ? 1 : -1, sy = (oct & 2) ? 1 : -1, sz = (oct & 4) ? 1 : -1;
    double hp = 0.5, hc = 0.25, cc[3] = {sx * hp / 4, sy * hp / 4, sz * hp / 4}; /* parent centre 0 */
    int g = vx_geo_index(sx, sy, sz);
    const double *rt = T.roty + (size_t)T.geo_theta[g] * T.roty_stride;
    /* M2M: P2M at child then M2M == P2M at parent (exact: no truncation) */
    memset(Mc, 0, sizeof Mc); memset(Mref, 0, sizeof Mref); memset(Mp, 0, sizeof Mp);
    double norm = 0;
    for (int j = 0; j < 10; ++j) {
      double y[3], q[3]; rand_vec(&seed, hc / 2, y); rand_vec(&seed, 1.0, q);
      for (int i = 0; i < 3; ++i) y[i] += cc[i];
      sph_regular_d((y[0] - cc[0]) / hc, (y[1] - cc[1]) / hc, (y[2] - cc[2]) / hc, P, a);
      sph_regular_d(y[0] / hp, y[1] / hp, y[2] / hp, P, b);
      for (int i = 0; i < NC; ++i) for (int c = 0; c < 3; ++c) { Mc[3 * i + c] += q[c] * a[i]; Mref[3 * i + c] += q[c] * b[i]; }
    }
    rcr_translate_d(Mc, Mp, P, P, T.geo_cphi[g], T.geo_sphi[g], rt, T.m2m, NULL, 0, wk1, wk2);
    for (int i = 0; i < 3 * NC; ++i) norm = fmax(norm, fabs(Mref[i]));
    for (int i = 0; i < 3 * NC; ++i) em2m = fmax(em2m, fabs(Mp[i] - Mref[i]) / norm);
    /* L2L: random parent local expansion; evaluate both at points in the child */
    for (int i = 0; i < 3 * NC; ++i) Mp[i] = (2 * vx_rng_uniform(&seed) - 1) / (1 + i / 3);
    memset(Lc, 0, sizeof Lc);
    rcr_translate_d(Mp, Lc, P, P, T.geo_cphi[g], T.geo_sphi[g], rt, T.l2l, NULL, 1, wk1, wk2);
    for (int j = 0; j < 5; ++j) {
      double x[3]; rand_vec(&seed, hc / 2, x);
      for (int i = 0; i < 3; ++i) x[i] += cc[i];
      sph_regular_d(x[0] / hp, x[1] / hp, x[2] / hp, P, a);
      sph_regular_d((x[0] - cc[0]) / hc, (x[1] - cc[1]) / hc, (x[2] - cc[2]) / hc, P, b);
      for (int c = 0; c < 3; ++c) {
        double sp_ = 0, sc = 0;
        for (int i = 0; i < NC; ++i) { sp_ += Mp[3 * i + c] * a[i]; sc += Lc[3 * i + c] * b[i]; }
        el2l = fmax(el2l, fabs(sp_ / hp - sc / hc) / (fabs(sp_ / hp) + 1e-300));
      }
    }
  }
  check(em2m < 5e-14, "M2M (RCR, 8 octants) == P2M at parent (max rel)", em2m, 5e-14);       /* measured 9.5e-15 */
  check(el2l < 1.2e-12, "L2L (RCR, 8 octants) evaluates as the parent (max rel)", el2l, 1.2e-12); /* measured 2.75e-13 */
  /* M2L vs P2L for several offsets; sources within 0.3 box widths of the source centre */
  int offs[6][3] = {{2, 0, 0}, {0, 0, -2}, {3, 1, -2}, {-2, 3, 3}, {0, -3, 1}, {-3, -3, -3}};
  for (int o = 0; o < 6; ++o) {
    double h = 0.125, v[3] = {offs[o][0] * h, offs[o][1] * h, offs[o][2] * h}; /* c_s - c_t, c_t = 0 */
    int g = vx_geo_index(offs[o][0], offs[o][1], offs[o][2]);
    const double *rt = T.roty + (size_t)T.geo_theta[g] * T.roty_stride;
    memset(Mc, 0, sizeof Mc); memset(Mref, 0, sizeof Mref); memset(Lc, 0, sizeof Lc);
    for (int j = 0; j < 10; ++j) {
      double y[3], q[3]; rand_vec(&seed, 0.3 * h, y); rand_vec(&seed, 1.0, q);
      for (int i = 0; i < 3; ++i) y[i] += v[i];
      sph_regular_d((y[0] - v[0]) / h, (y[1] - v[1]) / h, (y[2] - v[2]) / h, P, a);
      sph_irregular_d(y[0] / h, y[1] / h, y[2] / h, P, b);
      for (int i = 0; i < NC; ++i) for (int c = 0; c < 3; ++c) { Mc[3 * i + c] += q[c] * a[i]; Mref[3 * i + c] += q[c] * b[i]; }
    }
    double ipow[2 * P + 2], ir = 1.0 / T.geo_len[g];
    ipow[0] = 1; for (int k = 1; k < 2 * P + 2; ++k) ipow[k] = ipow[k - 1] * ir;
    rcr_translate_d(Mc, Lc, P, P, T.geo_cphi[g], T.geo_sphi[g], rt, T.m2l, ipow, 2, wk1, wk2);
    double norm = 0;
    for (int i = 0; i < 3 * NC; ++i) norm = fmax(norm, fabs(Mref[i]));
    /* coefficients of degree n carry truncation error ~ (0.3·√3 / |v|)^{p-n}; compare n <= p/2 */
    for (int n = 0; n <= P / 2; ++n)
      for (int m = -n; m <= n; ++m)
        for (int c = 0; c < 3; ++c) em2l = fmax(em2l, fabs(Lc[3 * VX_IDX(n, m) + c] - Mref[3 * VX_IDX(n, m) + c]) / norm);
  }
  check(em2l < 4.5e-12, "M2L (RCR, 6 offsets) == P2L, degrees <= p/2 (max rel)", em2l, 4.5e-12); /* measured 9.0e-13 */

  /* 6. float instantiation agrees with double on a M2L */
  {
    static float Mf[3 * NC], Lf[3 * NC], f1[3 * NC], f2[3 * NC];
    int g = vx_geo_index(3, 1, -2);
    for (int i = 0; i < 3 * NC; ++i) Mf[i] = (float)Mc[i];
    memset(Lc, 0, sizeof Lc); memset(Lf, 0, sizeof Lf);
    double ipow[2 * P + 2]; float ipowf[2 * P + 2];
    ipow[0] = 1; for (int k = 1; k < 2 * P + 2; ++k) ipow[k] = ipow[k - 1] / T.geo_len[g];
    for (int k = 0; k < 2 * P + 2; ++k) ipowf[k] = (float)ipow[k];
    int pf = 10;
    rcr_translate_d(Mc, Lc, pf, pf, T.geo_cphi[g], T.geo_sphi[g], T.roty + (size_t)T.geo_theta[g] * T.roty_stride, T.m2l, ipow, 2, wk1, wk2);
    (void)f1; (void)f2;
    fmm_tables Tf;
    if (fmm_tables_build(&Tf, pf, err, sizeof err)) { printf("tables (p=%d): %s\n", pf, err); return EXIT_FAILURE; }
    static double Ld[3 * NC];
    memset(Ld, 0, sizeof Ld);
    rcr_translate_d(Mc, Ld, pf, pf, Tf.geo_cphi[g], Tf.geo_sphi[g], Tf.roty + (size_t)Tf.geo_theta[g] * Tf.roty_stride, Tf.m2l, ipow, 2, wk1, wk2);
    rcr_translate_f(Mf, Lf, pf, pf, Tf.geo_cphi_f[g], Tf.geo_sphi_f[g], Tf.roty_f + (size_t)Tf.geo_theta[g] * Tf.roty_stride, Tf.m2l_f, ipowf, 2, f1, f2);
    double ef = 0, nrm = 0;
    for (int i = 0; i < 3 * VX_NCOEF(pf); ++i) { nrm = fmax(nrm, fabs(Ld[i])); }
    for (int i = 0; i < 3 * VX_NCOEF(pf); ++i) ef = fmax(ef, fabs(Lf[i] - Ld[i]) / nrm);
    check(ef < 1.5e-7, "float M2L agrees with double, p=10 (max rel)", ef, 1.5e-7); /* measured 3.5e-8 (2^-24 = 6e-8) */
    fmm_tables_free(&Tf);
  }
  fmm_tables_free(&T);
  check_pairs();
  return vx_test_end("all translation checks passed");
}
