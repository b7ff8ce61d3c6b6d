/* mpi_test_engine.c — the distributed FMM (dist/engine.h) under mpirun with 1, 2 and 3 ranks: sources
 * and velocity-only targets (tracers) spread over two blobs, partitioned by key; each rank's velocities
 * and gradients equal one evaluation of every rank's points on one rank, in double to 1e-12 and in float
 * to 1e-6 (rms deviation over rms magnitude, the benchmark's err_vel) (the Gaussian kernel with its corrections and the singular one; the automatic
 * level and forced ones; dense far fields down to levels 2, 3 and 4, so that the halo carries the
 * deeper levels' sources too); and the same after every point moved by up to 0.06 of the cube's side and
 * one in 16 went to the next rank, so that the ranks' points left their ranges of the partition. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "test_check.h"
#include "mpi_test.h"

#define TRACER0 ((int64_t)1 << 40) /* ids from here are tracers: targets only */

/* This rank's sources and tracers, partitioned over the ranks with every point in the cube. */
static int make_owned(const vx_comm *c, owned_set *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  const int ns = records_count(c->rank), nt = ns / 2, n = ns + nt;
  int64_t first, total;
  records_ids(c->comm, ns, &first, &total);
  rec *r = malloc((size_t)n * sizeof *r);
  double *pos = malloc((size_t)n * 3 * sizeof *pos);
  uint32_t *keys = malloc((size_t)n * sizeof *keys);
  s->split = malloc((size_t)(c->size + 1) * sizeof *s->split);
  void *out = NULL;
  int rc = -1;
  if (!r || !pos || !keys || !s->split) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    r[i] = i < ns ? make(first + i) : make(TRACER0 + 2 * first + (i - ns)); /* a tracer's id is unique too */
    memcpy(pos + 3 * i, r[i].x, sizeof r[i].x);
  }
  if (vx_part_cube_all(c, pos, n, &s->cube, err, errlen)) goto done;
  vx_part_keys(&s->cube, pos, n, keys);
  if (vx_part_splitters(c, keys, NULL, n, s->split, err, errlen) ||
      vx_part_migrate(c, s->split, keys, n, r, sizeof *r, &out, &s->n, err, errlen))
    goto done;
  s->o = out;
  rc = 0;
done:
  free(r), free(pos), free(keys);
  return rc;
}

/* The evaluation's arrays in one precision: sources first among the targets, then the tracers. */
typedef struct {
  void *sp, *sa, *tp, *vel, *grad;
  int ns, nt;
  int64_t *tid; /* each target's record id */
} arrays;

static void put(void *a, size_t i, double v, int f) {
  if (f) ((float *)a)[i] = (float)v;
  else ((double *)a)[i] = v;
}

static double get(const void *a, size_t i, int f) { return f ? ((const float *)a)[i] : ((const double *)a)[i]; }

static int arrays_of(const rec *o, int n, int f, arrays *A) {
  const size_t rs = f ? sizeof(float) : sizeof(double);
  memset(A, 0, sizeof *A);
  for (int i = 0; i < n; i++) A->ns += o[i].id < TRACER0;
  A->nt = n;
  const size_t m = (size_t)n + 1;
  A->sp = malloc(3 * rs * m), A->sa = malloc(3 * rs * m), A->tp = malloc(3 * rs * m), A->vel = malloc(3 * rs * m);
  A->grad = malloc(9 * rs * m), A->tid = malloc(m * sizeof *A->tid);
  if (!A->sp || !A->sa || !A->tp || !A->vel || !A->grad || !A->tid) return -1;
  int s = 0, t = A->ns;
  for (int i = 0; i < n; i++) {
    const int src = o[i].id < TRACER0, k = src ? s++ : t++;
    A->tid[k] = o[i].id;
    for (int d = 0; d < 3; d++) {
      put(A->tp, 3 * (size_t)k + d, o[i].x[d], f);
      if (src) put(A->sp, 3 * (size_t)k + d, o[i].x[d], f), put(A->sa, 3 * (size_t)k + d, o[i].a[d], f);
    }
  }
  return 0;
}

static void arrays_free(arrays *A) { free(A->sp), free(A->sa), free(A->tp), free(A->vel), free(A->grad), free(A->tid); }

static fmm_io io_of(arrays *A) {
  fmm_io io = {.n_src = A->ns, .src_pos = A->sp, .src_str = A->sa, .n_tgt = A->nt, .tgt_pos = A->tp,
               .vel = A->vel, .grad = A->grad, .n_grad = A->ns};
  return io;
}

static int by_id(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The index of id among the ascending ids of n targets (sorted pairs id, index). */
static int find(const int64_t (*idx)[2], int n, int64_t id) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (idx[mid][0] < id) lo = mid + 1;
    else hi = mid;
  }
  return idx[lo][0] == id ? (int)idx[lo][1] : -1;
}

typedef struct {
  const char *name;
  int f;                /* float */
  vx_kernel kernel;
  double sigma;
  int levels, Lc_max;   /* 0: automatic, vx_dist_lc */
  int partial;          /* the halo must be a part of the other ranks' sources (on 2 ranks or more) */
} case_t;

/* One case: the distributed evaluation against one evaluation of all points (gathered on every rank). */
static int check_case(const vx_comm *c, const owned_set *s, const case_t *k) {
  char err[256] = "";
  const double tol = k->f ? 1e-6 : 1e-12;
  fmm_params P = fmm_params_default();
  P.precision = k->f ? VX_FLOAT : VX_DOUBLE;
  P.kernel = k->kernel, P.sigma = k->sigma, P.levels = k->levels;
  fmm_ctx *ctx = fmm_create(&P, err, sizeof err), *ref = fmm_create(&P, err, sizeof err);
  CHECK(ctx && ref, "fmm_create: %s", err);
  arrays A, G;
  CHECK(arrays_of(s->o, s->n, k->f, &A) == 0, "out of memory");
  fmm_io io = io_of(&A);
  vx_dist_stats ds;
  fmm_stats st;
  vx_dist_engine *d = vx_dist_create(c, ctx, err, sizeof err);
  CHECK(d, "%s", err);
  CHECK(vx_dist_evaluate(d, &s->cube, k->Lc_max, &io, &st, &ds, err, sizeof err) == 0, "%s: %s", k->name, err);
  vx_dist_destroy(d);
  /* every record on every rank: the single evaluation */
  int *counts = malloc((size_t)c->size * sizeof *counts), *displ = malloc((size_t)c->size * sizeof *displ), nall = 0;
  CHECK(counts && displ, "out of memory");
  int nb = s->n * (int)sizeof *s->o;
  MPI_Allgather(&nb, 1, MPI_INT, counts, 1, MPI_INT, c->comm);
  for (int r = 0; r < c->size; r++) displ[r] = nall, nall += counts[r];
  rec *all = malloc((size_t)nall + 1);
  CHECK(all, "out of memory");
  MPI_Allgatherv(s->o, nb, MPI_BYTE, all, counts, displ, MPI_BYTE, c->comm);
  nall /= (int)sizeof *all;
  CHECK(arrays_of(all, nall, k->f, &G) == 0, "out of memory");
  fmm_io gio = io_of(&G);
  fmm_stats gst;
  CHECK(fmm_evaluate(ref, &gio, &gst, err, sizeof err) == 0, "reference: %s", err);
  CHECK(gst.levels == ds.L, "%s: rank %d took level %d, one evaluation %d", k->name, c->rank, ds.L, gst.levels);
  int64_t(*idx)[2] = malloc((size_t)G.nt * sizeof *idx);
  CHECK(idx, "out of memory");
  for (int i = 0; i < G.nt; i++) idx[i][0] = G.tid[i], idx[i][1] = i;
  qsort(idx, (size_t)G.nt, sizeof *idx, by_id);
  /* the deviations relative to the magnitudes, as the benchmark's err_vel (rms over every rank's targets) */
  double sum[4] = {0, 0, 0, 0}; /* Σ|Δu|², Σ|u|², Σ|Δ∇u|², Σ|∇u|² */
  for (int i = 0; i < A.nt; i++) {
    int g = find((const int64_t(*)[2])idx, G.nt, A.tid[i]);
    CHECK(g >= 0, "target %lld not found", (long long)A.tid[i]);
    for (int q = 0; q < 3; q++) {
      const double a = get(A.vel, 3 * (size_t)i + q, k->f), b = get(G.vel, 3 * (size_t)g + q, k->f);
      sum[0] += (a - b) * (a - b), sum[1] += b * b;
    }
    for (int q = 0; i < A.ns && q < 9; q++) {
      const double a = get(A.grad, 9 * (size_t)i + q, k->f), b = get(G.grad, 9 * (size_t)g + q, k->f);
      sum[2] += (a - b) * (a - b), sum[3] += b * b;
    }
  }
  double gs[4];
  long long halo = ds.n_halo, ghalo;
  MPI_Allreduce(sum, gs, 4, MPI_DOUBLE, MPI_SUM, c->comm);
  MPI_Allreduce(&halo, &ghalo, 1, MPI_LONG_LONG, MPI_SUM, c->comm);
  const double ev = sqrt(gs[0] / gs[1]), eg = sqrt(gs[2] / gs[3]);
  if (c->rank == 0)
    printf("%d ranks, %s: level %d, dense to %d, halo level %d (%lld sources), velocity %.2e, gradient %.2e "
           "(bound %.0e)\n",
           c->size, k->name, ds.L, ds.Lc, ds.Lh, ghalo, ev, eg, tol);
  CHECK(ev <= tol && eg <= tol, "%s: velocity %.3g, gradient %.3g relative", k->name, ev, eg);
  CHECK(!k->partial || c->size == 1 || ghalo < (long long)(c->size - 1) * G.ns, "%s: the halo holds every source", k->name);
  arrays_free(&A), arrays_free(&G);
  free(counts), free(displ), free(all), free(idx);
  fmm_destroy(ctx), fmm_destroy(ref);
  return 0;
}

/* The points off the partition (a copy of s): each moved by up to 0.06 of the cube's side along each axis,
 * as a time step's stages move them, and one in 16 handed to the next rank, so that the ranks' key spans
 * overlap; the cube made anew. */
static int moved_set(const vx_comm *c, const owned_set *s, owned_set *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  rec *o = malloc(sizeof *o * (size_t)(s->n + 1));
  int *start = malloc(sizeof(int) * (size_t)(s->n + 1)), *dest = malloc(sizeof(int) * (size_t)(s->n + 1));
  double *pos = NULL;
  void *got = NULL;
  int rc = -1;
  if (!o || !start || !dest) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (int i = 0; i < s->n; i++) {
    o[i] = s->o[i];
    for (int k = 0; k < 3; k++) o[i].x[k] += 0.12 * s->cube.side * (unit((uint64_t)o[i].id, k + 9) - 0.5);
    start[i] = i, dest[i] = o[i].id % 16 == 0 ? (c->rank + 1) % c->size : c->rank;
  }
  start[s->n] = s->n;
  if (vx_part_exchange(c, start, dest, s->n, o, sizeof *o, &got, &m->n, err, errlen)) goto done;
  m->o = got, got = NULL;
  if (!(pos = malloc(sizeof(double) * 3 * (size_t)(m->n + 1)))) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (int i = 0; i < m->n; i++) memcpy(pos + 3 * i, m->o[i].x, sizeof m->o[i].x);
  rc = vx_part_cube_all(c, pos, m->n, &m->cube, err, errlen);
done:
  free(o), free(start), free(dest), free(pos), free(got);
  return rc;
}

/* How many points moved out of their rank's range of the partition, and how many there are (over the ranks). */
static void moved_out(const vx_comm *c, const owned_set *s, const owned_set *m, long long got[2]) {
  long long mine[2] = {0, m->n};
  for (int i = 0; i < m->n; i++) {
    uint32_t k;
    vx_part_keys(&s->cube, m->o[i].x, 1, &k);
    mine[0] += k < s->split[c->rank] || k >= s->split[c->rank + 1];
  }
  MPI_Allreduce(mine, got, 2, MPI_LONG_LONG, MPI_SUM, c->comm);
}

/* The global level's count of non-empty cells (vx_dist_occupied) against every rank's keys gathered, at
 * levels 2..8: the moved set's spans overlap (a point handed to the next rank), its partition's do not. */
static int check_occupied(const vx_comm *c, const owned_set *s, const char *name) {
  char err[256] = "";
  fmm_params P = fmm_params_default();
  fmm_ctx *ctx = fmm_create(&P, err, sizeof err);
  CHECK(ctx, "fmm_create: %s", err);
  vx_dist_engine *d = vx_dist_create(c, ctx, err, sizeof err);
  uint32_t *k = owned_keys(s);
  CHECK(d && k, "%s", d ? "out of memory" : err);
  for (int l = 2; l <= 8; l++) {
    long long got = -1;
    CHECK(vx_dist_occupied(d, k, NULL, s->n, l, &got, err, sizeof err) == 0, "%s", err);
    const long long want = occupied_ref(c, k, s->n, l);
    CHECK(got == want, "%s, level %d: %lld cells counted, %lld occupied", name, l, got, want);
  }
  if (c->rank == 0) printf("%s: the occupied cells of levels 2..8 counted exactly\n", name);
  free(k);
  vx_dist_destroy(d);
  fmm_destroy(ctx);
  return 0;
}

static int run(const vx_comm *c) {
  char err[256] = "";
  owned_set s;
  CHECK(make_owned(c, &s, err, sizeof err) == 0, "partition: %s", err);
  static const case_t cases[] = {
      {"double, Gaussian, automatic level", 0, VX_KERNEL_GAUSS, 0.02, 0, 0, 0},
      {"double, Gaussian, level 5, dense to 3", 0, VX_KERNEL_GAUSS, 0.02, 5, 3, 0},
      {"double, Gaussian sigma 0.003, level 5", 0, VX_KERNEL_GAUSS, 0.003, 5, 0, 1},
      {"double, singular, level 5, dense to 4", 0, VX_KERNEL_SINGULAR, 0.0, 5, 4, 1},
      {"double, singular, level 4, dense to 2", 0, VX_KERNEL_SINGULAR, 0.0, 4, 2, 0},
      {"float, Gaussian, level 4", 1, VX_KERNEL_GAUSS, 0.02, 4, 0, 0},
      {"float, singular, level 5, dense to 3", 1, VX_KERNEL_SINGULAR, 0.0, 5, 3, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (check_case(c, &s, &cases[i])) return 1;
  owned_set m;
  CHECK(moved_set(c, &s, &m, err, sizeof err) == 0, "moved points: %s", err);
  long long out[2];
  moved_out(c, &s, &m, out);
  if (c->rank == 0) printf("%lld of %lld points moved off their rank's range\n", out[0], out[1]);
  CHECK(c->size == 1 || out[0] > out[1] / 20, "only %lld of %lld points left their ranges", out[0], out[1]);
  static const case_t moved[] = {
      {"moved points: double, Gaussian, automatic level", 0, VX_KERNEL_GAUSS, 0.02, 0, 0, 0},
      {"moved points: double, Gaussian sigma 0.003, level 5", 0, VX_KERNEL_GAUSS, 0.003, 5, 0, 1},
      {"moved points: float, singular, level 5, dense to 3", 1, VX_KERNEL_SINGULAR, 0.0, 5, 3, 1},
  };
  for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++)
    if (check_case(c, &m, &moved[i])) return 1;
  if (check_occupied(c, &s, "the partition") || check_occupied(c, &m, "moved points")) return 1;
  owned_free(&m);
  owned_free(&s);
  return 0;
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, "mpi_test_engine", run,
                       "distributed FMM: velocities and gradients equal one evaluation's to round-off");
}
