/* sim_internal.h — the simulation's private state (struct vx_sim) and the helpers its source files
 * share; not a public header (sim.h is). The simulation is split by responsibility:
 *   sim.c          create / destroy, saved state, backend memory helpers, plain getters
 *   sim_params.c   parameters: from a scene, validation, the engine's parameters, the setters
 *   sim_step.c     a step: its engine calls, Runge–Kutta stages and substeps
 *   sim_tracers.c  the tracers' own RK4 step over several element steps (docs/MATH.md §15)
 *   sim_dye.c      the continuous dye release between tracer steps (vx_sim_params.dye_release)
 *   sim_control.c  long-run control: relaxation, remeshing, lattice coarsening, the invariants' correction
 *   sim_rings.c    rings added while running and removed again
 *   sim_health.c   the blow-up rule, the energy watch, velocities on demand, dt advice
 *   sim_coll.c     one simulation over several processes: the collective calls, the elements' share */
#ifndef VX_SIM_INTERNAL_H
#define VX_SIM_INTERNAL_H

#include <stddef.h>

#include "clock.h"
#include "conserve.h"
#include "filament.h"
#include "mem.h"
#include "remesh.h"
#include "reproject.h"
#include "sim.h"
#include "stage.h"

struct vx_sim {
  vx_sim_params prm;
  fmm_ctx *fmm;
  int on_device;             /* cuda backend: every array below is a device array */
  size_t rs;                 /* bytes of one real */
  int n_elem, n_tracer, n_tot;
  int n_rings;
  int *ring;                 /* host */
  /* backend memory, with capacities in bytes */
  void *pos, *alpha, *pos0, *alpha0, *accp, *acca, *vel, *grad, *scratch;
  size_t c_pos, c_alpha, c_pos0, c_alpha0, c_accp, c_acca, c_vel, c_grad, c_scratch;
  void *host;                /* host staging for the getters */
  size_t c_host;
  double t;
  long long steps;
  vx_step_stats stats;
  /* long-run control */
  int *d_ring;               /* cuda: the ring of each element on the device (remeshing reads it) */
  size_t c_d_ring;
  vx_remesh_ws *rws;         /* the remeshing pipeline's scratch */
  vx_remesh_job rj;          /* its output buffers, swapped with pos / alpha / ring after each remeshing */
  vx_remesh_stats rstats;
  vx_reproject_ws rpw;       /* the reprojection's scratch (reproject.h), backend memory */
  double since_remesh;       /* simulated time since the last remeshing (the diffusion it owes) */
  int steps_since_remesh;
  double amax0;              /* max|α| at the start: the blow-up rule's reference */
  /* the blow-up rule's energy watch (VX_SIM_ENERGY_RISE): reference, lowest and last measured
   * (valid when e_ok), the time after which the next measurement is due, and which energy it
   * measures (1: the kernel energy, 0: the particle form) */
  double e0, e_min, e_last, t_energy;
  int e_ok, e_kernel;
  int have_grad;             /* grad holds the elements' gradient of an evaluation of this state's particles */
  /* the tracers' rows of vel (and of grad when field_grad) hold the last step's last evaluation:
   * within one step of the current positions (vx_sim_tracer_field); 0 after creation and remeshing
   * (the arrays were regrown for another element count) */
  int field_ok, field_grad;
  int want_tracer_grad;      /* the last stage of each step computes ∇u at the tracers too */
  double max_gradu;          /* max |∇u| over the elements, last measured */
  /* the health reduction of the current state, kept so that the step's own check (substeps) and
   * the caller's vx_sim_health after it cost one reduction and one device read-back, not two */
  long long state_id, health_id;  /* state_id changes with the particles; health_id: whose reduction is kept */
  double h_m2, h_g2;
  int h_bad;
  /* the conservative correction after relaxation and dropping (conserve.h) */
  void *cons;                /* backend scratch of VX_CONSERVE_SCRATCH bytes (cuda only) */
  size_t c_cons;
  vx_conserve_stats cstats;
  /* vx_sim_watch_next_eval: the next step's first engine call goes to watch_fn, once */
  vx_sim_eval_fn watch_fn;
  void *watch_user;
  vx_sim_added *added;       /* rings added while running (vx_sim_add_ring), oldest first */
  int n_added, c_added;
  /* the tracers' own step (prm.tracer_every = m > 1, docs/MATH.md §15): one classical RK4 step of m
   * element steps, its four stages evaluated in calls of their own beside the elements' first and last */
  fmm_ctx *fmm_e;            /* with tracers, the elements' calls (created when first needed): their tree
                                is kept in it, the tracers' calls keep theirs in fmm */
  void *tp0, *tacc;          /* the tracers' y0 and acc (stage.h) over their step, 3*n_tracer each */
  size_t c_tp0, c_tacc;
  int tr_m;                  /* m of the tracer step under way */
  int tr_steps, tr_stage;    /* element steps and tracer stages done in it (0, 0: none under way) */
  double tr_h;               /* the size of its element steps */
  /* the tracers' sources where the elements are filaments (filament.h, sim_step.c): the runs and
   * their merge, chosen at each call that builds the tracers' tree, and the merged sources */
  vx_fil_blocks fil;
  int fil_on, fil_n;         /* some run merges; merged sources in all */
  void *fil_pos, *fil_alpha, *fil_scratch;
  size_t c_fil_pos, c_fil_alpha, c_fil_scratch;
  void *draw_scratch;        /* a launched ring's tracers drawn on the device (vx_gpu_ring_tracers) */
  size_t c_draw_scratch;
  void *energy_scratch;      /* the kernel energy's tile sums (vx_gpu_energy_kernel) */
  size_t c_energy_scratch;
  /* spread over processes (vx_sim_set_coll): the collective calls */
  vx_sim_coll coll;
  int coll_on;
  vx_remesh_ws *rws_part;    /* the host scratch of this process's part of a remeshing (sim_coll.c) */
  /* the continuous dye release (sim_dye.c): its sources and count, and the host rows of a block */
  vx_dye_state dye;
  void *dye_rows;
  size_t c_dye_rows;
  /* spread: this process's tracers' places in the whole flow (vx_sim_set_tracer_places), n_place of them */
  double *tr_place;
  size_t c_tr_place;
  int n_place;
};

static inline double sim_now_ms(void) { return vx_clock_ms(); }

/* sim_coll.c: the remeshing job j of a spread flow: each process's part, the nodes to the processes that
 * own them (vx_sim_coll.to_owners), merged (vx_remesh_merge), the drop threshold over every process;
 * the process's new elements set, j's counts every process's. 0, or -1 with err on every process. */
int sim_coll_remesh(vx_sim *s, vx_remesh_job *j, char *err, size_t errlen);

/* sim.c: backend memory. Grow a backend buffer to at least bytes (contents not kept). */
int sim_buf_reserve(vx_sim *s, void **p, size_t *cap, size_t bytes, char *err, size_t errlen);
/* Copy n reals from backend memory src into host doubles dst. */
int sim_fetch_doubles(vx_sim *s, const void *src, size_t n, double *dst, char *err, size_t errlen);
/* Copy n host doubles into backend memory dst, in the run's precision. */
int sim_store_doubles(vx_sim *s, void *dst, const double *src, size_t n, char *err, size_t errlen);
/* sim_rings.c: copy bytes within backend memory (device to device on cuda). */
int sim_copy_backend(vx_sim *s, void *dst, const void *src, size_t bytes, char *err, size_t errlen);
/* Swap a simulation buffer with a remeshing output buffer. */
void sim_swap_buf(void **p, size_t *cap, vx_mem *b);
/* sim.c: the RK scratch arrays for the integrator in use; the host ring array mirrored on the device
 * (cuda); the energy watch restarted (a new reference at its first measurement from `after` on). */
int sim_reserve_scratch(vx_sim *s, char *err, size_t errlen);
int sim_upload_rings(vx_sim *s, char *err, size_t errlen);
void sim_energy_restart(vx_sim *s, double after);

/* sim_params.c */
int sim_check_params(const vx_sim_params *p, char *err, size_t errlen);
double sim_lattice_h(const vx_sim_params *p);
fmm_params sim_engine_params(const vx_sim_params *p);
int sim_engine_update(vx_sim *s, const vx_sim_params *np, char *err, size_t errlen);

/* sim_step.c: engine calls and the CPU stage loop */
int sim_plain_call(vx_sim *s, fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen);
fmm_ctx *sim_elements_engine(vx_sim *s, char *err, size_t errlen);
void sim_elements_io(const vx_sim *s, int grad, int tree, fmm_io *io);
void sim_tracers_io(const vx_sim *s, int grad, int tree, fmm_io *io);
int sim_evaluate_tracers(vx_sim *s, int tracer_grad, int tree, char *err, size_t errlen);
void sim_stage_cpu(const vx_stage_args *a, vx_precision prec);
/* classical RK4's weights and next-stage nodes in stage.h's low-storage form */
extern const double sim_w_rk4[4], sim_c_rk4[4];

/* sim_tracers.c */
int sim_tracer_cadence(const vx_sim *s);
int sim_tracer_stage_at(const vx_sim *s, int k, int ns);
int sim_tracer_stage(vx_sim *s, int j, char *err, size_t errlen);
int sim_tracers_settle_move(vx_sim *s, int back, char *err, size_t errlen);
void sim_tracers_settle(vx_sim *s);
int sim_tracer_step_begin(vx_sim *s, int m, double dt, char *err, size_t errlen);
int sim_restore_tracer_step(vx_sim *s, const vx_sim_state *st, char *err, size_t errlen);

/* sim_dye.c: after a completed tracer step of span H, the block of tracers due seeded again; the
 * release's sources set (checked against the tracers) */
int sim_dye_release(vx_sim *s, double span, char *err, size_t errlen);
int sim_dye_set(vx_sim *s, const vx_dye_state *d, char *err, size_t errlen);

/* sim_control.c */
/* Whether the relaxation is the reprojection (reproject.h): remeshing on, a lattice in use, the
 * Gaussian kernel. */
int sim_reprojects(const vx_sim *s);
int sim_relax_strengths(vx_sim *s, char *err, size_t errlen);
int sim_remesh_due(const vx_sim *s);
/* Core spreading after a step of dt (vx_sim_params.spread; nothing unless viscous with remeshing off).
 * 0, or -1 with err. */
int sim_spread_cores(vx_sim *s, double dt, char *err, size_t errlen);

/* sim_health.c */
int sim_energy_watch(vx_sim *s, char *err, size_t errlen);
int sim_start_health(vx_sim *s, char *err, size_t errlen);

#endif
