/* opacity.h — the per-pixel math of the ray-counted opacity (the design paper of docs/MATH.md, Hu,
 * Gumerov, Duraiswami, §3.2), written once and called by the CPU twin (render/opacity_cpu.c,
 * OpenMP) and by the thin CUDA kernels (render/render_gpu.cu):
 *
 *   1. binning: each particle adds 1 to bin[j], j the Morton key of its finest-level cell of the
 *      cube lo + [0, side]^3 (the layout of fmm_occupancy(), cells by oct_cell/oct_morton3, so a
 *      histogram built here equals the engine's bin[] for the same points, cube and level);
 *   2. ray count: the ray from the eye through the pixel centre is clipped to the cube and sampled
 *      at k midpoints; each sample adds bin[j] of the cell it falls in. The sum is scaled by the
 *      sample length over the cell width (a column density in particles per cell, independent of
 *      k) and by 4^L / N (so that N particles spread uniformly over the cube read 1);
 *   3. a separable box blur of the ray counts over neighbouring pixels (paper: "smoothed by
 *      averaging the opacities of nearby pixels"), normalised by the pixels inside the image.
 *
 * The fragment shader (shaders/composite.frag) turns the blurred count c into an opacity
 * 1 - exp(-gain * c). Compiles as C11 and as CUDA C++; no compound literals or VLAs. */
#ifndef RD_OPACITY_H
#define RD_OPACITY_H

#include <math.h>
#include <stdint.h>
#include "hd.h"
#include "octree.h"

VX_EXTERN_C_BEGIN

/* Where the rays start and go, for one opacity image of width x height pixels. The ray through
 * pixel (px, py) (py = 0 is the bottom row, as in an OpenGL texture) starts at eye and points
 * along fwd + sx * right + sy * up, with (sx, sy) the pixel centre in [-1, 1]^2; right and up are
 * pre-scaled by tan(fovy/2) * aspect and tan(fovy/2). */
typedef struct rd_ray_params {
  float eye[3], fwd[3], right[3], up[3];
  int width, height;
  float lo[3];          /* histogram cube */
  float side;
  int levels;           /* L: 2^L cells per axis, 8^L bins */
  int samples;          /* k samples per ray (>= 1) */
  float scale;          /* 4^L / N: N uniformly spread particles give 1 */
} rd_ray_params;

/* Morton key of the finest-level cell holding point p (double, like the engine's binning). */
VX_HD static inline uint32_t rd_bin_key(double x, double y, double z, const double lo[3], double inv_side, int levels) {
  return oct_morton3(oct_cell(x, lo[0], inv_side, levels), oct_cell(y, lo[1], inv_side, levels),
                     oct_cell(z, lo[2], inv_side, levels));
}

/* The ray segment [t0, t1] (in units of |dir|) inside the cube lo + [0, side]^3 of a ray o + t dir,
 * t >= 0. Returns 0 when the ray misses the cube. */
VX_HD static inline int rd_ray_clip(const float o[3], const float d[3], const float lo[3], float side, float *t0,
                                    float *t1) {
  float a = 0.0f, b = 3.0e38f;
  for (int k = 0; k < 3; ++k) {
    float l = lo[k], h = lo[k] + side;
    if (fabsf(d[k]) < 1e-30f) {
      if (o[k] < l || o[k] > h) return 0;
      continue;
    }
    float inv = 1.0f / d[k];
    float ta = (l - o[k]) * inv, tb = (h - o[k]) * inv;
    if (ta > tb) { float s = ta; ta = tb; tb = s; }
    if (ta > a) a = ta;
    if (tb < b) b = tb;
  }
  *t0 = a;
  *t1 = b;
  return b > a;
}

/* Step 2 for one pixel: the scaled ray count (0 when the ray misses the cube). */
VX_HD static inline float rd_ray_count(const rd_ray_params *p, const int *bins, int px, int py) {
  float sx = 2.0f * ((float)px + 0.5f) / (float)p->width - 1.0f;
  float sy = 2.0f * ((float)py + 0.5f) / (float)p->height - 1.0f;
  float d[3];
  for (int k = 0; k < 3; ++k) d[k] = p->fwd[k] + sx * p->right[k] + sy * p->up[k];
  float t0, t1;
  if (!rd_ray_clip(p->eye, d, p->lo, p->side, &t0, &t1)) return 0.0f;
  int n = 1 << p->levels;
  float cells = (float)n / p->side; /* 1 / cell width */
  float dt = (t1 - t0) / (float)p->samples;
  float sum = 0.0f;
  for (int i = 0; i < p->samples; ++i) {
    float t = t0 + ((float)i + 0.5f) * dt;
    int c[3];
    for (int k = 0; k < 3; ++k) {
      int ci = (int)floorf((p->eye[k] + t * d[k] - p->lo[k]) * cells);
      c[k] = ci < 0 ? 0 : (ci >= n ? n - 1 : ci);
    }
    sum += (float)bins[oct_morton3((uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2])];
  }
  float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  return sum * dt * len * cells * p->scale;
}

/* Step 3, one pass: the mean of src over the pixels within r of (x, y) along x (horizontal != 0)
 * or along y, counting only pixels inside the image. Two passes make the (2r+1)^2 box mean. */
VX_HD static inline float rd_box_blur_at(const float *src, int w, int h, int x, int y, int r, int horizontal) {
  int a, b;
  if (horizontal) { a = x - r < 0 ? 0 : x - r; b = x + r >= w ? w - 1 : x + r; }
  else { a = y - r < 0 ? 0 : y - r; b = y + r >= h ? h - 1 : y + r; }
  float s = 0.0f;
  for (int i = a; i <= b; ++i) s += horizontal ? src[(size_t)y * w + i] : src[(size_t)i * w + x];
  return s / (float)(b - a + 1);
}

VX_EXTERN_C_END
#endif
