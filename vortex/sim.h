/* sim.h — public API of the vortex module: a vortex-particle simulation (elements carrying a
 * vector strength α, plus passive tracers) advanced in time by Euler, Heun (RK2) or classical RK4,
 * with velocities and velocity gradients from the fmm engine (fmm.h), FMM or direct summation.
 *
 *   dx/dt = u(x)   for elements and tracers;   dα/dt = (α·∇)u  or  (∇u)ᵀα   for elements
 *
 * State lives in backend memory: host arrays on the cpu backend, device arrays on the cuda
 * backend (allocated once, grown only when counts grow; a step makes no host↔device copy of
 * particle arrays, but for the few tracers a continuous dye release seeds again, vx_dye_state).
 * Each stage is ONE engine call: targets = [elements, tracers] (one contiguous array, elements
 * first), sources = the elements. The getters copy state to the host on demand, for diagnostics and
 * tests.
 *
 *   vx_sim *s = vx_sim_create(&prm, &scene, err, sizeof err);
 *   for (...) { if (vx_sim_step(s, err, sizeof err)) ...; }
 *   vx_sim_destroy(s); */
#ifndef VX_SIM_H
#define VX_SIM_H

#include <stddef.h>
#include "fmm.h"
#include "scene.h"

VX_EXTERN_C_BEGIN

typedef struct {
  vx_backend backend;
  vx_precision precision;
  int order;              /* FMM expansion order */
  int leaf_size;
  int min_leaves;         /* fmm_params.min_leaves (0: the backend's parallel width) */
  int level_rule;         /* fmm_params.level_rule (0: the backend's, fmm_level_rule) */
  double keep_move;       /* fmm_params.keep_move, for a step's later stages on its first stage's octree
                             (0: the backend's, fmm_keep_move; < 0: never); like min_leaves, not in
                             checkpoints, and each step builds its first tree, so a restart is exact */
  vx_kernel kernel;
  double sigma;           /* > 0: core radius; 0: the scene's choice (vx_scene_sigma) */
  double dt;
  vx_integrator integrator;
  vx_stretching stretching;
  int direct;             /* 1: fmm_direct (O(N²) reference) instead of fmm_evaluate */
  int fmm_only;           /* 1: the FMM in every fmm_evaluate call, never the direct sum the engine may put
                             in its place where its cost model says that pays (fmm_params.allow_direct);
                             the tests that compare the two backends' FMMs set it. Not in checkpoints */
  long long tracers;      /* >= 0: total tracer count overriding the scene's; -1: the scene's */
  int verbose;            /* notices on stderr */
  /* long-run control (docs/MATH.md §9): all off when zero */
  double relax;           /* Pedrizzetti relaxation factor f in [0, 1]; 0: off */
  int relax_every;        /* steps between relaxations (>= 1 when relax > 0) */
  int remesh_every;       /* steps between remeshings onto the lattice; 0: off */
  double remesh_h;        /* lattice spacing h; 0: σ */
  double remesh_origin[3]; /* a node of the lattice (vx_sim_params_from_scene: vx_scene_remesh_origin) */
  double remesh_drop;     /* after remeshing, nodes with |α| < drop·max|α| are dropped (0..0.1; max|α|
                             of the start, after the initial remeshing) */
  double remesh_coarsen;  /* > 0: the lattice follows the field (coarsen.h): h and σ double once the
                             field's scale on the lattice is this many spacings of the doubled lattice,
                             and the drop threshold is relative to the present max|α|; 0: off */
  double viscosity;       /* kinematic viscosity ν >= 0, applied at each remeshing; with remeshing off,
                             by core spreading (spread) */
  double spread;          /* > 0: with remeshing off, viscosity spreads the cores: after each step σ² grows
                             by spread·ν·dt (vortex filaments: 4/e, numerics.h VX_NUM_FIL_SPREAD); 0: none */
  int conserve;           /* the correction after each relaxation and drop threshold (conserve.h,
                             vx_conserve_mode): 0 off, 1 axial restores the impulse along its direction,
                             2 full restores W = Σα and I = ½Σx×α, 3 ring restores each ring's impulse
                             along its own direction after a relaxation (no remeshing) */
  double lcfl;            /* > 0: a step of dt is split into equal substeps so that each keeps
                             dt_sub·max|∇u| <= lcfl (at most VX_SIM_MAX_SUBSTEPS); 0: one step is one dt */
  int tracer_every;       /* 2 or 4: the tracers take one classical RK4 step of up to that many element
                             steps (substeps; fewer where VX_SIM_TRACER_LCFL says), their four
                             evaluations riding in the elements' first and last calls, the elements'
                             other calls without them (docs/MATH.md §15); 0 or 1: they ride in every
                             call of the elements' scheme. Euler: always every call */
  double dye_release;     /* > 0: a continuous release of the dye, each of the scene's tracers living about
                             this long (time units) before it is seeded again where its ring started
                             (vx_dye_state); 0: off, the tracers seeded once. At least one tracer step
                             (vx_dye_release_check) */
} vx_sim_params;

/* The continuous dye release (vx_sim_params.dye_release = T): where the scene's tracers are seeded
 * again, and how far the release has gone. At the end of each completed tracer step of span H (never
 * inside one, so its RK4 state stays whole) the next vx_dye_block(N, H, T) of the sources' N tracers
 * are released in turn: the k-th release (k = 0, 1, 2, ...) puts tracer q = k mod N back at
 * vx_tracer_redraw(its source, seed, q, k div N + 1), around its ring's starting centreline with the
 * seeding's spread, in its ring's block of rows (so its ring colour stays). Tracers of rings launched
 * since (after the N) are left alone. The schedule depends on nothing but the spans of the tracer
 * steps taken and `released`, which a checkpoint keeps. */
typedef struct {
  uint64_t seed;            /* the scene's tracer seed */
  int n_rings;              /* sources; 0: nothing to release (a simulation built from bare particles) */
  vx_tracer_source ring[VX_SCENE_MAX_RINGS];
  long long released;       /* releases so far */
} vx_dye_state;

/* The tracers released at the end of a tracer step of span H (time units) with lifetime T: ⌈N·H/T⌉,
 * at most N; 0 when T, N or H is not positive. */
long long vx_dye_block(long long n, double span, double lifetime);
/* The sources' tracers N (rows 0 .. N-1 of the tracer block). */
int vx_dye_tracers(const vx_dye_state *d);

/* A tracer step of tracer_every element steps spans fewer (halved) while its H·max|∇u| would pass
 * this: the tracers' RK4 on a core's rotation rate Ω <= max|∇u|/√2 then turns them by at most 0.5 rad
 * a step, its phase error below Ω·0.5⁴/120 rad a unit of time (docs/MATH.md §15). */
#define VX_SIM_TRACER_LCFL 0.7
/* The most substeps one step is split into (a flow that needs more is left to blow up). */
#define VX_SIM_MAX_SUBSTEPS 64

/* Parameters as the scene file says (backend, precision, order, kernel, σ, dt, integrator...). */
vx_sim_params vx_sim_params_from_scene(const vx_scene *scene);

/* Wall-clock milliseconds of the last step, summed over its stages. */
typedef struct {
  double t_step;          /* whole step, measured on the host (includes waiting for the device) */
  double t_tree, t_far, t_near, t_eval; /* engine: tree build; P2M..L2P; P2P; engine total */
  double t_integrate;     /* t_step - t_eval - t_remesh: stage updates and bookkeeping */
  double t_remesh;        /* remeshing after the step (0 when none was due) */
  int evaluations;        /* engine calls in the step */
  int substeps;           /* substeps the step was split into (vx_sim_params.lcfl) */
  int tracer_span;        /* element steps the tracers' step spans (vx_sim_params.tracer_every; 1: every call) */
  int levels;             /* octree levels of the last call */
  fmm_stats engine;       /* the engine's phase times and counts, summed over the step's calls
                             (levels and leaves: the last call's) */
} vx_step_stats;

typedef struct vx_sim vx_sim;

/* vx_sim_step's return when the state blew up (err names the step, time and cause). */
#define VX_SIM_BLOWUP 3
/* The blow-up rule (one home, batch and window alike), any of:
 * - a non-finite position or strength;
 * - max|α| above VX_SIM_BLOWUP_FACTOR times its value at the start (after the initial remeshing,
 *   if any): no shipped scene comes near it (the collisions' strengths fall, the rings' stay
 *   within 1.1x of it; docs/VALIDATION.md, "Blow-up detection and bad input");
 * - a runaway that stays finite: the kinetic energy more than VX_SIM_ENERGY_RISE of its reference
 *   above its lowest value since then. An unforced flow cannot gain energy (dE/dt = -ν∫|ω|² <= 0);
 *   runaways that stay finite pass 5 % before their strengths run away (docs/VALIDATION.md,
 *   "Blow-up detection and bad input"). The energy is the kernel energy E_σ (diag.h) wherever one
 *   sum takes it (vx_sim_kernel_energy): the energy of the smoothed field the particles carry, which
 *   their dynamics keep. Elsewhere it is the particle form, which healthy runs swing by up to 4.5 %
 *   and which, where σ is wider than the cores the particles sit in, rises tens of per cent a time
 *   unit while E_σ holds. */
#define VX_SIM_BLOWUP_FACTOR 20.0
#define VX_SIM_ENERGY_RISE 0.05
/* The most elements whose kernel energy one sum takes: n²/2 pairs on the host's cores (about 1 s at
 * 8192 on one core of a 2-core EPYC), or on the device in double. */
#define VX_SIM_KERNEL_ENERGY_N_HOST 8192
#define VX_SIM_KERNEL_ENERGY_N_DEVICE 131072
/* The energy is measured (the kernel energy's sum, or one engine call over the elements) after the first step
 * at least this much simulated time after the last measurement; its reference is the first
 * measurement after the start, a restored checkpoint, a change of σ or kernel, a ring added
 * or removed, or a change between the two energies. */
#define VX_SIM_ENERGY_EVERY 0.05
/* Above this Lagrangian CFL number, dt·max|∇u|, particles overtake each other within a step and
 * the run is expected to blow up (docs/MATH.md §9); vx_sim_dt_advice warns. */
#define VX_SIM_LCFL_MAX 1.0

/* State of health of the current state (vx_sim_health). */
typedef struct {
  double max_alpha;       /* max |α| over the elements */
  double alpha0;          /* its reference: the value at the start */
  double max_gradu;       /* max |∇u| (Frobenius) over the elements, from the last evaluation */
  double lcfl;            /* dt·max_gradu */
  double energy;          /* the watch's energy at the last measurement (NaN before the first; the blow-up rule) */
  double energy0;         /* its reference (NaN before the first measurement) */
  double energy_min;      /* the lowest measured since the reference */
  int nonfinite;          /* a position or strength is NaN or Inf */
  int blown_up;           /* the blow-up rule holds */
} vx_health;

/* One engine call as vx_sim_watch_next_eval hands it over: the state it was made at and what the
 * engine made of it, in backend memory (device pointers on cuda), in the run's precision. */
typedef struct {
  int n_elem, n_tot;        /* sources: the elements; targets: [elements, tracers] */
  int on_device;
  vx_precision precision;
  vx_kernel kernel;
  double sigma;
  const void *pos;          /* 3*n_tot */
  const void *alpha;        /* 3*n_elem */
  const void *vel;          /* 3*n_tot */
  const void *grad;         /* 9*n_elem (elements only); NULL when not computed (no stretching) */
  long long step;           /* steps done at that state */
  double t;                 /* its simulated time */
} vx_sim_eval;
/* Called with an engine call's values; must copy what it keeps. 0, or -1 with err (fails the step). */
typedef int (*vx_sim_eval_fn)(void *user, const vx_sim_eval *e, char *err, size_t errlen);

/* Remeshing statistics (vx_sim_remesh_stats). */
typedef struct {
  long long count;        /* remeshings so far (the initial one included) */
  int n_before, n_nodes, n_after; /* of the last one: elements in, lattice nodes reached, kept */
  double c2;              /* its diffusion number νΔt/h² */
  double h;               /* lattice spacing in use */
  double ms;              /* its wall time */
  int coarsenings;        /* times the lattice doubled (vx_sim_params.remesh_coarsen) */
  double scale;           /* the field's scale (coarsen.h) that called for the last doubling (0: none yet) */
} vx_remesh_stats;

/* What the conservative correction (conserve.h) has put back so far. */
typedef struct {
  long long relaxations;  /* relaxation passes so far */
  double di_relax;        /* Σ over relaxations of |ΔI| each made (and the correction undid), of max(|I0|, ½Σ|α|L) */
  double di_drop;         /* the same over the remeshings' drop thresholds */
} vx_conserve_stats;

/* Build the particles of the scene and the engine. NULL and a one-line reason on failure. */
vx_sim *vx_sim_create(const vx_sim_params *prm, const vx_scene *scene, char *err, size_t errlen);
/* Start from given particles instead of a scene's (host arrays in double, copied; ring may be
 * NULL: every element in ring 0). prm->sigma must be > 0. */
vx_sim *vx_sim_create_from(const vx_sim_params *prm, int n_elem, int n_tracer, const double *pos, const double *alpha,
                           const int *ring, char *err, size_t errlen);
void vx_sim_destroy(vx_sim *s);

/* What a step depends on beyond the parameters and the particles: with it (and them)
 * vx_sim_create_from_state continues a run bit for bit (vortex/checkpoint.h saves it to a file). */
typedef struct {
  double t;                 /* simulated time */
  long long steps;          /* steps done (relaxation and remeshing are due by it) */
  int n_rings;
  double since_remesh;      /* simulated time since the last remeshing: the diffusion it owes */
  int steps_since_remesh;
  double amax0;             /* max|α| of the start: the blow-up rule's and the drop threshold's reference */
  double max_gradu;         /* max|∇u| last measured: the next step's substep count */
  vx_remesh_stats remesh;   /* count > 0 makes the drop threshold absolute */
  /* the tracers' step under way (vx_sim_params.tracer_every; none when tr_steps = 0): its span m,
   * element steps and tracer stages done, element step size */
  int tr_m, tr_steps, tr_stage;
  double tr_h;
  const double *tr_y0, *tr_acc; /* its tracers' y0 and acc (host, 3*n_tracer each) for
                                   vx_sim_create_from_state when tr_steps > 0; vx_sim_export_state
                                   leaves them NULL (vx_sim_tracer_step copies them out) */
  vx_dye_state dye;         /* the continuous release's sources and count (n_rings 0: none) */
} vx_sim_state;

/* The counters of the current state (max|∇u| measured first, as vx_sim_check does). 0, or -1 with err. */
int vx_sim_export_state(vx_sim *s, vx_sim_state *st, char *err, size_t errlen);
/* The tracer step under way's y0 and acc (3*n_tracer host doubles each; state.tr_steps > 0). */
int vx_sim_tracer_step(vx_sim *s, double *y0, double *acc, char *err, size_t errlen);
/* A simulation at a saved state: the particles as vx_sim_create_from takes them, the counters from
 * st; no initial remeshing and no new blow-up reference. prm->sigma must be > 0. */
vx_sim *vx_sim_create_from_state(const vx_sim_params *prm, const vx_sim_state *st, int n_elem, int n_tracer,
                                 const double *pos, const double *alpha, const int *ring, char *err, size_t errlen);

/* Rings added to a running simulation (vortex/launch.h builds them from a camera; the panel's
 * "Launch" and the L key, the batch's --launch-ring): the arrays grow, elements before tracers as
 * always, so the tracer block moves up; the engine's tree follows at the next evaluation. */
typedef struct {
  int ring;               /* its ring index (vx_sim_rings) */
  int n_tracer;           /* tracers it appended: the last ones of the tracer block while it is the newest */
} vx_sim_added;

/* The most rings a simulation holds (scene rings and added ones). */
#define VX_SIM_MAX_RINGS 256

/* Append a ring: n_elem > 0 elements after the present ones (pos, alpha: host doubles, 3*n_elem
 * each), stored in backend memory in the run's precision, and tq->count tracers (tq NULL: none) after
 * the present ones, seeded from source tq and stream st where they are kept (scene.h,
 * vx_ring_tracers_draw; on cuda drawn on the device, vx_gpu_ring_tracers: nothing that size crosses
 * to the device). The old blocks move within backend memory. Its elements get ring index
 * vx_sim_n_rings(), which grows by one; it goes on top of the stack vx_sim_remove_ring pops. The
 * energy watch takes its new reference at the end of the second step after. 0, or -1 with err (bad
 * counts, too many rings, out of memory: the state is unchanged). */
int vx_sim_add_ring(vx_sim *s, int n_elem, const double *pos, const double *alpha, const vx_tracer_source *tq, uint64_t st,
                    char *err, size_t errlen);
/* Remove the newest added ring: every element whose ring index is its index (after a remeshing:
 * the lattice nodes whose largest contribution came from it, remesh.h) and the tracers it added.
 * 0; 1 when no added ring is left (nothing changes); -1 with err. */
int vx_sim_remove_ring(vx_sim *s, char *err, size_t errlen);
/* The added rings, oldest first; *n how many. Not saved in checkpoints (vortex/checkpoint.h): a
 * restarted run keeps the particles and ring indices of its added rings but cannot remove them. */
const vx_sim_added *vx_sim_added_rings(const vx_sim *s, int *n);
/* Give a simulation built around another's particles (an engine rebuild) that one's added rings.
 * 0, or -1 with err (an entry that does not fit the particles). */
int vx_sim_set_added_rings(vx_sim *s, const vx_sim_added *a, int n, char *err, size_t errlen);

/* Advance one time step of dt, in substeps when the flow's strain asks for them (params.lcfl),
 * relaxing the strengths first and remeshing after it when due. 0; -1 with
 * err on an engine failure; VX_SIM_BLOWUP with err when the state became non-finite during the step. */
int vx_sim_step(vx_sim *s, char *err, size_t errlen);
/* Hand the next step's first engine call (the state at the step's start) to fn, once, right after
 * the call and before the stage changes the state (the live accuracy readout, vortex/accuracy.h).
 * fn NULL: disarm. */
void vx_sim_watch_next_eval(vx_sim *s, vx_sim_eval_fn fn, void *user);
/* Remesh now (whether or not remeshing is on, with the current h, ν and drop). 0, or -1 with err. */
int vx_sim_remesh(vx_sim *s, char *err, size_t errlen);

/* Setters: take effect at the next step. 0, or -1 with err (bad value; the setting is unchanged). */
int vx_sim_set_dt(vx_sim *s, double dt, char *err, size_t errlen);
/* tracer_every (1, 2 or 4; vx_sim_params): from the next step; a tracer step under way ends there. */
int vx_sim_set_tracer_every(vx_sim *s, int m, char *err, size_t errlen);
int vx_sim_set_integrator(vx_sim *s, vx_integrator integ, char *err, size_t errlen);
int vx_sim_set_stretching(vx_sim *s, vx_stretching st, char *err, size_t errlen);
int vx_sim_set_kernel(vx_sim *s, vx_kernel k, char *err, size_t errlen);
int vx_sim_set_sigma(vx_sim *s, double sigma, char *err, size_t errlen);
int vx_sim_set_order(vx_sim *s, int order, char *err, size_t errlen);
int vx_sim_set_direct(vx_sim *s, int direct);
/* Relaxation factor (0..1) and interval (>= 1). */
int vx_sim_set_relax(vx_sim *s, double f, int every, char *err, size_t errlen);
/* Remeshing interval (0: off), spacing (0: σ), drop threshold (0..0.1). */
int vx_sim_set_remesh(vx_sim *s, int every, double h, double drop, char *err, size_t errlen);
int vx_sim_set_coarsen(vx_sim *s, double ratio, char *err, size_t errlen); /* remesh_coarsen; 0: a fixed lattice */
/* Substep target dt_sub·max|∇u| <= lcfl (0: off, one step per dt). */
int vx_sim_set_lcfl(vx_sim *s, double lcfl, char *err, size_t errlen);
/* Viscosity ν >= 0 (> 0 needs remeshing on). */
int vx_sim_set_viscosity(vx_sim *s, double nu, char *err, size_t errlen);
/* The dye's lifetime T (vx_sim_params.dye_release; 0: stop releasing): from the end of the tracer step
 * under way; the round of releases goes on where it stands. */
int vx_sim_set_dye_release(vx_sim *s, double T, char *err, size_t errlen);
/* The release's sources and count (vx_dye_state): those of the scene for vx_sim_create, none for
 * vx_sim_create_from, the saved ones for vx_sim_create_from_state. */
const vx_dye_state *vx_sim_dye(const vx_sim *s);
/* Give a simulation built around another's particles (an engine rebuild) that one's release. 0, or -1
 * with err (sources that do not fit the tracers). */
int vx_sim_set_dye(vx_sim *s, const vx_dye_state *d, char *err, size_t errlen);
/* Check a set of parameters without applying them (the rules the setters apply). 0, or -1 with err. */
int vx_sim_params_check(const vx_sim_params *p, char *err, size_t errlen);

/* Getters. */
const vx_sim_params *vx_sim_params_get(const vx_sim *s);   /* the resolved ones (backend, σ) */
int vx_sim_n_elements(const vx_sim *s);
int vx_sim_n_tracers(const vx_sim *s);
int vx_sim_n_rings(const vx_sim *s);
vx_conserve_stats vx_sim_conserve_stats(const vx_sim *s);
const int *vx_sim_rings(const vx_sim *s);                  /* host, n_elements: ring of each element */
double vx_sim_time(const vx_sim *s);
long long vx_sim_steps_done(const vx_sim *s);
const vx_step_stats *vx_sim_last_stats(const vx_sim *s);
/* Copy state to the host in double (either pointer may be NULL): element positions (3*n_elem),
 * strengths (3*n_elem), tracer positions (3*n_tracer). 0, or -1 with err. */
int vx_sim_get_elements(vx_sim *s, double *pos, double *alpha, char *err, size_t errlen);
int vx_sim_get_tracers(vx_sim *s, double *pos, char *err, size_t errlen);
/* Velocity at the elements for the current state (one extra engine call, elements only, no
 * gradient), copied to the host in double (3*n_elem). For diagnostics. */
int vx_sim_element_velocity(vx_sim *s, double *vel, char *err, size_t errlen);
/* The same at every particle, elements then tracers (3*(n_elem + n_tracer)). For exports. */
int vx_sim_point_velocity(vx_sim *s, double *vel, char *err, size_t errlen);
/* The kernel energy E_σ (diag.h) of the current state, summed on the backend: NaN where it is not
 * taken — a kernel without a stream function, a flow spread over processes, or more elements than
 * VX_SIM_KERNEL_ENERGY_N_HOST (CPU) or _DEVICE (CUDA). 0, or -1 with err. */
int vx_sim_kernel_energy(vx_sim *s, double *e, char *err, size_t errlen);
/* Blow-up check on the backend (a reduction; only three scalars come back): the largest |α| and
 * whether any position or strength is NaN or Inf. 0, or -1 with err. */
int vx_sim_check(vx_sim *s, double *max_alpha, int *nonfinite, char *err, size_t errlen);
/* The same reduction, judged by the blow-up rule: 0 healthy; VX_SIM_BLOWUP with a one-line cause in
 * err (naming the step and time); -1 with err on failure. */
int vx_sim_health(vx_sim *s, vx_health *h, char *err, size_t errlen);
/* Predict whether time step dt is stable for the current flow: 0 when dt·max|∇u| <= VX_SIM_LCFL_MAX,
 * or with substeps on (lcfl > 0) when at most VX_SIM_MAX_SUBSTEPS of them suffice (and, with ν > 0,
 * the diffusion limit holds); else 1 with a one-line warning in msg that names the
 * largest advisable dt. Uses the last evaluation's gradient (a reduction). -1 with msg on failure. */
int vx_sim_dt_advice(vx_sim *s, double dt, char *msg, size_t msglen);
/* The largest time step the method's rules (numerics.h) allow the current flow stepped by integrator
 * it: vx_numerics_dt_omega_max(it) core turnovers, the peak vorticity taken as √2·max|∇u| of the last evaluation (a smoothed core's
 * centre turns as a solid body), and with ν > 0 the diffusion limit of one remeshing kernel per
 * step; 0 when nothing limits it yet (no evaluation, inviscid). The window adjusts a larger dt to it.
 * 0, or -1 with err. */
int vx_sim_dt_limit(vx_sim *s, vx_integrator it, double *dt_max, char *err, size_t errlen);
/* The relaxation factor and remeshing interval that keep their rates in time when the step changes
 * from dt to dt_new: both count steps, and the rate at which they act shapes a long run
 * (the reduced leapfrog's impulse over ten units at half the step: 5.4e-2 with the step's counts
 * kept, 1.1e-3 with these rates kept, against 1.5e-3 at the shipped step). *relax f becomes
 * 1 − (1 − f)^(dt_new/dt) (whatever the relaxation interval: the strengths' pull towards ω per unit
 * time is kept), *remesh_every K becomes max(1, round(K·dt/dt_new)), 0 (off) stays 0. Nothing
 * changes unless both steps are positive and finite. */
void vx_control_rates_for_dt(double dt, double dt_new, double *relax, int *remesh_every);
const vx_remesh_stats *vx_sim_remesh_stats(const vx_sim *s);
/* The raw state arrays in backend memory (device pointers on cuda), in the run's precision:
 * positions of [elements, tracers] (3*(n_elem+n_tracer)) and strengths (3*n_elem). For a renderer. */
const void *vx_sim_positions_raw(const vx_sim *s, int *on_device);
/* The simulation's FMM engine (for fmm_occupancy: the renderer's ray-counted opacity reads the
 * octree's bin[] of the last evaluation). Owned by the simulation. */
fmm_ctx *vx_sim_engine(vx_sim *s);
/* fmm_forget_level_choice on each of the simulation's engines (a checkpoint's: its restart starts
 * without one). */
void vx_sim_forget_level_choice(vx_sim *s);
const void *vx_sim_strengths_raw(const vx_sim *s, int *on_device);
/* The velocity (3*n_tracer) and, with gradient, the velocity gradient (9*n_tracer, grad[9t+3i+j] =
 * ∂u_i/∂x_j) at the tracers, raw as above: the last step's last engine evaluation (within one step
 * of the current positions), or one engine call now when there is none for these particles (a new
 * or remeshed state, or the gradient not computed there). For colouring the tracers
 * (tracer_colour.h); the gradient needs stretching on. 0, or -1 with err. */
int vx_sim_tracer_field(vx_sim *s, int gradient, const void **vel, const void **grad, char *err, size_t errlen);
/* Have the last stage of every step compute the gradient at the tracers too (they otherwise get
 * the velocity only), so that vx_sim_tracer_field(s, 1, ...) needs no engine call of its own. */
void vx_sim_set_tracer_gradient(vx_sim *s, int on);

/* One simulation over several processes (dist/dsim.h makes them from MPI): each process's vx_sim holds
 * its share of the elements, and what needs every process's elements goes through these collective
 * calls — the elements' engine call, and the sums and maxima behind the health check, the energy
 * watch, the conservative correction's moments and the diagnostics. Every process makes the same
 * calls in the same order. */
typedef enum { VX_REDUCE_SUM = 0, VX_REDUCE_MAX = 1 } vx_reduce_op;
typedef struct {
  void *user;
  /* an engine call over every process's elements (io: this process's sources and targets; with `direct`
   * the direct sum, vx_sim_params.direct) */
  int (*evaluate)(void *user, fmm_ctx *ctx, const fmm_io *io, int direct, fmm_stats *st, char *err, size_t errlen);
  /* n doubles summed or maximised over the processes, in place */
  int (*reduce)(void *user, double *v, int n, vx_reduce_op op, char *err, size_t errlen);
  /* n records of rec_bytes each to the processes that own their positions (pos: 3n doubles), as a
   * remeshing's lattice nodes go to be merged: *out (malloc'ed) the *nout this process receives */
  int (*to_owners)(void *user, const void *rec, int n, size_t rec_bytes, const double *pos, void **out, int *nout, char *err,
                   size_t errlen);
  /* every process's n doubles v, process 0's first, at every process: *out (malloc'ed) the *nout of them
   * (the lattice's scale, which reads neighbouring nodes, from the whole field) */
  int (*allgather)(void *user, const double *v, int n, double **out, int *nout, char *err, size_t errlen);
} vx_sim_coll;
/* Spread s over processes with c's calls (NULL: this process alone again). 0, or -1 with err. */
int vx_sim_set_coll(vx_sim *s, const vx_sim_coll *c, char *err, size_t errlen);
/* The sums or maxima over the processes (nothing to do alone). 0, or -1 with err. */
int vx_sim_reduce(vx_sim *s, double *v, int n, vx_reduce_op op, char *err, size_t errlen);
/* Replace this process's particles (host doubles, copied): n elements and n_tracer tracers (pos:
 * 3(n + n_tracer), the elements' then the tracers'; alpha: 3n), a share of the flow's, as the processes
 * hand them between steps; within the tracers' own step (vx_sim_tracer_step_open) the new tracers' y0
 * and acc with them (3 n_tracer each, as vx_sim_tracer_step gives them; ignored between steps). The
 * counters, the rings' count and the blow-up references stay. 0, or -1 with err. */
int vx_sim_set_particles(vx_sim *s, int n, int n_tracer, const double *pos, const double *alpha, const int *ring,
                         const double *y0, const double *acc, char *err, size_t errlen);
/* The same for the elements alone (pos and alpha 3n), at any time: the tracers stay as they are. */
int vx_sim_set_elements(vx_sim *s, int n, const double *pos, const double *alpha, const int *ring, char *err, size_t errlen);
/* Whether the tracers' own step (vx_sim_params.tracer_every) is under way: their RK4 state (y0, acc)
 * then goes with them wherever they are handed. */
int vx_sim_tracer_step_open(const vx_sim *s);
/* This process's n tracers' places in the whole flow (whole numbers held as doubles, n = vx_sim_n_tracers;
 * copied), as the processes hand them: the continuous dye release seeds a tracer again by its place (its
 * k-th release of the whole flow's), so a spread flow releases as one process does. 0, or -1 with err. */
int vx_sim_set_tracer_places(vx_sim *s, const double *place, int n, char *err, size_t errlen);

VX_EXTERN_C_END
#endif
