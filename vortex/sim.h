/* sim.h — public API of the vortex module: a vortex-particle simulation (elements carrying a
 * vector strength α, plus passive tracers) advanced in time by Euler, Heun (RK2) or classical RK4,
 * with velocities and velocity gradients from the fmm engine (fmm.h), FMM or direct summation.
 *
 *   dx/dt = u(x)   for elements and tracers;   dα/dt = (α·∇)u  or  (∇u)ᵀα   for elements
 *
 * State lives in backend memory: host arrays on the cpu backend, device arrays on the cuda
 * backend (allocated once, grown only when counts grow; a step makes no host↔device copy of
 * particle arrays). Each stage is ONE engine call: targets = [elements, tracers] (one contiguous
 * array, elements first), sources = the elements. The getters copy state to the host on demand,
 * for diagnostics and tests.
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
  vx_kernel kernel;
  double sigma;           /* > 0: core radius; 0: the scene's choice (vx_scene_sigma) */
  double dt;
  vx_integrator integrator;
  vx_stretching stretching;
  int direct;             /* 1: fmm_direct (O(N²) reference) instead of fmm_evaluate */
  long long tracers;      /* >= 0: total tracer count overriding the scene's; -1: the scene's */
  int verbose;            /* notices on stderr */
} vx_sim_params;

/* Parameters as the scene file says (backend, precision, order, kernel, σ, dt, integrator...). */
vx_sim_params vx_sim_params_from_scene(const vx_scene *scene);

/* Wall-clock milliseconds of the last step, summed over its stages. */
typedef struct {
  double t_step;          /* whole step, measured on the host (includes waiting for the device) */
  double t_tree, t_far, t_near, t_eval; /* engine: tree build; P2M..L2P; P2P; engine total */
  double t_integrate;     /* t_step - t_eval: stage updates and bookkeeping */
  int evaluations;        /* engine calls in the step */
  int levels;             /* octree levels of the last call */
  fmm_stats engine;       /* the engine's phase times and counts, summed over the step's calls
                             (levels and leaves: the last call's) */
} vx_step_stats;

typedef struct vx_sim vx_sim;

/* Build the particles of the scene and the engine. NULL and a one-line reason on failure. */
vx_sim *vx_sim_create(const vx_sim_params *prm, const vx_scene *scene, char *err, size_t errlen);
/* Start from given particles instead of a scene's (host arrays in double, copied; ring may be
 * NULL: every element in ring 0). prm->sigma must be > 0. */
vx_sim *vx_sim_create_from(const vx_sim_params *prm, int n_elem, int n_tracer, const double *pos, const double *alpha,
                           const int *ring, char *err, size_t errlen);
void vx_sim_destroy(vx_sim *s);

/* Advance one time step. 0, or -1 with err (engine failure). */
int vx_sim_step(vx_sim *s, char *err, size_t errlen);

/* Setters: take effect at the next step. 0, or -1 with err (bad value; the setting is unchanged). */
int vx_sim_set_dt(vx_sim *s, double dt, char *err, size_t errlen);
int vx_sim_set_integrator(vx_sim *s, vx_integrator integ, char *err, size_t errlen);
int vx_sim_set_stretching(vx_sim *s, vx_stretching st, char *err, size_t errlen);
int vx_sim_set_kernel(vx_sim *s, vx_kernel k, char *err, size_t errlen);
int vx_sim_set_sigma(vx_sim *s, double sigma, char *err, size_t errlen);
int vx_sim_set_order(vx_sim *s, int order, char *err, size_t errlen);
int vx_sim_set_direct(vx_sim *s, int direct);

/* Getters. */
const vx_sim_params *vx_sim_params_get(const vx_sim *s);   /* the resolved ones (backend, σ) */
int vx_sim_n_elements(const vx_sim *s);
int vx_sim_n_tracers(const vx_sim *s);
int vx_sim_n_rings(const vx_sim *s);
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
/* Blow-up check on the backend (a reduction; only two scalars come back): the largest |α| and
 * whether any position or strength is NaN or Inf. 0, or -1 with err. */
int vx_sim_check(vx_sim *s, double *max_alpha, int *nonfinite, char *err, size_t errlen);
/* The raw state arrays in backend memory (device pointers on cuda), in the run's precision:
 * positions of [elements, tracers] (3*(n_elem+n_tracer)) and strengths (3*n_elem). For a renderer. */
const void *vx_sim_positions_raw(const vx_sim *s, int *on_device);
/* The simulation's FMM engine (for fmm_occupancy: the renderer's ray-counted opacity reads the
 * octree's bin[] of the last evaluation). Owned by the simulation. */
fmm_ctx *vx_sim_engine(vx_sim *s);
const void *vx_sim_strengths_raw(const vx_sim *s, int *on_device);

VX_EXTERN_C_END
#endif
