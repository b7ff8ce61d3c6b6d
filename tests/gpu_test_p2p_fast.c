/* gpu_test_p2p_fast.c — the near-field kernel (k_p2p_fast, one target a thread) in the full FMM
 * against the CPU engine (label gpu; skipped without a device). In every case:
 *  - the kernel that ran (fmm_stats.p2p_kernel: 1, its targets a thread);
 *  - GPU vs the CPU engine: velocity and gradient within 1e-12 relative (L2) in double, 1e-5 in
 *    float (gpu_test_fmm's GPU-vs-CPU twins);
 *  - gradient rows at and beyond n_grad left untouched.
 * Cases: uniform, rings, and a cluster (uniform with 4000 of the points in a ball of radius 0.02:
 * a leaf of thousands, more sources than one shared-memory tile of k_p2p_fast (256) and of k_corr
 * (1024), checked on the CPU's occupancy), random strengths; targets = sources, and 15000 other
 * targets of which only the first 10000 want the gradient (n_grad: both kinds mixed in leaves and
 * warps); singular and Gaussian kernels, poly, Rosenhead-Moore and Winckelmans-Leonard; gradient on
 * and off; float and double; leaf size 256 (at this N levels 2 to 4: chunks of 64 and 128
 * targets), leaf size 64 (chunks of 32 or 64, whose short last rows are split over the sources),
 * and a forced level 2 (several chunks a leaf). Then the kernel run twice: bitwise identical.
 * Run: build/tests/gpu_test_p2p_fast */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "pointsets.h"
#include "test_check.h"
#include "test_twins.h"
#include "test_twin_eval.h"

#define N_SRC 20000
#define N_OTHER 15000      /* targets apart from the sources */
#define N_OTHER_GRAD 10000 /* of which those that want the gradient */
#define N_CLUSTER 4000     /* points of the cluster set in its ball */

/* The point sets: pointsets.h's uniform and rings, and uniform with a dense ball. */
typedef enum { SET_UNIFORM, SET_RINGS, SET_CLUSTER } point_set;
static const char *const set_name[3] = {"uniform", "rings", "cluster"};

/* One case: the point set, the targets, the precision, the gradient, the tree and the kernel. */
typedef struct {
  point_set set;
  int other_tgt, fl, grad, leaf, levels;
  vx_kernel kern;
} p2p_case;

static void report(int ok, const char *what, double v, double thr) {
  printf("%-84s %9.2e (<= %.0e) %s\n", what, v, thr, ok ? "ok" : "FAIL");
  if (!ok) failures++;
}

/* The largest leaf's target count of a CPU engine's last evaluation (fmm_occupancy's bins). */
static int largest_leaf(fmm_ctx *ctx) {
  int L, ondev, m = 0;
  double lo[3], side;
  const int *bins;
  if (fmm_occupancy(ctx, &L, lo, &side, &bins, &ondev) || ondev) return -1;
  for (long long i = 0; i < 1ll << (3 * L); ++i) m = bins[i] > m ? bins[i] : m;
  return m;
}

/* vx_twin_eval of pt on backend be; on the CPU the largest leaf in *max_leaf when it is not NULL. */
static void eval(vx_backend be, fmm_params prm, const vx_twin_points *pt, double *u, double *g, fmm_stats *st,
                 int *max_leaf) {
  fmm_ctx *ctx = vx_twin_eval(be, prm, pt, u, g, st);
  if (max_leaf) *max_leaf = largest_leaf(ctx);
  fmm_destroy(ctx);
}

/* The case's parameters: p = 8, the case's kernel with a core a little under the points' spacing
 * (uniform and cluster: 0.03, the cluster's points then deep inside each other's cores; rings,
 * whose tubes hold the points ~6e-3 apart: 0.003). */
static fmm_params case_params(const p2p_case *c) {
  fmm_params prm = fmm_params_default();
  prm.order = 8;
  prm.precision = c->fl ? VX_FLOAT : VX_DOUBLE;
  prm.gradient = c->grad;
  vx_test_one_tree_fmm(&prm); /* the twins compare one tree */
  prm.leaf_size = c->leaf;     /* the case's, on both backends */
  prm.levels = c->levels;
  prm.kernel = c->kern;
  prm.sigma = c->set == SET_RINGS ? 0.003 : 0.03;
  return prm;
}

/* One case: the CPU, then the GPU against it. w: 4 arrays of 9 n_tgt doubles. */
static void check_case(const p2p_case *c, const vx_twin_points *pt, double *w[6]) {
  double *uc = w[0], *gc = w[1], *uf = w[2], *gf = w[3];
  const fmm_params prm = case_params(c);
  const double thr = c->fl ? 1e-5 : 1e-12;
  fmm_stats sc, sf;
  int big = 0;
  char tag[160], what[240];
  eval(VX_BACKEND_CPU, prm, pt, uc, gc, &sc, &big);
  eval(VX_BACKEND_CUDA, prm, pt, uf, gf, &sf, NULL);
  snprintf(tag, sizeof tag, "%-7s %s %-8s %s %s leaf=%3d L=%d", set_name[c->set], c->other_tgt ? "other" : "same ",
           vx_kernel_name(c->kern), c->fl ? "float " : "double", c->grad ? "grad" : "vel ", c->leaf, sf.levels);
  if (c->set == SET_CLUSTER && !c->other_tgt) { /* targets = sources: the bins count sources too */
    printf("%s: the largest leaf holds %d sources, more than a tile of either kernel (1024) %s\n", tag, big,
           big > 1024 ? "ok" : "FAIL");
    if (big <= 1024) failures++;
  }
  const double ec = vx_twin_err(uf, gf, uc, gc, pt, c->grad);
  snprintf(what, sizeof what, "%s: T=%d vs CPU, rows past n_grad untouched", tag, sf.p2p_kernel);
  report(sf.p2p_kernel == 1 && sf.levels == sc.levels && ec <= thr && vx_twin_rows_untouched(gf, pt, c->grad), what, ec,
         thr);
}

/* The cases: every combination of point set, targets, kernel (singular, Gaussian), precision and
 * gradient at leaf size 256; the algebraic kernels with other targets and gradients; leaf size 64
 * and a forced level 2. Returns the count written to out. */
static int make_cases(p2p_case *out) {
  int n = 0;
  for (int d = SET_UNIFORM; d <= SET_CLUSTER; ++d)
    for (int o = 0; o < 2; ++o)
      for (int k = 0; k < 2; ++k)
        for (int fl = 0; fl < 2; ++fl)
          for (int gr = 0; gr < 2; ++gr)
            out[n++] = (p2p_case){(point_set)d, o, fl, !gr, VX_LEAF_GPU, 0, k ? VX_KERNEL_GAUSS : VX_KERNEL_SINGULAR};
  for (int k = VX_KERNEL_POLY; k <= VX_KERNEL_WL; ++k)
    for (int fl = 0; fl < 2; ++fl) out[n++] = (p2p_case){SET_RINGS, 1, fl, 1, VX_LEAF_GPU, 0, (vx_kernel)k};
  for (int d = SET_UNIFORM; d <= SET_RINGS; ++d)
    for (int fl = 0; fl < 2; ++fl) {
      out[n++] = (p2p_case){(point_set)d, 1, fl, 1, VX_LEAF_CPU, 0, VX_KERNEL_SINGULAR};
      out[n++] = (p2p_case){(point_set)d, 0, fl, 1, VX_LEAF_GPU, 2, d ? VX_KERNEL_GAUSS : VX_KERNEL_SINGULAR};
    }
  return n;
}

/* n positions of the set from seed: pointsets.h's, or for the cluster uniform ones of which the
 * first N_CLUSTER are moved into the ball of radius 0.02 about (0.3, 0.6, 0.45). */
static void set_points(point_set set, int n, uint64_t seed, double *pos) {
  vx_pointset(set == SET_RINGS ? VX_DIST_RINGS : VX_DIST_UNIFORM, n, seed, pos, NULL);
  if (set != SET_CLUSTER) return;
  const double c[3] = {0.3, 0.6, 0.45};
  uint64_t s = seed ^ 0x5bd1e995u;
  for (int i = 0; i < N_CLUSTER && i < n; ++i) {
    double d[3], r2;
    do { /* uniform in the ball by rejection from its cube */
      for (int k = 0; k < 3; ++k) d[k] = 2.0 * vx_rng_uniform(&s) - 1.0;
      r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    } while (r2 > 1.0);
    for (int k = 0; k < 3; ++k) pos[3 * i + k] = c[k] + 0.02 * d[k];
  }
}

/* The points of a case: N_SRC of the set with random strengths in [-1, 1]^3 (no symmetry hides a
 * missed pair), and as targets the sources or N_OTHER points of the same set from another seed. */
static vx_twin_points make_points(point_set set, int other, double *spos, double *sstr, double *tpos) {
  set_points(set, N_SRC, 500 + set, spos);
  uint64_t s = 900 + set;
  for (int i = 0; i < 3 * N_SRC; ++i) sstr[i] = 2.0 * vx_rng_uniform(&s) - 1.0;
  vx_twin_points pt = {N_SRC, N_SRC, N_SRC, spos, sstr, spos};
  if (other) {
    set_points(set, N_OTHER, 700 + set, tpos);
    pt.n_tgt = N_OTHER, pt.n_grad = N_OTHER_GRAD, pt.tpos = tpos;
  }
  return pt;
}

/* The kernel twice: bitwise identical (no races), float and double. */
static void check_repeatable(const vx_twin_points *pt, double *w[6]) {
  for (int fl = 0; fl < 2; ++fl) {
    const p2p_case c = {SET_CLUSTER, 0, fl, 1, VX_LEAF_GPU, 0, VX_KERNEL_SINGULAR};
    const fmm_params prm = case_params(&c);
    fmm_stats s1, s2;
    eval(VX_BACKEND_CUDA, prm, pt, w[0], w[1], &s1, NULL);
    eval(VX_BACKEND_CUDA, prm, pt, w[2], w[3], &s2, NULL);
    const size_t n = (size_t)pt->n_tgt;
    const int same = !memcmp(w[0], w[2], sizeof(double) * 3 * n) && !memcmp(w[1], w[3], sizeof(double) * 9 * n);
    report(same, fl ? "P2P run twice, float: bitwise identical" : "P2P run twice, double: bitwise identical",
           same ? 0.0 : 1.0, 0);
  }
}

/* The engine's defaults: one target a thread for the singular kernel and the Gaussian alike. */
static void check_default(const vx_twin_points *pt, double **w) {
  fmm_params prm = fmm_params_default();
  fmm_stats st;
  const int kernel[2] = {VX_KERNEL_SINGULAR, VX_KERNEL_GAUSS};
  for (int k = 0; k < 2; ++k) {
    prm.kernel = kernel[k];
    prm.sigma = 0.01;
    eval(VX_BACKEND_CUDA, prm, pt, w[0], w[1], &st, NULL);
    char what[96];
    snprintf(what, sizeof what, "defaults, %s kernel: ran T=%d (want 1)", kernel[k] ? "gauss" : "singular", st.p2p_kernel);
    report(st.p2p_kernel == 1, what, st.p2p_kernel, 1);
  }
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  double *spos = malloc(sizeof(double) * 3 * N_SRC), *sstr = malloc(sizeof(double) * 3 * N_SRC);
  double *tpos = malloc(sizeof(double) * 3 * N_OTHER), *w[6];
  for (int i = 0; i < 6; ++i) w[i] = malloc(sizeof(double) * 9 * N_SRC); /* N_SRC >= N_OTHER */
  if (!spos || !sstr || !tpos) { printf("out of memory\n"); return EXIT_FAILURE; }
  for (int i = 0; i < 6; ++i)
    if (!w[i]) { printf("out of memory\n"); return EXIT_FAILURE; }
  p2p_case cases[80];
  const int nc = make_cases(cases);
  for (int i = 0; i < nc; ++i) {
    const vx_twin_points pt = make_points(cases[i].set, cases[i].other_tgt, spos, sstr, tpos);
    check_case(&cases[i], &pt, w);
  }
  const vx_twin_points pt = make_points(SET_CLUSTER, 0, spos, sstr, tpos);
  check_repeatable(&pt, w);
  check_default(&pt, w);
  free(spos), free(sstr), free(tpos);
  for (int i = 0; i < 6; ++i) free(w[i]);
  return vx_test_end("all fast-P2P checks passed");
}
