/* fmm_gpu_t.cuh — CUDA kernels of the FMM and the direct sum, templated on precision (included
 * by fmm_gpu.cu once per precision, like cpu_engine_t.h). The kernels are thin: every per-element
 * step calls the shared inline math of sph_t.h, translate_t.h and pair_t.h.
 *
 * Parallel layout (docs/MATH.md §8):
 *  - translations (M2M, M2L, L2L): one warp per translation; lanes own output coefficients and the
 *    five RCR stages (rot_z, rot_y, coaxial, rot_yᵀ, rot_zᵀ) are separated by __syncwarp;
 *    M2L runs a block per target box whose warps split its interaction list, M2M a block per
 *    parent whose warps split its children; L2L a warp per child. For p = 6, 8, 12 M2L runs
 *    k_m2l_spec instead (issue 15; VX_M2L=generic keeps k_m2l): lanes own coefficient pairs
 *    (n, ±a), four stages, the loops unrolled to the order.
 *    At the large, full levels in float at p = 8 a dense product instead: k_m2l_tc on the tensor
 *    cores (m2l_tc_gpu.cuh) or k_m2l_dense (m2l_dense_pays).
 *  - P2M: lanes own columns m of the solid harmonics (degree raised by eq. 15), so no thread
 *    holds a whole expansion; for p = 6, 8, 12 k_p2m_spec (issue 15; VX_P2M=base keeps k_p2m):
 *    lanes own |m| for one of 32/(p+1) particles at once, accumulating in registers, a warp (or
 *    a few, for dense leaves) a leaf.
 *  - L2P: a block per leaf forms its derivative expansions; then a thread per target, which adds
 *    the near field and writes the sum in the caller's order.
 *  - P2P, direct: one thread per target, sources staged through shared memory in tiles (k_p2p), or
 *    k_p2p_fast<K, T> (issue 15; the default with T = 1, VX_P2P chooses: fmm_gpu.cu
 *    p2p_targets_per_thread): T = 1, 2 or 4 targets a thread on the same chunks,
 *    pair_bs_split's form of the pair sum, packed sources (see its banner).
 *  - regularization corrections (k_corr): as P2P, over the source leaves the block finds within r_cut.
 *  - L2P and P2P run a block per target chunk (k_chunk_count): CH targets of one leaf. */

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

/* Box-ordered SoA from interleaved input. */
__global__ void VXF(k_gather)(const vx_real *pos, const vx_real *str, const int *order, int n, vx_real *x, vx_real *y,
                              vx_real *z, vx_real *ax, vx_real *ay, vx_real *az) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int i = order[k];
  x[k] = pos[vx_off3(i, 0)]; y[k] = pos[vx_off3(i, 1)]; z[k] = pos[vx_off3(i, 2)];
  if (str) { ax[k] = str[vx_off3(i, 0)]; ay[k] = str[vx_off3(i, 1)]; az[k] = str[vx_off3(i, 2)]; }
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

/* P2M for order P (issue 15), the same sums as k_p2m with the order known at compile time: lane
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

/* M2L specialised for order P (issue 15): as k_m2l a block per target box whose warps split its
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

/* ---- Dense M2L (issue 15): each translation as a product with its offset's operator D_g
 * (fmm_m2l_dense, tables.h; built from rcr_translate, the math's one home), the translations of a
 * level grouped by offset so that one staged operator serves a tile of targets.
 * A block takes one octant q and a tile of TJ parents at level l-1; its targets are those parents'
 * children of octant q, which share the 189 offsets v of that octant (children of the parent's
 * neighbours not adjacent to the target: per axis d ∈ [-2-c, 3-c] for the octant bit c, |v|∞ ≥ 2,
 * as k_il lists them); the sources are found in src_map. The block runs through the stages
 * (offset, chunk of KC k-rows, over the k-rows below the offset's cut only: (n_s+1)², n_s the tables'
 * m2l_deg, docs/MATH.md §13, D_g's other columns being zero): a stage stages D_g's rows — as
 * [k][row], each warp's P+1 rows padded to RP for 16-byte loads (dense_build) — and the TJ sources'
 * multipoles, [j][3k + c] (zero where a target has no source), into shared memory with cp.async,
 * double-buffered so that the next stage's copies run during this stage's product. Warp w owns rows w(P+1) .. w(P+1)+P of
 * every target's local expansion, lane its columns (FMM c, target j) = (32cc + lane) / TJ, % TJ:
 * D's entries are warp-broadcast, the sources' row stride 3KC is odd (no bank conflicts), and the
 * accumulators stay in registers across all offsets. Each target's sum runs over the offsets in a
 * fixed order: repeatable, whatever else is in its tile. */
template <int P> struct VXF(dense_cfg) {
  static constexpr int NC = (P + 1) * (P + 1);
  static constexpr int RW = P + 1;                                  /* rows a warp; warps a block */
  static constexpr int VEC = 16 / (int)sizeof(vx_real);             /* reals of a 16-byte copy */
  static constexpr int RP = (RW + VEC - 1) / VEC * VEC;             /* a warp's rows, padded */
  static constexpr int TR = RW * RP;                                /* reals of one k-row of D */
  static constexpr int TJ = sizeof(vx_real) == 4 ? 64 : 32;         /* targets (parents) a tile; 128 was slower */
  static constexpr int CPL = 3 * TJ / 32;                           /* columns a lane */
  /* k-rows of the two stages in flight within 100 KB: at p = 8 in float 41 rows, 2 blocks an SM;
   * 68 KB (29 rows) and 200 KB (81, one block) took 5 % and 21 % longer (docs/BENCHMARKS.md) */
  static constexpr int KB = 100 * 1024 / (2 * (TR + 3 * TJ) * (int)sizeof(vx_real));
  static constexpr int KO = (KB < NC ? KB : NC) | 1;                /* odd: 3 KO, the sources' row stride, too */
  static constexpr int KC = KO > NC ? NC : KO;                      /* k-rows a stage */
  static constexpr int STAGE = KC * TR + TJ * 3 * KC;               /* reals of one stage's buffer */
  static constexpr size_t SMEM = 2 * (size_t)STAGE * sizeof(vx_real) + 4 * TJ * sizeof(int) + 192 * sizeof(short) + 192;
  static constexpr size_t TAB = (size_t)VX_GEO_N * NC * TR;         /* reals of the device table */
};

/* Stage i's offset slot o, its first k-row k0 and its k-rows kc: the slots' chunks of KC k-rows run
 * one after another, slot o's us[o + 1] − us[o] of them covering its (deg+1)² k-rows (dense_tile_setup). */
template <int P>
__device__ static __forceinline__ void VXF(dense_chunk)(int i, const short *us, const unsigned char *vs, int q,
                                                        const int *__restrict__ deg, int *o, int *k0, int *kc) {
  typedef VXF(dense_cfg)<P> C;
  int dx, dy, dz;
  *o = dense_slot_of(us, i);
  dense_slot_offset(vs[*o], q, &dx, &dy, &dz);
  const int d = deg[vx_geo_index(dx, dy, dz)] + 1;
  *k0 = C::KC * (i - us[*o]);
  *kc = d * d - *k0 < C::KC ? d * d - *k0 : C::KC;
}

/* Queue stage i's copies (offset slot o, k-rows k0 .. k0 + kc − 1: dense_chunk) into buffer buf. */
template <int P>
__device__ static __forceinline__ void VXF(dense_stage)(int o, int k0, int kc, vx_real *buf,
                                                        const vx_real *__restrict__ D, const unsigned char *vs,
                                                        const int *tc, int q, int top, const int *__restrict__ smap,
                                                        const vx_real *__restrict__ M) {
  typedef VXF(dense_cfg)<P> C;
  int dx, dy, dz;
  dense_slot_offset(vs[o], q, &dx, &dy, &dz);
  const vx_real *Dg = D + ((size_t)vx_geo_index(dx, dy, dz) * C::NC + k0) * C::TR;
  for (int e = threadIdx.x; e < kc * (C::TR / C::VEC); e += blockDim.x)
    __pipeline_memcpy_async(buf + e * C::VEC, Dg + e * C::VEC, 16);
  vx_real *Bs = buf + C::KC * C::TR;
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int smine = -1; /* lane k finds the source of target w + RW·k */
  const int jm = w + C::RW * lane;
  if (lane < (C::TJ + C::RW - 1) / C::RW && jm < C::TJ) smine = dense_source(tc[jm], dx, dy, dz, top, smap);
  for (int k = 0, j = w; j < C::TJ; ++k, j += C::RW) {
    const int sj = __shfl_sync(0xffffffffu, smine, k);
    const vx_real *in = M + (sj >= 0 ? vx_off_exp(sj, C::NC) : 0) + 3 * k0;
    for (int e = lane; e < 3 * kc; e += 32)
      __pipeline_memcpy_async(Bs + j * 3 * C::KC + e, in + e, sizeof(vx_real), sj >= 0 ? 0 : sizeof(vx_real));
  }
}

template <int P>
__global__ void __launch_bounds__(32 * (P + 1), P <= 8 ? 2 : 1)
    VXF(k_m2l_dense)(const vx_real *__restrict__ D, const int *__restrict__ deg, int l, int npar,
                     const int *__restrict__ pchild, const uint32_t *__restrict__ tkey, const int *__restrict__ smap,
                     const vx_real *__restrict__ M, vx_real *__restrict__ L) {
  typedef VXF(dense_cfg)<P> C;
  extern __shared__ unsigned char vx_smem[];
  vx_real *buf0 = (vx_real *)vx_smem, *buf1 = buf0 + C::STAGE;
  int *tbox = (int *)(buf1 + C::STAGE), *tc = tbox + C::TJ; /* target box, its packed coordinates (-1: none) */
  short *us = (short *)(tc + C::TJ);                         /* the slots' chunks before each */
  unsigned char *vs = (unsigned char *)(us + 192);           /* the octant's 189 offset slots */
  const int q = blockIdx.y, w = threadIdx.x >> 5, lane = threadIdx.x & 31, top = (1 << l) - 1;
  if (!dense_tile_setup(C::TJ, q, npar, pchild, tkey, deg, C::KC, tbox, tc, us, vs)) return;
  vx_real acc[C::RW][C::CPL];
#pragma unroll
  for (int i = 0; i < C::RW; ++i)
#pragma unroll
    for (int cc = 0; cc < C::CPL; ++cc) acc[i][cc] = VX_R(0.0);
  const int nst = us[189];
  int o, k0, kc, on = 0, k0n = 0, kcn = 0;
  VXF(dense_chunk)<P>(0, us, vs, q, deg, &o, &k0, &kc);
  VXF(dense_stage)<P>(o, k0, kc, buf0, D, vs, tc, q, top, smap, M);
  __pipeline_commit();
  for (int i = 0; i < nst; ++i) {
    vx_real *cur = (i & 1) ? buf1 : buf0;
    if (i + 1 < nst) {
      VXF(dense_chunk)<P>(i + 1, us, vs, q, deg, &on, &k0n, &kcn);
      VXF(dense_stage)<P>(on, k0n, kcn, (i & 1) ? buf0 : buf1, D, vs, tc, q, top, smap, M);
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    const vx_real *Ts = cur + w * C::RP, *Bs = cur + C::KC * C::TR + lane * 3 * C::KC;
    /* unrolled by 3 (nvcc 13.0), p = 6 and double p = 8 gave wrong sums, cause not found (gpu_test_m2l_dense) */
#pragma unroll 1
    for (int k = 0; k < kc; ++k) {
      vx_real tv[C::RP], bv[C::CPL];
#pragma unroll
      for (int v = 0; v < C::RP; v += C::VEC) dense_ld(Ts + k * C::TR + v, tv + v);
#pragma unroll
      for (int cc = 0; cc < C::CPL; ++cc) bv[cc] = Bs[(32 * cc % C::TJ) * 3 * C::KC + 3 * k + 32 * cc / C::TJ];
#pragma unroll
      for (int i2 = 0; i2 < C::RW; ++i2)
#pragma unroll
        for (int cc = 0; cc < C::CPL; ++cc) acc[i2][cc] += tv[i2] * bv[cc];
    }
    __syncthreads();
    kc = kcn;
  }
#pragma unroll
  for (int cc = 0; cc < C::CPL; ++cc) {
    const int c = 32 * cc / C::TJ, t = tbox[32 * cc % C::TJ + lane];
    if (t < 0) continue;
    vx_real *out = L + vx_off_exp(t, C::NC) + c;
#pragma unroll
    for (int i = 0; i < C::RW; ++i) out[3 * (w * C::RW + i)] += acc[i][cc];
  }
}

/* The dense operators of order P for every offset, in k_m2l_dense's layout ([g][k][w·RP + i] =
 * D_g[w(P+1) + i][k], padding 0), into *out (malloc'd; the caller frees). -1: out of host memory. */
template <int P>
static int VXF(dense_build)(const fmm_tables *T, vx_real **out) {
  typedef VXF(dense_cfg)<P> C;
  vx_real *tab = (vx_real *)calloc(C::TAB, sizeof(vx_real));
  double *Dg = (double *)malloc(sizeof(double) * C::NC * C::NC);
  int rc = tab && Dg ? 0 : -1;
  for (int dx = -3; dx <= 3 && !rc; ++dx)
    for (int dy = -3; dy <= 3 && !rc; ++dy)
      for (int dz = -3; dz <= 3 && !rc; ++dz) {
        if (abs(dx) <= 1 && abs(dy) <= 1 && abs(dz) <= 1) continue;
        const int g = vx_geo_index(dx, dy, dz);
        if ((rc = fmm_m2l_dense(T, g, Dg))) break;
        vx_real *o = tab + (size_t)g * C::NC * C::TR;
        for (int k = 0; k < C::NC; ++k)
          for (int w = 0; w < C::RW; ++w)
            for (int i = 0; i < C::RW; ++i)
              o[(size_t)k * C::TR + w * C::RP + i] = (vx_real)Dg[(size_t)(w * C::RW + i) * C::NC + k];
      }
  free(Dg);
  if (rc) { free(tab); tab = NULL; }
  *out = tab;
  return rc;
}

/* The derivative expansions of a local expansion Lb (sph_deriv, docs/MATH.md §3) into Ds by the
 * block's threads: a thread per (axis, degree): degree n of the local expansion makes degree n-1 of
 * ∂x ∂y ∂z (3·n1 reals, sph_deriv_degrees), then, when g, degree n of those makes degree n-1 of
 * ∂xx ∂xy ∂xz ∂yy ∂yz ∂zz (6·n2 reals). Every thread of the block calls it (barriers inside). */
__device__ static void VXF(l2p_derivs)(int p, int g, const vx_real *Lb, vx_real *Ds) {
  const int n1 = 3 * VX_NCOEF(p - 1), n2 = p >= 2 ? 3 * VX_NCOEF(p - 2) : 0;
  for (int j = threadIdx.x; j < 3 * p; j += blockDim.x) {
    const int q = j / p, n = 1 + j % p;
    VXF(sph_deriv_degrees)(Lb, n, n, q == 0 ? Ds : NULL, q == 1 ? Ds + n1 : NULL, q == 2 ? Ds + 2 * n1 : NULL);
  }
  __syncthreads();
  if (g)
    for (int j = threadIdx.x; j < 6 * (p - 1); j += blockDim.x) {
      /* xx xy xz from ∂x, yy yz from ∂y, zz from ∂z */
      const int src[6] = {0, 0, 0, 1, 1, 2}, ax[6] = {0, 1, 2, 1, 2, 2};
      const int q = j / (p - 1), n = 1 + j % (p - 1);
      vx_real *o = Ds + 3 * (size_t)n1 + (size_t)q * n2;
      VXF(sph_deriv_degrees)(Ds + (size_t)src[q] * n1, n, n, ax[q] == 0 ? o : NULL, ax[q] == 1 ? o : NULL,
                             ax[q] == 2 ? o : NULL);
    }
  __syncthreads();
}

/* L2P, first step where leaves hold many targets (l2p_fused says when): each target leaf's
 * derivative expansions (l2p_derivs), a block per leaf, built in shared memory (from the local
 * expansion staged there too when stage_l), the second derivatives only where the leaf holds a
 * gradient target; the block then writes them to D (`per` reals a leaf), coalesced. The threads:
 * l2p_deriv_threads. */
__global__ void VXF(k_l2p_deriv)(int p, int want_grad, int n_grad, const int *order, const int *start, int stage_l,
                                 size_t per, const vx_real *__restrict__ Lleaf, vx_real *__restrict__ D) {
  extern __shared__ unsigned char vx_smem[];
  vx_real *Ds = (vx_real *)vx_smem;
  const int b = blockIdx.x, nc = VX_NCOEF(p), n1 = 3 * VX_NCOEF(p - 1);
  const vx_real *Lb = Lleaf + vx_off_exp(b, nc);
  if (stage_l) { /* the local expansion into shared memory: sph_deriv's reads then wait on no DRAM */
    vx_real *Ls = Ds + per;
    for (int i = threadIdx.x; i < 3 * nc; i += blockDim.x) Ls[i] = Lb[i];
    Lb = Ls;
  }
  /* second derivatives only for a leaf holding gradient targets (vortex elements, not tracers) */
  int g = 0;
  if (want_grad && p >= 2)
    for (int k = start[b] + threadIdx.x; k < start[b + 1] && !g; k += blockDim.x) g = order[k] < n_grad;
  g = __syncthreads_or(g);
  VXF(l2p_derivs)(p, g, Lb, Ds);
  const size_t nw = g ? per : 3 * (size_t)n1; /* k_l2p reads the second ones only for gradient targets */
  for (size_t i = threadIdx.x; i < nw; i += blockDim.x) D[vx_off(b, per) + i] = Ds[i];
}

/* k_l2p_deriv's block: a thread per (axis, degree) of its larger step, in whole warps. */
static inline int VXF(l2p_deriv_threads)(int p) {
  const int jobs = 6 * (p - 1) > 3 * p ? 6 * (p - 1) : 3 * p;
  return 32 * ((jobs + 31) / 32);
}

/* Target chunks: leaf b's targets are split into blocks of at most CH (= blockDim.x), so a leaf of
 * thousands of targets (levels capped by a large core) spreads over many blocks and a small leaf
 * costs one. A leaf's targets are in index order (the octree sorts each leaf), so those that want
 * the gradient (index < n_grad: the elements before the tracers) come first; they get chunks of
 * their own, ceil(g_b / CH), and the rest ceil((n_b - g_b) / CH): a chunk is then all gradient or
 * all velocity-only targets, and the velocity-only ones (a scene's tracers) neither wait in their
 * warps and blocks for the gradient's longer pair sums nor walk its longer cut-off (k_corr).
 * Every gradient chunk comes before every velocity-only one (leaf b's at cnt[b] and cnt[nbox + b]
 * once the caller has scanned cnt's 2 nbox + 1 counts; cnt[2 nbox], the total): the blocks of the
 * near-field kernels start in chunk order, so the few long ones (the elements' gradient sums) start
 * first and the many short ones fill in beside them, instead of a long one starting last and
 * running alone (docs/BENCHMARKS.md "Heavy chunks first"). */
__device__ static __forceinline__ int VXF(leaf_grad_end)(const int *start, int b, const int *order, int n_grad) {
  int lo = start[b], hi = start[b + 1]; /* the first k with order[k] >= n_grad */
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (order[mid] < n_grad) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
__global__ void VXF(k_chunk_count)(int nbox, const int *start, const int *order, int n_grad, int ch, int *cnt) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nbox) {
    const int g = VXF(leaf_grad_end)(start, b, order, n_grad);
    cnt[b] = (g - start[b] + ch - 1) / ch, cnt[nbox + b] = (start[b + 1] - g + ch - 1) / ch;
  } else if (b == nbox) cnt[2 * nbox] = 0;
}
/* Each chunk's leaf and its targets [range.x, range.y), in tree order. */
__global__ void VXF(k_chunk_fill)(int nbox, const int *off, const int *start, const int *order, int n_grad, int ch,
                                  int *leaf, int2 *range) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nbox) return;
  const int g = VXF(leaf_grad_end)(start, b, order, n_grad);
  int c = off[b];
  for (int k = start[b]; k < g; k += ch, ++c) leaf[c] = b, range[c] = make_int2(k, min(k + ch, g));
  c = off[nbox + b];
  for (int k = g; k < start[b + 1]; k += ch, ++c) leaf[c] = b, range[c] = make_int2(k, min(k + ch, start[b + 1]));
}

/* L2P, second step: a block per target chunk, a thread per target. The leaf's derivative
 * expansions — read from D, or, where D is NULL (l2p_fused: small leaves), formed by the
 * block itself from the leaf's local expansion Lleaf (l2p_derivs; the second derivatives where the
 * chunk's targets want the gradient), which saves writing and reading them through global memory —
 * and the degree-raising factors of eq. 15 (the table `raise`: A then B of
 * sph_raise, at t = n(n+1)/2 + |m|) are staged in shared memory (every thread
 * reads the same entry at the same time: broadcasts); each thread walks the columns ±|m| of its own
 * regular solid harmonics (sph_sectoral_step, then the raise) and accumulates the 9 first and 18
 * second derivatives, then the curl (curl_from_derivs). Far field plus the near field's vn/gn
 * (un-prefixed, box order: the caller waits for the near field first), times 1/(4π), go to the
 * caller's target order in vel/grad: one pass where a separate far-field array and a combining
 * kernel took three (2^20 targets: 0.3 ms of the H100's 11). */
__global__ void VXF(k_l2p)(int p, int want_grad, int n_grad, const int *nchunk, const int *chunk_leaf,
                           const int2 *chunk_range, const int *order,
                           const uint32_t *key, const vx_real *x, const vx_real *y, const vx_real *z,
                           double lo0, double lo1, double lo2, double h, size_t per, const vx_real *D,
                           const vx_real *Lleaf, const vx_real *raise, const vx_real *vn, const vx_real *gn, vx_real *vel,
                           vx_real *grad) {
  extern __shared__ unsigned char vx_smem[];
  const int c = blockIdx.x;
  if (c >= *nchunk) return;
  const int b = chunk_leaf[c];
  const int2 kr = chunk_range[c];
  const int k = kr.x + threadIdx.x;
  const int pd = p - 1, n1 = 3 * VX_NCOEF(p - 1), n2 = (p >= 2) ? 3 * VX_NCOEF(p - 2) : 0;
  const int nd = 3 * n1 + (want_grad ? 6 * n2 : 0), ntri = p * (p + 1) / 2;
  vx_real *Ds = (vx_real *)vx_smem, *rA = Ds + nd, *rB = rA + ntri;
  for (int t = threadIdx.x; t < 2 * ntri; t += blockDim.x) rA[t] = raise[t];
  if (D) {
    const vx_real *Db = D + vx_off(b, per);
    for (int i = threadIdx.x; i < nd; i += blockDim.x) Ds[i] = Db[i];
  } else if (p >= 1) { /* the chunk's kind: its first target's (chunks are of one kind) */
    const int nc = VX_NCOEF(p);
    vx_real *Ls = rA + 2 * ntri;
    for (int i = threadIdx.x; i < 3 * nc; i += blockDim.x) Ls[i] = Lleaf[vx_off_exp(b, nc) + i];
    __syncthreads();
    VXF(l2p_derivs)(p, want_grad && p >= 2 && order[kr.x] < n_grad, Ls, Ds);
  }
  __syncthreads();
  if (k >= kr.y) return;
  const int gk = want_grad && order[k] < n_grad; /* p < 2: zero second derivatives */
  int kx, ky, kz;
  oct_demorton3(key[b], &kx, &ky, &kz);
  const vx_real ih = (vx_real)(1.0 / h), ih2 = ih * ih, ih3 = ih2 * ih;
  const vx_real px = (x[k] - (vx_real)(lo0 + (kx + 0.5) * h)) * ih, py = (y[k] - (vx_real)(lo1 + (ky + 0.5) * h)) * ih,
                pz = (z[k] - (vx_real)(lo2 + (kz + 0.5) * h)) * ih, r2 = px * px + py * py + pz * pz;
  vx_real s1[9], s2[18];
  for (int i = 0; i < 9; ++i) s1[i] = VX_R(0.0);
  for (int i = 0; i < 18; ++i) s2[i] = VX_R(0.0);
  const vx_real *D1 = Ds, *D2 = Ds + 3 * n1;
  vx_real cm = VX_R(1.0), sm = VX_R(0.0); /* ℛ_m^m and ℛ_m^{-m} */
  for (int am = 0; am <= pd; ++am) {
    if (am > 0) VXF(sph_sectoral_step)(am, px, py, &cm, &sm);
    vx_real a1c = cm, a2c = VX_R(0.0), a1s = sm, a2s = VX_R(0.0);
    for (int n = am; n <= pd; ++n) {
      if (n > am) {
        const int t = n * (n + 1) / 2 + am;
        const vx_real A = rA[t] * pz, B = rB[t] * r2;
        vx_real v = A * a1c - B * a2c;
        a2c = a1c, a1c = v;
        v = A * a1s - B * a2s;
        a2s = a1s, a1s = v;
      }
      for (int sg = 0; sg < (am ? 2 : 1); ++sg) {
        const vx_real a = sg ? a1s : a1c;
        const int i3 = 3 * VX_IDX(n, sg ? -am : am);
        for (int d = 0; d < 3; ++d)
          for (int cc = 0; cc < 3; ++cc) s1[3 * d + cc] += D1[(size_t)d * n1 + i3 + cc] * a;
        if (gk && n <= p - 2)
          for (int q = 0; q < 6; ++q)
            for (int cc = 0; cc < 3; ++cc) s2[3 * q + cc] += D2[(size_t)q * n2 + i3 + cc] * a;
      }
    }
  }
  const int hidx[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
  vx_real dpsi[3][3], hpsi[3][3][3], u[3] = {0, 0, 0}, gr[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int cc = 0; cc < 3; ++cc)
    for (int a = 0; a < 3; ++a) {
      dpsi[cc][a] = s1[3 * a + cc] * ih2;
      for (int bb = 0; bb < 3; ++bb) hpsi[cc][a][bb] = s2[3 * hidx[a][bb] + cc] * ih3;
    }
  VXF(curl_from_derivs)(dpsi, hpsi, u, gk ? gr : NULL);
  const int o = order[k];
  const vx_real c4 = (vx_real)VX_INV4PI;
  for (int i = 0; i < 3; ++i) vel[vx_off3(o, i)] = (u[i] + vn[vx_off3(k, i)]) * c4;
  if (gk) for (int i = 0; i < 9; ++i) grad[vx_off9(o, i)] = (gr[i] + gn[vx_off9(k, i)]) * c4;
}

/* Sum over a shared-memory tile of cnt sources (rows x, y, z, αx, αy, αz, each `stride` apart),
 * with the kernel K and the gradient flag G fixed at compile time so that pair_bs's kernel switch
 * and gradient test fold away inside the hot loop. */
template <int K, int G>
__device__ static __forceinline__ void VXF(tile_sum)(vx_real sigma, vx_real x, vx_real y, vx_real z, const vx_real *sh,
                                                     int stride, int cnt, vx_real *u, vx_real *gr) {
#pragma unroll 4
  for (int j = 0; j < cnt; ++j)
    VXF(pair_bs)(K, sigma, x - sh[j], y - sh[stride + j], z - sh[2 * stride + j], sh[3 * stride + j], sh[4 * stride + j],
                 sh[5 * stride + j], u, G ? gr : NULL);
}
__device__ static __forceinline__ void VXF(tile_dispatch)(int kernel, int g, vx_real sigma, vx_real x, vx_real y, vx_real z,
                                                          const vx_real *sh, int stride, int cnt, vx_real *u, vx_real *gr) {
  switch (2 * kernel + (g ? 1 : 0)) {
  case 0: VXF(tile_sum)<0, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 1: VXF(tile_sum)<0, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 2: VXF(tile_sum)<1, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 3: VXF(tile_sum)<1, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 4: VXF(tile_sum)<2, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 5: VXF(tile_sum)<2, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 6: VXF(tile_sum)<3, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 7: VXF(tile_sum)<3, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  case 8: VXF(tile_sum)<4, 0>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  default: VXF(tile_sum)<4, 1>(sigma, x, y, z, sh, stride, cnt, u, gr); break;
  }
}

/* P2P: a block per target chunk (k_chunk_count), a thread per target. The sources of all its
 * leaf's neighbour leaves (up to 27 boxes) are staged into shared memory together, in tiles of
 * VX_P2P_CAP, so a chunk costs two barriers per tile rather than two per neighbour box. Near-field
 * velocity and gradient (un-prefixed) go to vn/gn in box order. */
#undef VX_P2P_CAP
#define VX_P2P_CAP (sizeof(vx_real) == 4 ? 1024 : 512)
__global__ void VXF(k_p2p)(int kernel, vx_real sigma, int want_grad, int n_grad, const int *nchunk,
                           const int *chunk_leaf, const int2 *chunk_range, const int *order, const int *sstart,
                           const int *nbr_start, const int *nbr, const vx_real *tx, const vx_real *ty, const vx_real *tz,
                           const vx_real *sx, const vx_real *sy, const vx_real *sz, const vx_real *sax,
                           const vx_real *say, const vx_real *saz, vx_real *vn, vx_real *gn) {
  __shared__ vx_real st[6][VX_P2P_CAP];
  __shared__ int pre[28], box[27];
  const int c = blockIdx.x;
  if (c >= *nchunk) return;
  const int b = chunk_leaf[c], nb = nbr_start[b + 1] - nbr_start[b];
  if (threadIdx.x == 0) {
    pre[0] = 0;
    for (int q = 0; q < nb; ++q) {
      box[q] = sstart[nbr[nbr_start[b] + q]];
      pre[q + 1] = pre[q] + sstart[nbr[nbr_start[b] + q] + 1] - box[q];
    }
  }
  __syncthreads();
  int total = pre[nb];
  {
    int k = chunk_range[c].x + threadIdx.x;
    int active = k < chunk_range[c].y;
    int gk = active && want_grad && order[k] < n_grad;
    vx_real x = active ? tx[k] : VX_R(0.0), y = active ? ty[k] : VX_R(0.0), z = active ? tz[k] : VX_R(0.0);
    vx_real u[3] = {0, 0, 0}, gr[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int c0 = 0; c0 < total; c0 += (int)VX_P2P_CAP) {
      int cnt = min((int)VX_P2P_CAP, total - c0);
      __syncthreads();
      for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
        int gi = c0 + i, q = 0;
        while (pre[q + 1] <= gi) ++q;
        int j = box[q] + gi - pre[q];
        st[0][i] = sx[j]; st[1][i] = sy[j]; st[2][i] = sz[j];
        st[3][i] = sax[j]; st[4][i] = say[j]; st[5][i] = saz[j];
      }
      __syncthreads();
      if (active) VXF(tile_dispatch)(kernel, gk, sigma, x, y, z, &st[0][0], (int)VX_P2P_CAP, cnt, u, gr);
    }
    if (active) {
      for (int i = 0; i < 3; ++i) vn[vx_off3(k, i)] = u[i];
      if (gk) for (int i = 0; i < 9; ++i) gn[vx_off9(k, i)] = gr[i];
    }
  }
}

/* ---- P2P, fast variant (issue 15; the default but for the Gaussian, VX_P2P=fast*): k_p2p_fast<K, T> ----
 * The same sums as k_p2p, arranged for the issue rate:
 *  - T targets per thread (template): each source read from shared memory serves T pairs from
 *    registers, and the T pairs' dependency chains interleave (ILP);
 *  - the warp runs only the slots holding targets (nt = 0..T, warp-uniform), so a chunk's ragged
 *    end costs no more lanes than in k_p2p;
 *  - the gradient for the whole warp when any of its targets needs it (no divergence between
 *    vortex elements and tracers; only gradient targets' rows are written);
 *  - pair_bs_split (pair_t.h): the gradient's -g ε α summed as g α, applied once at the end;
 *  - a source staged as two (float) or three (double) vectors: two or three shared loads, not six;
 *  - each staged source's neighbour leaf by a forward-moving cursor, not a search from leaf 0,
 *    and the neighbour ranges loaded and scanned by a warp rather than by one thread;
 *  - launch bounds for 64 registers a thread in float (T <= 2), 8 to 16 small blocks per SM;
 *  - the singular kernel's coincident pairs zeroed by one select on 1/r, and H's trace not summed
 *    (pair_bs_split): a select and an FMA fewer a pair, P2P at 2^24 uniform points 62.2 -> 60.4 ms;
 *  - a warp's only row, when it holds r <= 16 targets, split over the sources (p2p_row): k = 32/r
 *    rounded down to a power of two lanes a target, each summing every k-th source, added up by
 *    shuffles at the end. Leaves hold about as many targets as a chunk, so a leaf's last chunk is
 *    often a few targets, which ran the whole source list on a few lanes: P2P at 2^24 uniform points
 *    (float, p = 8, leaves of ~64) 69.8 -> 63.0 ms, at 2^22 29.8 -> 27.1 (H100, docs/BENCHMARKS.md).
 *    VX_P2P_SPLIT=0 never splits, 2 splits a short last row beside full ones too (as fast: the full
 *    rows then lose the pairing of T targets a source load).
 * Blocks are k_p2p's chunks (CH targets of one leaf, the same chunk list as L2P), each run by
 * W = max(1, CH / 32T) warps; warp v's slot s of lane l is target v·32T + 32s + l of the chunk, but
 * in a split row target v·32T + 32s + l / k. */

/* Sources per shared-memory tile: 6 KiB in float, 12 KiB in double. 512 held a float block of one
 * warp to 17 an SM (2^24 uniform points, leaves of ~64); 256 lets 31 in, 1 % faster there (H100). */
#define VX_P2P_FAST_TILE 256
/* Threads per block at most (T = 1 at CH = 128), and the blocks of that size an SM must hold,
 * which caps the registers: 64 a thread in float at T <= 2; 128 at T = 4 or in double (T = 1, 2),
 * whose accumulators alone are 15 T reals; 255 in double at T = 4. */
#define VX_P2P_FAST_THREADS 128
#define VX_P2P_FAST_MINB(T) (sizeof(vx_real) == 4 ? ((T) <= 2 ? 8 : 4) : ((T) <= 2 ? 4 : 2))

#if defined(VX_FLOAT_INST)
/* A tile of staged sources: (x, y, z, αx) and (αy, αz), a 16- and an 8-byte load a source. */
typedef struct {
  float4 a[VX_P2P_FAST_TILE];
  float2 b[VX_P2P_FAST_TILE];
} VXF(p2p_tile);
__device__ static __forceinline__ void VXF(p2p_put)(VXF(p2p_tile) *t, int i, float x, float y, float z, float ax, float ay,
                                                    float az) {
  t->a[i] = make_float4(x, y, z, ax);
  t->b[i] = make_float2(ay, az);
}
__device__ static __forceinline__ void VXF(p2p_get)(const VXF(p2p_tile) *t, int j, float s[6]) {
  const float4 a = t->a[j];
  const float2 b = t->b[j];
  s[0] = a.x, s[1] = a.y, s[2] = a.z, s[3] = a.w, s[4] = b.x, s[5] = b.y;
}
#else
/* A tile of staged sources: (x, y), (z, αx), (αy, αz), three 16-byte loads a source. */
typedef struct {
  double2 a[VX_P2P_FAST_TILE], b[VX_P2P_FAST_TILE], c[VX_P2P_FAST_TILE];
} VXF(p2p_tile);
__device__ static __forceinline__ void VXF(p2p_put)(VXF(p2p_tile) *t, int i, double x, double y, double z, double ax,
                                                    double ay, double az) {
  t->a[i] = make_double2(x, y);
  t->b[i] = make_double2(z, ax);
  t->c[i] = make_double2(ay, az);
}
__device__ static __forceinline__ void VXF(p2p_get)(const VXF(p2p_tile) *t, int j, double s[6]) {
  const double2 a = t->a[j], b = t->b[j], c = t->c[j];
  s[0] = a.x, s[1] = a.y, s[2] = b.x, s[3] = b.y, s[4] = c.x, s[5] = c.y;
}
#endif

/* What k_p2p_fast reads and writes (k_p2p's arguments, and ch: the chunk size). */
typedef struct {
  int kernel, want_grad, n_grad, ch, split;
  vx_real sigma;
  const int *nchunk, *chunk_leaf, *order, *sstart, *nbr_start, *nbr;
  const int2 *chunk_range;
  const vx_real *tx, *ty, *tz, *sx, *sy, *sz, *sax, *say, *saz;
  vx_real *vn, *gn;
} VXF(p2p_args);

/* A thread's T targets: positions, and the sums of pair_bs_split (u, H, w). */
template <int T>
struct VXF(p2p_acc) {
  vx_real x[T], y[T], z[T], u[T][3], H[T][8], w[T][3]; /* H[8]: pair_split_trace */
};

#ifndef VX_WARP_SCAN
#define VX_WARP_SCAN
/* The inclusive prefix sum of v over the 32 lanes of the calling warp (all of them present). */
__device__ static __forceinline__ int vx_warp_scan(int v) {
  const int lane = threadIdx.x & 31;
  for (int o = 1; o < 32; o <<= 1) {
    const int t = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += t;
  }
  return v;
}
#endif

/* Leaf b's neighbour leaves, by warp 0 (lane q loads leaf q's range; nb <= 27): box[q] = first
 * source of the q-th, pre[q] = sources before it, *total = pre[nb]. The caller syncs. */
__device__ static __forceinline__ void VXF(p2p_nbr_scan)(int b, const VXF(p2p_args) &A, int *pre, int *box, int *total) {
  const int lane = threadIdx.x;
  if (lane >= 32) return;
  const int nb = A.nbr_start[b + 1] - A.nbr_start[b];
  int beg = 0, cnt = 0;
  if (lane < nb) {
    const int s = A.nbr[A.nbr_start[b] + lane];
    beg = A.sstart[s], cnt = A.sstart[s + 1] - beg;
  }
  cnt = vx_warp_scan(cnt);
  if (lane < nb) box[lane] = beg, pre[lane + 1] = cnt;
  if (lane == 0) pre[0] = 0;
  if (lane == 31) *total = cnt;
}

/* Sources [c0, c0 + cnt) of the neighbour list into the tile, thread i taking c0 + i, c0 + i +
 * blockDim.x, ...; *q, the leaf of the thread's last source, only moves forward (pre ascends, and
 * so does each thread's source index across tiles), so a source's leaf costs a compare. */
__device__ static __forceinline__ void VXF(p2p_stage)(VXF(p2p_tile) *st, int c0, int cnt, const int *pre, const int *box,
                                                      int *q, const VXF(p2p_args) &A) {
  for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
    const int gi = c0 + i;
    while (pre[*q + 1] <= gi) ++*q;
    const int j = box[*q] + gi - pre[*q];
    VXF(p2p_put)(st, i, A.sx[j], A.sy[j], A.sz[j], A.sax[j], A.say[j], A.saz[j]);
  }
}

/* Whether the chunk's target i (tree order k) needs the gradient. */
__device__ static __forceinline__ int VXF(p2p_wants_grad)(const VXF(p2p_args) &A, int n, int i, int k) {
  return i < n && A.want_grad && A.order[k] < A.n_grad;
}

/* Which rows a warp runs and how its last row is split: nt rows (slots 0..nt-1, warp-uniform); the
 * last holds r targets, and for r <= VX_P2P_SPLIT_MAX it is split (split 2; split 1: when it is the
 * warp's only row; split 0: never), k > 1 lanes a target (lane l: target l / k, sources ph = l % k,
 * ph + k, ...); k = 1 otherwise. */
#define VX_P2P_SPLIT_MAX 16
typedef struct {
  int w0, lane, nt, k, ph;
} VXF(p2p_row);

__device__ static __forceinline__ VXF(p2p_row) VXF(p2p_row_of)(int n, int T, int split) {
  VXF(p2p_row) w;
  w.w0 = (threadIdx.x >> 5) * 32 * T, w.lane = threadIdx.x & 31;
  w.nt = min(T, max(0, (n - w.w0 + 31) / 32));
  const int r = n - w.w0 - 32 * (w.nt - 1), on = split == 2 || (split == 1 && w.nt == 1);
  w.k = on && w.nt > 0 && r <= VX_P2P_SPLIT_MAX ? 1 << (31 - __clz(32 / r)) : 1;
  w.ph = w.lane & (w.k - 1);
  return w;
}

/* The chunk's index of the thread's target in slot s. */
__device__ static __forceinline__ int VXF(p2p_target)(const VXF(p2p_row) &w, int s) {
  return w.w0 + 32 * s + (s == w.nt - 1 ? w.lane / w.k : w.lane);
}

/* The thread's targets (slot s: target i = p2p_target of the chunk, k0 + i in tree order; beyond
 * the chunk's n, at the origin and never written) and zeroed sums. Returns whether any target of
 * the warp needs the gradient. */
template <int T>
__device__ static __forceinline__ int VXF(p2p_slots)(const VXF(p2p_args) &A, int k0, int n, const VXF(p2p_row) &w,
                                                     VXF(p2p_acc)<T> &a) {
  int any = 0;
#pragma unroll
  for (int s = 0; s < T; ++s) {
    const int i = VXF(p2p_target)(w, s), on = i < n, k = k0 + i;
    a.x[s] = on ? A.tx[k] : VX_R(0.0), a.y[s] = on ? A.ty[k] : VX_R(0.0), a.z[s] = on ? A.tz[k] : VX_R(0.0);
    any |= VXF(p2p_wants_grad)(A, n, i, k);
    for (int c = 0; c < 3; ++c) a.u[s][c] = a.w[s][c] = VX_R(0.0);
    for (int c = 0; c < 8; ++c) a.H[s][c] = VX_R(0.0);
  }
  return __any_sync(0xffffffffu, any);
}

/* The source loop's unrolling with one target a thread (the default, p2p_targets_per_thread): 8,
 * where two targets keep 2. One target's pairs have no other's to interleave with; unrolled 2 / 4 /
 * 8, H100 float p = 8 (docs/BENCHMARKS.md): 2^20 rings 10.05-10.12 / 9.79-9.90 / 9.72-9.79 ms, 2^20 uniform
 * 9.44-9.54 / 9.37-9.48 / 9.30-9.38, `leapfrog_big`'s near field 3.30 / 3.12 / 3.04 ms a step. */
#define VX_P2P_UNROLL1 8
/* The pairs of a tile of cnt sources with the first NT of the thread's targets, the kernel K and
 * the gradient flag G fixed at compile time (as tile_sum), each source loaded once for all NT. */
template <int K, int G, int NT, int T>
__device__ static __forceinline__ void VXF(tile_sum_fast)(vx_real sigma, const VXF(p2p_tile) *st, int cnt,
                                                          VXF(p2p_acc)<T> &a) {
  constexpr int U = NT == 1 ? VX_P2P_UNROLL1 : 2;
#pragma unroll U
  for (int j = 0; j < cnt; ++j) {
    vx_real s[6];
    VXF(p2p_get)(st, j, s);
#pragma unroll
    for (int t = 0; t < NT; ++t)
      VXF(pair_bs_split)(K, sigma, a.x[t] - s[0], a.y[t] - s[1], a.z[t] - s[2], s[3], s[4], s[5], a.u[t],
                         G ? a.H[t] : NULL, a.w[t]);
  }
}
/* The pairs of slot S (a split row) with the tile's sources ph, ph + k, ... */
template <int K, int G, int S, int T>
__device__ static __forceinline__ void VXF(tile_sum_split)(vx_real sigma, const VXF(p2p_tile) *st, int cnt, int ph, int k,
                                                           VXF(p2p_acc)<T> &a) {
#pragma unroll 2
  for (int j = ph; j < cnt; j += k) {
    vx_real s[6];
    VXF(p2p_get)(st, j, s);
    VXF(pair_bs_split)(K, sigma, a.x[S] - s[0], a.y[S] - s[1], a.z[S] - s[2], s[3], s[4], s[5], a.u[S], G ? a.H[S] : NULL,
                       a.w[S]);
  }
}
/* The warp's NT = nt rows over the tile: all with every source, or the first NT - 1 so and the
 * last split (w.k > 1). */
template <int K, int G, int NT, int T>
__device__ static __forceinline__ void VXF(tile_rows)(const VXF(p2p_row) &w, vx_real sigma, const VXF(p2p_tile) *st, int cnt,
                                                      VXF(p2p_acc)<T> &a) {
  if (w.k == 1) {
    VXF(tile_sum_fast)<K, G, NT, T>(sigma, st, cnt, a);
    return;
  }
  if constexpr (NT > 1) VXF(tile_sum_fast)<K, G, NT - 1, T>(sigma, st, cnt, a);
  VXF(tile_sum_split)<K, G, NT - 1, T>(sigma, st, cnt, w.ph, w.k, a);
}
/* tile_rows for the warp's nt (1..T) rows holding targets: T itself unless the chunk ends in this warp. */
template <int K, int G, int T>
__device__ static __forceinline__ void VXF(tile_slots)(const VXF(p2p_row) &w, vx_real sigma, const VXF(p2p_tile) *st,
                                                       int cnt, VXF(p2p_acc)<T> &a) {
  if (w.nt == T) VXF(tile_rows)<K, G, T, T>(w, sigma, st, cnt, a);
  else if (w.nt == 1) VXF(tile_rows)<K, G, 1, T>(w, sigma, st, cnt, a);
  else if constexpr (T == 4) {
    if (w.nt == 2) VXF(tile_rows)<K, G, 2, T>(w, sigma, st, cnt, a);
    else VXF(tile_rows)<K, G, 3, T>(w, sigma, st, cnt, a);
  }
}
/* tile_slots with the gradient flag g fixed at compile time. */
template <int K, int T>
__device__ static __forceinline__ void VXF(tile_dispatch_fast)(int g, const VXF(p2p_row) &w, vx_real sigma,
                                                               const VXF(p2p_tile) *st, int cnt, VXF(p2p_acc)<T> &a) {
  if (g) VXF(tile_slots)<K, 1, T>(w, sigma, st, cnt, a);
  else VXF(tile_slots)<K, 0, T>(w, sigma, st, cnt, a);
}

/* A split row's sums (slot S) added up over each target's k lanes (aligned groups: xor shuffles),
 * in a fixed order, so every lane of the group holds its target's total. */
template <int S, int T>
__device__ static __forceinline__ void VXF(p2p_reduce_slot)(int k, int g, VXF(p2p_acc)<T> &a) {
  for (int o = k >> 1; o > 0; o >>= 1) {
#pragma unroll
    for (int c = 0; c < 3; ++c) a.u[S][c] += __shfl_xor_sync(0xffffffffu, a.u[S][c], o);
    if (!g) continue;
#pragma unroll
    for (int c = 0; c < 3; ++c) a.w[S][c] += __shfl_xor_sync(0xffffffffu, a.w[S][c], o);
#pragma unroll
    for (int c = 0; c < 8; ++c) a.H[S][c] += __shfl_xor_sync(0xffffffffu, a.H[S][c], o); /* H[8]: pair_split_trace */
  }
}
/* p2p_reduce_slot for the warp's last row, when split (warp-uniform). */
template <int T>
__device__ static __forceinline__ void VXF(p2p_reduce_split)(const VXF(p2p_row) &w, int g, VXF(p2p_acc)<T> &a) {
  if (w.k == 1) return;
  if (w.nt == 1) VXF(p2p_reduce_slot)<0, T>(w.k, g, a);
  if constexpr (T >= 2) if (w.nt == 2) VXF(p2p_reduce_slot)<1, T>(w.k, g, a);
  if constexpr (T >= 3) if (w.nt == 3) VXF(p2p_reduce_slot)<2, T>(w.k, g, a);
  if constexpr (T >= 4) if (w.nt == 4) VXF(p2p_reduce_slot)<3, T>(w.k, g, a);
}

/* The thread's targets' velocity, and gradient (pair_split_grad) where wanted, into vn/gn
 * (un-prefixed). */
template <int T>
__device__ static __forceinline__ void VXF(p2p_write)(const VXF(p2p_args) &A, int k0, int n, const VXF(p2p_row) &w,
                                                      const VXF(p2p_acc)<T> &a) {
#pragma unroll
  for (int s = 0; s < T; ++s) {
    const int i = VXF(p2p_target)(w, s), k = k0 + i;
    if (i >= n || (s == w.nt - 1 && w.ph)) continue; /* a split row's target: its group's first lane */
    for (int c = 0; c < 3; ++c) A.vn[vx_off3(k, c)] = a.u[s][c];
    if (!VXF(p2p_wants_grad)(A, n, i, k)) continue;
    vx_real H[9], gr[9];
    for (int c = 0; c < 8; ++c) H[c] = a.H[s][c];
    VXF(pair_split_scale)(A.kernel, H);
    VXF(pair_split_trace)(H);
    VXF(pair_split_grad)(H, a.w[s], gr);
    for (int c = 0; c < 9; ++c) A.gn[vx_off9(k, c)] = gr[c];
  }
}

/* P2P, fast variant: a block per target chunk (as k_p2p), W warps of T targets a thread; a kernel
 * per pair kernel K (A.kernel), so that the Gaussian's registers do not constrain the singular one. */
template <int K, int T>
__global__ void __launch_bounds__(VX_P2P_FAST_THREADS, VX_P2P_FAST_MINB(T))
    VXF(k_p2p_fast)(const __grid_constant__ VXF(p2p_args) A) {
  __shared__ VXF(p2p_tile) st;
  __shared__ int pre[28], box[27], total;
  const int c = blockIdx.x;
  if (c >= *A.nchunk) return;
  const int b = A.chunk_leaf[c];
  VXF(p2p_nbr_scan)(b, A, pre, box, &total);
  const int k0 = A.chunk_range[c].x, n = A.chunk_range[c].y - k0;
  const VXF(p2p_row) w = VXF(p2p_row_of)(n, T, A.split);
  VXF(p2p_acc)<T> a;
  const int g = VXF(p2p_slots)<T>(A, k0, n, w, a);
  __syncthreads();
  const int ns = total;
  int q = 0;
  for (int c0 = 0; c0 < ns; c0 += VX_P2P_FAST_TILE) {
    const int cnt = min(VX_P2P_FAST_TILE, ns - c0);
    if (c0 > 0) __syncthreads(); /* the previous tile is read by every warp */
    VXF(p2p_stage)(&st, c0, cnt, pre, box, &q, A);
    __syncthreads();
    if (w.nt > 0) VXF(tile_dispatch_fast)<K, T>(g, w, A.sigma, &st, cnt, a);
  }
  VXF(p2p_reduce_split)<T>(w, g, a);
  VXF(p2p_write)<T>(A, k0, n, w, a);
}

/* The regularized-minus-singular kernel over a tile (pair_bs_regdiff), K and G fixed at compile
 * time as in tile_sum. */
template <int K, int G>
__device__ static __forceinline__ void VXF(tile_corr)(vx_real sigma, vx_real rc2, vx_real x, vx_real y, vx_real z,
                                                      const vx_real *sh, int stride, int cnt, vx_real *u, vx_real *gr) {
#pragma unroll 4
  for (int j = 0; j < cnt; ++j)
    VXF(pair_bs_regdiff)(K, sigma, rc2, x - sh[j], y - sh[stride + j], z - sh[2 * stride + j], sh[3 * stride + j],
                         sh[4 * stride + j], sh[5 * stride + j], u, G ? gr : NULL);
}
__device__ static __forceinline__ void VXF(corr_dispatch)(int kernel, int g, vx_real sigma, vx_real rc2, vx_real x, vx_real y,
                                                          vx_real z, const vx_real *sh, int stride, int cnt, vx_real *u,
                                                          vx_real *gr) {
  switch (2 * kernel + (g ? 1 : 0)) { /* the singular kernel has nothing to correct */
  case 2: VXF(tile_corr)<1, 0>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 3: VXF(tile_corr)<1, 1>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 4: VXF(tile_corr)<2, 0>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 5: VXF(tile_corr)<2, 1>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 6: VXF(tile_corr)<3, 0>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 7: VXF(tile_corr)<3, 1>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 8: VXF(tile_corr)<4, 0>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  case 9: VXF(tile_corr)<4, 1>(sigma, rc2, x, y, z, sh, stride, cnt, u, gr); break;
  default: break;
  }
}

#ifndef VX_CORR_SCAN
#define VX_CORR_SCAN
/* The exclusive prefix sum of v over the block (blockDim.x a multiple of 32, at most 1024), the block's
 * total into *total; wsum: 32 ints of shared memory. Every thread of the block calls it. */
__device__ static __forceinline__ int vx_corr_block_scan(int v, int *wsum, int *total) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const int incl = vx_warp_scan(v);
  if (lane == 31) wsum[w] = incl;
  __syncthreads();
  if (w == 0) {
    const int x = vx_warp_scan(lane < nw ? wsum[lane] : 0);
    __syncwarp();
    if (lane < nw) wsum[lane] = x;
  }
  __syncthreads();
  const int ex = incl - v + (w > 0 ? wsum[w - 1] : 0);
  *total = wsum[nw - 1];
  __syncthreads(); /* wsum is free again */
  return ex;
}
#endif

/* Regularization corrections (docs/MATH.md §10), the twin of the CPU engine's cpu_corr_leaves +
 * cpu_corr_leaf: a block per target chunk, a thread per target. The candidates are the source
 * leaves under the 27 level-Lc boxes around the leaf's ancestor (oct_reach_range, a thread a box),
 * in box order; the block's threads test blockDim of them at a time with oct_leaf_reach (within the
 * velocity-only cut-off where no target of the chunk needs the gradient, as the CPU does by leaf)
 * and a block scan appends the accepted ones to the queue in candidate order, until VX_CORR_LEAVES
 * could overflow; the block then stages the queued leaves' sources through shared memory in tiles,
 * as k_p2p does, and each thread adds pair_bs_regdiff for its target; again until the candidates are
 * exhausted. The same leaves in the same order as a walk by one warp, which kept the block waiting
 * at its barriers (docs/BENCHMARKS.md "leapfrog's corrections"). Adds (un-prefixed) into vn/gn after
 * k_p2p on the same stream. */
#define VX_CORR_LEAVES 256
/* k_corr's shared memory: the tile of staged sources; the queue of accepted leaves (leaf, its first
 * source, the queue's sources before it); the 27 boxes' first leaves and running counts; the block
 * scan's scratch. */
typedef struct {
  vx_real st[6][VX_P2P_CAP];
  int pre[VX_CORR_LEAVES + 1], leaf[VX_CORR_LEAVES], beg[VX_CORR_LEAVES], rs[27], rpre[28], wsum[32];
} VXF(corr_shared);

/* The source leaves under the 27 level-Lc boxes around target leaf tk's ancestor (a thread a box, its
 * two binary searches): into sh->rs and the running counts sh->rpre. Returns their number (every
 * thread of the block calls it). */
__device__ static __forceinline__ int VXF(corr_ranges)(VXF(corr_shared) *sh, int L, int Lc, uint32_t tk,
                                                       const uint32_t *skey, int nsleaf) {
  if (threadIdx.x < 27) {
    int qa, qb;
    oct_reach_range(L, Lc, tk, threadIdx.x, skey, nsleaf, &qa, &qb);
    sh->rs[threadIdx.x] = qa, sh->rpre[threadIdx.x + 1] = qb - qa;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sh->rpre[0] = 0;
    for (int q = 0; q < 27; ++q) sh->rpre[q + 1] += sh->rpre[q];
  }
  __syncthreads();
  return sh->rpre[27];
}

/* From candidate *cur on, blockDim at a time in candidate order, the leaves oct_leaf_reach accepts
 * into the queue (a block scan keeps their order) until VX_CORR_LEAVES could overflow; then each
 * queued leaf's first source and the sources before it (sh->beg, sh->pre; sh->pre[n] the total).
 * Returns the queue's length n; the total in *total. Every thread calls it; synced on return. */
__device__ static __forceinline__ int VXF(corr_queue)(VXF(corr_shared) *sh, uint32_t tk, const uint32_t *skey,
                                                      const int *sstart, double reach2, int T, int *cur,
                                                      int *total) {
  const int bd = blockDim.x;
  int n = 0, tot;
  while (*cur < T && n <= VX_CORR_LEAVES - bd) {
    const int cand = *cur + threadIdx.x;
    int ok = 0, s = 0;
    if (cand < T) {
      int q = 0;
      while (sh->rpre[q + 1] <= cand) ++q;
      s = sh->rs[q] + cand - sh->rpre[q];
      ok = oct_leaf_reach(tk, skey[s], reach2);
    }
    const int pos = vx_corr_block_scan(ok, sh->wsum, &tot);
    if (ok) sh->leaf[n + pos] = s;
    n += tot, *cur += bd;
  }
  __syncthreads();
  int base = 0;
  for (int i0 = 0; i0 < n; i0 += bd) {
    const int i = i0 + threadIdx.x, s = i < n ? sh->leaf[i] : 0, cnt = i < n ? sstart[s + 1] - sstart[s] : 0;
    const int ex = vx_corr_block_scan(cnt, sh->wsum, &tot);
    if (i < n) sh->pre[i] = base + ex, sh->beg[i] = sstart[s];
    base += tot;
  }
  if (threadIdx.x == 0) sh->pre[n] = base;
  __syncthreads();
  *total = base;
  return n;
}

/* The queue's sources [c0, c0 + cnt) into the tile, thread i taking c0 + i, c0 + i + blockDim.x, ...;
 * each finds its queued leaf by bisection in sh->pre[0..nq). */
__device__ static __forceinline__ void VXF(corr_stage)(VXF(corr_shared) *sh, int c0, int cnt, int nq, const vx_real *sx,
                                                       const vx_real *sy, const vx_real *sz, const vx_real *sax,
                                                       const vx_real *say, const vx_real *saz) {
  for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
    const int gi = c0 + i;
    int lo = 0, hi = nq - 1; /* the queued leaf holding gi: pre[lo] <= gi < pre[lo + 1] */
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (sh->pre[mid] <= gi) lo = mid;
      else hi = mid - 1;
    }
    const int j = sh->beg[lo] + gi - sh->pre[lo];
    sh->st[0][i] = sx[j]; sh->st[1][i] = sy[j]; sh->st[2][i] = sz[j];
    sh->st[3][i] = sax[j]; sh->st[4][i] = say[j]; sh->st[5][i] = saz[j];
  }
}

__global__ void VXF(k_corr)(int kernel, vx_real sigma, vx_real rc2g, vx_real rc2v, double reach2g, double reach2v, int L, int Lc,
                            int want_grad, int n_grad, const int *nchunk, const int *chunk_leaf,
                            const int2 *chunk_range, const int *order, const uint32_t *tkey, int nsleaf,
                            const uint32_t *skey, const int *sstart, const vx_real *tx,
                            const vx_real *ty, const vx_real *tz, const vx_real *sx, const vx_real *sy, const vx_real *sz,
                            const vx_real *sax, const vx_real *say, const vx_real *saz, vx_real *vn, vx_real *gn) {
  __shared__ VXF(corr_shared) sh;
  const int c = blockIdx.x;
  if (c >= *nchunk) return;
  const uint32_t tk = tkey[chunk_leaf[c]];
  const int k = chunk_range[c].x + threadIdx.x;
  const int active = k < chunk_range[c].y;
  const int gk = active && want_grad && order[k] < n_grad;
  const vx_real rc2 = gk ? rc2g : rc2v; /* velocity-only targets: the shorter cut-off */
  /* a chunk is of one kind (k_chunk_fill): velocity-only chunks walk the leaves within their cut-off */
  const double reach2 = want_grad && order[chunk_range[c].x] < n_grad ? reach2g : reach2v;
  const vx_real x = active ? tx[k] : VX_R(0.0), y = active ? ty[k] : VX_R(0.0), z = active ? tz[k] : VX_R(0.0);
  vx_real u[3] = {0, 0, 0}, gr[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  const int T = VXF(corr_ranges)(&sh, L, Lc, tk, skey, nsleaf);
  for (int cur = 0;;) {
    int total;
    const int nq = VXF(corr_queue)(&sh, tk, skey, sstart, reach2, T, &cur, &total);
    for (int c0 = 0; c0 < total; c0 += (int)VX_P2P_CAP) {
      const int cnt = min((int)VX_P2P_CAP, total - c0);
      if (c0 > 0) __syncthreads();
      VXF(corr_stage)(&sh, c0, cnt, nq, sx, sy, sz, sax, say, saz);
      __syncthreads();
      if (active) VXF(corr_dispatch)(kernel, gk, sigma, rc2, x, y, z, &sh.st[0][0], (int)VX_P2P_CAP, cnt, u, gr);
    }
    __syncthreads(); /* everyone is done with the queue and the tile before they are refilled */
    if (cur >= T) break;
  }
  if (active) {
    for (int i = 0; i < 3; ++i) vn[vx_off3(k, i)] += u[i];
    if (gk) for (int i = 0; i < 9; ++i) gn[vx_off9(k, i)] += gr[i];
  }
}

/* Direct summation: the all-pairs tiled kernel (the method users would otherwise use). A block per
 * VX_DIRECT_THREADS targets and a span of the sources (blockIdx.y), staged through shared memory in
 * tiles. With one span (part NULL) the block writes the sums; with several (few targets, too few
 * blocks to fill the device: direct_span) each block writes its partial sums, plane k (u then ∇u)
 * of span s at part[(12 s + k) nt + i], and k_direct_sum adds the spans in their order, the same
 * every run. */
#define VX_DIRECT_THREADS 128
#define VX_DIRECT_PLANES 12
__global__ void VXF(k_direct)(int kernel, vx_real sigma, int want_grad, int n_grad, int ns, int nt, int span,
                              const vx_real *sp, const vx_real *sa, const vx_real *tp, vx_real *vel, vx_real *grad,
                              vx_real *part) {
  __shared__ vx_real tile[6][VX_DIRECT_THREADS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int active = i < nt;
  int gk = active && want_grad && i < n_grad;
  vx_real x = active ? tp[vx_off3(i, 0)] : VX_R(0.0), y = active ? tp[vx_off3(i, 1)] : VX_R(0.0),
          z = active ? tp[vx_off3(i, 2)] : VX_R(0.0);
  vx_real u[3] = {0, 0, 0}, gr[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  const int j_end = min(ns, (int)(blockIdx.y + 1) * span);
  for (int j0 = blockIdx.y * span; j0 < j_end; j0 += blockDim.x) {
    int j = j0 + threadIdx.x, cnt = min((int)blockDim.x, j_end - j0);
    __syncthreads();
    if (threadIdx.x < cnt)
      for (int c = 0; c < 3; ++c) { tile[c][threadIdx.x] = sp[vx_off3(j, c)]; tile[3 + c][threadIdx.x] = sa[vx_off3(j, c)]; }
    __syncthreads();
    if (active) VXF(tile_dispatch)(kernel, gk, sigma, x, y, z, &tile[0][0], VX_DIRECT_THREADS, cnt, u, gr);
  }
  if (!active) return;
  if (part) {
    vx_real *q = part + (size_t)VX_DIRECT_PLANES * blockIdx.y * nt + i;
    for (int k = 0; k < 3; ++k) q[(size_t)k * nt] = u[k];
    if (gk) for (int k = 0; k < 9; ++k) q[(size_t)(3 + k) * nt] = gr[k];
    return;
  }
  const vx_real c = (vx_real)VX_INV4PI;
  for (int k = 0; k < 3; ++k) vel[vx_off3(i, k)] = u[k] * c;
  if (gk) for (int k = 0; k < 9; ++k) grad[vx_off9(i, k)] = gr[k] * c;
}

/* The spans' partial sums of k_direct added in span order, a thread per target. */
__global__ void VXF(k_direct_sum)(int want_grad, int n_grad, int nt, int nspan, const vx_real *part, vx_real *vel,
                                  vx_real *grad) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nt) return;
  const int np = want_grad && i < n_grad ? VX_DIRECT_PLANES : 3;
  const vx_real c = (vx_real)VX_INV4PI;
  for (int k = 0; k < np; ++k) {
    vx_real s = 0;
    for (int q = 0; q < nspan; ++q) s += part[((size_t)VX_DIRECT_PLANES * q + k) * nt + i];
    if (k < 3) vel[vx_off3(i, k)] = s * c;
    else grad[vx_off9(i, k - 3)] = s * c;
  }
}

/* ---- host orchestration, per precision ---- */

static VXF(dtab) VXF(make_dtab)(const fmm_gpu *G, int p) {
  VXF(dtab) T;
  T.p = p;
  T.roty = (const vx_real *)G->tab.roty.ptr;
  T.m2m = (const vx_real *)G->tab.m2m.ptr;
  T.l2l = (const vx_real *)G->tab.l2l.ptr;
  T.m2l = (const vx_real *)G->tab.m2l.ptr;
  T.geo_theta = (const int *)G->tab.geo_theta.ptr;
  T.m2l_deg = (const int *)G->tab.m2l_deg.ptr;
  T.geo_len = (const vx_real *)G->tab.geo_len.ptr;
  T.geo_cs = (const vx_real *)G->tab.geo_cs.ptr;
  T.geo_ipow = (const vx_real *)G->tab.geo_ipow.ptr;
  T.roty_stride = G->tab.roty_stride;
  return T;
}

/* Opt every kernel with dynamic shared memory in to its share of the plan (fmm_smem_plan_make
 * fitted it to the device's limit), each call checked. */
static int VXF(smem_optin)(const fmm_smem_plan *pl, char *err, size_t errlen) {
  const struct {
    const void *kernel;
    size_t bytes;
  } k[] = {{(const void *)VXF(k_p2m), pl->p2m},   {(const void *)VXF(k_m2m), pl->m2m},
           {(const void *)VXF(k_p2m_spec)<6>, pl->p2m}, {(const void *)VXF(k_p2m_spec)<8>, pl->p2m},
           {(const void *)VXF(k_p2m_spec)<12>, pl->p2m},
           {(const void *)VXF(k_l2l), pl->l2l},   {(const void *)VXF(k_m2l), pl->m2l},
           {(const void *)VXF(k_m2l_spec)<6>, pl->m2l}, {(const void *)VXF(k_m2l_spec)<8>, pl->m2l},
           {(const void *)VXF(k_m2l_spec)<12>, pl->m2l},
           {(const void *)VXF(k_l2p_deriv), pl->l2p_deriv},
           {(const void *)VXF(k_l2p), pl->l2p > pl->l2p_fused ? pl->l2p : pl->l2p_fused}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
    if (k[i].bytes > FMM_SMEM_DEFAULT)
      VX_CUR(cudaFuncSetAttribute(k[i].kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)k[i].bytes));
  return 0;
}

/* What the steps of one gpu_evaluate share: the call, the tree, the sorted arrays, the launch shapes. */
typedef struct {
  fmm_ctx *ctx;
  fmm_gpu *G;
  const fmm_params *P;
  int p, nc, ns, nt, want_grad, n_grad;
  size_t rs;
  cudaStream_t sf, sn;            /* far field (and everything else), near field */
  cudaEvent_t *ev;
  fmm_stats s;
  const vx_real *spos, *sstr, *tpos; /* the inputs in device memory */
  vx_real *vel, *grad;            /* the outputs in device memory */
  fmm_smem_plan pl;
  oct_tree_gpu *t;
  int L;
  double h;                       /* leaf width */
  int nleaf, CH, chunk_bound;     /* target leaves, targets per chunk (block size), chunk count bound */
  int m2l_spec;                   /* the order of the specialised M2L kernel to run (k_m2l_spec), 0: k_m2l */
  int p2p_fast;                   /* targets per thread of the fast P2P kernel to run (k_p2p_fast), 0: k_p2p */
  int *nchunk;                    /* the chunk count, on the device (k_chunk_count's scanned total) */
  int *cleaf;                     /* each chunk's leaf (k_chunk_fill) */
  int2 *crange;                   /* each chunk's targets (k_chunk_fill) */
  fmm_corr cr;
  vx_real *sx, *sy, *sz, *sax, *say, *saz, *tx, *ty, *tz; /* sources and targets in tree order, SoA */
} VXF(gpu_eval);

/* Step 1: after the caller's work on the default stream (e.g. a stage kernel that wrote the
 * positions), the inputs on the device: the caller's arrays, or host arrays staged through device
 * buffers (t_copy). */
static int VXF(eval_inputs)(VXF(gpu_eval) *E, const fmm_io *io, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const size_t rs = E->rs, ns = (size_t)E->ns, nt = (size_t)E->nt;
  VX_CUR(cudaEventRecord(E->ev[EV_CALLER], cudaStreamLegacy));
  VX_CUR(cudaStreamWaitEvent(E->sf, E->ev[EV_CALLER], 0));
  VX_CUR(cudaEventRecord(E->ev[EV_COPY0], E->sf));
  if (io->on_device) {
    E->spos = (const vx_real *)io->src_pos, E->sstr = (const vx_real *)io->src_str, E->tpos = (const vx_real *)io->tgt_pos;
    E->vel = (vx_real *)io->vel, E->grad = (vx_real *)io->grad;
    return 0;
  }
  if (gpu_reserve(&G->in_spos, 3 * rs * ns, "source positions", err, errlen) ||
      gpu_reserve(&G->in_sstr, 3 * rs * ns, "source strengths", err, errlen) ||
      gpu_reserve(&G->in_tpos, 3 * rs * nt, "target positions", err, errlen) ||
      gpu_reserve(&G->out_vel, 3 * rs * nt, "velocities", err, errlen) ||
      (E->want_grad && gpu_reserve(&G->out_grad, 9 * rs * nt, "gradients", err, errlen)))
    return -1;
  VX_CUR(cudaMemcpyAsync(G->in_spos.ptr, io->src_pos, 3 * rs * ns, cudaMemcpyHostToDevice, E->sf));
  VX_CUR(cudaMemcpyAsync(G->in_sstr.ptr, io->src_str, 3 * rs * ns, cudaMemcpyHostToDevice, E->sf));
  VX_CUR(cudaMemcpyAsync(G->in_tpos.ptr, io->tgt_pos, 3 * rs * nt, cudaMemcpyHostToDevice, E->sf));
  E->spos = (const vx_real *)G->in_spos.ptr, E->sstr = (const vx_real *)G->in_sstr.ptr, E->tpos = (const vx_real *)G->in_tpos.ptr;
  E->vel = (vx_real *)G->out_vel.ptr, E->grad = E->want_grad ? (vx_real *)G->out_grad.ptr : NULL;
  return 0;
}

/* The largest squared distance of n points at pos from where they were (built), as the bits of a
 * double into *out (non-negative doubles order as their bits; a NaN's lie above infinity's). */
__global__ void VXF(k_moved)(const vx_real *pos, const vx_real *built, int n, unsigned long long *out) {
  unsigned long long m = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    double d2 = 0.0;
    for (int c = 0; c < 3; ++c) {
      const double d = (double)pos[vx_off3(i, c)] - (double)built[vx_off3(i, c)];
      d2 += d * d;
    }
    const unsigned long long b = (unsigned long long)__double_as_longlong(d2);
    m = b > m ? b : m;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long v = __shfl_down_sync(0xffffffffu, m, o);
    m = v > m ? v : m;
  }
  if ((threadIdx.x & 31) == 0 && m) atomicMax(out, m);
}

/* The kept tree for this call (fmm_keep_*): how far the points moved, measured on the device and read
 * back (the call's one host round trip when the tree serves); *kept, and *moved when it does. */
static int VXF(eval_keep)(VXF(gpu_eval) *E, const fmm_io *io, int *kept, double *moved, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  *kept = 0, *moved = 0.0;
  if (!fmm_keep_may(E->ctx, io, E->want_grad, E->n_grad)) return 0;
  if (gpu_reserve(&G->moved, sizeof(unsigned long long), "the tree's displacement", err, errlen)) return -1;
  unsigned long long *d = (unsigned long long *)G->moved.ptr;
  VX_CUR(cudaMemsetAsync(d, 0, sizeof *d, E->sf));
  const int sets[2] = {E->ns, E->nt}, same = G->built_same && E->spos == E->tpos; /* one array: measured once */
  const vx_real *pos[2] = {E->spos, E->tpos},
                *built[2] = {(const vx_real *)G->built_s.ptr, (const vx_real *)(G->built_same ? G->built_s.ptr : G->built_t.ptr)};
  for (int k = 0; k < 2 - same; ++k) {
    const int nb = vx_ceil_div(sets[k], 256);
    VXF(k_moved)<<<nb < 1024 ? nb : 1024, 256, 0, E->sf>>>(pos[k], built[k], sets[k], d);
    VX_CUR_LAUNCH(moved);
  }
  VX_CUR(cudaMemcpyAsync(G->h_moved, d, sizeof *d, cudaMemcpyDeviceToHost, E->sf));
  VX_CUR(cudaStreamSynchronize(E->sf));
  const unsigned long long inf_bits = 0x7ff0000000000000ull, b = *G->h_moved;
  double d2;
  memcpy(&d2, &b, sizeof d2);
  const double m = b >= inf_bits ? INFINITY : sqrt(d2);
  if (fmm_keep_take(E->ctx, m, &E->s)) *kept = 1, *moved = m;
  return 0;
}

/* A new octree and the target chunks for P2P and L2P (k_chunk_count), kept with where its points are
 * when io asks: no host round trip beyond the octree's; the grids are sized by the bound
 * nt / CH + leaves, and blocks past the scanned total return at once. */
static int VXF(eval_build)(VXF(gpu_eval) *E, const fmm_io *io, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  oct_params op = fmm_octree_params(E->ctx);
  oct_tree_gpu *t = E->t;
  E->ctx->keep.valid = 0;
  if (oct_build_gpu(t, E->spos, E->ns, E->tpos, E->nt, sizeof(vx_real) == sizeof(float), &op, E->sf, err, errlen)) return -1;
  const int L = t->L, nleaf = t->ntgt[L], CH = chunk_targets(E->nt, nleaf), bound = chunk_bound(E->nt, nleaf, CH);
  if (gpu_reserve(&G->chunk_off, sizeof(int) * (2 * (size_t)nleaf + 1), "target chunk offsets", err, errlen) ||
      gpu_reserve(&G->chunk_leaf, sizeof(int) * (size_t)bound, "target chunks", err, errlen) ||
      gpu_reserve(&G->chunk_range, sizeof(int2) * (size_t)bound, "target chunk ranges", err, errlen))
    return -1;
  int *coff = (int *)G->chunk_off.ptr;
  const int ng = E->want_grad ? E->n_grad : E->nt; /* without gradients one kind of target */
  VXF(k_chunk_count)<<<vx_ceil_div(nleaf + 1, 256), 256, 0, E->sf>>>(nleaf, t->tgt_start, t->tgt_order, ng, CH, coff);
  VX_CUR_LAUNCH(chunk_count);
  VX_CUR(oct_exclusive_scan_gpu(t, coff, 2 * nleaf + 1, E->sf));
  VXF(k_chunk_fill)<<<vx_ceil_div(nleaf, 256), 256, 0, E->sf>>>(nleaf, coff, t->tgt_start, t->tgt_order, ng, CH,
                                                                (int *)G->chunk_leaf.ptr, (int2 *)G->chunk_range.ptr);
  VX_CUR_LAUNCH(chunk_fill);
  if (fmm_keep_wanted(E->ctx, io)) {
    const size_t bs = 3 * E->rs * (size_t)E->ns, bt = 3 * E->rs * (size_t)E->nt;
    G->built_same = E->spos == E->tpos && E->ns == E->nt; /* one array: kept once */
    if (gpu_reserve(&G->built_s, bs, "the kept tree's sources", err, errlen) ||
        (!G->built_same && gpu_reserve(&G->built_t, bt, "the kept tree's targets", err, errlen)))
      return -1;
    VX_CUR(cudaMemcpyAsync(G->built_s.ptr, E->spos, bs, cudaMemcpyDeviceToDevice, E->sf));
    if (!G->built_same) VX_CUR(cudaMemcpyAsync(G->built_t.ptr, E->tpos, bt, cudaMemcpyDeviceToDevice, E->sf));
  }
  fmm_keep_after_build(E->ctx, io, E->want_grad, E->n_grad, ldexp(t->side, -L));
  return 0;
}

/* Step 2: the shared-memory plan, the octree (kept or new) and its target chunks. */
static int VXF(eval_tree)(VXF(gpu_eval) *E, const fmm_io *io, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  if (smem_plan(E->ctx, E->p, E->want_grad, &E->pl, err, errlen) || VXF(smem_optin)(&E->pl, err, errlen)) return -1;
  oct_tree_gpu *t = E->t = &G->tree;
  int kept;
  double moved;
  if (VXF(eval_keep)(E, io, &kept, &moved, err, errlen) || (!kept && VXF(eval_build)(E, io, err, errlen))) return -1;
  E->L = t->L;
  E->h = ldexp(t->side, -E->L);
  E->nleaf = t->ntgt[E->L];
  E->CH = chunk_targets(E->nt, E->nleaf);
  E->chunk_bound = chunk_bound(E->nt, E->nleaf, E->CH);
  /* the chunk count: the scanned counts' last entry, [2 nleaf] (k_chunk_count) */
  E->nchunk = (int *)G->chunk_off.ptr + 2 * E->nleaf;
  E->cleaf = (int *)G->chunk_leaf.ptr, E->crange = (int2 *)G->chunk_range.ptr;
  VX_CUR(cudaEventRecord(E->ev[EV_TREE], E->sf));
  E->s.levels = E->L, E->s.level_capped = t->capped, E->s.n_src_leaves = t->nsrc[E->L], E->s.n_tgt_leaves = E->nleaf;
  E->cr = fmm_reg_prepare(E->ctx, t->side, E->L, fmm_io_passive(io, E->want_grad, E->n_grad), moved, &E->s);
  return 0;
}

/* Step 3: the per-call buffers, and sources and targets gathered into tree order. */
static int VXF(eval_gather)(VXF(gpu_eval) *E, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const size_t rs = E->rs, ns = (size_t)E->ns, nt = (size_t)E->nt;
  if (gpu_reserve(&G->src_soa, 6 * rs * ns, "sorted sources", err, errlen) ||
      gpu_reserve(&G->tgt_soa, 3 * rs * nt, "sorted targets", err, errlen) ||
      gpu_reserve(&G->vnear, 3 * rs * nt, "near-field velocities", err, errlen) ||
      (E->want_grad && gpu_reserve(&G->gnear, 9 * rs * nt, "near-field gradients", err, errlen)))
    return -1;
  for (int l = 2; l <= E->L; ++l)
    if (gpu_reserve(&G->mpole[l], 3 * rs * E->nc * (size_t)t->nsrc[l], "multipole expansions", err, errlen) ||
        gpu_reserve(&G->local[l], 3 * rs * E->nc * (size_t)t->ntgt[l], "local expansions", err, errlen))
      return -1;
  vx_real *S = (vx_real *)G->src_soa.ptr, *Tg = (vx_real *)G->tgt_soa.ptr;
  E->sx = S, E->sy = S + ns, E->sz = S + 2 * ns, E->sax = S + 3 * ns, E->say = S + 4 * ns, E->saz = S + 5 * ns;
  E->tx = Tg, E->ty = Tg + nt, E->tz = Tg + 2 * nt;
  VXF(k_gather)<<<vx_ceil_div(E->ns, 256), 256, 0, E->sf>>>(E->spos, E->sstr, t->src_order, E->ns, E->sx, E->sy, E->sz,
                                                             E->sax, E->say, E->saz);
  VX_CUR_LAUNCH(gather);
  VXF(k_gather)<<<vx_ceil_div(E->nt, 256), 256, 0, E->sf>>>(E->tpos, NULL, t->tgt_order, E->nt, E->tx, E->ty, E->tz, NULL,
                                                             NULL, NULL);
  VX_CUR_LAUNCH(gather);
  VX_CUR(cudaEventRecord(E->ev[EV_GATHER], E->sf));
  return 0;
}

/* k_p2p_fast's arguments for this evaluation (k_p2p's, and the chunk size). */
static VXF(p2p_args) VXF(p2p_args_of)(const VXF(gpu_eval) *E, vx_real *vn, vx_real *gn) {
  const oct_tree_gpu *t = E->t;
  VXF(p2p_args) A;
  A.kernel = (int)E->P->kernel, A.want_grad = E->want_grad, A.n_grad = E->n_grad, A.ch = E->CH;
  A.split = E->G->p2p_split;
  A.sigma = (vx_real)E->P->sigma;
  A.chunk_leaf = E->cleaf, A.nchunk = E->nchunk, A.chunk_range = E->crange, A.order = t->tgt_order;
  A.sstart = t->src_start, A.nbr_start = t->nbr_start, A.nbr = t->nbr;
  A.tx = E->tx, A.ty = E->ty, A.tz = E->tz;
  A.sx = E->sx, A.sy = E->sy, A.sz = E->sz, A.sax = E->sax, A.say = E->say, A.saz = E->saz;
  A.vn = vn, A.gn = gn;
  return A;
}

/* k_p2p_fast<K, T> for the pair kernel A.kernel: nb blocks of nthr threads on stream s. */
template <int T>
static void VXF(launch_p2p_fast)(const VXF(p2p_args) &A, int nb, int nthr, cudaStream_t s) {
  switch (A.kernel) {
  case 1: VXF(k_p2p_fast)<1, T><<<nb, nthr, 0, s>>>(A); break;
  case 2: VXF(k_p2p_fast)<2, T><<<nb, nthr, 0, s>>>(A); break;
  case 3: VXF(k_p2p_fast)<3, T><<<nb, nthr, 0, s>>>(A); break;
  case 4: VXF(k_p2p_fast)<4, T><<<nb, nthr, 0, s>>>(A); break;
  default: VXF(k_p2p_fast)<0, T><<<nb, nthr, 0, s>>>(A); break;
  }
}

/* P2P into vn/gn: the kernel p2p_targets_per_thread chose (E->p2p_fast): k_p2p_fast<T> with
 * max(1, CH / 32T) warps a chunk, or k_p2p with CH threads; the same chunks either way. */
static int VXF(launch_p2p)(VXF(gpu_eval) *E, vx_real *vn, vx_real *gn, char *err, size_t errlen) {
  const oct_tree_gpu *t = E->t;
  const fmm_params *P = E->P;
  const int T = E->p2p_fast, nb = E->chunk_bound;
  if (T == 0) {
    VXF(k_p2p)<<<nb, E->CH, 0, E->sn>>>((int)P->kernel, (vx_real)P->sigma, E->want_grad, E->n_grad, E->nchunk, E->cleaf,
                                        E->crange, t->tgt_order, t->src_start, t->nbr_start, t->nbr, E->tx,
                                        E->ty, E->tz, E->sx, E->sy, E->sz, E->sax, E->say, E->saz, vn, gn);
    VX_CUR_LAUNCH(p2p);
    return 0;
  }
  const VXF(p2p_args) A = VXF(p2p_args_of)(E, vn, gn);
  const int nthr = E->CH > 32 * T ? E->CH / T : 32;
  switch (T) {
  case 1: VXF(launch_p2p_fast)<1>(A, nb, nthr, E->sn); break;
  case 2: VXF(launch_p2p_fast)<2>(A, nb, nthr, E->sn); break;
  default: VXF(launch_p2p_fast)<4>(A, nb, nthr, E->sn); break;
  }
  VX_CUR_LAUNCH(p2p_fast);
  return 0;
}

/* Step 4: the near field (P2P, then the regularization corrections) on its own stream, concurrent
 * with the far field (G->serial: after it, on the same stream, so that each phase can be timed alone). */
static int VXF(eval_near)(VXF(gpu_eval) *E, char *err, size_t errlen) {
  const oct_tree_gpu *t = E->t;
  const fmm_params *P = E->P;
  const fmm_corr *cr = &E->cr;
  if (E->G->serial) E->sn = E->sf;
  VX_CUR(cudaStreamWaitEvent(E->sn, E->ev[EV_GATHER], 0));
  VX_CUR(cudaEventRecord(E->ev[EV_NEAR0], E->sn));
  vx_real *vn = (vx_real *)E->G->vnear.ptr, *gn = (vx_real *)E->G->gnear.ptr;
  if (VXF(launch_p2p)(E, vn, gn, err, errlen)) return -1;
  VX_CUR(cudaEventRecord(E->ev[EV_CORR], E->sn));
  if (cr->on) {
    VXF(k_corr)<<<E->chunk_bound, E->CH, 0, E->sn>>>((int)P->kernel, (vx_real)P->sigma, (vx_real)cr->rc2, (vx_real)cr->rc2v,
                                                     cr->reach2, cr->reach2v, E->L, cr->Lc, E->want_grad, E->n_grad,
                                                     E->nchunk, E->cleaf, E->crange, t->tgt_order, t->tgt_key[E->L],
                                                     t->nsrc[E->L],
                                                     t->src_key[E->L], t->src_start, E->tx, E->ty, E->tz, E->sx, E->sy, E->sz,
                                                     E->sax, E->say, E->saz, vn, gn);
    VX_CUR_LAUNCH(corr);
  }
  VX_CUR(cudaEventRecord(E->ev[EV_NEAR1], E->sn));
  return 0;
}

/* Step 5: the upward pass, P2M at the leaves and M2M to level 2. */
static int VXF(eval_upward)(VXF(gpu_eval) *E, const VXF(dtab) *T, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const fmm_smem_plan *pl = &E->pl;
  const int L = E->L;
  const int nl = t->nsrc[L], spec = G->p2m_spec && (E->p == 6 || E->p == 8 || E->p == 12);
  int wl = G->p2m_wl ? G->p2m_wl : p2m_warps_per_leaf(E->ns, nl, pl->w_p2m, E->p, G->n_sm);
  while (wl > 1 && pl->w_p2m % wl) wl /= 2; /* a divisor of the block's warps */
  const dim3 gp2m((unsigned)(spec ? vx_ceil_div(nl, pl->w_p2m / wl) : nl)), bp2m(32 * pl->w_p2m);
#define VX_P2M_ARGS t->src_key[L], t->src_start, E->sx, E->sy, E->sz, E->sax, E->say, E->saz, t->lo[0], t->lo[1], \
                    t->lo[2], E->h, (vx_real *)G->mpole[L].ptr
  switch (spec ? E->p : 0) {
  case 6: VXF(k_p2m_spec)<6><<<gp2m, bp2m, pl->p2m, E->sf>>>(nl, wl, VX_P2M_ARGS); break;
  case 8: VXF(k_p2m_spec)<8><<<gp2m, bp2m, pl->p2m, E->sf>>>(nl, wl, VX_P2M_ARGS); break;
  case 12: VXF(k_p2m_spec)<12><<<gp2m, bp2m, pl->p2m, E->sf>>>(nl, wl, VX_P2M_ARGS); break;
  default: VXF(k_p2m)<<<gp2m, bp2m, pl->p2m, E->sf>>>(E->p, VX_P2M_ARGS); break;
  }
#undef VX_P2M_ARGS
  VX_CUR_LAUNCH(p2m);
  VX_CUR(cudaEventRecord(E->ev[EV_P2M], E->sf));
  for (int l = L - 1; l >= 2; --l) {
    VXF(k_m2m)<<<t->nsrc[l], 32 * pl->w_m2m, pl->m2m, E->sf>>>(*T, t->src_child[l], t->src_key[l + 1],
                                                                (const vx_real *)G->mpole[l + 1].ptr, (vx_real *)G->mpole[l].ptr);
    VX_CUR_LAUNCH(m2m);
  }
  VX_CUR(cudaEventRecord(E->ev[EV_M2M], E->sf));
  return 0;
}

/* k_m2l_dense<P> for level l >= 3 into Ll, its operators built and uploaded at the first call for
 * this order and precision (gpu_tables.dense). */
template <int P>
static int VXF(launch_m2l_dense)(VXF(gpu_eval) *E, int l, vx_real *Ll, char *err, size_t errlen) {
  typedef VXF(dense_cfg)<P> C;
  gpu_tables *D = &E->G->tab;
  if (!D->dense_ok) {
    vx_real *host = NULL;
    VXF(dense_build)<P>(&E->ctx->tab, &host);
    if (dense_upload(&D->dense, host, sizeof(vx_real) * C::TAB, "dense M2L operators", P, err, errlen)) return -1;
    VX_CUR(cudaFuncSetAttribute(VXF(k_m2l_dense)<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
    D->dense_ok = 1;
  }
  const oct_tree_gpu *t = E->t;
  const dim3 grid((unsigned)vx_ceil_div(t->ntgt[l - 1], C::TJ), 8);
  VXF(k_m2l_dense)<P><<<grid, 32 * C::RW, C::SMEM, E->sf>>>((const vx_real *)D->dense.ptr, (const int *)D->m2l_deg.ptr,
                                                         l, t->ntgt[l - 1], t->tgt_child[l - 1], t->tgt_key[l],
                                                         t->src_map[l], (const vx_real *)E->G->mpole[l].ptr, Ll);
  VX_CUR_LAUNCH(m2l_dense);
  E->s.m2l_dense_levels++;
  return 0;
}

#ifdef VX_FLOAT_INST
/* k_m2l_tc<P> for level l >= 3 into Ll, its operators built and uploaded at the first call for this
 * order (gpu_tables.dense_tc). */
template <int P>
static int launch_m2l_tc(gpu_eval_f *E, int l, int parts, float *Ll, char *err, size_t errlen) {
  typedef tc_cfg<P> C;
  gpu_tables *D = &E->G->tab;
  if (!D->dense_tc_ok) {
    float *host = NULL;
    tc_build<P>(&E->ctx->tab, &host);
    if (dense_upload(&D->dense_tc, host, sizeof(float) * C::TAB, "tensor-core M2L operators", P, err, errlen)) return -1;
    VX_CUR(cudaFuncSetAttribute(k_m2l_tc<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
    D->dense_tc_ok = 1;
  }
  const oct_tree_gpu *t = E->t;
  const size_t n = (size_t)t->ntgt[l] * 3 * C::NC;
  float *Pt = NULL;
  if (parts > 1) {
    if (gpu_reserve(&E->G->m2l_part, sizeof(float) * parts * n, "split M2L sums", err, errlen)) return -1;
    Pt = (float *)E->G->m2l_part.ptr;
  }
  const dim3 grid((unsigned)vx_ceil_div(t->ntgt[l - 1], C::TJ), 8, (unsigned)parts);
  k_m2l_tc<P><<<grid, 256, C::SMEM, E->sf>>>((const float *)D->dense_tc.ptr, (const int *)D->m2l_deg.ptr, l,
                                             t->ntgt[l - 1], t->tgt_child[l - 1], t->tgt_key[l], t->src_map[l],
                                             (const float *)E->G->mpole[l].ptr, Ll, Pt);
  VX_CUR_LAUNCH(m2l_tc);
  if (parts > 1) {
    const size_t nb = (n + 255) / 256;
    k_m2l_parts_sum<<<(unsigned)(nb < 4096 ? nb : 4096), 256, 0, E->sf>>>(Pt, parts, n, Ll);
    VX_CUR_LAUNCH(m2l_parts_sum);
  }
  E->s.m2l_dense_levels++;
  E->s.m2l_dense_tc = 1;
  return 0;
}
#endif

/* fmm_gpu_m2l_dense_full in this precision for order P: the full level l and its parents built on
 * the host, k_m2l_dense<P> (tc 0) or, in float, k_m2l_tc<P> (tc 1) with its stages split into
 * `parts` (then k_m2l_parts_sum) run once on the legacy stream. */
template <int P>
static int VXF(m2l_dense_full)(int l, int tc, int parts, const double *M, double *L, char *err, size_t errlen) {
  typedef VXF(dense_cfg)<P> C;
  const int nb = 1 << (3 * l), np = nb / 8;
  const size_t ne = (size_t)nb * 3 * C::NC;
  fmm_tables T;
  if (fmm_tables_build(&T, P, err, errlen)) return -1;
  vx_real *tab = NULL, *hM = (vx_real *)malloc(sizeof(vx_real) * ne);
  int *child = (int *)malloc(sizeof(int) * (np + 1)), *map = (int *)malloc(sizeof(int) * nb);
  uint32_t *key = (uint32_t *)malloc(sizeof(uint32_t) * nb);
  void *dD = NULL, *dM = NULL, *dL = NULL, *dchild = NULL, *dmap = NULL, *dkey = NULL, *ddeg = NULL, *dP = NULL;
  int rc = -1;
  size_t ntab = C::TAB;
#ifdef VX_FLOAT_INST
  if (tc) ntab = tc_cfg<P>::TAB;
  const int built = tc ? tc_build<P>(&T, &tab) : VXF(dense_build)<P>(&T, &tab);
#else
  const int built = tc ? -1 : VXF(dense_build)<P>(&T, &tab);
  (void)parts; /* k_m2l_tc is float only */
#endif
  if (built || !hM || !child || !map || !key) {
    snprintf(err, errlen, "out of host memory");
    goto done;
  }
  for (int b = 0; b < nb; ++b) key[b] = (uint32_t)b, map[b] = b;
  for (int q = 0; q <= np; ++q) child[q] = 8 * q;
  for (size_t i = 0; i < ne; ++i) hM[i] = (vx_real)M[i];
  VX_CU(cudaMalloc(&dD, sizeof(vx_real) * ntab));
  VX_CU(cudaMalloc(&dM, sizeof(vx_real) * ne));
  VX_CU(cudaMalloc(&dL, sizeof(vx_real) * ne));
  VX_CU(cudaMalloc(&dchild, sizeof(int) * (np + 1)));
  VX_CU(cudaMalloc(&dmap, sizeof(int) * nb));
  VX_CU(cudaMalloc(&dkey, sizeof(uint32_t) * nb));
  VX_CU(cudaMalloc(&ddeg, sizeof(int) * VX_GEO_N));
  VX_CU(cudaMemcpy(ddeg, T.m2l_deg, sizeof(int) * VX_GEO_N, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(dD, tab, sizeof(vx_real) * ntab, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(dM, hM, sizeof(vx_real) * ne, cudaMemcpyHostToDevice));
  VX_CU(cudaMemset(dL, 0, sizeof(vx_real) * ne));
  VX_CU(cudaMemcpy(dchild, child, sizeof(int) * (np + 1), cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(dmap, map, sizeof(int) * nb, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(dkey, key, sizeof(uint32_t) * nb, cudaMemcpyHostToDevice));
#ifdef VX_FLOAT_INST
  if (tc) {
    VX_CU(cudaFuncSetAttribute(k_m2l_tc<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)tc_cfg<P>::SMEM));
    if (parts > 1) VX_CU(cudaMalloc(&dP, sizeof(float) * parts * ne));
    k_m2l_tc<P><<<dim3((unsigned)vx_ceil_div(np, tc_cfg<P>::TJ), 8, (unsigned)parts), 256, tc_cfg<P>::SMEM>>>(
        (const float *)dD, (const int *)ddeg, l, np, (const int *)dchild, (const uint32_t *)dkey, (const int *)dmap,
        (const float *)dM, (float *)dL, (float *)dP);
    VX_CU(cudaGetLastError());
    if (parts > 1) k_m2l_parts_sum<<<256, 256>>>((const float *)dP, parts, ne, (float *)dL);
  } else
#endif
  {
    VX_CU(cudaFuncSetAttribute(VXF(k_m2l_dense)<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
    VXF(k_m2l_dense)<P><<<dim3((unsigned)vx_ceil_div(np, C::TJ), 8), 32 * C::RW, C::SMEM>>>(
        (const vx_real *)dD, (const int *)ddeg, l, np, (const int *)dchild, (const uint32_t *)dkey, (const int *)dmap,
        (const vx_real *)dM, (vx_real *)dL);
  }
  VX_CU(cudaGetLastError());
  VX_CU(cudaMemcpy(hM, dL, sizeof(vx_real) * ne, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < ne; ++i) L[i] = (double)hM[i];
  rc = 0;
fail:
done:
  cudaFree(dD); cudaFree(dM); cudaFree(dL); cudaFree(dchild);
  cudaFree(dmap); cudaFree(dkey); cudaFree(ddeg); cudaFree(dP);
  free(tab); free(hM); free(child); free(map); free(key);
  fmm_tables_free(&T);
  return rc;
}

/* Whether this evaluation's dense M2L runs k_m2l_tc (m2l_tc_on). */
static int VXF(m2l_uses_tc)(const VXF(gpu_eval) *E) { return m2l_tc_on(E->G, sizeof(vx_real) == sizeof(float)); }

/* The shared memory of the dense kernel that would run for order p (k_m2l_tc or k_m2l_dense). */
static size_t VXF(m2l_dense_smem)(const VXF(gpu_eval) *E, int p) {
  if (VXF(m2l_uses_tc)(E)) return p == 6 ? tc_cfg<6>::SMEM : p == 8 ? tc_cfg<8>::SMEM : tc_cfg<12>::SMEM;
  return p == 6 ? VXF(dense_cfg)<6>::SMEM : p == 8 ? VXF(dense_cfg)<8>::SMEM : VXF(dense_cfg)<12>::SMEM;
}

/* Whether level l's M2L runs a dense kernel (k_m2l_tc where m2l_uses_tc, else k_m2l_dense), and for
 * k_m2l_tc into how many parts its stages split (m2l_tc_parts; 0: no dense kernel): an order they
 * are built for (that of k_m2l_spec), their ~100 KB of shared memory within the device's opt-in
 * (not on sm_75; p = 12 not on sm_86/89), l >= 3 (the targets are found through their parents), and
 * VX_M2L=dense or tc, or under auto (float, p = 8) a level with blocks enough to fill the device
 * VX_M2L_DENSE_WAVES times over (k_m2l_tc: three quarters of that after its split) whose translations
 * fill at least VX_M2L_TC_FILL (tensor cores) or VX_M2L_DENSE_FILL of the launched tiles' 189 slots a
 * target (E->s.m2l_fill, recorded here). */
static int VXF(m2l_dense_pays)(VXF(gpu_eval) *E, int l) {
  const oct_tree_gpu *t = E->t;
  if (l < 3 || t->ntgt[l - 1] <= 0) return 0;
  /* the tile of the dense kernel that would run (the same for every order) */
  const int tc = VXF(m2l_uses_tc)(E), tj = tc ? tc_cfg<8>::TJ : VXF(dense_cfg)<8>::TJ;
  const int tiles = vx_ceil_div(t->ntgt[l - 1], tj), parts = tc ? m2l_tc_parts(8 * tiles, E->G->n_sm) : 1;
  E->s.m2l_fill[l] = t->n_il[l] / (8.0 * 189.0 * tj * tiles);
  if (!E->m2l_spec || E->G->m2l_dense < 0 || VXF(m2l_dense_smem)(E, E->m2l_spec) > E->G->smem_optin) return 0;
  if (E->G->m2l_dense == 1) return 1;
  if (E->G->m2l_dense == 2) return tc ? parts : 0;
  /* auto: float at p = 8, where it was measured faster; double p = 12 at level 5 of 2^20 ran 6 %
   * slower (107.5 against 101.0 ms), and p = 6 and 12 in float were not measured */
  if (sizeof(vx_real) != sizeof(float) || E->m2l_spec != 8) return 0;
  const double fill = tc ? VX_M2L_TC_FILL : VX_M2L_DENSE_FILL;
  /* a level that fills the device, or, split, three quarters of it */
  const double blocks = 8.0 * tiles * parts, slots = VX_M2L_DENSE_WAVES * E->G->n_sm;
  return (parts > 1 ? 4.0 * blocks >= 3.0 * slots : blocks >= slots) && E->s.m2l_fill[l] >= fill ? parts : 0;
}

/* The M2L of level l into Ll: a dense kernel where m2l_dense_pays (k_m2l_tc or k_m2l_dense); else
 * the kernel specialised for the order when there is one and VX_M2L does not ask for the generic
 * one (E->m2l_spec), else k_m2l; those two on the same grid, block and shared memory. */
static int VXF(launch_m2l)(VXF(gpu_eval) *E, const VXF(dtab) *T, int l, vx_real *Ll, char *err, size_t errlen) {
  const oct_tree_gpu *t = E->t;
  const int nb = t->ntgt[l], nt = 32 * E->pl.w_m2l;
  const size_t sm = E->pl.m2l;
  const vx_real *Ml = (const vx_real *)E->G->mpole[l].ptr;
  const int dense = VXF(m2l_dense_pays)(E, l); /* k_m2l_tc: the parts its stages are split into */
#ifdef VX_FLOAT_INST
  if (dense && m2l_uses_tc_f(E)) switch (E->m2l_spec) {
    case 6: return launch_m2l_tc<6>(E, l, dense, Ll, err, errlen);
    case 8: return launch_m2l_tc<8>(E, l, dense, Ll, err, errlen);
    default: return launch_m2l_tc<12>(E, l, dense, Ll, err, errlen);
    }
#endif
  if (dense) switch (E->m2l_spec) {
    case 6: return VXF(launch_m2l_dense)<6>(E, l, Ll, err, errlen);
    case 8: return VXF(launch_m2l_dense)<8>(E, l, Ll, err, errlen);
    default: return VXF(launch_m2l_dense)<12>(E, l, Ll, err, errlen);
    }
  switch (E->m2l_spec) {
  case 6:
    VXF(k_m2l_spec)<6><<<nb, nt, sm, E->sf>>>(*T, t->tgt_key[l], t->src_key[l], t->il_start[l], t->il[l], Ml, Ll);
    break;
  case 8:
    VXF(k_m2l_spec)<8><<<nb, nt, sm, E->sf>>>(*T, t->tgt_key[l], t->src_key[l], t->il_start[l], t->il[l], Ml, Ll);
    break;
  case 12:
    VXF(k_m2l_spec)<12><<<nb, nt, sm, E->sf>>>(*T, t->tgt_key[l], t->src_key[l], t->il_start[l], t->il[l], Ml, Ll);
    break;
  default:
    VXF(k_m2l)<<<nb, nt, sm, E->sf>>>(*T, t->tgt_key[l], t->src_key[l], t->il_start[l], t->il[l], Ml, Ll);
    break;
  }
  VX_CUR_LAUNCH(m2l);
  return 0;
}

/* Step 6: the downward pass, level by level: L2L from the parent, then M2L from the interaction list. */
static int VXF(eval_downward)(VXF(gpu_eval) *E, const VXF(dtab) *T, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const fmm_smem_plan *pl = &E->pl;
  const int Wl = pl->w_l2l;
  for (int l = 2; l <= E->L; ++l) {
    vx_real *Ll = (vx_real *)G->local[l].ptr;
    VX_CUR(cudaEventRecord(E->ev[EV_LVL + 2 * l], E->sf));
    VX_CUR(cudaMemsetAsync(Ll, 0, 3 * E->rs * E->nc * (size_t)t->ntgt[l], E->sf));
    if (l > 2) {
      VXF(k_l2l)<<<vx_ceil_div(t->ntgt[l], Wl), 32 * Wl, pl->l2l, E->sf>>>(*T, t->ntgt[l], t->tgt_parent[l], t->tgt_key[l],
                                                                          (const vx_real *)G->local[l - 1].ptr, Ll);
      VX_CUR_LAUNCH(l2l);
    }
    VX_CUR(cudaEventRecord(E->ev[EV_LVL + 2 * l + 1], E->sf));
    if (t->ntgt[l] > 0 && VXF(launch_m2l)(E, T, l, Ll, err, errlen)) return -1;
    E->s.n_m2l += t->n_il[l];
  }
  VX_CUR(cudaEventRecord(E->ev[EV_DOWN], E->sf));
  return 0;
}

/* Whether k_l2p forms each chunk's derivative expansions itself (k_l2p_deriv not launched): where the
 * leaves hold on average at most VX_L2P_FUSED_MAX targets (chunks of 32 or 64), so that few leaves'
 * expansions are formed more than once, and the block's larger shared memory fits. H100, float
 * p = 8 (docs/BENCHMARKS.md): 2^20 uniform points, 32 a leaf, L2P 1.30 → 0.92 ms; 2^20 rings, 111
 * a leaf, 0.533 → 0.515 ms; but `leapfrog_big`'s tracers, 120 a leaf on average and thousands
 * in the leaves by the cores, 0.37 → 0.39 ms a call: there the leaves' chunks repeat the work. */
#define VX_L2P_FUSED_MAX 64
static int VXF(l2p_fused)(const VXF(gpu_eval) *E) {
  if (E->pl.l2p_fused == 0 || E->G->l2p_fused == 0) return 0;
  return E->G->l2p_fused == 1 || (E->nleaf > 0 && E->nt <= (long long)VX_L2P_FUSED_MAX * E->nleaf);
}

/* Step 7: L2P: derivative expansions per leaf, then, once the near field is done, a thread per
 * target adding far and near into the caller's order. */
static int VXF(eval_l2p_combine)(VXF(gpu_eval) *E, char *err, size_t errlen) {
  fmm_gpu *G = E->G;
  const oct_tree_gpu *t = E->t;
  const fmm_smem_plan *pl = &E->pl;
  const size_t dper = pl->dper;
  const int fused = VXF(l2p_fused)(E);
  if (!fused && dper && gpu_reserve(&G->dloc, E->rs * dper * (size_t)E->nleaf, "L2P derivative expansions", err, errlen))
    return -1;
  if (E->p >= 1 && !fused) {
    const int nthr = VXF(l2p_deriv_threads)(E->p);
    VXF(k_l2p_deriv)<<<E->nleaf, nthr, pl->l2p_deriv, E->sf>>>(E->p, E->want_grad, E->n_grad, t->tgt_order, t->tgt_start,
                                                              pl->l2p_stage, dper, (const vx_real *)G->local[E->L].ptr,
                                                              (vx_real *)G->dloc.ptr);
    VX_CUR_LAUNCH(l2p_deriv);
  }
  VX_CUR(cudaEventRecord(E->ev[EV_L2PD], E->sf));
  VX_CUR(cudaStreamWaitEvent(E->sf, E->ev[EV_NEAR1], 0));
  VX_CUR(cudaEventRecord(E->ev[EV_L2PW], E->sf));
  VXF(k_l2p)<<<E->chunk_bound, E->CH, fused ? pl->l2p_fused : pl->l2p, E->sf>>>(
      E->p, E->want_grad, E->n_grad, E->nchunk, E->cleaf, E->crange, t->tgt_order, t->tgt_key[E->L], E->tx, E->ty,
      E->tz, t->lo[0], t->lo[1], t->lo[2], E->h, dper, fused ? NULL : (const vx_real *)G->dloc.ptr,
      (const vx_real *)G->local[E->L].ptr, (const vx_real *)G->tab.raise.ptr, (const vx_real *)G->vnear.ptr,
      (const vx_real *)G->gnear.ptr, E->vel, E->grad);
  VX_CUR_LAUNCH(l2p);
  VX_CUR(cudaEventRecord(E->ev[EV_L2P], E->sf));
  VX_CUR(cudaEventRecord(E->ev[EV_END], E->sf));
  return 0;
}

/* Step 8: the outputs back to host arrays when the caller gave those, then the phase times from the events. */
static int VXF(eval_finish)(VXF(gpu_eval) *E, const fmm_io *io, char *err, size_t errlen) {
  cudaEvent_t *ev = E->ev;
  fmm_stats *s = &E->s;
  float ms, c0, c1;
  if (!io->on_device) {
    VX_CUR(cudaMemcpyAsync(io->vel, E->vel, 3 * E->rs * (size_t)E->nt, cudaMemcpyDeviceToHost, E->sf));
    if (E->want_grad) VX_CUR(cudaMemcpyAsync(io->grad, E->grad, 9 * E->rs * (size_t)E->n_grad, cudaMemcpyDeviceToHost, E->sf));
  }
  VX_CUR(cudaEventRecord(ev[EV_COPY1], E->sf));
  VX_CUR(cudaEventSynchronize(ev[EV_COPY1]));
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_START], ev[EV_END])); s->t_total = ms;
  VX_CUR(cudaEventElapsedTime(&c0, ev[EV_COPY0], ev[EV_START]));
  VX_CUR(cudaEventElapsedTime(&c1, ev[EV_END], ev[EV_COPY1]));
  s->t_copy = c0 + c1;
  if (E->ns == 0) return 0;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_START], ev[EV_TREE])); s->t_tree = ms;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_GATHER], ev[EV_P2M])); s->t_p2m = ms;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_P2M], ev[EV_M2M])); s->t_m2m = ms;
  for (int l = 2; l <= s->levels; ++l) {
    float a, b2;
    VX_CUR(cudaEventElapsedTime(&a, ev[EV_LVL + 2 * l], ev[EV_LVL + 2 * l + 1]));
    VX_CUR(cudaEventElapsedTime(&b2, ev[EV_LVL + 2 * l + 1], l < s->levels ? ev[EV_LVL + 2 * l + 2] : ev[EV_DOWN]));
    s->t_l2l += a; s->t_m2l += b2;
    s->t_m2l_level[l] = b2;
  }
  float wait;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_DOWN], ev[EV_L2P]));
  VX_CUR(cudaEventElapsedTime(&wait, ev[EV_L2PD], ev[EV_L2PW]));
  s->t_l2p = ms - wait; /* not the wait for the near field, which k_l2p adds in */
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_NEAR0], ev[EV_NEAR1])); s->t_p2p = ms;
  VX_CUR(cudaEventElapsedTime(&ms, ev[EV_CORR], ev[EV_NEAR1])); s->t_corr = ms;
  return 0;
}

int VXF(gpu_evaluate)(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  VXF(gpu_eval) E;
  memset(&E, 0, sizeof E);
  E.ctx = ctx, E.G = (fmm_gpu *)ctx->gpu, E.P = &ctx->prm;
  E.p = E.P->order, E.nc = VX_NCOEF(E.p), E.ns = io->n_src, E.nt = io->n_tgt;
  E.want_grad = E.P->gradient && io->grad;
  E.n_grad = (io->n_grad > 0 && io->n_grad < E.nt) ? io->n_grad : E.nt;
  E.rs = sizeof(vx_real);
  E.sf = E.G->s_far, E.sn = E.G->s_near, E.ev = E.G->ev;
  E.m2l_spec = m2l_spec_order(E.G, E.p);
  E.s.m2l_kernel = E.m2l_spec;
  E.p2p_fast = p2p_targets_per_thread(E.G);
  E.s.p2p_kernel = E.p2p_fast;
  if (E.nt == 0) { if (st) *st = E.s; return 0; }
  if (VXF(eval_inputs)(&E, io, err, errlen)) return -1;
  VX_CUR(cudaEventRecord(E.ev[EV_START], E.sf));
  if (E.ns == 0) { /* no sources: zero velocities and gradients */
    VX_CUR(cudaMemsetAsync(E.vel, 0, 3 * E.rs * (size_t)E.nt, E.sf));
    if (E.want_grad) VX_CUR(cudaMemsetAsync(E.grad, 0, 9 * E.rs * (size_t)E.n_grad, E.sf));
    VX_CUR(cudaEventRecord(E.ev[EV_END], E.sf));
  } else {
    if (VXF(eval_tree)(&E, io, err, errlen) || VXF(eval_gather)(&E, err, errlen) || VXF(eval_near)(&E, err, errlen)) return -1;
    VXF(dtab) T = VXF(make_dtab)(E.G, E.p);
    if (VXF(eval_upward)(&E, &T, err, errlen) || VXF(eval_downward)(&E, &T, err, errlen) ||
        VXF(eval_l2p_combine)(&E, err, errlen))
      return -1;
  }
  if (VXF(eval_finish)(&E, io, err, errlen)) return -1;
  if (st) *st = E.s;
  return 0;
}

int VXF(gpu_direct)(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  fmm_gpu *G = (fmm_gpu *)ctx->gpu;
  const fmm_params *P = &ctx->prm;
  const int ns = io->n_src, nt = io->n_tgt, want_grad = P->gradient && io->grad;
  const int n_grad = (io->n_grad > 0 && io->n_grad < nt) ? io->n_grad : nt;
  const size_t rs = sizeof(vx_real);
  cudaStream_t sf = G->s_far;
  VX_CUR(cudaEventRecord(G->ev[EV_CALLER], cudaStreamLegacy));
  VX_CUR(cudaStreamWaitEvent(sf, G->ev[EV_CALLER], 0));
  fmm_stats s;
  memset(&s, 0, sizeof s);
  if (nt == 0) { if (st) *st = s; return 0; }
  const vx_real *spos, *sstr, *tpos;
  vx_real *vel, *grad;
  VX_CUR(cudaEventRecord(G->ev[EV_COPY0], sf));
  if (io->on_device) {
    spos = (const vx_real *)io->src_pos; sstr = (const vx_real *)io->src_str; tpos = (const vx_real *)io->tgt_pos;
    vel = (vx_real *)io->vel; grad = (vx_real *)io->grad;
  } else {
    if (gpu_reserve(&G->in_spos, 3 * rs * (size_t)ns, "source positions", err, errlen) ||
        gpu_reserve(&G->in_sstr, 3 * rs * (size_t)ns, "source strengths", err, errlen) ||
        gpu_reserve(&G->in_tpos, 3 * rs * (size_t)nt, "target positions", err, errlen) ||
        gpu_reserve(&G->out_vel, 3 * rs * (size_t)nt, "velocities", err, errlen) ||
        (want_grad && gpu_reserve(&G->out_grad, 9 * rs * (size_t)nt, "gradients", err, errlen)))
      return -1;
    if (ns) VX_CUR(cudaMemcpyAsync(G->in_spos.ptr, io->src_pos, 3 * rs * (size_t)ns, cudaMemcpyHostToDevice, sf));
    if (ns) VX_CUR(cudaMemcpyAsync(G->in_sstr.ptr, io->src_str, 3 * rs * (size_t)ns, cudaMemcpyHostToDevice, sf));
    VX_CUR(cudaMemcpyAsync(G->in_tpos.ptr, io->tgt_pos, 3 * rs * (size_t)nt, cudaMemcpyHostToDevice, sf));
    spos = (const vx_real *)G->in_spos.ptr; sstr = (const vx_real *)G->in_sstr.ptr; tpos = (const vx_real *)G->in_tpos.ptr;
    vel = (vx_real *)G->out_vel.ptr; grad = want_grad ? (vx_real *)G->out_grad.ptr : NULL;
  }
  const int tb = vx_ceil_div(nt, VX_DIRECT_THREADS), span = direct_span(ns, tb, G->n_sm, VX_DIRECT_THREADS);
  const int nspan = ns > 0 ? vx_ceil_div(ns, span) : 1;
  vx_real *part = NULL;
  if (nspan > 1) {
    if (gpu_reserve(&G->direct_part, rs * VX_DIRECT_PLANES * (size_t)nspan * nt, "the direct sum's partial sums", err,
                    errlen))
      return -1;
    part = (vx_real *)G->direct_part.ptr;
  }
  VX_CUR(cudaEventRecord(G->ev[EV_START], sf));
  VXF(k_direct)<<<dim3(tb, nspan), VX_DIRECT_THREADS, 0, sf>>>((int)P->kernel, (vx_real)P->sigma, want_grad, n_grad, ns,
                                                                 nt, span, spos, sstr, tpos, vel, grad, part);
  VX_CUR_LAUNCH(direct);
  if (part) {
    VXF(k_direct_sum)<<<tb, VX_DIRECT_THREADS, 0, sf>>>(want_grad, n_grad, nt, nspan, part, vel, grad);
    VX_CUR_LAUNCH(direct_sum);
  }
  VX_CUR(cudaEventRecord(G->ev[EV_END], sf));
  if (!io->on_device) {
    VX_CUR(cudaMemcpyAsync(io->vel, vel, 3 * rs * (size_t)nt, cudaMemcpyDeviceToHost, sf));
    if (want_grad) VX_CUR(cudaMemcpyAsync(io->grad, grad, 9 * rs * (size_t)n_grad, cudaMemcpyDeviceToHost, sf));
  }
  VX_CUR(cudaEventRecord(G->ev[EV_COPY1], sf));
  VX_CUR(cudaEventSynchronize(G->ev[EV_COPY1]));
  {
    float ms, c0, c1;
    VX_CUR(cudaEventElapsedTime(&ms, G->ev[EV_START], G->ev[EV_END]));
    VX_CUR(cudaEventElapsedTime(&c0, G->ev[EV_COPY0], G->ev[EV_START]));
    VX_CUR(cudaEventElapsedTime(&c1, G->ev[EV_END], G->ev[EV_COPY1]));
    s.t_total = ms; s.t_p2p = ms; s.t_copy = c0 + c1;
    s.n_p2p = (long long)ns * nt;
  }
  if (st) *st = s;
  return 0;
}
