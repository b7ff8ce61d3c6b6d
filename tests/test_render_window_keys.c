/* test_render_window_keys.c — the window's keys as a person presses them: the program runs in a
 * real window under a virtual X server (xvfb-run, Mesa) and xdotool types into it: I shows the vorticity
 * surface (recorded with the dye from then on), M starts a
 * recording, M again stops it, L launches a ring, Ctrl+S saves the scene, Q quits. Then: the program
 * exits 0, said "recording …", "ring 1 launched" and "scene saved as …", the video plays in ffprobe
 * with at least one frame of the window's size, and the saved scene holds the launched ring after
 * the scene's own (two [ring] sections), loads back and runs a step headless.
 * Skipped (77) without xvfb-run, xdotool or ffprobe (Debian: xvfb xauth xdotool ffmpeg).
 * Run: ctest -R render_window_keys */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_run.h"

static char out[1 << 17];

/* The text after the first occurrence of key up to the end of its line, into dst. */
static int after(const char *text, const char *key, char *dst, size_t cap) {
  const char *p = strstr(text, key);
  if (!p) return -1;
  p += strlen(key);
  size_t n = strcspn(p, " \n(");
  if (n >= cap) n = cap - 1;
  memcpy(dst, p, n);
  dst[n] = 0;
  return 0;
}

/* The session: the program in the background with its stderr in a log, xdotool waits for its
 * window and types; each key waits (up to a minute) for the program's answer in the log, since a
 * frame on a loaded 2-core machine can take seconds. The recording lasts until two frames are
 * written (frames are kept only when the simulation has advanced). */
static int run_session(const char *dir) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && xvfb-run -a -s '-screen 0 1024x768x24' sh -c '"
           "until_log() { i=0; until grep -q \"$1\" log; do i=$((i+1)); [ $i -gt 240 ] && return 1; sleep 0.25; done; }; "
           "\"%s/vortexfmm\" --scene single_ring --backend cpu --direct --tracers 512 --size 640x360 --fps 10 2> log & pid=$!; "
           "w=$(timeout 60 xdotool search --sync --name \"^vortexfmm - \" | head -n 1); "
           "if [ -z \"$w\" ]; then echo \"test: no window\"; kill $pid; wait $pid; cat log; exit 9; fi; "
           "until_log \"press H for help\"; xdotool windowfocus --sync $w; "
           "xdotool key --window $w i; until_log \"vorticity surface: over the dye\" || echo \"test: I unanswered\"; "
           "xdotool key --window $w m; until_log \"vortexfmm: recording \" || echo \"test: M unanswered\"; sleep 3; "
           "xdotool key --window $w m; until_log \"vortexfmm: recorded \" || echo \"test: second M unanswered\"; "
           "xdotool key --window $w l; until_log \"ring 1 launched\" || echo \"test: L unanswered\"; "
           "xdotool key --window $w ctrl+s; until_log \"scene saved as\" || echo \"test: Ctrl+S unanswered\"; "
           "xdotool key --window $w q; wait $pid; rc=$?; cat log; exit $rc' 2>&1",
           dir, VX_BINARY_DIR);
  return vx_test_shell(cmd, out, sizeof out);
}

/* The video: frames, width and height from ffprobe. */
static void check_video(const char *dir, const char *video) {
  char cmd[2048], probe[4096];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=width,height,nb_read_frames "
           "-of default=noprint_wrappers=1 '%s' 2>&1",
           dir, video);
  int rc = vx_test_shell(cmd, probe, sizeof probe);
  printf("  ffprobe %s: %s", video, probe);
  int w = 0, h = 0, n = 0;
  const char *p;
  if ((p = strstr(probe, "width="))) w = atoi(p + 6);
  if ((p = strstr(probe, "height="))) h = atoi(p + 7);
  if ((p = strstr(probe, "nb_read_frames="))) n = atoi(p + 15);
  if (rc != 0) FAIL("ffprobe cannot read the recording (exit %d)", rc);
  if (n < 1) FAIL("the recording has %d frames", n);
  if (w != 640 || h != 360) FAIL("the recording is %dx%d, the window 640x360", w, h);
}

/* The saved scene: the scene's ring and the launched one, and it loads and runs one step headless. */
static void check_scene(const char *dir, const char *scene) {
  char cmd[2048], res[8192];
  snprintf(cmd, sizeof cmd, "cd '%s' && grep -c '^\\[ring\\]' '%s'", dir, scene);
  vx_test_shell(cmd, res, sizeof res);
  if (atoi(res) != 2) FAIL("the saved scene %s has %d [ring] sections, expected 2 (the scene's and the launched one)", scene, atoi(res));
  else printf("  saved scene %s holds the launched ring\n", scene);
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s/vortexfmm' --headless --quiet --scene '%s' --backend cpu --direct --tracers 0 --steps 1 2>&1",
           dir, VX_BINARY_DIR, scene);
  int rc = vx_test_shell(cmd, res, sizeof res);
  if (rc != 0) FAIL("the saved scene %s does not run (exit %d): %s", scene, rc, res);
  else printf("  saved scene %s loads and runs\n", scene);
}

int main(void) {
  if (system("command -v xvfb-run > /dev/null 2>&1") != 0 || system("command -v xdotool > /dev/null 2>&1") != 0 ||
      system("command -v ffprobe > /dev/null 2>&1") != 0) {
    printf("SKIP: xvfb-run, xdotool or ffprobe not found (Debian: xvfb xauth xdotool ffmpeg)\n");
    return 77;
  }
  char dir[] = "/tmp/vx_window_keys_XXXXXX";
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  int rc = run_session(dir);
  printf("%s", out);
  if (rc != 0) {
    if (strstr(out, "xvfb-run: error") || strstr(out, "Xvfb failed")) {
      printf("SKIP: Xvfb does not start here\n");
      return 77;
    }
    FAIL("window session: exit %d", rc);
  }
  if (strstr(out, "unanswered")) FAIL("a key went unanswered (the lines above say which)");
  char video[512] = "", scene[512] = "";
  if (after(out, "vortexfmm: recording ", video, sizeof video)) FAIL("M did not start a recording");
  else check_video(dir, video);
  if (after(out, "vortexfmm: scene saved as ", scene, sizeof scene)) FAIL("Ctrl+S did not save the scene");
  else check_scene(dir, scene);
  char clean[600];
  snprintf(clean, sizeof clean, "rm -rf '%s'", dir);
  if (!failures && system(clean) != 0) printf("  note: %s left behind\n", dir);
  if (failures) { printf("%d check(s) failed (files kept in %s)\n", failures, dir); return EXIT_FAILURE; }
  printf("window key checks passed\n");
  return EXIT_SUCCESS;
}
#endif /* VX_RENDER_OFF */
