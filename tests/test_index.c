/* test_index.c — the 64-bit offset helpers of fmm/index.h at sizes whose offsets pass 2^31 and
 * 2^32, where the int products they replaced (9 i, 3 i, b * 3 nc) overflowed: from 2.4e8 gradient
 * targets, 7.2e8 particles, and boxes of high-order expansions; and launch grids near INT_MAX. Only the arithmetic is checked
 * (no arrays that large are allocated). Run: build/tests/test_index */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hd.h"
#include "index.h"

static int failures = 0;

static void check(const char *what, size_t got, unsigned long long want) {
  if ((unsigned long long)got != want) {
    printf("FAIL %s: %llu, expected %llu\n", what, (unsigned long long)got, want);
    failures++;
  }
}

int main(void) {
  if (sizeof(size_t) < 8) {
    printf("FAIL size_t has %zu bytes: offsets past 2^32 cannot be represented\n", sizeof(size_t));
    return EXIT_FAILURE;
  }
  /* The first gradient target whose last component lies past INT_MAX: 9 * 238609294 + 8. */
  check("vx_off9(238609294, 8)", vx_off9(238609294, 8), 2147483654ull);
  check("vx_off9(INT_MAX, 8)", vx_off9(INT_MAX, 8), 9ull * INT_MAX + 8);
  /* xyz components: 3 * 715827882 + 2 = 2^31 exactly; the largest index passes 2^32. */
  check("vx_off3(715827882, 2)", vx_off3(715827882, 2), 1ull << 31);
  check("vx_off3(INT_MAX, 2)", vx_off3(INT_MAX, 2), 3ull * INT_MAX + 2);
  check("vx_off3(0, 0)", vx_off3(0, 0), 0);
  /* Box expansions: 2^20 boxes at p = 32 (3 x 1089 reals each) pass 2^31; 8^10 - 1 boxes pass 2^41. */
  const int nc = VX_NCOEF(32);
  check("vx_off_exp(2^20, nc(32))", vx_off_exp(1 << 20, nc), (1ull << 20) * 3 * 1089);
  check("vx_off_exp(8^10 - 1, nc(32))", vx_off_exp((1 << 30) - 1, nc), ((1ull << 30) - 1) * 3 * 1089);
  check("vx_off_exp(INT_MAX, nc(16))", vx_off_exp(INT_MAX, VX_NCOEF(16)), 3ull * 289 * INT_MAX);
  /* Per-leaf derivative expansions (k_l2p_deriv's D): up to 9p^2 + 18(p-1)^2 reals a leaf. */
  const size_t dper = 9 * 32 * 32 + 18 * 31 * 31;
  check("vx_off(INT_MAX, dper(32))", vx_off(INT_MAX, dper), (unsigned long long)INT_MAX * dper);
  /* Every component near the 32-bit boundaries, against unsigned 64-bit arithmetic. */
  const int edges[] = {238609293, 238609294, 477218588, 715827882, 1431655765, INT_MAX - 1, INT_MAX};
  for (size_t e = 0; e < sizeof edges / sizeof edges[0]; ++e) {
    const int i = edges[e];
    for (int c = 0; c < 3; ++c) check("vx_off3 (edges)", vx_off3(i, c), 3ull * (unsigned)i + (unsigned)c);
    for (int c = 0; c < 9; ++c) check("vx_off9 (edges)", vx_off9(i, c), 9ull * (unsigned)i + (unsigned)c);
    for (int p = 0; p <= VX_PMAX; ++p)
      check("vx_off_exp (edges)", vx_off_exp(i, VX_NCOEF(p)), 3ull * (unsigned)VX_NCOEF(p) * (unsigned)i);
  }
  /* Launch grids near INT_MAX, where n + 255 overflowed int. */
  if (vx_ceil_div(INT_MAX, 256) != 8388608 || vx_ceil_div(INT_MAX - 1, 1) != INT_MAX - 1 || vx_ceil_div(0, 256) != 0 ||
      vx_ceil_div(257, 256) != 2 || vx_ceil_div(INT_MAX, 128) != 16777216) {
    printf("FAIL vx_ceil_div near INT_MAX\n");
    failures++;
  }
  /* Offsets past 2^32 must not wrap (a 32-bit unsigned product would). */
  if (vx_off9(INT_MAX, 8) <= UINT32_MAX || vx_off3(INT_MAX, 2) <= UINT32_MAX) {
    printf("FAIL offsets past 2^32 wrapped\n");
    failures++;
  }
  if (failures) {
    printf("test_index: %d failure(s)\n", failures);
    return EXIT_FAILURE;
  }
  printf("test_index: OK\n");
  return EXIT_SUCCESS;
}
