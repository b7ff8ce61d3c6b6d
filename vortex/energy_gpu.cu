/* energy_gpu.cu — the kernel energy E_σ summed on the device (energy_t.h's pair term; the host
 * sum is diag.c's vx_energy_kernel, which gpu_test_vortex compares it with). The upper triangle of
 * pairs is cut into tiles of kThreads rows by kChunk columns, one block a tile (a 2-D grid; the tiles
 * below the diagonal return at once), so that every block does about the same work and the device
 * is full whatever n: one thread a row p, summing its pairs with the tile's q > p through shared
 * memory, in double whatever the state's precision. Each tile's sum comes back and the host adds them
 * in tile order, so every run sums the same way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "energy_t.h"
#include "sim_gpu.h"

static const int kThreads = 128, kChunk = 2048; /* rows and columns of a tile */

/* Tile (blockIdx.y, blockIdx.x): rows r0 = blockIdx.y·kThreads on, columns from r0 + blockIdx.x·kChunk;
 * its sum into d_part[blockIdx.y·gridDim.x + blockIdx.x]. The row's self term is the first tile's. */
template <typename Real>
__global__ void vx_energy_tiles(const Real *pos, const Real *alpha, int n, int k, double inv_sigma, double *d_part) {
  __shared__ double sx[kThreads * 3], sa[kThreads * 3], sm[kThreads];
  const int r0 = blockIdx.y * kThreads, c0 = r0 + blockIdx.x * kChunk, p = r0 + threadIdx.x;
  double *out = d_part + (size_t)blockIdx.y * gridDim.x + blockIdx.x;
  if (c0 >= n) { /* past the last column: an empty tile (the same for every thread of the block) */
    if (threadIdx.x == 0) *out = 0.0;
    return;
  }
  const int c1 = min(n, c0 + kChunk);
  double x[3] = {0.0, 0.0, 0.0}, a[3] = {0.0, 0.0, 0.0}, e = 0.0;
  if (p < n)
    for (int c = 0; c < 3; ++c) x[c] = pos[3 * (size_t)p + c], a[c] = alpha[3 * (size_t)p + c];
  if (p < n && blockIdx.x == 0) e = vx_energy_self(k, a);
  for (int base = c0; base < c1; base += kThreads) {
    int q = base + threadIdx.x;
    for (int c = 0; c < 3; ++c) {
      sx[3 * threadIdx.x + c] = q < c1 ? (double)pos[3 * (size_t)q + c] : 0.0;
      sa[3 * threadIdx.x + c] = q < c1 ? (double)alpha[3 * (size_t)q + c] : 0.0;
    }
    __syncthreads();
    int m = min(kThreads, c1 - base);
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
  if (threadIdx.x == 0) *out = sm[0];
}

extern "C" int vx_gpu_energy_kernel(vx_precision prec, const void *pos, const void *alpha, int n, vx_kernel k, double sigma,
                                    double *e, void **d_scratch, size_t *cap, char *err, size_t errlen) {
  *e = NAN;
  if (!vx_energy_kernel_ok(k) || !(sigma > 0.0) || n <= 0) return 0;
  const dim3 grid((unsigned)((n + kChunk - 1) / kChunk), (unsigned)((n + kThreads - 1) / kThreads));
  const size_t tiles = (size_t)grid.x * grid.y;
  double *h = (double *)malloc(sizeof(double) * tiles);
  if (!h) {
    snprintf(err, errlen, "out of host memory for the kernel energy");
    return -1;
  }
  cudaError_t rc = vx_dev_reserve(d_scratch, cap, sizeof(double) * tiles);
  if (rc == cudaSuccess) {
    double *d_part = (double *)*d_scratch;
    if (prec == VX_FLOAT)
      vx_energy_tiles<float><<<grid, kThreads>>>((const float *)pos, (const float *)alpha, n, (int)k, 1.0 / sigma, d_part);
    else
      vx_energy_tiles<double><<<grid, kThreads>>>((const double *)pos, (const double *)alpha, n, (int)k, 1.0 / sigma, d_part);
    rc = cudaGetLastError();
    if (rc == cudaSuccess) rc = cudaMemcpy(h, d_part, sizeof(double) * tiles, cudaMemcpyDeviceToHost);
  }
  if (rc != cudaSuccess) {
    free(h);
    snprintf(err, errlen, "the kernel energy on the device: %s", cudaGetErrorString(rc));
    return -1;
  }
  double s = 0.0;
  for (size_t b = 0; b < tiles; ++b) s += h[b];
  free(h);
  *e = s / (4.0 * VX_PI * sigma);
  return 0;
}
