/* tables.c — builds the translation tables of tables.h.
 *
 * y-rotation matrices: D_mm' = (2n+1)/(4π) ∫ ℛ_n^m(Q x̂) ℛ_n^{m'}(x̂) dΩ with Q = R_y(β), computed by
 * a product Gauss–Legendre (p+1 nodes in cos θ) × trapezoid (2p+2 nodes in φ) rule, which is exact
 * for the degree-2n polynomials integrated here: the matrices are right to round-off for every
 * degree, with no recurrence whose error grows with n. (The paper obtains the same H_n^{m,m'} of
 * eq. 18–20 by the recurrence eq. 19; tests/test_translate.c checks our matrices against eq. 18.) */
#include "tables.h"
#include "sph.h"
#include "translate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gauss–Legendre nodes and weights on [-1, 1] (Newton on P_N from Chebyshev guesses). */
static void gauss_legendre(int n, double *x, double *w) {
  for (int i = 0; i < n; ++i) {
    double z = cos(VX_PI * (i + 0.75) / (n + 0.5)), dp = 1.0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0, p1 = 0.0;
      for (int k = 1; k <= n; ++k) {
        double p2 = p1;
        p1 = p0;
        p0 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p2) / k;
      }
      dp = n * (z * p0 - p1) / (z * z - 1.0);
      double dz = p0 / dp;
      z -= dz;
      if (fabs(dz) < 1e-16) break;
    }
    x[i] = z;
    w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
  }
}

void fmm_roty_matrix(double beta, int p, double *out) {
  /* p <= VX_PMAX (tables.h): fixed-size scratch on the stack, nothing to allocate or fail */
  int nmu = p + 1, nphi = 2 * p + 2;
  double mu[VX_PMAX + 1], wt[VX_PMAX + 1], a[VX_NCOEF(VX_PMAX)], b[VX_NCOEF(VX_PMAX)];
  gauss_legendre(nmu, mu, wt);
  memset(out, 0, sizeof(double) * vx_roty_off(p + 1));
  double cb = cos(beta), sb = sin(beta);
  for (int i = 0; i < nmu; ++i) {
    double st = sqrt(1.0 - mu[i] * mu[i]);
    for (int j = 0; j < nphi; ++j) {
      double ph = 2.0 * VX_PI * j / nphi, w = wt[i] * 2.0 * VX_PI / nphi;
      double x = st * cos(ph), y = st * sin(ph), z = mu[i];
      /* Q = R_y(β): x' = x cos β + z sin β, z' = -x sin β + z cos β */
      sph_regular_d(x * cb + z * sb, y, -x * sb + z * cb, p, a);
      sph_regular_d(x, y, z, p, b);
      for (int n = 0; n <= p; ++n) {
        double f = w * (2 * n + 1) / (4.0 * VX_PI);
        double *cblk = out + vx_roty_off(n), *sblk = cblk + (n + 1) * (n + 1);
        for (int m = 0; m <= n; ++m)
          for (int k = 0; k <= n; ++k) cblk[m * (n + 1) + k] += f * a[VX_IDX(n, m)] * b[VX_IDX(n, k)];
        for (int m = 1; m <= n; ++m)
          for (int k = 1; k <= n; ++k) sblk[(m - 1) * n + (k - 1)] += f * a[VX_IDX(n, -m)] * b[VX_IDX(n, -k)];
      }
    }
  }
}

static double binom(int n, int k) {
  if (k < 0 || k > n) return 0.0;
  double r = 1.0;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

static float *to_float(const double *src, size_t n) {
  float *f = malloc(sizeof(float) * (n ? n : 1));
  if (f)
    for (size_t i = 0; i < n; ++i) f[i] = (float)src[i];
  return f;
}

int fmm_m2l_degree(int p, double d, double tau) {
  const double a = VX_M2L_CUT_RADIUS;
  if (tau <= 0.0 || d < 2.0) return p;
  /* (a/(d−a))^(n+1) ≤ tau (a/(2−a))^(p+1), both logarithms negative */
  const double need = ((p + 1) * log(a / (2.0 - a)) + log(tau)) / log(a / (d - a));
  const int n = (int)ceil(need - 1e-9) - 1;
  return n < p ? (n < 0 ? 0 : n) : p;
}

int fmm_tables_build(fmm_tables *t, int p, char *err, size_t errlen) {
  return fmm_tables_build_tau(t, p, VX_M2L_CUT_TAU, err, errlen);
}

int fmm_tables_build_tau(fmm_tables *t, int p, double cut, char *err, size_t errlen) {
  memset(t, 0, sizeof(*t));
  if (p < 0 || p > VX_PMAX) {
    snprintf(err, errlen, "expansion order %d out of range 0..%d", p, VX_PMAX);
    return -1;
  }
  t->p = p;
  /* distinct polar angles: cos θ = dz/|v| is fixed by (dz, dx²+dy²) */
  int key_of[VX_GEO_N], keys[VX_GEO_N], nk = 0;
  for (int dx = -3; dx <= 3; ++dx)
    for (int dy = -3; dy <= 3; ++dy)
      for (int dz = -3; dz <= 3; ++dz) {
        int g = vx_geo_index(dx, dy, dz), key = (dz + 3) * 64 + dx * dx + dy * dy, k;
        for (k = 0; k < nk && keys[k] != key; ++k) {}
        if (k == nk) keys[nk++] = key;
        key_of[g] = k;
        double len = sqrt((double)(dx * dx + dy * dy + dz * dz)), rho = sqrt((double)(dx * dx + dy * dy));
        t->geo_len[g] = len;
        t->geo_cphi[g] = rho > 0 ? dx / rho : 1.0;
        t->geo_sphi[g] = rho > 0 ? dy / rho : 0.0;
        t->geo_theta[g] = k;
        t->geo_cphi_f[g] = (float)t->geo_cphi[g];
        t->geo_sphi_f[g] = (float)t->geo_sphi[g];
        t->geo_len_f[g] = (float)len;
        t->m2l_deg[g] = fmm_m2l_degree(p, len, cut);
      }
  (void)key_of;
  t->n_theta = nk;
  t->roty_stride = vx_roty_off(p + 1);
  size_t nrot = (size_t)nk * t->roty_stride;
  t->coax_n = (p + 1) * (p + 1) * (p + 1);
  t->roty = malloc(sizeof(double) * nrot);
  t->m2m = calloc(t->coax_n, sizeof(double));
  t->l2l = calloc(t->coax_n, sizeof(double));
  t->m2l = calloc(t->coax_n, sizeof(double));
  if (!t->roty || !t->m2m || !t->l2l || !t->m2l) goto oom;
  /* one rotation per distinct θ: D_y(-θ) maps the direction (sin θ, 0, cos θ) to ẑ */
#pragma omp parallel for schedule(dynamic)
  for (int k = 0; k < nk; ++k) {
    int dz = keys[k] / 64 - 3, s = keys[k] % 64;
    double theta = atan2(sqrt((double)s), (double)dz);
    fmm_roty_matrix(-theta, p, t->roty + (size_t)k * t->roty_stride);
  }
  const double tau = sqrt(3.0) / 4.0; /* |child centre - parent centre| / parent width */
  for (int am = 0; am <= p; ++am)
    for (int a = am; a <= p; ++a)
      for (int b = am; b <= p; ++b) {
        int i = vx_coax_idx(p, am, a, b);
        if (b <= a) { /* M2M / L2L: a = n (higher degree), b = k */
          double c = sqrt(binom(a - am, a - b) * binom(a + am, a - b)) * pow(tau, a - b);
          t->m2m[i] = c * ldexp(1.0, -b);
          t->l2l[i] = c * ldexp(1.0, -b - 1);
        }
        /* M2L: a = j (local degree), b = n (multipole degree) */
        double sgn = ((b + am) & 1) ? -1.0 : 1.0;
        t->m2l[i] = sgn * sqrt(binom(a + b, a - am) * binom(a + b, a + am));
      }
  t->roty_f = to_float(t->roty, nrot);
  t->m2m_f = to_float(t->m2m, t->coax_n);
  t->l2l_f = to_float(t->l2l, t->coax_n);
  t->m2l_f = to_float(t->m2l, t->coax_n);
  if (!t->roty_f || !t->m2m_f || !t->l2l_f || !t->m2l_f) goto oom;
  return 0;
oom:
  fmm_tables_free(t);
  snprintf(err, errlen, "out of memory building translation tables for order %d", p);
  return -1;
}

int fmm_m2l_dense(const fmm_tables *T, int g, double *D) {
  const int p = T->p, nc = VX_NCOEF(p);
  double *in = calloc(3 * (size_t)nc, sizeof(double)), *out = malloc(sizeof(double) * 3 * nc);
  double *w1 = malloc(sizeof(double) * 3 * nc), *w2 = malloc(sizeof(double) * 3 * nc), ipow[2 * VX_PMAX + 2];
  if (!in || !out || !w1 || !w2) { free(in); free(out); free(w1); free(w2); return -1; }
  const double ir = 1.0 / T->geo_len[g]; /* the CPU engine's powers (cpu_m2l), by the same products */
  ipow[0] = 1.0;
  for (int i = 1; i <= 2 * p + 1; ++i) ipow[i] = ipow[i - 1] * ir;
  /* three unit multipoles a call, one in each of the fused FMMs' components */
  for (int k0 = 0; k0 < nc; k0 += 3) {
    for (int c = 0; c < 3 && k0 + c < nc; ++c) in[3 * (k0 + c) + c] = 1.0;
    memset(out, 0, sizeof(double) * 3 * nc);
    rcr_translate_d(in, out, p, T->m2l_deg[g], T->geo_cphi[g], T->geo_sphi[g],
                    T->roty + (size_t)T->geo_theta[g] * T->roty_stride, T->m2l, ipow, 2, w1, w2);
    for (int c = 0; c < 3 && k0 + c < nc; ++c) {
      in[3 * (k0 + c) + c] = 0.0;
      for (int r = 0; r < nc; ++r) D[(size_t)r * nc + k0 + c] = out[3 * r + c];
    }
  }
  free(in); free(out); free(w1); free(w2);
  return 0;
}

void fmm_tables_free(fmm_tables *t) {
  free(t->roty); free(t->roty_f);
  free(t->m2m); free(t->l2l); free(t->m2l);
  free(t->m2m_f); free(t->l2l_f); free(t->m2l_f);
  memset(t, 0, sizeof(*t));
}
