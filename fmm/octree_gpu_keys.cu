/* octree_gpu_keys.cu — the first steps of the GPU octree build (octree_gpu.cu): the bounding box of
 * sources ∪ targets, each particle's Morton key, and the occupancy histogram of design paper §2.1,
 * Algorithm 1 (PARALLEL-PSEUDO-SORT: atomicAdd(&bin[key], 1) gives each particle its rank within
 * its cell, so no sort is needed), computed at the trial levels of the level rule of octree.h until
 * one is taken, then for the other point set at the chosen level.
 *
 * Keys are computed once, at the deepest level a trial can reach: the key at a coarser level l is
 * that key >> 3(D-l), since oct_cell floors (x-lo)/side * 2^l and scaling by a power of two is exact.
 * A trial covers two levels when the finer one's histogram is small, the coarser level's occupancy
 * being the finer one's non-empty 8-groups. */
#include "octree_gpu_build.cuh"

#include <limits.h>
#include <math.h>

__device__ static inline double pos_at(const void *p, int pos_float, size_t j) {
  return pos_float ? (double)((const float *)p)[j] : ((const double *)p)[j];
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
/* ------------------------------------------------------------------------------------------------
 * Host side: steps 2-4 of oct_build_gpu */

/* The bounds of sources ∪ targets into *info on stream: k_bounds' per-block partials in part (8 doubles a
 * block, OCT_BOUNDS_BLOCKS at most), then k_bounds_final. 0, or -1 with err. */
static int launch_bounds(const void *sp, int ns, const void *tp, int nt, int pos_float, double *part, oct_info *info,
                         cudaStream_t stream, char *err, size_t errlen) {
  const long long nb = ((long long)ns + nt + OCT_THREADS - 1) / OCT_THREADS;
  const unsigned nbb = (unsigned)(nb < 1 ? 1 : nb < OCT_BOUNDS_BLOCKS ? nb : OCT_BOUNDS_BLOCKS);
  k_bounds<<<nbb, OCT_THREADS, 0, stream>>>(sp, ns, tp, nt, pos_float, part);
  VX_CU_LAUNCH(k_bounds);
  k_bounds_final<<<1, OCT_THREADS, 0, stream>>>(part, (int)nbb, info);
  VX_CU_LAUNCH(k_bounds_final);
  return 0;
fail:
  return -1;
}

/* Step 2: the root cube: exact min/max on the device, the cube on the host with oct_root_cube. */
int oct_gpu_root_cube(oct_build *b, char *err, size_t errlen) {
  oct_tree_gpu *t = b->t;
  if (launch_bounds(b->src, b->ns, b->tgt, b->same ? 0 : b->nt, b->pos_float, (double *)b->w->part.p, b->info, b->stream,
                    err, errlen))
    return -1;
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
  if (b->p.cube_side > 0.0) {
    if (oct_given_cube(&b->p, b->h->mn, b->h->mx, t->lo, &t->side, err, errlen)) return -1;
  } else if (oct_root_cube(b->h->mn, b->h->mx, t->lo, &t->side) != 0) {
    oct_set_err(err, errlen, "coordinates too large for a bounding cube (extent overflows)");
    return -1;
  }
  b->cube.lo[0] = t->lo[0], b->cube.lo[1] = t->lo[1], b->cube.lo[2] = t->lo[2];
  b->cube.inv_side = 1.0 / t->side;
  return 0;
fail:
  return -1;
}

extern "C" size_t oct_bounds_scratch_gpu(void) { return sizeof(double) * 8 * OCT_BOUNDS_BLOCKS + sizeof(oct_info); }

extern "C" int oct_bounds_gpu(const void *d_pos, int n, int pos_float, void *d_scratch, double mn[3], double mx[3], int *bad,
                              char *err, size_t errlen) {
  double *part = (double *)d_scratch;
  oct_info *info = (oct_info *)(part + 8 * OCT_BOUNDS_BLOCKS), h;
  if (launch_bounds(d_pos, n, NULL, 0, pos_float, part, info, 0, err, errlen)) return -1;
  VX_CU(cudaMemcpy(&h, info, sizeof h, cudaMemcpyDeviceToHost));
  for (int k = 0; k < 3; k++) mn[k] = h.mn[k], mx[k] = h.mx[k];
  *bad = h.bad[0] == INT_MAX ? -1 : h.bad[0];
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

/* Another rule (oct_params.choose_level_dev: the cost model of cost.h, from device statistics)
 * picks among the candidates: its choice is used as a forced level, as oct_build_cpu does with
 * choose_level. */
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
int oct_gpu_choose_level(oct_build *b, char *err, size_t errlen) {
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
int oct_gpu_other_hist(oct_build *b, char *err, size_t errlen) {
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

