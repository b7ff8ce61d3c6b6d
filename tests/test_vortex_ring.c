/* test_vortex_ring.c — a single vortex ring translates at the speed theory gives.
 *
 * (a) Resolved Gaussian core: R = 1, Γ = 1, a = 0.05 R, 2 annuli across the core (19 elements per
 *     station, 314 stations), Gaussian smoothing σ = the annulus width h. The smoothed vorticity
 *     is the Gaussian core convolved with the Gaussian blob, again Gaussian with
 *     a_eff² = a² + 2σ², so Saffman's formula (J. Fluid Mech. 1970)
 *         U = Γ/(4πR) (ln(8R/a_eff) - 0.558)
 *     applies. FMM (order 10), RK4, dt = 0.01, 10 steps; U from the |α|-weighted centroid.
 * (b) Thin ring of Gaussian blobs (one element per station, 400 stations, σ = 0.05 R): the blobs
 *     cannot deform, so the ring moves at the regularized filament's centreline speed
 *         U = Γ/(4πR) (ln(8R/σ) + C_q),  C_q = -1 + ∫_0^∞ (q(ρ) - q_RM(ρ))/ρ dρ
 *     (Moore's cut-off analysis; the Rosenhead–Moore kernel q_RM gives C = -1 exactly, Saffman,
 *     Vortex Dynamics §11.2). For the Gaussian kernel C_q = -1.0582 = -0.558 - 1/2, i.e. Saffman's
 *     ring with a = √e·σ. Direct sum, RK4, dt = 0.01, 10 steps.
 * Tolerances a small factor above what is measured: (a) 1.2 % (measured 0.56 %: the
 * resolved core's own departure from Saffman's thin-core formula), (b) 0.025 % (measured 0.0066 %),
 * C_q within 1e-4 of -1.0582 (measured 3e-5: the constant is quoted to 4 decimals).
 * docs/VALIDATION.md, "Ring speed", has the convergence table. Run: ctest -R vortex_ring */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "sim.h"

#define TOL_RESOLVED 0.012 /* measured 5.6e-3 */
#define TOL_THIN 2.5e-4     /* measured 6.6e-5 */

static double q_gauss(double r) { return erf(r / sqrt(2.0)) - sqrt(2.0 / VX_PI) * r * exp(-0.5 * r * r); }
static double q_rm(double r) { return r * r * r / pow(r * r + 1.0, 1.5); }

/* C_q of the Gaussian kernel by the midpoint rule on [0, 60] (the integrand decays like ρ^-3). */
static double c_gauss(void) {
  const int m = 600000;
  double h = 60.0 / m, s = 0.0;
  for (int i = 0; i < m; ++i) {
    double r = (i + 0.5) * h;
    s += (q_gauss(r) - q_rm(r)) / r * h;
  }
  return -1.0 + s;
}

/* Run a one-ring scene; return the centroid speed along the axis. */
static double ring_speed(const vx_scene *sc, double sigma, int direct, int steps, double dt) {
  vx_sim_params p = vx_sim_params_from_scene(sc);
  p.backend = VX_BACKEND_CPU;
  p.precision = VX_DOUBLE;
  p.kernel = VX_KERNEL_GAUSS;
  p.sigma = sigma;
  p.direct = direct;
  p.order = 10;
  p.integrator = VX_RK4;
  p.stretching = VX_STRETCH_TRANSPOSE;
  p.dt = dt;
  char err[256];
  vx_sim *s = vx_sim_create(&p, sc, err, sizeof err);
  if (!s) { printf("FAIL: create: %s\n", err); return NAN; }
  vx_diag d0, d1;
  if (vx_diag_compute(s, 0, &d0, err, sizeof err)) { printf("FAIL: %s\n", err); vx_sim_destroy(s); return NAN; }
  for (int k = 0; k < steps; ++k)
    if (vx_sim_step(s, err, sizeof err)) { printf("FAIL: step: %s\n", err); vx_sim_destroy(s); return NAN; }
  if (vx_diag_compute(s, 0, &d1, err, sizeof err)) { printf("FAIL: %s\n", err); vx_sim_destroy(s); return NAN; }
  printf("  %d elements, radius %.5f -> %.5f\n", vx_sim_n_elements(s), d0.ring_R[0], d1.ring_R[0]);
  vx_sim_destroy(s);
  return (d1.ring_c[0][2] - d0.ring_c[0][2]) / (d1.t - d0.t);
}

static vx_scene one_ring(double core, int layers, int n_around) {
  vx_scene sc;
  vx_scene_init(&sc);
  sc.n_rings = 1;
  vx_ring *r = &sc.rings[0];
  vx_ring_init(r);
  r->circulation = 1.0;
  r->radius = 1.0;
  r->core = core;
  r->profile = VX_CORE_GAUSS;
  r->core_extent = 2.0;
  r->layers = layers;
  r->layer_points = 6;
  r->n_around = n_around;
  r->centre[0] = r->centre[1] = r->centre[2] = 0.0;
  return sc;
}

int main(void) {
  int failures = 0;
  /* (a) resolved Gaussian core */
  double a = 0.05, h = a * 2.0 / 2.5;
  vx_scene sc = one_ring(a, 2, (int)(2.0 * 2.0 * VX_PI / h));
  printf("(a) resolved Gaussian core a = %g, 2 annuli, sigma = h = %g\n", a, h);
  double U = ring_speed(&sc, h, 0, 10, 0.01);
  double aeff = sqrt(a * a + 2.0 * h * h);
  double Us = (log(8.0 / aeff) - 0.558) / (4.0 * VX_PI);
  double e = fabs(U / Us - 1.0);
  printf("  U = %.6f, Saffman (a_eff = %.5f) %.6f, error %.4f%% (tolerance %.4g%%)\n", U, aeff, Us, 100 * e, 100 * TOL_RESOLVED);
  if (!(e < TOL_RESOLVED)) { printf("FAIL: resolved ring speed off by %.4f%%\n", 100 * e); ++failures; }

  /* (b) thin ring of Gaussian blobs */
  double sigma = 0.05, C = c_gauss();
  sc = one_ring(0.05, 0, 400);
  printf("(b) thin ring, sigma = %g, C_q = %.5f\n", sigma, C);
  U = ring_speed(&sc, sigma, 1, 10, 0.01);
  double Uf = (log(8.0 / sigma) + C) / (4.0 * VX_PI);
  e = fabs(U / Uf - 1.0);
  printf("  U = %.6f, filament theory %.6f, error %.4f%% (tolerance %.4g%%)\n", U, Uf, 100 * e, 100 * TOL_THIN);
  if (!(e < TOL_THIN)) { printf("FAIL: thin ring speed off by %.4f%%\n", 100 * e); ++failures; }
  if (!(fabs(C + 1.0582) < 1e-4)) { printf("FAIL: C_q = %.6f, expected -1.0582 within 1e-4\n", C); ++failures; }

  if (failures) return EXIT_FAILURE;
  printf("ring speed checks passed\n");
  return EXIT_SUCCESS;
}
