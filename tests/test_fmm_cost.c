/* test_fmm_cost.c — the level rule's one home and the cost model (fmm/octree.h,
 * fmm/cost.c). Checks: the leaf-size rule itself (oct_level_first / oct_level_trials /
 * oct_level_accept / oct_level_candidates) on hand-worked cases; the cost model's histogram
 * statistics against the octree actually built (non-empty boxes, M2L list sizes, neighbour-list
 * entries and near-field pairs per level, exactly, for uniform, clustered and separate target
 * sets); the per-cell functions the GPU's statistics kernels run (fmm/cost_gpu.cu), run on the
 * host as their CPU twin, against the host build; the choice (fmm_cost_pick_level) against brute
 * force; the order scaling of the prediction; the cost file's round trip and its refusals; and the
 * engine with FMM_LEVEL_RULE_COST (a candidate level, results identical to forcing that level) while
 * FMM_LEVEL_RULE_LEAF, and the CPU's default, keep the leaf-size level; fmm_params.allow_direct's
 * choice (fmm_cost_direct_pays) and its sums, fmm_direct's.
 * Run: ./build/tests/test_fmm_cost (exits non-zero and says what failed). */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "cost.h"
#include "fmm.h"
#include "octree.h"
#include "pointsets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"
#include "test_points.h"

/* Points in two tight blobs and a sparse background: many empty boxes, uneven leaves. */
static double *clustered_pos(int n, uint64_t seed) {
  double *p = vx_test_alloc_pos(n);
  for (int i = 0; i < n; i++) {
    const double u = vx_rng_uniform(&seed), c = u < 0.45 ? 0.2 : 0.7, w = u < 0.9 ? 0.05 : 1.0;
    for (int k = 0; k < 3; k++) p[3 * i + k] = (u < 0.9 ? c : 0.0) + w * vx_rng_uniform(&seed);
  }
  return p;
}

/* ---------- the leaf-size rule ---------- */

/* The candidates hold the level the leaf-size rule itself ends at on clustered data: rings of
 * 2^16 points with the GPU's leaves of 256 go three levels below the rule's first trial (5 against
 * 2; with a range of two deeper the H100's cost rule could only take 4, 19 % slower). */
static int rule_on_rings(void) {
  const int n = 1 << 16;
  double *pos = vx_test_alloc_pos(n), *str = vx_test_alloc_pos(n);
  vx_pointset(VX_DIST_RINGS, n, 1, pos, str);
  oct_params p;
  memset(&p, 0, sizeof p);
  p.leaf_size = 256;
  oct_tree t;
  char err[256];
  int lo, hi;
  const int rc = oct_build_cpu(&t, pos, n, pos, n, 0, &p, err, sizeof err);
  free(pos), free(str);
  CHECK(rc == 0, "rings: build: %s", err);
  oct_level_candidates(&p, n, 10, 10, &lo, &hi);
  CHECK(t.L >= lo && t.L <= hi, "rings of 2^16, leaves of 256: the rule's level %d outside the candidates %d..%d", t.L, lo, hi);
  printf("  rings of 2^16, leaves of 256: rule level %d, candidates %d..%d\n", t.L, lo, hi);
  oct_free_cpu(&t);
  return 0;
}

static int test_rule(void) {
  oct_params p;
  memset(&p, 0, sizeof p);
  p.leaf_size = 64;
  int capped = -1;
  /* the largest l with 8^l * 64 <= cn, at least 2 */
  CHECK(oct_level_first(&p, 100, 10, 1.0, &capped) == 2 && capped == 0, "cn = 100: level 2, not capped");
  CHECK(oct_level_first(&p, 32768, 10, 1.0, &capped) == 3 && capped == 0, "cn = 8^3 * 64: level 3");
  CHECK(oct_level_first(&p, 32767, 10, 1.0, &capped) == 2, "cn = 8^3 * 64 - 1: level 2");
  CHECK(oct_level_first(&p, 1 << 20, 10, 1.0, &capped) == 4, "cn = 2^20: level 4");
  CHECK(oct_level_first(&p, 1 << 20, 3, 1.0, &capped) == 3 && capped == 1, "lcap 3 lowers level 4 and caps");
  p.min_leaf_width = 0.3; /* level-2 boxes of a unit cube are 0.25 wide: cannot be met */
  CHECK(oct_level_first(&p, 100, 10, 1.0, &capped) == 2 && capped == 1, "min_leaf_width above level 2's width caps");
  p.min_leaf_width = 0.0;
  p.levels = 6;
  CHECK(oct_level_first(&p, 100, 10, 1.0, &capped) == 6 && capped == 0, "forced level 6 kept");
  CHECK(oct_level_first(&p, 100, 5, 1.0, &capped) == 5 && capped == 1, "forced level 6 capped at 5");
  CHECK(!oct_level_trials(&p, 0), "a forced level has no trials");
  p.levels = 0;
  CHECK(oct_level_trials(&p, 0) && !oct_level_trials(&p, 1), "trials only when automatic and not capped");
  capped = 0;
  CHECK(oct_level_accept(&p, 3, 10, 6400, 100, &capped) == 1 && capped == 0, "mean 64 <= 64 accepted");
  CHECK(oct_level_accept(&p, 3, 10, 6401, 100, &capped) == 0 && capped == 0, "mean > 64 goes deeper");
  CHECK(oct_level_accept(&p, 5, 5, 6401, 100, &capped) == 1 && capped == 1, "at lcap: accepted and capped");
  /* a full level goes one deeper while its leaves keep full_deeper points there (the tensor-core M2L) */
  oct_params f = p;
  f.leaf_size = 256, f.min_leaves = 0, f.full_deeper = 32, f.full_deeper_boxes = 2112;
  capped = 0;
  CHECK(oct_level_accept(&f, 4, 10, 1 << 20, 4096, &capped) == 0, "2^20 on a full level 4: one deeper");
  CHECK(oct_level_accept(&f, 5, 10, 1 << 20, 32768, &capped) == 1, "2^20 on level 5: 32 a leaf, taken");
  CHECK(oct_level_accept(&f, 4, 10, 1000000, 4000, &capped) == 1, "a level not full: the leaf size's");
  CHECK(oct_level_accept(&f, 3, 10, 1 << 17, 512, &capped) == 1, "fewer boxes than full_deeper_boxes: kept");
  CHECK(oct_level_accept(&f, 4, 10, 3 << 18, 4096, &capped) == 1, "24 a leaf one down: kept");
  CHECK(oct_level_accept(&f, 4, 4, 1 << 20, 4096, &capped) == 1 && capped == 0, "at lcap: kept");
  f.full_deeper = 0;
  CHECK(oct_level_accept(&f, 4, 10, 1 << 20, 4096, &capped) == 1, "full_deeper 0: the leaf size's");
  int lo, hi;
  oct_level_candidates(&p, 1 << 20, 10, 10, &lo, &hi);
  CHECK(lo == 3 && hi == 7, "candidates of 2^20 points: %d..%d, expected 3..7", lo, hi);
  oct_level_candidates(&p, 1 << 20, 5, 10, &lo, &hi);
  CHECK(lo == 3 && hi == 5, "candidates under lcap 5: %d..%d", lo, hi);
  oct_level_candidates(&p, 100, 10, 10, &lo, &hi);
  CHECK(lo == 2 && hi == 5, "candidates of 100 points: %d..%d, expected 2..5", lo, hi);
  oct_level_candidates(&p, 100, 2, 10, &lo, &hi);
  CHECK(lo == 2 && hi == 2, "candidates under lcap 2: %d..%d", lo, hi);
  if (rule_on_rings()) return 1;
  printf("leaf-size rule: ok\n");
  return 0;
}

/* ---------- histogram statistics against the tree ---------- */

static int stats_vs_tree(const char *label, const double *src, int ns, const double *tgt, int nt, int L) {
  oct_params p;
  memset(&p, 0, sizeof p);
  p.levels = L, p.leaf_size = 64;
  oct_tree t;
  char err[256];
  CHECK(oct_build_cpu(&t, src, ns, tgt, nt, 0, &p, err, sizeof err) == 0, "%s: build: %s", label, err);
  CHECK(t.L == L, "%s: tree level %d, asked %d", label, t.L, L);
  fmm_cost_stats s;
  CHECK(fmm_cost_stats_build(src, ns, tgt, nt, 0, t.lo, t.side, L, &s) == 0, "%s: statistics out of memory", label);
  for (int l = 2; l <= L; l++) {
    CHECK(s.nsrc[l] == t.nsrc[l] && s.ntgt[l] == t.ntgt[l], "%s: level %d boxes %lld/%lld, tree %d/%d", label, l,
          s.nsrc[l], s.ntgt[l], t.nsrc[l], t.ntgt[l]);
    const long long il = t.il_start[l][t.ntgt[l]];
    CHECK(s.m2l[l] == il, "%s: level %d M2L %lld, tree's lists %lld", label, l, s.m2l[l], il);
  }
  long long pairs = 0;
  for (int b = 0; b < t.ntgt[L]; b++) {
    long long sn = 0;
    for (int q = t.nbr_start[b]; q < t.nbr_start[b + 1]; q++) sn += t.src_start[t.nbr[q] + 1] - t.src_start[t.nbr[q]];
    pairs += sn * (t.tgt_start[b + 1] - t.tgt_start[b]);
  }
  CHECK(s.p2p[L] == pairs, "%s: near-field pairs %lld, tree %lld", label, s.p2p[L], pairs);
  CHECK(s.nbr[L] == t.nbr_start[t.ntgt[L]], "%s: neighbour entries %lld, tree %d", label, s.nbr[L], t.nbr_start[t.ntgt[L]]);
  printf("  %-34s L=%d leaves %6d  M2L %9lld  pairs %11lld: ok\n", label, L, t.nsrc[L], s.m2l[L], pairs);
  oct_free_cpu(&t);
  return 0;
}

static int test_stats(void) {
  printf("histogram statistics = the tree's:\n");
  const int n = 20000;
  double *u = vx_test_uniform_pos(n, 7), *c = clustered_pos(n, 8), *v = vx_test_uniform_pos(n / 3, 9);
  int rc = 0;
  char name[64];
  for (int L = 2; L <= 5 && !rc; L++) {
    snprintf(name, sizeof name, "uniform, one set, level %d", L);
    rc |= stats_vs_tree(name, u, n, u, n, L);
    snprintf(name, sizeof name, "clustered, one set, level %d", L);
    rc |= stats_vs_tree(name, c, n, c, n, L);
    snprintf(name, sizeof name, "clustered src, uniform tgt, level %d", L);
    rc |= stats_vs_tree(name, c, n, v, n / 3, L);
  }
  free(u), free(c), free(v);
  return rc;
}

/* ---------- the device kernels' CPU twin ---------- */

/* What fmm/cost_gpu.cu's kernels compute, run cell by cell on the host with the same per-cell
 * functions of cost.h (fmm_cost_cell_of, fmm_cost_cell_fine, fmm_cost_cell_far,
 * fmm_cost_children): the dense histogram of level top, then per level the terms and the counts
 * coarsened into the parents. The GPU test checks the device against fmm_cost_stats_build; this one
 * checks, without a device, that the kernels' arithmetic is that build's. */
static int stats_by_cells(const double *src, int ns, const double *tgt, int nt, const double lo[3], double side, int top,
                          fmm_cost_stats *s) {
  memset(s, 0, sizeof *s);
  s->top = top, s->ns = ns, s->nt = nt;
  const size_t n3 = (size_t)1 << (3 * top);
  int *S = calloc(n3, sizeof(int)), *T = calloc(n3, sizeof(int)), *S2 = malloc(n3 * sizeof(int)), *T2 = malloc(n3 * sizeof(int));
  if (!S || !T || !S2 || !T2) return free(S), free(T), free(S2), free(T2), -1;
  for (int i = 0; i < ns; i++) S[fmm_cost_cell_of(src, 0, (size_t)i, lo, 1.0 / side, top)]++;
  for (int i = 0; i < nt; i++) T[fmm_cost_cell_of(tgt, 0, (size_t)i, lo, 1.0 / side, top)]++;
  for (int l = top; l >= 2; l--) {
    const int m = 1 << l, h = m / 2;
    long long acc[4] = {0, 0, 0, 0}, far = 0;
    for (int z = 0; z < m; z++)
      for (int y = 0; y < m; y++)
        for (int x = 0; x < m; x++) fmm_cost_cell_fine(S, T, m, x, y, z, acc);
    for (int z = 0; z < h; z++)
      for (int y = 0; y < h; y++)
        for (int x = 0; x < h; x++) {
          far += fmm_cost_cell_far(S, T, m, x, y, z);
          S2[((size_t)z * h + y) * h + x] = fmm_cost_children(S, m, x, y, z, 0);
          T2[((size_t)z * h + y) * h + x] = fmm_cost_children(T, m, x, y, z, 0);
        }
    s->nsrc[l] = acc[0], s->ntgt[l] = acc[1], s->p2p[l] = acc[2], s->nbr[l] = acc[3], s->m2l[l] = far - acc[3];
    int *t = S; S = S2, S2 = t;
    t = T, T = T2, T2 = t;
  }
  free(S), free(T), free(S2), free(T2);
  return 0;
}

static int twin_case(const char *label, const double *src, int ns, const double *tgt, int nt, int top) {
  oct_params p;
  memset(&p, 0, sizeof p);
  p.levels = 2, p.leaf_size = 64;
  oct_tree t; /* for its root cube */
  char err[256];
  CHECK(oct_build_cpu(&t, src, ns, tgt, nt, 0, &p, err, sizeof err) == 0, "%s: build: %s", label, err);
  fmm_cost_stats a, b;
  CHECK(fmm_cost_stats_build(src, ns, tgt, nt, 0, t.lo, t.side, top, &a) == 0, "%s: statistics out of memory", label);
  CHECK(stats_by_cells(src, ns, tgt, nt, t.lo, t.side, top, &b) == 0, "%s: twin out of memory", label);
  for (int l = 2; l <= top; l++)
    CHECK(a.nsrc[l] == b.nsrc[l] && a.ntgt[l] == b.ntgt[l] && a.m2l[l] == b.m2l[l] && a.p2p[l] == b.p2p[l] &&
              a.nbr[l] == b.nbr[l],
          "%s: level %d: build %lld/%lld/%lld/%lld/%lld, cells %lld/%lld/%lld/%lld/%lld", label, l, a.nsrc[l], a.ntgt[l],
          a.m2l[l], a.p2p[l], a.nbr[l], b.nsrc[l], b.ntgt[l], b.m2l[l], b.p2p[l], b.nbr[l]);
  printf("  %-34s top=%d: ok\n", label, top);
  oct_free_cpu(&t);
  return 0;
}

static int test_twin(void) {
  printf("per-cell statistics (the GPU kernels' arithmetic) = the host build's:\n");
  const int n = 20000;
  double *u = vx_test_uniform_pos(n, 17), *c = clustered_pos(n, 18), *v = vx_test_uniform_pos(n / 3, 19);
  int rc = 0;
  for (int top = 2; top <= 6 && !rc; top += 2) {
    rc |= twin_case("uniform, one set", u, n, u, n, top);
    rc |= twin_case("clustered, one set", c, n, c, n, top);
    rc |= twin_case("clustered src, uniform tgt", c, n, v, n / 3, top);
  }
  free(u), free(c), free(v);
  return rc;
}

/* ---------- the choice ---------- */

static int test_pick(void) {
  const int n = 30000;
  double *u = vx_test_uniform_pos(n, 21);
  double mn[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, mx[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, lo[3], side;
  for (int i = 0; i < 3 * n; i++) mn[i % 3] = fmin(mn[i % 3], u[i]), mx[i % 3] = fmax(mx[i % 3], u[i]);
  CHECK(oct_root_cube(mn, mx, lo, &side) == 0, "root cube");
  fmm_cost_stats s;
  CHECK(fmm_cost_stats_build(u, n, u, n, 0, lo, side, 6, &s) == 0, "statistics out of memory");
  fmm_cost_units cpu, only;
  CHECK(fmm_cost_get(VX_BACKEND_CPU, VX_FLOAT, &cpu) == 0, "the CPU float table is compiled in");
  for (int p = 4; p <= 16; p += 6) { /* the least of the predicted totals, by brute force */
    int want = 0;
    double tw = HUGE_VAL, t[FMM_COST_PHASES], tp = -1;
    for (int L = 2; L <= 6; L++) {
      const fmm_cost_units w = fmm_cost_work_at(&s, L, n);
      const double tt = fmm_cost_phases(&cpu, &w, p, t);
      if (tt < tw) tw = tt, want = L;
    }
    const int got = fmm_cost_pick_level(&cpu, p, &s, n, 2, 6, &tp);
    CHECK(got == want && fabs(tp - tw) <= 1e-12 * tw, "order %d: picked %d (%g ms), brute force %d (%g ms)", p, got, tp, want, tw);
  }
  memset(&only, 0, sizeof only);
  only.order = 8, only.m2l = 1; /* far field only: the coarsest candidate */
  CHECK(fmm_cost_pick_level(&only, 8, &s, n, 3, 6, NULL) == 3, "M2L-only costs pick the coarsest level");
  memset(&only, 0, sizeof only);
  only.order = 8, only.p2p_grad = 1; /* near field only: the finest */
  CHECK(fmm_cost_pick_level(&only, 8, &s, n, 3, 6, NULL) == 6, "P2P-only costs pick the finest level");
  CHECK(fmm_cost_pick_level(&only, 8, &s, n, 3, 9, NULL) == 6, "candidates above the statistics' top are left out");
  CHECK(fmm_cost_pick_level(&only, 8, &s, n, 5, 4, NULL) == 0, "an empty range picks nothing (the leaf-size rule)");
  /* the engine's choice: the deepest level the statistics reach, where deeper candidates were asked, is
   * only the edge of what the model sees: the leaf-size rule (0) decides */
  fmm_params prm = fmm_params_default();
  prm.precision = VX_FLOAT;
  char err[256];
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  CHECK(ctx, "create: %s", err);
  fmm_cost_set(VX_BACKEND_CPU, VX_FLOAT, &only);
  const int edge = fmm_cost_best_level(ctx, &s, 3, 9), within = fmm_cost_best_level(ctx, &s, 3, 6);
  fmm_cost_set(VX_BACKEND_CPU, VX_FLOAT, &cpu);
  fmm_destroy(ctx);
  CHECK(edge == 0, "a choice at the statistics' top with deeper candidates asked: %d, expected 0", edge);
  CHECK(within == 6, "a choice at the top of the candidates asked: %d, expected 6", within);
  printf("the choice is the least predicted time: ok\n");
  free(u);
  return 0;
}

/* ---------- prediction, table, file ---------- */

static int test_prediction(void) {
  fmm_cost_units u, w;
  memset(&u, 0, sizeof u);
  memset(&w, 0, sizeof w);
  u.order = 8, u.p2m = 10, u.m2l = 1000, u.p2p_grad = 5;
  w.p2m = 1e6, w.m2l = 1e6, w.p2p_grad = 1e6;
  double t8[FMM_COST_PHASES], t17[FMM_COST_PHASES];
  const double s8 = fmm_cost_phases(&u, &w, 8, t8), s17 = fmm_cost_phases(&u, &w, 17, t17);
  CHECK(fabs(t8[1] - 10.0) < 1e-9 && fabs(t8[3] - 1000.0) < 1e-9 && fabs(t8[6] - 5.0) < 1e-9, "ms at the table's order");
  CHECK(fabs(t17[1] - 40.0) < 1e-9 && fabs(t17[3] - 8000.0) < 1e-9 && fabs(t17[6] - 5.0) < 1e-9,
        "order 17 = 2x (p+1): P2M x4, M2L x8, P2P unchanged");
  CHECK(fabs(s8 - 1015.0) < 1e-9 && fabs(s17 - 8045.0) < 1e-9, "sums %g %g", s8, s17);
  printf("prediction scales with the order: ok\n");
  return 0;
}

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  return fclose(f);
}

static int test_file(void) {
  fmm_cost_units keep, u, got;
  CHECK(fmm_cost_get(VX_BACKEND_CPU, VX_FLOAT, &keep) == 0, "the CPU float table is compiled in");
  memset(&u, 0, sizeof u);
  u.order = 12, u.tree_pt = 1.5, u.tree_cell = 0.25, u.p2m = 30, u.m2m = 900, u.m2l = 1200, u.l2l = 950,
  u.l2p_grad = 70, u.l2p_vel = 40, u.p2p_grad = 3.5, u.p2p_vel = 2, u.p2p_nbr = 20, u.other = 9, u.level = 2e4,
  u.call = 3e5;
  char line[1024], path[] = "/tmp/test_fmm_cost_XXXXXX", err[256];
  fmm_cost_format(line, sizeof line, VX_BACKEND_CPU, VX_FLOAT, &u);
  const int fd = mkstemp(path);
  CHECK(fd >= 0, "temporary file");
  close(fd);
  char text[1200];
  snprintf(text, sizeof text, "# a comment\n\n%s\n", line);
  CHECK(write_text(path, text) == 0, "write %s", path);
  CHECK(fmm_cost_load(path, err, sizeof err) == 0, "load: %s", err);
  CHECK(fmm_cost_get(VX_BACKEND_CPU, VX_FLOAT, &got) == 0 && memcmp(&got, &u, sizeof u) == 0, "round trip of '%s'", line);
  /* a file written before the per-level and per-call units loads, with 0 for them */
  char *cut = strstr(line, " level=");
  CHECK(cut != NULL, "the line has the level unit: '%s'", line);
  *cut = '\0';
  snprintf(text, sizeof text, "%s\n", line);
  CHECK(write_text(path, text) == 0 && fmm_cost_load(path, err, sizeof err) == 0, "load without level and call: %s", err);
  fmm_cost_units old = u;
  old.level = old.call = 0;
  CHECK(fmm_cost_get(VX_BACKEND_CPU, VX_FLOAT, &got) == 0 && memcmp(&got, &old, sizeof u) == 0, "'%s': level and call 0", line);
  /* the per-level and per-call units in the prediction: (L - 1) levels and one call, in `other` */
  fmm_cost_units w;
  memset(&w, 0, sizeof w);
  w.level = 4, w.call = 1;
  double t[FMM_COST_PHASES];
  const double tp = fmm_cost_phases(&u, &w, u.order, t);
  CHECK(fabs(t[7] - (4 * 2e4 + 3e5) * 1e-6) < 1e-12 && fabs(tp - t[7]) < 1e-12, "level and call costs: %g ms", t[7]);
  CHECK(write_text(path, text) == 0, "write %s", path);
  fmm_cost_set(VX_BACKEND_CPU, VX_FLOAT, &u);
  static const char *const bad[] = {
      "gpu float order=8\n",                 /* backend */
      "cpu half order=8\n",                  /* precision */
      "cpu float order=8 m2l=1\n",           /* missing keys */
      "cpu float order=8 tree_pt=x\n",       /* number */
      "cpu float order=99 tree_pt=1\n",      /* order */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK(write_text(path, bad[i]) == 0, "write %s", path);
    err[0] = '\0';
    CHECK(fmm_cost_load(path, err, sizeof err) != 0 && strstr(err, ":1:"), "'%s' refused with its line: %s", bad[i], err);
    CHECK(fmm_cost_get(VX_BACKEND_CPU, VX_FLOAT, &got) == 0 && memcmp(&got, &u, sizeof u) == 0, "a refused file changes nothing");
  }
  remove(path);
  fmm_cost_set(VX_BACKEND_CPU, VX_FLOAT, &keep);
  /* the CUDA tables are compiled in once calibrated on a device (fmm/cost.c): valid when present */
  for (int f = 0; f < 2; f++)
    if (fmm_cost_get(VX_BACKEND_CUDA, f ? VX_FLOAT : VX_DOUBLE, &got) == 0)
      CHECK(got.order >= 1 && got.order <= VX_PMAX, "the CUDA %s table's order %d", f ? "float" : "double", got.order);
  printf("cost file round trip and refusals: ok\n");
  return 0;
}

/* ---------- the engine with FMM_LEVEL_RULE_COST ---------- */

static int test_engine(void) {
  const int n = 30000;
  double *pos = malloc(3 * (size_t)n * sizeof(double)), *str = malloc(3 * (size_t)n * sizeof(double));
  double *v1 = malloc(3 * (size_t)n * sizeof(double)), *v2 = malloc(3 * (size_t)n * sizeof(double));
  double *g1 = malloc(9 * (size_t)n * sizeof(double)), *g2 = malloc(9 * (size_t)n * sizeof(double));
  CHECK(pos && str && v1 && v2 && g1 && g2, "out of memory");
  vx_pointset(VX_DIST_UNIFORM, n, 3, pos, str);
  char err[256];
  /* the double table may be uncalibrated: borrow the float units for this test */
  fmm_cost_units uf, ud;
  const int had_double = fmm_cost_get(VX_BACKEND_CPU, VX_DOUBLE, &ud) == 0;
  CHECK(fmm_cost_get(VX_BACKEND_CPU, VX_FLOAT, &uf) == 0, "the CPU float table is compiled in");
  fmm_cost_set(VX_BACKEND_CPU, VX_DOUBLE, &uf);
  fmm_params prm = fmm_params_default();
  prm.level_rule = 3;
  CHECK(fmm_create(&prm, err, sizeof err) == NULL && strstr(err, "level_rule"), "level_rule 3 refused: %s", err);
  CHECK(fmm_level_rule(&prm) == 3, "a rule set is the rule in force");
  prm.level_rule = FMM_LEVEL_RULE_AUTO;
  CHECK(fmm_level_rule(&prm) == FMM_LEVEL_RULE_LEAF, "the CPU's default rule is the leaf-size one");
  fmm_ctx *c0 = fmm_create(&prm, err, sizeof err);
  prm.level_rule = FMM_LEVEL_RULE_COST;
  fmm_ctx *c1 = fmm_create(&prm, err, sizeof err);
  CHECK(c0 && c1, "create: %s", err);
  fmm_io io = {.n_src = n, .src_pos = pos, .src_str = str, .n_tgt = n, .tgt_pos = pos, .vel = v1, .grad = g1};
  fmm_stats s0, s1, s2;
  CHECK(fmm_evaluate(c0, &io, &s0, err, sizeof err) == 0, "leaf-size rule: %s", err);
  CHECK(s0.levels == 3, "leaf-size rule on 30000 uniform points: level %d, expected 3 (mean occupancy 58.6)", s0.levels);
  CHECK(fmm_evaluate(c1, &io, &s1, err, sizeof err) == 0, "cost rule: %s", err);
  CHECK(s1.levels >= 2 && s1.levels <= 5 && !s1.level_capped, "cost rule level %d outside the candidates 2..5", s1.levels);
  prm.level_rule = FMM_LEVEL_RULE_LEAF, prm.levels = s1.levels;
  fmm_ctx *c2 = fmm_create(&prm, err, sizeof err);
  CHECK(c2, "create: %s", err);
  io.vel = v2, io.grad = g2;
  CHECK(fmm_evaluate(c2, &io, &s2, err, sizeof err) == 0, "forced: %s", err);
  CHECK(memcmp(v1, v2, 3 * (size_t)n * sizeof(double)) == 0 && memcmp(g1, g2, 9 * (size_t)n * sizeof(double)) == 0,
        "the cost rule's result differs from forcing its level %d", s1.levels);
  double t[FMM_COST_PHASES];
  const double tp = fmm_cost_predict(c1, &io, s1.levels, t, err, sizeof err);
  CHECK(tp > 0 && isfinite(tp), "prediction: %s", err);
  fmm_cost_units w;
  CHECK(fmm_cost_work(c1, &io, s1.levels, &w, err, sizeof err) == 0 && (long long)w.m2l == s1.n_m2l,
        "predicted M2L work %.0f, performed %lld", w.m2l, s1.n_m2l);
  CHECK((long long)(w.p2p_grad + w.p2p_vel + 0.5) == s1.n_p2p, "predicted pairs %.0f, performed %lld", w.p2p_grad + w.p2p_vel,
        s1.n_p2p);
  printf("engine: leaf-size level %d (%.1f ms), cost-model level %d (%.1f ms, predicted %.1f): ok\n", s0.levels, s0.t_total,
         s1.levels, s1.t_total, tp);
  if (had_double) fmm_cost_set(VX_BACKEND_CPU, VX_DOUBLE, &ud);
  fmm_destroy(c0), fmm_destroy(c1), fmm_destroy(c2);
  free(pos), free(str), free(v1), free(v2), free(g1), free(g2);
  return 0;
}

/* ---------- fmm_params.allow_direct: the direct sum where the units say it pays ---------- */

static int test_direct(void) {
  fmm_cost_units keep, u;
  CHECK(fmm_cost_get(VX_BACKEND_CPU, VX_FLOAT, &keep) == 0, "the CPU float table is compiled in");
  fmm_params prm = fmm_params_default();
  prm.precision = VX_FLOAT, prm.allow_direct = 1;
  char err[256];
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  CHECK(ctx, "create: %s", err);
  /* the CPU's table: an FMM evaluation costs at least 1 ms, a direct pair with the gradient 3.76 ns */
  CHECK(fmm_cost_direct_pays(ctx, 504, 504, 504), "the CPU's table: 504 elements (0.96 ms directly) by the direct sum");
  CHECK(!fmm_cost_direct_pays(ctx, 1024, 1024, 1024), "the CPU's table: 1024 elements (3.9 ms directly) by the FMM");
  memset(&u, 0, sizeof u);
  u.order = 8, u.call = 1e6;
  fmm_cost_set(VX_BACKEND_CPU, VX_FLOAT, &u);
  CHECK(!fmm_cost_direct_pays(ctx, 100, 100, 100), "no direct-sum units: never the direct sum");
  /* 1 ms an FMM evaluation at least; 0.02 / 0.01 ns a direct pair with / without the gradient */
  memset(&u, 0, sizeof u);
  u.order = 8, u.call = 1e6, u.direct_grad = 0.02, u.direct_vel = 0.01;
  fmm_cost_set(VX_BACKEND_CPU, VX_FLOAT, &u);
  CHECK(fmm_cost_direct_pays(ctx, 1000, 1000, 1000), "1000 x 1000 pairs, 0.02 ms, against 1 ms: the direct sum");
  CHECK(!fmm_cost_direct_pays(ctx, 10000, 10000, 0), "10^8 velocity pairs, 1 ms, against 1 ms: the FMM");
  CHECK(fmm_cost_direct_pays(ctx, 10000, 9000, 0) && !fmm_cost_direct_pays(ctx, 10000, 9000, 1000),
        "9 10^7 pairs: the direct sum for velocities only (0.9 ms), the FMM with 10^7 gradient pairs (1.0 ms)");
  const int n = 1500;
  double *pos = vx_test_alloc_pos(n), *str = vx_test_alloc_pos(n);
  float *pf = malloc(sizeof(float) * 3 * n), *sf = malloc(sizeof(float) * 3 * n);
  float *v1 = malloc(sizeof(float) * 3 * n), *v2 = malloc(sizeof(float) * 3 * n);
  float *g1 = malloc(sizeof(float) * 9 * n), *g2 = malloc(sizeof(float) * 9 * n);
  CHECK(pos && str && pf && sf && v1 && v2 && g1 && g2, "out of memory");
  vx_pointset(VX_DIST_RINGS, n, 11, pos, str);
  for (int i = 0; i < 3 * n; i++) pf[i] = (float)pos[i], sf[i] = (float)str[i];
  fmm_io io = {.n_src = n, .src_pos = pf, .src_str = sf, .n_tgt = n, .tgt_pos = pf, .vel = v1, .grad = g1};
  fmm_stats st;
  CHECK(fmm_evaluate(ctx, &io, &st, err, sizeof err) == 0 && st.levels == 0, "allow_direct: evaluated at level %d", st.levels);
  io.vel = v2, io.grad = g2;
  CHECK(fmm_direct(ctx, &io, NULL, err, sizeof err) == 0, "direct: %s", err);
  CHECK(!memcmp(v1, v2, sizeof(float) * 3 * n) && !memcmp(g1, g2, sizeof(float) * 9 * n), "allow_direct's sums are fmm_direct's");
  prm.levels = 3; /* a forced level is the FMM whatever the units */
  fmm_ctx *forced = fmm_create(&prm, err, sizeof err);
  CHECK(forced && fmm_evaluate(forced, &io, &st, err, sizeof err) == 0 && st.levels == 3, "forced level: %d", st.levels);
  prm.levels = 0, prm.allow_direct = 0;
  fmm_ctx *off = fmm_create(&prm, err, sizeof err);
  CHECK(off && fmm_evaluate(off, &io, &st, err, sizeof err) == 0 && st.levels >= 2, "allow_direct off: level %d", st.levels);
  fmm_cost_set(VX_BACKEND_CPU, VX_FLOAT, &keep);
  CHECK(fmm_evaluate(ctx, &io, &st, err, sizeof err) == 0 && st.levels >= 2, "the compiled table again: level %d", st.levels);
  fmm_destroy(ctx), fmm_destroy(forced), fmm_destroy(off);
  free(pos), free(str), free(pf), free(sf), free(v1), free(v2), free(g1), free(g2);
  printf("allow_direct (the direct sum where the units say it pays): ok\n");
  return 0;
}

int main(void) {
  int rc = 0;
  rc |= test_rule();
  rc |= test_stats();
  rc |= test_twin();
  rc |= test_pick();
  rc |= test_prediction();
  rc |= test_file();
  rc |= test_engine();
  rc |= test_direct();
  if (rc || failures) {
    fprintf(stderr, "test_fmm_cost: %d check(s) failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("test_fmm_cost: all checks passed\n");
  return EXIT_SUCCESS;
}
