/* remesh.c — remeshing on the CPU (OpenMP), the twin of remesh_gpu.cu around the shared math of
 * remesh.h. */
#include "remesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"

typedef struct {
  uint64_t key;
  uint32_t idx;
} rec;

struct vx_remesh_ws {             /* host scratch (mem.h, on_device = 0) */
  vx_mem r;                        /* rec: the 64 records of every element */
  vx_mem seg;                      /* long long: first record of each node, plus one past the last */
  vx_mem na;                       /* double: 4 per node, α and |α|² */
  vx_mem nring;                    /* int: each node's ring */
  vx_mem ntop;                     /* double: each node's largest single contribution |·|² (job.part) */
  vx_mem idx;                      /* uint32_t: the sorted records' indices, contiguous (as remesh_gpu.cu has them) */
};

void vx_remesh_ws_free_cpu(vx_remesh_ws *ws) {
  if (!ws) return;
  vx_mem_free(&ws->r, 0);
  vx_mem_free(&ws->seg, 0);
  vx_mem_free(&ws->na, 0);
  vx_mem_free(&ws->nring, 0);
  vx_mem_free(&ws->ntop, 0);
  vx_mem_free(&ws->idx, 0);
  free(ws);
}

static int rec_cmp(const void *a, const void *b) {
  const rec *x = (const rec *)a, *y = (const rec *)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Steps 1–2: the 64 records of every element, sorted. */
static int emit_sorted(vx_remesh_ws *ws, const vx_remesh_job *j, const vx_lattice *L, char *err, size_t errlen) {
  int n = j->n_elem, bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
  for (int p = 0; p < n; ++p)
    if (!vx_remesh_in_range(j->pos, j->is_float, p, L)) bad = 1;
  if (bad) {
    snprintf(err, errlen, "remeshing: an element lies outside the lattice (|x - o|/h >= 2^20) or is not finite");
    return -1;
  }
  size_t nr = 64 * (size_t)n;
  if (vx_mem_reserve(&ws->r, nr * sizeof(rec), 0, err, errlen)) return -1;
  rec *r = (rec *)ws->r.p;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < n; ++p)
    for (int s = 0; s < 64; ++s) {
      double w;
      r[64 * (size_t)p + s].key = vx_remesh_stencil(j->pos, j->is_float, p, s, L, &w);
      r[64 * (size_t)p + s].idx = (uint32_t)(64 * (size_t)p + s);
    }
  qsort(r, nr, sizeof(rec), rec_cmp);
  return 0;
}

/* Step 3: node boundaries and each node's strength and ring. Returns the node count. */
static long long reduce_nodes(vx_remesh_ws *ws, const vx_remesh_job *j, const vx_lattice *L, char *err, size_t errlen) {
  size_t nr = 64 * (size_t)j->n_elem;
  const rec *r = (const rec *)ws->r.p;
  long long nn = 0;
  for (size_t i = 0; i < nr; ++i) nn += i == 0 || r[i].key != r[i - 1].key;
  if (vx_mem_reserve(&ws->seg, sizeof(long long) * (size_t)(nn + 1), 0, err, errlen) ||
      vx_mem_reserve(&ws->na, 4 * sizeof(double) * (size_t)(nn + 1), 0, err, errlen) ||
      vx_mem_reserve(&ws->nring, sizeof(int) * (size_t)(nn + 1), 0, err, errlen) ||
      vx_mem_reserve(&ws->ntop, sizeof(double) * (size_t)(nn + 1), 0, err, errlen) ||
      vx_mem_reserve(&ws->idx, sizeof(uint32_t) * (nr + 1), 0, err, errlen))
    return -1;
  long long *seg = (long long *)ws->seg.p, k = 0;
  double *na = (double *)ws->na.p;
  int *nring = (int *)ws->nring.p;
  double *ntop = (double *)ws->ntop.p;
  uint32_t *idx = (uint32_t *)ws->idx.p;
  for (size_t i = 0; i < nr; ++i)
    if (i == 0 || r[i].key != r[i - 1].key) seg[k++] = (long long)i;
  seg[nn] = (long long)nr;
  for (size_t i = 0; i < nr; ++i) idx[i] = r[i].idx;
#pragma omp parallel for schedule(static)
  for (long long q = 0; q < nn; ++q)
    na[4 * q + 3] = vx_remesh_node(idx, seg[q], seg[q + 1], j->pos, j->alpha, j->ring, j->is_float, L, na + 4 * q, nring + q,
                                   ntop + q);
  return nn;
}

/* Step 4: drop the weak nodes, write the kept ones and the tracers. */
static int write_out(vx_remesh_ws *ws, vx_remesh_job *j, const vx_lattice *L, long long nn, char *err, size_t errlen) {
  const double *na = (const double *)ws->na.p;
  const long long *seg = (const long long *)ws->seg.p;
  const rec *r = (const rec *)ws->r.p;
  double m2 = 0.0;
  for (long long q = 0; q < nn; ++q)
    if (na[4 * q + 3] > m2) m2 = na[4 * q + 3];
  double cut2 = j->part ? 0.0 : j->drop_abs > 0.0 ? j->drop_abs * j->drop_abs : j->drop * j->drop * m2;
  long long keep = 0;
  for (long long q = 0; q < nn; ++q) keep += na[4 * q + 3] > cut2;
  if (keep + j->n_tracer > (1LL << 30)) {
    snprintf(err, errlen, "remeshing would make %lld elements (over 2^30 with the tracers)", keep);
    return -1;
  }
  size_t rs = j->is_float ? sizeof(float) : sizeof(double);
  if (vx_mem_reserve(&j->pos_out, 3 * rs * (size_t)(keep + j->n_tracer), 0, err, errlen) ||
      vx_mem_reserve(&j->alpha_out, 3 * rs * (size_t)keep, 0, err, errlen) ||
      vx_mem_reserve(&j->ring_out, sizeof(int) * (size_t)keep, 0, err, errlen) ||
      (j->part && vx_mem_reserve(&j->top_out, sizeof(double) * (size_t)(keep + 1), 0, err, errlen)))
    return -1;
  long long o = 0;
  for (long long q = 0; q < nn; ++q) {
    if (!(na[4 * q + 3] > cut2)) continue;
    long long ijk[3];
    vx_lattice_ijk(r[seg[q]].key, ijk);
    for (int c = 0; c < 3; ++c) {
      vx_store(j->pos_out.p, j->is_float, 3 * (size_t)o + c, vx_lattice_coord(L, c, ijk[c]));
      vx_store(j->alpha_out.p, j->is_float, 3 * (size_t)o + c, na[4 * q + c]);
    }
    ((int *)j->ring_out.p)[o] = ((const int *)ws->nring.p)[q];
    if (j->part) ((double *)j->top_out.p)[o] = ((const double *)ws->ntop.p)[q];
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
  vx_lattice L = vx_remesh_lattice(j);
  if (emit_sorted(ws, j, &L, err, errlen)) return -1;
  long long nn = reduce_nodes(ws, j, &L, err, errlen);
  if (nn < 0) return -1;
  return write_out(ws, j, &L, nn, err, errlen);
}

static int node_cmp(const void *a, const void *b) {
  const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

int vx_remesh_merge(const vx_lattice *L, vx_node_rec *r, int n, char *err, size_t errlen) {
  uint64_t (*k)[2] = malloc(sizeof *k * ((size_t)n + 1)); /* key, record index */
  vx_node_rec *t = malloc(sizeof *t * ((size_t)n + 1));
  if (!k || !t) {
    free(k), free(t);
    snprintf(err, errlen, "out of memory merging %d lattice nodes", n);
    return -1;
  }
  for (int i = 0; i < n; ++i) {
    long long ijk[3];
    for (int c = 0; c < 3; ++c) ijk[c] = llround((r[i].x[c] - L->o[c]) * L->inv_h);
    k[i][0] = vx_lattice_key(ijk[0], ijk[1], ijk[2]), k[i][1] = (uint64_t)i;
  }
  qsort(k, (size_t)n, sizeof *k, node_cmp); /* by key, then as received: the same sums every run */
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const vx_node_rec *q = r + k[i][1];
    if (i > 0 && k[i][0] == k[i - 1][0]) {
      vx_node_rec *o = t + m - 1;
      for (int c = 0; c < 3; ++c) o->a[c] += q->a[c];
      if (q->top > o->top) o->top = q->top, o->ring = q->ring;
    } else {
      t[m++] = *q;
    }
  }
  memcpy(r, t, sizeof *t * (size_t)m);
  free(k), free(t);
  return m;
}
