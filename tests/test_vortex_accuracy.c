/* test_vortex_accuracy.c — the live accuracy readout (vortex/accuracy.h) measures the simulation's
 * own evaluation:
 *  1. The figure's definitions on known numbers (relative L2, 99th percentile by nearest rank).
 *  2. The merger scene cut to 2 x 64 stations (1024 elements), 4096 tracers, CPU, double, stepped once at p = 8 and
 *     once at p = 2, the readout armed for the step's first engine call: at p = 2 it must report a
 *     larger error, for the velocity and for the gradient, each within its measured band.
 *  3. Cross-checks of one capture against independent computations: the reference at a few
 *     samples against fmm_direct (double, the engine's kernel and σ) on the state at the step's
 *     start, and the engine values the readout kept against a fresh engine's on that state (the
 *     very values the step used).
 * Run: ctest -R vortex_accuracy */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "sim.h"
#include "test_check.h"
#include "test_vortex.h"

/* 1. eng = ref + e_i with ref = (1,0,0) and |e_i| = i/1000, i = 1..100: rms(ref) = 1, so
 * err_l2 = sqrt(Σ i²/100)/1000 = 0.0581678 and err_p99 = the 99th smallest |e| = 0.099. */
static void check_definitions(void) {
  double eng[12 * 100], ref[12 * 100];
  memset(eng, 0, sizeof eng);
  memset(ref, 0, sizeof ref);
  for (int i = 0; i < 100; ++i) {
    ref[12 * i] = 1.0;
    eng[12 * i] = 1.0;
    eng[12 * i + 1] = (i + 1) / 1000.0;
    ref[12 * i + 3] = 2.0; /* a gradient of norm 2, off by 0.2 in one sample only */
    eng[12 * i + 3] = i == 7 ? 2.2 : 2.0;
  }
  vx_acc_result r;
  vx_acc_stats(eng, ref, 100, 100, &r);
  EXPECT(fabs(r.u_l2 - 0.0581678) < 1e-6, "err_u_l2 %.7g, expected 0.0581678", r.u_l2);
  EXPECT(fabs(r.u_p99 - 0.099) < 1e-12, "err_u_p99 %.7g, expected 0.099", r.u_p99);
  EXPECT(fabs(r.g_l2 - 0.01) < 1e-12, "err_gu_l2 %.7g, expected 0.01", r.g_l2);
  EXPECT(r.g_p99 == 0.0, "err_gu_p99 %.7g, expected 0 (one sample in 100 is above the 99th percentile)", r.g_p99);
  vx_acc_stats(eng, ref, 100, 0, &r);
  EXPECT(isnan(r.g_l2) && isnan(r.g_p99) && r.n_g == 0, "no gradient samples: NaN expected");
}

/* The state at the step's start, for the cross-checks: particles (elements then tracers), strengths. */
typedef struct {
  int ne, nt;
  double *pos, *alpha;
} state;

static int grab(vx_sim *s, state *st, char *err, size_t errlen) {
  st->ne = vx_sim_n_elements(s);
  st->nt = vx_sim_n_tracers(s);
  st->pos = malloc(sizeof(double) * 3 * (size_t)(st->ne + st->nt));
  st->alpha = malloc(sizeof(double) * 3 * (size_t)st->ne);
  if (!st->pos || !st->alpha) { snprintf(err, errlen, "out of memory"); return -1; }
  if (vx_sim_get_elements(s, st->pos, st->alpha, err, errlen)) return -1;
  return vx_sim_get_tracers(s, st->pos + 3 * (size_t)st->ne, err, errlen);
}

/* 3. The capture's reference against fmm_direct and its engine values against a fresh engine, at
 * every 61st sample. */
static void cross_check(const vx_accuracy *acc, vx_sim *s, const state *st) {
  int k, kg;
  const int *idx;
  const double *eng, *ref;
  vx_acc_last_arrays(acc, &k, &kg, &idx, &eng, &ref);
  fmm_params fp = *fmm_get_params(vx_sim_engine(s));
  char err[256];
  fmm_ctx *f = fmm_create(&fp, err, sizeof err);
  if (!f) { FAIL("engine: %s", err); return; }
  int n = st->ne + st->nt;
  double *u = malloc(sizeof(double) * 3 * n), *g = malloc(sizeof(double) * 9 * n);
  double *du = malloc(sizeof(double) * 3 * n), *dg = malloc(sizeof(double) * 9 * n);
  /* the step's two calls: the elements on their tree, the tracers (passive) on theirs */
  fmm_io io = {.n_src = st->ne, .src_pos = st->pos, .src_str = st->alpha, .n_tgt = st->ne, .tgt_pos = st->pos,
               .vel = u, .grad = g, .on_device = 0, .n_grad = st->ne};
  fmm_io it = {.n_src = st->ne, .src_pos = st->pos, .src_str = st->alpha, .n_tgt = st->nt, .tgt_pos = st->pos + 3 * st->ne,
               .vel = u + 3 * st->ne, .on_device = 0, .passive = 1};
  if (!u || !g || !du || !dg || fmm_evaluate(f, &io, NULL, err, sizeof err) || fmm_evaluate(f, &it, NULL, err, sizeof err)) {
    FAIL("fmm_evaluate: %s", err);
    goto out;
  }
  io.n_tgt = n, io.vel = du, io.grad = dg;
  if (fmm_direct(f, &io, NULL, err, sizeof err)) { FAIL("fmm_direct: %s", err); goto out; }
  double worst_ref = 0.0, worst_eng = 0.0;
  for (int t = 0; t < k; t += 61) {
    int p = idx[t];
    for (int q = 0; q < 12; ++q) {
      if (q >= 3 && t >= kg) break;
      double d = q < 3 ? du[3 * p + q] : dg[9 * p + q - 3], e = q < 3 ? u[3 * p + q] : g[9 * p + q - 3];
      double scale = 1.0 + fabs(d);
      if (fabs(ref[12 * t + q] - d) / scale > worst_ref) worst_ref = fabs(ref[12 * t + q] - d) / scale;
      if (fabs(eng[12 * t + q] - e) / scale > worst_eng) worst_eng = fabs(eng[12 * t + q] - e) / scale;
    }
  }
  printf("cross-check: reference vs fmm_direct %.2e, kept engine values vs a fresh engine %.2e\n", worst_ref, worst_eng);
  /* measured 2.9e-15 (summation order) and 0 (the same engine on the same state) */
  EXPECT(worst_ref < 1e-13, "the readout's reference differs from fmm_direct by %.3g", worst_ref);
  EXPECT(worst_eng < 1e-13, "the readout's engine values differ from the step's engine by %.3g", worst_eng);
out:
  fmm_destroy(f);
  free(u), free(g), free(du), free(dg);
}

/* 2. One step at `order` with the readout armed; the figure into *r. */
static int measure(int order, vx_acc_result *r, int cross) {
  char err[256];
  vx_sim *s = vx_test_small_leapfrog(order, 0, err, sizeof err);
  vx_accuracy *acc = vx_acc_create(VX_ACC_SAMPLE, 7, err, sizeof err);
  state st = {0, 0, NULL, NULL};
  int rc = -1;
  if (!s || !acc) { FAIL("setup: %s", err); goto out; }
  if (grab(s, &st, err, sizeof err)) { FAIL("state: %s", err); goto out; }
  EXPECT(vx_acc_request(acc, s) == 0, "request refused");
  if (vx_sim_step(s, err, sizeof err)) { FAIL("step: %s", err); goto out; }
  EXPECT(vx_acc_busy(acc), "no capture after the step");
  if (vx_acc_poll(acc, 1, r, err, sizeof err) != 1) { FAIL("poll: %s", err); goto out; }
  EXPECT(r->step == 0 && r->t == 0.0, "the figure measures step %lld t=%g, expected the step's start (0, 0)", r->step, r->t);
  EXPECT(r->n_u == VX_ACC_SAMPLE && r->n_g == VX_ACC_SAMPLE / 2, "samples %d / %d, expected %d / %d", r->n_u, r->n_g,
        VX_ACC_SAMPLE, VX_ACC_SAMPLE / 2);
  printf("p = %d: %d elements, %d tracers, octree level %d: err_u_l2 %.3e p99 %.3e, err_gu_l2 %.3e p99 %.3e; capture "
         "%.3f ms, direct %.3f ms\n",
         order, st.ne, st.nt, vx_sim_last_stats(s)->levels, r->u_l2, r->u_p99, r->g_l2, r->g_p99, r->ms_capture,
         r->ms_direct);
  if (cross) cross_check(acc, s, &st);
  vx_acc_result r2;
  EXPECT(vx_acc_poll(acc, 0, &r2, err, sizeof err) == 0, "a second figure from one capture");
  rc = 0;
out:
  vx_acc_destroy(acc);
  vx_sim_destroy(s);
  free(st.pos), free(st.alpha);
  return rc;
}

int main(void) {
  check_definitions();
  vx_acc_result hi, lo;
  if (measure(8, &hi, 1) == 0 && measure(2, &lo, 0) == 0) {
    /* measured (x86-64, seed 7; the engine's default FMM_REG_AUTO, corrections within r_c, docs/MATH.md §10;
     * the elements on their own tree and the tracers, passive, in calls of their own, docs/MATH.md §15):
     * p = 8: err_u_l2 1.70e-5 p99 6.07e-5, err_gu_l2 6.29e-5 p99 3.54e-4; p = 2: err_u_l2 1.89e-2
     * p99 5.07e-2, err_gu_l2 1.91e-2 p99 3.52e-2 (L2 ratios 1112 and 304, p99 ratios 835 and 99).
     * Bands: a factor 2 around each L2 figure, and each ratio above half its measure. */
    EXPECT(hi.u_l2 > 0.85e-5 && hi.u_l2 < 3.4e-5, "p = 8 velocity error %.3g outside [8.5e-6, 3.4e-5]", hi.u_l2);
    EXPECT(hi.g_l2 > 3.1e-5 && hi.g_l2 < 1.26e-4, "p = 8 gradient error %.3g outside [3.1e-5, 1.26e-4]", hi.g_l2);
    EXPECT(lo.u_l2 > 0.95e-2 && lo.u_l2 < 3.8e-2, "p = 2 velocity error %.3g outside [9.5e-3, 3.8e-2]", lo.u_l2);
    EXPECT(lo.g_l2 > 0.95e-2 && lo.g_l2 < 3.8e-2, "p = 2 gradient error %.3g outside [9.5e-3, 3.8e-2]", lo.g_l2);
    EXPECT(lo.u_l2 > 550.0 * hi.u_l2, "p = 2 velocity error %.3g not 550x p = 8's %.3g", lo.u_l2, hi.u_l2);
    EXPECT(lo.g_l2 > 150.0 * hi.g_l2, "p = 2 gradient error %.3g not 150x p = 8's %.3g", lo.g_l2, hi.g_l2);
    EXPECT(lo.u_p99 > 400.0 * hi.u_p99 && lo.g_p99 > 50.0 * hi.g_p99, "p = 2's 99th percentiles not 400x / 50x p = 8's");
  }
  if (failures) {
    printf("%d check(s) failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("accuracy readout checks passed\n");
  return EXIT_SUCCESS;
}
