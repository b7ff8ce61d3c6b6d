/* test_lamb.c — docs/MATH.md §12's P2M in our basis (Schmidt semi-normalised real solid harmonics,
 * §1): for random elements α_k at s_k inside a ball, the multipole coefficients
 *   Φ_n^m = Σ α_k·(s_k×∇_s)ℛ_n^m(s_k) / (n+1),   χ_n^m = Σ α_k·∇_sℛ_n^m(s_k) / n        (L3)
 * (with G = 1/(4π|x|): both times 1/(4π)) rebuild the Biot–Savart velocity outside the ball through
 * the Lamb form u = ∇Φ + ∇χ × r (L1), against the direct sum; and the far field's vorticity
 * r·∇×u = Σ n(n+1) χ_n (L2). The source derivatives and the target gradients by central
 * differences (h = 1e-5 and 1e-4), so the bounds (about 5x the measured) are the differences',
 * not round-off; a wrong weight or sign in (L3) misses by O(1).
 * Run: build/tests/test_lamb */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pointsets.h"
#include "sph.h"
#include "test_check.h"

#define P 20
#define FOUR_PI 12.566370614359172954
#define NC VX_NCOEF(P)
#define K 5

static double src[K][3], alp[K][3], phi_c[NC], chi_c[NC];

/* The element set's (L3) coefficients, each derivative of ℛ(s) by central differences. */
static void p2m(void) {
  static double rp[NC], rm[NC], d[3][NC];
  const double h = 1e-5;
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < 3; ++j) {
      double a[3] = {src[k][0], src[k][1], src[k][2]}, b[3] = {src[k][0], src[k][1], src[k][2]};
      a[j] += h, b[j] -= h;
      sph_regular_d(a[0], a[1], a[2], P, rp);
      sph_regular_d(b[0], b[1], b[2], P, rm);
      for (int i = 0; i < NC; ++i) d[j][i] = (rp[i] - rm[i]) / (2 * h);
    }
    const double *s = src[k], *al = alp[k];
    const double L[3] = {al[1] * s[2] - al[2] * s[1], al[2] * s[0] - al[0] * s[2], al[0] * s[1] - al[1] * s[0]}; /* α·(s×∇) = (α×s)·∇ */
    for (int n = 1; n <= P; ++n)
      for (int m = -n; m <= n; ++m) {
        const int i = VX_IDX(n, m);
        phi_c[i] += (L[0] * d[0][i] + L[1] * d[1][i] + L[2] * d[2][i]) / (n + 1) / FOUR_PI;
        chi_c[i] += (al[0] * d[0][i] + al[1] * d[1][i] + al[2] * d[2][i]) / n / FOUR_PI;
      }
  }
}

/* Σ c_n^m 𝒮_n^m(x), and with weight n(n+1) when nn1 is set. */
static double eval(const double *c, const double *x, int nn1) {
  static double S[NC];
  sph_irregular_d(x[0], x[1], x[2], P, S);
  double v = 0.0;
  for (int n = 1; n <= P; ++n)
    for (int m = -n; m <= n; ++m) v += (nn1 ? n * (n + 1.0) : 1.0) * c[VX_IDX(n, m)] * S[VX_IDX(n, m)];
  return v;
}

static void grad(const double *c, const double *x, double *g) {
  const double h = 1e-4;
  for (int j = 0; j < 3; ++j) {
    double a[3] = {x[0], x[1], x[2]}, b[3] = {x[0], x[1], x[2]};
    a[j] += h, b[j] -= h;
    g[j] = (eval(c, a, 0) - eval(c, b, 0)) / (2 * h);
  }
}

/* Direct Biot–Savart: u = Σ ∇G(x − s) × α, ∇G(d) = −d / (4π|d|³); and D = ∇·ψ = Σ α·∇G(x − s). */
static void direct(const double *x, double *u, double *D) {
  u[0] = u[1] = u[2] = *D = 0.0;
  for (int k = 0; k < K; ++k) {
    const double d[3] = {x[0] - src[k][0], x[1] - src[k][1], x[2] - src[k][2]};
    const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), f = -1.0 / (FOUR_PI * r * r * r);
    const double g[3] = {f * d[0], f * d[1], f * d[2]}, *a = alp[k];
    u[0] += g[1] * a[2] - g[2] * a[1], u[1] += g[2] * a[0] - g[0] * a[2], u[2] += g[0] * a[1] - g[1] * a[0];
    *D += a[0] * g[0] + a[1] * g[1] + a[2] * g[2];
  }
}

int main(void) {
  uint64_t seed = 2026;
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < 3; ++j) src[k][j] = 0.4 * (vx_rng_uniform(&seed) - 0.5), alp[k][j] = 2.0 * vx_rng_uniform(&seed) - 1.0;
  p2m();
  double eu = 0.0, ew = 0.0;
  for (int t = 0; t < 20; ++t) {
    double x[3], u[3], D, gp[3], gc[3], dD[3];
    for (int j = 0; j < 3; ++j) x[j] = 2.0 * vx_rng_uniform(&seed) - 1.0;
    const double rx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), want = 1.5 + 2.0 * vx_rng_uniform(&seed);
    for (int j = 0; j < 3; ++j) x[j] *= want / rx; /* |x| in [1.5, 3.5], the elements within 0.35 */
    direct(x, u, &D);
    grad(phi_c, x, gp);
    grad(chi_c, x, gc);
    const double ul[3] = {gp[0] + gc[1] * x[2] - gc[2] * x[1], gp[1] + gc[2] * x[0] - gc[0] * x[2],
                          gp[2] + gc[0] * x[1] - gc[1] * x[0]};
    const double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    eu = fmax(eu, sqrt((ul[0] - u[0]) * (ul[0] - u[0]) + (ul[1] - u[1]) * (ul[1] - u[1]) + (ul[2] - u[2]) * (ul[2] - u[2])) / nu);
    /* (L2): r·∇×u = r·∇D (∇×u = ∇D outside the elements) against Σ n(n+1) χ_n */
    const double h = 1e-4;
    for (int j = 0; j < 3; ++j) {
      double a[3] = {x[0], x[1], x[2]}, b[3] = {x[0], x[1], x[2]}, ua[3], ub[3], Da, Db;
      a[j] += h, b[j] -= h;
      direct(a, ua, &Da);
      direct(b, ub, &Db);
      dD[j] = (Da - Db) / (2 * h);
    }
    const double w = x[0] * dD[0] + x[1] * dD[1] + x[2] * dD[2], wl = eval(chi_c, x, 1);
    ew = fmax(ew, fabs(wl - w) / fabs(w));
  }
  printf("Lamb form from the (L3) coefficients, p = %d, 20 targets at 1.5..3.5, elements within 0.35:\n", P);
  printf("  u = grad(Phi) + grad(chi) x r against the direct sum: max rel %.2e (bound 1e-7)\n", eu);
  printf("  r.curl u = sum n(n+1) chi_n against r.grad(D), direct: max rel %.2e (bound 6e-8)\n", ew);
  if (!(eu < 1e-7)) FAIL("the Lamb form misses u by %.3g", eu);
  if (!(ew < 6e-8)) FAIL("r.curl u misses by %.3g", ew); /* measured 1.2e-8; u 1.6e-8 */
  return vx_test_end("Lamb-Helmholtz P2M checks passed");
}
