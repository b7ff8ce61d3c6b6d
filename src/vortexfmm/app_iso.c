/* app_iso.c — the vorticity surface on screen: the elements' |ω| of the state shown, on a grid
 * (vortex/vort_grid.h, on the simulation's backend: device memory on cuda, so the renderer's CUDA
 * extraction reads it in place), handed to the renderer (rd_set_field), which draws the surface at
 * the style's level; and the I key's cycle. */
#include "app.h"

#include <stdio.h>

#include "vort_grid.h"

void app_iso_cycle(app *a) {
  rd_style *st = &a->set.style;
  if (!st->show_iso) {
    st->show_iso = 1, st->show_tracers = 1;
    app_message(a, "vorticity surface: over the dye (I again: alone)");
  } else if (st->show_tracers) {
    st->show_tracers = 0;
    app_message(a, "vorticity surface: alone (I again: off)");
  } else {
    st->show_iso = 0, st->show_tracers = 1;
    app_message(a, "vorticity surface: off");
  }
}

void app_iso_free(app *a) {
  vx_vort_grid_destroy(a->iso);
  a->iso = NULL;
  a->iso_state = -1;
}

/* The grid's nodes a side: the setting, or the backend's default. */
static int grid_nodes(const app *a, int on_device) {
  if (a->set.iso_grid >= APP_ISO_GRID_MIN && a->set.iso_grid <= APP_ISO_GRID_MAX) return a->set.iso_grid;
  return on_device ? APP_ISO_GRID_CUDA : APP_ISO_GRID_CPU;
}

int app_iso_hand(app *a, char *err, size_t errlen) {
  const rd_particles *p = &a->shown.p;
  if (!a->set.style.show_iso || a->blown_up || !p->alpha) return 0;
  int n = grid_nodes(a, p->on_device);
  if (a->iso && a->iso_state == a->shown.version && a->iso_n == n && a->iso_on_device == p->on_device) return 0;
  if (a->iso && a->iso_on_device != p->on_device) app_iso_free(a); /* the backend changed */
  if (!a->iso && !(a->iso = vx_vort_grid_create(p->on_device, err, errlen))) return -1;
  a->iso_on_device = p->on_device;
  double t0 = app_now();
  rd_field f;
  f.n = n;
  f.on_device = p->on_device;
  vx_precision prec = p->real == RD_F32 ? VX_FLOAT : VX_DOUBLE;
  if (vx_vort_grid_compute(a->iso, prec, p->pos, p->alpha, p->n_elem, a->shown.prm.sigma, n, &f.values, f.lo, &f.side,
                           &f.vmax, err, errlen) ||
      rd_set_field(a->rd, &f, err, errlen))
    return -1;
  a->ms_iso_grid = 1e3 * (app_now() - t0);
  a->iso_state = a->shown.version;
  a->iso_n = n;
  return 0;
}
