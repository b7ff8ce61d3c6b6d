/* app_core.c — the program's core, shared by the window and the headless images (app.h): the
 * start (scenes listed, the first simulation, the readout, the simulation thread), the on-screen
 * messages, the simulated time across engine rebuilds and the shutdown. The rest of the app's life
 * is in its own files: app_scenes.c (the picker's list), app_sim.c (a simulation started, reset,
 * rebuilt), app_settings.c (the panel's changes applied), app_actions.c (reset, save, launch) and
 * app_frame.c (a frame's steps and the hand-off to the renderer). No window-system code here. */
#include "app.h"
#include "app_mpi.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>


void app_message(app *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a->message, sizeof a->message, fmt, ap);
  va_end(ap);
  a->message_until = app_now() + 6.0;
  if (!a->opt.quiet && app_mpi_rank() == 0) fprintf(stderr, "vortexfmm: %s\n", a->message); /* mpirun: rank 0 speaks */
}

double app_sim_time(const app *a) { return a->t_offset + (a->sim ? vx_sim_time(a->sim) : 0.0); }
long long app_sim_steps(const app *a) { return a->steps_offset + (a->sim ? vx_sim_steps_done(a->sim) : 0); }

/* The window steps on a thread of its own (while the backend is cpu: app_frame.c, steps_threaded) unless told
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
  if (!(a->acc = vx_acc_create(VX_ACC_SAMPLE, VX_ACC_SEED, err, errlen))) return 1;
  a->cuda_ok = vx_cuda_available(a->gpu_name, sizeof a->gpu_name);
  if (app_scenes_list(a, err, errlen)) return 2;
  char path[1024];
  if (app_scene_find(a, o->scene ? o->scene : "leapfrog", path, sizeof path, err, errlen)) return 2;
  vx_scene sc;
  if (vx_scene_load(path, &sc, err, errlen)) return 2;
  int si = app_scene_index(a, path, &sc);
  if (si < 0) { snprintf(err, errlen, "too many scenes (more than %d)", APP_MAX_SCENES); return 2; }
  a->set.style = o->style;
  a->set.opacity_level = o->opacity_level;
  a->set.steps_per_frame = o->steps_per_frame;
  a->set.running = !o->paused;
  a->set.follow = o->follow || sc.camera.follow == 1;
  a->set.vsync = !o->no_vsync;
  a->set.show_panel = 0; /* a quiet screen: the status line only; Tab and U open the rest */
  a->set.show_hud = 0;
  a->set.iso_grid = o->iso_grid;
  vx_sim_params prm = app_sim_params(&sc, &o->ov);
  prm.verbose = 0;
  app_cpu_tracers(a, &sc, &prm);
  a->tc_on_device = -1;
  int rc = app_sim_start(a, si, &sc, &prm, 0, err, errlen) ? 1 : 0;
  if (app_mpi_size() > 1 && (rc = app_mpi_join(rc, err, errlen)) == 0 && app_mpi_spread(a->sim, &a->mpi, err, errlen))
    rc = 1; /* under mpirun every process made the whole flow; each keeps its share */
  if (rc) return rc;
  a->set.colour = a->cur.colour = app_colour_default(a, &sc);
  if (window && wants_thread(o) && !(a->stepper = app_stepper_create(o->wake, err, errlen))) return 1;
  const long long ne = app_mpi_sum(vx_sim_n_elements(a->sim)), nt = app_mpi_sum(vx_sim_n_tracers(a->sim));
  if (!o->quiet && app_mpi_rank() == 0) {
    const vx_sim_params *P = vx_sim_params_get(a->sim);
    fprintf(stderr,
            "vortexfmm: scene %s (%s): %lld elements, %lld tracers (%.0f%% drawn); %s backend, %s, %s, dt=%g, kernel %s "
            "sigma=%g, %s order %d",
            sc.name, path, ne, nt, 100.0 * a->set.style.fraction, vx_backend_name(P->backend), vx_precision_name(P->precision),
            vx_integrator_name(P->integrator), P->dt, vx_kernel_name(P->kernel), P->sigma,
            P->direct ? "direct summation" : "FMM", P->order);
    if (a->mpi) fprintf(stderr, "; ranks = %d (each draws its share of the tracers, rank 0 the picture)", app_mpi_size());
    fputc('\n', stderr);
  }
  return 0;
}

int app_gl_init(app *a, char *err, size_t errlen) {
  rd_gl_describe(a->gl_desc, sizeof a->gl_desc);
  a->rd = rd_create(err, errlen);
  rd_group g;
  if (a->rd && app_mpi_group(&g)) rd_set_group(a->rd, &g); /* under mpirun: one picture of every process's tracers */
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
  app_iso_free(a);
  app_spread_free(a);
  app_mpi_free(a->mpi);
  a->mpi = NULL;
  vx_sim_destroy(a->sim);
  a->sim = NULL;
  app_shown_free(&a->shown);
}
