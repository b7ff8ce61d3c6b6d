/* halo.c — copies of the particles other ranks' near fields need (halo.h). */
#include "halo.h"

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

/* The deepest level whose cells' destinations vx_halo_dests keeps (8^7 cells: 16 MiB of offsets). */
#define HALO_CACHE_LMAX 7

int vx_halo_dests(const vx_comm *c, const uint32_t *split, int L, int reach, const uint32_t *keys, int n, int **start,
                  int **dest) {
  const int R = c->size, sh = VX_PART_KEY_BITS - 3 * L;
  const size_t ncell = L <= HALO_CACHE_LMAX ? (size_t)1 << (3 * L) : 0;
  int cap = n > 0 ? n : 1, m = 0, pool_cap = 64, pool_n = 0;
  int *mark = malloc((size_t)R * sizeof *mark), *buf = malloc((size_t)R * sizeof *buf);
  int *cell_at = ncell ? malloc(ncell * 2 * sizeof *cell_at) : NULL, *pool = malloc((size_t)pool_cap * sizeof *pool);
  *start = malloc((size_t)(n + 1) * sizeof **start), *dest = malloc((size_t)cap * sizeof **dest);
  if (!mark || !buf || (ncell && !cell_at) || !pool || !*start || !*dest) goto oom;
  for (int r = 0; r < R; r++) mark[r] = -1;
  for (size_t q = 0; q < ncell; q++) cell_at[2 * q] = -1; /* [offset into pool, count] a cell; -1: not yet */
  for (int i = 0; i < n; i++) {
    int cell[3], k;
    const int *d = buf;
    const uint32_t key = keys[i] >> sh;
    int *ca = ncell ? cell_at + 2 * (size_t)key : NULL;
    if (ca && ca[0] >= 0) {
      d = pool + ca[0], k = ca[1];
    } else {
      oct_demorton3(key, &cell[0], &cell[1], &cell[2]);
      k = near_owners(split, R, c->rank, L, reach, cell, mark, i, buf);
      if (ca) {
        if (pool_n + k > pool_cap) {
          while (pool_n + k > pool_cap) pool_cap *= 2;
          int *grown = realloc(pool, (size_t)pool_cap * sizeof *grown);
          if (!grown) goto oom;
          pool = grown;
        }
        for (int j = 0; j < k; j++) pool[pool_n + j] = buf[j];
        ca[0] = pool_n, ca[1] = k, pool_n += k;
      }
    }
    if (m + k > cap) {
      while (m + k > cap) cap *= 2;
      int *grown = realloc(*dest, (size_t)cap * sizeof *grown);
      if (!grown) goto oom;
      *dest = grown;
    }
    (*start)[i] = m;
    for (int j = 0; j < k; j++) (*dest)[m++] = d[j];
  }
  (*start)[n] = m;
  free(mark), free(buf), free(cell_at), free(pool);
  return 0;
oom:
  free(mark), free(buf), free(cell_at), free(pool), free(*start), free(*dest);
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
