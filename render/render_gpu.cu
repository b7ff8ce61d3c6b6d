/* render_gpu.cu — the CUDA half of the renderer (render_gpu.h): CUDA–OpenGL interop on the point
 * buffers and the opacity texture, and thin kernels around the per-element functions of
 * opacity.h (packing points, binning, ray counts, box blur). Everything runs on the default stream,
 * after the simulation's work; unmapping a resource orders the GL draws after the kernels, so the
 * frame loop never waits for the device except where a few bytes come back (bounding box,
 * totals, centroid). Build: part of vxrender when CMake finds nvcc. */
#include <cuda_runtime.h>
#include <cuda_gl_interop.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "fmm.h"
#include "render_gpu.h"

struct rd_gpu {
  int device;
  cudaGraphicsResource_t buf[RD_SLOTS];
  cudaGraphicsResource_t tex;
  void *staging;           /* float4 points of the copy path */
  size_t c_staging;
  int *bins;               /* the histogram in use */
  size_t c_bins;
  float *img0, *img1;      /* ray counts, blur temporary */
  size_t c_img0, c_img1;
  void *scratch;           /* bounding box keys, totals, sums: 64 bytes */
  size_t c_scratch;
};

static const int kThreads = 256;

static int blocks_for(long long n) { return (int)((n + kThreads - 1) / kThreads); }

/* ------------------------------------------------------------------ kernels */

template <typename T>
__global__ void rd_pack_kernel(const T *pos, const T *alpha, const float *value, int first, int n, int m, float4 *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  long long k = (long long)i * n / m; /* an even subset: the same on the host path */
  long long s = first + k;
  float w = value ? value[k] : 1.0f;
  if (alpha) {
    float ax = (float)alpha[3 * k], ay = (float)alpha[3 * k + 1], az = (float)alpha[3 * k + 2];
    w = sqrtf(ax * ax + ay * ay + az * az);
  }
  out[i] = make_float4((float)pos[3 * s], (float)pos[3 * s + 1], (float)pos[3 * s + 2], w);
}

/* Doubles as unsigned keys whose integer order is the numeric order (for atomicMin / atomicMax). */
__device__ static inline unsigned long long rd_order_key(double v) {
  unsigned long long b = (unsigned long long)__double_as_longlong(v);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
static double rd_key_value(unsigned long long k) {
  unsigned long long b = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

/* keys[0..2] = min, keys[3..5] = max of the coordinates (keys preset to the extremes). */
template <typename T>
__global__ void rd_bbox_kernel(const T *pos, int n, unsigned long long *keys) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long mn[3] = {~0ull, ~0ull, ~0ull}, mx[3] = {0ull, 0ull, 0ull};
  if (i < n)
    for (int k = 0; k < 3; ++k) mn[k] = mx[k] = rd_order_key((double)pos[3 * (size_t)i + k]);
  for (int k = 0; k < 3; ++k)
    for (int o = 16; o > 0; o >>= 1) {
      unsigned long long a = __shfl_down_sync(0xffffffffu, mn[k], o), b = __shfl_down_sync(0xffffffffu, mx[k], o);
      mn[k] = a < mn[k] ? a : mn[k];
      mx[k] = b > mx[k] ? b : mx[k];
    }
  if ((threadIdx.x & 31) == 0)
    for (int k = 0; k < 3; ++k) {
      atomicMin(&keys[k], mn[k]);
      atomicMax(&keys[3 + k], mx[k]);
    }
}

template <typename T>
__global__ void rd_hist_kernel(const T *pos, int n, double lo0, double lo1, double lo2, double inv_side, int levels,
                               int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double lo[3] = {lo0, lo1, lo2};
  size_t b = 3 * (size_t)i;
  atomicAdd(&bins[rd_bin_key((double)pos[b], (double)pos[b + 1], (double)pos[b + 2], lo, inv_side, levels)], 1);
}

__global__ void rd_total_kernel(const int *bins, size_t cells, unsigned long long *total) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long v = i < cells ? (unsigned long long)bins[i] : 0ull;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0 && v) atomicAdd(total, v);
}

template <typename T>
__global__ void rd_sum_kernel(const T *pos, int n, double *sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v[3] = {0.0, 0.0, 0.0};
  if (i < n)
    for (int k = 0; k < 3; ++k) v[k] = (double)pos[3 * (size_t)i + k];
  for (int k = 0; k < 3; ++k) {
    for (int o = 16; o > 0; o >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], o);
    if ((threadIdx.x & 31) == 0) atomicAdd(&sum[k], v[k]);
  }
}

__global__ void rd_ray_kernel(rd_ray_params p, const int *bins, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.width || y >= p.height) return;
  out[(size_t)y * p.width + x] = rd_ray_count(&p, bins, x, y);
}

__global__ void rd_blur_kernel(const float *src, int w, int h, int r, int horizontal, float *dst) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  dst[(size_t)y * w + x] = rd_box_blur_at(src, w, h, x, y, r, horizontal);
}

/* ------------------------------------------------------------------ lifetime */

extern "C" rd_gpu *rd_gpu_create(char *err, size_t errlen) {
  char why[256];
  if (!vx_cuda_available(why, sizeof why)) { /* fmm.h's one home for why there is no device */
    snprintf(err, errlen, "no CUDA device (%s)", why);
    return NULL;
  }
  rd_gpu *g = (rd_gpu *)calloc(1, sizeof(rd_gpu));
  if (!g) { snprintf(err, errlen, "out of host memory"); return NULL; }
  VX_CU(cudaGetDevice(&g->device));
  VX_CU(vx_dev_reserve(&g->scratch, &g->c_scratch, 64));
  return g;
fail:
  free(g);
  return NULL;
}

extern "C" void rd_gpu_destroy(rd_gpu *g) {
  if (!g) return;
  for (int s = 0; s < RD_SLOTS; ++s) rd_gpu_unregister_buffer(g, s);
  rd_gpu_unregister_texture(g);
  cudaFree(g->staging);
  cudaFree(g->bins);
  cudaFree(g->img0);
  cudaFree(g->img1);
  cudaFree(g->scratch);
  free(g);
}

/* ------------------------------------------------------------------ interop registration */

extern "C" int rd_gpu_register_buffer(rd_gpu *g, int slot, unsigned vbo, char *err, size_t errlen) {
  rd_gpu_unregister_buffer(g, slot);
  cudaError_t e = cudaGraphicsGLRegisterBuffer(&g->buf[slot], (GLuint)vbo, cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    g->buf[slot] = NULL;
    cudaGetLastError();
    snprintf(err, errlen, "cudaGraphicsGLRegisterBuffer: %s", cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

extern "C" void rd_gpu_unregister_buffer(rd_gpu *g, int slot) {
  if (g && g->buf[slot]) {
    cudaGraphicsUnregisterResource(g->buf[slot]);
    g->buf[slot] = NULL;
  }
}

extern "C" int rd_gpu_register_texture(rd_gpu *g, unsigned tex, char *err, size_t errlen) {
  rd_gpu_unregister_texture(g);
  cudaError_t e = cudaGraphicsGLRegisterImage(&g->tex, (GLuint)tex, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    g->tex = NULL;
    cudaGetLastError();
    snprintf(err, errlen, "cudaGraphicsGLRegisterImage: %s", cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

extern "C" void rd_gpu_unregister_texture(rd_gpu *g) {
  if (g && g->tex) {
    cudaGraphicsUnregisterResource(g->tex);
    g->tex = NULL;
  }
}

/* ------------------------------------------------------------------ points */

extern "C" int rd_gpu_pack_points(rd_gpu *g, int slot, const void *d_pos, const void *d_alpha, const float *d_value,
                                  rd_real real, int first, int n, int m, float *host, char *err, size_t errlen) {
  if (m <= 0) return 0;
  float4 *out = NULL;
  size_t bytes = sizeof(float4) * (size_t)m;
  int mapped = 0;
  if (host) {
    VX_CU(vx_dev_reserve(&g->staging, &g->c_staging, bytes));
    out = (float4 *)g->staging;
  } else {
    if (!g->buf[slot]) { snprintf(err, errlen, "point buffer %d is not registered with CUDA", slot); return -1; }
    size_t size = 0;
    VX_CU(cudaGraphicsMapResources(1, &g->buf[slot], 0));
    mapped = 1;
    VX_CU(cudaGraphicsResourceGetMappedPointer((void **)&out, &size, g->buf[slot]));
    if (size < bytes) {
      snprintf(err, errlen, "mapped point buffer holds %zu bytes, %zu needed", size, bytes);
      goto fail;
    }
  }
  if (real == RD_F64)
    rd_pack_kernel<double><<<blocks_for(m), kThreads>>>((const double *)d_pos, (const double *)d_alpha, d_value, first, n,
                                                        m, out);
  else
    rd_pack_kernel<float><<<blocks_for(m), kThreads>>>((const float *)d_pos, (const float *)d_alpha, d_value, first, n, m,
                                                       out);
  VX_CU_LAUNCH(rd_pack_kernel);
  if (mapped) {
    mapped = 0;
    VX_CU(cudaGraphicsUnmapResources(1, &g->buf[slot], 0));
  } else {
    VX_CU(cudaMemcpy(host, out, bytes, cudaMemcpyDeviceToHost));
  }
  return 0;
fail:
  if (mapped) cudaGraphicsUnmapResources(1, &g->buf[slot], 0);
  return -1;
}

extern "C" int rd_gpu_centroid(rd_gpu *g, const void *d_pos, rd_real real, int n, double c[3], char *err, size_t errlen) {
  double sum[3];
  if (n <= 0) { c[0] = c[1] = c[2] = 0.0; return 0; }
  VX_CUR(cudaMemsetAsync(g->scratch, 0, 3 * sizeof(double), 0));
  if (real == RD_F64) rd_sum_kernel<double><<<blocks_for(n), kThreads>>>((const double *)d_pos, n, (double *)g->scratch);
  else rd_sum_kernel<float><<<blocks_for(n), kThreads>>>((const float *)d_pos, n, (double *)g->scratch);
  VX_CUR_LAUNCH(rd_sum_kernel);
  VX_CUR(cudaMemcpy(sum, g->scratch, sizeof sum, cudaMemcpyDeviceToHost));
  for (int k = 0; k < 3; ++k) c[k] = sum[k] / n;
  return 0;
}

/* ------------------------------------------------------------------ histogram */

static int reserve_bins(rd_gpu *g, int levels, char *err, size_t errlen) {
  size_t bytes = sizeof(int) * ((size_t)1 << (3 * levels));
  VX_CUR(vx_dev_reserve((void **)&g->bins, &g->c_bins, bytes));
  return 0;
}

extern "C" int rd_gpu_hist_build(rd_gpu *g, const void *d_pos, rd_real real, int n, int levels, double lo[3], double *side,
                                 char *err, size_t errlen) {
  if (levels < 1 || levels > VX_LMAX) { snprintf(err, errlen, "histogram level %d outside 1..%d", levels, VX_LMAX); return -1; }
  if (n <= 0) { snprintf(err, errlen, "no particles to bin"); return -1; }
  if (reserve_bins(g, levels, err, errlen)) return -1;
  unsigned long long keys[6] = {~0ull, ~0ull, ~0ull, 0ull, 0ull, 0ull};
  VX_CUR(cudaMemcpy(g->scratch, keys, sizeof keys, cudaMemcpyHostToDevice));
  if (real == RD_F64) rd_bbox_kernel<double><<<blocks_for(n), kThreads>>>((const double *)d_pos, n, (unsigned long long *)g->scratch);
  else rd_bbox_kernel<float><<<blocks_for(n), kThreads>>>((const float *)d_pos, n, (unsigned long long *)g->scratch);
  VX_CUR_LAUNCH(rd_bbox_kernel);
  VX_CUR(cudaMemcpy(keys, g->scratch, sizeof keys, cudaMemcpyDeviceToHost));
  double mn[3], mx[3];
  for (int k = 0; k < 3; ++k) {
    mn[k] = rd_key_value(keys[k]);
    mx[k] = rd_key_value(keys[3 + k]);
  }
  if (!isfinite(mn[0] + mn[1] + mn[2] + mx[0] + mx[1] + mx[2]) || oct_root_cube(mn, mx, lo, side)) {
    snprintf(err, errlen, "particle positions are not finite: cannot bin them");
    return -1;
  }
  size_t cells = (size_t)1 << (3 * levels);
  VX_CUR(cudaMemsetAsync(g->bins, 0, sizeof(int) * cells, 0));
  double inv = 1.0 / *side;
  if (real == RD_F64)
    rd_hist_kernel<double><<<blocks_for(n), kThreads>>>((const double *)d_pos, n, lo[0], lo[1], lo[2], inv, levels, g->bins);
  else
    rd_hist_kernel<float><<<blocks_for(n), kThreads>>>((const float *)d_pos, n, lo[0], lo[1], lo[2], inv, levels, g->bins);
  VX_CUR_LAUNCH(rd_hist_kernel);
  return 0;
}

extern "C" int rd_gpu_hist_copy(rd_gpu *g, const int *bins, int on_device, int levels, char *err, size_t errlen) {
  if (reserve_bins(g, levels, err, errlen)) return -1;
  size_t bytes = sizeof(int) * ((size_t)1 << (3 * levels));
  VX_CUR(cudaMemcpyAsync(g->bins, bins, bytes, on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, 0));
  return 0;
}

extern "C" int rd_gpu_hist_download(rd_gpu *g, int *host, int levels, char *err, size_t errlen) {
  size_t bytes = sizeof(int) * ((size_t)1 << (3 * levels));
  if (!g->bins || g->c_bins < bytes) { snprintf(err, errlen, "no device histogram of level %d", levels); return -1; }
  VX_CUR(cudaMemcpy(host, g->bins, bytes, cudaMemcpyDeviceToHost));
  return 0;
}

extern "C" int rd_gpu_hist_total(rd_gpu *g, int levels, long long *total, char *err, size_t errlen) {
  size_t cells = (size_t)1 << (3 * levels);
  if (!g->bins || g->c_bins < sizeof(int) * cells) { snprintf(err, errlen, "no device histogram of level %d", levels); return -1; }
  unsigned long long t = 0;
  VX_CUR(cudaMemsetAsync(g->scratch, 0, sizeof t, 0));
  rd_total_kernel<<<(unsigned)((cells + kThreads - 1) / kThreads), kThreads>>>(g->bins, cells, (unsigned long long *)g->scratch);
  VX_CUR_LAUNCH(rd_total_kernel);
  VX_CUR(cudaMemcpy(&t, g->scratch, sizeof t, cudaMemcpyDeviceToHost));
  *total = (long long)t;
  return 0;
}

/* ------------------------------------------------------------------ opacity */

extern "C" int rd_gpu_opacity(rd_gpu *g, const rd_ray_params *p, int blur, float *host, char *err, size_t errlen) {
  int w = p->width, h = p->height;
  size_t bytes = sizeof(float) * (size_t)w * h;
  int mapped = 0;
  if (!g->bins) { snprintf(err, errlen, "no device histogram"); return -1; }
  if (!host && !g->tex) { snprintf(err, errlen, "opacity texture is not registered with CUDA"); return -1; }
  {
    VX_CU(vx_dev_reserve((void **)&g->img0, &g->c_img0, bytes));
    VX_CU(vx_dev_reserve((void **)&g->img1, &g->c_img1, bytes));
    dim3 b2(16, 16), g2((unsigned)((w + 15) / 16), (unsigned)((h + 15) / 16));
    rd_ray_kernel<<<g2, b2>>>(*p, g->bins, g->img0);
    VX_CU_LAUNCH(rd_ray_kernel);
    if (blur > 0) {
      rd_blur_kernel<<<g2, b2>>>(g->img0, w, h, blur, 1, g->img1);
      VX_CU_LAUNCH(rd_blur_kernel);
      rd_blur_kernel<<<g2, b2>>>(g->img1, w, h, blur, 0, g->img0);
      VX_CU_LAUNCH(rd_blur_kernel);
    }
    if (host) {
      VX_CU(cudaMemcpy(host, g->img0, bytes, cudaMemcpyDeviceToHost));
      return 0;
    }
    cudaArray_t arr;
    VX_CU(cudaGraphicsMapResources(1, &g->tex, 0));
    mapped = 1;
    VX_CU(cudaGraphicsSubResourceGetMappedArray(&arr, g->tex, 0, 0));
    VX_CU(cudaMemcpy2DToArrayAsync(arr, 0, 0, g->img0, sizeof(float) * w, sizeof(float) * w, h, cudaMemcpyDeviceToDevice, 0));
    mapped = 0;
    VX_CU(cudaGraphicsUnmapResources(1, &g->tex, 0));
  }
  return 0;
fail:
  if (mapped) cudaGraphicsUnmapResources(1, &g->tex, 0);
  return -1;
}
