/* render_iso.c — the isosurface of the field handed by rd_set_field (render.h; e.g. the vortex
 * elements' |ω| on a grid): its triangles made by marching tetrahedra (iso.h) on the host, or by
 * CUDA straight into the registered mesh buffer inside the frame's one interop mapping, or by the
 * host from a device field copied back when interop is unavailable; then drawn lit, with depth,
 * into a target of its own and blended over the picture at the style's opacity, so the dye behind
 * the surface still shows through it. The mesh is made again only when the field or the level
 * changed. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "iso.h"
#include "render_int.h"

#define MESH_START 65536 /* triangles the mesh buffer first holds; it grows to what a surface needs */

int rd_iso_create(rd_renderer *r, char *err, size_t errlen) {
  if (!(r->prog_iso = rd_program_load("iso.vert", "iso.frag", err, errlen)) ||
      !(r->prog_iso_blend = rd_program_load("composite.vert", "iso_blend.frag", err, errlen)))
    return -1;
  r->u_iso.view_proj = glGetUniformLocation(r->prog_iso, "u_view_proj");
  r->u_iso.eye = glGetUniformLocation(r->prog_iso, "u_eye");
  r->u_iso.light = glGetUniformLocation(r->prog_iso, "u_light");
  r->u_iso.rgb = glGetUniformLocation(r->prog_iso, "u_rgb");
  r->u_isob.image = glGetUniformLocation(r->prog_iso_blend, "u_image");
  r->u_isob.opacity = glGetUniformLocation(r->prog_iso_blend, "u_opacity");
  glGenVertexArrays(1, &r->vao_mesh);
  glGenBuffers(1, &r->vbo_mesh);
  glBindVertexArray(r->vao_mesh);
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo_mesh);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, RD_ISO_FLOATS * sizeof(float), (void *)0);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, RD_ISO_FLOATS * sizeof(float), (void *)(3 * sizeof(float)));
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  return rd_gl_check("creating the isosurface's buffers", err, errlen);
}

void rd_iso_destroy(rd_renderer *r) {
  rd_iso_gpu_destroy(r->iso_gpu);
  if (r->vbo_mesh) glDeleteBuffers(1, &r->vbo_mesh);
  if (r->vao_mesh) glDeleteVertexArrays(1, &r->vao_mesh);
  if (r->iso_fbo) glDeleteFramebuffers(1, &r->iso_fbo);
  if (r->iso_tex) glDeleteTextures(1, &r->iso_tex);
  if (r->iso_depth) glDeleteRenderbuffers(1, &r->iso_depth);
  if (r->prog_iso) glDeleteProgram(r->prog_iso);
  if (r->prog_iso_blend) glDeleteProgram(r->prog_iso_blend);
  free(r->host_mesh);
  free(r->host_field);
}

int rd_set_field(rd_renderer *r, const rd_field *f, char *err, size_t errlen) {
  if (f && (f->n < 2 || !(f->side > 0.0) || !f->values)) {
    snprintf(err, errlen, "isosurface field: %d nodes a side over %g, values %s", f->n, f->side, f->values ? "given" : "missing");
    return -1;
  }
  if (f) r->field = *f;
  else memset(&r->field, 0, sizeof r->field);
  r->field_version++;
  return 0;
}

/* The mesh buffer holds at least `tris` triangles; growing it drops its CUDA registration (a
 * registered buffer's storage must not be re-specified), and the interop path registers it again. */
static int reserve_mesh(rd_renderer *r, size_t tris, int want_interop, char *err, size_t errlen) {
  if (tris > r->cap_mesh) {
    if (r->mesh_registered) { rd_gpu_unregister_buffer(r->gpu, RD_BUF_MESH); r->mesh_registered = 0; }
    size_t cap = tris + tris / 2;
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo_mesh);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(cap * 3 * RD_ISO_FLOATS * sizeof(float)), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (rd_gl_check("allocating the isosurface's buffer", err, errlen)) return -1;
    r->cap_mesh = cap;
  }
  if (want_interop && !r->mesh_registered)
    r->mesh_registered = rd_interop_register(r, RD_BUF_MESH, r->vbo_mesh, "the isosurface goes through the host");
  return 0;
}

/* The triangles made on the host from a host field (or a device field copied back), into the mesh
 * buffer; a surface with more triangles than the buffer holds grows it and is made again. */
static int mesh_on_host(rd_renderer *r, float level, char *err, size_t errlen) {
  const rd_field *f = &r->field;
  size_t nodes = (size_t)f->n * f->n * f->n;
  const float *values = f->values;
  if (f->on_device) {
    if (rd_grow((void **)&r->host_field, &r->cap_host_field, nodes * sizeof(float), err, errlen) ||
        rd_gpu_download(r->host_field, f->values, nodes * sizeof(float), err, errlen))
      return -1;
    values = r->host_field;
  }
  long n_tri = 0;
  for (int pass = 0; pass < 2; ++pass) {
    size_t cap = r->cap_mesh ? r->cap_mesh : MESH_START;
    if (rd_grow((void **)&r->host_mesh, &r->cap_host_mesh, cap * 3 * RD_ISO_FLOATS * sizeof(float), err, errlen) ||
        rd_iso_extract_cpu(values, f->n, f->lo, f->side, level, r->host_mesh, (long)cap, &n_tri, err, errlen) ||
        reserve_mesh(r, cap > (size_t)n_tri ? cap : (size_t)n_tri, 0, err, errlen))
      return -1;
    if ((size_t)n_tri <= cap) break;
  }
  r->n_mesh = n_tri;
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo_mesh);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)n_tri * 3 * RD_ISO_FLOATS * sizeof(float)), r->host_mesh);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  r->stats.iso_path = f->on_device ? RD_PATH_COPY : RD_PATH_HOST;
  return rd_gl_check("uploading the isosurface", err, errlen);
}

int rd_iso_prepare(rd_renderer *r, const rd_style *s, char *err, size_t errlen) {
  r->mesh_pending = 0;
  if (!s->show_iso || !r->field.values) {
    r->n_mesh = 0;
    r->stats.n_iso = 0;
    r->stats.t_iso = 0.0;
    r->stats.iso_path = RD_PATH_NONE;
    r->mesh_version = -1; /* shown again: made again */
    return 0;
  }
  float level = s->iso_level * r->field.vmax;
  if (r->mesh_version == r->field_version && r->mesh_level == level) return 0;
  r->mesh_version = r->field_version;
  r->mesh_level = level;
  r->stats.t_iso = 0.0;
  if (r->field.on_device && s->interop && r->gpu && !r->interop_failed) {
    if (!r->iso_gpu && !(r->iso_gpu = rd_iso_gpu_create(err, errlen))) return -1;
    size_t want = r->cap_mesh > r->mesh_need ? r->cap_mesh : r->mesh_need;
    if (reserve_mesh(r, want > MESH_START ? want : MESH_START, 1, err, errlen)) return -1;
    if (r->mesh_registered) {
      r->mesh_pending = 1; /* rd_iso_interop, inside the frame's mapping */
      return 0;
    }
  }
  double t0 = vx_clock_ms();
  int rc = mesh_on_host(r, level, err, errlen);
  r->stats.t_iso = vx_clock_ms() - t0;
  r->stats.n_iso = r->n_mesh;
  return rc;
}

int rd_iso_interop(rd_renderer *r, char *err, size_t errlen) {
  double t0 = vx_clock_ms();
  size_t bytes = 0;
  float *out = (float *)rd_gpu_mapped_buffer(r->gpu, RD_BUF_MESH, &bytes);
  r->mesh_pending = 0;
  if (!out) { snprintf(err, errlen, "the isosurface's buffer is not mapped"); return -1; }
  long cap = (long)(bytes / (3 * RD_ISO_FLOATS * sizeof(float))), n_tri = 0;
  const rd_field *f = &r->field;
  if (rd_iso_extract_gpu(r->iso_gpu, f->values, f->n, f->lo, f->side, r->mesh_level, out, cap, &n_tri, err, errlen)) return -1;
  r->n_mesh = n_tri < cap ? n_tri : cap;
  if (n_tri > cap) { /* the next frame grows the buffer (outside the mapping) and makes the whole surface */
    r->mesh_need = (size_t)n_tri;
    r->mesh_version = -1;
  }
  r->stats.t_iso = vx_clock_ms() - t0;
  r->stats.n_iso = r->n_mesh;
  r->stats.iso_path = RD_PATH_INTEROP;
  return 0;
}

/* The surface's own target: colour (alpha 1 on the surface, 0 elsewhere) and depth, at the frame's size. */
static int ensure_target(rd_renderer *r, int w, int h, char *err, size_t errlen) {
  if (r->iso_fbo && r->iso_w == w && r->iso_h == h) return 0;
  if (!r->iso_fbo) glGenFramebuffers(1, &r->iso_fbo);
  if (!r->iso_tex) glGenTextures(1, &r->iso_tex);
  if (!r->iso_depth) glGenRenderbuffers(1, &r->iso_depth);
  glBindTexture(GL_TEXTURE_2D, r->iso_tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, 0);
  glBindRenderbuffer(GL_RENDERBUFFER, r->iso_depth);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, r->iso_fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->iso_tex, 0);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, r->iso_depth);
  int bad = rd_fbo_check("the isosurface pass (RGBA8 + depth)", err, errlen);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (bad || rd_gl_check("creating the isosurface pass target", err, errlen)) return -1;
  r->iso_w = w;
  r->iso_h = h;
  return 0;
}

/* The surface lit in its own target: a key light above and to the left of the eye, the eye's own
 * direction for the specular highlight and the rim (shaders/iso.frag). */
static void draw_mesh(rd_renderer *r, const rd_camera *cam, const rd_style *s, const rd_draw_view *dv, int w, int h) {
  double eye[3], right[3], up[3], fwd[3];
  rd_camera_basis(cam, eye, right, up, fwd);
  float light[3], n2 = 0.0f;
  for (int k = 0; k < 3; ++k) light[k] = (float)(-fwd[k] + 0.7 * up[k] - 0.5 * right[k]), n2 += light[k] * light[k];
  for (int k = 0; k < 3; ++k) light[k] /= sqrtf(n2);
  glBindFramebuffer(GL_FRAMEBUFFER, r->iso_fbo);
  glViewport(0, 0, w, h);
  glClearColor(0, 0, 0, 0);
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDisable(GL_BLEND);
  glUseProgram(r->prog_iso);
  glUniformMatrix4fv(r->u_iso.view_proj, 1, GL_FALSE, dv->vp);
  glUniform3f(r->u_iso.eye, (float)eye[0], (float)eye[1], (float)eye[2]);
  glUniform3fv(r->u_iso.light, 1, light);
  glUniform3fv(r->u_iso.rgb, 1, s->iso_rgb);
  glBindVertexArray(r->vao_mesh);
  glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(3 * r->n_mesh));
  glDisable(GL_DEPTH_TEST);
}

int rd_iso_draw(rd_renderer *r, const rd_camera *cam, const rd_style *s, const rd_draw_view *dv, unsigned fbo, int w, int h,
                char *err, size_t errlen) {
  if (!s->show_iso || r->n_mesh <= 0) return 0;
  if (ensure_target(r, w, h, err, errlen)) return -1;
  draw_mesh(r, cam, s, dv, w, h);
  if (rd_gl_check("the isosurface pass", err, errlen)) return -1;
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, w, h);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(r->prog_iso_blend);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, r->iso_tex);
  glUniform1i(r->u_isob.image, 0);
  glUniform1f(r->u_isob.opacity, s->iso_opacity);
  glBindVertexArray(r->vao_empty);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindTexture(GL_TEXTURE_2D, 0);
  glDisable(GL_BLEND);
  return rd_gl_check("blending the isosurface over the picture", err, errlen);
}
