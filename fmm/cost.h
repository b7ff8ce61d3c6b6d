/* cost.h — issue 12's cost model, inside the fmm module: the work of each phase of one evaluation
 * at a candidate finest level, read off the occupancy histograms of the points (non-empty boxes,
 * M2L translations and near-field pairs per level, docs/MATH.md §11), times per-phase unit costs
 * (fmm_cost_units, fmm.h) calibrated per backend and precision by `vortexfmm-bench --calibrate`.
 * Not a public header: programs use fmm.h (fmm_cost_*). */
#ifndef VX_COST_H
#define VX_COST_H

#include "fmm.h"
#include "octree.h"

VX_EXTERN_C_BEGIN

/* The deepest level whose dense xyz histograms the model builds (2^21 cells, 8 MiB per array). */
#define FMM_COST_LMAX 7

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

/* Statistics of levels 2..top (top <= FMM_COST_LMAX) of the points in the root cube (lo, side),
 * each point in the cell oct_cell gives it (the tree's own cells). tgt_pos == src_pos with nt == ns
 * counts the one set once. 0, or -1 when out of memory. */
int fmm_cost_stats_build(const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float, const double lo[3],
                         double side, int top, fmm_cost_stats *s);

/* Units of work of each cost term at finest level L (L <= s->top), nt_grad of the targets needing
 * the gradient; the result holds counts, in the fields of fmm_cost_units (order unused). */
fmm_cost_units fmm_cost_work_at(const fmm_cost_stats *s, int L, long long nt_grad);

/* The unit costs in force for a backend and precision (the compiled table, or what fmm_cost_load
 * read); NULL when that backend and precision have no calibration. */
const fmm_cost_units *fmm_cost_table(vx_backend b, vx_precision prec);

/* oct_params.choose_level for the CPU backend (arg: the fmm_ctx): the level in [lo, hi] of least
 * predicted time; 0 (use the leaf-size rule) when there is no table or no memory. */
int fmm_cost_choose_level(const void *arg, const void *src_pos, int ns, const void *tgt_pos, int nt, int pos_float,
                          const double lo[3], double side, int lo_level, int hi_level);

VX_EXTERN_C_END
#endif
