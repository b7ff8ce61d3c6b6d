/* gpu_corr_t.cuh — the regularization corrections (docs/MATH.md §10) on the GPU, templated on
 * precision (included by fmm_gpu.cu once per precision, after gpu_p2p_t.cuh, whose warp scan it
 * uses): k_corr adds, for every pair closer than r_cut outside the adjacent leaves, the regularized
 * kernel minus the singular one to the near field's sums. */

/* Sources per shared-memory tile of k_corr: 24 KiB in float and in double. */
#undef VX_CORR_TILE
#define VX_CORR_TILE (sizeof(vx_real) == 4 ? 1024 : 512)

/* The regularized-minus-singular kernel over a tile (pair_bs_regdiff), with the kernel K and the
 * gradient flag G fixed at compile time so that the pair's switch and test fold away in the loop. */
template <int K, int G>
__device__ static __forceinline__ void VXF(tile_corr)(vx_real sigma, vx_real rc2, vx_real x, vx_real y, vx_real z,
                                                      const vx_real *sh, int stride, int cnt, vx_real *u, vx_real *gr) {
#pragma unroll 4
  for (int j = 0; j < cnt; ++j)
    VXF(pair_bs_regdiff)(K, sigma, rc2, x - sh[j], y - sh[stride + j], z - sh[2 * stride + j], sh[3 * stride + j],
                         sh[4 * stride + j], sh[5 * stride + j], u, G ? gr : NULL);
}
__device__ static __forceinline__ void VXF(corr_dispatch)(int kernel, int g, vx_real sigma, vx_real rc2, vx_real x, vx_real y,
                                                          vx_real z, const vx_real *sh, int stride, int cnt, vx_real *u,
                                                          vx_real *gr) {
  switch (2 * kernel + (g ? 1 : 0)) { /* the singular kernel has nothing to correct */
  case 2: VXF(tile_corr)<1, 0>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 3: VXF(tile_corr)<1, 1>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 4: VXF(tile_corr)<2, 0>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 5: VXF(tile_corr)<2, 1>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 6: VXF(tile_corr)<3, 0>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 7: VXF(tile_corr)<3, 1>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 8: VXF(tile_corr)<4, 0>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 9: VXF(tile_corr)<4, 1>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  default: break;
  }
}

#ifndef VX_CORR_SCAN
#define VX_CORR_SCAN
/* The exclusive prefix sum of v over the block (blockDim.x a multiple of 32, at most 1024), the block's
 * total into *total; wsum: 32 ints of shared memory. Every thread of the block calls it. */
__device__ static __forceinline__ int vx_corr_block_scan(int v, int *wsum, int *total) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const int incl = vx_warp_scan(v);
  if (lane == 31) wsum[w] = incl;
  __syncthreads();
  if (w == 0) {
    const int x = vx_warp_scan(lane < nw ? wsum[lane] : 0);
    __syncwarp();
    if (lane < nw) wsum[lane] = x;
  }
  __syncthreads();
  const int ex = incl - v + (w > 0 ? wsum[w - 1] : 0);
  *total = wsum[nw - 1];
  __syncthreads(); /* wsum is free again */
  return ex;
}
#endif

/* Regularization corrections (docs/MATH.md §10), the twin of the CPU engine's cpu_corr_leaves +
 * cpu_corr_leaf: a block per target chunk, a thread per target. The candidates are the source
 * leaves under the 27 level-Lc boxes around the leaf's ancestor (oct_reach_range, a thread a box),
 * in box order; the block's threads test blockDim of them at a time with oct_leaf_reach (within the
 * velocity-only cut-off where no target of the chunk needs the gradient, as the CPU does by leaf)
 * and a block scan appends the accepted ones to the queue in candidate order, until VX_CORR_LEAVES
 * could overflow; the block then stages the queued leaves' sources through shared memory in tiles,
 * and each thread adds pair_bs_regdiff for its target; again until the candidates are exhausted.
 * The same leaves in the same order as a walk by one warp would take, without the block waiting at
 * its barriers for that warp. Adds (un-prefixed) into vn/gn after P2P on the same stream. */
#define VX_CORR_LEAVES 256
/* k_corr's shared memory: the tile of staged sources; the queue of accepted leaves (leaf, its first
 * source, the queue's sources before it); the 27 boxes' first leaves and running counts; the block
 * scan's scratch. */
typedef struct {
  vx_real st[6][VX_CORR_TILE];
  int pre[VX_CORR_LEAVES + 1], leaf[VX_CORR_LEAVES], beg[VX_CORR_LEAVES], rs[27], rpre[28], wsum[32];
} VXF(corr_shared);

/* The source leaves under the 27 level-Lc boxes around target leaf tk's ancestor (a thread a box, its
 * two binary searches): into sh->rs and the running counts sh->rpre. Returns their number (every
 * thread of the block calls it). */
__device__ static __forceinline__ int VXF(corr_ranges)(VXF(corr_shared) *sh, int L, int Lc, uint32_t tk,
                                                       const uint32_t *skey, int nsleaf) {
  if (threadIdx.x < 27) {
    int qa, qb;
    oct_reach_range(L, Lc, tk, threadIdx.x, skey, nsleaf, &qa, &qb);
    sh->rs[threadIdx.x] = qa, sh->rpre[threadIdx.x + 1] = qb - qa;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sh->rpre[0] = 0;
    for (int q = 0; q < 27; ++q) sh->rpre[q + 1] += sh->rpre[q];
  }
  __syncthreads();
  return sh->rpre[27];
}

/* From candidate *cur on, blockDim at a time in candidate order, the leaves oct_leaf_reach accepts
 * into the queue (a block scan keeps their order) until VX_CORR_LEAVES could overflow; then each
 * queued leaf's first source and the sources before it (sh->beg, sh->pre; sh->pre[n] the total).
 * Returns the queue's length n; the total in *total. Every thread calls it; synced on return. */
__device__ static __forceinline__ int VXF(corr_queue)(VXF(corr_shared) *sh, uint32_t tk, const uint32_t *skey,
                                                      const int *sstart, double reach2, int T, int *cur,
                                                      int *total) {
  const int bd = blockDim.x;
  int n = 0, tot;
  while (*cur < T && n <= VX_CORR_LEAVES - bd) {
    const int cand = *cur + threadIdx.x;
    int ok = 0, s = 0;
    if (cand < T) {
      int q = 0;
      while (sh->rpre[q + 1] <= cand) ++q;
      s = sh->rs[q] + cand - sh->rpre[q];
      ok = oct_leaf_reach(tk, skey[s], reach2);
    }
    const int pos = vx_corr_block_scan(ok, sh->wsum, &tot);
    if (ok) sh->leaf[n + pos] = s;
    n += tot, *cur += bd;
  }
  __syncthreads();
  int base = 0;
  for (int i0 = 0; i0 < n; i0 += bd) {
    const int i = i0 + threadIdx.x, s = i < n ? sh->leaf[i] : 0, cnt = i < n ? sstart[s + 1] - sstart[s] : 0;
    const int ex = vx_corr_block_scan(cnt, sh->wsum, &tot);
    if (i < n) sh->pre[i] = base + ex, sh->beg[i] = sstart[s];
    base += tot;
  }
  if (threadIdx.x == 0) sh->pre[n] = base;
  __syncthreads();
  *total = base;
  return n;
}

/* The queue's sources [c0, c0 + cnt) into the tile, thread i taking c0 + i, c0 + i + blockDim.x, ...;
 * each finds its queued leaf by bisection in sh->pre[0..nq). */
__device__ static __forceinline__ void VXF(corr_stage)(VXF(corr_shared) *sh, int c0, int cnt, int nq, const vx_real *sx,
                                                       const vx_real *sy, const vx_real *sz, const vx_real *sax,
                                                       const vx_real *say, const vx_real *saz) {
  for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
    const int gi = c0 + i;
    int lo = 0, hi = nq - 1; /* the queued leaf holding gi: pre[lo] <= gi < pre[lo + 1] */
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (sh->pre[mid] <= gi) lo = mid;
      else hi = mid - 1;
    }
    const int j = sh->beg[lo] + gi - sh->pre[lo];
    sh->st[0][i] = sx[j]; sh->st[1][i] = sy[j]; sh->st[2][i] = sz[j];
    sh->st[3][i] = sax[j]; sh->st[4][i] = say[j]; sh->st[5][i] = saz[j];
  }
}

__global__ void VXF(k_corr)(int kernel, vx_real sigma, vx_real rc2g, vx_real rc2v, double reach2g, double reach2v, int L, int Lc,
                            int want_grad, int n_grad, const int *nchunk, const int *chunk_leaf,
                            const int2 *chunk_range, const int *order, const uint32_t *tkey, int nsleaf,
                            const uint32_t *skey, const int *sstart, const vx_real *tx,
                            const vx_real *ty, const vx_real *tz, const vx_real *sx, const vx_real *sy, const vx_real *sz,
                            const vx_real *sax, const vx_real *say, const vx_real *saz, vx_real *vn, vx_real *gn) {
  __shared__ VXF(corr_shared) sh;
  const int c = blockIdx.x;
  if (c >= *nchunk) return;
  const uint32_t tk = tkey[chunk_leaf[c]];
  const int k = chunk_range[c].x + threadIdx.x;
  const int active = k < chunk_range[c].y;
  const int gk = active && want_grad && order[k] < n_grad;
  const vx_real rc2 = gk ? rc2g : rc2v; /* velocity-only targets: the shorter cut-off */
  /* a chunk is of one kind (k_chunk_fill): velocity-only chunks walk the leaves within their cut-off */
  const double reach2 = want_grad && order[chunk_range[c].x] < n_grad ? reach2g : reach2v;
  const vx_real x = active ? tx[k] : VX_R(0.0), y = active ? ty[k] : VX_R(0.0), z = active ? tz[k] : VX_R(0.0);
  vx_real u[3] = {0, 0, 0}, gr[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  const int T = VXF(corr_ranges)(&sh, L, Lc, tk, skey, nsleaf);
  for (int cur = 0;;) {
    int total;
    const int nq = VXF(corr_queue)(&sh, tk, skey, sstart, reach2, T, &cur, &total);
    for (int c0 = 0; c0 < total; c0 += (int)VX_CORR_TILE) {
      const int cnt = min((int)VX_CORR_TILE, total - c0);
      if (c0 > 0) __syncthreads();
      VXF(corr_stage)(&sh, c0, cnt, nq, sx, sy, sz, sax, say, saz);
      __syncthreads();
      if (active) VXF(corr_dispatch)(kernel, gk, sigma, rc2, x, y, z, &sh.st[0][0], (int)VX_CORR_TILE, cnt, u, gr);
    }
    __syncthreads(); /* everyone is done with the queue and the tile before they are refilled */
    if (cur >= T) break;
  }
  if (active) {
    for (int i = 0; i < 3; ++i) vn[vx_off3(k, i)] += u[i];
    if (gk) for (int i = 0; i < 9; ++i) gn[vx_off9(k, i)] += gr[i];
  }
}
