/* halo.h — the near field's share of the locally essential tree (Yokota & Barba, paper 002; Lashuk et
 * al., paper 004): a rank's targets need as particles the sources in the leaves within `reach`
 * leaves of their own (Chebyshev distance at the octree's finest level L: 1 for the adjacent leaves,
 * more where the regularization's cut-off r_c reaches further). Each rank sends a copy of a particle
 * to every other rank whose key range holds a cell within reach of the particle's leaf, so a rank
 * receives every remote source its targets need, and more only where its range holds empty cells.
 * The key ranges are the ranks' partition (vx_part_ranges), or the spans of their targets' keys as
 * they are (the distributed evaluation's: points that moved off their rank's range since the
 * partition are still served, the ranges then overlapping). Collective where said; 0, or -1 with the
 * reason in err on every rank. */
#ifndef VX_HALO_H
#define VX_HALO_H

#include "partition.h"

/* ranges[2r], ranges[2r + 1]: the least and the greatest level-10 key (partition.h) of rank r's range,
 * both included; an empty range has its least above its greatest. */

/* Not collective: the destinations of the level-L cells c0..c1 (Morton keys), cell c0 + j's at
 * pool[off[j] .. off[j] + cnt[j]) (the three malloc'ed; *n_pool entries): every other rank whose key range
 * holds a cell within reach of it. 0, or -1 out of memory. */
int vx_halo_cells(const vx_comm *c, const uint32_t *ranges, int L, int reach, uint32_t c0, uint32_t c1, int **off,
                  int **cnt, int **pool, int *n_pool);
/* Not collective: the destinations of n particles of keys `keys` (level-10, partition.h) as vx_halo_exchange
 * sends them, particle i's at dest[start[i] .. start[i+1]) (both malloc'ed). 0, or -1 out of memory. */
int vx_halo_dests(const vx_comm *c, const uint32_t *ranges, int L, int reach, const uint32_t *keys, int n, int **start,
                  int **dest);
/* pos: 3n doubles, particle i of record i (rec_bytes each). *out (malloc'ed) receives *nout copies of
 * other ranks' records, rank 0's first, each rank's in its order. 2 <= L <= 10, reach >= 1. */
int vx_halo_exchange(const vx_comm *c, const uint32_t *ranges, const vx_part_cube *cube, int L, int reach,
                     const double *pos, int n, const void *rec, size_t rec_bytes, void **out, int *nout, char *err,
                     size_t errlen);

#endif
