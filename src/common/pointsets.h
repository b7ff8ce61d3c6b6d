/* pointsets.h — reproducible test and benchmark point sets (positions and vortex strengths):
 * uniform in the unit cube, on a sphere, and on two coaxial thin tori (the simulation's rings).
 * Used by vortexfmm-bench and the tests; not part of the simulation. */
#ifndef VX_POINTSETS_H
#define VX_POINTSETS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { VX_DIST_UNIFORM = 0, VX_DIST_SPHERE = 1, VX_DIST_RINGS = 2 } vx_dist;

int vx_dist_from_name(const char *name, vx_dist *out); /* 0 ok, -1 unknown */
const char *vx_dist_name(vx_dist d);

/* Fill pos (3n doubles, xyz interleaved, inside [0,1]^3) and, when str is not NULL, str (3n
 * doubles) deterministically from seed:
 *  uniform: positions uniform in the cube; strengths uniform in [-1,1]^3 / n.
 *  sphere:  positions uniform on the sphere of radius 0.4 centred at (0.5,0.5,0.5); strengths as uniform.
 *  rings:   two coaxial tori about the z axis through (0.5,0.5), ring radius 0.3, tube radius 0.02,
 *           centres at z = 0.4 and 0.6; positions uniform in the tubes; strengths along the ring's
 *           azimuthal direction, total circulation 1 per ring (|α| = 2π·0.3/(n/2)). */
void vx_pointset(vx_dist d, int n, uint64_t seed, double *pos, double *str);

/* Moves each of n points (xyz-interleaved) by d in a direction uniform on the sphere (a point of the
 * unit ball by rejection, scaled), drawn from *seed: the kept tree's tests and benchmark
 * (fmm_io.tree, docs/MATH.md §14). */
void vx_points_move(double *pos, size_t n, double d, uint64_t *seed);

/* splitmix64: a small, fast, reproducible generator. */
static inline uint64_t vx_rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* Uniform double in [0, 1). */
static inline double vx_rng_uniform(uint64_t *s) { return (double)(vx_rng_next(s) >> 11) * 0x1.0p-53; }

#ifdef __cplusplus
}
#endif
#endif
