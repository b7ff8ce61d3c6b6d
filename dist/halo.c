/* halo.c — copies of the particles other ranks' near fields need (halo.h). */
#include "halo.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "octree.h"

/* The ranks other than `self` whose key ranges hold a cell within reach of cell (x, y, z) at level
 * L, appended to dest (mark[r] == stamp: r already listed for this particle). */
static int near_owners(const uint32_t *split, int R, int self, int L, int reach, const int cell[3], int *mark,
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
        for (int r = vx_part_owner(split, R, k0), last = vx_part_owner(split, R, k1); r <= last; r++)
          if (r != self && mark[r] != stamp) mark[r] = stamp, dest[m++] = r;
      }
  return m;
}

/* The deepest level whose cells vx_halo_dests visits once each (8^7 cells: 16 MiB of offsets). */
#define HALO_CACHE_LMAX 7

/* vx_halo_dests at levels to HALO_CACHE_LMAX, in parallel: the cells that hold particles, each one's
 * destinations (in cell order), then each particle's count, their offsets and the lists. */
static int dests_by_cell(const vx_comm *c, const uint32_t *split, int L, int reach, const uint32_t *keys, int n,
                         int **start, int **dest) {
  const int R = c->size, sh = VX_PART_KEY_BITS - 3 * L;
  const size_t ncell = (size_t)1 << (3 * L);
  int *cell_at = calloc(ncell * 2, sizeof *cell_at), *mark = malloc((size_t)R * sizeof *mark);
  int *buf = malloc((size_t)R * sizeof *buf), *pool = NULL, pool_n = 0, pool_cap = 0;
  *start = malloc((size_t)(n + 1) * sizeof **start), *dest = NULL;
  if (!cell_at || !mark || !buf || !*start) goto oom;
  /* the cells between the least and the greatest key (a rank's keys form one range of the curve) */
  uint32_t kmin = UINT32_MAX, kmax = 0;
#pragma omp parallel for schedule(static) reduction(min : kmin) reduction(max : kmax)
  for (int i = 0; i < n; i++) kmin = keys[i] < kmin ? keys[i] : kmin, kmax = keys[i] > kmax ? keys[i] : kmax;
  for (int r = 0; r < R; r++) mark[r] = -1;
  for (size_t q = n > 0 ? kmin >> sh : 1; n > 0 && q <= (kmax >> sh); q++) {
    int cell[3];
    oct_demorton3((uint32_t)q, &cell[0], &cell[1], &cell[2]);
    const int k = near_owners(split, R, c->rank, L, reach, cell, mark, (int)q, buf);
    if (pool_n + k > pool_cap) {
      pool_cap = 2 * (pool_n + k) + 64;
      int *grown = realloc(pool, (size_t)pool_cap * sizeof *grown);
      if (!grown) goto oom;
      pool = grown;
    }
    for (int j = 0; j < k; j++) pool[pool_n + j] = buf[j];
    cell_at[2 * q] = pool_n, cell_at[2 * q + 1] = k, pool_n += k;
  }
  enum { BLK = 1 << 16 };
  const int nblk = (n + BLK - 1) / BLK;
  long long *off = malloc(sizeof(long long) * (size_t)(nblk + 1));
  if (!off) goto oom;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nblk; b++) {
    long long m = 0;
    for (int i = b * BLK; i < n && i < (b + 1) * BLK; i++) m += cell_at[2 * (size_t)(keys[i] >> sh) + 1];
    off[b + 1] = m;
  }
  off[0] = 0;
  for (int b = 0; b < nblk; b++) off[b + 1] += off[b];
  if (off[nblk] > INT_MAX || !(*dest = malloc((size_t)(off[nblk] + 1) * sizeof **dest))) {
    free(off);
    goto oom;
  }
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nblk; b++) {
    int m = (int)off[b];
    for (int i = b * BLK; i < n && i < (b + 1) * BLK; i++) {
      const int *ca = cell_at + 2 * (size_t)(keys[i] >> sh);
      (*start)[i] = m;
      for (int j = 0; j < ca[1]; j++) (*dest)[m++] = pool[ca[0] + j];
    }
  }
  (*start)[n] = (int)off[nblk];
  free(off), free(cell_at), free(mark), free(buf), free(pool);
  return 0;
oom:
  free(cell_at), free(mark), free(buf), free(pool), free(*start), free(*dest);
  *start = *dest = NULL;
  return -1;
}

int vx_halo_dests(const vx_comm *c, const uint32_t *split, int L, int reach, const uint32_t *keys, int n, int **start,
                  int **dest) {
  if (L <= HALO_CACHE_LMAX) return dests_by_cell(c, split, L, reach, keys, n, start, dest);
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
    const int k = near_owners(split, R, c->rank, L, reach, cell, mark, i, buf);
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

int vx_halo_exchange(const vx_comm *c, const uint32_t *split, const vx_part_cube *cube, int L, int reach,
                     const double *pos, int n, const void *rec, size_t rec_bytes, void **out, int *nout, char *err,
                     size_t errlen) {
  int *start = NULL, *dest = NULL;
  uint32_t *keys = NULL;
  *out = NULL, *nout = 0;
  int ok = L >= 2 && L <= VX_PART_KEY_BITS / 3 && reach >= 1 && n >= 0;
  if (!ok) snprintf(err, errlen, "halo: level %d (2..%d) or reach %d (>= 1) out of range", L, VX_PART_KEY_BITS / 3, reach);
  else if (!(keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys)) ||
           (vx_part_keys(cube, pos, n, keys), vx_halo_dests(c, split, L, reach, keys, n, &start, &dest))) {
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
