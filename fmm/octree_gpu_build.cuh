/* octree_gpu_build.cuh — what the octree_gpu*.cu files share while building one GPU octree: the
 * launch constants, the grown workspace behind oct_tree_gpu.ws, the counters that come back to the
 * host, the state of one oct_build_gpu call, and the steps each file contributes. Private to those
 * files; callers use octree_gpu.h.
 *
 *   octree_gpu.cu         the driver: workspace, the steps in order, the tree exposed, free, download
 *   octree_gpu_keys.cu    bounding box, Morton keys and the occupancy histogram (the pseudo-sort),
 *                         the level trials
 *   octree_gpu_levels.cu  leaves (scan, scatter, per-leaf sort) and the coarser levels
 *   octree_gpu_lists.cu   neighbour and interaction lists (count, scan, fill) */
#ifndef VX_OCTREE_GPU_BUILD_CUH
#define VX_OCTREE_GPU_BUILD_CUH

#include "octree_gpu.h"

#include "cuda_check.h"

#include <cub/device/device_scan.cuh>

/* Threads per block of every kernel of the build. */
#define OCT_THREADS 256
#define OCT_WARPS (OCT_THREADS / 32)
/* Leaves up to this long are sorted by one warp in shared memory (rank = number of smaller
 * indices: O(m^2/32) per lane); up to OCT_LEAF_BLOCK_MAX by one block (cub::BlockRadixSort in shared
 * memory: the tracers' leaves of a scene); longer ones (clusters, capped levels) by
 * cub::DeviceSegmentedSort. */
#define OCT_LEAF_WARP_MAX 256
#define OCT_LEAF_BLOCK_ITEMS 16
#define OCT_LEAF_BLOCK_MAX (OCT_THREADS * OCT_LEAF_BLOCK_ITEMS)
/* Levels with at most OCT_THREADS * OCT_SMALL_ITEMS cells (8^4) are built by one block. */
#define OCT_SMALL_ITEMS 16
#define OCT_SMALL_CELLS (OCT_THREADS * OCT_SMALL_ITEMS)
#define OCT_SMALL_LEVEL 4
#define OCT_BOUNDS_BLOCKS 1024
/* Longest interaction list: the 6x6x6 children of the parent's neighbourhood less the 27 adjacent. */
#define OCT_IL_MAX 189
static_assert(OCT_SMALL_CELLS == 1 << (3 * OCT_SMALL_LEVEL), "one block covers the cells of OCT_SMALL_LEVEL");

typedef unsigned long long u64;

/* The small facts that come back to the host (one pinned copy). */
typedef struct {
  double mn[3], mx[3];
  int bad[2];                /* first source / target index with a non-finite coordinate, INT_MAX if none */
  int occ[2];                /* non-empty cells of the (up to two) trial levels */
  int nbox[2][VX_LMAX + 1];  /* [0]: sources, [1]: targets */
  int nlong[2];              /* leaves longer than OCT_LEAF_WARP_MAX, up to OCT_LEAF_BLOCK_MAX */
  int nhuge[2];              /* leaves longer than OCT_LEAF_BLOCK_MAX */
  int tot_nbr, tot_il[VX_LMAX + 1];
  u64 tot64_nbr, tot64_il[VX_LMAX + 1]; /* the same totals, summed in 64 bits to catch int overflow */
} oct_info;

typedef struct {
  void *p;
  size_t cap;
} oct_dbuf;

/* Implementation workspace behind oct_tree_gpu.ws: every device array of the tree lives here and
 * only grows. Index [s]: 0 sources, 1 targets. */
typedef struct {
  oct_info *h_info; /* pinned */
  oct_dbuf info, part, cub_tmp, scan, sort_tmp;
  oct_dbuf pkey[2], rank[2], bin[2]; /* pkey by set; rank/bin [0]: the set that chooses the level, [1]: the other */
  oct_dbuf key[2][VX_LMAX + 1], map[2][VX_LMAX + 1], parent[2][VX_LMAX + 1], child[2][VX_LMAX + 1];
  oct_dbuf start[2], order[2], lbeg[2], lend[2];
  oct_dbuf nbr_start, nbr, il_start[VX_LMAX + 1], il[VX_LMAX + 1];
} oct_ws;

__host__ __device__ static inline size_t cells_at(int l) { return (size_t)1 << (3 * l); }
static inline size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }
/* Room in the long-leaf lists (lbeg, lend) of a set of n particles: at most this many leaves are
 * longer than OCT_LEAF_WARP_MAX. */
static inline size_t long_leaves_max(int n) { return (size_t)n / (OCT_LEAF_WARP_MAX + 1) + 1; }
static inline unsigned blocks_for(size_t n) { return (unsigned)((n + OCT_THREADS - 1) / OCT_THREADS); }

/* Grow a workspace buffer. A buffer that is replaced may still be read by work queued earlier on
 * the stream (the previous build's users, an earlier scan's temp storage): wait for it first. */
static inline cudaError_t grow(oct_dbuf *b, size_t bytes, cudaStream_t stream) {
  if (b->p && b->cap >= bytes) return cudaSuccess;
  if (b->p) {
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return e;
  }
  return vx_dev_reserve(&b->p, &b->cap, bytes);
}

/* In-place exclusive sums with the shared, grown CUB temp storage. */
template <typename T>
static inline cudaError_t scan_inplace(oct_ws *w, T *d, size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  size_t bytes = 0;
  cudaError_t e = cub::DeviceScan::ExclusiveSum(NULL, bytes, d, d, (long long)n, stream);
  if (e != cudaSuccess) return e;
  if ((e = grow(&w->cub_tmp, bytes, stream)) != cudaSuccess) return e;
  return cub::DeviceScan::ExclusiveSum(w->cub_tmp.p, bytes, d, d, (long long)n, stream);
}

typedef struct {
  double lo[3], inv_side;
} oct_cube;

/* What the steps of one oct_build_gpu share: the arguments, the workspace, the cube and the level. */
typedef struct {
  oct_tree_gpu *t;
  oct_ws *w;
  oct_info *info, *h;             /* device and pinned host copies of the build's counters */
  oct_params p;
  oct_cube cube;
  const void *src, *tgt;
  int ns, nt, pos_float;
  int same, ts;                   /* sources are the targets (one tree); the workspace set of the targets */
  int choose_tgt, cn, on;         /* the set whose histogram chooses the level (oct_choose_targets: the targets when
                                     they outnumber the sources), its count, and the other set's count */
  const void *cpos, *opos;
  int lcap, L, D, capped;         /* the level cap, the chosen level, the key depth, the cap flag */
  cudaStream_t stream;
} oct_build;

/* The steps of oct_build_gpu after the workspace (octree_gpu.cu), in their order; each returns 0,
 * or -1 with err. */
int oct_gpu_root_cube(oct_build *b, char *err, size_t errlen);     /* octree_gpu_keys.cu */
int oct_gpu_choose_level(oct_build *b, char *err, size_t errlen);  /* octree_gpu_keys.cu */
int oct_gpu_other_hist(oct_build *b, char *err, size_t errlen);    /* octree_gpu_keys.cu */
int oct_gpu_both_sets(oct_build *b, char *err, size_t errlen);     /* octree_gpu_levels.cu */
int oct_gpu_list_lengths(oct_build *b, char *err, size_t errlen);  /* octree_gpu_lists.cu */
int oct_gpu_sort_long_leaves(oct_build *b, char *err, size_t errlen); /* octree_gpu_levels.cu */
int oct_gpu_lists(oct_build *b, char *err, size_t errlen);         /* octree_gpu_lists.cu */

#endif
