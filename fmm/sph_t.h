/* sph_t.h — real solid harmonics and their derivatives (templated: include through sph.h).
 *
 * Basis (docs/MATH.md §1): Schmidt-normalised real solid harmonics
 *   ℛ_n^m(x) = r^n Y_n^m(θ,φ),   𝒮_n^m(x) = Y_n^m(θ,φ) / r^{n+1} = ℛ_n^m(x / r²) / r,
 *   Y_n^m = √(2-δ_m0) √((n-|m|)!/(n+|m|)!) P_n^{|m|}(cos θ) × {cos mφ (m >= 0), sin |m|φ (m < 0)},
 * with 1/|x-y| = Σ_{n,m} ℛ_n^m(y) 𝒮_n^m(x) for |y| < |x|. These are the design paper's real basis
 * (eq. 7, 11-12) rescaled coefficient by coefficient so that rotations act by orthogonal matrices;
 * the recurrences below are eq. 15 rewritten for this scaling. Coefficient (n,m) of component c
 * lives at [3*VX_IDX(n,m) + c]. */

/* The factor of sph_sectoral_step for order m. */
VX_HD static inline vx_real VXF(sph_sectoral_factor)(int m) {
  return (m == 1) ? VX_R(1.0) : VX_SQRT((vx_real)(2 * m - 1) / (vx_real)(2 * m));
}
/* One step of the sectoral recurrence: from (c, s) = (ℛ_{m-1}^{m-1}, ℛ_{m-1}^{-(m-1)}) to
 * (ℛ_m^m, ℛ_m^{-m}) — multiplication by (x + i y) (eq. 15, first two lines, rescaled). */
VX_HD static inline void VXF(sph_sectoral_step)(int m, vx_real x, vx_real y, vx_real *c, vx_real *s) {
  vx_real f = VXF(sph_sectoral_factor)(m);
  vx_real cn = f * (x * *c - y * *s);
  *s = f * (y * *c + x * *s);
  *c = cn;
}

/* Raise the degree at fixed |m| = am (eq. 15, last two lines, rescaled):
 * ℛ_n^m = ((2n-1) z ℛ_{n-1}^m - √((n-1)²-m²) r² ℛ_{n-2}^m) / √(n²-m²), for n > am. */
VX_HD static inline vx_real VXF(sph_raise)(int n, int am, vx_real z, vx_real r2, vx_real a1, vx_real a2);
/* Its factors as ℛ_n^m = A z ℛ_{n-1}^m − B r² ℛ_{n-2}^m, for kernels that raise many points at one
 * (n, |m|): A = (2n−1)/√(n²−m²), B = √((n−1)²−m²)/√(n²−m²). */
VX_HD static inline void VXF(sph_raise_factors)(int n, int am, vx_real *A, vx_real *B) {
  const vx_real d = VX_R(1.0) / VX_SQRT((vx_real)(n * n - am * am));
  *A = (vx_real)(2 * n - 1) * d;
  *B = VX_SQRT((vx_real)((n - 1) * (n - 1) - am * am)) * d;
}
VX_HD static inline vx_real VXF(sph_raise)(int n, int am, vx_real z, vx_real r2, vx_real a1, vx_real a2) {
  vx_real num = (vx_real)(2 * n - 1) * z * a1 - VX_SQRT((vx_real)((n - 1) * (n - 1) - am * am)) * r2 * a2;
  return num / VX_SQRT((vx_real)(n * n - am * am));
}

/* The start of column m: ℛ_{|m|}^{m} (O(|m|) steps). */
VX_HD static inline vx_real VXF(sph_column_start)(int m, vx_real x, vx_real y) {
  int am = m < 0 ? -m : m;
  vx_real c = VX_R(1.0), s = VX_R(0.0);
  for (int k = 1; k <= am; ++k) VXF(sph_sectoral_step)(k, x, y, &c, &s);
  return m < 0 ? s : c;
}

/* ℛ_n^m(x,y,z) for 0 <= n <= p into out[VX_IDX(n,m)]. */
VX_HD static inline void VXF(sph_regular)(vx_real x, vx_real y, vx_real z, int p, vx_real *out) {
  vx_real r2 = x * x + y * y + z * z;
  out[0] = VX_R(1.0);
  vx_real c = VX_R(1.0), s = VX_R(0.0);
  for (int m = 1; m <= p; ++m) {
    VXF(sph_sectoral_step)(m, x, y, &c, &s);
    out[VX_IDX(m, m)] = c;
    out[VX_IDX(m, -m)] = s;
  }
  for (int m = 0; m <= p - 1; ++m)
    for (int sgn = (m == 0 ? 1 : -1); sgn <= 1; sgn += 2) {
      int ms = sgn * m;
      vx_real a2 = VX_R(0.0), a1 = out[VX_IDX(m, ms)];
      for (int n = m + 1; n <= p; ++n) {
        vx_real v = VXF(sph_raise)(n, m, z, r2, a1, a2);
        out[VX_IDX(n, ms)] = v;
        a2 = a1; a1 = v;
      }
    }
}

/* 𝒮_n^m(x,y,z) for 0 <= n <= p (Kelvin inversion of ℛ). x must not be 0. */
VX_HD static inline void VXF(sph_irregular)(vx_real x, vx_real y, vx_real z, int p, vx_real *out) {
  vx_real inv_r2 = VX_R(1.0) / (x * x + y * y + z * z);
  vx_real inv_r = VX_SQRT(inv_r2);
  VXF(sph_regular)(x * inv_r2, y * inv_r2, z * inv_r2, p, out);
  for (int i = 0; i < VX_NCOEF(p); ++i) out[i] *= inv_r;
}

/* Derivative of a local expansion: if Φ = Σ_{n<=p} L_n^m ℛ_n^m (3 components, interleaved), then
 * ∂Φ/∂x = Σ_{n<=p-1} Dx_n^m ℛ_n^m, likewise y, z (docs/MATH.md §3: ladder relations
 *   ∂_z ℛ_n^m = √(n²-m²) ℛ_{n-1}^m, and ∂_x, ∂_y shift m by ±1).
 * The degree-n coefficients of L make exactly the degree-(n-1) ones of the derivatives, so degrees
 * are independent: this computes the outputs of degrees n_lo-1 .. n_hi-1 (n_lo >= 1) from L's
 * degrees n_lo .. n_hi, leaving the others untouched (the GPU's L2P splits the degrees
 * over threads; every output sums its terms in the same order either way). Any of dx, dy, dz may
 * be NULL. The layout is VX_IDX's, whatever the order. */
VX_HD static inline void VXF(sph_deriv_degrees)(const vx_real *L, int n_lo, int n_hi, vx_real *dx, vx_real *dy,
                                                vx_real *dz) {
  for (int i = 3 * VX_NCOEF(n_lo - 2); i < 3 * VX_NCOEF(n_hi - 1); ++i) {
    if (dx) dx[i] = VX_R(0.0);
    if (dy) dy[i] = VX_R(0.0);
    if (dz) dz[i] = VX_R(0.0);
  }
  const vx_real h = VX_R(0.5), rh = VX_R(0.70710678118654752440); /* 1/2, 1/√2 */
  for (int n = n_lo; n <= n_hi; ++n) {
    for (int m = -n; m <= n; ++m) {
      const vx_real *l = L + 3 * VX_IDX(n, m);
      int am = m < 0 ? -m : m;
      vx_real up = VX_SQRT((vx_real)((n - am) * (n - am - 1)));   /* to |m|+1 */
      vx_real dn = VX_SQRT((vx_real)((n + am) * (n + am - 1)));   /* to |m|-1 */
      if (dz && am <= n - 1) {
        vx_real cz = VX_SQRT((vx_real)(n * n - m * m));
        vx_real *o = dz + 3 * VX_IDX(n - 1, m);
        for (int c = 0; c < 3; ++c) o[c] += cz * l[c];
      }
      if (!dx && !dy) continue;
      if (m == 0) {
        /* ∂_x ℛ_n^0 = -(1/√2)√(n(n-1)) ℛ_{n-1}^1, ∂_y ℛ_n^0 = -(1/√2)√(n(n-1)) ℛ_{n-1}^{-1} */
        if (n >= 2) {
          vx_real cf = -rh * up;
          for (int c = 0; c < 3; ++c) {
            if (dx) dx[3 * VX_IDX(n - 1, 1) + c] += cf * l[c];
            if (dy) dy[3 * VX_IDX(n - 1, -1) + c] += cf * l[c];
          }
        }
      } else if (m > 0) {
        /* ∂_x ℛ_n^m = -½ up ℛ_{n-1}^{m+1} + k dn ℛ_{n-1}^{m-1}      (k = ½, or 1/√2 when m = 1)
         * ∂_y ℛ_n^m = -½ up ℛ_{n-1}^{-(m+1)} - ½ dn ℛ_{n-1}^{-(m-1)}  (second term absent for m = 1) */
        vx_real k = (m == 1) ? rh : h;
        for (int c = 0; c < 3; ++c) {
          if (am + 1 <= n - 1) {
            if (dx) dx[3 * VX_IDX(n - 1, m + 1) + c] -= h * up * l[c];
            if (dy) dy[3 * VX_IDX(n - 1, -(m + 1)) + c] -= h * up * l[c];
          }
          if (dx) dx[3 * VX_IDX(n - 1, m - 1) + c] += k * dn * l[c];
          if (dy && m >= 2) dy[3 * VX_IDX(n - 1, -(m - 1)) + c] -= h * dn * l[c];
        }
      } else {
        /* m = -a < 0:
         * ∂_x ℛ_n^{-a} = -½ up ℛ_{n-1}^{-(a+1)} + ½ dn ℛ_{n-1}^{-(a-1)}  (second term absent for a = 1)
         * ∂_y ℛ_n^{-a} =  ½ up ℛ_{n-1}^{a+1}    + k dn ℛ_{n-1}^{a-1}     (k = ½, or 1/√2 when a = 1) */
        vx_real k = (am == 1) ? rh : h;
        for (int c = 0; c < 3; ++c) {
          if (am + 1 <= n - 1) {
            if (dx) dx[3 * VX_IDX(n - 1, -(am + 1)) + c] -= h * up * l[c];
            if (dy) dy[3 * VX_IDX(n - 1, am + 1) + c] += h * up * l[c];
          }
          if (dx && am >= 2) dx[3 * VX_IDX(n - 1, -(am - 1)) + c] += h * dn * l[c];
          if (dy) dy[3 * VX_IDX(n - 1, am - 1) + c] += k * dn * l[c];
        }
      }
    }
  }
}

/* All degrees: the derivatives' VX_NCOEF(p-1) coefficients ×3 (sph_deriv_degrees). */
VX_HD static inline void VXF(sph_deriv)(const vx_real *L, int p, vx_real *dx, vx_real *dy, vx_real *dz) {
  if (p >= 1) VXF(sph_deriv_degrees)(L, 1, p, dx, dy, dz);
}

/* Velocity (curl of ψ) and gradient (from the Hessian of ψ) of one target from the derivatives
 * of the three vector-potential components (docs/MATH.md §3): dpsi[c][a] = ∂_a ψ_c, hpsi[c][ab] = ∂_a ∂_b ψ_c. */
VX_HD static inline void VXF(curl_from_derivs)(const vx_real dpsi[3][3], const vx_real hpsi[3][3][3], vx_real *u,
                                                vx_real *gr) {
  /* u = ∇ × ψ: u_x = ∂_y ψ_z - ∂_z ψ_y, ... */
  u[0] += dpsi[2][1] - dpsi[1][2];
  u[1] += dpsi[0][2] - dpsi[2][0];
  u[2] += dpsi[1][0] - dpsi[0][1];
  if (gr)
    for (int j = 0; j < 3; ++j) {
      gr[0 + j] += hpsi[2][1][j] - hpsi[1][2][j];
      gr[3 + j] += hpsi[0][2][j] - hpsi[2][0][j];
      gr[6 + j] += hpsi[1][0][j] - hpsi[0][1][j];
    }
}

