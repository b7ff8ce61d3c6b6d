/* test_vortex_passive.c — passive tracers leave the elements' dynamics alone (vortex/sim_step.c: the
 * elements' engine calls run on the elements' own tree, the tracers' in calls of their own;
 * docs/MATH.md §15). The merger scene cut to 2 x 64 stations (1024 elements), CPU, double, p = 8,
 * relaxation every step as shipped, four RK4 steps: with 4096 tracers riding every stage
 * (tracer_every 1) or their own RK4 step over 4 (tracer_every 4), the elements' positions and
 * strengths equal those of the run without tracers to the bit: calls that put the elements on the
 * tracers' deeper tree would make the elements' dynamics depend on the tracers (docs/VALIDATION.md,
 * "Passive tracers leave the elements alone"). The tracers'
 * own displacements stay within the FMM's error of direct summation's (measured 1.49e-4; bound 2e-4).
 * Run: ctest -R vortex_passive */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "test_check.h"
#include "test_vortex.h"

#define STEPS 4

typedef struct {
  int ne, nt;
  double *p0, *p1, *a1; /* positions (elements then tracers) before and after, strengths after */
} run_out;

/* STEPS steps of the small leapfrog with `tracers` tracers on their own step of `every` element steps,
 * by direct summation when direct. */
static int run(int tracers, int every, int direct, run_out *o) {
  char err[256];
  vx_scene sc;
  vx_sim_params p;
  if (vx_test_small_leapfrog_setup(&sc, &p, 8, direct, tracers, err, sizeof err)) { printf("scene: %s\n", err); return -1; }
  p.tracer_every = every;
  vx_sim *s = vx_sim_create(&p, &sc, err, sizeof err);
  if (!s) { printf("create: %s\n", err); return -1; }
  o->ne = vx_sim_n_elements(s), o->nt = vx_sim_n_tracers(s);
  size_t np = 3 * (size_t)(o->ne + o->nt), ne3 = 3 * (size_t)o->ne;
  o->p0 = malloc(sizeof(double) * np), o->p1 = malloc(sizeof(double) * np), o->a1 = malloc(sizeof(double) * ne3);
  double *a0 = malloc(sizeof(double) * ne3);
  int rc = !o->p0 || !o->p1 || !o->a1 || !a0 || vx_sim_get_elements(s, o->p0, a0, err, sizeof err) ||
           vx_sim_get_tracers(s, o->p0 + ne3, err, sizeof err);
  for (int k = 0; k < STEPS && !rc; ++k) rc = vx_sim_step(s, err, sizeof err);
  rc = rc || vx_sim_get_elements(s, o->p1, o->a1, err, sizeof err) || vx_sim_get_tracers(s, o->p1 + ne3, err, sizeof err);
  if (rc) printf("tracers %d every %d direct %d: %s\n", tracers, every, direct, err);
  free(a0);
  vx_sim_destroy(s);
  return rc ? -1 : 0;
}

/* max_i |(x1_i - x0_i) - (y1_i - y0_i)| over max_i |x1_i - x0_i|, rows [from, to) of three. */
static double rel_diff(const double *x0, const double *x1, const double *y0, const double *y1, int from, int to) {
  double d = 0.0, m = 0.0;
  for (size_t i = 3 * (size_t)from; i < 3 * (size_t)to; ++i) {
    double a = x1[i] - x0[i], b = y1[i] - y0[i];
    d = fmax(d, fabs(a - b));
    m = fmax(m, fabs(a));
  }
  return m > 0.0 ? d / m : INFINITY;
}

/* The elements of run o equal those of the run without tracers (r0) to the bit. */
static int same_elements(const run_out *r0, const run_out *o, const char *what) {
  CHECK(o->ne == r0->ne && o->nt > 0, "%s: %d elements and %d tracers against %d elements", what, o->ne, o->nt, r0->ne);
  size_t n3 = 3 * (size_t)r0->ne;
  int pos = memcmp(r0->p1, o->p1, sizeof(double) * n3), str = memcmp(r0->a1, o->a1, sizeof(double) * n3);
  printf("%s: elements' positions %s, strengths %s the run without tracers'\n", what, pos ? "differ from" : "equal",
         str ? "differ from" : "equal");
  CHECK(!pos && !str, "%s: the tracers changed the elements' step", what);
  return 0;
}

int main(void) {
  run_out r[4]; /* 0: no tracers; 1: tracers every stage; 2: their own step of 4; 3: as 1, direct summation */
  memset(r, 0, sizeof r);
  const int tracers[4] = {0, 4096, 4096, 4096}, every[4] = {1, 1, 4, 1}, direct[4] = {0, 0, 0, 1};
  for (int v = 0; v < 4; ++v)
    if (run(tracers[v], every[v], direct[v], &r[v])) return EXIT_FAILURE;
  same_elements(&r[0], &r[1], "tracers riding every stage");
  same_elements(&r[0], &r[2], "tracers on their own step of 4");
  double dt = rel_diff(r[3].p0, r[3].p1, r[1].p0, r[1].p1, r[1].ne, r[1].ne + r[1].nt);
  printf("after %d steps, the tracers' displacements against direct summation: %.3e\n", STEPS, dt);
  EXPECT(dt <= 2e-4, "the tracers' displacements %.3e from direct summation's, over 2e-4", dt);
  for (int v = 0; v < 4; ++v) free(r[v].p0), free(r[v].p1), free(r[v].a1);
  return vx_test_end("passive tracers: the elements' steps unchanged to the bit, the tracers within the FMM's error");
}
