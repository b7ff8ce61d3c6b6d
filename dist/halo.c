/* halo.c — copies of the particles other ranks' near fields need (halo.h). */
#include "halo.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "octree.h"

/* The ranks other than `self` whose key ranges (halo.h) hold a cell within reach of cell (x, y, z) at
 * level L, appended to dest (mark[r] == stamp: r already listed for this particle). Each cell's keys
 * are checked against every range: R a cell, for ranges that may overlap. */
static int near_owners(const uint32_t *ranges, int R, int self, int L, int reach, const int cell[3], int *mark,
                       int stamp, int *dest) {
  const int top = (1 << L) - 1, shift = 3 * (VX_PART_KEY_BITS / 3 - L);
  int m = 0;
  for (int dz = -reach; dz <= reach; dz++)
    for (int dy = -reach; dy <= reach; dy++)
      for (int dx = -reach; dx <= reach; dx++) {
        int x = cell[0] + dx, y = cell[1] + dy, z = cell[2] + dz;
        if (x < 0 || y < 0 || z < 0 || x > top || y > top || z > top) continue;
        uint32_t k0 = oct_morton3((uint32_t)x, (uint32_t)y, (uint32_t)z) << shift;
        uint32_t k1 = k0 + (1u << shift) - 1;
        for (int r = 0; r < R; r++)
          if (r != self && mark[r] != stamp && ranges[2 * r] <= k1 && ranges[2 * r + 1] >= k0) mark[r] = stamp, dest[m++] = r;
      }
  return m;
}

/* The deepest level whose cells vx_halo_dests visits once each (8^5 of them at most); deeper, the
 * particles one by one. */
#define HALO_BY_CELL_LMAX 5

int vx_halo_cells(const vx_comm *c, const uint32_t *ranges, int L, int reach, uint32_t c0, uint32_t c1, int **off,
                  int **cnt, int **pool, int *n_pool) {
  const int R = c->size;
  const size_t nc = c1 >= c0 ? (size_t)(c1 - c0) + 1 : 0;
  int *mark = malloc((size_t)R * sizeof *mark), *buf = malloc((size_t)R * sizeof *buf), pool_cap = 0;
  *off = malloc((nc + 1) * sizeof **off), *cnt = malloc((nc + 1) * sizeof **cnt), *pool = NULL, *n_pool = 0;
  if (!mark || !buf || !*off || !*cnt) goto oom;
  for (int r = 0; r < R; r++) mark[r] = -1;
  for (size_t j = 0; j < nc; j++) {
    int cell[3];
    oct_demorton3((uint32_t)(c0 + j), &cell[0], &cell[1], &cell[2]);
    const int k = near_owners(ranges, R, c->rank, L, reach, cell, mark, (int)j, buf);
    if (*n_pool + k > pool_cap) {
      pool_cap = 2 * (*n_pool + k) + 64;
      int *grown = realloc(*pool, (size_t)pool_cap * sizeof *grown);
      if (!grown) goto oom;
      *pool = grown;
    }
    for (int i = 0; i < k; i++) (*pool)[*n_pool + i] = buf[i];
    (*off)[j] = *n_pool, (*cnt)[j] = k, *n_pool += k;
  }
  free(mark), free(buf);
  return 0;
oom:
  free(mark), free(buf), free(*off), free(*cnt), free(*pool);
  *off = *cnt = *pool = NULL;
  return -1;
}

/* vx_halo_dests at levels to HALO_BY_CELL_LMAX, in parallel: the destinations of each cell of the keys'
 * range (vx_halo_cells), then each particle's count, their offsets and the lists. */
static int dests_by_cell(const vx_comm *c, const uint32_t *ranges, int L, int reach, const uint32_t *keys, int n,
                         int **start, int **dest) {
  const int sh = VX_PART_KEY_BITS - 3 * L;
  int *off = NULL, *cnt = NULL, *pool = NULL, n_pool = 0;
  long long *at = NULL;
  *start = malloc((size_t)(n + 1) * sizeof **start), *dest = NULL;
  uint32_t kmin = UINT32_MAX, kmax = 0;
#pragma omp parallel for schedule(static) reduction(min : kmin) reduction(max : kmax)
  for (int i = 0; i < n; i++) kmin = keys[i] < kmin ? keys[i] : kmin, kmax = keys[i] > kmax ? keys[i] : kmax;
  const uint32_t c0 = n > 0 ? kmin >> sh : 1, c1 = n > 0 ? kmax >> sh : 0;
  if (!*start || vx_halo_cells(c, ranges, L, reach, c0, c1, &off, &cnt, &pool, &n_pool)) goto oom;
  enum { BLK = 1 << 16 };
  const int nblk = (n + BLK - 1) / BLK;
  if (!(at = malloc(sizeof(long long) * (size_t)(nblk + 1)))) goto oom;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nblk; b++) {
    long long m = 0;
    for (int i = b * BLK; i < n && i < (b + 1) * BLK; i++) m += cnt[(keys[i] >> sh) - c0];
    at[b + 1] = m;
  }
  at[0] = 0;
  for (int b = 0; b < nblk; b++) at[b + 1] += at[b];
  if (at[nblk] > INT_MAX || !(*dest = malloc((size_t)(at[nblk] + 1) * sizeof **dest))) goto oom;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nblk; b++) {
    int m = (int)at[b];
    for (int i = b * BLK; i < n && i < (b + 1) * BLK; i++) {
      const size_t q = (keys[i] >> sh) - c0;
      (*start)[i] = m;
      for (int j = 0; j < cnt[q]; j++) (*dest)[m++] = pool[off[q] + j];
    }
  }
  (*start)[n] = (int)at[nblk];
  free(at), free(off), free(cnt), free(pool);
  return 0;
oom:
  free(at), free(off), free(cnt), free(pool), free(*start), free(*dest);
  *start = *dest = NULL;
  return -1;
}

int vx_halo_dests(const vx_comm *c, const uint32_t *ranges, int L, int reach, const uint32_t *keys, int n, int **start,
                  int **dest) {
  if (L <= HALO_BY_CELL_LMAX) return dests_by_cell(c, ranges, L, reach, keys, n, start, dest);
  /* deeper: a particle at a time */
  const int R = c->size, sh = VX_PART_KEY_BITS - 3 * L;
  int cap = n > 0 ? n : 1, m = 0;
  int *mark = malloc((size_t)R * sizeof *mark), *buf = malloc((size_t)R * sizeof *buf);
  *start = malloc((size_t)(n + 1) * sizeof **start), *dest = malloc((size_t)cap * sizeof **dest);
  if (!mark || !buf || !*start || !*dest) goto oom;
  for (int r = 0; r < R; r++) mark[r] = -1;
  for (int i = 0; i < n; i++) {
    int cell[3];
    oct_demorton3(keys[i] >> sh, &cell[0], &cell[1], &cell[2]);
    const int k = near_owners(ranges, R, c->rank, L, reach, cell, mark, i, buf);
    if (m + k > cap) {
      while (m + k > cap) cap *= 2;
      int *grown = realloc(*dest, (size_t)cap * sizeof *grown);
      if (!grown) goto oom;
      *dest = grown;
    }
    (*start)[i] = m;
    for (int j = 0; j < k; j++) (*dest)[m++] = buf[j];
  }
  (*start)[n] = m;
  free(mark), free(buf);
  return 0;
oom:
  free(mark), free(buf), free(*start), free(*dest);
  *start = *dest = NULL;
  return -1;
}

int vx_halo_exchange(const vx_comm *c, const uint32_t *ranges, const vx_part_cube *cube, int L, int reach,
                     const double *pos, int n, const void *rec, size_t rec_bytes, void **out, int *nout, char *err,
                     size_t errlen) {
  int *start = NULL, *dest = NULL;
  uint32_t *keys = NULL;
  *out = NULL, *nout = 0;
  int ok = L >= 2 && L <= VX_PART_KEY_BITS / 3 && reach >= 1 && n >= 0;
  if (!ok) snprintf(err, errlen, "halo: level %d (2..%d) or reach %d (>= 1) out of range", L, VX_PART_KEY_BITS / 3, reach);
  else if (!(keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys)) ||
           (vx_part_keys(cube, pos, n, keys), vx_halo_dests(c, ranges, L, reach, keys, n, &start, &dest))) {
    ok = 0;
    snprintf(err, errlen, "rank %d: out of memory listing the halo of %d particles", c->rank, n);
  }
  int rc = -1;
  if (!vx_comm_agree(c, ok)) {
    if (ok) snprintf(err, errlen, "another rank failed to list its halo");
  } else {
    rc = vx_part_exchange(c, start, dest, n, rec, rec_bytes, out, nout, err, errlen);
  }
  free(start), free(dest), free(keys);
  return rc;
}
