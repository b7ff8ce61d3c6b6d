/* engine.h — the distributed FMM (Yokota & Barba, paper 002; Lashuk et al., paper 004). Each rank holds
 * the sources and targets of its key range (partition.h) and gets for its targets the velocities and
 * gradients that one evaluation of every rank's points gives, to round-off:
 *   - the tree is the global one: the root cube of all points (vx_part_cube_all) and the finest level the
 *     leaf-size rule picks from every rank's counts (octree.h, oct_level_first and oct_level_accept);
 *   - the far field of the coarse levels 2..Lc comes from the global tree's multipoles there: each rank's
 *     own sources' dense multipoles (fmm_part_multipoles), summed over the ranks by one all-reduce — the
 *     all-gathered coarse tree of Cornerstone and Ryoanji;
 *   - the deeper levels, the near field and the regularisation's corrections come from the rank's own
 *     sources and its halo (halo.h): every remote source whose level-Lh box is adjacent to a level-Lh
 *     box of the rank's key range, Lh = min(Lc, the corrections' level), so that it holds every source
 *     box that the rank's deeper interaction lists, neighbour lists and corrections reach (two boxes
 *     adjacent at a level have adjacent ancestors at every coarser one).
 * The engine's other level rules (the cost model) and its direct-sum choice do not apply on two ranks or
 * more; one rank evaluates its points as the engine alone does (nothing to exchange). */
#ifndef VX_DIST_ENGINE_H
#define VX_DIST_ENGINE_H

#include "fmm.h"
#include "partition.h"

/* The deepest level of the dense far field by default over R ranks: 3 (8^3 cells, 0.6 MB of multipoles at
 * p = 8 in float a reduction) up to VX_DIST_LC3_RANKS ranks, 4 (8^4 cells, 4.5 MB) beyond; the levels below
 * it take their sources from the halo, whose boxes are that level's. On two GPUs level 3 evaluates 2^24 and
 * 2^25 points as fast as level 4 and a simulation's small calls twice as fast (docs/BENCHMARKS.md, "Several
 * GPUs"); the more ranks share the level's 512 cells, the more of them lie on a share's surface, and level 4
 * keeps the halo a layer of smaller boxes. */
#define VX_DIST_LC3_RANKS 4
static inline int vx_dist_lc(int ranks) { return ranks <= VX_DIST_LC3_RANKS ? 3 : 4; }

typedef struct {
  int L, Lc, Lh;                   /* the finest level, the dense far field's deepest, the halo's level */
  long long n_halo;                /* remote sources received */
  double t_level, t_halo, t_coarse, t_local; /* ms: the global level, the halo, the dense far field, the rest */
  double t_halo_list, t_halo_pack, t_halo_send, t_halo_place; /* the halo's ms: its destinations, the records
                                                                 gathered, exchanged, and placed after the own */
} vx_dist_stats;

/* The distributed engine of one rank: the communicator, the engine it evaluates with (its parameters,
 * backend and precision; the caller keeps it), and buffers kept between evaluations. NULL with err when
 * out of memory. Not collective. */
typedef struct vx_dist_engine vx_dist_engine;
vx_dist_engine *vx_dist_create(const vx_comm *c, fmm_ctx *ctx, char *err, size_t errlen);
void vx_dist_destroy(vx_dist_engine *d);

/* Collective. io: this rank's sources and targets in the engine's precision, host arrays or, with the CUDA
 * backend, device arrays (on_device: only keys and the halo cross to the host), anywhere in the cube, which
 * holds every rank's points. The halo follows the span of each rank's targets' keys, so points that moved
 * off the partition (vx_part_migrate) since it was made, as a time step's stages move them, are served as
 * they are; the partition keeps those spans disjoint and the halo small. The results go to io's vel and
 * grad. Lc_max: the dense far field's deepest level (0: vx_dist_lc; at most the finest level). 0, or -1
 * with err on every rank. */
int vx_dist_evaluate(vx_dist_engine *d, const vx_part_cube *cube, int Lc_max, const fmm_io *io,
                     fmm_stats *st, vx_dist_stats *ds, char *err, size_t errlen);

/* The non-empty level-l cells of every rank's n level-10 keys (host keys, or device keys d_keys with keys NULL), as
 * the global level counts them: exactly for l <= 8 whether or not the ranks' spans overlap. Collective. 0, or -1
 * with err on every rank. */
int vx_dist_occupied(vx_dist_engine *d, const uint32_t *keys, const uint32_t *d_keys, int n, int l, long long *out, char *err,
                     size_t errlen);

#endif
