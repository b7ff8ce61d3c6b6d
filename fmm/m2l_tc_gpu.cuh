/* m2l_tc_gpu.cuh — the dense M2L on the tensor cores (float only, sm_80 and newer), included once
 * by fmm_gpu.cu before the two precisions' gpu_*_t.cuh headers (gpu_m2l_t.cuh launches it).
 *
 * Each translation is a product with its offset's operator D_g (fmm_m2l_dense, tables.h; built
 * from rcr_translate, the math's one home; docs/MATH.md §8), the translations of a level grouped by
 * offset so that one staged operator serves a tile of targets: a block takes one octant q and a
 * tile of TJ = 64 parents at level l-1, its targets those parents' children of octant q, which
 * share the octant's 189 offsets. Over the tile the whole M2L is one matrix product
 *   Lᵀ[(j, c)][i] += Σ over rows (o, k) of A[(j, c)][(o, k)] · B[(o, k)][i],
 * A the sources' multipoles (target j's source under offset o, coefficient k, component c) and
 * B = D_gᵀ, g the offset's geometry, its rows padded to 8·⌈NC/8⌉ outputs. Only the rows k < (n_s+1)²
 * of each offset enter (the multipole degrees its M2L reads, the tables' m2l_deg, docs/MATH.md §13:
 * D_g's other columns are zero); they run in stages of KC rows, one after another whatever offset
 * they belong to, through shared memory (cp.async, double-buffered), and each warp multiplies
 * its 48 × 8·NTW corner with mma.sync m16n8k8 in TF32, three times per product for float
 * accuracy ("3xTF32": a·b ≈ a_hi·b_hi + a_hi·b_lo + a_lo·b_hi, hi = a rounded to TF32's 10-bit
 * mantissa, lo = the rest rounded again; the operators are split once on the host, tc_build, the
 * multipoles in registers). Sums run over the rows in a fixed order: repeatable. */
#include <stdint.h>

/* The offset of slot `slot` in octant q. */
__device__ static __forceinline__ void dense_slot_offset(int slot, int q, int *dx, int *dy, int *dz) {
  *dx = slot / 36 - 2 - (q & 1), *dy = slot / 6 % 6 - 2 - ((q >> 1) & 1), *dz = slot % 6 - 2 - (q >> 2);
}

/* k_m2l_tc's tile setup: thread j < tj finds its parent's child of octant q
 * (tbox[j], -1: none) and packs that child's coordinates (tc[j]); thread 0 lists the octant's 189
 * offset slots (vs: slot = 36(dx+2+qx) + 6(dy+2+qy) + dz+2+qz, |v|∞ ≥ 2) and their units of work:
 * us[o] of the slots before o, a slot's rows (the (deg+1)² multipole coefficients its M2L reads,
 * deg = the tables' m2l_deg of its offset) in runs of `unit` rows, rounded up. Whether any target exists. */
__device__ static __forceinline__ int dense_tile_setup(int tj, int q, int npar, const int *__restrict__ pchild,
                                                       const uint32_t *__restrict__ tkey, const int *__restrict__ deg,
                                                       int unit, int *tbox, int *tc, short *us, unsigned char *vs) {
  int me = -1;
  if ((int)threadIdx.x < tj) {
    const int par = blockIdx.x * tj + threadIdx.x;
    int x = 0, y = 0, z = 0;
    if (par < npar)
      for (int c = pchild[par]; c < pchild[par + 1]; ++c)
        if ((tkey[c] & 7u) == (uint32_t)q) me = c;
    if (me >= 0) oct_demorton3(tkey[me], &x, &y, &z);
    tbox[threadIdx.x] = me;
    tc[threadIdx.x] = me >= 0 ? x | y << 10 | z << 20 : -1;
  }
  if (threadIdx.x == 0) {
    us[0] = 0;
    for (int slot = 0, n = 0; slot < 216; ++slot) {
      int dx, dy, dz;
      dense_slot_offset(slot, q, &dx, &dy, &dz);
      if (abs(dx) <= 1 && abs(dy) <= 1 && abs(dz) <= 1) continue;
      const int d = deg[vx_geo_index(dx, dy, dz)] + 1;
      vs[n] = (unsigned char)slot;
      us[n + 1] = (short)(us[n] + (d * d + unit - 1) / unit);
      ++n;
    }
  }
  return __syncthreads_or(me >= 0);
}

/* The slot whose units hold unit x (us[o] ≤ x < us[o + 1]; x < us[189]). */
__device__ static __forceinline__ int dense_slot_of(const short *us, int x) {
  int lo = 0, hi = 189; /* us[lo] ≤ x < us[hi] */
  while (hi - lo > 1) {
    const int mid = (lo + hi) >> 1;
    if (us[mid] <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* The source box of the target with packed coordinates tcj under offset (dx, dy, dz) at a level of
 * top + 1 boxes a side: src_map's entry, -1 outside the cube, no target, or an empty box. */
__device__ static __forceinline__ int dense_source(int tcj, int dx, int dy, int dz, int top, const int *__restrict__ smap) {
  if (tcj < 0) return -1;
  const int sx = (tcj & 1023) + dx, sy = ((tcj >> 10) & 1023) + dy, sz = (tcj >> 20) + dz;
  if (sx < 0 || sy < 0 || sz < 0 || sx > top || sy > top || sz > top) return -1;
  return smap[oct_morton3((uint32_t)sx, (uint32_t)sy, (uint32_t)sz)];
}

template <int P> struct tc_cfg {
  static constexpr int NC = (P + 1) * (P + 1);
  static constexpr int NT = (NC + 7) / 8;         /* n-tiles of 8 output coefficients */
  static constexpr int LDB = 8 * NT;              /* outputs, padded */
  static constexpr int RB = 2 * LDB + 8;          /* a staged operator row: hi, lo, 8 of padding (RB ≡ 8, 24 mod 32:
                                                     the b-fragment loads hit 32 distinct banks) */
  static constexpr int TJ = 64;                   /* targets a tile */
  static constexpr int MC = 3 * TJ;               /* the product's M: (target, component) columns */
  static constexpr int WM = 4, WN = 2;            /* warps along M and N: 256 threads */
  static constexpr int MT = MC / 16 / WM;         /* m-tiles a warp */
  static constexpr int NTW = (NT + WN - 1) / WN;  /* n-tiles a warp */
  static constexpr int KC = 32;                   /* rows a stage */
  static constexpr int SA = 3 * KC + 8;           /* a target's staged sources, [3r + c] (104: a-fragment loads
                                                     at most 2-way bank conflicts) */
  static constexpr int STAGE = TJ * SA + KC * RB; /* floats of a stage */
  static constexpr size_t SMEM = 2 * (size_t)STAGE * sizeof(float) + 2 * TJ * sizeof(int) + 192 * sizeof(short) + 192;
  static constexpr size_t TAB = (size_t)VX_GEO_N * NC * RB; /* floats of the device table */
};

/* Round to TF32 (10-bit mantissa, to nearest, ties away) on the host, as cvt.rna.tf32.f32 does. */
static inline float tc_round(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  memcpy(&x, &u, 4);
  return x;
}

/* The operators of order P for every offset in k_m2l_tc's layout: row (g, k), RB floats, holds
 * D_g[i][k] for i < LDB as hi, then lo (tc_round of the double's float and of its remainder;
 * padding 0) — a stage's rows are one or two contiguous runs of the table — into
 * *out (malloc'd; the caller frees). -1: out of host memory. */
template <int P>
static int tc_build(const fmm_tables *T, float **out) {
  typedef tc_cfg<P> C;
  float *tab = (float *)calloc(C::TAB, sizeof(float));
  double *Dg = (double *)malloc(sizeof(double) * C::NC * C::NC);
  int rc = tab && Dg ? 0 : -1;
  for (int g = 0; g < VX_GEO_N && !rc; ++g) {
    const int dx = g / 49 - 3, dy = g / 7 % 7 - 3, dz = g % 7 - 3;
    if (abs(dx) <= 1 && abs(dy) <= 1 && abs(dz) <= 1) continue;
    if ((rc = fmm_m2l_dense(T, g, Dg))) break;
    for (int k = 0; k < C::NC; ++k) {
      float *row = tab + ((size_t)g * C::NC + k) * C::RB;
      for (int i = 0; i < C::NC; ++i) {
        const double d = Dg[(size_t)i * C::NC + k];
        const float hi = tc_round((float)d);
        row[i] = hi;
        row[C::LDB + i] = tc_round((float)(d - (double)hi));
      }
    }
  }
  free(Dg);
  if (rc) { free(tab); tab = NULL; }
  *out = tab;
  return rc;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define VX_TC_DEVICE 1
#endif

/* Queue stage i's copies into buf: rows KC·i .. KC·i + nv − 1 of the tile's (slot, coefficient)
 * rows, each slot o holding us[o + 1] − us[o] rows (its cut, dense_tile_setup), ktot in all. A stage's
 * rows of one slot are a contiguous run of the operators' table (16-byte copies) and, for each
 * target, of its source box's multipole (4-byte copies), target j's row r, component c at
 * As[j·SA + 3r + c]. Four threads a target (j = tid / 4): thread f finds the source of the f-th slot
 * of each group of four, and copies every fourth float; where a target has no source, or rows are
 * past the last, they store zeros instead. */
template <int P>
__device__ static __forceinline__ void tc_stage(int i, float *buf, const float *__restrict__ D, const unsigned char *vs,
                                                const short *us, const int *tc, int q, int top,
                                                const int *__restrict__ smap, const float *__restrict__ M) {
  typedef tc_cfg<P> C;
  static_assert(4 * C::TJ == 256, "four threads a target");
  float *As = buf, *Bs = buf + C::TJ * C::SA;
  const int r0 = C::KC * i, ktot = us[189], nv = ktot - r0 < C::KC ? ktot - r0 : C::KC, r1 = r0 + nv;
  constexpr int Q = C::RB / 4; /* 16-byte chunks of a row */
  const int j = threadIdx.x >> 2, f = threadIdx.x & 3, g0 = threadIdx.x & 28; /* g0: the target's first lane */
  float *out = As + j * C::SA;
  for (int ob = dense_slot_of(us, r0); ob < 189 && us[ob] < r1; ob += 4) { /* a group of four slots */
    int s = -1, dx, dy, dz;
    if (ob + f < 189 && us[ob + f] < r1) {
      dense_slot_offset(vs[ob + f], q, &dx, &dy, &dz);
      s = dense_source(tc[j], dx, dy, dz, top, smap);
    }
    int src[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) src[u] = __shfl_sync(0xffffffffu, s, g0 | u);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int o = ob + u;
      if (o >= 189 || us[o] >= r1) break;
      const int lo = (us[o] > r0 ? us[o] : r0) - r0, hi = (us[o + 1] < r1 ? us[o + 1] : r1) - r0;
      const int k0 = r0 + lo - us[o];
      dense_slot_offset(vs[o], q, &dx, &dy, &dz);
      const float *Dg = D + ((size_t)vx_geo_index(dx, dy, dz) * C::NC + k0) * C::RB;
      for (int e = threadIdx.x; e < (hi - lo) * Q; e += 256)
        __pipeline_memcpy_async(Bs + lo * C::RB + 4 * e, Dg + 4 * e, 16);
      if (src[u] >= 0) {
        const float *in = M + vx_off_exp(src[u], C::NC) + 3 * k0;
        for (int e = f; e < 3 * (hi - lo); e += 4) __pipeline_memcpy_async(out + 3 * lo + e, in + e, 4);
      } else
        for (int e = f; e < 3 * (hi - lo); e += 4) out[3 * lo + e] = 0.0f;
    }
  }
  for (int e = nv * Q + threadIdx.x; e < C::KC * Q; e += 256) *(float4 *)(Bs + 4 * e) = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int e = 3 * nv + f; e < 3 * C::KC; e += 4) out[e] = 0.0f;
}

#ifdef VX_TC_DEVICE
/* x as hi + lo for mma.sync's .tf32 operands, which read a float's sign, exponent and top 10
 * mantissa bits: hi is x rounded to those (to nearest, by integer add and mask: two instructions
 * where cvt.rna.tf32.f32 takes more), lo = x − hi exactly, |lo| ≤ 2⁻¹¹|x|, of which the tensor core
 * reads the top bits too: hi + lo carries x to ~2⁻²² relative. */
__device__ static __forceinline__ void tc_split(float x, uint32_t *hi, uint32_t *lo) {
  const uint32_t h = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
  *hi = h, *lo = __float_as_uint(x - __uint_as_float(h));
}

/* d += a·b, one m16n8k8 TF32 product with float accumulation. */
__device__ static __forceinline__ void tc_mma(float *d, const uint32_t *a, uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* One stage's product into the warp's accumulators: for each 8-row slice, the a-fragments of its
 * MT m-tiles split in registers, then per n-tile the operator's hi and lo b-fragments and the three
 * products, small terms first, summed by the tensor core into a zeroed fragment that is then added
 * to the accumulator by an ordinary (round-to-nearest) float add: the tensor core's own accumulation
 * truncates, and over a tile's 189·NC rows its bias would reach several 1e-5 of the result, beyond
 * gpu_test_m2l_dense's float threshold. */
template <int P>
__device__ static __forceinline__ void tc_stage_mma(const float *As, const float *Bs, const int (*ao)[2], int wn, int lane,
                                                    float (*acc)[tc_cfg<P>::NTW][4]) {
  typedef tc_cfg<P> C;
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int k8 = 0; k8 < C::KC; k8 += 8) {
    uint32_t ah[C::MT][4], al[C::MT][4];
#pragma unroll
    for (int mt = 0; mt < C::MT; ++mt) {
      const float *a0 = As + ao[mt][0] + 3 * (k8 + t), *a1 = As + ao[mt][1] + 3 * (k8 + t);
      tc_split(a0[0], &ah[mt][0], &al[mt][0]);
      tc_split(a1[0], &ah[mt][1], &al[mt][1]);
      tc_split(a0[12], &ah[mt][2], &al[mt][2]);
      tc_split(a1[12], &ah[mt][3], &al[mt][3]);
    }
#pragma unroll
    for (int nt = 0; nt < C::NTW; ++nt) {
      const int n = wn * C::NTW + nt;
      if (n >= C::NT) break;
      const float *b = Bs + (k8 + t) * C::RB + 8 * n + g;
      const uint32_t bh0 = __float_as_uint(b[0]), bh1 = __float_as_uint(b[4 * C::RB]);
      const uint32_t bl0 = __float_as_uint(b[C::LDB]), bl1 = __float_as_uint(b[4 * C::RB + C::LDB]);
#pragma unroll
      for (int mt = 0; mt < C::MT; ++mt) {
        float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        tc_mma(d, al[mt], bh0, bh1);
        tc_mma(d, ah[mt], bl0, bl1);
        tc_mma(d, ah[mt], bh0, bh1);
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[mt][nt][r] += d[r];
      }
    }
  }
}
#endif

/* The M2L of level l on the tensor cores: blockIdx.x a tile of parents, blockIdx.y the octant q,
 * blockIdx.z one of gridDim.z parts of the tile's stages (split over blocks where a coarse level has
 * too few tiles to fill the device: m2l_tc_parts). One part adds its sums into L; several each write
 * theirs to their slice of Pt (gridDim.z slices of the level's local expansions), which
 * k_m2l_parts_sum then adds into L in part order: repeatable either way. */
template <int P>
__global__ void __launch_bounds__(256, P <= 8 ? 2 : 1) /* two blocks an SM: their shared memory fits */
    k_m2l_tc(const float *__restrict__ D, const int *__restrict__ deg, int l, int npar, const int *__restrict__ pchild,
             const uint32_t *__restrict__ tkey, const int *__restrict__ smap, const float *__restrict__ M,
             float *__restrict__ L, float *__restrict__ Pt) {
#ifdef VX_TC_DEVICE
  typedef tc_cfg<P> C;
  extern __shared__ unsigned char vx_smem[];
  float *buf0 = (float *)vx_smem, *buf1 = buf0 + C::STAGE;
  int *tbox = (int *)(buf1 + C::STAGE), *tc = tbox + C::TJ;
  short *us = (short *)(tc + C::TJ);
  unsigned char *vs = (unsigned char *)(us + 192);
  const int q = blockIdx.y, w = threadIdx.x >> 5, lane = threadIdx.x & 31, top = (1 << l) - 1;
  if (!dense_tile_setup(C::TJ, q, npar, pchild, tkey, deg, 1, tbox, tc, us, vs)) return;
  const int nall = (us[189] + C::KC - 1) / C::KC, parts = (int)gridDim.z, part = (int)blockIdx.z;
  const int s0 = (int)((long long)nall * part / parts), nst = (int)((long long)nall * (part + 1) / parts);
  float *slice = parts > 1 ? Pt + (size_t)part * (size_t)pchild[npar] * 3 * C::NC : NULL;
  const int wm = w % C::WM, wn = w / C::WM;
  int ao[C::MT][2]; /* where the lane's a-fragment columns m = 16(wm·MT + mt) + g (+ 8) start in a stage */
#pragma unroll
  for (int mt = 0; mt < C::MT; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = 16 * (wm * C::MT + mt) + (lane >> 2) + 8 * h;
      ao[mt][h] = m / 3 * C::SA + m % 3;
    }
  float acc[C::MT][C::NTW][4];
#pragma unroll
  for (int mt = 0; mt < C::MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < C::NTW; ++nt) acc[mt][nt][0] = acc[mt][nt][1] = acc[mt][nt][2] = acc[mt][nt][3] = 0.0f;
  if (s0 < nst) tc_stage<P>(s0, buf0, D, vs, us, tc, q, top, smap, M);
  __pipeline_commit();
  for (int i = s0; i < nst; ++i) {
    float *cur = ((i - s0) & 1) ? buf1 : buf0;
    if (i + 1 < nst) tc_stage<P>(i + 1, ((i - s0) & 1) ? buf0 : buf1, D, vs, us, tc, q, top, smap, M);
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    tc_stage_mma<P>(cur, cur + C::TJ * C::SA, ao, wn, lane, acc);
    __syncthreads();
  }
  /* accumulator r of tile (mt, nt): column m = 16(wm·MT + mt) + g + 8(r / 2), output n = 8(wn·NTW + nt) + 2t + r % 2 */
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < C::MT; ++mt)
#pragma unroll
    for (int nt = 0; nt < C::NTW; ++nt)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int m = 16 * (wm * C::MT + mt) + g + 8 * (r >> 1), n = 8 * (wn * C::NTW + nt) + 2 * t + (r & 1);
        const int tb = tbox[m / 3];
        if (n >= C::NC || tb < 0) continue;
        const size_t e = vx_off_exp(tb, C::NC) + 3 * n + m % 3;
        if (slice) slice[e] = acc[mt][nt][r];
        else L[e] += acc[mt][nt][r];
      }
#endif
}

/* L[i] += Σ over the parts k of Pt[k·n + i], in part order (k_m2l_tc's split stages). */
__global__ void k_m2l_parts_sum(const float *__restrict__ Pt, int parts, size_t n, float *__restrict__ L) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float s = 0.0f;
    for (int k = 0; k < parts; ++k) s += Pt[(size_t)k * n + i];
    L[i] += s;
  }
}

/* The shared memory of k_m2l_tc for order p (fmm_spec_order; 0 for another). */
static size_t m2l_tc_smem(int p) {
#define VX_TC_SMEM(P) return tc_cfg<P>::SMEM
  switch (p) {
    VX_SPEC_CASES(VX_TC_SMEM)
  default: return 0;
  }
#undef VX_TC_SMEM
}

/* fmm_gpu_m2l_tc_full for order P: the full level l and its parents built on the host, k_m2l_tc<P>
 * with its stages split into `parts` (then k_m2l_parts_sum) run once on the legacy stream. */
template <int P>
static int m2l_tc_full(int l, int parts, const double *M, double *L, char *err, size_t errlen) {
  typedef tc_cfg<P> C;
  const int nb = 1 << (3 * l), np = nb / 8;
  const size_t ne = (size_t)nb * 3 * C::NC;
  fmm_tables T;
  if (fmm_tables_build(&T, P, err, errlen)) return -1;
  float *tab = NULL, *hM = (float *)malloc(sizeof(float) * ne);
  int *child = (int *)malloc(sizeof(int) * (np + 1)), *map = (int *)malloc(sizeof(int) * nb);
  uint32_t *key = (uint32_t *)malloc(sizeof(uint32_t) * nb);
  void *dD = NULL, *dM = NULL, *dL = NULL, *dchild = NULL, *dmap = NULL, *dkey = NULL, *ddeg = NULL, *dP = NULL;
  int rc = -1;
  const int built = tc_build<P>(&T, &tab);
  if (built || !hM || !child || !map || !key) {
    snprintf(err, errlen, "out of host memory");
    goto done;
  }
  for (int b = 0; b < nb; ++b) key[b] = (uint32_t)b, map[b] = b;
  for (int q = 0; q <= np; ++q) child[q] = 8 * q;
  for (size_t i = 0; i < ne; ++i) hM[i] = (float)M[i];
  VX_CU(cudaMalloc(&dD, sizeof(float) * C::TAB));
  VX_CU(cudaMalloc(&dM, sizeof(float) * ne));
  VX_CU(cudaMalloc(&dL, sizeof(float) * ne));
  VX_CU(cudaMalloc(&dchild, sizeof(int) * (np + 1)));
  VX_CU(cudaMalloc(&dmap, sizeof(int) * nb));
  VX_CU(cudaMalloc(&dkey, sizeof(uint32_t) * nb));
  VX_CU(cudaMalloc(&ddeg, sizeof(int) * VX_GEO_N));
  if (parts > 1) VX_CU(cudaMalloc(&dP, sizeof(float) * parts * ne));
  VX_CU(cudaMemcpy(ddeg, T.m2l_deg, sizeof(int) * VX_GEO_N, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(dD, tab, sizeof(float) * C::TAB, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(dM, hM, sizeof(float) * ne, cudaMemcpyHostToDevice));
  VX_CU(cudaMemset(dL, 0, sizeof(float) * ne));
  VX_CU(cudaMemcpy(dchild, child, sizeof(int) * (np + 1), cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(dmap, map, sizeof(int) * nb, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(dkey, key, sizeof(uint32_t) * nb, cudaMemcpyHostToDevice));
  VX_CU(cudaFuncSetAttribute(k_m2l_tc<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
  k_m2l_tc<P><<<dim3((unsigned)vx_ceil_div(np, C::TJ), 8, (unsigned)parts), 256, C::SMEM>>>(
      (const float *)dD, (const int *)ddeg, l, np, (const int *)dchild, (const uint32_t *)dkey, (const int *)dmap,
      (const float *)dM, (float *)dL, (float *)dP);
  VX_CU(cudaGetLastError());
  if (parts > 1) {
    k_m2l_parts_sum<<<256, 256>>>((const float *)dP, parts, ne, (float *)dL);
    VX_CU(cudaGetLastError());
  }
  VX_CU(cudaMemcpy(hM, dL, sizeof(float) * ne, cudaMemcpyDeviceToHost));
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
