/* mem.c — grow-only buffers of backend memory (mem.h). */
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>

#include "fmm.h"

void vx_mem_free(vx_mem *b, int on_device) {
  if (b->p) {
    if (on_device) vx_device_free(b->p);
    else free(b->p);
  }
  b->p = NULL;
  b->cap = 0;
}

/* The rule itself lives in fmm/ (vx_host_reserve; vx_device_alloc over vx_dev_reserve): here only
 * the choice of backend memory. */
int vx_mem_reserve(vx_mem *b, size_t bytes, int on_device, char *err, size_t errlen) {
  if (b->p && b->cap >= bytes) return 0;
  if (!on_device) {
    if (vx_host_reserve(&b->p, &b->cap, bytes) == 0) return 0;
    snprintf(err, errlen, "out of host memory (%zu bytes of particle arrays)", bytes);
    return -1;
  }
  vx_mem_free(b, on_device);
  if (vx_device_alloc(&b->p, bytes ? bytes : 1, err, errlen)) return -1;
  b->cap = bytes ? bytes : 1;
  return 0;
}
