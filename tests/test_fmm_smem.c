/* test_fmm_smem.c — fitting the CUDA kernels' dynamic shared memory to a device's per-block limit
 * (fmm/gpu_smem.h), without a GPU: which orders fit in float and double, with and without
 * gradients, at the opt-in limits of sm_75 (64 KiB), sm_86/89 (99 KiB) and sm_90 (227 KiB); that
 * no planned kernel exceeds the limit; and that an order that cannot fit is refused in one line
 * naming the order, the precision and the orders that do fit.
 * The largest orders follow from the L2P layout (reals a block): 9p^2 first derivatives,
 * 18(p-1)^2 second ones with gradients, p(p+1) raising factors; and M2M/M2L's 9(p+1)^2 a warp.
 * Run: build/tests/test_fmm_smem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_smem.h"

static int failures = 0;

#define KIB 1024u
static const size_t limits[3] = {64 * KIB, 99 * KIB, 227 * KIB};
static const char *const arch[3] = {"sm_75", "sm_86/89", "sm_90"};

/* Largest orders expected, [limit][double 0 / float 1][gradient 1: 0, none: 1]. Double with
 * gradients at 64 KiB: 8 (9p^2 + 18(p-1)^2 + p(p+1)) <= 65536 up to p = 17 (60120 bytes; p = 18:
 * 67680); at 99 KiB up to p = 21 (93048; p = 22: 102400). Without gradients at 64 KiB, M2L's one
 * warp binds: 72 (p+1)^2 <= 65536 up to p = 29, and L2P's 8 (10p^2 + p) up to p = 28. */
static const int pmax_want[3][2][2] = {{{17, 28}, {24, 32}}, {{21, 32}, {30, 32}}, {{32, 32}, {32, 32}}};

static void check_limit(int li) {
  const size_t lim = limits[li];
  for (int fl = 0; fl <= 1; ++fl)
    for (int g = 1; g >= 0; --g) {
      const size_t rs = fl ? sizeof(float) : sizeof(double);
      const int want = pmax_want[li][fl][g ? 0 : 1], got = fmm_smem_max_order(rs, g, lim);
      if (got != want) {
        printf("FAIL %s %s gradient %d: largest order %d, expected %d\n", arch[li], fl ? "float" : "double", g, got, want);
        failures++;
      }
      for (int p = 0; p <= VX_PMAX; ++p) {
        fmm_smem_plan pl;
        char err[256] = "";
        const int rc = fmm_smem_plan_make(p, rs, g, lim, &pl, err, sizeof err);
        if ((rc == 0) != (p <= want)) {
          printf("FAIL %s %s gradient %d p %d: plan %s\n", arch[li], fl ? "float" : "double", g, p, rc ? "refused" : "accepted");
          failures++;
          continue;
        }
        if (rc == 0) {
          const size_t b[7] = {pl.p2m, pl.m2m, pl.l2l, pl.m2l, pl.l2p_deriv, pl.l2p, pl.l2p_fused};
          for (int k = 0; k < 7; ++k)
            if (b[k] > lim) {
              printf("FAIL %s p %d: kernel %d planned %zu bytes > limit %zu\n", arch[li], p, k, b[k], lim);
              failures++;
            }
          if (p >= 1 && pl.l2p_fused != 0 && pl.l2p_fused != pl.l2p + rs * 3 * (size_t)VX_NCOEF(p)) {
            printf("FAIL %s p %d: fused L2P planned %zu bytes, not k_l2p's and a local expansion\n", arch[li], p, pl.l2p_fused);
            failures++;
          }
          if (pl.w_p2m < 1 || pl.w_m2m < 1 || pl.w_l2l < 1 || pl.w_m2l < 1) {
            printf("FAIL %s p %d: a kernel planned with no warp\n", arch[li], p);
            failures++;
          }
        } else if (!strstr(err, "order ") || !strstr(err, fl ? "float" : "double") || strchr(err, '\n')) {
          printf("FAIL %s p %d: message does not name the order and precision in one line: '%s'\n", arch[li], p, err);
          failures++;
        }
      }
    }
}

int main(void) {
  for (int li = 0; li < 3; ++li) check_limit(li);

  /* The message for a plan that cannot fit (double, high order, a desktop GPU's 64 KiB). */
  char err[256] = "";
  if (fmm_smem_plan_make(20, sizeof(double), 1, 64 * KIB, NULL, err, sizeof err) == 0) {
    printf("FAIL p = 20 double with gradients accepted at 64 KiB\n");
    failures++;
  } else {
    printf("message: %s\n", err);
    const char *want[] = {"order 20 in double with gradients", "L2P", "65536",
                          "orders up to 17 fit in double, up to 24 in float"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i)
      if (!strstr(err, want[i])) {
        printf("FAIL message lacks '%s'\n", want[i]);
        failures++;
      }
  }

  /* Warps: as many as fit, up to the preferred count. p = 8 double fits them all at 99 KiB (M2L: 8
   * warps of 5832 bytes) and stages L2P's local expansion; p = 32 double at 227 KiB: 2 M2L warps of
   * 78408 bytes. */
  fmm_smem_plan pl;
  if (fmm_smem_plan_make(8, sizeof(double), 1, 99 * KIB, &pl, err, sizeof err) || pl.w_m2l != 8 || pl.w_m2m != 8 ||
      pl.w_l2l != 4 || pl.w_p2m != 8 || pl.m2l != 8 * 5832u || !pl.l2p_stage) {
    printf("FAIL p = 8 double at 99 KiB: warps m2l %d m2m %d l2l %d p2m %d, m2l %zu bytes, stage %d\n", pl.w_m2l, pl.w_m2m,
           pl.w_l2l, pl.w_p2m, pl.m2l, pl.l2p_stage);
    failures++;
  }
  if (fmm_smem_plan_make(32, sizeof(double), 1, 227 * KIB, &pl, err, sizeof err) || pl.w_m2l != 2 || pl.m2l != 2 * 78408u) {
    printf("FAIL p = 32 double at 227 KiB: %s; m2l warps %d, %zu bytes\n", err, pl.w_m2l, pl.m2l);
    failures++;
  }
  /* p = 0: no L2P derivative step, nothing staged. */
  if (fmm_smem_plan_make(0, sizeof(float), 1, 48 * KIB, &pl, err, sizeof err) || pl.l2p_deriv != 0 || pl.l2p != 0) {
    printf("FAIL p = 0: l2p_deriv %zu, l2p %zu\n", pl.l2p_deriv, pl.l2p);
    failures++;
  }
  if (fmm_smem_plan_make(VX_PMAX + 1, sizeof(double), 1, 227 * KIB, &pl, err, sizeof err) == 0) {
    printf("FAIL order %d accepted\n", VX_PMAX + 1);
    failures++;
  }

  if (failures) {
    printf("test_fmm_smem: %d failure(s)\n", failures);
    return EXIT_FAILURE;
  }
  printf("test_fmm_smem: OK\n");
  return EXIT_SUCCESS;
}
