/* mem.h — the grow-only buffer of backend memory that the vortex module's arrays live in (the
 * simulation's state, remesh.c's scratch and outputs, remesh_gpu.cu's outputs, the tracer colours):
 * host memory on the cpu backend, device memory on cuda. The rule "grow when too small, contents not kept" has
 * one home per kind of memory, in fmm/: vx_host_reserve (fmm.h) and vx_dev_reserve (cuda_check.h,
 * under vx_device_alloc); this module only picks the backend's. Host code; C11 and C++. */
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
