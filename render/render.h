/* render.h — public API of the render module: OpenGL 3.3 drawing of the particle buffers it is
 * handed, in the look of the design paper (Hu, Gumerov, Duraiswami, "GPU FMM for vortex-ring and
 * particle interactions with live visualization"; docs/MATH.md) §3.2: a fraction of the tracers
 * drawn as additive points, their brightness reset per pixel by an opacity counted along rays
 * through an occupancy histogram of all particles (the engine's own bin[], rd_set_hist, or one
 * binned here at a chosen level, rd_build_hist) and smoothed over neighbouring pixels; optionally
 * the vortex elements coloured by |α|, the non-empty histogram cells and the cube as wireframes.
 *
 * Particles stay where they live: host arrays are uploaded with glBufferSubData; device arrays
 * (CUDA backend) are written straight into registered GL buffers by a kernel (CUDA–OpenGL
 * interop; the buffers and the opacity texture mapped once a frame, together, by rd_draw), with a
 * device → host → GL copy when registration fails. The opacity is computed by
 * a CUDA kernel into a registered GL texture, or by its OpenMP twin (opacity.h holds the shared
 * per-pixel math). The module knows nothing of vortex dynamics.
 *
 *   rd_gl_init(...);                      after a GL context is current (window or rd_headless)
 *   rd_renderer *r = rd_create(err, sizeof err);
 *   per frame: rd_set_particles, rd_build_hist or rd_set_hist, rd_draw(r, &cam, &style, fbo, w, h)
 *   rd_destroy(r);                        while the context is still current */
#ifndef RD_RENDER_H
#define RD_RENDER_H

#include <stddef.h>
#include "camera.h"
#include "hd.h"

VX_EXTERN_C_BEGIN

typedef enum { RD_F64 = 0, RD_F32 = 1 } rd_real;

/* Particles as the simulation keeps them: xyz-interleaved positions of [elements, tracers] and
 * the elements' vector strengths, in double or float, host or device memory; optionally one
 * float per tracer that colours it (rd_style.tint says how). */
typedef struct {
  const void *pos;      /* 3 * (n_elem + n_tracer) */
  const void *alpha;    /* 3 * n_elem (may be NULL: elements drawn in one colour) */
  const float *value;   /* n_tracer, in the same memory as pos (may be NULL: all 0) */
  const int *draw;      /* the tracers drawn (indices from the first tracer), n_draw of them, in the same memory as
                           pos; NULL: the style's fraction of them, an even subset */
  int n_draw;
  int n_elem, n_tracer;
  rd_real real;
  int on_device;        /* 1: CUDA device pointers */
} rd_particles;

/* An occupancy histogram in the layout of fmm_occupancy(): 8^levels counts in Morton order over
 * the cube lo + [0, side]^3. */
typedef struct {
  int levels;
  double lo[3];
  double side;
  const int *bins;
  int on_device;
} rd_hist;

/* How the tracers are coloured: one colour (tracer_rgb); by category, value i taking colour i of
 * rd_category_rgb (e.g. the ring a tracer was seeded around); or by value through the tracer
 * colour map rd_tracer_map_rgb, value_lo .. value_hi spanning it. */
typedef enum { RD_TINT_PLAIN = 0, RD_TINT_CATEGORY = 1, RD_TINT_MAP = 2 } rd_tint;

/* The depth over which the depth cue changes a tracer's colour by the factor e^depth_cue, as a share
 * of the orbit distance: the radius the home view frames at its distance (camera.c: 1.25 r /
 * sin 20°, r = 0.27 of the distance). */
#define RD_DEPTH_SPAN 0.27f

/* How things look; rd_style_default() gives the paper-like defaults. */
typedef struct {
  float fraction;       /* share of the tracers drawn, (0, 1] (paper: 2^14 of 2^18) */
  float point_size;     /* tracer sprite diameter in pixels (times the window's content scale) */
  float intensity;      /* colour one tracer adds in an image 720 pixels high (additive blending, before
                           tone mapping); scaled with the image's pixel count so the look keeps */
  float tracer_rgb[3];
  float depth_cue;      /* near tracers brighter, far ones fainter: a tracer d nearer than the orbit
                           target adds exp(depth_cue·d / (RD_DEPTH_SPAN·orbit distance)) times its colour
                           (0: off), so the near side of a ring reads in front of its far side */
  int tint;             /* rd_tint */
  float value_lo, value_hi; /* RD_TINT_MAP: the values at the ends of the colour map */
  int opacity;          /* 1: ray-counted opacity modulates the points; 0: plain additive points */
  float gain;           /* opacity = 1 - exp(-gain * blurred ray count) */
  float glow;           /* density glow added in proportion to the opacity */
  float glow_rgb[3];
  float bg_rgb[3];
  float exposure;       /* tone map: 1 - exp(-exposure * colour) */
  int samples;          /* k: samples per ray */
  int blur;             /* box blur radius, in opacity pixels (0: none) */
  int downscale;        /* opacity image = framebuffer size / downscale (1..16) */
  int show_elements;
  float element_size;   /* pixels */
  float alpha_ref;      /* |α| at the middle of the element colour map (<= 0: elements all one colour) */
  int show_boxes;       /* wireframe of the non-empty cells of the histogram cube at boxes_level, or of a
                           coarser level when those are too many (rd_stats.boxes_level says which) */
  int boxes_level;      /* 1..histogram level (the octree's finest level: its leaves); 0: the histogram's */
  int show_cube;        /* wireframe of the histogram cube */
  int interop;          /* 1: CUDA–GL interop when the particles are on the device; 0: copy path */
  int show_tracers;     /* 0: the dye is not drawn (nor its opacity): the isosurface alone */
  int show_iso;         /* the isosurface of the field handed by rd_set_field, lit, over the dye */
  float iso_level;      /* its level as a share of the field's maximum, (0, 1) */
  float iso_opacity;    /* how much of the picture behind the surface it covers, (0, 1] */
  float iso_rgb[3];
} rd_style;

rd_style rd_style_default(void);

/* The most histogram cells show_boxes draws: the deepest level at or above boxes_level whose
 * non-empty cells are no more (a few thousand wireframe cubes already hide the flow). */
#define RD_BOXES_MAX 2048

typedef enum { RD_PATH_NONE = 0, RD_PATH_HOST, RD_PATH_INTEROP, RD_PATH_COPY } rd_path;
const char *rd_path_name(rd_path p); /* "-", "host upload", "CUDA-GL interop", "device->host copy" */

/* What the last frame did and cost (host wall-clock ms unless said). */
typedef struct {
  double t_upload;      /* particles into the VBOs */
  double t_hist;        /* histogram built or copied */
  double t_opacity;     /* ray counts + blur into the texture (GPU: until the texture is unmapped) */
  double t_draw;        /* issuing the draw calls */
  double t_interop;     /* interop: the frame's one mapping, map to unmap (the points' packing and the opacity inside) */
  double t_gpu;         /* GL time of the draw passes (timer query; one or two frames late; -1: n/a) */
  rd_path points_path, opacity_path;
  int opacity_fresh;    /* 1: recomputed this frame; 0: the view and histogram did not change (cached) */
  int n_drawn;          /* tracers drawn */
  int hist_levels;      /* L of the histogram in use */
  int boxes_level;      /* level of the histogram cells drawn by show_boxes (capped in count; 0: none) */
  int n_boxes;          /* how many of them */
  int opacity_w, opacity_h;
  double t_iso;         /* the isosurface's triangles made from the field (GPU: until the mapping ends) */
  long n_iso;           /* its triangles drawn */
  rd_path iso_path;     /* how they were made: on the host, by CUDA into the mapped buffer, or via the host */
  char notice[400];     /* last one-line notice (e.g. the interop fall-back), "" if none */
} rd_stats;

typedef struct rd_renderer rd_renderer;

/* One picture drawn by several processes, each of its own particles (rd_set_group): the renderer makes
 * its histogram in the cube of every process's particles and sums its bins over them, and sums the
 * tracers' additive image at the root, which alone composes the picture (a sum does not depend on
 * the order of its terms: the picture is the one a single process would draw, within rounding).
 * Each call is collective: every process makes it, in the same order, with ok 0 where this process
 * failed before it (err then holds why); every process returns -1 when any was not ok (err: its own
 * reason, or that another process failed), else 0 with the result. */
typedef struct {
  void *ctx;
  int root;                                                                    /* 1: this process composes */
  int (*bounds)(void *ctx, int ok, double mn[3], double mx[3], char *err, size_t errlen);   /* min, max over all */
  int (*sum_int)(void *ctx, int ok, int *v, size_t n, char *err, size_t errlen);            /* in place, everywhere */
  int (*sum_double)(void *ctx, int ok, double *v, size_t n, char *err, size_t errlen);      /* in place, everywhere */
  int (*sum_image)(void *ctx, int ok, float *v, size_t n, char *err, size_t errlen);        /* in place at the root */
} rd_group;

/* GLEW and version checks for the current context: OpenGL 3.3 core or newer. is_egl: the context
 * is EGL's (GLEW's GLX part then fails harmlessly). 0, or -1 with a one-line reason naming the
 * version found. */
int rd_gl_init(int is_egl, char *err, size_t errlen);
/* "OpenGL 4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6, 256 bits)" */
void rd_gl_describe(char *out, size_t outlen);
/* 1 when the current context's OpenGL runs on the CPU (Mesa's llvmpipe or softpipe, SwiftShader). */
int rd_gl_software(void);

/* Shaders, buffers, textures; the CUDA side when a device is present. NULL with err on failure
 * (a shader that fails names its file and prints its log). */
rd_renderer *rd_create(char *err, size_t errlen);
void rd_destroy(rd_renderer *r);
/* Draw as one of a group of processes from now on (g copied; NULL: alone again). */
void rd_set_group(rd_renderer *r, const rd_group *g);

/* Hand the particles for the next draws: the tracer subset (style->fraction) and the elements
 * go into the point buffers (host paths: now; interop: packed by the next rd_draw, in the frame's
 * one mapping, so the arrays must stay where they are until then, as for the histogram and the
 * centroid). 0, or -1 with err. */
int rd_set_particles(rd_renderer *r, const rd_particles *p, const rd_style *s, char *err, size_t errlen);
/* Build the histogram from the particles handed last: the root cube of their bounding box (as
 * the fmm octree takes it; in a group, of every process's) at the given level (2..VX_LMAX). 0, or -1
 * with err. */
int rd_build_hist(rd_renderer *r, int levels, char *err, size_t errlen);
/* Use a histogram made elsewhere (e.g. the engine's, fmm_occupancy); it is copied. */
int rd_set_hist(rd_renderer *r, const rd_hist *h, char *err, size_t errlen);

/* A scalar field on the n x n x n nodes of the cube lo + [0, side]^3 (x fastest, then y, then z),
 * in host or device memory, and its maximum: the isosurface's source (e.g. |ω| from vortex/vort_grid.h).
 * It is read by the next rd_draw that shows the surface (so it must stay where it is until then);
 * NULL forgets it. 0, or -1 with err. */
typedef struct {
  const float *values;
  int n;
  double lo[3];
  double side;
  float vmax;
  int on_device;
} rd_field;
int rd_set_field(rd_renderer *r, const rd_field *f, char *err, size_t errlen);

/* Draw one frame into framebuffer fbo (0: the window's) of w x h pixels; pixel_scale multiplies
 * point sizes (HiDPI). 0, or -1 with err (a GL error names the pass). */
int rd_draw(rd_renderer *r, const rd_camera *cam, const rd_style *s, unsigned fbo, int w, int h, float pixel_scale,
            char *err, size_t errlen);
const rd_stats *rd_get_stats(const rd_renderer *r);
/* The element centroid of the particles handed last (host copy on the device path; in a group, of
 * every process's elements). */
int rd_element_centroid(rd_renderer *r, double c[3], char *err, size_t errlen);

/* The opacity image of the last draw as floats (w x h, bottom row first) and its size; for tests. */
int rd_read_opacity(rd_renderer *r, float *out, int *w, int *h, char *err, size_t errlen);

/* ---- colours: one home for the palette and the colour maps, which the shaders receive as
 * uniforms and a UI draws its legends and colour bars with ---- */
#define RD_CATEGORIES 8       /* distinct category colours; category i takes colour i mod 8 */
#define RD_MAP_MAX_STOPS 8    /* control points of a colour map, evenly spaced over [0, 1] */
void rd_category_rgb(int i, float rgb[3]);
/* Tracer map (blue -> cyan -> green -> orange -> red, all bright: on a dark background a low
 * value must not read as few tracers) at s in [0, 1] (clamped). */
void rd_tracer_map_rgb(float s, float rgb[3]);
/* Element map (dark violet -> magenta -> orange -> pale yellow) at s in [0, 1]; elements sit at
 * s = 0.5 |alpha| / alpha_ref, so the map spans |alpha| in [0, 2 alpha_ref]. */
void rd_element_map_rgb(float s, float rgb[3]);
/* The palette (which 0), tracer map (1) or element map (2) as *n rgb triples: what the shaders get. */
const float *rd_colour_table(int which, int *n);

/* ---- headless contexts: EGL (device platform, else Mesa surfaceless, else the default display)
 * with a w x h RGBA8 framebuffer object bound and current ---- */
typedef struct rd_headless rd_headless;
rd_headless *rd_headless_create(int w, int h, char *err, size_t errlen);
void rd_headless_destroy(rd_headless *hl);
unsigned rd_headless_fbo(const rd_headless *hl);
const char *rd_headless_platform(const rd_headless *hl); /* "EGL device platform (device 0)" etc. */

/* ---- pixels (readback.c); the PNG file format itself is io/png_file.h ---- */
/* Read w x h RGB pixels of framebuffer fbo, top row first (image order). 0, or -1 with err. */
int rd_read_pixels(unsigned fbo, int w, int h, unsigned char *rgb, char *err, size_t errlen);
/* rd_read_pixels' image as a PNG file, atomically, at libpng's default level (vx_png_write_level). */
int rd_png_write(const char *path, const unsigned char *rgb, int w, int h, char *err, size_t errlen);

/* ---- the CPU twin of the opacity pass, for the renderer's CPU path and for tests ---- */
struct rd_ray_params;
/* Ray counts of every pixel of a p->width x p->height image (bottom row first) then the box blur
 * of radius `blur`; tmp holds width*height floats. OpenMP. */
void rd_opacity_cpu(const struct rd_ray_params *p, const int *bins, int blur, float *out, float *tmp);
/* The ray parameters of an image of w x h pixels seen by cam through the cube of histogram h
 * (total: number of particles binned, for the 4^L/N scale). */
void rd_ray_params_make(struct rd_ray_params *p, const rd_camera *cam, int w, int h, const rd_hist *hist, long long total,
                        int samples);
/* Histogram of n host points (double or float xyz) at `levels` over the root cube of their
 * bounding box: bins (8^levels ints) zeroed then filled; lo, side out. 0, or -1 with err. */
int rd_hist_build_cpu(const void *pos, rd_real real, int n, int levels, int *bins, double lo[3], double *side, char *err,
                      size_t errlen);
/* Its two halves: the bounding box of n >= 0 host points (n = 0: +inf / -inf), and their histogram in
 * the cube lo + [0, side]^3 (bins zeroed then filled). */
void rd_bounds_cpu(const void *pos, rd_real real, int n, double mn[3], double mx[3]);
void rd_hist_bin_cpu(const void *pos, rd_real real, int n, int levels, const double lo[3], double side, int *bins);
/* The histogram's cube: the root cube of a bounding box as the fmm octree takes it. 0, or -1 with err
 * when the box is not finite. */
int rd_hist_cube(const double mn[3], const double mx[3], double lo[3], double *side, char *err, size_t errlen);

VX_EXTERN_C_END
#endif
