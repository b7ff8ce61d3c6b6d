/* dsim.h — one simulation over the ranks of a communicator (Yokota & Barba, paper 002: the vortex
 * method's dynamics on a distributed FMM). Each rank's vx_sim holds the elements of its range of the
 * space-filling curve (partition.h); every VX_DSIM_MIGRATE_EVERY steps they migrate to the rank that
 * owns their key (the ranges balance the count), the step's stages evaluate on the distributed engine
 * (engine.h: the halo follows each rank's elements as the stages move them), and the health check,
 * the energy watch, the conservative correction and the diagnostics reduce over the ranks (sim.h,
 * vx_sim_coll), a remeshing's nodes merged at the ranks that own them: the run equals one process's
 * to round-off (docs/MATH.md §18). What the simulation does not spread yet it
 * refuses (vx_sim_set_coll). All calls are collective; 0, or -1 with the reason on every rank. */
#ifndef VX_DSIM_H
#define VX_DSIM_H

#include "engine.h"
#include "sim.h"

typedef struct vx_dsim vx_dsim;

/* Spread s over c's ranks: s holds every element on every rank (each built from the same scene and
 * parameters); each keeps its share. The caller keeps s and destroys it after vx_dsim_destroy. */
vx_dsim *vx_dsim_create(const vx_comm *c, vx_sim *s, char *err, size_t errlen);
void vx_dsim_destroy(vx_dsim *d);

/* The elements to the ranks that own their keys (a new partition of the present positions). */
int vx_dsim_migrate(vx_dsim *d, char *err, size_t errlen);
/* Every rank added the same elements to s, from element `first` on (a launched ring: launch.h): each
 * keeps its share of them, and they go to the ranks that own their keys with the others. */
int vx_dsim_added(vx_dsim *d, int first, char *err, size_t errlen);
/* Steps between two migrations: the halo serves elements wherever the steps move them (engine.h), so
 * a migration only keeps the ranks' spans apart and the halo small; elements move a fraction of a
 * cell a step, and a migration moves every element through the host. For a large flow on two GPUs a
 * migration costs about a step, and the steps do not slow within 50 steps of one
 * (docs/BENCHMARKS.md, "Several GPUs"). */
#define VX_DSIM_MIGRATE_EVERY 25
/* One time step, after a migration when VX_DSIM_MIGRATE_EVERY steps have passed since the last one
 * (vx_sim_step's return: VX_SIM_BLOWUP on every rank alike). */
int vx_dsim_step(vx_dsim *d, char *err, size_t errlen);
/* This rank's time in the distributed engine and the migrations so far: each phase summed over the
 * evaluations (eval: vx_dist_stats' ms and halo sources, summed; its levels the last evaluation's), the
 * evaluations' wall ms in all, and the migrations'. */
typedef struct {
  vx_dist_stats eval;
  double t_eval, t_migrate;
  long long n_eval, n_migrate;
} vx_dsim_stats;
vx_dsim_stats vx_dsim_get_stats(const vx_dsim *d);
/* Every rank's elements at rank root (host doubles, malloc'ed, rank 0's first; *n of them), as a
 * checkpoint of the whole flow needs them; NULL and 0 elsewhere. */
int vx_dsim_gather(vx_dsim *d, int root, double **pos, double **alpha, int **ring, int *n, char *err, size_t errlen);

#endif
