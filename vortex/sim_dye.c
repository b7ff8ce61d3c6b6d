/* sim_dye.c — the continuous dye release (vx_sim_params.dye_release, sim.h's vx_dye_state): as in a
 * laboratory, where dye keeps seeping from where a ring was formed and its wake shows, each of the
 * scene's tracers lives about T time units and is then seeded again around its ring's starting
 * centreline. At the end of each completed tracer step (sim_step.c) the block due is drawn on the host
 * (vx_tracer_redraw: the seeding's own formula) and stored into its rows of the particle array in the
 * run's precision, a device upload on cuda (sim_store_doubles: cudaMemcpy on the default stream,
 * after the step's kernels there and before the next engine call, which orders its work after that
 * stream). A block is ⌈N·H/T⌉ tracers, a share H/T of them (a few hundred of leapfrog's 262 144 with
 * T = 2), so no kernel of its own. A released tracer's last velocity (vx_sim_tracer_field: the speed colour) is its old place's until
 * the next step evaluates it there. Spread over processes, each releases those of its tracers whose places in
 * the whole flow the block names (release_places). */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

long long vx_dye_block(long long n, double span, double lifetime) {
  if (!(lifetime > 0.0) || !(span > 0.0) || n <= 0) return 0;
  double b = ceil((double)n * span / lifetime);
  return b >= (double)n ? n : (long long)b;
}

int vx_dye_tracers(const vx_dye_state *d) {
  if (d->n_rings <= 0) return 0;
  const vx_tracer_source *last = &d->ring[d->n_rings - 1];
  return last->first + last->count;
}

/* The source whose rows hold tracer q (0 <= q < vx_dye_tracers). */
static const vx_tracer_source *source_of(const vx_dye_state *d, int q) {
  int r = 0;
  while (r + 1 < d->n_rings && q >= d->ring[r + 1].first) ++r;
  return &d->ring[r];
}

/* Spread over processes: this process's tracers whose places in the whole flow (vx_sim_set_tracer_places)
 * fall in the block of b releases from the k-th on, each seeded as one process seeds that place, stored
 * row by row (a block's few hundred tracers, scattered over the processes). */
static int release_places(vx_sim *s, long long k, long long b, char *err, size_t errlen) {
  const vx_dye_state *d = &s->dye;
  const long long n = vx_dye_tracers(d);
  const int m = s->n_place < s->n_tracer ? s->n_place : s->n_tracer;
  double row[3];
  for (int i = 0; i < m; ++i) {
    const double g = s->tr_place[i];
    if (!(g >= 0.0 && g < (double)n)) continue; /* a launched ring's tracer: never released */
    const long long q = (long long)g, r = k + ((q - k % n) + n) % n; /* the first release of place q from k on */
    if (r >= k + b) continue;
    vx_tracer_redraw(source_of(d, (int)q), d->seed, (int)q, r / n + 1, row);
    void *dst = (char *)s->pos + 3 * s->rs * ((size_t)s->n_elem + (size_t)i);
    if (sim_store_doubles(s, dst, row, 3, err, errlen)) return -1;
  }
  return 0;
}

int sim_dye_release(vx_sim *s, double span, char *err, size_t errlen) {
  vx_dye_state *d = &s->dye;
  const int n = vx_dye_tracers(d);
  if (s->coll_on && s->tr_place) { /* spread: the block by the tracers' places in the whole flow */
    const long long b = vx_dye_block(n, span, s->prm.dye_release);
    if (b > 0 && release_places(s, d->released, b, err, errlen)) return -1;
    d->released += b;
    return 0;
  }
  long long b = n <= s->n_tracer ? vx_dye_block(n, span, s->prm.dye_release) : 0;
  if (b == 0) return 0;
  if (vx_host_reserve(&s->dye_rows, &s->c_dye_rows, sizeof(double) * 3 * (size_t)b)) {
    snprintf(err, errlen, "out of host memory for %lld released tracers", b);
    return -1;
  }
  double *rows = (double *)s->dye_rows;
  long long k = d->released;
  /* the block's rows: from k mod N on, wrapping once past the last to the first */
  while (b > 0) {
    const int q0 = (int)(k % n), len = (int)(b < n - q0 ? b : n - q0);
    for (int j = 0; j < len; ++j) {
      const int q = q0 + j;
      vx_tracer_redraw(source_of(d, q), d->seed, q, (k + j) / n + 1, rows + 3 * (size_t)j);
    }
    void *dst = (char *)s->pos + 3 * s->rs * ((size_t)s->n_elem + (size_t)q0);
    if (sim_store_doubles(s, dst, rows, 3 * (size_t)len, err, errlen)) return -1;
    k += len, b -= len;
  }
  d->released = k;
  return 0;
}

int sim_dye_set(vx_sim *s, const vx_dye_state *d, char *err, size_t errlen) {
  if (d->n_rings < 0 || d->n_rings > VX_SCENE_MAX_RINGS || d->released < 0) {
    snprintf(err, errlen, "bad dye release (%d sources, %lld releases)", d->n_rings, d->released);
    return -1;
  }
  long long end = 0;
  for (int r = 0; r < d->n_rings; ++r) {
    const vx_tracer_source *q = &d->ring[r];
    if (q->first != end || q->count < 0) {
      snprintf(err, errlen, "bad dye release: source %d holds rows %d.. (%d tracers), expected rows from %lld", r, q->first,
               q->count, end);
      return -1;
    }
    end += q->count;
  }
  if (end > s->n_tracer) {
    snprintf(err, errlen, "bad dye release: its sources hold %lld tracers, the simulation %d", end, s->n_tracer);
    return -1;
  }
  s->dye = *d;
  return 0;
}

int vx_sim_set_dye_release(vx_sim *s, double T, char *err, size_t errlen) {
  vx_sim_params np = s->prm;
  np.dye_release = T;
  if (sim_check_params(&np, err, errlen)) return -1;
  s->prm.dye_release = T;
  return 0;
}

const vx_dye_state *vx_sim_dye(const vx_sim *s) { return &s->dye; }

int vx_sim_set_dye(vx_sim *s, const vx_dye_state *d, char *err, size_t errlen) { return sim_dye_set(s, d, err, errlen); }
