/* cuda_check.h — checking every CUDA call (STYLE.md: fail fast, name the call, file and line).
 * Library code does not exit: VX_CU sets the caller's err/errlen message and jumps to its `fail:`
 * label; VX_CU_LAUNCH does the same after a kernel launch. CUDA translation units only. */
#ifndef VX_CUDA_CHECK_H
#define VX_CUDA_CHECK_H
#include <cuda_runtime.h>
#include <stdio.h>

#define VX_CU(call)                                                                                  \
  do {                                                                                               \
    cudaError_t vx_e_ = (call);                                                                      \
    if (vx_e_ != cudaSuccess) {                                                                      \
      snprintf(err, errlen, "CUDA error: %s (%s at %s:%d)", cudaGetErrorString(vx_e_), #call, __FILE__, \
               __LINE__);                                                                            \
      goto fail;                                                                                     \
    }                                                                                                \
  } while (0)

#define VX_CU_LAUNCH(name) VX_CU(cudaGetLastError())

/* The same check for functions without cleanup: sets err and returns -1. */
#define VX_CUR(call)                                                                                 \
  do {                                                                                               \
    cudaError_t vx_e_ = (call);                                                                      \
    if (vx_e_ != cudaSuccess) {                                                                      \
      snprintf(err, errlen, "CUDA error: %s (%s at %s:%d)", cudaGetErrorString(vx_e_), #call, __FILE__, \
               __LINE__);                                                                            \
      return -1;                                                                                     \
    }                                                                                                \
  } while (0)
#define VX_CUR_LAUNCH(name) VX_CUR(cudaGetLastError())

/* Grow a device buffer to at least `bytes` (contents not kept); 0 or a cudaError_t. */
static inline cudaError_t vx_dev_reserve(void **ptr, size_t *cap, size_t bytes) {
  if (*ptr && *cap >= bytes) return cudaSuccess;
  if (*ptr) cudaFree(*ptr);
  *ptr = NULL;
  *cap = 0;
  cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 1);
  if (e == cudaSuccess) *cap = bytes;
  else *ptr = NULL;
  return e;
}
#endif
