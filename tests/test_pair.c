/* test_pair.c — the regularized pair kernels (fmm/pair_t.h, docs/MATH.md §6) against references:
 *  - g(r) and h(r) = g'(r)/r of every kernel, double and float, against the closed forms of
 *    MATH.md §6 evaluated in long double, at ρ = r/σ from 1e-3 to 30 and on both sides of every
 *    branch point (poly's core edge ρ = 1, the Gaussian's series/erf switch at ρ = 1 and its
 *    singular shortcut at ρ² = VX_GAUSS_FAR2: 48 in float, 90 in double), and the same for
 *    kernel_gh_sel, the branch-free form the CPU's vectorized pair loops use (zero at r = 0);
 *  - the closed forms themselves: h against a central difference of g (long double);
 *  - pair_bs: the velocity gradient against central differences of the velocity;
 *  - pair_bs_split + pair_split_grad (the fast GPU P2P's form) against pair_bs summed over
 *    400 sources around one target (inside and outside the core, past the Gaussian's singular
 *    shortcut, one coincident), double and float, every kernel: equal up to rounding; and the
 *    coincident pair alone gives exact zeros (no inf or NaN leaks through the selects);
 *  - the CPU's vectorized form of one pair (kernel_gh_sel + pair_terms_of) equal to the bit to
 *    what pair_bs_split adds for it (the singular kernel's H, whose -3 pair_split_scale applies
 *    afterwards, within 8 units in the last place: two products rounded in another order);
 *  - the CPU direct sum of Gaussian cores in double, whose simd loops call the host's vector erf
 *    and exp where it has them (pair.h, libmvec), against long double sums: 64 targets among 256
 *    sources, ρ from 0 past the singular shortcut, within 2e-16 of each target's Σ|terms| (5e-17 measured). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmm.h"
#include "pair.h"

static int failures = 0;
static void check(int ok, const char *what, double val, double thr) {
  printf("%-64s %10.3e  (threshold %.1e)  %s\n", what, val, thr, ok ? "ok" : "FAIL");
  if (!ok) failures++;
}

static const char *kname[5] = {"singular", "poly", "Rosenhead-Moore", "Winckelmans-Leonard", "Gaussian"};

/* Reference g, h at r for core σ, long double. The Gaussian uses its series below ρ = 1 (30
 * terms: the erf form cancels there) and erf/exp above, never the singular shortcut. */
static void ref_gh(int k, long double r, long double s, long double *g, long double *h) {
  long double r2 = r * r, s2 = s * s, rho = r / s;
  switch (k) {
  case 1:
    if (rho < 1) { *g = 1 / (s2 * r); *h = -1 / (s2 * r2 * r); }
    else { *g = 1 / (r2 * r); *h = -3 / (r2 * r2 * r); }
    return;
  case 2: { long double t = r2 + s2; *g = powl(t, -1.5L); *h = -3 * powl(t, -2.5L); return; }
  case 3: {
    long double t = r2 + s2;
    *g = (r2 + 2.5L * s2) * powl(t, -2.5L);
    *h = -(3 * r2 + 10.5L * s2) * powl(t, -3.5L);
    return;
  }
  case 4: {
    const long double c = sqrtl(2 / acosl(-1.0L));
    if (rho < 1) {
      long double x = -rho * rho / 2, term = 1, gs = 0, hs = 0;
      for (int j = 0; j < 30; ++j) {
        gs += term / (2 * j + 3);
        hs -= term / (2 * j + 5);
        term *= x / (j + 1);
      }
      *g = c * gs / (s2 * s);
      *h = c * hs / (s2 * s2 * s);
      return;
    }
    long double e = expl(-rho * rho / 2), q = erfl(rho / sqrtl(2.0L)) - c * rho * e, dq = c * rho * rho * e;
    *g = q / (r2 * r);
    *h = (dq * rho - 3 * q) / (r2 * r2 * r);
    return;
  }
  default: *g = 1 / (r2 * r); *h = -3 / (r2 * r2 * r); return;
  }
}

/* ρ samples: log-spaced 1e-3..30, plus each branch point ×(1 ± 1e-6) and ×(1 ± 1e-3). */
static int rho_samples(double *out, int cap) {
  int n = 0;
  for (int i = 0; i <= 160 && n < cap; ++i) out[n++] = 1e-3 * pow(3e4, i / 160.0);
  const double edges[3] = {1.0, sqrt(48.0), sqrt(90.0)}, f[4] = {1 - 1e-3, 1 - 1e-6, 1 + 1e-6, 1 + 1e-3};
  for (int e = 0; e < 3; ++e)
    for (int j = 0; j < 4 && n < cap; ++j) out[n++] = edges[e] * f[j];
  return n;
}

static void check_kernels(void) {
  double rho[200];
  int nr = rho_samples(rho, 200);
  const double sigma = 0.37;
  char what[160];
  for (int k = 0; k <= 4; ++k) {
    double ed = 0, ef = 0, esd = 0, esf = 0;
    for (int i = 0; i < nr; ++i) {
      double r = rho[i] * sigma;
      long double G, H;
      ref_gh(k, r, sigma, &G, &H);
      double gd, hd;
      kernel_gh_d(k, r * r, sigma, &gd, &hd);
      float gf, hf;
      kernel_gh_f(k, (float)(r * r), (float)sigma, &gf, &hf);
      /* float inputs are rounded: compare with the reference at the rounded r² and σ */
      long double Gf, Hf;
      ref_gh(k, sqrtl((long double)(float)(r * r)), (long double)(float)sigma, &Gf, &Hf);
      double e1 = fmax(fabs((double)((gd - G) / G)), fabs((double)((hd - H) / H)));
      double e2 = fmax(fabs((double)((gf - Gf) / Gf)), fabs((double)((hf - Hf) / Hf)));
      if (e1 > ed) ed = e1;
      if (e2 > ef) ef = e2;
      /* the CPU's vectorized loops' branch-free form: the same functions, selected */
      kernel_gh_sel_d(k, r * r, sigma, &gd, &hd);
      kernel_gh_sel_f(k, (float)(r * r), (float)sigma, &gf, &hf);
      e1 = fmax(fabs((double)((gd - G) / G)), fabs((double)((hd - H) / H)));
      e2 = fmax(fabs((double)((gf - Gf) / Gf)), fabs((double)((hf - Hf) / Hf)));
      if (e1 > esd) esd = e1;
      if (e2 > esf) esf = e2;
    }
    double g0d, h0d;
    float g0f, h0f;
    kernel_gh_sel_d(k, 0.0, sigma, &g0d, &h0d);
    kernel_gh_sel_f(k, 0.0f, (float)sigma, &g0f, &h0f);
    snprintf(what, sizeof what, "%s kernel_gh_sel at r = 0: |g| + |h|, double and float", kname[k]);
    check(g0d == 0 && h0d == 0 && g0f == 0 && h0f == 0, what, fabs(g0d) + fabs(h0d) + fabs(g0f) + fabs(h0f), 0);
    snprintf(what, sizeof what, "%s kernel_gh_sel vs closed form, double", kname[k]);
    check(esd <= 1e-14, what, esd, 1e-14);
    snprintf(what, sizeof what, "%s kernel_gh_sel vs closed form, float", kname[k]);
    check(esf <= 4e-6, what, esf, 4e-6);
    snprintf(what, sizeof what, "%s g, h vs closed form, double (%d radii)", kname[k], nr);
    check(ed <= 1e-14, what, ed, 1e-14);
    snprintf(what, sizeof what, "%s g, h vs closed form, float", kname[k]);
    check(ef <= 4e-6, what, ef, 4e-6);
  }
  /* the closed forms: h = g'(r)/r by a central difference of g in long double (away from
   * poly's kink at ρ = 1, where g' jumps), step 1e-5 min(r, σ): truncation ≤ 3e-11 (checked
   * in 40 digits); at ρ = 1e-3 the flat kernels' difference is ~1e-11 of g, so long double's
   * rounding (1e-19) limits it to ~1e-8 there */
  for (int k = 0; k <= 4; ++k) {
    double emax = 0;
    for (int i = 0; i < nr; ++i) {
      if (k == 1 && fabs(rho[i] - 1) < 2e-3) continue;
      long double r = rho[i] * sigma, d = 1e-5L * fminl(r, sigma), gp, gm, hh, G, H;
      ref_gh(k, r + d, sigma, &gp, &hh);
      ref_gh(k, r - d, sigma, &gm, &hh);
      ref_gh(k, r, sigma, &G, &H);
      long double fd = (gp - gm) / (2 * d) / r;
      double e = fabs((double)((fd - H) / H));
      if (e > emax) emax = e;
    }
    snprintf(what, sizeof what, "%s closed-form h = g'(r)/r (central difference)", kname[k]);
    check(emax <= 5e-8, what, emax, 5e-8);
  }
}

/* pair_bs: ∂u_i/∂x_j vs (u_i(x + δe_j) - u_i(x - δe_j)) / 2δ, double. */
static void check_gradient(void) {
  srand(7);
  char what[160];
  for (int k = 0; k <= 4; ++k) {
    double emax = 0;
    for (int t = 0; t < 200; ++t) {
      double d[3], a[3], sigma = 0.3;
      for (int c = 0; c < 3; ++c) d[c] = 2.0 * rand() / RAND_MAX - 1, a[c] = 2.0 * rand() / RAND_MAX - 1;
      double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (k == 1 && fabs(r / sigma - 1) < 0.02) continue; /* poly's kink */
      if (r < 1e-2) continue;
      double u[3] = {0, 0, 0}, gr[9] = {0};
      pair_bs_d(k, sigma, d[0], d[1], d[2], a[0], a[1], a[2], u, gr);
      double scale = 0;
      for (int i = 0; i < 9; ++i) scale = fmax(scale, fabs(gr[i]));
      for (int j = 0; j < 3; ++j) {
        double h = 1e-6 * fmax(r, sigma), dp[3] = {d[0], d[1], d[2]}, dm[3] = {d[0], d[1], d[2]};
        dp[j] += h, dm[j] -= h;
        double up[3] = {0, 0, 0}, um[3] = {0, 0, 0};
        pair_bs_d(k, sigma, dp[0], dp[1], dp[2], a[0], a[1], a[2], up, NULL);
        pair_bs_d(k, sigma, dm[0], dm[1], dm[2], a[0], a[1], a[2], um, NULL);
        for (int i = 0; i < 3; ++i) {
          double e = fabs((up[i] - um[i]) / (2 * h) - gr[3 * i + j]) / scale;
          if (e > emax) emax = e;
        }
      }
    }
    snprintf(what, sizeof what, "%s pair gradient vs central differences of velocity", kname[k]);
    check(emax <= 1e-6, what, emax, 1e-6);
  }
}


/* The sums over the n sources (s: x y z αx αy αz per source, relative to the target at the
 * origin): pair_bs into u, gr; pair_bs_split + pair_split_grad into us, gs. Double, then float. */
static void split_sums_d(int k, double sigma, const double *s, int n, double u[3], double gr[9], double us[3],
                         double gs[9]) {
  double H[9] = {0}, w[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) u[i] = us[i] = 0;
  for (int i = 0; i < 9; ++i) gr[i] = 0;
  for (const double *q = s; q < s + 6 * n; q += 6) {
    pair_bs_d(k, sigma, -q[0], -q[1], -q[2], q[3], q[4], q[5], u, gr);
    pair_bs_split_d(k, sigma, -q[0], -q[1], -q[2], q[3], q[4], q[5], us, H, w);
  }
  pair_split_scale_d(k, H);
  pair_split_trace_d(H);
  pair_split_grad_d(H, w, gs);
}
static void split_sums_f(int k, float sigma, const double *s, int n, double u[3], double gr[9], double us[3],
                         double gs[9]) {
  float a[3] = {0, 0, 0}, b[9] = {0}, c[3] = {0, 0, 0}, H[9] = {0}, w[3] = {0, 0, 0}, g2[9];
  for (const double *q = s; q < s + 6 * n; q += 6) {
    const float dx = -(float)q[0], dy = -(float)q[1], dz = -(float)q[2];
    pair_bs_f(k, sigma, dx, dy, dz, (float)q[3], (float)q[4], (float)q[5], a, b);
    pair_bs_split_f(k, sigma, dx, dy, dz, (float)q[3], (float)q[4], (float)q[5], c, H, w);
  }
  pair_split_scale_f(k, H);
  pair_split_trace_f(H);
  pair_split_grad_f(H, w, g2);
  for (int i = 0; i < 3; ++i) u[i] = a[i], us[i] = c[i];
  for (int i = 0; i < 9; ++i) gr[i] = b[i], gs[i] = g2[i];
}

/* One pair's terms as the CPU's vectorized loops form them (kernel_gh_sel, pair_terms_of) against
 * what pair_bs_split adds for it (kernel_gh and its own products, the GPU's form): the same
 * operations, so equal to the bit, in double and float, on n sources s (as below); all but H[8],
 * which pair_bs_split leaves to pair_split_trace. */
static void check_terms(const double *s, int n, double sigma) {
  char what[160];
  for (int k = 0; k <= 4; ++k) {
    int bad = 0;
    for (int j = 0; j < n; ++j) {
      const double *q = s + 6 * j;
      double u[3] = {0}, H[9] = {0}, w[3] = {0}, g, h, r2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
      pair_bs_split_d(k, sigma, -q[0], -q[1], -q[2], q[3], q[4], q[5], u, H, w);
      kernel_gh_sel_d(k, r2, sigma, &g, &h);
      pair_terms_d t = pair_terms_of_d(g, h, -q[0], -q[1], -q[2], q[3], q[4], q[5]);
      const double a[15] = {t.ux, t.uy, t.uz, t.h00, t.h01, t.h02, t.h10, t.h11, t.h12, t.h20, t.h21, t.h22, t.wx, t.wy, t.wz};
      const double b[15] = {u[0], u[1], u[2], H[0], H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8], w[0], w[1], w[2]};
      float uf[3] = {0}, Hf[9] = {0}, wf[3] = {0}, gf, hf;
      const float dx = -(float)q[0], dy = -(float)q[1], dz = -(float)q[2];
      pair_bs_split_f(k, (float)sigma, dx, dy, dz, (float)q[3], (float)q[4], (float)q[5], uf, Hf, wf);
      kernel_gh_sel_f(k, dx * dx + dy * dy + dz * dz, (float)sigma, &gf, &hf);
      pair_terms_f tf = pair_terms_of_f(gf, hf, dx, dy, dz, (float)q[3], (float)q[4], (float)q[5]);
      const float af[15] = {tf.ux, tf.uy, tf.uz, tf.h00, tf.h01, tf.h02, tf.h10, tf.h11, tf.h12,
                            tf.h20, tf.h21, tf.h22, tf.wx, tf.wy, tf.wz};
      const float bf[15] = {uf[0], uf[1], uf[2], Hf[0], Hf[1], Hf[2], Hf[3], Hf[4], Hf[5], Hf[6], Hf[7], Hf[8], wf[0], wf[1], wf[2]};
      pair_split_scale_d(k, H); /* the singular kernel's H: its -3 applied after the products, */
      pair_split_scale_f(k, Hf); /* so within a few units of the last place there, not to the bit */
      const double b2[15] = {u[0], u[1], u[2], H[0], H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8], w[0], w[1], w[2]};
      const float bf2[15] = {uf[0], uf[1], uf[2], Hf[0], Hf[1], Hf[2], Hf[3], Hf[4], Hf[5], Hf[6], Hf[7], Hf[8], wf[0], wf[1], wf[2]};
      for (int i = 0; i < 15; ++i) {
        if (i == 11) continue; /* H[8]: not summed */
        if (k == 0 && i >= 3 && i <= 10)
          bad += (fabs(a[i] - b2[i]) > 1e-15 * fabs(a[i])) + (fabsf(af[i] - bf2[i]) > 1e-6f * fabsf(af[i]));
        else
          bad += (a[i] != b[i]) + (af[i] != bf[i]);
      }
    }
    snprintf(what, sizeof what, "%s pair_terms_of vs pair_bs_split: unequal terms, %d sources", kname[k], n);
    check(bad == 0, what, bad, 0);
  }
}

/* pair_bs_split summed and finished equals pair_bs summed, within rounding of the sum of the
 * pairs' magnitudes (a sign or index slip would be of order 1). */
static void check_split(void) {
  enum { NS = 400 };
  static double s[6 * NS];
  const double sigma = 0.3;
  srand(11);
  for (int j = 0; j < NS; ++j) { /* half within 1.5 σ, half out to 10 σ (ρ² > 90 there) */
    const double ext = j % 2 ? 3.0 : 1.5 * sigma;
    for (int c = 0; c < 6; ++c) s[6 * j + c] = (c < 3 ? ext : 1.0) * (2.0 * rand() / RAND_MAX - 1);
  }
  for (int c = 0; c < 3; ++c) s[c] = 0.0; /* source 0 coincides with the target */
  check_terms(s, NS, sigma);
  char what[160];
  for (int k = 0; k <= 4; ++k) {
    /* the scale: Σ over pairs of each pair's largest |u_i| and |∂u_i/∂x_j| (double) */
    double su = 0, sg = 0;
    for (int j = 0; j < NS; ++j) {
      double u[3] = {0, 0, 0}, gr[9] = {0}, mu = 0, mg = 0;
      pair_bs_d(k, sigma, -s[6 * j], -s[6 * j + 1], -s[6 * j + 2], s[6 * j + 3], s[6 * j + 4], s[6 * j + 5], u, gr);
      for (int i = 0; i < 3; ++i) mu = fmax(mu, fabs(u[i]));
      for (int i = 0; i < 9; ++i) mg = fmax(mg, fabs(gr[i]));
      su += mu, sg += mg;
    }
    for (int fl = 0; fl < 2; ++fl) {
      double u[3], gr[9], us[3], gs[9], e = 0;
      if (fl) split_sums_f(k, (float)sigma, s, NS, u, gr, us, gs);
      else split_sums_d(k, sigma, s, NS, u, gr, us, gs);
      for (int i = 0; i < 3; ++i) e = fmax(e, fabs(us[i] - u[i]) / su);
      for (int i = 0; i < 9; ++i) e = fmax(e, fabs(gs[i] - gr[i]) / sg);
      const double thr = fl ? 2e-6 : 1e-14;
      snprintf(what, sizeof what, "%s pair_bs_split vs pair_bs, %d sources, %s", kname[k], NS, fl ? "float" : "double");
      check(e <= thr, what, e, thr);
      /* the coincident source alone: exact zeros */
      double z = 0;
      if (fl) split_sums_f(k, (float)sigma, s, 1, u, gr, us, gs);
      else split_sums_d(k, sigma, s, 1, u, gr, us, gs);
      for (int i = 0; i < 3; ++i) z += (us[i] != 0.0) + (u[i] != 0.0);
      for (int i = 0; i < 9; ++i) z += (gs[i] != 0.0) + (gr[i] != 0.0);
      snprintf(what, sizeof what, "%s pair_bs_split coincident pair: nonzero outputs, %s", kname[k], fl ? "float" : "double");
      check(z == 0, what, z, 0);
    }
  }
}

/* The CPU direct sum (fmm_direct: the near field's simd loop) of Gaussian cores in double against
 * long double sums of ref_gh's terms, velocity and gradient, each target's error over its sum of
 * the terms' magnitudes. */
static void check_direct_gauss(void) {
  enum { NS = 256, NT = 64 };
  const double sigma = 0.03, c4pi = 1.0 / (4.0 * acos(-1.0));
  static double pos[3 * NS], str[3 * NS], vel[3 * NT], grad[9 * NT];
  srand(7);
  for (int i = 0; i < 3 * NS; ++i) pos[i] = 0.3 * rand() / RAND_MAX, str[i] = 2.0 * rand() / RAND_MAX - 1.0;
  fmm_params prm = fmm_params_default();
  prm.backend = VX_BACKEND_CPU, prm.precision = VX_DOUBLE, prm.kernel = VX_KERNEL_GAUSS, prm.sigma = sigma;
  char err[256];
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  fmm_io io = {.n_src = NS, .src_pos = pos, .src_str = str, .n_tgt = NT, .tgt_pos = pos, .vel = vel, .grad = grad};
  if (!ctx || fmm_direct(ctx, &io, NULL, err, sizeof err)) { printf("FAIL: direct sum: %s\n", err); ++failures; return; }
  fmm_destroy(ctx);
  double worst_u = 0.0, worst_g = 0.0;
  for (int i = 0; i < NT; ++i) {
    long double u[3] = {0}, gr[9] = {0}, mu = 0, mg = 0;
    for (int j = 0; j < NS; ++j) {
      long double d[3], a[3], r2 = 0;
      for (int k = 0; k < 3; ++k) d[k] = (long double)pos[3 * i + k] - pos[3 * j + k], a[k] = str[3 * j + k], r2 += d[k] * d[k];
      if (r2 == 0) continue;
      long double g, h, c[3] = {a[1] * d[2] - a[2] * d[1], a[2] * d[0] - a[0] * d[2], a[0] * d[1] - a[1] * d[0]};
      ref_gh(4, sqrtl(r2), sigma, &g, &h);
      for (int k = 0; k < 3; ++k) u[k] += g * c[k], mu += fabsl(g * c[k]);
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) {
          long double t = h * d[l] * c[k]; /* ∂_l u_k: h d_l (α × d)_k - g ε_klm α_m */
          if (k != l) t -= g * ((k + 1) % 3 == l ? a[(l + 1) % 3] : -a[(k + 1) % 3]);
          gr[3 * k + l] += t, mg += fabsl(t);
        }
    }
    double eu = 0.0, eg = 0.0;
    for (int k = 0; k < 3; ++k) eu = fmax(eu, fabs(vel[3 * i + k] / c4pi - (double)u[k]));
    for (int k = 0; k < 9; ++k) eg = fmax(eg, fabs(grad[9 * i + k] / c4pi - (double)gr[k]));
    worst_u = fmax(worst_u, eu / (double)mu), worst_g = fmax(worst_g, eg / (double)mg);
  }
  printf("direct sum, Gaussian, double (vector erf: %s): velocity within %.1e, gradient within %.1e of sum|terms|\n",
         fmm_cpu_pairs_vectorize(VX_KERNEL_GAUSS, VX_DOUBLE) ? "yes" : "no", worst_u, worst_g);
  check(worst_u <= 2e-16, "direct sum velocity, Gaussian double", worst_u, 2e-16);
  check(worst_g <= 2e-16, "direct sum gradient, Gaussian double", worst_g, 2e-16);
}

int main(void) {
  check_kernels();
  check_direct_gauss();
  check_gradient();
  check_split();
  if (failures) {
    printf("%d check(s) FAILED\n", failures);
    return 1;
  }
  printf("all pair-kernel checks passed\n");
  return 0;
}
