/* translate_t.h — rotation–coaxial–rotation (RCR) translation pieces (templated: include through
 * translate.h). Every operator is written per output coefficient (the *_coef functions, used by
 * GPU threads) and as a whole-expansion loop over them (used by the CPU). Coefficients are
 * 3-component interleaved: component c of (n,m) at [3*VX_IDX(n,m) + c]. docs/MATH.md §4–5.
 *
 * A translation along vector v = |v| (sinθ cosφ, sinθ sinφ, cosθ) uses the rotation
 * Q = R_y(-θ) R_z(-φ), which maps v to |v| ẑ:
 *   forward  : x' = D_y(-θ) D_z(-φ) x      (paper eq. 16 then eq. 20)
 *   coaxial  : along +ẑ                     (paper eq. 21)
 *   backward : x  = D_z(-φ)^T D_y(-θ)^T x'  */

/* Rotation about z, one coefficient. cm = cos(|m|φ), sm = sin(|m|φ). forward: D_z(-φ); else its
 * transpose D_z(φ). */
VX_HD static inline void VXF(rot_z_coef)(const vx_real *in, int n, int m, vx_real cm, vx_real sm, int forward,
                                          vx_real *out3) {
  if (m == 0) {
    for (int c = 0; c < 3; ++c) out3[c] = in[3 * VX_IDX(n, 0) + c];
    return;
  }
  int a = m < 0 ? -m : m;
  const vx_real *pc = in + 3 * VX_IDX(n, a), *ps = in + 3 * VX_IDX(n, -a);
  vx_real s = forward ? sm : -sm;
  for (int c = 0; c < 3; ++c)
    out3[c] = (m > 0) ? (cm * pc[c] + s * ps[c]) : (-s * pc[c] + cm * ps[c]);
}

VX_HD static inline void VXF(rot_z)(const vx_real *in, vx_real *out, int p, vx_real cphi, vx_real sphi, int forward) {
  vx_real cm = VX_R(1.0), sm = VX_R(0.0);
  for (int m = 0; m <= p; ++m) {
    for (int n = m; n <= p; ++n) {
      VXF(rot_z_coef)(in, n, m, cm, sm, forward, out + 3 * VX_IDX(n, m));
      if (m > 0) VXF(rot_z_coef)(in, n, -m, cm, sm, forward, out + 3 * VX_IDX(n, -m));
    }
    vx_real cn = cm * cphi - sm * sphi; /* cos((m+1)φ), sin((m+1)φ) */
    sm = sm * cphi + cm * sphi;
    cm = cn;
  }
}

/* Rotation about y by a tabulated D_y(-θ), one coefficient. The table for degree n has a
 * cos block ((n+1)×(n+1), rows/cols m = 0..n) then a sin block (n×n, rows/cols |m| = 1..n):
 * rotations about y keep functions even or odd in y (paper eq. 20's H^{m,m'} ± H^{m,-m'}).
 * forward: out = D x; otherwise out = Dᵀ x. */
VX_HD static inline void VXF(rot_y_coef)(const vx_real *in, int n, int m, const vx_real *tab, int forward,
                                          vx_real *out3) {
  vx_real acc0 = VX_R(0.0), acc1 = VX_R(0.0), acc2 = VX_R(0.0);
  const vx_real *blk = tab + vx_roty_off(n);
  if (m >= 0) {
    /* cos block: rows and columns m = 0..n; inputs (n,0..n) are contiguous */
    const int w = n + 1;
    const vx_real *x = in + 3 * VX_IDX(n, 0);
    if (forward) {
      const vx_real *row = blk + m * w;
      for (int k = 0; k <= n; ++k) {
        vx_real d = row[k];
        acc0 += d * x[3 * k]; acc1 += d * x[3 * k + 1]; acc2 += d * x[3 * k + 2];
      }
    } else {
      const vx_real *col = blk + m;
      for (int k = 0; k <= n; ++k) {
        vx_real d = col[k * w];
        acc0 += d * x[3 * k]; acc1 += d * x[3 * k + 1]; acc2 += d * x[3 * k + 2];
      }
    }
  } else {
    /* sin block: rows and columns |m| = 1..n; inputs (n,-1), (n,-2), ... run backwards */
    const int w = n, r = -m - 1;
    const vx_real *sblk = blk + (n + 1) * (n + 1);
    const vx_real *x = in + 3 * VX_IDX(n, -1);
    if (forward) {
      const vx_real *row = sblk + r * w;
      for (int k = 0; k < n; ++k) {
        vx_real d = row[k];
        acc0 += d * x[-3 * k]; acc1 += d * x[-3 * k + 1]; acc2 += d * x[-3 * k + 2];
      }
    } else {
      const vx_real *col = sblk + r;
      for (int k = 0; k < n; ++k) {
        vx_real d = col[k * w];
        acc0 += d * x[-3 * k]; acc1 += d * x[-3 * k + 1]; acc2 += d * x[-3 * k + 2];
      }
    }
  }
  out3[0] = acc0; out3[1] = acc1; out3[2] = acc2;
}

VX_HD static inline void VXF(rot_y)(const vx_real *in, vx_real *out, int p, const vx_real *tab, int forward) {
  for (int n = 0; n <= p; ++n)
    for (int m = -n; m <= n; ++m) VXF(rot_y_coef)(in, n, m, tab, forward, out + 3 * VX_IDX(n, m));
}

/* Coaxial M2M (child → parent, along +ẑ): out_n^m = Σ_{k=|m|}^{n} T[|m|][n][k] in_k^m, with
 * T = √(C(n-m,n-k) C(n+m,n-k)) τ^{n-k} 2^{-k} (box-scaled, docs/MATH.md §5). */
VX_HD static inline void VXF(coax_m2m_coef)(const vx_real *in, int p, const vx_real *tab, int n, int m, vx_real *out3) {
  int am = m < 0 ? -m : m;
  vx_real a0 = VX_R(0.0), a1 = VX_R(0.0), a2 = VX_R(0.0);
  const vx_real *tr = tab + vx_coax_idx(p, am, n, 0), *x = in + 3 * VX_IDX(am, m);
  for (int k = am; k <= n; ++k) {
    vx_real t = tr[k];
    a0 += t * x[0]; a1 += t * x[1]; a2 += t * x[2];
    x += 3 * (2 * k + 2);
  }
  out3[0] = a0; out3[1] = a1; out3[2] = a2;
}
/* Coaxial L2L (parent → child, along +ẑ): out_k^m = Σ_{n=k}^{p} T[|m|][n][k] in_n^m. */
VX_HD static inline void VXF(coax_l2l_coef)(const vx_real *in, int p, const vx_real *tab, int k, int m, vx_real *out3) {
  int am = m < 0 ? -m : m;
  vx_real a0 = VX_R(0.0), a1 = VX_R(0.0), a2 = VX_R(0.0);
  const vx_real *x = in + 3 * VX_IDX(k, m);
  for (int n = k; n <= p; ++n) {
    vx_real t = tab[vx_coax_idx(p, am, n, k)];
    a0 += t * x[0]; a1 += t * x[1]; a2 += t * x[2];
    x += 3 * (2 * n + 2);
  }
  out3[0] = a0; out3[1] = a1; out3[2] = a2;
}
/* Coaxial M2L, source centre at +ρẑ from the target centre (box units):
 * out_j^m = Σ_{n=|m|}^{p} B[|m|][j][n] ρ^{-(j+n+1)} in_n^m, B = (-1)^{n+m} √(C(j+n,j-m) C(j+n,j+m)).
 * ipow[k] = ρ^{-k}, k = 0..2p+1. */
VX_HD static inline void VXF(coax_m2l_coef)(const vx_real *in, int p, const vx_real *tab, const vx_real *ipow, int j,
                                             int m, vx_real *out3) {
  int am = m < 0 ? -m : m;
  vx_real a0 = VX_R(0.0), a1 = VX_R(0.0), a2 = VX_R(0.0);
  const vx_real *tr = tab + vx_coax_idx(p, am, j, 0), *ip = ipow + j + 1;
  const vx_real *x = in + 3 * VX_IDX(am, m);
  for (int n = am; n <= p; ++n) {
    vx_real t = tr[n] * ip[n];
    a0 += t * x[0]; a1 += t * x[1]; a2 += t * x[2];
    x += 3 * (2 * n + 2); /* (n,m) -> (n+1,m) */
  }
  out3[0] = a0; out3[1] = a1; out3[2] = a2;
}

VX_HD static inline void VXF(coax_m2m)(const vx_real *in, vx_real *out, int p, const vx_real *tab) {
  for (int n = 0; n <= p; ++n)
    for (int m = -n; m <= n; ++m) VXF(coax_m2m_coef)(in, p, tab, n, m, out + 3 * VX_IDX(n, m));
}
VX_HD static inline void VXF(coax_l2l)(const vx_real *in, vx_real *out, int p, const vx_real *tab) {
  for (int k = 0; k <= p; ++k)
    for (int m = -k; m <= k; ++m) VXF(coax_l2l_coef)(in, p, tab, k, m, out + 3 * VX_IDX(k, m));
}
VX_HD static inline void VXF(coax_m2l)(const vx_real *in, vx_real *out, int p, const vx_real *tab, const vx_real *ipow) {
  for (int j = 0; j <= p; ++j)
    for (int m = -j; m <= j; ++m) VXF(coax_m2l_coef)(in, p, tab, ipow, j, m, out + 3 * VX_IDX(j, m));
}

/* One whole RCR translation: out += R^T · coax(R · in), where R = D_y(tab) D_z(φ).
 * kind: 0 = M2M, 1 = L2L, 2 = M2L (ipow used only by M2L). w1, w2: scratch of 3·VX_NCOEF(p). */
VX_HD static inline void VXF(rcr_translate)(const vx_real *in, vx_real *out, int p, vx_real cphi, vx_real sphi,
                                             const vx_real *roty, const vx_real *coax, const vx_real *ipow, int kind,
                                             vx_real *w1, vx_real *w2) {
  VXF(rot_z)(in, w1, p, cphi, sphi, 1);
  VXF(rot_y)(w1, w2, p, roty, 1);
  if (kind == 0) VXF(coax_m2m)(w2, w1, p, coax);
  else if (kind == 1) VXF(coax_l2l)(w2, w1, p, coax);
  else VXF(coax_m2l)(w2, w1, p, coax, ipow);
  VXF(rot_y)(w1, w2, p, roty, 0);
  VXF(rot_z)(w2, w1, p, cphi, sphi, 0);
  for (int i = 0; i < 3 * VX_NCOEF(p); ++i) out[i] += w1[i];
}
