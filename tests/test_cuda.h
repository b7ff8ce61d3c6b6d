/* test_cuda.h — tests only: what the GPU tests that call the CUDA runtime themselves share. In a
 * build without CUDA, VX_TEST_NO_CUDA_MAIN is their whole program (a skip, CTest's 77), written as
 * `#ifndef VX_HAVE_CUDA VX_TEST_NO_CUDA_MAIN #else ... #endif`; with CUDA, CUDA_OK(call) checks a
 * runtime call of the test's own setup and ends the test on failure, saying which, where and why
 * (the engine's calls report through their error strings instead). */
#ifndef VX_TEST_CUDA_H
#define VX_TEST_CUDA_H

#include <stdio.h>
#include <stdlib.h>

#ifndef VX_HAVE_CUDA
#define VX_TEST_NO_CUDA_MAIN                                \
  int main(void) {                                          \
    printf("SKIP: vortexfmm was built without CUDA\n");     \
    return 77;                                              \
  }
#else
#include <cuda_runtime.h>
#define CUDA_OK(call)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "FATAL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(EXIT_FAILURE);                                                                          \
    }                                                                                              \
  } while (0)
#endif

#endif
