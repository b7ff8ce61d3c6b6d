/* vort_grid.h — the vorticity magnitude |ω| of the vortex elements on an n³ grid, each frame, for
 * the renderer's isosurfaces (render/iso.h). The field is the elements' smoothed vorticity
 *
 *   ω(x) = Σ_p α_p ζ(x − x_p),   ζ(x) = (2πσ²)^{-3/2} exp(−|x|²/(2σ²)),
 *
 * the normalised Gaussian whose cumulative is the Gaussian kernel's q (fmm.h, VX_KERNEL_GAUSS). It
 * is computed fast, not summed pair by pair: each α_p is deposited on the nodes with trilinear
 * (cloud-in-cell) weights over the cell volume, the three components are blurred by a separable
 * Gaussian of standard deviation σ truncated at 3σ (none when σ is below half a spacing), and |ω|
 * is taken per node. The deposit adds about dx²/6 to the blob's variance per axis, so σ ≥ 2dx
 * keeps the grid within a few per cent of the exact field (tests/test_vort_grid.c).
 *
 * The grid is the cube over the elements' bounding box padded by 3σ (and two spacings) on each
 * side (vort_grid_t.h, vx_vort_geom_make). Elements are read as the simulation keeps them:
 * xyz-interleaved positions and strengths, float or double, in host memory (the CPU twin,
 * OpenMP) or in CUDA device memory (vort_grid_gpu.cu: the bounding box by a reduction, the deposit
 * by atomics; the cube and the maximum come back together, one wait a call). The CPU twin is
 * deterministic at any thread count; the GPU's atomics sum in no fixed order, so the two agree to
 * float rounding, the cube to the bit. Host code; C11 and C++. */
#ifndef VX_VORT_GRID_H
#define VX_VORT_GRID_H

#include <stddef.h>
#include "fmm.h"
#include "mem.h"
#include "vort_grid_t.h"

VX_EXTERN_C_BEGIN

typedef struct vx_vort_grid vx_vort_grid;

/* Grow-only buffers for grids in host memory, or in device memory when on_device. NULL with err
 * when on_device and no CUDA device is usable (or the build has no CUDA), or out of memory. */
vx_vort_grid *vx_vort_grid_create(int on_device, char *err, size_t errlen);
/* Frees the buffers (NULL: no-op). */
void vx_vort_grid_destroy(vx_vort_grid *g);
/* |ω| on n³ nodes (x fastest, then y, then z; n in VX_VORT_NMIN..VX_VORT_NMAX), host or device as
 * created, of n_elem elements (pos, alpha: 3 n_elem values of prec, in that same memory) smoothed
 * by sigma > 0. *grid is valid until the next call or destroy; the cube is lo + [0, side]^3 with
 * nodes side/(n−1) apart; *vmax the grid's largest value. n_elem = 0: a grid of zeros centred on
 * the origin, vmax 0. 0, or -1 with err (bad arguments, positions not finite, CUDA error). */
int vx_vort_grid_compute(vx_vort_grid *g, vx_precision prec, const void *pos, const void *alpha, int n_elem,
                         double sigma, int n, const float **grid, double lo[3], double *side, float *vmax,
                         char *err, size_t errlen);

/* ---- Shared by the two halves (vort_grid.c, vort_grid_gpu.cu); not for callers. ---- */

/* A grid's buffers, in the memory of its backend: the three component grids (3 n³ floats) and the
 * blur's other three, |ω| (n³), and on the GPU the geometry (a vx_vort_geom) and the bounding
 * box's order keys. */
typedef struct {
  vx_mem comp, tmp, mag, geom, keys;
} vx_vort_bufs;

/* The GPU half of vx_vort_grid_compute after the arguments are checked and b reserved: fills b->mag
 * and the host copy *geom (cube, vmax_bits, bad). A CPU-only build reports the backend unavailable. */
int vx_vort_grid_compute_gpu(vx_vort_bufs *b, vx_precision prec, const void *pos, const void *alpha, int n_elem,
                             double sigma, int n, vx_vort_geom *geom, char *err, size_t errlen);

VX_EXTERN_C_END
#endif
