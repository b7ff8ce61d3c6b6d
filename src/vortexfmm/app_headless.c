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
#include "app_mpi.h"

/* Per-frame timings (ms) kept for the closing breakdown. */
enum { FT_FRAME, FT_STEP, FT_TREE, FT_FAR, FT_NEAR, FT_INTEG, FT_REMESH, FT_RENDER, FT_GPU, FT_REST, FT_HEALTH, FT_FOLLOW, FT_FINISH,
       FT_RD_UPLOAD, FT_RD_HIST, FT_RD_OPACITY, FT_RD_INTEROP, FT_RD_DRAW, FT_N };
#define FT_WARMUP 3 /* frames left out of the medians: buffers grow, kernels load, clocks rise */

/* One line: median frame time and fps, split into the simulation's phases (remeshing when it is
 * on), the render (the far and near fields run concurrently on the GPU, so they add up to more
 * than the step) and the rest of the frame, measured frame by frame: the frame less its steps and
 * its render (the state's health checks after the steps, the hand-over to the renderer outside its
 * upload, the camera's follow, and the wait for the GPU to finish the frame), with the three of those
 * that are measured apart. */
static void print_breakdown(const app *a, const app_options *o, app_series *ft, long long ne, long long nt, long long nd) {
  const long long n = ft->n;
  if (n <= 0) {
    fprintf(stderr, "vortexfmm: frame-time breakdown: needs more than %d frames (--frames)\n", FT_WARMUP + 1);
    return;
  }
  long long worst_at;
  const double worst = app_series_max(ft, FT_FRAME, &worst_at);
  double m[FT_N];
  for (int k = 0; k < FT_N; ++k) m[k] = app_series_median(ft, k);
  char remesh[48] = "";
  if (vx_sim_params_get(a->sim)->remesh_every > 0) snprintf(remesh, sizeof remesh, ", remesh %.2f", m[FT_REMESH]);
  fprintf(stderr,
          "vortexfmm: frame time, median of %lld frames at %dx%d (%lld elements, %lld tracers, %lld drawn, %d step%s per "
          "frame): %.2f ms = %.1f fps; step %.2f ms (tree %.2f, far %.2f, near %.2f, integrate %.2f%s); render %.2f ms "
          "(GPU %.2f); the rest %.2f ms (health check %.2f, camera follow %.2f, waiting for the GPU %.2f)\n",
          n, o->width, o->height, ne, nt, nd, o->steps_per_frame,
          o->steps_per_frame > 1 ? "s" : "", m[FT_FRAME], m[FT_FRAME] > 0 ? 1e3 / m[FT_FRAME] : 0.0, m[FT_STEP],
          m[FT_TREE], m[FT_FAR], m[FT_NEAR], m[FT_INTEG], remesh, m[FT_RENDER], m[FT_GPU], m[FT_REST], m[FT_HEALTH],
          m[FT_FOLLOW], m[FT_FINISH]);
  fprintf(stderr,
          "vortexfmm: render, median: particles %.2f, histogram %.2f, opacity %.2f, interop mapping %.2f (with what it "
          "writes), draw calls %.2f ms (host); GL passes %.2f ms (GPU)\n",
          m[FT_RD_UPLOAD], m[FT_RD_HIST], m[FT_RD_OPACITY], m[FT_RD_INTEROP], m[FT_RD_DRAW], m[FT_GPU]);
  fprintf(stderr, "vortexfmm: slowest frame %.2f ms (frame %lld), %.2f times the median\n", worst, worst_at,
          m[FT_FRAME] > 0 ? worst / m[FT_FRAME] : 0.0);
}

/* What one headless run holds beside the app: the context, the frame count, the timings. */
typedef struct {
  const app_options *o;
  app *a;
  rd_headless *hl;
  unsigned fbo;
  long long frames, f;
  double t0, t_last, t_prev, sim_ms, rd_ms; /* the progress line's window */
  long long acc_n;
  app_series ft;                             /* frames 0..FT_WARMUP left out */
  double ms_finish;                          /* the frame's wait for the GPU (glFinish) */
  int ui;                                    /* the HUD's ImGui is up */
  int speak;                                 /* rank 0 under mpirun (or alone): the lines and the files */
} headless_run;

/* The options a headless run refuses before it starts; 0, or the exit code. */
static int check_headless(const app_options *o, long long frames) {
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
  return 0;
}

/* The app, the EGL context, GL, the HUD, the recording and the timing series; 0 or the exit code
 * (what was made is undone by headless_end). */
static int headless_start(headless_run *H, char *err, size_t errlen) {
  const app_options *o = H->o;
  app *a = H->a;
  int rc = app_init(a, o, 0, err, errlen);
  if (rc) return rc;
  rc = (H->hl = rd_headless_create(o->width, o->height, err, errlen)) == NULL;
  if (!rc) {
    snprintf(a->platform, sizeof a->platform, "%s", rd_headless_platform(H->hl));
    rc = app_gl_init(a, err, errlen) != 0;
  }
  if (app_mpi_join(rc, err, errlen)) return 1; /* under mpirun every process draws: all or none */
  if (o->hud) {
    if (app_ui_init(NULL, 1.0f, 1.0f, err, errlen)) return 1;
    H->ui = 1;
  }
  if (!o->quiet && H->speak)
    fprintf(stderr, "vortexfmm: headless %dx%d through %s: %s; %lld frames, %d steps per frame%s%s%s%s\n", o->width, o->height,
            a->platform, a->gl_desc, H->frames, o->steps_per_frame, o->png_dir ? ", PNGs into " : "",
            o->png_dir ? o->png_dir : "", o->record ? ", video " : "", o->record ? o->record : "");
  rc = H->speak && (o->record || o->png_dir) && app_record_start(a, o->record, o->png_dir, o->width, o->height, err, errlen);
  if (app_mpi_join(rc, err, errlen)) return 1;
  H->fbo = rd_headless_fbo(H->hl);
  H->t0 = H->t_last = H->t_prev = app_now();
  if (app_series_init(&H->ft, FT_N, FT_WARMUP + 1, H->frames)) {
    snprintf(err, errlen, "out of host memory for %lld frame timings", H->ft.cap);
    return 1;
  }
  return 0;
}

/* One frame: the steps, the draw, the HUD, the recording and the screenshot. 0, or the exit code. */
static int headless_frame(headless_run *H, char *err, size_t errlen) {
  const app_options *o = H->o;
  app *a = H->a;
  a->set.running = H->f > 0; /* frame 0 is the initial state */
  int u = app_mpi_join(app_update(a, err, errlen), err, errlen); /* under mpirun a blow-up is every process's */
  if (u == 3) {
    size_t n = strlen(err);
    snprintf(err + n, errlen - n, " (frame %lld)", H->f);
    return 3;
  }
  if (u < 0 || app_draw(a, H->fbo, o->width, o->height, 1.0f, err, errlen)) return 1;
  double tf = app_now();
  glFinish(); /* the frame is done when the GPU is: no swap paces a headless loop */
  double now = app_now();
  H->ms_finish = 1e3 * (now - tf);
  a->ms_frame = 1e3 * (now - H->t_prev);
  app_frames_add(&a->frames_hud, a->ms_frame);
  H->t_prev = now;
  if (o->hud) {
    glBindFramebuffer(GL_FRAMEBUFFER, H->fbo);
    app_ui_frame(a, o->width, o->height, a->ms_frame * 1e-3);
  }
  int rc = H->speak && (app_record_frame(a, H->fbo, err, errlen) || /* --png-dir, --record */
                        (H->f == H->frames - 1 && o->screenshot &&
                         app_save_png(H->fbo, o->width, o->height, o->screenshot, err, errlen)));
  return app_mpi_join(rc, err, errlen) ? 1 : 0;
}

/* After a frame: its timings into the series, the launch line, the progress line once a second. */
static void headless_report(headless_run *H) {
  const app_options *o = H->o;
  const app *a = H->a;
  const rd_stats *rs = rd_get_stats(a->rd);
  const double v[FT_N] = {a->ms_frame, a->ms_step,      a->ms_tree,   a->ms_far,
                          a->ms_near,  a->ms_integrate, a->ms_remesh, a->ms_render, a->ms_gpu,
                          a->ms_frame - a->ms_step - a->ms_render, a->ms_health, a->ms_follow, H->ms_finish,
                          rs->t_upload, rs->t_hist, rs->t_opacity, rs->t_interop, rs->t_draw};
  app_series_add(&H->ft, v);
  if (a->launched_frame && !o->quiet && H->speak) /* --launch-ring: the two frames that take its work, beside the usual ones */
    fprintf(stderr, "vortexfmm: frame %lld launched a ring (now %d elements, %d tracers): launch %.2f ms, step %.2f ms, "
                    "render %.2f ms, frame %.2f ms\n", H->f, vx_sim_n_elements(a->sim), vx_sim_n_tracers(a->sim), a->ms_launch,
            a->ms_step, a->ms_render, a->ms_frame);
  if (a->after_launch && !o->quiet && H->speak)
    fprintf(stderr, "vortexfmm: frame %lld took the first step after it: step %.2f ms, render %.2f ms, frame %.2f ms\n", H->f,
            a->ms_step, a->ms_render, a->ms_frame);
  H->sim_ms += a->ms_step;
  H->rd_ms += a->ms_render;
  H->acc_n++;
  double now = app_now();
  if (!o->quiet && H->speak && (now - H->t_last >= 1.0 || H->f == H->frames - 1)) {
    double rate = (H->f + 1) / (now - H->t0);
    fprintf(stderr, "vortexfmm: frame %lld/%lld t=%.6g step %lld: %.1f ms sim + %.1f ms render per frame; %.1f fps, ETA %.0f s\n",
            H->f + 1, H->frames, app_sim_time(a), app_sim_steps(a), H->sim_ms / H->acc_n, H->rd_ms / H->acc_n, rate,
            (H->frames - H->f - 1) / rate);
    H->t_last = now;
    H->sim_ms = H->rd_ms = 0.0;
    H->acc_n = 0;
  }
}

/* The recording finalized (the GL context still current), the closing lines, everything undone. */
static int headless_end(headless_run *H, int rc) {
  const app_options *o = H->o;
  if (H->hl && app_record_stop(H->a) && (!rc || rc == 130)) rc = 1;
  if (H->hl) glFinish(); /* the last frame's GPU work counts in the run's time */
  if (!rc) { /* every process reaches here with the same rc: the counts are of the whole flow */
    const long long ne = app_mpi_sum(vx_sim_n_elements(H->a->sim)), nt = app_mpi_sum(vx_sim_n_tracers(H->a->sim)),
                    nd = app_mpi_sum(rd_get_stats(H->a->rd)->n_drawn);
    if (H->speak) print_breakdown(H->a, o, &H->ft, ne, nt, nd);
  }
  app_series_free(&H->ft);
  if (!rc && !o->quiet && H->speak) {
    fprintf(stderr, "vortexfmm: done: %lld frames in %.2f s", H->f, app_now() - H->t0);
    if (o->screenshot) fprintf(stderr, "; screenshot %s", o->screenshot);
    fprintf(stderr, "\n");
  }
  if (H->ui) app_ui_shutdown();
  app_shutdown(H->a);
  if (H->hl) rd_headless_destroy(H->hl);
  return rc;
}

int app_run_headless(const app_options *o) {
  static app a;
  char err[1024];
  headless_run H;
  memset(&H, 0, sizeof H);
  H.o = o, H.a = &a;
  H.speak = app_mpi_rank() == 0;
  H.frames = o->frames > 0 ? o->frames : 1;
  int rc = check_headless(o, H.frames);
  if (rc) return rc;
  if ((rc = headless_start(&H, err, sizeof err)) != 0) {
    if (H.speak || strncmp(err, "another ", 8)) fprintf(stderr, "vortexfmm: %s\n", err);
    return headless_end(&H, rc);
  }
  for (; H.f < H.frames; ++H.f) {
    if (app_mpi_any(app_interrupted())) { /* a signal any process caught stops them all after this frame */
      if (H.speak) fprintf(stderr, "vortexfmm: interrupted after %lld of %lld frames: finalizing the recording\n", H.f, H.frames);
      rc = 130;
      break;
    }
    if ((rc = headless_frame(&H, err, sizeof err)) != 0) {
      if (H.speak || strncmp(err, "another ", 8)) fprintf(stderr, "vortexfmm: %s\n", err);
      break;
    }
    headless_report(&H);
  }
  return headless_end(&H, rc);
}
