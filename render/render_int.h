/* render_int.h — the renderer's private state (struct rd_renderer) and the calls between its
 * files; not a public header:
 *   render.c          create / destroy, the style's defaults, notices
 *   render_points.c   particles into the point buffers, the element centroid, the histogram
 *   render_opacity.c  the opacity image (CUDA into a registered texture, CUDA via the host, or the
 *                     host), the frame's one interop mapping, what a frame prepares before drawing
 *   render_boxes.c    the non-empty histogram cells drawn as wireframe boxes
 *   render_iso.c      the isosurface of the field handed in: its triangles, lit, over the picture
 *   render_draw.c     the draw passes: points, composite, isosurface, overlays */
#ifndef RD_RENDER_INT_H
#define RD_RENDER_INT_H

#include <stddef.h>

#include "gl_util.h"
#include "opacity.h"
#include "render.h"
#include "render_gpu.h"

/* One point buffer (a slot: the tracers or the elements) of float4 points. */
typedef struct {
  GLuint vao, vbo;
  size_t cap;          /* points the buffer holds */
  int count;           /* points written last */
  int registered;      /* registered with CUDA */
  /* interop: the packing rd_set_particles asks for, done by the next draw inside its one mapping */
  int pending, first, n, with_alpha;
  const float *value;
  const int *draw;
} point_buf;

/* The renderer: its GL objects and uniforms, the CUDA side, the particles and histogram handed
 * last, the opacity image's cache, the last frame's stats. */
struct rd_renderer {
  GLuint prog_points, prog_elements, prog_composite, prog_boxes;
  struct { GLint view, proj, size, ref_depth, color, intensity, depth_cue, tint, palette, stops, nstops, range; } u_pts;
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

  rd_group group;      /* drawing with other processes (rd_set_group) when grouped */
  int grouped;
  float *host_img;     /* grouped: the tracers' image on its way to the sum (RGBA floats) */
  size_t cap_host_img;
  double box_mn[3], box_mx[3]; /* grouped: the bounds of this process's particles handed last (box_valid) */
  int box_valid;

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

  /* the isosurface (render_iso.c) */
  GLuint prog_iso, prog_iso_blend, vao_mesh, vbo_mesh, iso_fbo, iso_tex, iso_depth;
  struct { GLint view_proj, eye, light, rgb; } u_iso;
  struct { GLint image, opacity; } u_isob;
  int iso_w, iso_h;
  size_t cap_mesh;       /* triangles the mesh buffer holds */
  size_t mesh_need;      /* triangles the last surface made by CUDA had (the buffer grows to it) */
  long n_mesh;           /* triangles in it */
  int mesh_registered;
  int mesh_pending;      /* interop: made by the next draw inside the frame's one mapping */
  rd_field field;        /* handed last (values NULL: none) */
  long long field_version, mesh_version;
  float mesh_level;      /* the absolute level the mesh was made at */
  struct rd_iso_gpu *iso_gpu;
  float *host_mesh, *host_field;
  size_t cap_host_mesh, cap_host_field;

  rd_stats stats;
};

/* What the passes of one draw share: the camera's matrices and the pixel scale. */
typedef struct {
  float view[16], proj[16], vp[16];
  float scale;
} rd_draw_view;

/* *p holds at least `bytes` (grown by realloc, never shrunk). 0, or -1 with err. */
int rd_grow(void **p, size_t *cap, size_t bytes, char *err, size_t errlen);
/* Register GL buffer vbo for interop buffer `slot` (render_gpu.h); when the driver refuses, the renderer
 * stays on its copy paths for good, said once with `fallback`. 1 when registered, else 0. */
int rd_interop_register(rd_renderer *r, int slot, unsigned vbo, const char *fallback);
/* A one-line notice: kept for the HUD (rd_stats.notice) and printed on stderr. */
void rd_notice(rd_renderer *r, const char *msg);

/* Before a frame's passes: the opacity image when due, the pending interop writes, the histogram
 * cells shown (render_opacity.c). *use_opacity: the composite reads the opacity image. 0, or -1. */
int rd_prepare_frame(rd_renderer *r, const rd_camera *cam, const rd_style *s, int w, int h, int *use_opacity, char *err,
                     size_t errlen);
/* The isosurface (render_iso.c): its programs and buffers made (rd_iso_create) and freed; before a
 * frame's mapping, its triangles made now on the host or left pending for the mapping
 * (rd_iso_prepare); inside it, made by CUDA into the mapped buffer (rd_iso_interop); its pass
 * (rd_iso_draw). 0, or -1 with err. */
int rd_iso_create(rd_renderer *r, char *err, size_t errlen);
void rd_iso_destroy(rd_renderer *r);
int rd_iso_prepare(rd_renderer *r, const rd_style *s, char *err, size_t errlen);
int rd_iso_interop(rd_renderer *r, char *err, size_t errlen);
int rd_iso_draw(rd_renderer *r, const rd_camera *cam, const rd_style *s, const rd_draw_view *dv, unsigned fbo, int w, int h,
                char *err, size_t errlen);

/* The box instances of the non-empty cells at level lb or the deepest coarser level with at most
 * RD_BOXES_MAX of them, rebuilt when the histogram or lb changed (render_boxes.c). 0, or -1. */
int rd_update_boxes(rd_renderer *r, int lb, char *err, size_t errlen);

#endif
