/* gpu_smem.c — fitting the CUDA kernels' dynamic shared memory to a device's limit (gpu_smem.h).
 * The byte counts mirror the kernels' layouts in gpu_far_t.cuh and gpu_l2p_t.cuh: each translation
 * warp holds an accumulator and two work copies of 3 expansions (M2M, M2L: 9 nc reals; L2L: 6 nc, adding into
 * global memory; P2M: 3 nc); k_l2p_deriv the derivative expansions of one leaf (3 n1 first, 6 n2
 * second), optionally its local expansion (3 nc); k_l2p the same expansions and the p(p+1) factors
 * of sph_raise, and, where it forms the expansions itself, the local expansion (3 nc). */
#include "gpu_smem.h"

#include <stdio.h>

/* Warps (want down to 1) whose per_warp bytes fit in limit; 0 when not even one does. */
static int fit_warps(size_t per_warp, int want, size_t limit) {
  int w = want;
  while (w > 0 && per_warp * (size_t)w > limit) --w;
  return w;
}

/* The one-line refusal: what does not fit, and which orders do. */
static int too_big(const char *kernel, size_t need, int p, size_t real_size, int gradient, size_t limit, char *err,
                   size_t errlen) {
  if (!err || !errlen) return -1; /* fmm_smem_max_order's probes: no message (and no recursion) */
  const int is_float = real_size == sizeof(float);
  const int pd = fmm_smem_max_order(sizeof(double), gradient, limit), pf = fmm_smem_max_order(sizeof(float), gradient, limit);
  char fit[96];
  if (is_float) snprintf(fit, sizeof fit, "orders up to %d fit in float", pf);
  else snprintf(fit, sizeof fit, "orders up to %d fit in double, up to %d in float", pd, pf);
  snprintf(err, errlen, "order %d in %s%s needs %zu bytes of GPU shared memory per block (%s) but this device allows %zu: %s",
           p, is_float ? "float" : "double", gradient ? " with gradients" : "", need, kernel, limit, fit);
  return -1;
}

int fmm_smem_plan_make(int p, size_t real_size, int gradient, size_t limit, fmm_smem_plan *plan, char *err,
                       size_t errlen) {
  fmm_smem_plan q = {0};
  if (p < 0 || p > VX_PMAX) {
    if (err && errlen) snprintf(err, errlen, "expansion order %d out of range 0..%d", p, VX_PMAX);
    return -1;
  }
  const size_t rs = real_size, nc = (size_t)VX_NCOEF(p);
  const size_t n1 = p >= 1 ? 3 * (size_t)VX_NCOEF(p - 1) : 0, n2 = p >= 2 ? 3 * (size_t)VX_NCOEF(p - 2) : 0;
  const struct {
    const char *name;
    size_t per;
    int want, *w;
    size_t *bytes;
  } tr[4] = {{"P2M", 3 * rs * nc, FMM_SMEM_WARPS_P2M, &q.w_p2m, &q.p2m},
             {"M2M", 9 * rs * nc, FMM_SMEM_WARPS_M2M, &q.w_m2m, &q.m2m},
             {"L2L", 6 * rs * nc, FMM_SMEM_WARPS_L2L, &q.w_l2l, &q.l2l},
             {"M2L", 9 * rs * nc, FMM_SMEM_WARPS_M2L, &q.w_m2l, &q.m2l}};
  for (int k = 0; k < 4; ++k) {
    *tr[k].w = fit_warps(tr[k].per, tr[k].want, limit);
    if (!*tr[k].w) return too_big(tr[k].name, tr[k].per, p, rs, gradient, limit, err, errlen);
    *tr[k].bytes = tr[k].per * (size_t)*tr[k].w;
  }
  q.dper = 3 * n1 + (gradient ? 6 * n2 : 0);
  if (p >= 1) {
    q.l2p_deriv = rs * q.dper;
    if (q.l2p_deriv > limit) return too_big("L2P derivatives", q.l2p_deriv, p, rs, gradient, limit, err, errlen);
    q.l2p_stage = q.l2p_deriv + rs * 3 * nc <= limit; /* the local expansion too, when it fits */
    if (q.l2p_stage) q.l2p_deriv += rs * 3 * nc;
  }
  q.l2p = rs * (q.dper + (size_t)p * (size_t)(p + 1));
  if (q.l2p > limit) return too_big("L2P", q.l2p, p, rs, gradient, limit, err, errlen);
  q.l2p_fused = q.l2p + rs * 3 * nc; /* and the local expansion, staged */
  if (p < 1 || q.l2p_fused > limit) q.l2p_fused = 0;
  if (plan) *plan = q;
  return 0;
}

int fmm_smem_max_order(size_t real_size, int gradient, size_t limit) {
  /* every kernel's need grows with p, so the orders that fit are 0..pmax */
  int pmax = -1;
  while (pmax < VX_PMAX && fmm_smem_plan_make(pmax + 1, real_size, gradient, limit, NULL, NULL, 0) == 0) ++pmax;
  return pmax;
}
