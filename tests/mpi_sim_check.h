/* mpi_sim_check.h — tests only: one simulation over the ranks (dist/dsim.h) against the same run in one
 * process, the checks mpi_test_sim (the CPU backend) and mpi_test_sim_gpu (the CUDA one) share: two
 * scenes' diagnostics compared every 10 of 40 steps, the tracers and the continuous dye release.
 * The including file sets sim_backend before the checks run. */
#ifndef VX_MPI_SIM_CHECK_H
#define VX_MPI_SIM_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conserve.h"
#include "diag.h"
#include "dsim.h"
#include "scene.h"
#include "test_check.h"
#include "mpi_test.h"

/* The rings travel along x, so that the ranks' key ranges (z the curve's leading bit) cut each ring. */
static const char *SCENE = "name = mpi_leapfrog\n"
                           "kernel = gauss\n"
                           "order = 8\n"
                           "[ring]\ncirculation = 1.0\nradius = 0.3\ncore = 0.0297\nlayers = 0\ncentre = 0.375 0.5 0.5\naxis = 1 0 0\n"
                           "[ring]\ncirculation = 1.0\nradius = 0.3\ncore = 0.0297\nlayers = 0\ncentre = 0.5 0.5 0.5\naxis = 1 0 0\n";

/* Two thick rings, viscous: the derived numerics remesh them onto a lattice with the diffusion, relax
 * them and drop the weakest nodes with the full correction (here every 5 steps, the lattice fixed). */
static const char *THICK = "name = mpi_thick\n"
                           "resolution = coarse\n"
                           "reynolds = 800\n"
                           "[ring]\ncirculation = 1.0\nradius = 0.25\ncore = 0.05\ncentre = 0.5 0.5 0.4\naxis = 0 0 1\n"
                           "[ring]\ncirculation = 1.0\nradius = 0.2\ncore = 0.04\ncentre = 0.5 0.5 0.55\naxis = 0 0 1\n";

/* Wider thick rings: the field's radius lets the lattice double (coarsen.h) within the steps. */
static const char *WIDE = "name = mpi_wide\n"
                          "reynolds = 800\n"
                          "[ring]\ncirculation = 1.0\nradius = 0.45\ncore = 0.06\ncentre = 0.5 0.5 0.4\naxis = 0 0 1\n"
                          "[ring]\ncirculation = 1.0\nradius = 0.4\ncore = 0.05\ncentre = 0.5 0.5 0.6\naxis = 0 0 1\n";

#define STEPS 40
#define EVERY 10
#define TOL 1e-10

static vx_backend sim_backend = VX_BACKEND_CPU;

/* The run's parameters; the level by the leaf-size rule and never the direct sum in place of the FMM, as
 * the distributed engine chooses on two ranks or more (engine.h), so that one process evaluates alike. */
static vx_sim *make_sim(const vx_scene *sc, vx_sim_params p, char *err, size_t errlen) {
  p.backend = sim_backend, p.precision = VX_DOUBLE;
  if (p.tracers < 0) p.tracers = 0;
  p.fmm_only = 1, p.level_rule = FMM_LEVEL_RULE_LEAF;
  p.keep_move = -1; /* every stage builds its tree, as the distributed engine does (a kept tree moves the result by the FMM's error) */
  return vx_sim_create(&p, sc, err, errlen);
}

static double rel(double a, double b, double scale) { return fabs(a - b) / scale; }

/* The largest relative difference of two rows' invariants and rings. */
static double row_diff(const vx_diag *a, const vx_diag *b) {
  double in = sqrt(b->I[0] * b->I[0] + b->I[1] * b->I[1] + b->I[2] * b->I[2]), d = 0.0;
  for (int k = 0; k < 3; k++) {
    d = fmax(d, rel(a->I[k], b->I[k], in));
    d = fmax(d, rel(a->W[k], b->W[k], b->sum_abs_alpha));
    for (int r = 0; r < b->n_rings; r++) d = fmax(d, rel(a->ring_c[r][k], b->ring_c[r][k], b->ring_R[r]));
  }
  for (int r = 0; r < b->n_rings; r++) d = fmax(d, rel(a->ring_R[r], b->ring_R[r], b->ring_R[r]));
  d = fmax(d, rel(a->energy, b->energy, fabs(b->energy)));
  d = fmax(d, rel(a->max_alpha, b->max_alpha, b->max_alpha));
  d = fmax(d, rel(a->sum_abs_alpha, b->sum_abs_alpha, b->sum_abs_alpha));
  return d;
}

/* One scene's run in one process and over the ranks, its diagnostics compared every EVERY steps. */
static int compare(const vx_comm *c, const char *text, const char *name, int remesh_every, int conserve, double coarsen,
                   int direct) {
  char err[256] = "";
  vx_scene sc;
  CHECK(vx_scene_parse(text, name, &sc, err, sizeof err) == 0, "%s: %s", name, err);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.tracers = 0, p.direct = direct;
  if (remesh_every) p.remesh_every = remesh_every, p.remesh_coarsen = coarsen;
  CHECK(p.conserve == conserve, "%s: the correction's mode %s, expected %s", name, vx_conserve_name(p.conserve),
        vx_conserve_name(conserve));
  vx_diag ref[STEPS / EVERY + 1], got;
  vx_sim *one = make_sim(&sc, p, err, sizeof err);
  CHECK(one, "%s, one process: %s", name, err);
  for (int k = 0; k <= STEPS; k++) {
    if (k % EVERY == 0) CHECK(vx_diag_compute(one, 1 << 20, &ref[k / EVERY], err, sizeof err) == 0, "diag: %s", err);
    if (k < STEPS) CHECK(vx_sim_step(one, err, sizeof err) == 0, "%s, one process, step %d: %s", name, k + 1, err);
  }
  const long long remeshed = vx_sim_remesh_stats(one)->count;
  const int coarsened = vx_sim_remesh_stats(one)->coarsenings;
  CHECK(!(coarsen > 0.0) || coarsened > 0, "%s: the lattice did not coarsen", name);
  vx_sim_destroy(one);

  vx_sim *s = make_sim(&sc, p, err, sizeof err);
  CHECK(s, "%s, spread: %s", name, err);
  vx_dsim *d = vx_dsim_create(c, s, err, sizeof err);
  CHECK(d, "%s: vx_dsim_create: %s", name, err);
  double worst = 0.0;
  for (int k = 0; k <= STEPS; k++) {
    if (k % EVERY == 0) {
      CHECK(vx_diag_compute(s, 1 << 20, &got, err, sizeof err) == 0, "%s, spread diag: %s", name, err);
      const vx_diag *r = &ref[k / EVERY];
      const double dk = row_diff(&got, r);
      worst = fmax(worst, dk);
      CHECK(got.n_elem == r->n_elem && dk <= TOL, "%s, step %d: %d elements (one process %d), largest relative difference %.3g",
            name, k, got.n_elem, r->n_elem, dk);
    }
    if (k < STEPS) CHECK(vx_dsim_step(d, err, sizeof err) == 0, "%s, spread, step %d: %s", name, k + 1, err);
  }
  CHECK(vx_sim_remesh_stats(s)->count == remeshed && vx_sim_remesh_stats(s)->coarsenings == coarsened,
        "%s: %lld remeshings and %d coarsenings, one process %lld and %d", name, vx_sim_remesh_stats(s)->count,
        vx_sim_remesh_stats(s)->coarsenings, remeshed, coarsened);
  const int mine = vx_sim_n_elements(s);
  CHECK(c->size == 1 || (mine > 0 && mine < got.n_elem), "%s: rank %d holds %d of %d elements", name, c->rank, mine, got.n_elem);
  if (c->rank == 0)
    printf("%s, %d ranks: %d elements, %d steps, %lld remeshings, %d coarsenings, largest relative difference from one process "
           "%.2e (bound %.0e)\n",
           name, c->size, got.n_elem, STEPS, remeshed, coarsened, worst, TOL);
  vx_dsim_destroy(d);
  vx_sim_destroy(s);
  return 0;
}

/* The continuous dye release over the ranks: each rank seeds again those of its tracers whose places in the
 * whole flow the block due names, as one process seeds those rows. The thick rings with TRACERS tracers
 * living two tracer steps (each released about five times in STEPS steps), migrating at steps 10 and 30:
 * the tracers gathered (in their places) equal one process's row by row within TOL of R. */
#define DYE_TRACERS 400
static int compare_dye(const vx_comm *c) {
  char err[256] = "";
  vx_scene sc;
  CHECK(vx_scene_parse(THICK, "mpi_thick", &sc, err, sizeof err) == 0, "scene: %s", err);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.tracers = DYE_TRACERS, p.tracer_every = 4, p.remesh_every = 5, p.dye_release = 2.0 * 4 * p.dt;
  vx_sim *one = make_sim(&sc, p, err, sizeof err), *s = make_sim(&sc, p, err, sizeof err);
  CHECK(one && s, "the dye release: %s", err);
  vx_dsim *d = vx_dsim_create(c, s, err, sizeof err);
  CHECK(d, "the dye release: vx_dsim_create: %s", err);
  for (int k = 0; k < STEPS; k++) {
    if (k == 10 || k == 30) CHECK(vx_dsim_migrate(d, err, sizeof err) == 0, "the dye release, a migration: %s", err);
    CHECK(vx_sim_step(one, err, sizeof err) == 0 && vx_dsim_step(d, err, sizeof err) == 0, "the dye release, step %d: %s", k + 1, err);
  }
  const long long released = vx_sim_dye(one)->released;
  CHECK(released >= 3 * DYE_TRACERS && vx_sim_dye(s)->released == released, "releases: %lld in one process, %lld spread", released,
        vx_sim_dye(s)->released);
  double *ref = malloc(sizeof(double) * 3 * DYE_TRACERS);
  vx_dsim_flow f;
  CHECK(ref && vx_sim_get_tracers(one, ref, err, sizeof err) == 0 && vx_dsim_gather(d, 0, &f, err, sizeof err) == 0, "gather: %s", err);
  if (c->rank == 0) {
    CHECK(f.n_tracer == DYE_TRACERS, "gathered %d tracers, expected %d", f.n_tracer, DYE_TRACERS);
    double gap = 0.0;
    for (int i = 0; i < 3 * DYE_TRACERS; i++) gap = fmax(gap, fabs(ref[i] - f.pos[3 * (size_t)f.n + i]) / 0.25);
    CHECK(gap <= TOL, "the dye release: a tracer %.3g of R from its place's in one process (bound %.0e)", gap, TOL);
    printf("the dye release, %d ranks: %d tracers released %lld times in %d steps, each within %.2e of R of its place's in one "
           "process (bound %.0e)\n", c->size, DYE_TRACERS, released, STEPS, gap, TOL);
  }
  vx_dsim_flow_free(&f);
  free(ref);
  vx_dsim_destroy(d);
  vx_sim_destroy(s);
  vx_sim_destroy(one);
  return 0;
}

/* The largest distance from a tracer of a (na of them) to the nearest of b (nb), over `scale`. */
static double tracer_gap(const double *a, int na, const double *b, int nb, double scale) {
  double worst = 0.0;
  for (int i = 0; i < na; i++) {
    double best = HUGE_VAL;
    for (int j = 0; j < nb; j++) {
      const double dx = a[3 * i] - b[3 * j], dy = a[3 * i + 1] - b[3 * j + 1], dz = a[3 * i + 2] - b[3 * j + 2];
      best = fmin(best, dx * dx + dy * dy + dz * dz);
    }
    worst = fmax(worst, sqrt(best) / scale);
  }
  return worst;
}

/* Tracers over the ranks: the thick viscous rings, remeshed every 5 steps (the tracers stay through each
 * remeshing), with TRACERS tracers taking their own RK4 step over several element steps, migrating by the
 * interval and at steps 10 and 30, once within the tracers' step (its state going with them). After STEPS
 * steps and a few more, to a time within the tracers' step, the tracers gathered at rank 0 are the one
 * process's, each within TOL of the larger ring's radius of one of them (the gather changes their order),
 * and the elements' diagnostics equal; the gathered flow and its tracers' step (y0 and acc, as a
 * checkpoint holds them) continue in one process as the one process's run does, 3 more steps; and the
 * one process's flow spread there, within the tracers' step (a restart), continues alike. */
#define TRACERS 600
static int compare_tracers(const vx_comm *c) {
  char err[256] = "";
  vx_scene sc;
  CHECK(vx_scene_parse(THICK, "mpi_thick", &sc, err, sizeof err) == 0, "scene: %s", err);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.tracers = TRACERS, p.tracer_every = 4, p.remesh_every = 5;
  vx_sim *one = make_sim(&sc, p, err, sizeof err);
  CHECK(one && vx_sim_n_tracers(one) == TRACERS, "tracers, one process: %s", err);
  int steps = 0;
  while (steps < STEPS || (!vx_sim_tracer_step_open(one) && steps < STEPS + 4)) {
    steps++;
    CHECK(vx_sim_step(one, err, sizeof err) == 0, "tracers, one process, step %d: %s", steps, err);
  }
  CHECK(vx_sim_tracer_step_open(one), "the tracers' step is not under way after %d steps", steps);
  vx_diag ref, got;
  double *ref_t = malloc(sizeof(double) * 6 * TRACERS);
  CHECK(ref_t && vx_sim_get_tracers(one, ref_t, err, sizeof err) == 0, "tracers: %s", err);
  CHECK(vx_diag_compute(one, 1 << 20, &ref, err, sizeof err) == 0, "diag: %s", err);

  vx_sim *s = make_sim(&sc, p, err, sizeof err);
  CHECK(s, "tracers, spread: %s", err);
  vx_dsim *d = vx_dsim_create(c, s, err, sizeof err);
  CHECK(d, "tracers: vx_dsim_create: %s", err);
  int within = 0;
  for (int k = 0; k < steps; k++) {
    const int open = vx_sim_tracer_step_open(s);
    if (k == 10 || k == 30 || (open && !within)) {
      CHECK(vx_dsim_migrate(d, err, sizeof err) == 0, "tracers, a migration before step %d: %s", k + 1, err);
      within |= open;
    }
    if (open && k == 13)
      CHECK(vx_sim_set_particles(s, 0, 1, NULL, NULL, NULL, NULL, NULL, err, sizeof err) != 0 && strstr(err, "step's state"),
            "new tracers within their step without its state: '%s'", err);
    CHECK(vx_dsim_step(d, err, sizeof err) == 0, "tracers, spread, step %d: %s", k + 1, err);
  }
  CHECK(within, "no migration within the tracers' step");
  const int mine = vx_sim_n_tracers(s);
  CHECK(c->size == 1 || (mine > 0 && mine < TRACERS), "rank %d holds %d of %d tracers", c->rank, mine, TRACERS);
  CHECK(vx_diag_compute(s, 1 << 20, &got, err, sizeof err) == 0, "spread diag: %s", err);
  const double de = row_diff(&got, &ref);
  vx_sim_state st;
  vx_dsim_flow f;
  CHECK(vx_sim_export_state(s, &st, err, sizeof err) == 0 && vx_dsim_gather(d, 0, &f, err, sizeof err) == 0, "gather: %s", err);
  double gap = 0.0, gap3 = 0.0;
  if (c->rank == 0) {
    CHECK(f.n == ref.n_elem && f.n_tracer == TRACERS && f.tr_y0 && f.tr_acc,
          "gathered %d elements and %d tracers (the step's state %s), expected %d and %d", f.n, f.n_tracer,
          f.tr_y0 ? "given" : "missing", ref.n_elem, TRACERS);
    gap = tracer_gap(ref_t, TRACERS, f.pos + 3 * (size_t)f.n, f.n_tracer, 0.25);
    CHECK(gap <= TOL && de <= TOL, "tracers: the farthest from its twin %.3g of R, the diagnostics %.3g (bound %.0e)", gap, de, TOL);
    st.tr_y0 = f.tr_y0, st.tr_acc = f.tr_acc;
    vx_sim *whole = vx_sim_create_from_state(vx_sim_params_get(s), &st, f.n, f.n_tracer, f.pos, f.alpha, f.ring, err, sizeof err);
    CHECK(whole, "the gathered flow: %s", err);
    for (int k = 0; k < 3; k++)
      CHECK(vx_sim_step(one, err, sizeof err) == 0 && vx_sim_step(whole, err, sizeof err) == 0, "3 more steps: %s", err);
    CHECK(vx_sim_get_tracers(one, ref_t, err, sizeof err) == 0 && vx_sim_get_tracers(whole, ref_t + 3 * TRACERS, err, sizeof err) == 0,
          "tracers: %s", err);
    gap3 = tracer_gap(ref_t, TRACERS, ref_t + 3 * TRACERS, TRACERS, 0.25);
    CHECK(gap3 <= TOL, "the gathered flow 3 steps on: the farthest tracer from its twin %.3g of R (bound %.0e)", gap3, TOL);
    vx_sim_destroy(whole);
  }
  vx_dsim_flow_free(&f);
  vx_dsim_destroy(d);
  vx_sim_destroy(s);

  /* the one process's flow spread within the tracers' step, as a restart from a checkpoint made there */
  vx_sim *s2 = make_sim(&sc, p, err, sizeof err);
  CHECK(s2, "tracers, restart: %s", err);
  for (int k = 0; k < steps; k++) CHECK(vx_sim_step(s2, err, sizeof err) == 0, "tracers, restart, step %d: %s", k + 1, err);
  vx_dsim *d2 = vx_dsim_create(c, s2, err, sizeof err);
  CHECK(d2 && vx_sim_tracer_step_open(s2), "tracers: spread within their step: %s", err);
  for (int k = 0; k < 3; k++) CHECK(vx_dsim_step(d2, err, sizeof err) == 0, "tracers, restarted spread, step %d: %s", k + 1, err);
  CHECK(vx_dsim_gather(d2, 0, &f, err, sizeof err) == 0, "gather: %s", err);
  if (c->rank == 0) {
    const double gap_r = tracer_gap(ref_t, TRACERS, f.pos + 3 * (size_t)f.n, f.n_tracer, 0.25);
    CHECK(f.n_tracer == TRACERS && gap_r <= TOL, "spread within the tracers' step, 3 steps on: %d tracers, the farthest from its twin "
          "%.3g of R (bound %.0e)", f.n_tracer, gap_r, TOL);
    printf("tracers, %d ranks: %d tracers in steps of up to 4, %d steps remeshed every 5: the farthest from its twin in one process "
           "%.2e of R, the diagnostics %.2e; gathered within their step and continued 3 steps %.2e; spread there and continued "
           "%.2e (bound %.0e)\n",
           c->size, TRACERS, steps, gap, de, gap3, gap_r, TOL);
  }
  vx_dsim_flow_free(&f);
  vx_dsim_destroy(d2);
  vx_sim_destroy(s2);
  vx_sim_destroy(one);
  free(ref_t);
  return 0;
}

/* The scenes compared (the leapfrog also by direct summation over the ranks), the tracers, the dye release. */
static int sim_checks(const vx_comm *c) {
  return compare(c, SCENE, "leapfrog", 0, VX_CONSERVE_RING, 0.0, 0) ||
         compare(c, SCENE, "leapfrog, direct summation", 0, VX_CONSERVE_RING, 0.0, 1) ||
         compare(c, THICK, "thick viscous rings, remeshed", 5, VX_CONSERVE_FULL, 0.0, 0) ||
         compare(c, WIDE, "wide viscous rings, the lattice coarsening", 5, VX_CONSERVE_FULL, 0.5, 0) || compare_tracers(c) ||
         compare_dye(c);
}

#endif
