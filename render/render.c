/* render.c — the renderer's life (render.h): its shader programs, vertex arrays and buffers made
 * and freed, the style's defaults, the stats and notices. The frame's work lives beside it:
 * render_points.c (particles, histogram), render_opacity.c (the ray-counted opacity image),
 * render_boxes.c (histogram cells), render_draw.c (the passes); render_int.h lists them.
 * Device particles go through CUDA–GL interop (render_gpu.cu) and fall back, with a one-line
 * notice, to a device → host → glBufferSubData copy when the driver refuses to register. */
#include "render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

int rd_grow(void **p, size_t *cap, size_t bytes, char *err, size_t errlen) {
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
  s.depth_cue = 0.5f;
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
  s.show_tracers = 1;
  s.show_iso = 0;
  s.iso_level = 0.3f;
  s.iso_opacity = 0.6f;
  s.iso_rgb[0] = 1.0f; s.iso_rgb[1] = 0.55f; s.iso_rgb[2] = 0.28f;
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

void rd_notice(rd_renderer *r, const char *msg) {
  snprintf(r->stats.notice, sizeof r->stats.notice, "%.255s", msg);
  fprintf(stderr, "vortexfmm: %s\n", msg);
}

int rd_interop_register(rd_renderer *r, int slot, unsigned vbo, const char *fallback) {
  char gerr[256], msg[512];
  if (!r->gpu || r->interop_failed) return 0;
  if (rd_gpu_register_buffer(r->gpu, slot, vbo, gerr, sizeof gerr) == 0) return 1;
  r->interop_failed = 1;
  snprintf(msg, sizeof msg, "CUDA-GL interop unavailable (%.200s); %.200s", gerr, fallback);
  rd_notice(r, msg);
  return 0;
}

/* A point buffer's vertex array: one float4 attribute (x, y, z, w). */
static void point_vao(point_buf *b) {
  glGenVertexArrays(1, &b->vao);
  glGenBuffers(1, &b->vbo);
  glBindVertexArray(b->vao);
  glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void *)0);
  glBindVertexArray(0);
}

/* The uniforms' locations in the four programs. */
static void find_uniforms(rd_renderer *r) {
  GLuint p = r->prog_points;
  r->u_pts.view = glGetUniformLocation(p, "u_view");
  r->u_pts.proj = glGetUniformLocation(p, "u_proj");
  r->u_pts.size = glGetUniformLocation(p, "u_size");
  r->u_pts.ref_depth = glGetUniformLocation(p, "u_ref_depth");
  r->u_pts.color = glGetUniformLocation(p, "u_color");
  r->u_pts.intensity = glGetUniformLocation(p, "u_intensity");
  r->u_pts.depth_cue = glGetUniformLocation(p, "u_depth_cue");
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
}

/* The boxes' vertex array: the unit cube's edges, and one instance (corner, side) per box. */
static void box_vao(rd_renderer *r) {
  /* the 12 edges of the unit cube as 24 line vertices */
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
  find_uniforms(r);
  for (int s = 0; s < RD_SLOTS; ++s) point_vao(&r->pts[s]);
  glGenVertexArrays(1, &r->vao_empty); /* the composite's full-screen triangle needs no attributes */
  box_vao(r);
  glGenQueries(2, r->query);
  if (rd_iso_create(r, err, errlen)) {
    rd_destroy(r);
    return NULL;
  }
  if (rd_gl_check("creating the renderer's buffers", err, errlen)) {
    rd_destroy(r);
    return NULL;
  }
  char gerr[256];
  r->gpu = rd_gpu_create(gerr, sizeof gerr); /* NULL without CUDA: host paths only */
  return r;
}

void rd_set_group(rd_renderer *r, const rd_group *g) {
  r->grouped = g != NULL;
  if (g) r->group = *g;
  r->hist_valid = 0; /* the next histogram is made anew, over the group or alone */
}

void rd_destroy(rd_renderer *r) {
  if (!r) return;
  /* CUDA registrations go before the GL objects they refer to */
  rd_gpu_destroy(r->gpu);
  rd_iso_destroy(r);
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
  free(r->host_img);
  free(r);
}
