/* test_vortex_thin_leapfrog.c — the shipped thin-ring leapfrog (assets/leapfrog_big.scene: vortex
 * filaments, one element a station, σ = 0.005, a = √e·σ, a/R = 0.027) at CI size follows the reduced
 * model of coaxial rings and keeps its invariants.
 *
 * The scene as shipped (float, FMM p = 8, RK4, dt = 0.0002, transposed stretching, relaxation 0.01 a
 * step) with 768 stations a ring instead of 16384 (σ = 2 station spacings) and no tracers, to t = 0.3
 * (1500 steps), the energy every 50 steps. Checks:
 *   - the rings exchange places twice, at the reduced model's passages for these rings
 *     (docs/VALIDATION.md, "Coaxial rings against the reduced model": thin rings whose cores do not
 *     stretch, a = √e·σ; scripts/validation.py's
 *     bkm_solve gives t = 0.09010 and 0.27031 for R = 0.3, 0.15 apart): within 5e-4 (measured 0.09010
 *     and 0.27030, interpolated between steps);
 *   - the linear impulse stays within 2e-5 of |I0| (measured 1.16e-5), the energy within 0.5 % of
 *     its start (measured 0.36 %: it swings with the rings' radii, no drift), max|α| within 1.22 × its
 *     start (measured 1.184: the widening ring's stretched elements).
 * (25 s on one thread.)
 * The full scene runs to t = 10 (56 passages) on the GPU and the same rings at 1024 stations on the
 * CPU (docs/VALIDATION.md, "`leapfrog_big`: thin filaments at the paper's size").
 * Run: ctest -R vortex_thin_leapfrog */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"
#include "sim.h"

#define STEPS 1500
#define ENERGY_EVERY 50
#define N_PASS 2

static const double model_pass[N_PASS] = {0.09010, 0.27031};

static vx_sim *create(char *err, size_t errlen) {
  vx_scene sc;
  if (vx_scene_load(VX_ASSETS_DIR "/leapfrog_big.scene", &sc, err, errlen)) return NULL;
  for (int r = 0; r < sc.n_rings; ++r) sc.rings[r].n_around = 768;
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU;
  p.tracers = 0;
  return vx_sim_create(&p, &sc, err, errlen);
}

static double impulse_dev(const vx_diag *d, const vx_diag *d0) {
  double a = 0.0, b = 0.0;
  for (int i = 0; i < 3; ++i) a += (d->I[i] - d0->I[i]) * (d->I[i] - d0->I[i]), b += d0->I[i] * d0->I[i];
  return sqrt(a / b);
}

int main(void) {
  char err[512];
  vx_sim *s = create(err, sizeof err);
  if (!s) { printf("FAIL: %s\n", err); return EXIT_FAILURE; }
  vx_diag d0, d;
  if (vx_diag_compute(s, 1 << 20, &d0, err, sizeof err)) { printf("FAIL: %s\n", err); return EXIT_FAILURE; }
  double prev_dz = d0.ring_c[1][2] - d0.ring_c[0][2], prev_t = d0.t, pass[8];
  double dI = 0.0, dE = 0.0, amax = 0.0;
  int n_pass = 0;
  for (int k = 1; k <= STEPS; ++k) {
    int with_e = k % ENERGY_EVERY == 0;
    if (vx_sim_step(s, err, sizeof err) || vx_diag_compute(s, with_e ? 1 << 20 : 0, &d, err, sizeof err)) {
      printf("FAIL: step %d: %s\n", k, err);
      vx_sim_destroy(s);
      return EXIT_FAILURE;
    }
    double dz = d.ring_c[1][2] - d.ring_c[0][2];
    if (dz * prev_dz < 0 && n_pass < 8) pass[n_pass++] = prev_t + (d.t - prev_t) * prev_dz / (prev_dz - dz);
    prev_dz = dz, prev_t = d.t;
    dI = fmax(dI, impulse_dev(&d, &d0));
    amax = fmax(amax, d.max_alpha / d0.max_alpha);
    if (with_e) dE = fmax(dE, fabs(d.energy / d0.energy - 1.0));
  }
  vx_sim_destroy(s);
  int failures = 0;
  printf("t = %.3f: %d passages;", d.t, n_pass);
  for (int i = 0; i < n_pass; ++i) printf(" %.5f", pass[i]);
  printf("\nmax |I - I0|/|I0| %.3e, max |E/E0 - 1| %.3e, max|alpha| x%.3f\n", dI, dE, amax);
  if (n_pass != N_PASS) { printf("FAIL: %d passages, the model has %d by t = 0.3\n", n_pass, N_PASS); ++failures; }
  for (int i = 0; i < n_pass && i < N_PASS; ++i)
    if (!(fabs(pass[i] - model_pass[i]) < 5e-4)) {
      printf("FAIL: passage %d at t = %.5f, the model's %.5f\n", i + 1, pass[i], model_pass[i]);
      ++failures;
    }
  if (!(dI < 2e-5)) { printf("FAIL: impulse moved by %.3e of |I0| (> 2e-5)\n", dI); ++failures; }
  if (!(dE < 5e-3)) { printf("FAIL: energy moved by %.3e (> 5e-3)\n", dE); ++failures; }
  if (!(amax < 1.22)) { printf("FAIL: max|alpha| grew x%.3f (> 1.22)\n", amax); ++failures; }
  if (failures) return EXIT_FAILURE;
  printf("thin leapfrog checks passed\n");
  return EXIT_SUCCESS;
}
