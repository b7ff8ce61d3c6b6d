/* test_vortex_conserve.c — the conservative correction of the long-run control (vortex/conserve.h):
 *   1. On random elements whose strengths were relaxed (a random gradient, f = 0.3), the
 *      correction brings the total vorticity W = Σα and the impulse I = ½Σx×α back to their values
 *      before, to round-off, in double and float, and it is smaller than what relaxation changed.
 *   2. The solve on a planar ring: an impulse deficit along the axis is put back by a pure μ along
 *      the axis (λ = 0), the weights' centroid is the ring's centre.
 *   3. In a simulation (one ring, relaxation every step, remeshing): a remeshing whose drop
 *      threshold (1e-2) removes nodes keeps W and I to round-off with the correction, and moves
 *      them measurably without it (--conserve off); the axial mode restores I's component along
 *      itself to round-off.
 *   4. The ring mode on two thin rings run as vortex filaments (derived numerics), one with a wave
 *      of mode 6 on its centreline: each relaxation turns the wavy filament's strengths and moves the
 *      flow's impulse by percents within 0.03 time units without a correction (--conserve off);
 *      the derived ring mode keeps it within 1e-3 (the sweep's criterion).
 * Thresholds about 5x the values measured (x86-64 gcc 12 -O3; beside each).
 * Run: build/tests/test_vortex_conserve */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conserve.h"
#include "diag.h"
#include "sim.h"
#include "stage.h"
#include "test_check.h"
#include "test_vortex.h"

static uint64_t rng = 4242;
static double urand(void) { return vx_test_lcg11(&rng); } /* in [-1, 1) */

static void test_random(vx_precision prec) {
  enum { N = 4000 };
  static double x[3 * N], a[3 * N], g[9 * N], a0[3 * N];
  static float xf[3 * N], af[3 * N], gf[9 * N];
  for (int i = 0; i < 3 * N; ++i) x[i] = 2.0 + urand(), a[i] = urand();
  for (int i = 0; i < 9 * N; ++i) g[i] = urand();
  for (int i = 0; i < 3 * N; ++i) xf[i] = (float)x[i], af[i] = (float)a[i];
  for (int i = 0; i < 9 * N; ++i) gf[i] = (float)g[i];
  int fl = prec == VX_FLOAT;
  void *pos = fl ? (void *)xf : (void *)x, *alpha = fl ? (void *)af : (void *)a;
  char err[256];
  double m0[VX_MOMENTS_N], m1[VX_MOMENTS_N], m2[VX_MOMENTS_N], di = 0.0;
  if (vx_moments(prec, 0, pos, alpha, N, NULL, m0, err, sizeof err)) { FAIL("moments: %s", err); return; }
  for (int k = 0; k < N; ++k) {
    if (fl) vx_relax_f(0.3f, gf + 9 * k, af + 3 * k); else vx_relax_d(0.3, g + 9 * k, a + 3 * k);
  }
  for (int i = 0; i < 3 * N; ++i) a0[i] = fl ? af[i] : a[i];
  if (vx_moments(prec, 0, pos, alpha, N, NULL, m1, err, sizeof err) ||
      vx_conserve(prec, 0, pos, alpha, N, NULL, m0, m0 + 3, VX_CONSERVE_FULL, &di, err, sizeof err) ||
      vx_moments(prec, 0, pos, alpha, N, NULL, m2, err, sizeof err)) { FAIL("conserve: %s", err); return; }
  double before = 0.0, after = 0.0, moved = 0.0, fix = 0.0;
  for (int c = 0; c < 6; ++c) {
    before = fmax(before, fabs(m1[c] - m0[c]) / m0[6]);
    after = fmax(after, fabs(m2[c] - m0[c]) / m0[6]);
  }
  for (int i = 0; i < 3 * N; ++i) {
    double ai = fl ? af[i] : a[i], orig = a0[i];
    fix += (ai - orig) * (ai - orig);
  }
  /* what relaxation moved: the strengths before it are gone, so measure against the invariants' scale */
  moved = before;
  double tol = fl ? 1e-9 : 1e-15; /* measured: float 1.9e-10, double 1.3e-16 (relative to the sum of abs(alpha)) */
  printf("%s: invariants moved by relaxation %.3g, after the correction %.3g (of Σ|α|); |ΔI|/|I| put back %.3g, "
         "|δα| %.3g\n", fl ? "float" : "double", moved, after, di, sqrt(fix));
  if (!(after < tol)) FAIL("%s: W and I not restored: %.3g of Σ|α| (tolerance %.1g)", fl ? "float" : "double", after, tol);
  if (!(before > 1e-3)) FAIL("relaxation of random strengths did not move the invariants (%.3g): the test tests nothing", before);
  if (!(sqrt(fix) < 0.1 * sqrt((double)N))) FAIL("the correction is not small: |δα| = %.3g", sqrt(fix));
}

static void test_ring(void) {
  enum { N = 64 };
  double x[3 * N], a[3 * N], m[VX_MOMENTS_N], coef[9];
  for (int k = 0; k < N; ++k) {
    double t = 2.0 * 3.14159265358979323846 * k / N;
    x[3 * k] = 0.5 + 0.3 * cos(t), x[3 * k + 1] = 0.5 + 0.3 * sin(t), x[3 * k + 2] = 0.4;
    a[3 * k] = -sin(t), a[3 * k + 1] = cos(t), a[3 * k + 2] = 0.0;
  }
  char err[256];
  if (vx_moments(VX_DOUBLE, 0, x, a, N, NULL, m, err, sizeof err)) { FAIL("moments: %s", err); return; }
  double W0[3] = {m[0], m[1], m[2]}, I0[3] = {m[3], m[4], m[5] * 1.01};
  if (vx_conserve_solve(m, W0, I0, VX_CONSERVE_FULL, coef)) { FAIL("the ring's correction was refused"); return; }
  /* J about the centre: Σw R² along the axis, so μ_z = 2·0.01·I_z / (N R²) and δα = μ_z R tangential */
  double want = 2.0 * 0.01 * m[5] / (N * 0.3 * 0.3);
  printf("ring: lambda %.2e %.2e %.2e, mu %.3e %.3e %.6e (want %.6e), c %.6f %.6f %.6f\n", coef[0], coef[1], coef[2],
         coef[3], coef[4], coef[5], want, coef[6], coef[7], coef[8]);
  for (int c = 0; c < 5; ++c)
    if (fabs(coef[c]) > 1e-14) FAIL("ring: coefficient %d is %.3g, not 0", c, coef[c]); /* measured ~1e-17 */
  if (fabs(coef[5] - want) > 1e-12 * fabs(want)) FAIL("ring: mu_z %.15g, want %.15g", coef[5], want);
  if (fabs(coef[6] - 0.5) > 1e-14 || fabs(coef[7] - 0.5) > 1e-14 || fabs(coef[8] - 0.4) > 1e-14) FAIL("ring: centre wrong");
}

/* A lattice through (0, 0, 0): with h = 0.06 the ring's axis (0.5, 0.5) lies a third of a cell
 * off its nodes. */
static const double off_axis[3] = {0.0, 0.0, 0.0};

/* One thick ring relaxing every step and remeshing every 4 steps with a coarse drop threshold,
 * on a lattice through the ring's centre (the default, origin NULL) or through `origin`. */
static vx_sim *ring_sim(double relax, double drop, vx_conserve_mode mode, const double *origin, char *err, size_t errlen) {
  vx_scene sc;
  vx_test_one_ring(&sc, "conserve_ring", 32, 0);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU, p.precision = VX_DOUBLE, p.kernel = VX_KERNEL_GAUSS;
  p.sigma = 0.08, p.dt = 0.02, p.integrator = VX_RK2, p.order = 8, p.leaf_size = 16;
  p.relax = relax, p.relax_every = 1;
  p.remesh_every = drop > 0.0 ? 4 : 0, p.remesh_drop = drop, p.remesh_h = 0.06;
  p.conserve = mode;
  for (int c = 0; origin && c < 3; ++c) p.remesh_origin[c] = origin[c];
  return vx_sim_create(&p, &sc, err, errlen);
}

/* One vx_sim_remesh call after 5 steps: the diagnostics before (d0) and after (d1), and the moments
 * before (m0, conserve.h: the centroid the full mode removes W at). */
typedef struct {
  vx_diag d0, d1;
  double m0[VX_MOMENTS_N];
  double di, dia, dw; /* |ΔI|/|I|, its component along I, |ΔW|/Σ|α| */
} remesh_jump_t;

static int remesh_jump(double drop, vx_conserve_mode mode, const double *origin, remesh_jump_t *r) {
  char err[256];
  vx_sim *s = ring_sim(0.3, drop, mode, origin, err, sizeof err);
  if (!s) { FAIL("sim: %s", err); return -1; }
  int rc = 0, dev = 0;
  for (int k = 0; k < 5 && rc == 0; ++k) rc = vx_sim_step(s, err, sizeof err);
  if (rc == 0) rc = vx_diag_compute(s, 0, &r->d0, err, sizeof err);
  if (rc == 0)
    rc = vx_moments(VX_DOUBLE, 0, vx_sim_positions_raw(s, &dev), vx_sim_strengths_raw(s, &dev), vx_sim_n_elements(s), NULL,
                    r->m0, err, sizeof err);
  if (rc == 0) rc = vx_sim_remesh(s, err, sizeof err);
  if (rc == 0) rc = vx_diag_compute(s, 0, &r->d1, err, sizeof err);
  if (rc) { FAIL("ring: %s", err); vx_sim_destroy(s); return -1; }
  const double *I0 = r->d0.I, *I1 = r->d1.I;
  double i0 = sqrt(I0[0] * I0[0] + I0[1] * I0[1] + I0[2] * I0[2]), a2 = 0.0, b2 = 0.0;
  for (int c = 0; c < 3; ++c) a2 += (I1[c] - I0[c]) * (I1[c] - I0[c]), b2 += (r->d1.W[c] - r->d0.W[c]) * (r->d1.W[c] - r->d0.W[c]);
  r->di = sqrt(a2) / i0, r->dw = sqrt(b2) / r->d0.sum_abs_alpha;
  r->dia = fabs((I1[0] - I0[0]) * I0[0] + (I1[1] - I0[1]) * I0[1] + (I1[2] - I0[2]) * I0[2]) / (i0 * i0);
  printf("remeshing with drop %g, correction %s, lattice %s: %d -> %d elements, |dI|/|I| %.3g (along I %.3g), "
         "|dW|/sum|alpha| %.3g\n", drop, vx_conserve_name(mode), origin ? "off the axis" : "on the axis", r->d0.n_elem,
         r->d1.n_elem, r->di, r->dia, r->dw);
  vx_sim_destroy(s);
  return 0;
}

/* The full mode's promise (sim_control.c, restored_impulse): W ends at zero, its value for any vorticity of
 * compact support, and I at its value before less ½ c×W0 (W0 taken away at the centroid c). */
static void check_full(const remesh_jump_t *r) {
  const double *m = r->m0, *W0 = r->d0.W, *I0 = r->d0.I, *I1 = r->d1.I;
  double c[3] = {m[7] / m[6], m[8] / m[6], m[9] / m[6]}, want[3], e = 0.0, w = 0.0, i0 = 0.0;
  want[0] = I0[0] - 0.5 * (c[1] * W0[2] - c[2] * W0[1]);
  want[1] = I0[1] - 0.5 * (c[2] * W0[0] - c[0] * W0[2]);
  want[2] = I0[2] - 0.5 * (c[0] * W0[1] - c[1] * W0[0]);
  for (int k = 0; k < 3; ++k) e += (I1[k] - want[k]) * (I1[k] - want[k]), w += r->d1.W[k] * r->d1.W[k], i0 += I0[k] * I0[k];
  double w0 = sqrt(W0[0] * W0[0] + W0[1] * W0[1] + W0[2] * W0[2]) / r->d0.sum_abs_alpha;
  printf("full: W before %.3g of sum|alpha|, after %.3g; I after - (I before - c x W/2): %.3g of |I|\n", w0,
         sqrt(w) / r->d0.sum_abs_alpha, sqrt(e / i0));
  if (!(w0 > 1e-9)) FAIL("the stretching left W at %.3g: the full mode's W is not tested", w0); /* measured 1.7e-4 */
  if (!(sqrt(w) < 1e-15 * r->d0.sum_abs_alpha)) FAIL("the full correction left W = %.3g", sqrt(w)); /* measured 1.2e-17 */
  if (!(sqrt(e / i0) < 3e-15)) FAIL("the full correction left I off by %.3g", sqrt(e / i0)); /* measured 5.1e-16 */
}

/* The corrections are tested on the lattice off the axis, where the drop moves I most. */
static void test_sim(void) {
  remesh_jump_t f, n, a, s;
  if (remesh_jump(1e-2, VX_CONSERVE_FULL, off_axis, &f) || remesh_jump(1e-2, VX_CONSERVE_OFF, off_axis, &n) ||
      remesh_jump(1e-2, VX_CONSERVE_AXIAL, off_axis, &a) || remesh_jump(1e-2, VX_CONSERVE_OFF, NULL, &s))
    return;
  /* on the axis the lattice, hence the dropped fringe, has the ring's fourfold symmetry */
  if (!(s.di < 2e-4)) FAIL("on the axis, dropping moved the impulse by %.3g", s.di); /* measured 5.4e-5 */
  if (!(n.dia > 1e-3)) FAIL("dropping moved the impulse along itself by only %.3g", n.dia); /* measured 2.1e-2 */
  if (!(a.dia < 1e-14)) FAIL("the axial correction left %.3g of the impulse along I", a.dia); /* measured 5e-17 */
  if (!(n.di > 1e-3)) FAIL("dropping 1%% nodes moved the impulse by only %.3g: the test tests nothing", n.di); /* measured 2.2e-2 */
  check_full(&f);
}

/* Two thin coaxial rings, the rear one wavy (a/R = 0.03, coarse; layers = 0: vortex filaments,
 * conserve ring derived), run to t = 0.03 with the derived correction or with `mode`: the largest |I − I0|/|I0|. */
static double wavy_drift(int mode_given, vx_conserve_mode mode) {
  static const char *text = "resolution = coarse\n"
                            "[ring]\ncirculation = 1\nradius = 0.2\ncore = 0.006\ncentre = 0.5 0.5 0.4\naxis = 0 0 1\n"
                            "perturb_amp = 0.06\nperturb_mode = 6\nlayers = 0\n"
                            "[ring]\ncirculation = 1\nradius = 0.25\ncore = 0.0075\ncentre = 0.5 0.5 0.6\naxis = 0 0 1\n"
                            "layers = 0\n";
  char err[256];
  vx_scene sc;
  if (vx_scene_parse(text, "wavy_pair", &sc, err, sizeof err)) { FAIL("scene: %s", err); return -1.0; }
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU, p.precision = VX_DOUBLE;
  if (mode_given) p.conserve = mode;
  vx_sim *s = vx_sim_create(&p, &sc, err, sizeof err);
  if (!s) { FAIL("sim: %s", err); return -1.0; }
  vx_diag d0, d;
  double worst = 0.0;
  int rc = vx_diag_compute(s, 0, &d0, err, sizeof err);
  double i0 = sqrt(d0.I[0] * d0.I[0] + d0.I[1] * d0.I[1] + d0.I[2] * d0.I[2]);
  while (rc == 0 && vx_sim_time(s) < 0.03 - 1e-9) {
    rc = vx_sim_step(s, err, sizeof err);
    if (rc == 0) rc = vx_diag_compute(s, 0, &d, err, sizeof err);
    if (rc == 0) worst = fmax(worst, sqrt(pow(d.I[0] - d0.I[0], 2) + pow(d.I[1] - d0.I[1], 2) + pow(d.I[2] - d0.I[2], 2)) / i0);
  }
  printf("wavy filament pair, conserve %s: %d relaxations to t = %.3g, max|I - I0|/|I0| %.3g\n",
         vx_conserve_name(vx_sim_params_get(s)->conserve), (int)vx_sim_conserve_stats(s).relaxations, vx_sim_time(s), worst);
  if (rc) FAIL("run: %s", err);
  vx_sim_destroy(s);
  return rc ? -1.0 : worst;
}

static void test_rings(void) {
  double ring = wavy_drift(0, VX_CONSERVE_OFF), off = wavy_drift(1, VX_CONSERVE_OFF);
  if (!(off > 5e-3)) /* measured 8.4e-3 */
    FAIL("without a correction the wavy filament moved the impulse by only %.3g: the test tests nothing", off);
  if (!(ring >= 0.0 && ring < 1e-3)) FAIL("the ring mode left the impulse off by %.3g", ring); /* measured 5.7e-4 */
}

int main(void) {
  test_random(VX_DOUBLE);
  test_random(VX_FLOAT);
  test_ring();
  test_sim();
  test_rings();
  if (failures) { printf("%d failure(s)\n", failures); return EXIT_FAILURE; }
  printf("all conservation checks passed\n");
  return EXIT_SUCCESS;
}
