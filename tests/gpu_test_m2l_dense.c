/* gpu_test_m2l_dense.c — the dense M2L on the tensor cores (k_m2l_tc, 3xTF32) alone against its
 * CPU twin (label gpu; skipped without a device, reported skipped on one without TF32 tensor
 * cores). On a full level (every box present, so every target has its 189 offsets but those cut off
 * by the cube's faces) with random source multipoles, the kernel's local expansions
 * (fmm_gpu_m2l_tc_full) against, per target, the sum over its interaction list of m2l_dense_apply
 * with fmm_m2l_dense's operators (translate_t.h, tables.h) in double — which test_translate checks
 * against rcr_translate, the CPU engine's M2L. Every order of FMM_SPEC_ORDER_MIN..MAX; ≤ 1e-5 relative (max over
 * coefficients against the largest), whole and with its stages split into three parts summed by
 * k_m2l_parts_sum; levels 3 and 4 (one and eight tiles of parents; level 4 for p <= 8 only: the
 * CPU reference at p = 12 takes minutes). The kernel twice: bitwise identical.
 * Run: build/tests/gpu_test_m2l_dense */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm_internal.h"
#include "octree.h"
#include "pointsets.h"
#include "tables.h"
#include "test_check.h"
#include "translate.h"

/* The CPU reference on the full level l: L[t] = Σ over the sources s of t's interaction list (the
 * children of its parent's neighbours not adjacent to it) of D_{s - t} M[s]. */
static int reference(int p, int l, const double *M, double *L) {
  const int nc = VX_NCOEF(p), n1 = 1 << l, nb = n1 * n1 * n1;
  char err[256];
  fmm_tables T;
  if (fmm_tables_build(&T, p, err, sizeof err)) { printf("tables: %s\n", err); return -1; }
  double *D = malloc(sizeof(double) * VX_GEO_N * nc * nc);
  if (!D) return -1;
  for (int g = 0; g < VX_GEO_N; ++g) {
    int dx = g / 49 - 3, dy = g / 7 % 7 - 3, dz = g % 7 - 3;
    if ((abs(dx) > 1 || abs(dy) > 1 || abs(dz) > 1) && fmm_m2l_dense(&T, g, D + (size_t)g * nc * nc)) return -1;
  }
  memset(L, 0, sizeof(double) * 3 * nc * (size_t)nb);
  for (int t = 0; t < nb; ++t) {
    int x, y, z;
    oct_demorton3((uint32_t)t, &x, &y, &z);
    for (int sx = 2 * (x / 2 - 1); sx < 2 * (x / 2 + 2); ++sx)
      for (int sy = 2 * (y / 2 - 1); sy < 2 * (y / 2 + 2); ++sy)
        for (int sz = 2 * (z / 2 - 1); sz < 2 * (z / 2 + 2); ++sz) {
          if (sx < 0 || sy < 0 || sz < 0 || sx >= n1 || sy >= n1 || sz >= n1) continue;
          if (abs(sx - x) <= 1 && abs(sy - y) <= 1 && abs(sz - z) <= 1) continue;
          const int s = (int)oct_morton3((uint32_t)sx, (uint32_t)sy, (uint32_t)sz);
          m2l_dense_apply_d(D + (size_t)vx_geo_index(sx - x, sy - y, sz - z) * nc * nc, M + (size_t)s * 3 * nc,
                            L + (size_t)t * 3 * nc, nc);
        }
  }
  free(D);
  fmm_tables_free(&T);
  return 0;
}

static double max_rel(const double *a, const double *b, size_t n) {
  double d = 0, m = 0;
  for (size_t i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i])), m = fmax(m, fabs(b[i]));
  return m > 0 ? d / m : d;
}

int main(void) {
  char name[256], err[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  uint64_t seed = 4242;
  for (int l = 3; l <= 4; ++l)
    for (int p = FMM_SPEC_ORDER_MIN; p <= FMM_SPEC_ORDER_MAX; ++p) {
      const int nc = VX_NCOEF(p);
      if (l == 4 && p > 8) continue; /* the CPU reference would take minutes */
      const size_t ne = (size_t)3 * nc << (3 * l);
      double *M = malloc(sizeof(double) * ne), *R = malloc(sizeof(double) * ne), *G = malloc(sizeof(double) * ne),
             *G2 = malloc(sizeof(double) * ne);
      if (!M || !R || !G || !G2) { printf("out of memory\n"); return EXIT_FAILURE; }
      /* multipoles that fall with the degree as a box's do (|M_n| ~ 2^-n in box units) */
      for (size_t i = 0; i < ne; ++i) {
        const int c = (int)(i % (3 * (size_t)nc)) / 3, n = (int)sqrt((double)c);
        M[i] = (2.0 * vx_rng_uniform(&seed) - 1.0) * ldexp(1.0, -n);
      }
      if (reference(p, l, M, R)) { printf("reference failed\n"); return EXIT_FAILURE; }
      for (int parts = 1; parts <= 3; parts += 2) {
        const char *what = parts > 1 ? "tensor-core, 3 parts" : "tensor-core";
        int rc = fmm_gpu_m2l_tc_full(p, parts, l, M, G, err, sizeof err);
        if (rc == -2) { printf("skipped: %s M2L p=%d level %d: %s\n", what, p, l, err); continue; }
        if (rc || fmm_gpu_m2l_tc_full(p, parts, l, M, G2, err, sizeof err)) {
          printf("FAIL: dense M2L %s p=%d level %d: %s\n", what, p, l, err);
          failures++;
          continue;
        }
        /* float's rounding: a few 1e-6 */
        const double e = max_rel(G, R, ne), thr = 1e-5;
        printf("dense M2L vs CPU twin, p=%2d %s level %d: %.2e (<= %.0e) %s\n", p, what, l, e, thr,
               e <= thr ? "ok" : "FAIL");
        if (!(e <= thr)) failures++;
        const int same = !memcmp(G, G2, sizeof(double) * ne);
        printf("dense M2L run twice, p=%2d %s level %d: %s\n", p, what, l, same ? "bitwise identical" : "FAIL");
        if (!same) failures++;
      }
      free(M); free(R); free(G); free(G2);
    }
  return vx_test_end("all dense-M2L twin checks passed");
}
