/* test_fmm_params.c — fmm_set_params leaves the engine unchanged when it fails (fmm.h), on the CPU
 * backend: after each refused change (order out of range, another precision or backend, a kernel
 * without sigma, a bad leaf size or tolerance, and a valid order change together with an invalid
 * field) the parameters read back as before and an evaluation gives bit for bit the velocities and
 * gradients it gave before. A valid change then takes effect, and changing back restores the
 * first result. Fixed seed. Run: build/tests/test_fmm_params */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "pointsets.h"

#define N 3000

static int failures = 0;

static void evaluate(fmm_ctx *ctx, const fmm_io *io, const char *when) {
  char err[256];
  if (fmm_evaluate(ctx, io, NULL, err, sizeof err)) {
    printf("FAIL evaluate (%s): %s\n", when, err);
    exit(EXIT_FAILURE);
  }
}

/* Field by field (memcmp would also compare padding). */
static int same_params(const fmm_params *a, const fmm_params *b) {
  return a->backend == b->backend && a->precision == b->precision && a->order == b->order && a->leaf_size == b->leaf_size &&
         a->levels == b->levels && a->kernel == b->kernel && a->sigma == b->sigma && a->gradient == b->gradient &&
         a->reg_tol == b->reg_tol && a->reg_correct == b->reg_correct && a->hist_budget == b->hist_budget &&
         a->verbose == b->verbose;
}

static int same(const double *a, const double *b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

int main(void) {
  double *pos = malloc(sizeof(double) * 3 * N), *str = malloc(sizeof(double) * 3 * N);
  double *u0 = malloc(sizeof(double) * 3 * N), *g0 = malloc(sizeof(double) * 9 * N);
  double *u = malloc(sizeof(double) * 3 * N), *g = malloc(sizeof(double) * 9 * N);
  if (!pos || !str || !u0 || !g0 || !u || !g) {
    printf("FAIL out of memory\n");
    return EXIT_FAILURE;
  }
  vx_pointset(VX_DIST_RINGS, N, 7, pos, str);

  fmm_params prm = fmm_params_default();
  prm.backend = VX_BACKEND_CPU;
  prm.order = 8;
  prm.kernel = VX_KERNEL_GAUSS;
  prm.sigma = 0.05;
  prm.leaf_size = 32;
  char err[256];
  fmm_ctx *ctx = fmm_create(&prm, err, sizeof err);
  if (!ctx) {
    printf("FAIL fmm_create: %s\n", err);
    return EXIT_FAILURE;
  }
  const fmm_params before = *fmm_get_params(ctx);
  fmm_io io = {.n_src = N, .src_pos = pos, .src_str = str, .n_tgt = N, .tgt_pos = pos, .vel = u0, .grad = g0};
  evaluate(ctx, &io, "first");
  io.vel = u, io.grad = g;

  /* Each refused change: a name and what it alters. */
  struct {
    const char *what;
    fmm_params p;
  } bad[8];
  int nb = 0;
  for (int i = 0; i < 8; ++i) bad[i].p = before;
  bad[nb].what = "order out of range", bad[nb++].p.order = VX_PMAX + 1;
  bad[nb].what = "negative order", bad[nb++].p.order = -1;
  bad[nb].what = "precision", bad[nb++].p.precision = VX_FLOAT;
  bad[nb].what = "backend", bad[nb++].p.backend = VX_BACKEND_CUDA;
  bad[nb].what = "kernel without sigma", bad[nb].p.kernel = VX_KERNEL_WL, bad[nb++].p.sigma = 0.0;
  bad[nb].what = "leaf size -1", bad[nb++].p.leaf_size = -1; /* 0 is valid: the backend's */
  bad[nb].what = "reg_tol 2", bad[nb++].p.reg_tol = 2.0;
  /* a valid order change alongside an invalid level: nothing of it may stick */
  bad[nb].what = "order 4 with levels 1", bad[nb].p.order = 4, bad[nb++].p.levels = 1;

  for (int i = 0; i < nb; ++i) {
    err[0] = '\0';
    if (fmm_set_params(ctx, &bad[i].p, err, sizeof err) == 0) {
      printf("FAIL set_params accepted: %s\n", bad[i].what);
      failures++;
      continue;
    }
    if (!err[0]) {
      printf("FAIL set_params refused %s without a message\n", bad[i].what);
      failures++;
    }
    if (!same_params(fmm_get_params(ctx), &before)) {
      printf("FAIL parameters changed by the refused %s (%s)\n", bad[i].what, err);
      failures++;
    }
    memset(u, 0, sizeof(double) * 3 * N), memset(g, 0, sizeof(double) * 9 * N);
    evaluate(ctx, &io, bad[i].what);
    if (!same(u, u0, 3 * N) || !same(g, g0, 9 * N)) {
      printf("FAIL result changed after the refused %s (%s)\n", bad[i].what, err);
      failures++;
    }
  }

  /* A valid change takes effect (p = 4 differs), and going back gives the first result again. */
  fmm_params p4 = before;
  p4.order = 4;
  if (fmm_set_params(ctx, &p4, err, sizeof err)) {
    printf("FAIL set_params p = 4: %s\n", err);
    return EXIT_FAILURE;
  }
  evaluate(ctx, &io, "p = 4");
  if (fmm_get_params(ctx)->order != 4 || same(u, u0, 3 * N)) {
    printf("FAIL the change to p = 4 did not take effect\n");
    failures++;
  }
  if (fmm_set_params(ctx, &before, err, sizeof err)) {
    printf("FAIL set_params back to p = 8: %s\n", err);
    return EXIT_FAILURE;
  }
  evaluate(ctx, &io, "back to p = 8");
  if (!same(u, u0, 3 * N) || !same(g, g0, 9 * N)) {
    printf("FAIL back at p = 8 the result differs from the first\n");
    failures++;
  }

  fmm_destroy(ctx);
  free(pos), free(str), free(u0), free(g0), free(u), free(g);
  if (failures) {
    printf("test_fmm_params: %d failure(s)\n", failures);
    return EXIT_FAILURE;
  }
  printf("test_fmm_params: OK (%d refused changes)\n", nb);
  return EXIT_SUCCESS;
}
