/* test_twin_eval.h — tests only: what the GPU/CPU twin tests of the FMM share: the relative L2
 * error, and one evaluation of host points on a backend with its results back in double, gradient
 * rows the engine must not write holding a sentinel. One home for what gpu_test_fmm, gpu_test_fmm_reg,
 * gpu_test_m2l_spec, gpu_test_p2p_fast and gpu_test_leaf_ops each defined for itself. Include after
 * test_check.h. */
#ifndef VX_TEST_TWIN_EVAL_H
#define VX_TEST_TWIN_EVAL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"

/* ‖a − b‖ / ‖b‖ (‖a − b‖ where b = 0). */
static inline double vx_twin_rel_l2(const double *a, const double *b, size_t n) {
  double d = 0, s = 0;
  for (size_t i = 0; i < n; ++i) { d += (a[i] - b[i]) * (a[i] - b[i]); s += b[i] * b[i]; }
  return s > 0 ? sqrt(d / s) : sqrt(d);
}

/* One evaluation's points, host arrays in double: n_src sources (positions, strengths), n_tgt
 * targets of which the first n_grad want the gradient. */
typedef struct {
  int n_src, n_tgt, n_grad;
  const double *spos, *sstr, *tpos;
} vx_twin_points;

/* What gradient rows past n_grad must still hold after an evaluation. */
#define VX_TWIN_SENTINEL 7.0

/* fmm_create on backend be with prm; exits on error. */
static inline fmm_ctx *vx_twin_create(vx_backend be, fmm_params prm) {
  char err[256];
  prm.backend = be;
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  if (!ctx) { printf("fmm_create(%s): %s\n", vx_backend_name(be), err); exit(EXIT_FAILURE); }
  return ctx;
}

/* The FMM of pt on ctx, made with prm (its precision for the host arrays): u (3 n_tgt) and g
 * (9 n_tgt, VX_TWIN_SENTINEL where not written) back in double, the stats in *st (NULL: none);
 * exits on any error. */
static inline void vx_twin_eval_on(fmm_ctx *ctx, fmm_params prm, const vx_twin_points *pt, double *u, double *g,
                                   fmm_stats *st) {
  char err[256];
  const vx_backend be = prm.backend;
  const int fl = prm.precision == VX_FLOAT, ns = pt->n_src, nt = pt->n_tgt;
  const size_t rs = fl ? sizeof(float) : sizeof(double);
  void *P = malloc(rs * 3 * ns), *S = malloc(rs * 3 * ns), *X = malloc(rs * 3 * nt), *U = malloc(rs * 3 * nt),
       *G = malloc(rs * 9 * nt);
  if (!P || !S || !X || !U || !G) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  for (int i = 0; i < 3 * ns; ++i) {
    if (fl) ((float *)P)[i] = (float)pt->spos[i], ((float *)S)[i] = (float)pt->sstr[i];
    else ((double *)P)[i] = pt->spos[i], ((double *)S)[i] = pt->sstr[i];
  }
  for (int i = 0; i < 3 * nt; ++i) {
    if (fl) ((float *)X)[i] = (float)pt->tpos[i];
    else ((double *)X)[i] = pt->tpos[i];
  }
  for (int i = 0; i < 9 * nt; ++i) {
    if (fl) ((float *)G)[i] = (float)VX_TWIN_SENTINEL;
    else ((double *)G)[i] = VX_TWIN_SENTINEL;
  }
  fmm_io io = {.n_src = ns, .src_pos = P, .src_str = S, .n_tgt = nt, .tgt_pos = X, .vel = U,
               .grad = prm.gradient ? G : NULL, .on_device = 0, .n_grad = pt->n_grad};
  if (st) memset(st, 0, sizeof *st);
  if (fmm_evaluate(ctx, &io, st, err, sizeof err)) { printf("fmm on %s: %s\n", vx_backend_name(be), err); exit(EXIT_FAILURE); }
  for (int i = 0; i < 3 * nt; ++i) u[i] = fl ? ((float *)U)[i] : ((double *)U)[i];
  for (int i = 0; i < 9 * nt; ++i) g[i] = fl ? ((float *)G)[i] : ((double *)G)[i];
  free(P), free(S), free(X), free(U), free(G);
}

/* vx_twin_eval_on a new context on backend be. Returns the context for the caller's questions
 * (fmm_occupancy), who destroys it. */
static inline fmm_ctx *vx_twin_eval(vx_backend be, fmm_params prm, const vx_twin_points *pt, double *u, double *g,
                                    fmm_stats *st) {
  prm.backend = be;
  fmm_ctx *ctx = vx_twin_create(be, prm);
  vx_twin_eval_on(ctx, prm, pt, u, g, st);
  return ctx;
}

/* Velocities and the gradient rows [0, n_grad) of a against b: the larger relative L2 error. */
static inline double vx_twin_err(const double *ua, const double *ga, const double *ub, const double *gb,
                                 const vx_twin_points *pt, int grad) {
  double e = vx_twin_rel_l2(ua, ub, 3 * (size_t)pt->n_tgt);
  if (grad) e = fmax(e, vx_twin_rel_l2(ga, gb, 9 * (size_t)pt->n_grad));
  return e;
}

/* Gradient rows [n_grad, n_tgt) (all rows without the gradient) still hold the sentinel. */
static inline int vx_twin_rows_untouched(const double *g, const vx_twin_points *pt, int grad) {
  for (size_t i = grad ? 9 * (size_t)pt->n_grad : 0; i < 9 * (size_t)pt->n_tgt; ++i)
    if (g[i] != VX_TWIN_SENTINEL) return 0;
  return 1;
}

#endif
