/* gpu_leaf_t.cuh — sources and targets gathered into tree order, and the target chunks that the
 * leaf kernels (P2P, the corrections, L2P) run a block each on; templated on precision (included
 * by fmm_gpu.cu once per precision). */

/* Box-ordered SoA from interleaved input. */
__global__ void VXF(k_gather)(const vx_real *pos, const vx_real *str, const int *order, int n, vx_real *x, vx_real *y,
                              vx_real *z, vx_real *ax, vx_real *ay, vx_real *az) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int i = order[k];
  x[k] = pos[vx_off3(i, 0)]; y[k] = pos[vx_off3(i, 1)]; z[k] = pos[vx_off3(i, 2)];
  if (str) { ax[k] = str[vx_off3(i, 0)]; ay[k] = str[vx_off3(i, 1)]; az[k] = str[vx_off3(i, 2)]; }
}

/* Target chunks: leaf b's targets are split into blocks of at most CH (= blockDim.x), so a leaf of
 * thousands of targets (levels capped by a large core) spreads over many blocks and a small leaf
 * costs one. A leaf's targets are in index order (the octree sorts each leaf), so those that want
 * the gradient (index < n_grad: the elements before the tracers) come first; they get chunks of
 * their own, ceil(g_b / CH), and the rest ceil((n_b - g_b) / CH): a chunk is then all gradient or
 * all velocity-only targets, and the velocity-only ones (a scene's tracers) neither wait in their
 * warps and blocks for the gradient's longer pair sums nor walk its longer cut-off (k_corr).
 * Every gradient chunk comes before every velocity-only one (leaf b's at cnt[b] and cnt[nbox + b]
 * once the caller has scanned cnt's 2 nbox + 1 counts; cnt[2 nbox], the total): the blocks of the
 * near-field kernels start in chunk order, so the few long ones (the elements' gradient sums) start
 * first and the many short ones fill in beside them, instead of a long one starting last and
 * running alone. */
__device__ static __forceinline__ int VXF(leaf_grad_end)(const int *start, int b, const int *order, int n_grad) {
  int lo = start[b], hi = start[b + 1]; /* the first k with order[k] >= n_grad */
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (order[mid] < n_grad) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
__global__ void VXF(k_chunk_count)(int nbox, const int *start, const int *order, int n_grad, int ch, int *cnt) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nbox) {
    const int g = VXF(leaf_grad_end)(start, b, order, n_grad);
    cnt[b] = (g - start[b] + ch - 1) / ch, cnt[nbox + b] = (start[b + 1] - g + ch - 1) / ch;
  } else if (b == nbox) cnt[2 * nbox] = 0;
}
/* Each chunk's leaf and its targets [range.x, range.y), in tree order. */
__global__ void VXF(k_chunk_fill)(int nbox, const int *off, const int *start, const int *order, int n_grad, int ch,
                                  int *leaf, int2 *range) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nbox) return;
  const int g = VXF(leaf_grad_end)(start, b, order, n_grad);
  int c = off[b];
  for (int k = start[b]; k < g; k += ch, ++c) leaf[c] = b, range[c] = make_int2(k, min(k + ch, g));
  c = off[nbox + b];
  for (int k = g; k < start[b + 1]; k += ch, ++c) leaf[c] = b, range[c] = make_int2(k, min(k + ch, start[b + 1]));
}
