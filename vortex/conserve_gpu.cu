/* conserve_gpu.cu — CUDA kernels of the conservative correction (conserve.h): the moments, summed
 * per thread and per block in a fixed grid (VX_CONSERVE_BLOCKS blocks), the block sums added on the
 * host in block order (so every run sums the same way), and the correction. The per-element math is
 * conserve_t.h, shared with the CPU loops of conserve.c; gpu_test_vortex compares the two. */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>

#include "conserve.h"
#include "cuda_check.h"

static const int kThreads = 128;

template <typename Real>
__device__ void moments_one(const Real *pos, const Real *alpha, int k, double *m);
template <>
__device__ void moments_one<double>(const double *pos, const double *alpha, int k, double *m) {
  vx_moments_add_d(pos, alpha, k, m);
}
template <>
__device__ void moments_one<float>(const float *pos, const float *alpha, int k, double *m) {
  vx_moments_add_f(pos, alpha, k, m);
}

/* Each thread sums a strided share, then the block sums through shared memory, one moment at a time. */
template <typename Real>
__global__ void vx_moments_kernel(const Real *pos, const Real *alpha, int n, double *d_out) {
  __shared__ double sm[kThreads];
  double m[VX_MOMENTS_N];
  for (int c = 0; c < VX_MOMENTS_N; ++c) m[c] = 0.0;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) moments_one<Real>(pos, alpha, k, m);
  for (int c = 0; c < VX_MOMENTS_N; ++c) {
    sm[threadIdx.x] = m[c];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if ((int)threadIdx.x < s) sm[threadIdx.x] += sm[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) d_out[blockIdx.x * VX_MOMENTS_N + c] = sm[0];
    __syncthreads();
  }
}

extern "C" int vx_moments_gpu(vx_precision prec, const void *pos, const void *alpha, int n, void *d_scratch, double *m,
                              char *err, size_t errlen) {
  memset(m, 0, VX_MOMENTS_N * sizeof(double));
  if (n <= 0) return 0;
  double *d_out = (double *)d_scratch;
  if (prec == VX_FLOAT)
    vx_moments_kernel<float><<<VX_CONSERVE_BLOCKS, kThreads>>>((const float *)pos, (const float *)alpha, n, d_out);
  else
    vx_moments_kernel<double><<<VX_CONSERVE_BLOCKS, kThreads>>>((const double *)pos, (const double *)alpha, n, d_out);
  VX_CUR(cudaGetLastError());
  double h[VX_CONSERVE_BLOCKS * VX_MOMENTS_N];
  VX_CUR(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
  for (int b = 0; b < VX_CONSERVE_BLOCKS; ++b)
    for (int c = 0; c < VX_MOMENTS_N; ++c) m[c] += h[b * VX_MOMENTS_N + c];
  return 0;
}

struct coef9 {
  double v[9];
};

__global__ void vx_conserve_kernel_d(const double *pos, double *alpha, int n, coef9 c) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) vx_conserve_apply_d(pos, alpha, k, c.v);
}
__global__ void vx_conserve_kernel_f(const float *pos, float *alpha, int n, coef9 c) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) vx_conserve_apply_f(pos, alpha, k, c.v);
}

extern "C" int vx_conserve_apply_gpu(vx_precision prec, const void *pos, void *alpha, int n, const double *coef,
                                     char *err, size_t errlen) {
  if (n <= 0) return 0;
  coef9 c;
  memcpy(c.v, coef, sizeof c.v);
  int g = (n + kThreads - 1) / kThreads;
  if (g > 4096) g = 4096;
  if (prec == VX_FLOAT) vx_conserve_kernel_f<<<g, kThreads>>>((const float *)pos, (float *)alpha, n, c);
  else vx_conserve_kernel_d<<<g, kThreads>>>((const double *)pos, (double *)alpha, n, c);
  VX_CUR(cudaGetLastError());
  return 0;
}
