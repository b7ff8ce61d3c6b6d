/* app_frame.c — one frame of the app (app.h: app_update, app_draw): the settings and actions taken
 * between two batches of steps, the batch run in the render loop or handed to the simulation thread,
 * its outcome (HUD numbers, a blow-up or failed step), the accuracy readout's requests and figures
 * (vortex/accuracy.h), and the state on screen handed to the renderer with its histogram. */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_mpi.h"
#include "fmm.h"

#define READOUT_PERIOD_S 2.0    /* seconds between two requests of the accuracy readout */
#define DEFAULT_HIST_LEVEL 5    /* octree's level wanted before the first evaluation tells it */

/* ------------------------------------------------------------------ accuracy readout */

/* A new simulation or engine: the figure and any capture in flight belong to the old one. */
void app_readout_drop(app *a) {
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
 * renderer from the particles it holds (under mpirun always: over every process's, render.h rd_group). */
static int hand_hist(app *a, int readable, char *err, size_t errlen) {
  int level = a->set.opacity_level > 0 ? a->set.opacity_level : (a->levels > 0 ? a->levels : DEFAULT_HIST_LEVEL);
  if (a->mpi) level = app_mpi_max(level); /* every process bins at one level: the bins are summed */
  if (a->hist_state == a->shown.version && a->hist_level_built == level) return 0;
  int done = 0;
  if (readable && !a->mpi && a->set.opacity_level == 0 && !a->shown.prm.direct && a->eval_version == a->shown.version) {
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
  if (app_spread_draw(a, p, err, errlen)) return -1; /* under mpirun: the tracers one process would draw */
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
  if (app_iso_hand(a, err, errlen)) return -1;
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
         s->tracer_every != c->tracer_every || s->dye_release != c->dye_release ||
         s->kernel != c->kernel || s->order != c->order || s->direct != c->direct || s->relax != c->relax ||
         s->relax_every != c->relax_every || s->lcfl != c->lcfl || s->remesh_every != c->remesh_every ||
         s->remesh_h != c->remesh_h || s->remesh_drop != c->remesh_drop || s->viscosity != c->viscosity ||
         s->remesh_coarsen != c->remesh_coarsen ||
         s->leaf != c->leaf || s->backend != c->backend || s->precision != c->precision || s->scene != c->scene ||
         s->resolution != c->resolution ||
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

/* n steps in the render loop, the launches due before the next frame's, then the state to the
 * renderer. 0, or finish_steps' code. */
static int run_steps(app *a, int n, char *err, size_t errlen) {
  app_steps j;
  memset(&j, 0, sizeof j);
  j.n = n;
  j.mpi = a->mpi;
  a->pace.busy = n > 0;
  app_steps_run(a->sim, &j, NULL);
  int rc = finish_steps(a, &j, err, errlen);
  if (rc) return rc;
  readout_poll(a);
  app_take_launches(a, a->set.steps_per_frame); /* for the next frame's steps: drawn in this one */
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
  app_take_view_actions(a);
  a->pace.busy = a->pace.in_flight = 0;
  if (a->stepper && app_stepper_held(a->stepper)) { /* a batch on the simulation thread */
    app_steps j;
    if (!app_stepper_take(a->stepper, &j)) return update_in_flight(a, err, errlen);
    int rc = finish_steps(a, &j, err, errlen);
    if (rc) return rc;
  }
  say_coarsening(a);
  app_apply_settings(a);
  a->after_launch = a->launched_frame > 0;
  a->launched_frame = 0;
  app_take_actions(a);
  int n = a->blown_up ? 0 : (a->set.running ? a->set.steps_per_frame : (a->act_step ? 1 : 0));
  a->act_step = 0;
  a->pace.threaded = steps_threaded(a);
  if (a->pace.threaded) app_take_launches(a, n); /* on the render loop: after the steps (run_steps) */
  readout_request(a, n);
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
