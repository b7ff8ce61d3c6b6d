/* app_colour.c — what colours the tracers (app.h: app_colour): the per-tracer values handed to the
 * renderer (rd_particles.value) and the style's tint and range. Ring labels come from the scene
 * (vortex/tracer_colour.h: the tracers are seeded ring by ring), made once per simulation and
 * launch where they are read (under mpirun on the host, then copied); speed, vorticity and height are made from the state where it lives, when the
 * state or the mode changed, so that a frame on the cuda backend brings nothing back to the host
 * but the map's range (two floats, measured at most twice a second in the window, every frame
 * headless so that images do not depend on the machine's speed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_mpi.h"

#define RANGE_PERIOD_S 0.5 /* the window re-measures the colour map's range at most this often */

static const char *kNames[APP_COLOURS] = {"plain", "ring", "speed", "vorticity", "height"};

const char *app_colour_name(int c) { return c >= 0 && c < APP_COLOURS ? kNames[c] : "?"; }

int app_colour_from_name(const char *name) {
  for (int c = 0; c < APP_COLOURS; ++c)
    if (!strcmp(name, kNames[c])) return c;
  return -1;
}

const char *app_colour_quantity(int c) {
  switch (c) {
    case APP_COLOUR_SPEED: return "speed |u| (length/time)";
    case APP_COLOUR_VORTICITY: return "vorticity |w| (1/time)";
    case APP_COLOUR_HEIGHT: return "height along the travel (length)";
    default: return NULL;
  }
}

int app_colour_default(const app *a, const vx_scene *sc) {
  if (a->opt.colour >= 0) return a->opt.colour;
  return sc->n_rings > 1 ? APP_COLOUR_RING : APP_COLOUR_PLAIN;
}

void app_colour_free(app *a) {
  int dev = a->tc_on_device > 0;
  vx_mem_free(&a->tc_rings_dev, dev);
  a->tc_rings_dev_ok = 0;
  vx_mem_free(&a->tc_value, dev);
  vx_mem_free(&a->tc_scratch, dev);
  free(a->tc_rings);
  a->tc_rings = NULL;
  a->tc_on_device = -1;
}

void app_colour_reset(app *a) {
  app_colour_free(a);
  a->tc_state = -1;
  vx_scene_travel(&a->scene, &a->travel);
}

/* The buffers in the simulation's memory, moved when the backend changed. */
static int colour_buffers(app *a, int on_device, int nt, char *err, size_t errlen) {
  if (a->tc_on_device != on_device) {
    float *keep = a->tc_rings; /* host labels stay valid: the tracers keep their order */
    a->tc_rings = NULL;
    app_colour_free(a);
    a->tc_rings = keep;
    a->tc_on_device = on_device;
    a->tc_state = -1;
  }
  size_t bytes = sizeof(float) * ((size_t)nt + 1);
  if (vx_mem_reserve(&a->tc_value, bytes, on_device, err, errlen)) return -1;
  return on_device ? vx_mem_reserve(&a->tc_scratch, 2 * sizeof(float), 1, err, errlen) : 0;
}

/* The label blocks of n tracers: the scene's, then those of the rings launched since (their tracers
 * were appended in launch order, vx_sim_added_rings). */
static void whole_ring_blocks(const app *a, int nt, vx_label_blocks *b) {
  int n_added = 0;
  const vx_sim_added *ad = vx_sim_added_rings(a->sim, &n_added);
  vx_label_blocks_make(&a->scene, ad, n_added, nt, b);
}
static void whole_ring_labels(const app *a, int nt, float *label) {
  vx_label_blocks b;
  whole_ring_blocks(a, nt, &b);
  vx_ring_labels_cpu(&b, nt, label);
}

/* The labels of this process's nt tracers: of the whole flow's (nt_all) by their places under mpirun
 * (app_spread.c). Collective there. 0, or -1 with err. */
static int make_ring_labels(app *a, int nt, float *label, char *err, size_t errlen) {
  if (!a->mpi) {
    whole_ring_labels(a, nt, label);
    return 0;
  }
  const long long all = app_mpi_sum(nt);
  float *whole = malloc(sizeof(float) * ((size_t)all + 1));
  if (whole) {
    whole_ring_labels(a, (int)all, whole);
    app_spread_labels(a, nt, whole, label);
  } else {
    snprintf(err, errlen, "out of host memory for the ring labels of %lld tracers", all);
  }
  free(whole);
  a->tc_layout = app_mpi_layout(a->mpi);
  return app_mpi_join(whole ? 0 : -1, err, errlen);
}

/* A ring launched or removed: the labels are made again at the next frame. */
void app_colour_rings_changed(app *a) {
  free(a->tc_rings);
  a->tc_rings = NULL;
  a->tc_rings_dev_ok = 0;
}

/* The ring labels, made once per simulation and launch: on cuda in device memory from the label
 * blocks (a launch would otherwise fill and upload one float a tracer: 4.4 ms for leapfrog_big's
 * 1.5 million on an H200); under mpirun on the host, by the tracers' places, and uploaded. */
static const float *ring_labels(app *a, int on_device, int nt, char *err, size_t errlen) {
  if (a->mpi && a->tc_layout != app_mpi_layout(a->mpi)) app_colour_rings_changed(a); /* the tracers moved */
  if (on_device && !a->mpi && !a->tc_rings_dev_ok) {
    vx_label_blocks b;
    whole_ring_blocks(a, nt, &b);
    if (vx_mem_reserve(&a->tc_rings_dev, sizeof(float) * ((size_t)nt + 1), 1, err, errlen) ||
        vx_ring_labels_gpu(&b, nt, (float *)a->tc_rings_dev.p, err, errlen))
      return NULL;
    a->tc_rings_dev_ok = 1;
  }
  if (!a->tc_rings && !(on_device && a->tc_rings_dev_ok)) {
    a->tc_rings = malloc(sizeof(float) * ((size_t)nt + 1));
    if (app_mpi_join(a->tc_rings ? 0 : -1, err, errlen)) {
      if (!a->tc_rings) snprintf(err, errlen, "out of host memory for the ring labels");
      return NULL;
    }
    if (make_ring_labels(a, nt, a->tc_rings, err, errlen)) return NULL;
    if (on_device && (vx_mem_reserve(&a->tc_rings_dev, sizeof(float) * ((size_t)nt + 1), 1, err, errlen) ||
                      (nt > 0 && vx_device_upload(a->tc_rings_dev.p, a->tc_rings, sizeof(float) * (size_t)nt, err, errlen))))
      return NULL;
    a->tc_rings_dev_ok = on_device;
  }
  return on_device ? (const float *)a->tc_rings_dev.p : a->tc_rings;
}

/* The quantity's values for the current state, and the map's range when due. */
static int quantity_values(app *a, int mode, int on_device, int nt, char *err, size_t errlen) {
  int fresh = a->tc_state != a->state_version || a->tc_colour != mode;
  if (!fresh) return 0;
  vx_tracer_quantity q = mode == APP_COLOUR_SPEED ? VX_TQ_SPEED : mode == APP_COLOUR_VORTICITY ? VX_TQ_VORTICITY : VX_TQ_HEIGHT;
  float *v = (float *)a->tc_value.p;
  if (vx_tracer_values(a->sim, q, &a->travel, v, err, errlen)) return -1;
  int due = !a->window || a->tc_colour != mode || app_now() - a->tc_range_wall >= RANGE_PERIOD_S;
  if (due) {
    float r[2];
    if (on_device) {
      if (vx_values_range_gpu(v, nt, (float *)a->tc_scratch.p, r, err, errlen)) return -1;
    } else {
      vx_values_range_cpu(v, nt, r);
    }
    app_mpi_range(r); /* under mpirun: of every process's tracers */
    a->tc_range[0] = r[0];
    a->tc_range[1] = r[1] > r[0] ? r[1] : r[0] + 1e-6f; /* a flat field still maps */
    a->tc_range_wall = app_now();
  }
  a->tc_state = a->state_version;
  a->tc_colour = mode;
  return 0;
}

int app_colour_prepare(app *a, rd_particles *p, char *err, size_t errlen) {
  rd_style *st = &a->set.style;
  int mode = a->set.colour, nt = p->n_tracer;
  vx_sim_set_tracer_gradient(a->sim, mode == APP_COLOUR_VORTICITY);
  p->value = NULL;
  st->tint = RD_TINT_PLAIN;
  if (mode == APP_COLOUR_PLAIN || nt <= 0) return 0;
  if (colour_buffers(a, p->on_device, nt, err, errlen)) return -1;
  if (mode == APP_COLOUR_RING) {
    if (!(p->value = ring_labels(a, p->on_device, nt, err, errlen))) return -1;
    st->tint = RD_TINT_CATEGORY;
    return 0;
  }
  char e2[256];
  if (quantity_values(a, mode, p->on_device, nt, e2, sizeof e2)) {
    if (mode != APP_COLOUR_VORTICITY) { snprintf(err, errlen, "%s", e2); return -1; }
    app_message(a, "tracers not coloured by vorticity: %s", e2); /* stretching off: no gradient */
    a->set.colour = APP_COLOUR_PLAIN;
    vx_sim_set_tracer_gradient(a->sim, 0);
    return 0;
  }
  p->value = (const float *)a->tc_value.p;
  st->tint = RD_TINT_MAP;
  st->value_lo = a->tc_range[0];
  st->value_hi = a->tc_range[1];
  return 0;
}
