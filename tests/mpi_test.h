/* mpi_test.h — tests only: what the MPI tests share. The records they move between ranks, each made
 * from its global id alone (splitmix64) so that any rank can check one it receives (rank r makes
 * 800 + 537 r of them, spread over two blobs that every rank covers, as a pair of rings' elements);
 * those records partitioned; and a test's main. Include after test_check.h. */
#ifndef VX_MPI_TEST_H
#define VX_MPI_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "partition.h"

typedef struct {
  double x[3], a[3];
  int64_t id;
} rec;

static inline double unit(uint64_t id, int k) { /* splitmix64 of (id, k), in [0, 1) */
  uint64_t z = id * 0x9E3779B97F4A7C15ull + (uint64_t)k * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static inline rec make(int64_t id) {
  static const double c[2][3] = {{0.3, 0.35, 0.3}, {0.7, 0.6, 0.55}};
  rec r = {.id = id};
  for (int k = 0; k < 3; k++) {
    r.x[k] = c[id % 2][k] + 0.12 * (unit((uint64_t)id, k) + unit((uint64_t)id, k + 3) - 1.0);
    r.a[k] = unit((uint64_t)id, k + 6) - 0.5;
  }
  return r;
}

static inline double cost_of(int64_t id) { return 1.0 + (double)(id % 7); }

/* This rank's records: ids [*first, *first + n) of *total over all ranks. */
static inline int records_count(int rank) { return 800 + 537 * rank; }
static inline void records_ids(MPI_Comm comm, int n, int64_t *first, int64_t *total) {
  int64_t mine = n;
  *first = 0;
  MPI_Exscan(&mine, first, 1, MPI_INT64_T, MPI_SUM, comm);
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) *first = 0;
  MPI_Allreduce(&mine, total, 1, MPI_INT64_T, MPI_SUM, comm);
}

/* This rank's records after the partition: the root cube of all, the cost-balanced key ranges
 * split[0..size], and the records this rank owns, o[0..n) of total. */
typedef struct {
  vx_part_cube cube;
  uint32_t *split;
  rec *o;
  int n;
  int64_t total;
} owned_set;

static inline void owned_free(owned_set *s) { free(s->split), free(s->o); }

/* The level-10 keys of a set's points in its cube (malloc'ed). */
static inline uint32_t *owned_keys(const owned_set *s) {
  double *x = malloc(sizeof(double) * 3 * ((size_t)s->n + 1));
  uint32_t *k = malloc(sizeof(uint32_t) * ((size_t)s->n + 1));
  if (x && k) {
    for (int i = 0; i < s->n; i++) memcpy(x + 3 * i, s->o[i].x, sizeof s->o[i].x);
    vx_part_keys(&s->cube, x, s->n, k);
  }
  free(x);
  if (!x) free(k), k = NULL;
  return k;
}

/* The non-empty level-l cells of every rank's keys, by gathering them all (the reference of the engine's
 * count, vx_dist_occupied). */
static inline long long occupied_ref(const vx_comm *c, const uint32_t *keys, int n, int l) {
  int *cnt = malloc(sizeof(int) * 2 * (size_t)c->size), *dsp = cnt + c->size, tot = 0;
  MPI_Allgather(&n, 1, MPI_INT, cnt, 1, MPI_INT, c->comm);
  for (int r = 0; r < c->size; r++) dsp[r] = tot, tot += cnt[r];
  uint32_t *all = malloc(sizeof(uint32_t) * ((size_t)tot + 1));
  MPI_Allgatherv(keys, n, MPI_UINT32_T, all, cnt, dsp, MPI_UINT32_T, c->comm);
  unsigned char *seen = calloc((size_t)1 << (3 * l), 1);
  long long m = 0;
  for (int i = 0; i < tot; i++) {
    const uint32_t q = all[i] >> (VX_PART_KEY_BITS - 3 * l);
    m += !seen[q], seen[q] = 1;
  }
  free(cnt), free(all), free(seen);
  return m;
}

/* Makes this rank's records and moves them to their owners. 0, or -1 with err. */
static inline int records_owned(const vx_comm *c, owned_set *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  const int n = records_count(c->rank);
  int64_t first;
  records_ids(c->comm, n, &first, &s->total);
  rec *r = malloc((size_t)n * sizeof *r);
  double *pos = malloc((size_t)n * 3 * sizeof *pos), *cost = malloc((size_t)n * sizeof *cost);
  uint32_t *keys = malloc((size_t)n * sizeof *keys);
  s->split = malloc((size_t)(c->size + 1) * sizeof *s->split);
  void *out = NULL;
  int rc = -1;
  if (!r || !pos || !cost || !keys || !s->split) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    r[i] = make(first + i), cost[i] = cost_of(first + i);
    memcpy(pos + 3 * i, r[i].x, sizeof r[i].x);
  }
  if (vx_part_cube_all(c, pos, n, &s->cube, err, errlen)) goto done;
  vx_part_keys(&s->cube, pos, n, keys);
  if (vx_part_splitters(c, keys, cost, n, s->split, err, errlen) ||
      vx_part_migrate(c, s->split, keys, n, r, sizeof *r, &out, &s->n, err, errlen))
    goto done;
  s->o = out;
  rc = 0;
done:
  free(r), free(pos), free(cost), free(keys);
  return rc;
}

/* The 3n coordinates of n records. */
static inline double *records_pos(const rec *r, int n) {
  double *pos = malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof *pos);
  for (int i = 0; pos && i < n; i++) memcpy(pos + 3 * i, r[i].x, sizeof r[i].x);
  return pos;
}

/* This rank's node-local rank: the GPU it takes, one a rank (vx_cuda_use_device wraps it). */
static inline int mpi_test_node_rank(const vx_comm *c) {
  MPI_Comm node;
  int local = 0;
  MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

/* A test's main: MPI, the checked communicator, run (non-zero: a check failed between collective
 * calls, and every rank is stopped rather than left waiting), then the verdict of every rank. */
static inline int mpi_test_main(int argc, char **argv, const char *name, int (*run)(const vx_comm *),
                                const char *passed) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "%s: MPI_Init failed\n", name);
    return EXIT_FAILURE;
  }
  vx_comm c;
  char err[256];
  if (vx_comm_create(MPI_COMM_WORLD, &c, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", name, err);
    MPI_Finalize();
    return EXIT_FAILURE;
  }
  if (run(&c)) {
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
  }
  int all_ok = vx_comm_agree(&c, failures == 0);
  vx_comm_destroy(&c);
  MPI_Finalize();
  if (!all_ok && failures == 0) failures = 1; /* another rank failed: so does this one */
  return vx_test_end(passed);
}

#endif
