/* remesh.c — remeshing on the CPU (OpenMP), the twin of remesh_gpu.cu around the shared math of
 * remesh.h; also the backend-memory buffer helper both pipelines use. */
#include "remesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"

typedef struct {
  uint64_t key;
  uint32_t idx;
} rec;

struct vx_remesh_ws {
  rec *r;
  size_t cap_r;
  long long *seg;            /* first record of each node, plus one past the last */
  size_t cap_seg;
  double *na;                /* 4 per node: α and |α|² */
  size_t cap_n;
  int *nring;
  size_t cap_nring;
  uint32_t *idx;             /* the sorted records' indices, contiguous (as remesh_gpu.cu has them) */
  size_t cap_idx;
};

void vx_remesh_buf_free(vx_remesh_buf *b, int on_device) {
  if (b->p) {
    if (on_device) vx_device_free(b->p);
    else free(b->p);
  }
  b->p = NULL;
  b->cap = 0;
}

int vx_remesh_buf_reserve(vx_remesh_buf *b, size_t bytes, int on_device, char *err, size_t errlen) {
  if (b->p && b->cap >= bytes) return 0;
  vx_remesh_buf_free(b, on_device);
  if (bytes == 0) bytes = 1;
  if (on_device) {
    if (vx_device_alloc(&b->p, bytes, err, errlen)) return -1;
  } else {
    b->p = malloc(bytes);
    if (!b->p) { snprintf(err, errlen, "out of memory (%zu bytes for remeshing)", bytes); return -1; }
  }
  b->cap = bytes;
  return 0;
}

void vx_remesh_ws_free_cpu(vx_remesh_ws *ws) {
  if (!ws) return;
  free(ws->r);
  free(ws->seg);
  free(ws->na);
  free(ws->nring);
  free(ws->idx);
  free(ws);
}

static int grow(void **p, size_t *cap, size_t bytes, char *err, size_t errlen) {
  if (*p && *cap >= bytes) return 0;
  free(*p);
  *p = malloc(bytes ? bytes : 1);
  *cap = *p ? bytes : 0;
  if (!*p) { snprintf(err, errlen, "out of memory (%zu bytes for remeshing)", bytes); return -1; }
  return 0;
}

static int rec_cmp(const void *a, const void *b) {
  const rec *x = (const rec *)a, *y = (const rec *)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Steps 1–2: the 64 records of every element, sorted. */
static int emit_sorted(vx_remesh_ws *ws, const vx_remesh_job *j, double inv_h, char *err, size_t errlen) {
  int n = j->n_elem, bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
  for (int p = 0; p < n; ++p)
    if (!vx_remesh_in_range(j->pos, j->is_float, p, inv_h)) bad = 1;
  if (bad) {
    snprintf(err, errlen, "remeshing: an element lies outside the lattice (|x|/h >= 2^20) or is not finite");
    return -1;
  }
  size_t nr = 64 * (size_t)n;
  if (grow((void **)&ws->r, &ws->cap_r, nr * sizeof(rec), err, errlen)) return -1;
  rec *r = ws->r;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < n; ++p)
    for (int s = 0; s < 64; ++s) {
      double w;
      r[64 * (size_t)p + s].key = vx_remesh_stencil(j->pos, j->is_float, p, s, inv_h, j->c2, &w);
      r[64 * (size_t)p + s].idx = (uint32_t)(64 * (size_t)p + s);
    }
  qsort(r, nr, sizeof(rec), rec_cmp);
  return 0;
}

/* Step 3: node boundaries and each node's strength and ring. Returns the node count. */
static long long reduce_nodes(vx_remesh_ws *ws, const vx_remesh_job *j, double inv_h, char *err, size_t errlen) {
  size_t nr = 64 * (size_t)j->n_elem;
  long long nn = 0;
  for (size_t i = 0; i < nr; ++i) nn += i == 0 || ws->r[i].key != ws->r[i - 1].key;
  if (grow((void **)&ws->seg, &ws->cap_seg, sizeof(long long) * (size_t)(nn + 1), err, errlen) ||
      grow((void **)&ws->na, &ws->cap_n, 4 * sizeof(double) * (size_t)(nn + 1), err, errlen) ||
      grow((void **)&ws->nring, &ws->cap_nring, sizeof(int) * (size_t)(nn + 1), err, errlen) ||
      grow((void **)&ws->idx, &ws->cap_idx, sizeof(uint32_t) * (nr + 1), err, errlen))
    return -1;
  long long k = 0;
  for (size_t i = 0; i < nr; ++i)
    if (i == 0 || ws->r[i].key != ws->r[i - 1].key) ws->seg[k++] = (long long)i;
  ws->seg[nn] = (long long)nr;
  uint32_t *idx = ws->idx;
  for (size_t i = 0; i < nr; ++i) idx[i] = ws->r[i].idx;
#pragma omp parallel for schedule(static)
  for (long long q = 0; q < nn; ++q)
    ws->na[4 * q + 3] = vx_remesh_node(idx, ws->seg[q], ws->seg[q + 1], j->pos, j->alpha, j->ring, j->is_float, inv_h,
                                       j->c2, ws->na + 4 * q, ws->nring + q);
  return nn;
}

/* Step 4: drop the weak nodes, write the kept ones and the tracers. */
static int write_out(vx_remesh_ws *ws, vx_remesh_job *j, long long nn, char *err, size_t errlen) {
  double m2 = 0.0;
  for (long long q = 0; q < nn; ++q)
    if (ws->na[4 * q + 3] > m2) m2 = ws->na[4 * q + 3];
  double cut2 = j->drop_abs > 0.0 ? j->drop_abs * j->drop_abs : j->drop * j->drop * m2;
  long long keep = 0;
  for (long long q = 0; q < nn; ++q) keep += ws->na[4 * q + 3] > cut2;
  if (keep + j->n_tracer > (1LL << 30)) {
    snprintf(err, errlen, "remeshing would make %lld elements (over 2^30 with the tracers)", keep);
    return -1;
  }
  size_t rs = j->is_float ? sizeof(float) : sizeof(double);
  if (vx_remesh_buf_reserve(&j->pos_out, 3 * rs * (size_t)(keep + j->n_tracer), 0, err, errlen) ||
      vx_remesh_buf_reserve(&j->alpha_out, 3 * rs * (size_t)keep, 0, err, errlen) ||
      vx_remesh_buf_reserve(&j->ring_out, sizeof(int) * (size_t)keep, 0, err, errlen))
    return -1;
  long long o = 0;
  for (long long q = 0; q < nn; ++q) {
    if (!(ws->na[4 * q + 3] > cut2)) continue;
    long long ijk[3];
    vx_lattice_ijk(ws->r[ws->seg[q]].key, ijk);
    for (int c = 0; c < 3; ++c) {
      vx_store(j->pos_out.p, j->is_float, 3 * (size_t)o + c, (double)ijk[c] * j->h);
      vx_store(j->alpha_out.p, j->is_float, 3 * (size_t)o + c, ws->na[4 * q + c]);
    }
    ((int *)j->ring_out.p)[o] = ws->nring[q];
    ++o;
  }
  memcpy((char *)j->pos_out.p + 3 * rs * (size_t)keep, (const char *)j->pos + 3 * rs * (size_t)j->n_elem,
         3 * rs * (size_t)j->n_tracer);
  j->n_nodes = (int)nn;
  j->n_out = (int)keep;
  j->max_alpha = sqrt(m2);
  return 0;
}

int vx_remesh_cpu(vx_remesh_ws **wsp, vx_remesh_job *j, char *err, size_t errlen) {
  if (!*wsp) {
    *wsp = calloc(1, sizeof **wsp);
    if (!*wsp) { snprintf(err, errlen, "out of memory for remeshing"); return -1; }
  }
  vx_remesh_ws *ws = *wsp;
  double inv_h = 1.0 / j->h;
  if (emit_sorted(ws, j, inv_h, err, errlen)) return -1;
  long long nn = reduce_nodes(ws, j, inv_h, err, errlen);
  if (nn < 0) return -1;
  return write_out(ws, j, nn, err, errlen);
}
