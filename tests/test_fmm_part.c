/* test_fmm_part.c — an evaluation as a part of a larger one (fmm_part) on the CPU, without MPI
 * (test_fmm_part.h): part A of a point set, from its own sources, a halo of part B's and the two parts'
 * dense multipoles summed, equals one evaluation of every point at A's targets to round-off (rms
 * deviation 1e-12 in double, 1e-6 in float), uniform points and rings, the singular kernel with the
 * halo at the dense levels' depth and the Gaussian with its corrections; a point outside the given cube
 * is refused. */
#include "test_check.h"
#include "test_fmm_part.h"

static const part_case cases[] = {
    {"uniform, double, singular, L 5, dense to 3", VX_DIST_UNIFORM, VX_DOUBLE, VX_KERNEL_SINGULAR, 0.0, 5, 3, 3},
    {"uniform, double, Gaussian, L 5, dense to 4", VX_DIST_UNIFORM, VX_DOUBLE, VX_KERNEL_GAUSS, 0.01, 5, 4, 2},
    {"rings, float, singular, L 5, dense to 4", VX_DIST_RINGS, VX_FLOAT, VX_KERNEL_SINGULAR, 0.0, 5, 4, 4},
    {"rings, float, Gaussian, L 4, dense to 2", VX_DIST_RINGS, VX_FLOAT, VX_KERNEL_GAUSS, 0.02, 4, 2, 2},
};

static int check_case(const part_case *c) {
  part_set s;
  part_set_make(&s, c->dist, 20000, 11);
  fmm_params prm = fmm_params_default();
  prm.precision = c->prec, prm.kernel = c->kernel, prm.sigma = c->sigma, prm.levels = c->L, prm.order = 6;
  fmm_ctx *ctx = vx_twin_create(VX_BACKEND_CPU, prm);
  part_result a, w;
  part_eval(ctx, &prm, &s, c->L, c->Lc, c->Lh, &a);
  part_single(ctx, &prm, &s, &w);
  const double tol = c->prec == VX_FLOAT ? 1e-6 : 1e-12;
  const double eu = vx_twin_rel_l2(a.u, w.u, 3 * (size_t)a.n_a), eg = vx_twin_rel_l2(a.g, w.g, 9 * (size_t)a.n_a);
  printf("%s: %d of %d targets, level %d: velocity %.2e, gradient %.2e (bound %.0e)\n", c->name, a.n_a, s.n, a.levels, eu,
         eg, tol);
  CHECK(a.levels == c->L && w.levels == c->L, "%s: levels %d and %d", c->name, a.levels, w.levels);
  CHECK(eu <= tol && eg <= tol, "%s: velocity %.3g, gradient %.3g", c->name, eu, eg);
  part_result_free(&a), part_result_free(&w);
  fmm_destroy(ctx);
  part_set_free(&s);
  return 0;
}

/* A point outside the part's cube is an error naming it, not a wrong answer. */
static int check_outside(void) {
  char err[256] = "";
  fmm_params prm = fmm_params_default();
  fmm_ctx *ctx = vx_twin_create(VX_BACKEND_CPU, prm);
  double x[6] = {0.1, 0.1, 0.1, 2.0, 0.5, 0.5}, a[6] = {1, 0, 0, 0, 1, 0}, u[6], g[18];
  fmm_part pt = {{0, 0, 0}, 1.0, 3, 0, NULL, NULL};
  fmm_io io = {.n_src = 2, .src_pos = x, .src_str = a, .n_tgt = 2, .tgt_pos = x, .vel = u, .grad = g, .part = &pt};
  CHECK(fmm_evaluate(ctx, &io, NULL, err, sizeof err) == -1 && strstr(err, "outside the given root cube"),
        "a point outside the cube: '%s'", err);
  pt.Lc = 4; /* deeper than L */
  CHECK(fmm_evaluate(ctx, &io, NULL, err, sizeof err) == -1 && strstr(err, "not sane"), "Lc > L: '%s'", err);
  fmm_destroy(ctx);
  return 0;
}

int main(void) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i]);
  check_outside();
  return vx_test_end("a part of a larger evaluation equals the whole's at its targets");
}
