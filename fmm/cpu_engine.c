/* cpu_engine.c — instantiates the CPU engine (cpu_engine_t.h) in double and float. */
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm_internal.h"
#include "index.h"
#include "pair.h"
#include "sph.h"
#include "translate.h"

/* Table accessors per precision. */
static inline const double *tab_roty_d(const fmm_tables *T) { return T->roty; }
static inline const double *tab_m2m_d(const fmm_tables *T) { return T->m2m; }
static inline const double *tab_l2l_d(const fmm_tables *T) { return T->l2l; }
static inline const double *tab_m2l_d(const fmm_tables *T) { return T->m2l; }
static inline const float *tab_roty_f(const fmm_tables *T) { return T->roty_f; }
static inline const float *tab_m2m_f(const fmm_tables *T) { return T->m2m_f; }
static inline const float *tab_l2l_f(const fmm_tables *T) { return T->l2l_f; }
static inline const float *tab_m2l_f(const fmm_tables *T) { return T->m2l_f; }

/* The sources under box k of level l: the leaves' counts below it summed. */
static int cpu_box_sources(const oct_tree *t, int l, int k) {
  int a = k, e = k + 1;
  for (int m = l; m < t->L; ++m) a = t->src_child[m][a], e = t->src_child[m][e];
  return t->src_start[e] - t->src_start[a];
}

/* The source leaves whose pairs with target leaf b need the regularization correction (docs/MATH.md
 * §10): under the 27 level-Lc boxes around b's ancestor (oct_reach_range), not adjacent to b and
 * closer than the cut-off whose (r / leaf width)² is reach2 (oct_leaf_reach: cr->reach2, or
 * cr->reach2v where no target of b needs the gradient): the GPU's k_corr walks the same ranges with
 * the same tests. out holds at least nsrc[L] entries; returns the count. */
static int cpu_corr_leaves(const oct_tree *t, int b, const fmm_corr *cr, double reach2, int *out) {
  const int L = t->L, ns = t->nsrc[L];
  const uint32_t tk = t->tgt_key[L][b], *skey = t->src_key[L];
  int n = 0;
  for (int q = 0; q < 27; ++q) {
    int a, e;
    oct_reach_range(L, cr->Lc, tk, q, skey, ns, &a, &e);
    for (int s = a; s < e; ++s)
      if (oct_leaf_reach(tk, skey[s], reach2)) out[n++] = s;
  }
  return n;
}

/* The pair loops (cpu_target_pairs) are compiled for the x86-64 baseline (SSE2) and, with GCC 12
 * on x86-64, for the machine levels x86-64-v3 (AVX2, FMA) and -v4 (AVX-512): a Debian package runs
 * everywhere and uses the vector width the machine has. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__x86_64__)
#define VX_SIMD_TARGETS
#define VX_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
#define VX_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#endif

/* The environment variable VX_CPU_SIMD lowers the pair loops' instruction set, to compare the sets
 * on one machine or to run what a smaller machine runs: "baseline" (SSE2), "avx2" (AVX2 and FMA) or
 * "avx512"; unset or empty, the machine's best. A set above the machine's best gives its best; any
 * other value is reported once on stderr and ignored. CTest runs test_fmm and test_fmm_reg again
 * with VX_CPU_SIMD=baseline and =avx2. */
static atomic_int simd_warned;

fmm_simd fmm_cpu_simd(void) {
  fmm_simd best = FMM_SIMD_BASELINE;
#ifdef VX_SIMD_TARGETS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) best = FMM_SIMD_AVX512;
  else if (__builtin_cpu_supports("x86-64-v3")) best = FMM_SIMD_AVX2;
#endif
  const char *v = getenv("VX_CPU_SIMD");
  fmm_simd want = best;
  if (v && !strcmp(v, "baseline")) want = FMM_SIMD_BASELINE;
  else if (v && !strcmp(v, "avx2")) want = FMM_SIMD_AVX2;
  else if (v && !strcmp(v, "avx512")) want = FMM_SIMD_AVX512;
  else if (v && *v && !atomic_exchange(&simd_warned, 1))
    fprintf(stderr, "vortexfmm: warning: VX_CPU_SIMD=%s ignored (the values are baseline, avx2 and avx512); the CPU "
            "pair loops use %s\n", v, fmm_simd_name(best));
  return want < best ? want : best; /* never above what the machine runs */
}

const char *fmm_simd_name(fmm_simd s) {
  return s == FMM_SIMD_AVX512 ? "avx512" : s == FMM_SIMD_AVX2 ? "avx2" : "baseline";
}

int fmm_cpu_pairs_vectorize(vx_kernel kernel, vx_precision precision) {
  return kernel != VX_KERNEL_GAUSS || (precision == VX_FLOAT ? gauss_vectorizes_f() : gauss_vectorizes_d());
}

#define VX_DOUBLE_INST
#include "real_t.h"
#include "cpu_engine_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "cpu_engine_t.h"
#undef VX_FLOAT_INST

void fmm_cpu_release(fmm_ctx *ctx) {
  oct_free_cpu(&ctx->tree);
  vx_buf_free(&ctx->src_sorted);
  vx_buf_free(&ctx->tgt_sorted);
  vx_buf_free(&ctx->vel_sorted);
  vx_buf_free(&ctx->grad_sorted);
  vx_buf_free(&ctx->occupancy);
  vx_buf_free(&ctx->built_src);
  vx_buf_free(&ctx->built_tgt);
  for (int l = 0; l <= VX_LMAX; ++l) {
    vx_buf_free(&ctx->mpole[l]);
    vx_buf_free(&ctx->local[l]);
  }
}
