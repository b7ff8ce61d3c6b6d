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
 * out_j^m = Σ_{n=|m|}^{ns} B[|m|][j][n] ρ^{-(j+n+1)} in_n^m, B = (-1)^{n+m} √(C(j+n,j-m) C(j+n,j+m)),
 * ns ≤ p the multipole degrees read (the offset's fmm_tables.m2l_deg; p: all). ipow[k] = ρ^{-k}, k = 0..2p+1. */
VX_HD static inline void VXF(coax_m2l_coef)(const vx_real *in, int p, int ns, const vx_real *tab, const vx_real *ipow,
                                             int j, int m, vx_real *out3) {
  int am = m < 0 ? -m : m;
  vx_real a0 = VX_R(0.0), a1 = VX_R(0.0), a2 = VX_R(0.0);
  const vx_real *tr = tab + vx_coax_idx(p, am, j, 0), *ip = ipow + j + 1;
  const vx_real *x = in + 3 * VX_IDX(am, m);
  for (int n = am; n <= ns; ++n) {
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
VX_HD static inline void VXF(coax_m2l)(const vx_real *in, vx_real *out, int p, int ns, const vx_real *tab,
                                       const vx_real *ipow) {
  for (int j = 0; j <= p; ++j)
    for (int m = -j; m <= j; ++m) VXF(coax_m2l_coef)(in, p, ns, tab, ipow, j, m, out + 3 * VX_IDX(j, m));
}

/* One whole RCR translation: out += R^T · coax(R · in), where R = D_y(tab) D_z(φ).
 * kind: 0 = M2M, 1 = L2L, 2 = M2L (ipow used only by M2L), which reads the multipole's degrees
 * 0..ns only (ns ≤ p; the other kinds ignore it): the rotations keep degrees apart, so the forward
 * ones stop at ns too. w1, w2: scratch of 3·VX_NCOEF(p). */
VX_HD static inline void VXF(rcr_translate)(const vx_real *in, vx_real *out, int p, int ns, vx_real cphi, vx_real sphi,
                                             const vx_real *roty, const vx_real *coax, const vx_real *ipow, int kind,
                                             vx_real *w1, vx_real *w2) {
  const int pf = kind == 2 ? ns : p;
  VXF(rot_z)(in, w1, pf, cphi, sphi, 1);
  VXF(rot_y)(w1, w2, pf, roty, 1);
  if (kind == 0) VXF(coax_m2m)(w2, w1, p, coax);
  else if (kind == 1) VXF(coax_l2l)(w2, w1, p, coax);
  else VXF(coax_m2l)(w2, w1, p, ns, coax, ipow);
  VXF(rot_y)(w1, w2, p, roty, 0);
  VXF(rot_z)(w2, w1, p, cphi, sphi, 0);
  for (int i = 0; i < 3 * VX_NCOEF(p); ++i) out[i] += w1[i];
}

/* ---- Pair forms: the M2L operators above for the two coefficients (n, a) and (n, -a),
 * a >= 0, of one degree at once, so that one GPU lane holds both and rotates them about z in
 * registers (fmm/gpu_m2l_t.cuh, k_m2l_spec), with its index arithmetic done once per pair. The sums
 * run in the same order as the *_coef forms. kmax >= n bounds their loops: the order, a
 * compile-time constant in an order-specialised kernel, so that they unroll (VX_UNROLL). For
 * a = 0 only (n, 0) exists: the (n, -a) outputs are 0 and put_pair stores (n, 0) alone. */

/* rot_z_coef for (n, a) and (n, -a); pc, ps: their 3 components in, oc, os out (may alias them).
 * cm = cos aφ, sm = sin aφ; with a = 0 (cm = 1, sm = 0) oc = pc. */
VX_HD_INLINE static void VXF(rot_z_pair)(const vx_real *pc, const vx_real *ps, vx_real cm, vx_real sm, int forward,
                                          vx_real *oc, vx_real *os) {
  vx_real s = forward ? sm : -sm;
  for (int c = 0; c < 3; ++c) {
    vx_real x = pc[c], y = ps[c];
    oc[c] = cm * x + s * y;
    os[c] = -s * x + cm * y;
  }
}

/* rot_y_coef for (n, a) (row/column a of the cos block) and (n, -a) (row/column a-1 of the sin block). */
VX_HD_INLINE static void VXF(rot_y_pair)(const vx_real *in, int n, int a, const vx_real *tab, int forward, int kmax,
                                          vx_real *oc, vx_real *os) {
  const int w = n + 1, r = a > 0 ? a - 1 : 0; /* a = 0: sin row 0 read (in range), its sum dropped */
  const vx_real *blk = tab + vx_roty_off(n), *sblk = blk + w * w;
  const vx_real *dc = forward ? blk + a * w : blk + a, *ds = forward ? sblk + r * n : sblk + r;
  const int sc = forward ? 1 : w, ss = forward ? 1 : n;
  const vx_real *xc = in + 3 * VX_IDX(n, 0), *xs = in + 3 * VX_IDX(n, -1); /* (n, -k) at xs[-3(k-1)] */
  vx_real c0 = VX_R(0.0), c1 = VX_R(0.0), c2 = VX_R(0.0), s0 = VX_R(0.0), s1 = VX_R(0.0), s2 = VX_R(0.0);
  VX_UNROLL
  for (int k = 0; k <= kmax; ++k) {
    if (k <= n) {
      vx_real d = dc[k * sc];
      c0 += d * xc[3 * k]; c1 += d * xc[3 * k + 1]; c2 += d * xc[3 * k + 2];
    }
    if (k < n) {
      vx_real d = ds[k * ss];
      s0 += d * xs[-3 * k]; s1 += d * xs[-3 * k + 1]; s2 += d * xs[-3 * k + 2];
    }
  }
  const int h = a > 0;
  oc[0] = c0; oc[1] = c1; oc[2] = c2;
  os[0] = h ? s0 : VX_R(0.0); os[1] = h ? s1 : VX_R(0.0); os[2] = h ? s2 : VX_R(0.0);
}

/* coax_m2l_coef for (j, a) and (j, -a): one factor B ρ^{-(j+n+1)} serves both; the loop runs to p,
 * summing degrees a ≤ n ≤ ns. */
VX_HD_INLINE static void VXF(coax_m2l_pair)(const vx_real *in, int p, int ns, const vx_real *tab, const vx_real *ipow,
                                             int j, int a, vx_real *oc, vx_real *os) {
  const vx_real *tr = tab + vx_coax_idx(p, a, j, 0), *ip = ipow + j + 1;
  vx_real c0 = VX_R(0.0), c1 = VX_R(0.0), c2 = VX_R(0.0), s0 = VX_R(0.0), s1 = VX_R(0.0), s2 = VX_R(0.0);
  VX_UNROLL
  for (int n = 0; n <= p; ++n)
    if (n >= a && n <= ns) {
      const vx_real t = tr[n] * ip[n], *xc = in + 3 * VX_IDX(n, a), *xs = in + 3 * VX_IDX(n, -a);
      c0 += t * xc[0]; c1 += t * xc[1]; c2 += t * xc[2];
      s0 += t * xs[0]; s1 += t * xs[1]; s2 += t * xs[2];
    }
  const int h = a > 0;
  oc[0] = c0; oc[1] = c1; oc[2] = c2;
  os[0] = h ? s0 : VX_R(0.0); os[1] = h ? s1 : VX_R(0.0); os[2] = h ? s2 : VX_R(0.0);
}

/* Store a pair into an expansion: (n, a), and (n, -a) when a > 0. */
VX_HD_INLINE static void VXF(put_pair)(vx_real *out, int n, int a, const vx_real *oc, const vx_real *os) {
  for (int c = 0; c < 3; ++c) out[3 * VX_IDX(n, a) + c] = oc[c];
  if (a > 0)
    for (int c = 0; c < 3; ++c) out[3 * VX_IDX(n, -a) + c] = os[c];
}

/* The four stages of a pair-wise M2L (rcr_translate, kind 2), each for pair (n, ±a); cs[2a],
 * cs[2a+1] = cos aφ, sin aφ. Stage 1: the source's pair rotated about z into w. */
VX_HD_INLINE static void VXF(m2l_pair_load)(const vx_real *in, int n, int a, const vx_real *cs, vx_real *w) {
  vx_real oc[3], os[3];
  VXF(rot_z_pair)(in + 3 * VX_IDX(n, a), in + 3 * VX_IDX(n, -a), cs[2 * a], cs[2 * a + 1], 1, oc, os);
  VXF(put_pair)(w, n, a, oc, os);
}
/* Stage 2: rotated about y (forward) from w1 into w2. */
VX_HD_INLINE static void VXF(m2l_pair_roty)(const vx_real *w1, int n, int a, const vx_real *roty, int kmax, vx_real *w2) {
  vx_real oc[3], os[3];
  VXF(rot_y_pair)(w1, n, a, roty, 1, kmax, oc, os);
  VXF(put_pair)(w2, n, a, oc, os);
}
/* Stage 3: the coaxial M2L from w2 into w1 (degree j = n of the local expansion; multipole degrees ≤ ns). */
VX_HD_INLINE static void VXF(m2l_pair_coax)(const vx_real *w2, int p, int ns, const vx_real *coax, const vx_real *ipow,
                                             int n, int a, vx_real *w1) {
  vx_real oc[3], os[3];
  VXF(coax_m2l_pair)(w2, p, ns, coax, ipow, n, a, oc, os);
  VXF(put_pair)(w1, n, a, oc, os);
}
/* Stage 4: rotated back about y then z, added to acc[0..2] (n, a) and acc[3..5] (n, -a). */
VX_HD_INLINE static void VXF(m2l_pair_back)(const vx_real *w1, int n, int a, const vx_real *roty, int kmax,
                                             const vx_real *cs, vx_real *acc) {
  vx_real oc[3], os[3];
  VXF(rot_y_pair)(w1, n, a, roty, 0, kmax, oc, os);
  VXF(rot_z_pair)(oc, os, cs[2 * a], cs[2 * a + 1], 0, oc, os);
  for (int c = 0; c < 3; ++c) { acc[c] += oc[c]; acc[3 + c] += os[c]; }
}

/* An M2L by its dense operator D (fmm_m2l_dense, tables.h: D[r·nc + k], nc = VX_NCOEF(p)):
 * out[3r+c] += Σ_k D[r·nc+k]·in[3k+c] for each of the three fused FMMs c, k ascending — the CPU twin
 * of k_m2l_dense, whose threads run the same product over the offsets of a tile of target boxes. */
VX_HD static inline void VXF(m2l_dense_apply)(const vx_real *D, const vx_real *in, vx_real *out, int nc) {
  for (int r = 0; r < nc; ++r) {
    vx_real a0 = VX_R(0.0), a1 = VX_R(0.0), a2 = VX_R(0.0);
    for (int k = 0; k < nc; ++k) {
      const vx_real d = D[(size_t)r * nc + k];
      a0 += d * in[3 * k], a1 += d * in[3 * k + 1], a2 += d * in[3 * k + 2];
    }
    out[3 * r] += a0, out[3 * r + 1] += a1, out[3 * r + 2] += a2;
  }
}

/* rcr_translate's M2L by the four pair stages, each a pass over all pairs (the forward ones over the
 * degrees ≤ ns the coaxial stage reads): the CPU twin of k_m2l_spec (whose lanes own pairs and
 * separate the stages by __syncwarp). out += the translated in; w1, w2: scratch of 3·VX_NCOEF(p). */
VX_HD static inline void VXF(rcr_m2l_pairs)(const vx_real *in, vx_real *out, int p, int ns, const vx_real *cs,
                                             const vx_real *roty, const vx_real *coax, const vx_real *ipow, vx_real *w1,
                                             vx_real *w2) {
  const int np = VX_NPAIR(p), nf = VX_NPAIR(ns);
  int n, a;
  for (int t = 0; t < nf; ++t) { vx_pair_na(t, &n, &a); VXF(m2l_pair_load)(in, n, a, cs, w1); }
  for (int t = 0; t < nf; ++t) { vx_pair_na(t, &n, &a); VXF(m2l_pair_roty)(w1, n, a, roty, p, w2); }
  for (int t = 0; t < np; ++t) { vx_pair_na(t, &n, &a); VXF(m2l_pair_coax)(w2, p, ns, coax, ipow, n, a, w1); }
  for (int t = 0; t < np; ++t) {
    vx_real acc[6] = {VX_R(0.0), VX_R(0.0), VX_R(0.0), VX_R(0.0), VX_R(0.0), VX_R(0.0)};
    vx_pair_na(t, &n, &a);
    VXF(m2l_pair_back)(w1, n, a, roty, p, cs, acc);
    for (int c = 0; c < 3; ++c) out[3 * VX_IDX(n, a) + c] += acc[c];
    if (a > 0)
      for (int c = 0; c < 3; ++c) out[3 * VX_IDX(n, -a) + c] += acc[3 + c];
  }
}
