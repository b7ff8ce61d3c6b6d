/* sim_params.c — a simulation's parameters (sim.h, vx_sim_params): as a scene gives them, their
 * validation, the engine parameters (fmm.h) they map to, and the setters that change them on a
 * running simulation, each checked before it takes effect. */
#include "sim_internal.h"
#include "numerics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

vx_sim_params vx_sim_params_from_scene(const vx_scene *sc) {
  vx_sim_params p;
  memset(&p, 0, sizeof p);
  p.backend = sc->backend;
  p.precision = sc->precision;
  p.order = sc->order;
  p.leaf_size = sc->leaf_size;
  p.kernel = sc->kernel;
  p.sigma = sc->sigma;
  p.dt = sc->dt;
  p.integrator = sc->integrator;
  p.stretching = sc->stretching;
  p.direct = sc->direct;
  p.tracers = -1;
  p.relax = sc->relax;
  p.relax_every = sc->relax_every;
  p.remesh_every = sc->remesh_every;
  p.remesh_h = sc->remesh_h;
  vx_scene_remesh_origin(sc, p.remesh_origin);
  p.remesh_drop = sc->remesh_drop;
  p.remesh_coarsen = sc->remesh_coarsen;
  p.viscosity = sc->viscosity;
  p.spread = sc->numerics.filaments ? VX_NUM_FIL_SPREAD : 0.0;
  p.lcfl = sc->lcfl;
  p.tracer_every = sc->tracer_every;
  p.dye_release = sc->dye_release;
  p.conserve = sc->conserve;
  return p;
}

/* The lattice spacing in use: remesh_h, else σ. */
double sim_lattice_h(const vx_sim_params *p) { return p->remesh_h > 0.0 ? p->remesh_h : p->sigma; }

/* The long-run controls: each within its range, and what one asks of another (remeshing a lattice
 * spacing, viscosity remeshing, the viscous step the remeshing kernel's limit). */
static int check_control(const vx_sim_params *p, char *err, size_t errlen) {
  if (!(p->relax >= 0.0 && p->relax <= 1.0)) { snprintf(err, errlen, "relaxation factor %g must be in [0, 1]", p->relax); return -1; }
  if (p->relax > 0.0 && p->relax_every < 1) {
    snprintf(err, errlen, "relaxation interval %d must be >= 1 step", p->relax_every);
    return -1;
  }
  if (p->remesh_every < 0) { snprintf(err, errlen, "remeshing interval %d must be >= 0 (0: off)", p->remesh_every); return -1; }
  if (!(p->remesh_h >= 0.0 && isfinite(p->remesh_h))) { snprintf(err, errlen, "remeshing spacing %g must be >= 0", p->remesh_h); return -1; }
  if (!(p->remesh_drop >= 0.0 && p->remesh_drop <= 0.1)) {
    snprintf(err, errlen, "remeshing drop threshold %g must be in [0, 0.1]", p->remesh_drop);
    return -1;
  }
  if (!(p->remesh_coarsen >= 0.0 && p->remesh_coarsen <= 10.0)) {
    snprintf(err, errlen, "remesh_coarsen %g must be in [0, 10] (0: a fixed lattice)", p->remesh_coarsen);
    return -1;
  }
  if (!(p->lcfl >= 0.0 && p->lcfl <= 10.0)) { snprintf(err, errlen, "lcfl %g must be in [0, 10] (0: no substeps)", p->lcfl); return -1; }
  if (p->tracer_every != 0 && !vx_tracer_every_ok(p->tracer_every)) {
    snprintf(err, errlen, "tracer_every %d must be 1, 2 or 4 (element steps a tracer step spans)", p->tracer_every);
    return -1;
  }
  if (!(p->viscosity >= 0.0 && isfinite(p->viscosity))) { snprintf(err, errlen, "viscosity %g must be >= 0", p->viscosity); return -1; }
  if (vx_dye_release_check(p->dye_release, p->dt, p->tracer_every, p->integrator, err, errlen)) return -1;
  double h = sim_lattice_h(p);
  if (p->remesh_every > 0 && !(h > 0.0)) {
    snprintf(err, errlen, "remeshing needs a lattice spacing: set remesh_h (the %s kernel has no sigma)", vx_kernel_name(p->kernel));
    return -1;
  }
  if (p->conserve == VX_CONSERVE_RING && p->remesh_every > 0) {
    snprintf(err, errlen, "conserve ring keeps each ring's impulse in the ring's own elements, which remeshing mixes: "
                          "with remeshing use conserve off, axial or full");
    return -1;
  }
  if (!(p->spread >= 0.0 && p->spread <= 10.0)) { snprintf(err, errlen, "core spreading %g must be in [0, 10]", p->spread); return -1; }
  if (p->viscosity > 0.0 && p->remesh_every <= 0 && !(p->spread > 0.0)) {
    snprintf(err, errlen, "viscosity %g acts at remeshing: turn remeshing on (remesh_every > 0)", p->viscosity);
    return -1;
  }
  if (p->viscosity > 0.0 && p->remesh_every > 0 && p->viscosity * p->dt / (h * h) > VX_REMESH_C2_MAX) {
    snprintf(err, errlen, "viscosity %g too large for dt %g and lattice spacing %g: nu*dt/h^2 = %.3g exceeds %.3g", p->viscosity,
             p->dt, h, p->viscosity * p->dt / (h * h), VX_REMESH_C2_MAX);
    return -1;
  }
  return 0;
}

/* The whole parameter set (vx_sim_params_check). 0, or -1 with err. */
int sim_check_params(const vx_sim_params *p, char *err, size_t errlen) {
  if (!(p->dt > 0.0 && isfinite(p->dt))) { snprintf(err, errlen, "time step dt %g must be > 0", p->dt); return -1; }
  if (p->integrator < VX_EULER || p->integrator > VX_RK4) { snprintf(err, errlen, "unknown integrator"); return -1; }
  if (p->stretching < VX_STRETCH_CLASSICAL || p->stretching > VX_STRETCH_NONE) {
    snprintf(err, errlen, "unknown stretching scheme");
    return -1;
  }
  if (p->kernel != VX_KERNEL_SINGULAR && !(p->sigma > 0.0 && isfinite(p->sigma))) {
    snprintf(err, errlen, "kernel %s needs sigma > 0 (got %g)", vx_kernel_name(p->kernel), p->sigma);
    return -1;
  }
  return check_control(p, err, errlen);
}

int vx_sim_params_check(const vx_sim_params *p, char *err, size_t errlen) { return sim_check_params(p, err, errlen); }

/* The engine parameters (fmm.h) a simulation's parameters give. */
fmm_params sim_engine_params(const vx_sim_params *p) {
  fmm_params f = fmm_params_default();
  f.backend = p->backend;
  f.precision = p->precision;
  f.order = p->order;
  f.leaf_size = p->leaf_size; /* 0: the backend's (fmm_leaf_size) */
  f.min_leaves = p->min_leaves;
  f.level_rule = p->level_rule;
  f.keep_move = p->keep_move;
  f.kernel = p->kernel;
  f.sigma = p->sigma;
  f.gradient = p->stretching != VX_STRETCH_NONE;
  f.verbose = p->verbose;
  /* the elements alone, while few, by the direct sum where the cost model says it pays (fmm_only: never) */
  f.allow_direct = !p->fmm_only;
  return f;
}

/* ------------------------------------------------------------------ setters */

/* The engine parameters of np given to both engines (the backend the simulation runs on kept). */
int sim_engine_update(vx_sim *s, const vx_sim_params *np, char *err, size_t errlen) {
  fmm_params f = sim_engine_params(np);
  f.backend = s->prm.backend;
  return fmm_set_params(s->fmm, &f, err, errlen) || (s->fmm_e && fmm_set_params(s->fmm_e, &f, err, errlen)) ? -1 : 0;
}

int vx_sim_set_dt(vx_sim *s, double dt, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.dt = dt;
  if (sim_check_params(&np, err, errlen)) return -1;
  s->prm.dt = dt;
  return 0;
}
int vx_sim_set_tracer_every(vx_sim *s, int m, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.tracer_every = m;
  if (sim_check_params(&np, err, errlen)) return -1;
  s->prm.tracer_every = m;
  return 0;
}
int vx_sim_set_integrator(vx_sim *s, vx_integrator integ, char *err, size_t errlen) {
  if (integ < VX_EULER || integ > VX_RK4) { snprintf(err, errlen, "unknown integrator %d", (int)integ); return -1; }
  vx_integrator old = s->prm.integrator;
  s->prm.integrator = integ;
  if (sim_reserve_scratch(s, err, errlen)) { s->prm.integrator = old; return -1; }
  return 0;
}
int vx_sim_set_stretching(vx_sim *s, vx_stretching st, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.stretching = st;
  if (sim_check_params(&np, err, errlen) || sim_engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  return 0;
}
int vx_sim_set_kernel(vx_sim *s, vx_kernel k, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.kernel = k;
  if (k < VX_KERNEL_SINGULAR || k > VX_KERNEL_GAUSS) { snprintf(err, errlen, "unknown kernel %d", (int)k); return -1; }
  if (sim_check_params(&np, err, errlen) || sim_engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  sim_energy_restart(s, 0.0);
  return 0;
}
int vx_sim_set_sigma(vx_sim *s, double sigma, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.sigma = sigma;
  if (!(sigma > 0.0 && isfinite(sigma))) { snprintf(err, errlen, "sigma %g must be > 0", sigma); return -1; }
  if (sim_engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  sim_energy_restart(s, 0.0);
  return 0;
}
int vx_sim_set_order(vx_sim *s, int order, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.order = order;
  if (sim_engine_update(s, &np, err, errlen)) return -1;
  s->prm = np;
  return 0;
}
int vx_sim_set_direct(vx_sim *s, int direct) {
  s->prm.direct = direct != 0;
  return 0;
}

/* Apply a copy of the parameters that differs only in the long-run controls, when they pass. */
static int set_control(vx_sim *s, const vx_sim_params *np, char *err, size_t errlen) {
  if (sim_check_params(np, err, errlen)) return -1;
  s->prm = *np;
  return 0;
}
int vx_sim_set_relax(vx_sim *s, double f, int every, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.relax = f;
  np.relax_every = every;
  return set_control(s, &np, err, errlen);
}
int vx_sim_set_remesh(vx_sim *s, int every, double h, double drop, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.remesh_every = every;
  np.remesh_h = h;
  np.remesh_drop = drop;
  return set_control(s, &np, err, errlen);
}
int vx_sim_set_coarsen(vx_sim *s, double ratio, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.remesh_coarsen = ratio;
  return set_control(s, &np, err, errlen);
}
int vx_sim_set_lcfl(vx_sim *s, double lcfl, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.lcfl = lcfl;
  return set_control(s, &np, err, errlen);
}
int vx_sim_set_viscosity(vx_sim *s, double nu, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.viscosity = nu;
  return set_control(s, &np, err, errlen);
}
