/* app_record.c — recording for the program (app.h): a video (--record FILE.mp4, or M / the panel's
 * button in the window) and the headless PNG frames (--png-dir), both fed from one asynchronous
 * read-back ring and written by the recorders' own threads (render/record.h). While a recording is
 * open, Ctrl-C (SIGINT) or SIGTERM ends the run cleanly, so the file is finalized; a second one
 * acts as it would have without us (app_interrupt.c). */
#define _POSIX_C_SOURCE 200809L /* localtime_r */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"

#define REC_RING 3 /* read-back buffers: a frame is mapped two frames after its read started */

static int g_sink_failed;      /* a recorder refused a frame: said once, the rest dropped */
static int g_window_started;   /* the window's first frame has been seen (--record starts there) */
int app_record_active(const app *a) { return a->rec_video || a->rec_png; }

void app_record_default_name(const app *a, char *out, size_t len) {
  time_t t = time(NULL);
  struct tm tm;
  char stamp[32] = "unknown";
  if (localtime_r(&t, &tm)) strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  snprintf(out, len, "%s/vortexfmm-%s.mp4", a->opt.png_dir ? a->opt.png_dir : ".", stamp);
}

/* The read-back's sink: each frame to every open recorder. */
static int to_recorders(void *ctx, const unsigned char *rgba, int w, int h, char *err, size_t errlen) {
  (void)w, (void)h;
  app *a = (app *)ctx;
  if (g_sink_failed) return 0;
  if ((a->rec_video && rd_record_frame(a->rec_video, rgba, err, errlen)) ||
      (a->rec_png && rd_record_frame(a->rec_png, rgba, err, errlen))) {
    g_sink_failed = 1;
    return -1;
  }
  return 0;
}

int app_record_start(app *a, const char *video, const char *png_dir, int w, int h, char *err, size_t errlen) {
  rd_record_params p = rd_record_params_default(w, h);
  p.fps = a->opt.fps > 0 ? a->opt.fps : 30.0;
  p.png_level = a->opt.png_level;
  g_sink_failed = 0;
  a->rec_rb = rd_readback_create(w, h, REC_RING, err, errlen);
  if (!a->rec_rb) return -1;
  if (video && !(a->rec_video = rd_record_open(video, &p, err, errlen))) goto fail;
  if (png_dir && !(a->rec_png = rd_record_open_png(png_dir, &p, err, errlen))) goto fail;
  if (a->rec_video && rd_record_notice(a->rec_video)[0]) app_message(a, "%s", rd_record_notice(a->rec_video));
  a->rec_t0 = app_now();
  a->rec_last_step = -1;
  app_interrupt_catch(1);
  return 0;
fail:
  app_record_stop(a);
  return -1;
}

int app_record_frame(app *a, unsigned fbo, char *err, size_t errlen) {
  if (!a->rec_rb) return 0;
  return rd_readback_push(a->rec_rb, fbo, to_recorders, a, err, errlen);
}

/* Close one recorder; its summary on stderr (and on screen in the window) when it failed or the
 * run is not quiet. 0, or -1 when it ended early. */
static int close_one(app *a, rd_recorder **r) {
  if (!*r) return 0;
  char line[2048];
  int rc = rd_record_close(*r, line, sizeof line);
  *r = NULL;
  if (rc || !a->opt.quiet) {
    snprintf(a->message, sizeof a->message, "%.250s", line);
    a->message_until = app_now() + 8.0;
    fprintf(stderr, "vortexfmm: %s\n", line);
  }
  return rc;
}

int app_record_stop(app *a) {
  char err[1024];
  int rc = 0;
  int failed_before = g_sink_failed;
  if (a->rec_rb && rd_readback_flush(a->rec_rb, to_recorders, a, err, sizeof err)) {
    if (!failed_before) fprintf(stderr, "vortexfmm: %s\n", err); /* else said already; the summary says more */
    rc = -1;
  }
  rd_readback_destroy(a->rec_rb);
  a->rec_rb = NULL;
  if (close_one(a, &a->rec_video)) rc = -1;
  if (close_one(a, &a->rec_png)) rc = -1;
  app_interrupt_catch(0);
  return rc;
}

void app_record_window_frame(app *a, int fb_w, int fb_h) {
  char err[1024];
  int w = 0, h = 0;
  if (a->rec_rb) rd_readback_size(a->rec_rb, &w, &h);
  if (!g_window_started) { /* --record FILE: from the first frame */
    g_window_started = 1;
    if (a->opt.record) a->act_record = 2;
  }
  if (a->act_record) {
    int named = a->act_record == 2;
    a->act_record = 0;
    if (app_record_active(a)) {
      app_record_stop(a);
      return;
    }
    char path[1100];
    if (named) snprintf(path, sizeof path, "%s", a->opt.record);
    else app_record_default_name(a, path, sizeof path);
    if (app_record_start(a, path, NULL, fb_w, fb_h, err, sizeof err)) app_message(a, "cannot record: %s", err);
    else app_message(a, "recording %s (%dx%d, %g fps; M stops)", rd_record_target(a->rec_video), fb_w, fb_h, a->opt.fps);
    if (!app_record_active(a)) return;
    rd_readback_size(a->rec_rb, &w, &h);
  }
  if (!app_record_active(a)) return;
  if (w != fb_w || h != fb_h) {
    app_message(a, "window resized to %dx%d: recording stopped (a video keeps one size)", fb_w, fb_h);
    app_record_stop(a);
    return;
  }
  /* each video frame is a new state on screen, the simulation advanced by a batch of steps: while
   * paused (or while the simulation thread's batch is in flight) nothing is recorded, so the video's
   * time runs with the simulated time */
  long long steps = a->shown.steps;
  if (steps == a->rec_last_step) return;
  a->rec_last_step = steps;
  if (app_record_frame(a, 0, err, sizeof err)) {
    fprintf(stderr, "vortexfmm: %s\n", err);
    app_record_stop(a);
  }
}
