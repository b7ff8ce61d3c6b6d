/* vort_grid_gpu.cu — the CUDA half of the vorticity grid (vort_grid.h): thin kernels around the
 * per-node math of vort_grid_t.h, which the CPU twin of vort_grid.c calls too. All on the default
 * stream, after the simulation's work:
 *
 *   bounding box (a reduction into order keys) → the cube and the blur's taps (one thread, on the
 *   device, so that nothing waits for them) → the deposit (atomics) → three blur passes → |ω| and
 *   its maximum (atomicMax) → one copy of the cube and the maximum back to the host, the call's
 *   only wait.
 *
 * tests/gpu_test_iso.c compares every output with the CPU twin. Build: part of vxvortex when CMake
 * finds nvcc. */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_reduce.cuh"
#include "vort_grid.h"

static const int kThreads = 256;
static const int kReduceBlocks = 512; /* the reductions' grid: a few blocks an SM, each striding */
static const int kRowThreads = 128;   /* the blur's blocks: one row of nodes along x */

static int reduce_blocks(long long n) {
  long long b = (n + kThreads - 1) / kThreads;
  return b < kReduceBlocks ? (int)b : kReduceBlocks;
}

/* keys[0..2] = min, keys[3..5] = max of the coordinates (preset to the extremes): each thread
 * strides, each block reduces and makes one atomic a key. */
template <typename T>
__global__ void vx_vort_bbox_kernel(const T *pos, int n, unsigned long long *keys) {
  unsigned long long mn[3] = {~0ull, ~0ull, ~0ull}, mx[3] = {0ull, 0ull, 0ull};
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    for (int c = 0; c < 3; ++c) {
      const unsigned long long v = vx_order_key((double)pos[3 * (size_t)i + c]);
      mn[c] = v < mn[c] ? v : mn[c];
      mx[c] = v > mx[c] ? v : mx[c];
    }
  for (int c = 0; c < 3; ++c) {
    const unsigned long long a = vx_block_reduce<kThreads>(mn[c], vx_min_op()), b = vx_block_reduce<kThreads>(mx[c], vx_max_op());
    if (threadIdx.x == 0) atomicMin(&keys[c], a), atomicMax(&keys[3 + c], b);
  }
}

/* The cube and the taps from the bounding box: one thread, the host's own function. */
__global__ void vx_vort_geom_kernel(const unsigned long long *keys, double sigma, int n, vx_vort_geom *g) {
  double mn[3], mx[3];
  for (int c = 0; c < 3; ++c) mn[c] = vx_key_value(keys[c]), mx[c] = vx_key_value(keys[3 + c]);
  vx_vort_geom_make(mn, mx, sigma, n, g);
}

/* One element a thread: its 24 weighted components added into comp (three n³ grids, zeroed). */
template <typename T>
__global__ void vx_vort_deposit_kernel(const vx_vort_geom *g, const T *pos, const T *alpha, int n_elem, float *comp) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n_elem || g->bad) return;
  const size_t b = 3 * (size_t)e, n3 = (size_t)g->n * g->n * g->n;
  double w[8];
  const size_t node = vx_vort_cic(g, (double)pos[b], (double)pos[b + 1], (double)pos[b + 2], w);
  const double a[3] = {(double)alpha[b], (double)alpha[b + 1], (double)alpha[b + 2]};
  for (int m = 0; m < 8; ++m) {
    const size_t at = node + vx_vort_corner(g->n, m);
    for (int c = 0; c < 3; ++c) atomicAdd(&comp[c * n3 + at], (float)(a[c] * w[m]));
  }
}

/* One blur pass along axis of the three components: a block is one row along x (threads along x
 * read neighbours in one transaction whatever the axis); blockIdx.z = component · n + z. */
__global__ void vx_vort_blur_kernel(const vx_vort_geom *g, int axis, const float *src, float *dst) {
  __shared__ float w[VX_VORT_RMAX + 1];
  const int n = g->n, r = g->r;
  for (int q = threadIdx.x; q <= r; q += blockDim.x) w[q] = g->w[q];
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, k = blockIdx.z % n, c = blockIdx.z / n;
  if (i >= n) return;
  const size_t n3 = (size_t)n * n * n, node = vx_vort_node(n, i, j, k);
  const size_t stride = axis == 0 ? 1 : (axis == 1 ? (size_t)n : (size_t)n * n);
  const int p = axis == 0 ? i : (axis == 1 ? j : k);
  dst[c * n3 + node] = vx_vort_blur_at(src + c * n3, node, stride, p, n, w, r);
}

/* |ω| per node, and its maximum into g->vmax_bits (zeroed by vx_vort_geom_make): a float ≥ 0
 * orders as its bits. */
__global__ void vx_vort_mag_kernel(vx_vort_geom *g, const float *comp, float *mag) {
  const size_t n3 = (size_t)g->n * g->n * g->n;
  float v = 0.0f;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n3; i += (size_t)gridDim.x * blockDim.x) {
    const float m = vx_vort_mag(comp, n3, i);
    mag[i] = m;
    v = m > v ? m : v;
  }
  const float b = vx_block_reduce<kThreads>(v, vx_max_op());
  if (threadIdx.x == 0) atomicMax(&g->vmax_bits, __float_as_uint(b));
}

/* The bounding box and the geometry from it, on the device. */
template <typename T>
static int geometry(vx_vort_bufs *b, const T *pos, int n_elem, double sigma, int n, char *err, size_t errlen) {
  unsigned long long *keys = (unsigned long long *)b->keys.p;
  VX_CUR(cudaMemsetAsync(keys, 0xff, 3 * sizeof(unsigned long long)));
  VX_CUR(cudaMemsetAsync(keys + 3, 0, 3 * sizeof(unsigned long long)));
  vx_vort_bbox_kernel<T><<<reduce_blocks(n_elem), kThreads>>>(pos, n_elem, keys);
  VX_CUR_LAUNCH(vx_vort_bbox_kernel);
  vx_vort_geom_kernel<<<1, 1>>>(keys, sigma, n, (vx_vort_geom *)b->geom.p);
  VX_CUR_LAUNCH(vx_vort_geom_kernel);
  return 0;
}

/* Deposit, three blur passes (comp → tmp → comp → tmp) and |ω| into mag. */
template <typename T>
static int field(vx_vort_bufs *b, const T *pos, const T *alpha, int n_elem, int n, char *err, size_t errlen) {
  const size_t n3 = (size_t)n * n * n;
  const vx_vort_geom *g = (const vx_vort_geom *)b->geom.p;
  float *comp = (float *)b->comp.p, *tmp = (float *)b->tmp.p;
  VX_CUR(cudaMemsetAsync(comp, 0, 3 * n3 * sizeof(float)));
  vx_vort_deposit_kernel<T><<<(n_elem + kThreads - 1) / kThreads, kThreads>>>(g, pos, alpha, n_elem, comp);
  VX_CUR_LAUNCH(vx_vort_deposit_kernel);
  const dim3 rows((unsigned)((n + kRowThreads - 1) / kRowThreads), (unsigned)n, (unsigned)(3 * n));
  for (int axis = 0; axis < 3; ++axis) {
    vx_vort_blur_kernel<<<rows, kRowThreads>>>(g, axis, axis == 1 ? tmp : comp, axis == 1 ? comp : tmp);
    VX_CUR_LAUNCH(vx_vort_blur_kernel);
  }
  vx_vort_mag_kernel<<<reduce_blocks((long long)n3), kThreads>>>((vx_vort_geom *)b->geom.p, tmp, (float *)b->mag.p);
  VX_CUR_LAUNCH(vx_vort_mag_kernel);
  return 0;
}

extern "C" int vx_vort_grid_compute_gpu(vx_vort_bufs *b, vx_precision prec, const void *pos, const void *alpha,
                                        int n_elem, double sigma, int n, vx_vort_geom *geom, char *err, size_t errlen) {
  const size_t n3 = (size_t)n * n * n;
  if (vx_mem_reserve(&b->geom, sizeof(vx_vort_geom), 1, err, errlen) ||
      vx_mem_reserve(&b->keys, 6 * sizeof(unsigned long long), 1, err, errlen))
    return -1;
  if (n_elem == 0) { /* nothing to deposit: zeros on the cube about the origin, as the CPU twin */
    const double zero[3] = {0.0, 0.0, 0.0};
    vx_vort_geom_make(zero, zero, sigma, n, geom);
    VX_CUR(cudaMemsetAsync(b->mag.p, 0, n3 * sizeof(float)));
    return 0;
  }
  int rc = prec == VX_FLOAT ? geometry(b, (const float *)pos, n_elem, sigma, n, err, errlen) ||
                                  field(b, (const float *)pos, (const float *)alpha, n_elem, n, err, errlen)
                            : geometry(b, (const double *)pos, n_elem, sigma, n, err, errlen) ||
                                  field(b, (const double *)pos, (const double *)alpha, n_elem, n, err, errlen);
  if (rc) return -1;
  /* the one wait: the cube, bad and the maximum, the struct's head without the taps */
  VX_CUR(cudaMemcpy(geom, b->geom.p, offsetof(vx_vort_geom, w), cudaMemcpyDeviceToHost));
  return 0;
}
