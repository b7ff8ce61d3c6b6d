/* test_render_window_thread.c — the window on the cpu backend runs the steps on a thread of their
 * own and keeps drawing while a step of seconds is in flight. Under a virtual X server (xvfb-run,
 * Mesa) the window runs merger (6940 elements, 65536 tracers, RK4, the tracers in every call
 * with --tracer-every 1: FMM steps of about a second on two cores; 4096 tracers under the
 * sanitizers, whose steps take several times longer) with --sim-thread on for a number of frames. The
 * steps must be long against a loaded frame: with short ones a busy frame comes near 0.6 of a step
 * and cannot be told from a frozen one. The window's closing line gives the frames drawn while
 * steps ran and the longest of them. Checks:
 *   - steps completed (at least two), and the render loop drew >= 5 frames per second of the time
 *     steps were in flight (MIN_FPS; the window draws 10 a second when nothing else happens,
 *     more on input), its longest frame under 0.6 of a step (never frozen for a step);
 *   - the state shown moved on: the last frame shows step S >= 1, and the part of the picture
 *     beside the panel and the HUD is the one the frame loop draws after S steps (--sim-thread off
 *     --frames S: the same state from the same view, pixel for pixel), unlike step 0's.
 *   - keys typed while steps run (xdotool; left out without it): reset, launch, removal, pause,
 *     single step, quit are all answered, the reset within a step and a second, the frames going on
 *     meanwhile.
 * VX_TEST_SIM_THREAD=off runs the first window with the steps in the frame loop: then it must fail
 * (a frame lasts a step). Skipped (77) without xvfb-run. Run: ctest -R render_window_thread */
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "png_file.h"
#include "test_run.h"

#define XVFB "xvfb-run -a -s '-screen 0 1280x1024x24'"
#define W 1024
#define H 640
#ifdef __SANITIZE_ADDRESS__ /* CI's sanitizer stage: its program's steps take 3 to 8 s on two cores, with the
                               machine's load; 30 s of frames hold two of the slowest */
#define SCENE "--scene merger --backend cpu --tracers 4096 --integrator rk4 --tracer-every 1 --size 1024x640"
#define FRAMES 300
#else
#define SCENE "--scene merger --backend cpu --tracers 65536 --integrator rk4 --tracer-every 1 --size 1024x640"
#define FRAMES 60
#endif
#define MIN_FPS 5.0        /* frames per second while steps ran */
#define MAX_FRAME_STEP 0.6 /* the longest such frame, in steps */

static char out[65536];

/* The window's closing line (app_window.c, print_pace). */
typedef struct {
  long long frames, steps, busy_frames, shown;
  double wall, ms_step, busy_s, longest_ms;
} pace;

static int read_pace(const char *text, pace *p) {
  const char *l = strstr(text, "vortexfmm: window: ");
  if (!l) return -1;
  double fps, rate, busy_fps;
  int n = sscanf(l, "vortexfmm: window: %lld frames in %lf s (%lf fps); %lld steps (%lf steps/s, %lf ms per step, %*[^)]); "
                    "while steps ran: %lld frames in %lf s (%lf fps), the longest %lf ms; shown: step %lld",
                 &p->frames, &p->wall, &fps, &p->steps, &rate, &p->ms_step, &p->busy_frames, &p->busy_s, &busy_fps,
                 &p->longest_ms, &p->shown);
  return n == 11 ? 0 : -1;
}

/* A window run; 0, 77 when Xvfb does not start here, else 1 (said). */
static int run_window(const char *args) {
  int rc = vx_test_run_program(XVFB, args, out, sizeof out);
  if (rc == 0) return 0;
  printf("%s", out);
  if (strstr(out, "xvfb-run: error") || strstr(out, "Xvfb failed")) return 77;
  FAIL("window run '%s': exit %d", args, rc);
  return 1;
}

/* Mean absolute difference per channel of two screenshots over the part of the picture that neither
 * the panel (left) nor the HUD (top right) nor the legend and messages (bottom) cover. */
static double scene_diff(const unsigned char *a, const unsigned char *b) {
  long long sum = 0, n = 0;
  for (int y = 320; y < H - 48; ++y)
    for (int x = 440; x < W; ++x, ++n)
      for (int c = 0; c < 3; ++c) sum += abs((int)a[3 * ((size_t)y * W + x) + c] - (int)b[3 * ((size_t)y * W + x) + c]);
  return (double)sum / (3.0 * (double)n);
}

static unsigned char *load(const char *path) {
  unsigned char *rgb = NULL;
  int w = 0, h = 0;
  char err[512];
  if (vx_png_read(path, &rgb, &w, &h, err, sizeof err)) { FAIL("%s", err); return NULL; }
  if (w != W || h != H) { FAIL("%s is %dx%d, expected %dx%d", path, w, h, W, H); free(rgb); return NULL; }
  return rgb;
}

/* The threaded window's pace. 0, 77, or 1. */
static int check_pace(const char *dir, pace *p) {
  const char *mode = getenv("VX_TEST_SIM_THREAD") ? getenv("VX_TEST_SIM_THREAD") : "on";
  char args[2048];
  snprintf(args, sizeof args, SCENE " --sim-thread %s --frames %d --screenshot '%s/thread.png'", mode, FRAMES, dir);
  int rc = run_window(args);
  if (rc) return rc;
  if (read_pace(out, p)) { printf("%s", out); FAIL("no closing line with the window's pace"); return 1; }
  double busy_fps = p->busy_s > 0 ? p->busy_frames / p->busy_s : 0.0;
  printf("  --sim-thread %s: %lld frames in %.2f s; %lld steps of %.0f ms; while steps ran %lld frames in %.2f s "
         "(%.1f fps, at least %.1f), the longest %.0f ms (at most %.0f); shown: step %lld\n",
         mode, p->frames, p->wall, p->steps, p->ms_step, p->busy_frames, p->busy_s, busy_fps, MIN_FPS, p->longest_ms,
         MAX_FRAME_STEP * p->ms_step, p->shown);
  EXPECT(p->steps >= 2, "%lld steps completed in %lld frames; at least 2 wanted", p->steps, p->frames);
  EXPECT(busy_fps >= MIN_FPS, "%.1f frames per second while steps ran, fewer than %.1f", busy_fps, MIN_FPS);
  EXPECT(p->longest_ms <= MAX_FRAME_STEP * p->ms_step, "a frame lasted %.0f ms, more than %.1f of a step (%.0f ms)",
         p->longest_ms, MAX_FRAME_STEP, p->ms_step);
  EXPECT(p->shown >= 1, "the last frame still shows step %lld", p->shown);
  return 0;
}

/* Keys while steps are in flight (xdotool types into the window; each waits up to a minute for the
 * program's answer in its log): R resets, L launches a ring, Shift+L removes it, Space pauses, N
 * steps, Space runs, Q quits. Each is answered, the program exits 0, the reset within a step and a
 * second (it waits for the rest of the step in flight; the second: the key's delivery and the log's
 * polling), and the frames go on meanwhile. 0; 77 when xdotool
 * or Xvfb is missing; 1 (said). */
static int check_keys(const char *dir) {
  if (system("command -v xdotool > /dev/null 2>&1") != 0) {
    printf("  keys: skipped (no xdotool; Debian: xdotool)\n");
    return 0;
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && " XVFB " sh -c '"
           "until_log() { i=0; until grep -q \"$1\" log; do i=$((i+1)); [ $i -gt 240 ] && return 1; sleep 0.25; done; }; "
           "\"%s/vortexfmm\" " SCENE " 2> log & pid=$!; "
           "w=$(timeout 60 xdotool search --sync --name \"^vortexfmm - \" | head -n 1); "
           "if [ -z \"$w\" ]; then echo \"test: no window\"; kill $pid; wait $pid; cat log; exit 9; fi; "
           "until_log \"press H for help\"; xdotool windowfocus --sync $w; sleep 1; "
           "t0=$(date +%%s%%N); xdotool key --window $w r; until_log \"reset: merger\" || echo \"test: R unanswered\"; "
           "echo \"test: reset answered after $(( ($(date +%%s%%N) - t0) / 1000000 )) ms\"; "
           "xdotool key --window $w l; until_log \"ring 2 launched\" || echo \"test: L unanswered\"; "
           "xdotool key --window $w shift+l; until_log \"launched ring removed\" || echo \"test: Shift+L unanswered\"; "
           "xdotool key --window $w space; sleep 1; xdotool key --window $w n; sleep 1; xdotool key --window $w space; sleep 1; "
           "xdotool key --window $w q; wait $pid; rc=$?; cat log; exit $rc' 2>&1",
           dir, VX_BINARY_DIR);
  int rc = vx_test_shell(cmd, out, sizeof out);
  if (rc != 0 && (strstr(out, "xvfb-run: error") || strstr(out, "Xvfb failed"))) return 77;
  pace p;
  const char *at = strstr(out, "test: reset answered after ");
  long reset_ms = at ? atol(at + strlen("test: reset answered after ")) : -1;
  if (rc != 0 || strstr(out, "unanswered") || read_pace(out, &p) || reset_ms < 0) {
    printf("%s", out);
    FAIL("keys while steps ran: exit %d, or a key unanswered (the lines above say which)", rc);
    return 1;
  }
  double busy_fps = p.busy_s > 0 ? p.busy_frames / p.busy_s : 0.0;
  printf("  keys R, L, Shift+L, Space, N, Space, Q while steps of %.0f ms ran: all answered, the reset after %ld ms (at "
         "most %.0f); %.1f fps while steps ran, the longest frame %.0f ms\n",
         p.ms_step, reset_ms, p.ms_step + 1000.0, busy_fps, p.longest_ms);
  EXPECT(reset_ms <= p.ms_step + 1000.0, "the reset took %ld ms, more than a step (%.0f ms) and a second", reset_ms, p.ms_step);
  EXPECT(busy_fps >= MIN_FPS, "%.1f frames per second while steps ran, fewer than %.1f", busy_fps, MIN_FPS);
  EXPECT(p.longest_ms <= MAX_FRAME_STEP * p.ms_step, "a frame lasted %.0f ms, more than %.1f of a step (%.0f ms)",
         p.longest_ms, MAX_FRAME_STEP, p.ms_step);
  return 0;
}

/* The last frame against the frame loop's picture of the same step, and of step 0. */
static int check_shown(const char *dir, const pace *p) {
  char args[2048], path[3][1200];
  snprintf(path[0], sizeof path[0], "%s/thread.png", dir);
  snprintf(path[1], sizeof path[1], "%s/loop.png", dir);
  snprintf(path[2], sizeof path[2], "%s/start.png", dir);
  snprintf(args, sizeof args, SCENE " --sim-thread off --frames %lld --screenshot '%s'", p->shown, path[1]);
  int rc = run_window(args);
  if (!rc) {
    snprintf(args, sizeof args, SCENE " --paused --frames 1 --screenshot '%s'", path[2]);
    rc = run_window(args);
  }
  if (rc) return rc;
  unsigned char *img[3] = {load(path[0]), load(path[1]), load(path[2])};
  if (img[0] && img[1] && img[2]) {
    double same = scene_diff(img[0], img[1]), moved = scene_diff(img[1], img[2]);
    printf("  step %lld: the threaded window's last frame differs from the frame loop's by %.4f per channel (at most 0.05), "
           "which differs from step 0's by %.3f (at least 0.1)\n", p->shown, same, moved);
    EXPECT(same <= 0.05, "the last frame is not the picture of step %lld (%.4f)", p->shown, same);
    EXPECT(moved >= 0.1, "step %lld looks like step 0 (%.3f): the check cannot tell states apart", p->shown, moved);
  }
  for (int i = 0; i < 3; ++i) free(img[i]);
  return 0;
}

int main(void) {
  if (system("command -v xvfb-run > /dev/null 2>&1") != 0) {
    printf("SKIP: xvfb-run not found (Debian: xvfb xauth)\n");
    return 77;
  }
  char dir[] = "/tmp/vx_window_thread_XXXXXX";
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  pace p;
  memset(&p, 0, sizeof p);
  int rc = check_pace(dir, &p);
  if (!rc && p.shown >= 1) rc = check_shown(dir, &p);
  if (!rc) rc = check_keys(dir);
  if (rc == 77) {
    printf("SKIP: Xvfb does not start here\n");
    return 77;
  }
  if (!failures) {
    char clean[200];
    snprintf(clean, sizeof clean, "rm -rf '%s'", dir);
    if (system(clean) != 0) printf("  note: %s left behind\n", dir);
  } else {
    printf("  files kept in %s\n", dir);
  }
  return vx_test_end("window thread checks passed");
}
#endif /* VX_RENDER_OFF */
