/* app_actions.c — the actions the keys and the panel raise (app.act_*), taken between two batches of
 * steps (app.h: app_take_actions): reset, the scene saved (settings, view and launched rings), rings
 * launched from the camera and removed, --launch-ring's scripted launches, the scene's camera. */
#define _XOPEN_SOURCE 700 /* localtime_r */
#include "app.h"
#include "app_mpi.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "launch.h"
#include "numerics.h"

/* The rings launched so far (app.launched), after the scene's own: each as it was launched (its centre
 * where it started from, not where it has travelled), so that the saved scene starts with it too. As
 * many as a scene holds (VX_SCENE_MAX_RINGS); the screen says when some are left out. */
static void add_launched(app *a, vx_scene *sc) {
  int n = a->n_launched < APP_MAX_LAUNCHED ? a->n_launched : APP_MAX_LAUNCHED, kept = 0;
  for (int i = 0; i < n && sc->n_rings < VX_SCENE_MAX_RINGS; ++i, ++kept) sc->rings[sc->n_rings++] = a->launched[i];
  if (kept < a->n_launched)
    app_message(a, "the saved scene holds %d of the %d launched rings (a scene has at most %d rings)", kept, a->n_launched,
                VX_SCENE_MAX_RINGS);
}

/* The scene as the window runs it now: the loaded scene's rings, seed and run length, with every
 * parameter as the panel (and the command line) set it: σ absolute, the backend and precision in
 * effect, the tracer count a reset would use. */
static void scene_from_settings(const app *a, vx_scene *sc) {
  const app_settings *s = &a->set;
  *sc = a->scene;
  sc->kernel = (vx_kernel)s->kernel, sc->sigma = s->sigma, sc->dt = s->dt;
  sc->integrator = (vx_integrator)s->integrator, sc->stretching = (vx_stretching)s->stretching;
  sc->tracer_every = s->tracer_every;
  sc->dye_release = s->dye_release;
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
  add_launched(a, &sc);
  char stamp[32], path[160], note[1024], err[512];
  time_t now = time(NULL);
  struct tm tm;
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
  snprintf(path, sizeof path, "%.64s-saved-%s.scene", a->scenes[a->set.scene].name, stamp);
  snprintf(note, sizeof note, "saved by the vortexfmm window from %.600s at t = %.9g (step %lld): the panel's settings%s",
           a->scenes[a->set.scene].path, app_sim_time(a), app_sim_steps(a),
           a->n_launched > 0 ? ", and the launched rings where they were launched (the last [ring] sections)" : "");
  if (vx_scene_write(path, &sc, note, err, sizeof err)) app_message(a, "scene not saved: %s", err);
  else app_message(a, "scene saved as %s", path);
}

/* A launched ring whose core turns faster than the step allows (a thinner core or a stronger
 * circulation than the scene's: numerics.h, vx_numerics_dt_max with the running σ and integrator)
 * lowers dt for the next batch of steps, and the screen says so. */
static void limit_dt_for_ring(app *a, const vx_ring *r) {
  const vx_sim_params *p = vx_sim_params_get(a->sim);
  double lim = vx_numerics_dt_max(vx_numerics_omega(r, p->sigma), p->integrator);
  double dt = vx_numerics_dt_adjust(a->set.dt, lim);
  if (dt == a->set.dt) return;
  app_message(a, "ring %d launched: its core turns faster than dt %g allows (%g turnovers a step at most): dt %g instead",
              vx_sim_n_rings(a->sim) - 1, a->set.dt, vx_numerics_dt_omega_max(p->integrator), dt);
  a->set.dt = dt;
}

/* A ring launched from the camera's eye along its view (vortex/launch.h) with the panel's radius,
 * circulation and core, brought nearer the eye where it would start inside the flow (vx_launch_clear);
 * the particles grow in place (no restart) and the renderer follows at the hand-over, as after a
 * remeshing. */
static void launch_ring(app *a, const char *how) {
  char err[512];
  if (a->blown_up) { app_message(a, "no launch into a blown-up state: reset (R) first"); return; }
  vx_launch L;
  vx_launch_defaults(&a->scene, a->sim, &L);
  L.radius = a->set.launch_radius, L.circulation = a->set.launch_circ, L.core = a->set.launch_core;
  double eye[3], right[3], up[3], fwd[3];
  rd_camera_basis(&a->cam, eye, right, up, fwd);
  vx_launch_aim(&L, eye, fwd);
  double ahead = VX_LAUNCH_AHEAD;
  const int clear = vx_launch_clear(&L, a->sim, &ahead, err, sizeof err); /* not inside the flow: it travels into it */
  if (clear) {
    if (clear > 0)
      app_message(a, "ring not launched: the view starts inside the flow (no place %g to %g radii ahead is a radius clear of "
                     "it): zoom out to launch", VX_LAUNCH_NEAREST, VX_LAUNCH_AHEAD);
    else
      app_message(a, "ring not launched: %s", err);
    return;
  }
  int ne = vx_sim_n_elements(a->sim), nt = vx_sim_n_tracers(a->sim), k;
  const int nr = vx_sim_n_rings(a->sim);
  if (a->mpi && nr > 0) L.tracers = (int)(app_mpi_sum(nt) / nr); /* spread: every process's tracers a ring, as one counts */
  double t0 = app_now();
  vx_scene one; /* the ring as vx_launch_ring makes it: kept for a saved scene */
  (void)vx_sim_added_rings(a->sim, &k);
  int rc = vx_launch_scene(&a->scene, &L, k, &one, err, sizeof err) || vx_launch_ring(a->sim, &a->scene, &L, err, sizeof err);
  const int added = vx_sim_n_elements(a->sim) - ne, added_t = vx_sim_n_tracers(a->sim) - nt; /* before the shares */
  if (a->mpi && (rc = app_mpi_join(rc, err, sizeof err)) == 0) /* every process made the same ring: each keeps its share */
    rc = app_mpi_added(a->mpi, ne, nt, err, sizeof err);
  if (rc) {
    app_message(a, "ring not launched: %s", err);
    return;
  }
  a->ms_launch = 1e3 * (app_now() - t0);
  if (a->n_launched < APP_MAX_LAUNCHED) a->launched[a->n_launched] = one.rings[0];
  a->n_launched++;
  a->state_version++;
  a->launched_frame++;
  app_readout_drop(a); /* the figure was of the state before */
  app_colour_rings_changed(a);
  char where[96] = "";
  if (ahead < VX_LAUNCH_AHEAD) snprintf(where, sizeof where, " %g radii ahead (nearer: clear of the flow)", ahead);
  app_message(a, "ring %d launched%s%s: +%d elements, +%d tracers (%.1f ms); Shift+L removes it", vx_sim_n_rings(a->sim) - 1, how,
              where, added, added_t, a->ms_launch);
  limit_dt_for_ring(a, &one.rings[0]);
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
  if (a->n_launched > 0) a->n_launched--;
  a->state_version++;
  app_readout_drop(a); /* the figure was of the state before */
  app_colour_rings_changed(a);
  app_message(a, "last launched ring removed: -%d elements, -%d tracers (%.1f ms)", ne - vx_sim_n_elements(a->sim),
              nt - vx_sim_n_tracers(a->sim), a->ms_launch);
}

/* The key's launch, and each --launch-ring STEP not yet made whose step comes within the next n
 * steps: made before them. The render loop takes them after a frame's steps, for the next frame's
 * (app_update), so that the launch and the first step at the new counts, which grows both engines'
 * buffers, fall in two frames. */
void app_take_launches(app *a, int n) {
  if (a->act_launch) {
    a->act_launch = 0;
    launch_ring(a, "");
  }
  long long done = app_sim_steps(a);
  for (int i = 0; i < a->opt.n_launch && i < APP_MAX_LAUNCHES; ++i)
    if (!a->launch_taken[i] && a->opt.launch_steps[i] > done && a->opt.launch_steps[i] <= done + n) {
      a->launch_taken[i] = 1;
      launch_ring(a, " (--launch-ring)");
    }
}

/* The view's own action, taken in every frame (the simulation thread's batch in flight or not):
 * the scene's camera, its view and its follow mode where it sets one. */
void app_take_view_actions(app *a) {
  if (!a->act_camera_reset) return;
  a->act_camera_reset = 0;
  rd_camera_reset(&a->cam);
  if (a->scene.camera.follow >= 0) a->set.follow = a->scene.camera.follow;
}

/* Actions raised by keys and panel that change the simulation or read it: reset, scene saved, the
 * last launched ring removed (a launch: app_take_launches). */
void app_take_actions(app *a) {
  if (a->act_save_scene) {
    a->act_save_scene = 0;
    save_scene(a);
  }
  if (a->act_reset) {
    a->act_reset = 0;
    char e2[512];
    if (app_sim_load(a, a->set.scene, 0, e2, sizeof e2)) app_message(a, "reset failed: %s", e2);
    else app_message(a, "reset: %s, %d tracers", a->scenes[a->set.scene].name, vx_sim_n_tracers(a->sim));
  }
  if (a->act_unlaunch) {
    a->act_unlaunch = 0;
    remove_ring(a);
  }
}
