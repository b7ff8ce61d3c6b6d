/* pair_t.h — regularized Biot–Savart pair interaction, velocity and gradient (templated: include
 * through pair.h). One home for the near field and the direct sum, CPU and GPU alike.
 *
 * With d = x - y, r = |d|, ρ = r/σ and the kernel's q(ρ), g(r) = q(ρ)/r³ and h(r) = g'(r)/r:
 *   u_i     += g (α × d)_i
 *   ∂_j u_i += h d_j (α × d)_i - g ε_ijl α_l
 * (the caller multiplies by 1/(4π) once). docs/MATH.md §6 derives both and each kernel's g, h. */

/* e^x for -87 <= x <= 0. For float on the host, a branch-free Cody–Waite reduction and a degree-6
 * polynomial (Cephes' expf; relative error <= 8e-8, measured over [-24, 0]) that the CPU's pair loops
 * vectorize (glibc's vector expf is declared only under -ffast-math); for float on the GPU the
 * hardware's 2^x (__expf: two instructions where expf takes about ten; relative error ~1e-7 plus
 * |x|·6e-8 from rounding x·log₂e, at most 2e-6 where the Gaussian reads it, ρ² < 48, on a term then
 * below 4e-11); elsewhere the library's exp. */
VX_HD static inline vx_real VXF(exp_nonpos)(vx_real x) {
#if defined(VX_FLOAT_INST) && defined(__CUDA_ARCH__)
  return vx_ex2_ftz(x * 1.44269504088896341f); /* __expf's, without its rescaling below 2^-126 (hd.h) */
#elif defined(VX_FLOAT_INST)
  x = x < -87.0f ? -87.0f : x;
  const float shift = 12582912.0f; /* 1.5·2^23: adding and subtracting it rounds to an integer */
  float n = (x * 1.44269504088896341f + shift) - shift;
  float r = (x - n * 0.693359375f) - n * -2.12194440e-4f; /* x - n ln 2, ln 2 in two parts */
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits = ((int32_t)n + 127) << 23; /* 2^n */
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
#else
  return VX_EXP(x);
#endif
}

/* erf(x) for x >= 0 given e = e^{-x²}: the library's erf in double; in float Abramowitz & Stegun's
 * 7.1.26 (|error| <= 1.5e-7, a few of float's units at erf ~ 1), which reuses e and costs one
 * reciprocal and five multiply-adds instead of a call to erff: the CPU backend's Gaussian pairs run
 * about twice as fast, and vectorize; the GPU's near field of Gaussian cores runs faster too, both
 * backends computing the same formula (docs/BENCHMARKS.md). On the GPU the reciprocal is the
 * hardware's approximation (rcp.approx.ftz, the value __fdividef gives: 2 units in the last place). */
VX_HD static inline vx_real VXF(erf_with_exp)(vx_real x, vx_real e) {
#if defined(VX_FLOAT_INST)
#ifdef __CUDA_ARCH__
  const vx_real t = vx_rcp_ftz(1.0f + 0.3275911f * x); /* __fdividef(1, ·)'s value (hd.h) */
#else
  const vx_real t = VX_R(1.0) / (VX_R(1.0) + VX_R(0.3275911) * x);
#endif
  const vx_real poly =
      VX_R(0.254829592) +
      t * (VX_R(-0.284496736) + t * (VX_R(1.421413741) + t * (VX_R(-1.453152027) + t * VX_R(1.061405429))));
  return VX_R(1.0) - t * poly * e;
#else
  (void)e;
  return VX_ERF(x);
#endif
}

/* 1 where this precision's Gaussian vectorizes on the host: float (erf_with_exp and exp_nonpos
 * without library calls), and double where libmvec's vector erf and exp are declared (pair.h); the
 * CPU's pair loops keep kernel_gh's branches otherwise. */
static inline int VXF(gauss_vectorizes)(void) {
#if defined(VX_FLOAT_INST) || defined(VX_HOST_VECTOR_ERF)
  return 1;
#else
  return 0;
#endif
}

/* Terms of the Gaussian's series below ρ = 1: in double 14 (the double's rounding), in float 9 (the
 * first term dropped is below 5e-9 of the sum), which the CPU's vectorized loops evaluate for every
 * pair and the GPU's warps wherever one lane's pair is that close. */
#undef VX_GAUSS_SERIES_TERMS
#if defined(VX_FLOAT_INST)
#define VX_GAUSS_SERIES_TERMS 9
#else
#define VX_GAUSS_SERIES_TERMS 14
#endif

/* g, h of the singular kernel from ir = 1/r (0 gives g = h = 0). */
VX_HD static inline void VXF(singular_gh_ir)(vx_real ir, vx_real *g, vx_real *h) {
  vx_real ir2 = ir * ir, ir3 = ir2 * ir;
  *g = ir3; *h = VX_R(-3.0) * ir3 * ir2;
}

/* g, h of the singular kernel, the form every kernel takes far from its core: one reciprocal
 * square root (the GPU's rsqrt), no division. */
VX_HD static inline void VXF(singular_gh)(vx_real r2, vx_real *g, vx_real *h) { VXF(singular_gh_ir)(VX_RSQRT(r2), g, h); }

/* The Gaussian (q = erf(ρ/√2) - √(2/π) ρ e^{-ρ²/2}) below ρ² = 1, by its series
 * q = √(2/π) Σ (-ρ²/2)^k/k! ρ³/(2k+3), avoiding the cancellation of erf - ρe^{-ρ²/2}. */
VX_HD static inline void VXF(gauss_series_gh)(vx_real rho2, vx_real sigma, vx_real *g, vx_real *h) {
  const vx_real c2pi = VX_R(0.79788456080286535588); /* √(2/π) */
  vx_real is2 = VX_R(1.0) / (sigma * sigma), term = VX_R(1.0), gs = VX_R(0.0), hs = VX_R(0.0), x = VX_R(-0.5) * rho2;
#if defined(__CUDA_ARCH__)
#pragma unroll
#elif !defined(__CUDACC__) /* the host C compiler (nvcc's host pass knows neither pragma) */
#pragma GCC unroll 16
#endif
  for (int k = 0; k < VX_GAUSS_SERIES_TERMS; ++k) { /* unrolled: the reciprocals fold to constants */
    gs += term * (VX_R(1.0) / (vx_real)(2 * k + 3));
    hs -= term * (VX_R(1.0) / (vx_real)(2 * k + 5));
    term *= x * (VX_R(1.0) / (vx_real)(k + 1));
  }
  vx_real is3 = is2 / sigma;
  *g = c2pi * gs * is3; *h = c2pi * hs * is3 * is2;
}

/* The Gaussian from ρ² = 1 to its singular shortcut, by erf and the exponential. */
VX_HD static inline void VXF(gauss_erf_gh)(vx_real r2, vx_real rho2, vx_real sigma, vx_real *g, vx_real *h) {
  const vx_real c2pi = VX_R(0.79788456080286535588);
  vx_real ir = VX_RSQRT(r2), r = r2 * ir, rho = r * (VX_R(1.0) / sigma), e = VXF(exp_nonpos)(VX_R(-0.5) * rho2);
  vx_real q = VXF(erf_with_exp)(rho * VX_R(0.70710678118654752440), e) - c2pi * rho * e;
  vx_real dq = c2pi * rho2 * e; /* dq/dρ */
  vx_real ir2 = ir * ir, ir3 = ir2 * ir;
  *g = q * ir3; *h = (dq * rho - VX_R(3.0) * q) * ir3 * ir2;
}

/* g and h of the kernel at squared distance r2 > 0. */
VX_HD static inline void VXF(kernel_gh)(int kernel, vx_real r2, vx_real sigma, vx_real *g, vx_real *h) {
  vx_real s2 = sigma * sigma;
  switch (kernel) {
  case 1: { /* paper eq. 29 (c = 1): q = ρ² inside the core */
    vx_real ir = VX_RSQRT(r2), ir2 = ir * ir;
    if (r2 < s2) { vx_real is2 = VX_R(1.0) / s2; *g = is2 * ir; *h = -is2 * ir * ir2; return; }
    vx_real ir3 = ir2 * ir;
    *g = ir3; *h = VX_R(-3.0) * ir3 * ir2; return;
  }
  case 2: { /* Rosenhead–Moore: g = (r²+σ²)^{-3/2} */
    vx_real is = VX_RSQRT(r2 + s2), it = is * is;
    *g = it * is; *h = VX_R(-3.0) * it * it * is; return;
  }
  case 3: { /* Winckelmans–Leonard: g = (r² + 5σ²/2)/(r²+σ²)^{5/2} */
    vx_real is = VX_RSQRT(r2 + s2), it = is * is, it52 = it * it * is;
    *g = (r2 + VX_R(2.5) * s2) * it52;
    *h = (VX_R(-3.0) * r2 - VX_R(10.5) * s2) * it52 * it; return;
  }
  case 4: { /* Gaussian: q = erf(ρ/√2) - √(2/π) ρ e^{-ρ²/2} */
    vx_real rho2 = r2 * (VX_R(1.0) / s2); /* 1/σ² is loop-invariant in the pair loops */
    /* from VX_GAUSS_FAR2 on, 1 - q < e^{-ρ²/2}(√(2/π)ρ + 1) is below the precision's rounding (real_t.h) */
    if (rho2 >= VX_GAUSS_FAR2) VXF(singular_gh)(r2, g, h);
    else if (rho2 < VX_R(1.0)) VXF(gauss_series_gh)(rho2, sigma, g, h);
    else VXF(gauss_erf_gh)(r2, rho2, sigma, g, h);
    return;
  }
  default: VXF(singular_gh)(r2, g, h); return;
  }
}

#ifndef __CUDA_ARCH__
/* kernel_gh without branches, for the CPU's vectorized pair loops (cpu_engine_t.h): every branch
 * of the kernel computed and the result selected, the same functions as kernel_gh's; and g = h = 0
 * at r2 = 0, where a coincident pair contributes nothing. The Gaussian in double keeps kernel_gh
 * (gauss_vectorizes). */
static inline void VXF(kernel_gh_sel)(int kernel, vx_real r2, vx_real sigma, vx_real *g, vx_real *h) {
  vx_real gs, hs, s2 = sigma * sigma;
  VXF(singular_gh)(r2, &gs, &hs);
  if (kernel == 1) {
    vx_real ir = VX_RSQRT(r2), ir2 = ir * ir, is2 = VX_R(1.0) / s2; /* as kernel_gh's case 1 */
    const int in = r2 < s2;
    *g = in ? is2 * ir : gs; *h = in ? -is2 * ir * ir2 : hs;
  } else if (kernel == 4) {
    vx_real rho2 = r2 * (VX_R(1.0) / s2), ga, ha, gb, hb;
    VXF(gauss_series_gh)(rho2, sigma, &ga, &ha);
    VXF(gauss_erf_gh)(r2, rho2, sigma, &gb, &hb);
    *g = rho2 >= VX_GAUSS_FAR2 ? gs : (rho2 < VX_R(1.0) ? ga : gb);
    *h = rho2 >= VX_GAUSS_FAR2 ? hs : (rho2 < VX_R(1.0) ? ha : hb);
  } else if (kernel == 2 || kernel == 3) {
    VXF(kernel_gh)(kernel, r2, sigma, g, h); /* no branches */
  } else {
    *g = gs; *h = hs;
  }
  const int apart = r2 > VX_R(0.0);
  *g = apart ? *g : VX_R(0.0);
  *h = apart ? *h : VX_R(0.0);
}
#endif

/* The terms one pair adds in pair_bs_split's form (below): u += g (α × d), H += h d ⊗ (α × d),
 * w += g α, as named scalars returned by value, so that the CPU's vectorized loops keep them in
 * registers. pair_bs_split writes the same products into its sums directly: routed through this
 * struct, the GPU's fast P2P kernel compiles to another instruction order and runs 5 % slower
 * (H100); tests/test_pair.c checks that the two agree. */
typedef struct {
  vx_real ux, uy, uz, h00, h01, h02, h10, h11, h12, h20, h21, h22, wx, wy, wz;
} VXF(pair_terms);

VX_HD static inline VXF(pair_terms) VXF(pair_terms_of)(vx_real g, vx_real h, vx_real dx, vx_real dy, vx_real dz, vx_real ax,
                                                       vx_real ay, vx_real az) {
  VXF(pair_terms) t;
  vx_real cx = ay * dz - az * dy, cy = az * dx - ax * dz, cz = ax * dy - ay * dx; /* α × d */
  t.ux = g * cx; t.uy = g * cy; t.uz = g * cz;
  vx_real hx = h * dx, hy = h * dy, hz = h * dz;
  t.h00 = hx * cx; t.h01 = hy * cx; t.h02 = hz * cx;
  t.h10 = hx * cy; t.h11 = hy * cy; t.h12 = hz * cy;
  t.h20 = hx * cz; t.h21 = hy * cz; t.h22 = hz * cz;
  t.wx = g * ax; t.wy = g * ay; t.wz = g * az;
  return t;
}

/* u += g (α × d), gr += h d ⊗ (α × d) - g ε α (when gr != NULL): docs/MATH.md §6. */
VX_HD static inline void VXF(pair_accum)(vx_real g, vx_real h, vx_real dx, vx_real dy, vx_real dz, vx_real ax, vx_real ay,
                                         vx_real az, vx_real *u, vx_real *gr) {
  vx_real cx = ay * dz - az * dy, cy = az * dx - ax * dz, cz = ax * dy - ay * dx; /* α × d */
  u[0] += g * cx; u[1] += g * cy; u[2] += g * cz;
  if (gr) {
    gr[0] += h * dx * cx;          gr[1] += h * dy * cx - g * az; gr[2] += h * dz * cx + g * ay;
    gr[3] += h * dx * cy + g * az; gr[4] += h * dy * cy;          gr[5] += h * dz * cy - g * ax;
    gr[6] += h * dx * cz - g * ay; gr[7] += h * dy * cz + g * ax; gr[8] += h * dz * cz;
  }
}

/* Accumulate the (un-prefixed) velocity u[3] and, when gr != NULL, gradient gr[9] at x induced by
 * a particle of strength α at y; d = x - y. Coincident points contribute nothing. */
VX_HD static inline void VXF(pair_bs)(int kernel, vx_real sigma, vx_real dx, vx_real dy, vx_real dz, vx_real ax,
                                       vx_real ay, vx_real az, vx_real *u, vx_real *gr) {
  vx_real r2 = dx * dx + dy * dy + dz * dz;
  if (r2 <= VX_R(0.0)) return;
  vx_real g, h;
  VXF(kernel_gh)(kernel, r2, sigma, &g, &h);
  VXF(pair_accum)(g, h, dx, dy, dz, ax, ay, az, u, gr);
}

/* pair_bs split for the many pairs of one target (the GPU's fast P2P kernel, fmm/gpu_p2p_t.cuh): the
 * same g, h (kernel_gh) and terms, but the gradient's -g ε α part, which does not depend on d, is
 * summed over the pairs as w += g α and applied once by pair_split_grad, so a pair costs 3 FMAs
 * there instead of 3 products and 6 additions. Over many pairs the result equals pair_bs's sum up to
 * rounding (tests/test_pair.c). u[3]; H[0..7] += h d ⊗ (α × d) (h / (-3) for the singular kernel:
 * pair_split_scale) and w[3] += g α when H != NULL.
 * H[8] is not summed: each pair's d ⊗ (α × d) has trace d·(α × d) = 0, so pair_split_trace sets it
 * to -(H[0] + H[4]) once at the end (one FMA a pair fewer; the near field's gradient then has zero
 * trace to the rounding of two additions). Coincident points contribute nothing, as in pair_bs, but
 * by zeroing g and h (selects; for the singular kernel one select on 1/r) rather than by a branch,
 * so that the pairs of several targets interleave in one straight-line block. */
VX_HD static inline void VXF(pair_bs_split)(int kernel, vx_real sigma, vx_real dx, vx_real dy, vx_real dz, vx_real ax,
                                             vx_real ay, vx_real az, vx_real *u, vx_real *H, vx_real *w) {
  vx_real r2 = dx * dx + dy * dy + dz * dz, g, h;
  const int apart = r2 > VX_R(0.0);
  if (kernel == 0) { /* 1/r always (inf at r2 = 0), then selected: a select, not a branch around the rsqrt */
    const vx_real r1 = VX_RSQRT(r2), ir = apart ? r1 : VX_R(0.0), ir2 = ir * ir;
    g = ir2 * ir;
    h = g * ir2; /* h / (-3), as singular_gh_ir's h without its factor: pair_split_scale applies it to the sums */
  } else {
    VXF(kernel_gh)(kernel, r2, sigma, &g, &h); /* at r2 = 0 possibly inf: discarded below */
    g = apart ? g : VX_R(0.0);
    h = apart ? h : VX_R(0.0);
  }
  vx_real cx = ay * dz - az * dy, cy = az * dx - ax * dz, cz = ax * dy - ay * dx; /* α × d */
  u[0] += g * cx; u[1] += g * cy; u[2] += g * cz;
  if (H) {
    vx_real hx = h * dx, hy = h * dy, hz = h * dz;
    H[0] += hx * cx; H[1] += hy * cx; H[2] += hz * cx;
    H[3] += hx * cy; H[4] += hy * cy; H[5] += hz * cy;
    H[6] += hx * cz; H[7] += hy * cz;
    w[0] += g * ax; w[1] += g * ay; w[2] += g * az;
  }
}

/* pair_bs_split's sums H[0..7] times the factor its pairs left out: -3 for the singular kernel,
 * whose h = -3 r⁻⁵ the pairs sum as r⁻⁵ (one multiply a pair fewer in the fast P2P's singular
 * loops, issue-bound on the H100; docs/BENCHMARKS.md), 1 (nothing done) for the others. Before
 * pair_split_trace. */
VX_HD static inline void VXF(pair_split_scale)(int kernel, vx_real *H) {
  if (kernel == 0)
    for (int i = 0; i < 8; ++i) H[i] *= VX_R(-3.0);
}

/* pair_bs_split's H[8] from its traceless sums. */
VX_HD static inline void VXF(pair_split_trace)(vx_real *H) { H[8] = -(H[0] + H[4]); }

/* The gradient of pair_bs_split's sums: gr_ij = H_ij - ε_ijl w_l (pair_accum's -g ε α, summed). */
VX_HD static inline void VXF(pair_split_grad)(const vx_real *H, const vx_real *w, vx_real *gr) {
  gr[0] = H[0];        gr[1] = H[1] - w[2]; gr[2] = H[2] + w[1];
  gr[3] = H[3] + w[2]; gr[4] = H[4];        gr[5] = H[5] - w[0];
  gr[6] = H[6] - w[1]; gr[7] = H[7] + w[0]; gr[8] = H[8];
}

/* The regularized minus the singular pair kernel, for a pair closer than the cut-off (r² < rc2;
 * nothing beyond it): added to a pair the far field summed as singular, it restores the
 * regularized kernel (docs/MATH.md §10). The singular g, h are formed exactly as kernel_gh's
 * singular branch, so the difference vanishes where the kernel equals the singular one. */
VX_HD static inline void VXF(pair_bs_regdiff)(int kernel, vx_real sigma, vx_real rc2, vx_real dx, vx_real dy, vx_real dz,
                                              vx_real ax, vx_real ay, vx_real az, vx_real *u, vx_real *gr) {
  vx_real r2 = dx * dx + dy * dy + dz * dz;
  if (r2 >= rc2 || r2 <= VX_R(0.0)) return;
  vx_real g, h;
  vx_real gs, hs;
  VXF(kernel_gh)(kernel, r2, sigma, &g, &h);
  VXF(singular_gh)(r2, &gs, &hs);
  g -= gs;
  h -= hs;
  VXF(pair_accum)(g, h, dx, dy, dz, ax, ay, az, u, gr);
}
