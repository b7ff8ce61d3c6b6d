/* render_draw.c — one frame's draw passes (render.h, rd_draw):
 *   1. tracers as additive sprites into a float (RGBA16F) target (in a group of processes, summed at the
 *      root: render.h, rd_group);
 *   2. composite into the output framebuffer: points reset by the opacity texture, glow, tone map
 *      (shaders/composite.frag, the design paper §3.2);
 *   3. the isosurface of the field handed in (render_iso.c), lit, blended over the picture;
 *   4. overlays with alpha blending: elements coloured by |α|, the non-empty histogram cells (B;
 *      at most RD_BOXES_MAX of them), cube outline.
 * The GPU time of the passes comes from a timer query read two frames later, never waited for. */
#include <math.h>
#include <stdio.h>

#include "clock.h"
#include "render_int.h"

/* The point pass's RGBA16F target, (re)made at the frame's size. */
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
static int draw_points(rd_renderer *r, const rd_camera *cam, const rd_style *s, const rd_draw_view *dv, int w, int h, char *err,
                       size_t errlen) {
  glBindFramebuffer(GL_FRAMEBUFFER, r->hdr_fbo);
  glViewport(0, 0, w, h);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT);
  if (r->pts[RD_SLOT_TRACERS].count > 0 && s->show_tracers) {
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    glUseProgram(r->prog_points);
    glUniformMatrix4fv(r->u_pts.view, 1, GL_FALSE, dv->view);
    glUniformMatrix4fv(r->u_pts.proj, 1, GL_FALSE, dv->proj);
    glUniform1f(r->u_pts.size, s->point_size * dv->scale);
    glUniform1f(r->u_pts.ref_depth, (float)cam->dist);
    glUniform1f(r->u_pts.depth_cue, s->depth_cue / (RD_DEPTH_SPAN * (float)cam->dist));
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

/* The pixels [x0, x1) x [y0, y1) of a w x h image that this process's particles can reach: its particles'
 * bounding box (box_valid) projected by vp, widened by the largest sprite's radius (points.vert: 64
 * pixels at most); the whole image when the box is unknown or reaches behind the eye. */
static void points_rect(const rd_renderer *r, const float vp[16], int w, int h, double rect[4]) {
  rect[0] = 0, rect[1] = 0, rect[2] = w, rect[3] = h;
  if (!r->box_valid || !(r->box_mn[0] <= r->box_mx[0])) { /* none known, or no particles: the whole image, or nothing */
    if (r->box_valid) rect[0] = w, rect[1] = h, rect[2] = 0, rect[3] = 0;
    return;
  }
  double x0 = w, y0 = h, x1 = 0, y1 = 0;
  for (int k = 0; k < 8; k++) {
    const double p[3] = {k & 1 ? r->box_mx[0] : r->box_mn[0], k & 2 ? r->box_mx[1] : r->box_mn[1], k & 4 ? r->box_mx[2] : r->box_mn[2]};
    double c[4];
    for (int i = 0; i < 4; i++) c[i] = vp[i] * p[0] + vp[4 + i] * p[1] + vp[8 + i] * p[2] + vp[12 + i];
    if (!(c[3] > 1e-9)) return; /* behind the eye: the whole image */
    const double sx = 0.5 * (c[0] / c[3] + 1.0) * w, sy = 0.5 * (c[1] / c[3] + 1.0) * h;
    x0 = fmin(x0, sx), x1 = fmax(x1, sx), y0 = fmin(y0, sy), y1 = fmax(y1, sy);
  }
  const double pad = 33.0;
  rect[0] = fmax(0.0, floor(x0 - pad)), rect[1] = fmax(0.0, floor(y0 - pad));
  rect[2] = fmin((double)w, ceil(x1 + pad)), rect[3] = fmin((double)h, ceil(y1 + pad));
}

/* A group's pass 1: every process's tracer image summed at the root, which takes the sum into its point
 * target (RGBA floats through the host). Only the rectangle any process's particles reach crosses:
 * outside it every image, the root's too, is clear. ok: this process's pass 1 went well. */
static int sum_points(rd_renderer *r, int ok, const float vp[16], int w, int h, char *err, size_t errlen) {
  double rect[4], lo[3], hi[3];
  points_rect(r, vp, w, h, rect);
  lo[0] = rect[0], lo[1] = rect[1], lo[2] = 0.0, hi[0] = rect[2], hi[1] = rect[3], hi[2] = 0.0;
  if (r->group.bounds(r->group.ctx, ok, lo, hi, err, errlen)) return -1; /* the union of every process's */
  const int x0 = (int)lo[0], y0 = (int)lo[1], rw = (int)hi[0] - x0, rh = (int)hi[1] - y0;
  if (rw <= 0 || rh <= 0) return 0; /* no particles anywhere */
  const size_t n = 4 * (size_t)rw * rh;
  ok = rd_grow((void **)&r->host_img, &r->cap_host_img, sizeof(float) * n, err, errlen) == 0;
  if (ok) {
    glBindFramebuffer(GL_FRAMEBUFFER, r->hdr_fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(x0, y0, rw, rh, GL_RGBA, GL_FLOAT, r->host_img);
    ok = rd_gl_check("reading the point pass back", err, errlen) == 0;
  }
  if (r->group.sum_image(r->group.ctx, ok, r->host_img, n, err, errlen)) return -1;
  if (!r->group.root) return 0;
  glBindTexture(GL_TEXTURE_2D, r->hdr_tex);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, x0, y0, rw, rh, GL_RGBA, GL_FLOAT, r->host_img);
  glBindTexture(GL_TEXTURE_2D, 0);
  return rd_gl_check("the summed point pass", err, errlen);
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

/* Pass 4: the overlays, alpha-blended: histogram cells and the root cube, then the vortex elements. */
static int draw_overlays(rd_renderer *r, const rd_camera *cam, const rd_style *s, const rd_draw_view *dv, char *err,
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
  if (ensure_hdr(r, w, h, err, errlen) || rd_prepare_frame(r, cam, s, w, h, &use_opacity, err, errlen)) {
    if (r->grouped) (void)r->group.bounds(r->group.ctx, 0, NULL, NULL, err, errlen); /* the others are told */
    return -1;
  }
  double t0 = vx_clock_ms();
  int q = gpu_timer_begin(r);
  rd_draw_view dv;
  rd_camera_matrices(cam, (double)w / h, dv.view, dv.proj, dv.vp);
  dv.scale = pixel_scale > 0 ? pixel_scale : 1.0f;
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
  glEnable(GL_PROGRAM_POINT_SIZE);
  int rc = draw_points(r, cam, s, &dv, w, h, err, errlen);
  if (r->grouped) rc = sum_points(r, !rc, dv.vp, w, h, err, errlen);
  if (!rc && (!r->grouped || r->group.root)) /* in a group the root alone composes the picture */
    rc = draw_composite(r, s, fbo, use_opacity, w, h, err, errlen) || rd_iso_draw(r, cam, s, &dv, fbo, w, h, err, errlen) ||
                 draw_overlays(r, cam, s, &dv, err, errlen)
             ? -1
             : 0;
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_BLEND);
  glEndQuery(GL_TIME_ELAPSED);
  r->query_used[q] = 1;
  r->frame++;
  r->stats.t_draw = vx_clock_ms() - t0;
  return rc || rd_gl_check("ending the draw", err, errlen) ? -1 : 0;
}
