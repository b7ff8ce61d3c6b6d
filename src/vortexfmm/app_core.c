/* app_core.c — the program's core, shared by the window and the headless images (app.h): scenes,
 * the simulation's life, settings applied live, the frame's steps, the accuracy readout's
 * requests and figures (vortex/accuracy.h) and the hand-off of particles and histogram to the renderer. No window-system code here. */
#define _XOPEN_SOURCE 700 /* readlink, realpath, localtime_r */
#include "app.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmm.h"
#include "launch.h"

#ifndef VX_ASSETS_DIR
#define VX_ASSETS_DIR "assets"
#endif
#define READOUT_PERIOD_S 2.0    /* seconds between two requests of the accuracy readout */
#define READOUT_SEED 0x5eed     /* its sample's seed (a new sample each capture) */
#define DEFAULT_HIST_LEVEL 5    /* octree's level wanted before the first evaluation tells it */
#define DRAWN_TRACERS 65536     /* default number of tracers drawn (paper: 2^14 of 2^18) */
#define APP_CPU_TRACERS 16384   /* the window's tracers on the CPU backend when the scene asks for more */

void app_message(app *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a->message, sizeof a->message, fmt, ap);
  va_end(ap);
  a->message_until = app_now() + 6.0;
  if (!a->opt.quiet) fprintf(stderr, "vortexfmm: %s\n", a->message);
}

double app_sim_time(const app *a) { return a->t_offset + (a->sim ? vx_sim_time(a->sim) : 0.0); }
long long app_sim_steps(const app *a) { return a->steps_offset + (a->sim ? vx_sim_steps_done(a->sim) : 0); }

/* ------------------------------------------------------------------ accuracy readout */

/* A new simulation or engine: the figure and any capture in flight belong to the old one. */
static void readout_drop(app *a) {
  vx_acc_result r;
  char e2[256];
  if (a->acc && vx_acc_busy(a->acc)) (void)vx_acc_poll(a->acc, 1, &r, e2, sizeof e2);
  a->acc_have = 0;
  a->acc_wall = app_now(); /* the next request after a full period: the flow settles first */
}

/* Before the frame's steps (window and --hud only): every READOUT_PERIOD_S, the first engine call
 * of the next step is captured (vx_acc_request), unless a capture is still in flight. */
static void readout_request(app *a, int n_steps) {
  if (!(a->window || a->opt.hud) || !a->acc || n_steps <= 0 || a->halt[0] || vx_acc_busy(a->acc) ||
      app_now() - a->acc_wall < READOUT_PERIOD_S)
    return;
  if (vx_acc_request(a->acc, a->sim) == 0) {
    a->acc_wall = app_now();
    a->acc_steps_offset = a->steps_offset;
  }
}

/* After the frame's steps: the figure, once its direct sum is done (no wait). */
static void readout_poll(app *a) {
  vx_acc_result r;
  char e2[256];
  if (!a->acc) return;
  int rc = vx_acc_poll(a->acc, 0, &r, e2, sizeof e2);
  if (rc < 0) app_message(a, "accuracy readout failed: %s", e2);
  if (rc != 1) return;
  r.step += a->acc_steps_offset;
  a->acc_res = r;
  a->acc_have = 1;
  a->ms_probe = r.ms_capture;
}

/* ------------------------------------------------------------------ scenes */

static void exe_dir(char *out, size_t len) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  out[0] = 0;
  if (n <= 0) return;
  buf[n] = 0;
  char *slash = strrchr(buf, '/');
  if (slash) *slash = 0;
  snprintf(out, len, "%s", buf);
}

/* The picker's list: the *.scene files of the first assets directory that has any (the
 * directories vx_scene_find tries), then those of --scene-dir, then those of the per-user
 * directory (vx_scene_user_dir; none there is no error). 0, or 2 with err when --scene-dir cannot
 * be read. */
static int list_scenes(app *a, char *err, size_t errlen) {
  char ed[PATH_MAX], dirs[3][PATH_MAX + 16], e2[512];
  const int cap = APP_MAX_SCENES - 1; /* a place kept for a --scene given by path */
  exe_dir(ed, sizeof ed);
  const char *env = getenv("VX_ASSETS_DIR");
  snprintf(dirs[0], sizeof dirs[0], "%s", env ? env : "");
  snprintf(dirs[1], sizeof dirs[1], "%s", VX_ASSETS_DIR);
  snprintf(dirs[2], sizeof dirs[2], "%s/../assets", ed);
  a->n_scenes = 0;
  for (int d = 0; d < 3 && a->n_scenes == 0; ++d)
    if (dirs[d][0]) vx_scene_list_dir(dirs[d], APP_SCENES_BUILTIN, a->scenes, &a->n_scenes, cap, e2, sizeof e2);
  const char *sd = a->opt.scene_dir;
  if (sd && vx_scene_list_dir(sd, APP_SCENES_DIR, a->scenes, &a->n_scenes, cap, e2, sizeof e2)) {
    snprintf(err, errlen, "--scene-dir: %s", e2);
    return 2;
  }
  char ud[PATH_MAX];
  if (!vx_scene_user_dir(ud, sizeof ud) && access(ud, F_OK) == 0 &&
      vx_scene_list_dir(ud, APP_SCENES_USER, a->scenes, &a->n_scenes, cap, e2, sizeof e2))
    app_message(a, "%s", e2);
  return 0;
}

/* A --scene NAME that vx_scene_find does not know, looked up among the listed --scene-dir and
 * per-user scenes. 0 with the path in out, or -1. */
static int find_listed(const app *a, const char *name, char *out, size_t outlen) {
  for (int i = 0; i < a->n_scenes; ++i)
    if (a->scenes[i].origin != APP_SCENES_BUILTIN && !strcmp(a->scenes[i].name, name)) {
      snprintf(out, outlen, "%s", a->scenes[i].path);
      return 0;
    }
  return -1;
}

/* Index of the scene at path in the list, adding it (sc's name and description) when it is not
 * there; -1 when full. */
static int scene_index(app *a, const char *path, const vx_scene *sc) {
  char rp[PATH_MAX], rq[PATH_MAX];
  const char *p = realpath(path, rp) ? rp : path;
  for (int i = 0; i < a->n_scenes; ++i) {
    const char *q = realpath(a->scenes[i].path, rq) ? rq : a->scenes[i].path;
    if (!strcmp(p, q)) return i;
  }
  if (a->n_scenes >= APP_MAX_SCENES) return -1;
  vx_scene_entry *en = &a->scenes[a->n_scenes];
  memset(en, 0, sizeof *en);
  snprintf(en->path, sizeof en->path, "%.511s", path);
  snprintf(en->name, sizeof en->name, "%.63s", sc->name);
  snprintf(en->description, sizeof en->description, "%s", sc->description);
  en->origin = APP_SCENES_ARG;
  return a->n_scenes++;
}

/* The view the scene opens on (and C returns to): its camera keys, rd_camera_init's home view
 * around the elements' bounding sphere for what they leave out. */
static void scene_camera(app *a) {
  const vx_scene_camera *k = &a->scene.camera;
  const double *target = k->has_target ? k->target : a->centre;
  rd_camera_init(&a->cam, target, a->radius);
  /* an eye on the elements' centroid (no camera_target) has no direction: the home view stays */
  if (k->has_position) rd_camera_look_at(&a->cam, k->position, target);
}

/* ------------------------------------------------------------------ simulation life */

/* Settings mirroring the simulation's resolved parameters. */
static void settings_from_sim(app *a) {
  const vx_sim_params *p = vx_sim_params_get(a->sim);
  app_settings *s = &a->set;
  s->dt = p->dt;
  s->sigma = p->sigma;
  s->integrator = (int)p->integrator;
  s->tracer_every = p->tracer_every > 1 ? p->tracer_every : 1;
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
 * the GPU (leapfrog: 262 144 tracers, seconds per RK4 step on two cores; docs/BENCHMARKS.md);
 * headless images and batch runs keep the scene's count. */
static void cpu_tracers(app *a, const vx_scene *sc, vx_sim_params *prm) {
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
static int start_sim(app *a, int si, const vx_scene *sc, const vx_sim_params *prm, int keep_camera, char *err,
                     size_t errlen) {
  vx_sim *s = vx_sim_create(prm, sc, err, errlen);
  if (!s) return -1;
  vx_sim_destroy(a->sim);
  a->sim = s;
  a->scene = *sc;
  app_colour_reset(a);
  a->t_offset = 0.0;
  a->steps_offset = 0;
  a->blown_up = 0;
  a->halt[0] = a->advice[0] = 0;
  a->lcfl = 0.0;
  a->energy_ratio = a->energy_rise = NAN;
  a->state_version++;
  a->levels = 0;
  readout_drop(a);
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
  if (!keep_camera) scene_camera(a);
  a->cur = a->set;
  a->pending[0] = 0;
  return 0;
}

/* Load scene index si: its own parameters (with the command line's overrides) when fresh, else
 * the settings in effect (a reset keeps what the user tuned). */
static int load_scene(app *a, int si, int fresh, char *err, size_t errlen) {
  vx_scene sc;
  if (vx_scene_load(a->scenes[si].path, &sc, err, errlen)) return -1;
  vx_sim_params prm = app_sim_params(&sc, &a->opt.ov);
  if (!fresh) params_from_settings(&prm, &a->set);
  else cpu_tracers(a, &sc, &prm);
  prm.verbose = 0;
  rd_style keep = a->set.style;
  int keep_level = a->set.opacity_level, old_nt = a->sim ? vx_sim_n_tracers(a->sim) : -1;
  if (start_sim(a, si, &sc, &prm, !fresh, err, errlen)) return -1;
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
static int rebuild_sim(app *a, char *err, size_t errlen) {
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
  a->t_offset += vx_sim_time(a->sim);
  a->steps_offset += vx_sim_steps_done(a->sim);
  vx_sim_destroy(a->sim);
  a->sim = s;
  app_colour_reset(a); /* another simulation, maybe another backend: the colour buffers move */
  a->state_version++;
  readout_drop(a);
  rc = 0;
done:
  free(pos);
  free(ring);
  return rc;
}

/* The window steps on a thread of its own (while the backend is cpu: steps_threaded) unless told
 * not to, or, left to choose, when --frames, --screenshot or --record asks that each frame follow
 * its batch of steps, as headless frames do (the same images, whatever the machine's speed). */
static int wants_thread(const app_options *o) {
  return o->sim_thread >= 0 ? o->sim_thread : !(o->frames > 0 || o->screenshot || o->record);
}

int app_init(app *a, const app_options *o, int window, char *err, size_t errlen) {
  memset(a, 0, sizeof *a);
  a->opt = *o;
  a->window = window;
  a->t_start = app_now();
  if (!(a->acc = vx_acc_create(VX_ACC_SAMPLE, READOUT_SEED, err, errlen))) return 1;
  a->cuda_ok = vx_cuda_available(a->gpu_name, sizeof a->gpu_name);
  if (list_scenes(a, err, errlen)) return 2;
  char ed[PATH_MAX], path[1024];
  exe_dir(ed, sizeof ed);
  const char *name = o->scene ? o->scene : "leapfrog";
  if (vx_scene_find(name, VX_ASSETS_DIR, ed[0] ? ed : NULL, path, sizeof path, err, errlen) &&
      find_listed(a, name, path, sizeof path))
    return 2;
  vx_scene sc;
  if (vx_scene_load(path, &sc, err, errlen)) return 2;
  int si = scene_index(a, path, &sc);
  if (si < 0) { snprintf(err, errlen, "too many scenes (more than %d)", APP_MAX_SCENES); return 2; }
  a->set.style = o->style;
  a->set.opacity_level = o->opacity_level;
  a->set.steps_per_frame = o->steps_per_frame;
  a->set.running = !o->paused;
  a->set.follow = o->follow || sc.camera.follow == 1;
  a->set.vsync = !o->no_vsync;
  a->set.show_panel = 1;
  a->set.show_hud = 1;
  vx_sim_params prm = app_sim_params(&sc, &o->ov);
  prm.verbose = 0;
  cpu_tracers(a, &sc, &prm);
  a->tc_on_device = -1;
  if (start_sim(a, si, &sc, &prm, 0, err, errlen)) return 1;
  a->set.colour = a->cur.colour = app_colour_default(a, &sc);
  if (window && wants_thread(o) && !(a->stepper = app_stepper_create(o->wake, err, errlen))) return 1;
  if (!o->quiet) {
    const vx_sim_params *P = vx_sim_params_get(a->sim);
    fprintf(stderr,
            "vortexfmm: scene %s (%s): %d elements, %d tracers (%.0f%% drawn); %s backend, %s, %s, dt=%g, kernel %s "
            "sigma=%g, %s order %d\n",
            sc.name, path, vx_sim_n_elements(a->sim), vx_sim_n_tracers(a->sim), 100.0 * a->set.style.fraction,
            vx_backend_name(P->backend), vx_precision_name(P->precision), vx_integrator_name(P->integrator), P->dt,
            vx_kernel_name(P->kernel), P->sigma, P->direct ? "direct summation" : "FMM", P->order);
  }
  return 0;
}

int app_gl_init(app *a, char *err, size_t errlen) {
  rd_gl_describe(a->gl_desc, sizeof a->gl_desc);
  a->rd = rd_create(err, errlen);
  return a->rd ? 0 : -1;
}

void app_shutdown(app *a) {
  app_stepper_destroy(a->stepper); /* after the step in flight: the simulation is the caller's again */
  a->stepper = NULL;
  rd_destroy(a->rd);
  a->rd = NULL;
  vx_acc_destroy(a->acc); /* waits for a direct sum in flight */
  a->acc = NULL;
  app_colour_free(a); /* device buffers go before the simulation (and its device) */
  vx_sim_destroy(a->sim);
  a->sim = NULL;
  app_shown_free(&a->shown);
}

/* ------------------------------------------------------------------ settings */

/* Physics the vx_sim setters change at once. Failures revert the setting and say why on screen. */
static void apply_physics(app *a) {
  char err[512];
  app_settings *s = &a->set, *c = &a->cur;
#define APPLY(field, call, ...)                              \
  if (s->field != c->field) {                                \
    if (call) {                                              \
      app_message(a, "%s", err);                             \
      s->field = c->field;                                   \
    } else {                                                 \
      c->field = s->field;                                   \
      app_message(a, __VA_ARGS__);                           \
    }                                                        \
  }
  APPLY(dt, vx_sim_set_dt(a->sim, s->dt, err, sizeof err), "dt = %g (from the next step)", s->dt)
  APPLY(integrator, vx_sim_set_integrator(a->sim, (vx_integrator)s->integrator, err, sizeof err), "integrator %s",
        vx_integrator_name((vx_integrator)s->integrator))
  APPLY(tracer_every, vx_sim_set_tracer_every(a->sim, s->tracer_every, err, sizeof err),
        "tracers: one RK4 step of %d element step%s", s->tracer_every, s->tracer_every == 1 ? "" : "s")
  APPLY(stretching, vx_sim_set_stretching(a->sim, (vx_stretching)s->stretching, err, sizeof err), "stretching %s",
        vx_stretching_name((vx_stretching)s->stretching))
  APPLY(sigma, vx_sim_set_sigma(a->sim, s->sigma, err, sizeof err), "sigma = %g", s->sigma)
  APPLY(kernel, vx_sim_set_kernel(a->sim, (vx_kernel)s->kernel, err, sizeof err), "kernel %s",
        vx_kernel_name((vx_kernel)s->kernel))
  APPLY(order, vx_sim_set_order(a->sim, s->order, err, sizeof err), "expansion order p = %d", s->order)
  APPLY(direct, vx_sim_set_direct(a->sim, s->direct), "%s", s->direct ? "direct summation (O(N^2))" : "FMM")
  APPLY(viscosity, vx_sim_set_viscosity(a->sim, s->viscosity, err, sizeof err), "viscosity %g (at each remeshing)",
        s->viscosity)
  APPLY(remesh_coarsen, vx_sim_set_coarsen(a->sim, s->remesh_coarsen, err, sizeof err), "%s %g spacings of the doubled one",
        s->remesh_coarsen > 0 ? "the lattice coarsens once the field's scale is" : "a fixed lattice: remesh_coarsen",
        s->remesh_coarsen)
#undef APPLY
}

/* Relaxation and remeshing, each group through its setter. A refused group keeps its old values
 * (the panel shows them again) and the setter's reason goes on screen. */
static void apply_control(app *a) {
  char err[512];
  app_settings *s = &a->set, *c = &a->cur;
  if (s->relax != c->relax || s->relax_every != c->relax_every) {
    if (vx_sim_set_relax(a->sim, s->relax, s->relax_every, err, sizeof err)) {
      app_message(a, "%s", err);
      s->relax = c->relax, s->relax_every = c->relax_every;
    } else {
      c->relax = s->relax, c->relax_every = s->relax_every;
      app_message(a, "relaxation %g every %d steps%s", s->relax, s->relax_every, s->relax > 0 ? "" : " (off)");
    }
  }
  if (s->lcfl != c->lcfl) {
    if (vx_sim_set_lcfl(a->sim, s->lcfl, err, sizeof err)) {
      app_message(a, "%s", err);
      s->lcfl = c->lcfl;
    } else {
      c->lcfl = s->lcfl;
      if (s->lcfl > 0) app_message(a, "substeps keep dt*max|grad u| <= %g", s->lcfl);
      else app_message(a, "substeps off");
    }
  }
  if (s->remesh_every != c->remesh_every || s->remesh_h != c->remesh_h || s->remesh_drop != c->remesh_drop) {
    if (vx_sim_set_remesh(a->sim, s->remesh_every, s->remesh_h, s->remesh_drop, err, sizeof err)) {
      app_message(a, "%s", err);
      s->remesh_every = c->remesh_every, s->remesh_h = c->remesh_h, s->remesh_drop = c->remesh_drop;
    } else {
      c->remesh_every = s->remesh_every, c->remesh_h = s->remesh_h, c->remesh_drop = s->remesh_drop;
      if (s->remesh_every > 0)
        app_message(a, "remeshing every %d steps on h = %g, drop %g", s->remesh_every,
                    s->remesh_h > 0 ? s->remesh_h : vx_sim_params_get(a->sim)->sigma, s->remesh_drop);
      else
        app_message(a, "remeshing off");
    }
  }
}

/* vx_sim_dt_advice for the parameters in effect: its warning stays on screen (yellow) until the
 * next change of dt, viscosity or lattice spacing says otherwise; the HUD's LCFL number follows
 * the new dt at once. */
static void advise_dt(app *a) {
  char msg[256];
  int rc = vx_sim_dt_advice(a->sim, vx_sim_params_get(a->sim)->dt, msg, sizeof msg);
  a->advice[0] = 0;
  if (rc < 0) {
    app_message(a, "no dt advice: %s", msg);
    return;
  }
  if (rc > 0) {
    snprintf(a->advice, sizeof a->advice, "%s", msg);
    app_message(a, "%s", a->advice);
  }
  vx_health h;
  if (vx_sim_health(a->sim, &h, msg, sizeof msg) >= 0) a->lcfl = h.lcfl;
}

/* Leaf size, backend, precision: a new engine around the current particles. */
static void apply_engine(app *a) {
  char err[512];
  app_settings *s = &a->set, *c = &a->cur;
  if (s->leaf == c->leaf && s->backend == c->backend && s->precision == c->precision) return;
  if (rebuild_sim(a, err, sizeof err)) {
    app_message(a, "engine not rebuilt: %s", err);
    s->leaf = c->leaf, s->backend = c->backend, s->precision = c->precision;
    return;
  }
  app_message(a, "engine rebuilt: %s backend, %s, leaf size %d (state kept)", vx_backend_name((vx_backend)s->backend),
              vx_precision_name((vx_precision)s->precision), s->leaf);
  c->leaf = s->leaf, c->backend = s->backend, c->precision = s->precision;
}

/* After dt changed from dt_before: relaxation and remeshing keep their rates in time
 * (vx_control_rates_for_dt), unless the same change set them too; 1 when either moved. */
static int keep_control_rates(app *a, double dt_before) {
  app_settings *s = &a->set, *c = &a->cur;
  double f = c->relax;
  int k = c->remesh_every, moved = 0;
  vx_control_rates_for_dt(dt_before, c->dt, &f, &k);
  if (s->relax == c->relax && f != c->relax) s->relax = f, moved = 1;
  if (s->remesh_every == c->remesh_every && k != c->remesh_every) s->remesh_every = k, moved = 1;
  return moved;
}

/* Apply what the panel and the keys changed. Failures revert the setting and say why on screen. */
static void apply_settings(app *a) {
  char err[512];
  app_settings *s = &a->set, *c = &a->cur;
  int advise = s->dt != c->dt || s->viscosity != c->viscosity || s->remesh_h != c->remesh_h || s->sigma != c->sigma;
  const double dt_before = c->dt;
  apply_physics(a);
  const int rates = c->dt != dt_before && keep_control_rates(a, dt_before);
  apply_control(a);
  if (rates) { /* what apply_control set, and why (a dt warning below still has the last word) */
    char rm[48] = "remeshing off";
    if (c->remesh_every > 0) snprintf(rm, sizeof rm, "remeshing every %d steps", c->remesh_every);
    app_message(a, "dt %g -> %g: relaxation %.4g every %d steps, %s (their rates in time kept)", dt_before, c->dt,
                c->relax, c->relax_every, rm);
  }
  if (advise) advise_dt(a);
  apply_engine(a);
  if (s->scene != c->scene) {
    if (load_scene(a, s->scene, 1, err, sizeof err)) {
      app_message(a, "scene not loaded: %s", err);
      s->scene = c->scene;
    } else {
      app_message(a, "scene %s loaded", a->scenes[s->scene].name);
    }
  }
  /* what waits for a reset */
  a->pending[0] = 0;
  if (s->tracers != c->tracers)
    snprintf(a->pending, sizeof a->pending, "%lld tracers: applies on reset (R)", s->tracers);
  c->steps_per_frame = s->steps_per_frame;
  c->running = s->running;
  c->opacity_level = s->opacity_level;
  c->follow = s->follow;
  c->show_panel = s->show_panel;
  c->show_help = s->show_help;
  c->show_hud = s->show_hud;
  c->colour = s->colour;
  c->style = s->style;
  /* vsync is the window's business (app_window.c compares set and cur) */
}

/* ------------------------------------------------------------------ the frame */

/* The scene as the window runs it now: the loaded scene's rings, seed and run length, with every
 * parameter as the panel (and the command line) set it: σ absolute, the backend and precision in
 * effect, the tracer count a reset would use. */
static void scene_from_settings(const app *a, vx_scene *sc) {
  const app_settings *s = &a->set;
  *sc = a->scene;
  sc->kernel = (vx_kernel)s->kernel, sc->sigma = s->sigma, sc->dt = s->dt;
  sc->integrator = (vx_integrator)s->integrator, sc->stretching = (vx_stretching)s->stretching;
  sc->tracer_every = s->tracer_every;
  sc->order = s->order, sc->leaf_size = s->leaf, sc->direct = s->direct;
  sc->backend = (vx_backend)s->backend, sc->precision = (vx_precision)s->precision;
  sc->relax = s->relax, sc->relax_every = s->relax_every, sc->lcfl = s->lcfl;
  sc->remesh_every = s->remesh_every, sc->remesh_h = s->remesh_h, sc->remesh_drop = s->remesh_drop;
  sc->viscosity = s->viscosity, sc->remesh_coarsen = s->remesh_coarsen;
  if (a->sim) sc->conserve = vx_sim_params_get(a->sim)->conserve; /* the scene's or --conserve */
  vx_scene_set_tracers(sc, s->tracers);
  /* the view as it is, so that the saved scene opens on it (unless zoomed out past the scene bounds) */
  double eye[3], right[3], up[3], fwd[3];
  rd_camera_basis(&a->cam, eye, right, up, fwd);
  int fits = 1;
  for (int i = 0; i < 3; ++i) fits &= fabs(eye[i]) <= VX_SCENE_LEN_MAX && fabs(a->cam.target[i]) <= VX_SCENE_LEN_MAX;
  if (fits) {
    sc->camera.has_position = sc->camera.has_target = 1;
    memcpy(sc->camera.position, eye, sizeof eye);
    memcpy(sc->camera.target, a->cam.target, sizeof eye);
  }
  sc->camera.follow = s->follow;
}

/* Ctrl+S / "Save scene": NAME-saved-YYYYmmdd-HHMMSS.scene in the current directory; the file name
 * or the error on screen. */
static void save_scene(app *a) {
  vx_scene sc;
  scene_from_settings(a, &sc);
  char stamp[32], path[160], note[1024], err[512];
  time_t now = time(NULL);
  struct tm tm;
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
  snprintf(path, sizeof path, "%.64s-saved-%s.scene", a->scenes[a->set.scene].name, stamp);
  snprintf(note, sizeof note, "saved by the vortexfmm window from %.600s at t = %.9g (step %lld): the panel's settings",
           a->scenes[a->set.scene].path, app_sim_time(a), app_sim_steps(a));
  if (vx_scene_write(path, &sc, note, err, sizeof err)) app_message(a, "scene not saved: %s", err);
  else app_message(a, "scene saved as %s", path);
}

/* A ring launched from the camera's eye along its view (vortex/launch.h) with the panel's radius,
 * circulation and core; the particles grow in place (no restart) and the renderer follows at the
 * hand-over, as after a remeshing. */
static void launch_ring(app *a, const char *how) {
  char err[512];
  if (a->blown_up) { app_message(a, "no launch into a blown-up state: reset (R) first"); return; }
  vx_launch L;
  vx_launch_defaults(&a->scene, a->sim, &L);
  L.radius = a->set.launch_radius, L.circulation = a->set.launch_circ, L.core = a->set.launch_core;
  double eye[3], right[3], up[3], fwd[3];
  rd_camera_basis(&a->cam, eye, right, up, fwd);
  vx_launch_aim(&L, eye, fwd);
  int ne = vx_sim_n_elements(a->sim), nt = vx_sim_n_tracers(a->sim);
  double t0 = app_now();
  if (vx_launch_ring(a->sim, &a->scene, &L, err, sizeof err)) { app_message(a, "ring not launched: %s", err); return; }
  a->ms_launch = 1e3 * (app_now() - t0);
  a->state_version++;
  a->launched_frame++;
  readout_drop(a); /* the figure was of the state before */
  app_colour_rings_changed(a);
  app_message(a, "ring %d launched%s: +%d elements, +%d tracers (%.1f ms); Shift+L removes it", vx_sim_n_rings(a->sim) - 1, how,
              vx_sim_n_elements(a->sim) - ne, vx_sim_n_tracers(a->sim) - nt, a->ms_launch);
}

/* The last launched ring taken out again (sim.h: vx_sim_remove_ring says what that means after a remeshing). */
static void remove_ring(app *a) {
  char err[512];
  int ne = vx_sim_n_elements(a->sim), nt = vx_sim_n_tracers(a->sim);
  double t0 = app_now();
  int rc = vx_sim_remove_ring(a->sim, err, sizeof err);
  if (rc == 1) { app_message(a, "no launched ring to remove"); return; }
  if (rc) { app_message(a, "ring not removed: %s", err); return; }
  a->ms_launch = 1e3 * (app_now() - t0);
  a->state_version++;
  readout_drop(a); /* the figure was of the state before */
  app_colour_rings_changed(a);
  app_message(a, "last launched ring removed: -%d elements, -%d tracers (%.1f ms)", ne - vx_sim_n_elements(a->sim),
              nt - vx_sim_n_tracers(a->sim), a->ms_launch);
}

/* --launch-ring STEP: launched in the frame whose steps take step STEP, before them. */
static void scripted_launches(app *a, int n) {
  long long done = app_sim_steps(a);
  for (int i = 0; i < a->opt.n_launch; ++i)
    if (a->opt.launch_steps[i] > done && a->opt.launch_steps[i] <= done + n) launch_ring(a, " (--launch-ring)");
}

/* The view's own action, taken in every frame (the simulation thread's batch in flight or not):
 * the scene's camera, its view and its follow mode where it sets one. */
static void take_view_actions(app *a) {
  if (!a->act_camera_reset) return;
  a->act_camera_reset = 0;
  rd_camera_reset(&a->cam);
  if (a->scene.camera.follow >= 0) a->set.follow = a->scene.camera.follow;
}

/* Actions raised by keys and panel that change the simulation or read it: reset, scene saved,
 * rings launched and removed. */
static void take_actions(app *a) {
  if (a->act_save_scene) {
    a->act_save_scene = 0;
    save_scene(a);
  }
  if (a->act_reset) {
    a->act_reset = 0;
    char e2[512];
    if (load_scene(a, a->set.scene, 0, e2, sizeof e2)) app_message(a, "reset failed: %s", e2);
    else app_message(a, "reset: %s, %d tracers", a->scenes[a->set.scene].name, vx_sim_n_tracers(a->sim));
  }
  if (a->act_launch) {
    a->act_launch = 0;
    launch_ring(a, "");
  }
  if (a->act_unlaunch) {
    a->act_unlaunch = 0;
    remove_ring(a);
  }
}

/* The simulation stopped: it blew up (rc VX_SIM_BLOWUP) or a step failed (-1), err saying why.
 * Headless runs end there (3 or -1). The window pauses, shows why (red) and offers a reset; it
 * gives up (-1) only when the state can no longer be read back (the backend itself failed). */
static int sim_stopped(app *a, int rc, char *err, size_t errlen) {
  if (!a->window) return rc == VX_SIM_BLOWUP ? 3 : -1;
  if (rc != VX_SIM_BLOWUP) {
    vx_health h;
    char e2[256];
    int hr = vx_sim_health(a->sim, &h, e2, sizeof e2);
    if (hr < 0) return -1;
    if (hr == VX_SIM_BLOWUP) {
      rc = hr;
      snprintf(err, errlen, "%s", e2);
    }
  }
  a->blown_up = rc == VX_SIM_BLOWUP;
  a->set.running = a->cur.running = 0;
  snprintf(a->halt, sizeof a->halt, "%s%.200s", a->blown_up ? "" : "step failed: ", err);
  app_message(a, "%s", a->halt);
  return 0;
}

/* A batch's outcome: the state's version, the HUD's numbers and the pace, then what sim_stopped
 * makes of a blow-up or failure (run_steps and the simulation thread's batches alike). 0, or
 * sim_stopped's. */
static int finish_steps(app *a, const app_steps *j, char *err, size_t errlen) {
  a->state_version += j->tried; /* a failed step may have moved (or remeshed) the particles too */
  if (j->tried > 0) a->eval_version = a->state_version;
  if (j->done > 0) a->levels = j->levels, a->tracer_span = j->tracer_span;
  a->steps_last = j->done;
  a->ms_tree = j->ms_tree, a->ms_far = j->ms_far, a->ms_near = j->ms_near;
  a->ms_integrate = j->ms_integrate, a->ms_remesh = j->ms_remesh, a->ms_step = j->ms_step;
  a->ms_health = j->ms_health;
  a->pace.steps += j->done;
  a->pace.step_ms += j->ms_step;
  if (j->tried > 0) a->pace.busy_s += j->t1 - j->t0;
  if (j->done > 0) app_rate_add(&a->rate, j->t1, a->pace.steps);
  if (j->n == 0) app_rate_clear(&a->rate); /* paused: the rate starts again with the steps */
  if (j->rc) {
    snprintf(err, errlen, "%s", j->err);
    return sim_stopped(a, j->rc, err, errlen);
  }
  if (j->tried == 0) return 0;
  a->halt[0] = 0; /* a good step: a failed one's notice is over */
  if (j->health) snprintf(err, errlen, "%s", j->err);
  if (j->health < 0) return -1;
  a->lcfl = j->lcfl;
  a->energy_ratio = j->energy_ratio;
  a->energy_rise = j->energy_rise;
  return j->health ? sim_stopped(a, j->health, err, errlen) : 0;
}

/* The octree's occupancy histogram for the opacity, when the state shown moved or the level changed:
 * the engine's own bin[] (paper §2.1) when asked for, readable (the simulation is the render
 * thread's) and of this state's evaluation (FMM, not direct summation); else binned again by the
 * renderer from the particles it holds. */
static int hand_hist(app *a, int readable, char *err, size_t errlen) {
  int level = a->set.opacity_level > 0 ? a->set.opacity_level : (a->levels > 0 ? a->levels : DEFAULT_HIST_LEVEL);
  if (a->hist_state == a->shown.version && a->hist_level_built == level) return 0;
  int done = 0;
  if (readable && a->set.opacity_level == 0 && !a->shown.prm.direct && a->eval_version == a->shown.version) {
    rd_hist h;
    memset(&h, 0, sizeof h);
    if (fmm_occupancy(vx_sim_engine(a->sim), &h.levels, h.lo, &h.side, &h.bins, &h.on_device) == 0) {
      if (rd_set_hist(a->rd, &h, err, errlen)) return -1;
      level = h.levels;
      done = 1;
    }
  }
  if (!done && rd_build_hist(a->rd, level, err, errlen)) return -1;
  a->hist_state = a->shown.version;
  a->hist_level_built = level;
  a->hist_octree = done; /* the HUD says which of the two the opacity reads */
  return 0;
}

/* The state on screen (a->shown) to the renderer: its particles when they changed (a remeshing
 * changes their count too) and its histogram; the camera follows the rings. readable: the simulation
 * is the render thread's, so the tracer colours (made from its field) and the engine's histogram may
 * be taken; while the simulation thread holds it, a new colour mode waits for the batch's end. A
 * blown-up state is drawn as it is, but neither binned nor followed: its positions may not be finite
 * (the last good histogram and camera stay). */
static int hand_to_renderer(app *a, int readable, char *err, size_t errlen) {
  rd_particles *p = &a->shown.p;
  /* histogram cells (B): asked at the octree's finest level (its leaves), read off the histogram
   * of the same cube; the renderer draws a coarser level when they are too many (rd_stats) */
  a->set.style.boxes_level = a->levels > 0 ? a->levels : 0;
  const rd_style *st = &a->set.style;
  double t0 = app_now();
  if (readable && app_colour_prepare(a, p, err, errlen)) return -1;
  int colour = readable ? a->set.colour : a->up_colour;
  if (a->up_state != a->shown.version || a->up_fraction != st->fraction || a->up_elements != st->show_elements ||
      a->up_interop != st->interop || a->up_colour != colour) { /* the point buffers change with the particles */
    if (rd_set_particles(a->rd, p, st, err, errlen)) return -1;
    a->up_state = a->shown.version;
    a->up_fraction = st->fraction;
    a->up_elements = st->show_elements;
    a->up_interop = st->interop;
    a->up_colour = colour;
  }
  if (!a->blown_up && (st->opacity || st->show_boxes || st->show_cube) && hand_hist(a, readable, err, errlen)) return -1;
  a->ms_upload = 1e3 * (app_now() - t0);
  a->ms_follow = 0.0;
  if (a->set.follow && !a->blown_up) {
    double c[3], tf = app_now();
    if (rd_element_centroid(a->rd, c, err, errlen)) return -1;
    memcpy(a->cam.target, c, sizeof c);
    a->ms_follow = 1e3 * (app_now() - tf);
  }
  return 0;
}

/* Whether the steps run on the simulation thread: the window's choice (a->stepper), and only while
 * the backend is cpu. On cuda a step takes milliseconds and the renderer reads the particles in
 * device memory (interop) that a step there would be writing: the render loop steps, as it did. */
static int steps_threaded(const app *a) {
  return a->stepper && vx_sim_params_get(a->sim)->backend == VX_BACKEND_CPU;
}

/* The panel or the keys asked for what only the render thread does to the simulation between two
 * batches (a setting, an action, a pause, a colour made from the flow): the batch in flight then
 * ends after its current step. */
static int wants_sim(const app *a) {
  const app_settings *s = &a->set, *c = &a->cur;
  if (a->act_step || a->act_reset || a->act_save_scene || a->act_launch || a->act_unlaunch || !s->running) return 1;
  return s->dt != c->dt || s->sigma != c->sigma || s->integrator != c->integrator || s->stretching != c->stretching ||
         s->tracer_every != c->tracer_every ||
         s->kernel != c->kernel || s->order != c->order || s->direct != c->direct || s->relax != c->relax ||
         s->relax_every != c->relax_every || s->lcfl != c->lcfl || s->remesh_every != c->remesh_every ||
         s->remesh_h != c->remesh_h || s->remesh_drop != c->remesh_drop || s->viscosity != c->viscosity ||
         s->remesh_coarsen != c->remesh_coarsen ||
         s->leaf != c->leaf || s->backend != c->backend || s->precision != c->precision || s->scene != c->scene ||
         s->colour != a->up_colour;
}

/* A frame while the simulation thread holds the simulation: the last completed state is drawn; what
 * the UI asked of the simulation waits for the batch's end, which it hastens. */
static int update_in_flight(app *a, char *err, size_t errlen) {
  if (wants_sim(a)) app_stepper_stop(a->stepper);
  a->pace.busy = a->pace.in_flight = 1;
  if (hand_to_renderer(a, 0, err, errlen)) return -1;
  a->frame++;
  return 0;
}

/* n steps in the render loop, then their state to the renderer. 0, or finish_steps' code. */
static int run_steps(app *a, int n, char *err, size_t errlen) {
  app_steps j;
  memset(&j, 0, sizeof j);
  j.n = n;
  a->pace.busy = n > 0;
  app_steps_run(a->sim, &j, NULL);
  int rc = finish_steps(a, &j, err, errlen);
  if (rc) return rc;
  readout_poll(a);
  return app_shown_take(a, 0, err, errlen) || hand_to_renderer(a, 1, err, errlen) ? -1 : 0;
}

/* The simulation thread's path: the state as it is now goes on screen (copied), then the next n
 * steps go to the thread; the simulation is not read again until they are taken back. */
static int start_steps(app *a, int n, char *err, size_t errlen) {
  app_steps j;
  memset(&j, 0, sizeof j);
  j.n = n;
  if (n == 0) (void)finish_steps(a, &j, err, errlen); /* nothing to run: the HUD says paused */
  readout_poll(a);
  if (app_shown_take(a, 1, err, errlen) || hand_to_renderer(a, 1, err, errlen)) return -1;
  if (n == 0) return 0;
  a->pace.busy = a->pace.in_flight = 1;
  a->pace.batch_t0 = app_now();
  app_stepper_start(a->stepper, a->sim, &j);
  return 0;
}

/* A doubling of the remeshing lattice (vx_sim_params.remesh_coarsen), said on screen once; the HUD
 * keeps the spacing and sigma in use. Between batches of steps only (the stepper holds the sim). */
static void say_coarsening(app *a) {
  const vx_remesh_stats *r = vx_sim_remesh_stats(a->sim);
  if (r->coarsenings == a->coarsenings) return;
  if (r->coarsenings > a->coarsenings)
    app_message(a, "t = %.3g: the field spread: the lattice coarsened to h = %.3g, sigma %.3g", app_sim_time(a), r->h,
                vx_sim_params_get(a->sim)->sigma);
  a->coarsenings = r->coarsenings;
}

int app_update(app *a, char *err, size_t errlen) {
  take_view_actions(a);
  a->pace.busy = a->pace.in_flight = 0;
  if (a->stepper && app_stepper_held(a->stepper)) { /* a batch on the simulation thread */
    app_steps j;
    if (!app_stepper_take(a->stepper, &j)) return update_in_flight(a, err, errlen);
    int rc = finish_steps(a, &j, err, errlen);
    if (rc) return rc;
  }
  say_coarsening(a);
  apply_settings(a);
  a->launched_frame = 0;
  take_actions(a);
  int n = a->blown_up ? 0 : (a->set.running ? a->set.steps_per_frame : (a->act_step ? 1 : 0));
  a->act_step = 0;
  scripted_launches(a, n);
  readout_request(a, n);
  a->pace.threaded = steps_threaded(a);
  int rc = a->pace.threaded ? start_steps(a, n, err, errlen) : run_steps(a, n, err, errlen);
  if (rc) return rc;
  a->frame++;
  return 0;
}

int app_draw(app *a, unsigned fbo, int w, int h, float pixel_scale, char *err, size_t errlen) {
  double t0 = app_now();
  int rc = rd_draw(a->rd, &a->cam, &a->set.style, fbo, w, h, pixel_scale, err, errlen);
  a->ms_render = 1e3 * (app_now() - t0) + a->ms_upload; /* draw (with the opacity) + buffers and histogram */
  a->ms_gpu = rd_get_stats(a->rd)->t_gpu;
  return rc;
}

int app_save_png(unsigned fbo, int w, int h, const char *path, char *err, size_t errlen) {
  unsigned char *rgb = malloc(3 * (size_t)w * (size_t)h);
  if (!rgb) { snprintf(err, errlen, "out of host memory for a %dx%d image", w, h); return -1; }
  int rc = rd_read_pixels(fbo, w, h, rgb, err, errlen);
  if (!rc) rc = rd_png_write(path, rgb, w, h, err, errlen);
  free(rgb);
  return rc;
}
