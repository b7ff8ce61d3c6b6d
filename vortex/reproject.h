/* reproject.h — the relaxation of a remeshed flow: the reprojection of the elements' vorticity onto
 * its divergence-free part (docs/MATH.md §9). The stretching of a particle field, and remeshing
 * onto a lattice, leave the strengths a gradient part ∇χ besides the solenoidal vorticity; the
 * velocity does not see it, but the stretching of the next steps does, and the flow's linear impulse
 * drifts with it (two interacting rings on a lattice: 1 % in half a time unit). With the Gaussian
 * core ζ (the normalised Gaussian of σ whose cumulative is the kernel's q), the curl of the smoothed
 * velocity the engine computes is the smoothed solenoidal part alone,
 *
 *   ∇×u_σ = ζ∗ω − ∇(ζ∗χ),
 *
 * so the smoothed gradient part at each element is the difference of the smoothed vorticity
 * Σ_j ζ(x_i − x_j)α_j and ∇×u_σ(x_i). Each relaxation removes the fraction f of it, with the
 * elements' volume v = h³ of the lattice they were remeshed onto:
 *
 *   α_i ← α_i − f v (Σ_{j≠i} ζ(x_i − x_j) α_j + ζ(0)/3 α_i − ∇×u_σ(x_i)).
 *
 * The engine's pairs leave out j = i; the ζ(0)/3 term is the rest of the element's own gradient
 * part (an element's own blob gives ∇×u = 2/3 ζ(0) α at its centre), without which a remeshed ring
 * shows a gradient part of 0.6 % of its strengths where the full expression gives 1.5e-4. Unlike
 * Pedrizzetti's α ← (1−f)α + f v ∇×u_σ it does not smooth the solenoidal part: nothing of the
 * vorticity is spread by σ. The sum runs over the elements within VX_REPROJECT_CUT σ, found by
 * cells of a third of that side, keyed as the lattice's nodes (remesh.h), sorted by (key, index) — a
 * stable radix sort on the GPU, qsort on the CPU — and searched by binary search a column of cells at
 * a time, so both backends sum each element's neighbours in the same order. The conservative correction
 * (conserve.h) restores W and I after it as after any relaxation. Host code; C11 and C++. */
#ifndef VX_REPROJECT_H
#define VX_REPROJECT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "fmm.h"
#include "hd.h"
#include "mem.h"
#include "remesh.h"
#include "stage.h"

VX_EXTERN_C_BEGIN

/* The sum's reach, in σ: √28.5, where ζ is 6.5e-7 of ζ(0) and the Gaussian's mass beyond is 3e-6 of
 * it. Not 5: on the lattices σ = h and σ = 1.5 h a pair of remeshed elements can lie exactly at 5σ,
 * and the device's r² (fused multiply-adds) and the host's then round to either side of the reach. */
#define VX_REPROJECT_CUT 5.338539126015656
/* Cells a reach: cells of side cut/3, whose columns around an element cover the reach's sphere
 * closely (reproject_t.h); the sphere widened by this share for the search alone. */
#define VX_REPROJECT_CELLS 3
#define VX_REPROJECT_MARGIN 1e-6

typedef struct {
  double sigma, cut, inv_cell; /* σ, the reach VX_REPROJECT_CUT σ and 1/cell (VX_REPROJECT_CELLS cells a reach) */
  double zeta0;                /* ζ(0) = (2πσ²)^{-3/2} */
  double f, vol;               /* the fraction removed and the elements' volume h³ */
} vx_reproject_geom;

/* Whether a flow's relaxation is the reprojection: remeshing on (the elements have the lattice's
 * volume) and the Gaussian kernel (ζ is its core); otherwise Pedrizzetti's (stage_t.h). */
static inline int vx_relax_reprojects(int remesh_every, vx_kernel kernel) {
  return remesh_every > 0 && kernel == VX_KERNEL_GAUSS;
}

/* The geometry for smoothing radius sigma, fraction f and lattice spacing h. */
vx_reproject_geom vx_reproject_geom_make(double sigma, double f, double h);

/* The distance from x to the interval [a, b) (0 inside). */
VX_HD static inline double vx_reproject_gap(double x, double a, double b) { return x < a ? a - x : x >= b ? x - b : 0.0; }

/* The first of n ascending keys that is >= key (n when none). */
VX_HD static inline int vx_reproject_lower(const uint64_t *keys, int n, uint64_t key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Scratch of a backend (grow-only): the keys, the order, the changes, CUB's temporary storage. */
typedef struct {
  vx_mem keys, keys2, idx, idx2, delta, tmp;
} vx_reproject_ws;
void vx_reproject_ws_free(vx_reproject_ws *w, int on_device);

/* Reproject the strengths of n elements (pos, alpha: 3n values of prec; grad: 9n, ∇u at the
 * elements from an evaluation of these very positions and strengths), in backend memory: host, or
 * device when on_device. Writes the rms of the change relative to the rms strength to *rel (when
 * given; on the device it costs a read-back, so pass NULL there unless wanted). 0, or -1 with err. */
int vx_reproject(vx_precision prec, int on_device, const void *pos, void *alpha, const void *grad, int n,
                 const vx_reproject_geom *G, vx_reproject_ws *w, double *rel, char *err, size_t errlen);

/* The changes δ alone, host memory (3 nt values of prec in delta; nothing else written): of the nt
 * targets (tpos, talpha, grad) from the ns sources (spos, salpha; the targets themselves, or every
 * process's elements when one flow is spread over processes). 0, or -1 with err. */
int vx_reproject_delta_cpu(vx_precision prec, const void *spos, const void *salpha, int ns, const void *tpos,
                           const void *talpha, const void *grad, int nt, const vx_reproject_geom *G, vx_reproject_ws *w,
                           void *delta, char *err, size_t errlen);
/* The same on the device, the n elements their own sources. 0, or -1 with err. */
int vx_reproject_delta_gpu(vx_precision prec, const void *pos, const void *alpha, const void *grad, int n,
                           const vx_reproject_geom *G, vx_reproject_ws *w, void *delta, char *err, size_t errlen);
/* α −= δ on the device, with the rms ratio |δ|/|α| when rel is given. 0, or -1 with err. */
int vx_reproject_apply_gpu(vx_precision prec, void *alpha, const void *delta, int n, double *rel, char *err,
                           size_t errlen);

#define VX_DOUBLE_INST
#include "real_t.h"
#include "reproject_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "reproject_t.h"
#undef VX_FLOAT_INST

VX_EXTERN_C_END
#endif
