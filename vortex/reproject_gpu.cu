/* reproject_gpu.cu — the reprojection on the GPU (reproject.h), the twin of reproject.c around the
 * shared math of reproject_t.h: cell keys a thread each, CUB's stable radix sort of (key, index), one
 * thread per element summing its neighbours' cells in the CPU's order, then α −= δ. Every CUDA call
 * and launch is checked (fmm/cuda_check.h). */
#include <cub/cub.cuh>
#include <stdio.h>

#include "cuda_check.h"
#include "reproject.h"

static const int kT = 128;
static unsigned blocks_for(int n) { return (unsigned)((n + kT - 1) / kT); }

template <typename Real>
__global__ void reproject_keys(const Real *pos, int n, double inv_cell, uint64_t *keys, uint32_t *idx);
template <>
__global__ void reproject_keys<double>(const double *pos, int n, double inv_cell, uint64_t *keys, uint32_t *idx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = vx_reproject_key_d(pos + 3 * (size_t)i, inv_cell), idx[i] = (uint32_t)i;
}
template <>
__global__ void reproject_keys<float>(const float *pos, int n, double inv_cell, uint64_t *keys, uint32_t *idx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = vx_reproject_key_f(pos + 3 * (size_t)i, inv_cell), idx[i] = (uint32_t)i;
}

__global__ void reproject_delta_d(const double *pos, const double *alpha, const double *grad, const uint64_t *k,
                                  const uint32_t *x, int n, vx_reproject_geom G, double *delta) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) vx_reproject_delta_d(pos, alpha, k, x, n, pos, alpha, grad, i, &G, delta);
}
__global__ void reproject_delta_f(const float *pos, const float *alpha, const float *grad, const uint64_t *k,
                                  const uint32_t *x, int n, vx_reproject_geom G, float *delta) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) vx_reproject_delta_f(pos, alpha, k, x, n, pos, alpha, grad, i, &G, delta);
}

template <typename Real>
__global__ void reproject_apply(Real *alpha, const Real *delta, size_t m, double *sums) {
  double sd = 0.0, sa = 0.0;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < m; t += (size_t)gridDim.x * blockDim.x) {
    double d = (double)delta[t], a = (double)alpha[t];
    sd += d * d, sa += a * a;
    alpha[t] = (Real)(a - d);
  }
  if (sums) atomicAdd(sums, sd), atomicAdd(sums + 1, sa);
}

extern "C" int vx_reproject_delta_gpu(vx_precision prec, const void *pos, const void *alpha, const void *grad, int n,
                                      const vx_reproject_geom *G, vx_reproject_ws *w, void *delta, char *err,
                                      size_t errlen) {
  if (n <= 0) return 0;
  if (vx_mem_reserve(&w->keys, sizeof(uint64_t) * (size_t)n, 1, err, errlen) ||
      vx_mem_reserve(&w->keys2, sizeof(uint64_t) * (size_t)n, 1, err, errlen) ||
      vx_mem_reserve(&w->idx, sizeof(uint32_t) * (size_t)n, 1, err, errlen) ||
      vx_mem_reserve(&w->idx2, sizeof(uint32_t) * (size_t)n, 1, err, errlen))
    return -1;
  if (prec == VX_FLOAT)
    reproject_keys<float><<<blocks_for(n), kT>>>((const float *)pos, n, G->inv_cell, (uint64_t *)w->keys.p, (uint32_t *)w->idx.p);
  else
    reproject_keys<double><<<blocks_for(n), kT>>>((const double *)pos, n, G->inv_cell, (uint64_t *)w->keys.p, (uint32_t *)w->idx.p);
  VX_CUR_LAUNCH(reproject_keys);
  cub::DoubleBuffer<uint64_t> dk((uint64_t *)w->keys.p, (uint64_t *)w->keys2.p);
  cub::DoubleBuffer<uint32_t> dv((uint32_t *)w->idx.p, (uint32_t *)w->idx2.p);
  size_t bytes = 0;
  VX_CUR(cub::DeviceRadixSort::SortPairs(NULL, bytes, dk, dv, n, 0, 63));
  if (vx_mem_reserve(&w->tmp, bytes, 1, err, errlen)) return -1;
  VX_CUR(cub::DeviceRadixSort::SortPairs(w->tmp.p, bytes, dk, dv, n, 0, 63));
  if (prec == VX_FLOAT)
    reproject_delta_f<<<blocks_for(n), kT>>>((const float *)pos, (const float *)alpha, (const float *)grad, dk.Current(),
                                             dv.Current(), n, *G, (float *)delta);
  else
    reproject_delta_d<<<blocks_for(n), kT>>>((const double *)pos, (const double *)alpha, (const double *)grad,
                                             dk.Current(), dv.Current(), n, *G, (double *)delta);
  VX_CUR_LAUNCH(reproject_delta);
  return 0;
}

extern "C" int vx_reproject_apply_gpu(vx_precision prec, void *alpha, const void *delta, int n, double *rel, char *err,
                                      size_t errlen) {
  if (rel) *rel = 0.0;
  if (n <= 0) return 0;
  double *d_sums = NULL, h[2] = {0.0, 0.0};
  size_t m = 3 * (size_t)n;
  unsigned g = (unsigned)((m + kT - 1) / kT);
  if (g > 1024) g = 1024;
  if (rel) {
    VX_CU(cudaMalloc((void **)&d_sums, sizeof h));
    VX_CU(cudaMemset(d_sums, 0, sizeof h));
  }
  if (prec == VX_FLOAT) reproject_apply<float><<<g, kT>>>((float *)alpha, (const float *)delta, m, d_sums);
  else reproject_apply<double><<<g, kT>>>((double *)alpha, (const double *)delta, m, d_sums);
  VX_CU_LAUNCH(reproject_apply);
  if (rel) {
    VX_CU(cudaMemcpy(h, d_sums, sizeof h, cudaMemcpyDeviceToHost));
    *rel = h[1] > 0.0 ? sqrt(h[0] / h[1]) : 0.0;
    VX_CU(cudaFree(d_sums));
  }
  return 0;
fail:
  if (d_sums) cudaFree(d_sums);
  return -1;
}
