/* test_fmm_part.h — tests only: an evaluation as a part of a larger one (fmm_part, fmm.h) without MPI, as
 * two ranks would hold a point set: part A the points whose Morton key lies below the median, part B the
 * rest. Each part's sources' dense multipoles (fmm_part_multipoles) are summed as the ranks' all-reduce
 * would sum them; part A's targets are then evaluated from A's sources and its halo (B's sources whose
 * level-Lh box is adjacent to one of A's) as a part of the whole, against one evaluation of every point.
 * test_fmm_part (CPU) and gpu_test_fmm_part (CUDA, with the CPU as its twin) share it. Include after
 * test_check.h. */
#ifndef VX_TEST_FMM_PART_H
#define VX_TEST_FMM_PART_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "octree.h"
#include "pointsets.h"
#include "test_twin_eval.h"

/* One case: the point set, precision, kernel, the whole's level L, the dense levels 2..Lc, the halo's level. */
typedef struct {
  const char *name;
  vx_dist dist;
  vx_precision prec;
  vx_kernel kernel;
  double sigma;
  int L, Lc, Lh;
} part_case;

/* A point set (every point a source and a target), its root cube and each point's level-10 key. */
typedef struct {
  int n;
  double *pos, *str;
  double lo[3], side;
  uint32_t *key;
  uint32_t cut; /* part A: keys below it */
} part_set;

static int part_cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static uint32_t part_cell_key(const part_set *s, const double *x, int l) {
  uint32_t c[3];
  for (int k = 0; k < 3; k++) c[k] = oct_cell(x[k], s->lo[k], 1.0 / s->side, l);
  return oct_morton3(c[0], c[1], c[2]);
}

static void part_set_make(part_set *s, vx_dist d, int n, uint64_t seed) {
  s->n = n;
  s->pos = malloc(3 * sizeof(double) * n), s->str = malloc(3 * sizeof(double) * n), s->key = malloc(sizeof(uint32_t) * n);
  uint32_t *sorted = malloc(sizeof(uint32_t) * n);
  if (!s->pos || !s->str || !s->key || !sorted) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  vx_pointset(d, n, seed, s->pos, s->str);
  double mn[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, mx[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) mn[k] = fmin(mn[k], s->pos[3 * i + k]), mx[k] = fmax(mx[k], s->pos[3 * i + k]);
  if (oct_root_cube(mn, mx, s->lo, &s->side)) { printf("no root cube\n"); exit(EXIT_FAILURE); }
  for (int i = 0; i < n; i++) sorted[i] = s->key[i] = part_cell_key(s, s->pos + 3 * i, 10);
  qsort(sorted, (size_t)n, sizeof *sorted, part_cmp_u32);
  s->cut = sorted[n / 2];
  free(sorted);
}

static void part_set_free(part_set *s) { free(s->pos), free(s->str), free(s->key); }

/* The indices of part `which` (0: A, 1: B) into idx, then (halo: 1, part A only) B's points whose
 * level-Lh cell is adjacent to one of A's; returns the count, *n_own the part's own. */
static int part_indices(const part_set *s, int which, int halo, int Lh, int *idx, int *n_own) {
  int m = 0;
  for (int i = 0; i < s->n; i++)
    if ((s->key[i] >= s->cut) == which) idx[m++] = i;
  *n_own = m;
  if (!halo) return m;
  const int top = 1 << Lh;
  char *near = calloc((size_t)1 << (3 * Lh), 1);
  if (!near) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  for (int j = 0; j < *n_own; j++) {
    int x, y, z;
    oct_demorton3(part_cell_key(s, s->pos + 3 * idx[j], Lh), &x, &y, &z);
    for (int dz = -1; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          if (x + dx >= 0 && y + dy >= 0 && z + dz >= 0 && x + dx < top && y + dy < top && z + dz < top)
            near[oct_morton3((uint32_t)(x + dx), (uint32_t)(y + dy), (uint32_t)(z + dz))] = 1;
  }
  for (int i = 0; i < s->n; i++)
    if (s->key[i] >= s->cut && near[part_cell_key(s, s->pos + 3 * i, Lh)]) idx[m++] = i;
  free(near);
  return m;
}

/* The m points idx of a (3 doubles each) in the precision fl (malloc'ed). */
static void *part_gather(const double *a, const int *idx, int m, int fl) {
  void *o = malloc((fl ? sizeof(float) : sizeof(double)) * 3 * (m > 0 ? m : 1));
  if (!o) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  for (int j = 0; j < m; j++)
    for (int k = 0; k < 3; k++) {
      if (fl) ((float *)o)[3 * j + k] = (float)a[3 * idx[j] + k];
      else ((double *)o)[3 * j + k] = a[3 * idx[j] + k];
    }
  return o;
}

static double part_get(const void *a, size_t i, int fl) { return fl ? ((const float *)a)[i] : ((const double *)a)[i]; }

/* What one case produced: part A's velocities and gradients (3 and 9 doubles a target of A, in A's order)
 * and the summed dense multipoles (as doubles). */
typedef struct {
  int n_a;
  double *u, *g, *mp;
  size_t n_mp;
  int levels; /* the part's tree */
} part_result;

static void part_result_free(part_result *r) { free(r->u), free(r->g), free(r->mp); }

/* Part A of s as a part of the whole at level L with the dense levels 2..Lc and the halo at level Lh, on
 * ctx (made with prm); exits on an engine error. */
static void part_eval(fmm_ctx *ctx, const fmm_params *prm, const part_set *s, int L, int Lc, int Lh, part_result *r) {
  char err[256];
  const int fl = prm->precision == VX_FLOAT;
  const size_t rs = fl ? sizeof(float) : sizeof(double), nr = fmm_part_reals(prm->order, Lc), nc = fmm_part_cells(Lc);
  int *idx = malloc(sizeof(int) * s->n), own;
  void *mp = calloc(nr, rs), *mq = malloc(nr * rs);
  int *cnt = calloc(nc, sizeof(int)), *cq = malloc(nc * sizeof(int));
  if (!idx || !mp || !mq || !cnt || !cq) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  fmm_part pt = {{s->lo[0], s->lo[1], s->lo[2]}, s->side, L, Lc, mp, cnt};
  for (int which = 0; which < 2; which++) { /* each part's own sources, summed as the all-reduce would */
    part_indices(s, which, 0, Lh, idx, &own);
    void *sp = part_gather(s->pos, idx, own, fl), *ss = part_gather(s->str, idx, own, fl);
    fmm_io io = {.n_src = own, .src_pos = sp, .src_str = ss};
    if (fmm_part_multipoles(ctx, &io, &pt, mq, cq, err, sizeof err)) { printf("multipoles: %s\n", err); exit(EXIT_FAILURE); }
    for (size_t i = 0; i < nr; i++) {
      if (fl) ((float *)mp)[i] += ((float *)mq)[i];
      else ((double *)mp)[i] += ((double *)mq)[i];
    }
    for (size_t c = 0; c < nc; c++) cnt[c] += cq[c];
    free(sp), free(ss);
  }
  const int m = part_indices(s, 0, 1, Lh, idx, &own);
  void *sp = part_gather(s->pos, idx, m, fl), *ss = part_gather(s->str, idx, m, fl);
  void *u = malloc(rs * 3 * own), *g = malloc(rs * 9 * own);
  fmm_io io = {.n_src = m, .src_pos = sp, .src_str = ss, .n_tgt = own, .tgt_pos = sp, .vel = u, .grad = g, .part = &pt};
  fmm_stats st;
  if (!u || !g || fmm_evaluate(ctx, &io, &st, err, sizeof err)) { printf("part: %s\n", err); exit(EXIT_FAILURE); }
  r->n_a = own, r->levels = st.levels, r->n_mp = nr;
  r->u = malloc(sizeof(double) * 3 * own), r->g = malloc(sizeof(double) * 9 * own), r->mp = malloc(sizeof(double) * nr);
  if (!r->u || !r->g || !r->mp) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  for (size_t i = 0; i < 3 * (size_t)own; i++) r->u[i] = part_get(u, i, fl);
  for (size_t i = 0; i < 9 * (size_t)own; i++) r->g[i] = part_get(g, i, fl);
  for (size_t i = 0; i < nr; i++) r->mp[i] = part_get(mp, i, fl);
  free(idx), free(mp), free(mq), free(cnt), free(cq), free(sp), free(ss), free(u), free(g);
}

/* One evaluation of every point of s at level L on ctx: part A's rows (A's order) into r's u and g. */
static void part_single(fmm_ctx *ctx, const fmm_params *prm, const part_set *s, part_result *r) {
  double *u = malloc(sizeof(double) * 3 * s->n), *g = malloc(sizeof(double) * 9 * s->n);
  int *idx = malloc(sizeof(int) * s->n), own;
  if (!u || !g || !idx) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  vx_twin_points pts = {s->n, s->n, s->n, s->pos, s->str, s->pos};
  fmm_stats st;
  vx_twin_eval_on(ctx, *prm, &pts, u, g, &st);
  part_indices(s, 0, 0, 2, idx, &own);
  r->n_a = own, r->levels = st.levels, r->mp = NULL, r->n_mp = 0;
  r->u = malloc(sizeof(double) * 3 * own), r->g = malloc(sizeof(double) * 9 * own);
  if (!r->u || !r->g) { printf("out of memory\n"); exit(EXIT_FAILURE); }
  for (int j = 0; j < own; j++) {
    memcpy(r->u + 3 * j, u + 3 * idx[j], 3 * sizeof(double));
    memcpy(r->g + 9 * j, g + 9 * idx[j], 9 * sizeof(double));
  }
  free(u), free(g), free(idx);
}

#endif
