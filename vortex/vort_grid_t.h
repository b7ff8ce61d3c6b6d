/* vort_grid_t.h — the per-node and per-element math of the vorticity grid (vort_grid.h), written once
 * and called by the CPU loops of vort_grid.c and the thin kernels of vort_grid_gpu.cu:
 *
 *   geometry  the cube and the blur's taps from the elements' bounding box (vx_vort_geom_make);
 *   deposit   an element's strength over the eight nodes of its cell, trilinear (cloud-in-cell)
 *             weights over the cell volume (vx_vort_cic);
 *   blur      one node of one pass of the separable Gaussian (vx_vort_blur_at);
 *   |ω|       one node's magnitude (vx_vort_mag).
 *
 * Positions and strengths come in as doubles (each backend converts its float or double arrays at
 * the load), so there is one instantiation, not one per precision. Compiles as C11 and CUDA C++. */
#ifndef VX_VORT_GRID_T_H
#define VX_VORT_GRID_T_H

#include <math.h>
#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

/* Nodes per side the grid accepts, and the blur's widest half-width in nodes: the cube is at least
 * 6σ(n−1)/(n−5) wide (vx_vort_geom_make), so σ is at most (n−5)/6 spacings and 3σ fits in
 * VX_VORT_RMAX nodes at VX_VORT_NMAX. */
#define VX_VORT_NMIN 8
#define VX_VORT_NMAX 512
#define VX_VORT_RMAX 256

/* The grid of one call: the cube lo + [0, side]^3 with n nodes a side at spacing dx, the blur's
 * half-width r (nodes) and weights w[0..r] (normalised: w[0] + 2 Σ w[1..r] = 1), and bad = 1 when
 * the bounding box was not finite. On the GPU the struct lives in device memory, written by one
 * thread, and vmax_bits (the bits of max |ω|, a float ≥ 0, whose integer order is its numeric
 * order) is gathered there by atomicMax, so that the cube and the maximum come back in one copy. */
typedef struct {
  double lo[3], side, dx, inv_dx, inv_vol; /* inv_vol = 1/dx³ */
  int n, r, bad;
  unsigned vmax_bits;
  float w[VX_VORT_RMAX + 1];
} vx_vort_geom;

/* Exact double arithmetic on both sides: nvcc fuses a·b + c into one rounding in device code, the
 * host's C11 (-std=c11: no contraction) never does, and the cube must come out bit for bit the
 * same on both backends (tests/gpu_test_iso.c). */
#ifdef __CUDA_ARCH__
#define VX_DMUL(a, b) __dmul_rn((a), (b))
#define VX_DADD(a, b) __dadd_rn((a), (b))
#else
#define VX_DMUL(a, b) ((a) * (b))
#define VX_DADD(a, b) ((a) + (b))
#endif

/* The cube over the bounding box [mn, mx] and the blur of width sigma at n nodes a side. The cube
 * is centred on the box, as wide as its largest extent plus 6σ + 4dx: a margin of 3σ + 2dx, so
 * that an element's deposit (one cell) blurred by the truncated kernel (r = ⌈3σ/dx⌉ ≤ 3σ/dx + 1
 * nodes) stays inside and the grid keeps all of Σα. side = (ext + 6σ)(n−1)/(n−5) solves
 * side = ext + 6σ + 4·side/(n−1). σ below half a spacing: no blur (r = 0, w[0] = 1). */
VX_HD static inline void vx_vort_geom_make(const double mn[3], const double mx[3], double sigma, int n, vx_vort_geom *g) {
  double ext = 0.0, c[3];
  g->bad = 0;
  for (int a = 0; a < 3; ++a) {
    if (!(fabs(mn[a]) < 1e300 && fabs(mx[a]) < 1e300 && mx[a] >= mn[a])) g->bad = 1;
    double e = VX_DADD(mx[a], -mn[a]);
    ext = e > ext ? e : ext;
    c[a] = VX_DMUL(0.5, VX_DADD(mn[a], mx[a]));
  }
  if (g->bad) ext = 0.0, c[0] = c[1] = c[2] = 0.0;
  g->n = n;
  g->side = VX_DMUL(VX_DADD(ext, VX_DMUL(6.0, sigma)), (double)(n - 1) / (double)(n - 5));
  for (int a = 0; a < 3; ++a) g->lo[a] = VX_DADD(c[a], -VX_DMUL(0.5, g->side));
  g->dx = g->side / (double)(n - 1);
  g->inv_dx = 1.0 / g->dx;
  g->inv_vol = VX_DMUL(VX_DMUL(g->inv_dx, g->inv_dx), g->inv_dx);
  g->vmax_bits = 0u;
  double s = sigma / g->dx; /* σ in spacings */
  int r = s < 0.5 ? 0 : (int)ceil(VX_DMUL(3.0, s));
  g->r = r < VX_VORT_RMAX ? r : VX_VORT_RMAX;
  double e[VX_VORT_RMAX + 1], sum = 0.0;
  for (int q = 0; q <= g->r; ++q) {
    e[q] = g->r ? exp(-(double)(q * q) / VX_DMUL(2.0, VX_DMUL(s, s))) : 1.0;
    sum = VX_DADD(sum, q ? VX_DMUL(2.0, e[q]) : e[q]);
  }
  for (int q = 0; q <= g->r; ++q) g->w[q] = (float)(e[q] / sum);
}

/* Node index of (i, j, k): x fastest, then y, then z. */
VX_HD static inline size_t vx_vort_node(int n, int i, int j, int k) {
  return ((size_t)k * (size_t)n + (size_t)j) * (size_t)n + (size_t)i;
}

/* The cloud-in-cell weights of a point: returns the node of the lower corner of its cell, and
 * w[m] for the cell's corner m (bit 0: +x, bit 1: +y, bit 2: +z), the trilinear weight over the
 * cell volume, so that Σ_m w[m] dx³ = 1 (Hockney & Eastwood, Computer Simulation Using Particles,
 * §5.3). A point on the cube's far face goes in the last cell; a point outside the cube or not a
 * number (the callers refuse boxes that are not finite) is clamped into it. */
VX_HD static inline size_t vx_vort_cic(const vx_vort_geom *g, double x, double y, double z, double w[8]) {
  double p[3] = {x, y, z}, f[3];
  int c[3];
  for (int a = 0; a < 3; ++a) {
    double u = (p[a] - g->lo[a]) * g->inv_dx, fl = floor(u);
    fl = !(fl >= 0.0) ? 0.0 : (fl > (double)(g->n - 2) ? (double)(g->n - 2) : fl); /* NaN: 0, never out of the grid */
    double t = u - fl;
    f[a] = !(t >= 0.0) ? 0.0 : (t > 1.0 ? 1.0 : t);
    c[a] = (int)fl;
  }
  for (int m = 0; m < 8; ++m)
    w[m] = (m & 1 ? f[0] : 1.0 - f[0]) * (m & 2 ? f[1] : 1.0 - f[1]) * (m & 4 ? f[2] : 1.0 - f[2]) * g->inv_vol;
  return vx_vort_node(g->n, c[0], c[1], c[2]);
}

/* The node offset of cell corner m from its lower corner (vx_vort_cic's corner numbering). */
VX_HD static inline size_t vx_vort_corner(int n, int m) {
  return (size_t)(m & 1) + (m & 2 ? (size_t)n : 0) + (m & 4 ? (size_t)n * (size_t)n : 0);
}

/* The taps q = a..b of the blur at coordinate pos along the pass's axis: −r..r less those past the
 * grid's faces (the margin keeps the field zero there). */
VX_HD static inline void vx_vort_blur_range(int pos, int n, int r, int *a, int *b) {
  *a = pos - r < 0 ? -pos : -r;
  *b = pos + r > n - 1 ? n - 1 - pos : r;
}

/* One pass of the blur at one node: Σ_q w[|q|] src[node + q·stride], q = a..b in that order, summed
 * from 0 (the CPU twin's line loops keep this order, so both give the same bits). pos is the
 * node's coordinate along the pass's axis. */
VX_HD static inline float vx_vort_blur_at(const float *src, size_t node, size_t stride, int pos, int n, const float *w,
                                          int r) {
  int a, b;
  vx_vort_blur_range(pos, n, r, &a, &b);
  const float *s = src + node;
  float sum = 0.0f;
  for (int q = a; q <= b; ++q) sum += w[q < 0 ? -q : q] * s[(ptrdiff_t)q * (ptrdiff_t)stride];
  return sum;
}

/* |ω| at a node from the three component grids, each n3 floats apart. */
VX_HD static inline float vx_vort_mag(const float *comp, size_t n3, size_t node) {
  float x = comp[node], y = comp[n3 + node], z = comp[2 * n3 + node];
  return sqrtf(x * x + y * y + z * z);
}

VX_EXTERN_C_END
#endif
