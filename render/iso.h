/* iso.h — isosurfaces of a scalar grid (the vorticity magnitude of vortex/vort_grid.h) as triangles
 * for the renderer: marching tetrahedra over an n³ float grid (x fastest, then y, then z) on the
 * cube lo + [0, side]³, nodes side/(n−1) apart; iso_t.h has the method and its conventions.
 *
 * Output: triangles of three vertices of RD_ISO_FLOATS floats (position xyz in world units, then
 * the unit normal xyz = −∇f/|∇f|, pointing to decreasing f), wound counter-clockwise seen from the
 * side where f < level. The order is fixed and the same on both backends: cells in node order
 * (x fastest), within a cell its six tetrahedra in order; each backend counts the triangles of
 * every cell, scans the counts and writes each cell's at its offset (the GPU with CUB's
 * DeviceScan). The CUDA kernels (iso_gpu.cu) round as the CPU twin (iso_cpu.c, OpenMP) does, so
 * the two give the same triangles (tests/gpu_test_iso.c). A build without CUDA has iso_gpu_none.c,
 * whose GPU calls report the backend unavailable.
 *
 *   float level = frac * vmax;
 *   long n_tri;
 *   rd_iso_extract_gpu(iso, d_grid, n, lo, side, level, d_vbo, cap, &n_tri, err, sizeof err);
 *   draw min(n_tri, cap) triangles; grow the buffer when n_tri > cap. */
#ifndef RD_ISO_H
#define RD_ISO_H

#include <stddef.h>
#include "iso_t.h"

VX_EXTERN_C_BEGIN

/* Nodes a side the extraction accepts (the GPU's counts are 32-bit: 12 (n−1)³ < 2^32). */
#define RD_ISO_NMIN 2
#define RD_ISO_NMAX 512

/* CPU (OpenMP): f a host n³ grid; out room for cap triangles (cap * 3 * RD_ISO_FLOATS floats);
 * *n_tri = triangles of the whole surface (may exceed cap: then only the first cap, in cell
 * order, are written). 0, or -1 with err. */
int rd_iso_extract_cpu(const float *f, int n, const double lo[3], double side, float level, float *out, long cap,
                       long *n_tri, char *err, size_t errlen);

/* Device scratch of the GPU extraction: counts and offsets per cell, CUB's temporary storage;
 * grow-only. */
typedef struct rd_iso_gpu rd_iso_gpu;
/* NULL with err when no CUDA device is usable (or the build has no CUDA). */
rd_iso_gpu *rd_iso_gpu_create(char *err, size_t errlen);
/* Frees the scratch (NULL: no-op). */
void rd_iso_gpu_destroy(rd_iso_gpu *g);
/* The same on the device: d_f and d_out device pointers (d_out may be a mapped GL buffer); the
 * same triangles in the same order as the CPU twin. Queued on the default stream; returns after
 * the count comes back (4 bytes), with the triangles written. 0, or -1 with err. */
int rd_iso_extract_gpu(rd_iso_gpu *g, const float *d_f, int n, const double lo[3], double side, float level,
                       float *d_out, long cap, long *n_tri, char *err, size_t errlen);

/* The arguments both backends accept: 0, or -1 with err (iso_cpu.c). */
int rd_iso_check(const void *f, int n, double side, float level, const void *out, long cap, char *err, size_t errlen);

VX_EXTERN_C_END
#endif
