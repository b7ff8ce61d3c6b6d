/* compact.h — the copy rule of a compaction of particle arrays (removing a launched ring,
 * vortex/sim_rings.c: vx_sim_remove_ring): row i of the output is row idx[i] of the input, three values a
 * row, in the run's precision. Written once (host+device inline) and called by the CPU loop in
 * sim_rings.c and the CUDA kernel in sim_gpu.cu; gpu_test_launch compares the two on random input. */
#ifndef VX_COMPACT_H
#define VX_COMPACT_H

#include <stddef.h>
#include "hd.h"
#include "remesh.h" /* vx_load / vx_store: a backend array's values in either precision */

VX_EXTERN_C_BEGIN

VX_HD static inline void vx_gather_row(void *dst, const void *src, const int *idx, int is_float, size_t i) {
  size_t j = (size_t)idx[i];
  for (int c = 0; c < 3; ++c) vx_store(dst, is_float, 3 * i + c, vx_load(src, is_float, 3 * j + c));
}

VX_EXTERN_C_END
#endif
