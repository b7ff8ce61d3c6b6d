/* test_vortex_longrun.c — the long-run controls (CPU, ~30 s on 2 cores):
 *   a small scene that blows up without them and lives with them: two thin coaxial rings (2 x 64
 *   elements, R = 0.3, 0.15 apart, Gaussian σ = 0.04, RK4 dt = 0.005, classical stretching, FMM
 *   p = 12, never the direct sum: fmm_only). The FMM breaks the rings' 64-fold symmetry and the error
 *   grows: without control the run blows up by vx_sim_health's rule between t = 2 and 3 (measured
 *   2.445 in double, by the energy rule; 2.235 in float, max|α| x20);
 *   with relaxation 0.3 every step it runs to t = 4 with the impulse at the end within 1.5e-5 (measured
 *   3.5e-6 double, 2.5e-6 float) and max|α| within 1.25x its start (measured 1.19).
 * And
 *   a resolved ring (a = 0.03, 80 x 19 elements: the single_ring scene's cross-section; σ = 0.024) stepped with dt = DT, beyond RK4's
 *   stability for the core's fastest rotation (dt·max|∇u| ≈ 11): without substeps the impulse
 *   drifts 4 % in 15 steps (measured 4.1e-2; no blow-up by vx_sim_health's rule); with lcfl = 0.5 (each
 *   step split into ⌈dt·max|∇u|/0.5⌉ substeps) and relaxation 0.3 it runs the 15 steps with
 *   max|α| within 1.2x its start (measured 1.09), the impulse drift under 2 % and at most a third of the
 *   uncontrolled run's (measured 1.0e-2), the radius within 2 % (measured 0.8 %). (Remeshing is not part of
 *   this test: the remeshed field needs the finer lattices of docs/VALIDATION.md, "Saffman's viscous
 *   ring", to stay within these bounds.)
 * And the energy rule alone (energy_rule: a healthy ring's strengths scaled by 1.1 in place; measured:
 * rise 9.5e-4 before, 21.2 % after, declared at the next measurement).
 * And the blow-up path inside a step: a NaN in the state reaches the next engine call, which fails;
 * vx_sim_step must report that as VX_SIM_BLOWUP naming the step and RK stage, not as an engine error.
 * Run: build/tests/test_vortex_longrun */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "scene.h"
#include "sim.h"
#include "test_check.h"
#include "test_vortex.h"

#define DT 0.12
#define STEPS 15

static void ring_scene(vx_scene *sc) {
  vx_scene_init(sc);
  sc->kernel = VX_KERNEL_GAUSS;
  sc->sigma = 0.024;
  sc->n_rings = 1;
  vx_ring_init(&sc->rings[0]);
  sc->rings[0].core = 0.03;
  sc->rings[0].n_around = 80;
  sc->rings[0].layers = 2;
  sc->rings[0].layer_points = 6;
  sc->rings[0].tracers = 0;
}

/* Runs STEPS steps; returns the step that blew up (0: none) and the last diagnostics in *d. */
static int run(int controls, vx_diag *d0, vx_diag *d, double *amax0, double *amax) {
  vx_scene sc;
  ring_scene(&sc);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU;
  p.direct = 1;
  p.dt = DT;
  p.tracers = 0;
  p.lcfl = controls ? 0.5 : 0.0;
  p.relax = controls ? 0.3 : 0.0;
  p.relax_every = 1;
  p.remesh_every = 0;
  p.remesh_drop = 1e-3;
  char err[256];
  vx_sim *s = vx_sim_create(&p, &sc, err, sizeof err);
  if (!s) { FAIL("create: %s", err); return -1; }
  vx_health h;
  int blew = 0;
  if (vx_diag_compute(s, 1 << 20, d0, err, sizeof err) || vx_sim_health(s, &h, err, sizeof err)) {
    FAIL("start: %s", err);
    vx_sim_destroy(s);
    return -1;
  }
  *amax0 = h.max_alpha;
  for (int k = 1; k <= STEPS && !blew; ++k) {
    int rc = vx_sim_step(s, err, sizeof err);
    if (rc == 0) rc = vx_sim_health(s, &h, err, sizeof err);
    if (rc == VX_SIM_BLOWUP) blew = k;
    else if (rc) { FAIL("step %d: %s", k, err); break; }
  }
  if (blew) printf("  %s: %s\n", controls ? "with controls" : "without", err);
  else if (vx_diag_compute(s, 1 << 20, d, err, sizeof err)) { FAIL("diag: %s", err); blew = -1; }
  *amax = h.max_alpha;
  vx_sim_destroy(s);
  return blew;
}

/* The two thin rings of the header, n_around 64 each. */
static vx_sim *thin_pair(double relax, vx_precision prec, char *err, size_t errlen) {
  vx_scene sc;
  vx_test_two_rings(&sc, 64);
  for (int r = 0; r < 2; ++r) sc.rings[r].tracers = 0;
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU;
  p.precision = prec;
  p.kernel = VX_KERNEL_GAUSS;
  p.sigma = 0.04;
  p.dt = 0.005;
  p.order = 12;
  p.fmm_only = 1; /* the FMM's error is what breaks the symmetry: never the exact direct sum */
  p.stretching = VX_STRETCH_CLASSICAL;
  p.tracers = 0;
  p.lcfl = 0.0;
  p.relax = relax;
  p.relax_every = 1;
  return vx_sim_create(&p, &sc, err, errlen);
}

static void blowup_prevented(vx_precision prec) {
  double t_blew[2] = {0, 0}, dI = 0, amax = 0;
  for (int c = 0; c < 2; ++c) {
    char err[256];
    vx_sim *s = thin_pair(c ? 0.3 : 0.0, prec, err, sizeof err);
    if (!s) { FAIL("create: %s", err); return; }
    vx_diag d0, d;
    vx_health h;
    if (vx_diag_compute(s, 1 << 20, &d0, err, sizeof err)) { FAIL("diag: %s", err); vx_sim_destroy(s); return; }
    for (int k = 0; k < 800; ++k) {
      int rc = vx_sim_step(s, err, sizeof err);
      if (rc == 0) rc = vx_sim_health(s, &h, err, sizeof err);
      if (rc == VX_SIM_BLOWUP) {
        t_blew[c] = vx_sim_time(s);
        printf("  %s, relaxation %g: %s\n", vx_precision_name(prec), c ? 0.3 : 0.0, err);
        break;
      }
      if (rc) { FAIL("step: %s", err); break; }
    }
    if (c && !t_blew[c]) {
      if (vx_diag_compute(s, 1 << 20, &d, err, sizeof err)) {
        FAIL("diag at the end: %s", err);
        dI = amax = INFINITY;
      } else {
        dI = fabs(d.I[2] - d0.I[2]) / fabs(d0.I[2]);
        amax = d.max_alpha / d0.max_alpha;
      }
    }
    vx_sim_destroy(s);
  }
  printf("thin pair, FMM, %s: without control blew up at t = %.3f; with relaxation %s (impulse drift %.2e, max|alpha| x%.3f)\n",
         vx_precision_name(prec), t_blew[0], t_blew[1] ? "blew up too" : "ran to t = 4", dI, amax);
  if (!(t_blew[0] > 2.0 && t_blew[0] < 3.0))
    FAIL("without control the thin pair did not blow up between t = 2 and 3 (t = %.3f; 0: not at all)", t_blew[0]);
  if (t_blew[1] > 0) FAIL("with relaxation the thin pair blew up at t = %.3f", t_blew[1]);
  else if (!(dI < 1.5e-5) || !(amax < 1.25))
    FAIL("with relaxation: impulse drift %.3e (limit 1.5e-5), max|alpha| x%.3f (limit 1.25)", dI, amax);
}

static void nan_in_stage(void) {
  double pos[3 * 40], alpha[3 * 40];
  for (int i = 0; i < 40; ++i)
    for (int c = 0; c < 3; ++c) {
      pos[3 * i + c] = 0.5 + 0.1 * cos(i + 2.0 * c);
      alpha[3 * i + c] = 0.01 * sin(3.0 * i + c);
    }
  pos[3 * 17 + 1] = NAN;
  vx_sim_params p;
  memset(&p, 0, sizeof p);
  p.backend = VX_BACKEND_CPU;
  p.order = 6;
  p.leaf_size = 8;
  p.kernel = VX_KERNEL_GAUSS;
  p.sigma = 0.05;
  p.dt = 0.01;
  p.integrator = VX_RK4;
  char err[256];
  vx_sim *s = vx_sim_create_from(&p, 40, 0, pos, alpha, NULL, err, sizeof err);
  if (!s) { FAIL("create with a NaN: %s", err); return; }
  int rc = vx_sim_step(s, err, sizeof err);
  printf("NaN in the state: vx_sim_step returns %d: %s\n", rc, err);
  if (rc != VX_SIM_BLOWUP || !strstr(err, "step 1") || !strstr(err, "RK stage 1") || !strstr(err, "NaN"))
    FAIL("a NaN in the state gave rc %d and '%s', not a blow-up naming step 1, RK stage 1", rc, err);
  vx_sim_destroy(s);
}

/* Steps until the energy watch has measured at least up to time t; the last health rc in *rc. */
static int step_to(vx_sim *s, double t, vx_health *h, char *err, size_t errlen) {
  int rc = 0;
  while (rc == 0 && vx_sim_time(s) < t) {
    rc = vx_sim_step(s, err, errlen);
    if (rc == 0) rc = vx_sim_health(s, h, err, errlen);
  }
  return rc;
}

/* The energy rule alone: the single ring of run() (direct sums, dt = 0.01, no controls) is healthy
 * over its first two measurements; then its strengths are scaled by 1.1 in place, which raises the
 * energy 21 % and max|α| only 1.1x: the next measurement must declare a breakdown naming the energy,
 * and the rows before must show a healthy state with the reference measured. */
static void energy_rule(void) {
  vx_scene sc;
  ring_scene(&sc);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU;
  p.direct = 1;
  p.dt = 0.01;
  p.tracers = 0;
  p.lcfl = p.relax = 0.0;
  p.remesh_every = 0;
  char err[256];
  vx_sim *s = vx_sim_create(&p, &sc, err, sizeof err);
  if (!s) { FAIL("create: %s", err); return; }
  vx_health h;
  int rc = step_to(s, 1.5 * VX_SIM_ENERGY_EVERY, &h, err, sizeof err);
  double e1 = h.energy, rise = (h.energy - h.energy_min) / h.energy0;
  printf("energy rule: healthy ring at t = %.2f: energy %.6g (reference %.6g, rise %.2e), max|alpha| x%.3f\n",
         vx_sim_time(s), h.energy, h.energy0, rise, h.max_alpha / h.alpha0);
  if (rc || !isfinite(h.energy0) || !(fabs(rise) < 2e-3)) {
    FAIL("the healthy ring: rc %d (%s), energy %g, reference %g", rc, rc ? err : "", h.energy, h.energy0);
    vx_sim_destroy(s);
    return;
  }
  int on_device = 0;
  double *a = (double *)vx_sim_strengths_raw(s, &on_device); /* CPU, double: host memory */
  for (int i = 0; i < 3 * vx_sim_n_elements(s); ++i) a[i] *= 1.1;
  rc = step_to(s, vx_sim_time(s) + 1.01 * VX_SIM_ENERGY_EVERY, &h, err, sizeof err);
  printf("  after scaling the strengths by 1.1: rc %d at t = %.2f, energy %.6g (x%.3f): %s\n", rc, vx_sim_time(s),
         h.energy, h.energy / e1, rc ? err : "no breakdown declared");
  if (rc != VX_SIM_BLOWUP || !strstr(err, "energy") || !strstr(err, "broke down at step"))
    FAIL("an energy rise of %.0f %% was not declared a breakdown naming the energy (rc %d)", 100 * (h.energy / e1 - 1), rc);
  vx_sim_destroy(s);
}

int main(void) {
  nan_in_stage();
  energy_rule();
  blowup_prevented(VX_DOUBLE);
  blowup_prevented(VX_FLOAT);
  vx_diag d0, d;
  double a0, a;
  int blew = run(0, &d0, &d, &a0, &a);
  if (blew < 0) { fprintf(stderr, "%d failure(s)\n", failures); return EXIT_FAILURE; } /* FAIL said why */
  double dI = blew ? INFINITY : fabs(d.I[2] - d0.I[2]) / fabs(d0.I[2]);
  double dI_free = dI;
  printf("without controls: %s, impulse drift %.3g\n", blew > 0 ? "blew up" : "no blow-up by the rule", dI);
  blew = run(1, &d0, &d, &a0, &a);
  if (blew < 0) {
    /* FAIL said why */
  } else if (blew) {
    FAIL("with substeps and relaxation the run blew up at step %d", blew);
  } else {
    dI = fabs(d.I[2] - d0.I[2]) / fabs(d0.I[2]);
    double dR = fabs(d.ring_R[0] - d0.ring_R[0]) / d0.ring_R[0];
    printf("with controls: t = %.2f, max|alpha| x%.3f, impulse drift %.2e, radius change %.2e, dt*max|grad u| %.2f\n", d.t,
           a / a0, dI, dR, DT * d.max_gradu);
    if (!(a < 1.2 * a0)) FAIL("max|alpha| grew %.3f times (limit 1.2)", a / a0);
    if (!(dI < 0.02) || !(dI < dI_free / 3.0))
      FAIL("impulse drift %.3e (limits 2e-2 and a third of the uncontrolled %.3e)", dI, dI_free);
    if (!(dR < 0.02)) FAIL("radius changed by %.3e (limit 2e-2)", dR);
  }
  if (failures) { fprintf(stderr, "%d failure(s)\n", failures); return EXIT_FAILURE; }
  printf("the long-run controls keep the ring\n");
  return EXIT_SUCCESS;
}
