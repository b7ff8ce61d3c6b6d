/* octree_gpu_levels.cu — the boxes of every level of the GPU octree (step 5 of oct_build_gpu,
 * octree_gpu.cu) and the per-leaf sort of the particles (step 7's first part), from the histograms
 * and ranks of octree_gpu_keys.cu:
 *   leaves   scan of the dense histogram packed as (count << 32 | occupied): box offsets and compact
 *            box indices in one pass; emit keys, starts, the map; scatter by offset + rank (design
 *            paper §2.1, Algorithm 1); sort each leaf by original index (a warp per leaf; longer
 *            leaves by a block, the longest by CUB's segmented sort)
 *   coarser  the same packed scan over the dense cells of each coarser level, counting non-empty
 *            children in the finer map; levels of at most OCT_SMALL_CELLS cells in one single-block
 *            kernel; then every box's parent. */
#include "octree_gpu_build.cuh"

#include <cub/block/block_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <string.h>

__device__ static inline int lo32(u64 v) { return (int)(unsigned)(v & 0xffffffffull); }
__device__ static inline int hi32(u64 v) { return (int)(unsigned)(v >> 32); }

/* Non-empty children of cell k, read from the finer level's map (8 consecutive entries). */
__device__ static inline int nonempty_children(const int *map1, size_t k) {
  const int4 *q = (const int4 *)(map1 + 8 * k);
  int4 a = q[0], b = q[1];
  return (a.x >= 0) + (a.y >= 0) + (a.z >= 0) + (a.w >= 0) + (b.x >= 0) + (b.y >= 0) + (b.z >= 0) + (b.w >= 0);
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

/* Step 5: leaves and coarser levels of both sets (build_set). */
int oct_gpu_both_sets(oct_build *b, char *err, size_t errlen) {
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
/* Step 7's first part, once the long-leaf counts are on the host: each set's leaves longer than a
 * warp sorts (sort_long_leaves). */
int oct_gpu_sort_long_leaves(oct_build *b, char *err, size_t errlen) {
  oct_ws *w = b->w;
  const int ts = b->ts;
  for (int s = 0; s <= ts; s++)
    if (b->h->nlong[s] + b->h->nhuge[s] > 0 &&
        sort_long_leaves(w, s, s ? b->nt : b->ns, b->h->nlong[s], b->h->nhuge[s], b->stream, err, errlen) != 0)
      return -1;
  return 0;
}
