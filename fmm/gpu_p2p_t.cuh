/* gpu_p2p_t.cuh — P2P, the near field between adjacent leaves: k_p2p_fast<K, T>, templated on
 * precision (included by fmm_gpu.cu once per precision), the pair kernel K and the targets a thread
 * T (one: VX_P2P_T). Its arrangement, for the issue rate:
 *  - each source read from shared memory serves the thread's T targets from registers;
 *  - the warp runs only the slots holding targets (nt = 0..T, warp-uniform), so a chunk's ragged
 *    end costs no idle lanes beyond its last row;
 *  - the gradient for the whole warp when any of its targets needs it (no divergence between
 *    vortex elements and tracers; only gradient targets' rows are written);
 *  - pair_bs_split (pair_t.h): the gradient's -g ε α summed as g α, applied once at the end, the
 *    singular kernel's coincident pairs zeroed by one select on 1/r, and H's trace not summed;
 *  - a source staged as two (float) or three (double) vectors: two or three shared loads, not six;
 *  - each staged source's neighbour leaf by a forward-moving cursor, not a search from leaf 0,
 *    and the neighbour ranges loaded and scanned by a warp rather than by one thread;
 *  - launch bounds for 64 registers a thread in float, 8 small blocks per SM (4 in double);
 *  - a warp's only row, when it holds r <= 16 targets, split over the sources (p2p_row): k = 32/r
 *    rounded down to a power of two lanes a target, each summing every k-th source, added up by
 *    shuffles at the end. Leaves hold about as many targets as a chunk, so a leaf's last chunk is
 *    often a few targets, which would otherwise run the whole source list on a few lanes.
 * Blocks are the target chunks (CH targets of one leaf, the same chunk list as L2P), each run by
 * W = max(1, CH / 32T) warps; warp v's slot s of lane l is target v·32T + 32s + l of the chunk, but
 * in a split row target v·32T + 32s + l / k. */

/* Targets a thread: one, the source loop unrolled instead (VX_P2P_UNROLL1), the fastest
 * arrangement on rings, small sets and every pair kernel (docs/BENCHMARKS.md); two a thread gain
 * about 2 % on the largest uniform sets only, for twice the registers. */
#define VX_P2P_T 1

/* Sources per shared-memory tile: 6 KiB in float, 12 KiB in double, small enough that the SM holds
 * many one-warp blocks of small leaves at once. */
#define VX_P2P_FAST_TILE 256
/* Threads per block at most (CH = 128), and the blocks of that size an SM must hold, which caps
 * the registers: 64 a thread in float, 128 in double, whose accumulators alone are 15 reals. */
#define VX_P2P_FAST_THREADS 128
#define VX_P2P_FAST_MINB (sizeof(vx_real) == 4 ? 8 : 4)

#if defined(VX_FLOAT_INST)
/* A tile of staged sources: (x, y, z, αx) and (αy, αz), a 16- and an 8-byte load a source. */
typedef struct {
  float4 a[VX_P2P_FAST_TILE];
  float2 b[VX_P2P_FAST_TILE];
} VXF(p2p_tile);
__device__ static __forceinline__ void VXF(p2p_put)(VXF(p2p_tile) *t, int i, float x, float y, float z, float ax, float ay,
                                                    float az) {
  t->a[i] = make_float4(x, y, z, ax);
  t->b[i] = make_float2(ay, az);
}
__device__ static __forceinline__ void VXF(p2p_get)(const VXF(p2p_tile) *t, int j, float s[6]) {
  const float4 a = t->a[j];
  const float2 b = t->b[j];
  s[0] = a.x, s[1] = a.y, s[2] = a.z, s[3] = a.w, s[4] = b.x, s[5] = b.y;
}
#else
/* A tile of staged sources: (x, y), (z, αx), (αy, αz), three 16-byte loads a source. */
typedef struct {
  double2 a[VX_P2P_FAST_TILE], b[VX_P2P_FAST_TILE], c[VX_P2P_FAST_TILE];
} VXF(p2p_tile);
__device__ static __forceinline__ void VXF(p2p_put)(VXF(p2p_tile) *t, int i, double x, double y, double z, double ax,
                                                    double ay, double az) {
  t->a[i] = make_double2(x, y);
  t->b[i] = make_double2(z, ax);
  t->c[i] = make_double2(ay, az);
}
__device__ static __forceinline__ void VXF(p2p_get)(const VXF(p2p_tile) *t, int j, double s[6]) {
  const double2 a = t->a[j], b = t->b[j], c = t->c[j];
  s[0] = a.x, s[1] = a.y, s[2] = b.x, s[3] = b.y, s[4] = c.x, s[5] = c.y;
}
#endif

/* What k_p2p_fast reads and writes (ch: the chunk size). */
typedef struct {
  int kernel, want_grad, n_grad, ch;
  vx_real sigma;
  const int *nchunk, *chunk_leaf, *order, *sstart, *nbr_start, *nbr;
  const int2 *chunk_range;
  const vx_real *tx, *ty, *tz, *sx, *sy, *sz, *sax, *say, *saz;
  vx_real *vn, *gn;
} VXF(p2p_args);

/* A thread's T targets: positions, and the sums of pair_bs_split (u, H, w). */
template <int T>
struct VXF(p2p_acc) {
  vx_real x[T], y[T], z[T], u[T][3], H[T][8], w[T][3]; /* H[8]: pair_split_trace */
};

#ifndef VX_WARP_SCAN
#define VX_WARP_SCAN
/* The inclusive prefix sum of v over the 32 lanes of the calling warp (all of them present). */
__device__ static __forceinline__ int vx_warp_scan(int v) {
  const int lane = threadIdx.x & 31;
  for (int o = 1; o < 32; o <<= 1) {
    const int t = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += t;
  }
  return v;
}
#endif

/* Leaf b's neighbour leaves, by warp 0 (lane q loads leaf q's range; nb <= 27): box[q] = first
 * source of the q-th, pre[q] = sources before it, *total = pre[nb]. The caller syncs. */
__device__ static __forceinline__ void VXF(p2p_nbr_scan)(int b, const VXF(p2p_args) &A, int *pre, int *box, int *total) {
  const int lane = threadIdx.x;
  if (lane >= 32) return;
  const int nb = A.nbr_start[b + 1] - A.nbr_start[b];
  int beg = 0, cnt = 0;
  if (lane < nb) {
    const int s = A.nbr[A.nbr_start[b] + lane];
    beg = A.sstart[s], cnt = A.sstart[s + 1] - beg;
  }
  cnt = vx_warp_scan(cnt);
  if (lane < nb) box[lane] = beg, pre[lane + 1] = cnt;
  if (lane == 0) pre[0] = 0;
  if (lane == 31) *total = cnt;
}

/* Sources [c0, c0 + cnt) of the neighbour list into the tile, thread i taking c0 + i, c0 + i +
 * blockDim.x, ...; *q, the leaf of the thread's last source, only moves forward (pre ascends, and
 * so does each thread's source index across tiles), so a source's leaf costs a compare. */
__device__ static __forceinline__ void VXF(p2p_stage)(VXF(p2p_tile) *st, int c0, int cnt, const int *pre, const int *box,
                                                      int *q, const VXF(p2p_args) &A) {
  for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
    const int gi = c0 + i;
    while (pre[*q + 1] <= gi) ++*q;
    const int j = box[*q] + gi - pre[*q];
    VXF(p2p_put)(st, i, A.sx[j], A.sy[j], A.sz[j], A.sax[j], A.say[j], A.saz[j]);
  }
}

/* Whether the chunk's target i (tree order k) needs the gradient. */
__device__ static __forceinline__ int VXF(p2p_wants_grad)(const VXF(p2p_args) &A, int n, int i, int k) {
  return i < n && A.want_grad && A.order[k] < A.n_grad;
}

/* Which rows a warp runs and how its last row is split: nt rows (slots 0..nt-1, warp-uniform); the
 * last holds r targets, and when it is the warp's only row and r <= VX_P2P_SPLIT_MAX it is split,
 * k > 1 lanes a target (lane l: target l / k, sources ph = l % k, ph + k, ...); k = 1 otherwise. A
 * short row beside full ones stays whole: the full rows keep their pairing of T targets a load. */
#define VX_P2P_SPLIT_MAX 16
typedef struct {
  int w0, lane, nt, k, ph;
} VXF(p2p_row);

__device__ static __forceinline__ VXF(p2p_row) VXF(p2p_row_of)(int n, int T) {
  VXF(p2p_row) w;
  w.w0 = (threadIdx.x >> 5) * 32 * T, w.lane = threadIdx.x & 31;
  w.nt = min(T, max(0, (n - w.w0 + 31) / 32));
  const int r = n - w.w0 - 32 * (w.nt - 1), on = w.nt == 1;
  w.k = on && w.nt > 0 && r <= VX_P2P_SPLIT_MAX ? 1 << (31 - __clz(32 / r)) : 1;
  w.ph = w.lane & (w.k - 1);
  return w;
}

/* The chunk's index of the thread's target in slot s. */
__device__ static __forceinline__ int VXF(p2p_target)(const VXF(p2p_row) &w, int s) {
  return w.w0 + 32 * s + (s == w.nt - 1 ? w.lane / w.k : w.lane);
}

/* The thread's targets (slot s: target i = p2p_target of the chunk, k0 + i in tree order; beyond
 * the chunk's n, at the origin and never written) and zeroed sums. Returns whether any target of
 * the warp needs the gradient. */
template <int T>
__device__ static __forceinline__ int VXF(p2p_slots)(const VXF(p2p_args) &A, int k0, int n, const VXF(p2p_row) &w,
                                                     VXF(p2p_acc)<T> &a) {
  int any = 0;
#pragma unroll
  for (int s = 0; s < T; ++s) {
    const int i = VXF(p2p_target)(w, s), on = i < n, k = k0 + i;
    a.x[s] = on ? A.tx[k] : VX_R(0.0), a.y[s] = on ? A.ty[k] : VX_R(0.0), a.z[s] = on ? A.tz[k] : VX_R(0.0);
    any |= VXF(p2p_wants_grad)(A, n, i, k);
    for (int c = 0; c < 3; ++c) a.u[s][c] = a.w[s][c] = VX_R(0.0);
    for (int c = 0; c < 8; ++c) a.H[s][c] = VX_R(0.0);
  }
  return __any_sync(0xffffffffu, any);
}

/* The source loop's unrolling with one target in a row: 8, the fastest of 2, 4 and 8; a partial
 * row of several targets (NT > 1) interleaves their pairs instead and keeps 2. */
#define VX_P2P_UNROLL1 8
/* The pairs of a tile of cnt sources with the first NT of the thread's targets, the kernel K and
 * the gradient flag G fixed at compile time (as tile_sum), each source loaded once for all NT. */
template <int K, int G, int NT, int T>
__device__ static __forceinline__ void VXF(tile_sum_fast)(vx_real sigma, const VXF(p2p_tile) *st, int cnt,
                                                          VXF(p2p_acc)<T> &a) {
  constexpr int U = NT == 1 ? VX_P2P_UNROLL1 : 2;
#pragma unroll U
  for (int j = 0; j < cnt; ++j) {
    vx_real s[6];
    VXF(p2p_get)(st, j, s);
#pragma unroll
    for (int t = 0; t < NT; ++t)
      VXF(pair_bs_split)(K, sigma, a.x[t] - s[0], a.y[t] - s[1], a.z[t] - s[2], s[3], s[4], s[5], a.u[t],
                         G ? a.H[t] : NULL, a.w[t]);
  }
}
/* The pairs of slot S (a split row) with the tile's sources ph, ph + k, ... */
template <int K, int G, int S, int T>
__device__ static __forceinline__ void VXF(tile_sum_split)(vx_real sigma, const VXF(p2p_tile) *st, int cnt, int ph, int k,
                                                           VXF(p2p_acc)<T> &a) {
#pragma unroll 2
  for (int j = ph; j < cnt; j += k) {
    vx_real s[6];
    VXF(p2p_get)(st, j, s);
    VXF(pair_bs_split)(K, sigma, a.x[S] - s[0], a.y[S] - s[1], a.z[S] - s[2], s[3], s[4], s[5], a.u[S], G ? a.H[S] : NULL,
                       a.w[S]);
  }
}
/* The warp's NT = nt rows over the tile: all with every source, or the first NT - 1 so and the
 * last split (w.k > 1). */
template <int K, int G, int NT, int T>
__device__ static __forceinline__ void VXF(tile_rows)(const VXF(p2p_row) &w, vx_real sigma, const VXF(p2p_tile) *st, int cnt,
                                                      VXF(p2p_acc)<T> &a) {
  if (w.k == 1) {
    VXF(tile_sum_fast)<K, G, NT, T>(sigma, st, cnt, a);
    return;
  }
  if constexpr (NT > 1) VXF(tile_sum_fast)<K, G, NT - 1, T>(sigma, st, cnt, a);
  VXF(tile_sum_split)<K, G, NT - 1, T>(sigma, st, cnt, w.ph, w.k, a);
}
/* tile_rows for the warp's nt (1..T) rows holding targets: T itself unless the chunk ends in this warp. */
template <int K, int G, int T>
__device__ static __forceinline__ void VXF(tile_slots)(const VXF(p2p_row) &w, vx_real sigma, const VXF(p2p_tile) *st,
                                                       int cnt, VXF(p2p_acc)<T> &a) {
  static_assert(T == 1, "k_p2p_fast runs one target a thread (VX_P2P_T)");
  if (w.nt == T) VXF(tile_rows)<K, G, T, T>(w, sigma, st, cnt, a);
}
/* tile_slots with the gradient flag g fixed at compile time. */
template <int K, int T>
__device__ static __forceinline__ void VXF(tile_dispatch_fast)(int g, const VXF(p2p_row) &w, vx_real sigma,
                                                               const VXF(p2p_tile) *st, int cnt, VXF(p2p_acc)<T> &a) {
  if (g) VXF(tile_slots)<K, 1, T>(w, sigma, st, cnt, a);
  else VXF(tile_slots)<K, 0, T>(w, sigma, st, cnt, a);
}

/* A split row's sums (slot S) added up over each target's k lanes (aligned groups: xor shuffles),
 * in a fixed order, so every lane of the group holds its target's total. */
template <int S, int T>
__device__ static __forceinline__ void VXF(p2p_reduce_slot)(int k, int g, VXF(p2p_acc)<T> &a) {
  for (int o = k >> 1; o > 0; o >>= 1) {
#pragma unroll
    for (int c = 0; c < 3; ++c) a.u[S][c] += __shfl_xor_sync(0xffffffffu, a.u[S][c], o);
    if (!g) continue;
#pragma unroll
    for (int c = 0; c < 3; ++c) a.w[S][c] += __shfl_xor_sync(0xffffffffu, a.w[S][c], o);
#pragma unroll
    for (int c = 0; c < 8; ++c) a.H[S][c] += __shfl_xor_sync(0xffffffffu, a.H[S][c], o); /* H[8]: pair_split_trace */
  }
}
/* p2p_reduce_slot for the warp's last row, when split (warp-uniform). */
template <int T>
__device__ static __forceinline__ void VXF(p2p_reduce_split)(const VXF(p2p_row) &w, int g, VXF(p2p_acc)<T> &a) {
  if (w.k == 1) return;
  if (w.nt == 1) VXF(p2p_reduce_slot)<0, T>(w.k, g, a);
}

/* The thread's targets' velocity, and gradient (pair_split_grad) where wanted, into vn/gn
 * (un-prefixed). */
template <int T>
__device__ static __forceinline__ void VXF(p2p_write)(const VXF(p2p_args) &A, int k0, int n, const VXF(p2p_row) &w,
                                                      const VXF(p2p_acc)<T> &a) {
#pragma unroll
  for (int s = 0; s < T; ++s) {
    const int i = VXF(p2p_target)(w, s), k = k0 + i;
    if (i >= n || (s == w.nt - 1 && w.ph)) continue; /* a split row's target: its group's first lane */
    for (int c = 0; c < 3; ++c) A.vn[vx_off3(k, c)] = a.u[s][c];
    if (!VXF(p2p_wants_grad)(A, n, i, k)) continue;
    vx_real H[9], gr[9];
    for (int c = 0; c < 8; ++c) H[c] = a.H[s][c];
    VXF(pair_split_scale)(A.kernel, H);
    VXF(pair_split_trace)(H);
    VXF(pair_split_grad)(H, a.w[s], gr);
    for (int c = 0; c < 9; ++c) A.gn[vx_off9(k, c)] = gr[c];
  }
}

/* P2P: a block per target chunk, W warps of T targets a thread; a kernel per pair kernel K
 * (A.kernel), so that the Gaussian's registers do not constrain the singular one. */
template <int K, int T>
__global__ void __launch_bounds__(VX_P2P_FAST_THREADS, VX_P2P_FAST_MINB)
    VXF(k_p2p_fast)(const __grid_constant__ VXF(p2p_args) A) {
  __shared__ VXF(p2p_tile) st;
  __shared__ int pre[28], box[27], total;
  const int c = blockIdx.x;
  if (c >= *A.nchunk) return;
  const int b = A.chunk_leaf[c];
  VXF(p2p_nbr_scan)(b, A, pre, box, &total);
  const int k0 = A.chunk_range[c].x, n = A.chunk_range[c].y - k0;
  const VXF(p2p_row) w = VXF(p2p_row_of)(n, T);
  VXF(p2p_acc)<T> a;
  const int g = VXF(p2p_slots)<T>(A, k0, n, w, a);
  __syncthreads();
  const int ns = total;
  int q = 0;
  for (int c0 = 0; c0 < ns; c0 += VX_P2P_FAST_TILE) {
    const int cnt = min(VX_P2P_FAST_TILE, ns - c0);
    if (c0 > 0) __syncthreads(); /* the previous tile is read by every warp */
    VXF(p2p_stage)(&st, c0, cnt, pre, box, &q, A);
    __syncthreads();
    if (w.nt > 0) VXF(tile_dispatch_fast)<K, T>(g, w, A.sigma, &st, cnt, a);
  }
  VXF(p2p_reduce_split)<T>(w, g, a);
  VXF(p2p_write)<T>(A, k0, n, w, a);
}
