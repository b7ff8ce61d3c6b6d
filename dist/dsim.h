/* dsim.h — one simulation over the ranks of a communicator (Yokota & Barba, paper 002: the vortex
 * method's dynamics on a distributed FMM). Each rank's vx_sim holds the elements of its range of the
 * space-filling curve (partition.h), and the tracers of theirs; every VX_DSIM_MIGRATE_EVERY steps they
 * migrate to the rank that owns their key (the ranges balance each kind's count; a tracer within its own
 * RK4 step takes the step's state with it), the step's stages evaluate on the distributed engine (engine.h: the halo follows each
 * rank's targets as the stages move them; the tracers' calls on an engine of their own), and the health check,
 * the energy watch, the conservative correction and the diagnostics reduce over the ranks (sim.h,
 * vx_sim_coll), a remeshing's nodes merged at the ranks that own them: the run equals one process's
 * to round-off (docs/MATH.md §18). All calls are collective; 0, or -1 with the reason on every rank. */
#ifndef VX_DSIM_H
#define VX_DSIM_H

#include "engine.h"
#include "sim.h"

typedef struct vx_dsim vx_dsim;

/* Spread s over c's ranks: s holds every element and tracer on every rank (each built from the same scene
 * and parameters, or the same checkpoint); each keeps its share. The caller keeps s and destroys
 * it after vx_dsim_destroy. */
vx_dsim *vx_dsim_create(const vx_comm *c, vx_sim *s, char *err, size_t errlen);
void vx_dsim_destroy(vx_dsim *d);

/* The elements and tracers to the ranks that own their keys (a new partition of the present positions). */
int vx_dsim_migrate(vx_dsim *d, char *err, size_t errlen);
/* Every rank added the same particles to s, elements from `first` on and tracers from `first_t` on (a
 * launched ring: launch.h): each keeps its share of them, and they go to the ranks that own their keys
 * with the others. */
int vx_dsim_added(vx_dsim *d, int first, int first_t, char *err, size_t errlen);
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
/* The whole flow as one process holds it: every rank's elements, rank 0's first, and the tracers in their
 * places in the whole flow (vx_dsim_tracer_ids). */
typedef struct {
  double *pos;            /* 3(n + n_tracer): the elements', then the tracers' */
  double *alpha;          /* 3n */
  int *ring;              /* n */
  double *tr_y0, *tr_acc; /* the tracers' step's y0 and acc (3 n_tracer each) while it is under way, else NULL */
  int n, n_tracer;
} vx_dsim_flow;
/* Every rank's particles at rank root (malloc'ed; nothing elsewhere), as a checkpoint of the whole flow
 * needs them (dsim_gather.c). Collective. 0, or -1 with err on every rank. */
int vx_dsim_gather(vx_dsim *d, int root, vx_dsim_flow *f, char *err, size_t errlen);
void vx_dsim_flow_free(vx_dsim_flow *f);
/* The communicator and the simulation d spreads. */
const vx_comm *vx_dsim_comm(const vx_dsim *d);
vx_sim *vx_dsim_sim(const vx_dsim *d);
/* This rank's tracers' places in the whole flow, in its order (vx_sim_n_tracers of them, whole numbers
 * held as doubles): the order one process would hold them in, the scene's tracers first, then each
 * launched ring's. A picture drawn over the ranks draws the tracers one process would (render.h,
 * rd_particles.draw) and colours them by ring. */
const double *vx_dsim_tracer_ids(const vx_dsim *d);
/* How many times the particles were handed out (a migration, a launched ring): the ranks' particles and
 * their order changed when it did. */
long long vx_dsim_layout(const vx_dsim *d);

#endif
