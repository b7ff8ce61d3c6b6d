/* mpi_records.h — tests only: the records the MPI tests move between ranks. Each record is made
 * from its global id alone (splitmix64), so any rank can check one it receives; rank r makes
 * 800 + 537 r of them, spread over two blobs that every rank covers (as a pair of rings' elements). */
#ifndef VX_MPI_RECORDS_H
#define VX_MPI_RECORDS_H

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

/* Makes this rank's records, the root cube of all, the cost-balanced key ranges split[0..size], and
 * moves the records to their owners: *owned (malloc'ed), *nout of *total. 0, or -1 with err. */
static inline int records_owned(const vx_comm *c, vx_part_cube *cube, uint32_t *split, rec **owned, int *nout,
                                int64_t *total, char *err, size_t errlen) {
  const int n = records_count(c->rank);
  int64_t first;
  records_ids(c->comm, n, &first, total);
  rec *r = malloc((size_t)n * sizeof *r);
  double *pos = malloc((size_t)n * 3 * sizeof *pos), *cost = malloc((size_t)n * sizeof *cost);
  uint32_t *keys = malloc((size_t)n * sizeof *keys);
  void *out = NULL;
  int rc = -1;
  if (!r || !pos || !cost || !keys) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    r[i] = make(first + i), cost[i] = cost_of(first + i);
    memcpy(pos + 3 * i, r[i].x, sizeof r[i].x);
  }
  if (vx_part_cube_all(c, pos, n, cube, err, errlen)) goto done;
  vx_part_keys(cube, pos, n, keys);
  if (vx_part_splitters(c, keys, cost, n, split, err, errlen) ||
      vx_part_migrate(c, split, keys, n, r, sizeof *r, &out, nout, err, errlen))
    goto done;
  *owned = out;
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

#endif
