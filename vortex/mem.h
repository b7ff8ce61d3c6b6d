/* mem.h — the grow-only buffer of backend memory that the vortex module's arrays live in: host
 * malloc on the cpu backend, device memory (fmm.h's vx_device_alloc) on cuda. One home for the
 * rule "grow when too small, contents not kept" (sim.c's state, remesh.c's scratch and outputs,
 * remesh_gpu.cu's outputs). Host code; compiles as C11 and C++. (fmm/ keeps a host-only twin,
 * fmm_internal.h's vx_buf, for its CPU engine.) */
#ifndef VX_MEM_H
#define VX_MEM_H

#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

typedef struct {
  void *p;
  size_t cap;   /* bytes */
} vx_mem;

/* Grow b to at least bytes (contents not kept; a request of 0 allocates 1 byte). 0, or -1 with err. */
int vx_mem_reserve(vx_mem *b, size_t bytes, int on_device, char *err, size_t errlen);
void vx_mem_free(vx_mem *b, int on_device);

VX_EXTERN_C_END
#endif
