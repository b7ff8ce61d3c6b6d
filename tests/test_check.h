/* test_check.h — tests only: CHECK(cond, fmt, ...) counts a failure in g_fail, says where and why
 * on stderr, and returns 1 from the calling check function. One home for the macro the octree and
 * cost-model tests share. */
#ifndef VX_TEST_CHECK_H
#define VX_TEST_CHECK_H

#include <stdio.h>

static int g_fail = 0;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      g_fail++;                                            \
      return 1;                                            \
    }                                                      \
  } while (0)

#endif
