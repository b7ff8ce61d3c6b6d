/* filament_gpu.cu — the CUDA twins of filament.c's loops: a grid row (blockIdx.y) a run, a thread an
 * element or a merged source, through filament.h's per-element rule. Default stream; the statistics'
 * 2·runs unsigned ints are the only bytes that come back. tests/gpu_test_filament.c compares them
 * with the host loops. */
#include <cuda_runtime.h>
#include <string.h>

#include "cuda_check.h"
#include "filament.h"

static const int kThreads = 256;

__device__ static inline void fil_element(const double *p, const double *a, vx_fil_block b, int i, double *g, double *m) {
  vx_fil_element_d(p, a, b, i, g, m);
}
__device__ static inline void fil_element(const float *p, const float *a, vx_fil_block b, int i, double *g, double *m) {
  vx_fil_element_f(p, a, b, i, g, m);
}
__device__ static inline void fil_merge(const double *p, const double *a, vx_fil_block b, int j, double *op, double *oa) {
  vx_fil_merge_d(p, a, b, j, op, oa);
}
__device__ static inline void fil_merge(const float *p, const float *a, vx_fil_block b, int j, float *op, float *oa) {
  vx_fil_merge_f(p, a, b, j, op, oa);
}

/* keys[2k], keys[2k + 1]: run k's largest gap and misalignment, as the bits of non-negative floats
 * (whose unsigned order is their numeric order). */
template <typename R>
__global__ void fil_stats_kernel(const R *pos, const R *alpha, vx_fil_blocks bl, unsigned *keys) {
  const vx_fil_block b = bl.b[blockIdx.y];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned kg = 0u, km = 0u;
  if (i < b.count) {
    double g, m;
    fil_element(pos, alpha, b, i, &g, &m);
    kg = __float_as_uint((float)g), km = __float_as_uint((float)m);
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned a = __shfl_down_sync(0xffffffffu, kg, o), c = __shfl_down_sync(0xffffffffu, km, o);
    kg = a > kg ? a : kg;
    km = c > km ? c : km;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&keys[2 * blockIdx.y], kg);
    atomicMax(&keys[2 * blockIdx.y + 1], km);
  }
}

template <typename R>
__global__ void fil_merge_kernel(const R *pos, const R *alpha, vx_fil_blocks bl, R *out_pos, R *out_alpha) {
  const vx_fil_block b = bl.b[blockIdx.y];
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < b.count / b.m) fil_merge(pos, alpha, b, j, out_pos, out_alpha);
}

/* The grid over the longest run's count items a row (n_of: count or count / m). */
static dim3 fil_grid(const vx_fil_blocks *bl, int merged) {
  int most = 1;
  for (int k = 0; k < bl->n; ++k) {
    const int c = merged ? bl->b[k].count / bl->b[k].m : bl->b[k].count;
    most = c > most ? c : most;
  }
  return dim3((unsigned)((most + kThreads - 1) / kThreads), (unsigned)bl->n);
}

extern "C" int vx_fil_stats_gpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, void *d_scratch,
                                double *gap, double *misalign, char *err, size_t errlen) {
  unsigned keys[2 * VX_FIL_MAX_BLOCKS];
  if (bl->n <= 0) return 0;
  const size_t bytes = 2 * sizeof(unsigned) * (size_t)bl->n;
  VX_CUR(cudaMemsetAsync(d_scratch, 0, bytes));
  if (is_float) fil_stats_kernel<float><<<fil_grid(bl, 0), kThreads>>>((const float *)pos, (const float *)alpha, *bl, (unsigned *)d_scratch);
  else fil_stats_kernel<double><<<fil_grid(bl, 0), kThreads>>>((const double *)pos, (const double *)alpha, *bl, (unsigned *)d_scratch);
  VX_CUR_LAUNCH(fil_stats_kernel);
  VX_CUR(cudaMemcpy(keys, d_scratch, bytes, cudaMemcpyDeviceToHost));
  for (int k = 0; k < bl->n; ++k) {
    float g, m;
    memcpy(&g, &keys[2 * k], sizeof g);
    memcpy(&m, &keys[2 * k + 1], sizeof m);
    gap[k] = g, misalign[k] = m;
  }
  return 0;
}

extern "C" int vx_fil_merge_gpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, void *out_pos,
                                void *out_alpha, char *err, size_t errlen) {
  if (bl->n <= 0) return 0;
  if (is_float)
    fil_merge_kernel<float><<<fil_grid(bl, 1), kThreads>>>((const float *)pos, (const float *)alpha, *bl, (float *)out_pos,
                                                           (float *)out_alpha);
  else
    fil_merge_kernel<double><<<fil_grid(bl, 1), kThreads>>>((const double *)pos, (const double *)alpha, *bl,
                                                            (double *)out_pos, (double *)out_alpha);
  VX_CUR_LAUNCH(fil_merge_kernel);
  return 0;
}
