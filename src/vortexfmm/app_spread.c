/* app_spread.c — the picture of a flow spread over several processes (mpirun, headless frames): each
 * process draws its own tracers and the renderer sums the images (render.h, rd_group). So that the sum
 * is the picture one process would draw, each process draws exactly the tracers of its share that one
 * process would — those of the whole flow's even subset (render_points.c), found by their places in the
 * whole flow (dist/dsim.h, vx_dsim_tracer_ids) — and colours them by the ring of their place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "app_mpi.h"

/* Whether the tracer at place g of n is one of the even subset of m (point i of the subset is tracer
 * i·n/m, as render_points.c takes it): the one i that could name g is the least with i·n/m >= g. */
static int in_subset(long long g, long long n, long long m) {
  const long long i = (g * m + n - 1) / n;
  return i < m && i * n / m == g;
}

int app_spread_draw(app *a, rd_particles *p, char *err, size_t errlen) {
  if (!a->mpi) return 0;
  const float f = a->set.style.fraction;
  const long long layout = app_mpi_layout(a->mpi); /* the same on every process: the sum below is collective */
  if (layout != a->draw_layout || f != a->draw_fraction || a->draw_host == NULL) {
    const long long n = app_mpi_sum(p->n_tracer);
    const double *id = app_mpi_tracer_ids(a->mpi);
    long long m = llround((double)(f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f) * (double)n); /* as rd_set_particles */
    if (m < 1 && f > 0.0f) m = 1;
    int ok = 1;
    if (a->cap_draw_host < (size_t)p->n_tracer + 1) {
      int *q = realloc(a->draw_host, sizeof(int) * ((size_t)p->n_tracer + 1));
      ok = q != NULL;
      if (ok) a->draw_host = q, a->cap_draw_host = (size_t)p->n_tracer + 1;
      else snprintf(err, errlen, "out of host memory for the tracers drawn");
    }
    int k = 0;
    for (int i = 0; ok && i < p->n_tracer; i++)
      if (m > 0 && in_subset((long long)id[i], n, m)) a->draw_host[k++] = i;
    if (ok && p->on_device)
      ok = vx_mem_reserve(&a->draw_list, sizeof(int) * ((size_t)k + 1), 1, err, errlen) == 0 &&
           (k == 0 || vx_device_upload(a->draw_list.p, a->draw_host, sizeof(int) * (size_t)k, err, errlen) == 0);
    if (app_mpi_join(ok ? 0 : -1, err, errlen)) return -1;
    a->n_draw = k, a->draw_layout = layout, a->draw_fraction = f;
  }
  p->draw = p->on_device ? (const int *)a->draw_list.p : a->draw_host;
  p->n_draw = a->n_draw;
  return 0;
}

void app_spread_labels(const app *a, int nt, const float *whole, float *label) {
  const double *id = app_mpi_tracer_ids(a->mpi);
  for (int i = 0; i < nt; i++) label[i] = whole[(long long)id[i]];
}

void app_spread_free(app *a) {
  vx_mem_free(&a->draw_list, 1);
  free(a->draw_host);
  a->draw_host = NULL;
  a->cap_draw_host = 0;
}
