/* render_gpu.cu — the CUDA half of the renderer (render_gpu.h): CUDA–OpenGL interop on the point
 * buffers and the opacity texture, and thin kernels around the per-element functions of
 * opacity.h (packing points, binning, ray counts, box blur). Everything runs on the default stream,
 * after the simulation's work; unmapping a resource orders the GL draws after the kernels, so the
 * frame loop never waits for the device except where a few bytes come back (bounding box,
 * totals, centroid). A frame maps its resources once, all together (rd_gpu_map): each map and
 * unmap hands the GPU between the CUDA and GL contexts, a cost paid once a frame rather than once
 * a resource.
 * Build: part of vxrender when CMake finds nvcc. */
#include <cuda_runtime.h>
#include <cuda_gl_interop.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_reduce.cuh"
#include "fmm.h"
#include "render_gpu.h"

struct rd_gpu {
  int device;
  cudaGraphicsResource_t buf[RD_BUFS];
  cudaGraphicsResource_t tex;
  void *staging;           /* float4 points of the copy path */
  size_t c_staging;
  int *bins;               /* the histogram in use */
  size_t c_bins;
  float *img0, *img1;      /* ray counts, blur temporary */
  size_t c_img0, c_img1;
  void *scratch;           /* bounding box keys, totals, sums: 64 bytes */
  size_t c_scratch;
  unsigned mapped_slots;   /* the point buffers rd_gpu_map mapped (a bit a slot) */
  int tex_mapped;          /* and the opacity texture */
  float4 *slot_ptr[RD_BUFS];
  size_t slot_size[RD_BUFS];
  cudaArray_t tex_arr;
};

static const int kThreads = 256;
static const int kReduceBlocks = 512; /* the reductions' grid: a few blocks an SM, each striding */

static int blocks_for(long long n) { return (int)((n + kThreads - 1) / kThreads); }
static int reduce_blocks(long long n) { int b = blocks_for(n); return b < kReduceBlocks ? b : kReduceBlocks; }

/* ------------------------------------------------------------------ kernels */

template <typename T>
__global__ void rd_pack_kernel(const T *pos, const T *alpha, const float *value, const int *draw, int first, int n, int m,
                               float4 *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  long long k = draw ? (long long)draw[i] : (long long)i * n / m; /* the list, or an even subset: as on the host path */
  long long s = first + k;
  float w = value ? value[k] : 1.0f;
  if (alpha) {
    float ax = (float)alpha[3 * k], ay = (float)alpha[3 * k + 1], az = (float)alpha[3 * k + 2];
    w = sqrtf(ax * ax + ay * ay + az * az);
  }
  out[i] = make_float4((float)pos[3 * s], (float)pos[3 * s + 1], (float)pos[3 * s + 2], w);
}

/* keys[0..2] = min, keys[3..5] = max of the coordinates (keys preset to the extremes). Each thread
 * strides over the points, each block reduces in shared memory and makes one atomic a key (a warp
 * each made six on the same six words: 200 000 for a million points). */
template <typename T>
__global__ void rd_bbox_kernel(const T *pos, int n, unsigned long long *keys) {
  unsigned long long mn[3] = {~0ull, ~0ull, ~0ull}, mx[3] = {0ull, 0ull, 0ull};
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    for (int k = 0; k < 3; ++k) {
      unsigned long long v = vx_order_key((double)pos[3 * (size_t)i + k]);
      mn[k] = v < mn[k] ? v : mn[k];
      mx[k] = v > mx[k] ? v : mx[k];
    }
  for (int k = 0; k < 3; ++k) {
    const unsigned long long a = vx_block_reduce<kThreads>(mn[k], vx_min_op()), b = vx_block_reduce<kThreads>(mx[k], vx_max_op());
    if (threadIdx.x == 0) atomicMin(&keys[k], a), atomicMax(&keys[3 + k], b);
  }
}

template <typename T>
__global__ void rd_hist_kernel(const T *pos, int n, double lo0, double lo1, double lo2, double inv_side, int levels,
                               int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double lo[3] = {lo0, lo1, lo2};
  size_t b = 3 * (size_t)i;
  uint32_t key = rd_bin_key((double)pos[b], (double)pos[b + 1], (double)pos[b + 2], lo, inv_side, levels);
  unsigned peers = __match_any_sync(__activemask(), key); /* one atomic for a warp's points in one cell */
  if ((int)(threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&bins[key], __popc(peers));
}

/* The histogram's total: strided, one atomic a block. */
__global__ void rd_total_kernel(const int *bins, size_t cells, unsigned long long *total) {
  unsigned long long v = 0ull;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < cells; i += (size_t)gridDim.x * blockDim.x)
    v += (unsigned long long)bins[i];
  const unsigned long long t = vx_block_reduce<kThreads>(v, vx_add_op());
  if (threadIdx.x == 0 && t) atomicAdd(total, t);
}

/* The coordinates' sums (for the centroid): strided, one atomic a block and coordinate. */
template <typename T>
__global__ void rd_sum_kernel(const T *pos, int n, double *sum) {
  double v[3] = {0.0, 0.0, 0.0};
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    for (int k = 0; k < 3; ++k) v[k] += (double)pos[3 * (size_t)i + k];
  for (int k = 0; k < 3; ++k) {
    const double t = vx_block_reduce<kThreads>(v[k], vx_add_op());
    if (threadIdx.x == 0) atomicAdd(&sum[k], t);
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

extern "C" int rd_gpu_device(void) {
  int d = -1;
  if (!vx_cuda_available(NULL, 0) || cudaGetDevice(&d) != cudaSuccess) return -1;
  return d;
}

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
  for (int s = 0; s < RD_BUFS; ++s) rd_gpu_unregister_buffer(g, s);
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

/* The slots' point buffers and the texture, mapped in one call (the lists rd_gpu_map and rd_gpu_unmap
 * share). */
static int mapped_list(const rd_gpu *g, unsigned slots, int tex, cudaGraphicsResource_t *res) {
  int n = 0;
  for (int s = 0; s < RD_BUFS; ++s)
    if (slots & (1u << s)) res[n++] = g->buf[s];
  if (tex) res[n++] = g->tex;
  return n;
}

extern "C" int rd_gpu_map(rd_gpu *g, unsigned slots, int tex, char *err, size_t errlen) {
  cudaGraphicsResource_t res[RD_BUFS + 1];
  if (g->mapped_slots || g->tex_mapped) { snprintf(err, errlen, "the renderer's CUDA resources are mapped already"); return -1; }
  for (int s = 0; s < RD_BUFS; ++s)
    if ((slots & (1u << s)) && !g->buf[s]) { snprintf(err, errlen, "GL buffer %d is not registered with CUDA", s); return -1; }
  if (tex && !g->tex) { snprintf(err, errlen, "opacity texture is not registered with CUDA"); return -1; }
  int n = mapped_list(g, slots, tex, res);
  if (n == 0) return 0;
  VX_CUR(cudaGraphicsMapResources(n, res, 0));
  g->mapped_slots = slots, g->tex_mapped = tex;
  for (int s = 0; s < RD_BUFS; ++s)
    if (slots & (1u << s)) VX_CU(cudaGraphicsResourceGetMappedPointer((void **)&g->slot_ptr[s], &g->slot_size[s], g->buf[s]));
  if (tex) VX_CU(cudaGraphicsSubResourceGetMappedArray(&g->tex_arr, g->tex, 0, 0));
  return 0;
fail:
  rd_gpu_unmap(g, NULL, 0);
  return -1;
}

extern "C" int rd_gpu_unmap(rd_gpu *g, char *err, size_t errlen) {
  cudaGraphicsResource_t res[RD_BUFS + 1];
  int n = mapped_list(g, g->mapped_slots, g->tex_mapped, res);
  g->mapped_slots = 0, g->tex_mapped = 0;
  if (n == 0) return 0;
  cudaError_t e = cudaGraphicsUnmapResources(n, res, 0);
  if (e == cudaSuccess) return 0;
  if (err) snprintf(err, errlen, "CUDA error: %s (cudaGraphicsUnmapResources)", cudaGetErrorString(e));
  return -1;
}

extern "C" void *rd_gpu_mapped_buffer(rd_gpu *g, int slot, size_t *bytes) {
  if (!g || slot < 0 || slot >= RD_BUFS || !(g->mapped_slots & (1u << slot))) return NULL;
  *bytes = g->slot_size[slot];
  return g->slot_ptr[slot];
}

extern "C" int rd_gpu_download(void *host, const void *d_src, size_t bytes, char *err, size_t errlen) {
  VX_CUR(cudaMemcpy(host, d_src, bytes, cudaMemcpyDeviceToHost));
  return 0;
}

extern "C" int rd_gpu_pack_points(rd_gpu *g, int slot, const void *d_pos, const void *d_alpha, const float *d_value,
                                  const int *d_draw, rd_real real, int first, int n, int m, float *host, char *err,
                                  size_t errlen) {
  if (m <= 0) return 0;
  float4 *out = NULL;
  size_t bytes = sizeof(float4) * (size_t)m;
  if (host) {
    VX_CUR(vx_dev_reserve(&g->staging, &g->c_staging, bytes));
    out = (float4 *)g->staging;
  } else {
    if (!(g->mapped_slots & (1u << slot))) { snprintf(err, errlen, "point buffer %d is not mapped (rd_gpu_map)", slot); return -1; }
    if (g->slot_size[slot] < bytes) {
      snprintf(err, errlen, "mapped point buffer holds %zu bytes, %zu needed", g->slot_size[slot], bytes);
      return -1;
    }
    out = g->slot_ptr[slot];
  }
  if (real == RD_F64)
    rd_pack_kernel<double><<<blocks_for(m), kThreads>>>((const double *)d_pos, (const double *)d_alpha, d_value, d_draw,
                                                        first, n, m, out);
  else
    rd_pack_kernel<float><<<blocks_for(m), kThreads>>>((const float *)d_pos, (const float *)d_alpha, d_value, d_draw, first,
                                                       n, m, out);
  VX_CUR_LAUNCH(rd_pack_kernel);
  if (host) VX_CUR(cudaMemcpy(host, out, bytes, cudaMemcpyDeviceToHost));
  return 0;
}

extern "C" int rd_gpu_sums(rd_gpu *g, const void *d_pos, rd_real real, int n, double sum[3], char *err, size_t errlen) {
  sum[0] = sum[1] = sum[2] = 0.0;
  if (n <= 0) return 0;
  VX_CUR(cudaMemsetAsync(g->scratch, 0, 3 * sizeof(double), 0));
  if (real == RD_F64) rd_sum_kernel<double><<<reduce_blocks(n), kThreads>>>((const double *)d_pos, n, (double *)g->scratch);
  else rd_sum_kernel<float><<<reduce_blocks(n), kThreads>>>((const float *)d_pos, n, (double *)g->scratch);
  VX_CUR_LAUNCH(rd_sum_kernel);
  VX_CUR(cudaMemcpy(sum, g->scratch, 3 * sizeof(double), cudaMemcpyDeviceToHost));
  return 0;
}

/* ------------------------------------------------------------------ histogram */

static int reserve_bins(rd_gpu *g, int levels, char *err, size_t errlen) {
  size_t bytes = sizeof(int) * ((size_t)1 << (3 * levels));
  VX_CUR(vx_dev_reserve((void **)&g->bins, &g->c_bins, bytes));
  return 0;
}

extern "C" int rd_gpu_bounds(rd_gpu *g, const void *d_pos, rd_real real, int n, double mn[3], double mx[3], char *err,
                             size_t errlen) {
  for (int k = 0; k < 3; ++k) mn[k] = INFINITY, mx[k] = -INFINITY;
  if (n <= 0) return 0;
  unsigned long long keys[6];
  VX_CUR(cudaMemsetAsync(g->scratch, 0xff, 3 * sizeof keys[0], 0)); /* min keys at their largest, max keys at 0 */
  VX_CUR(cudaMemsetAsync((unsigned long long *)g->scratch + 3, 0, 3 * sizeof keys[0], 0));
  if (real == RD_F64) rd_bbox_kernel<double><<<reduce_blocks(n), kThreads>>>((const double *)d_pos, n, (unsigned long long *)g->scratch);
  else rd_bbox_kernel<float><<<reduce_blocks(n), kThreads>>>((const float *)d_pos, n, (unsigned long long *)g->scratch);
  VX_CUR_LAUNCH(rd_bbox_kernel);
  VX_CUR(cudaMemcpy(keys, g->scratch, sizeof keys, cudaMemcpyDeviceToHost));
  for (int k = 0; k < 3; ++k) {
    mn[k] = vx_key_value(keys[k]);
    mx[k] = vx_key_value(keys[3 + k]);
  }
  return 0;
}

extern "C" int rd_gpu_hist_bin(rd_gpu *g, const void *d_pos, rd_real real, int n, int levels, const double lo[3], double side,
                               char *err, size_t errlen) {
  if (levels < 1 || levels > VX_LMAX) { snprintf(err, errlen, "histogram level %d outside 1..%d", levels, VX_LMAX); return -1; }
  if (reserve_bins(g, levels, err, errlen)) return -1;
  size_t cells = (size_t)1 << (3 * levels);
  VX_CUR(cudaMemsetAsync(g->bins, 0, sizeof(int) * cells, 0));
  if (n <= 0) return 0;
  double inv = 1.0 / side;
  if (real == RD_F64)
    rd_hist_kernel<double><<<blocks_for(n), kThreads>>>((const double *)d_pos, n, lo[0], lo[1], lo[2], inv, levels, g->bins);
  else
    rd_hist_kernel<float><<<blocks_for(n), kThreads>>>((const float *)d_pos, n, lo[0], lo[1], lo[2], inv, levels, g->bins);
  VX_CUR_LAUNCH(rd_hist_kernel);
  return 0;
}

extern "C" int rd_gpu_hist_build(rd_gpu *g, const void *d_pos, rd_real real, int n, int levels, double lo[3], double *side,
                                 char *err, size_t errlen) {
  double mn[3], mx[3];
  if (n <= 0) { snprintf(err, errlen, "no particles to bin"); return -1; }
  return rd_gpu_bounds(g, d_pos, real, n, mn, mx, err, errlen) || rd_hist_cube(mn, mx, lo, side, err, errlen) ||
                 rd_gpu_hist_bin(g, d_pos, real, n, levels, lo, *side, err, errlen)
             ? -1
             : 0;
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
  rd_total_kernel<<<reduce_blocks((long long)cells), kThreads>>>(g->bins, cells, (unsigned long long *)g->scratch);
  VX_CUR_LAUNCH(rd_total_kernel);
  VX_CUR(cudaMemcpy(&t, g->scratch, sizeof t, cudaMemcpyDeviceToHost));
  *total = (long long)t;
  return 0;
}

/* ------------------------------------------------------------------ opacity */

extern "C" int rd_gpu_opacity(rd_gpu *g, const rd_ray_params *p, int blur, float *host, char *err, size_t errlen) {
  int w = p->width, h = p->height;
  size_t bytes = sizeof(float) * (size_t)w * h;
  if (!g->bins) { snprintf(err, errlen, "no device histogram"); return -1; }
  if (!host && !g->tex_mapped) { snprintf(err, errlen, "opacity texture is not mapped (rd_gpu_map)"); return -1; }
  VX_CUR(vx_dev_reserve((void **)&g->img0, &g->c_img0, bytes));
  VX_CUR(vx_dev_reserve((void **)&g->img1, &g->c_img1, bytes));
  dim3 b2(16, 16), g2((unsigned)((w + 15) / 16), (unsigned)((h + 15) / 16));
  rd_ray_kernel<<<g2, b2>>>(*p, g->bins, g->img0);
  VX_CUR_LAUNCH(rd_ray_kernel);
  if (blur > 0) {
    rd_blur_kernel<<<g2, b2>>>(g->img0, w, h, blur, 1, g->img1);
    VX_CUR_LAUNCH(rd_blur_kernel);
    rd_blur_kernel<<<g2, b2>>>(g->img1, w, h, blur, 0, g->img0);
    VX_CUR_LAUNCH(rd_blur_kernel);
  }
  if (host) VX_CUR(cudaMemcpy(host, g->img0, bytes, cudaMemcpyDeviceToHost));
  else VX_CUR(cudaMemcpy2DToArrayAsync(g->tex_arr, 0, 0, g->img0, sizeof(float) * w, sizeof(float) * w, h, cudaMemcpyDeviceToDevice, 0));
  return 0;
}
