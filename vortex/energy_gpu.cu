/* energy_gpu.cu — the kernel energy E_σ summed on the device (energy_t.h's pair term; the host
 * sum is diag.c's vx_energy_kernel, which gpu_test_vortex compares it with). One thread a row p,
 * summing its pairs with every q > p through tiles in shared memory, in double whatever the state's
 * precision; each block's sum comes back and the host adds them in block order, so every run sums
 * the same way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "energy_t.h"
#include "sim_gpu.h"

static const int kThreads = 128;

template <typename Real>
__global__ void vx_energy_rows(const Real *pos, const Real *alpha, int n, int k, double inv_sigma, double *d_part) {
  __shared__ double sx[kThreads * 3], sa[kThreads * 3], sm[kThreads];
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  double x[3] = {0.0, 0.0, 0.0}, a[3] = {0.0, 0.0, 0.0}, e = 0.0;
  if (p < n)
    for (int c = 0; c < 3; ++c) x[c] = pos[3 * (size_t)p + c], a[c] = alpha[3 * (size_t)p + c];
  if (p < n) e = vx_energy_self(k, a);
  for (int base = blockIdx.x * blockDim.x; base < n; base += kThreads) {
    int q = base + threadIdx.x;
    for (int c = 0; c < 3; ++c) {
      sx[3 * threadIdx.x + c] = q < n ? (double)pos[3 * (size_t)q + c] : 0.0;
      sa[3 * threadIdx.x + c] = q < n ? (double)alpha[3 * (size_t)q + c] : 0.0;
    }
    __syncthreads();
    int m = min(kThreads, n - base);
    if (p < n)
      for (int j = 0; j < m; ++j)
        if (base + j > p) e += vx_energy_pair(k, inv_sigma, x, a, sx + 3 * j, sa + 3 * j);
    __syncthreads();
  }
  sm[threadIdx.x] = e;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) sm[threadIdx.x] += sm[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) d_part[blockIdx.x] = sm[0];
}

extern "C" int vx_gpu_energy_kernel(vx_precision prec, const void *pos, const void *alpha, int n, vx_kernel k, double sigma,
                                    double *e, char *err, size_t errlen) {
  *e = NAN;
  if (!vx_energy_kernel_ok(k) || !(sigma > 0.0) || n <= 0) return 0;
  int blocks = (n + kThreads - 1) / kThreads;
  double *d_part = NULL, *h = (double *)malloc(sizeof(double) * (size_t)blocks);
  if (!h) {
    snprintf(err, errlen, "out of host memory for the kernel energy");
    return -1;
  }
  cudaError_t rc = cudaMalloc(&d_part, sizeof(double) * (size_t)blocks);
  if (rc == cudaSuccess) {
    if (prec == VX_FLOAT)
      vx_energy_rows<float><<<blocks, kThreads>>>((const float *)pos, (const float *)alpha, n, (int)k, 1.0 / sigma, d_part);
    else
      vx_energy_rows<double><<<blocks, kThreads>>>((const double *)pos, (const double *)alpha, n, (int)k, 1.0 / sigma, d_part);
    rc = cudaGetLastError();
  }
  if (rc == cudaSuccess) rc = cudaMemcpy(h, d_part, sizeof(double) * (size_t)blocks, cudaMemcpyDeviceToHost);
  if (d_part) {
    cudaError_t f = cudaFree(d_part);
    if (rc == cudaSuccess) rc = f;
  }
  if (rc != cudaSuccess) {
    free(h);
    snprintf(err, errlen, "the kernel energy on the device: %s", cudaGetErrorString(rc));
    return -1;
  }
  double s = 0.0;
  for (int b = 0; b < blocks; ++b) s += h[b];
  free(h);
  *e = s / (4.0 * VX_PI * sigma);
  return 0;
}
