/* translate.h — RCR translation operators (rotations, coaxial M2M/L2L/M2L), double and float. */
#ifndef VX_TRANSLATE_H
#define VX_TRANSLATE_H
#include <math.h>
#include "hd.h"

/* Offset of degree n's blocks in a y-rotation table: blocks of degrees < n hold
 * Σ_{k<n} (k+1)² + k² = n(n-1)(2n-1)/3 + n² entries. */
VX_HD static inline int vx_roty_off(int n) { return n * (n - 1) * (2 * n - 1) / 3 + n * n; }

/* Index into a (p+1)^3 coaxial table t[|m|][a][b] (b fastest: the inner loops run over b). */
VX_HD static inline int vx_coax_idx(int p, int am, int a, int b) { return (am * (p + 1) + a) * (p + 1) + b; }

/* Coefficient pairs (n, ±a), a = 0..n, numbered t = n(n+1)/2 + a: (p+1)(p+2)/2 of them for order p
 * (the pair forms of translate_t.h). */
#define VX_NPAIR(p) (((p) + 1) * ((p) + 2) / 2)
VX_HD static inline void vx_pair_na(int t, int *n, int *a) {
  int k = (int)((sqrtf(8.0f * (float)t + 1.0f) - 1.0f) * 0.5f);
  while (k * (k + 1) / 2 > t) --k;
  while ((k + 1) * (k + 2) / 2 <= t) ++k;
  *n = k;
  *a = t - k * (k + 1) / 2;
}

#define VX_DOUBLE_INST
#include "real_t.h"
#include "translate_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "translate_t.h"
#undef VX_FLOAT_INST
#endif
