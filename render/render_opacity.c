/* render_opacity.c — the ray-counted opacity image (opacity.h; the design paper §3.2) in its R32F
 * texture: made by CUDA straight into the registered texture, by CUDA through the host, or by the
 * OpenMP twin, and cached while the view, the histogram and the settings stay; the frame's one
 * CUDA–GL interop mapping (the pending point buffers and the opacity together); what a frame
 * prepares before its passes. */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "render_int.h"

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
      rd_notice(r, msg);
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
  double t0 = vx_clock_ms();
  int ow = p->width, oh = p->height;
  size_t bytes = sizeof(float) * (size_t)ow * oh;
  if (path == RD_PATH_INTEROP) {
    if (rd_gpu_opacity(r->gpu, p, blur, NULL, err, errlen)) return -1;
  } else if (path == RD_PATH_COPY) {
    if (rd_grow((void **)&r->host_op, &r->cap_host_op, bytes, err, errlen)) return -1;
    if (rd_gpu_opacity(r->gpu, p, blur, r->host_op, err, errlen)) return -1;
  } else {
    if (rd_grow((void **)&r->host_op, &r->cap_host_op, bytes, err, errlen) ||
        rd_grow((void **)&r->host_tmp, &r->cap_host_tmp, bytes, err, errlen))
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
  r->stats.t_opacity = vx_clock_ms() - t0;
  return 0;
}

/* This frame's CUDA writes into GL objects in one mapping (each map and unmap hands the GPU between
 * the two contexts): the point buffers rd_set_particles left pending, the opacity image op when
 * it is due on the interop path (else NULL), and the isosurface's triangles when rd_iso_prepare left
 * them pending. */
static int interop_writes(rd_renderer *r, const rd_ray_params *op, int blur, char *err, size_t errlen) {
  unsigned slots = 0;
  for (int k = 0; k < RD_SLOTS; ++k)
    if (r->pts[k].pending) slots |= 1u << k;
  if (r->mesh_pending) slots |= 1u << RD_BUF_MESH;
  r->stats.t_interop = 0.0;
  if (!slots && !op) return 0;
  double t0 = vx_clock_ms();
  if (rd_gpu_map(r->gpu, slots, op != NULL, err, errlen)) return -1;
  const rd_particles *p = &r->parts;
  int rc = 0;
  for (int k = 0; k < RD_SLOTS && !rc; ++k) {
    point_buf *b = &r->pts[k];
    if (!b->pending) continue;
    b->pending = 0;
    rc = rd_gpu_pack_points(r->gpu, k, p->pos, b->with_alpha ? p->alpha : NULL, b->value, b->draw, p->real, b->first, b->n,
                            b->count, NULL, err, errlen);
  }
  if (!rc && op) rc = compute_opacity(r, op, blur, RD_PATH_INTEROP, err, errlen);
  if (!rc && r->mesh_pending) rc = rd_iso_interop(r, err, errlen);
  if (rd_gpu_unmap(r->gpu, rc ? NULL : err, errlen) && !rc) rc = -1;
  r->stats.t_interop = vx_clock_ms() - t0;
  return rc;
}

/* Before the passes: the opacity image when due (through the frame's one interop mapping, with the
 * pending points, or through the host) and the histogram cells shown. *use_opacity: the composite
 * reads the opacity image. */
int rd_prepare_frame(rd_renderer *r, const rd_camera *cam, const rd_style *s, int w, int h, int *use_opacity, char *err,
                     size_t errlen) {
  int blur = 0, due = 0;
  rd_ray_params op;
  *use_opacity = s->opacity && s->show_tracers && r->hist_valid && r->hist_total > 0 && (!r->grouped || r->group.root);
  r->stats.opacity_fresh = 0;
  if (!*use_opacity) {
    r->stats.opacity_path = RD_PATH_NONE;
    r->stats.t_opacity = 0.0;
  } else if (opacity_plan(r, cam, s, w, h, &op, &blur, &due, err, errlen)) {
    return -1;
  }
  rd_path opath = due ? opacity_path(r, s) : RD_PATH_NONE;
  if (rd_iso_prepare(r, s, err, errlen)) return -1;
  if (interop_writes(r, opath == RD_PATH_INTEROP ? &op : NULL, blur, err, errlen)) return -1;
  if (due && opath != RD_PATH_INTEROP && compute_opacity(r, &op, blur, opath, err, errlen)) return -1;
  if (s->show_boxes && r->hist_valid && rd_update_boxes(r, s->boxes_level, err, errlen)) return -1;
  return 0;
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
