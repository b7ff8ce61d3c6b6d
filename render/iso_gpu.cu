/* iso_gpu.cu — the CUDA half of the isosurface extraction (iso.h): a thread a cell counts its
 * triangles, CUB's DeviceScan turns the counts into offsets, a thread a cell with triangles
 * writes them at its offset; the per-cell math is iso_t.h's, which the CPU twin (iso_cpu.c) calls
 * too. Compiled with --fmad=false (CMakeLists.txt), so every vertex rounds as on the CPU. All on the
 * default stream; the one wait is the total coming back (4 bytes) after the writes are queued.
 * tests/gpu_test_iso.c compares the two backends. Build: part of vxrender when CMake finds nvcc. */
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "fmm.h"
#include "iso.h"

struct rd_iso_gpu {
  void *counts, *offsets; /* (n−1)³ + 1 unsigned each: the last count 0, so the last offset is the total */
  size_t c_counts, c_offsets;
  void *temp;             /* CUB's scan storage */
  size_t c_temp;
};

static const int kThreads = 256;

/* Cell index → (i, j, k), x fastest. */
__device__ static inline void rd_iso_cell_ijk(unsigned cell, int m, int *i, int *j, int *k) {
  *i = (int)(cell % (unsigned)m);
  *j = (int)(cell / (unsigned)m % (unsigned)m);
  *k = (int)(cell / ((unsigned)m * (unsigned)m));
}

__global__ void rd_iso_count_kernel(const float *f, rd_iso_geom g, unsigned cells, unsigned *counts) {
  const unsigned cell = blockIdx.x * blockDim.x + threadIdx.x;
  if (cell > cells) return;
  if (cell == cells) { counts[cell] = 0u; return; }
  int i, j, k;
  rd_iso_cell_ijk(cell, g.n - 1, &i, &j, &k);
  counts[cell] = (unsigned)rd_iso_cell_count(f, &g, i, j, k);
}

__global__ void rd_iso_emit_kernel(const float *f, rd_iso_geom g, unsigned cells, const unsigned *counts,
                                   const unsigned *offsets, float *out, long cap) {
  const unsigned cell = blockIdx.x * blockDim.x + threadIdx.x;
  if (cell >= cells || counts[cell] == 0u || (long)offsets[cell] >= cap) return;
  int i, j, k;
  rd_iso_cell_ijk(cell, g.n - 1, &i, &j, &k);
  rd_iso_cell_emit(f, &g, i, j, k, out, (long)offsets[cell], cap);
}

extern "C" rd_iso_gpu *rd_iso_gpu_create(char *err, size_t errlen) {
  char why[256];
  if (!vx_cuda_available(why, sizeof why)) { /* fmm.h's one home for why there is no device */
    snprintf(err, errlen, "no CUDA device (%s)", why);
    return NULL;
  }
  rd_iso_gpu *g = (rd_iso_gpu *)calloc(1, sizeof(rd_iso_gpu));
  if (!g) snprintf(err, errlen, "out of host memory");
  return g;
}

extern "C" void rd_iso_gpu_destroy(rd_iso_gpu *g) {
  if (!g) return;
  cudaFree(g->counts);
  cudaFree(g->offsets);
  cudaFree(g->temp);
  free(g);
}

extern "C" int rd_iso_extract_gpu(rd_iso_gpu *g, const float *d_f, int n, const double lo[3], double side, float level,
                                  float *d_out, long cap, long *n_tri, char *err, size_t errlen) {
  if (!g) { snprintf(err, errlen, "isosurface: no GPU scratch"); return -1; }
  if (rd_iso_check(d_f, n, side, level, d_out, cap, err, errlen)) return -1;
  const rd_iso_geom geom = rd_iso_geom_make(lo, side, n, level);
  const unsigned m = (unsigned)(n - 1), cells = m * m * m;
  const size_t bytes = ((size_t)cells + 1) * sizeof(unsigned);
  VX_CUR(vx_dev_reserve(&g->counts, &g->c_counts, bytes));
  VX_CUR(vx_dev_reserve(&g->offsets, &g->c_offsets, bytes));
  unsigned *counts = (unsigned *)g->counts, *offsets = (unsigned *)g->offsets;
  const unsigned blocks = (cells + 1 + kThreads - 1) / kThreads;
  rd_iso_count_kernel<<<blocks, kThreads>>>(d_f, geom, cells, counts);
  VX_CUR_LAUNCH(rd_iso_count_kernel);
  size_t temp = 0;
  VX_CUR(cub::DeviceScan::ExclusiveSum(NULL, temp, counts, offsets, (int)cells + 1));
  VX_CUR(vx_dev_reserve(&g->temp, &g->c_temp, temp));
  VX_CUR(cub::DeviceScan::ExclusiveSum(g->temp, temp, counts, offsets, (int)cells + 1));
  rd_iso_emit_kernel<<<blocks, kThreads>>>(d_f, geom, cells, counts, offsets, d_out, cap);
  VX_CUR_LAUNCH(rd_iso_emit_kernel);
  unsigned total = 0;
  VX_CUR(cudaMemcpy(&total, offsets + cells, sizeof total, cudaMemcpyDeviceToHost));
  *n_tri = (long)total;
  return 0;
}
