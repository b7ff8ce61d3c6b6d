/* test_points.h — tests only: the point sets the octree and cost-model tests build
 * (test_octree, gpu_test_octree — the GPU tree is compared with the CPU tree on the same inputs —
 * and test_fmm_cost), from vx_rng_uniform (pointsets.h) with a fixed seed. One home for each. */
#ifndef VX_TEST_POINTS_H
#define VX_TEST_POINTS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pointsets.h"

/* malloc that never returns NULL (at least one byte): a test without memory cannot go on. */
static inline void *vx_test_xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "test: out of memory (%zu bytes)\n", bytes);
    exit(EXIT_FAILURE);
  }
  return p;
}

/* Room for n points (xyz; one at least). */
static inline double *vx_test_alloc_pos(int n) { return vx_test_xmalloc(3 * (size_t)(n > 0 ? n : 1) * sizeof(double)); }

/* n points uniform in the unit cube. */
static inline double *vx_test_uniform_pos(int n, uint64_t seed) {
  double *p = vx_test_alloc_pos(n);
  for (int i = 0; i < 3 * n; i++) p[i] = vx_rng_uniform(&seed);
  return p;
}

/* Most points in a few tiny blobs, a fraction (spread) over a larger box: many empty boxes, very
 * uneven leaves (the blobs give leaves far longer than a warp sorts). */
static inline double *vx_test_clustered_pos(int n, uint64_t seed, double spread) {
  double *p = vx_test_alloc_pos(n);
  const double blob[4][3] = {{0.1, 0.2, 0.3}, {0.8, 0.75, 0.2}, {0.5, 0.5, 0.9}, {0.31, 0.9, 0.62}};
  for (int i = 0; i < n; i++) {
    double u = vx_rng_uniform(&seed);
    if (u >= spread) {
      int b = (int)(vx_rng_uniform(&seed) * 4.0) & 3;
      for (int k = 0; k < 3; k++) p[3 * i + k] = blob[b][k] + 2e-3 * (vx_rng_uniform(&seed) - 0.5);
    } else {
      for (int k = 0; k < 3; k++) p[3 * i + k] = -1.0 + 3.0 * vx_rng_uniform(&seed);
    }
  }
  return p;
}

#endif
