/* octree_gpu.cu — the octree of octree.h built entirely on the GPU (design paper §2.1, Algorithm 1;
 * the neighbour and interaction lists are built on the device too): the driver, which runs the
 * build's steps in order, exposes the tree, frees it and downloads it for tests. The result is
 * identical to oct_build_cpu's, array for array: both compute the root cube with oct_root_cube and
 * the level cap with oct_level_cap (octree.h) from the same exact min/max, put every point in its
 * cell with oct_cell (double arithmetic, one shared inline function), choose the level by the same
 * rule (oct_level_first / oct_level_trials / oct_level_accept, octree.h, or a choose_level_dev
 * callback such as the cost model's, taken with oct_level_take), and put each leaf's particles in
 * ascending original index.
 *
 * Steps (all on `stream`; three small host round trips for uniform data: the bounding box, the
 * level trial's occupancy counts, the box counts and list lengths):
 *   1 workspace     grown buffers and zeroed counters (here)
 *   2-4 keys        bounding box, Morton keys, occupancy histograms, the level (octree_gpu_keys.cu)
 *   5 levels        leaves and coarser levels of both sets (octree_gpu_levels.cu)
 *   6 list lengths  counts, scans, the totals back (octree_gpu_lists.cu)
 *   7 lists         long leaves sorted (octree_gpu_levels.cu), the lists filled (octree_gpu_lists.cu)
 *   8 the tree      pointers into the workspace (here)
 * When the sources are the targets (the same array), the target tree is the source tree: built
 * once, and the tgt_* pointers alias the src_* arrays.
 * Checked by tests/gpu_test_octree.c against oct_build_cpu. */
#include "octree_gpu_build.cuh"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Public fields zeroed, the workspace kept. */
static void reset_tree(oct_tree_gpu *t) {
  void *ws = t->ws;
  memset(t, 0, sizeof *t);
  t->ws = ws;
}

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
  if (build_workspace(&b, err, errlen) || oct_gpu_root_cube(&b, err, errlen) || oct_gpu_choose_level(&b, err, errlen) ||
      oct_gpu_other_hist(&b, err, errlen) || oct_gpu_both_sets(&b, err, errlen) || oct_gpu_list_lengths(&b, err, errlen) ||
      take_totals(&b, err, errlen) || oct_gpu_sort_long_leaves(&b, err, errlen) || oct_gpu_lists(&b, err, errlen)) {
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
