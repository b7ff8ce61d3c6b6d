/* test_vort_grid.c — the vorticity grid's CPU twin (vortex/vort_grid.h) against the exact field
 * ω(x) = Σ α_p (2πσ²)^{-3/2} exp(−|x − x_p|²/(2σ²)):
 *   1. one blob off the nodes, α = (0, 0, 1): the grid equals the exact |ω| within a bound measured
 *      at σ = 2.1, 2.85 and 4.05 spacings (8, 3 and 2 % of the peak: the deposit's extra variance,
 *      f(1−f)dx² along an axis for a blob a fraction f across its cell, and the truncation at 3σ);
 *      the cube holds the blob's 3σ box; Σ|ω| dx³ = |α| to 1e-3; vmax is the grid's largest value;
 *   2. 200 random blobs with α along +z, σ = 3.2 spacings: Σ|ω| dx³ = Σα_z to 1e-3, the grid against
 *      the direct sum of the Gaussians at every node within 1.6 % of vmax; float and double inputs agree; one
 *      thread and two give the same bits; a grid object reused at another n gives the same bits
 *      as a fresh one;
 *   3. two opposite blobs at one point cancel (vmax = 0); no elements give zeros, vmax 0;
 *   4. bad arguments are refused with a message; a device grid without a CUDA device is refused.
 * Run: ./build/tests/test_vort_grid */
#include "test_check.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "pointsets.h"
#include "vort_grid.h"

/* The exact |ω| at x of m blobs (double). */
static double exact_mag(const double *pos, const double *alpha, int m, double sigma, const double x[3]) {
  const double norm = pow(2.0 * VX_PI * sigma * sigma, -1.5);
  double w[3] = {0.0, 0.0, 0.0};
  for (int p = 0; p < m; ++p) {
    double r2 = 0.0;
    for (int c = 0; c < 3; ++c) r2 += (x[c] - pos[3 * p + c]) * (x[c] - pos[3 * p + c]);
    const double z = norm * exp(-0.5 * r2 / (sigma * sigma));
    for (int c = 0; c < 3; ++c) w[c] += alpha[3 * p + c] * z;
  }
  return sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
}

/* max |grid − exact| over all nodes, and Σ grid dx³. */
static void compare_exact(const float *grid, int n, const double lo[3], double side, const double *pos,
                          const double *alpha, int m, double sigma, double *max_err, double *integral) {
  const double dx = side / (n - 1);
  double e = 0.0, s = 0.0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double x[3] = {lo[0] + i * dx, lo[1] + j * dx, lo[2] + k * dx};
        const double g = grid[((size_t)k * n + j) * n + i];
        e = fmax(e, fabs(g - exact_mag(pos, alpha, m, sigma, x)));
        s += g;
      }
  *max_err = e;
  *integral = s * dx * dx * dx;
}

static float grid_max(const float *grid, int n) {
  float m = 0.0f;
  for (size_t i = 0; i < (size_t)n * n * n; ++i) m = grid[i] > m ? grid[i] : m;
  return m;
}

/* 1: one blob at n nodes a side, max error ≤ tol of the peak. A second element without strength
 * moves the cube (centred on the elements' box) so that the blob sits off the nodes. */
static void test_one_blob(vx_vort_grid *g, int n, double tol) {
  const double sigma = 0.05, pos[6] = {0.1234, -0.0567, 0.0311, 0.1471, -0.0231, 0.0528};
  const double alpha[6] = {0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
  const double peak = pow(2.0 * VX_PI * sigma * sigma, -1.5);
  char err[256];
  const float *grid;
  double lo[3], side, e, integral;
  float vmax;
  if (vx_vort_grid_compute(g, VX_DOUBLE, pos, alpha, 2, sigma, n, &grid, lo, &side, &vmax, err, sizeof err)) {
    FAIL("one blob, n = %d: %s", n, err);
    return;
  }
  compare_exact(grid, n, lo, side, pos, alpha, 2, sigma, &e, &integral);
  double f[3];
  for (int c = 0; c < 3; ++c) f[c] = (pos[c] - lo[c]) / side * (n - 1) - floor((pos[c] - lo[c]) / side * (n - 1));
  printf("  one blob, n = %d (sigma = %.2f dx, at %.2f %.2f %.2f of a cell): max |grid - exact| = %.4f of the peak "
         "(bound %.3f), integral - 1 = %.2e, vmax / peak = %.4f\n", n, sigma * (n - 1) / side, f[0], f[1], f[2], e / peak,
         tol, integral - 1.0, vmax / peak);
  EXPECT(e <= tol * peak, "one blob, n = %d: grid differs from the exact field by %.4f of the peak (bound %.3f)", n,
         e / peak, tol);
  EXPECT(fabs(integral - 1.0) <= 1e-3, "one blob, n = %d: integral %.6f, not 1", n, integral);
  EXPECT(vmax == grid_max(grid, n), "one blob, n = %d: vmax %g is not the grid's largest value %g", n, vmax, grid_max(grid, n));
  for (int c = 0; c < 3; ++c)
    EXPECT(lo[c] <= pos[c] - 3 * sigma && lo[c] + side >= pos[c] + 3 * sigma, "one blob: the cube misses the 3 sigma box on axis %d",
           c);
}

/* 200 blobs in the unit cube, α = (0, 0, u), u in [0.5, 1.5). */
enum { M = 200 };
static void make_blobs(double *pos, double *alpha, float *posf, float *alphaf) {
  uint64_t seed = 2024;
  for (int p = 0; p < M; ++p)
    for (int c = 0; c < 3; ++c) {
      pos[3 * p + c] = vx_rng_uniform(&seed);
      alpha[3 * p + c] = c == 2 ? 0.5 + vx_rng_uniform(&seed) : 0.0;
      posf[3 * p + c] = (float)pos[3 * p + c];
      alphaf[3 * p + c] = (float)alpha[3 * p + c];
    }
}

static int same_bits(const float *a, const float *b, int n) { return !memcmp(a, b, (size_t)n * n * n * sizeof(float)); }

/* 2 */
static void test_many_blobs(vx_vort_grid *g) {
  const int n = 64;
  const double sigma = 0.08;
  double pos[3 * M], alpha[3 * M], lo[3], side, lo2[3], side2, e, integral, total = 0.0;
  float posf[3 * M], alphaf[3 * M], vmax, vmax2;
  char err[256];
  const float *grid;
  make_blobs(pos, alpha, posf, alphaf);
  for (int p = 0; p < M; ++p) total += alpha[3 * p + 2];
  size_t bytes = (size_t)n * n * n * sizeof(float);
  float *ref = malloc(bytes);
  if (!ref) { FAIL("out of memory"); return; }
  if (vx_vort_grid_compute(g, VX_DOUBLE, pos, alpha, M, sigma, n, &grid, lo, &side, &vmax, err, sizeof err)) {
    FAIL("many blobs: %s", err);
    free(ref);
    return;
  }
  memcpy(ref, grid, bytes);
  compare_exact(ref, n, lo, side, pos, alpha, M, sigma, &e, &integral);
  printf("  %d blobs, n = %d (sigma = %.2f dx): max |grid - exact| = %.4f of vmax, integral / sum alpha - 1 = %.2e\n", M, n,
         sigma * (n - 1) / side, e / vmax, integral / total - 1.0);
  EXPECT(e <= 0.016 * vmax, "many blobs: grid differs from the direct sum by %.4f of vmax (bound 0.016)", e / vmax); /* 0.0128 */
  EXPECT(fabs(integral / total - 1.0) <= 1e-3, "many blobs: integral %.6f against sum alpha %.6f", integral, total);
  /* float inputs: the same cube to float's rounding of the box, the same field to float's */
  if (vx_vort_grid_compute(g, VX_FLOAT, posf, alphaf, M, sigma, n, &grid, lo2, &side2, &vmax2, err, sizeof err)) {
    FAIL("many blobs, float: %s", err);
  } else {
    double d = 0.0;
    for (size_t i = 0; i < (size_t)n * n * n; ++i) d = fmax(d, fabs((double)grid[i] - ref[i]));
    printf("  float inputs against double: max difference %.2e of vmax, side %.2e apart\n", d / vmax, fabs(side2 - side) / side);
    EXPECT(d <= 1e-5 * vmax && fabs(side2 - side) <= 1e-6 * side, "many blobs: float and double inputs differ by %.2e of vmax",
           d / vmax);
  }
  /* one thread: the same bits */
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  int rc = vx_vort_grid_compute(g, VX_DOUBLE, pos, alpha, M, sigma, n, &grid, lo2, &side2, &vmax2, err, sizeof err);
  omp_set_num_threads(threads);
  EXPECT(!rc && same_bits(grid, ref, n) && vmax2 == vmax, "many blobs: one thread and %d give different grids", threads);
  /* a reused object at another n, then back: the same bits as the first call */
  rc = vx_vort_grid_compute(g, VX_DOUBLE, pos, alpha, M, sigma, 96, &grid, lo2, &side2, &vmax2, err, sizeof err) ||
       vx_vort_grid_compute(g, VX_DOUBLE, pos, alpha, M, sigma, n, &grid, lo2, &side2, &vmax2, err, sizeof err);
  EXPECT(!rc && same_bits(grid, ref, n) && side2 == side, "many blobs: a reused grid object gives another grid");
  free(ref);
}

/* 3 */
static void test_cancel_and_empty(vx_vort_grid *g) {
  const double sigma = 0.05, pos[6] = {0.3, 0.2, 0.1, 0.3, 0.2, 0.1}, alpha[6] = {0.2, -0.5, 1.0, -0.2, 0.5, -1.0};
  const double peak = pow(2.0 * VX_PI * sigma * sigma, -1.5);
  const int n = 40;
  char err[256];
  const float *grid;
  double lo[3], side;
  float vmax;
  if (vx_vort_grid_compute(g, VX_DOUBLE, pos, alpha, 2, sigma, n, &grid, lo, &side, &vmax, err, sizeof err)) {
    FAIL("opposite blobs: %s", err);
  } else {
    printf("  opposite blobs: vmax %.3g, grid max %.3g\n", vmax, grid_max(grid, n));
    EXPECT(vmax <= 1e-6 * peak && grid_max(grid, n) <= 1e-6 * peak, "opposite blobs: vmax %g, not 0", vmax);
  }
  if (vx_vort_grid_compute(g, VX_FLOAT, NULL, NULL, 0, sigma, n, &grid, lo, &side, &vmax, err, sizeof err)) {
    FAIL("no elements: %s", err);
  } else {
    EXPECT(vmax == 0.0f && grid_max(grid, n) == 0.0f && side > 0.0, "no elements: vmax %g, side %g", vmax, side);
  }
}

/* 4 */
static void test_refusals(vx_vort_grid *g) {
  /* a NaN among finite coordinates, and an infinite one */
  const double nan_pos[6] = {0.0, 0.0, 0.0, 0.1, NAN, 0.0}, inf_pos[6] = {0.0, 0.0, 0.0, 0.1, 0.0, -INFINITY};
  const double ok[6] = {0.0, 0.0, 0.0, 0.1, 0.0, 0.0}, alpha[6] = {0.0, 0.0, 1.0, 0.0, 0.0, 1.0};
  const float *grid;
  double lo[3], side;
  float vmax;
  struct { const double *pos; double sigma; int n; const char *what; } bad[] = {
      {ok, 0.0, 32, "sigma 0"}, {ok, 0.1, VX_VORT_NMIN - 1, "n too small"}, {ok, 0.1, VX_VORT_NMAX + 1, "n too large"},
      {nan_pos, 0.1, 32, "a NaN position"}, {inf_pos, 0.1, 32, "an infinite position"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char err[256] = "";
    int rc = vx_vort_grid_compute(g, VX_DOUBLE, bad[i].pos, alpha, 2, bad[i].sigma, bad[i].n, &grid, lo, &side, &vmax, err,
                                  sizeof err);
    printf("  %s: %s\n", bad[i].what, err);
    EXPECT(rc == -1 && err[0], "%s: accepted", bad[i].what);
  }
  char name[256], err[256] = "";
  if (!vx_cuda_available(name, sizeof name)) {
    vx_vort_grid *d = vx_vort_grid_create(1, err, sizeof err);
    printf("  a device grid without a device: %s\n", err);
    EXPECT(!d && err[0], "a device grid was created without a CUDA device");
    vx_vort_grid_destroy(d);
  }
}

int main(void) {
  char err[256];
  vx_vort_grid *g = vx_vort_grid_create(0, err, sizeof err);
  if (!g) { printf("FAIL: %s\n", err); return EXIT_FAILURE; }
  test_one_blob(g, 19, 0.08); /* sigma = 2.1 dx: 0.068 measured */
  test_one_blob(g, 24, 0.03); /* 2.85 dx: 0.0265 */
  test_one_blob(g, 32, 0.02); /* 4.05 dx: 0.0154 */
  test_many_blobs(g);
  test_cancel_and_empty(g);
  test_refusals(g);
  vx_vort_grid_destroy(g);
  return vx_test_end("vorticity grid: the exact field, its integral, cancellation, determinism, refusals");
}
