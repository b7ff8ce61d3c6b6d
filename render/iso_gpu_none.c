/* iso_gpu_none.c — the GPU isosurface extraction (iso.h) in a build without CUDA: every call reports
 * the backend unavailable, and the renderer takes the CPU twin. Compiled instead of iso_gpu.cu. */
#include <stdio.h>

#include "iso.h"

rd_iso_gpu *rd_iso_gpu_create(char *err, size_t errlen) {
  snprintf(err, errlen, "CUDA backend not available in this build");
  return NULL;
}

void rd_iso_gpu_destroy(rd_iso_gpu *g) { (void)g; }

int rd_iso_extract_gpu(rd_iso_gpu *g, const float *d_f, int n, const double lo[3], double side, float level,
                       float *d_out, long cap, long *n_tri, char *err, size_t errlen) {
  (void)g, (void)d_f, (void)n, (void)lo, (void)side, (void)level, (void)d_out, (void)cap, (void)n_tri;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
