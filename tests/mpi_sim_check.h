/* mpi_sim_check.h — tests only: one simulation over the ranks (dist/dsim.h) against the same run in one
 * process, the checks mpi_test_sim (the CPU backend) and mpi_test_sim_gpu (the CUDA one) share: two
 * scenes' diagnostics compared every 10 of 40 steps, and a simulation the ranks cannot spread refused.
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
  p.backend = sim_backend, p.precision = VX_DOUBLE, p.tracers = 0;
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
static int compare(const vx_comm *c, const char *text, const char *name, int remesh_every, int conserve, double coarsen) {
  char err[256] = "";
  vx_scene sc;
  CHECK(vx_scene_parse(text, name, &sc, err, sizeof err) == 0, "%s: %s", name, err);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
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

/* A simulation the ranks cannot spread yet is refused on every rank with the reason. */
static int refused(const vx_comm *c) {
  char err[256] = "";
  vx_scene sc;
  CHECK(vx_scene_parse(THICK, "mpi_thick", &sc, err, sizeof err) == 0, "scene: %s", err);
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.direct = 1;
  vx_sim *r = make_sim(&sc, p, err, sizeof err);
  CHECK(r, "direct: %s", err);
  vx_dsim *d = vx_dsim_create(c, r, err, sizeof err);
  CHECK(!d && strstr(err, "direct summation"), "direct summation: '%s'", d ? "accepted" : err);
  vx_sim_destroy(r);
  return 0;
}

/* Both scenes compared, then the refusal. */
static int sim_checks(const vx_comm *c) {
  return compare(c, SCENE, "leapfrog", 0, VX_CONSERVE_RING, 0.0) ||
         compare(c, THICK, "thick viscous rings, remeshed", 5, VX_CONSERVE_FULL, 0.0) ||
         compare(c, WIDE, "wide viscous rings, the lattice coarsening", 5, VX_CONSERVE_FULL, 0.5) || refused(c);
}

#endif
