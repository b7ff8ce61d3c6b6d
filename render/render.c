/* render.c — the renderer (render.h): point buffers fed from host or device particles, the
 * histogram, the ray-counted opacity texture and the draw passes:
 *   1. tracers as additive sprites into a float (RGBA16F) target;
 *   2. composite into the output framebuffer: points reset by the opacity texture, glow, tone map
 *      (shaders/composite.frag, paper §3.2);
 *   3. overlays with alpha blending: elements coloured by |α|, the non-empty histogram cells (B;
 *      at most RD_BOXES_MAX of them), cube outline.
 * Device particles go through CUDA–GL interop (render_gpu.cu) and fall back, with a one-line
 * notice, to a device → host → glBufferSubData copy when the driver refuses to register. */
#define _POSIX_C_SOURCE 200809L
#include "render.h"
#include "clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gl_util.h"
#include "opacity.h"
#include "render_gpu.h"

/* The boxes (B: at most RD_BOXES_MAX, render.h) are found from the occupancy at no deeper than
 * this level (8^7 = 2M bytes of it). */
#define RD_BOXES_MAX_LEVEL 7

typedef struct {
  GLuint vao, vbo;
  size_t cap;          /* points the buffer holds */
  int count;           /* points written last */
  int registered;      /* registered with CUDA */
  /* interop: the packing rd_set_particles asks for, done by the next draw inside its one mapping */
  int pending, first, n, with_alpha;
  const float *value;
} point_buf;

struct rd_renderer {
  GLuint prog_points, prog_elements, prog_composite, prog_boxes;
  struct { GLint view, proj, size, ref_depth, color, intensity, tint, palette, stops, nstops, range; } u_pts;
  struct { GLint view, proj, size, ref_depth, alpha_ref, stops, nstops; } u_el;
  struct { GLint points, opacity, use_opacity, keep_hue, gain, glow, glow_rgb, exposure, bg; } u_cmp;
  struct { GLint view_proj, color; } u_box;
  point_buf pts[RD_SLOTS];
  GLuint vao_empty;
  GLuint vao_boxes, vbo_edges, vbo_boxes;
  size_t cap_boxes;
  int n_boxes;
  long long boxes_version;
  int boxes_level;
  GLuint hdr_fbo, hdr_tex;
  int hdr_w, hdr_h;
  GLuint op_tex;
  int op_w, op_h;
  int op_registered;
  GLuint query[2];
  int query_used[2];
  long long frame;

  rd_gpu *gpu;
  int interop_failed;  /* registration refused once: stay on the copy path */

  rd_particles parts;  /* handed last */
  float *host_pts;     /* packing buffer (float4) */
  size_t cap_host_pts;

  /* histogram in use */
  int hist_valid, hist_levels, hist_on_device;
  double hist_lo[3], hist_side;
  long long hist_total, hist_version;
  int *host_bins;
  size_t cap_host_bins;

  /* opacity cache: recomputed when any of these change */
  int op_valid;
  rd_ray_params op_params;
  int op_blur;
  rd_path op_path;     /* how the cached opacity image was made: a cached frame reports it (not "-") */
  long long op_version;
  float *host_op, *host_tmp;
  size_t cap_host_op, cap_host_tmp;

  rd_stats stats;
};

static double now_ms(void) { return vx_clock_ms(); }

static int grow(void **p, size_t *cap, size_t bytes, char *err, size_t errlen) {
  if (*cap >= bytes && *p) return 0;
  void *q = realloc(*p, bytes ? bytes : 1);
  if (!q) { snprintf(err, errlen, "out of host memory (%.1f MiB for the renderer)", bytes / 1048576.0); return -1; }
  *p = q;
  *cap = bytes;
  return 0;
}

rd_style rd_style_default(void) {
  rd_style s;
  memset(&s, 0, sizeof s);
  s.fraction = 0.25f;
  s.point_size = 2.5f;
  s.intensity = 0.9f;
  s.tracer_rgb[0] = 0.55f; s.tracer_rgb[1] = 0.75f; s.tracer_rgb[2] = 1.0f;
  s.tint = RD_TINT_PLAIN;
  s.value_lo = 0.0f;
  s.value_hi = 1.0f;
  s.opacity = 1;
  s.gain = 0.15f;
  s.glow = 0.6f;
  s.glow_rgb[0] = 0.30f; s.glow_rgb[1] = 0.45f; s.glow_rgb[2] = 1.0f;
  s.bg_rgb[0] = 0.015f; s.bg_rgb[1] = 0.015f; s.bg_rgb[2] = 0.03f;
  s.exposure = 1.2f;
  s.samples = 64;
  s.blur = 2;
  s.downscale = 2;
  s.show_elements = 0;
  s.element_size = 3.0f;
  s.alpha_ref = 0.0f;
  s.show_boxes = 0;
  s.show_cube = 1;
  s.interop = 1;
  return s;
}

const char *rd_path_name(rd_path p) {
  switch (p) {
    case RD_PATH_HOST: return "host upload";
    case RD_PATH_INTEROP: return "CUDA-GL interop";
    case RD_PATH_COPY: return "device->host copy";
    default: return "-";
  }
}

const rd_stats *rd_get_stats(const rd_renderer *r) { return &r->stats; }

static void notice(rd_renderer *r, const char *msg) {
  snprintf(r->stats.notice, sizeof r->stats.notice, "%.255s", msg);
  fprintf(stderr, "vortexfmm: %s\n", msg);
}

/* ------------------------------------------------------------------ create / destroy */

static void point_vao(point_buf *b) {
  glGenVertexArrays(1, &b->vao);
  glGenBuffers(1, &b->vbo);
  glBindVertexArray(b->vao);
  glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void *)0);
  glBindVertexArray(0);
}

rd_renderer *rd_create(char *err, size_t errlen) {
  rd_renderer *r = calloc(1, sizeof *r);
  if (!r) { snprintf(err, errlen, "out of host memory"); return NULL; }
  r->stats.t_gpu = -1.0;
  if (!(r->prog_points = rd_program_load("points.vert", "points.frag", err, errlen)) ||
      !(r->prog_elements = rd_program_load("elements.vert", "elements.frag", err, errlen)) ||
      !(r->prog_composite = rd_program_load("composite.vert", "composite.frag", err, errlen)) ||
      !(r->prog_boxes = rd_program_load("boxes.vert", "lines.frag", err, errlen))) {
    rd_destroy(r);
    return NULL;
  }
  GLuint p = r->prog_points;
  r->u_pts.view = glGetUniformLocation(p, "u_view");
  r->u_pts.proj = glGetUniformLocation(p, "u_proj");
  r->u_pts.size = glGetUniformLocation(p, "u_size");
  r->u_pts.ref_depth = glGetUniformLocation(p, "u_ref_depth");
  r->u_pts.color = glGetUniformLocation(p, "u_color");
  r->u_pts.intensity = glGetUniformLocation(p, "u_intensity");
  r->u_pts.tint = glGetUniformLocation(p, "u_tint");
  r->u_pts.palette = glGetUniformLocation(p, "u_palette");
  r->u_pts.stops = glGetUniformLocation(p, "u_stops");
  r->u_pts.nstops = glGetUniformLocation(p, "u_nstops");
  r->u_pts.range = glGetUniformLocation(p, "u_range");
  p = r->prog_elements;
  r->u_el.view = glGetUniformLocation(p, "u_view");
  r->u_el.proj = glGetUniformLocation(p, "u_proj");
  r->u_el.size = glGetUniformLocation(p, "u_size");
  r->u_el.ref_depth = glGetUniformLocation(p, "u_ref_depth");
  r->u_el.alpha_ref = glGetUniformLocation(p, "u_alpha_ref");
  r->u_el.stops = glGetUniformLocation(p, "u_stops");
  r->u_el.nstops = glGetUniformLocation(p, "u_nstops");
  p = r->prog_composite;
  r->u_cmp.points = glGetUniformLocation(p, "u_points");
  r->u_cmp.opacity = glGetUniformLocation(p, "u_opacity");
  r->u_cmp.use_opacity = glGetUniformLocation(p, "u_use_opacity");
  r->u_cmp.keep_hue = glGetUniformLocation(p, "u_keep_hue");
  r->u_cmp.gain = glGetUniformLocation(p, "u_gain");
  r->u_cmp.glow = glGetUniformLocation(p, "u_glow");
  r->u_cmp.glow_rgb = glGetUniformLocation(p, "u_glow_rgb");
  r->u_cmp.exposure = glGetUniformLocation(p, "u_exposure");
  r->u_cmp.bg = glGetUniformLocation(p, "u_bg");
  r->u_box.view_proj = glGetUniformLocation(r->prog_boxes, "u_view_proj");
  r->u_box.color = glGetUniformLocation(r->prog_boxes, "u_color");

  for (int s = 0; s < RD_SLOTS; ++s) point_vao(&r->pts[s]);
  glGenVertexArrays(1, &r->vao_empty);

  /* the 12 edges of the unit cube as 24 line vertices; instances give each box's corner and side */
  static const float edges[24 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1,
                                      0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1,
                                      0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1};
  glGenVertexArrays(1, &r->vao_boxes);
  glGenBuffers(1, &r->vbo_edges);
  glGenBuffers(1, &r->vbo_boxes);
  glBindVertexArray(r->vao_boxes);
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo_edges);
  glBufferData(GL_ARRAY_BUFFER, sizeof edges, edges, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), (void *)0);
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo_boxes);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void *)0);
  glVertexAttribDivisor(1, 1);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glGenQueries(2, r->query);
  if (rd_gl_check("creating the renderer's buffers", err, errlen)) {
    rd_destroy(r);
    return NULL;
  }
  char gerr[256];
  r->gpu = rd_gpu_create(gerr, sizeof gerr); /* NULL without CUDA: host paths only */
  return r;
}

void rd_destroy(rd_renderer *r) {
  if (!r) return;
  /* CUDA registrations go before the GL objects they refer to */
  rd_gpu_destroy(r->gpu);
  for (int s = 0; s < RD_SLOTS; ++s) {
    if (r->pts[s].vbo) glDeleteBuffers(1, &r->pts[s].vbo);
    if (r->pts[s].vao) glDeleteVertexArrays(1, &r->pts[s].vao);
  }
  if (r->vao_empty) glDeleteVertexArrays(1, &r->vao_empty);
  if (r->vao_boxes) glDeleteVertexArrays(1, &r->vao_boxes);
  if (r->vbo_edges) glDeleteBuffers(1, &r->vbo_edges);
  if (r->vbo_boxes) glDeleteBuffers(1, &r->vbo_boxes);
  if (r->hdr_fbo) glDeleteFramebuffers(1, &r->hdr_fbo);
  if (r->hdr_tex) glDeleteTextures(1, &r->hdr_tex);
  if (r->op_tex) glDeleteTextures(1, &r->op_tex);
  if (r->query[0]) glDeleteQueries(2, r->query);
  if (r->prog_points) glDeleteProgram(r->prog_points);
  if (r->prog_elements) glDeleteProgram(r->prog_elements);
  if (r->prog_composite) glDeleteProgram(r->prog_composite);
  if (r->prog_boxes) glDeleteProgram(r->prog_boxes);
  free(r->host_pts);
  free(r->host_bins);
  free(r->host_op);
  free(r->host_tmp);
  free(r);
}

/* ------------------------------------------------------------------ particles */

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
  if (want_interop && !b->registered && r->gpu && !r->interop_failed) {
    char gerr[256];
    if (rd_gpu_register_buffer(r->gpu, slot, b->vbo, gerr, sizeof gerr) == 0) {
      b->registered = 1;
    } else {
      char msg[400];
      r->interop_failed = 1;
      snprintf(msg, sizeof msg, "CUDA-GL interop unavailable (%.200s); drawing through a device->host copy", gerr);
      notice(r, msg);
    }
  }
  return 0;
}

/* Pack m of the n particles starting at `first` (an even subset) into the host buffer as float4:
 * w = |alpha| (with_alpha), else the tracer's value (value, indexed from the first tracer), else 1. */
static void pack_host(const rd_particles *p, int first, int n, int m, int with_alpha, const float *value, float *out) {
  const double *pd = (const double *)p->pos, *ad = (const double *)p->alpha;
  const float *pf = (const float *)p->pos, *af = (const float *)p->alpha;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m; ++i) {
    long long k = (long long)i * n / m, s = first + k; /* the same subset as rd_pack_kernel */
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
                       const float *value, int want_interop, rd_path *path, char *err, size_t errlen) {
  point_buf *b = &r->pts[slot];
  b->count = 0;
  b->pending = 0;
  if (m <= 0) return 0;
  if (reserve_points(r, slot, m, p->on_device && want_interop, err, errlen)) return -1;
  const void *alpha = with_alpha ? p->alpha : NULL;
  if (p->on_device && b->registered && want_interop) { /* packed by the next draw (interop_writes) */
    b->pending = 1, b->first = first, b->n = n, b->with_alpha = with_alpha, b->value = value;
    *path = RD_PATH_INTEROP;
  } else {
    if (grow((void **)&r->host_pts, &r->cap_host_pts, sizeof(float) * 4 * (size_t)m, err, errlen)) return -1;
    if (p->on_device) {
      if (!r->gpu) { snprintf(err, errlen, "particles are on a CUDA device but the renderer has no CUDA"); return -1; }
      if (rd_gpu_pack_points(r->gpu, slot, p->pos, alpha, value, p->real, first, n, m, r->host_pts, err, errlen))
        return -1;
      *path = RD_PATH_COPY;
    } else {
      pack_host(p, first, n, m, alpha != NULL, value, r->host_pts);
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
  double t0 = now_ms();
  r->parts = *p;
  int nt = p->n_tracer, m = 0;
  if (nt > 0) {
    double f = s->fraction > 0.0f ? (s->fraction < 1.0f ? s->fraction : 1.0f) : 0.0;
    m = (int)llround(f * nt);
    if (m < 1 && f > 0.0) m = 1;
  }
  rd_path path = RD_PATH_NONE, epath = RD_PATH_NONE;
  if (upload_slot(r, RD_SLOT_TRACERS, p, p->n_elem, nt, m, 0, p->value, s->interop, &path, err, errlen)) return -1;
  if (s->show_elements && p->n_elem > 0) {
    if (upload_slot(r, RD_SLOT_ELEMENTS, p, 0, p->n_elem, p->n_elem, p->alpha != NULL, NULL, s->interop, &epath, err,
                    errlen))
      return -1;
  } else {
    r->pts[RD_SLOT_ELEMENTS].count = 0;
    r->pts[RD_SLOT_ELEMENTS].pending = 0;
  }
  r->stats.points_path = path != RD_PATH_NONE ? path : epath;
  r->stats.n_drawn = m;
  r->stats.t_upload = now_ms() - t0;
  return 0;
}

int rd_element_centroid(rd_renderer *r, double c[3], char *err, size_t errlen) {
  const rd_particles *p = &r->parts;
  c[0] = c[1] = c[2] = 0.0;
  if (!p->pos || p->n_elem <= 0) return 0;
  if (p->on_device) {
    if (!r->gpu) { snprintf(err, errlen, "particles are on a CUDA device but the renderer has no CUDA"); return -1; }
    return rd_gpu_centroid(r->gpu, p->pos, p->real, p->n_elem, c, err, errlen);
  }
  double sx = 0, sy = 0, sz = 0;
  int n = p->n_elem;
  const double *pd = (const double *)p->pos;
  const float *pf = (const float *)p->pos;
#pragma omp parallel for schedule(static) reduction(+ : sx, sy, sz)
  for (int i = 0; i < n; ++i) {
    sx += p->real == RD_F64 ? pd[3 * (size_t)i] : pf[3 * (size_t)i];
    sy += p->real == RD_F64 ? pd[3 * (size_t)i + 1] : pf[3 * (size_t)i + 1];
    sz += p->real == RD_F64 ? pd[3 * (size_t)i + 2] : pf[3 * (size_t)i + 2];
  }
  c[0] = sx / n;
  c[1] = sy / n;
  c[2] = sz / n;
  return 0;
}

/* ------------------------------------------------------------------ histogram */

int rd_build_hist(rd_renderer *r, int levels, char *err, size_t errlen) {
  const rd_particles *p = &r->parts;
  int n = p->n_elem + p->n_tracer;
  if (!p->pos || n <= 0) { snprintf(err, errlen, "no particles handed to the renderer"); return -1; }
  if (levels < 2 || levels > VX_LMAX) { snprintf(err, errlen, "histogram level %d outside 2..%d", levels, VX_LMAX); return -1; }
  double t0 = now_ms();
  r->hist_valid = 0;
  if (p->on_device) {
    if (!r->gpu) { snprintf(err, errlen, "particles are on a CUDA device but the renderer has no CUDA"); return -1; }
    if (rd_gpu_hist_build(r->gpu, p->pos, p->real, n, levels, r->hist_lo, &r->hist_side, err, errlen)) return -1;
    r->hist_on_device = 1;
  } else {
    size_t cells = (size_t)1 << (3 * levels);
    if (grow((void **)&r->host_bins, &r->cap_host_bins, sizeof(int) * cells, err, errlen)) return -1;
    if (rd_hist_build_cpu(p->pos, p->real, n, levels, r->host_bins, r->hist_lo, &r->hist_side, err, errlen)) return -1;
    r->hist_on_device = 0;
  }
  r->hist_levels = levels;
  r->hist_total = n;
  r->hist_valid = 1;
  r->hist_version++;
  r->stats.hist_levels = levels;
  r->stats.t_hist = now_ms() - t0;
  return 0;
}

int rd_set_hist(rd_renderer *r, const rd_hist *h, char *err, size_t errlen) {
  if (h->levels < 1 || h->levels > VX_LMAX || !h->bins || !(h->side > 0)) {
    snprintf(err, errlen, "bad histogram (level %d, side %g)", h->levels, h->side);
    return -1;
  }
  double t0 = now_ms();
  size_t cells = (size_t)1 << (3 * h->levels);
  r->hist_valid = 0;
  if (h->on_device) {
    if (!r->gpu) { snprintf(err, errlen, "histogram is on a CUDA device but the renderer has no CUDA"); return -1; }
    if (rd_gpu_hist_copy(r->gpu, h->bins, 1, h->levels, err, errlen) ||
        rd_gpu_hist_total(r->gpu, h->levels, &r->hist_total, err, errlen))
      return -1;
    r->hist_on_device = 1;
  } else {
    if (grow((void **)&r->host_bins, &r->cap_host_bins, sizeof(int) * cells, err, errlen)) return -1;
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
  r->stats.t_hist = now_ms() - t0;
  return 0;
}

/* ------------------------------------------------------------------ render targets */

static int ensure_hdr(rd_renderer *r, int w, int h, char *err, size_t errlen) {
  if (r->hdr_fbo && r->hdr_w == w && r->hdr_h == h) return 0;
  if (!r->hdr_fbo) glGenFramebuffers(1, &r->hdr_fbo);
  if (!r->hdr_tex) glGenTextures(1, &r->hdr_tex);
  glBindTexture(GL_TEXTURE_2D, r->hdr_tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, w, h, 0, GL_RGBA, GL_FLOAT, NULL);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindFramebuffer(GL_FRAMEBUFFER, r->hdr_fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->hdr_tex, 0);
  int bad = rd_fbo_check("the point pass (RGBA16F)", err, errlen);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  if (bad || rd_gl_check("creating the point pass target", err, errlen)) return -1;
  r->hdr_w = w;
  r->hdr_h = h;
  return 0;
}

static int ensure_opacity_tex(rd_renderer *r, int w, int h, int want_interop, char *err, size_t errlen) {
  if (!r->op_tex || r->op_w != w || r->op_h != h) {
    if (r->op_registered) { rd_gpu_unregister_texture(r->gpu); r->op_registered = 0; }
    if (r->op_tex) glDeleteTextures(1, &r->op_tex); /* a new name: registrations never see a resized image */
    glGenTextures(1, &r->op_tex);
    glBindTexture(GL_TEXTURE_2D, r->op_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, w, h, 0, GL_RED, GL_FLOAT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
    if (rd_gl_check("creating the opacity texture (R32F)", err, errlen)) return -1;
    r->op_w = w;
    r->op_h = h;
    r->op_valid = 0;
  }
  if (want_interop && !r->op_registered && r->gpu && !r->interop_failed) {
    char gerr[256];
    if (rd_gpu_register_texture(r->gpu, r->op_tex, gerr, sizeof gerr) == 0) {
      r->op_registered = 1;
    } else {
      char msg[400];
      r->interop_failed = 1;
      snprintf(msg, sizeof msg, "CUDA-GL interop unavailable (%.200s); opacity goes through a device->host copy", gerr);
      notice(r, msg);
    }
  }
  return 0;
}

/* This frame's opacity: its texture made (and registered for interop), the ray parameters *p and
 * blur, and whether the image is due (*due: the view, the histogram or the settings changed; else
 * the cached image stays and the path it was made by is reported). */
static int opacity_plan(rd_renderer *r, const rd_camera *cam, const rd_style *s, int w, int h, rd_ray_params *p, int *blur,
                        int *due, char *err, size_t errlen) {
  int ds = s->downscale < 1 ? 1 : (s->downscale > 16 ? 16 : s->downscale);
  int ow = (w + ds - 1) / ds, oh = (h + ds - 1) / ds;
  if (ensure_opacity_tex(r, ow, oh, r->hist_on_device && s->interop, err, errlen)) return -1;
  rd_hist hh;
  memset(&hh, 0, sizeof hh);
  hh.levels = r->hist_levels;
  memcpy(hh.lo, r->hist_lo, sizeof hh.lo);
  hh.side = r->hist_side;
  rd_ray_params_make(p, cam, ow, oh, &hh, r->hist_total, s->samples);
  *blur = s->blur < 0 ? 0 : s->blur;
  *due = !(r->op_valid && r->op_version == r->hist_version && r->op_blur == *blur && !memcmp(p, &r->op_params, sizeof *p));
  if (!*due) r->stats.opacity_path = r->op_path; /* O turned back on while paused: drawn from the cache, not off */
  return 0;
}

/* How a due opacity image is made: by CUDA into the registered texture, by CUDA through the host,
 * or on the host. */
static rd_path opacity_path(const rd_renderer *r, const rd_style *s) {
  if (!r->hist_on_device) return RD_PATH_HOST;
  return s->interop && r->op_registered ? RD_PATH_INTEROP : RD_PATH_COPY;
}

/* Make the opacity image by `path` (RD_PATH_INTEROP: inside interop_writes' mapping) and keep its
 * parameters for the cache. */
static int compute_opacity(rd_renderer *r, const rd_ray_params *p, int blur, rd_path path, char *err, size_t errlen) {
  double t0 = now_ms();
  int ow = p->width, oh = p->height;
  size_t bytes = sizeof(float) * (size_t)ow * oh;
  if (path == RD_PATH_INTEROP) {
    if (rd_gpu_opacity(r->gpu, p, blur, NULL, err, errlen)) return -1;
  } else if (path == RD_PATH_COPY) {
    if (grow((void **)&r->host_op, &r->cap_host_op, bytes, err, errlen)) return -1;
    if (rd_gpu_opacity(r->gpu, p, blur, r->host_op, err, errlen)) return -1;
  } else {
    if (grow((void **)&r->host_op, &r->cap_host_op, bytes, err, errlen) ||
        grow((void **)&r->host_tmp, &r->cap_host_tmp, bytes, err, errlen))
      return -1;
    rd_opacity_cpu(p, r->host_bins, blur, r->host_op, r->host_tmp);
  }
  if (path != RD_PATH_INTEROP) {
    glBindTexture(GL_TEXTURE_2D, r->op_tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, ow, oh, GL_RED, GL_FLOAT, r->host_op);
    glBindTexture(GL_TEXTURE_2D, 0);
    if (rd_gl_check("uploading the opacity texture", err, errlen)) return -1;
  }
  r->op_params = *p;
  r->op_blur = blur;
  r->op_version = r->hist_version;
  r->op_valid = 1;
  r->op_path = r->stats.opacity_path = path;
  r->stats.opacity_w = ow;
  r->stats.opacity_h = oh;
  r->stats.opacity_fresh = 1;
  r->stats.t_opacity = now_ms() - t0;
  return 0;
}

/* This frame's CUDA writes into GL objects in one mapping (each map and unmap hands the GPU between
 * the two contexts): the point buffers rd_set_particles left pending, and the opacity image op when
 * it is due on the interop path (else NULL). */
static int interop_writes(rd_renderer *r, const rd_ray_params *op, int blur, char *err, size_t errlen) {
  unsigned slots = 0;
  for (int k = 0; k < RD_SLOTS; ++k)
    if (r->pts[k].pending) slots |= 1u << k;
  r->stats.t_interop = 0.0;
  if (!slots && !op) return 0;
  double t0 = now_ms();
  if (rd_gpu_map(r->gpu, slots, op != NULL, err, errlen)) return -1;
  const rd_particles *p = &r->parts;
  int rc = 0;
  for (int k = 0; k < RD_SLOTS && !rc; ++k) {
    point_buf *b = &r->pts[k];
    if (!b->pending) continue;
    b->pending = 0;
    rc = rd_gpu_pack_points(r->gpu, k, p->pos, b->with_alpha ? p->alpha : NULL, b->value, p->real, b->first, b->n, b->count,
                            NULL, err, errlen);
  }
  if (!rc && op) rc = compute_opacity(r, op, blur, RD_PATH_INTEROP, err, errlen);
  if (rd_gpu_unmap(r->gpu, rc ? NULL : err, errlen) && !rc) rc = -1;
  r->stats.t_interop = now_ms() - t0;
  return rc;
}

/* Occupancy of the level-lb cells of the level-L histogram (1: holds a particle), and how many are
 * occupied. A level-lb cell holds the fine cells whose Morton keys share its key as prefix:
 * key >> 3(L - lb). NULL when out of host memory. */
static unsigned char *occupied_cells(const int *bins, int L, int lb, size_t *n) {
  size_t cells = (size_t)1 << (3 * L), coarse = (size_t)1 << (3 * lb);
  int shift = 3 * (L - lb);
  unsigned char *occ = calloc(coarse, 1);
  if (!occ) return NULL;
  for (size_t c = 0; c < cells; ++c)
    if (bins[c] > 0) occ[c >> shift] = 1;
  *n = 0;
  for (size_t c = 0; c < coarse; ++c) *n += occ[c];
  return occ;
}

/* The level-l occupancy in occ becomes level l - 1's, in place (a parent's index is below its
 * children's); returns how many parents are occupied. */
static size_t coarsen_cells(unsigned char *occ, int l) {
  size_t parents = (size_t)1 << (3 * (l - 1)), n = 0;
  for (size_t c = 0; c < parents; ++c) {
    unsigned char any = 0;
    for (int k = 0; k < 8; ++k) any |= occ[8 * c + k];
    occ[c] = any;
    n += any;
  }
  return n;
}

/* The n occupied level-lb cells of occ as box instances (lower corner, side) in the box VBO. */
static int upload_boxes(rd_renderer *r, const unsigned char *occ, int lb, size_t n, char *err, size_t errlen) {
  float *inst = malloc(sizeof(float) * 4 * (n ? n : 1));
  if (!inst) { snprintf(err, errlen, "out of host memory for %zu boxes", n); return -1; }
  double hw = ldexp(r->hist_side, -lb);
  size_t k = 0, coarse = (size_t)1 << (3 * lb);
  for (size_t c = 0; c < coarse; ++c) {
    if (!occ[c]) continue;
    int ix, iy, iz;
    oct_demorton3((uint32_t)c, &ix, &iy, &iz);
    inst[4 * k] = (float)(r->hist_lo[0] + ix * hw);
    inst[4 * k + 1] = (float)(r->hist_lo[1] + iy * hw);
    inst[4 * k + 2] = (float)(r->hist_lo[2] + iz * hw);
    inst[4 * k + 3] = (float)hw;
    ++k;
  }
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo_boxes);
  if (n > r->cap_boxes) {
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 4 * n), inst, GL_DYNAMIC_DRAW);
    r->cap_boxes = n;
  } else if (n) {
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(float) * 4 * n), inst);
  }
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  free(inst);
  r->n_boxes = (int)n;
  return rd_gl_check("uploading the histogram cells", err, errlen);
}

/* The non-empty histogram cells drawn by B: those of level lb (the octree's leaves' level) when
 * they number at most RD_BOXES_MAX, else of the deepest coarser level whose do, so the wireframe
 * outlines the flow instead of filling the screen. Rebuilt when the histogram or lb changes; the
 * level drawn and the count go into the stats for the HUD. */
static int update_boxes(rd_renderer *r, int lb, char *err, size_t errlen) {
  int L = r->hist_levels;
  if (lb < 1 || lb > L) lb = L;
  if (r->boxes_version == r->hist_version && r->boxes_level == lb) return 0;
  r->n_boxes = 0;
  r->boxes_version = r->hist_version;
  r->boxes_level = lb;
  r->stats.boxes_level = 0;
  r->stats.n_boxes = 0;
  if (L > VX_LMAX || lb < 1) return 0;
  if (r->hist_on_device) {
    if (grow((void **)&r->host_bins, &r->cap_host_bins, sizeof(int) * ((size_t)1 << (3 * L)), err, errlen) ||
        rd_gpu_hist_download(r->gpu, r->host_bins, L, err, errlen))
      return -1;
  }
  int l = lb < RD_BOXES_MAX_LEVEL ? lb : RD_BOXES_MAX_LEVEL;
  size_t n = 0;
  unsigned char *occ = occupied_cells(r->host_bins, L, l, &n);
  if (!occ) { snprintf(err, errlen, "out of host memory for the histogram cells"); return -1; }
  for (; n > RD_BOXES_MAX && l > 1; --l) n = coarsen_cells(occ, l);
  int rc = upload_boxes(r, occ, l, n, err, errlen);
  free(occ);
  r->stats.boxes_level = l;
  r->stats.n_boxes = (int)n;
  return rc;
}

/* ------------------------------------------------------------------ drawing */

/* The tracers' colouring (rd_tint) and its tables (colour.c) for the point program in use. */
static void set_tint_uniforms(rd_renderer *r, const rd_style *s) {
  int n;
  const float *pal = rd_colour_table(0, &n);
  glUniform3fv(r->u_pts.palette, n, pal);
  const float *stops = rd_colour_table(1, &n);
  glUniform3fv(r->u_pts.stops, n, stops);
  glUniform1i(r->u_pts.nstops, n);
  glUniform1i(r->u_pts.tint, s->tint);
  glUniform2f(r->u_pts.range, s->value_lo, s->value_hi);
}

/* What the passes of one draw share: the camera's matrices and the pixel scale. */
typedef struct {
  float view[16], proj[16], vp[16];
  float scale;
} draw_view;

/* Before the passes: the opacity image when due (through the frame's one interop mapping, with the
 * pending points, or through the host) and the histogram cells shown. *use_opacity: the composite
 * reads the opacity image. */
static int draw_prepare(rd_renderer *r, const rd_camera *cam, const rd_style *s, int w, int h, int *use_opacity, char *err,
                        size_t errlen) {
  int blur = 0, due = 0;
  rd_ray_params op;
  *use_opacity = s->opacity && r->hist_valid && r->hist_total > 0;
  r->stats.opacity_fresh = 0;
  if (!*use_opacity) {
    r->stats.opacity_path = RD_PATH_NONE;
    r->stats.t_opacity = 0.0;
  } else if (opacity_plan(r, cam, s, w, h, &op, &blur, &due, err, errlen)) {
    return -1;
  }
  rd_path opath = due ? opacity_path(r, s) : RD_PATH_NONE;
  if (interop_writes(r, opath == RD_PATH_INTEROP ? &op : NULL, blur, err, errlen)) return -1;
  if (due && opath != RD_PATH_INTEROP && compute_opacity(r, &op, blur, opath, err, errlen)) return -1;
  if (s->show_boxes && r->hist_valid && update_boxes(r, s->boxes_level, err, errlen)) return -1;
  return 0;
}

/* The GPU time of the passes: the query of two frames ago is read when ready (never waited for);
 * this frame's query begins. Returns its slot. */
static int gpu_timer_begin(rd_renderer *r) {
  int q = (int)(r->frame & 1);
  if (r->query_used[q]) {
    GLint ready = 0;
    glGetQueryObjectiv(r->query[q], GL_QUERY_RESULT_AVAILABLE, &ready);
    if (ready) {
      GLuint64 ns = 0;
      glGetQueryObjectui64v(r->query[q], GL_QUERY_RESULT, &ns);
      r->stats.t_gpu = 1e-6 * (double)ns;
    }
  }
  glBeginQuery(GL_TIME_ELAPSED, r->query[q]);
  return q;
}

/* Pass 1: the tracers, additive, into the HDR target. */
static int draw_points(rd_renderer *r, const rd_camera *cam, const rd_style *s, const draw_view *dv, int w, int h, char *err,
                       size_t errlen) {
  glBindFramebuffer(GL_FRAMEBUFFER, r->hdr_fbo);
  glViewport(0, 0, w, h);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT);
  if (r->pts[RD_SLOT_TRACERS].count > 0) {
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    glUseProgram(r->prog_points);
    glUniformMatrix4fv(r->u_pts.view, 1, GL_FALSE, dv->view);
    glUniformMatrix4fv(r->u_pts.proj, 1, GL_FALSE, dv->proj);
    glUniform1f(r->u_pts.size, s->point_size * dv->scale);
    glUniform1f(r->u_pts.ref_depth, (float)cam->dist);
    glUniform3fv(r->u_pts.color, 1, s->tracer_rgb);
    set_tint_uniforms(r, s);
    /* the same look at any image size: a point covers the same pixels, an image of h pixels has
     * (h/720)^2 times as many as one of 720, so each point adds that much more */
    float res = (float)h / dv->scale / 720.0f;
    glUniform1f(r->u_pts.intensity, s->intensity * res * res);
    glBindVertexArray(r->pts[RD_SLOT_TRACERS].vao);
    glDrawArrays(GL_POINTS, 0, r->pts[RD_SLOT_TRACERS].count);
  }
  return rd_gl_check("the point pass", err, errlen);
}

/* Pass 2: the composite into the output framebuffer fbo. */
static int draw_composite(rd_renderer *r, const rd_style *s, unsigned fbo, int use_opacity, int w, int h, char *err,
                          size_t errlen) {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, w, h);
  glDisable(GL_BLEND);
  glUseProgram(r->prog_composite);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, r->hdr_tex);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, use_opacity ? r->op_tex : r->hdr_tex);
  glUniform1i(r->u_cmp.points, 0);
  glUniform1i(r->u_cmp.opacity, 1);
  glUniform1i(r->u_cmp.use_opacity, use_opacity);
  glUniform1i(r->u_cmp.keep_hue, s->tint != RD_TINT_PLAIN);
  glUniform1f(r->u_cmp.gain, s->gain);
  glUniform1f(r->u_cmp.glow, s->glow);
  glUniform3fv(r->u_cmp.glow_rgb, 1, s->glow_rgb);
  glUniform1f(r->u_cmp.exposure, s->exposure);
  glUniform3fv(r->u_cmp.bg, 1, s->bg_rgb);
  glBindVertexArray(r->vao_empty);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, 0);
  return rd_gl_check("the composite pass", err, errlen);
}

/* Pass 3: the overlays, alpha-blended: histogram cells and the root cube, then the vortex elements. */
static int draw_overlays(rd_renderer *r, const rd_camera *cam, const rd_style *s, const draw_view *dv, char *err,
                         size_t errlen) {
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  if ((s->show_boxes && r->n_boxes > 0) || (s->show_cube && r->hist_valid)) {
    glUseProgram(r->prog_boxes);
    glUniformMatrix4fv(r->u_box.view_proj, 1, GL_FALSE, dv->vp);
    glBindVertexArray(r->vao_boxes);
    if (s->show_boxes && r->n_boxes > 0) {
      glUniform4f(r->u_box.color, 0.45f, 0.85f, 0.55f, 0.22f);
      glDrawArraysInstanced(GL_LINES, 0, 24, r->n_boxes);
    }
    if (s->show_cube && r->hist_valid) {
      glDisableVertexAttribArray(1); /* one box: the instance attribute as a constant */
      glVertexAttrib4f(1, (float)r->hist_lo[0], (float)r->hist_lo[1], (float)r->hist_lo[2], (float)r->hist_side);
      glUniform4f(r->u_box.color, 0.6f, 0.6f, 0.7f, 0.35f);
      glDrawArrays(GL_LINES, 0, 24);
      glEnableVertexAttribArray(1);
    }
  }
  if (s->show_elements && r->pts[RD_SLOT_ELEMENTS].count > 0) {
    glUseProgram(r->prog_elements);
    glUniformMatrix4fv(r->u_el.view, 1, GL_FALSE, dv->view);
    glUniformMatrix4fv(r->u_el.proj, 1, GL_FALSE, dv->proj);
    glUniform1f(r->u_el.size, s->element_size * dv->scale);
    glUniform1f(r->u_el.ref_depth, (float)cam->dist);
    glUniform1f(r->u_el.alpha_ref, r->parts.alpha ? s->alpha_ref : 0.0f);
    int n;
    const float *stops = rd_colour_table(2, &n);
    glUniform3fv(r->u_el.stops, n, stops);
    glUniform1i(r->u_el.nstops, n);
    glBindVertexArray(r->pts[RD_SLOT_ELEMENTS].vao);
    glDrawArrays(GL_POINTS, 0, r->pts[RD_SLOT_ELEMENTS].count);
  }
  return rd_gl_check("the overlay pass", err, errlen);
}

int rd_draw(rd_renderer *r, const rd_camera *cam, const rd_style *s, unsigned fbo, int w, int h, float pixel_scale,
            char *err, size_t errlen) {
  if (w <= 0 || h <= 0) return 0; /* minimised window */
  glGetError(); /* errors of others (UI) are not ours */
  int use_opacity = 0;
  if (ensure_hdr(r, w, h, err, errlen) || draw_prepare(r, cam, s, w, h, &use_opacity, err, errlen)) return -1;
  double t0 = now_ms();
  int q = gpu_timer_begin(r);
  draw_view dv;
  rd_camera_matrices(cam, (double)w / h, dv.view, dv.proj, dv.vp);
  dv.scale = pixel_scale > 0 ? pixel_scale : 1.0f;
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
  glEnable(GL_PROGRAM_POINT_SIZE);
  int rc = draw_points(r, cam, s, &dv, w, h, err, errlen) || draw_composite(r, s, fbo, use_opacity, w, h, err, errlen) ||
                   draw_overlays(r, cam, s, &dv, err, errlen)
               ? -1
               : 0;
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_BLEND);
  glEndQuery(GL_TIME_ELAPSED);
  r->query_used[q] = 1;
  r->frame++;
  r->stats.t_draw = now_ms() - t0;
  return rc || rd_gl_check("ending the draw", err, errlen) ? -1 : 0;
}

int rd_read_opacity(rd_renderer *r, float *out, int *w, int *h, char *err, size_t errlen) {
  if (!r->op_tex || !r->op_valid) { snprintf(err, errlen, "no opacity image drawn yet"); return -1; }
  glBindTexture(GL_TEXTURE_2D, r->op_tex);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_FLOAT, out);
  glBindTexture(GL_TEXTURE_2D, 0);
  *w = r->op_w;
  *h = r->op_h;
  return rd_gl_check("reading the opacity texture", err, errlen);
}
