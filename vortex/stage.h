/* stage.h — the per-particle math of one time-integration stage and of the blow-up check, written
 * once (stage_t.h, double and float) and called by the CPU loop (sim_step.c) and the CUDA kernels
 * (sim_gpu.cu) alike. Compiles as C11 and as CUDA C++. */
#ifndef VX_STAGE_H
#define VX_STAGE_H

#include <math.h>
#include <stddef.h>
#include "hd.h"

VX_EXTERN_C_BEGIN

/* One stage s of an explicit Runge–Kutta step in low-storage form. With y the state (positions of
 * elements and tracers, strengths of elements) that the engine just evaluated, k = f(y):
 *   first stage:  y0 = y (kept for the later stages), acc = 0
 *   every stage:  acc += w·k
 *   not the last: y = y0 + c·dt·k        (the next stage's evaluation point)
 *   the last:     y = y0 + dt·acc        (the step's result)
 * Euler: one stage (w=1). Heun: w = ½,½; c = 1. Classical RK4: w = 1/6,1/3,1/3,1/6; c = ½,½,1.
 * Euler touches neither y0 nor acc, so those may be NULL for it. */
typedef struct {
  int n_elem, n_tot;          /* elements are targets 0..n_elem-1; tracers follow */
  void *pos, *alpha;          /* y: 3*n_tot positions, 3*n_elem strengths (backend memory) */
  void *pos0, *alpha0;        /* y0 */
  void *acc_pos, *acc_alpha;  /* acc */
  const void *vel;            /* engine output at y: 3*n_tot */
  const void *grad;           /* 9*n_tot, grad[9t+3i+j] = ∂u_i/∂x_j */
  int stretching;             /* vx_stretching: 0 classical, 1 transpose, 2 none */
  int first, last;
  double w, c, dt;
} vx_stage_args;

/* Non-finite test without isfinite() (a macro in C, a function in C++): NaN fails every comparison. */
VX_HD static inline int vx_nonfinite(double v) { return !(fabs(v) <= 1.7976931348623157e308); }

#define VX_DOUBLE_INST
#include "real_t.h"
#include "stage_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "stage_t.h"
#undef VX_FLOAT_INST

VX_EXTERN_C_END
#endif
