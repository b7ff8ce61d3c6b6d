/* energy_t.h — the kernel energy's pair term (diag.h, E_σ), one inline home for the host sum
 * (diag.c) and the device sum (energy_gpu.cu).
 *
 * E_σ = ½ Σ_p Σ_q α_p·α_q G_σ(|x_p − x_q|), G_σ(r) = f(r/σ)/(4πσ), f the smoothing kernel's own
 * stream function: Gaussian erf(ρ/√2)/ρ, Rosenhead–Moore 1/√(ρ²+1), Winckelmans–Leonard
 * (ρ²+3/2)/(ρ²+1)^{3/2}. Beyond ρ = 8 the Gaussian's erf(ρ/√2) is 1 to 2e-16, so f is 1/ρ there
 * without the erf. */
#ifndef VX_ENERGY_T_H
#define VX_ENERGY_T_H

#include <math.h>
#include "fmm.h"
#include "hd.h"

/* The kernels with a stream function (the others have no finite E_σ). */
static inline VX_HD int vx_energy_kernel_ok(int k) { return k == VX_KERNEL_GAUSS || k == VX_KERNEL_RM || k == VX_KERNEL_WL; }

/* f(ρ), its value at ρ = 0 included (the Gaussian's √(2/π)). */
static inline VX_HD double vx_stream_f(int k, double rho) {
  if (k == VX_KERNEL_RM) return 1.0 / sqrt(rho * rho + 1.0);
  if (k == VX_KERNEL_WL) {
    double s = rho * rho + 1.0;
    return (rho * rho + 1.5) / (s * sqrt(s));
  }
  if (rho > 8.0) return 1.0 / rho;
  return rho > 1e-8 ? erf(rho * 0.70710678118654752440) / rho : 0.79788456080286535588; /* √(2/π) */
}

/* Row p's share of 4πσ E_σ: its self term ½ f(0)|α_p|² and its pairs with every q > p. */
static inline VX_HD double vx_energy_self(int k, const double *a) {
  return 0.5 * vx_stream_f(k, 0.0) * (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}
static inline VX_HD double vx_energy_pair(int k, double inv_sigma, const double *x, const double *a, const double *y,
                                          const double *b) {
  double dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
  return vx_stream_f(k, sqrt(dx * dx + dy * dy + dz * dz) * inv_sigma) * (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

#endif
