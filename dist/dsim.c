/* dsim.c — one simulation over the ranks (dsim.h): the collective calls the simulation makes, and the
 * elements' migration between steps. */
#include "dsim.h"
#include "ddirect.h"
#ifdef VX_HAVE_CUDA
#include "dist_gpu.h"
#endif

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The simulation's engines: the elements' calls, and with tracers the tracers' calls on an engine of
 * their own (sim_step.c), each wrapped in a distributed engine. */
#define N_ENGINES 2

struct vx_dsim {
  vx_comm c;
  vx_sim *s;
  vx_dist_engine *dd[N_ENGINES]; /* the distributed engine around ctx[k] */
  fmm_ctx *ctx[N_ENGINES];
  int last;                      /* the slot of the last call */
  vx_ddirect direct;             /* the direct sum's gathered sources (vx_sim_params.direct) */
  /* host buffers kept from one migration to the next (a fresh allocation of a rank's elements each
   * time costs as much as the copies through it) */
  double *x;           /* the elements' positions in double as they are handed out */
  size_t x_cap;
  double *xa;          /* positions and strengths in double, 6 a element */
  size_t xa_cap;
  void *rec;           /* this rank's element records */
  size_t rec_cap;
  int *ring;           /* the received elements' rings */
  size_t ring_cap;
  uint32_t *keys;      /* the records' keys */
  size_t keys_cap;
  double *tx;          /* the tracers' records as they are handed out */
  size_t tx_cap;
  double *tid;         /* this rank's tracers' places in the whole flow (vx_dsim_tracer_ids) */
  size_t tid_cap;
  long long layout;    /* hand-outs so far (vx_dsim_layout) */
#ifdef VX_HAVE_CUDA
  vx_dist_dev w;       /* the device bounds' scratch */
#endif
  int since;           /* steps since the last migration */
  vx_dsim_stats stats;
};

/* A tracer record's width in doubles: its position and place in the whole flow, and within the tracers'
 * step its y0 and acc. */
enum { TR_CLOSED = 4, TR_OPEN = 10 };

/* One element as it migrates. */
typedef struct {
  double x[3], a[3];
  int64_t ring;
} element_rec;

/* Every rank learns whether all are ok; a rank that is ok and hears otherwise says so in err. */
static int all_ok(const vx_comm *c, int ok, char *err, size_t errlen) {
  if (vx_comm_agree(c, ok)) return 1;
  if (ok) snprintf(err, errlen, "another rank failed in the distributed simulation");
  return 0;
}

/* This rank's bounds of n points of the run's precision, on the device with on_device (only the bounds
 * cross to the host). 0, or -1 with err. */
static int bounds(vx_dsim *d, const void *pos, int is_float, int on_device, int n, double mn[3], double mx[3], int *bad,
                  char *err, size_t errlen) {
  if (!on_device) {
    vx_part_bounds(pos, is_float, n, mn, mx, bad);
    return 0;
  }
#ifdef VX_HAVE_CUDA
  return vx_dist_dev_bounds(&d->w, pos, is_float, n, mn, mx, bad, err, errlen);
#else
  (void)d;
  snprintf(err, errlen, "device points in a build without CUDA");
  return -1;
#endif
}

/* The distributed engine around ctx: a slot's own, or the slot not used last made anew around it (the
 * simulation made a new engine: new parameters). NULL with err. */
static vx_dist_engine *engine_of(vx_dsim *d, fmm_ctx *ctx, char *err, size_t errlen) {
  int k = 0;
  while (k < N_ENGINES && d->ctx[k] != ctx) k++;
  if (k == N_ENGINES) {
    k = N_ENGINES - 1 - d->last;
    vx_dist_destroy(d->dd[k]);
    d->dd[k] = vx_dist_create(&d->c, ctx, err, errlen);
    d->ctx[k] = d->dd[k] ? ctx : NULL;
  }
  d->last = k;
  return d->dd[k];
}

/* vx_sim_coll.evaluate: an engine call of the simulation (its elements', or its tracers' from its elements):
 * with `direct` the direct sum over the ranks (ddirect.h), else the distributed engine in the cube of every
 * rank's points of the call (it builds its own tree each call). */
static int coll_evaluate(void *user, fmm_ctx *ctx, const fmm_io *io, int direct, fmm_stats *st, char *err, size_t errlen) {
  vx_dsim *d = user;
  if (direct) return vx_ddirect_evaluate(&d->c, &d->direct, ctx, io, st, err, errlen);
  vx_dist_engine *dd = engine_of(d, ctx, err, errlen);
  int ok = dd != NULL;
  const int is_float = fmm_get_params(ctx)->precision == VX_FLOAT, tgt = io->tgt_pos != io->src_pos || io->n_tgt > io->n_src;
  double mn[3], mx[3], tmn[3], tmx[3];
  int bad = -1, tbad = -1;
  if (ok && bounds(d, io->src_pos, is_float, io->on_device, io->n_src, mn, mx, &bad, err, errlen)) ok = 0;
  if (ok && tgt && bounds(d, io->tgt_pos, is_float, io->on_device, io->n_tgt, tmn, tmx, &tbad, err, errlen)) ok = 0;
  if (!all_ok(&d->c, ok, err, errlen)) return -1;
  for (int k = 0; tgt && k < 3; k++) mn[k] = fmin(mn[k], tmn[k]), mx[k] = fmax(mx[k], tmx[k]);
  if (bad < 0) bad = tbad;
  vx_part_cube cube;
  if (vx_part_cube_of(&d->c, mn, mx, bad, &cube, err, errlen)) return -1;
  fmm_io one = *io;
  one.tree = FMM_TREE_BUILD;
  vx_dist_stats ds;
  const double t0 = MPI_Wtime();
  if (vx_dist_evaluate(dd, &cube, 0, &one, st, &ds, err, errlen)) return -1;
  vx_dist_stats *a = &d->stats.eval;
  a->t_level += ds.t_level, a->t_halo += ds.t_halo, a->t_coarse += ds.t_coarse, a->t_local += ds.t_local;
  a->n_halo += ds.n_halo, a->L = ds.L, a->Lc = ds.Lc, a->Lh = ds.Lh;
  d->stats.t_eval += 1e3 * (MPI_Wtime() - t0);
  d->stats.n_eval++;
  return 0;
}

/* vx_sim_coll.reduce: one all-reduce. */
static int coll_reduce(void *user, double *v, int n, vx_reduce_op op, char *err, size_t errlen) {
  vx_dsim *d = user;
  return vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, op == VX_REDUCE_MAX ? MPI_MAX : MPI_SUM, d->c.comm),
                       "MPI_Allreduce (simulation)", err, errlen);
}

/* n records (rb bytes each, at positions pos: 3n doubles) to the ranks that own their keys in a partition
 * of every rank's positions balanced by count: *out (malloc'ed) the *nout this rank receives. Also the
 * simulation's vx_sim_coll.to_owners. */
static int to_owners(void *user, const void *rec, int n, size_t rb, const double *pos, void **out, int *nout, char *err,
                     size_t errlen) {
  vx_dsim *d = user;
  const vx_comm *c = &d->c;
  uint32_t *split = malloc(sizeof(uint32_t) * ((size_t)c->size + 1));
  int ok = split && vx_host_reserve((void **)&d->keys, &d->keys_cap, sizeof(uint32_t) * ((size_t)n + 1)) == 0;
  uint32_t *keys = d->keys;
  *out = NULL, *nout = 0;
  int rc = -1;
  if (!ok) snprintf(err, errlen, "out of memory handing out %d records", n);
  vx_part_cube cube;
  if (!all_ok(c, ok, err, errlen) || vx_part_cube_all(c, pos, n, &cube, err, errlen)) goto done;
  vx_part_keys(&cube, pos, n, keys);
  rc = vx_part_splitters(c, keys, NULL, n, split, err, errlen) ||
               vx_part_migrate(c, split, keys, n, rec, rb, out, nout, err, errlen)
           ? -1
           : 0;
done:
  free(split);
  return rc;
}

/* vx_sim_coll.allgather: every rank's n doubles at every rank, rank 0's first. */
static int allgather(void *user, const double *v, int n, double **out, int *nout, char *err, size_t errlen) {
  vx_dsim *d = user;
  const vx_comm *c = &d->c;
  *out = NULL, *nout = 0;
  int *cnt = malloc(sizeof(int) * 2 * (size_t)c->size), *dsp = cnt ? cnt + c->size : NULL;
  if (!all_ok(c, cnt != NULL, err, errlen) ||
      vx_comm_check(MPI_Allgather(&n, 1, MPI_INT, cnt, 1, MPI_INT, c->comm), "MPI_Allgather (counts)", err, errlen)) {
    if (!cnt) snprintf(err, errlen, "out of memory");
    free(cnt);
    return -1;
  }
  long long total = 0;
  for (int r = 0; r < c->size; r++) dsp[r] = (int)total, total += cnt[r];
  int ok = total <= INT_MAX && (*out = malloc(sizeof(double) * (size_t)(total + 1))) != NULL;
  if (!ok) snprintf(err, errlen, "rank %d: out of memory for %lld values of every rank", c->rank, total);
  int rc = -1;
  if (all_ok(c, ok, err, errlen) &&
      !vx_comm_check(MPI_Allgatherv(v, n, MPI_DOUBLE, *out, cnt, dsp, MPI_DOUBLE, c->comm), "MPI_Allgatherv", err, errlen))
    rc = 0, *nout = (int)total;
  free(cnt);
  if (rc) free(*out), *out = NULL;
  return rc;
}

/* The n element records r and the nt tracer records at tx (w doubles each: the position, the tracer's place
 * in the whole flow, then within the tracers' step y0 and acc) to the ranks that own their keys, each kind
 * in a partition balanced by its own count (the tracers' calls have a halo of their own), then into the
 * simulation. */
static int hand_out(vx_dsim *d, element_rec *r, int n, double *tx, int nt, int w, char *err, size_t errlen) {
  const vx_comm *c = &d->c;
  void *got = NULL, *gott = NULL;
  int m = 0, mt = 0, rc = -1;
  int ok = vx_host_reserve((void **)&d->x, &d->x_cap, sizeof(double) * 3 * ((size_t)(n > nt ? n : nt) + 1)) == 0;
  for (int i = 0; ok && i < n; i++) memcpy(d->x + 3 * i, r[i].x, sizeof r[i].x);
  if (!ok) snprintf(err, errlen, "out of memory handing out %d elements and %d tracers", n, nt);
  if (!all_ok(c, ok, err, errlen) || to_owners(d, r, n, sizeof *r, d->x, &got, &m, err, errlen)) goto done;
  long long any = nt;
  for (int i = 0; i < nt; i++) memcpy(d->x + 3 * i, tx + (size_t)w * i, sizeof(double) * 3);
  if (vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Allreduce (tracers)", err,
                    errlen) ||
      (any > 0 && to_owners(d, tx, nt, sizeof(double) * (size_t)w, d->x, &gott, &mt, err, errlen)))
    goto done;
  const element_rec *g = got;
  const double *gt = gott;
  const size_t np = 3 * ((size_t)m + mt), k = 3 * (size_t)mt;
  ok = vx_host_reserve((void **)&d->xa, &d->xa_cap, sizeof(double) * (np + 3 * (size_t)m + 2 * k + 1)) == 0 &&
       vx_host_reserve((void **)&d->ring, &d->ring_cap, sizeof(int) * ((size_t)m + 1)) == 0 &&
       vx_host_reserve((void **)&d->tid, &d->tid_cap, sizeof(double) * ((size_t)mt + 1)) == 0;
  double *x = d->xa, *alpha = x + np, *y0 = alpha + 3 * (size_t)m, *acc = y0 + k;
  int *ring = d->ring;
  if (!ok) snprintf(err, errlen, "out of memory for %d elements and %d tracers", m, mt);
  for (int i = 0; ok && i < m; i++) {
    memcpy(x + 3 * i, g[i].x, sizeof g[i].x), memcpy(alpha + 3 * i, g[i].a, sizeof g[i].a);
    ring[i] = (int)g[i].ring;
  }
  for (size_t i = 0; ok && i < (size_t)mt; i++) {
    const double *t = gt + w * i;
    memcpy(x + 3 * ((size_t)m + i), t, sizeof(double) * 3);
    d->tid[i] = t[3];
    if (w == TR_OPEN) memcpy(y0 + 3 * i, t + 4, sizeof(double) * 3), memcpy(acc + 3 * i, t + 7, sizeof(double) * 3);
  }
  ok = ok && vx_sim_set_particles(d->s, m, mt, x, alpha, ring, y0, acc, err, errlen) == 0 &&
       vx_sim_set_tracer_places(d->s, d->tid, mt, err, errlen) == 0; /* the dye release seeds by place */
  rc = all_ok(c, ok, err, errlen) ? 0 : -1;
  d->layout++;
done:
  free(got), free(gott);
  return rc;
}

/* Rank k's block of m things handed out from `first` on: [first + k·m/R, first + (k+1)·m/R). */
static void block(const vx_comm *c, int first, int n, int *i0, int *i1) {
  const long long m = n - first;
  *i0 = first + (int)(m * c->rank / c->size), *i1 = first + (int)(m * (c->rank + 1) / c->size);
}

/* This rank's elements as records: every element before `first`, and of those from `first` on its block
 * (every rank holds those: first = 0 at the start, where every rank holds every element; after a launched
 * ring, its elements). *out: d's buffer. */
static int records(vx_dsim *d, int first, element_rec **out, int *nout, char *err, size_t errlen) {
  const int n = vx_sim_n_elements(d->s);
  int i0, i1;
  block(&d->c, first, n, &i0, &i1);
  int mem = vx_host_reserve((void **)&d->xa, &d->xa_cap, sizeof(double) * 6 * ((size_t)n + 1)) == 0 &&
            vx_host_reserve(&d->rec, &d->rec_cap, sizeof(element_rec) * ((size_t)(first + i1 - i0) + 1)) == 0;
  double *x = d->xa;
  element_rec *r = d->rec;
  const int *ring = vx_sim_rings(d->s);
  int ok = mem && vx_sim_get_elements(d->s, x, x + 3 * (size_t)n, err, errlen) == 0, j = 0;
  if (!mem) snprintf(err, errlen, "out of memory for %d elements", n);
  for (int i = 0; ok && i < n; i++) {
    if (i >= first && (i < i0 || i >= i1)) continue;
    memcpy(r[j].x, x + 3 * i, sizeof r->x), memcpy(r[j].a, x + 3 * ((size_t)n + i), sizeof r->a);
    r[j++].ring = ring[i];
  }
  *out = r, *nout = j;
  return ok ? 0 : -1;
}

/* This rank's tracers as records in d->tx, as records() takes its elements (from tracer `first` on, its
 * block; those are new to the whole flow and take the places after every rank's tracers before `first`):
 * *w doubles each. */
static int tracer_records(vx_dsim *d, int first, int *nout, int *w, char *err, size_t errlen) {
  const int n = vx_sim_n_tracers(d->s), open = vx_sim_tracer_step_open(d->s);
  int i0, i1;
  block(&d->c, first, n, &i0, &i1);
  *w = open ? TR_OPEN : TR_CLOSED;
  long long base = first; /* the whole flow's tracers before the new ones */
  if (vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, &base, 1, MPI_LONG_LONG, MPI_SUM, d->c.comm), "MPI_Allreduce (tracer places)",
                    err, errlen))
    return -1;
  const size_t t3 = 3 * (size_t)n;
  int ok = vx_host_reserve((void **)&d->tx, &d->tx_cap, sizeof(double) * (size_t)*w * ((size_t)n + 1)) == 0 &&
           vx_host_reserve((void **)&d->xa, &d->xa_cap, sizeof(double) * 3 * (t3 + 1)) == 0;
  if (!ok) snprintf(err, errlen, "out of memory for %d tracers", n);
  double *p = d->xa, *y0 = p + t3, *acc = y0 + t3;
  if (!ok || vx_sim_get_tracers(d->s, p, err, errlen) || (open && vx_sim_tracer_step(d->s, y0, acc, err, errlen))) return -1;
  int j = 0;
  for (int i = 0; i < n; i++) {
    if (i >= first && (i < i0 || i >= i1)) continue;
    double *r = d->tx + (size_t)*w * j++;
    memcpy(r, p + 3 * (size_t)i, sizeof(double) * 3);
    r[3] = i < first ? d->tid[i] : (double)(base + (i - first));
    if (open) memcpy(r + 4, y0 + 3 * (size_t)i, sizeof(double) * 3), memcpy(r + 7, acc + 3 * (size_t)i, sizeof(double) * 3);
  }
  *nout = j;
  return 0;
}

static int distribute(vx_dsim *d, int first, int first_t, char *err, size_t errlen) {
  element_rec *r = NULL;
  int n = 0, nt = 0, w = TR_CLOSED;
  const int ok = records(d, first, &r, &n, err, errlen) == 0 && tracer_records(d, first_t, &nt, &w, err, errlen) == 0;
  return all_ok(&d->c, ok, err, errlen) ? hand_out(d, r, n, d->tx, nt, w, err, errlen) : -1;
}

vx_dsim *vx_dsim_create(const vx_comm *c, vx_sim *s, char *err, size_t errlen) {
  vx_dsim *d = calloc(1, sizeof *d);
  int ok = d != NULL;
  if (!ok) snprintf(err, errlen, "out of memory for the distributed simulation");
  if (ok) {
    d->c = *c, d->s = s;
    const vx_sim_coll coll = {d, coll_evaluate, coll_reduce, to_owners, allgather};
    ok = vx_sim_set_coll(s, &coll, err, errlen) == 0;
  }
  if (!all_ok(c, ok, err, errlen) || distribute(d, 0, 0, err, errlen)) {
    if (d) vx_sim_set_coll(s, NULL, err, 0), vx_dsim_destroy(d);
    return NULL;
  }
  return d;
}

void vx_dsim_destroy(vx_dsim *d) {
  if (!d) return;
  for (int k = 0; k < N_ENGINES; k++) vx_dist_destroy(d->dd[k]);
  vx_ddirect_free(&d->direct);
#ifdef VX_HAVE_CUDA
  vx_dist_dev_free(&d->w);
#endif
  free(d->x), free(d->xa), free(d->rec), free(d->ring), free(d->keys), free(d->tx), free(d->tid);
  free(d);
}

int vx_dsim_migrate(vx_dsim *d, char *err, size_t errlen) {
  return distribute(d, vx_sim_n_elements(d->s), vx_sim_n_tracers(d->s), err, errlen);
}

int vx_dsim_added(vx_dsim *d, int first, int first_t, char *err, size_t errlen) {
  const int n = vx_sim_n_elements(d->s), nt = vx_sim_n_tracers(d->s);
  const int ok = first >= 0 && first <= n && first_t >= 0 && first_t <= nt;
  if (!ok) snprintf(err, errlen, "added elements from %d of %d and tracers from %d of %d", first, n, first_t, nt);
  return all_ok(&d->c, ok, err, errlen) ? distribute(d, first, first_t, err, errlen) : -1;
}

int vx_dsim_step(vx_dsim *d, char *err, size_t errlen) {
  if (d->since >= VX_DSIM_MIGRATE_EVERY) {
    const double t0 = MPI_Wtime();
    if (vx_dsim_migrate(d, err, errlen)) return -1;
    d->stats.t_migrate += 1e3 * (MPI_Wtime() - t0);
    d->stats.n_migrate++;
    d->since = 0;
  }
  d->since++;
  return vx_sim_step(d->s, err, errlen);
}

vx_dsim_stats vx_dsim_get_stats(const vx_dsim *d) { return d->stats; }

const vx_comm *vx_dsim_comm(const vx_dsim *d) { return &d->c; }
vx_sim *vx_dsim_sim(const vx_dsim *d) { return d->s; }
const double *vx_dsim_tracer_ids(const vx_dsim *d) { return d->tid; }
long long vx_dsim_layout(const vx_dsim *d) { return d->layout; }
