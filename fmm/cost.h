/* cost.h — the FMM's cost model, inside the fmm module: the work of each phase of one evaluation
 * at a candidate finest level, read off the occupancy histograms of the points (non-empty boxes,
 * M2L translations and near-field pairs per level, docs/MATH.md §11), times per-phase unit costs
 * (fmm_cost_units, fmm.h) calibrated per backend and precision by `vortexfmm-bench --calibrate`.
 * Both backends choose through fmm_cost_pick_level: the CPU from host histograms
 * (fmm_cost_stats_build), the GPU from the same counts computed on the device (fmm/cost_gpu.cu).
 * Shared with .cu files: compiles as C11 and C++. Not a public header: programs use fmm.h. */
#ifndef VX_COST_H
#define VX_COST_H

#include "fmm.h"
#include "octree.h"

#include <stddef.h>

VX_EXTERN_C_BEGIN

/* What the histograms give, per level l = 2..top (the candidate's finest level L uses levels <= L). */
typedef struct {
  int top;                              /* deepest level with statistics */
  long long ns, nt;                     /* sources and targets */
  long long nsrc[VX_LMAX + 1];          /* non-empty source boxes at level l */
  long long ntgt[VX_LMAX + 1];          /* non-empty target boxes */
  long long m2l[VX_LMAX + 1];           /* M2L translations at level l (oct_tree.il sizes) */
  long long p2p[VX_LMAX + 1];           /* near-field pairs when l is the finest level:
                                           Σ over target leaves of count × Σ adjacent source counts */
  long long nbr[VX_LMAX + 1];           /* (target leaf, adjacent source leaf) entries when l is finest */
} fmm_cost_stats;

/* ---- Per-cell terms of the statistics: one home for the host builds and the device kernels
 * (fmm/cost_gpu.cu). Dense grids of m³ counts, x fastest: cell (x, y, z) at (z·m + y)·m + x. */

/* The grid index of point i's cell at level l (oct_cell: the tree's own cells). */
VX_HD static inline size_t fmm_cost_cell_of(const void *pos, int pos_float, size_t i, const double lo[3], double inv_side,
                                            int l) {
  double x[3];
  for (int k = 0; k < 3; k++)
    x[k] = pos_float ? (double)((const float *)pos)[3 * i + k] : ((const double *)pos)[3 * i + k];
  const size_t m = (size_t)1 << l;
  return ((size_t)oct_cell(x[2], lo[2], inv_side, l) * m + oct_cell(x[1], lo[1], inv_side, l)) * m +
         oct_cell(x[0], lo[0], inv_side, l);
}

/* Σ over the 3×3×3 cells around (x, y, z) inside the m³ grid of a[c], or of (a[c] > 0) when
 * nonempty is set. */
VX_HD static inline long long fmm_cost_sum27(const int *a, int m, int x, int y, int z, int nonempty) {
  long long s = 0;
  for (int dz = z > 0 ? -1 : 0; dz <= (z + 1 < m ? 1 : 0); dz++)
    for (int dy = y > 0 ? -1 : 0; dy <= (y + 1 < m ? 1 : 0); dy++)
      for (int dx = x > 0 ? -1 : 0; dx <= (x + 1 < m ? 1 : 0); dx++) {
        const int v = a[((size_t)(z + dz) * m + (y + dy)) * m + (x + dx)];
        s += nonempty ? v > 0 : v;
      }
  return s;
}

/* Σ over the 8 children in the m³ grid a of the (m/2)³ cell (x, y, z) of a[c], or of (a[c] > 0). */
VX_HD static inline int fmm_cost_children(const int *a, int m, int x, int y, int z, int nonempty) {
  int s = 0;
  for (int q = 0; q < 8; q++) {
    const int v = a[((size_t)(2 * z + (q >> 2)) * m + 2 * y + ((q >> 1) & 1)) * m + 2 * x + (q & 1)];
    s += nonempty ? v > 0 : v;
  }
  return s;
}

/* What cell (x, y, z) of level l (an m³ grid of source counts S and target counts T) adds to the
 * level's statistics: acc[0] non-empty source boxes, [1] non-empty target boxes, [2] near-field
 * pairs (T × the sources of the 27 cells around), [3] neighbour entries (the non-empty source cells
 * among the 27 around a non-empty target cell). */
VX_HD static inline void fmm_cost_cell_fine(const int *S, const int *T, int m, int x, int y, int z, long long acc[4]) {
  const size_t c = ((size_t)z * m + y) * m + x;
  acc[0] += S[c] > 0, acc[1] += T[c] > 0;
  if (T[c] > 0) {
    acc[2] += (long long)T[c] * fmm_cost_sum27(S, m, x, y, z, 0);
    acc[3] += fmm_cost_sum27(S, m, x, y, z, 1);
  }
}

/* What parent cell (x, y, z) (an (m/2)³ grid) adds to level l's M2L count before the neighbours are
 * taken off (fmm_cost_stats_build): its non-empty target children × the non-empty source children
 * of the 27 parents around it, read off the level-l grids S and T. */
VX_HD static inline long long fmm_cost_cell_far(const int *S, const int *T, int m, int x, int y, int z) {
  const int ct = fmm_cost_children(T, m, x, y, z, 1), h = m / 2;
  if (ct == 0) return 0;
  long long cs = 0;
  for (int dz = z > 0 ? -1 : 0; dz <= (z + 1 < h ? 1 : 0); dz++)
    for (int dy = y > 0 ? -1 : 0; dy <= (y + 1 < h ? 1 : 0); dy++)
      for (int dx = x > 0 ? -1 : 0; dx <= (x + 1 < h ? 1 : 0); dx++) cs += fmm_cost_children(S, m, x + dx, y + dy, z + dz, 1);
  return (long long)ct * cs;
}

/* Statistics of levels 2..top (top <= FMM_COST_LMAX) of the points in the root cube (lo, side),
 * each point in the cell oct_cell gives it (the tree's own cells). tgt_pos == src_pos with nt == ns
 * counts the one set once. 0, or -1 when out of memory. */
int fmm_cost_stats_build(const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float, const double lo[3],
                         double side, int top, fmm_cost_stats *s);

/* Units of work of each cost term at finest level L (L <= s->top), nt_grad of the targets needing
 * the gradient; the result holds counts, in the fields of fmm_cost_units (order unused). */
fmm_cost_units fmm_cost_work_at(const fmm_cost_stats *s, int L, long long nt_grad);

/* How many times the tables in force have changed (fmm_cost_set, fmm_cost_load). */
unsigned fmm_cost_generation(void);

/* The unit costs in force for a backend and precision (the compiled table, or what fmm_cost_load
 * read); NULL when that backend and precision have no calibration. */
const fmm_cost_units *fmm_cost_table(vx_backend b, vx_precision prec);

/* The level in [lo_level, hi_level] (within 2..s->top) of least predicted time with the unit costs
 * u at order p, nt_grad of the targets needing the gradient; its predicted ms into *t_ms when not
 * NULL. 0 when the range is empty. The one home of the choice: both backends come here. */
int fmm_cost_pick_level(const fmm_cost_units *u, int p, const fmm_cost_stats *s, long long nt_grad, int lo_level,
                        int hi_level, double *t_ms);

/* The context's choice (its backend's and precision's table, order and gradient setting) among the
 * candidates [lo_level, hi_level] from the statistics s (which reach s->top); 0 (keep the leaf-size
 * rule) when that backend and precision have no table, or when the choice is s->top while deeper
 * candidates were asked (the edge of what the model sees). */
int fmm_cost_best_level(const fmm_ctx *ctx, const fmm_cost_stats *s, int lo_level, int hi_level);

/* oct_params.choose_level for the CPU backend (arg: the fmm_ctx): the level in [lo, hi] of least
 * predicted time; 0 (use the leaf-size rule) when there is no table or no memory. */
int fmm_cost_choose_level(const void *arg, const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float,
                          const double lo[3], double side, int lo_level, int hi_level);

#ifdef VX_HAVE_CUDA
/* ---- The CUDA backend (fmm/cost_gpu.cu): the same statistics from device positions, only the
 * per-level counts coming back to the host. */

/* Grown device buffers of the statistics, one per CUDA context (fmm_ctx.cost_gpu). */
typedef struct fmm_cost_gpu fmm_cost_gpu;
fmm_cost_gpu *fmm_cost_gpu_create(void);
void fmm_cost_gpu_destroy(fmm_cost_gpu *g);
/* The kept choice dropped (fmm_forget_level_choice). */
void fmm_cost_gpu_forget(fmm_cost_gpu *g);

/* fmm_cost_stats_build on device positions (d_src_pos, d_tgt_pos), queued on `stream` (a
 * cudaStream_t) and waited for: equal to the host build, count for count. 0, or -1 with the reason
 * in err (out of device memory, CUDA error). */
int fmm_cost_stats_build_gpu(fmm_cost_gpu *g, const void *d_src_pos, int ns, const void *d_tgt_pos, int nt, int pos_float,
                             const double lo[3], double side, int top, void *stream, fmm_cost_stats *s, char *err,
                             size_t errlen);

/* oct_params.choose_level_dev for the CUDA backend (arg: the fmm_ctx): fmm_cost_best_level on the
 * device statistics; 0 to keep the leaf-size rule, -1 on a CUDA error (reason in err). The choice is
 * kept for FMM_COST_KEEP_BUILDS builds while the point counts, the candidates, the root cube's side
 * (within 1 %), the order, the gradient setting and the tables stay: a statistics pass costs a small
 * evaluation a fifth of its time (2^15 points: 0.15 ms of 0.8), and a simulation's builds follow each
 * other on nearly the same points. */
#define FMM_COST_KEEP_BUILDS 16
int fmm_cost_choose_level_gpu(const void *arg, const void *d_src_pos, int ns, const void *d_tgt_pos, int nt, int pos_float,
                              const double lo[3], double side, int lo_level, int hi_level, void *stream, char *err,
                              size_t errlen);
#endif

VX_EXTERN_C_END
#endif
