/* test_vortex_order.c — the integrators converge at their design order: Euler 1, Heun (RK2) 2,
 * classical RK4 4. Two interacting thin rings (leapfrog geometry, 2 x 32 elements, direct sum,
 * CPU, double) are advanced to T = 0.12 with dt = T/3, T/6, T/12, T/24; the error against an RK4
 * run with dt = T/384 (positions and strengths, max norm) must shrink by 2^p per halving:
 * the last ratio must lie in [0.95, 1.05] x 2^p (measured: 1.98, 4.01, 15.97, i.e. within
 * 1 %). Also checks the stretching formulas on a known gradient. Run: ctest -R vortex_order */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "stage.h"
#include "test_check.h"
#include "test_vortex.h"

#define T_END 0.12
#define NA 32

static void scene_two_rings(vx_scene *sc) {
  vx_test_two_rings(sc, NA);
  for (int r = 0; r < 2; ++r) {
    sc->rings[r].phase = 0.3 * r;          /* stations not aligned: no exact symmetry */
    sc->rings[r].perturb_amp = 0.05 * r;   /* and a wavy front ring, for non-trivial stretching */
    sc->rings[r].perturb_mode = 3;
  }
}

/* Run to T_END with nsteps steps; state (positions then strengths) into out (6*n doubles). */
static int run(vx_integrator integ, int nsteps, double *out, int *n_out) {
  vx_scene sc;
  scene_two_rings(&sc);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU;
  p.precision = VX_DOUBLE;
  p.kernel = VX_KERNEL_GAUSS;
  p.sigma = 0.06;
  p.direct = 1;
  p.integrator = integ;
  p.stretching = VX_STRETCH_CLASSICAL;
  p.dt = T_END / nsteps;
  char err[256];
  vx_sim *s = vx_sim_create(&p, &sc, err, sizeof err);
  if (!s) { printf("FAIL: create: %s\n", err); return -1; }
  for (int k = 0; k < nsteps; ++k)
    if (vx_sim_step(s, err, sizeof err)) { printf("FAIL: step: %s\n", err); vx_sim_destroy(s); return -1; }
  int n = vx_sim_n_elements(s);
  if (vx_sim_get_elements(s, out, out + 3 * n, err, sizeof err)) { printf("FAIL: elements: %s\n", err); vx_sim_destroy(s); return -1; }
  *n_out = n;
  vx_sim_destroy(s);
  return 0;
}

static double err_max(const double *a, const double *b, int n) {
  /* positions in units of the ring radius, strengths in units of their initial scale */
  double ep = 0, ea = 0, as = 2 * VX_PI * 0.3 / NA;
  for (int i = 0; i < 3 * n; ++i) ep = fmax(ep, fabs(a[i] - b[i]) / 0.3);
  for (int i = 3 * n; i < 6 * n; ++i) ea = fmax(ea, fabs(a[i] - b[i]) / as);
  return fmax(ep, ea);
}

static void test_stretch_formulas(void) {
  double g[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, a[3] = {1, -1, 2}, s[3];
  vx_stretch_d(0, g, a, s); /* (α·∇)u: Σ_j g[3i+j] α_j */
  EXPECT(s[0] == 5 && s[1] == 11 && s[2] == 17, "classical stretching (%g %g %g) != (5 11 17)", s[0], s[1], s[2]);
  vx_stretch_d(1, g, a, s); /* (∇u)ᵀα: Σ_j g[3j+i] α_j */
  EXPECT(s[0] == 11 && s[1] == 13 && s[2] == 15, "transposed stretching (%g %g %g) != (11 13 15)", s[0], s[1], s[2]);
}

int main(void) {
  test_stretch_formulas();
  int n = 2 * NA;
  double *ref = malloc(sizeof(double) * 6 * n), *y = malloc(sizeof(double) * 6 * n);
  if (!ref || !y || run(VX_RK4, 384, ref, &n)) return EXIT_FAILURE;
  const struct { vx_integrator integ; const char *name; int p; } cases[3] = {
      {VX_EULER, "euler", 1}, {VX_RK2, "rk2", 2}, {VX_RK4, "rk4", 4}};
  for (int c = 0; c < 3; ++c) {
    double e[4];
    for (int k = 0; k < 4; ++k) {
      int nn;
      if (run(cases[c].integ, 3 << k, y, &nn)) return EXIT_FAILURE;
      if (nn != n) { printf("FAIL: %d elements, the reference has %d\n", nn, n); return EXIT_FAILURE; }
      e[k] = err_max(y, ref, n);
    }
    double want = (double)(1 << cases[c].p);
    printf("%-5s errors", cases[c].name);
    for (int k = 0; k < 4; ++k) printf(" %.3e", e[k]);
    printf("  ratios %.2f %.2f %.2f (expect %.0f)\n", e[0] / e[1], e[1] / e[2], e[2] / e[3], want);
    double r = e[2] / e[3];
    EXPECT(r > 0.95 * want && r < 1.05 * want, "%s: last error ratio %.3f not within [0.95, 1.05] x %.0f", cases[c].name, r,
          want);
  }
  free(ref);
  free(y);
  return vx_test_end("all order checks passed");
}
