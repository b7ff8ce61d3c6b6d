/* reproject.c — the reprojection's geometry, its CPU twin and the backend dispatch (reproject.h). */
#include "reproject.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vx_reproject_geom vx_reproject_geom_make(double sigma, double f, double h) {
  vx_reproject_geom G;
  G.sigma = sigma;
  G.cut = VX_REPROJECT_CUT * sigma;
  G.inv_cell = VX_REPROJECT_CELLS / G.cut;
  G.zeta0 = pow(2.0 * VX_PI * sigma * sigma, -1.5);
  G.f = f;
  G.vol = h * h * h;
  return G;
}

void vx_reproject_ws_free(vx_reproject_ws *w, int on_device) {
  vx_mem *m[] = {&w->keys, &w->keys2, &w->idx, &w->idx2, &w->delta, &w->tmp};
  for (size_t i = 0; i < sizeof m / sizeof m[0]; ++i) vx_mem_free(m[i], on_device);
}

typedef struct {
  uint64_t key;
  uint32_t idx;
} cell_rec;

static int rec_cmp(const void *pa, const void *pb) {
  const cell_rec *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The elements' cell keys sorted ascending with their indices (ties by index). */
static int sort_cells(vx_precision prec, const void *pos, int n, double inv_cell, vx_reproject_ws *w, char *err,
                      size_t errlen) {
  if (n <= 0) n = 0;
  if (vx_mem_reserve(&w->tmp, sizeof(cell_rec) * (size_t)n, 0, err, errlen) ||
      vx_mem_reserve(&w->keys, sizeof(uint64_t) * (size_t)n, 0, err, errlen) ||
      vx_mem_reserve(&w->idx, sizeof(uint32_t) * (size_t)n, 0, err, errlen))
    return -1;
  cell_rec *r = w->tmp.p;
  for (int i = 0; i < n; ++i) {
    r[i].key = prec == VX_FLOAT ? vx_reproject_key_f((const float *)pos + 3 * (size_t)i, inv_cell)
                                : vx_reproject_key_d((const double *)pos + 3 * (size_t)i, inv_cell);
    r[i].idx = (uint32_t)i;
  }
  qsort(r, (size_t)n, sizeof *r, rec_cmp);
  uint64_t *k = w->keys.p;
  uint32_t *x = w->idx.p;
  for (int i = 0; i < n; ++i) k[i] = r[i].key, x[i] = r[i].idx;
  return 0;
}

int vx_reproject_delta_cpu(vx_precision prec, const void *spos, const void *salpha, int ns, const void *tpos,
                           const void *talpha, const void *grad, int nt, const vx_reproject_geom *G, vx_reproject_ws *w,
                           void *delta, char *err, size_t errlen) {
  if (nt <= 0) return 0;
  if (sort_cells(prec, spos, ns, G->inv_cell, w, err, errlen)) return -1;
  const uint64_t *k = w->keys.p;
  const uint32_t *x = w->idx.p;
  if (prec == VX_FLOAT) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int i = 0; i < nt; ++i) vx_reproject_delta_f(spos, salpha, k, x, ns, tpos, talpha, grad, i, G, delta);
  } else {
#pragma omp parallel for schedule(dynamic, 64)
    for (int i = 0; i < nt; ++i) vx_reproject_delta_d(spos, salpha, k, x, ns, tpos, talpha, grad, i, G, delta);
  }
  return 0;
}

#ifndef VX_HAVE_CUDA
int vx_reproject_delta_gpu(vx_precision prec, const void *pos, const void *alpha, const void *grad, int n,
                           const vx_reproject_geom *G, vx_reproject_ws *w, void *delta, char *err, size_t errlen) {
  (void)prec, (void)pos, (void)alpha, (void)grad, (void)n, (void)G, (void)w, (void)delta;
  snprintf(err, errlen, "the reprojection on the GPU: this build has no CUDA");
  return -1;
}
int vx_reproject_apply_gpu(vx_precision prec, void *alpha, const void *delta, int n, double *rel, char *err,
                           size_t errlen) {
  (void)prec, (void)alpha, (void)delta, (void)n, (void)rel;
  snprintf(err, errlen, "the reprojection on the GPU: this build has no CUDA");
  return -1;
}
#endif

/* α −= δ on the host, with the rms ratio |δ|/|α| when asked. */
static void apply_cpu(vx_precision prec, void *alpha, const void *delta, int n, double *rel) {
  double sd = 0.0, sa = 0.0;
  for (size_t i = 0; i < 3 * (size_t)n; ++i) {
    double d = prec == VX_FLOAT ? ((const float *)delta)[i] : ((const double *)delta)[i];
    double a = prec == VX_FLOAT ? ((float *)alpha)[i] : ((double *)alpha)[i];
    sd += d * d, sa += a * a;
    if (prec == VX_FLOAT) ((float *)alpha)[i] = (float)(a - d);
    else ((double *)alpha)[i] = a - d;
  }
  if (rel) *rel = sa > 0.0 ? sqrt(sd / sa) : 0.0;
}

int vx_reproject(vx_precision prec, int on_device, const void *pos, void *alpha, const void *grad, int n,
                 const vx_reproject_geom *G, vx_reproject_ws *w, double *rel, char *err, size_t errlen) {
  if (rel) *rel = 0.0;
  if (n <= 0) return 0;
  size_t rs = prec == VX_FLOAT ? sizeof(float) : sizeof(double);
  if (vx_mem_reserve(&w->delta, 3 * rs * (size_t)n, on_device, err, errlen)) return -1;
  if (on_device)
    return vx_reproject_delta_gpu(prec, pos, alpha, grad, n, G, w, w->delta.p, err, errlen) ||
                   vx_reproject_apply_gpu(prec, alpha, w->delta.p, n, rel, err, errlen)
               ? -1
               : 0;
  if (vx_reproject_delta_cpu(prec, pos, alpha, n, pos, alpha, grad, n, G, w, w->delta.p, err, errlen)) return -1;
  apply_cpu(prec, alpha, w->delta.p, n, rel);
  return 0;
}
