/* test_app_frames.c — the HUD's frame-time readout (src/vortexfmm/app_series.c: app_frames): fps and
 * ms / frame are one measurement, the median of the last APP_FRAMES_N frames, so the numbers shown
 * always agree (fps = 1000 / ms to the digits printed) and one slow frame moves neither. An
 * exponential average of the rate shown beside the last frame's time can disagree with it
 * ("22.8 fps  4684 ms / frame"); the same frames go through both here. Also the headless breakdown's
 * slowest frame (app_series_max). Run: ctest -R app_frames */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static int failures = 0;
#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); ++failures; } while (0)

/* The text's two numbers; -1 when it does not read "F fps  M ms / frame (median of last N frames)". */
static int parse(const char *text, double *fps, double *ms, int *n) {
  return sscanf(text, "%lf fps  %lf ms / frame (median of last %d frame", fps, ms, n) == 3 ? 0 : -1;
}

/* One frame into the readout; the text must be self-consistent: the fps printed (to 0.1) is
 * 1000 / the ms printed, within the fps's own rounding. Returns the ms shown. */
static double add_and_check(app_frames *f, double ms_in, const char *what) {
  app_frames_add(f, ms_in);
  char text[128];
  app_frames_text(f, text, sizeof text);
  double fps, ms;
  int n;
  if (parse(text, &fps, &ms, &n)) { FAIL("%s: unreadable '%s'", what, text); return -1; }
  if (fabs(fps - 1000.0 / ms) > 0.05 + 1e-9) FAIL("%s: '%s' disagrees: 1000 / %.1f = %.3f", what, text, ms, 1000.0 / ms);
  if (n != f->n) FAIL("%s: '%s' names %d frames, %d held", what, text, n, f->n);
  return ms;
}

/* Steady 43.9 ms frames, one of 4684 ms (a reset or an engine rebuild), steady again: an
 * average of the rate disagrees with the frame time beside it at the slow frame; the median shows
 * the steady frame throughout. */
static void outlier(void) {
  app_frames f;
  memset(&f, 0, sizeof f);
  double ema = 0, worst = 0;
  char ema_text[64] = "";
  for (int i = 0; i < 80; ++i) {
    double ms_in = i == 50 ? 4684.0 : 43.9;
    double dt = 1e-3 * ms_in;
    ema = ema > 0 ? 0.9 * ema + 0.1 / dt : 1.0 / dt; /* an exponential average of the rate */
    if (i == 50) snprintf(ema_text, sizeof ema_text, "%.1f fps  %.1f ms / frame", ema, ms_in);
    double ms = add_and_check(&f, ms_in, "outlier");
    if (fabs(ms - 43.9) > worst) worst = fabs(ms - 43.9);
  }
  printf("  at the 4684 ms frame an average of the rate beside the last frame shows '%s' (1000 / 4684 = %.2f fps)\n", ema_text,
         1000.0 / 4684.0);
  char text[128];
  app_frames_text(&f, text, sizeof text);
  printf("  the readout after it: '%s'; largest departure from 43.9 ms over the run: %.2f ms\n", text, worst);
  if (worst > 0.05) FAIL("the 4684 ms frame moved the readout by %.2f ms", worst);
}

/* Frame times spread over 0.2 ms .. 5 s (log-uniform, fixed seed), also the first frames before the
 * window is full: every text agrees with itself, and the median is the sorted middle. */
static void spread(void) {
  app_frames f;
  memset(&f, 0, sizeof f);
  srand(14);
  for (int i = 0; i < 2000; ++i) add_and_check(&f, 0.2 * pow(25000.0, (double)rand() / RAND_MAX), "spread");
  app_frames g;
  memset(&g, 0, sizeof g);
  char text[128];
  app_frames_text(&g, text, sizeof text);
  if (strcmp(text, "- fps  - ms / frame")) FAIL("no frames yet: '%s'", text);
  app_frames_add(&g, 10.0);
  app_frames_add(&g, 30.0);
  if (app_frames_median(&g) != 20.0) FAIL("median of 10, 30: %g", app_frames_median(&g));
  app_frames_add(&g, 1000.0);
  if (app_frames_median(&g) != 30.0) FAIL("median of 10, 30, 1000: %g", app_frames_median(&g));
  for (int i = 0; i < APP_FRAMES_N; ++i) app_frames_add(&g, 16.7); /* the old ones roll out */
  app_frames_text(&g, text, sizeof text);
  printf("  after %d frames of 16.7 ms: '%s'\n", APP_FRAMES_N, text);
  if (strcmp(text, "59.9 fps  16.7 ms / frame (median of last 30 frames)")) FAIL("full window: '%s'", text);
}

/* The headless breakdown's slowest frame (app_series_max): the largest kept value and the frame it
 * came from, counting the warm-up rows left out, read before the median reorders the column. */
static void slowest(void) {
  app_series s;
  if (app_series_init(&s, 1, 4, 40)) { FAIL("out of memory"); return; }
  for (int f = 0; f < 40; ++f) {
    double v = f == 2 ? 99.0 : f == 27 ? 21.5 : 7.0 + 0.01 * (f % 5); /* frame 2 is warm-up */
    app_series_add(&s, &v);
  }
  long long at;
  double m = app_series_max(&s, 0, &at), med = app_series_median(&s, 0);
  if (m != 21.5 || at != 27) FAIL("slowest frame %g at %lld, expected 21.5 at 27", m, at);
  if (fabs(med - 7.02) > 1e-12) FAIL("median %g after the maximum, expected 7.02", med);
  app_series empty;
  if (app_series_init(&empty, 1, 4, 2)) { FAIL("out of memory"); app_series_free(&s); return; }
  double v = 1.0;
  app_series_add(&empty, &v);
  if (app_series_max(&empty, 0, &at) != 0.0 || at != -1) FAIL("a series without kept rows: %lld, expected -1", at);
  app_series_free(&s);
  app_series_free(&empty);
}

int main(void) {
  outlier();
  spread();
  slowest();
  if (failures) { printf("%d check(s) failed\n", failures); return EXIT_FAILURE; }
  printf("frame-time readout checks passed\n");
  return EXIT_SUCCESS;
}
