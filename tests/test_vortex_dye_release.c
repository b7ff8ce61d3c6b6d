/* test_vortex_dye_release.c — the continuous dye release (vx_sim_params.dye_release, vortex/sim_dye.c).
 * Two coaxial thin rings of 64 stations with 700 and 1300 tracers (N = 2000), CPU, RK4, dt = 0.01,
 * direct summation (each tracer's velocity its own sum, whichever tracers share the call), the health
 * checked after every step as the program does (the tracer step's span follows max|∇u|):
 *   (a) schedule: with T = 0.4 and tracer steps of one element step, each step releases exactly the
 *       next ⌈N·dt/T⌉ = 50 tracers in turn, each placed at vx_tracer_redraw of its own ring's source
 *       (to the bit, the run's precision), within 6 spreads of that ring's starting centreline, the
 *       renderer's ring label of its row (vx_tracer_rings) that same ring; after 30 steps the 500
 *       tracers never released are those of a run without release to the bit and have moved with the
 *       flow, the 1500 released ones differ from it; a new T applies from the next step, 0 stops;
 *   (b) a run longer than T (T = 0.1, tracer steps of 2 element steps of dt = 0.004: 160 a step)
 *       releases every tracer at least once, none more than twice;
 *   (c) `dye_release = 0` in the scene file runs to the bit as the same scene without the key;
 *   (d) a checkpoint written mid-run (inside a tracer step of 4 element steps of dt = 0.004, and
 *       with substeps) and restarted goes on to the bit as the uninterrupted run, in double and float,
 *       its release count included;
 *   (e) bad values are refused naming the key: negative, NaN, shorter than a tracer step.
 * Fixed seeds; every bound is exact but (a)'s 6 spreads (the largest drawn offset measured 3.95) and
 * its 1 spread of motion (measured 9.4). About 5 s on two cores.
 * Run: ctest -R vortex_dye_release */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "sim.h"
#include "test_check.h"
#include "test_vortex.h"
#include "tracer_colour.h"

#define NT0 700
#define NT1 1300
#define NT (NT0 + NT1)
#define SEED 11
#define DT 0.01

/* The two rings of the leapfrog geometry as thin rings of 64 stations, σ = 0.05, NT0 + NT1 tracers. */
static void scene(vx_scene *sc) {
  vx_test_two_rings(sc, 64);
  sc->rings[0].tracers = NT0;
  sc->rings[1].tracers = NT1;
  sc->seed = SEED;
}

static vx_sim *make(vx_precision prec, double dt, double T, int tracer_every, double lcfl, char *err, size_t errlen) {
  vx_scene sc;
  scene(&sc);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.backend = VX_BACKEND_CPU;
  p.precision = prec;
  p.direct = 1;
  p.sigma = 0.05;
  p.dt = dt;
  p.integrator = VX_RK4;
  p.order = 6;
  p.tracer_every = tracer_every;
  p.lcfl = lcfl;
  p.dye_release = T;
  return vx_sim_create(&p, &sc, err, errlen);
}

/* Distance of x from the circle of centre c, unit axis n and radius R. */
static double from_centreline(const double x[3], const double c[3], const double n[3], double R) {
  double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
  double z = d[0] * n[0] + d[1] * n[1] + d[2] * n[2], rho = sqrt(fmax(0.0, d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - z * z));
  return sqrt((rho - R) * (rho - R) + z * z);
}

/* n steps, the health checked after each (as the program checks it: max|∇u| sets the next tracer
 * step's span and the substeps); the most substeps a step took into *subs (may be NULL). */
static int steps(vx_sim *s, int n, int *subs, char *err, size_t errlen) {
  vx_health h;
  for (int k = 0; k < n; ++k) {
    if (vx_sim_step(s, err, errlen) || vx_sim_health(s, &h, err, errlen)) return -1;
    if (subs && vx_sim_last_stats(s)->substeps > *subs) *subs = vx_sim_last_stats(s)->substeps;
  }
  return 0;
}

/* The position a release draws, rounded as the run stores it. */
static void drawn(const vx_dye_state *d, int q, long long generation, vx_precision prec, double p[3]) {
  int r = 0;
  while (r + 1 < d->n_rings && q >= d->ring[r + 1].first) ++r;
  vx_tracer_redraw(&d->ring[r], d->seed, q, generation, p);
  if (prec == VX_FLOAT)
    for (int i = 0; i < 3; ++i) p[i] = (float)p[i];
}

/* (a) One step's block: released [c0, c1) of the round, checked against the draw, the label and the
 * starting centreline; the largest distance from it (in spreads) into *far. */
static void check_block(const vx_sim *s, const vx_scene *sc, const float *label, const double *tr, long long c0, long long c1,
                        long long want, int step, double *far) {
  const vx_dye_state *d = vx_sim_dye(s);
  if (c1 - c0 != want) { FAIL("step %d released %lld tracers, expected %lld", step, c1 - c0, want); return; }
  for (long long k = c0; k < c1; ++k) {
    const int q = (int)(k % NT), r = q < NT0 ? 0 : 1;
    double p[3];
    drawn(d, q, k / NT + 1, vx_sim_params_get(s)->precision, p);
    if (memcmp(p, tr + 3 * q, sizeof p)) { FAIL("step %d: tracer %d is not its release's draw", step, q); return; }
    if ((int)label[q] != r) { FAIL("step %d: tracer %d of ring %d carries the label %g", step, q, r, label[q]); return; }
    const vx_ring *g = &sc->rings[r];
    double dist = from_centreline(tr + 3 * q, g->centre, g->axis, g->radius) / vx_ring_tracer_spread(g);
    if (dist > *far) *far = dist;
  }
}

static void schedule(void) {
  char err[512];
  vx_scene sc;
  scene(&sc);
  float label[NT];
  vx_tracer_rings(&sc, NT, label);
  static double tr[3 * NT], ref[3 * NT], start[3 * NT];
  vx_sim *s = make(VX_DOUBLE, DT, 0.4, 1, 0.0, err, sizeof err), *r = make(VX_DOUBLE, DT, 0.0, 1, 0.0, err, sizeof err);
  if (!s || !r || vx_sim_get_tracers(s, start, err, sizeof err)) { FAIL("(a) create: %s", err); goto done; }
  const long long block = (long long)ceil(NT * DT / 0.4);
  double far = 0.0;
  for (int k = 1; k <= 30; ++k) {
    long long c0 = vx_sim_dye(s)->released;
    if (steps(s, 1, NULL, err, sizeof err) || vx_sim_get_tracers(s, tr, err, sizeof err)) {
      FAIL("(a) step %d: %s", k, err);
      goto done;
    }
    check_block(s, &sc, label, tr, c0, vx_sim_dye(s)->released, block, k, &far);
  }
  if (steps(r, 30, NULL, err, sizeof err) || vx_sim_get_tracers(r, ref, err, sizeof err)) {
    FAIL("(a) reference: %s", err);
    goto done;
  }
  int wrong = 0;
  double moved = 0.0;
  for (int q = 0; q < NT; ++q) {
    const int same = !memcmp(tr + 3 * q, ref + 3 * q, 3 * sizeof(double)), released = q < 30 * block;
    wrong += same == released;
    if (!released) moved += sqrt(pow(tr[3 * q] - start[3 * q], 2) + pow(tr[3 * q + 1] - start[3 * q + 1], 2) +
                                 pow(tr[3 * q + 2] - start[3 * q + 2], 2)) / (NT - 30 * block);
  }
  moved /= vx_ring_tracer_spread(&sc.rings[0]);
  EXPECT(!wrong, "(a) %d tracers out of place: released ones must differ from the run without release, the others equal it",
         wrong);
  EXPECT(far <= 6.0, "(a) a released tracer %.2f spreads from its ring's starting centreline (at most 6)", far);
  EXPECT(moved >= 1.0, "(a) the tracers never released moved %.2f spreads on average (at least 1)", moved);
  if (!wrong)
    printf("(a) 30 steps of %lld releases each, every one its draw, labelled with its ring, at most %.2f spreads from its "
           "starting centreline; %lld unreleased tracers the same to the bit as without release, moved %.2f spreads\n",
           block, far, (long long)NT - 30 * block, moved);
  /* a new T from the next step, and 0 stops */
  long long c0 = vx_sim_dye(s)->released;
  int rc = vx_sim_set_dye_release(s, 0.2, err, sizeof err) || steps(s, 1, NULL, err, sizeof err);
  long long c1 = vx_sim_dye(s)->released;
  rc = rc || vx_sim_set_dye_release(s, 0.0, err, sizeof err) || steps(s, 2, NULL, err, sizeof err);
  if (rc) FAIL("(a) T changed: %s", err);
  else if (c1 - c0 != 2 * block || vx_sim_dye(s)->released != c1)
    FAIL("(a) T 0.2 released %lld (expected %lld), then T 0 %lld (expected 0)", c1 - c0, 2 * block, vx_sim_dye(s)->released - c1);
  else printf("(a) T = 0.2 releases %lld the next step, T = 0 none\n", c1 - c0);
done:
  vx_sim_destroy(s);
  vx_sim_destroy(r);
}

/* (b) */
static void longer_than_T(void) {
  char err[512];
  static double tr[3 * NT], ref[3 * NT];
  vx_sim *s = make(VX_DOUBLE, 0.004, 0.1, 2, 0.0, err, sizeof err), *r = make(VX_DOUBLE, 0.004, 0.0, 2, 0.0, err, sizeof err);
  if (!s || !r || steps(s, 30, NULL, err, sizeof err) || steps(r, 30, NULL, err, sizeof err) ||
      vx_sim_get_tracers(s, tr, err, sizeof err) || vx_sim_get_tracers(r, ref, err, sizeof err)) {
    FAIL("(b) %s", err);
  } else {
    int kept = 0;
    for (int q = 0; q < NT; ++q) kept += !memcmp(tr + 3 * q, ref + 3 * q, 3 * sizeof(double));
    const long long n = vx_sim_dye(s)->released;
    EXPECT(!kept && n >= NT && n <= 2 * NT, "(b) after t = 0.12 > T = 0.1: %lld releases, %d tracers never released", n, kept);
    if (!kept) printf("(b) t = 0.12, T = 0.1, tracer steps of 2: %lld releases of %d tracers, each at least once\n", n, NT);
  }
  vx_sim_destroy(s);
  vx_sim_destroy(r);
}

/* (c) The same scene file with and without `dye_release = 0`. */
static void off_is_absent(void) {
  const char *body = "sigma = 0.05\ndt = 0.01\nsolver = direct\nbackend = cpu\ntracer_every = 2\nseed = 3\n"
                     "[ring]\nradius = 0.3\nn_around = 64\ntracers = 500\n";
  char with[1024], err[512];
  snprintf(with, sizeof with, "dye_release = 0\n%s", body);
  double *pos[2] = {NULL, NULL};
  int ne[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    vx_scene sc;
    vx_sim *s = NULL;
    if (vx_scene_parse(i ? with : body, i ? "with" : "without", &sc, err, sizeof err)) { FAIL("(c) %s", err); break; }
    vx_sim_params p = vx_sim_params_from_scene(&sc);
    s = vx_sim_create(&p, &sc, err, sizeof err);
    ne[i] = s ? vx_sim_n_elements(s) : 0;
    pos[i] = malloc(sizeof(double) * 3 * (size_t)(ne[i] + 500));
    if (!s || !pos[i] || steps(s, 6, NULL, err, sizeof err) || vx_sim_get_elements(s, pos[i], NULL, err, sizeof err) ||
        vx_sim_get_tracers(s, pos[i] + 3 * (size_t)ne[i], err, sizeof err))
      FAIL("(c) %s", err);
    vx_sim_destroy(s);
  }
  if (pos[0] && pos[1]) {
    int same = ne[0] == ne[1] && !memcmp(pos[0], pos[1], sizeof(double) * 3 * (size_t)(ne[0] + 500));
    EXPECT(same, "(c) dye_release = 0 ran otherwise than the scene without the key");
    if (same) printf("(c) dye_release = 0: the same to the bit as without the key (6 steps, %d elements, 500 tracers)\n", ne[0]);
  }
  free(pos[0]), free(pos[1]);
}

/* (d) 2n steps of dt straight against n, checkpoint, restart, n: particles and release count to the bit. */
static void restart(vx_precision prec, double dt, double T, int tracer_every, double lcfl, int n) {
  char err[512], path[1024];
  snprintf(path, sizeof path, "%s/test_vortex_dye_release.ckpt", VX_BINARY_DIR);
  static double a[3 * (NT + 4096)], b[3 * (NT + 4096)];
  vx_sim *s = make(prec, dt, T, tracer_every, lcfl, err, sizeof err), *t = make(prec, dt, T, tracer_every, lcfl, err, sizeof err);
  vx_ckpt_meta m = {"dye", SEED, 2 * n, 1};
  vx_sim_state st;
  int subs = 1;
  int ok = s && t && !steps(s, 2 * n, &subs, err, sizeof err) && !steps(t, n, NULL, err, sizeof err) &&
           !vx_sim_export_state(t, &st, err, sizeof err) && !vx_ckpt_save(t, &m, path, err, sizeof err);
  vx_sim_destroy(t);
  t = ok ? vx_ckpt_load(path, NULL, err, sizeof err) : NULL;
  const int ne = s ? vx_sim_n_elements(s) : 0;
  ok = ok && t && !steps(t, n, NULL, err, sizeof err) && ne <= 4096 && vx_sim_n_elements(t) == ne &&
       !vx_sim_get_elements(s, a, NULL, err, sizeof err) && !vx_sim_get_tracers(s, a + 3 * ne, err, sizeof err) &&
       !vx_sim_get_elements(t, b, NULL, err, sizeof err) && !vx_sim_get_tracers(t, b + 3 * ne, err, sizeof err);
  if (!ok) {
    FAIL("(d) %s: %s", vx_precision_name(prec), err);
  } else {
    const long long na = vx_sim_dye(s)->released, nb = vx_sim_dye(t)->released;
    const int same = !memcmp(a, b, sizeof(double) * 3 * (size_t)(ne + NT)) && na == nb;
    const int inside = tracer_every > 1 ? st.tr_steps > 0 : subs > 1; /* the case it is meant to be */
    if (!same || na <= NT || !inside)
      FAIL("(d) %s, tracer_every %d: %s (%lld vs %lld releases of %d; %d element steps into a tracer step, up to %d substeps)",
           vx_precision_name(prec), tracer_every, same ? "not the case meant" : "the restarted run differs", na, nb, NT,
           st.tr_steps, subs);
    else
      printf("(d) %s, tracer_every %d, up to %d substeps: %d steps straight and %d + restart + %d the same to the bit, %lld "
             "releases, the checkpoint %d element step(s) into a tracer step\n", vx_precision_name(prec), tracer_every, subs,
             2 * n, n, n, na, st.tr_steps);
  }
  vx_sim_destroy(s);
  vx_sim_destroy(t);
  remove(path);
}

/* (e) */
static void refused(void) {
  char err[512];
  const char *scenes[][2] = {
      {"dye_release = -1\n[ring]\n", "bad value for 'dye_release': '-1'"},
      {"dye_release = nan\n[ring]\n", "bad value for 'dye_release': 'nan'"},
      {"dt = 0.01\ntracer_every = 4\ndye_release = 0.02\n[ring]\n", "dye_release 0.02 is shorter than one tracer step"}};
  for (int i = 0; i < 3; ++i) {
    vx_scene sc;
    if (!vx_scene_parse(scenes[i][0], "bad", &sc, err, sizeof err)) FAIL("(e) '%s' parsed", scenes[i][0]);
    else if (!strstr(err, scenes[i][1]) || strchr(err, '\n')) FAIL("(e) message '%s' (wanted '%s')", err, scenes[i][1]);
    else printf("(e) refused: %s\n", err);
  }
  vx_sim *s = make(VX_DOUBLE, DT, 0.4, 1, 0.0, err, sizeof err);
  if (!s) { FAIL("(e) create: %s", err); return; }
  if (!vx_sim_set_dye_release(s, 0.001, err, sizeof err)) FAIL("(e) a lifetime shorter than a step was taken");
  else if (!strstr(err, "dye_release 0.001 is shorter than one tracer step")) FAIL("(e) message '%s'", err);
  else if (!vx_sim_set_dye_release(s, NAN, err, sizeof err)) FAIL("(e) a NaN lifetime was taken");
  else if (vx_sim_params_get(s)->dye_release != 0.4) FAIL("(e) a refused lifetime changed the run's");
  else printf("(e) the setter refuses: %s\n", err);
  vx_sim_destroy(s);
}

int main(void) {
  schedule();
  longer_than_T();
  off_is_absent();
  /* 4·dt·max|∇u| = 0.66 within VX_SIM_TRACER_LCFL: spans of 4, 800 releases each */
  restart(VX_DOUBLE, 0.004, 0.04, 4, 0.0, 7);
  restart(VX_FLOAT, 0.004, 0.04, 4, 0.0, 7);
  /* dt·max|∇u| = 0.41 over lcfl 0.2: 3 substeps, 3 blocks a step */
  restart(VX_DOUBLE, DT, 0.08, 1, 0.2, 6);
  restart(VX_FLOAT, DT, 0.08, 1, 0.2, 6);
  refused();
  return vx_test_end("dye release checks passed");
}
