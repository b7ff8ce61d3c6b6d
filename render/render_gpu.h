/* render_gpu.h — the CUDA half of the renderer (render_gpu.cu), called by render*.c: CUDA–OpenGL
 * interop on the point buffers and the opacity texture (register once; per frame map them all,
 * run the kernels, unmap them all; unregister before the GL object is deleted), the kernels that
 * pack positions into float4 points, bin particles into the histogram and compute the ray-counted
 * opacity (opacity.h), and
 * the device → host copies of the fall-back path. Not a public header (tests use it). In a build
 * without CUDA, render_gpu_none.c supplies versions that report CUDA unavailable. */
#ifndef RD_RENDER_GPU_H
#define RD_RENDER_GPU_H

#include <stddef.h>
#include "opacity.h"
#include "render.h"

VX_EXTERN_C_BEGIN

typedef struct rd_gpu rd_gpu;

/* The registered GL buffers: the two point slots, then the isosurface's triangles (RD_BUF_MESH). */
enum { RD_SLOT_TRACERS = 0, RD_SLOT_ELEMENTS = 1, RD_SLOTS = 2, RD_BUF_MESH = 2, RD_BUFS = 3 };

/* The CUDA device this thread uses (cudaGetDevice; the process's, under mpirun one per rank), -1 without one. */
int rd_gpu_device(void);
/* CUDA state of one renderer; NULL (and a reason in err) when no CUDA device is usable. */
rd_gpu *rd_gpu_create(char *err, size_t errlen);
/* Unregisters whatever is still registered: call while the GL context is current. */
void rd_gpu_destroy(rd_gpu *g);

/* Register GL buffer vbo (float4 points, or the mesh's vertices) for a slot (0 .. RD_BUFS-1), replacing a previous registration.
 * -1 with err when the driver refuses (no interop: Mesa, another GPU, remote display). */
int rd_gpu_register_buffer(rd_gpu *g, int slot, unsigned vbo, char *err, size_t errlen);
void rd_gpu_unregister_buffer(rd_gpu *g, int slot);
/* Register the R32F opacity texture (same rules). */
int rd_gpu_register_texture(rd_gpu *g, unsigned tex, char *err, size_t errlen);
void rd_gpu_unregister_texture(rd_gpu *g);

/* Map the registered point buffers of `slots` (a bit a slot, 1 << RD_SLOT_*) and, with tex, the
 * opacity texture, all in one call, for the CUDA writes below; rd_gpu_unmap unmaps them all in one
 * call (err may be NULL), which orders the GL draws after those writes. Each map and unmap is a
 * hand-over between the CUDA and GL contexts: a frame maps once. 0, or -1 with err (nothing left
 * mapped). */
int rd_gpu_map(rd_gpu *g, unsigned slots, int tex, char *err, size_t errlen);
int rd_gpu_unmap(rd_gpu *g, char *err, size_t errlen);
/* The device address and size in bytes of buffer `slot` while rd_gpu_map has it mapped; NULL when not. */
void *rd_gpu_mapped_buffer(rd_gpu *g, int slot, size_t *bytes);
/* bytes from device memory to the host (the copy paths). 0, or -1 with err. */
int rd_gpu_download(void *host, const void *d_src, size_t bytes, char *err, size_t errlen);

/* Pack m points from device positions into float4 (x, y, z, w): point i is particle
 * first + d_draw[i] when the list d_draw is given, else first + i * n / m (an even subset of n particles); w = |alpha of that particle| when d_alpha is
 * given (particle s = first + k has strength d_alpha[3k..3k+2]), else d_value[k] when d_value is
 * given (a tracer's colour value), else 1. Into the slot's buffer, mapped by rd_gpu_map, when
 * host is NULL, else into host (4m floats) through a device staging buffer. 0, or -1 with err. */
int rd_gpu_pack_points(rd_gpu *g, int slot, const void *d_pos, const void *d_alpha, const float *d_value, const int *d_draw,
                       rd_real real, int first, int n, int m, float *host, char *err, size_t errlen);
/* The sums of n device points' coordinates (a reduction; 24 bytes come back): their centroid times n. */
int rd_gpu_sums(rd_gpu *g, const void *d_pos, rd_real real, int n, double sum[3], char *err, size_t errlen);

/* The bounding box of n device points (48 bytes come back; n = 0: +inf / -inf). 0, or -1 with err. */
int rd_gpu_bounds(rd_gpu *g, const void *d_pos, rd_real real, int n, double mn[3], double mx[3], char *err, size_t errlen);
/* Histogram of n >= 0 device points at `levels` over the cube lo + [0, side]^3 into the renderer's
 * device bins. 0, or -1 with err. */
int rd_gpu_hist_bin(rd_gpu *g, const void *d_pos, rd_real real, int n, int levels, const double lo[3], double side, char *err,
                    size_t errlen);
/* Histogram of n device points at `levels` over the root cube of their bounding box (rd_hist_cube), into the
 * renderer's device bins: rd_gpu_bounds then rd_gpu_hist_bin. 0, or -1 with err. */
int rd_gpu_hist_build(rd_gpu *g, const void *d_pos, rd_real real, int n, int levels, double lo[3], double *side, char *err,
                      size_t errlen);
/* Copy a histogram of 8^levels counts (device or host) into the renderer's device bins. */
int rd_gpu_hist_copy(rd_gpu *g, const int *bins, int on_device, int levels, char *err, size_t errlen);
/* The renderer's device bins to the host (8^levels ints), e.g. for the histogram cells drawn by B. */
int rd_gpu_hist_download(rd_gpu *g, int *host, int levels, char *err, size_t errlen);
/* Total count in the device bins (a reduction; 8 bytes come back). */
int rd_gpu_hist_total(rd_gpu *g, int levels, long long *total, char *err, size_t errlen);

/* Ray counts and box blur (opacity.h) of the device bins for a p->width x p->height image: into
 * the texture, mapped by rd_gpu_map, when host is NULL, else into host (width * height floats).
 * 0, or -1 with err. */
int rd_gpu_opacity(rd_gpu *g, const rd_ray_params *p, int blur, float *host, char *err, size_t errlen);

VX_EXTERN_C_END
#endif
