/* app_sim.c — the simulation's life in the app (app.h): a scene's simulation started with the
 * settings mirroring it, a reset or another scene loaded, the engine rebuilt around the current
 * particles (leaf size, backend, precision), and the facts of a fresh state (colour scale, camera home). */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"

#define DRAWN_TRACERS 65536     /* default number of tracers drawn (paper: 2^14 of 2^18) */
#define APP_CPU_TRACERS 16384   /* the window's tracers on the CPU backend when the scene asks for more */

/* Settings mirroring the simulation's resolved parameters. */
static void settings_from_sim(app *a) {
  const vx_sim_params *p = vx_sim_params_get(a->sim);
  app_settings *s = &a->set;
  s->dt = p->dt;
  s->sigma = p->sigma;
  s->integrator = (int)p->integrator;
  s->tracer_every = p->tracer_every > 1 ? p->tracer_every : 1;
  s->dye_release = p->dye_release;
  s->stretching = (int)p->stretching;
  s->kernel = (int)p->kernel;
  s->order = p->order;
  s->direct = p->direct;
  s->leaf = p->leaf_size; /* 0: the backend's */
  s->backend = (int)p->backend;
  s->precision = (int)p->precision;
  s->tracers = vx_sim_n_tracers(a->sim);
  s->relax = p->relax;
  s->relax_every = p->relax_every > 0 ? p->relax_every : 1;
  s->lcfl = p->lcfl;
  s->remesh_every = p->remesh_every;
  s->remesh_h = p->remesh_h;
  s->remesh_drop = p->remesh_drop;
  s->remesh_coarsen = p->remesh_coarsen;
  s->viscosity = p->viscosity;
}

/* The simulation parameters the settings hold (what a reset keeps of the user's tuning). */
static void params_from_settings(vx_sim_params *prm, const app_settings *s) {
  prm->dt = s->dt;
  prm->sigma = s->sigma;
  prm->integrator = (vx_integrator)s->integrator;
  prm->tracer_every = s->tracer_every;
  prm->dye_release = s->dye_release;
  prm->stretching = (vx_stretching)s->stretching;
  prm->kernel = (vx_kernel)s->kernel;
  prm->order = s->order;
  prm->direct = s->direct;
  prm->leaf_size = s->leaf;
  prm->backend = (vx_backend)s->backend;
  prm->precision = (vx_precision)s->precision;
  prm->tracers = s->tracers;
  prm->relax = s->relax;
  prm->relax_every = s->relax_every;
  prm->lcfl = s->lcfl;
  prm->remesh_every = s->remesh_every;
  prm->remesh_h = s->remesh_h;
  prm->remesh_drop = s->remesh_drop;
  prm->remesh_coarsen = s->remesh_coarsen;
  prm->viscosity = s->viscosity;
}

/* Facts of a fresh state: mean |α| (colour map), bounding sphere of the elements (camera home). */
static int measure_state(app *a, char *err, size_t errlen) {
  int ne = vx_sim_n_elements(a->sim);
  a->alpha_ref = 0.0;
  a->centre[0] = a->centre[1] = a->centre[2] = 0.5;
  a->radius = 0.5;
  if (ne <= 0) return 0;
  double *pos = malloc(sizeof(double) * 6 * (size_t)ne);
  if (!pos) { snprintf(err, errlen, "out of host memory"); return -1; }
  double *alpha = pos + 3 * (size_t)ne;
  if (vx_sim_get_elements(a->sim, pos, alpha, err, errlen)) { free(pos); return -1; }
  double c[3] = {0, 0, 0}, s = 0.0;
  for (int i = 0; i < ne; ++i) {
    for (int k = 0; k < 3; ++k) c[k] += pos[3 * i + k];
    s += sqrt(alpha[3 * i] * alpha[3 * i] + alpha[3 * i + 1] * alpha[3 * i + 1] + alpha[3 * i + 2] * alpha[3 * i + 2]);
  }
  for (int k = 0; k < 3; ++k) c[k] /= ne;
  double r = 0.0;
  for (int i = 0; i < ne; ++i) {
    double d2 = 0.0;
    for (int k = 0; k < 3; ++k) d2 += (pos[3 * i + k] - c[k]) * (pos[3 * i + k] - c[k]);
    if (d2 > r) r = d2;
  }
  free(pos);
  memcpy(a->centre, c, sizeof c);
  a->radius = 1.1 * sqrt(r) + 0.05;
  a->alpha_ref = s / ne;
  return 0;
}

/* The window's tracer count on the CPU backend: a scene's own count (no --tracers, no panel value)
 * above APP_CPU_TRACERS becomes APP_CPU_TRACERS, and the screen says so. The scenes are sized for
 * the GPU (merger: 262 144 tracers, seconds per RK4 step on two cores; docs/BENCHMARKS.md);
 * headless images and batch runs keep the scene's count. */
void app_cpu_tracers(app *a, const vx_scene *sc, vx_sim_params *prm) {
  const int cpu = prm->backend == VX_BACKEND_CPU || (prm->backend == VX_BACKEND_AUTO && !a->cuda_ok);
  if (!a->window || !cpu || prm->tracers >= 0) return;
  long long n = 0;
  for (int r = 0; r < sc->n_rings; ++r) n += sc->rings[r].tracers;
  if (n <= APP_CPU_TRACERS) return;
  prm->tracers = APP_CPU_TRACERS;
  app_message(a, "cpu backend: %d of the scene's %lld tracers (--tracers N, or the panel and R, for more)", APP_CPU_TRACERS, n);
}

/* A new simulation of scene index si with parameters prm; replaces the current one on success.
 * 0, or -1 with err (the current simulation is kept). */
int app_sim_start(app *a, int si, const vx_scene *sc, const vx_sim_params *prm, int keep_camera, char *err,
                  size_t errlen) {
  vx_sim *s = vx_sim_create(prm, sc, err, errlen);
  if (!s) return -1;
  vx_sim_destroy(a->sim);
  a->sim = s;
  a->scene = *sc;
  a->set.resolution = sc->resolution;
  a->n_launched = 0;
  memset(a->launch_taken, 0, sizeof a->launch_taken); /* --launch-ring counts the steps again */
  vx_passages_reset(&a->shown.passages);
  app_colour_reset(a);
  a->t_offset = 0.0;
  a->steps_offset = 0;
  a->blown_up = 0;
  a->halt[0] = a->advice[0] = 0;
  a->lcfl = 0.0;
  a->energy_ratio = a->energy_rise = NAN;
  a->state_version++;
  a->levels = 0;
  app_readout_drop(a);
  settings_from_sim(a);
  a->set.scene = si;
  if (!keep_camera || !(a->set.launch_radius > 0.0)) { /* a new scene: its first ring's values */
    vx_launch L;
    vx_launch_defaults(&a->scene, a->sim, &L);
    a->set.launch_radius = L.radius, a->set.launch_circ = L.circulation, a->set.launch_core = L.core;
  }
  if (measure_state(a, err, errlen)) return -1;
  a->set.style.alpha_ref = (float)a->alpha_ref;
  if (!a->opt.fraction_given) {
    int nt = vx_sim_n_tracers(a->sim);
    a->set.style.fraction = nt > DRAWN_TRACERS ? (float)DRAWN_TRACERS / (float)nt : 1.0f;
  }
  if (!keep_camera) app_scene_camera(a);
  a->cur = a->set;
  a->pending[0] = 0;
  return 0;
}

/* Load scene index si: its own parameters (with the command line's overrides) when fresh, else
 * the settings in effect (a reset keeps what the user tuned). */
int app_sim_load(app *a, int si, int fresh, char *err, size_t errlen) {
  vx_scene sc;
  if (vx_scene_load(a->scenes[si].path, &sc, err, errlen)) return -1;
  vx_sim_params prm = app_sim_params(&sc, &a->opt.ov);
  if (!fresh) params_from_settings(&prm, &a->set);
  else app_cpu_tracers(a, &sc, &prm);
  prm.verbose = 0;
  rd_style keep = a->set.style;
  int keep_level = a->set.opacity_level, old_nt = a->sim ? vx_sim_n_tracers(a->sim) : -1;
  if (app_sim_start(a, si, &sc, &prm, !fresh, err, errlen)) return -1;
  a->set.opacity_level = a->cur.opacity_level = keep_level;
  if (fresh) a->set.colour = a->cur.colour = app_colour_default(a, &sc); /* a reset keeps the user's */
  if (!fresh) {
    /* the look as tuned; the drawn fraction follows a new tracer count unless it was given */
    float frac = a->set.style.fraction;
    a->set.style = keep;
    a->set.style.alpha_ref = (float)a->alpha_ref;
    if (!a->opt.fraction_given && vx_sim_n_tracers(a->sim) != old_nt) a->set.style.fraction = frac;
    a->cur.style = a->set.style;
  }
  return 0;
}

/* Rebuild the engine with new leaf size / backend / precision around the current particles. */
int app_sim_rebuild(app *a, char *err, size_t errlen) {
  int ne = vx_sim_n_elements(a->sim), nt = vx_sim_n_tracers(a->sim);
  size_t np = 3 * ((size_t)ne + (size_t)nt);
  double *pos = malloc(sizeof(double) * (np + 3 * (size_t)ne + 1));
  int *ring = malloc(sizeof(int) * ((size_t)ne + 1));
  if (!pos || !ring) { free(pos); free(ring); snprintf(err, errlen, "out of host memory"); return -1; }
  double *alpha = pos + np;
  int rc = -1;
  if (vx_sim_get_elements(a->sim, pos, alpha, err, errlen) || vx_sim_get_tracers(a->sim, pos + 3 * (size_t)ne, err, errlen))
    goto done;
  memcpy(ring, vx_sim_rings(a->sim), sizeof(int) * (size_t)ne);
  vx_sim_params prm = *vx_sim_params_get(a->sim);
  prm.leaf_size = a->set.leaf;
  prm.backend = (vx_backend)a->set.backend;
  prm.precision = (vx_precision)a->set.precision;
  prm.verbose = 0;
  vx_sim *s = vx_sim_create_from(&prm, ne, nt, pos, alpha, ring, err, errlen);
  if (!s) goto done;
  int na;
  const vx_sim_added *added = vx_sim_added_rings(a->sim, &na);
  char e2[256];
  if (na && vx_sim_set_added_rings(s, added, na, e2, sizeof e2)) app_message(a, "launched rings kept, not removable: %s", e2);
  if (vx_sim_set_dye(s, vx_sim_dye(a->sim), e2, sizeof e2)) app_message(a, "the dye is no longer released: %s", e2);
  a->t_offset += vx_sim_time(a->sim);
  a->steps_offset += vx_sim_steps_done(a->sim);
  vx_sim_destroy(a->sim);
  a->sim = s;
  app_colour_reset(a); /* another simulation, maybe another backend: the colour buffers move */
  a->state_version++;
  app_readout_drop(a);
  rc = 0;
done:
  free(pos);
  free(ring);
  return rc;
}
