/* render_points.c — the particles handed to the renderer (render.h): the tracer subset and the
 * elements packed as float4 points into their GL buffers (on the host, through a device → host
 * copy, or left pending for the frame's interop mapping), the element centroid, and the occupancy
 * histogram the opacity and the boxes are drawn from (built here or handed in). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "render_int.h"

/* The point buffer of a slot holds at least m points; growing it drops and redoes its CUDA
 * registration (a registered buffer's storage must not be re-specified). */
static int reserve_points(rd_renderer *r, int slot, int m, int want_interop, char *err, size_t errlen) {
  point_buf *b = &r->pts[slot];
  if ((size_t)m > b->cap) {
    if (b->registered) { rd_gpu_unregister_buffer(r->gpu, slot); b->registered = 0; }
    size_t cap = (size_t)m + (size_t)m / 4 + 1024;
    glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(cap * 4 * sizeof(float)), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (rd_gl_check("allocating a point buffer", err, errlen)) return -1;
    b->cap = cap;
  }
  if (want_interop && !b->registered) b->registered = rd_interop_register(r, slot, b->vbo, "drawing through a device->host copy");
  return 0;
}

/* Pack m of the n particles starting at `first` (those of the list draw, else an even subset) into the
 * host buffer as float4: w = |alpha| (with_alpha), else the tracer's value (value, indexed from the first
 * tracer), else 1. */
static void pack_host(const rd_particles *p, int first, int n, int m, int with_alpha, const float *value, const int *draw,
                      float *out) {
  const double *pd = (const double *)p->pos, *ad = (const double *)p->alpha;
  const float *pf = (const float *)p->pos, *af = (const float *)p->alpha;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m; ++i) {
    long long k = draw ? (long long)draw[i] : (long long)i * n / m, s = first + k; /* as rd_pack_kernel */
    float w = value ? value[k] : 1.0f;
    if (p->real == RD_F64) {
      out[4 * (size_t)i] = (float)pd[3 * s];
      out[4 * (size_t)i + 1] = (float)pd[3 * s + 1];
      out[4 * (size_t)i + 2] = (float)pd[3 * s + 2];
      if (with_alpha) {
        float x = (float)ad[3 * k], y = (float)ad[3 * k + 1], z = (float)ad[3 * k + 2];
        w = sqrtf(x * x + y * y + z * z);
      }
    } else {
      out[4 * (size_t)i] = pf[3 * s];
      out[4 * (size_t)i + 1] = pf[3 * s + 1];
      out[4 * (size_t)i + 2] = pf[3 * s + 2];
      if (with_alpha) {
        float x = af[3 * k], y = af[3 * k + 1], z = af[3 * k + 2];
        w = sqrtf(x * x + y * y + z * z);
      }
    }
    out[4 * (size_t)i + 3] = w;
  }
}

/* A slot's points: packed on the host or copied through it now, or through interop by the next
 * draw (b->pending; the particles must stay where they are until then, as for the histogram). */
static int upload_slot(rd_renderer *r, int slot, const rd_particles *p, int first, int n, int m, int with_alpha,
                       const float *value, const int *draw, int want_interop, rd_path *path, char *err, size_t errlen) {
  point_buf *b = &r->pts[slot];
  b->count = 0;
  b->pending = 0;
  if (m <= 0) return 0;
  if (reserve_points(r, slot, m, p->on_device && want_interop, err, errlen)) return -1;
  const void *alpha = with_alpha ? p->alpha : NULL;
  if (p->on_device && b->registered && want_interop) { /* packed by the next draw (interop_writes) */
    b->pending = 1, b->first = first, b->n = n, b->with_alpha = with_alpha, b->value = value, b->draw = draw;
    *path = RD_PATH_INTEROP;
  } else {
    if (rd_grow((void **)&r->host_pts, &r->cap_host_pts, sizeof(float) * 4 * (size_t)m, err, errlen)) return -1;
    if (p->on_device) {
      if (!r->gpu) { snprintf(err, errlen, "particles are on a CUDA device but the renderer has no CUDA"); return -1; }
      if (rd_gpu_pack_points(r->gpu, slot, p->pos, alpha, value, draw, p->real, first, n, m, r->host_pts, err, errlen))
        return -1;
      *path = RD_PATH_COPY;
    } else {
      pack_host(p, first, n, m, alpha != NULL, value, draw, r->host_pts);
      *path = RD_PATH_HOST;
    }
    glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(float) * 4 * (size_t)m), r->host_pts);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (rd_gl_check("uploading points", err, errlen)) return -1;
  }
  b->count = m;
  return 0;
}

int rd_set_particles(rd_renderer *r, const rd_particles *p, const rd_style *s, char *err, size_t errlen) {
  double t0 = vx_clock_ms();
  r->parts = *p;
  r->box_valid = 0; /* a group's histogram measures them again */
  int nt = p->n_tracer, m = 0;
  if (p->draw) {
    m = p->n_draw;
  } else if (nt > 0) {
    double f = s->fraction > 0.0f ? (s->fraction < 1.0f ? s->fraction : 1.0f) : 0.0;
    m = (int)llround(f * nt);
    if (m < 1 && f > 0.0) m = 1;
  }
  rd_path path = RD_PATH_NONE, epath = RD_PATH_NONE;
  if (upload_slot(r, RD_SLOT_TRACERS, p, p->n_elem, nt, m, 0, p->value, p->draw, s->interop, &path, err, errlen)) return -1;
  if (s->show_elements && p->n_elem > 0) {
    if (upload_slot(r, RD_SLOT_ELEMENTS, p, 0, p->n_elem, p->n_elem, p->alpha != NULL, NULL, NULL, s->interop, &epath, err,
                    errlen))
      return -1;
  } else {
    r->pts[RD_SLOT_ELEMENTS].count = 0;
    r->pts[RD_SLOT_ELEMENTS].pending = 0;
  }
  r->stats.points_path = path != RD_PATH_NONE ? path : epath;
  r->stats.n_drawn = m;
  r->stats.t_upload = vx_clock_ms() - t0;
  return 0;
}

/* The sums of the n element positions (host or device) into s[0..2]. */
static int element_sums(rd_renderer *r, const rd_particles *p, int n, double s[3], char *err, size_t errlen) {
  s[0] = s[1] = s[2] = 0.0;
  if (n <= 0) return 0;
  if (p->on_device) {
    if (!r->gpu) { snprintf(err, errlen, "particles are on a CUDA device but the renderer has no CUDA"); return -1; }
    return rd_gpu_sums(r->gpu, p->pos, p->real, n, s, err, errlen);
  }
  double sx = 0, sy = 0, sz = 0;
  const double *pd = (const double *)p->pos;
  const float *pf = (const float *)p->pos;
#pragma omp parallel for schedule(static) reduction(+ : sx, sy, sz)
  for (int i = 0; i < n; ++i) {
    sx += p->real == RD_F64 ? pd[3 * (size_t)i] : pf[3 * (size_t)i];
    sy += p->real == RD_F64 ? pd[3 * (size_t)i + 1] : pf[3 * (size_t)i + 1];
    sz += p->real == RD_F64 ? pd[3 * (size_t)i + 2] : pf[3 * (size_t)i + 2];
  }
  s[0] = sx, s[1] = sy, s[2] = sz;
  return 0;
}

int rd_element_centroid(rd_renderer *r, double c[3], char *err, size_t errlen) {
  const rd_particles *p = &r->parts;
  const int n = p->pos ? p->n_elem : 0;
  double s[4] = {0.0, 0.0, 0.0, (double)(n > 0 ? n : 0)};
  c[0] = c[1] = c[2] = 0.0;
  int ok = element_sums(r, p, n, s, err, errlen) == 0;
  if (r->grouped ? r->group.sum_double(r->group.ctx, ok, s, 4, err, errlen) != 0 : !ok) return -1;
  if (s[3] > 0)
    for (int k = 0; k < 3; ++k) c[k] = s[k] / s[3];
  return 0;
}

/* ---- histogram */

/* A group's histogram: every process's particles binned in the cube of all of them, the bins summed over
 * the processes (in device bins on the device path, so the opacity stays there). */
static int build_group_hist(rd_renderer *r, int n, int levels, char *err, size_t errlen) {
  const rd_particles *p = &r->parts;
  const rd_group *g = &r->group;
  const size_t cells = (size_t)1 << (3 * levels);
  double mn[3], mx[3];
  int ok = !p->on_device || r->gpu != NULL;
  if (!ok) snprintf(err, errlen, "particles are on a CUDA device but the renderer has no CUDA");
  ok = ok && rd_grow((void **)&r->host_bins, &r->cap_host_bins, sizeof(int) * cells, err, errlen) == 0;
  if (ok && p->on_device) ok = rd_gpu_bounds(r->gpu, p->pos, p->real, n, mn, mx, err, errlen) == 0;
  else if (ok) rd_bounds_cpu(p->pos, p->real, n, mn, mx);
  if (ok) memcpy(r->box_mn, mn, sizeof mn), memcpy(r->box_mx, mx, sizeof mx), r->box_valid = 1; /* the image sum's rectangle */
  if (g->bounds(g->ctx, ok, mn, mx, err, errlen) || rd_hist_cube(mn, mx, r->hist_lo, &r->hist_side, err, errlen)) return -1;
  if (p->on_device)
    ok = rd_gpu_hist_bin(r->gpu, p->pos, p->real, n, levels, r->hist_lo, r->hist_side, err, errlen) == 0 &&
         rd_gpu_hist_download(r->gpu, r->host_bins, levels, err, errlen) == 0;
  else
    rd_hist_bin_cpu(p->pos, p->real, n, levels, r->hist_lo, r->hist_side, r->host_bins);
  if (g->sum_int(g->ctx, ok, r->host_bins, cells, err, errlen)) return -1;
  if (p->on_device && rd_gpu_hist_copy(r->gpu, r->host_bins, 0, levels, err, errlen)) return -1;
  long long t = 0;
  for (size_t c = 0; c < cells; ++c) t += r->host_bins[c];
  r->hist_total = t;
  r->hist_on_device = p->on_device;
  return 0;
}

int rd_build_hist(rd_renderer *r, int levels, char *err, size_t errlen) {
  const rd_particles *p = &r->parts;
  int n = p->pos ? p->n_elem + p->n_tracer : 0;
  if (!r->grouped && n <= 0) { snprintf(err, errlen, "no particles handed to the renderer"); return -1; }
  if (levels < 2 || levels > VX_LMAX) { snprintf(err, errlen, "histogram level %d outside 2..%d", levels, VX_LMAX); return -1; }
  double t0 = vx_clock_ms();
  r->hist_valid = 0;
  if (r->grouped) {
    if (build_group_hist(r, n, levels, err, errlen)) return -1;
  } else if (p->on_device) {
    if (!r->gpu) { snprintf(err, errlen, "particles are on a CUDA device but the renderer has no CUDA"); return -1; }
    if (rd_gpu_hist_build(r->gpu, p->pos, p->real, n, levels, r->hist_lo, &r->hist_side, err, errlen)) return -1;
    r->hist_on_device = 1;
  } else {
    size_t cells = (size_t)1 << (3 * levels);
    if (rd_grow((void **)&r->host_bins, &r->cap_host_bins, sizeof(int) * cells, err, errlen)) return -1;
    if (rd_hist_build_cpu(p->pos, p->real, n, levels, r->host_bins, r->hist_lo, &r->hist_side, err, errlen)) return -1;
    r->hist_on_device = 0;
  }
  if (!r->grouped) r->hist_total = n;
  r->hist_levels = levels;
  r->hist_valid = 1;
  r->hist_version++;
  r->stats.hist_levels = levels;
  r->stats.t_hist = vx_clock_ms() - t0;
  return 0;
}

int rd_set_hist(rd_renderer *r, const rd_hist *h, char *err, size_t errlen) {
  if (h->levels < 1 || h->levels > VX_LMAX || !h->bins || !(h->side > 0)) {
    snprintf(err, errlen, "bad histogram (level %d, side %g)", h->levels, h->side);
    return -1;
  }
  double t0 = vx_clock_ms();
  size_t cells = (size_t)1 << (3 * h->levels);
  r->hist_valid = 0;
  if (h->on_device) {
    if (!r->gpu) { snprintf(err, errlen, "histogram is on a CUDA device but the renderer has no CUDA"); return -1; }
    if (rd_gpu_hist_copy(r->gpu, h->bins, 1, h->levels, err, errlen) ||
        rd_gpu_hist_total(r->gpu, h->levels, &r->hist_total, err, errlen))
      return -1;
    r->hist_on_device = 1;
  } else {
    if (rd_grow((void **)&r->host_bins, &r->cap_host_bins, sizeof(int) * cells, err, errlen)) return -1;
    memcpy(r->host_bins, h->bins, sizeof(int) * cells);
    long long t = 0;
    for (size_t c = 0; c < cells; ++c) t += r->host_bins[c];
    r->hist_total = t;
    r->hist_on_device = 0;
  }
  r->hist_levels = h->levels;
  memcpy(r->hist_lo, h->lo, sizeof r->hist_lo);
  r->hist_side = h->side;
  r->hist_valid = 1;
  r->hist_version++;
  r->stats.hist_levels = h->levels;
  r->stats.t_hist = vx_clock_ms() - t0;
  return 0;
}
