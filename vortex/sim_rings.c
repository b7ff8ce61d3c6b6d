/* sim_rings.c — vortex rings added to a running simulation (vx_sim_add_ring: the program's ring
 * launcher, launch.h) and removed again, newest first (vx_sim_remove_ring): the particle arrays
 * regrown or compacted in backend memory (compact.h's row copy on either backend), the ring
 * bookkeeping that a checkpoint saves (vx_sim_added_rings). */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "sim_gpu.h"

int sim_copy_backend(vx_sim *s, void *dst, const void *src, size_t bytes, char *err, size_t errlen) {
  if (bytes == 0) return 0;
  if (s->on_device) return vx_gpu_copy(dst, src, bytes, err, errlen);
  memcpy(dst, src, bytes);
  return 0;
}

/* The arrays that follow the particle count (velocity, gradient, RK scratch, device rings) after
 * it changed, and the state marked new: no gradient of these particles, no kept health. */
static int adopt_count(vx_sim *s, char *err, size_t errlen) {
  size_t bp = 3 * s->rs * (size_t)s->n_tot;
  s->have_grad = 0;
  s->state_id++;
  return sim_buf_reserve(s, &s->vel, &s->c_vel, bp, err, errlen) || sim_buf_reserve(s, &s->grad, &s->c_grad, 3 * bp, err, errlen) ||
                 sim_reserve_scratch(s, err, errlen) || sim_upload_rings(s, err, errlen)
             ? -1
             : 0;
}

/* The new tracers, source tq's from stream st, into backend rows dst: drawn on the device on cuda,
 * else on the host and stored in the run's precision. */
static int draw_tracers(vx_sim *s, void *dst, const vx_tracer_source *tq, uint64_t st, char *err, size_t errlen) {
  if (!tq || tq->count <= 0) return 0;
  if (s->on_device) return vx_gpu_ring_tracers(s->prm.precision, tq, st, dst, &s->draw_scratch, &s->c_draw_scratch, err, errlen);
  double *h = malloc(sizeof(double) * 3 * (size_t)tq->count);
  int rc = !h || vx_ring_tracers_draw(tq, st, h) ? -1 : 0;
  if (rc) snprintf(err, errlen, "out of host memory for %d tracers", tq->count);
  else rc = sim_store_doubles(s, dst, h, 3 * (size_t)tq->count, err, errlen);
  free(h);
  return rc;
}

/* The new positions [old elements, new elements, old tracers, new tracers] and strengths [old, new]
 * into the remeshing job's output buffers (free between remeshings), the old blocks moved within
 * backend memory, the new elements stored from the host, the new tracers drawn in place. */
static int build_grown(vx_sim *s, int ne, const double *pos, const double *alpha, const vx_tracer_source *tq, uint64_t st,
                       char *err, size_t errlen) {
  size_t r3 = 3 * s->rs, n0 = (size_t)s->n_elem, t0 = (size_t)s->n_tracer, nt = tq ? (size_t)tq->count : 0;
  vx_mem *P = &s->rj.pos_out, *A = &s->rj.alpha_out;
  if (vx_mem_reserve(P, r3 * (n0 + (size_t)ne + t0 + nt), s->on_device, err, errlen) ||
      vx_mem_reserve(A, r3 * (n0 + (size_t)ne), s->on_device, err, errlen))
    return -1;
  char *p = (char *)P->p, *a = (char *)A->p;
  const char *op = (const char *)s->pos;
  return sim_copy_backend(s, p, op, r3 * n0, err, errlen) || sim_store_doubles(s, p + r3 * n0, pos, 3 * (size_t)ne, err, errlen) ||
                 sim_copy_backend(s, p + r3 * (n0 + ne), op + r3 * n0, r3 * t0, err, errlen) ||
                 draw_tracers(s, p + r3 * (n0 + ne + t0), tq, st, err, errlen) ||
                 sim_copy_backend(s, a, s->alpha, r3 * n0, err, errlen) ||
                 sim_store_doubles(s, a + r3 * n0, alpha, 3 * (size_t)ne, err, errlen)
             ? -1
             : 0;
}

int vx_sim_add_ring(vx_sim *s, int n_elem, const double *pos, const double *alpha, const vx_tracer_source *tq, uint64_t st,
                    char *err, size_t errlen) {
  const int n_tracer = tq ? tq->count : 0;
  if (n_elem <= 0 || n_tracer < 0 || (long long)s->n_tot + n_elem + n_tracer > (1LL << 30)) {
    snprintf(err, errlen, "bad ring to add (%d elements, %d tracers, to %d particles; at most 2^30 in all)", n_elem, n_tracer,
             s->n_tot);
    return -1;
  }
  sim_tracers_settle(s); /* the new tracers start their step with the others */
  if (s->n_rings >= VX_SIM_MAX_RINGS) { snprintf(err, errlen, "too many rings (at most %d)", VX_SIM_MAX_RINGS); return -1; }
  if (s->n_added == s->c_added) {
    int c = s->c_added ? 2 * s->c_added : 8;
    vx_sim_added *na = realloc(s->added, sizeof *na * (size_t)c);
    if (!na) { snprintf(err, errlen, "out of host memory"); return -1; }
    s->added = na, s->c_added = c;
  }
  int *r = realloc(s->ring, sizeof(int) * ((size_t)s->n_elem + (size_t)n_elem + 1));
  if (!r) { snprintf(err, errlen, "out of host memory for the rings"); return -1; }
  s->ring = r;
  if (build_grown(s, n_elem, pos, alpha, tq, st, err, errlen)) return -1;
  sim_swap_buf(&s->pos, &s->c_pos, &s->rj.pos_out);
  sim_swap_buf(&s->alpha, &s->c_alpha, &s->rj.alpha_out);
  for (int i = 0; i < n_elem; ++i) s->ring[s->n_elem + i] = s->n_rings;
  double a2 = 0.0; /* a simulation that started without elements takes its blow-up reference from its first ring */
  for (size_t i = 0; i < (size_t)n_elem; ++i) {
    double m = alpha[3 * i] * alpha[3 * i] + alpha[3 * i + 1] * alpha[3 * i + 1] + alpha[3 * i + 2] * alpha[3 * i + 2];
    if (m > a2) a2 = m;
  }
  if (!(s->amax0 > 0.0)) s->amax0 = sqrt(a2);
  /* the new reference at the end of the second step after the ring: the first grows every buffer
   * of both engines, and the energy's pair sum does not land on the same frame */
  sim_energy_restart(s, 1.5 * s->prm.dt);
  s->added[s->n_added].ring = s->n_rings;
  s->added[s->n_added++].n_tracer = n_tracer;
  s->n_rings++;
  s->n_elem += n_elem;
  s->n_tracer += n_tracer;
  s->n_tot = s->n_elem + s->n_tracer;
  return adopt_count(s, err, errlen);
}

/* Rows idx[0..n) of pos (and the first ne of them of alpha) into the job's output buffers. */
static int gather_kept(vx_sim *s, const int *idx, int n, int ne, char *err, size_t errlen) {
  size_t r3 = 3 * s->rs;
  vx_mem *P = &s->rj.pos_out, *A = &s->rj.alpha_out;
  if (vx_mem_reserve(P, r3 * (size_t)n, s->on_device, err, errlen) || vx_mem_reserve(A, r3 * (size_t)ne, s->on_device, err, errlen))
    return -1;
  if (s->on_device) {
    vx_mem *D = &s->rj.ring_out; /* device ints, free between remeshings: the index list */
    if (vx_mem_reserve(D, sizeof(int) * (size_t)n, 1, err, errlen) ||
        (n && vx_device_upload(D->p, idx, sizeof(int) * (size_t)n, err, errlen)))
      return -1;
    return vx_gpu_gather(s->prm.precision, P->p, s->pos, (const int *)D->p, n, err, errlen) ||
                   vx_gpu_gather(s->prm.precision, A->p, s->alpha, (const int *)D->p, ne, err, errlen)
               ? -1
               : 0;
  }
  int f = s->prm.precision == VX_FLOAT;
  for (int i = 0; i < n; ++i) vx_gather_row(P->p, s->pos, idx, f, (size_t)i);
  for (int i = 0; i < ne; ++i) vx_gather_row(A->p, s->alpha, idx, f, (size_t)i);
  return 0;
}

int vx_sim_remove_ring(vx_sim *s, char *err, size_t errlen) {
  if (s->n_added == 0) return 1;
  vx_sim_added top = s->added[s->n_added - 1];
  int nt = s->n_tracer - top.n_tracer, ne = 0;
  int *idx = malloc(sizeof(int) * ((size_t)s->n_elem + (size_t)nt + 1));
  if (!idx) { snprintf(err, errlen, "out of host memory"); return -1; }
  for (int i = 0; i < s->n_elem; ++i)
    if (s->ring[i] != top.ring) idx[ne++] = i;
  for (int t = 0; t < nt; ++t) idx[ne + t] = s->n_elem + t;
  if (gather_kept(s, idx, ne + nt, ne, err, errlen)) { free(idx); return -1; }
  sim_swap_buf(&s->pos, &s->c_pos, &s->rj.pos_out);
  sim_swap_buf(&s->alpha, &s->c_alpha, &s->rj.alpha_out);
  for (int i = 0; i < ne; ++i) s->ring[i] = s->ring[idx[i]]; /* idx[i] >= i: in place */
  free(idx);
  s->n_added--;
  sim_energy_restart(s, 0.0);
  if (top.ring == s->n_rings - 1) s->n_rings--;
  s->n_elem = ne;
  s->n_tracer = nt;
  s->n_tot = ne + nt;
  return adopt_count(s, err, errlen);
}

const vx_sim_added *vx_sim_added_rings(const vx_sim *s, int *n) {
  *n = s->n_added;
  return s->added;
}

int vx_sim_set_added_rings(vx_sim *s, const vx_sim_added *a, int n, char *err, size_t errlen) {
  long long tr = 0;
  for (int i = 0; i < n; ++i) {
    tr += a[i].n_tracer;
    if (a[i].ring < 0 || a[i].ring >= s->n_rings || a[i].n_tracer < 0 || tr > s->n_tracer) {
      snprintf(err, errlen, "added ring %d (ring %d, %d tracers) does not fit this simulation", i, a[i].ring, a[i].n_tracer);
      return -1;
    }
  }
  vx_sim_added *na = n ? malloc(sizeof *na * (size_t)n) : NULL;
  if (n && !na) { snprintf(err, errlen, "out of host memory"); return -1; }
  if (n) memcpy(na, a, sizeof *na * (size_t)n);
  free(s->added);
  s->added = na;
  s->n_added = s->c_added = n;
  return 0;
}
