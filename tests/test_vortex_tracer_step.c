/* test_vortex_tracer_step.c — the tracers' own step (vx_sim_params.tracer_every, docs/MATH.md §15):
 * one classical RK4 step of m element steps, its four evaluations riding in the elements' first and
 * last calls. The merger scene cut to 2 x 64 stations (1024 elements) with 1024 tracers, CPU,
 * double, RK4, direct summation (each target's sum is its own, whichever targets share the call):
 *   (a) the elements are the same to the bit with m = 1, 2 and 4: only the tracers change;
 *   (b) after 8 steps of dt = 0.002 the tracers of m = 2 and 4 lie within a bound of those of m = 1,
 *       also when read inside a tracer step (vx_sim_get_tracers brings them to the current time);
 *   (c) halving dt shrinks that gap at the end of a tracer step as a fourth-order scheme's does (2^4);
 *   (d) a dt changed inside a tracer step ends it there (second order) and the run goes on;
 *   (e) the step spans 4 element steps of dt = 0.002 (4·dt·max|∇u| = 0.64), 2 of dt = 0.004: the span
 *       halves while it would pass VX_SIM_TRACER_LCFL.
 * The bounds are 2.5-3x the measurements written beside them.
 * Run: ctest -R vortex_tracer_step */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "test_check.h"
#include "test_vortex.h"

#define NT 1024

typedef struct {
  int ne;
  double *pos, *alpha; /* elements then tracers; strengths */
} snap;

static vx_sim *make(int m, double dt, char *err, size_t errlen) {
  vx_scene sc;
  vx_sim_params p;
  if (vx_test_small_leapfrog_setup(&sc, &p, 8, 1, NT, err, errlen)) return NULL;
  p.integrator = VX_RK4;
  p.dt = dt;
  p.tracer_every = m;
  return vx_sim_create(&p, &sc, err, errlen);
}

static int take(vx_sim *s, snap *q, char *err, size_t errlen) {
  q->ne = vx_sim_n_elements(s);
  q->pos = malloc(sizeof(double) * 3 * (size_t)(q->ne + NT));
  q->alpha = malloc(sizeof(double) * 3 * (size_t)q->ne);
  if (!q->pos || !q->alpha) { snprintf(err, errlen, "out of memory"); return -1; }
  return vx_sim_get_elements(s, q->pos, q->alpha, err, errlen) || vx_sim_get_tracers(s, q->pos + 3 * (size_t)q->ne, err, errlen);
}

static void drop(snap *q) { free(q->pos), free(q->alpha); }

/* Steps of m at dt, a snapshot after each of the steps listed in at[] (ascending, n_at of them);
 * dt2 > 0: dt changed to it after step `change`. */
static int run(int m, double dt, int steps, const int *at, int n_at, snap *out, int change, double dt2) {
  char err[256];
  vx_sim *s = make(m, dt, err, sizeof err);
  if (!s) { FAIL("create (m = %d): %s", m, err); return -1; }
  int rc = 0, j = 0;
  for (int k = 1; k <= steps && !rc; ++k) {
    rc = vx_sim_step(s, err, sizeof err);
    if (!rc && k == change) rc = vx_sim_set_dt(s, dt2, err, sizeof err);
    if (!rc && j < n_at && at[j] == k) rc = take(s, &out[j++], err, sizeof err);
  }
  if (rc) FAIL("m = %d: %s", m, err);
  vx_sim_destroy(s);
  return rc;
}

/* The farthest a tracer of a lies from its twin in b, in units of the ring radius 0.3. */
static double tracer_gap(const snap *a, const snap *b) {
  double e = 0.0;
  const double *ta = a->pos + 3 * (size_t)a->ne, *tb = b->pos + 3 * (size_t)b->ne;
  for (size_t i = 0; i < NT; ++i) {
    double d = 0.0;
    for (int c = 0; c < 3; ++c) d += (ta[3 * i + c] - tb[3 * i + c]) * (ta[3 * i + c] - tb[3 * i + c]);
    e = fmax(e, sqrt(d) / 0.3);
  }
  return e;
}

static int same_elements(const snap *a, const snap *b) {
  return a->ne == b->ne && !memcmp(a->pos, b->pos, sizeof(double) * 3 * (size_t)a->ne) &&
         !memcmp(a->alpha, b->alpha, sizeof(double) * 3 * (size_t)a->ne);
}

int main(void) {
  const int at[4] = {5, 6, 7, 8}, at2[1] = {16};
  snap r1[4], r2[4], r4[4], h1[1], h4[1], c1[1], c4[1];
  if (run(1, 0.002, 8, at, 4, r1, 0, 0) || run(2, 0.002, 8, at, 4, r2, 0, 0) || run(4, 0.002, 8, at, 4, r4, 0, 0))
    return vx_test_end(NULL);
  /* (a) */
  int same = 1;
  for (int k = 0; k < 4; ++k) same = same && same_elements(&r1[k], &r2[k]) && same_elements(&r1[k], &r4[k]);
  if (!same) FAIL("(a) the elements differ between m = 1, 2 and 4");
  else printf("(a) the elements of m = 1, 2 and 4 are the same to the bit after steps 5-8\n");
  /* (b) after steps 5, 6, 7 (inside m = 4's second step: 1/4, 2/4, 3/4 of it) and 8 */
  /* measured: inside a tracer step m = 2 1.5e-5 R, m = 4 6.6e-4 (a quarter into it: Euler), 1.2e-4,
   * 1.4e-4; at its end 1.8e-6 and 2.5e-5 */
  const double in2 = 5e-5, in4 = 2e-3, end2 = 6e-6, end4 = 8e-5;
  for (int k = 0; k < 4; ++k) {
    double a = tracer_gap(&r2[k], &r1[k]), b = tracer_gap(&r4[k], &r1[k]);
    printf("(b) after step %d: tracers of m = 2 within %.3e R of m = 1's, m = 4 within %.3e R\n", at[k], a, b);
    if (!(a <= (at[k] % 2 ? in2 : end2)) || !(b <= (at[k] % 4 ? in4 : end4)))
      FAIL("(b) after step %d: tracer gap %.3e (m = 2) / %.3e (m = 4) R", at[k], a, b);
  }
  /* (c) the gap of m = 4 at t = 0.016 with dt = 0.001 */
  if (run(1, 0.001, 16, at2, 1, h1, 0, 0) || run(4, 0.001, 16, at2, 1, h4, 0, 0)) return vx_test_end(NULL);
  double gh = tracer_gap(&h4[0], &h1[0]), ratio = tracer_gap(&r4[3], &r1[3]) / gh;
  printf("(c) at t = 0.016: m = 4's gap %.3e R with dt = 0.002, %.3e R with dt = 0.001: ratio %.1f\n", tracer_gap(&r4[3], &r1[3]),
         gh, ratio);
  if (!(ratio >= 12.0)) FAIL("(c) halving dt shrank the gap %.2fx (fourth order: 16x; measured 16.4)", ratio);
  /* (d) dt = 0.002 for 5 steps (m = 4: one step into its second tracer step), then 0.001 for 11 */
  if (run(1, 0.002, 16, at2, 1, c1, 5, 0.001) || run(4, 0.002, 16, at2, 1, c4, 5, 0.001)) return vx_test_end(NULL);
  double gc = tracer_gap(&c4[0], &c1[0]);
  printf("(d) dt changed inside a tracer step: m = 4's gap %.3e R after 11 more steps\n", gc);
  if (!same_elements(&c1[0], &c4[0])) FAIL("(d) the elements differ");
  if (!(gc <= 2e-3)) FAIL("(d) tracer gap %.3e R (measured 7.2e-4)", gc);
  /* (e) the span: 4 while 4·dt·max|∇u| <= VX_SIM_TRACER_LCFL, halved beyond */
  for (int d = 0; d < 2; ++d) {
    double dt = d ? 0.004 : 0.002;
    char err[256];
    vx_sim *s = make(4, dt, err, sizeof err);
    int rc = !s, span = 0;
    for (int k = 0; k < 5 && !rc; ++k) rc = vx_sim_step(s, err, sizeof err);
    vx_health h;
    if (!rc) rc = vx_sim_health(s, &h, err, sizeof err);
    if (!rc) span = vx_sim_last_stats(s)->tracer_span;
    int want = 4 * dt * h.max_gradu <= VX_SIM_TRACER_LCFL ? 4 : 2 * dt * h.max_gradu <= VX_SIM_TRACER_LCFL ? 2 : 1;
    printf("(e) dt = %g: dt*max|grad u| = %.3f, the tracers' step spans %d element steps (want %d)\n", dt, rc ? -1.0 : dt * h.max_gradu,
           span, want);
    if (rc) FAIL("(e) dt = %g: %s", dt, err);
    else if (span != want || span != (d ? 2 : 4)) FAIL("(e) dt = %g: span %d, want %d", dt, span, want);
    vx_sim_destroy(s);
  }
  for (int k = 0; k < 4; ++k) drop(&r1[k]), drop(&r2[k]), drop(&r4[k]);
  drop(&h1[0]), drop(&h4[0]), drop(&c1[0]), drop(&c4[0]);
  return vx_test_end("the tracers' own step: elements unchanged, tracers within the bounds");
}
