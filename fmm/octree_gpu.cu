/* octree_gpu.cu — the octree of octree.h built entirely on the GPU (design paper §2.1, Algorithm 1;
 * the neighbour and interaction lists are built on the device too). The result is identical to
 * oct_build_cpu's, array for array: both compute the root cube with oct_root_cube and the level cap
 * with oct_level_cap (octree.h) from the same exact min/max, put every point in its cell with
 * oct_cell (double arithmetic, one shared inline function), choose the level by the same rule
 * (oct_level_first / oct_level_trials / oct_level_accept, octree.h, or a choose_level_dev callback
 * such as the cost model's, taken with oct_level_take), and
 * put each leaf's particles in ascending original index.
 *
 * Pipeline (all on `stream`; three small host round trips for uniform data: the bounding box, the
 * level trial's occupancy counts, the box counts and list lengths):
 *   bounds   block min/max + first non-finite index per set, reduced by a one-block kernel
 *   keys     each particle's Morton key at the deepest level that can be chosen (a key at a coarser
 *            level l is that key >> 3(D-l): oct_cell floors (x-lo)/side * 2^l, and scaling by a power
 *            of two is exact) and the histogram of Algorithm 1 at the trial level — atomicAdd(&bin[key],
 *            1) gives the local rank (the pseudo-sort); a trial covers two levels when the finer one's
 *            histogram is small, the coarser level's occupancy being the finer one's non-empty 8-groups
 *   leaves   scan of the dense histogram packed as (count << 32 | occupied): box offsets and compact
 *            box indices in one pass; emit keys, starts, the map; scatter by offset + rank; sort each
 *            leaf by index (a warp per leaf; leaves longer than OCT_LEAF_WARP_MAX by CUB's segmented sort)
 *   coarser  the same packed scan over the dense cells of each coarser level, counting non-empty
 *            children in the finer map; levels of at most 4096 cells in one single-block kernel
 *   lists    a warp per target box (27 lanes, one per adjacent cell), count kernels over upper bounds
 *            of the box counts, in-place scans, one copy of all totals, fill kernels; entries in the
 *            CPU's order (ascending box index) by ranking within the warp.
 * When the sources are the targets (the same array), the target tree is the source tree: built
 * once, and the tgt_* pointers alias the src_* arrays.
 * Checked by tests/gpu_test_octree.c against oct_build_cpu. */
#include "octree_gpu.h"

#include "cuda_check.h"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Must equal octree_cpu.c's default (oct_params.hist_budget = 0). */
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
static cudaError_t grow(oct_dbuf *b, size_t bytes, cudaStream_t stream) {
  if (b->p && b->cap >= bytes) return cudaSuccess;
  if (b->p) {
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return e;
  }
  return vx_dev_reserve(&b->p, &b->cap, bytes);
}

/* In-place exclusive sums with the shared, grown CUB temp storage. */
template <typename T>
static cudaError_t scan_inplace(oct_ws *w, T *d, size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  size_t bytes = 0;
  cudaError_t e = cub::DeviceScan::ExclusiveSum(NULL, bytes, d, d, (long long)n, stream);
  if (e != cudaSuccess) return e;
  if ((e = grow(&w->cub_tmp, bytes, stream)) != cudaSuccess) return e;
  return cub::DeviceScan::ExclusiveSum(w->cub_tmp.p, bytes, d, d, (long long)n, stream);
}

/* ------------------------------------------------------------------------------------------------
 * Device helpers */

__device__ static inline double pos_at(const void *p, int pos_float, size_t j) {
  return pos_float ? (double)((const float *)p)[j] : ((const double *)p)[j];
}

__device__ static inline int lo32(u64 v) { return (int)(unsigned)(v & 0xffffffffull); }
__device__ static inline int hi32(u64 v) { return (int)(unsigned)(v >> 32); }

/* Non-empty children of cell k, read from the finer level's map (8 consecutive entries). */
__device__ static inline int nonempty_children(const int *map1, size_t k) {
  const int4 *q = (const int4 *)(map1 + 8 * k);
  int4 a = q[0], b = q[1];
  return (a.x >= 0) + (a.y >= 0) + (a.z >= 0) + (a.w >= 0) + (b.x >= 0) + (b.y >= 0) + (b.z >= 0) + (b.w >= 0);
}

/* Block-wide reduction of 8 doubles: [0..2] min, [3..5] max, [6..7] min. Result in thread 0. */
__device__ static void block_reduce8(double v[8]) {
  __shared__ double sh[OCT_WARPS][8];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int o = 16; o > 0; o >>= 1)
    for (int k = 0; k < 8; k++) {
      double u = __shfl_down_sync(0xffffffffu, v[k], o);
      v[k] = (k >= 3 && k < 6) ? fmax(v[k], u) : fmin(v[k], u);
    }
  if (lane == 0)
    for (int k = 0; k < 8; k++) sh[warp][k] = v[k];
  __syncthreads();
  if (warp == 0) {
    for (int k = 0; k < 8; k++) v[k] = lane < OCT_WARPS ? sh[lane][k] : sh[0][k];
    for (int o = 16; o > 0; o >>= 1)
      for (int k = 0; k < 8; k++) {
        double u = __shfl_down_sync(0xffffffffu, v[k], o);
        v[k] = (k >= 3 && k < 6) ? fmax(v[k], u) : fmin(v[k], u);
      }
  }
}

/* ------------------------------------------------------------------------------------------------
 * Kernels */

/* Bounding box of sources ∪ targets (points with a non-finite coordinate skipped, as on the CPU)
 * and the first such point of each set; per-block partials of 8 doubles (indices are exact). */
__global__ void k_bounds(const void *sp, int ns, const void *tp, int nt, int pos_float, double *part) {
  double v[8] = {HUGE_VAL, HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL, (double)INT_MAX, (double)INT_MAX};
  const long long total = (long long)ns + nt;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total; g += (long long)gridDim.x * blockDim.x) {
    const int tgt = g >= ns;
    const int i = (int)(tgt ? g - ns : g);
    const void *p = tgt ? tp : sp;
    double x = pos_at(p, pos_float, 3 * (size_t)i), y = pos_at(p, pos_float, 3 * (size_t)i + 1),
           z = pos_at(p, pos_float, 3 * (size_t)i + 2);
    if (!isfinite(x) || !isfinite(y) || !isfinite(z)) {
      if (tgt)
        v[7] = fmin(v[7], (double)i);
      else
        v[6] = fmin(v[6], (double)i);
      continue;
    }
    v[0] = fmin(v[0], x), v[1] = fmin(v[1], y), v[2] = fmin(v[2], z);
    v[3] = fmax(v[3], x), v[4] = fmax(v[4], y), v[5] = fmax(v[5], z);
  }
  block_reduce8(v);
  if (threadIdx.x == 0)
    for (int k = 0; k < 8; k++) part[8 * (size_t)blockIdx.x + k] = v[k];
}

__global__ void k_bounds_final(const double *part, int nblocks, oct_info *info) {
  double v[8] = {HUGE_VAL, HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL, (double)INT_MAX, (double)INT_MAX};
  for (int b = threadIdx.x; b < nblocks; b += blockDim.x)
    for (int k = 0; k < 8; k++) v[k] = (k >= 3 && k < 6) ? fmax(v[k], part[8 * b + k]) : fmin(v[k], part[8 * b + k]);
  block_reduce8(v);
  if (threadIdx.x == 0) {
    for (int k = 0; k < 3; k++) info->mn[k] = v[k], info->mx[k] = v[3 + k];
    info->bad[0] = (int)v[6], info->bad[1] = (int)v[7];
  }
}

typedef struct {
  double lo[3], inv_side;
} oct_cube;

/* Algorithm 1 (PARALLEL-PSEUDO-SORT) for one point set: the key of each particle at level D
 * (FROM_POS: computed from the position and stored; else read back), then at level D - sh/3
 * bin[key >> sh]++, the value before the increment being the particle's local rank, and the number
 * of cells it made non-empty added to *occ. One particle per thread, so that the whole warp takes
 * part in the ballot. */
template <bool FROM_POS>
__global__ void k_keys_hist(const void *pos, int pos_float, int n, oct_cube c, int D, uint32_t *key, int sh, int *bin,
                            int *rank, int *occ) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  bool fresh = false;
  if (i < n) {
    uint32_t kd;
    if (FROM_POS) {
      uint32_t ix = oct_cell(pos_at(pos, pos_float, 3 * (size_t)i), c.lo[0], c.inv_side, D);
      uint32_t iy = oct_cell(pos_at(pos, pos_float, 3 * (size_t)i + 1), c.lo[1], c.inv_side, D);
      uint32_t iz = oct_cell(pos_at(pos, pos_float, 3 * (size_t)i + 2), c.lo[2], c.inv_side, D);
      kd = oct_morton3(ix, iy, iz);
      key[i] = kd;
    } else {
      kd = key[i];
    }
    const int r = atomicAdd(&bin[kd >> sh], 1);
    rank[i] = r;
    fresh = r == 0;
  }
  const unsigned m = __ballot_sync(0xffffffffu, fresh);
  if ((threadIdx.x & 31) == 0 && m) atomicAdd(occ, __popc(m));
}

/* Non-empty cells one level above a histogram (a cell is non-empty when one of its 8 children
 * is), added to *occ: the coarser trial level's occupancy without a second histogram. */
__global__ void k_occ_parent(const int *bin1, size_t ncell, int *occ) {
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  bool ne = false;
  if (k < ncell) {
    const int4 *q = (const int4 *)(bin1 + 8 * k);
    const int4 a = q[0], b = q[1];
    ne = (a.x | a.y | a.z | a.w | b.x | b.y | b.z | b.w) != 0;
  }
  const unsigned m = __ballot_sync(0xffffffffu, ne);
  if ((threadIdx.x & 31) == 0 && m) atomicAdd(occ, __popc(m));
}

/* Leaf level: (count << 32) | occupied per cell; its exclusive sum gives both the particle offset
 * and the compact index of each box (counts <= INT_MAX, boxes <= 2^30: no carry between halves). */
__global__ void k_pack_leaf(const int *bin, size_t ncell, u64 *scan) {
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= ncell) return;
  const u64 c = (u64)(unsigned)bin[k];
  scan[k] = (c << 32) | (u64)(c != 0);
}

__global__ void k_emit_leaf(const int *bin, const u64 *scan, size_t ncell, int n, uint32_t *key, int *start, int *map,
                            int *nbox, int *lbeg, int *lend, int nlong_max, int *nlong, int *nhuge) {
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= ncell) return;
  const int cnt = bin[k];
  const u64 v = scan[k];
  const int idx = lo32(v), off = hi32(v);
  if (cnt) {
    start[idx] = off;
    key[idx] = (uint32_t)k;
    map[k] = idx;
    if (cnt > OCT_LEAF_WARP_MAX) { /* the block's list from the front, the huge leaves' from the back */
      int j = cnt <= OCT_LEAF_BLOCK_MAX ? atomicAdd(nlong, 1) : nlong_max - 1 - atomicAdd(nhuge, 1);
      lbeg[j] = off, lend[j] = off + cnt;
    }
  } else {
    map[k] = -1;
  }
  if (k == ncell - 1) {
    const int nb = idx + (cnt != 0);
    *nbox = nb;
    start[nb] = n;
  }
}

/* Algorithm 1's final step: global rank = box offset + local rank. The box offset is the high half
 * of the leaf scan at the particle's cell (start[map[key]] without the two dependent loads). */
__global__ void k_scatter(const uint32_t *key, const int *rank, int sh, int n, const u64 *scan, int *order) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  order[hi32(scan[key[i] >> sh]) + rank[i]] = (int)i;
}

/* The atomics served a box's particles in arbitrary order; ascending original index makes the tree
 * deterministic and identical to the CPU's. One warp per leaf of at most OCT_LEAF_WARP_MAX: the
 * indices are distinct, so each one's position is the number of smaller ones. */
__global__ void k_sort_leaves(const int *start, int *order, const int *nbox) {
  __shared__ int buf[OCT_WARPS][OCT_LEAF_WARP_MAX];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int b = blockIdx.x * OCT_WARPS + w;
  if (b >= *nbox) return;
  const int s = start[b], m = start[b + 1] - s;
  if (m < 2 || m > OCT_LEAF_WARP_MAX) return;
  int *u = buf[w];
  for (int j = lane; j < m; j += 32) u[j] = order[s + j];
  __syncwarp();
  for (int j = lane; j < m; j += 32) {
    const int v = u[j];
    int r = 0;
    for (int q = 0; q < m; q++) r += u[q] < v;
    order[s + r] = v;
  }
}

/* Coarser level l from level l+1 (dense, so no host count is needed): per cell its number of
 * non-empty children packed with its occupancy; the exclusive sum gives the first child's box index
 * (children of ascending keys are contiguous) and the compact index. */
__global__ void k_pack_coarse(const int *map1, size_t ncell, u64 *scan) {
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= ncell) return;
  const u64 c = (u64)nonempty_children(map1, k);
  scan[k] = (c << 32) | (u64)(c != 0);
}

__device__ static inline void emit_coarse_cell(size_t k, int c, u64 v, uint32_t *key, int *child, int *map) {
  if (c) {
    const int p = lo32(v);
    key[p] = (uint32_t)k;
    child[p] = hi32(v);
    map[k] = p;
  } else {
    map[k] = -1;
  }
}

__global__ void k_emit_coarse(const int *map1, const u64 *scan, size_t ncell, uint32_t *key, int *child, int *map,
                              int *nbox) {
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= ncell) return;
  const int c = nonempty_children(map1, k);
  const u64 v = scan[k];
  emit_coarse_cell(k, c, v, key, child, map);
  if (k == ncell - 1) {
    const int n0 = lo32(v) + (c != 0);
    child[n0] = hi32(v) + c;
    *nbox = n0;
  }
}

typedef struct {
  uint32_t *key[VX_LMAX + 1];
  int *map[VX_LMAX + 1], *parent[VX_LMAX + 1], *child[VX_LMAX + 1];
  int *nbox;
} oct_levels;

/* Shared-memory slot of cell k in k_coarse_small: one pad word per OCT_SMALL_ITEMS, so that the
 * threads' runs of OCT_SMALL_ITEMS consecutive cells start in different banks. */
#define OCT_PAD(k) ((k) + (k) / OCT_SMALL_ITEMS)

/* Levels ltop..0 (ltop <= OCT_SMALL_LEVEL, at most OCT_SMALL_CELLS cells) in one block, with the
 * device-wide path's pack / scan / emit: the packed counts go to shared memory with the cells
 * striped over the threads (coalesced reads of the finer map and writes of the map), are scanned
 * in runs of OCT_SMALL_ITEMS per thread, and emitted striped again; a barrier between levels makes
 * each map visible to the next. A cell's child count is the difference of consecutive scan values. */
__global__ void __launch_bounds__(OCT_THREADS) k_coarse_small(oct_levels lv, int ltop) {
  typedef cub::BlockScan<u64, OCT_THREADS> block_scan;
  __shared__ typename block_scan::TempStorage tmp;
  __shared__ u64 sh[OCT_PAD(OCT_SMALL_CELLS)];
  const int t = threadIdx.x;
  for (int l = ltop; l >= 0; l--) {
    const int ncell = 1 << (3 * l);
    const int *map1 = lv.map[l + 1];
    for (int k = t; k < ncell; k += OCT_THREADS) {
      const u64 c = (u64)nonempty_children(map1, (size_t)k);
      sh[OCT_PAD(k)] = (c << 32) | (u64)(c != 0);
    }
    __syncthreads();
    u64 run = 0, excl, agg;
    for (int j = 0, k = t * OCT_SMALL_ITEMS; j < OCT_SMALL_ITEMS && k < ncell; j++, k++) run += sh[OCT_PAD(k)];
    block_scan(tmp).ExclusiveSum(run, excl, agg);
    for (int j = 0, k = t * OCT_SMALL_ITEMS; j < OCT_SMALL_ITEMS && k < ncell; j++, k++) {
      const u64 v = sh[OCT_PAD(k)];
      sh[OCT_PAD(k)] = excl;
      excl += v;
    }
    __syncthreads();
    for (int k = t; k < ncell; k += OCT_THREADS) {
      const u64 v = sh[OCT_PAD(k)], next = k + 1 < ncell ? sh[OCT_PAD(k + 1)] : agg;
      emit_coarse_cell((size_t)k, hi32(next) - hi32(v), v, lv.key[l], lv.child[l], lv.map[l]);
    }
    if (t == 0) {
      lv.child[l][lo32(agg)] = hi32(agg);
      lv.nbox[l] = lo32(agg);
    }
    __syncthreads();
  }
}

/* Parents of the boxes of levels 1..L (blockIdx.y + 1), once every map is built: the box of key >> 3
 * one level up. */
__global__ void k_parents(oct_levels lv) {
  const int l = blockIdx.y + 1;
  const int n = lv.nbox[l];
  const uint32_t *key = lv.key[l];
  const int *map0 = lv.map[l - 1];
  int *par = lv.parent[l];
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n; q += (long long)gridDim.x * blockDim.x)
    par[q] = map0[key[q] >> 3];
}

/* Block sum of c added to *tot (64-bit). All threads of the block must call it. */
__device__ static void block_add64(long long c, u64 *tot) {
  __shared__ long long sh[OCT_WARPS];
  for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int w = 0; w < OCT_WARPS; w++) s += sh[w];
    if (s) atomicAdd(tot, (u64)s);
  }
}

/* Neighbour lists, one warp per target leaf (octree_cpu.c's nbr_boxes, in parallel): lane j < 27
 * looks up the cell offset by (j % 3, j / 3 % 3, j / 9) - 1 in the source map; a source leaf found
 * there goes to the position given by the number of found leaves with a smaller box index, so the
 * list is ascending as on the CPU. COUNT (FILL false): warps 0..bound each write their count, 0
 * past the real number of target leaves (read from the device), so that the in-place exclusive sum
 * puts the total at nbr_start[ntl]; the total is also summed in 64 bits. */
template <bool FILL>
__global__ void k_nbr(const uint32_t *tkey, const int *ntl_dev, int bound, int L, const int *smap, int *nbr_start,
                      int *nbr, u64 *tot64) {
  const int b = (int)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;
  const int ntl = *ntl_dev;
  int found = -1;
  if (b < ntl && lane < 27) {
    const int top = (1 << L) - 1;
    int x, y, z;
    oct_demorton3(tkey[b], &x, &y, &z);
    const int cx = x + lane % 3 - 1, cy = y + lane / 3 % 3 - 1, cz = z + lane / 9 - 1;
    if (cx >= 0 && cy >= 0 && cz >= 0 && cx <= top && cy <= top && cz <= top)
      found = smap[oct_morton3((uint32_t)cx, (uint32_t)cy, (uint32_t)cz)];
  }
  const unsigned m = __ballot_sync(0xffffffffu, found >= 0);
  if (FILL) {
    if (b >= ntl) return; /* warp-uniform */
    int r = 0;
    for (unsigned mm = m; mm; mm &= mm - 1) r += __shfl_sync(0xffffffffu, found, __ffs(mm) - 1) < found;
    if (found >= 0) nbr[nbr_start[b] + r] = found;
  } else {
    if (lane == 0 && b <= bound) nbr_start[b] = __popc(m);
    block_add64(lane == 0 ? __popc(m) : 0, tot64);
  }
}

/* Interaction lists of level l >= 2, one warp per target box (octree_cpu.c's il_boxes, in
 * parallel): lane j < 27 takes the parent's neighbour cell offset as in k_nbr; for a source box
 * there, it marks its children (a contiguous range, at most 8) that are not adjacent to the target
 * box. Entries go in ascending parent box index, then ascending child index — the CPU's order —
 * each lane's block starting after the marked children of the parents with smaller box indices.
 * COUNT as k_nbr. */
template <bool FILL>
__global__ void k_il(int l, const uint32_t *tkey, const int *ntl_dev, int bound, const int *pmap, const int *pchild,
                     const uint32_t *skey, int *il_start, int *il, u64 *tot64) {
  const int b = (int)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;
  const int ntl = *ntl_dev;
  int pb = -1, first = 0;
  unsigned sel = 0; /* bit j: child first + j is well separated */
  if (b < ntl && lane < 27) {
    const int top = (1 << (l - 1)) - 1;
    int x, y, z;
    oct_demorton3(tkey[b], &x, &y, &z);
    const int px = (x >> 1) + lane % 3 - 1, py = (y >> 1) + lane / 3 % 3 - 1, pz = (z >> 1) + lane / 9 - 1;
    if (px >= 0 && py >= 0 && pz >= 0 && px <= top && py <= top && pz <= top) {
      pb = pmap[oct_morton3((uint32_t)px, (uint32_t)py, (uint32_t)pz)];
      if (pb >= 0) {
        first = pchild[pb];
        const int last = pchild[pb + 1];
        for (int c = first; c < last; c++) {
          const uint32_t o = skey[c] & 7u;
          const int sx = 2 * px + (int)(o & 1u), sy = 2 * py + (int)((o >> 1) & 1u), sz = 2 * pz + (int)(o >> 2);
          if (abs(sx - x) > 1 || abs(sy - y) > 1 || abs(sz - z) > 1) sel |= 1u << (c - first);
        }
      }
    }
  }
  const int cnt = __popc(sel);
  if (FILL) {
    if (b >= ntl) return; /* warp-uniform */
    const unsigned m = __ballot_sync(0xffffffffu, pb >= 0);
    int off = 0;
    for (unsigned mm = m; mm; mm &= mm - 1) {
      const int q = __ffs(mm) - 1;
      const int qb = __shfl_sync(0xffffffffu, pb, q), qc = __shfl_sync(0xffffffffu, cnt, q);
      if (qb < pb) off += qc;
    }
    /* assembled in shared memory, then written with coalesced stores */
    __shared__ int stage[OCT_WARPS][OCT_IL_MAX];
    int *st = stage[threadIdx.x >> 5];
    for (unsigned ss = sel; ss; ss &= ss - 1) st[off++] = first + __ffs(ss) - 1;
    int tot = cnt;
    for (int o = 16; o > 0; o >>= 1) tot += __shfl_xor_sync(0xffffffffu, tot, o);
    __syncwarp();
    int *dst = il + il_start[b];
    for (int e = lane; e < tot; e += 32) dst[e] = st[e];
  } else {
    int tot = cnt;
    for (int o = 16; o > 0; o >>= 1) tot += __shfl_down_sync(0xffffffffu, tot, o);
    if (lane == 0 && b <= bound) il_start[b] = tot;
    block_add64(lane == 0 ? tot : 0, tot64);
  }
}

typedef struct {
  const int *il_start[VX_LMAX + 1];
} oct_starts;

__global__ void k_totals(oct_info *info, const int *nbr_start, oct_starts is, int L, int ts) {
  info->tot_nbr = nbr_start[info->nbox[ts][L]];
  for (int l = 0; l <= L; l++) info->tot_il[l] = l < 2 ? 0 : is.il_start[l][info->nbox[ts][l]];
}

/* ------------------------------------------------------------------------------------------------
 * Host side */

/* One point set's leaves and coarser levels from its level-L histogram bin and per-particle keys
 * (at level L after >> sh) and ranks. s: 0 sources, 1 targets. */
static int build_set(oct_ws *w, int s, int L, int n, const int *bin, const uint32_t *pkey, int sh, const int *rank,
                     cudaStream_t stream, char *err, size_t errlen) {
  oct_info *info = (oct_info *)w->info.p;
  const size_t ncell = cells_at(L);
  u64 *scan = (u64 *)w->scan.p;
  int *nbox = info->nbox[s];
  oct_levels lv;
  memset(&lv, 0, sizeof lv);
  for (int l = 0; l <= L; l++) {
    const size_t bound = min_sz((size_t)n, cells_at(l));
    VX_CU(grow(&w->key[s][l], (bound > 0 ? bound : 1) * sizeof(uint32_t), stream));
    VX_CU(grow(&w->map[s][l], cells_at(l) * sizeof(int), stream));
    if (l >= 1) VX_CU(grow(&w->parent[s][l], (bound > 0 ? bound : 1) * sizeof(int), stream));
    if (l < L) VX_CU(grow(&w->child[s][l], (bound + 1) * sizeof(int), stream));
    lv.key[l] = (uint32_t *)w->key[s][l].p;
    lv.map[l] = (int *)w->map[s][l].p;
    lv.parent[l] = l >= 1 ? (int *)w->parent[s][l].p : NULL;
    lv.child[l] = l < L ? (int *)w->child[s][l].p : NULL;
  }
  lv.nbox = nbox;
  {
    const size_t bound = min_sz((size_t)n, ncell);
    const size_t nlong_max = long_leaves_max(n);
    VX_CU(grow(&w->start[s], (bound + 1) * sizeof(int), stream));
    VX_CU(grow(&w->order[s], (n > 0 ? (size_t)n : 1) * sizeof(int), stream));
    VX_CU(grow(&w->lbeg[s], nlong_max * sizeof(int), stream));
    VX_CU(grow(&w->lend[s], nlong_max * sizeof(int), stream));
  }
  {
    int *start = (int *)w->start[s].p, *order = (int *)w->order[s].p;
    k_pack_leaf<<<blocks_for(ncell), OCT_THREADS, 0, stream>>>(bin, ncell, scan);
    VX_CU_LAUNCH(k_pack_leaf);
    VX_CU(scan_inplace(w, scan, ncell, stream));
    k_emit_leaf<<<blocks_for(ncell), OCT_THREADS, 0, stream>>>(bin, scan, ncell, n, lv.key[L], start, lv.map[L],
                                                                &nbox[L], (int *)w->lbeg[s].p, (int *)w->lend[s].p,
                                                                (int)long_leaves_max(n), &info->nlong[s], &info->nhuge[s]);
    VX_CU_LAUNCH(k_emit_leaf);
    if (n > 0) {
      k_scatter<<<blocks_for((size_t)n), OCT_THREADS, 0, stream>>>(pkey, rank, sh, n, scan, order);
      VX_CU_LAUNCH(k_scatter);
      const size_t bound = min_sz((size_t)n, ncell);
      k_sort_leaves<<<(unsigned)((bound + OCT_WARPS - 1) / OCT_WARPS), OCT_THREADS, 0, stream>>>(start, order,
                                                                                                   &nbox[L]);
      VX_CU_LAUNCH(k_sort_leaves);
    }
  }
  /* coarser levels: device-wide down to OCT_SMALL_LEVEL + 1, then one block */
  for (int l = L - 1; l > OCT_SMALL_LEVEL; l--) {
    const size_t nc = cells_at(l);
    k_pack_coarse<<<blocks_for(nc), OCT_THREADS, 0, stream>>>(lv.map[l + 1], nc, scan);
    VX_CU_LAUNCH(k_pack_coarse);
    VX_CU(scan_inplace(w, scan, nc, stream));
    k_emit_coarse<<<blocks_for(nc), OCT_THREADS, 0, stream>>>(lv.map[l + 1], scan, nc, lv.key[l], lv.child[l],
                                                               lv.map[l], &nbox[l]);
    VX_CU_LAUNCH(k_emit_coarse);
  }
  k_coarse_small<<<1, OCT_THREADS, 0, stream>>>(lv, L - 1 < OCT_SMALL_LEVEL ? L - 1 : OCT_SMALL_LEVEL);
  VX_CU_LAUNCH(k_coarse_small);
  {
    const unsigned bx = blocks_for(min_sz((size_t)n, ncell));
    k_parents<<<dim3(bx == 0 ? 1 : (bx < 1024 ? bx : 1024), (unsigned)L), OCT_THREADS, 0, stream>>>(lv);
    VX_CU_LAUNCH(k_parents);
  }
  return 0;
fail:
  return -1;
}

/* One block per leaf of the list beg/end (up to OCT_LEAF_BLOCK_MAX long): the leaf's indices, as
 * unsigned keys of `bits` bits (every index < 2^bits), through cub::BlockRadixSort in shared memory,
 * padded with all-ones keys that sort after them (the sort is stable). */
__global__ void __launch_bounds__(OCT_THREADS) k_sort_leaves_block(const int *beg, const int *end, int bits, int *order) {
  typedef cub::BlockRadixSort<unsigned, OCT_THREADS, OCT_LEAF_BLOCK_ITEMS> sorter;
  __shared__ typename sorter::TempStorage tmp;
  const int s = beg[blockIdx.x], m = end[blockIdx.x] - s;
  unsigned k[OCT_LEAF_BLOCK_ITEMS];
#pragma unroll
  for (int i = 0; i < OCT_LEAF_BLOCK_ITEMS; ++i) { /* blocked: thread t holds items t·ITEMS .. */
    const int j = threadIdx.x * OCT_LEAF_BLOCK_ITEMS + i;
    k[i] = j < m ? (unsigned)order[s + j] : 0xffffffffu;
  }
  sorter(tmp).Sort(k, 0, bits);
#pragma unroll
  for (int i = 0; i < OCT_LEAF_BLOCK_ITEMS; ++i) {
    const int j = threadIdx.x * OCT_LEAF_BLOCK_ITEMS + i;
    if (j < m) order[s + j] = (int)k[i];
  }
}

/* Leaves longer than a warp sorts: those up to OCT_LEAF_BLOCK_MAX (nlong, the front of the lists)
 * by k_sort_leaves_block, the longer ones (nhuge, the back) by CUB's segmented sort from a copy of
 * order back into order (elements outside the segments are neither read nor written). */
static int sort_long_leaves(oct_ws *w, int s, int n, int nlong, int nhuge, cudaStream_t stream, char *err, size_t errlen) {
  size_t bytes = 0;
  int *order = (int *)w->order[s].p;
  const size_t back = long_leaves_max(n) - (size_t)nhuge;
  const int *beg = (const int *)w->lbeg[s].p + back, *end = (const int *)w->lend[s].p + back;
  int bits = 1;
  while (bits < 31 && ((long long)1 << bits) < (long long)n) ++bits;
  if (nlong > 0) {
    k_sort_leaves_block<<<(unsigned)nlong, OCT_THREADS, 0, stream>>>((const int *)w->lbeg[s].p, (const int *)w->lend[s].p,
                                                                    bits, order);
    VX_CU_LAUNCH(k_sort_leaves_block);
  }
  if (nhuge == 0) return 0;
  VX_CU(grow(&w->sort_tmp, (size_t)n * sizeof(int), stream));
  VX_CU(cudaMemcpyAsync(w->sort_tmp.p, order, (size_t)n * sizeof(int), cudaMemcpyDeviceToDevice, stream));
  VX_CU(cub::DeviceSegmentedSort::SortKeys(NULL, bytes, (const int *)w->sort_tmp.p, order, (long long)n,
                                           (long long)nhuge, beg, end, stream));
  VX_CU(grow(&w->cub_tmp, bytes, stream));
  VX_CU(cub::DeviceSegmentedSort::SortKeys(w->cub_tmp.p, bytes, (const int *)w->sort_tmp.p, order, (long long)n,
                                           (long long)nhuge, beg, end, stream));
  return 0;
fail:
  return -1;
}

/* Public fields zeroed, the workspace kept. */
static void reset_tree(oct_tree_gpu *t) {
  void *ws = t->ws;
  memset(t, 0, sizeof *t);
  t->ws = ws;
}

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

/* Step 1: the workspace and the counters, zeroed on the device. */
static int build_workspace(oct_build *b, char *err, size_t errlen) {
  oct_ws *w = (oct_ws *)b->t->ws;
  if (!w) {
    w = (oct_ws *)calloc(1, sizeof *w);
    if (!w) {
      oct_set_err(err, errlen, "out of host memory (oct_build_gpu workspace)");
      return -1;
    }
    b->t->ws = w;
  }
  b->w = w;
  if (!w->h_info) VX_CU(cudaMallocHost((void **)&w->h_info, sizeof(oct_info)));
  VX_CU(grow(&w->info, sizeof(oct_info), b->stream));
  VX_CU(grow(&w->part, OCT_BOUNDS_BLOCKS * 8 * sizeof(double), b->stream));
  b->info = (oct_info *)w->info.p;
  b->h = w->h_info;
  VX_CU(cudaMemsetAsync(b->info, 0, sizeof(oct_info), b->stream));
  return 0;
fail:
  return -1;
}

/* Step 2: the root cube: exact min/max on the device, the cube on the host with oct_root_cube. */
static int build_root_cube(oct_build *b, char *err, size_t errlen) {
  oct_tree_gpu *t = b->t;
  const long long total = (long long)b->ns + (b->same ? 0 : b->nt);
  const long long nb = (total + OCT_THREADS - 1) / OCT_THREADS;
  const unsigned nbb = (unsigned)(nb < OCT_BOUNDS_BLOCKS ? nb : OCT_BOUNDS_BLOCKS);
  k_bounds<<<nbb, OCT_THREADS, 0, b->stream>>>(b->src, b->ns, b->tgt, b->same ? 0 : b->nt, b->pos_float,
                                                (double *)b->w->part.p);
  VX_CU_LAUNCH(k_bounds);
  k_bounds_final<<<1, OCT_THREADS, 0, b->stream>>>((const double *)b->w->part.p, (int)nbb, b->info);
  VX_CU_LAUNCH(k_bounds_final);
  VX_CU(cudaMemcpyAsync(b->h, b->info, sizeof(oct_info), cudaMemcpyDeviceToHost, b->stream));
  VX_CU(cudaStreamSynchronize(b->stream));
  if (b->h->bad[0] != INT_MAX) {
    oct_set_err(err, errlen, "source point %d has a non-finite coordinate", b->h->bad[0]);
    return -1;
  }
  if (b->h->bad[1] != INT_MAX) {
    oct_set_err(err, errlen, "target point %d has a non-finite coordinate", b->h->bad[1]);
    return -1;
  }
  if (oct_root_cube(b->h->mn, b->h->mx, t->lo, &t->side) != 0) {
    oct_set_err(err, errlen, "coordinates too large for a bounding cube (extent overflows)");
    return -1;
  }
  b->cube.lo[0] = t->lo[0], b->cube.lo[1] = t->lo[1], b->cube.lo[2] = t->lo[2];
  b->cube.inv_side = 1.0 / t->side;
  return 0;
fail:
  return -1;
}

/* The choosing set's keys (at depth D), ranks and histogram at level Lt, occupancy into occ. */
static int keys_hist(oct_build *b, int first, int Lt, int *occ, char *err, size_t errlen) {
  oct_ws *w = b->w;
  uint32_t *ckey = (uint32_t *)w->pkey[b->choose_tgt].p;
  if (first)
    k_keys_hist<true><<<blocks_for((size_t)b->cn), OCT_THREADS, 0, b->stream>>>(
        b->cpos, b->pos_float, b->cn, b->cube, b->D, ckey, 3 * (b->D - Lt), (int *)w->bin[0].p, (int *)w->rank[0].p, occ);
  else
    k_keys_hist<false><<<blocks_for((size_t)b->cn), OCT_THREADS, 0, b->stream>>>(
        b->cpos, b->pos_float, b->cn, b->cube, b->D, ckey, 3 * (b->D - Lt), (int *)w->bin[0].p, (int *)w->rank[0].p, occ);
  VX_CU_LAUNCH(k_keys_hist);
  return 0;
fail:
  return -1;
}

/* One trial of the level rule (octree.h): histograms at L and, when its histogram is small next to
 * the points, L+1 (for uniform data the first trial is usually one level too coarse; the deeper
 * histogram's non-empty 8-groups are the coarser one's occupancy). *done when a level was taken. */
static int level_trial(oct_build *b, int first, int *done, char *err, size_t errlen) {
  oct_ws *w = b->w;
  const int trial = oct_level_trials(&b->p, b->capped), L = b->L, cn = b->cn;
  const int nlev = trial && L < b->lcap && cells_at(L + 1) <= (size_t)(2ll * cn > 4096 ? 2ll * cn : 4096) ? 2 : 1;
  const int Lt = L + nlev - 1;
  int acc = -1;
  *done = 0;
  VX_CU(grow(&w->bin[0], cells_at(Lt) * sizeof(int), b->stream));
  VX_CU(cudaMemsetAsync(w->bin[0].p, 0, cells_at(Lt) * sizeof(int), b->stream));
  VX_CU(cudaMemsetAsync(b->info->occ, 0, sizeof b->info->occ, b->stream));
  if (keys_hist(b, first, Lt, &b->info->occ[nlev - 1], err, errlen)) return -1;
  if (!trial) { *done = 1; return 0; }
  if (nlev == 2) {
    k_occ_parent<<<blocks_for(cells_at(L)), OCT_THREADS, 0, b->stream>>>((const int *)w->bin[0].p, cells_at(L), b->info->occ);
    VX_CU_LAUNCH(k_occ_parent);
  }
  VX_CU(cudaMemcpyAsync(b->h->occ, b->info->occ, sizeof b->h->occ, cudaMemcpyDeviceToHost, b->stream));
  VX_CU(cudaStreamSynchronize(b->stream));
  for (int j = 0; j < nlev && acc < 0; j++)
    if (oct_level_accept(&b->p, L + j, b->lcap, cn, b->h->occ[j], &b->capped)) acc = j;
  if (acc < 0) { b->L += nlev; return 0; }
  b->L += acc;
  *done = 1;
  if (b->L < Lt) { /* the coarser trial level won: its histogram and ranks */
    VX_CU(cudaMemsetAsync(w->bin[0].p, 0, cells_at(b->L) * sizeof(int), b->stream));
    if (keys_hist(b, 0, b->L, &b->info->occ[1], err, errlen)) return -1;
  }
  return 0;
fail:
  return -1;
}

/* Another rule (issue 12's cost model, from device statistics) picks among the candidates: its
 * choice is used as a forced level, as oct_build_cpu does with choose_level. */
static int choose_by_callback(oct_build *b, char *err, size_t errlen) {
  int lo_level, hi_level;
  oct_level_candidates(&b->p, b->cn, b->lcap, VX_LMAX, &lo_level, &hi_level);
  const int Lc = b->p.choose_level_dev(b->p.choose_arg, b->src, b->ns, b->tgt, b->nt, b->pos_float, b->t->lo, b->t->side,
                                       lo_level, hi_level, (void *)b->stream, err, errlen);
  if (Lc < 0) return -1;
  oct_level_take(&b->p, Lc, lo_level, hi_level);
  return 0;
}

/* Step 3: the finest level, by the rule of octree.h (oct_level_first, oct_level_accept) as on the CPU. */
static int build_choose_level(oct_build *b, char *err, size_t errlen) {
  oct_tree_gpu *t = b->t;
  b->lcap = oct_level_cap(b->p.max_level, b->p.hist_budget, t->side, b->p.min_leaf_width);
  b->choose_tgt = oct_choose_targets(b->ns, b->nt);
  b->cpos = b->choose_tgt ? b->tgt : b->src;
  b->cn = b->choose_tgt ? b->nt : b->ns;
  b->opos = b->choose_tgt ? b->src : b->tgt;
  b->on = b->choose_tgt ? b->ns : b->nt;
  if (!b->p.levels && b->p.choose_level_dev && choose_by_callback(b, err, errlen)) return -1;
  b->L = oct_level_first(&b->p, b->cn, b->lcap, t->side, &b->capped);
  /* Without trials the key is computed at L; with trials at the deepest level a trial can reach. */
  b->D = oct_level_trials(&b->p, b->capped) ? b->lcap : b->L;
  VX_CU(grow(&b->w->pkey[b->choose_tgt], (size_t)b->cn * sizeof(uint32_t), b->stream));
  VX_CU(grow(&b->w->rank[0], (size_t)b->cn * sizeof(int), b->stream));
  for (int first = 1, done = 0; !done; first = 0)
    if (level_trial(b, first, &done, err, errlen)) return -1;
  t->L = b->L;
  t->capped = b->capped;
  t->ns = b->ns, t->nt = b->nt;
  return 0;
fail:
  return -1;
}

/* Step 4: the other set's keys, ranks and histogram at the chosen level. */
static int build_other_hist(oct_build *b, char *err, size_t errlen) {
  oct_ws *w = b->w;
  const size_t ncell_L = cells_at(b->L), on = b->on > 0 ? (size_t)b->on : 1;
  if (b->same) return 0;
  VX_CU(grow(&w->pkey[!b->choose_tgt], on * sizeof(uint32_t), b->stream));
  VX_CU(grow(&w->rank[1], on * sizeof(int), b->stream));
  VX_CU(grow(&w->bin[1], ncell_L * sizeof(int), b->stream));
  VX_CU(cudaMemsetAsync(w->bin[1].p, 0, ncell_L * sizeof(int), b->stream));
  if (b->on > 0) {
    k_keys_hist<true><<<blocks_for((size_t)b->on), OCT_THREADS, 0, b->stream>>>(
        b->opos, b->pos_float, b->on, b->cube, b->L, (uint32_t *)w->pkey[!b->choose_tgt].p, 0, (int *)w->bin[1].p,
        (int *)w->rank[1].p, &b->info->occ[1]);
    VX_CU_LAUNCH(k_keys_hist);
  }
  return 0;
fail:
  return -1;
}

/* Step 5: leaves and coarser levels of both sets (build_set). */
static int build_both_sets(oct_build *b, char *err, size_t errlen) {
  oct_ws *w = b->w;
  /* set s's histogram and ranks: [0] for the choosing set, [1] for the other */
  const int hs = b->choose_tgt ? 1 : 0, ht = b->choose_tgt ? 0 : 1, sh_c = 3 * (b->D - b->L);
  VX_CU(grow(&w->scan, cells_at(b->L) * sizeof(u64), b->stream));
  if (build_set(w, 0, b->L, b->ns, (const int *)w->bin[hs].p, (const uint32_t *)w->pkey[0].p, b->choose_tgt ? 0 : sh_c,
                (const int *)w->rank[hs].p, b->stream, err, errlen) != 0)
    return -1;
  if (!b->same && build_set(w, 1, b->L, b->nt, (const int *)w->bin[ht].p, (const uint32_t *)w->pkey[1].p,
                            b->choose_tgt ? sh_c : 0, (const int *)w->rank[ht].p, b->stream, err, errlen) != 0)
    return -1;
  b->t->src_bin = (int *)w->bin[hs].p;
  b->t->tgt_bin = (int *)w->bin[b->same ? hs : ht].p;
  return 0;
fail:
  return -1;
}

/* Step 6: list lengths — counts over upper bounds of the target box counts, scans, the totals back. */
static int build_list_lengths(oct_build *b, char *err, size_t errlen) {
  oct_ws *w = b->w;
  oct_info *info = b->info;
  const int L = b->L, ts = b->ts;
  const size_t bL = min_sz((size_t)b->nt, cells_at(L));
  oct_starts is;
  memset(&is, 0, sizeof is);
  VX_CU(grow(&w->nbr_start, (bL + 1) * sizeof(int), b->stream));
  k_nbr<false><<<blocks_for(32 * (bL + 1)), OCT_THREADS, 0, b->stream>>>(
      (const uint32_t *)w->key[ts][L].p, &info->nbox[ts][L], (int)bL, L, (const int *)w->map[0][L].p,
      (int *)w->nbr_start.p, NULL, &info->tot64_nbr);
  VX_CU_LAUNCH(k_nbr);
  VX_CU(scan_inplace(w, (int *)w->nbr_start.p, bL + 1, b->stream));
  for (int l = 0; l <= L; l++) {
    const size_t bl = min_sz((size_t)b->nt, cells_at(l));
    VX_CU(grow(&w->il_start[l], (bl + 1) * sizeof(int), b->stream));
    is.il_start[l] = (const int *)w->il_start[l].p;
    if (l < 2) {
      VX_CU(cudaMemsetAsync(w->il_start[l].p, 0, (bl + 1) * sizeof(int), b->stream));
      continue;
    }
    k_il<false><<<blocks_for(32 * (bl + 1)), OCT_THREADS, 0, b->stream>>>(
        l, (const uint32_t *)w->key[ts][l].p, &info->nbox[ts][l], (int)bl, (const int *)w->map[0][l - 1].p,
        (const int *)w->child[0][l - 1].p, (const uint32_t *)w->key[0][l].p, (int *)w->il_start[l].p, NULL,
        &info->tot64_il[l]);
    VX_CU_LAUNCH(k_il);
    VX_CU(scan_inplace(w, (int *)w->il_start[l].p, bl + 1, b->stream));
  }
  k_totals<<<1, 1, 0, b->stream>>>(info, (const int *)w->nbr_start.p, is, L, ts);
  VX_CU_LAUNCH(k_totals);
  VX_CU(cudaMemcpyAsync(b->h, info, sizeof(oct_info), cudaMemcpyDeviceToHost, b->stream));
  VX_CU(cudaStreamSynchronize(b->stream));
  return 0;
fail:
  return -1;
}

/* The totals fit int offsets; the tree's box and list counts from them. */
static int take_totals(oct_build *b, char *err, size_t errlen) {
  oct_tree_gpu *t = b->t;
  const oct_info *h = b->h;
  if (h->tot64_nbr > (u64)INT_MAX) {
    oct_set_err(err, errlen, "neighbour lists too long (%llu entries) for int offsets", h->tot64_nbr);
    return -1;
  }
  for (int l = 2; l <= b->L; l++)
    if (h->tot64_il[l] > (u64)INT_MAX) {
      oct_set_err(err, errlen, "interaction lists of level %d too long (%llu entries) for int offsets", l, h->tot64_il[l]);
      return -1;
    }
  for (int l = 0; l <= b->L; l++) t->nsrc[l] = h->nbox[0][l], t->ntgt[l] = h->nbox[b->ts][l];
  t->n_nbr = h->tot_nbr;
  for (int l = 0; l <= b->L; l++) t->n_il[l] = h->tot_il[l];
  return 0;
}

/* Step 7: long leaves sorted, then the neighbour and interaction lists written. */
static int build_lists(oct_build *b, char *err, size_t errlen) {
  oct_tree_gpu *t = b->t;
  oct_ws *w = b->w;
  oct_info *info = b->info;
  const int L = b->L, ts = b->ts;
  for (int s = 0; s <= ts; s++)
    if (b->h->nlong[s] + b->h->nhuge[s] > 0 &&
        sort_long_leaves(w, s, s ? b->nt : b->ns, b->h->nlong[s], b->h->nhuge[s], b->stream, err, errlen) != 0)
      return -1;
  VX_CU(grow(&w->nbr, (t->n_nbr > 0 ? (size_t)t->n_nbr : 1) * sizeof(int), b->stream));
  if (t->ntgt[L] > 0) {
    k_nbr<true><<<blocks_for(32 * (size_t)t->ntgt[L]), OCT_THREADS, 0, b->stream>>>(
        (const uint32_t *)w->key[ts][L].p, &info->nbox[ts][L], t->ntgt[L], L, (const int *)w->map[0][L].p,
        (int *)w->nbr_start.p, (int *)w->nbr.p, NULL);
    VX_CU_LAUNCH(k_nbr);
  }
  for (int l = 2; l <= L; l++) {
    VX_CU(grow(&w->il[l], (t->n_il[l] > 0 ? (size_t)t->n_il[l] : 1) * sizeof(int), b->stream));
    if (t->ntgt[l] == 0 || t->n_il[l] == 0) continue;
    k_il<true><<<blocks_for(32 * (size_t)t->ntgt[l]), OCT_THREADS, 0, b->stream>>>(
        l, (const uint32_t *)w->key[ts][l].p, &info->nbox[ts][l], t->ntgt[l], (const int *)w->map[0][l - 1].p,
        (const int *)w->child[0][l - 1].p, (const uint32_t *)w->key[0][l].p, (int *)w->il_start[l].p,
        (int *)w->il[l].p, NULL);
    VX_CU_LAUNCH(k_il);
  }
  return 0;
fail:
  return -1;
}

/* Step 8: the tree's pointers into the workspace. */
static void expose_tree(oct_build *b) {
  oct_tree_gpu *t = b->t;
  oct_ws *w = b->w;
  const int L = b->L, ts = b->ts;
  for (int l = 0; l <= L; l++) {
    t->src_key[l] = (uint32_t *)w->key[0][l].p, t->tgt_key[l] = (uint32_t *)w->key[ts][l].p;
    t->src_map[l] = (int *)w->map[0][l].p, t->tgt_map[l] = (int *)w->map[ts][l].p;
    t->src_parent[l] = l >= 1 ? (int *)w->parent[0][l].p : NULL;
    t->tgt_parent[l] = l >= 1 ? (int *)w->parent[ts][l].p : NULL;
    t->src_child[l] = l < L ? (int *)w->child[0][l].p : NULL;
    t->tgt_child[l] = l < L ? (int *)w->child[ts][l].p : NULL;
    t->il_start[l] = (int *)w->il_start[l].p;
    t->il[l] = l >= 2 ? (int *)w->il[l].p : NULL;
  }
  t->src_start = (int *)w->start[0].p, t->tgt_start = (int *)w->start[ts].p;
  t->src_order = (int *)w->order[0].p, t->tgt_order = (int *)w->order[ts].p;
  t->nbr_start = (int *)w->nbr_start.p, t->nbr = (int *)w->nbr.p;
}

extern "C" int oct_build_gpu(oct_tree_gpu *t, const void *d_src_pos, int ns, const void *d_tgt_pos, int nt,
                             int pos_float, const oct_params *prm, cudaStream_t stream, char *err, size_t errlen) {
  oct_build b;
  if (err && errlen) err[0] = '\0';
  if (!t) {
    oct_set_err(err, errlen, "oct_build_gpu: no tree");
    return -1;
  }
  reset_tree(t);
  memset(&b, 0, sizeof b);
  /* the arguments: the same checks and messages as oct_build_cpu */
  if (oct_resolve_params(ns, nt, d_src_pos != NULL, d_tgt_pos != NULL, prm, &b.p, err, errlen)) return -1;
  if (oct_map_bytes(2) > b.p.hist_budget) {
    oct_set_err(err, errlen, "hist_budget %zu bytes is below the %llu bytes of occupancy maps of the smallest tree (2 levels)",
                b.p.hist_budget, oct_map_bytes(2));
    return -1;
  }
  b.t = t, b.src = d_src_pos, b.tgt = d_tgt_pos, b.ns = ns, b.nt = nt, b.pos_float = pos_float, b.stream = stream;
  /* Sources that are the targets (one array): the target tree is the source tree, built once; the
   * target pointers alias the source arrays. */
  b.same = d_src_pos == d_tgt_pos && ns == nt;
  b.ts = b.same ? 0 : 1;
  if (build_workspace(&b, err, errlen) || build_root_cube(&b, err, errlen) || build_choose_level(&b, err, errlen) ||
      build_other_hist(&b, err, errlen) || build_both_sets(&b, err, errlen) || build_list_lengths(&b, err, errlen) ||
      take_totals(&b, err, errlen) || build_lists(&b, err, errlen)) {
    reset_tree(t);
    return -1;
  }
  expose_tree(&b);
  return 0;
}

static void dbuf_free(oct_dbuf *b) {
  if (b->p) cudaFree(b->p);
  b->p = NULL;
  b->cap = 0;
}

extern "C" cudaError_t oct_exclusive_scan_gpu(oct_tree_gpu *t, int *d, int n, cudaStream_t stream) {
  if (!t->ws) return cudaErrorInvalidValue; /* no tree built yet */
  return scan_inplace((oct_ws *)t->ws, d, (size_t)n, stream);
}

extern "C" void oct_free_gpu(oct_tree_gpu *t) {
  if (!t) return;
  oct_ws *w = (oct_ws *)t->ws;
  if (w) {
    oct_dbuf *one[] = {&w->info, &w->part, &w->cub_tmp, &w->scan, &w->sort_tmp, &w->pkey[0], &w->pkey[1],
                       &w->rank[0], &w->rank[1], &w->bin[0], &w->bin[1], &w->start[0],
                       &w->start[1], &w->order[0], &w->order[1], &w->lbeg[0], &w->lbeg[1], &w->lend[0],
                       &w->lend[1], &w->nbr_start, &w->nbr};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) dbuf_free(one[i]);
    for (int l = 0; l <= VX_LMAX; l++) {
      for (int s = 0; s < 2; s++) {
        dbuf_free(&w->key[s][l]), dbuf_free(&w->map[s][l]);
        dbuf_free(&w->parent[s][l]), dbuf_free(&w->child[s][l]);
      }
      dbuf_free(&w->il_start[l]), dbuf_free(&w->il[l]);
    }
    if (w->h_info) cudaFreeHost(w->h_info);
    free(w);
  }
  memset(t, 0, sizeof *t);
}

/* Host copy of n elements (at least one allocated, as oct_build_cpu's oct_alloc does). */
static void *fetch(const void *d, size_t n, size_t elem, cudaError_t *e) {
  void *h = malloc((n ? n : 1) * elem);
  if (!h) {
    if (*e == cudaSuccess) *e = cudaErrorMemoryAllocation;
    return NULL;
  }
  if (n && *e == cudaSuccess) *e = cudaMemcpy(h, d, n * elem, cudaMemcpyDeviceToHost);
  return h;
}

extern "C" int oct_download_gpu(const oct_tree_gpu *g, oct_tree *t, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!g || !t || !g->ws || g->L < 2) {
    oct_set_err(err, errlen, "oct_download_gpu: no GPU tree");
    return -1;
  }
  memset(t, 0, sizeof *t);
  cudaError_t e = cudaDeviceSynchronize(); /* the build's stream is not known here */
  const int L = g->L;
  t->L = L, t->capped = g->capped, t->ns = g->ns, t->nt = g->nt, t->side = g->side;
  for (int k = 0; k < 3; k++) t->lo[k] = g->lo[k];
  for (int l = 0; l <= L; l++) {
    t->nsrc[l] = g->nsrc[l], t->ntgt[l] = g->ntgt[l];
    t->src_key[l] = (uint32_t *)fetch(g->src_key[l], (size_t)g->nsrc[l], sizeof(uint32_t), &e);
    t->tgt_key[l] = (uint32_t *)fetch(g->tgt_key[l], (size_t)g->ntgt[l], sizeof(uint32_t), &e);
    t->src_map[l] = (int *)fetch(g->src_map[l], cells_at(l), sizeof(int), &e);
    t->tgt_map[l] = (int *)fetch(g->tgt_map[l], cells_at(l), sizeof(int), &e);
    if (l >= 1) {
      t->src_parent[l] = (int *)fetch(g->src_parent[l], (size_t)g->nsrc[l], sizeof(int), &e);
      t->tgt_parent[l] = (int *)fetch(g->tgt_parent[l], (size_t)g->ntgt[l], sizeof(int), &e);
    }
    if (l < L) {
      t->src_child[l] = (int *)fetch(g->src_child[l], (size_t)g->nsrc[l] + 1, sizeof(int), &e);
      t->tgt_child[l] = (int *)fetch(g->tgt_child[l], (size_t)g->ntgt[l] + 1, sizeof(int), &e);
    }
    t->il_start[l] = (int *)fetch(g->il_start[l], (size_t)g->ntgt[l] + 1, sizeof(int), &e);
    if (l >= 2) t->il[l] = (int *)fetch(g->il[l], (size_t)g->n_il[l], sizeof(int), &e);
  }
  t->src_start = (int *)fetch(g->src_start, (size_t)g->nsrc[L] + 1, sizeof(int), &e);
  t->tgt_start = (int *)fetch(g->tgt_start, (size_t)g->ntgt[L] + 1, sizeof(int), &e);
  t->src_order = (int *)fetch(g->src_order, (size_t)g->ns, sizeof(int), &e);
  t->tgt_order = (int *)fetch(g->tgt_order, (size_t)g->nt, sizeof(int), &e);
  t->nbr_start = (int *)fetch(g->nbr_start, (size_t)g->ntgt[L] + 1, sizeof(int), &e);
  t->nbr = (int *)fetch(g->nbr, (size_t)g->n_nbr, sizeof(int), &e);
  if (e != cudaSuccess) {
    oct_set_err(err, errlen, "oct_download_gpu: %s", e == cudaErrorMemoryAllocation ? "out of host memory" : cudaGetErrorString(e));
    oct_free_cpu(t);
    return -1;
  }
  return 0;
}
