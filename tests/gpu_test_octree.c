/* gpu_test_octree.c — the GPU octree (fmm/octree_gpu*.cu) against the CPU one (fmm/octree_cpu.c,
 * itself checked against brute force by test_octree.c): for uniform, clustered, ring, coincident,
 * offset and flat point sets, sources = / != targets, empty sets, float and double input, fixed
 * levels 2..7, and every cap (hist_budget, max_level, min_leaf_width), the downloaded GPU tree must
 * equal the CPU tree exactly — every array of every level — and so must a rebuild that reuses the
 * allocations of larger and smaller builds and a build into a fresh tree. The finest-level
 * histograms (src_bin / tgt_bin, GPU only) are checked against the CPU's leaf counts, and input
 * errors must give the CPU's message. Then the build of 2^20 uniform points is timed (printed only).
 * Run: ./build/tests/gpu_test_octree — exits 77 (skip) without a CUDA device, EXIT_FAILURE on any
 * mismatch. */
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
#include <time.h>

#include "octree_gpu.h"
#include "test_check.h"
#include "test_points.h"

static cudaStream_t g_stream;
static oct_tree_gpu g_reused; /* one tree for every case: its allocations are reused, grown and shrunk into */


/* ---------- point sets (uniform and clustered: test_points.h, the same as test_octree.c's) ---------- */

static double *rings_pos(int n, uint64_t seed) {
  double *p = vx_test_xmalloc(3 * (size_t)n * sizeof(double));
  vx_pointset(VX_DIST_RINGS, n, seed, p, NULL);
  return p;
}

static oct_params params(int levels, int leaf, int max_level, size_t budget, double min_leaf_width) {
  oct_params p;
  memset(&p, 0, sizeof p);
  p.levels = levels, p.leaf_size = leaf, p.max_level = max_level, p.hist_budget = budget;
  p.min_leaf_width = min_leaf_width;
  return p;
}

/* ---------- exact comparison of two host trees ---------- */

/* First difference of two uint32 / int arrays, reported with the array's name and level. */
static int cmp_words(const char *label, const char *what, int l, const void *cpu, const void *gpu, size_t n,
                     long long *entries) {
  *entries += (long long)n;
  if (n == 0) return 0;
  if (!cpu || !gpu) {
    fprintf(stderr, "FAIL %s: %s[%d] missing (cpu %p, gpu %p)\n", label, what, l, cpu, gpu);
    return 1;
  }
  if (memcmp(cpu, gpu, n * sizeof(int)) == 0) return 0;
  const int *a = cpu, *b = gpu;
  size_t i = 0;
  while (i < n && a[i] == b[i]) i++;
  fprintf(stderr, "FAIL %s: %s[%d] differs at entry %zu of %zu: cpu %d, gpu %d\n", label, what, l, i, n, a[i], b[i]);
  return 1;
}

#define CMP(what, l, a, b, n)                                          \
  do {                                                                 \
    if (cmp_words(label, what, l, a, b, (size_t)(n), entries)) return 1; \
  } while (0)

static int compare_trees(const oct_tree *c, const oct_tree *g, const char *label, long long *entries) {
  if (c->L != g->L || c->capped != g->capped || c->ns != g->ns || c->nt != g->nt) {
    fprintf(stderr, "FAIL %s: L/capped/ns/nt cpu %d/%d/%d/%d, gpu %d/%d/%d/%d\n", label, c->L, c->capped, c->ns, c->nt,
            g->L, g->capped, g->ns, g->nt);
    return 1;
  }
  if (memcmp(c->lo, g->lo, sizeof c->lo) != 0 || memcmp(&c->side, &g->side, sizeof c->side) != 0) {
    fprintf(stderr, "FAIL %s: root cube cpu lo (%.17g %.17g %.17g) side %.17g, gpu (%.17g %.17g %.17g) %.17g\n", label,
            c->lo[0], c->lo[1], c->lo[2], c->side, g->lo[0], g->lo[1], g->lo[2], g->side);
    return 1;
  }
  const int L = c->L;
  for (int l = 0; l <= L; l++)
    if (c->nsrc[l] != g->nsrc[l] || c->ntgt[l] != g->ntgt[l]) {
      fprintf(stderr, "FAIL %s: level %d boxes src/tgt cpu %d/%d, gpu %d/%d\n", label, l, c->nsrc[l], c->ntgt[l],
              g->nsrc[l], g->ntgt[l]);
      return 1;
    }
  for (int l = 0; l <= L; l++) {
    const size_t ncell = (size_t)1 << (3 * l);
    CMP("src_key", l, c->src_key[l], g->src_key[l], c->nsrc[l]);
    CMP("tgt_key", l, c->tgt_key[l], g->tgt_key[l], c->ntgt[l]);
    CMP("src_map", l, c->src_map[l], g->src_map[l], ncell);
    CMP("tgt_map", l, c->tgt_map[l], g->tgt_map[l], ncell);
    if (l >= 1) {
      CMP("src_parent", l, c->src_parent[l], g->src_parent[l], c->nsrc[l]);
      CMP("tgt_parent", l, c->tgt_parent[l], g->tgt_parent[l], c->ntgt[l]);
    }
    if (l < L) {
      CMP("src_child", l, c->src_child[l], g->src_child[l], c->nsrc[l] + 1);
      CMP("tgt_child", l, c->tgt_child[l], g->tgt_child[l], c->ntgt[l] + 1);
    }
    CMP("il_start", l, c->il_start[l], g->il_start[l], c->ntgt[l] + 1);
    if (l >= 2) CMP("il", l, c->il[l], g->il[l], c->il_start[l][c->ntgt[l]]);
  }
  CMP("src_start", L, c->src_start, g->src_start, c->nsrc[L] + 1);
  CMP("tgt_start", L, c->tgt_start, g->tgt_start, c->ntgt[L] + 1);
  CMP("src_order", L, c->src_order, g->src_order, c->ns);
  CMP("tgt_order", L, c->tgt_order, g->tgt_order, c->nt);
  CMP("nbr_start", L, c->nbr_start, g->nbr_start, c->ntgt[L] + 1);
  CMP("nbr", L, c->nbr, g->nbr, c->nbr_start[c->ntgt[L]]);
  return 0;
}

/* The GPU's dense finest-level histogram against the CPU's leaf sizes. */
static int check_bin(const oct_tree *c, const int *d_bin, int tgt, const char *label, long long *entries) {
  const int L = c->L;
  const size_t ncell = (size_t)1 << (3 * L);
  const int *map = tgt ? c->tgt_map[L] : c->src_map[L], *start = tgt ? c->tgt_start : c->src_start;
  int *bin = vx_test_xmalloc(ncell * sizeof(int)), *want = vx_test_xmalloc(ncell * sizeof(int));
  CUDA_OK(cudaMemcpy(bin, d_bin, ncell * sizeof(int), cudaMemcpyDeviceToHost));
  for (size_t k = 0; k < ncell; k++) want[k] = map[k] >= 0 ? start[map[k] + 1] - start[map[k]] : 0;
  int rc = cmp_words(label, tgt ? "tgt_bin" : "src_bin", L, want, bin, ncell, entries);
  free(bin), free(want);
  return rc;
}

/* ---------- one case ---------- */

typedef struct {
  void *h_src, *h_tgt; /* host input in the case's precision */
  void *d_src, *d_tgt; /* device copies (d_tgt == d_src when sources are targets) */
} inputs;

static inputs make_inputs(const double *spos, int ns, const double *tpos, int nt, int same, int use_float) {
  inputs in;
  const size_t es = use_float ? sizeof(float) : sizeof(double);
  const double *src[2] = {spos, tpos};
  const int cnt[2] = {ns, nt};
  void *h[2], *d[2];
  for (int s = 0; s < 2; s++) {
    h[s] = vx_test_xmalloc(3 * (size_t)cnt[s] * es);
    for (size_t i = 0; i < 3 * (size_t)cnt[s]; i++) {
      if (use_float)
        ((float *)h[s])[i] = (float)src[s][i];
      else
        ((double *)h[s])[i] = src[s][i];
    }
    d[s] = NULL;
    if (s == 1 && same) {
      d[1] = d[0];
    } else if (cnt[s] > 0) {
      CUDA_OK(cudaMalloc(&d[s], 3 * (size_t)cnt[s] * es));
      CUDA_OK(cudaMemcpy(d[s], h[s], 3 * (size_t)cnt[s] * es, cudaMemcpyHostToDevice));
    }
  }
  in.h_src = h[0], in.h_tgt = same ? h[0] : h[1], in.d_src = d[0], in.d_tgt = d[1];
  if (same) free(h[1]);
  return in;
}

static void free_inputs(inputs *in) {
  if (in->h_tgt != in->h_src) free(in->h_tgt);
  free(in->h_src);
  if (in->d_tgt && in->d_tgt != in->d_src) cudaFree(in->d_tgt);
  if (in->d_src) cudaFree(in->d_src);
}

/* One GPU build into g, downloaded and compared with the CPU tree c. */
static int gpu_vs_cpu(oct_tree_gpu *g, const oct_tree *c, const inputs *in, int ns, int nt, int use_float,
                      const oct_params *p, const char *label, const char *which, long long *entries) {
  char err[256], what[160];
  oct_tree h;
  snprintf(what, sizeof what, "%s [%s]", label, which);
  if (oct_build_gpu(g, in->d_src, ns, in->d_tgt, nt, use_float, p, g_stream, err, sizeof err) != 0) {
    fprintf(stderr, "FAIL %s: oct_build_gpu: %s\n", what, err);
    return 1;
  }
  if (oct_download_gpu(g, &h, err, sizeof err) != 0) {
    fprintf(stderr, "FAIL %s: oct_download_gpu: %s\n", what, err);
    return 1;
  }
  int rc = compare_trees(c, &h, what, entries);
  if (!rc) rc = check_bin(c, g->src_bin, 0, what, entries) || check_bin(c, g->tgt_bin, 1, what, entries);
  if (!rc && (g->n_nbr != c->nbr_start[c->ntgt[c->L]])) {
    fprintf(stderr, "FAIL %s: n_nbr %d, cpu %d\n", what, g->n_nbr, c->nbr_start[c->ntgt[c->L]]);
    rc = 1;
  }
  for (int l = 0; l <= c->L && !rc; l++)
    if (g->n_il[l] != c->il_start[l][c->ntgt[l]]) {
      fprintf(stderr, "FAIL %s: n_il[%d] %d, cpu %d\n", what, l, g->n_il[l], c->il_start[l][c->ntgt[l]]);
      rc = 1;
    }
  oct_free_cpu(&h);
  return rc;
}

/* CPU build, then three GPU builds that must each equal it: into the tree shared by all cases
 * (reusing allocations of earlier, larger and smaller builds), into a fresh tree, and into the
 * shared tree again (determinism). */
static int run_case(const char *label, const double *spos, int ns, const double *tpos, int nt, int same,
                    int use_float, oct_params p) {
  inputs in = make_inputs(spos, ns, tpos, nt, same, use_float);
  oct_tree c;
  char err[256];
  long long entries = 0;
  int rc = 0;
  if (oct_build_cpu(&c, in.h_src, ns, in.h_tgt, nt, use_float, &p, err, sizeof err) != 0) {
    fprintf(stderr, "FAIL %s: oct_build_cpu: %s\n", label, err);
    free_inputs(&in);
    failures++;
    return 1;
  }
  oct_tree_gpu fresh;
  memset(&fresh, 0, sizeof fresh);
  rc = gpu_vs_cpu(&g_reused, &c, &in, ns, nt, use_float, &p, label, "reused", &entries);
  if (!rc) rc = gpu_vs_cpu(&fresh, &c, &in, ns, nt, use_float, &p, label, "fresh", &entries);
  if (!rc) rc = gpu_vs_cpu(&g_reused, &c, &in, ns, nt, use_float, &p, label, "rebuilt", &entries);
  oct_free_gpu(&fresh);
  oct_free_gpu(&fresh); /* twice: must be harmless */
  long long nil = 0;
  for (int l = 2; l <= c.L; l++) nil += c.il_start[l][c.ntgt[l]];
  int longest = 0;
  for (int b = 0; b < c.nsrc[c.L]; b++)
    if (c.src_start[b + 1] - c.src_start[b] > longest) longest = c.src_start[b + 1] - c.src_start[b];
  printf("  %-34s %s ns=%7d nt=%7d L=%d capped=%d leaves %6d/%6d (longest %6d) nbr %8d il %9lld: %lld entries x3 %s\n",
         label, use_float ? "f32" : "f64", ns, nt, c.L, c.capped, c.nsrc[c.L], c.ntgt[c.L], longest,
         c.nbr_start[c.ntgt[c.L]], nil, entries / 3, rc ? "FAIL" : "identical");
  oct_free_cpu(&c);
  free_inputs(&in);
  if (rc) failures++;
  return rc;
}

/* Both builds must fail with the same message. */
static int run_error(const char *label, const double *spos, int ns, const double *tpos, int nt, oct_params p) {
  inputs in = make_inputs(spos, ns, tpos, nt, 0, 0);
  oct_tree c;
  char ec[256], eg[256];
  int rc = 0;
  int rcpu = oct_build_cpu(&c, in.h_src, ns, in.h_tgt, nt, 0, &p, ec, sizeof ec);
  int rgpu = oct_build_gpu(&g_reused, in.d_src, ns, in.d_tgt, nt, 0, &p, g_stream, eg, sizeof eg);
  if (rcpu == 0) oct_free_cpu(&c);
  if (rcpu != -1 || rgpu != -1 || strcmp(ec, eg) != 0) {
    fprintf(stderr, "FAIL %s: cpu %d \"%s\", gpu %d \"%s\"\n", label, rcpu, ec, rgpu, eg);
    rc = 1;
  }
  printf("  %-34s both fail: \"%s\" %s\n", label, eg, rc ? "FAIL" : "ok");
  free_inputs(&in);
  if (rc) failures++;
  return rc;
}

/* ---------- timing (printed, never asserted) ---------- */

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static double wall_ms(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static void time_build(const char *label, const double *spos, int ns, const double *tpos, int nt, int same) {
  inputs in = make_inputs(spos, ns, tpos, nt, same, 0);
  oct_params p = params(0, 64, 0, 0, 0.0);
  oct_tree_gpu g;
  memset(&g, 0, sizeof g);
  char err[256];
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  enum { WARM = 3, REP = 10 };
  float ms[REP];
  double wall[REP];
  for (int r = 0; r < WARM + REP; r++) {
    CUDA_OK(cudaEventRecord(e0, g_stream));
    double w0 = wall_ms();
    if (oct_build_gpu(&g, in.d_src, ns, in.d_tgt, nt, 0, &p, g_stream, err, sizeof err) != 0) {
      fprintf(stderr, "FAIL timing %s: %s\n", label, err);
      failures++;
      break;
    }
    CUDA_OK(cudaEventRecord(e1, g_stream));
    CUDA_OK(cudaEventSynchronize(e1));
    double w1 = wall_ms();
    if (r >= WARM) {
      CUDA_OK(cudaEventElapsedTime(&ms[r - WARM], e0, e1));
      wall[r - WARM] = w1 - w0;
    }
  }
  qsort(ms, REP, sizeof ms[0], cmp_float);
  double wmin = wall[0];
  for (int r = 1; r < REP; r++) wmin = wall[r] < wmin ? wall[r] : wmin;
  oct_tree c;
  double t0 = wall_ms();
  int cpu_ok = oct_build_cpu(&c, in.h_src, ns, in.h_tgt, nt, 0, &p, err, sizeof err) == 0;
  double tcpu = wall_ms() - t0;
  printf("  %-34s L=%d leaves %d/%d: GPU build median %.3f ms (min %.3f, max %.3f; wall min %.3f) over %d runs; "
         "CPU build %.1f ms%s\n",
         label, g.L, g.nsrc[g.L], g.ntgt[g.L], ms[REP / 2], ms[0], ms[REP - 1], wmin, REP, tcpu, cpu_ok ? "" : " (failed)");
  if (cpu_ok) oct_free_cpu(&c);
  oct_free_gpu(&g);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  free_inputs(&in);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("gpu_test_octree on %s: GPU tree (downloaded) == CPU tree, every array of every level\n", name);
  CUDA_OK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  memset(&g_reused, 0, sizeof g_reused);

  const int n = 1 << 16;
  double *u1 = vx_test_uniform_pos(1 << 18, 1), *u2 = vx_test_uniform_pos(1 << 18, 2);
  double *c1 = vx_test_clustered_pos(n, 3, 0.05), *c2 = vx_test_clustered_pos(n, 4, 0.05), *c3 = vx_test_clustered_pos(n, 5, 0.01);
  double *r1 = rings_pos(n, 6), *r2 = rings_pos(n / 2, 7);

  /* shifted far from the origin, and flat (zero extent along z) */
  double *off = vx_test_xmalloc(3 * (size_t)n * sizeof(double)), *flat = vx_test_xmalloc(3 * (size_t)n * sizeof(double));
  for (size_t i = 0; i < 3 * (size_t)n; i++) off[i] = 1e6 + (i % 3 == 1 ? -3e6 : 0.0) + u1[i] * 10.0;
  for (size_t i = 0; i < 3 * (size_t)n; i++) flat[i] = i % 3 == 2 ? 0.25 : u2[i];
  /* all sources at one point (one leaf holding every source), and everything at one point */
  double *pt = vx_test_xmalloc(3 * 5000 * sizeof(double));
  for (int i = 0; i < 5000; i++) pt[3 * i] = 0.3, pt[3 * i + 1] = 0.7, pt[3 * i + 2] = -0.2;

  const oct_params dflt = params(0, 64, 0, 0, 0.0);
  printf("cases (each: CPU build, then GPU builds into a reused tree, a fresh tree, the reused tree again):\n");
  /* the larger build first, so that later cases grow and shrink into its allocations */
  run_case("uniform 2^18, sources != targets", u1, 1 << 18, u2, 1 << 18, 0, 0, dflt);
  run_case("uniform 2^16, sources != targets", u1, n, u2, 40000, 0, 0, dflt);
  run_case("uniform 2^16, sources != targets", u1, n, u2, 40000, 0, 1, dflt);
  run_case("uniform, leaf_size 8", u1, n, u2, n / 2, 0, 0, params(0, 8, 0, 0, 0.0));
  run_case("uniform, leaf_size 1 (deep)", u1, n, u2, 3000, 0, 0, params(0, 1, 0, 0, 0.0));
  run_case("clustered (blobs + 5% spread)", c1, n, c2, n, 0, 0, dflt);
  run_case("clustered (blobs + 5% spread)", c1, n, c2, n, 0, 1, dflt);
  run_case("tight clusters, targets uniform", c3, n, u2, 30000, 0, 0, dflt);
  run_case("clustered, leaf_size 16", c1, n, c3, n / 3, 0, 0, params(0, 16, 0, 0, 0.0));
  run_case("rings", r1, n, r2, n / 2, 0, 0, dflt);
  run_case("rings", r1, n, r2, n / 2, 0, 1, dflt);
  run_case("identical sources and targets", u1, n, u1, n, 1, 0, dflt);
  run_case("identical, rings, float", r1, n, r1, n, 1, 1, dflt);
  run_case("same points, separate copies", c1, n, c1, n, 0, 0, dflt);
  run_case("ns = 0", u1, 0, u2, 20000, 0, 0, dflt);
  run_case("nt = 0", u1, 20000, u2, 0, 0, 0, dflt);
  run_case("ns = 1, nt = 0", u1, 1, u2, 0, 0, 1, dflt);
  run_case("offset (1e6) and negative coordinates", off, n, off, n / 2, 0, 0, dflt);
  run_case("offset, float", off, n, off, n / 2, 0, 1, dflt);
  run_case("flat (z = 0.25)", flat, n, u1, 10000, 0, 0, dflt);
  run_case("sources coincident, targets uniform", pt, 5000, u2, 20000, 0, 0, dflt);
  run_case("everything coincident", pt, 5000, pt, 3000, 0, 0, dflt);
  for (int lv = 2; lv <= 7; lv++) {
    char label[64];
    snprintf(label, sizeof label, "fixed levels %d, uniform", lv);
    run_case(label, u1, 20000, u2, 15000, 0, lv % 2, params(lv, 64, 0, 0, 0.0));
    snprintf(label, sizeof label, "fixed levels %d, clustered", lv);
    run_case(label, c1, 20000, r1, 7000, 0, 0, params(lv, 64, 0, 0, 0.0));
  }
  run_case("hist_budget = maps of 2 levels (capped)", u1, n, u2, n, 0, 0, params(0, 16, 0, oct_map_bytes(2), 0.0));
  run_case("hist_budget = maps of 3 levels (capped)", c1, n, u2, n, 0, 0, params(0, 16, 0, oct_map_bytes(3), 0.0));
  run_case("hist_budget 4 MiB, tight clusters", c3, n, c3, n, 1, 0, params(0, 64, 0, (size_t)4 << 20, 0.0));
  run_case("max_level 3 (capped)", u1, n, u2, n, 0, 0, params(0, 16, 3, 0, 0.0));
  run_case("levels 5, max_level 4 (capped)", u1, 20000, u2, 20000, 0, 0, params(5, 16, 4, 0, 0.0));
  run_case("min_leaf_width 0.1 (capped at 3)", u1, n, u2, n, 0, 0, params(0, 16, 0, 0, 0.1));
  run_case("min_leaf_width 0.3 (level 2 too narrow)", u1, n, u2, n, 0, 0, params(0, 16, 0, 0, 0.3));
  run_case("min_leaf_width 0.05 (not binding)", u1, 20000, u2, 20000, 0, 0, params(0, 64, 0, 0, 0.05));
  run_case("min_leaf_width 0.02, clustered", c1, n, c1, n, 1, 1, params(0, 64, 0, 0, 0.02));
  { /* the floor on leaves (oct_params.min_leaves): the GPU's paired trials take the CPU's level */
    oct_params q = params(0, 2000, 0, 0, 0.0), r = params(0, 2000, 0, 0, 0.0);
    q.min_leaves = 100;
    r.min_leaves = 5000;
    run_case("leaf_size 2000, min_leaves 100 (one level deeper)", u1, n, u2, n / 2, 0, 0, q);
    run_case("leaf_size 2000, min_leaves 5000, clustered", c1, n, c3, n / 3, 0, 0, r);
  }

  printf("input errors (same message as the CPU build):\n");
  {
    double *bad = vx_test_uniform_pos(1000, 9);
    bad[3 * 777 + 1] = NAN;
    run_error("NaN source", bad, 1000, u2, 500, dflt);
    run_error("NaN target", u2, 500, bad, 1000, dflt);
    bad[3 * 5 + 2] = INFINITY;
    run_error("Inf source before NaN source", bad, 1000, u2, 500, dflt);
    run_error("no points", u1, 0, u2, 0, dflt);
    run_error("levels = 1", u1, 1000, u2, 1000, params(1, 64, 0, 0, 0.0));
    run_error("hist_budget 500 bytes", u1, 1000, u2, 1000, params(0, 64, 0, 500, 0.0));
    run_error("min_leaf_width < 0", u1, 1000, u2, 1000, params(0, 64, 0, 0, -1.0));
    free(bad);
    /* a failed build leaves the tree usable */
    run_case("uniform after failed builds", u1, 30000, u2, 30000, 0, 0, dflt);
  }
  oct_free_gpu(&g_reused);
  oct_free_gpu(&g_reused);

  printf("timing (information only; default parameters, leaf_size 64):\n");
  {
    const int big = 1 << 20;
    double *b1 = vx_test_uniform_pos(big, 11), *b2 = vx_test_uniform_pos(big, 12);
    time_build("uniform 2^20, sources = targets", b1, big, b1, big, 1);
    time_build("uniform 2^20, sources != targets", b1, big, b2, big, 0);
    free(b1), free(b2);
  }

  free(u1), free(u2), free(c1), free(c2), free(c3), free(r1), free(r2), free(off), free(flat), free(pt);
  cudaStreamDestroy(g_stream);
  if (failures) {
    printf("gpu_test_octree: %d FAILED\n", failures);
    return EXIT_FAILURE;
  }
  printf("gpu_test_octree: all GPU trees identical to the CPU trees\n");
  return 0;
}
#endif
