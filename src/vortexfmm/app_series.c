/* app_series.c — rows of timings kept for the closing medians of batch, headless and window runs
 * (app.h: app_series), the HUD's frame-time readout (app_frames) and steps per second (app_rate),
 * and the clock they are taken with (app_now). Host code, no GL. Tested by tests/test_app_frames.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "clock.h"

double app_now(void) { return 1e-3 * vx_clock_ms(); }

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

double app_series_max(const app_series *s, int j, long long *row) {
  const double *v = s->v + (size_t)j * s->cap;
  double m = 0.0;
  *row = -1;
  for (long long i = 0; i < s->n; ++i)
    if (*row < 0 || v[i] > m) m = v[i], *row = i + s->skip;
  return m;
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

void app_frames_add(app_frames *f, double ms) {
  f->ms[f->next] = ms;
  f->next = (f->next + 1) % APP_FRAMES_N;
  if (f->n < APP_FRAMES_N) f->n++;
}

double app_frames_median(const app_frames *f) {
  if (f->n <= 0) return 0.0;
  double v[APP_FRAMES_N];
  memcpy(v, f->ms, sizeof(double) * (size_t)f->n); /* the n held are the first n slots until full */
  qsort(v, (size_t)f->n, sizeof *v, cmp_double);
  return f->n % 2 ? v[f->n / 2] : 0.5 * (v[f->n / 2 - 1] + v[f->n / 2]);
}

void app_frames_text(const app_frames *f, char *out, size_t len) {
  /* the fps comes from the ms as printed (0.1 ms), not from the unrounded median, so a reader who
   * divides 1000 by the one gets the other to the last digit shown */
  double ms = round(10.0 * app_frames_median(f)) / 10.0;
  if (f->n <= 0 || !(ms > 0)) {
    snprintf(out, len, "- fps  - ms / frame");
    return;
  }
  snprintf(out, len, "%.1f fps  %.1f ms / frame (median of last %d frame%s)", 1000.0 / ms, ms, f->n, f->n == 1 ? "" : "s");
}

void app_rate_add(app_rate *r, double t, long long steps) {
  r->t[r->next] = t;
  r->steps[r->next] = steps;
  r->next = (r->next + 1) % APP_RATE_N;
  if (r->n < APP_RATE_N) r->n++;
}

void app_rate_clear(app_rate *r) { r->n = r->next = 0; }

double app_rate_per_s(const app_rate *r) {
  if (r->n < 2) return 0.0;
  int last = (r->next + APP_RATE_N - 1) % APP_RATE_N, first = (r->next + APP_RATE_N - r->n) % APP_RATE_N;
  double dt = r->t[last] - r->t[first];
  return dt > 0 ? (double)(r->steps[last] - r->steps[first]) / dt : 0.0;
}
