/* gpu_test_fmm_part.c — an evaluation as a part of a larger one (fmm_part) on the CUDA engine (label gpu;
 * skipped without a device), without MPI (test_fmm_part.h): part A of a point set, from its own sources,
 * a halo of part B's and the two parts' dense multipoles summed, equals one GPU evaluation of every point
 * at A's targets to round-off (rms deviation 1e-12 in double, 1e-6 in float), and its twin on the CPU
 * (the dense multipoles, the velocities and gradients) as gpu_test_fmm's twins do (1e-12 in double, 1e-5
 * in float); uniform points and rings, the singular kernel with the halo at the dense levels' depth and
 * the Gaussian with its corrections. Order 6: at p = 8 in float the tensor-core M2L (TF32) runs where a
 * level is full enough, which a part's smaller levels and the whole's need not share. */
#include "test_check.h"
#include "test_fmm_part.h"
#include "test_twins.h"

static const part_case cases[] = {
    {"uniform, double, singular, L 5, dense to 3", VX_DIST_UNIFORM, VX_DOUBLE, VX_KERNEL_SINGULAR, 0.0, 5, 3, 3},
    {"uniform, float, Gaussian, L 5, dense to 4", VX_DIST_UNIFORM, VX_FLOAT, VX_KERNEL_GAUSS, 0.01, 5, 4, 2},
    {"rings, float, singular, L 6, dense to 4", VX_DIST_RINGS, VX_FLOAT, VX_KERNEL_SINGULAR, 0.0, 6, 4, 4},
    {"rings, double, Gaussian, L 4, dense to 2", VX_DIST_RINGS, VX_DOUBLE, VX_KERNEL_GAUSS, 0.02, 4, 2, 2},
};

static int check_case(const part_case *c) {
  part_set s;
  part_set_make(&s, c->dist, 100000, 12);
  fmm_params prm = fmm_params_default();
  vx_test_one_tree_fmm(&prm);
  prm.precision = c->prec, prm.kernel = c->kernel, prm.sigma = c->sigma, prm.levels = c->L, prm.order = 6;
  fmm_params pc = prm, pg = prm;
  pc.backend = VX_BACKEND_CPU, pg.backend = VX_BACKEND_CUDA;
  fmm_ctx *cc = vx_twin_create(VX_BACKEND_CPU, pc), *cg = vx_twin_create(VX_BACKEND_CUDA, pg);
  part_result ag, wg, ac;
  part_eval(cg, &pg, &s, c->L, c->Lc, c->Lh, &ag);
  part_single(cg, &pg, &s, &wg);
  part_eval(cc, &pc, &s, c->L, c->Lc, c->Lh, &ac);
  const int fl = c->prec == VX_FLOAT;
  const double tol = fl ? 1e-6 : 1e-12, twin = fl ? 1e-5 : 1e-12, n3 = 3 * (size_t)ag.n_a, n9 = 9 * (size_t)ag.n_a;
  const double eu = vx_twin_rel_l2(ag.u, wg.u, n3), eg = vx_twin_rel_l2(ag.g, wg.g, n9);
  const double tu = vx_twin_rel_l2(ag.u, ac.u, n3), tg = vx_twin_rel_l2(ag.g, ac.g, n9),
               tm = vx_twin_rel_l2(ag.mp, ac.mp, ag.n_mp);
  printf("%s: %d of %d targets: against the whole velocity %.2e, gradient %.2e (bound %.0e); against the CPU "
         "multipoles %.2e, velocity %.2e, gradient %.2e (bound %.0e)\n",
         c->name, ag.n_a, s.n, eu, eg, tol, tm, tu, tg, twin);
  CHECK(ag.levels == c->L && wg.levels == c->L, "%s: levels %d and %d", c->name, ag.levels, wg.levels);
  CHECK(eu <= tol && eg <= tol, "%s: against the whole: velocity %.3g, gradient %.3g", c->name, eu, eg);
  CHECK(tm <= twin && tu <= twin && tg <= twin, "%s: against the CPU: multipoles %.3g, velocity %.3g, gradient %.3g",
        c->name, tm, tu, tg);
  part_result_free(&ag), part_result_free(&wg), part_result_free(&ac);
  fmm_destroy(cc), fmm_destroy(cg);
  part_set_free(&s);
  return 0;
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i]);
  return vx_test_end("a part of a larger evaluation on the GPU equals the whole's and its CPU twin");
}
