/* test_iso.c — the isosurface's CPU twin (render/iso.h, render/iso_cpu.c) on fields whose surface is
 * known, a sphere of radius r = 0.6 about a centre off the nodes, on n = 64 nodes over [-0.8, 0.8]³
 * (r = 23.6 spacings):
 *   1. f = −|x − c|, level −r (inside: the ball): total area within 0.2 % of 4πr², enclosed volume
 *      (divergence theorem, Σ x·(face normal) area / 3) within 0.2 % of 4πr³/3, every vertex within
 *      1e-3 r of the sphere, every normal of unit length and outward (cos to the radius ≥ 0.9999),
 *      every triangle wound outward, the surface closed (Σ of the oriented face areas ≈ 0), the
 *      same bits with one thread and two;
 *   2. f = a Gaussian bump about c, level its value at r: the same sphere (area within 0.3 %,
 *      vertices within 3e-3 r: the bump is far from linear across a cell), normals outward;
 *   3. a constant grid below or above the level: no triangles;
 *   4. room for fewer triangles than the surface has: the full count reported, the first cap
 *      triangles the full run's, nothing written past them;
 *   5. bad arguments refused with a message.
 * Bounds a small factor above the values measured (printed beside them). No GL needed.
 * Run: ./build/tests/test_iso */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iso.h"

#define N 64
#define R 0.6
static const double LO[3] = {-0.8, -0.8, -0.8}, SIDE = 1.6, C[3] = {0.0131, -0.0217, 0.0071};

/* f at every node: −distance from C (bump = 0) or exp(−d²/(2·0.3²)) (bump = 1). */
static float *make_field(int bump) {
  float *f = malloc(sizeof(float) * N * N * N);
  if (!f) { printf("FAIL: out of memory\n"); exit(EXIT_FAILURE); }
  const double dx = SIDE / (N - 1);
  for (int k = 0; k < N; ++k)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) {
        const double x = LO[0] + i * dx - C[0], y = LO[1] + j * dx - C[1], z = LO[2] + k * dx - C[2];
        const double d2 = x * x + y * y + z * z;
        f[((size_t)k * N + j) * N + i] = (float)(bump ? exp(-d2 / (2 * 0.09)) : -sqrt(d2));
      }
  return f;
}

/* The whole surface: *n_tri triangles, malloc'd. NULL after a FAIL. */
static float *extract_all(const float *f, float level, long *n_tri) {
  char err[256];
  if (rd_iso_extract_cpu(f, N, LO, SIDE, level, NULL, 0, n_tri, err, sizeof err)) { FAIL("counting: %s", err); return NULL; }
  float *out = malloc(sizeof(float) * 3 * RD_ISO_FLOATS * (size_t)(*n_tri > 0 ? *n_tri : 1));
  long again = -1;
  if (!out || rd_iso_extract_cpu(f, N, LO, SIDE, level, out, *n_tri, &again, err, sizeof err) || again != *n_tri) {
    FAIL("extracting: %s (%ld then %ld triangles)", out ? err : "out of memory", *n_tri, again);
    free(out);
    return NULL;
  }
  return out;
}

typedef struct {
  double area, volume, closure, max_dr, min_cos, max_unit;
  long inward;
} sphere_stats;

/* The measures of a surface that should be the sphere |x − C| = R, normals outward. */
static sphere_stats measure(const float *t, long n_tri) {
  sphere_stats s = {0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0};
  double sum[3] = {0.0, 0.0, 0.0};
  for (long q = 0; q < n_tri; ++q) {
    double p[3][3];
    for (int v = 0; v < 3; ++v) {
      const float *x = t + (size_t)(3 * q + v) * RD_ISO_FLOATS;
      double d = 0.0, cosv = 0.0, len = 0.0;
      for (int a = 0; a < 3; ++a) p[v][a] = x[a] - C[a], d += p[v][a] * p[v][a], len += (double)x[3 + a] * x[3 + a];
      d = sqrt(d);
      for (int a = 0; a < 3; ++a) cosv += p[v][a] / d * x[3 + a];
      s.max_dr = fmax(s.max_dr, fabs(d - R));
      s.min_cos = fmin(s.min_cos, cosv);
      s.max_unit = fmax(s.max_unit, fabs(sqrt(len) - 1.0));
    }
    const double u[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    const double w[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    const double cr[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    const double a2 = sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    const double out = cr[0] * p[0][0] + cr[1] * p[0][1] + cr[2] * p[0][2]; /* 2 area x·n: 6 × the cone's volume */
    s.area += 0.5 * a2;
    s.volume += out / 6.0;
    if (out < 0.0 && a2 > 1e-12) s.inward++;
    for (int a = 0; a < 3; ++a) sum[a] += 0.5 * cr[a];
  }
  s.closure = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]) / s.area;
  return s;
}

/* 1 */
static void test_distance_sphere(void) {
  float *f = make_field(0);
  long n_tri;
  float *t = extract_all(f, (float)-R, &n_tri);
  if (!t) { free(f); return; }
  const sphere_stats s = measure(t, n_tri);
  const double area = 4 * VX_PI * R * R, vol = 4.0 / 3.0 * VX_PI * R * R * R;
  printf("  f = -distance: %ld triangles, area %+.4f %%, volume %+.4f %%, max |r - R| %.2e R, min cos(normal, radius) %.6f, "
         "max ||n| - 1| %.1e, %ld wound inward, |sum of oriented areas| %.1e of the area\n", n_tri, 100 * (s.area / area - 1),
         100 * (s.volume / vol - 1), s.max_dr / R, s.min_cos, s.max_unit, s.inward, s.closure);
  /* measured: area -0.046 %, volume -0.090 %, 6.7e-4 R, cos 1.000000, 1.3e-7, 0, 5e-19 */
  EXPECT(fabs(s.area / area - 1) <= 0.002, "sphere: area %.5f against 4 pi r^2 = %.5f", s.area, area);
  EXPECT(fabs(s.volume / vol - 1) <= 0.002, "sphere: volume %.5f against 4/3 pi r^3 = %.5f", s.volume, vol);
  EXPECT(s.max_dr <= 1e-3 * R, "sphere: a vertex %.2e R off the sphere", s.max_dr / R);
  EXPECT(s.min_cos >= 0.9999, "sphere: a normal %.6f from outward (cos)", s.min_cos);
  EXPECT(s.max_unit <= 1e-6, "sphere: a normal of length 1 %+.1e", s.max_unit);
  EXPECT(s.inward == 0, "sphere: %ld triangles wound inward", s.inward);
  EXPECT(s.closure <= 1e-12, "sphere: not closed (oriented areas sum to %.1e of the area)", s.closure);
  /* one thread: the same bits */
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  long n1;
  float *t1 = extract_all(f, (float)-R, &n1);
  omp_set_num_threads(threads);
  EXPECT(t1 && n1 == n_tri && !memcmp(t1, t, sizeof(float) * 3 * RD_ISO_FLOATS * (size_t)n_tri),
         "sphere: one thread and %d give different triangles", threads);
  free(t1);
  free(t);
  free(f);
}

/* 2 */
static void test_bump_sphere(void) {
  float *f = make_field(1);
  long n_tri;
  float *t = extract_all(f, (float)exp(-R * R / (2 * 0.09)), &n_tri);
  if (!t) { free(f); return; }
  const sphere_stats s = measure(t, n_tri);
  const double area = 4 * VX_PI * R * R;
  printf("  f = Gaussian bump: %ld triangles, area %+.4f %%, max |r - R| %.2e R, min cos(normal, radius) %.6f, %ld wound inward\n",
         n_tri, 100 * (s.area / area - 1), s.max_dr / R, s.min_cos, s.inward);
  /* measured: area +0.096 %, 2.0e-3 R, cos 0.999993 */
  EXPECT(fabs(s.area / area - 1) <= 0.003, "bump: area %.5f against 4 pi r^2 = %.5f", s.area, area);
  EXPECT(s.max_dr <= 3e-3 * R, "bump: a vertex %.2e R off the sphere", s.max_dr / R);
  EXPECT(s.min_cos >= 0.9999 && s.inward == 0, "bump: normals or winding not outward (min cos %.4f, %ld inward)", s.min_cos,
         s.inward);
  free(t);
  free(f);
}

/* 3 */
static void test_flat(void) {
  float *f = calloc((size_t)N * N * N, sizeof(float)), out[3 * RD_ISO_FLOATS];
  char err[256];
  long below = -1, above = -1;
  if (!f) { FAIL("out of memory"); return; }
  if (rd_iso_extract_cpu(f, N, LO, SIDE, 1.0f, out, 1, &below, err, sizeof err) ||
      rd_iso_extract_cpu(f, N, LO, SIDE, -1.0f, out, 1, &above, err, sizeof err))
    FAIL("flat grid: %s", err);
  EXPECT(below == 0 && above == 0, "flat grid: %ld triangles below the level, %ld above", below, above);
  free(f);
}

/* 4 */
static void test_cap(void) {
  float *f = make_field(0);
  long n_tri, got = -1;
  float *t = extract_all(f, (float)-R, &n_tri);
  const long cap = 100, room = cap + 10;
  const size_t tri_floats = 3 * RD_ISO_FLOATS;
  float *out = malloc(sizeof(float) * tri_floats * room);
  char err[256];
  if (!t || !out) { free(t), free(out), free(f); FAIL("cap: no surface"); return; }
  for (size_t i = 0; i < tri_floats * room; ++i) out[i] = 12345.0f;
  if (rd_iso_extract_cpu(f, N, LO, SIDE, (float)-R, out, cap, &got, err, sizeof err)) FAIL("cap: %s", err);
  int past = 0;
  for (size_t i = tri_floats * cap; i < tri_floats * room; ++i) past += out[i] != 12345.0f;
  printf("  cap %ld of %ld triangles: %ld reported, %d floats written past the cap\n", cap, n_tri, got, past);
  EXPECT(got == n_tri, "cap: %ld triangles reported, the surface has %ld", got, n_tri);
  EXPECT(!memcmp(out, t, sizeof(float) * tri_floats * cap), "cap: the first %ld triangles differ from the full run's", cap);
  EXPECT(past == 0, "cap: %d floats written past the cap", past);
  free(out);
  free(t);
  free(f);
}

/* 5 */
static void test_refusals(void) {
  float f[8] = {0}, out[3 * RD_ISO_FLOATS];
  long n_tri;
  struct { int n; double side; float level; float *out; long cap; const char *what; } bad[] = {
      {1, 1.0, 0.5f, out, 1, "one node a side"}, {RD_ISO_NMAX + 1, 1.0, 0.5f, out, 1, "too many nodes"},
      {2, 0.0, 0.5f, out, 1, "side 0"}, {2, 1.0, NAN, out, 1, "a NaN level"}, {2, 1.0, 0.5f, NULL, 1, "no buffer"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char err[256] = "";
    int rc = rd_iso_extract_cpu(f, bad[i].n, LO, bad[i].side, bad[i].level, bad[i].out, bad[i].cap, &n_tri, err, sizeof err);
    printf("  %s: %s\n", bad[i].what, err);
    EXPECT(rc == -1 && err[0], "%s: accepted", bad[i].what);
  }
}

int main(void) {
  test_distance_sphere();
  test_bump_sphere();
  test_flat();
  test_cap();
  test_refusals();
  return vx_test_end("isosurface: spheres' area, volume, vertices, normals and winding; flat grids; the cap; refusals");
}
#endif
