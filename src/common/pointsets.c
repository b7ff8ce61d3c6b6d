/* pointsets.c — reproducible point sets for vortexfmm-bench and the tests (see pointsets.h).
 * Positions and strengths come from two independent splitmix64 streams derived from the seed, so
 * the positions of a seed are the same whether or not strengths are requested. */
#include "pointsets.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define VX_TWO_PI 6.283185307179586476925

/* Stream keys: the position and strength streams of one seed must not overlap. */
#define VX_STREAM_POS 0x243f6a8885a308d3ull
#define VX_STREAM_STR 0x13198a2e03707344ull

/* Ring geometry (pointsets.h): two coaxial tori about the vertical axis through (0.5, 0.5). */
#define VX_RING_R 0.3    /* ring (major) radius */
#define VX_RING_A 0.02   /* tube (minor) radius */
static const double vx_ring_z[2] = {0.4, 0.6};

static const char *const vx_dist_names[] = {"uniform", "sphere", "rings"};

int vx_dist_from_name(const char *name, vx_dist *out) {
  if (!name) return -1;
  for (int d = 0; d < 3; d++) {
    if (strcmp(name, vx_dist_names[d]) == 0) {
      if (out) *out = (vx_dist)d;
      return 0;
    }
  }
  return -1;
}

const char *vx_dist_name(vx_dist d) {
  return ((int)d >= 0 && (int)d < 3) ? vx_dist_names[d] : "unknown";
}

static uint64_t vx_stream_seed(uint64_t seed, uint64_t key) {
  uint64_t s = seed ^ key;
  return vx_rng_next(&s); /* one scrambling step so nearby seeds give unrelated streams */
}

static void vx_uniform_strengths(int n, uint64_t *rs, double *str) {
  double scale = 1.0 / (double)n;
  for (size_t i = 0; i < 3 * (size_t)n; i++) str[i] = (2.0 * vx_rng_uniform(rs) - 1.0) * scale;
}

/* Uniform point in the torus volume around the ring at height zc. Cross-section polar
 * coordinates (rho, phi) are drawn uniformly in the disk, then accepted with probability
 * (R + rho cos phi) / (R + a): the volume element of a torus is (R + rho cos phi) rho drho dphi dtheta,
 * so the disk-uniform draw alone would crowd the inner side. The azimuth theta is uniform. */
static void vx_torus_point(uint64_t *rs, double zc, double p[3], double *theta_out) {
  double rho, phi;
  for (;;) {
    rho = VX_RING_A * sqrt(vx_rng_uniform(rs));
    phi = VX_TWO_PI * vx_rng_uniform(rs);
    double accept = (VX_RING_R + rho * cos(phi)) / (VX_RING_R + VX_RING_A);
    if (vx_rng_uniform(rs) < accept) break;
  }
  double theta = VX_TWO_PI * vx_rng_uniform(rs);
  double r = VX_RING_R + rho * cos(phi);
  p[0] = 0.5 + r * cos(theta);
  p[1] = 0.5 + r * sin(theta);
  p[2] = zc + rho * sin(phi);
  *theta_out = theta;
}

void vx_pointset(vx_dist d, int n, uint64_t seed, double *pos, double *str) {
  if (n <= 0 || !pos) return;
  uint64_t ps = vx_stream_seed(seed, VX_STREAM_POS);
  uint64_t ss = vx_stream_seed(seed, VX_STREAM_STR);

  switch (d) {
  case VX_DIST_SPHERE:
    /* Archimedes: z uniform in [-1, 1] and an azimuth uniform give a uniform point on the sphere. */
    for (int i = 0; i < n; i++) {
      double z = 2.0 * vx_rng_uniform(&ps) - 1.0;
      double t = VX_TWO_PI * vx_rng_uniform(&ps);
      double s = sqrt(fmax(0.0, 1.0 - z * z));
      pos[3 * (size_t)i + 0] = 0.5 + 0.4 * s * cos(t);
      pos[3 * (size_t)i + 1] = 0.5 + 0.4 * s * sin(t);
      pos[3 * (size_t)i + 2] = 0.5 + 0.4 * z;
    }
    if (str) vx_uniform_strengths(n, &ss, str);
    break;

  case VX_DIST_RINGS: {
    /* First ring gets the extra point when n is odd. Each point carries an equal share of the
     * ring's circulation Γ = 1 along its length 2πR: |α| = 2πR / (points in the ring). */
    int n0 = n - n / 2;
    for (int i = 0; i < n; i++) {
      int ring = i < n0 ? 0 : 1;
      int nr = ring == 0 ? n0 : n - n0;
      double theta;
      vx_torus_point(&ps, vx_ring_z[ring], &pos[3 * (size_t)i], &theta);
      if (str) {
        double mag = VX_TWO_PI * VX_RING_R / (double)nr;
        /* Counter-clockwise seen from +z: e_theta = (-sin θ, cos θ, 0). */
        str[3 * (size_t)i + 0] = -mag * sin(theta);
        str[3 * (size_t)i + 1] = mag * cos(theta);
        str[3 * (size_t)i + 2] = 0.0;
      }
    }
    break;
  }

  case VX_DIST_UNIFORM:
  default:
    for (size_t i = 0; i < 3 * (size_t)n; i++) pos[i] = vx_rng_uniform(&ps);
    if (str) vx_uniform_strengths(n, &ss, str);
    break;
  }
}

void vx_points_move(double *pos, size_t n, double d, uint64_t *seed) {
  for (size_t i = 0; i < n; i++) {
    double u[3], r2;
    do {
      for (int c = 0; c < 3; c++) u[c] = 2.0 * vx_rng_uniform(seed) - 1.0;
      r2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    } while (r2 > 1.0 || r2 < 1e-6);
    for (int c = 0; c < 3; c++) pos[3 * i + c] += d * u[c] / sqrt(r2);
  }
}
