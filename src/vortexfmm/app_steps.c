/* app_steps.c — a batch of time steps of the simulation (app.h: app_steps), and the window's
 * simulation thread that runs one batch at a time (app_stepper). On the cpu backend a step of the
 * window's scenes takes seconds on a laptop; run in the render loop it would freeze the window for
 * the whole step. On the thread, the render loop keeps drawing the last completed state
 * (app_shown.c) and takes the finished batch back between frames; the settings and actions the UI
 * asked for are applied then (app_frame.c), so the thread and the render loop never touch the
 * simulation at the same time. The hand-over is one mutex: start and take under it, the thread's
 * wait on one condition variable; the stop request is an atomic the thread reads between steps.
 * The step's own OpenMP regions run in the thread's team. */
#define _POSIX_C_SOURCE 200809L /* pthreads */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_mpi.h"

enum { STEPPER_IDLE = 0, STEPPER_RUNNING, STEPPER_DONE };

struct app_stepper {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t wake;      /* a batch was handed over, or quit */
  int state;                /* STEPPER_*, under mu */
  int quit;                 /* under mu */
  atomic_int stop;          /* end the batch after the step in flight */
  vx_sim *sim;              /* the batch's simulation and the batch (the thread's while RUNNING) */
  app_steps job;
  void (*done)(void);       /* after each batch, once it can be taken */
};

void app_steps_run(vx_sim *sim, app_steps *j, app_stepper *w) {
  j->t0 = app_now();
  j->tried = j->done = j->rc = j->health = 0;
  j->ms_tree = j->ms_far = j->ms_near = j->ms_integrate = j->ms_remesh = j->ms_step = 0.0;
  j->err[0] = 0;
  for (int i = 0; i < j->n; ++i) {
    /* a stop asked for ends the batch after the step in flight: the first always runs (a single
     * step asked while paused is a batch of one that the pause itself asks to stop) */
    if (w && i > 0 && atomic_load_explicit(&w->stop, memory_order_relaxed)) break;
    j->tried++;
    if ((j->rc = app_mpi_step(j->mpi, sim, j->err, sizeof j->err)) != 0) break;
    const vx_step_stats *st = vx_sim_last_stats(sim);
    j->ms_tree += st->t_tree;
    j->ms_far += st->t_far;
    j->ms_near += st->t_near;
    j->ms_integrate += st->t_integrate;
    j->ms_remesh += st->t_remesh;
    j->ms_step += st->t_step;
    j->levels = st->levels;
    j->tracer_span = st->tracer_span;
    j->done++;
  }
  j->ms_health = 0.0;
  if (!j->rc && j->tried > 0) {
    double th = app_now();
    vx_health h;
    memset(&h, 0, sizeof h);
    j->health = vx_sim_health(sim, &h, j->err, sizeof j->err);
    j->lcfl = h.lcfl;
    j->energy_ratio = h.energy / h.energy0;
    j->energy_rise = (h.energy - h.energy_min) / h.energy0;
    j->ms_health = 1e3 * (app_now() - th);
  }
  j->t1 = app_now();
}

static void *stepper_main(void *arg) {
  app_stepper *w = (app_stepper *)arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (w->state != STEPPER_RUNNING && !w->quit) pthread_cond_wait(&w->wake, &w->mu);
    if (w->state != STEPPER_RUNNING) break;
    pthread_mutex_unlock(&w->mu);
    app_steps_run(w->sim, &w->job, w);
    pthread_mutex_lock(&w->mu);
    w->state = STEPPER_DONE;
    if (w->done) w->done();
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

app_stepper *app_stepper_create(void (*done)(void), char *err, size_t errlen) {
  app_stepper *w = calloc(1, sizeof *w);
  if (!w) { snprintf(err, errlen, "out of host memory for the simulation thread"); return NULL; }
  w->done = done;
  atomic_init(&w->stop, 0);
  if (pthread_mutex_init(&w->mu, NULL)) goto fail_mu;
  if (pthread_cond_init(&w->wake, NULL)) goto fail_cond;
  if (pthread_create(&w->thread, NULL, stepper_main, w)) goto fail_thread;
  return w;
fail_thread:
  pthread_cond_destroy(&w->wake);
fail_cond:
  pthread_mutex_destroy(&w->mu);
fail_mu:
  free(w);
  snprintf(err, errlen, "cannot start the simulation thread");
  return NULL;
}

void app_stepper_destroy(app_stepper *w) {
  if (!w) return;
  atomic_store_explicit(&w->stop, 1, memory_order_relaxed);
  pthread_mutex_lock(&w->mu);
  w->quit = 1;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL); /* after the step in flight, if any */
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->mu);
  free(w);
}

void app_stepper_start(app_stepper *w, vx_sim *sim, const app_steps *j) {
  pthread_mutex_lock(&w->mu);
  w->sim = sim;
  w->job = *j;
  atomic_store_explicit(&w->stop, 0, memory_order_relaxed);
  w->state = STEPPER_RUNNING;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->mu);
}

void app_stepper_stop(app_stepper *w) { atomic_store_explicit(&w->stop, 1, memory_order_relaxed); }

int app_stepper_held(app_stepper *w) {
  pthread_mutex_lock(&w->mu);
  int held = w->state != STEPPER_IDLE;
  pthread_mutex_unlock(&w->mu);
  return held;
}

int app_stepper_take(app_stepper *w, app_steps *j) {
  pthread_mutex_lock(&w->mu);
  int done = w->state == STEPPER_DONE;
  if (done) {
    *j = w->job;
    w->state = STEPPER_IDLE;
  }
  pthread_mutex_unlock(&w->mu);
  return done;
}
