/* octree_gpu.h — the octree of octree.h built entirely on the GPU (design paper §2.1, Algorithm 1,
 * with the neighbour and interaction lists built on the device too — the paper did those on the
 * CPU). The result is identical to oct_build_cpu's: same boxes, same counts, same order, same
 * lists. Only per-level box counts (a few integers) and the bounding cube come back to the host;
 * particle data never does. CUDA translation units only (device pointers, streams). */
#ifndef VX_OCTREE_GPU_H
#define VX_OCTREE_GPU_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "octree.h"

typedef struct {
  /* host copies of the small facts */
  int L, capped, ns, nt;
  double lo[3], side;
  int nsrc[VX_LMAX + 1], ntgt[VX_LMAX + 1];
  int n_nbr;                    /* total entries of nbr */
  int n_il[VX_LMAX + 1];        /* total entries of il[l] */
  /* device arrays, same meaning as in oct_tree */
  uint32_t *src_key[VX_LMAX + 1], *tgt_key[VX_LMAX + 1];
  int *src_map[VX_LMAX + 1], *tgt_map[VX_LMAX + 1];
  int *src_parent[VX_LMAX + 1], *tgt_parent[VX_LMAX + 1];
  int *src_child[VX_LMAX + 1], *tgt_child[VX_LMAX + 1];
  int *src_start, *tgt_start, *src_order, *tgt_order;
  int *nbr_start, *nbr;
  int *il_start[VX_LMAX + 1], *il[VX_LMAX + 1];
  /* the finest level's dense occupancy histograms (the paper's bin[]): 8^L counts */
  int *src_bin, *tgt_bin;
  /* implementation-owned workspace and capacities (grown, reused across builds) */
  void *ws;
} oct_tree_gpu;

#ifdef __cplusplus
extern "C" {
#endif
/* Build from device positions (xyz-interleaved, double or float). Returns 0, or -1 with a
 * one-line reason (no points, NaN/Inf coordinate, out of device memory, CUDA error). Reuses the
 * previous build's allocations when they are large enough. All work is queued on `stream`; the
 * call returns after the small host copies it needs, so the arrays are ready on `stream`. */
int oct_build_gpu(oct_tree_gpu *t, const void *d_src_pos, int ns, const void *d_tgt_pos, int nt, int pos_float,
                  const oct_params *prm, cudaStream_t stream, char *err, size_t errlen);
void oct_free_gpu(oct_tree_gpu *t);
/* In-place exclusive sum of n ints on `stream`, with the tree's grown CUB storage (for callers
 * that lay out work per leaf of a built tree, e.g. the FMM's target chunks). */
cudaError_t oct_exclusive_scan_gpu(oct_tree_gpu *t, int *d, int n, cudaStream_t stream);
/* The bounding box of n device positions by the build's own reduction (points with a non-finite
 * coordinate skipped) into mn and mx, the first such point into *bad (-1: none), on the default stream;
 * d_scratch holds oct_bounds_scratch_gpu() bytes. 0, or -1 with err (a CUDA error). */
size_t oct_bounds_scratch_gpu(void);
int oct_bounds_gpu(const void *d_pos, int n, int pos_float, void *d_scratch, double mn[3], double mx[3], int *bad,
                   char *err, size_t errlen);
/* Copy a GPU tree into a host oct_tree (for tests): free with oct_free_cpu. */
int oct_download_gpu(const oct_tree_gpu *g, oct_tree *host, char *err, size_t errlen);
#ifdef __cplusplus
}
#endif
#endif
