/* partition.c — space-filling-curve key ranges and the migration of particles to their owners
 * (partition.h). */
#include "partition.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "octree.h"

void vx_part_bounds(const void *pos, int pos_float, int n, double mn[3], double mx[3], int *bad) {
  for (int k = 0; k < 3; k++) mn[k] = HUGE_VAL, mx[k] = -HUGE_VAL;
  *bad = -1;
  for (int i = 0; i < n; i++) {
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = pos_float ? ((const float *)pos)[3 * i + k] : ((const double *)pos)[3 * i + k];
    if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2])) {
      if (*bad < 0) *bad = i;
      continue;
    }
    for (int k = 0; k < 3; k++) mn[k] = x[k] < mn[k] ? x[k] : mn[k], mx[k] = x[k] > mx[k] ? x[k] : mx[k];
  }
}

int vx_part_cube_of(const vx_comm *c, const double mn[3], const double mx[3], int bad, vx_part_cube *cube, char *err,
                    size_t errlen) {
  if (bad >= 0) snprintf(err, errlen, "rank %d: point %d has a non-finite coordinate", c->rank, bad);
  if (!vx_comm_agree(c, bad < 0)) {
    if (bad < 0) snprintf(err, errlen, "another rank has a point with a non-finite coordinate");
    return -1;
  }
  double gmn[3], gmx[3];
  if (vx_comm_check(MPI_Allreduce(mn, gmn, 3, MPI_DOUBLE, MPI_MIN, c->comm), "MPI_Allreduce (cube min)", err, errlen) ||
      vx_comm_check(MPI_Allreduce(mx, gmx, 3, MPI_DOUBLE, MPI_MAX, c->comm), "MPI_Allreduce (cube max)", err, errlen))
    return -1;
  if (!(gmn[0] <= gmx[0])) { /* no points anywhere: a unit cube */
    for (int k = 0; k < 3; k++) gmn[k] = 0.0, gmx[k] = 1.0;
  }
  if (oct_root_cube(gmn, gmx, cube->lo, &cube->side) != 0) {
    snprintf(err, errlen, "coordinates too large for a bounding cube (extent overflows)");
    return -1;
  }
  return 0;
}

int vx_part_cube_all(const vx_comm *c, const double *pos, int n, vx_part_cube *cube, char *err, size_t errlen) {
  double mn[3], mx[3];
  int bad;
  vx_part_bounds(pos, 0, n, mn, mx, &bad);
  return vx_part_cube_of(c, mn, mx, bad, cube, err, errlen);
}

void vx_part_keys_of(const vx_part_cube *cube, const void *pos, int pos_float, int n, uint32_t *keys) {
  const double inv = 1.0 / cube->side;
  const int l = VX_PART_KEY_BITS / 3;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    uint32_t c[3];
    for (int k = 0; k < 3; k++) {
      const double x = pos_float ? ((const float *)pos)[3 * (size_t)i + k] : ((const double *)pos)[3 * (size_t)i + k];
      c[k] = oct_cell(x, cube->lo[k], inv, l);
    }
    keys[i] = oct_morton3(c[0], c[1], c[2]);
  }
}

void vx_part_keys(const vx_part_cube *cube, const double *pos, int n, uint32_t *keys) {
  vx_part_keys_of(cube, pos, 0, n, keys);
}

void vx_part_ranges(const uint32_t *split, int R, uint32_t *ranges) {
  for (int r = 0; r < R; r++) {
    const int empty = split[r + 1] <= split[r];
    ranges[2 * r] = empty ? UINT32_MAX : split[r];
    ranges[2 * r + 1] = empty ? 0 : split[r + 1] - 1;
  }
}

int vx_part_owner(const uint32_t *split, int size, uint32_t key) {
  return oct_lower_bound(split, size + 1, key + 1) - 1; /* the last r with split[r] <= key (key < 2^30) */
}

typedef struct {
  uint32_t key;
  double cost;
} key_cost;

/* kc[0..n) by key (below 2^VX_PART_KEY_BITS), stably: three counting passes of RADIX_BITS bits
 * through tmp. */
#define RADIX_BITS 10
_Static_assert(3 * RADIX_BITS >= VX_PART_KEY_BITS, "three passes cover a key");
static void sort_by_key(key_cost *kc, key_cost *tmp, int n) {
  enum { B = 1 << RADIX_BITS };
  size_t at[B];
  key_cost *src = kc, *dst = tmp;
  for (int pass = 0; pass < 3; pass++) {
    const int shift = pass * RADIX_BITS;
    memset(at, 0, sizeof at);
    for (int i = 0; i < n; i++) at[(src[i].key >> shift) & (B - 1)]++;
    size_t sum = 0;
    for (int b = 0; b < B; b++) {
      const size_t k = at[b];
      at[b] = sum, sum += k;
    }
    for (int i = 0; i < n; i++) dst[at[(src[i].key >> shift) & (B - 1)]++] = src[i];
    key_cost *t = src;
    src = dst, dst = t;
  }
  if (src != kc) memcpy(kc, src, (size_t)n * sizeof *kc);
}

/* The cost of a rank's keys below a key k, the question each bit of the splitters' search asks: the
 * keys' top HIST_BITS bits in a histogram of running sums answer it for the top bits; below them only
 * the keys of the bins the splitters have reached are kept, sorted (no sort of every key, which took
 * most of a migration). */
#define HIST_BITS 16
#define FINE_BITS (VX_PART_KEY_BITS - HIST_BITS)
typedef struct {
  double *cum;       /* cum[h]: the cost of the keys whose top bits are below h (2^HIST_BITS + 1) */
  key_cost *fine;    /* the keys of the reached bins, ascending (twice n_fine: the sort's scratch) */
  double *fine_below; /* fine_below[i]: the cost of fine[0..i) */
  int n_fine;
} cost_below;

static int cost_histogram(const uint32_t *keys, const double *cost, int n, cost_below *q) {
  const size_t H = (size_t)1 << HIST_BITS;
  memset(q, 0, sizeof *q);
  q->cum = calloc(H + 1, sizeof *q->cum);
  if (!q->cum) return -1;
  for (int i = 0; i < n; i++) q->cum[(keys[i] >> FINE_BITS) + 1] += cost ? cost[i] : 1.0;
  for (size_t h = 0; h < H; h++) q->cum[h + 1] += q->cum[h];
  return 0;
}

/* The keys in the bins of split[1..R) (their top bits decided), sorted with their running costs. */
static int cost_fine(const uint32_t *keys, const double *cost, int n, const uint32_t *split, int R, cost_below *q) {
  unsigned char *mark = calloc((size_t)1 << HIST_BITS, 1);
  if (!mark) return -1;
  for (int r = 1; r < R; r++) mark[split[r] >> FINE_BITS] = 1;
  int m = 0;
  for (int i = 0; i < n; i++) m += mark[keys[i] >> FINE_BITS];
  q->fine = malloc(2 * (size_t)(m > 0 ? m : 1) * sizeof *q->fine);
  q->fine_below = malloc((size_t)(m + 1) * sizeof *q->fine_below);
  if (!q->fine || !q->fine_below) return free(mark), -1;
  for (int i = 0, j = 0; i < n; i++)
    if (mark[keys[i] >> FINE_BITS]) q->fine[j++] = (key_cost){keys[i], cost ? cost[i] : 1.0};
  free(mark);
  sort_by_key(q->fine, q->fine + (m > 0 ? m : 1), m);
  q->fine_below[0] = 0.0;
  for (int i = 0; i < m; i++) q->fine_below[i + 1] = q->fine_below[i] + q->fine[i].cost;
  q->n_fine = m;
  return 0;
}

/* The first of the kept keys at or above k. */
static int fine_lower_bound(const cost_below *q, uint32_t k) {
  int lo = 0, hi = q->n_fine;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (q->fine[mid].key < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The cost of the keys below k: from the histogram when k's low FINE_BITS are 0, else the histogram
 * up to k's bin and the kept keys of that bin (cost_fine has run for it). */
static double cost_under(const cost_below *q, uint32_t k) {
  const uint32_t h = k >> FINE_BITS, base = h << FINE_BITS;
  if (k == base) return q->cum[h];
  return q->cum[h] + q->fine_below[fine_lower_bound(q, k)] - q->fine_below[fine_lower_bound(q, base)];
}

static void cost_below_free(cost_below *q) { free(q->cum), free(q->fine), free(q->fine_below); }

int vx_part_splitters(const vx_comm *c, const uint32_t *keys, const double *cost, int n, uint32_t *split,
                      char *err, size_t errlen) {
  const int R = c->size;
  int bad = -1;
  for (int i = 0; cost && i < n && bad < 0; i++)
    if (!(cost[i] >= 0.0 && isfinite(cost[i]))) bad = i;
  cost_below q = {0};
  double *target = NULL, *part = NULL, *sum = NULL;
  int mem = bad < 0 ? cost_histogram(keys, cost, n, &q) : 0;
  if (R > 1) {
    target = malloc((size_t)R * sizeof *target), part = malloc((size_t)R * sizeof *part);
    sum = malloc((size_t)R * sizeof *sum);
    if (!target || !part || !sum) mem = -1;
  }
  int ok = bad < 0 && mem == 0;
  if (bad >= 0) snprintf(err, errlen, "rank %d: point %d has a cost that is negative or not finite", c->rank, bad);
  else if (mem) snprintf(err, errlen, "rank %d: out of memory for the histogram of %d keys", c->rank, n);
  int rc = -1;
  if (!vx_comm_agree(c, ok)) {
    if (ok) snprintf(err, errlen, "another rank failed to take part in the key ranges");
    goto done;
  }
  split[0] = 0, split[R] = 1u << VX_PART_KEY_BITS;
  if (R > 1) {
    double total = q.cum[(size_t)1 << HIST_BITS];
    if (vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, c->comm), "MPI_Allreduce (total cost)",
                      err, errlen))
      goto done;
    for (int r = 1; r < R; r++) target[r] = total * r / R, split[r] = 0;
    for (int b = VX_PART_KEY_BITS - 1; b >= 0; b--) {
      if (b == FINE_BITS - 1) { /* the top bits decided: the keys of the splitters' bins, sorted */
        const int fine_ok = cost_fine(keys, cost, n, split, R, &q) == 0;
        if (!fine_ok) snprintf(err, errlen, "rank %d: out of memory sorting the key ranges' bins", c->rank);
        if (!vx_comm_agree(c, fine_ok)) {
          if (fine_ok) snprintf(err, errlen, "another rank failed to take part in the key ranges");
          goto done;
        }
      }
      for (int r = 1; r < R; r++) part[r] = cost_under(&q, split[r] | (1u << b));
      if (vx_comm_check(MPI_Allreduce(part + 1, sum + 1, R - 1, MPI_DOUBLE, MPI_SUM, c->comm), "MPI_Allreduce (key ranges)",
                        err, errlen))
        goto done;
      for (int r = 1; r < R; r++)
        if (sum[r] <= target[r]) split[r] |= 1u << b;
    }
    /* Every rank's reductions agree in Open MPI and MPICH; rank 0's ranges are made everyone's all the same. */
    if (vx_comm_check(MPI_Bcast(split, R + 1, MPI_UINT32_T, 0, c->comm), "MPI_Bcast (key ranges)", err, errlen)) goto done;
  }
  rc = 0;
done:
  cost_below_free(&q), free(target), free(part), free(sum);
  return rc;
}

/* vx_part_pack (partition.h): each block of records counts its copies a rank, the blocks' offsets follow
 * by rank, then every block puts its copies in place, in parallel and in the records' order. */
int vx_part_pack(int R, int skip, const int *start, const int *dest, int n, const void *records, size_t rb, char **packed,
                 int *count, int *displ) {
  const char *rec = records;
  enum { BLK = 1 << 14 };
  const int nblk = (n + BLK - 1) / BLK;
  long long *at = calloc((size_t)(nblk + 1) * R, sizeof *at); /* block b's next slot for rank r: at[b R + r] */
  *packed = NULL;
  if (!at) return -1;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nblk; b++)
    for (int j = start[b * BLK]; j < start[(b + 1) * BLK < n ? (b + 1) * BLK : n]; j++)
      if (dest[j] != skip) at[(size_t)b * R + dest[j]]++;
  long long pos = 0;
  for (int r = 0; r < R; r++) {
    displ[r] = (int)pos;
    for (int b = 0; b < nblk; b++) {
      const long long k = at[(size_t)b * R + r];
      at[(size_t)b * R + r] = pos, pos += k;
    }
    count[r] = (int)(pos - displ[r]);
  }
  *packed = malloc((size_t)(pos > 0 ? pos : 1) * rb);
  if (!*packed) {
    free(at);
    return -1;
  }
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nblk; b++) {
    long long *slot = at + (size_t)b * R;
    for (int i = b * BLK; i < n && i < (b + 1) * BLK; i++)
      for (int j = start[i]; j < start[i + 1]; j++)
        if (dest[j] != skip) memcpy(*packed + (size_t)(slot[dest[j]]++) * rb, rec + (size_t)i * rb, rb);
  }
  for (int r = 0; r < R; r++) count[r] *= (int)rb, displ[r] *= (int)rb;
  free(at);
  return 0;
}

/* The copies to this rank itself, in the records' order, to out (each rb bytes). */
static void copy_own(int rank, const int *start, const int *dest, int n, const char *rec, size_t rb, char *out) {
  size_t k = 0;
  for (int i = 0; i < n; i++)
    for (int j = start[i]; j < start[i + 1]; j++)
      if (dest[j] == rank) memcpy(out + (k++) * rb, rec + (size_t)i * rb, rb);
}

/* vx_part_exchange (partition.h): the copies to other ranks packed and sent in one all-to-all; those to
 * this rank copied straight into their place among the received (most of a migration's records stay). */
int vx_part_exchange(const vx_comm *c, const int *start, const int *dest, int n, const void *rec, size_t rec_bytes,
                     void **out, int *nout, char *err, size_t errlen) {
  const int R = c->size, me = c->rank;
  *out = NULL, *nout = 0;
  int *cnt = malloc(4 * (size_t)R * sizeof *cnt);
  char *packed = NULL, *recv = NULL;
  const int m = n > 0 ? start[n] : 0;
  int ok = cnt != NULL && rec_bytes > 0 && n >= 0 && (double)m * (double)rec_bytes <= (double)INT_MAX;
  if (rec_bytes == 0) snprintf(err, errlen, "a record of 0 bytes");
  else if (!ok) snprintf(err, errlen, "rank %d: %d records of %zu bytes exceed one exchange (2 GiB) or memory", c->rank, m,
                         rec_bytes);
  if (ok && vx_part_pack(R, me, start, dest, n, rec, rec_bytes, &packed, cnt, cnt + R)) {
    ok = 0;
    snprintf(err, errlen, "rank %d: out of memory packing %d records", c->rank, m);
  }
  long long own = 0;
  for (int j = 0; ok && j < m; j++) own += dest[j] == me;
  int rc = -1;
  if (!vx_comm_agree(c, ok)) {
    if (ok) snprintf(err, errlen, "another rank failed to send its records");
    goto done;
  }
  int *rcnt = cnt + 2 * R, *rdispl = cnt + 3 * R;
  if (vx_comm_check(MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, c->comm), "MPI_Alltoall (record counts)", err, errlen))
    goto done;
  double total = 0.0;
  for (int r = 0; r < R; r++) rdispl[r] = (int)total, total += r == me ? (double)own * (double)rec_bytes : rcnt[r];
  ok = total <= (double)INT_MAX && (recv = malloc(total > 0 ? (size_t)total : 1)) != NULL;
  if (!ok) snprintf(err, errlen, "rank %d: cannot receive %.0f bytes of records", c->rank, total);
  if (!vx_comm_agree(c, ok)) {
    if (ok) snprintf(err, errlen, "another rank cannot receive its records");
    goto done;
  }
  if (vx_comm_check(MPI_Alltoallv(packed, cnt, cnt + R, MPI_BYTE, recv, rcnt, rdispl, MPI_BYTE, c->comm),
                    "MPI_Alltoallv (records)", err, errlen))
    goto done;
  copy_own(me, start, dest, n, rec, rec_bytes, recv + rdispl[me]);
  *out = recv, recv = NULL;
  *nout = (int)(total / (double)rec_bytes);
  rc = 0;
done:
  free(cnt), free(packed), free(recv);
  return rc;
}

int vx_part_migrate(const vx_comm *c, const uint32_t *split, const uint32_t *keys, int n, const void *rec,
                    size_t rec_bytes, void **out, int *nout, char *err, size_t errlen) {
  int *start = malloc((size_t)(n > 0 ? n + 1 : 1) * sizeof *start);
  int *dest = malloc((size_t)(n > 0 ? n : 1) * sizeof *dest);
  int ok = start && dest && n >= 0;
  if (ok) {
    for (int i = 0; i < n; i++) start[i] = i, dest[i] = vx_part_owner(split, c->size, keys[i]);
    start[n > 0 ? n : 0] = n > 0 ? n : 0;
  } else {
    snprintf(err, errlen, "rank %d: out of memory for %d records' owners", c->rank, n);
  }
  int rc;
  if (!vx_comm_agree(c, ok)) {
    if (ok) snprintf(err, errlen, "another rank failed to send its records");
    *out = NULL, *nout = 0;
    rc = -1;
  } else {
    rc = vx_part_exchange(c, start, dest, n, rec, rec_bytes, out, nout, err, errlen);
  }
  free(start), free(dest);
  return rc;
}

double vx_part_imbalance(const vx_comm *c, double local_cost) {
  double mx = 0.0, sum = 0.0;
  if (MPI_Allreduce(&local_cost, &mx, 1, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS ||
      MPI_Allreduce(&local_cost, &sum, 1, MPI_DOUBLE, MPI_SUM, c->comm) != MPI_SUCCESS)
    return 0.0;
  return sum > 0.0 ? mx * c->size / sum : 1.0;
}
