/* conserve_t.h — templated on precision (include through conserve.h): the per-element math of the
 * conservative correction (conserve.h): the element's share of the moments, and the correction
 * δα = |α|(λ + μ×(x − c)) added to its strength. */

/* Add element k's share to m (VX_MOMENTS_N doubles, conserve.h's layout). */
VX_HD static inline void VXF(vx_moments_add)(const vx_real *pos, const vx_real *alpha, int k, double *m) {
  double x[3], a[3];
  for (int c = 0; c < 3; ++c) x[c] = (double)pos[3 * (size_t)k + c], a[c] = (double)alpha[3 * (size_t)k + c];
  double w = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (int c = 0; c < 3; ++c) m[c] += a[c];
  m[3] += 0.5 * (x[1] * a[2] - x[2] * a[1]);
  m[4] += 0.5 * (x[2] * a[0] - x[0] * a[2]);
  m[5] += 0.5 * (x[0] * a[1] - x[1] * a[0]);
  m[6] += w;
  for (int c = 0; c < 3; ++c) m[7 + c] += w * x[c];
  m[10] += w * x[0] * x[0], m[11] += w * x[1] * x[1], m[12] += w * x[2] * x[2];
  m[13] += w * x[0] * x[1], m[14] += w * x[0] * x[2], m[15] += w * x[1] * x[2];
}

/* Add the correction to element k's strength; coef = λ[3], μ[3], c[3] (vx_conserve_solve). */
VX_HD static inline void VXF(vx_conserve_apply)(const vx_real *pos, vx_real *alpha, int k, const double *coef) {
  double r[3], a[3];
  for (int c = 0; c < 3; ++c) r[c] = (double)pos[3 * (size_t)k + c] - coef[6 + c], a[c] = (double)alpha[3 * (size_t)k + c];
  double w = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  const double *l = coef, *mu = coef + 3;
  double d[3] = {l[0] + mu[1] * r[2] - mu[2] * r[1], l[1] + mu[2] * r[0] - mu[0] * r[2], l[2] + mu[0] * r[1] - mu[1] * r[0]};
  for (int c = 0; c < 3; ++c) alpha[3 * (size_t)k + c] = (vx_real)(a[c] + w * d[c]);
}
