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

#define VX_DOUBLE_INST
#include "real_t.h"
#include "translate_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "translate_t.h"
#undef VX_FLOAT_INST
#endif
