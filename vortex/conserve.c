/* conserve.c — the conservative correction (conserve.h): the CPU loops, the 3×3 solve, and the
 * dispatch to the CUDA kernels (conserve_gpu.cu). The CPU sums run serially, element by element,
 * so that the moments are the same at every thread count. */
#include "conserve.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coarsen.h"

#ifndef VX_HAVE_CUDA
/* CPU-only build: the cuda backend never gets this far (fmm_create refuses it). */
int vx_moments_gpu(vx_precision prec, const void *pos, const void *alpha, int n, void *d_scratch, double *m, char *err,
                   size_t errlen) {
  (void)prec, (void)pos, (void)alpha, (void)n, (void)d_scratch, (void)m;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_conserve_apply_gpu(vx_precision prec, const void *pos, void *alpha, int n, const double *coef, char *err,
                          size_t errlen) {
  (void)prec, (void)pos, (void)alpha, (void)n, (void)coef;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
#endif

int vx_moments(vx_precision prec, int on_device, const void *pos, const void *alpha, int n, void *d_scratch,
               double *m, char *err, size_t errlen) {
  if (on_device) return vx_moments_gpu(prec, pos, alpha, n, d_scratch, m, err, errlen);
  memset(m, 0, VX_MOMENTS_N * sizeof(double));
  for (int k = 0; k < n; ++k) {
    if (prec == VX_FLOAT) vx_moments_add_f((const float *)pos, (const float *)alpha, k, m);
    else vx_moments_add_d((const double *)pos, (const double *)alpha, k, m);
  }
  return 0;
}

/* Solve the symmetric 3×3 system J μ = b by Cramer's rule; 1 when J is singular relative to its size. */
static int solve3(const double J[3][3], const double *b, double *mu) {
  double c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1], c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2],
         c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  double det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
  double tr = J[0][0] + J[1][1] + J[2][2];
  if (!(fabs(det) > 1e-12 * tr * tr * tr)) return 1;
  double inv[3][3] = {{c00, J[0][2] * J[2][1] - J[0][1] * J[2][2], J[0][1] * J[1][2] - J[0][2] * J[1][1]},
                      {c01, J[0][0] * J[2][2] - J[0][2] * J[2][0], J[0][2] * J[1][0] - J[0][0] * J[1][2]},
                      {c02, J[0][1] * J[2][0] - J[0][0] * J[2][1], J[0][0] * J[1][1] - J[0][1] * J[1][0]}};
  for (int i = 0; i < 3; ++i) mu[i] = (inv[i][0] * b[0] + inv[i][1] * b[1] + inv[i][2] * b[2]) / det;
  return 0;
}

const char *vx_conserve_name(int mode) {
  return mode == VX_CONSERVE_AXIAL ? "axial" : mode == VX_CONSERVE_FULL ? "full" : mode == VX_CONSERVE_RING ? "ring" : "off";
}

int vx_conserve_from_name(const char *name, int *mode) {
  for (int k = VX_CONSERVE_OFF; k <= VX_CONSERVE_RING; ++k)
    if (!strcmp(name, vx_conserve_name(k))) { *mode = k; return 0; }
  return -1;
}

/* |I0 − I| over max(|I0|, ½ Σ|α| L), L the rms distance of |α| from its centre (coarsen.h's
 * vx_field_radius): a ring's ½ Σ|α| R = πΓR² is its |I|, so a flow whose impulses cancel (head-on
 * rings, I0 = 0) is measured against its rings' own. */
static double impulse_change(const double *m, const double *I0) {
  double d2 = 0.0, i2 = 0.0;
  for (int c = 0; c < 3; ++c) d2 += (I0[c] - m[3 + c]) * (I0[c] - m[3 + c]), i2 += I0[c] * I0[c];
  double scale = fmax(sqrt(i2), 0.5 * m[6] * vx_field_radius(m));
  return scale > 0.0 ? sqrt(d2) / scale : sqrt(d2);
}

/* The axial mode: μ along n = I0/|I0| only, λ = 0. s0: Σ|α|. */
static int solve_axial(const double J[3][3], const double *m, const double *I0, double s0, double *coef) {
  double i2 = I0[0] * I0[0] + I0[1] * I0[1] + I0[2] * I0[2];
  if (!(sqrt(i2) > 1e-6 * 0.5 * s0 * vx_field_radius(m))) return 1; /* the scale impulse_change takes */
  double n[3] = {I0[0] / sqrt(i2), I0[1] / sqrt(i2), I0[2] / sqrt(i2)}, nJn = 0.0, di = 0.0;
  for (int i = 0; i < 3; ++i) {
    di += (I0[i] - m[3 + i]) * n[i];
    for (int j = 0; j < 3; ++j) nJn += n[i] * J[i][j] * n[j];
  }
  if (!(nJn > 0.0)) return 1;
  for (int i = 0; i < 3; ++i) coef[3 + i] = 2.0 * di / nJn * n[i];
  return 0;
}

int vx_conserve_solve(const double *m, const double *W0, const double *I0, vx_conserve_mode mode, double *coef) {
  memset(coef, 0, 9 * sizeof(double));
  double s0 = m[6];
  if (!(s0 > 0.0)) return 1;
  double c[3] = {m[7] / s0, m[8] / s0, m[9] / s0}, dW[3], b[3];
  for (int i = 0; i < 3; ++i) dW[i] = W0[i] - m[i];
  /* C = Σ|α| r rᵀ about c, then J = tr(C) 1 − C */
  double C[3][3] = {{m[10], m[13], m[14]}, {m[13], m[11], m[15]}, {m[14], m[15], m[12]}}, J[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C[i][j] -= s0 * c[i] * c[j];
  double tr = C[0][0] + C[1][1] + C[2][2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) J[i][j] = (i == j ? tr : 0.0) - C[i][j];
  if (mode == VX_CONSERVE_AXIAL) {
    if (solve_axial((const double(*)[3])J, m, I0, s0, coef)) return 1;
    for (int i = 0; i < 3; ++i) coef[6 + i] = c[i];
    return 0;
  }
  /* the impulse the correction must add about c: ΔI − ½ c×ΔW */
  b[0] = 2.0 * (I0[0] - m[3] - 0.5 * (c[1] * dW[2] - c[2] * dW[1]));
  b[1] = 2.0 * (I0[1] - m[4] - 0.5 * (c[2] * dW[0] - c[0] * dW[2]));
  b[2] = 2.0 * (I0[2] - m[5] - 0.5 * (c[0] * dW[1] - c[1] * dW[0]));
  if (solve3((const double(*)[3])J, b, coef + 3)) return 1;
  for (int i = 0; i < 3; ++i) coef[i] = dW[i] / s0, coef[6 + i] = c[i];
  return 0;
}

int vx_conserve_apply(vx_precision prec, int on_device, const void *pos, void *alpha, int n, const double *coef,
                      char *err, size_t errlen) {
  if (on_device) return vx_conserve_apply_gpu(prec, pos, alpha, n, coef, err, errlen);
#pragma omp parallel for schedule(static)
  for (int k = 0; k < n; ++k) {
    if (prec == VX_FLOAT) vx_conserve_apply_f((const float *)pos, (float *)alpha, k, coef);
    else vx_conserve_apply_d((const double *)pos, (double *)alpha, k, coef);
  }
  return 0;
}

int vx_conserve(vx_precision prec, int on_device, const void *pos, void *alpha, int n, void *d_scratch,
                const double *W0, const double *I0, vx_conserve_mode mode, double *rel_di, char *err, size_t errlen) {
  double m[VX_MOMENTS_N];
  if (mode == VX_CONSERVE_OFF) return 0;
  if (vx_moments(prec, on_device, pos, alpha, n, d_scratch, m, err, errlen)) return -1;
  return vx_conserve_moments(prec, on_device, pos, alpha, n, m, W0, I0, mode, rel_di, err, errlen);
}

int vx_conserve_moments(vx_precision prec, int on_device, const void *pos, void *alpha, int n, const double *m,
                        const double *W0, const double *I0, vx_conserve_mode mode, double *rel_di, char *err, size_t errlen) {
  double coef[9];
  if (mode == VX_CONSERVE_OFF) return 0;
  if (rel_di) *rel_di = impulse_change(m, I0);
  if (vx_conserve_solve(m, W0, I0, mode, coef)) return 0; /* nothing to correct with: left as it is */
  return vx_conserve_apply(prec, on_device, pos, alpha, n, coef, err, errlen);
}
