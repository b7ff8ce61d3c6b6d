/* bench_util.c — vortexfmm-bench's small helpers (bench.h): medians, allocation that says what
 * failed, elements of arrays in either precision, the phase times of an fmm_stats. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double median(double *v, int k) {
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

double elem(const void *a, size_t i, int is_float) {
  return is_float ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

void *xcalloc(size_t count, size_t size, const char *what) {
  void *p = calloc(count ? count : 1, size);
  if (!p) fprintf(stderr, PROG ": out of memory allocating %s (%zu bytes)\n", what, count * size);
  return p;
}

const char *const phase_names[N_PHASES] = {"t_tree", "t_p2m", "t_m2m", "t_m2l", "t_l2l",
                                                  "t_l2p",  "t_p2p", "t_total", "t_copy", "t_corr"};

void phase_times(const fmm_stats *s, double t[N_PHASES]) {
  t[0] = s->t_tree, t[1] = s->t_p2m, t[2] = s->t_m2m, t[3] = s->t_m2l;
  t[4] = s->t_l2l, t[5] = s->t_l2p, t[6] = s->t_p2p, t[7] = s->t_total, t[8] = s->t_copy, t[9] = s->t_corr;
}
