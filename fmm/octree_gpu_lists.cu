/* octree_gpu_lists.cu — the neighbour and interaction lists of the GPU octree (steps 6 and 7 of
 * oct_build_gpu, octree_gpu.cu), the same lists in the same order as octree_cpu.c's: a warp per
 * target box (27 lanes, one per adjacent cell), count kernels over upper bounds of the box counts,
 * in-place scans, one copy of all totals to the host, then fill kernels; entries in ascending box
 * index, by ranking within the warp. */
#include "octree_gpu_build.cuh"

#include <stdlib.h>
#include <string.h>

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

/* Step 6: list lengths — counts over upper bounds of the target box counts, scans, the totals back. */
int oct_gpu_list_lengths(oct_build *b, char *err, size_t errlen) {
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

/* Step 7 (after oct_gpu_sort_long_leaves): the neighbour and interaction lists written. */
int oct_gpu_lists(oct_build *b, char *err, size_t errlen) {
  oct_tree_gpu *t = b->t;
  oct_ws *w = b->w;
  oct_info *info = b->info;
  const int L = b->L, ts = b->ts;
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

