/* float rounding of the CPU FMM: float vs double on one tree (rm sigma 0.04 level 6, the gpu_test_fmm_reg case) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "fmm.h"
#include "pointsets.h"

static double rel_l2(const double *a, const double *b, size_t n) { double d = 0, s = 0; for (size_t i = 0; i < n; ++i) d += (a[i]-b[i])*(a[i]-b[i]), s += b[i]*b[i]; return sqrt(d/s); }
static void eval(fmm_params prm, int n, const double *pos, const double *str, double *u, double *g) {
  char err[256]; fmm_ctx *ctx = fmm_create(&prm, err, sizeof err); if (!ctx) { puts(err); exit(1); }
  int fl = prm.precision == VX_FLOAT; size_t rs = fl ? 4 : 8;
  void *P = malloc(rs*3*n), *S = malloc(rs*3*n), *U = malloc(rs*3*n), *G = malloc(rs*9*n);
  for (int i = 0; i < 3*n; ++i) { if (fl) ((float*)P)[i] = (float)pos[i], ((float*)S)[i] = (float)str[i]; else ((double*)P)[i] = pos[i], ((double*)S)[i] = str[i]; }
  fmm_io io = {.n_src = n, .src_pos = P, .src_str = S, .n_tgt = n, .tgt_pos = P, .vel = U, .grad = G, .n_grad = n/2};
  fmm_stats st; if (fmm_evaluate(ctx, &io, &st, err, sizeof err)) { puts(err); exit(1); }
  for (int i = 0; i < 3*n; ++i) u[i] = fl ? ((float*)U)[i] : ((double*)U)[i];
  for (int i = 0; i < 9*n; ++i) g[i] = i < 9*(n/2) ? (fl ? ((float*)G)[i] : ((double*)G)[i]) : 0.0;
  printf("level %d ", st.levels);
  fmm_destroy(ctx);
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  double *pos = malloc(8*3*n), *str = malloc(8*3*n), *u1 = malloc(8*3*n), *g1 = malloc(8*9*n), *u2 = malloc(8*3*n), *g2 = malloc(8*9*n);
  vx_pointset(VX_DIST_RINGS, n, 21, pos, str);
  uint64_t s = 77; for (int i = 0; i < 3*n; ++i) str[i] = 2.0*vx_rng_uniform(&s) - 1.0;
  for (int i = 0; i < 3*n; ++i) { pos[i] = (float)pos[i]; str[i] = (float)str[i]; }
  fmm_params prm = fmm_params_default(); prm.backend = VX_BACKEND_CPU; prm.leaf_size = atoi(argv[2]); prm.min_leaves = 132;
  prm.kernel = VX_KERNEL_RM; prm.sigma = 0.04; prm.levels = 6; prm.order = 8; prm.reg_correct = 1;
  prm.precision = VX_DOUBLE; eval(prm, n, pos, str, u1, g1);
  prm.precision = VX_FLOAT; eval(prm, n, pos, str, u2, g2);
  printf("float vs double (same tree): vel %.3e grad %.3e max %.3e\n", rel_l2(u2, u1, 3*n), rel_l2(g2, g1, 9*n), fmax(rel_l2(u2,u1,3*n), rel_l2(g2,g1,9*n)));
  return 0;
}
