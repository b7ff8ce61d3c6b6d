/* sim_coll.c — one simulation over several processes (sim.h, vx_sim_coll): each process steps its share
 * of the elements, and the engine call and the reductions go through the collective calls that
 * dist/dsim.c makes from MPI. Alone (no calls set) everything is as in one process. */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vx_sim_set_coll(vx_sim *s, const vx_sim_coll *c, char *err, size_t errlen) {
  if (!c) {
    s->coll_on = 0;
    memset(&s->coll, 0, sizeof s->coll);
    return 0;
  }
  if (!c->evaluate || !c->reduce || !c->to_owners || !c->allgather) {
    snprintf(err, errlen, "the collective calls are missing");
    return -1;
  }
  s->coll = *c;
  s->coll_on = 1;
  s->health_id = -1; /* a kept reduction was this process's alone */
  return 0;
}

int vx_sim_reduce(vx_sim *s, double *v, int n, vx_reduce_op op, char *err, size_t errlen) {
  return s->coll_on ? s->coll.reduce(s->coll.user, v, n, op, err, errlen) : 0;
}

/* The counts and every array but the positions after the particles were replaced (the positions are
 * the caller's): the rings, the strengths, and the arrays that follow the count. */
static int adopt_particles(vx_sim *s, int n, int n_tracer, const double *alpha, const int *ring, char *err, size_t errlen) {
  int *r = realloc(s->ring, sizeof(int) * ((size_t)n + 1));
  if (!r) { snprintf(err, errlen, "out of host memory for %d elements' rings", n); return -1; }
  s->ring = r;
  if (n) memcpy(s->ring, ring, sizeof(int) * (size_t)n);
  s->n_elem = n, s->n_tracer = n_tracer, s->n_tot = n + n_tracer;
  size_t b = 3 * s->rs * (size_t)s->n_tot, ba = 3 * s->rs * (size_t)n;
  if (sim_buf_reserve(s, &s->alpha, &s->c_alpha, ba, err, errlen) || sim_buf_reserve(s, &s->vel, &s->c_vel, b, err, errlen) ||
      sim_buf_reserve(s, &s->grad, &s->c_grad, 3 * b, err, errlen) || sim_reserve_scratch(s, err, errlen) ||
      sim_store_doubles(s, s->alpha, alpha, 3 * (size_t)n, err, errlen) || sim_upload_rings(s, err, errlen))
    return -1;
  s->field_ok = 0;
  s->have_grad = 0; /* the gradient belonged to the particles before */
  s->state_id++;
  return 0;
}

static int counts_ok(int n, int n_tracer, char *err, size_t errlen) {
  if (n >= 0 && n_tracer >= 0 && (long long)n + n_tracer <= (1 << 30)) return 1;
  snprintf(err, errlen, "bad particle counts %d and %d", n, n_tracer);
  return 0;
}

/* The particles replaced (vx_sim_set_particles), the tracers' step state left to the caller. */
static int set_particles(vx_sim *s, int n, int n_tracer, const double *pos, const double *alpha, const int *ring, char *err,
                         size_t errlen) {
  if (!counts_ok(n, n_tracer, err, errlen)) return -1;
  return sim_buf_reserve(s, &s->pos, &s->c_pos, 3 * s->rs * ((size_t)n + n_tracer), err, errlen) ||
                 sim_store_doubles(s, s->pos, pos, 3 * ((size_t)n + n_tracer), err, errlen) ||
                 adopt_particles(s, n, n_tracer, alpha, ring, err, errlen)
             ? -1
             : 0;
}

int vx_sim_set_particles(vx_sim *s, int n, int n_tracer, const double *pos, const double *alpha, const int *ring,
                         const double *y0, const double *acc, char *err, size_t errlen) {
  const int open = s->tr_steps > 0;
  if (open && n_tracer > 0 && (!y0 || !acc)) {
    snprintf(err, errlen, "replacing the tracers within their step without the step's state");
    return -1;
  }
  if (set_particles(s, n, n_tracer, pos, alpha, ring, err, errlen)) return -1;
  if (!open) return 0;
  const size_t k = 3 * (size_t)n_tracer, b = k * s->rs;
  return sim_buf_reserve(s, &s->tp0, &s->c_tp0, b, err, errlen) || sim_buf_reserve(s, &s->tacc, &s->c_tacc, b, err, errlen) ||
                 (k && (sim_store_doubles(s, s->tp0, y0, k, err, errlen) || sim_store_doubles(s, s->tacc, acc, k, err, errlen)))
             ? -1
             : 0;
}

int vx_sim_set_elements(vx_sim *s, int n, const double *pos, const double *alpha, const int *ring, char *err, size_t errlen) {
  const int nt = s->n_tracer;
  if (nt == 0) return set_particles(s, n, 0, pos, alpha, ring, err, errlen);
  if (!counts_ok(n, nt, err, errlen)) return -1;
  /* the tracers stay, and their step's state with them: the new positions built in the remeshing job's
   * output buffer (free between remeshings), the tracers' rows moved within backend memory */
  const size_t r3 = 3 * s->rs;
  vx_mem *P = &s->rj.pos_out;
  if (vx_mem_reserve(P, r3 * ((size_t)n + nt), s->on_device, err, errlen) ||
      sim_store_doubles(s, P->p, pos, 3 * (size_t)n, err, errlen) ||
      sim_copy_backend(s, (char *)P->p + r3 * (size_t)n, (const char *)s->pos + r3 * (size_t)s->n_elem, r3 * (size_t)nt, err,
                       errlen))
    return -1;
  sim_swap_buf(&s->pos, &s->c_pos, P);
  return adopt_particles(s, n, nt, alpha, ring, err, errlen);
}

int vx_sim_tracer_step_open(const vx_sim *s) { return s->tr_steps > 0; }

int vx_sim_set_tracer_places(vx_sim *s, const double *place, int n, char *err, size_t errlen) {
  if (n != s->n_tracer) {
    snprintf(err, errlen, "%d tracer places for %d tracers", n, s->n_tracer);
    return -1;
  }
  if (vx_host_reserve((void **)&s->tr_place, &s->c_tr_place, sizeof(double) * ((size_t)n + 1))) {
    snprintf(err, errlen, "out of host memory for %d tracer places", n);
    return -1;
  }
  if (n > 0) memcpy(s->tr_place, place, sizeof(double) * (size_t)n);
  s->n_place = n;
  return 0;
}

/* Whether every process is ok (a failure anywhere fails all of them alike, so that none waits in a
 * collective call the others left); a process that is ok and hears otherwise says so in err. */
static int coll_agree(vx_sim *s, int ok, char *err, size_t errlen) {
  double bad = ok ? 0.0 : 1.0;
  if (vx_sim_reduce(s, &bad, 1, VX_REDUCE_MAX, err, errlen)) return 0;
  if (bad > 0.0 && ok) snprintf(err, errlen, "another process failed in the remeshing");
  return bad == 0.0;
}

/* The host job of this process's part of the remeshing j: its elements on the host (copied there from
 * the device), no tracers, no drop; *hold the host copies it made (NULL: none). */
static int part_job(vx_sim *s, const vx_remesh_job *j, vx_remesh_job *h, void **hold, char *err, size_t errlen) {
  *h = *j;
  h->n_tracer = 0, h->part = 1, h->ring = s->ring;
  memset(&h->pos_out, 0, sizeof h->pos_out), memset(&h->alpha_out, 0, sizeof h->alpha_out);
  memset(&h->ring_out, 0, sizeof h->ring_out), memset(&h->top_out, 0, sizeof h->top_out);
  *hold = NULL;
  if (!s->on_device) return 0;
  const size_t b = 3 * s->rs * (size_t)s->n_elem;
  char *p = malloc(2 * b + 1);
  if (!p) { snprintf(err, errlen, "out of host memory for %d elements", s->n_elem); return -1; }
  *hold = p, h->pos = p, h->alpha = p + b;
  return b && (vx_device_download(p, s->pos, b, err, errlen) || vx_device_download(p + b, s->alpha, b, err, errlen)) ? -1 : 0;
}

/* This process's part of the remeshing (every node its elements reach, undropped) as node records. */
static int part_records(vx_sim *s, vx_remesh_job *j, vx_node_rec **out, double **pos, int *n, char *err, size_t errlen) {
  vx_remesh_job h;
  void *hold;
  int rc = part_job(s, j, &h, &hold, err, errlen) || vx_remesh_cpu(&s->rws_part, &h, err, errlen) ? -1 : 0;
  *n = rc ? 0 : h.n_out;
  *out = malloc(sizeof **out * ((size_t)*n + 1)), *pos = malloc(sizeof **pos * 3 * ((size_t)*n + 1));
  if (!rc && (!*out || !*pos)) rc = -1, snprintf(err, errlen, "out of memory for %d lattice nodes", *n);
  const int fl = h.is_float;
  for (int i = 0; !rc && i < *n; ++i) {
    vx_node_rec *r = *out + i;
    for (int c = 0; c < 3; ++c)
      r->x[c] = (*pos)[3 * i + c] = vx_load(h.pos_out.p, fl, 3 * (size_t)i + c), r->a[c] = vx_load(h.alpha_out.p, fl, 3 * (size_t)i + c);
    r->top = ((const double *)h.top_out.p)[i];
    r->ring = ((const int *)h.ring_out.p)[i];
  }
  vx_mem_free(&h.pos_out, 0), vx_mem_free(&h.alpha_out, 0), vx_mem_free(&h.ring_out, 0), vx_mem_free(&h.top_out, 0);
  free(hold);
  return rc;
}

/* The merged nodes r[0..m) less those under the drop threshold (of the largest |α| over every process)
 * as this process's elements; the job's counts and max|α| over every process. */
static int keep_nodes(vx_sim *s, vx_remesh_job *j, const vx_node_rec *r, int m, char *err, size_t errlen) {
  double m2 = 0.0;
  for (int i = 0; i < m; ++i) m2 = fmax(m2, r[i].a[0] * r[i].a[0] + r[i].a[1] * r[i].a[1] + r[i].a[2] * r[i].a[2]);
  if (vx_sim_reduce(s, &m2, 1, VX_REDUCE_MAX, err, errlen)) return -1;
  const double cut2 = j->drop_abs > 0.0 ? j->drop_abs * j->drop_abs : j->drop * j->drop * m2;
  double *x = malloc(sizeof(double) * 6 * ((size_t)m + 1));
  int *ring = malloc(sizeof(int) * ((size_t)m + 1)), k = 0;
  const int ok = x && ring;
  for (int i = 0; ok && i < m; ++i) {
    if (!(r[i].a[0] * r[i].a[0] + r[i].a[1] * r[i].a[1] + r[i].a[2] * r[i].a[2] > cut2)) continue;
    memcpy(x + 3 * (size_t)k, r[i].x, sizeof r[i].x), memcpy(x + 3 * ((size_t)m + k), r[i].a, sizeof r[i].a);
    ring[k++] = (int)r[i].ring;
  }
  if (ok) memmove(x + 3 * (size_t)k, x + 3 * (size_t)m, sizeof(double) * 3 * (size_t)k);
  else snprintf(err, errlen, "out of memory for %d lattice nodes", m);
  int rc = coll_agree(s, ok && vx_sim_set_elements(s, k, x, x + 3 * (size_t)k, ring, err, errlen) == 0, err, errlen) ? 0 : -1;
  free(x), free(ring);
  double cnt[2] = {m, k};
  if (rc || vx_sim_reduce(s, cnt, 2, VX_REDUCE_SUM, err, errlen)) return -1;
  j->n_nodes = (int)cnt[0], j->n_out = (int)cnt[1], j->max_alpha = sqrt(m2);
  return 0;
}

int sim_coll_remesh(vx_sim *s, vx_remesh_job *j, char *err, size_t errlen) {
  vx_node_rec *r = NULL;
  double *pos = NULL;
  void *got = NULL;
  int n = 0, m = 0, rc = -1;
  const int ok = part_records(s, j, &r, &pos, &n, err, errlen) == 0;
  if (!coll_agree(s, ok, err, errlen) || s->coll.to_owners(s->coll.user, r, n, sizeof *r, pos, &got, &m, err, errlen)) goto done;
  const vx_lattice L = vx_remesh_lattice(j);
  const int merged = vx_remesh_merge(&L, (vx_node_rec *)got, m, err, errlen);
  if (coll_agree(s, merged >= 0, err, errlen)) rc = keep_nodes(s, j, (const vx_node_rec *)got, merged, err, errlen);
done:
  free(r), free(pos), free(got);
  return rc;
}
