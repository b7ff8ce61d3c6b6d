/* cpu_pairs_t.h — the CPU engine's near field, templated on precision: included by cpu_engine_t.h
 * (itself included by cpu_engine.c once per precision, with that file's -fno-math-errno
 * -fno-trapping-math, which let these loops vectorize). One target's pairs with a gathered run of
 * sources in a simd loop (pair_t.h's kernel_gh_sel and pair_bs_split's terms), compiled for each
 * instruction set (fmm_cpu_simd); a leaf's P2P over its neighbour list; a leaf's regularization
 * corrections within the cut-off (docs/MATH.md §10). */

/* The sums of pair_bs_split's terms (u[3], H[9], w[3]) in named scalars, so that a simd loop
 * reduces them in registers. */
#define VX_ACC15 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14

/* g, h of one pair for cpu_pairs_k: the branch-free kernel where it vectorizes (kernel_gh_sel),
 * kernel_gh's branches for the Gaussian in double without a vector erf (gauss_vectorizes);
 * corrections (C): minus the singular kernel, the caller having kept only pairs within the cut-off. */
static inline __attribute__((always_inline)) void VXF(cpu_pair_gh)(const int K, const int C, vx_real r2, vx_real sigma,
                                                                   vx_real *g, vx_real *h) {
  if (K != 4 || VXF(gauss_vectorizes)()) VXF(kernel_gh_sel)(K, r2, sigma, g, h);
  else if (r2 > VX_R(0.0)) VXF(kernel_gh)(K, r2, sigma, g, h);
  else *g = *h = VX_R(0.0);
  if (C) {
    vx_real gs, hs;
    VXF(singular_gh)(r2, &gs, &hs);
    *g -= gs;
    *h -= hs;
  }
}

/* One pair's terms added to the sums (the gradient's only when G). */
#define VX_ADD_TERMS(t)                                                                                                 \
  do {                                                                                                                  \
    a0 += t.ux; a1 += t.uy; a2 += t.uz;                                                                                \
    if (G) {                                                                                                            \
      a3 += t.h00; a4 += t.h01; a5 += t.h02; a6 += t.h10; a7 += t.h11; a8 += t.h12;                                   \
      a9 += t.h20; a10 += t.h21; a11 += t.h22; a12 += t.wx; a13 += t.wy; a14 += t.wz;                                 \
    }                                                                                                                   \
  } while (0)

/* The pairs of one target (x, y, z) with the n sources of nb (contiguous: cpu_gather_leaves), the
 * kernel K, the gradient G and the corrections C fixed by the caller so that they fold (always
 * inlined into cpu_target_pairs): C = 0, the regularized kernel; C = 1, the regularized minus the
 * singular kernel within rc2 and nothing beyond (pair_bs_regdiff). Sets acc[15] to the sums. Every
 * loop over sources is a simd loop. The corrections first pick the sources within the cut-off
 * (about an eighth of the candidates in the scenes), a chunk at a time, then sum those. */
static inline __attribute__((always_inline)) void VXF(cpu_pairs_k)(const int K, const int G, const int C, vx_real x,
                                                                   vx_real y, vx_real z, const VXF(cpu_soa) *nb, int n,
                                                                   vx_real sigma, vx_real rc2, vx_real *acc) {
  enum { CHUNK = 512 };
  const vx_real *sx = nb->x, *sy = nb->y, *sz = nb->z, *sax = nb->ax, *say = nb->ay, *saz = nb->az;
  vx_real VX_ACC15;
  a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = a8 = a9 = a10 = a11 = a12 = a13 = a14 = VX_R(0.0);
  if (!C) {
#pragma omp simd reduction(+ : VX_ACC15)
    for (int j = 0; j < n; ++j) {
      vx_real dx = x - sx[j], dy = y - sy[j], dz = z - sz[j], g, h;
      VXF(cpu_pair_gh)(K, 0, dx * dx + dy * dy + dz * dz, sigma, &g, &h);
      VXF(pair_terms) t = VXF(pair_terms_of)(g, h, dx, dy, dz, sax[j], say[j], saz[j]);
      VX_ADD_TERMS(t);
    }
  }
  for (int c0 = 0; C && c0 < n; c0 += CHUNK) {
    const int c1 = c0 + CHUNK < n ? c0 + CHUNK : n;
    vx_real r2s[CHUNK];
    int in[CHUNK], m = 0;
#pragma omp simd
    for (int j = c0; j < c1; ++j) {
      vx_real dx = x - sx[j], dy = y - sy[j], dz = z - sz[j];
      r2s[j - c0] = dx * dx + dy * dy + dz * dz;
    }
    for (int j = c0; j < c1; ++j) { /* branch-free compaction */
      in[m] = j;
      m += (r2s[j - c0] < rc2) & (r2s[j - c0] > VX_R(0.0));
    }
#pragma omp simd reduction(+ : VX_ACC15)
    for (int i = 0; i < m; ++i) {
      const int j = in[i];
      vx_real dx = x - sx[j], dy = y - sy[j], dz = z - sz[j], g, h;
      VXF(cpu_pair_gh)(K, 1, dx * dx + dy * dy + dz * dz, sigma, &g, &h);
      VXF(pair_terms) t = VXF(pair_terms_of)(g, h, dx, dy, dz, sax[j], say[j], saz[j]);
      VX_ADD_TERMS(t);
    }
  }
  const vx_real out[15] = {VX_ACC15};
  for (int i = 0; i < 15; ++i) acc[i] = out[i];
}
#undef VX_ADD_TERMS
#undef VX_ACC15

/* cpu_pairs_k with the kernel, gradient and corrections chosen at run time: one specialised loop
 * per combination, inlined into each instruction set's copy below. */
static inline __attribute__((always_inline)) void VXF(cpu_pairs_any)(int kernel, int grad, int corr, vx_real x, vx_real y,
                                                                     vx_real z, const VXF(cpu_soa) *nb, int n,
                                                                     vx_real sigma, vx_real rc2, vx_real *acc) {
#define VX_PAIRS_K(K)                                                                                                   \
  do {                                                                                                                  \
    if (corr) {                                                                                                         \
      if (grad) VXF(cpu_pairs_k)(K, 1, 1, x, y, z, nb, n, sigma, rc2, acc);                                            \
      else VXF(cpu_pairs_k)(K, 0, 1, x, y, z, nb, n, sigma, rc2, acc);                                                 \
    } else {                                                                                                            \
      if (grad) VXF(cpu_pairs_k)(K, 1, 0, x, y, z, nb, n, sigma, rc2, acc);                                            \
      else VXF(cpu_pairs_k)(K, 0, 0, x, y, z, nb, n, sigma, rc2, acc);                                                 \
    }                                                                                                                   \
  } while (0)
  switch (kernel) {
  case 1: VX_PAIRS_K(1); break;
  case 2: VX_PAIRS_K(2); break;
  case 3: VX_PAIRS_K(3); break;
  case 4: VX_PAIRS_K(4); break;
  default: VX_PAIRS_K(0); break;
  }
#undef VX_PAIRS_K
}

/* The pair loops compiled for each instruction set (fmm_cpu_simd, cpu_engine.c): the x86-64
 * baseline, and where the compiler can target them, AVX2 and AVX-512. */
#define VX_PAIRS_ARGS                                                                                                   \
  int kernel, int grad, int corr, vx_real x, vx_real y, vx_real z, const VXF(cpu_soa) *nb, int n, vx_real sigma,       \
      vx_real rc2, vx_real *acc
static void VXF(cpu_pairs_base)(VX_PAIRS_ARGS) { VXF(cpu_pairs_any)(kernel, grad, corr, x, y, z, nb, n, sigma, rc2, acc); }
#ifdef VX_SIMD_TARGETS
VX_TARGET_AVX2 static void VXF(cpu_pairs_avx2)(VX_PAIRS_ARGS) {
  VXF(cpu_pairs_any)(kernel, grad, corr, x, y, z, nb, n, sigma, rc2, acc);
}
VX_TARGET_AVX512 static void VXF(cpu_pairs_avx512)(VX_PAIRS_ARGS) {
  VXF(cpu_pairs_any)(kernel, grad, corr, x, y, z, nb, n, sigma, rc2, acc);
}
#endif

/* One target's pairs with the n sources of nb (cpu_pairs_k), in the instruction set simd. */
static void VXF(cpu_target_pairs)(fmm_simd simd, VX_PAIRS_ARGS) {
#ifdef VX_SIMD_TARGETS
  if (simd == FMM_SIMD_AVX512) { VXF(cpu_pairs_avx512)(kernel, grad, corr, x, y, z, nb, n, sigma, rc2, acc); return; }
  if (simd == FMM_SIMD_AVX2) { VXF(cpu_pairs_avx2)(kernel, grad, corr, x, y, z, nb, n, sigma, rc2, acc); return; }
#endif
  (void)simd;
  VXF(cpu_pairs_base)(kernel, grad, corr, x, y, z, nb, n, sigma, rc2, acc);
}
#undef VX_PAIRS_ARGS

/* A target's sums acc[15] (cpu_target_pairs) times 1/(4π), added to its velocity and, when gk,
 * its gradient (pair_split_grad: gr = H - ε w). */
static inline void VXF(cpu_add_pairs)(const vx_real *acc, int gk, vx_real *vel, vx_real *grad) {
  for (int i = 0; i < 3; ++i) vel[i] += acc[i] * (vx_real)VX_INV4PI;
  if (!gk) return;
  vx_real gr[9];
  VXF(pair_split_grad)(acc + 3, acc + 12, gr);
  for (int i = 0; i < 9; ++i) grad[i] += gr[i] * (vx_real)VX_INV4PI;
}

/* The sources of the leaves leaves[0..nl) copied one after another into the thread's buffer buf
 * as SoA (nb), so that every target of a leaf sums them in one long simd loop; with reach2 > 0,
 * only those closer than √reach2 to the box [lo, hi] (the target leaf: no target of it can reach
 * the others). Returns their count, or -1 when the buffer cannot grow. */
static int VXF(cpu_gather_leaves)(const VXF(cpu_soa) *src, const int *start, const int *leaves, int nl,
                                  const double *lo, const double *hi, double reach2, vx_buf *buf, VXF(cpu_soa) *nb) {
  size_t cap = 0;
  for (int q = 0; q < nl; ++q) cap += (size_t)(start[leaves[q] + 1] - start[leaves[q]]);
  if (vx_buf_reserve(buf, 6 * sizeof(vx_real) * (cap + 1))) return -1;
  vx_real *b = (vx_real *)buf->ptr;
  *nb = (VXF(cpu_soa)){b, b + cap, b + 2 * cap, b + 3 * cap, b + 4 * cap, b + 5 * cap};
  int n = 0;
  for (int q = 0; q < nl; ++q)
    for (int j = start[leaves[q]]; j < start[leaves[q] + 1]; ++j) {
      if (reach2 > 0) {
        double d2 = 0, p[3] = {src->x[j], src->y[j], src->z[j]};
        for (int a = 0; a < 3; ++a) {
          double o = p[a] < lo[a] ? lo[a] - p[a] : (p[a] > hi[a] ? p[a] - hi[a] : 0.0);
          d2 += o * o;
        }
        if (d2 >= reach2) continue;
      }
      nb->x[n] = src->x[j]; nb->y[n] = src->y[j]; nb->z[n] = src->z[j];
      nb->ax[n] = src->ax[j]; nb->ay[n] = src->ay[j]; nb->az[n] = src->az[j];
      n++;
    }
  return n;
}

/* Near field of leaf b: every source in the adjacent leaves, regularized kernel, added to the
 * far field already in vel/grad (un-prefixed), then the sum multiplied by 1/(4π). buf: the
 * thread's gather buffer. Returns the pairs summed, or -1 when the buffer cannot grow. */
static long long VXF(cpu_p2p_leaf)(const VXF(cpu_leafjob) *J, int b, vx_buf *buf) {
  const oct_tree *t = J->t;
  const VXF(cpu_soa) *tgt = J->tgt;
  VXF(cpu_soa) nb;
  const int n = VXF(cpu_gather_leaves)(J->src, t->src_start, t->nbr + t->nbr_start[b], t->nbr_start[b + 1] - t->nbr_start[b],
                                       NULL, NULL, 0.0, buf, &nb);
  if (n < 0) return -1;
  for (int k = t->tgt_start[b]; k < t->tgt_start[b + 1]; ++k) {
    int gk = J->want_grad && t->tgt_order[k] < J->n_grad;
    vx_real acc[15], *v = J->vel + vx_off3(k, 0), *gr = gk ? J->grad + vx_off9(k, 0) : NULL;
    VXF(cpu_target_pairs)(J->simd, J->kernel, gk, 0, tgt->x[k], tgt->y[k], tgt->z[k], &nb, n, J->sigma, VX_R(0.0), acc);
    for (int i = 0; i < 3; ++i) v[i] *= (vx_real)VX_INV4PI;
    if (gk) for (int i = 0; i < 9; ++i) gr[i] *= (vx_real)VX_INV4PI;
    VXF(cpu_add_pairs)(acc, gk, v, gr);
  }
  return (long long)(t->tgt_start[b + 1] - t->tgt_start[b]) * n;
}

/* Whether any target of leaf b needs the gradient: its first, the octree ordering each leaf by index
 * (those below n_grad first). */
static int VXF(cpu_leaf_wants_grad)(const VXF(cpu_leafjob) *J, int b) {
  return J->want_grad && J->t->tgt_order[J->t->tgt_start[b]] < J->n_grad;
}

/* Regularization corrections of leaf b (docs/MATH.md §10): for every source of the leaves in
 * list[0..nl) (cpu_corr_leaves) closer than the cut-off, the regularized minus the singular kernel
 * (pair_bs_regdiff's terms), times 1/(4π), added to vel/grad; rc2g for targets that need the
 * gradient, rc2v for velocity-only ones; g: whether any target of b needs the gradient (else the
 * sources within rc2v of the leaf's box suffice); the box grown by slack, how far a kept tree's
 * targets may have left it (fmm_corr). Returns the candidate pairs examined (those within the
 * cut-off of the grown box), or -1 when the buffer cannot grow. */
static long long VXF(cpu_corr_leaf)(const VXF(cpu_leafjob) *J, int b, const int *list, int nl, vx_real rc2g, vx_real rc2v,
                                    double slack, int g, vx_buf *buf) {
  const oct_tree *t = J->t;
  const VXF(cpu_soa) *tgt = J->tgt;
  const int L = t->L;
  double c[3], lo[3], hi[3], half = 0.5 * oct_box_side(t, L) + slack; /* where the leaf's targets may be */
  oct_box_centre(t, L, t->tgt_key[L][b], c);
  for (int a = 0; a < 3; ++a) { lo[a] = c[a] - half; hi[a] = c[a] + half; }
  VXF(cpu_soa) nb;
  const double reach2 = g ? rc2g : rc2v; /* rc2v <= rc2g: the velocity-only tolerance is never the tighter */
  const int n = VXF(cpu_gather_leaves)(J->src, t->src_start, list, nl, lo, hi, reach2, buf, &nb);
  if (n < 0) return -1;
  for (int k = t->tgt_start[b]; k < t->tgt_start[b + 1]; ++k) {
    int gk = J->want_grad && t->tgt_order[k] < J->n_grad;
    vx_real acc[15];
    VXF(cpu_target_pairs)(J->simd, J->kernel, gk, 1, tgt->x[k], tgt->y[k], tgt->z[k], &nb, n, J->sigma, gk ? rc2g : rc2v, acc);
    VXF(cpu_add_pairs)(acc, gk, J->vel + vx_off3(k, 0), gk ? J->grad + vx_off9(k, 0) : NULL);
  }
  return (long long)(t->tgt_start[b + 1] - t->tgt_start[b]) * n;
}
