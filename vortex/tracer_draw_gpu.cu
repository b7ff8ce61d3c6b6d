/* tracer_draw_gpu.cu — a ring's tracers drawn on the device (vx_gpu_ring_tracers: a ring launched
 * into a run on the CUDA backend, sim_rings.c): tracer_draw_t.h's draw and cell key a thread a
 * tracer, CUB's stable radix sort by key (ties in seeding order, as the host's), then the positions
 * gathered in that order in the run's precision straight into the particle array. Default stream;
 * the scratch is the simulation's, grown once and kept (a stream-ordered allocation would create the
 * device's memory pool at the first launch: 7 ms on an H200); nothing comes back to the host.
 * tests/gpu_test_launch.c compares the result with the host's vx_ring_tracers_draw. */
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <stdio.h>

#include "cuda_check.h"
#include "sim_gpu.h"
#include "tracer_draw_t.h"

static const int kThreads = 256;

/* The ring's plane, by value to the kernel. */
typedef struct {
  double e1[3], e2[3];
} ring_plane;

__global__ static void draw_kernel(vx_tracer_source q, ring_plane f, uint64_t st, double half, double *pos,
                                   uint32_t *key, uint32_t *idx) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= q.count) return;
  uint64_t sk = vx_tracer_stream(st, k);
  double p[3];
  vx_tracer_draw(&q, f.e1, f.e2, &sk, p);
  for (int i = 0; i < 3; ++i) pos[3 * (size_t)k + i] = p[i];
  key[k] = vx_tracer_key(p, q.centre, half);
  idx[k] = (uint32_t)k;
}

template <typename R>
__global__ static void gather_kernel(const double *pos, const uint32_t *idx, int n, R *out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const double *p = pos + 3 * (size_t)idx[k];
  for (int i = 0; i < 3; ++i) out[3 * (size_t)k + i] = (R)p[i];
}

/* Offsets in the scratch, each a multiple of 256 bytes: positions (3n doubles), keys and indices (2n
 * each: the sort's input and output), CUB's temporary storage. */
static size_t round256(size_t b) { return (b + 255) & ~(size_t)255; }

extern "C" int vx_gpu_ring_tracers(vx_precision prec, const vx_tracer_source *q, uint64_t st, void *d_out, void **d_scratch,
                                   size_t *cap, char *err, size_t errlen) {
  const int n = q->count;
  if (n <= 0) return 0;
  ring_plane f;
  vx_ring_frame(q->axis, f.e1, f.e2);
  const double half = vx_tracer_half(q);
  const size_t b_pos = round256(sizeof(double) * 3 * (size_t)n), b_half = round256(sizeof(uint32_t) * 2 * (size_t)n);
  size_t tmp_bytes = 0;
  VX_CUR(cub::DeviceRadixSort::SortPairs(NULL, tmp_bytes, (uint32_t *)NULL, (uint32_t *)NULL, (uint32_t *)NULL, (uint32_t *)NULL, n,
                                         0, 30));
  VX_CUR(vx_dev_reserve(d_scratch, cap, b_pos + 2 * b_half + tmp_bytes));
  char *base = (char *)*d_scratch;
  double *pos = (double *)base;
  uint32_t *key = (uint32_t *)(base + b_pos), *idx = (uint32_t *)(base + b_pos + b_half);
  void *tmp = base + b_pos + 2 * b_half;
  const int blocks = (n + kThreads - 1) / kThreads;
  draw_kernel<<<blocks, kThreads>>>(*q, f, st, half, pos, key, idx);
  VX_CUR_LAUNCH("draw_kernel");
  VX_CUR(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, key, key + n, idx, idx + n, n, 0, 30));
  if (prec == VX_FLOAT) gather_kernel<float><<<blocks, kThreads>>>(pos, idx + n, n, (float *)d_out);
  else gather_kernel<double><<<blocks, kThreads>>>(pos, idx + n, n, (double *)d_out);
  VX_CUR_LAUNCH("gather_kernel");
  return 0;
}
