/* gpu_test_cost.c — the level-choosing cost model on the GPU (fmm/cost_gpu.cu) against the host's
 * (fmm/cost.c): the statistics computed on the device from device positions must equal
 * fmm_cost_stats_build's, count for count at every level (non-empty boxes, M2L translations,
 * near-field pairs, neighbour entries), for uniform, clustered and ring points, one set and separate
 * sets, double and float input, deepest levels 2..7, with one workspace grown and shrunk into. Then
 * the engine: with no CUDA table FMM_LEVEL_RULE_COST keeps the leaf-size level; with the same table on
 * both backends the GPU picks the CPU's level (one choice function), and its result is the forced
 * level's, bit for bit. The statistics pass at 2^20 points is timed (printed only).
 * Run: ./build/tests/gpu_test_cost — exits 77 (skip) without a CUDA device, EXIT_FAILURE on any
 * mismatch. */
#include "cost.h"
#include "fmm.h"
#include "octree.h"
#include "pointsets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_cuda.h"

#ifndef VX_HAVE_CUDA
VX_TEST_NO_CUDA_MAIN
#else

#include <math.h>

#include "test_check.h"
#include "test_points.h"


static cudaStream_t g_stream;
static fmm_cost_gpu *g_ws; /* one workspace for every case */

/* Device copy of n points, as doubles or floats; *host_f: the float copy on the host (NULL for double). */
static void *upload(const double *p, int n, int as_float, float **host_f) {
  const size_t m = 3 * (size_t)n;
  void *d = NULL;
  *host_f = NULL;
  if (as_float) {
    *host_f = vx_test_xmalloc(m * sizeof(float));
    for (size_t i = 0; i < m; i++) (*host_f)[i] = (float)p[i];
  }
  const size_t bytes = m * (as_float ? sizeof(float) : sizeof(double));
  CUDA_OK(cudaMalloc(&d, bytes));
  CUDA_OK(cudaMemcpy(d, as_float ? (const void *)*host_f : (const void *)p, bytes, cudaMemcpyHostToDevice));
  return d;
}

static void cube_of(const double *a, int na, const double *b, int nb, double lo[3], double *side) {
  double mn[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, mx[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (size_t i = 0; i < 3 * (size_t)na; i++) mn[i % 3] = fmin(mn[i % 3], a[i]), mx[i % 3] = fmax(mx[i % 3], a[i]);
  for (size_t i = 0; i < 3 * (size_t)nb; i++) mn[i % 3] = fmin(mn[i % 3], b[i]), mx[i % 3] = fmax(mx[i % 3], b[i]);
  if (oct_root_cube(mn, mx, lo, side)) fprintf(stderr, "FATAL: root cube\n"), exit(EXIT_FAILURE);
}

/* One case: device statistics == host statistics at every level 2..top. tgt == src: one set. */
static int stats_case(const char *label, const double *src, int ns, const double *tgt, int nt, int as_float, int top) {
  const int same = src == tgt && ns == nt;
  double lo[3], side;
  cube_of(src, ns, tgt, nt, lo, &side);
  float *fs, *ft = NULL;
  void *ds = upload(src, ns, as_float, &fs), *dt = same ? ds : upload(tgt, nt, as_float, &ft);
  fmm_cost_stats h, g;
  char err[256];
  const void *hs = as_float ? (const void *)fs : (const void *)src, *ht = same ? hs : as_float ? (const void *)ft : (const void *)tgt;
  CHECK(fmm_cost_stats_build(hs, ns, ht, nt, as_float, lo, side, top, &h) == 0, "%s: host statistics out of memory", label);
  CHECK(fmm_cost_stats_build_gpu(g_ws, ds, ns, dt, nt, as_float, lo, side, top, (void *)g_stream, &g, err, sizeof err) == 0,
        "%s: device statistics: %s", label, err);
  CHECK(g.top == h.top && g.ns == h.ns && g.nt == h.nt, "%s: top/ns/nt %d/%lld/%lld, host %d/%lld/%lld", label, g.top, g.ns,
        g.nt, h.top, h.ns, h.nt);
  for (int l = 2; l <= h.top; l++)
    CHECK(g.nsrc[l] == h.nsrc[l] && g.ntgt[l] == h.ntgt[l] && g.m2l[l] == h.m2l[l] && g.p2p[l] == h.p2p[l] &&
              g.nbr[l] == h.nbr[l],
          "%s %s top %d, level %d: device %lld/%lld/%lld/%lld/%lld, host %lld/%lld/%lld/%lld/%lld (boxes s/t, M2L, pairs, "
          "nbr)",
          label, as_float ? "float" : "double", top, l, g.nsrc[l], g.ntgt[l], g.m2l[l], g.p2p[l], g.nbr[l], h.nsrc[l],
          h.ntgt[l], h.m2l[l], h.p2p[l], h.nbr[l]);
  printf("  %-30s %-6s top=%d  M2L %10lld  pairs %13lld: ok\n", label, as_float ? "float" : "double", top, h.m2l[h.top],
         h.p2p[h.top]);
  CUDA_OK(cudaFree(ds));
  if (!same) CUDA_OK(cudaFree(dt));
  free(fs), free(ft);
  return 0;
}

static int test_stats(void) {
  printf("device statistics == host statistics:\n");
  const int n = 1 << 17;
  double *u = vx_test_uniform_pos(n, 1), *c = vx_test_clustered_pos(n, 2, 0.05), *v = vx_test_uniform_pos(n / 3, 3);
  double *r = vx_test_alloc_pos(n);
  vx_pointset(VX_DIST_RINGS, n, 4, r, NULL);
  int rc = 0;
  static const int tops[] = {7, 2, 5, 3, 6, 4}; /* the workspace grown and shrunk into */
  for (size_t k = 0; k < sizeof tops / sizeof tops[0]; k++)
    for (int f = 0; f < 2; f++) {
      rc |= stats_case("uniform, one set", u, n, u, n, f, tops[k]);
      rc |= stats_case("clustered, one set", c, n, c, n, f, tops[k]);
      rc |= stats_case("rings, one set", r, n, r, n, f, tops[k]);
      rc |= stats_case("clustered src, uniform tgt", c, n, v, n / 3, f, tops[k]);
    }
  free(u), free(c), free(v), free(r);
  return rc;
}

/* One evaluation on `backend` of the n points at pos (sources = targets); its level into *L. */
static int eval(vx_backend backend, int level_rule, int levels, int n, const double *pos, const double *str, double *vel,
                double *grad, int *L) {
  fmm_params prm = fmm_params_default();
  prm.backend = backend, prm.level_rule = level_rule, prm.levels = levels, prm.leaf_size = VX_LEAF_GPU;
  prm.verbose = 1; /* the no-table notice shows in the log */
  char err[256];
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  CHECK(ctx, "create (%s): %s", vx_backend_name(backend), err);
  fmm_io io = {.n_src = n, .src_pos = pos, .src_str = str, .n_tgt = n, .tgt_pos = pos, .vel = vel, .grad = grad};
  fmm_stats st;
  const int rc = fmm_evaluate(ctx, &io, &st, err, sizeof err);
  fmm_destroy(ctx);
  CHECK(rc == 0, "evaluate (%s): %s", vx_backend_name(backend), err);
  *L = st.levels;
  return 0;
}

static int test_engine(void) {
  const int n = 1 << 17;
  double *pos = vx_test_alloc_pos(n), *str = vx_test_alloc_pos(n);
  double *v1 = vx_test_alloc_pos(n), *v2 = vx_test_alloc_pos(n);
  double *g1 = vx_test_xmalloc(9 * (size_t)n * sizeof(double)), *g2 = vx_test_xmalloc(9 * (size_t)n * sizeof(double));
  vx_pointset(VX_DIST_RINGS, n, 5, pos, str);
  int Lleaf, Lnone, Lcpu, Lgpu, Lforced;
  fmm_cost_units u, keep;
  const int had = fmm_cost_get(VX_BACKEND_CUDA, VX_DOUBLE, &keep) == 0;
  if (!had) { /* no CUDA table: the leaf-size rule stays */
    CHECK(eval(VX_BACKEND_CUDA, FMM_LEVEL_RULE_LEAF, 0, n, pos, str, v1, g1, &Lleaf) == 0, "leaf-size rule");
    CHECK(eval(VX_BACKEND_CUDA, FMM_LEVEL_RULE_COST, 0, n, pos, str, v1, g1, &Lnone) == 0, "cost rule without a table");
    CHECK(Lnone == Lleaf, "no CUDA table: level %d, the leaf-size rule's %d", Lnone, Lleaf);
  }
  /* the same units on both backends: the same choice */
  CHECK(fmm_cost_get(VX_BACKEND_CPU, VX_FLOAT, &u) == 0, "the CPU float table is compiled in");
  fmm_cost_set(VX_BACKEND_CPU, VX_DOUBLE, &u);
  fmm_cost_set(VX_BACKEND_CUDA, VX_DOUBLE, &u);
  CHECK(eval(VX_BACKEND_CPU, FMM_LEVEL_RULE_COST, 0, n, pos, str, v1, g1, &Lcpu) == 0, "CPU cost rule");
  CHECK(eval(VX_BACKEND_CUDA, FMM_LEVEL_RULE_COST, 0, n, pos, str, v1, g1, &Lgpu) == 0, "GPU cost rule");
  CHECK(Lgpu == Lcpu, "the GPU's cost-model level %d, the CPU's %d (same table, same statistics)", Lgpu, Lcpu);
  CHECK(eval(VX_BACKEND_CUDA, FMM_LEVEL_RULE_LEAF, Lgpu, n, pos, str, v2, g2, &Lforced) == 0, "GPU forced level");
  CHECK(memcmp(v1, v2, 3 * (size_t)n * sizeof(double)) == 0 && memcmp(g1, g2, 9 * (size_t)n * sizeof(double)) == 0,
        "the cost rule's result differs from forcing its level %d", Lgpu);
  printf("engine: cost-model level %d on both backends, the GPU's result the forced level's: ok\n", Lgpu);
  /* the GPU's default rule is the cost model where a table is in force, the CPU's the leaf size */
  int Lauto, Lcpu_auto, Lcpu_leaf;
  CHECK(eval(VX_BACKEND_CUDA, FMM_LEVEL_RULE_AUTO, 0, n, pos, str, v2, g2, &Lauto) == 0, "GPU default rule");
  CHECK(Lauto == Lgpu, "the GPU's default rule chose level %d, the cost model %d", Lauto, Lgpu);
  CHECK(eval(VX_BACKEND_CPU, FMM_LEVEL_RULE_AUTO, 0, n, pos, str, v2, g2, &Lcpu_auto) == 0, "CPU default rule");
  CHECK(eval(VX_BACKEND_CPU, FMM_LEVEL_RULE_LEAF, 0, n, pos, str, v2, g2, &Lcpu_leaf) == 0, "CPU leaf-size rule");
  CHECK(Lcpu_auto == Lcpu_leaf, "the CPU's default rule chose level %d, the leaf-size rule %d", Lcpu_auto, Lcpu_leaf);
  printf("engine: default rules: the GPU's the cost model (level %d), the CPU's the leaf size (level %d): ok\n", Lauto,
         Lcpu_auto);
  /* one context: its kept choice serves the next builds, and a change of the tables is seen */
  fmm_params prm = fmm_params_default();
  prm.backend = VX_BACKEND_CUDA, prm.level_rule = FMM_LEVEL_RULE_COST, prm.leaf_size = VX_LEAF_GPU;
  char err[256];
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  CHECK(ctx, "create: %s", err);
  fmm_io io = {.n_src = n, .src_pos = pos, .src_str = str, .n_tgt = n, .tgt_pos = pos, .vel = v2, .grad = g2};
  fmm_stats st;
  int Lk[3];
  for (int k = 0; k < 2; k++) {
    CHECK(fmm_evaluate(ctx, &io, &st, err, sizeof err) == 0, "evaluate: %s", err);
    Lk[k] = st.levels;
  }
  fmm_cost_units p2p_only;
  memset(&p2p_only, 0, sizeof p2p_only);
  p2p_only.order = 8, p2p_only.p2p_grad = 1; /* the near field alone: the deepest candidate */
  fmm_cost_set(VX_BACKEND_CUDA, VX_DOUBLE, &p2p_only);
  CHECK(fmm_evaluate(ctx, &io, &st, err, sizeof err) == 0, "evaluate: %s", err);
  Lk[2] = st.levels;
  fmm_destroy(ctx);
  CHECK(Lk[0] == Lgpu && Lk[1] == Lgpu, "one context's builds: levels %d, %d, the cost model's %d", Lk[0], Lk[1], Lgpu);
  CHECK(Lk[2] > Lgpu, "after a change of the tables: level %d, expected deeper than %d (near-field costs only)", Lk[2], Lgpu);
  printf("engine: the kept choice serves the next build (level %d) and a new table is seen (level %d): ok\n", Lk[1], Lk[2]);
  if (had) fmm_cost_set(VX_BACKEND_CUDA, VX_DOUBLE, &keep);
  else memset(&keep, 0, sizeof keep), fmm_cost_set(VX_BACKEND_CUDA, VX_DOUBLE, &keep);
  free(pos), free(str), free(v1), free(v2), free(g1), free(g2);
  return 0;
}

/* The statistics pass of 2^20 uniform points at top 7 (printed, not checked). */
static void time_stats(void) {
  const int n = 1 << 20;
  double *u = vx_test_uniform_pos(n, 9), lo[3], side;
  cube_of(u, n, u, 0, lo, &side);
  float *f;
  void *d = upload(u, n, 1, &f);
  fmm_cost_stats s;
  char err[256];
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  float ms = 0;
  for (int r = 0; r < 3; r++) {
    CUDA_OK(cudaEventRecord(e0, g_stream));
    if (fmm_cost_stats_build_gpu(g_ws, d, n, d, n, 1, lo, side, 7, (void *)g_stream, &s, err, sizeof err))
      fprintf(stderr, "timing: %s\n", err);
    CUDA_OK(cudaEventRecord(e1, g_stream));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
  }
  printf("statistics pass, 2^20 uniform points, levels 2..7: %.3f ms on the device\n", ms);
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  CUDA_OK(cudaFree(d));
  free(u), free(f);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("gpu_test_cost on %s\n", name);
  CUDA_OK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  if (!(g_ws = fmm_cost_gpu_create())) return fprintf(stderr, "FATAL: out of memory\n"), EXIT_FAILURE;
  int rc = test_stats();
  rc |= test_engine();
  time_stats();
  fmm_cost_gpu_destroy(g_ws);
  CUDA_OK(cudaStreamDestroy(g_stream));
  if (rc || failures) {
    fprintf(stderr, "gpu_test_cost: %d check(s) failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("gpu_test_cost: all checks passed\n");
  return EXIT_SUCCESS;
}
#endif
