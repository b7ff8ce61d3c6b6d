/* iso_cpu.c — the CPU twin (OpenMP) of the isosurface extraction (iso.h): rows of cells (a row: all
 * cells of one y and z) counted in parallel, the row counts scanned, then each row's cells emitted
 * at the row's offset, calling the per-cell math of iso_t.h that the CUDA kernels of iso_gpu.cu call
 * too. Per row rather than per cell (the GPU's granularity) keeps the scratch to (n−1)² counts;
 * the order of the triangles is the same. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "iso.h"

int rd_iso_check(const void *f, int n, double side, float level, const void *out, long cap, char *err, size_t errlen) {
  if (n < RD_ISO_NMIN || n > RD_ISO_NMAX) {
    snprintf(err, errlen, "isosurface: %d nodes a side outside %d..%d", n, RD_ISO_NMIN, RD_ISO_NMAX);
    return -1;
  }
  if (!f) { snprintf(err, errlen, "isosurface: no grid"); return -1; }
  if (!(side > 0.0 && side < 1e30)) { snprintf(err, errlen, "isosurface: cube side %g is not a positive number", side); return -1; }
  if (isnan(level)) { snprintf(err, errlen, "isosurface: the level is not a number"); return -1; }
  if (cap < 0 || (cap > 0 && !out)) { snprintf(err, errlen, "isosurface: room for %ld triangles but no buffer", cap); return -1; }
  return 0;
}

int rd_iso_extract_cpu(const float *f, int n, const double lo[3], double side, float level, float *out, long cap,
                       long *n_tri, char *err, size_t errlen) {
  if (rd_iso_check(f, n, side, level, out, cap, err, errlen)) return -1;
  const rd_iso_geom g = rd_iso_geom_make(lo, side, n, level);
  const int m = n - 1, rows = m * m;
  long *off = malloc(sizeof(long) * ((size_t)rows + 1));
  if (!off) { snprintf(err, errlen, "isosurface: out of host memory (%d row counts)", rows); return -1; }
#pragma omp parallel for schedule(static)
  for (int r = 0; r < rows; ++r) {
    long s = 0;
    for (int i = 0; i < m; ++i) s += rd_iso_cell_count(f, &g, i, r % m, r / m);
    off[r + 1] = s;
  }
  off[0] = 0;
  for (int r = 0; r < rows; ++r) off[r + 1] += off[r]; /* exclusive scan: row r starts at off[r] */
#pragma omp parallel for schedule(dynamic, 16)
  for (int r = 0; r < rows; ++r) {
    if (off[r + 1] == off[r] || off[r] >= cap) continue;
    long at = off[r];
    for (int i = 0; i < m; ++i) at += rd_iso_cell_emit(f, &g, i, r % m, r / m, out, at, cap);
  }
  *n_tri = off[rows];
  free(off);
  return 0;
}
