/* dsim_gather.c — the whole flow of a spread simulation at one rank (dsim.h, vx_dsim_gather): each kind of
 * row gathered by count, rank 0's first; the tracers' rows then put in their places in the whole flow. */
#include "dsim.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every rank's `mine` rows of `width` values of type t (tb bytes each) at v into *out at root (malloc'ed,
 * *total rows), rank 0's first. Collective; 0, or -1 with err on every rank. */
static int gather_rows(const vx_comm *c, int root, const void *v, int mine, int width, MPI_Datatype t, size_t tb, void **out,
                       long long *total, char *err, size_t errlen) {
  const int at_root = c->rank == root;
  int *cnt = malloc(sizeof(int) * 2 * (size_t)c->size), *dsp = cnt ? cnt + c->size : NULL;
  *out = NULL, *total = 0;
  int ok = cnt != NULL;
  if (!ok) snprintf(err, errlen, "out of memory");
  if (!vx_comm_agree(c, ok) ||
      vx_comm_check(MPI_Gather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, root, c->comm), "MPI_Gather (counts)", err, errlen)) {
    if (ok) snprintf(err, errlen, "another rank failed gathering the flow");
    free(cnt);
    return -1;
  }
  long long n = 0;
  for (int r = 0; at_root && r < c->size; r++) dsp[r] = (int)(n * width), cnt[r] *= width, n += cnt[r] / width;
  ok = !at_root || (n * width <= INT_MAX && (*out = malloc(tb * (size_t)(n * width + 1))) != NULL);
  if (!ok) snprintf(err, errlen, "rank %d: out of memory for the %lld rows of every rank", c->rank, n);
  int rc = -1;
  if (vx_comm_agree(c, ok)) {
    if (!vx_comm_check(MPI_Gatherv(v, mine * width, t, *out, cnt, dsp, t, root, c->comm), "MPI_Gatherv (the flow)", err, errlen))
      rc = 0, *total = n;
  } else if (ok) {
    snprintf(err, errlen, "rank %d could not hold the whole flow", root);
  }
  free(cnt);
  if (rc) free(*out), *out = NULL;
  return rc;
}

/* The m gathered tracer rows of `width` doubles at v into their places id[i] (a permutation of 0..m-1:
 * else they stay in rank order). 0, or -1 when out of memory. */
static int to_places(double *v, const double *id, long long m, int width) {
  double *tmp = malloc(sizeof(double) * (size_t)(m * width + 1));
  char *seen = calloc((size_t)m + 1, 1);
  int perm = tmp && seen;
  for (long long i = 0; perm && i < m; i++) {
    const long long k = (long long)id[i];
    perm = k >= 0 && k < m && (double)k == id[i] && !seen[k];
    if (perm) seen[k] = 1, memcpy(tmp + k * width, v + i * width, sizeof(double) * width);
  }
  if (perm) memcpy(v, tmp, sizeof(double) * (size_t)(m * width));
  free(tmp), free(seen);
  return tmp && seen ? 0 : -1;
}

void vx_dsim_flow_free(vx_dsim_flow *f) {
  free(f->pos), free(f->alpha), free(f->ring), free(f->tr_y0), free(f->tr_acc);
  memset(f, 0, sizeof *f);
}

int vx_dsim_gather(vx_dsim *d, int root, vx_dsim_flow *f, char *err, size_t errlen) {
  const vx_comm *c = vx_dsim_comm(d);
  vx_sim *s = vx_dsim_sim(d);
  const int ne = vx_sim_n_elements(s), nt = vx_sim_n_tracers(s), open = vx_sim_tracer_step_open(s);
  memset(f, 0, sizeof *f);
  const size_t n3 = 3 * (size_t)ne, t3 = 3 * (size_t)nt;
  double *x = malloc(sizeof(double) * (2 * n3 + 3 * t3 + 1)); /* positions, strengths, tracers, y0, acc */
  int ok = x && vx_sim_get_elements(s, x, x + n3, err, errlen) == 0 && vx_sim_get_tracers(s, x + 2 * n3, err, errlen) == 0 &&
           (!open || vx_sim_tracer_step(s, x + 2 * n3 + t3, x + 2 * n3 + 2 * t3, err, errlen) == 0);
  if (!x) snprintf(err, errlen, "out of memory gathering %d elements and %d tracers", ne, nt);
  if (!vx_comm_agree(c, ok)) {
    if (ok) snprintf(err, errlen, "another rank failed gathering the flow");
    free(x);
    return -1;
  }
  void *e = NULL, *a = NULL, *r = NULL, *t = NULL, *y = NULL, *q = NULL, *id = NULL;
  long long n = 0, m = 0, k;
  int rc = gather_rows(c, root, x, ne, 3, MPI_DOUBLE, sizeof(double), &e, &n, err, errlen) ||
           gather_rows(c, root, x + n3, ne, 3, MPI_DOUBLE, sizeof(double), &a, &k, err, errlen) ||
           gather_rows(c, root, vx_sim_rings(s), ne, 1, MPI_INT, sizeof(int), &r, &k, err, errlen) ||
           gather_rows(c, root, x + 2 * n3, nt, 3, MPI_DOUBLE, sizeof(double), &t, &m, err, errlen) ||
           gather_rows(c, root, vx_dsim_tracer_ids(d), nt, 1, MPI_DOUBLE, sizeof(double), &id, &k, err, errlen) ||
           (open && (gather_rows(c, root, x + 2 * n3 + t3, nt, 3, MPI_DOUBLE, sizeof(double), &y, &k, err, errlen) ||
                     gather_rows(c, root, x + 2 * n3 + 2 * t3, nt, 3, MPI_DOUBLE, sizeof(double), &q, &k, err, errlen)))
               ? -1
               : 0;
  free(x);
  double *pos = NULL;
  if (!rc && c->rank == root) { /* the elements' positions, then the tracers' in their places */
    ok = to_places(t, id, m, 3) == 0 && (!open || (to_places(y, id, m, 3) == 0 && to_places(q, id, m, 3) == 0));
    ok = ok && n + m <= INT_MAX && (pos = realloc(e, sizeof(double) * 3 * (size_t)(n + m + 1))) != NULL;
    if (ok) memcpy(pos + 3 * n, t, sizeof(double) * 3 * (size_t)m), e = NULL;
    else snprintf(err, errlen, "rank %d: out of memory for the whole flow", root);
  }
  if (!rc && !vx_comm_agree(c, ok)) {
    if (ok) snprintf(err, errlen, "rank %d could not hold the whole flow", root);
    rc = -1;
  }
  free(e), free(t), free(id);
  if (rc) {
    free(pos), free(a), free(r), free(y), free(q);
    return -1;
  }
  *f = (vx_dsim_flow){pos, a, r, y, q, c->rank == root ? (int)n : 0, c->rank == root ? (int)m : 0};
  return 0;
}
