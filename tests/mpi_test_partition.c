/* mpi_test_partition.c — the distributed engine's decomposition (dist/partition.h) under mpirun with
 * 1, 2 and 3 ranks: each rank makes records of its own spread over the whole cube; after the key
 * ranges and the migration every record is on the rank owning its key, none is lost, duplicated or
 * altered, the cost is balanced within one finest cell's cost, a second migration moves nothing,
 * splitters among keys crowded into two bins of the search's histogram equal the brute force,
 * and bad input fails on every rank with one line; vx_comm_first_error gives every rank the lowest
 * failing rank's reason and the count of failing ranks. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "partition.h"
#include "test_check.h"
#include "mpi_test.h"

static int splitters_agree(const vx_comm *c, const uint32_t *split) {
  const int R = c->size;
  uint32_t *all = malloc((size_t)R * (R + 1) * sizeof *all);
  CHECK(all, "out of memory");
  MPI_Allgather(split, R + 1, MPI_UINT32_T, all, R + 1, MPI_UINT32_T, c->comm);
  int same = 1;
  for (int s = 0; s < R; s++) same &= memcmp(all + (size_t)s * (R + 1), split, (R + 1) * sizeof *split) == 0;
  free(all);
  CHECK(same, "rank %d: the key ranges differ between ranks", c->rank);
  CHECK(split[0] == 0 && split[R] == 1u << VX_PART_KEY_BITS, "the key ranges do not span the curve");
  for (int r = 0; r < R; r++) CHECK(split[r] <= split[r + 1], "key range %d is reversed", r);
  return 0;
}

/* Every record owned here, unaltered, in ascending id; the global count and id sums kept. */
static int check_owned(const vx_comm *c, const vx_part_cube *cube, const uint32_t *split, const rec *r, int n,
                       int64_t total) {
  int64_t s[3] = {n, 0, 0}, g[3];
  for (int i = 0; i < n; i++) {
    uint32_t key;
    vx_part_keys(cube, r[i].x, 1, &key);
    rec want = make(r[i].id);
    CHECK(memcmp(&want, &r[i], sizeof want) == 0, "rank %d: record %lld altered", c->rank, (long long)r[i].id);
    CHECK(key >= split[c->rank] && key < split[c->rank + 1], "rank %d: record %lld (key %u) belongs elsewhere", c->rank,
          (long long)r[i].id, key);
    CHECK(i == 0 || r[i].id > r[i - 1].id, "rank %d: records out of order at %d", c->rank, i);
    s[1] += r[i].id, s[2] += r[i].id * r[i].id;
  }
  MPI_Allreduce(s, g, 3, MPI_INT64_T, MPI_SUM, c->comm);
  CHECK(g[0] == total, "%lld records after the migration, %lld before", (long long)g[0], (long long)total);
  CHECK(g[1] == total * (total - 1) / 2 && g[2] == (total - 1) * total * (2 * total - 1) / 6,
        "the records' ids changed in the migration");
  return 0;
}

/* The largest cost of the records in one finest cell, over all ranks (cells do not span ranks). */
static double cell_cost_max(const vx_comm *c, const vx_part_cube *cube, const rec *r, int n) {
  double mx = 0.0;
  for (int i = 0; i < n; i++) {
    uint32_t ki, kj;
    vx_part_keys(cube, r[i].x, 1, &ki);
    double s = 0.0;
    for (int j = 0; j < n; j++) {
      vx_part_keys(cube, r[j].x, 1, &kj);
      if (kj == ki) s += cost_of(r[j].id);
    }
    if (s > mx) mx = s;
  }
  MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  return mx;
}

/* vx_comm_first_error: no reason anywhere; the last rank's; every rank's but rank 0's. */
static int first_error(const vx_comm *c) {
  char mine[64], out[512];
  int first, count;
  CHECK(vx_comm_first_error(c, "", &first, &count, out, sizeof out) == 0 && first == -1 && count == 0 && !out[0],
        "rank %d: no reason: first %d, count %d, '%s'", c->rank, first, count, out);
  snprintf(mine, sizeof mine, "rank %d failed", c->rank);
  CHECK(vx_comm_first_error(c, c->rank == c->size - 1 ? mine : "", &first, &count, out, sizeof out) == 0 &&
            first == c->size - 1 && count == 1,
        "rank %d: the last rank's reason: first %d, count %d", c->rank, first, count);
  snprintf(mine, sizeof mine, "rank %d failed", c->size - 1);
  CHECK(!strcmp(out, mine), "rank %d: the last rank's reason reads '%s'", c->rank, out);
  snprintf(mine, sizeof mine, "rank %d failed", c->rank);
  const int want = c->size > 1 ? 1 : -1;
  CHECK(vx_comm_first_error(c, c->rank > 0 ? mine : "", &first, &count, out, sizeof out) == 0 && first == want &&
            count == c->size - 1,
        "rank %d: every rank's but 0's: first %d (want %d), count %d", c->rank, first, want, count);
  CHECK(c->size == 1 || !strcmp(out, "rank 1 failed"), "rank %d: the lowest failing rank's reason reads '%s'", c->rank, out);
  return 0;
}

static int by_key_u32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Keys crowded into two neighbouring bins of the splitters' histogram (the top 16 of 30 bits), every
 * rank's different, with integer costs (exact sums): each splitter equals the brute force over every
 * rank's keys, the largest key whose keys below cost at most r/R of the total. */
static int crowded_splitters(const vx_comm *c) {
  const int n = 400 + 37 * c->rank, R = c->size;
  uint32_t *k = malloc((size_t)n * sizeof *k), split[9];
  double *w = malloc((size_t)n * sizeof *w);
  CHECK(k && w && R <= 8, "out of memory or too many ranks");
  for (int i = 0; i < n; i++) {
    const uint64_t id = (uint64_t)c->rank * 100000u + (uint64_t)i;
    k[i] = ((12345u + (unit(id, 1) < 0.2)) << 14) | (uint32_t)(unit(id, 2) * 16384.0);
    w[i] = cost_of((int64_t)id);
  }
  char err[256] = "";
  CHECK(vx_part_splitters(c, k, w, n, split, err, sizeof err) == 0, "crowded splitters: %s", err);
  int *cnt = malloc((size_t)R * sizeof *cnt), *dsp = malloc((size_t)R * sizeof *dsp), total = 0;
  MPI_Allgather(&n, 1, MPI_INT, cnt, 1, MPI_INT, c->comm);
  for (int r = 0; r < R; r++) dsp[r] = total, total += cnt[r];
  uint32_t *all = malloc((size_t)total * sizeof *all), *ka = malloc(2 * (size_t)total * sizeof *ka);
  double *wa = malloc((size_t)total * sizeof *wa);
  CHECK(cnt && dsp && all && ka && wa, "out of memory");
  MPI_Allgatherv(k, n, MPI_UINT32_T, all, cnt, dsp, MPI_UINT32_T, c->comm);
  MPI_Allgatherv(w, n, MPI_DOUBLE, wa, cnt, dsp, MPI_DOUBLE, c->comm);
  for (int i = 0; i < total; i++) ka[2 * i] = all[i], ka[2 * i + 1] = (uint32_t)wa[i]; /* costs 1..7: exact */
  qsort(ka, (size_t)total, 2 * sizeof *ka, by_key_u32);
  double sum = 0.0;
  for (int i = 0; i < total; i++) sum += ka[2 * i + 1];
  for (int r = 1; r < R; r++) {
    const double target = sum * r / R;
    double below = 0.0;
    uint32_t want = (1u << VX_PART_KEY_BITS) - 1u;
    for (int i = 0; i < total; i++) {
      if (below + ka[2 * i + 1] > target) { want = ka[2 * i]; break; }
      below += ka[2 * i + 1];
    }
    CHECK(split[r] == want, "rank %d: splitter %d is %u, the brute force %u", c->rank, r, split[r], want);
  }
  free(k), free(w), free(cnt), free(dsp), free(all), free(ka), free(wa);
  return 0;
}

static int run(const vx_comm *c) {
  if (first_error(c) || crowded_splitters(c)) return 1;
  char err[256] = "";
  owned_set s;
  CHECK(records_owned(c, &s, err, sizeof err) == 0, "partition: %s", err);
  vx_part_cube cube = s.cube;
  uint32_t *split = s.split;
  rec *o = s.o;
  const int nout = s.n;
  const int64_t total = s.total;
  if (splitters_agree(c, split) || check_owned(c, &cube, split, o, nout, total)) return 1;

  double local = 0.0, W = 0.0;
  for (int i = 0; i < nout; i++) local += cost_of(o[i].id);
  MPI_Allreduce(&local, &W, 1, MPI_DOUBLE, MPI_SUM, c->comm);
  double imb = vx_part_imbalance(c, local), bound = 1.0 + c->size * cell_cost_max(c, &cube, o, nout) / W;
  CHECK(imb >= 1.0 - 1e-12 && imb <= bound + 1e-12, "cost imbalance %.6f, above the bound %.6f of one finest cell", imb,
        bound);

  /* Owned records stay: a second migration moves nothing. */
  double *pos = records_pos(o, nout), *cost = malloc((size_t)(nout > 0 ? nout : 1) * sizeof *cost);
  uint32_t *k2 = malloc((size_t)(nout > 0 ? nout : 1) * sizeof *k2);
  CHECK(pos && cost && k2, "out of memory");
  vx_part_keys(&cube, pos, nout, k2);
  for (int i = 0; i < nout; i++) cost[i] = cost_of(o[i].id);
  void *again = NULL;
  int nagain = 0;
  CHECK(vx_part_migrate(c, split, k2, nout, o, sizeof *o, &again, &nagain, err, sizeof err) == 0, "re-migrate: %s", err);
  CHECK(nagain == nout && memcmp(again, o, (size_t)nout * sizeof *o) == 0, "rank %d: a second migration moved records",
        c->rank);

  /* Bad input fails on every rank, with one line. */
  CHECK(vx_part_migrate(c, split, k2, nout, o, 0, &again, &nagain, err, sizeof err) == -1 && strstr(err, "0 bytes"),
        "a record of 0 bytes: '%s'", err);
  if (c->rank == c->size - 1 && nout > 0) pos[3 * (nout - 1) + 1] = NAN;
  err[0] = '\0';
  CHECK(vx_part_cube_all(c, pos, nout, &cube, err, sizeof err) == -1 && strstr(err, "non-finite"),
        "rank %d: a NaN coordinate: '%s'", c->rank, err);
  if (nout > 0) cost[0] = -1.0;
  CHECK(vx_part_splitters(c, k2, cost, nout, split, err, sizeof err) == -1 && strstr(err, "cost"),
        "rank %d: a negative cost: '%s'", c->rank, err);
  if (c->rank == 0)
    printf("%d ranks, %lld records: imbalance %.6f (bound %.6f)\n", c->size, (long long)total, imb, bound);
  owned_free(&s), free(pos), free(cost), free(k2), free(again);
  return 0;
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, "mpi_test_partition", run, "partition: key ranges, migration and balance hold");
}
