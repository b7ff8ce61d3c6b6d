/* vort_grid.c — the vorticity grid (vort_grid.h): the buffers, the checks and the CPU twin (OpenMP)
 * of each step, calling the per-node math of vort_grid_t.h that the CUDA kernels of
 * vort_grid_gpu.cu call too. Every step gives the same bits at any thread count: the deposit
 * gives each thread its own planes of nodes, which it fills in element order. */
#include "vort_grid.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vx_vort_grid {
  int on_device;
  vx_vort_bufs b;
};

#ifndef VX_HAVE_CUDA
/* CPU-only build: vx_vort_grid_create refuses on_device, so this is never reached. */
int vx_vort_grid_compute_gpu(vx_vort_bufs *b, vx_precision prec, const void *pos, const void *alpha, int n_elem,
                             double sigma, int n, vx_vort_geom *geom, char *err, size_t errlen) {
  (void)b, (void)prec, (void)pos, (void)alpha, (void)n_elem, (void)sigma, (void)n, (void)geom;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
#endif

vx_vort_grid *vx_vort_grid_create(int on_device, char *err, size_t errlen) {
  if (on_device) {
#ifndef VX_HAVE_CUDA
    snprintf(err, errlen, "CUDA backend not available in this build");
    return NULL;
#else
    char why[256];
    if (!vx_cuda_available(why, sizeof why)) { /* fmm.h's one home for why there is no device */
      snprintf(err, errlen, "no CUDA device (%s)", why);
      return NULL;
    }
#endif
  }
  vx_vort_grid *g = calloc(1, sizeof *g);
  if (!g) { snprintf(err, errlen, "out of host memory"); return NULL; }
  g->on_device = on_device ? 1 : 0;
  return g;
}

void vx_vort_grid_destroy(vx_vort_grid *g) {
  if (!g) return;
  vx_mem *m[] = {&g->b.comp, &g->b.tmp, &g->b.mag, &g->b.geom, &g->b.keys};
  for (size_t i = 0; i < sizeof m / sizeof m[0]; ++i) vx_mem_free(m[i], g->on_device);
  free(g);
}

/* Element k's three values of a float or double array, as doubles. */
static inline void load3(vx_precision prec, const void *a, int k, double v[3]) {
  for (int c = 0; c < 3; ++c)
    v[c] = prec == VX_FLOAT ? (double)((const float *)a)[3 * (size_t)k + c] : ((const double *)a)[3 * (size_t)k + c];
}

/* The elements' bounding box; a coordinate that is not finite (NaN never wins a comparison, so it is
 * counted apart) makes the box NaN, which vx_vort_geom_make reports as bad, as the GPU's order keys
 * do. */
static void bbox_cpu(vx_precision prec, const void *pos, int n_elem, double mn[3], double mx[3]) {
  int bad = 0;
  for (int c = 0; c < 3; ++c) {
    double a = INFINITY, b = -INFINITY;
#pragma omp parallel for schedule(static) reduction(min : a) reduction(max : b) reduction(+ : bad)
    for (int k = 0; k < n_elem; ++k) {
      double v = prec == VX_FLOAT ? (double)((const float *)pos)[3 * (size_t)k + c] : ((const double *)pos)[3 * (size_t)k + c];
      bad += !(fabs(v) < 1e300);
      a = v < a ? v : a;
      b = v > b ? v : b;
    }
    mn[c] = a, mx[c] = b;
  }
  if (bad) mn[0] = NAN;
}

/* The cloud-in-cell deposit into comp (three n³ grids, zeroed here). Each thread owns a slab of
 * z-planes and adds, in element order, the corners that fall in it: the sums do not depend on
 * the thread count. Every thread computes every element's weights, a small cost next to the blur. */
static void deposit_cpu(const vx_vort_geom *g, vx_precision prec, const void *pos, const void *alpha, int n_elem,
                        float *comp) {
  const int n = g->n;
  const size_t n3 = (size_t)n * n * n, n2 = (size_t)n * n;
#pragma omp parallel
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int z0 = (int)((long long)n * t / nt), z1 = (int)((long long)n * (t + 1) / nt);
    memset(comp + (size_t)z0 * n2, 0, (size_t)(z1 - z0) * n2 * sizeof(float));
    for (int c = 1; c < 3; ++c) memset(comp + c * n3 + (size_t)z0 * n2, 0, (size_t)(z1 - z0) * n2 * sizeof(float));
    for (int e = 0; e < n_elem; ++e) {
      double x[3], a[3], w[8];
      load3(prec, pos, e, x);
      const size_t node = vx_vort_cic(g, x[0], x[1], x[2], w);
      const int k = (int)(node / n2);
      if (k + 1 < z0 || k >= z1) continue;
      load3(prec, alpha, e, a);
      for (int m = 0; m < 8; ++m) {
        const int plane = k + (m >> 2);
        if (plane < z0 || plane >= z1) continue;
        const size_t at = node + vx_vort_corner(n, m);
        for (int c = 0; c < 3; ++c) comp[c * n3 + at] += (float)(a[c] * w[m]);
      }
    }
  }
}

/* One line along x of one blur pass: d[i] = Σ_q w[|q|] s[i + q·stride] over the taps inside the
 * grid, the taps outermost so that the inner loop runs along contiguous x and vectorises (4x the
 * per-node loop). Each node still sums its taps as vx_vort_blur_at, the GPU kernel's, does (q
 * ascending, from 0): the same bits as that function on the host. pos: the line's coordinate
 * along the pass's axis (y or z); the x pass (stride 1) clips each tap's range of i instead. */
static void blur_line(const vx_vort_geom *g, size_t stride, int pos, const float *restrict s, float *restrict d) {
  const int n = g->n, r = g->r;
  for (int i = 0; i < n; ++i) d[i] = 0.0f;
  if (stride == 1) {
    for (int q = -r; q <= r; ++q) {
      const int i0 = q < 0 ? -q : 0, i1 = q > 0 ? n - q : n;
      const float wq = g->w[q < 0 ? -q : q];
      for (int i = i0; i < i1; ++i) d[i] += wq * s[i + q];
    }
    return;
  }
  int a, b;
  vx_vort_blur_range(pos, n, r, &a, &b);
  for (int q = a; q <= b; ++q) {
    const float wq = g->w[q < 0 ? -q : q], *sq = s + (ptrdiff_t)q * (ptrdiff_t)stride;
    for (int i = 0; i < n; ++i) d[i] += wq * sq[i];
  }
}

/* One blur pass along axis (0 x, 1 y, 2 z) of the three components, src into dst. */
static void blur_cpu(const vx_vort_geom *g, int axis, const float *src, float *dst) {
  const int n = g->n;
  const size_t n3 = (size_t)n * n * n, stride = axis == 0 ? 1 : (axis == 1 ? (size_t)n : (size_t)n * n);
#pragma omp parallel for collapse(2) schedule(static)
  for (int c = 0; c < 3; ++c)
    for (int line = 0; line < n * n; ++line) { /* line = z·n + y */
      const size_t at = c * n3 + (size_t)line * n;
      blur_line(g, stride, axis == 1 ? line % n : line / n, src + at, dst + at);
    }
}

/* |ω| per node into mag; returns the largest. */
static float mag_cpu(const vx_vort_geom *g, const float *comp, float *mag) {
  const size_t n3 = (size_t)g->n * g->n * g->n;
  float vmax = 0.0f;
#pragma omp parallel for schedule(static) reduction(max : vmax)
  for (size_t i = 0; i < n3; ++i) {
    mag[i] = vx_vort_mag(comp, n3, i);
    vmax = mag[i] > vmax ? mag[i] : vmax;
  }
  return vmax;
}

static int compute_cpu(vx_vort_bufs *b, vx_precision prec, const void *pos, const void *alpha, int n_elem, double sigma,
                       int n, vx_vort_geom *geom) {
  double mn[3] = {0.0, 0.0, 0.0}, mx[3] = {0.0, 0.0, 0.0}; /* no elements: the cube about the origin */
  if (n_elem > 0) bbox_cpu(prec, pos, n_elem, mn, mx);
  vx_vort_geom_make(mn, mx, sigma, n, geom);
  if (geom->bad) return 0;
  if (n_elem == 0) {
    memset(b->mag.p, 0, (size_t)n * n * n * sizeof(float));
    return 0;
  }
  float *comp = (float *)b->comp.p, *tmp = (float *)b->tmp.p;
  deposit_cpu(geom, prec, pos, alpha, n_elem, comp);
  blur_cpu(geom, 0, comp, tmp);
  blur_cpu(geom, 1, tmp, comp);
  blur_cpu(geom, 2, comp, tmp);
  float vmax = mag_cpu(geom, tmp, (float *)b->mag.p);
  memcpy(&geom->vmax_bits, &vmax, sizeof vmax);
  return 0;
}

static int check_args(const vx_vort_grid *g, vx_precision prec, const void *pos, const void *alpha, int n_elem,
                      double sigma, int n, char *err, size_t errlen) {
  if (!g) { snprintf(err, errlen, "vorticity grid: no grid object"); return -1; }
  if (prec != VX_FLOAT && prec != VX_DOUBLE) {
    snprintf(err, errlen, "vorticity grid: unknown precision %d", (int)prec);
    return -1;
  }
  if (n < VX_VORT_NMIN || n > VX_VORT_NMAX) {
    snprintf(err, errlen, "vorticity grid: %d nodes a side outside %d..%d", n, VX_VORT_NMIN, VX_VORT_NMAX);
    return -1;
  }
  if (!(sigma > 0.0 && sigma < 1e300)) {
    snprintf(err, errlen, "vorticity grid: sigma %g is not a positive number", sigma);
    return -1;
  }
  if (n_elem < 0 || (n_elem > 0 && (!pos || !alpha))) {
    snprintf(err, errlen, "vorticity grid: %d elements without positions or strengths", n_elem);
    return -1;
  }
  return 0;
}

int vx_vort_grid_compute(vx_vort_grid *g, vx_precision prec, const void *pos, const void *alpha, int n_elem,
                         double sigma, int n, const float **grid, double lo[3], double *side, float *vmax,
                         char *err, size_t errlen) {
  if (check_args(g, prec, pos, alpha, n_elem, sigma, n, err, errlen)) return -1;
  const size_t n3 = (size_t)n * n * n;
  vx_vort_bufs *b = &g->b;
  if (vx_mem_reserve(&b->comp, 3 * n3 * sizeof(float), g->on_device, err, errlen) ||
      vx_mem_reserve(&b->tmp, 3 * n3 * sizeof(float), g->on_device, err, errlen) ||
      vx_mem_reserve(&b->mag, n3 * sizeof(float), g->on_device, err, errlen))
    return -1;
  vx_vort_geom geom;
  int rc = g->on_device ? vx_vort_grid_compute_gpu(b, prec, pos, alpha, n_elem, sigma, n, &geom, err, errlen)
                        : compute_cpu(b, prec, pos, alpha, n_elem, sigma, n, &geom);
  if (rc) return -1;
  if (geom.bad) { snprintf(err, errlen, "vorticity grid: element positions are not finite"); return -1; }
  *grid = (const float *)b->mag.p;
  for (int a = 0; a < 3; ++a) lo[a] = geom.lo[a];
  *side = geom.side;
  memcpy(vmax, &geom.vmax_bits, sizeof *vmax);
  return 0;
}
