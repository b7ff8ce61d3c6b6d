/* gpu_test_fmm_keep.c — the kept tree (fmm_io.tree, docs/MATH.md §14) on the CUDA engine against its
 * CPU twin (label gpu; skipped without a device). Both backends build and keep one tree (the twins'
 * leaf size and floor, the same keep_move), every point moves 0.05 leaf widths in a random direction,
 * and both evaluate there on the kept tree: both keep it, measure the same move, and agree as
 * gpu_test_fmm's twins do (≤ 1e-12 relative in double, ≤ 1e-5 in float), uniform and rings, the
 * singular kernel and a Gaussian with its corrections; on the GPU a kept evaluation at zero move
 * gives a fresh tree's bits, and a non-finite point is refused by the new tree's build. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "pointsets.h"
#include "test_check.h"
#include "test_twin_eval.h"
#include "test_twins.h"

#define N 20000
#define MOVE 0.05

typedef struct {
  vx_precision prec;
  int fl;
  size_t rs;
  void *pos, *str, *u, *g;
} host_set;

/* The points (rounded to the precision) in the run's arrays. */
static void set_points(host_set *h, const double *pos, const double *str) {
  for (int i = 0; i < 3 * N; ++i) {
    if (h->fl) ((float *)h->pos)[i] = (float)pos[i], ((float *)h->str)[i] = (float)str[i];
    else ((double *)h->pos)[i] = pos[i], ((double *)h->str)[i] = str[i];
  }
}

static int eval(fmm_ctx *c, host_set *h, int tree, fmm_stats *st, char *err, size_t errlen) {
  fmm_io io = {.n_src = N, .src_pos = h->pos, .src_str = h->str, .n_tgt = N, .tgt_pos = h->pos, .vel = h->u, .grad = h->g};
  io.tree = tree;
  memset(st, 0, sizeof *st);
  return fmm_evaluate(c, &io, st, err, errlen);
}

static void to_double(const host_set *h, double *u, double *g) {
  for (int i = 0; i < 3 * N; ++i) u[i] = h->fl ? ((float *)h->u)[i] : ((double *)h->u)[i];
  for (int i = 0; i < 9 * N; ++i) g[i] = h->fl ? ((float *)h->g)[i] : ((double *)h->g)[i];
}

/* Every point moved MOVE leaf widths (w) in a random direction. */
static void move(double *pos, double w, uint64_t seed) { vx_points_move(pos, N, MOVE * w, &seed); }

/* One backend: build and keep at pos, evaluate at the moved points; the results in u, g. */
static void kept_run(vx_backend be, fmm_params prm, const double *pos0, const double *str, double *u, double *g, fmm_stats *st) {
  char err[256];
  prm.backend = be;
  fmm_ctx *c = fmm_create(&prm, err, sizeof err);
  if (!c) { printf("fmm_create(%s): %s\n", vx_backend_name(be), err); exit(EXIT_FAILURE); }
  const int fl = prm.precision == VX_FLOAT;
  host_set h = {prm.precision, fl, fl ? sizeof(float) : sizeof(double), NULL, NULL, NULL, NULL};
  h.pos = malloc(h.rs * 3 * N), h.str = malloc(h.rs * 3 * N), h.u = malloc(h.rs * 3 * N), h.g = malloc(h.rs * 9 * N);
  double *pos = malloc(sizeof(double) * 3 * N), lo[3], side;
  memcpy(pos, pos0, sizeof(double) * 3 * N);
  set_points(&h, pos, str);
  int levels, on_dev;
  const int *bins;
  if (eval(c, &h, FMM_TREE_BUILD_KEEP, st, err, sizeof err) || fmm_occupancy(c, &levels, lo, &side, &bins, &on_dev)) {
    printf("keep on %s: %s\n", vx_backend_name(be), err);
    exit(EXIT_FAILURE);
  }
  move(pos, ldexp(side, -levels), 77);
  set_points(&h, pos, str);
  if (eval(c, &h, FMM_TREE_REUSE, st, err, sizeof err)) { printf("reuse on %s: %s\n", vx_backend_name(be), err); exit(EXIT_FAILURE); }
  to_double(&h, u, g);
  free(h.pos), free(h.str), free(h.u), free(h.g), free(pos);
  fmm_destroy(c);
}

static void twin_case(vx_dist dist, vx_precision prec, vx_kernel k, double sigma, double *pos, double *str, double *u[2],
                      double *g[2]) {
  fmm_params prm = fmm_params_default();
  vx_test_one_tree_fmm(&prm);
  prm.precision = prec, prm.kernel = k, prm.sigma = sigma, prm.keep_move = VX_TEST_KEEP_MOVE;
  vx_pointset(dist, N, 300 + (int)dist, pos, str);
  fmm_stats sc, sg;
  kept_run(VX_BACKEND_CPU, prm, pos, str, u[0], g[0], &sc);
  kept_run(VX_BACKEND_CUDA, prm, pos, str, u[1], g[1], &sg);
  const double tol = prec == VX_FLOAT ? 1e-5 : 1e-12;
  const double du = vx_twin_rel_l2(u[1], u[0], 3 * (size_t)N), dg = vx_twin_rel_l2(g[1], g[0], 9 * (size_t)N);
  char what[256];
  snprintf(what, sizeof what, "%s %s %s: both kept (cpu %d, gpu %d), moved %.4f / %.4f; GPU vs CPU u %.2e, grad %.2e",
           vx_dist_name(dist), prec == VX_FLOAT ? "float" : "double", vx_kernel_name(k), sc.tree_kept, sg.tree_kept,
           sc.tree_moved, sg.tree_moved, du, dg);
  EXPECT(sc.tree_kept && sg.tree_kept && fabs(sc.tree_moved - sg.tree_moved) < 1e-6 && du <= tol && dg <= tol, "%s", what);
  printf("%s\n", what);
}

/* GPU: a kept evaluation at zero move gives the fresh tree's bits; a non-finite point is refused. */
static void gpu_only(double *pos, double *str) {
  char err[256];
  fmm_params prm = fmm_params_default();
  prm.backend = VX_BACKEND_CUDA, prm.precision = VX_FLOAT;
  fmm_ctx *c = fmm_create(&prm, err, sizeof err);
  if (!c) { printf("fmm_create(cuda): %s\n", err); exit(EXIT_FAILURE); }
  host_set h = {VX_FLOAT, 1, sizeof(float), malloc(12 * N), malloc(12 * N), malloc(12 * N), malloc(36 * N)};
  vx_pointset(VX_DIST_RINGS, N, 5, pos, str);
  set_points(&h, pos, str);
  float *u0 = malloc(12 * N);
  fmm_stats st;
  int ok = eval(c, &h, FMM_TREE_BUILD_KEEP, &st, err, sizeof err) == 0;
  memcpy(u0, h.u, 12 * N);
  ok = ok && eval(c, &h, FMM_TREE_REUSE, &st, err, sizeof err) == 0 && st.tree_kept && st.tree_moved == 0.0 &&
       !memcmp(u0, h.u, 12 * N);
  EXPECT(ok, "GPU kept at zero move: the fresh tree's bits (%s)", ok ? "equal" : err);
  ((float *)h.pos)[3 * 123 + 2] = NAN;
  ok = eval(c, &h, FMM_TREE_REUSE, &st, err, sizeof err) != 0 && strstr(err, "non-finite");
  EXPECT(ok, "GPU: a non-finite point is not kept and the new build refuses it (%s)", err);
  printf("GPU kept at zero move: bitwise; a non-finite point: %s\n", err);
  free(h.pos), free(h.str), free(h.u), free(h.g), free(u0);
  fmm_destroy(c);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  double *pos = malloc(sizeof(double) * 3 * N), *str = malloc(sizeof(double) * 3 * N);
  double *u[2], *g[2];
  for (int b = 0; b < 2; ++b) u[b] = malloc(sizeof(double) * 3 * N), g[b] = malloc(sizeof(double) * 9 * N);
  const vx_dist dists[2] = {VX_DIST_UNIFORM, VX_DIST_RINGS};
  for (int d = 0; d < 2; ++d)
    for (int prec = 0; prec < 2; ++prec) {
      twin_case(dists[d], prec ? VX_FLOAT : VX_DOUBLE, VX_KERNEL_SINGULAR, 0.0, pos, str, u, g);
      twin_case(dists[d], prec ? VX_FLOAT : VX_DOUBLE, VX_KERNEL_GAUSS, 0.01, pos, str, u, g);
    }
  gpu_only(pos, str);
  for (int b = 0; b < 2; ++b) free(u[b]), free(g[b]);
  free(pos), free(str);
  return vx_test_end("all GPU kept-tree checks passed");
}
