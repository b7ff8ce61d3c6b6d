/* test_pointsets.c — invariants of the benchmark point sets (src/pointsets.h): every point in the
 * unit cube, sphere points on radius 0.4, ring points inside their tubes and uniform in the tube
 * volume, ring strengths tangential with circulation 1 per ring, reproducible per seed.
 * Run: ctest --test-dir build -R test_pointsets (or build/tests/test_pointsets). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pointsets.h"

#define TWO_PI 6.283185307179586476925

static int failures = 0;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "FAIL: %s\n", what);
    failures++;
  }
}

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes);
  if (!p) {
    fprintf(stderr, "test_pointsets: out of memory\n");
    exit(EXIT_FAILURE);
  }
  return p;
}

static int in_unit_cube(const double *pos, int n) {
  for (size_t i = 0; i < 3 * (size_t)n; i++)
    if (!(pos[i] >= 0.0 && pos[i] <= 1.0)) return 0;
  return 1;
}

static void test_names(void) {
  vx_dist d = VX_DIST_UNIFORM;
  check(vx_dist_from_name("uniform", &d) == 0 && d == VX_DIST_UNIFORM, "name uniform");
  check(vx_dist_from_name("sphere", &d) == 0 && d == VX_DIST_SPHERE, "name sphere");
  check(vx_dist_from_name("rings", &d) == 0 && d == VX_DIST_RINGS, "name rings");
  check(vx_dist_from_name("ring", &d) == -1, "unknown name rejected");
  check(vx_dist_from_name("", &d) == -1, "empty name rejected");
  for (int k = 0; k < 3; k++) {
    vx_dist back;
    check(vx_dist_from_name(vx_dist_name((vx_dist)k), &back) == 0 && back == (vx_dist)k, "name round trip");
  }
}

static void test_uniform(void) {
  const int n = 100000;
  double *pos = xmalloc(3 * sizeof(double) * n), *str = xmalloc(3 * sizeof(double) * n);
  vx_pointset(VX_DIST_UNIFORM, n, 12345, pos, str);
  check(in_unit_cube(pos, n), "uniform: points in [0,1]^3");
  double mean[3] = {0, 0, 0};
  int str_ok = 1;
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      mean[c] += pos[3 * i + c] / n;
      if (fabs(str[3 * i + c]) > 1.0 / n) str_ok = 0;
    }
  check(str_ok, "uniform: strengths in [-1,1]^3 / n");
  /* Standard error of a mean of U(0,1) over 1e5 samples is 9e-4: 5e-3 is > 5 sigma. */
  for (int c = 0; c < 3; c++) check(fabs(mean[c] - 0.5) < 5e-3, "uniform: mean position near 0.5");
  free(pos);
  free(str);
}

static void test_sphere(void) {
  const int n = 50001;
  double *pos = xmalloc(3 * sizeof(double) * n);
  vx_pointset(VX_DIST_SPHERE, n, 7, pos, NULL); /* str may be NULL */
  check(in_unit_cube(pos, n), "sphere: points in [0,1]^3");
  double max_dev = 0.0, mean_z = 0.0;
  for (int i = 0; i < n; i++) {
    double dx = pos[3 * i] - 0.5, dy = pos[3 * i + 1] - 0.5, dz = pos[3 * i + 2] - 0.5;
    max_dev = fmax(max_dev, fabs(sqrt(dx * dx + dy * dy + dz * dz) - 0.4));
    mean_z += dz / n;
  }
  if (max_dev > 1e-12) fprintf(stderr, "sphere: max |r - 0.4| = %.3e\n", max_dev);
  check(max_dev <= 1e-12, "sphere: radius 0.4 +- 1e-12");
  /* z of a uniform sphere point is uniform on [-0.4, 0.4]: sd 0.23, standard error 1e-3. */
  check(fabs(mean_z) < 6e-3, "sphere: centred");
  free(pos);
}

/* Checks one ring's points [i0, i1) around height zc with n_ring points. */
static void check_ring(const double *pos, const double *str, int i0, int i1, double zc) {
  const double R = 0.3, a = 0.02;
  int n_ring = i1 - i0;
  double sum_mag = 0.0, circ = 0.0, max_tube = 0.0, max_normal = 0.0, max_mag_dev = 0.0;
  int ccw = 1, outer = 0;
  for (int i = i0; i < i1; i++) {
    const double *p = &pos[3 * i], *s = &str[3 * i];
    double dx = p[0] - 0.5, dy = p[1] - 0.5, r = sqrt(dx * dx + dy * dy);
    double dist = sqrt((r - R) * (r - R) + (p[2] - zc) * (p[2] - zc));
    max_tube = fmax(max_tube, dist);
    if (r > R) outer++;
    double mag = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    sum_mag += mag;
    max_mag_dev = fmax(max_mag_dev, fabs(mag - TWO_PI * R / n_ring));
    /* Tangential: no radial and no axial component. */
    double radial = (s[0] * dx + s[1] * dy) / r;
    max_normal = fmax(max_normal, fmax(fabs(radial), fabs(s[2])) / mag);
    /* Counter-clockwise seen from +z: (d × α)_z > 0. */
    if (dx * s[1] - dy * s[0] <= 0.0) ccw = 0;
    circ += (-dy * s[0] + dx * s[1]) / r; /* α · e_θ */
  }
  circ /= TWO_PI * R; /* Γ = Σ α·e_θ / (2πR); summing 1e5 terms costs ~1e-11 relative */
  check(max_tube <= a * (1.0 + 1e-12), "rings: points inside the tube");
  check(max_normal < 1e-12, "rings: strengths tangential");
  check(ccw, "rings: strengths counter-clockwise seen from +z");
  check(max_mag_dev < 1e-15, "rings: equal strength magnitudes 2*pi*0.3/n_ring");
  check(fabs(sum_mag / (TWO_PI * R) - 1.0) < 1e-10, "rings: sum |alpha| = 2*pi*R (circulation 1)");
  check(fabs(circ - 1.0) < 1e-10, "rings: circulation 1");
  if (n_ring >= 100000) {
    /* Uniform in the tube volume, not the cross-section: the outer half (r > R) holds the fraction
     * 1/2 + 2a/(3πR) = 0.51415 of the volume (Pappus). Disk-uniform sampling would give 0.5.
     * Standard error at 1e5 points is 1.6e-3; the 5e-3 window excludes 0.5. */
    double frac = (double)outer / n_ring, expect = 0.5 + 2.0 * a / (1.5 * TWO_PI * R);
    if (fabs(frac - expect) >= 5e-3) fprintf(stderr, "rings: outer fraction %.5f, expected %.5f\n", frac, expect);
    check(fabs(frac - expect) < 5e-3, "rings: uniform in the tube volume");
  }
}

static void test_rings(void) {
  const int n = 200001; /* odd: the first ring gets 100001 points */
  double *pos = xmalloc(3 * sizeof(double) * n), *str = xmalloc(3 * sizeof(double) * n);
  vx_pointset(VX_DIST_RINGS, n, 2024, pos, str);
  check(in_unit_cube(pos, n), "rings: points in [0,1]^3");
  check_ring(pos, str, 0, 100001, 0.4);
  check_ring(pos, str, 100001, n, 0.6);

  /* Tiny odd case: 4 + 3 points. */
  double p7[21], s7[21];
  vx_pointset(VX_DIST_RINGS, 7, 1, p7, s7);
  check_ring(p7, s7, 0, 4, 0.4);
  check_ring(p7, s7, 4, 7, 0.6);

  /* Positions do not depend on whether strengths are requested. */
  double *pos2 = xmalloc(3 * sizeof(double) * n);
  vx_pointset(VX_DIST_RINGS, n, 2024, pos2, NULL);
  check(memcmp(pos, pos2, 3 * sizeof(double) * n) == 0, "rings: positions independent of str == NULL");
  free(pos);
  free(str);
  free(pos2);
}

static void test_reproducible(void) {
  const int n = 4096;
  size_t bytes = 3 * sizeof(double) * n;
  double *p1 = xmalloc(bytes), *s1 = xmalloc(bytes), *p2 = xmalloc(bytes), *s2 = xmalloc(bytes);
  for (int d = 0; d < 3; d++) {
    vx_pointset((vx_dist)d, n, 99, p1, s1);
    vx_pointset((vx_dist)d, n, 99, p2, s2);
    check(memcmp(p1, p2, bytes) == 0 && memcmp(s1, s2, bytes) == 0, "same seed gives the same set");
    vx_pointset((vx_dist)d, n, 100, p2, s2);
    int same = 0;
    for (size_t i = 0; i < 3 * (size_t)n; i++) same += p1[i] == p2[i];
    check(same < n / 100, "another seed gives different positions");
    check(memcmp(s1, s2, bytes) != 0, "another seed gives different strengths");
  }
  free(p1);
  free(s1);
  free(p2);
  free(s2);
}

int main(void) {
  test_names();
  test_uniform();
  test_sphere();
  test_rings();
  test_reproducible();
  if (failures) {
    fprintf(stderr, "test_pointsets: %d check(s) failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("test_pointsets: all checks passed\n");
  return EXIT_SUCCESS;
}
