/* test_vortex_coarsen.c — the remeshing lattice that follows a spreading field (vortex/coarsen.h):
 *   1. The field's scale on a lattice: an isotropic Gaussian exp(-r²/a²) sampled at spacing h has
 *      L = h/√(6(1 − exp(−h²/2a²))) (Σ(Δα)² over one axis is 2(1 − exp(−h²/2a²))·Σα² for a ≫ h;
 *      L → a/√3), and its |α|-weighted rms radius (from the moments, conserve.h) is a·√(3/2).
 *      Measured within 1e-3 and 1e-3; the
 *      nodes given in reverse order give the same L to the bit.
 *   2. The rule: due at L ≥ ratio·2h with 2h ≤ radius/4, not below either, never at ratio 0.
 *   3. In a simulation (one ring, CPU, double, no drop threshold, inviscid): a ratio that the
 *      starting lattice already meets coarsens it at the initial remeshing; h and σ double together
 *      each time, and the total vorticity W = Σα and the impulse I = ½Σx×α of the ring's elements
 *      are kept to round-off through the remeshings (M4' conserves both).
 * Run: build/tests/test_vortex_coarsen */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coarsen.h"
#include "conserve.h"
#include "sim.h"
#include "test_check.h"
#include "test_vortex.h"

static void gaussian_blob(void) {
  const double h = 0.01, a = 4.0 * h, o[3] = {0.3, -0.2, 0.1};
  const int m = 24; /* nodes out to 6a: the edge holds exp(-36) of the field */
  int n = 0;
  double *x = malloc(sizeof(double) * 3 * (2 * m + 1) * (2 * m + 1) * (2 * m + 1));
  double *al = malloc(sizeof(double) * 3 * (2 * m + 1) * (2 * m + 1) * (2 * m + 1));
  if (!x || !al) { FAIL("out of memory"); free(x), free(al); return; }
  for (int i = -m; i <= m; ++i)
    for (int j = -m; j <= m; ++j)
      for (int k = -m; k <= m; ++k) {
        double r2 = h * h * (i * i + j * j + k * k), w = exp(-r2 / (a * a));
        x[3 * n] = o[0] + i * h, x[3 * n + 1] = o[1] + j * h, x[3 * n + 2] = o[2] + k * h;
        al[3 * n] = 0.6 * w, al[3 * n + 1] = -0.8 * w, al[3 * n + 2] = 0.0;
        ++n;
      }
  vx_lattice_field f;
  char err[256];
  double mom[VX_MOMENTS_N];
  if (vx_lattice_scale(x, al, n, h, o, &f.scale, err, sizeof err)) FAIL("measure: %s", err);
  if (vx_moments(VX_DOUBLE, 0, x, al, n, NULL, mom, err, sizeof err)) FAIL("moments: %s", err);
  f.radius = vx_field_radius(mom);
  const double L = h / sqrt(6.0 * (1.0 - exp(-h * h / (2.0 * a * a)))), R = a * sqrt(1.5);
  EXPECT(fabs(f.scale / L - 1.0) < 1e-3, "scale %.6g, expected %.6g", f.scale, L);
  EXPECT(fabs(f.radius / R - 1.0) < 1e-3, "radius %.6g, expected %.6g", f.radius, R);
  printf("1. a Gaussian of a = 4h: scale %.6g h (expected %.6g), radius %.6g h (expected %.6g)\n", f.scale / h, L / h,
         f.radius / h, R / h);
  /* the nodes in another order (remeshing leaves them in key order; any other is sorted first): the
   * same sums in the same order */
  for (int i = 0, j = n - 1; i < j; ++i, --j)
    for (int c = 0; c < 3; ++c) {
      double t = x[3 * i + c];
      x[3 * i + c] = x[3 * j + c], x[3 * j + c] = t;
      t = al[3 * i + c], al[3 * i + c] = al[3 * j + c], al[3 * j + c] = t;
    }
  double g = 0.0;
  if (vx_lattice_scale(x, al, n, h, o, &g, err, sizeof err)) FAIL("measure: %s", err);
  EXPECT(g == f.scale, "the nodes reversed: scale %.17g against %.17g", g, f.scale);
  free(x), free(al);
}

static void rule(void) {
  vx_lattice_field f = {0.5, 1.0}; /* L = 0.5, radius 1 */
  EXPECT(vx_coarsen_due(&f, 0.1, 2.5), "L = 2.5 spacings of 2h = 0.2 at ratio 2.5: due");
  EXPECT(!vx_coarsen_due(&f, 0.1, 2.6), "L below 2.6 spacings of 2h: not due");
  EXPECT(!vx_coarsen_due(&f, 0.1, 0.0), "ratio 0: never");
  f.radius = 0.79;
  EXPECT(!vx_coarsen_due(&f, 0.1, 1.0), "2h = 0.2 above radius/4: not due");
  printf("2. the rule: due at L = ratio·2h with 2h <= radius/4; not below either; never at ratio 0\n");
}

/* A ring of radius 0.5 and core 0.05 (19 elements a station, 128 stations 0.025 apart, on a lattice
 * of 0.03): a field the starting lattice resolves, that 2h = 0.06 would too (the measure reads a
 * core of few elements as the lumps they leave on the lattice). */
static void coarsen_ring(vx_scene *sc) {
  vx_test_one_ring(sc, "coarsen", 128, 0);
  sc->rings[0].radius = 0.5, sc->rings[0].core = 0.05, sc->rings[0].layers = 2, sc->rings[0].layer_points = 6;
}

/* The ring's elements as the scene makes them (no remeshing), into *pos and *alpha (malloc'd). */
static int ring_elements(vx_sim_params p, const vx_scene *sc, int *n, double **pos, double **alpha) {
  char err[256];
  p.remesh_every = 0;
  vx_sim *s = vx_sim_create(&p, sc, err, sizeof err);
  if (!s) { FAIL("create: %s", err); return -1; }
  *n = vx_sim_n_elements(s);
  *pos = malloc(sizeof(double) * 3 * (size_t)*n), *alpha = malloc(sizeof(double) * 3 * (size_t)*n);
  int rc = !*pos || !*alpha || vx_sim_get_elements(s, *pos, *alpha, err, sizeof err);
  vx_sim_destroy(s);
  if (rc) FAIL("elements: %s", err);
  return rc ? -1 : 0;
}

static void moments(int n, const double *pos, const double *alpha, double *m) {
  char err[256];
  if (vx_moments(VX_DOUBLE, 0, pos, alpha, n, NULL, m, err, sizeof err)) FAIL("moments: %s", err);
}

/* W and I of n elements before (m0) and now in s: the largest change of a component, relative to
 * Σ|α| and |I|. */
static void invariants_kept(vx_sim *s, const double *m0, double *dw, double *di) {
  char err[256];
  int ne = vx_sim_n_elements(s);
  double m1[VX_MOMENTS_N], *x = malloc(sizeof(double) * 3 * (size_t)ne), *al = malloc(sizeof(double) * 3 * (size_t)ne);
  *dw = *di = INFINITY;
  if (!x || !al || vx_sim_get_elements(s, x, al, err, sizeof err)) FAIL("elements: %s", err);
  else {
    moments(ne, x, al, m1);
    double ni = sqrt(m0[3] * m0[3] + m0[4] * m0[4] + m0[5] * m0[5]);
    *dw = *di = 0.0;
    for (int c = 0; c < 3; ++c) *dw = fmax(*dw, fabs(m1[c] - m0[c]) / m0[6]), *di = fmax(*di, fabs(m1[3 + c] - m0[3 + c]) / ni);
  }
  free(x), free(al);
}

/* The ring on a lattice that the ratio 0.3 lets coarsen at once (no drop threshold, inviscid): the
 * initial remeshing and its coarsenings keep W and I to round-off; h and σ double together, also
 * over the steps that follow. */
static void in_simulation(void) {
  vx_scene sc;
  coarsen_ring(&sc);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU, p.precision = VX_DOUBLE, p.order = 6;
  p.sigma = 0.03, p.remesh_h = 0.0, p.remesh_every = 2, p.remesh_drop = 0.0, p.viscosity = 0.0, p.relax = 0.0;
  p.remesh_coarsen = 0.3;
  int n = 0;
  double *pos = NULL, *alpha = NULL, m0[VX_MOMENTS_N], dw, di;
  if (ring_elements(p, &sc, &n, &pos, &alpha)) { free(pos), free(alpha); return; }
  moments(n, pos, alpha, m0);
  char err[256];
  vx_sim *s = vx_sim_create_from(&p, n, 0, pos, alpha, NULL, err, sizeof err);
  free(pos), free(alpha);
  if (!s) { FAIL("create: %s", err); return; }
  const vx_remesh_stats *R = vx_sim_remesh_stats(s);
  int k = R->coarsenings, ne = vx_sim_n_elements(s);
  invariants_kept(s, m0, &dw, &di);
  EXPECT(k >= 1, "no coarsening at the initial remeshing (the starting lattice meets ratio 0.3)");
  EXPECT(dw < 1e-13 && di < 1e-13, "through %d coarsenings: |dW|/sum|alpha| %.3g, |dI|/|I| %.3g", k, dw, di);
  printf("3. a ring of %d elements: the initial remeshing and its %d coarsenings (the last called for by the field's "
         "scale %.3g): %d elements, |dW|/sum|alpha| %.2g, |dI|/|I| %.2g\n", n, k, R->scale, ne, dw, di);
  for (int j = 0; j < 4 && !failures; ++j)
    if (vx_sim_step(s, err, sizeof err)) FAIL("step %d: %s", j, err);
  const vx_sim_params *q = vx_sim_params_get(s);
  const double h = p.sigma * ldexp(1.0, R->coarsenings);
  EXPECT(fabs(R->h - h) < 1e-15 && fabs(q->sigma - h) < 1e-15, "h %g, sigma %g after %d doublings of %g", R->h, q->sigma,
         R->coarsenings, p.sigma);
  printf("   after 4 steps: %d doublings, h = sigma = %g, %d elements\n", R->coarsenings, R->h, vx_sim_n_elements(s));
  vx_sim_destroy(s);
}

int main(void) {
  gaussian_blob();
  rule();
  in_simulation();
  if (failures) printf("%d check(s) failed\n", failures);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
