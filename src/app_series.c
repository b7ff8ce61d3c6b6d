/* app_series.c — rows of timings kept for the closing medians of batch, headless and window runs
 * (app.h: app_series), and the clock they are taken with (app_now). Host code, no GL. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

double app_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

int app_series_init(app_series *s, int k, int skip, long long rows) {
  memset(s, 0, sizeof *s);
  s->k = k, s->skip = skip;
  s->cap = rows - skip < APP_SERIES_CAP ? rows - skip : APP_SERIES_CAP;
  if (s->cap <= 0) return s->cap = 0, 0;
  s->v = malloc(sizeof(double) * (size_t)k * (size_t)s->cap);
  return s->v ? 0 : -1;
}

void app_series_add(app_series *s, const double *row) {
  if (s->seen++ < s->skip || s->n >= s->cap) return;
  for (int j = 0; j < s->k; ++j) s->v[(size_t)j * s->cap + s->n] = row[j];
  s->n++;
}

double app_series_median(app_series *s, int j) {
  if (s->n <= 0) return 0.0;
  double *v = s->v + (size_t)j * s->cap;
  long long n = s->n;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void app_series_free(app_series *s) {
  free(s->v);
  s->v = NULL;
}
