/* fmm_reg.c — the smoothing kernels against the singular one, and the regularization plan of one
 * evaluation (docs/MATH.md §10): how far q(ρ) and its gradient kernel deviate from 1, the cut-off
 * r_c beyond which that deviation is within a tolerance, the default tolerance, and from them the
 * corrections an evaluation adds within r_c and the error it commits beyond (fmm_reg_prepare, used
 * by both engines). */
#include <math.h>
#include <string.h>

#include "fmm_internal.h"

/* 1 - q(ρ), written so that the tail keeps its digits (docs/MATH.md §10): RM and WL through
 * t = 1/(ρ²+1), where q = (1-t)^{3/2} and (1-t)^{3/2}(1 + 3t/2); Gaussian through erfc. */
static double kernel_one_minus_q(vx_kernel k, double rho) {
  switch (k) {
  case VX_KERNEL_POLY: return rho >= 1.0 ? 0.0 : 1.0 - rho * rho;
  case VX_KERNEL_RM: return -expm1(1.5 * log1p(-1.0 / (rho * rho + 1.0)));
  case VX_KERNEL_WL: {
    double t = 1.0 / (rho * rho + 1.0), a = expm1(1.5 * log1p(-t)); /* (1-t)^{3/2} - 1 */
    return -(a + 1.5 * t * (1.0 + a));
  }
  case VX_KERNEL_GAUSS: return erfc(rho / sqrt(2.0)) + sqrt(2.0 / VX_PI) * rho * exp(-0.5 * rho * rho);
  default: return 0.0;
  }
}
/* q'(ρ) (docs/MATH.md §6 and §10). */
static double kernel_dq(vx_kernel k, double rho) {
  double r2 = rho * rho;
  switch (k) {
  case VX_KERNEL_POLY: return rho >= 1.0 ? 0.0 : 2.0 * rho;
  case VX_KERNEL_RM: return 3.0 * r2 * pow(r2 + 1.0, -2.5);
  case VX_KERNEL_WL: return 7.5 * r2 * pow(r2 + 1.0, -3.5);
  case VX_KERNEL_GAUSS: return sqrt(2.0 / VX_PI) * r2 * exp(-0.5 * r2);
  default: return 0.0;
  }
}

/* |1 - q(ρ)|: how far the regularized kernel is from the singular one at ρ = r/σ. */
double vx_kernel_deviation(vx_kernel k, double rho) { return fabs(kernel_one_minus_q(k, rho)); }

double vx_kernel_deviation_max(vx_kernel k, double rho, int gradient) {
  double dv = fabs(kernel_one_minus_q(k, rho));
  if (!gradient) return dv;
  /* h = g'/r against the singular -3/r^5: h/h_s - 1 = (1 - q) + q'ρ/3 */
  double dg = fabs(kernel_one_minus_q(k, rho) + kernel_dq(k, rho) * rho / 3.0);
  return dv > dg ? dv : dg;
}

/* Smallest ρ with dev(ρ') <= tol for all ρ' >= ρ (every deviation here decreases monotonically;
 * docs/MATH.md §10); +inf beyond 1e12. */
static double deviation_radius(vx_kernel k, double tol, int gradient) {
  double lo = 0.0, hi = 1.0;
  while (vx_kernel_deviation_max(k, hi, gradient) > tol) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e12) return INFINITY;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    double mid = 0.5 * (lo + hi);
    if (vx_kernel_deviation_max(k, mid, gradient) > tol) lo = mid; else hi = mid;
  }
  return hi;
}

double vx_kernel_cutoff(vx_kernel k, double sigma, double tol, int gradient) {
  if (k == VX_KERNEL_SINGULAR) return 0.0;
  if (k == VX_KERNEL_POLY) return sigma; /* q = 1 from the core radius on: exact */
  return deviation_radius(k, tol, gradient) * sigma;
}

double vx_kernel_default_tol(vx_precision prec, int order, int passive) {
  /* The error committed is at most about 1e-2 tol in the gradient and 2e-3 tol in the velocity on
   * every point set of docs/MATH.md §10: 10^-(3 + p/4) keeps it near a hundredth of the far
   * field's own error at order p (§7); passive targets (tracers, which feed nothing back) take
   * 10^-(1 + p/4), within a tenth of the far field's velocity error. Not below the precision's
   * unit rounding, where it would not show. */
  double tol = pow(10.0, -((passive ? 1.0 : 3.0) + 0.25 * order)), unit = prec == VX_FLOAT ? 0x1p-24 : 0x1p-53;
  return tol > unit ? tol : unit;
}

double fmm_reg_tol(const fmm_params *p, int passive) {
  return p->reg_tol > 0.0 ? p->reg_tol : vx_kernel_default_tol(p->precision, p->order, passive);
}
double fmm_reg_cutoff(const fmm_params *p) { return vx_kernel_cutoff(p->kernel, p->sigma, fmm_reg_tol(p, 0), p->gradient); }

/* Measured (docs/MATH.md §10): Winckelmans–Leonard's r_cut (37σ at 1e-6) is below the cube's side
 * for thin cores, where the corrections at the leaf-size level beat the capped tree 1.6-3.9x;
 * Rosenhead–Moore's (1225σ) covers the whole cube for any usable σ, where the corrections are
 * all pairs on top of a far field, and the capped tree (level 2, all pairs near) is 5 % faster. */
int fmm_reg_caps_level(const fmm_params *p) { return p->reg_correct == FMM_REG_CAP || p->kernel == VX_KERNEL_RM; }

/* Clamp a cut-off to 2 x the root side: every pair of the cube (at most √3 side apart) is closer. */
static double clamp_cut(double rc, double side) { return rc > 2.0 * side || !(rc == rc) ? 2.0 * side : rc; }

/* With points up to `moved` from where they were at the build, two in leaves that are not adjacent
 * can be 2·moved closer than the leaves: the corrections reach that much farther (pairs are still
 * corrected within r_cut exactly), and the pairs left to the far field are max(r_cut, w − 2·moved)
 * apart. */
fmm_corr fmm_reg_prepare(fmm_ctx *ctx, double side, int L, int passive, double moved, fmm_stats *s) {
  const fmm_params *P = &ctx->prm;
  fmm_corr c;
  memset(&c, 0, sizeof c);
  c.Lc = L;
  c.slack = moved;
  const double w = ldexp(side, -L);
  /* gradient targets need the gradient kernel within the tolerance too; velocity-only ones only q,
   * within the passive tolerance where they ride along gradient targets (the tracers) */
  const double rg = fmm_reg_cutoff(P), rv = vx_kernel_cutoff(P->kernel, P->sigma, fmm_reg_tol(P, passive), 0);
  c.r_cut = clamp_cut(rg, side);
  const double rcv = clamp_cut(rv, side), reach = c.r_cut + 2.0 * moved, reachv = rcv + 2.0 * moved;
  if (reach > w && P->kernel != VX_KERNEL_SINGULAR) {
    c.on = 1;
    while (c.Lc > 0 && ldexp(side, -c.Lc) < reach) c.Lc--;
    c.reach2 = (reach / w) * (reach / w);
    c.reach2v = (reachv / w) * (reachv / w);
    c.rc2 = c.r_cut * c.r_cut;
    c.rc2v = rcv * rcv;
  }
  /* Pairs left to the singular far field are at least max(r_cut, w) apart: the committed error is
   * the deviation there (none when that exceeds the cube's diagonal), the larger of the gradient
   * targets' and the velocity-only ones'. */
  double err = 0.0;
  if (P->kernel != VX_KERNEL_SINGULAR) {
    const double dg = fmax(c.r_cut, w - 2.0 * moved), dv = fmax(rcv, w - 2.0 * moved), diag = sqrt(3.0) * side;
    if (dg < diag) err = vx_kernel_deviation_max(P->kernel, dg / P->sigma, P->gradient);
    if (dv < diag) err = fmax(err, vx_kernel_deviation(P->kernel, dv / P->sigma));
  }
  ctx->reg_err = err;
  if (s) {
    s->r_cut = P->kernel == VX_KERNEL_SINGULAR ? 0.0 : rg;
    s->reg_err = err;
  }
  return c;
}
