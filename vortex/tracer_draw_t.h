/* tracer_draw_t.h — the seeding of a ring's tracers, one home for the host (scene.c: a scene's
 * tracers, the dye release's redraws, a launched ring on the CPU) and the device (tracer_draw_gpu.cu:
 * a launched ring on the CUDA backend): splitmix64 streams, tracer k's draws, its position, and the
 * Morton key of its cell that puts a ring's tracers in spatial order. C11 and CUDA C++.
 *
 * Tracer k of a ring takes draws VX_TRACER_DRAWS·k + 1 .. VX_TRACER_DRAWS·(k + 1) of the ring's
 * stream (splitmix64's state advances by a constant a draw, so k's stretch starts at the state plus
 * VX_TRACER_DRAWS·k of it): any tracer is drawn alone, in any order, on either side. The device's
 * cos, sin, log and sqrt are within a few units in the last place of the host's, so a tracer drawn
 * there lies within a unit or two in the last place of its host position (tests/gpu_test_launch.c). */
#ifndef VX_TRACER_DRAW_T_H
#define VX_TRACER_DRAW_T_H

#include <math.h>
#include <stdint.h>

#include "hd.h"
#include "octree.h"
#include "scene.h"

/* splitmix64 (Steele, Lea, Flood 2014): small, fast and reproducible on every platform. Its output
 * function, a bijection of 64-bit words that mixes every bit into every other, also keys the
 * counter-based streams of vx_tracer_redraw. */
VX_HD static inline uint64_t vx_rng_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* splitmix64's increment: the state after n draws is the state before plus n of it. */
#define VX_RNG_GAMMA 0x9e3779b97f4a7c15ull
VX_HD static inline double vx_rng_uniform(uint64_t *s) {
  *s += VX_RNG_GAMMA;
  return (double)(vx_rng_mix(*s) >> 11) * (1.0 / 9007199254740992.0); /* 2^-53 */
}
VX_HD static inline double vx_rng_normal(uint64_t *s) {
  double u1 = vx_rng_uniform(s), u2 = vx_rng_uniform(s);
  return sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * VX_PI * u2);
}

/* The draws vx_tracer_draw takes from its stream, and tracer k's stretch of the ring's stream st. */
#define VX_TRACER_DRAWS 5
VX_HD static inline uint64_t vx_tracer_stream(uint64_t st, long long k) {
  return st + (uint64_t)VX_TRACER_DRAWS * (uint64_t)k * VX_RNG_GAMMA;
}

/* One tracer of source q from the stream st: an angle φ uniform around the centreline, Gaussian
 * offsets of standard deviation `spread` along the centreline's outward normal and along the axis;
 * e1, e2 the ring's plane (scene.h, vx_ring_frame). */
VX_HD static inline void vx_tracer_draw(const vx_tracer_source *q, const double e1[3], const double e2[3], uint64_t *st,
                                        double p[3]) {
  double phi = 2.0 * VX_PI * vx_rng_uniform(st);
  double g1 = vx_rng_normal(st) * q->spread, g2 = vx_rng_normal(st) * q->spread;
  double Rk = q->radius * (1.0 + q->perturb_amp * cos(q->perturb_mode * phi));
  for (int i = 0; i < 3; ++i) {
    double eri = cos(phi) * e1[i] + sin(phi) * e2[i];
    p[i] = q->centre[i] + (Rk + g1) * eri + g2 * q->axis[i];
  }
}

/* The half-side of the cube about the ring's centre whose cells order its tracers: the ring, its
 * wave and six spreads of dye. */
VX_HD static inline double vx_tracer_half(const vx_tracer_source *q) {
  return q->radius * (1.0 + fabs(q->perturb_amp)) + 6.0 * q->spread;
}

/* The Morton key of p's cell of 1/1024 of the cube of half-side `half` about c (fmm/octree.h's
 * oct_morton3; outside the cube, the nearest cell). A ring's tracers are kept in the order of these
 * keys, ties in seeding order: the engine's octree keeps each leaf's targets in index order, so its
 * warps then hold tracers close together, which take the same branch of the Gaussian pair kernel
 * (leapfrog_big's step 6 % faster on the GPU). */
VX_HD static inline uint32_t vx_tracer_key(const double p[3], const double c[3], double half) {
  uint32_t cell[3];
  for (int i = 0; i < 3; ++i) {
    const double u = floor((p[i] - (c[i] - half)) / (2.0 * half) * 1024.0);
    cell[i] = u < 0.0 ? 0u : u > 1023.0 ? 1023u : (uint32_t)u;
  }
  return oct_morton3(cell[0], cell[1], cell[2]);
}

#endif
