/* gpu_far_t.cuh — the far field's translation kernels, templated on precision (fmm_gpu.cu
 * includes it once per precision, like every gpu_*_t.cuh): P2M, M2M, L2L and the M2L of the
 * interaction lists. The kernels are thin: each per-element step calls the shared inline math of
 * sph_t.h and translate_t.h. Parallel layout (docs/MATH.md §8):
 *  - M2M, M2L, L2L: one warp per translation; lanes own output coefficients and the five RCR stages
 *    (rot_z, rot_y, coaxial, rot_yᵀ, rot_zᵀ) are separated by __syncwarp. M2L runs a block per
 *    target box whose warps split its interaction list, M2M a block per parent whose warps split
 *    its children, L2L a warp per child. For p = 2 to 12 the M2L is k_m2l_spec: lanes own
 *    coefficient pairs (n, ±a), four stages, the loops unrolled to the order. (At the large, full
 *    levels in float a dense product on the tensor cores replaces it: m2l_tc_gpu.cuh.)
 *  - P2M: lanes own columns m of the solid harmonics (degree raised by eq. 15), so no thread holds
 *    a whole expansion; for p = 2 to 12 k_p2m_spec: lanes own |m| for one of 32/(p+1) particles
 *    at once, accumulating in registers, a warp (or a few, for dense leaves) a leaf. */

/* Stage helpers: lane `lane` handles coefficients idx = lane, lane+32, ... */
VX_HD static inline void VXF(idx_nm)(int idx, int *n, int *m) {
  int nn = (int)sqrtf((float)idx);
  while (nn * nn > idx) --nn;
  while ((nn + 1) * (nn + 1) <= idx) ++nn;
  *n = nn;
  *m = idx - nn * nn - nn;
}

/* Advance a lane's coefficient (n, m) by 32 indices: idx = n² + n + m. */
#define VX_NEXT_NM(n, m)          \
  do {                            \
    (m) += 32;                    \
    while ((m) > (n)) {           \
      (m) -= 2 * (n) + 2;         \
      ++(n);                      \
    }                             \
  } while (0)

/* One RCR translation by a warp: acc += Rᵀ coax(R in). cs[2|m|], cs[2|m|+1] = cos, sin(|m|φ).
 * Lane `lane` owns coefficients lane, lane+32, ...; (n0, m0) is the first of them. An M2L (kind 2)
 * reads the multipole's degrees ≤ ns only (rcr_translate); the other kinds pass ns = p. */
__device__ static __forceinline__ void VXF(warp_rcr)(const vx_real *in, vx_real *acc, vx_real *w1, vx_real *w2, int p,
                                                     int ns, const vx_real *cs, const vx_real *roty, const vx_real *coax,
                                                     const vx_real *ipow, int kind, int lane, int n0, int m0) {
  const int nc = VX_NCOEF(p), nf = VX_NCOEF(ns);
  int n, m;
  n = n0; m = m0;
  for (int i = lane; i < nf; i += 32) {
    int a = m < 0 ? -m : m;
    VXF(rot_z_coef)(in, n, m, cs[2 * a], cs[2 * a + 1], 1, w1 + 3 * i);
    VX_NEXT_NM(n, m);
  }
  __syncwarp();
  n = n0; m = m0;
  for (int i = lane; i < nf; i += 32) {
    VXF(rot_y_coef)(w1, n, m, roty, 1, w2 + 3 * i);
    VX_NEXT_NM(n, m);
  }
  __syncwarp();
  n = n0; m = m0;
  for (int i = lane; i < nc; i += 32) {
    if (kind == 0) VXF(coax_m2m_coef)(w2, p, coax, n, m, w1 + 3 * i);
    else if (kind == 1) VXF(coax_l2l_coef)(w2, p, coax, n, m, w1 + 3 * i);
    else VXF(coax_m2l_coef)(w2, p, ns, coax, ipow, n, m, w1 + 3 * i);
    VX_NEXT_NM(n, m);
  }
  __syncwarp();
  n = n0; m = m0;
  for (int i = lane; i < nc; i += 32) {
    VXF(rot_y_coef)(w1, n, m, roty, 0, w2 + 3 * i);
    VX_NEXT_NM(n, m);
  }
  __syncwarp();
  n = n0; m = m0;
  for (int i = lane; i < nc; i += 32) {
    int a = m < 0 ? -m : m;
    vx_real o[3];
    VXF(rot_z_coef)(w2, n, m, cs[2 * a], cs[2 * a + 1], 0, o);
    acc[3 * i] += o[0]; acc[3 * i + 1] += o[1]; acc[3 * i + 2] += o[2];
    VX_NEXT_NM(n, m);
  }
  __syncwarp();
}

typedef struct {
  int p;
  const vx_real *roty, *m2m, *l2l, *m2l;
  const int *geo_theta;
  const int *m2l_deg;               /* fmm_tables.m2l_deg: the multipole degrees an M2L along g reads */
  const vx_real *geo_len, *geo_cs; /* geo_cs[g*(p+1)*2 + 2a + {0,1}] */
  const vx_real *geo_ipow;          /* geo_ipow[g*(2p+2) + k] = |v_g|^{-k} */
  int roty_stride;
} VXF(dtab);

__device__ static inline int VXF(octant_geo)(uint32_t key) {
  return vx_geo_index((key & 1) ? 1 : -1, (key & 2) ? 1 : -1, (key & 4) ? 1 : -1);
}

/* P2M: block per source leaf; warp w takes particles w, w+W, ...; lane owns columns m. */
__global__ void VXF(k_p2m)(int p, const uint32_t *key, const int *start, const vx_real *x, const vx_real *y,
                           const vx_real *z, const vx_real *ax, const vx_real *ay, const vx_real *az, double lo0,
                           double lo1, double lo2, double h, vx_real *M) {
  extern __shared__ unsigned char vx_smem[];
  vx_real *acc = (vx_real *)vx_smem;
  int nc = VX_NCOEF(p), W = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32, b = blockIdx.x;
  vx_real *aw = acc + (size_t)w * 3 * nc;
  for (int i = lane; i < 3 * nc; i += 32) aw[i] = VX_R(0.0);
  int kx, ky, kz;
  oct_demorton3(key[b], &kx, &ky, &kz);
  vx_real cx = (vx_real)(lo0 + (kx + 0.5) * h), cy = (vx_real)(lo1 + (ky + 0.5) * h), cz = (vx_real)(lo2 + (kz + 0.5) * h);
  vx_real ih = (vx_real)(1.0 / h);
  __syncwarp();
  for (int k = start[b] + w; k < start[b + 1]; k += W) {
    vx_real px = (x[k] - cx) * ih, py = (y[k] - cy) * ih, pz = (z[k] - cz) * ih, r2 = px * px + py * py + pz * pz;
    vx_real qx = ax[k], qy = ay[k], qz = az[k];
    for (int col = lane; col < 2 * p + 1; col += 32) {
      int m = col - p, am = m < 0 ? -m : m;
      vx_real a1 = VXF(sph_column_start)(m, px, py), a2 = VX_R(0.0);
      for (int n = am; n <= p; ++n) {
        if (n > am) { vx_real v = VXF(sph_raise)(n, am, pz, r2, a1, a2); a2 = a1; a1 = v; }
        vx_real *o = aw + 3 * VX_IDX(n, m);
        o[0] += qx * a1; o[1] += qy * a1; o[2] += qz * a1;
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 3 * nc; i += blockDim.x) {
    vx_real s = VX_R(0.0);
    for (int q = 0; q < W; ++q) s += acc[(size_t)q * 3 * nc + i];
    M[vx_off_exp(b, nc) + i] = s;
  }
}

/* P2M for order P, the same sums as k_p2m with the order known at compile time: lane
 * am + (P+1)·g of a warp owns |m| = am for its particle group g (G = 32/(P+1) particles at once),
 * raising the columns +am and −am together (one recursion: they share |m|) with the factors of
 * sph_raise_factors and sph_sectoral_factor computed once a warp, into register accumulators; the
 * groups then add their columns into the warp's expansion in shared memory in turn. A leaf takes
 * wl of the block's W warps (a power of two dividing W; the block W / wl leaves): where leaves
 * hold a few dozen particles a warp each (p2m_warps_per_leaf), so that a warp's set-up and
 * reduction serve all of them rather than one group's worth; the leaf's warps' sums are then
 * added in warp order. */
template <int P>
__global__ void __launch_bounds__(32 * FMM_SMEM_WARPS_P2M)
    VXF(k_p2m_spec)(int nleaf, int wl, const uint32_t *key, const int *start, const vx_real *x, const vx_real *y,
                    const vx_real *z, const vx_real *ax, const vx_real *ay, const vx_real *az, double lo0, double lo1,
                    double lo2, double h, vx_real *M) {
  constexpr int NC = (P + 1) * (P + 1), G = 32 / (P + 1);
  extern __shared__ unsigned char vx_smem[];
  vx_real *acc = (vx_real *)vx_smem;
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wg = w % wl, b = blockIdx.x * (blockDim.x / 32 / wl) + w / wl;
  const int grp = lane / (P + 1), am = lane % (P + 1);
  vx_real *aw = acc + (size_t)w * 3 * NC;
  for (int i = lane; i < 3 * NC; i += 32) aw[i] = VX_R(0.0);
  vx_real fs[P + 1], A[P + 1], B[P + 1], cs[P + 1][6];
#pragma unroll
  for (int n = 1; n <= P; ++n) {
    fs[n] = VXF(sph_sectoral_factor)(n);
    A[n] = B[n] = VX_R(0.0);
    if (n > am) VXF(sph_raise_factors)(n, am, &A[n], &B[n]);
  }
#pragma unroll
  for (int n = 0; n <= P; ++n)
#pragma unroll
    for (int c = 0; c < 6; ++c) cs[n][c] = VX_R(0.0);
  int kx = 0, ky = 0, kz = 0, k0 = 0, k1 = 0;
  if (b < nleaf) oct_demorton3(key[b], &kx, &ky, &kz), k0 = start[b], k1 = start[b + 1];
  const vx_real cx = (vx_real)(lo0 + (kx + 0.5) * h), cy = (vx_real)(lo1 + (ky + 0.5) * h);
  const vx_real cz = (vx_real)(lo2 + (kz + 0.5) * h), ih = (vx_real)(1.0 / h);
  for (int k = k0 + wg * G + grp; grp < G && k < k1; k += wl * G) {
    const vx_real px = (x[k] - cx) * ih, py = (y[k] - cy) * ih, pz = (z[k] - cz) * ih, r2 = px * px + py * py + pz * pz;
    const vx_real q[3] = {ax[k], ay[k], az[k]};
    vx_real c1 = VX_R(1.0), s1 = VX_R(0.0), c2 = VX_R(0.0), s2 = VX_R(0.0);
#pragma unroll
    for (int n = 1; n <= P; ++n)
      if (n <= am) {
        const vx_real cn = fs[n] * (px * c1 - py * s1);
        s1 = fs[n] * (py * c1 + px * s1);
        c1 = cn;
      }
#pragma unroll
    for (int n = 0; n <= P; ++n) {
      if (n > am) {
        const vx_real cn = A[n] * pz * c1 - B[n] * r2 * c2, sn = A[n] * pz * s1 - B[n] * r2 * s2;
        c2 = c1, s2 = s1, c1 = cn, s1 = sn;
      }
      if (n >= am)
#pragma unroll
        for (int c = 0; c < 3; ++c) cs[n][c] += q[c] * c1, cs[n][3 + c] += q[c] * s1;
    }
  }
  for (int g = 0; g < G; ++g) {
    __syncwarp();
    if (grp == g)
#pragma unroll
      for (int n = 0; n <= P; ++n)
        if (n >= am)
#pragma unroll
          for (int c = 0; c < 3; ++c) {
            aw[3 * VX_IDX(n, am) + c] += cs[n][c];
            if (am > 0) aw[3 * VX_IDX(n, -am) + c] += cs[n][3 + c];
          }
  }
  if (wl > 1) __syncthreads(); /* a leaf's warps read each other's sums (wl is the block's own) */
  else __syncwarp();
  if (b >= nleaf) return;
  const vx_real *a0 = acc + (size_t)(w - wg) * 3 * NC;
  for (int i = 32 * wg + lane; i < 3 * NC; i += 32 * wl) {
    vx_real s = VX_R(0.0);
    for (int q = 0; q < wl; ++q) s += a0[(size_t)q * 3 * NC + i];
    M[vx_off_exp(b, NC) + i] = s;
  }
}

/* M2M: a block per parent box at level l (children at l+1); its warps split the (up to 8)
 * children, each summing its translations in shared memory, then the warps' sums are added. A
 * coarse level has few parents, so a warp per parent would leave the GPU idle. */
__global__ void VXF(k_m2m)(VXF(dtab) T, const int *child, const uint32_t *ckey, const vx_real *Mc, vx_real *Mp) {
  extern __shared__ unsigned char vx_smem[];
  const int p = T.p, nc = VX_NCOEF(p), W = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32, b = blockIdx.x;
  const size_t per = (size_t)9 * nc;
  vx_real *acc = (vx_real *)vx_smem + (size_t)w * per, *w1 = acc + 3 * nc, *w2 = w1 + 3 * nc;
  for (int i = lane; i < 3 * nc; i += 32) acc[i] = VX_R(0.0);
  int n0, m0;
  VXF(idx_nm)(lane, &n0, &m0);
  __syncwarp();
  for (int c = child[b] + w; c < child[b + 1]; c += W) {
    int g = VXF(octant_geo)(ckey[c]);
    VXF(warp_rcr)(Mc + vx_off_exp(c, nc), acc, w1, w2, p, p, T.geo_cs + (size_t)g * (p + 1) * 2,
                  T.roty + (size_t)T.geo_theta[g] * T.roty_stride, T.m2m, NULL, 0, lane, n0, m0);
  }
  __syncthreads();
  vx_real *out = Mp + vx_off_exp(b, nc);
  for (int i = threadIdx.x; i < 3 * nc; i += blockDim.x) {
    vx_real sum = VX_R(0.0);
    for (int q = 0; q < W; ++q) sum += ((vx_real *)vx_smem)[(size_t)q * per + i];
    out[i] = sum;
  }
}

/* L2L: a warp per target box at level l, from its parent at l-1; adds into L. */
__global__ void VXF(k_l2l)(VXF(dtab) T, int nbox, const int *parent, const uint32_t *key, const vx_real *Lp, vx_real *L) {
  extern __shared__ unsigned char vx_smem[];
  int p = T.p, nc = VX_NCOEF(p), w = threadIdx.x / 32, lane = threadIdx.x % 32;
  int b = blockIdx.x * (blockDim.x / 32) + w;
  if (b >= nbox) return;
  vx_real *w1 = (vx_real *)vx_smem + (size_t)w * 6 * nc, *w2 = w1 + 3 * nc;
  int g = VXF(octant_geo)(key[b]), n0, m0;
  VXF(idx_nm)(lane, &n0, &m0);
  VXF(warp_rcr)(Lp + vx_off_exp(parent[b], nc), L + vx_off_exp(b, nc), w1, w2, p, p, T.geo_cs + (size_t)g * (p + 1) * 2,
                T.roty + (size_t)T.geo_theta[g] * T.roty_stride, T.l2l, NULL, 1, lane, n0, m0);
}

/* The M2L kernels' epilogue: the block's W warp accumulators (3 nc reals each, per reals apart in
 * shared memory from smem) summed into the target box's local expansion out. */
__device__ static __forceinline__ void VXF(m2l_block_sum)(const vx_real *smem, int W, size_t per, int nc, vx_real *out) {
  __syncthreads();
  for (int i = threadIdx.x; i < 3 * nc; i += blockDim.x) {
    vx_real s = VX_R(0.0);
    for (int q = 0; q < W; ++q) s += smem[(size_t)q * per + i];
    out[i] += s;
  }
}

/* M2L: a block per target box at level l; warps split its interaction list, then reduce. */
__global__ void VXF(k_m2l)(VXF(dtab) T, const uint32_t *tkey, const uint32_t *skey, const int *il_start, const int *il,
                           const vx_real *M, vx_real *L) {
  extern __shared__ unsigned char vx_smem[];
  int p = T.p, nc = VX_NCOEF(p), W = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32, b = blockIdx.x;
  size_t per = (size_t)9 * nc;
  vx_real *acc = (vx_real *)vx_smem + (size_t)w * per, *w1 = acc + 3 * nc, *w2 = w1 + 3 * nc;
  for (int i = lane; i < 3 * nc; i += 32) acc[i] = VX_R(0.0);
  int tx, ty, tz, n0, m0;
  oct_demorton3(tkey[b], &tx, &ty, &tz);
  VXF(idx_nm)(lane, &n0, &m0);
  __syncwarp();
  for (int k = il_start[b] + w; k < il_start[b + 1]; k += W) {
    int s = il[k], sx, sy, sz;
    oct_demorton3(skey[s], &sx, &sy, &sz);
    int g = vx_geo_index(sx - tx, sy - ty, sz - tz);
    VXF(warp_rcr)(M + vx_off_exp(s, nc), acc, w1, w2, p, T.m2l_deg[g], T.geo_cs + (size_t)g * (p + 1) * 2,
                  T.roty + (size_t)T.geo_theta[g] * T.roty_stride, T.m2l, T.geo_ipow + (size_t)g * (2 * p + 2), 2, lane,
                  n0, m0);
  }
  VXF(m2l_block_sum)((const vx_real *)vx_smem, W, per, nc, L + vx_off_exp(b, nc));
}

/* M2L specialised for order P: as k_m2l a block per target box whose warps split its
 * interaction list, but each lane owns coefficient pairs (n, ±a), t = lane, lane + 32, ...
 * (translate_t.h's pair stages), so the rotations about z run in registers inside the load and the
 * backward stage, the accumulator stays in registers and the loops unroll to P: four stages and
 * three __syncwarp per translation instead of five of each. The warp's three scratch expansions
 * Z, Y, X (9 nc reals: gpu_smem.c's plan for k_m2l) each keep one role, so the next translation's
 * writes need no barrier after the last stage: Z was last read before the second barrier, Y before
 * the third, X is next written after two barriers. At the end Z takes the accumulator for the
 * block's sum, laid out as k_m2l's. */
template <int P>
__global__ void VXF(k_m2l_spec)(VXF(dtab) T, const uint32_t *tkey, const uint32_t *skey, const int *il_start,
                                const int *il, const vx_real *M, vx_real *L) {
  constexpr int NC = VX_NCOEF(P), NP = VX_NPAIR(P), J = (NP + 31) / 32;
  extern __shared__ unsigned char vx_smem[];
  const int W = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32, b = blockIdx.x;
  const size_t per = (size_t)9 * NC;
  vx_real *Z = (vx_real *)vx_smem + (size_t)w * per, *Y = Z + 3 * NC, *X = Y + 3 * NC;
  int n[J], a[J]; /* n = -1: no pair in this slot (the last slot of a lane past NP) */
  vx_real acc[J][6];
#pragma unroll
  for (int j = 0; j < J; ++j) {
    if (lane + 32 * j < NP) vx_pair_na(lane + 32 * j, &n[j], &a[j]);
    else n[j] = -1, a[j] = 0;
    for (int c = 0; c < 6; ++c) acc[j][c] = VX_R(0.0);
  }
  int tx, ty, tz;
  oct_demorton3(tkey[b], &tx, &ty, &tz);
  for (int k = il_start[b] + w; k < il_start[b + 1]; k += W) { /* warp-uniform trip count */
    int s = il[k], sx, sy, sz;
    oct_demorton3(skey[s], &sx, &sy, &sz);
    const int g = vx_geo_index(sx - tx, sy - ty, sz - tz), ns = T.m2l_deg[g];
    const vx_real *in = M + vx_off_exp(s, NC), *cs = T.geo_cs + (size_t)g * (P + 1) * 2;
    const vx_real *roty = T.roty + (size_t)T.geo_theta[g] * T.roty_stride, *ipow = T.geo_ipow + (size_t)g * (2 * P + 2);
#pragma unroll
    for (int j = 0; j < J; ++j)
      if (n[j] >= 0 && n[j] <= ns) VXF(m2l_pair_load)(in, n[j], a[j], cs, Z);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < J; ++j)
      if (n[j] >= 0 && n[j] <= ns) VXF(m2l_pair_roty)(Z, n[j], a[j], roty, P, Y);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < J; ++j)
      if (n[j] >= 0) VXF(m2l_pair_coax)(Y, P, ns, T.m2l, ipow, n[j], a[j], X);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < J; ++j)
      if (n[j] >= 0) VXF(m2l_pair_back)(X, n[j], a[j], roty, P, cs, acc[j]);
  }
#pragma unroll
  for (int j = 0; j < J; ++j)
    if (n[j] >= 0) VXF(put_pair)(Z, n[j], a[j], acc[j], acc[j] + 3);
  VXF(m2l_block_sum)((const vx_real *)vx_smem, W, per, NC, L + vx_off_exp(b, NC));
}
