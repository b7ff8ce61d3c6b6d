/* coarsen.c — the lattice field's scale and the coarsening rule (coarsen.h). */
#include "coarsen.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "remesh.h"

typedef struct {
  uint64_t key;
  int idx;
} node_key;

static int key_cmp(const void *a, const void *b) {
  uint64_t x = ((const node_key *)a)->key, y = ((const node_key *)b)->key;
  return (x > y) - (x < y);
}

/* The node nearest each element, in ascending key order: the order remeshing leaves its nodes in
 * (remesh.h), so the sort is skipped when they already are. */
static node_key *sorted_keys(const double *pos, int n, double h, const double o[3]) {
  node_key *k = malloc(sizeof *k * (size_t)(n > 0 ? n : 1));
  if (!k) return NULL;
  int sorted = 1;
  for (int p = 0; p < n; ++p) {
    long long ijk[3];
    for (int c = 0; c < 3; ++c) ijk[c] = llround((pos[3 * (size_t)p + c] - o[c]) / h);
    k[p].key = vx_lattice_key(ijk[0], ijk[1], ijk[2]);
    k[p].idx = p;
    if (p > 0 && k[p].key <= k[p - 1].key) sorted = 0;
  }
  if (!sorted) qsort(k, (size_t)n, sizeof *k, key_cmp);
  return k;
}

/* The strengths of the nodes key[q] + d for every q (NULL where there is none, d > 0), or key[q] − d
 * (d < 0): the wanted keys ascend with q, so one pointer sweeps the sorted keys once. */
static void neighbours(const node_key *k, int n, int64_t d, const double *alpha, const double **nb) {
  int j = 0;
  for (int q = 0; q < n; ++q) {
    const uint64_t want = k[q].key + (uint64_t)d;
    while (j < n && k[j].key < want) ++j;
    nb[q] = j < n && k[j].key == want ? alpha + 3 * (size_t)k[j].idx : NULL;
  }
}

/* Σ|Δα|² over node q's three forward neighbours (fwd[c][q]), plus |α_q|² for each missing backward
 * one (bwd[c][q] NULL: the field's edge counted once from each side). */
static double node_jumps(const node_key *k, int q, const double *alpha, const double **fwd[3], const double **bwd[3]) {
  const double *a = alpha + 3 * (size_t)k[q].idx;
  double a2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2], s = 0.0;
  for (int c = 0; c < 3; ++c) {
    const double *b = fwd[c][q];
    for (int e = 0; e < 3; ++e) {
      double d = a[e] - (b ? b[e] : 0.0);
      s += d * d;
    }
    if (!bwd[c][q]) s += a2;
  }
  return s;
}

double vx_field_radius(const double *m) {
  if (!(m[6] > 0.0)) return 0.0;
  double r2 = 0.0;
  for (int e = 0; e < 3; ++e) {
    const double c = m[7 + e] / m[6];
    r2 += m[10 + e] / m[6] - c * c;
  }
  return r2 > 0.0 ? sqrt(r2) : 0.0;
}

int vx_coarsen_may(double radius, double h) { return h > 0.0 && 2.0 * h <= 0.25 * radius; }

int vx_lattice_scale(const double *pos, const double *alpha, int n, double h, const double o[3], double *scale, char *err,
                     size_t errlen) {
  *scale = 0.0;
  if (n <= 0) return 0;
  node_key *k = sorted_keys(pos, n, h, o);
  if (!k) { snprintf(err, errlen, "out of host memory measuring the lattice field (%d nodes)", n); return -1; }
  const double **nb = malloc(sizeof *nb * 6 * (size_t)n), **fwd[3], **bwd[3];
  if (!nb) { free(k); snprintf(err, errlen, "out of host memory measuring the lattice field (%d nodes)", n); return -1; }
  for (int c = 0; c < 3; ++c) { /* the axis steps of vx_lattice_key: x, y, z */
    const int64_t d = (int64_t)1 << (42 - 21 * c);
    fwd[c] = nb + (size_t)(2 * c) * n, bwd[c] = nb + (size_t)(2 * c + 1) * n;
    neighbours(k, n, d, alpha, fwd[c]);
    neighbours(k, n, -d, alpha, bwd[c]);
  }
  double sa = 0.0, sj = 0.0;
  for (int q = 0; q < n; ++q) {
    const double *a = alpha + 3 * (size_t)k[q].idx;
    sa += a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    sj += node_jumps(k, q, alpha, fwd, bwd);
  }
  free(nb);
  free(k);
  *scale = sj > 0.0 ? h * sqrt(sa / sj) : 0.0;
  return 0;
}

int vx_coarsen_due(const vx_lattice_field *f, double h, double ratio) {
  return ratio > 0.0 && f->scale >= ratio * 2.0 * h && vx_coarsen_may(f->radius, h);
}
