/* remesh_gpu.cu — remeshing on the GPU, the twin of remesh.c around the shared math of remesh.h:
 * records emitted a thread each, CUB's stable radix sort, node heads by a scan, one thread per node
 * summing its records in sorted order (so each node's sum has the CPU's order), the drop threshold
 * by a second scan. Three small host read-backs (node count, max|α|, kept count) per remeshing.
 * Every CUDA call and launch is checked (fmm/cuda_check.h). */
#include <cub/cub.cuh>
#include <stdio.h>
#include <string.h>

#include "cuda_check.h"
#include "remesh.h"

struct vx_remesh_ws {
  void *keys, *keys2, *idx, *idx2, *head, *scan, *seg, *na, *nring, *cub, *misc;
  size_t c_keys, c_keys2, c_idx, c_idx2, c_head, c_scan, c_seg, c_na, c_nring, c_cub, c_misc;
};

static const int kT = 256;
static unsigned blocks_for(long long n) { return (unsigned)((n + kT - 1) / kT); }

extern "C" void vx_remesh_ws_free_gpu(vx_remesh_ws *w) {
  if (!w) return;
  void *all[] = {w->keys, w->keys2, w->idx, w->idx2, w->head, w->scan, w->seg, w->na, w->nring, w->cub, w->misc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (all[i]) cudaFree(all[i]);
  free(w);
}

/* misc: [0] out-of-range flag, [1] bits of max |α|² */
__global__ void remesh_emit(const void *pos, int is_float, int n, vx_lattice L, uint64_t *keys, uint32_t *idx,
                            unsigned long long *misc) {
  long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= 64LL * n) return;
  int p = (int)(r >> 6), s = (int)(r & 63);
  if (s == 0 && !vx_remesh_in_range(pos, is_float, p, &L)) atomicOr(misc, 1ULL);
  double w;
  keys[r] = vx_remesh_stencil(pos, is_float, p, s, &L, &w);
  idx[r] = (uint32_t)r;
}

__global__ void remesh_heads(const uint64_t *keys, long long nr, int *head) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nr) head[i] = i == 0 || keys[i] != keys[i - 1];
}

__global__ void remesh_seg(const int *head, const long long *scan, long long nr, long long *seg) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nr && head[i]) seg[scan[i]] = i;
  if (i == nr - 1) seg[scan[i] + head[i]] = nr;
}

__global__ void remesh_nodes(const uint32_t *idx, const long long *seg, long long nn, const void *pos, const void *alpha,
                             const int *ring, int is_float, vx_lattice L, double *na, int *nring,
                             unsigned long long *misc) {
  long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nn) return;
  double a2 = vx_remesh_node(idx, seg[q], seg[q + 1], pos, alpha, ring, is_float, &L, na + 4 * q, nring + q, NULL);
  na[4 * q + 3] = a2;
  atomicMax(misc + 1, (unsigned long long)__double_as_longlong(a2)); /* non-negative doubles order as their bits */
}

__global__ void remesh_keep(const double *na, long long nn, double cut2, int *keep) {
  long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q < nn) keep[q] = na[4 * q + 3] > cut2;
}

__global__ void remesh_write(const uint64_t *keys, const long long *seg, const double *na, const int *nring,
                             const int *keep, const long long *scan, long long nn, int is_float, vx_lattice L, void *pos_out,
                             void *alpha_out, int *ring_out) {
  long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nn || !keep[q]) return;
  long long o = scan[q], ijk[3];
  vx_lattice_ijk(keys[seg[q]], ijk);
  for (int c = 0; c < 3; ++c) {
    vx_store(pos_out, is_float, 3 * (size_t)o + c, vx_lattice_coord(&L, c, ijk[c]));
    vx_store(alpha_out, is_float, 3 * (size_t)o + c, na[4 * q + c]);
  }
  ring_out[o] = nring[q];
}

#define RESERVE(field, bytes) VX_CU(vx_dev_reserve(&w->field, &w->c_##field, (bytes)))

/* Exclusive sum of n ints into long longs; the total comes back to the host. */
static int scan_total(vx_remesh_ws *w, const int *in, long long n, long long *total, char *err, size_t errlen) {
  size_t bytes = 0;
  long long last[1] = {0};
  int lastf[1] = {0};
  VX_CU(cub::DeviceScan::ExclusiveSum(NULL, bytes, in, (long long *)w->scan, n));
  RESERVE(cub, bytes);
  VX_CU(cub::DeviceScan::ExclusiveSum(w->cub, bytes, in, (long long *)w->scan, n));
  VX_CU(cudaMemcpy(last, (long long *)w->scan + n - 1, sizeof(long long), cudaMemcpyDeviceToHost));
  VX_CU(cudaMemcpy(lastf, in + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
  *total = last[0] + lastf[0];
  return 0;
fail:
  return -1;
}

/* Steps 1–2: records emitted and sorted; returns the sorted keys and indices in *k, *v. */
static int emit_sorted(vx_remesh_ws *w, const vx_remesh_job *j, const vx_lattice *L, uint64_t **k, uint32_t **v, char *err,
                       size_t errlen) {
  long long nr = 64LL * j->n_elem;
  unsigned long long misc[2];
  size_t bytes = 0;
  RESERVE(keys, nr * sizeof(uint64_t));
  RESERVE(keys2, nr * sizeof(uint64_t));
  RESERVE(idx, nr * sizeof(uint32_t));
  RESERVE(idx2, nr * sizeof(uint32_t));
  RESERVE(misc, 2 * sizeof(unsigned long long));
  VX_CU(cudaMemset(w->misc, 0, 2 * sizeof(unsigned long long)));
  remesh_emit<<<blocks_for(nr), kT>>>(j->pos, j->is_float, j->n_elem, *L, (uint64_t *)w->keys,
                                      (uint32_t *)w->idx, (unsigned long long *)w->misc);
  VX_CU_LAUNCH(remesh_emit);
  VX_CU(cudaMemcpy(misc, w->misc, sizeof misc, cudaMemcpyDeviceToHost));
  if (misc[0]) {
    snprintf(err, errlen, "remeshing: an element lies outside the lattice (|x - o|/h >= 2^20) or is not finite");
    return -1;
  }
  {
    cub::DoubleBuffer<uint64_t> dk((uint64_t *)w->keys, (uint64_t *)w->keys2);
    cub::DoubleBuffer<uint32_t> dv((uint32_t *)w->idx, (uint32_t *)w->idx2);
    VX_CU(cub::DeviceRadixSort::SortPairs(NULL, bytes, dk, dv, nr, 0, 63));
    RESERVE(cub, bytes);
    VX_CU(cub::DeviceRadixSort::SortPairs(w->cub, bytes, dk, dv, nr, 0, 63));
    *k = dk.Current();
    *v = dv.Current();
  }
  return 0;
fail:
  return -1;
}

/* Step 3: node heads and segments, then each node's strength and ring. Returns the node count. */
static long long reduce_nodes(vx_remesh_ws *w, const vx_remesh_job *j, const vx_lattice *L, const uint64_t *k, const uint32_t *v,
                              char *err, size_t errlen) {
  long long nr = 64LL * j->n_elem, nn = 0;
  RESERVE(head, nr * sizeof(int));
  RESERVE(scan, nr * sizeof(long long));
  remesh_heads<<<blocks_for(nr), kT>>>(k, nr, (int *)w->head);
  VX_CU_LAUNCH(remesh_heads);
  if (scan_total(w, (const int *)w->head, nr, &nn, err, errlen)) return -1;
  RESERVE(seg, (nn + 1) * sizeof(long long));
  RESERVE(na, 4 * (nn + 1) * sizeof(double));
  RESERVE(nring, (nn + 1) * sizeof(int));
  remesh_seg<<<blocks_for(nr), kT>>>((const int *)w->head, (const long long *)w->scan, nr, (long long *)w->seg);
  VX_CU_LAUNCH(remesh_seg);
  remesh_nodes<<<blocks_for(nn), kT>>>(v, (const long long *)w->seg, nn, j->pos, j->alpha, j->ring, j->is_float, *L,
                                       (double *)w->na, (int *)w->nring, (unsigned long long *)w->misc);
  VX_CU_LAUNCH(remesh_nodes);
  return nn;
fail:
  return -1;
}

/* Step 4: the drop threshold, the kept nodes written, the tracers copied after them. */
static int write_out(vx_remesh_ws *w, vx_remesh_job *j, const vx_lattice *L, long long nn, const uint64_t *k, char *err,
                     size_t errlen) {
  unsigned long long misc[2];
  double m2, cut2;
  long long keep = 0;
  size_t rs = j->is_float ? sizeof(float) : sizeof(double);
  VX_CU(cudaMemcpy(misc, w->misc, sizeof misc, cudaMemcpyDeviceToHost));
  memcpy(&m2, &misc[1], sizeof m2);
  cut2 = j->drop_abs > 0.0 ? j->drop_abs * j->drop_abs : j->drop * j->drop * m2;
  remesh_keep<<<blocks_for(nn), kT>>>((const double *)w->na, nn, cut2, (int *)w->head);
  VX_CU_LAUNCH(remesh_keep);
  if (scan_total(w, (const int *)w->head, nn, &keep, err, errlen)) return -1;
  if (keep + j->n_tracer > (1LL << 30)) {
    snprintf(err, errlen, "remeshing would make %lld elements (over 2^30 with the tracers)", keep);
    return -1;
  }
  if (vx_mem_reserve(&j->pos_out, 3 * rs * (size_t)(keep + j->n_tracer), 1, err, errlen) ||
      vx_mem_reserve(&j->alpha_out, 3 * rs * (size_t)keep, 1, err, errlen) ||
      vx_mem_reserve(&j->ring_out, sizeof(int) * (size_t)keep, 1, err, errlen))
    return -1;
  remesh_write<<<blocks_for(nn), kT>>>(k, (const long long *)w->seg, (const double *)w->na, (const int *)w->nring,
                                       (const int *)w->head, (const long long *)w->scan, nn, j->is_float, *L,
                                       j->pos_out.p, j->alpha_out.p, (int *)j->ring_out.p);
  VX_CU_LAUNCH(remesh_write);
  if (j->n_tracer > 0)
    VX_CU(cudaMemcpy((char *)j->pos_out.p + 3 * rs * (size_t)keep, (const char *)j->pos + 3 * rs * (size_t)j->n_elem,
                     3 * rs * (size_t)j->n_tracer, cudaMemcpyDeviceToDevice));
  VX_CU(cudaDeviceSynchronize());
  j->n_nodes = (int)nn;
  j->n_out = (int)keep;
  j->max_alpha = sqrt(m2);
  return 0;
fail:
  return -1;
}

extern "C" int vx_remesh_gpu(vx_remesh_ws **wsp, vx_remesh_job *j, char *err, size_t errlen) {
  if (!*wsp) {
    *wsp = (vx_remesh_ws *)calloc(1, sizeof **wsp);
    if (!*wsp) { snprintf(err, errlen, "out of memory for remeshing"); return -1; }
  }
  if (j->n_elem <= 0) {
    snprintf(err, errlen, "remeshing: no elements");
    return -1;
  }
  vx_remesh_ws *w = *wsp;
  vx_lattice L = vx_remesh_lattice(j);
  uint64_t *k = NULL;
  uint32_t *v = NULL;
  if (emit_sorted(w, j, &L, &k, &v, err, errlen)) return -1;
  long long nn = reduce_nodes(w, j, &L, k, v, err, errlen);
  if (nn < 0) return -1;
  return write_out(w, j, &L, nn, k, err, errlen);
}
