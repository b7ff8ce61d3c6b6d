/* gpu_l2p_t.cuh — L2P: the leaves' local expansions evaluated at their targets, far field plus the
 * near field's sums written in the caller's order; templated on precision (included by fmm_gpu.cu
 * once per precision). A block per leaf forms its derivative expansions (k_l2p_deriv), or, where
 * leaves are small (l2p_fused), each chunk's block forms them itself; then a thread per target. */

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
 * caller's target order in vel/grad: one pass over the targets' outputs, where a separate far-field
 * array and a combining kernel would make three. */
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
