/* index.h — offsets into the engine's arrays, computed in 64 bits. Counts are int (fmm_io takes up
 * to 2^31 - 1 particles), but the arrays hold several reals per item: 3 per particle (positions,
 * strengths, velocities, xyz-interleaved), 9 per gradient, 3(p+1)^2 per box expansion. In int
 * those products overflow from 2.4e8 targets (9 i), 7.2e8 particles (3 i), or 8.4e5 boxes at
 * p = 16. Every such offset is taken here, in size_t, by the CPU loops and the CUDA kernels alike;
 * tests/test_index.c checks the helpers past 2^32. C11 and CUDA C++. */
#ifndef VX_INDEX_H
#define VX_INDEX_H

#include <stddef.h>
#include "hd.h"

/* Component c (0..2) of particle i in an xyz-interleaved array. */
VX_HD static inline size_t vx_off3(int i, int c) { return 3 * (size_t)i + (size_t)c; }
/* Component c (0..8) of target i's gradient: grad[9 i + 3 a + b] = ∂u_a/∂x_b. */
VX_HD static inline size_t vx_off9(int i, int c) { return 9 * (size_t)i + (size_t)c; }
/* First real of box b's expansion: nc = VX_NCOEF(p) coefficients of three fused Laplace FMMs. */
VX_HD static inline size_t vx_off_exp(int b, int nc) { return (size_t)b * 3 * (size_t)nc; }
/* First real of item b of `per` reals (derivative expansions, per-warp scratch). */
VX_HD static inline size_t vx_off(int b, size_t per) { return (size_t)b * per; }

/* ceil(n / d) for n >= 0, d >= 1 (launch grids, chunks): n + d - 1 taken in 64 bits, since it can
 * pass INT_MAX for counts near it. */
VX_HD static inline int vx_ceil_div(int n, int d) { return (int)(((long long)n + d - 1) / d); }

#endif
