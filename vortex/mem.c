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

int vx_mem_reserve(vx_mem *b, size_t bytes, int on_device, char *err, size_t errlen) {
  if (b->p && b->cap >= bytes) return 0;
  vx_mem_free(b, on_device);
  if (bytes == 0) bytes = 1;
  if (on_device) {
    if (vx_device_alloc(&b->p, bytes, err, errlen)) return -1;
  } else {
    b->p = malloc(bytes);
    if (!b->p) { snprintf(err, errlen, "out of host memory (%zu bytes of particle arrays)", bytes); return -1; }
  }
  b->cap = bytes;
  return 0;
}
