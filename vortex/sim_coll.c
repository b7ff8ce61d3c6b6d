/* sim_coll.c — one simulation over several processes (sim.h, vx_sim_coll): each process steps its share
 * of the elements, and the engine call and the reductions go through the collective calls that
 * dist/dsim.c makes from MPI. Alone (no calls set) everything is as in one process. */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sim_coll_refusal(const vx_sim *s) {
  if (s->n_tracer > 0) return "tracers are not spread over processes yet (run with --tracers 0)";
  if (s->prm.remesh_every > 0) return "remeshing is not spread over processes yet";
  if (s->prm.direct) return "direct summation is not spread over processes (the FMM is)";
  if (s->prm.conserve == VX_CONSERVE_RING) return "the ring mode of the conservative correction is not spread over processes yet";
  if (s->on_device) return "the CUDA backend's simulation is not spread over processes yet (the engine is: vortexfmm-bench --mpi)";
  return NULL;
}

int vx_sim_set_coll(vx_sim *s, const vx_sim_coll *c, char *err, size_t errlen) {
  if (!c) {
    s->coll_on = 0;
    memset(&s->coll, 0, sizeof s->coll);
    return 0;
  }
  const char *why = sim_coll_refusal(s);
  if (why) { snprintf(err, errlen, "%s", why); return -1; }
  if (!c->evaluate || !c->reduce) { snprintf(err, errlen, "the collective calls are missing"); return -1; }
  s->coll = *c;
  s->coll_on = 1;
  s->health_id = -1; /* a kept reduction was this process's alone */
  return 0;
}

int vx_sim_reduce(vx_sim *s, double *v, int n, vx_reduce_op op, char *err, size_t errlen) {
  return s->coll_on ? s->coll.reduce(s->coll.user, v, n, op, err, errlen) : 0;
}

int vx_sim_set_elements(vx_sim *s, int n, const double *pos, const double *alpha, const int *ring, char *err, size_t errlen) {
  if (s->n_tracer > 0) { snprintf(err, errlen, "replacing the elements of a simulation with tracers"); return -1; }
  if (n < 0 || n > (1 << 30)) { snprintf(err, errlen, "bad element count %d", n); return -1; }
  int *r = realloc(s->ring, sizeof(int) * ((size_t)n + 1));
  if (!r) { snprintf(err, errlen, "out of host memory for %d elements' rings", n); return -1; }
  s->ring = r;
  if (n) memcpy(s->ring, ring, sizeof(int) * (size_t)n);
  s->n_elem = s->n_tot = n;
  size_t b = 3 * s->rs * (size_t)n;
  if (sim_buf_reserve(s, &s->pos, &s->c_pos, b, err, errlen) || sim_buf_reserve(s, &s->alpha, &s->c_alpha, b, err, errlen) ||
      sim_buf_reserve(s, &s->vel, &s->c_vel, b, err, errlen) || sim_buf_reserve(s, &s->grad, &s->c_grad, 3 * b, err, errlen) ||
      sim_reserve_scratch(s, err, errlen) || sim_store_doubles(s, s->pos, pos, 3 * (size_t)n, err, errlen) ||
      sim_store_doubles(s, s->alpha, alpha, 3 * (size_t)n, err, errlen) || sim_upload_rings(s, err, errlen))
    return -1;
  s->field_ok = 0;
  s->have_grad = 0; /* the gradient belonged to the elements before */
  s->state_id++;
  return 0;
}
