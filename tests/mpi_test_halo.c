/* mpi_test_halo.c — the near field's halo (dist/halo.h) under mpirun with 1, 2 and 3 ranks: after
 * the records are partitioned, each rank receives, for reach 1 and 2 at level 5, every other rank's
 * record within reach of a leaf of its own records (checked against all records gathered), each
 * once, none of its own, and none beyond reach of its key range; one rank has no halo. */
#include <stdlib.h>
#include <string.h>

#include "halo.h"
#include "octree.h"
#include "test_check.h"
#include "mpi_test.h"

#define LEVEL 5

static void cell_of(const vx_part_cube *cube, const double *x, int L, int cell[3]) {
  for (int k = 0; k < 3; k++) cell[k] = (int)oct_cell(x[k], cube->lo[k], 1.0 / cube->side, L);
}

static int within(const int a[3], const int b[3], int reach) {
  for (int k = 0; k < 3; k++)
    if (abs(a[k] - b[k]) > reach) return 0;
  return 1;
}

/* Whether some cell within reach of `cell` has keys in this rank's range. */
static int near_range(const uint32_t *split, int rank, const int cell[3], int reach) {
  const int top = (1 << LEVEL) - 1, shift = 3 * (VX_PART_KEY_BITS / 3 - LEVEL);
  for (int dz = -reach; dz <= reach; dz++)
    for (int dy = -reach; dy <= reach; dy++)
      for (int dx = -reach; dx <= reach; dx++) {
        int x = cell[0] + dx, y = cell[1] + dy, z = cell[2] + dz;
        if (x < 0 || y < 0 || z < 0 || x > top || y > top || z > top) continue;
        uint32_t k0 = oct_morton3((uint32_t)x, (uint32_t)y, (uint32_t)z) << shift, k1 = k0 + (1u << shift);
        if (k0 < split[rank + 1] && k1 > split[rank]) return 1;
      }
  return 0;
}

static int check_halo(const vx_comm *c, const vx_part_cube *cube, const uint32_t *split, const rec *o, int nout,
                      int64_t total, int reach) {
  char err[256] = "";
  double *pos = records_pos(o, nout);
  uint32_t *ranges = malloc(sizeof(uint32_t) * 2 * (size_t)c->size);
  CHECK(pos && ranges, "out of memory");
  vx_part_ranges(split, c->size, ranges);
  void *got = NULL;
  int nh = 0;
  CHECK(vx_halo_exchange(c, ranges, cube, LEVEL, reach, pos, nout, o, sizeof *o, &got, &nh, err, sizeof err) == 0,
        "halo: %s", err);
  const rec *h = got;
  /* Every record, with its owner, gathered everywhere: the reference. */
  int *counts = malloc((size_t)c->size * sizeof *counts), *displ = malloc((size_t)c->size * sizeof *displ);
  rec *all = malloc((size_t)total * sizeof *all);
  char *seen = calloc((size_t)total, 1), *mine = calloc((size_t)total, 1);
  CHECK(counts && displ && all && seen && mine, "out of memory");
  int nb = nout * (int)sizeof *o;
  MPI_Allgather(&nb, 1, MPI_INT, counts, 1, MPI_INT, c->comm);
  displ[0] = 0;
  for (int r = 1; r < c->size; r++) displ[r] = displ[r - 1] + counts[r - 1];
  MPI_Allgatherv(o, nb, MPI_BYTE, all, counts, displ, MPI_BYTE, c->comm);
  for (int i = 0; i < nout; i++) mine[o[i].id] = 1;
  for (int i = 0; i < nh; i++) {
    int cell[3];
    cell_of(cube, h[i].x, LEVEL, cell);
    CHECK(h[i].id >= 0 && h[i].id < total && !mine[h[i].id], "rank %d: halo record %lld is its own or unknown", c->rank,
          (long long)h[i].id);
    CHECK(!seen[h[i].id], "rank %d: halo record %lld twice", c->rank, (long long)h[i].id);
    CHECK(near_range(split, c->rank, cell, reach), "rank %d: halo record %lld beyond reach %d of its range", c->rank,
          (long long)h[i].id, reach);
    seen[h[i].id] = 1;
  }
  int need = 0;
  for (int64_t q = 0; q < total; q++) {
    int cq[3], hit = 0;
    if (mine[all[q].id]) continue;
    cell_of(cube, all[q].x, LEVEL, cq);
    for (int i = 0; i < nout && !hit; i++) {
      int cp[3];
      cell_of(cube, o[i].x, LEVEL, cp);
      hit = within(cp, cq, reach);
    }
    need += hit;
    CHECK(!hit || seen[all[q].id], "rank %d: record %lld within reach %d of its targets is missing", c->rank,
          (long long)all[q].id, reach);
  }
  CHECK(c->size > 1 || nh == 0, "one rank received a halo of %d", nh);
  if (c->size > 1) CHECK(need > 0, "rank %d: the test's ranks share no neighbouring leaves", c->rank);
  printf("rank %d of %d, reach %d: %d halo records, %d needed, %d own\n", c->rank, c->size, reach, nh, need, nout);
  free(pos), free(ranges), free(got), free(counts), free(displ), free(all), free(seen), free(mine);
  return 0;
}

static int run(const vx_comm *c) {
  char err[256] = "";
  owned_set s;
  CHECK(records_owned(c, &s, err, sizeof err) == 0, "partition: %s", err);
  for (int reach = 1; reach <= 2; reach++)
    if (check_halo(c, &s.cube, s.split, s.o, s.n, s.total, reach)) return 1;
  void *got = NULL;
  int nh = 0;
  uint32_t ranges[2 * 64];
  CHECK(c->size <= 64, "at most 64 ranks");
  vx_part_ranges(s.split, c->size, ranges);
  CHECK(vx_halo_exchange(c, ranges, &s.cube, 11, 1, NULL, 0, s.o, sizeof *s.o, &got, &nh, err, sizeof err) == -1 &&
            strstr(err, "level 11"),
        "a level beyond the keys: '%s'", err);
  owned_free(&s);
  return 0;
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, "mpi_test_halo", run, "halo: every needed remote record, once, within reach");
}
