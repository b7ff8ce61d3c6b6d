/* fmm_gpu.cu — the CUDA backend of the fmm module: device state, translation tables on the
 * device, and the FMM / direct-sum pipelines of the gpu_*_t.cuh headers in double and float. Nothing of the
 * particle data leaves the device between evaluations when the caller passes device pointers
 * (fmm_io.on_device); host arrays are staged and the copy time is reported apart (t_copy). */
#include <cuda_pipeline.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "cuda_check.h"
#include "fmm_internal.h"
#include "gpu_smem.h"
#include "index.h"
#include "octree_gpu.h"
#include "pair.h"
#include "sph.h"
#include "translate.h"

typedef struct {
  void *ptr;
  size_t cap;
} dbuf;

/* EV_L2PD, EV_L2PW: L2P's derivative expansions done, and the near field waited for (t_l2p leaves the wait out). */
enum { EV_CALLER, EV_COPY0, EV_START, EV_TREE, EV_GATHER, EV_NEAR0, EV_CORR, EV_NEAR1, EV_P2M, EV_M2M, EV_DOWN, EV_L2PD,
       EV_L2PW, EV_L2P, EV_END, EV_COPY1, EV_LVL, EV_COUNT = EV_LVL + 2 * (VX_LMAX + 2) };

/* The translation tables of one order on the device (upload_tables). */
typedef struct {
  int roty_stride;
  dbuf roty, m2m, l2l, m2l, geo_theta, m2l_deg, geo_len, geo_cs, geo_ipow;
  dbuf raise;        /* L2P: the factors A, B of sph_raise for n < p, at n(n+1)/2 + |m| */
  dbuf dense_tc;     /* k_m2l_tc's operators of every offset (tc_build, float), built at its first use */
  int dense_tc_ok;   /* dense_tc holds them for the tables' order */
} gpu_tables;

typedef struct fmm_gpu {
  int device;
  size_t smem_optin; /* cudaDevAttrMaxSharedMemoryPerBlockOptin: the kernels' plans fit in it (gpu_smem.h) */
  int n_sm;          /* cudaDevAttrMultiProcessorCount */
  cudaStream_t s_far, s_near;
  cudaEvent_t ev[EV_COUNT];
  oct_tree_gpu tree;
  gpu_tables tab;
  int serial;   /* VX_FMM_SERIAL=1, a profiling setting: the near field after the far field on one stream,
                   so that fmm_stats' phase times each measure one phase alone (results unchanged) */
  int tc;       /* compute capability 8.0 or newer: k_m2l_tc's TF32 mma.sync runs */
  dbuf src_soa, tgt_soa, vnear, gnear;
  dbuf mpole[VX_LMAX + 1], local[VX_LMAX + 1];
  dbuf in_spos, in_sstr, in_tpos, out_vel, out_grad;
  dbuf chunk_off, chunk_leaf, chunk_range; /* target chunks of the leaf kernels (P2P, L2P) */
  dbuf dloc;         /* L2P: derivative expansions of the leaves' local expansions */
  dbuf m2l_part;     /* k_m2l_tc split over parts: each part's local expansions (m2l_tc_parts) */
  dbuf built_s, built_t; /* the kept tree's points where they were at its build (input order) */
  int built_same;        /* its sources were its targets (one array): built_t unused */
  dbuf direct_part;  /* the direct sum's partial sums of each span of the sources (direct_span) */
  dbuf moved;        /* k_moved's result: the largest squared distance moved, as the bits of a double */
  unsigned long long *h_moved; /* its pinned host copy */
  dbuf part_mpole, part_key, part_start, part_il; /* a part's dense coarse levels (gpu_part_t.cuh) */
} fmm_gpu;

/* The leaf kernels' targets per chunk (a block) for nt targets in nleaf leaves, and a bound on the
 * chunks: a leaf's gradient and velocity-only chunks have one partial each. */
static int chunk_targets(int nt, int nleaf) {
  const int mean_t = vx_ceil_div(nt, nleaf);
  return mean_t <= 32 ? 32 : mean_t <= 64 ? 64 : 128;
}
static int chunk_bound(int nt, int nleaf, int ch) { return nt / ch + 2 * nleaf; }

/* The direct sum's sources a block (a multiple of `tile`) for ns sources and tb blocks of targets: all
 * of them while the target blocks fill the device VX_DIRECT_WAVES times over, else spans that make up
 * the blocks, each at least a tile (k_direct: the spans' partial sums are added after). */
#define VX_DIRECT_WAVES 8
static int direct_span(int ns, int tb, int n_sm, int tile) {
  const int want = VX_DIRECT_WAVES * n_sm, tiles = vx_ceil_div(ns > 0 ? ns : 1, tile);
  const int cover = vx_ceil_div(want, tb > 0 ? tb : 1), nspan = tb >= want ? 1 : cover < tiles ? cover : tiles;
  return vx_ceil_div(tiles, nspan) * tile;
}

/* Grow a device buffer; on failure a one-line message naming what did not fit. */
static int gpu_reserve(dbuf *b, size_t bytes, const char *what, char *err, size_t errlen) {
  if (b->ptr && b->cap >= bytes) return 0;
  cudaError_t e = vx_dev_reserve(&b->ptr, &b->cap, bytes);
  if (e == cudaSuccess) return 0;
  cudaGetLastError(); /* clear the sticky-free allocation error */
  size_t fr = 0, tot = 0;
  cudaMemGetInfo(&fr, &tot);
  if (e == cudaErrorMemoryAllocation)
    snprintf(err, errlen, "GPU out of memory: %.1f MiB needed for %s (%.1f MiB free of %.1f MiB)", bytes / 1048576.0, what,
             fr / 1048576.0, tot / 1048576.0);
  else
    snprintf(err, errlen, "CUDA error allocating %s: %s", what, cudaGetErrorString(e));
  return -1;
}
static void gpu_release(dbuf *b) {
  if (b->ptr) cudaFree(b->ptr);
  b->ptr = NULL;
  b->cap = 0;
}
static void tables_release(gpu_tables *D) {
  dbuf *all[] = {&D->roty,    &D->m2m,    &D->l2l,      &D->m2l,   &D->geo_theta, &D->m2l_deg,
                 &D->geo_len, &D->geo_cs, &D->geo_ipow, &D->raise, &D->dense_tc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) gpu_release(all[i]);
  D->dense_tc_ok = 0;
}

/* The kernels' shared memory for order p within the device's limit: 0, or -1 naming the order and
 * the precision when it cannot fit (gpu_smem.h). */
static int smem_plan(const fmm_ctx *ctx, int p, int gradient, fmm_smem_plan *plan, char *err, size_t errlen) {
  const fmm_gpu *G = (const fmm_gpu *)ctx->gpu;
  const size_t rs = ctx->prm.precision == VX_FLOAT ? sizeof(float) : sizeof(double);
  return fmm_smem_plan_make(p, rs, gradient, G->smem_optin, plan, err, errlen);
}

/* The order whose specialised M2L kernels (k_m2l_spec, and in float k_m2l_tc) run for order p: p itself
 * where fmm_spec_order; 0 (the generic k_m2l) otherwise. */
static int m2l_spec_order(int p) { return fmm_spec_order(p) ? p : 0; }

/* A switch over the specialised orders: case P: LAUNCH(P); for P in FMM_SPEC_ORDER_MIN..MAX. */
#define VX_SPEC_CASES(LAUNCH)                                                                            \
  case 2: LAUNCH(2); break;                                                                              \
  case 3: LAUNCH(3); break;                                                                              \
  case 4: LAUNCH(4); break;                                                                              \
  case 5: LAUNCH(5); break;                                                                              \
  case 6: LAUNCH(6); break;                                                                              \
  case 7: LAUNCH(7); break;                                                                              \
  case 8: LAUNCH(8); break;                                                                              \
  case 9: LAUNCH(9); break;                                                                              \
  case 10: LAUNCH(10); break;                                                                            \
  case 11: LAUNCH(11); break;                                                                            \
  case 12: LAUNCH(12); break;
#if FMM_SPEC_ORDER_MIN != 2 || FMM_SPEC_ORDER_MAX != 12
#error "VX_SPEC_CASES lists the orders 2..12"
#endif

/* Whether the dense M2L on the tensor cores (k_m2l_tc) pays at a level whose translations fill
 * `fill` of the tiles' slots (n_il over 189 per target slot of the launched tiles): it multiplies
 * every slot, a source there or not, at about 1.2 ns a slot against k_m2l_spec's 2.7 ns a
 * translation (float, p = 8; docs/BENCHMARKS.md), so it breaks even near a fill of 0.45; 0.5 leaves
 * a margin. */
#define VX_M2L_TC_FILL 0.5
/* ... and when its blocks (8 per tile of parents) are at least this many per SM: on fewer, the few
 * long blocks of a coarse level leave most of the device idle. */
#define VX_M2L_DENSE_WAVES 2.0

/* The parts k_m2l_tc splits a level's stages into (blockIdx.z) when its blocks are fewer than the
 * VX_M2L_DENSE_WAVES·n_sm that fill the device (two co-resident a SM at p <= 8): as many as keep the
 * whole launch within those slots, at most 8; 1 on a level that fills them. A lone block runs its
 * ~340 stages in about the same time whatever the level, so a quarter of them on four times the
 * blocks takes about a quarter of that. */
static int m2l_tc_parts(int blocks, int n_sm) {
  const int slots = (int)(VX_M2L_DENSE_WAVES * n_sm);
  if (blocks <= 0 || blocks >= slots) return 1;
  return slots / blocks < 8 ? slots / blocks : 8;
}

/* k_p2m_spec's warps a leaf (a power of two up to the block's w): one until the leaves' mean
 * occupancy gives a warp VX_P2M_ROUNDS passes over its particles, G = 32 / (p + 1) at a time, or
 * until the leaves are too few to give the device VX_P2M_WARPS_SM warps an SM. A warp's set-up (the
 * recursion's factors) and its groups' reduction cost about as much as a few passes, so fewer warps
 * a leaf do less work where leaves are many and small; where they are few and full (a scene's
 * cores), more warps a leaf keep the device busy (docs/BENCHMARKS.md). */
#define VX_P2M_ROUNDS 32
#define VX_P2M_WARPS_SM 16
static int p2m_warps_per_leaf(long long ns, int nleaf, int w, int p, int n_sm) {
  const long long nl = nleaf > 0 ? nleaf : 1, per = (long long)VX_P2M_ROUNDS * (32 / (p + 1)) * nl;
  int wl = 1;
  while (2 * wl <= w && (2 * wl * per <= ns || wl * nl < (long long)VX_P2M_WARPS_SM * n_sm)) wl *= 2;
  return wl;
}

/* *tc = 1 when device dev has the TF32 tensor cores k_m2l_tc runs on (compute capability 8.0+). */
static cudaError_t tf32_tensor_cores(int dev, int *tc) {
  int major = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  *tc = e == cudaSuccess && major >= 8;
  return e;
}

/* Whether an evaluation in float (fl) may run its dense M2L on the tensor cores (k_m2l_tc): a
 * device that has them. */
static int m2l_tc_on(const fmm_gpu *G, int fl) { return fl && G->tc; }

/* Upload a dense M2L operator table built on the host (NULL: its build failed for host memory; freed
 * here) into b; 0, or -1 with err naming `what` and the order. */
static int dense_upload(dbuf *b, void *host, size_t bytes, const char *what, int order, char *err, size_t errlen) {
  if (!host) {
    snprintf(err, errlen, "out of host memory for the %s (order %d)", what, order);
    return -1;
  }
  int rc = gpu_reserve(b, bytes, what, err, errlen);
  if (!rc && cudaMemcpy(b->ptr, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    snprintf(err, errlen, "CUDA error uploading the %s: %s", what, cudaGetErrorString(cudaGetLastError()));
    rc = -1;
  }
  free(host);
  return rc;
}

#include "m2l_tc_gpu.cuh"

/* The kernels and the host pipeline, once per precision (real_t.h: vx_real, VXF names), in this
 * order: each header uses what the ones before it define. */
#define VX_DOUBLE_INST
#include "real_t.h"
#include "gpu_far_t.cuh"      /* P2M, M2M, L2L, M2L: the translation kernels */
#include "gpu_leaf_t.cuh"     /* the gather into tree order, the target chunks */
#include "gpu_l2p_t.cuh"      /* L2P */
#include "gpu_p2p_t.cuh"      /* P2P */
#include "gpu_corr_t.cuh"     /* the regularization corrections */
#include "gpu_direct_t.cuh"   /* the direct sum, kernels and host side */
#include "gpu_eval_t.cuh"     /* an evaluation's state, inputs, tree and gather */
#include "gpu_m2l_t.cuh"      /* the M2L kernel of each level */
#include "gpu_part_t.cuh"     /* a part of a larger evaluation: the coarse levels' dense cells */
#include "gpu_pipeline_t.cuh" /* the passes, gpu_evaluate, a part's multipoles */
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "gpu_far_t.cuh"      /* P2M, M2M, L2L, M2L: the translation kernels */
#include "gpu_leaf_t.cuh"     /* the gather into tree order, the target chunks */
#include "gpu_l2p_t.cuh"      /* L2P */
#include "gpu_p2p_t.cuh"      /* P2P */
#include "gpu_corr_t.cuh"     /* the regularization corrections */
#include "gpu_direct_t.cuh"   /* the direct sum, kernels and host side */
#include "gpu_eval_t.cuh"     /* an evaluation's state, inputs, tree and gather */
#include "gpu_m2l_t.cuh"      /* the M2L kernel of each level */
#include "gpu_part_t.cuh"     /* a part of a larger evaluation: the coarse levels' dense cells */
#include "gpu_pipeline_t.cuh" /* the passes, gpu_evaluate, a part's multipoles */
#undef VX_FLOAT_INST

/* The two streams of an evaluation: the far field's at the device's greatest priority, the near
 * field's at the least. The far field is a chain of short, dependent kernels (P2M, M2M, M2L by
 * level, L2L, L2P) that otherwise waits for SMs behind the near field's thousands of long blocks;
 * scheduled first, it shortens a step where the far field is on the critical path
 * (docs/BENCHMARKS.md). No sum changes: the streams meet at events. */
static int create_streams(fmm_gpu *G, char *err, size_t errlen) {
  int least = 0, greatest = 0;
  VX_CUR(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  VX_CUR(cudaStreamCreateWithPriority(&G->s_far, cudaStreamNonBlocking, greatest));
  VX_CUR(cudaStreamCreateWithPriority(&G->s_near, cudaStreamNonBlocking, least));
  return 0;
}

/* Upload the translation tables T in precision fl (1: float) into D, which the caller releases. */
static int upload_tables(gpu_tables *D, const fmm_tables *T, int fl, char *err, size_t errlen) {
  int p = T->p;
  size_t rs = fl ? sizeof(float) : sizeof(double), nrot = (size_t)T->n_theta * T->roty_stride;
  size_t ncs = (size_t)VX_GEO_N * (p + 1) * 2, nip = (size_t)VX_GEO_N * (2 * p + 2);
  double *cs = (double *)malloc(sizeof(double) * ncs), *ip = (double *)malloc(sizeof(double) * nip);
  float *csf = (float *)malloc(sizeof(float) * ncs), *ipf = (float *)malloc(sizeof(float) * nip);
  float *lenf = (float *)malloc(sizeof(float) * VX_GEO_N);
  if (!cs || !csf || !lenf || !ip || !ipf) {
    free(cs); free(csf); free(lenf); free(ip); free(ipf);
    snprintf(err, errlen, "out of host memory for tables");
    return -1;
  }
  for (int g = 0; g < VX_GEO_N; ++g) {
    double phi = atan2(T->geo_sphi[g], T->geo_cphi[g]);
    for (int a = 0; a <= p; ++a) {
      cs[((size_t)g * (p + 1) + a) * 2] = cos(a * phi);
      cs[((size_t)g * (p + 1) + a) * 2 + 1] = sin(a * phi);
    }
    lenf[g] = (float)T->geo_len[g];
    /* M2L powers ρ^{-k}, by the same repeated multiplication as the CPU engine */
    double ir = T->geo_len[g] > 0 ? 1.0 / T->geo_len[g] : 0.0, v = 1.0;
    for (int k = 0; k < 2 * p + 2; ++k, v *= ir) ip[(size_t)g * (2 * p + 2) + k] = v;
  }
  /* sph_raise's factors: ℛ_n^m = A z ℛ_{n-1}^m - B r² ℛ_{n-2}^m, A = (2n-1)/√(n²-m²),
   * B = √((n-1)²-m²)/√(n²-m²), for n > |m| (0 at n = |m|) */
  const int ntri = p * (p + 1) / 2;
  double *ra = (double *)malloc(sizeof(double) * (2 * (size_t)ntri + 1));
  float *raf = (float *)malloc(sizeof(float) * (2 * (size_t)ntri + 1));
  if (!ra || !raf) {
    free(cs); free(csf); free(lenf); free(ip); free(ipf); free(ra); free(raf);
    snprintf(err, errlen, "out of host memory for tables");
    return -1;
  }
  for (int n = 0; n < p; ++n)
    for (int am = 0; am <= n; ++am) {
      int t = n * (n + 1) / 2 + am;
      double d = sqrt((double)(n * n - am * am));
      ra[t] = n > am ? (2 * n - 1) / d : 0.0;
      ra[ntri + t] = n > am ? sqrt((double)((n - 1) * (n - 1) - am * am)) / d : 0.0;
    }
  for (int t = 0; t < 2 * ntri; ++t) raf[t] = (float)ra[t];
  for (size_t i = 0; i < ncs; ++i) csf[i] = (float)cs[i];
  for (size_t i = 0; i < nip; ++i) ipf[i] = (float)ip[i];
  int rc = -1;
  D->roty_stride = T->roty_stride;
  if (gpu_reserve(&D->roty, rs * nrot, "rotation tables", err, errlen) ||
      gpu_reserve(&D->m2m, rs * T->coax_n, "M2M table", err, errlen) ||
      gpu_reserve(&D->l2l, rs * T->coax_n, "L2L table", err, errlen) ||
      gpu_reserve(&D->m2l, rs * T->coax_n, "M2L table", err, errlen) ||
      gpu_reserve(&D->geo_theta, sizeof(int) * VX_GEO_N, "geometry table", err, errlen) ||
      gpu_reserve(&D->m2l_deg, sizeof(int) * VX_GEO_N, "geometry table", err, errlen) ||
      gpu_reserve(&D->geo_len, rs * VX_GEO_N, "geometry table", err, errlen) ||
      gpu_reserve(&D->geo_cs, rs * ncs, "geometry table", err, errlen) ||
      gpu_reserve(&D->geo_ipow, rs * nip, "geometry table", err, errlen) ||
      gpu_reserve(&D->raise, rs * (2 * (size_t)ntri + 1), "raise table", err, errlen))
    goto done;
  VX_CU(cudaMemcpy(D->roty.ptr, fl ? (const void *)T->roty_f : (const void *)T->roty, rs * nrot, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(D->m2m.ptr, fl ? (const void *)T->m2m_f : (const void *)T->m2m, rs * T->coax_n, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(D->l2l.ptr, fl ? (const void *)T->l2l_f : (const void *)T->l2l, rs * T->coax_n, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(D->m2l.ptr, fl ? (const void *)T->m2l_f : (const void *)T->m2l, rs * T->coax_n, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(D->geo_theta.ptr, T->geo_theta, sizeof(int) * VX_GEO_N, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(D->m2l_deg.ptr, T->m2l_deg, sizeof(int) * VX_GEO_N, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(D->geo_len.ptr, fl ? (const void *)lenf : (const void *)T->geo_len, rs * VX_GEO_N, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(D->geo_cs.ptr, fl ? (const void *)csf : (const void *)cs, rs * ncs, cudaMemcpyHostToDevice));
  VX_CU(cudaMemcpy(D->geo_ipow.ptr, fl ? (const void *)ipf : (const void *)ip, rs * nip, cudaMemcpyHostToDevice));
  if (ntri) VX_CU(cudaMemcpy(D->raise.ptr, fl ? (const void *)raf : (const void *)ra, rs * 2 * (size_t)ntri, cudaMemcpyHostToDevice));
  rc = 0;
  goto done;
fail:
  rc = -1;
done:
  free(cs); free(csf); free(lenf); free(ip); free(ipf); free(ra); free(raf);
  return rc;
}

/* Why CUDA cannot be used, in the user's words. Without any NVIDIA driver the runtime reports
 * "driver version is insufficient"; cudaDriverGetVersion then gives 0 (no driver installed). */
static void cuda_unusable_reason(cudaError_t e, char *name, size_t namelen) {
  if (!name || !namelen) return;
  if (e == cudaErrorInsufficientDriver) {
    int drv = 0, rt = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
    if (drv == 0)
      snprintf(name, namelen, "no NVIDIA driver installed");
    else
      snprintf(name, namelen, "the NVIDIA driver supports CUDA %d.%d, older than this build's CUDA %d.%d: update the driver",
               drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
  } else if (e == cudaSuccess || e == cudaErrorNoDevice) {
    snprintf(name, namelen, "no CUDA device found");
  } else {
    snprintf(name, namelen, "%s", cudaGetErrorString(e));
  }
}

extern "C" int fmm_gpu_available(char *name, size_t namelen) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    cuda_unusable_reason(e, name, namelen);
    cudaGetLastError();
    return 0;
  }
  int dev = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    if (name && namelen) snprintf(name, namelen, "cannot query the CUDA device");
    cudaGetLastError();
    return 0;
  }
  if (name && namelen) snprintf(name, namelen, "%s", prop.name);
  return 1;
}

extern "C" int fmm_gpu_use_device(int k, char *err, size_t errlen) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    char why[256];
    cuda_unusable_reason(e, why, sizeof why);
    cudaGetLastError();
    snprintf(err, errlen, "no CUDA device: %s", why);
    return -1;
  }
  if ((e = cudaSetDevice(k % n)) != cudaSuccess) {
    snprintf(err, errlen, "CUDA device %d of %d: %s", k % n, n, cudaGetErrorString(e));
    cudaGetLastError();
    return -1;
  }
  return k % n;
}

extern "C" void fmm_gpu_destroy(fmm_ctx *ctx) {
  fmm_gpu *G = (fmm_gpu *)ctx->gpu;
  if (!G) return;
  if (G->s_far) cudaStreamSynchronize(G->s_far);
  if (G->s_near) cudaStreamSynchronize(G->s_near);
  oct_free_gpu(&G->tree);
  fmm_cost_gpu_destroy(ctx->cost_gpu);
  ctx->cost_gpu = NULL;
  tables_release(&G->tab);
  dbuf *all[] = {&G->src_soa, &G->tgt_soa, &G->vnear, &G->gnear, &G->in_spos, &G->in_sstr, &G->in_tpos,
                 &G->out_vel, &G->out_grad, &G->chunk_off, &G->chunk_leaf, &G->chunk_range, &G->dloc, &G->m2l_part,
                 &G->built_s, &G->built_t, &G->direct_part, &G->moved, &G->part_mpole, &G->part_key,
                 &G->part_start, &G->part_il};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) gpu_release(all[i]);
  for (int l = 0; l <= VX_LMAX; ++l) { gpu_release(&G->mpole[l]); gpu_release(&G->local[l]); }
  if (G->h_moved) cudaFreeHost(G->h_moved);
  for (int i = 0; i < EV_COUNT; ++i)
    if (G->ev[i]) cudaEventDestroy(G->ev[i]);
  if (G->s_far) cudaStreamDestroy(G->s_far);
  if (G->s_near) cudaStreamDestroy(G->s_near);
  free(G);
  ctx->gpu = NULL;
}

extern "C" int fmm_gpu_create(fmm_ctx *ctx, char *err, size_t errlen) {
  char name[256];
  if (!fmm_gpu_available(name, sizeof name)) {
    snprintf(err, errlen, "CUDA backend unavailable: %s", name);
    return -1;
  }
  fmm_gpu *G = (fmm_gpu *)calloc(1, sizeof(fmm_gpu));
  if (!G) { snprintf(err, errlen, "out of host memory"); return -1; }
  ctx->gpu = G;
  int optin = 0;
  if (!(ctx->cost_gpu = fmm_cost_gpu_create())) { snprintf(err, errlen, "out of host memory"); goto fail; }
  VX_CU(cudaGetDevice(&G->device));
  VX_CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, G->device));
  G->smem_optin = (size_t)optin;
  VX_CU(cudaDeviceGetAttribute(&G->n_sm, cudaDevAttrMultiProcessorCount, G->device));
  VX_CU(tf32_tensor_cores(G->device, &G->tc));
  ctx->par_width = G->n_sm;
  ctx->leaf_floor = 0; /* fmm_internal.h: the chunks fill the SMs even with few leaves */
  if (fmm_gpu_check_params(ctx, &ctx->prm, err, errlen)) goto fail;
  {
    const char *s = getenv("VX_FMM_SERIAL"); /* profiling: phases one at a time (fmm_gpu.serial) */
    G->serial = s && s[0] == '1';
  }
  if (create_streams(G, err, errlen)) goto fail;
  for (int i = 0; i < EV_COUNT; ++i) VX_CU(cudaEventCreate(&G->ev[i]));
  VX_CU(cudaMallocHost((void **)&G->h_moved, sizeof *G->h_moved));
  if (upload_tables(&G->tab, &ctx->tab, ctx->prm.precision == VX_FLOAT, err, errlen)) goto fail;
  return 0;
fail:
  fmm_gpu_destroy(ctx);
  return -1;
}

extern "C" int fmm_gpu_check_params(const fmm_ctx *ctx, const fmm_params *prm, char *err, size_t errlen) {
  return smem_plan(ctx, prm->order, prm->gradient, NULL, err, errlen);
}

extern "C" int fmm_gpu_set_tables(fmm_ctx *ctx, const fmm_tables *T, char *err, size_t errlen) {
  fmm_gpu *G = (fmm_gpu *)ctx->gpu;
  gpu_tables D;
  memset(&D, 0, sizeof D);
  /* into fresh buffers, so that a failure leaves the old order's tables in place (fmm_set_params) */
  if (upload_tables(&D, T, ctx->prm.precision == VX_FLOAT, err, errlen)) {
    tables_release(&D);
    return -1;
  }
  tables_release(&G->tab);
  G->tab = D;
  return 0;
}

extern "C" int fmm_gpu_evaluate(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  if (!ctx->gpu) { snprintf(err, errlen, "CUDA backend not initialised"); return -1; }
  return ctx->prm.precision == VX_FLOAT ? gpu_evaluate_f(ctx, io, st, err, errlen) : gpu_evaluate_d(ctx, io, st, err, errlen);
}

extern "C" int fmm_gpu_part_multipoles(fmm_ctx *ctx, const fmm_io *io, const fmm_part *part, void *mpole, int *count,
                                       char *err, size_t errlen) {
  if (!ctx->gpu) { snprintf(err, errlen, "CUDA backend not initialised"); return -1; }
  return ctx->prm.precision == VX_FLOAT ? gpu_part_multipoles_f(ctx, io, part, mpole, count, err, errlen)
                                        : gpu_part_multipoles_d(ctx, io, part, mpole, count, err, errlen);
}

extern "C" int fmm_gpu_direct(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  if (!ctx->gpu) { snprintf(err, errlen, "CUDA backend not initialised"); return -1; }
  return ctx->prm.precision == VX_FLOAT ? gpu_direct_f(ctx, io, st, err, errlen) : gpu_direct_d(ctx, io, st, err, errlen);
}

extern "C" int fmm_gpu_occupancy(fmm_ctx *ctx, int *levels, double lo[3], double *side, const int **bins) {
  fmm_gpu *G = (fmm_gpu *)ctx->gpu;
  if (!G || !G->tree.tgt_bin) return -1;
  *levels = G->tree.L;
  for (int k = 0; k < 3; ++k) lo[k] = G->tree.lo[k];
  *side = G->tree.side;
  *bins = G->tree.tgt_bin;
  return 0;
}

extern "C" int fmm_gpu_dense_tc(const fmm_ctx *ctx) {
  const fmm_gpu *G = (const fmm_gpu *)ctx->gpu;
  return ctx->prm.backend == VX_BACKEND_CUDA && G && m2l_tc_on(G, ctx->prm.precision == VX_FLOAT) && ctx->prm.order == 8;
}

extern "C" int fmm_gpu_m2l_tc_full(int p, int parts, int l, const double *M, double *L, char *err, size_t errlen) {
  if (l < 3 || l > 6) { snprintf(err, errlen, "level %d out of 3..6", l); return -1; }
  int dev = 0, has = 0;
  VX_CUR(cudaGetDevice(&dev));
  VX_CUR(tf32_tensor_cores(dev, &has));
  if (!has) { snprintf(err, errlen, "no TF32 tensor cores (compute capability below 8.0)"); return -2; }
#define VX_TC_FULL(P) return m2l_tc_full<P>(l, parts, M, L, err, errlen)
  switch (m2l_spec_order(p)) {
    VX_SPEC_CASES(VX_TC_FULL)
  default: snprintf(err, errlen, "no tensor-core M2L kernel for order %d", p); return -1;
  }
#undef VX_TC_FULL
}

extern "C" int vx_device_alloc(void **d_ptr, size_t bytes, char *err, size_t errlen) {
  *d_ptr = NULL;
  size_t cap = 0;
  cudaError_t e = vx_dev_reserve(d_ptr, &cap, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    snprintf(err, errlen, "GPU allocation of %.1f MiB failed: %s", bytes / 1048576.0, cudaGetErrorString(e));
    return -1;
  }
  return 0;
}
extern "C" void vx_device_free(void *d_ptr) {
  if (d_ptr) cudaFree(d_ptr);
}
extern "C" int vx_device_upload(void *d_dst, const void *src, size_t bytes, char *err, size_t errlen) {
  VX_CUR(cudaMemcpy(d_dst, src, bytes, cudaMemcpyHostToDevice));
  return 0;
}
extern "C" int vx_device_download(void *dst, const void *d_src, size_t bytes, char *err, size_t errlen) {
  VX_CUR(cudaMemcpy(dst, d_src, bytes, cudaMemcpyDeviceToHost));
  return 0;
}
