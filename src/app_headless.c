/* app_headless.c — images without a display (--headless --frames N): an EGL context
 * (rd_headless: NVIDIA's device platform on GPU servers, Mesa's on machines without a GPU) and the
 * same renderer and shaders as the window, into a framebuffer object; frame 0 is the initial
 * state, then --steps-per-frame steps between frames, so each frame is the same simulated time
 * whatever the wall-clock speed; PNGs (--png-dir) and a video (--record) written by their own
 * threads from an asynchronous read-back (app_record.c); a progress line a second with the frame
 * rate and ETA, and at the end the frame-time breakdown (medians over the frames after a warm-up).
 * Ctrl-C while recording stops after the current frame with the files finalized (exit 130). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <GL/glew.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"

/* Per-frame timings (ms) kept for the closing breakdown. */
enum { FT_FRAME, FT_STEP, FT_TREE, FT_FAR, FT_NEAR, FT_INTEG, FT_REMESH, FT_RENDER, FT_GPU, FT_N };
#define FT_WARMUP 3 /* frames left out of the medians: buffers grow, kernels load, clocks rise */

/* One line: median frame time and fps, split into the simulation's phases (remeshing when it is
 * on) and the render (the far and near fields run concurrently on the GPU, so they add up to more
 * than the step). */
static void print_breakdown(const app *a, const app_options *o, app_series *ft) {
  const long long n = ft->n;
  if (n <= 0) {
    fprintf(stderr, "vortexfmm: frame-time breakdown: needs more than %d frames (--frames)\n", FT_WARMUP + 1);
    return;
  }
  double m[FT_N];
  for (int k = 0; k < FT_N; ++k) m[k] = app_series_median(ft, k);
  char remesh[48] = "";
  if (vx_sim_params_get(a->sim)->remesh_every > 0) snprintf(remesh, sizeof remesh, ", remesh %.2f", m[FT_REMESH]);
  fprintf(stderr,
          "vortexfmm: frame time, median of %lld frames at %dx%d (%d elements, %d tracers, %d drawn, %d step%s per "
          "frame): %.2f ms = %.1f fps; step %.2f ms (tree %.2f, far %.2f, near %.2f, integrate %.2f%s); render %.2f ms "
          "(GPU %.2f)\n",
          n, o->width, o->height, vx_sim_n_elements(a->sim), vx_sim_n_tracers(a->sim), rd_get_stats(a->rd)->n_drawn, o->steps_per_frame,
          o->steps_per_frame > 1 ? "s" : "", m[FT_FRAME], m[FT_FRAME] > 0 ? 1e3 / m[FT_FRAME] : 0.0, m[FT_STEP],
          m[FT_TREE], m[FT_FAR], m[FT_NEAR], m[FT_INTEG], remesh, m[FT_RENDER], m[FT_GPU]);
}

int app_run_headless(const app_options *o) {
  static app a;
  char err[1024];
  long long frames = o->frames > 0 ? o->frames : 1;
  long long last_step = (frames - 1) * (long long)o->steps_per_frame; /* frame 0 takes no step */
  for (int i = 0; i < o->n_launch; ++i)
    if (o->launch_steps[i] > last_step) {
      fprintf(stderr, "vortexfmm: --launch-ring %lld is outside the steps these frames take (1..%lld)\n", o->launch_steps[i],
              last_step);
      return 2;
    }
  if (o->png_dir && mkdir(o->png_dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "vortexfmm: cannot create --png-dir %s: %s\n", o->png_dir, strerror(errno));
    return 1;
  }
  int rc = app_init(&a, o, 0, err, sizeof err);
  if (rc) {
    fprintf(stderr, "vortexfmm: %s\n", err);
    return rc;
  }
  rd_headless *hl = rd_headless_create(o->width, o->height, err, sizeof err);
  if (!hl) {
    fprintf(stderr, "vortexfmm: %s\n", err);
    app_shutdown(&a);
    return 1;
  }
  snprintf(a.platform, sizeof a.platform, "%s", rd_headless_platform(hl));
  if (app_gl_init(&a, err, sizeof err) || (o->hud && app_ui_init(NULL, 1.0f, 1.0f, err, sizeof err))) {
    fprintf(stderr, "vortexfmm: %s\n", err);
    app_shutdown(&a);
    rd_headless_destroy(hl);
    return 1;
  }
  if (!o->quiet)
    fprintf(stderr, "vortexfmm: headless %dx%d through %s: %s; %lld frames, %d steps per frame%s%s%s%s\n", o->width, o->height,
            a.platform, a.gl_desc, frames, o->steps_per_frame, o->png_dir ? ", PNGs into " : "",
            o->png_dir ? o->png_dir : "", o->record ? ", video " : "", o->record ? o->record : "");
  if ((o->record || o->png_dir) && app_record_start(&a, o->record, o->png_dir, o->width, o->height, err, sizeof err)) {
    fprintf(stderr, "vortexfmm: %s\n", err);
    if (o->hud) app_ui_shutdown();
    app_shutdown(&a);
    rd_headless_destroy(hl);
    return 1;
  }
  unsigned fbo = rd_headless_fbo(hl);
  double t0 = app_now(), t_last = t0, t_prev = t0, sim_ms = 0.0, rd_ms = 0.0;
  long long acc_n = 0;
  app_series ft; /* frames 0..FT_WARMUP left out */
  if (app_series_init(&ft, FT_N, FT_WARMUP + 1, frames)) {
    fprintf(stderr, "vortexfmm: out of host memory for %lld frame timings\n", ft.cap);
    app_record_stop(&a);
    app_shutdown(&a);
    rd_headless_destroy(hl);
    return 1;
  }
  rc = 0;
  long long f = 0;
  for (; f < frames; ++f) {
    if (app_interrupted()) {
      fprintf(stderr, "vortexfmm: interrupted after %lld of %lld frames: finalizing the recording\n", f, frames);
      rc = 130;
      break;
    }
    a.set.running = f > 0; /* frame 0 is the initial state */
    int u = app_update(&a, err, sizeof err);
    if (u == 3) {
      fprintf(stderr, "vortexfmm: %s (frame %lld)\n", err, f);
      rc = 3;
      break;
    }
    if (u < 0) {
      fprintf(stderr, "vortexfmm: %s\n", err);
      rc = 1;
      break;
    }
    if (app_draw(&a, fbo, o->width, o->height, 1.0f, err, sizeof err)) {
      fprintf(stderr, "vortexfmm: %s\n", err);
      rc = 1;
      break;
    }
    glFinish(); /* the frame is done when the GPU is: no swap paces a headless loop */
    double now = app_now();
    a.ms_frame = 1e3 * (now - t_prev);
    app_frames_add(&a.frames_hud, a.ms_frame);
    t_prev = now;
    if (o->hud) {
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      app_ui_frame(&a, o->width, o->height, a.ms_frame * 1e-3);
    }
    if (app_record_frame(&a, fbo, err, sizeof err)) { /* --png-dir, --record */
      fprintf(stderr, "vortexfmm: %s\n", err);
      rc = 1;
      break;
    }
    if (f == frames - 1 && o->screenshot) {
      if (app_save_png(fbo, o->width, o->height, o->screenshot, err, sizeof err)) {
        fprintf(stderr, "vortexfmm: %s\n", err);
        rc = 1;
        break;
      }
    }
    {
      const double v[FT_N] = {a.ms_frame, a.ms_step,      a.ms_tree,   a.ms_far,
                              a.ms_near,  a.ms_integrate, a.ms_remesh, a.ms_render, a.ms_gpu};
      app_series_add(&ft, v);
    }
    if (a.launched_frame && !o->quiet) /* --launch-ring: the frame that takes the hitch, beside the usual ones */
      fprintf(stderr, "vortexfmm: frame %lld launched a ring (now %d elements, %d tracers): launch %.2f ms, step %.2f ms, "
                      "render %.2f ms, frame %.2f ms\n", f, vx_sim_n_elements(a.sim), vx_sim_n_tracers(a.sim), a.ms_launch,
              a.ms_step, a.ms_render, a.ms_frame);
    sim_ms += a.ms_step;
    rd_ms += a.ms_render;
    acc_n++;
    now = app_now();
    if (!o->quiet && (now - t_last >= 1.0 || f == frames - 1)) {
      double rate = (f + 1) / (now - t0);
      fprintf(stderr, "vortexfmm: frame %lld/%lld t=%.6g step %lld: %.1f ms sim + %.1f ms render per frame; %.1f fps, ETA %.0f s\n",
              f + 1, frames, app_sim_time(&a), app_sim_steps(&a), sim_ms / acc_n, rd_ms / acc_n, rate,
              (frames - f - 1) / rate);
      t_last = now;
      sim_ms = rd_ms = 0.0;
      acc_n = 0;
    }
  }
  if (app_record_stop(&a) && (!rc || rc == 130)) rc = 1; /* the GL context is still current */
  if (!rc) print_breakdown(&a, o, &ft);
  app_series_free(&ft);
  if (!rc && !o->quiet) {
    fprintf(stderr, "vortexfmm: done: %lld frames in %.2f s", f, app_now() - t0);
    if (o->screenshot) fprintf(stderr, "; screenshot %s", o->screenshot);
    fprintf(stderr, "\n");
  }
  if (o->hud) app_ui_shutdown();
  app_shutdown(&a);
  rd_headless_destroy(hl);
  return rc;
}
