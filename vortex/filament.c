/* filament.c — the tracers' view of the filaments (filament.h): the runs, each run's merge, and the
 * host loops that the CUDA kernels (filament_gpu.cu) twin. */
#include "filament.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef VX_HAVE_CUDA
/* CPU-only build: the cuda backend never gets this far (fmm_create refuses it). */
int vx_fil_stats_gpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, void *d_scratch, double *gap,
                     double *misalign, char *err, size_t errlen) {
  (void)is_float, (void)pos, (void)alpha, (void)bl, (void)d_scratch, (void)gap, (void)misalign;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_fil_merge_gpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, void *out_pos,
                     void *out_alpha, char *err, size_t errlen) {
  (void)is_float, (void)pos, (void)alpha, (void)bl, (void)out_pos, (void)out_alpha;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
#endif

int vx_fil_runs(const int *ring, int n, vx_fil_blocks *bl) {
  bl->n = 0;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && ring[i] == ring[i - 1]) { bl->b[bl->n - 1].count++; continue; }
    if (bl->n == VX_FIL_MAX_BLOCKS) return -1;
    bl->b[bl->n++] = (vx_fil_block){i, 1, 1, i};
  }
  return 0;
}

int vx_fil_plan(vx_fil_blocks *bl, const double *gap, const double *misalign, double sigma, int *merged) {
  int out = 0;
  *merged = 0;
  for (int k = 0; k < bl->n; ++k) {
    vx_fil_block *b = &bl->b[k];
    b->m = 1;
    if (b->count >= VX_FIL_MIN_STATIONS && misalign[k] <= VX_FIL_MISALIGN_MAX)
      while (b->count % (2 * b->m) == 0 && 2.0 * b->m * gap[k] <= VX_FIL_GAP_SIGMA * sigma &&
             b->count / (2 * b->m) >= VX_FIL_MIN_STATIONS)
        b->m *= 2;
    b->out = out;
    out += b->count / b->m;
    if (b->m > 1) *merged = 1;
  }
  return out;
}

void vx_fil_stats_cpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, double *gap,
                      double *misalign) {
  for (int k = 0; k < bl->n; ++k) {
    const vx_fil_block b = bl->b[k];
    float g = 0.0f, m = 0.0f; /* as the kernel keeps them; a non-finite gap leaves the run unmerged */
    for (int i = 0; i < b.count; ++i) {
      double gi, mi;
      if (is_float) vx_fil_element_f((const float *)pos, (const float *)alpha, b, i, &gi, &mi);
      else vx_fil_element_d((const double *)pos, (const double *)alpha, b, i, &gi, &mi);
      if (!(gi == gi)) gi = INFINITY;
      if ((float)gi > g) g = (float)gi;
      if ((float)mi > m) m = (float)mi;
    }
    gap[k] = g, misalign[k] = m;
  }
}

void vx_fil_merge_cpu(int is_float, const void *pos, const void *alpha, const vx_fil_blocks *bl, void *out_pos,
                      void *out_alpha) {
  for (int k = 0; k < bl->n; ++k) {
    const vx_fil_block b = bl->b[k];
    for (int j = 0; j < b.count / b.m; ++j) {
      if (is_float) vx_fil_merge_f((const float *)pos, (const float *)alpha, b, j, (float *)out_pos, (float *)out_alpha);
      else vx_fil_merge_d((const double *)pos, (const double *)alpha, b, j, (double *)out_pos, (double *)out_alpha);
    }
  }
}
