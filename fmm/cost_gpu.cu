/* cost_gpu.cu — the level-choosing cost model on the CUDA backend: the statistics of fmm_cost_stats_build
 * (fmm/cost.c, docs/MATH.md §11) computed on the device from the device positions, so that the GPU
 * picks its level with the same model and the same choice (fmm_cost_best_level) as the CPU and no
 * particle leaves the device. Steps, all on the build's stream:
 *   hist     the dense histogram of the deepest candidate level (atomic increments, oct_cell cells)
 *   levels   per level, finest first, one kernel over the parent cells: the near-field terms of
 *            their children (non-empty boxes, pairs, neighbour entries: fmm_cost_cell_fine), the
 *            M2L term (fmm_cost_cell_far), the counts summed into the parents (fmm_cost_children) —
 *            the per-cell functions of cost.h, the ones the CPU twin in tests/test_fmm_cost.c runs
 *   back     per-level sums in 64-bit device counters, copied back once (at most 440 bytes).
 * The host build sums the same cells separably (box27 in cost.c); the counts are integers, so the
 * two agree exactly — tests/gpu_test_cost.c checks it. */
#include "cost.h"
#include "cuda_check.h"
#include "fmm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CG_THREADS 256
#define CG_MAX_BLOCKS 2048

typedef unsigned long long u64;

/* The sums kept per level, in device counters [VX_LMAX + 1][CG_TERMS]. */
enum { CG_NSB, CG_NTB, CG_PAIRS, CG_NBR, CG_FAR, CG_TERMS };

/* The last choice and what it was made for (fmm_cost_choose_level_gpu keeps it). */
typedef struct {
  int uses;                  /* builds it served; 0: none kept */
  int L, ns, nt, lo, hi, order, gradient;
  double side;
  unsigned generation;       /* fmm_cost_generation() when it was made */
} cg_memo;

struct fmm_cost_gpu {
  void *grid[2][2]; /* [sources, targets][ping-pong]: counts per cell, 8^top ints */
  size_t cap[2][2];
  void *acc;        /* u64 [VX_LMAX + 1][CG_TERMS] */
  size_t acc_cap;
  cg_memo memo;
};

typedef struct {
  double lo[3];
} cg_cube;

static unsigned cg_blocks(size_t n) {
  const size_t b = (n + CG_THREADS - 1) / CG_THREADS;
  return (unsigned)(b < 1 ? 1 : b > CG_MAX_BLOCKS ? CG_MAX_BLOCKS : b);
}

/* ------------------------------------------------------------------------------------------------
 * Kernels (grid-stride; every thread reaches the warp sums) */

/* Warp sum of v, added by lane 0 to *dst. */
__device__ static void cg_add(u64 *dst, long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0 && v) atomicAdd(dst, (u64)v);
}

__global__ static void k_cost_hist(const void *pos, int pos_float, int n, cg_cube cube, double inv_side, int l, int *h) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)n; i += (size_t)gridDim.x * blockDim.x)
    atomicAdd(&h[fmm_cost_cell_of(pos, pos_float, i, cube.lo, inv_side, l)], 1);
}

/* Level l in one pass over its (m/2)³ parent cells: the near-field terms of each parent's 8 children
 * (fmm_cost_cell_fine) into acc[CG_NSB..CG_NBR], the M2L term before the neighbours come off
 * (fmm_cost_cell_far) into acc[CG_FAR], and each parent's counts (fmm_cost_children) into Sc and Tc
 * (Tc unused when the sources are the targets). */
__global__ static void k_cost_level(const int *S, const int *T, int m, int same, int *Sc, int *Tc, u64 *acc) {
  const int h = m / 2;
  const size_t h3 = (size_t)h * h * h;
  long long a[4] = {0, 0, 0, 0}, far = 0;
  for (size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c < h3; c += (size_t)gridDim.x * blockDim.x) {
    const int x = (int)(c % h), y = (int)((c / h) % h), z = (int)(c / ((size_t)h * h));
    for (int q = 0; q < 8; q++) fmm_cost_cell_fine(S, T, m, 2 * x + (q & 1), 2 * y + ((q >> 1) & 1), 2 * z + (q >> 2), a);
    far += fmm_cost_cell_far(S, T, m, x, y, z);
    Sc[c] = fmm_cost_children(S, m, x, y, z, 0);
    if (!same) Tc[c] = fmm_cost_children(T, m, x, y, z, 0);
  }
  for (int k = 0; k < 4; k++) cg_add(&acc[CG_NSB + k], a[k]);
  cg_add(&acc[CG_FAR], far);
}

/* ------------------------------------------------------------------------------------------------
 * Host side */

extern "C" fmm_cost_gpu *fmm_cost_gpu_create(void) { return (fmm_cost_gpu *)calloc(1, sizeof(fmm_cost_gpu)); }

extern "C" void fmm_cost_gpu_forget(fmm_cost_gpu *g) {
  if (g) g->memo.uses = 0;
}

extern "C" void fmm_cost_gpu_destroy(fmm_cost_gpu *g) {
  if (!g) return;
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 2; k++)
      if (g->grid[s][k]) cudaFree(g->grid[s][k]);
  if (g->acc) cudaFree(g->acc);
  free(g);
}

/* What one statistics pass shares. */
typedef struct {
  fmm_cost_gpu *g;
  cudaStream_t stream;
  int top, same;
} cg_pass;

/* The grids (two per set; one set when the sources are the targets) and the counters, zeroed. A
 * grown buffer replaces one that earlier work on the stream may still read: wait for it first (only
 * then: a wait costs the small evaluations a tenth of their time). */
static int cg_reserve(cg_pass *P, char *err, size_t errlen) {
  fmm_cost_gpu *g = P->g;
  const size_t bytes = ((size_t)1 << (3 * P->top)) * sizeof(int), acc = (VX_LMAX + 1) * CG_TERMS * sizeof(u64);
  int grows = g->acc_cap < acc;
  for (int s = 0; s < (P->same ? 1 : 2); s++)
    for (int k = 0; k < 2; k++) grows |= g->cap[s][k] < bytes;
  if (grows) VX_CUR(cudaStreamSynchronize(P->stream));
  for (int s = 0; s < (P->same ? 1 : 2); s++)
    for (int k = 0; k < 2; k++) VX_CUR(vx_dev_reserve(&g->grid[s][k], &g->cap[s][k], bytes));
  VX_CUR(vx_dev_reserve(&g->acc, &g->acc_cap, acc));
  VX_CUR(cudaMemsetAsync(g->acc, 0, acc, P->stream));
  for (int s = 0; s < (P->same ? 1 : 2); s++) VX_CUR(cudaMemsetAsync(g->grid[s][0], 0, bytes, P->stream));
  return 0;
}

/* The histograms of level top. */
static int cg_hist(cg_pass *P, const void *d_src, int ns, const void *d_tgt, int nt, int pos_float, const double lo[3],
                   double side, char *err, size_t errlen) {
  cg_cube cube;
  for (int k = 0; k < 3; k++) cube.lo[k] = lo[k];
  for (int s = 0; s < (P->same ? 1 : 2); s++) {
    const int n = s ? nt : ns;
    k_cost_hist<<<cg_blocks((size_t)n), CG_THREADS, 0, P->stream>>>(s ? d_tgt : d_src, pos_float, n, cube, 1.0 / side,
                                                                     P->top, (int *)P->g->grid[s][0]);
    VX_CUR_LAUNCH(k_cost_hist);
  }
  return 0;
}

/* Levels top..2, a launch each: the level's terms into its counters and its counts summed into the
 * parents (in the other grid of each set). */
static int cg_levels(cg_pass *P, char *err, size_t errlen) {
  fmm_cost_gpu *g = P->g;
  int cur = 0;
  for (int l = P->top; l >= 2; l--, cur = !cur) {
    const int m = 1 << l;
    const int *S = (const int *)g->grid[0][cur], *T = P->same ? S : (const int *)g->grid[1][cur];
    int *Sc = (int *)g->grid[0][!cur], *Tc = P->same ? Sc : (int *)g->grid[1][!cur];
    k_cost_level<<<cg_blocks((size_t)1 << (3 * (l - 1))), CG_THREADS, 0, P->stream>>>(
        S, T, m, P->same, Sc, Tc, (u64 *)g->acc + (size_t)l * CG_TERMS);
    VX_CUR_LAUNCH(k_cost_level);
  }
  return 0;
}

/* The counters back to the host (the pass's one wait), into s. */
static int cg_readback(cg_pass *P, fmm_cost_stats *s, char *err, size_t errlen) {
  u64 h[VX_LMAX + 1][CG_TERMS];
  VX_CUR(cudaMemcpyAsync(h, P->g->acc, sizeof h, cudaMemcpyDeviceToHost, P->stream));
  VX_CUR(cudaStreamSynchronize(P->stream));
  for (int l = 2; l <= P->top; l++) {
    s->nsrc[l] = (long long)h[l][CG_NSB], s->ntgt[l] = (long long)h[l][CG_NTB];
    s->p2p[l] = (long long)h[l][CG_PAIRS], s->nbr[l] = (long long)h[l][CG_NBR];
    s->m2l[l] = (long long)h[l][CG_FAR] - s->nbr[l];
  }
  return 0;
}

extern "C" int fmm_cost_stats_build_gpu(fmm_cost_gpu *g, const void *d_src_pos, int ns, const void *d_tgt_pos, int nt,
                                        int pos_float, const double lo[3], double side, int top, void *stream,
                                        fmm_cost_stats *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  if (top < 2) top = 2;
  if (top > FMM_COST_LMAX) top = FMM_COST_LMAX;
  s->top = top, s->ns = ns, s->nt = nt;
  cg_pass P;
  P.g = g, P.stream = (cudaStream_t)stream, P.top = top;
  P.same = d_src_pos == d_tgt_pos && ns == nt; /* as the host build: the one set counted once */
  if (cg_reserve(&P, err, errlen) || cg_hist(&P, d_src_pos, ns, d_tgt_pos, nt, pos_float, lo, side, err, errlen) ||
      cg_levels(&P, err, errlen) || cg_readback(&P, s, err, errlen))
    return -1;
  return 0;
}

/* The memo m holds a choice for these builds' arguments (fmm_cost.h, FMM_COST_KEEP_BUILDS). */
static int cg_memo_serves(const cg_memo *m, const fmm_ctx *ctx, int ns, int nt, int lo, int hi, double side) {
  return m->uses > 0 && m->uses < FMM_COST_KEEP_BUILDS && m->ns == ns && m->nt == nt && m->lo == lo && m->hi == hi &&
         m->order == ctx->prm.order && m->gradient == ctx->prm.gradient && fabs(side / m->side - 1.0) <= 0.01 &&
         m->generation == fmm_cost_generation();
}

extern "C" int fmm_cost_choose_level_gpu(const void *arg, const void *d_src_pos, int ns, const void *d_tgt_pos, int nt,
                                         int pos_float, const double lo[3], double side, int lo_level, int hi_level,
                                         void *stream, char *err, size_t errlen) {
  const fmm_ctx *ctx = (const fmm_ctx *)arg;
  if (!ctx->cost_gpu || !fmm_cost_table(ctx->prm.backend, ctx->prm.precision) || ns <= 0 || nt <= 0) return 0;
  const int top = hi_level < FMM_COST_LMAX ? hi_level : FMM_COST_LMAX;
  if (lo_level > top) return 0;
  cg_memo *m = &ctx->cost_gpu->memo;
  if (cg_memo_serves(m, ctx, ns, nt, lo_level, hi_level, side)) return m->uses++, m->L;
  fmm_cost_stats s;
  if (fmm_cost_stats_build_gpu(ctx->cost_gpu, d_src_pos, ns, d_tgt_pos, nt, pos_float, lo, side, top, stream, &s, err,
                               errlen))
    return -1;
  const int L = fmm_cost_best_level(ctx, &s, lo_level, hi_level);
  *m = (cg_memo){1, L, ns, nt, lo_level, hi_level, ctx->prm.order, ctx->prm.gradient, side, fmm_cost_generation()};
  return L;
}
