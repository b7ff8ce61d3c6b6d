/* app_shown.c — the state on screen (app.h: app_shown): the particles the renderer is handed and
 * the readouts the HUD, the panel and the recording show with them, taken from the simulation while
 * it is the render thread's. In the render loop (headless, cuda, --frames) they are taken after the
 * frame's steps and the particles are the simulation's own arrays, as they always were. With the
 * simulation thread (app_steps.c) they are taken between two batches and the particles are copied
 * into host arrays that only the render thread touches: rd_set_particles, the renderer's histogram
 * and the camera's follow read those while the next batch moves the simulation's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "diag.h"

/* buf holds at least bytes (grown, never shrunk; its contents are not kept). 0, or -1 with err. */
static int reserve(void **buf, size_t *cap, size_t bytes, char *err, size_t errlen) {
  if (bytes <= *cap) return 0;
  void *p = malloc(bytes);
  if (!p) { snprintf(err, errlen, "out of host memory for the state on screen (%zu bytes)", bytes); return -1; }
  free(*buf);
  *buf = p;
  *cap = bytes;
  return 0;
}

/* The particles copied into host memory the simulation thread never writes (cpu backend: the raw
 * arrays are host arrays). */
static int copy_particles(app_shown *s, char *err, size_t errlen) {
  rd_particles *p = &s->p;
  size_t real = p->real == RD_F32 ? sizeof(float) : sizeof(double);
  size_t bp = 3 * real * ((size_t)p->n_elem + (size_t)p->n_tracer), ba = 3 * real * (size_t)p->n_elem;
  if (p->on_device) { snprintf(err, errlen, "the state on screen is copied on the cpu backend only"); return -1; }
  if (reserve(&s->pos, &s->cap_pos, bp + 1, err, errlen) || reserve(&s->alpha, &s->cap_alpha, ba + 1, err, errlen)) return -1;
  memcpy(s->pos, p->pos, bp);
  if (p->alpha) memcpy(s->alpha, p->alpha, ba);
  p->pos = s->pos;
  p->alpha = p->alpha ? s->alpha : NULL;
  return 0;
}

/* The leapfrog passages of the state taken (passage.h), from its rings' centroids at most every
 * APP_PASSAGE_PERIOD_S of wall time: a passage takes far longer than that at any speed the window
 * steps, so none is missed. A failed copy skips the count (it is a readout, not the run). */
#define APP_PASSAGE_PERIOD_S 0.05
static void count_passages(app *a) {
  app_shown *s = &a->shown;
  double now = app_now();
  if (s->n_rings < 2 || a->blown_up || a->mpi || now - s->passage_wall < APP_PASSAGE_PERIOD_S) return; /* mpi: a share */
  s->passage_wall = now;
  int n = vx_sim_n_elements(a->sim);
  char err[256];
  if (reserve((void **)&s->ring_buf, &s->cap_ring_buf, sizeof(double) * 6 * (size_t)n + 1, err, sizeof err)) return;
  if (vx_sim_get_elements(a->sim, s->ring_buf, s->ring_buf + 3 * (size_t)n, err, sizeof err)) return;
  vx_diag d;
  vx_diag_from_arrays(n, s->ring_buf, s->ring_buf + 3 * (size_t)n, vx_sim_rings(a->sim), vx_sim_n_rings(a->sim), NULL, &d);
  d.t = s->t;
  vx_passages_update(&s->passages, &d);
}

/* The readouts shown beside the particles (a setting applied between two steps shows at once). */
static void take_readouts(app *a) {
  app_shown *s = &a->shown;
  const vx_sim *sim = a->sim;
  s->t = app_sim_time(a);
  s->steps = app_sim_steps(a);
  s->n_rings = vx_sim_n_rings(sim);
  (void)vx_sim_added_rings(sim, &s->n_added);
  s->substeps = vx_sim_last_stats(sim)->substeps;
  s->prm = *vx_sim_params_get(sim);
  s->remesh = *vx_sim_remesh_stats(sim);
  count_passages(a);
}

int app_shown_take(app *a, int copy, char *err, size_t errlen) {
  app_shown *s = &a->shown;
  take_readouts(a);
  if (copy && s->pos && s->p.pos == s->pos && s->version == a->state_version) return 0; /* copied already */
  int on_device = 0;
  const float *value = s->p.value; /* the tracer colours: set at the hand-over */
  memset(&s->p, 0, sizeof s->p);
  s->p.pos = vx_sim_positions_raw(a->sim, &on_device);
  s->p.alpha = vx_sim_strengths_raw(a->sim, NULL);
  s->p.value = value;
  s->p.n_elem = vx_sim_n_elements(a->sim);
  s->p.n_tracer = vx_sim_n_tracers(a->sim);
  s->p.real = s->prm.precision == VX_FLOAT ? RD_F32 : RD_F64;
  s->p.on_device = on_device;
  if (copy && copy_particles(s, err, errlen)) return -1;
  s->version = a->state_version;
  return 0;
}

void app_shown_free(app_shown *s) {
  free(s->pos);
  free(s->alpha);
  free(s->ring_buf);
  memset(s, 0, sizeof *s);
}
