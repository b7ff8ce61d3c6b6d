/* test_check.h — tests only: how a test reports. One failure counter, `failures`, that FAIL, EXPECT
 * and CHECK count into (the test ends with EXIT_FAILURE when it is not 0), and the skips (exit 77,
 * CTest's skip code) the render and GPU tests share, so that no test defines its own. Include it after any feature macro (_POSIX_C_SOURCE) the test needs. */
#ifndef VX_TEST_CHECK_H
#define VX_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

/* FAIL(fmt, ...): one failed check: "FAIL: why" on stdout, counted; the test goes on. */
#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); ++failures; } while (0)

/* EXPECT(cond, fmt, ...): FAIL(fmt, ...) unless cond holds; the test goes on. */
#define EXPECT(cond, ...) do { if (!(cond)) FAIL(__VA_ARGS__); } while (0)

/* CHECK(cond, fmt, ...): unless cond holds, says where and why on stderr, counts the failure and
 * returns 1 from the calling check function. */
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      failures++;                                          \
      return 1;                                            \
    }                                                      \
  } while (0)

/* A test's last line, `return vx_test_end("what passed");`: with failures, how many and
 * EXIT_FAILURE; without, the line passed and EXIT_SUCCESS. */
static inline int vx_test_end(const char *passed) {
  if (failures) {
    printf("%d check(s) failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("%s\n", passed);
  return EXIT_SUCCESS;
}

/* The whole of a render test in a build without the renderer (-DVX_ENABLE_RENDER=OFF defines
 * VX_RENDER_OFF): a main that skips. Written as `#ifdef VX_RENDER_OFF VX_TEST_RENDER_OFF_MAIN #else`. */
#define VX_TEST_RENDER_OFF_MAIN                                           \
  int main(void) {                                                        \
    (void)failures;                                                       \
    printf("SKIP: this build has no renderer (-DVX_ENABLE_RENDER=OFF)\n"); \
    return 77;                                                            \
  }

/* A GPU test's first step (in main): return 77 (skip) when no CUDA device is usable
 * (vx_cuda_available, fmm.h); otherwise the device's name is in name (a char array). */
#define VX_TEST_NEED_CUDA(name)                                     \
  do {                                                              \
    if (!vx_cuda_available(name, sizeof name)) {                    \
      printf("SKIP: no usable CUDA device (%s)\n", name);           \
      return 77;                                                    \
    }                                                               \
  } while (0)

#endif
