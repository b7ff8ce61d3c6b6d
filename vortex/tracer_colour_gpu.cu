/* tracer_colour_gpu.cu — the CUDA twins of tracer_colour.c: one thread per tracer through the
 * per-row rules of tracer_colour.h (vx_tq_row_*, vx_block_label), and a min/max reduction whose two
 * floats are the only bytes that come back. Default stream, no synchronisation but the range's copy.
 * Compared with the host loops by tests/gpu_test_render_colour.c. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda_check.h"
#include "tracer_colour.h"

static const int kThreads = 256;

/* the row rule of each real type, under one name for the template */
__device__ static inline float vx_tq_row(vx_tracer_quantity q, const double *s, size_t i, const vx_travel *t) {
  return vx_tq_row_d(q, s, i, t);
}
__device__ static inline float vx_tq_row(vx_tracer_quantity q, const float *s, size_t i, const vx_travel *t) {
  return vx_tq_row_f(q, s, i, t);
}

template <typename R>
__global__ void vx_tq_kernel(vx_tracer_quantity q, const R *src, int n, vx_travel t, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = vx_tq_row(q, src, (size_t)i, &t);
}

/* Floats as unsigned keys whose integer order is the numeric order (for atomicMin / atomicMax). */
__device__ static inline unsigned vx_float_key(float v) {
  unsigned b = __float_as_uint(v);
  return (b >> 31) ? ~b : (b | 0x80000000u);
}
static float vx_key_float(unsigned k) {
  unsigned b = (k >> 31) ? (k & 0x7fffffffu) : ~k;
  float v;
  memcpy(&v, &b, sizeof v);
  return v;
}

/* keys[0] = min, keys[1] = max over the finite values (keys preset to the extremes). */
__global__ void vx_range_kernel(const float *v, int n, unsigned *keys) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned mn = ~0u, mx = 0u;
  if (i < n && isfinite(v[i])) mn = mx = vx_float_key(v[i]);
  for (int o = 16; o > 0; o >>= 1) {
    unsigned a = __shfl_down_sync(0xffffffffu, mn, o), b = __shfl_down_sync(0xffffffffu, mx, o);
    mn = a < mn ? a : mn;
    mx = b > mx ? b : mx;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&keys[0], mn);
    atomicMax(&keys[1], mx);
  }
}

extern "C" int vx_tracer_values_gpu(vx_tracer_quantity q, const void *d_src, int is_float, int n, const vx_travel *t,
                                    float *d_out, char *err, size_t errlen) {
  if (n <= 0) return 0;
  int blocks = (n + kThreads - 1) / kThreads;
  if (is_float) vx_tq_kernel<float><<<blocks, kThreads>>>(q, (const float *)d_src, n, *t, d_out);
  else vx_tq_kernel<double><<<blocks, kThreads>>>(q, (const double *)d_src, n, *t, d_out);
  VX_CUR_LAUNCH(vx_tq_kernel);
  return 0;
}

extern "C" int vx_values_range_gpu(const float *d_v, int n, float *d_scratch, float range[2], char *err, size_t errlen) {
  unsigned keys[2] = {~0u, 0u};
  range[0] = range[1] = 0.0f;
  if (n <= 0) return 0;
  VX_CUR(cudaMemcpy(d_scratch, keys, sizeof keys, cudaMemcpyHostToDevice));
  vx_range_kernel<<<(n + kThreads - 1) / kThreads, kThreads>>>(d_v, n, (unsigned *)d_scratch);
  VX_CUR_LAUNCH(vx_range_kernel);
  VX_CUR(cudaMemcpy(keys, d_scratch, sizeof keys, cudaMemcpyDeviceToHost));
  if (keys[0] == ~0u) return 0; /* no finite value */
  range[0] = vx_key_float(keys[0]);
  range[1] = vx_key_float(keys[1]);
  return 0;
}

__global__ void vx_ring_labels_kernel(vx_label_blocks b, int n, float *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = vx_block_label(&b, i);
}

extern "C" int vx_ring_labels_gpu(const vx_label_blocks *b, int n, float *d_out, char *err, size_t errlen) {
  if (n <= 0) return 0;
  vx_ring_labels_kernel<<<(n + kThreads - 1) / kThreads, kThreads>>>(*b, n, d_out);
  VX_CUR_LAUNCH(vx_ring_labels_kernel);
  return 0;
}
