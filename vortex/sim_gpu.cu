/* sim_gpu.cu — CUDA kernels of the simulation: the Runge–Kutta stage update, the relaxation and the
 * blow-up reduction, and the copies of a ring added or removed (vx_sim_add_ring / vx_sim_remove_ring).
 * Each kernel is a thin loop over targets around shared inline math (stage_t.h, compact.h), whose CPU
 * twin is the loop in sim.c; gpu_test_vortex and gpu_test_launch compare the two backends.
 * Every CUDA call is checked (vx_cuda_check prints the call, file and line) and so is every launch. */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>

#include "compact.h"
#include "sim_gpu.h"

#define vx_cuda_check(call)                                                                             \
  do {                                                                                                  \
    cudaError_t e_ = (call);                                                                            \
    if (e_ != cudaSuccess) {                                                                            \
      fprintf(stderr, "vortexfmm: CUDA error: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__,     \
              cudaGetErrorString(e_));                                                                  \
      snprintf(err, errlen, "CUDA error in %s (%s:%d): %s", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return -1;                                                                                        \
    }                                                                                                   \
  } while (0)

static const int kThreads = 256;

static int grid_for(long long n) {
  long long b = (n + kThreads - 1) / kThreads;
  if (b < 1) b = 1;
  return b > 65535LL * 32 ? 65535 * 32 : (int)b;
}

extern "C" int vx_gpu_sync(char *err, size_t errlen) {
  vx_cuda_check(cudaDeviceSynchronize());
  return 0;
}

__global__ void vx_stage_kernel_d(vx_stage_args a) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < a.n_tot; t += gridDim.x * blockDim.x) vx_stage_target_d(&a, t);
}
__global__ void vx_stage_kernel_f(vx_stage_args a) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < a.n_tot; t += gridDim.x * blockDim.x) vx_stage_target_f(&a, t);
}

extern "C" int vx_gpu_stage(vx_precision prec, const vx_stage_args *a, char *err, size_t errlen) {
  if (a->n_tot <= 0) return 0;
  int g = grid_for(a->n_tot);
  if (prec == VX_FLOAT) vx_stage_kernel_f<<<g, kThreads>>>(*a);
  else vx_stage_kernel_d<<<g, kThreads>>>(*a);
  vx_cuda_check(cudaGetLastError());
  /* No host wait: the engine orders its work after the default stream (fmm.h, fmm_evaluate). */
  return 0;
}

__global__ void vx_relax_kernel_d(double *alpha, const double *grad, int n, double f) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x)
    vx_relax_d(f, grad + 9 * (size_t)t, alpha + 3 * (size_t)t);
}
__global__ void vx_relax_kernel_f(float *alpha, const float *grad, int n, float f) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x)
    vx_relax_f(f, grad + 9 * (size_t)t, alpha + 3 * (size_t)t);
}

extern "C" int vx_gpu_relax(vx_precision prec, void *alpha, const void *grad, int n_elem, double f, char *err,
                            size_t errlen) {
  if (n_elem <= 0) return 0;
  int g = grid_for(n_elem);
  if (prec == VX_FLOAT) vx_relax_kernel_f<<<g, kThreads>>>((float *)alpha, (const float *)grad, n_elem, (float)f);
  else vx_relax_kernel_d<<<g, kThreads>>>((double *)alpha, (const double *)grad, n_elem, f);
  vx_cuda_check(cudaGetLastError());
  return 0;
}

__global__ void vx_settle_kernel_d(double *pos, const double *pos0, const double *acc, int n, double f, double gh) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x)
    vx_settle_target_d(pos, pos0, acc, f, gh, t);
}
__global__ void vx_settle_kernel_f(float *pos, const float *pos0, const float *acc, int n, float f, float gh) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x)
    vx_settle_target_f(pos, pos0, acc, f, gh, t);
}

extern "C" int vx_gpu_settle(vx_precision prec, void *pos, const void *pos0, const void *acc, int n, double f, double gh,
                             char *err, size_t errlen) {
  if (n <= 0) return 0;
  int g = grid_for(n);
  if (prec == VX_FLOAT)
    vx_settle_kernel_f<<<g, kThreads>>>((float *)pos, (const float *)pos0, (const float *)acc, n, (float)f, (float)gh);
  else vx_settle_kernel_d<<<g, kThreads>>>((double *)pos, (const double *)pos0, (const double *)acc, n, f, gh);
  vx_cuda_check(cudaGetLastError());
  return 0;
}

/* Reduction: per-thread maxima of |α|² and |∇u|² and the non-finite flag, then per block through
 * shared memory, then one atomicMax on the bits of each block maximum (non-negative doubles order
 * like their bit patterns) and one atomicOr of the flag. */
template <typename Real>
__device__ double health_one(const Real *pos, const Real *alpha, const Real *grad, int n_elem, int t, int *bad, double *g2);
template <>
__device__ double health_one<double>(const double *pos, const double *alpha, const double *grad, int n_elem, int t, int *bad,
                                     double *g2) {
  return vx_health_target_d(pos, alpha, grad, n_elem, t, bad, g2);
}
template <>
__device__ double health_one<float>(const float *pos, const float *alpha, const float *grad, int n_elem, int t, int *bad,
                                    double *g2) {
  return vx_health_target_f(pos, alpha, grad, n_elem, t, bad, g2);
}

__device__ void block_max_to(double v, double *sm, unsigned long long *dst) {
  sm[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s && sm[threadIdx.x + s] > sm[threadIdx.x]) sm[threadIdx.x] = sm[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMax(dst, (unsigned long long)__double_as_longlong(sm[0]));
  __syncthreads();
}

/* d_out: [0] bits of max |α|², [1] bits of max |∇u|², [2] non-finite flag */
template <typename Real>
__global__ void vx_health_kernel(const Real *pos, const Real *alpha, const Real *grad, int n_elem, int n_tot,
                                 unsigned long long *d_out) {
  __shared__ double sm[256];
  __shared__ int sbad;
  if (threadIdx.x == 0) sbad = 0;
  double m = 0.0, g2 = 0.0;
  int bad = 0;
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n_tot; t += gridDim.x * blockDim.x) {
    double a2 = health_one<Real>(pos, alpha, grad, n_elem, t, &bad, &g2);
    if (a2 > m) m = a2;
  }
  __syncthreads();
  if (bad) atomicOr(&sbad, 1);
  block_max_to(m, sm, d_out);
  block_max_to(g2, sm, d_out + 1);
  if (threadIdx.x == 0 && sbad) atomicOr(d_out + 2, 1ULL);
}

extern "C" int vx_gpu_health(vx_precision prec, const void *pos, const void *alpha, const void *grad, int n_elem,
                             int n_tot, void *d_scratch, double *max_a2, double *max_g2, int *bad, char *err,
                             size_t errlen) {
  *max_a2 = *max_g2 = 0.0;
  *bad = 0;
  if (n_tot <= 0) return 0;
  unsigned long long *d_out = (unsigned long long *)d_scratch;
  vx_cuda_check(cudaMemsetAsync(d_scratch, 0, 3 * sizeof(unsigned long long)));
  int g = grid_for(n_tot);
  if (g > 1024) g = 1024; /* grid-stride: a few blocks per SM are plenty for a reduction */
  if (prec == VX_FLOAT)
    vx_health_kernel<float><<<g, kThreads>>>((const float *)pos, (const float *)alpha, (const float *)grad, n_elem, n_tot,
                                             d_out);
  else
    vx_health_kernel<double><<<g, kThreads>>>((const double *)pos, (const double *)alpha, (const double *)grad, n_elem,
                                              n_tot, d_out);
  vx_cuda_check(cudaGetLastError());
  unsigned long long h[3];
  vx_cuda_check(cudaMemcpy(h, d_scratch, sizeof h, cudaMemcpyDeviceToHost));
  memcpy(max_a2, &h[0], 8);
  memcpy(max_g2, &h[1], 8);
  *bad = h[2] != 0;
  return 0;
}

/* ------------------------------------------------------------------ rings added and removed */

extern "C" int vx_gpu_copy(void *d_dst, const void *d_src, size_t bytes, char *err, size_t errlen) {
  if (bytes == 0) return 0;
  vx_cuda_check(cudaMemcpy(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice));
  return 0;
}

__global__ void vx_gather_kernel(void *dst, const void *src, const int *idx, int is_float, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    vx_gather_row(dst, src, idx, is_float, (size_t)i);
}

extern "C" int vx_gpu_gather(vx_precision prec, void *d_dst, const void *d_src, const int *d_idx, int n, char *err,
                             size_t errlen) {
  if (n <= 0) return 0;
  vx_gather_kernel<<<grid_for(n), kThreads>>>(d_dst, d_src, d_idx, prec == VX_FLOAT, n);
  vx_cuda_check(cudaGetLastError());
  return 0;
}
