/* opacity_cpu.c — the CPU (OpenMP) twin of the opacity pass and of the histogram binning: loops
 * over pixels and particles calling the per-element functions of opacity.h, which the CUDA kernels
 * of render_gpu.cu call too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opacity.h"
#include "render.h"

void rd_ray_params_make(rd_ray_params *p, const rd_camera *cam, int w, int h, const rd_hist *hist, long long total,
                        int samples) {
  double eye[3], right[3], up[3], fwd[3];
  rd_camera_basis(cam, eye, right, up, fwd);
  double ty = tan(0.5 * cam->fovy_deg * VX_PI / 180.0), tx = ty * (double)w / (double)(h > 0 ? h : 1);
  memset(p, 0, sizeof *p);
  for (int k = 0; k < 3; ++k) {
    p->eye[k] = (float)eye[k];
    p->fwd[k] = (float)fwd[k];
    p->right[k] = (float)(tx * right[k]);
    p->up[k] = (float)(ty * up[k]);
    p->lo[k] = (float)hist->lo[k];
  }
  p->width = w;
  p->height = h;
  p->side = (float)hist->side;
  p->levels = hist->levels;
  p->samples = samples < 1 ? 1 : samples;
  p->scale = total > 0 ? (float)(ldexp(1.0, 2 * hist->levels) / (double)total) : 0.0f;
}

void rd_opacity_cpu(const rd_ray_params *p, const int *bins, int blur, float *out, float *tmp) {
  int w = p->width, h = p->height;
#pragma omp parallel for schedule(dynamic, 4)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out[(size_t)y * w + x] = rd_ray_count(p, bins, x, y);
  if (blur <= 0) return;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) tmp[(size_t)y * w + x] = rd_box_blur_at(out, w, h, x, y, blur, 1);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out[(size_t)y * w + x] = rd_box_blur_at(tmp, w, h, x, y, blur, 0);
}

int rd_hist_cube(const double mn[3], const double mx[3], double lo[3], double *side, char *err, size_t errlen) {
  if (!isfinite(mn[0] + mn[1] + mn[2] + mx[0] + mx[1] + mx[2]) || oct_root_cube(mn, mx, lo, side)) {
    snprintf(err, errlen, "particle positions are not finite: cannot bin them");
    return -1;
  }
  return 0;
}

void rd_bounds_cpu(const void *pos, rd_real real, int n, double mn[3], double mx[3]) {
  const double *pd = (const double *)pos;
  const float *pf = (const float *)pos;
  for (int k = 0; k < 3; ++k) {
    double a = INFINITY, b = -INFINITY;
#pragma omp parallel for schedule(static) reduction(min : a) reduction(max : b)
    for (int i = 0; i < n; ++i) {
      double v = real == RD_F64 ? pd[3 * (size_t)i + k] : (double)pf[3 * (size_t)i + k];
      if (v < a) a = v;
      if (v > b) b = v;
    }
    mn[k] = a;
    mx[k] = b;
  }
}

void rd_hist_bin_cpu(const void *pos, rd_real real, int n, int levels, const double lo[3], double side, int *bins) {
  const double *pd = (const double *)pos;
  const float *pf = (const float *)pos;
  memset(bins, 0, sizeof(int) * ((size_t)1 << (3 * levels)));
  double inv = 1.0 / side;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) {
    size_t b = 3 * (size_t)i;
    uint32_t key = real == RD_F64 ? rd_bin_key(pd[b], pd[b + 1], pd[b + 2], lo, inv, levels)
                                  : rd_bin_key(pf[b], pf[b + 1], pf[b + 2], lo, inv, levels);
#pragma omp atomic
    bins[key]++;
  }
}

int rd_hist_build_cpu(const void *pos, rd_real real, int n, int levels, int *bins, double lo[3], double *side, char *err,
                      size_t errlen) {
  if (levels < 1 || levels > VX_LMAX) { snprintf(err, errlen, "histogram level %d outside 1..%d", levels, VX_LMAX); return -1; }
  if (n <= 0) { snprintf(err, errlen, "no particles to bin"); return -1; }
  double mn[3], mx[3];
  rd_bounds_cpu(pos, real, n, mn, mx);
  if (rd_hist_cube(mn, mx, lo, side, err, errlen)) return -1;
  rd_hist_bin_cpu(pos, real, n, levels, lo, *side, bins);
  return 0;
}
