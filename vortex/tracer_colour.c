/* tracer_colour.c — the host side of tracer_colour.h: ring labels and the direction of travel from
 * the scene, the per-tracer values on the cpu backend (OpenMP), and the dispatch to the CUDA twins
 * (tracer_colour_gpu.cu) on cuda. */
#include "tracer_colour.h"

#include <stdio.h>
#include <string.h>

#ifndef VX_HAVE_CUDA
/* CPU-only build: the cuda backend never gets this far (fmm_create refuses it). */
int vx_tracer_values_gpu(vx_tracer_quantity q, const void *d_src, int is_float, int n, const vx_travel *t, float *d_out,
                         char *err, size_t errlen) {
  (void)q; (void)d_src; (void)is_float; (void)n; (void)t; (void)d_out;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_values_range_gpu(const float *d_v, int n, float *d_scratch, float range[2], char *err, size_t errlen) {
  (void)d_v; (void)n; (void)d_scratch; (void)range;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_ring_labels_gpu(const vx_label_blocks *b, int n, float *d_out, char *err, size_t errlen) {
  (void)b; (void)n; (void)d_out;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
#endif

void vx_label_blocks_make(const vx_scene *sc, const vx_sim_added *ad, int n_added, int nt, vx_label_blocks *b) {
  long long tail = 0;
  for (int k = 0; k < n_added; ++k) tail += ad[k].n_tracer;
  const int ns = tail < nt ? nt - (int)tail : 0;
  vx_scene split = *sc;
  vx_scene_set_tracers(&split, ns); /* the shares vx_particles_generate seeds */
  int end = 0;
  b->n = 0;
  for (int r = 0; r < split.n_rings && end < ns; ++r) {
    end = split.rings[r].tracers < ns - end ? end + split.rings[r].tracers : ns;
    b->end[b->n] = end, b->label[b->n++] = (float)r;
  }
  if (end < ns) b->end[b->n] = end = ns, b->label[b->n++] = 0.0f; /* none: a scene without rings has no tracers either */
  for (int k = 0; k < n_added && end < nt && b->n < VX_LABEL_BLOCKS; ++k) {
    end = ad[k].n_tracer < nt - end ? end + ad[k].n_tracer : nt;
    b->end[b->n] = end, b->label[b->n++] = (float)ad[k].ring;
  }
}

void vx_ring_labels_cpu(const vx_label_blocks *b, int n, float *out) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) out[i] = vx_block_label(b, i);
}

void vx_tracer_rings(const vx_scene *sc, int n_tracer, float *label) {
  vx_label_blocks b;
  vx_label_blocks_make(sc, NULL, 0, n_tracer, &b);
  vx_ring_labels_cpu(&b, n_tracer, label);
}

void vx_scene_travel(const vx_scene *sc, vx_travel *t) {
  memset(t, 0, sizeof *t);
  t->dir[2] = 1.0;
  if (sc->n_rings <= 0) return;
  vx_scene_mean_centre(sc, t->origin);
  double d[3] = {0, 0, 0};
  for (int r = 0; r < sc->n_rings; ++r) {
    const vx_ring *g = &sc->rings[r];
    double sgn = g->circulation < 0.0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; ++k) d[k] += sgn * g->axis[k];
  }
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (len < 1e-6 * sc->n_rings) { /* they cancel: the first ring's */
    for (int k = 0; k < 3; ++k) d[k] = (sc->rings[0].circulation < 0.0 ? -1.0 : 1.0) * sc->rings[0].axis[k];
    len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  }
  if (len > 0.0)
    for (int k = 0; k < 3; ++k) t->dir[k] = d[k] / len;
}

void vx_tracer_values_cpu(vx_tracer_quantity q, const void *src, int is_float, int n, const vx_travel *t, float *out) {
  if (is_float) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) out[i] = vx_tq_row_f(q, (const float *)src, (size_t)i, t);
  } else {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) out[i] = vx_tq_row_d(q, (const double *)src, (size_t)i, t);
  }
}

void vx_values_range_cpu(const float *v, int n, float range[2]) {
  float lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi)
  for (int i = 0; i < n; ++i) {
    if (!isfinite(v[i])) continue;
    if (v[i] < lo) lo = v[i];
    if (v[i] > hi) hi = v[i];
  }
  range[0] = lo <= hi ? lo : 0.0f;
  range[1] = lo <= hi ? hi : 0.0f;
}

int vx_tracer_values(vx_sim *s, vx_tracer_quantity q, const vx_travel *t, float *out, char *err, size_t errlen) {
  int n = vx_sim_n_tracers(s), on_device = 0;
  if (n <= 0) return 0;
  const void *src = NULL;
  int is_float = vx_sim_params_get(s)->precision == VX_FLOAT;
  if (q == VX_TQ_HEIGHT) {
    const char *pos = (const char *)vx_sim_positions_raw(s, &on_device);
    src = pos + 3 * (is_float ? sizeof(float) : sizeof(double)) * (size_t)vx_sim_n_elements(s);
  } else {
    if (vx_sim_tracer_field(s, q == VX_TQ_VORTICITY, q == VX_TQ_SPEED ? &src : NULL, q == VX_TQ_VORTICITY ? &src : NULL,
                            err, errlen))
      return -1;
    vx_sim_positions_raw(s, &on_device);
  }
  if (!src) { snprintf(err, errlen, "no velocity gradient at the tracers"); return -1; }
  if (on_device) return vx_tracer_values_gpu(q, src, is_float, n, t, out, err, errlen);
  vx_tracer_values_cpu(q, src, is_float, n, t, out);
  return 0;
}
