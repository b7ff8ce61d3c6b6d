/* test_render_launch.c — a ring launched through the frame path: `vortexfmm --headless
 * --frames 3 --launch-ring 1` on the single_ring scene (CPU backend) launches a ring from the home
 * camera before step 1: at the end of frame 0 (which takes no step), so that frame 1 takes that step
 * alone; it reports both frames, runs on without error, and its last frame differs from the same run
 * without the launch (the new ring's tracers are in view). Bad --launch-ring values exit 2.
 * Skipped (77) only when EGL gives no headless OpenGL context (the program's own answer).
 * Run: ctest -R render_launch */
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "png_file.h"
#include "test_run.h"

static char out[65536];

static int run(const char *args) { return vx_test_run_program("", args, out, sizeof out); }

static double lum(const unsigned char *rgb, size_t i) { return 0.2126 * rgb[3 * i] + 0.7152 * rgb[3 * i + 1] + 0.0722 * rgb[3 * i + 2]; }

static const char *kRun = "--headless --scene single_ring --backend cpu --tracers 2048 --integrator euler --size 240x160 "
                          "--frames 3 --no-opacity";

int main(void) {
  char dir[] = "/tmp/vx_render_launch_XXXXXX";
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  char args[4096], a_png[1200], b_png[1200];
  snprintf(a_png, sizeof a_png, "%s/plain.png", dir);
  snprintf(b_png, sizeof b_png, "%s/launch.png", dir);
  snprintf(args, sizeof args, "%s --screenshot '%s'", kRun, a_png);
  int rc = run(args);
  if (vx_test_no_egl(rc, out)) {
    printf("SKIP: no headless OpenGL context through EGL here:\n%s", out);
    return 77;
  }
  if (rc != 0) FAIL("run without a launch: exit %d\n%s", rc, out);
  snprintf(args, sizeof args, "%s --launch-ring 1 --screenshot '%s'", kRun, b_png);
  rc = run(args);
  printf("%s", out);
  if (rc != 0) FAIL("run with --launch-ring 1: exit %d", rc);
  /* single_ring at 2048 tracers: 2394 elements; the launched ring copies it (R, a, spacing, tracers per ring) */
  if (!strstr(out, "frame 0 launched a ring (now 4788 elements, 4096 tracers)")) FAIL("no launch reported in frame 0");
  if (!strstr(out, "frame 1 took the first step after it")) FAIL("frame 1 not reported as the first step after the launch");
  unsigned char *a = NULL, *b = NULL;
  int wa, ha, wb, hb;
  char err[512];
  if (vx_png_read(a_png, &a, &wa, &ha, err, sizeof err) || vx_png_read(b_png, &b, &wb, &hb, err, sizeof err)) {
    FAIL("%s", err);
  } else if (wa != wb || ha != hb) {
    FAIL("sizes differ: %dx%d, %dx%d", wa, ha, wb, hb);
  } else {
    long changed = 0, n = (long)wa * ha;
    for (long i = 0; i < n; ++i) changed += fabs(lum(a, (size_t)i) - lum(b, (size_t)i)) > 8.0;
    printf("  last frame with the launch vs without: %ld of %ld pixels changed by > 8\n", changed, n);
    /* measured: 3927 of 38400 */
    if (changed < n / 50) FAIL("the launched ring is not in the picture (%ld pixels changed)", changed);
  }
  free(a);
  free(b);
  /* bad values: a clear line, exit 2 */
  snprintf(args, sizeof args, "%s --launch-ring 9", kRun);
  rc = run(args);
  if (rc != 2 || !strstr(out, "--launch-ring 9 is outside the steps these frames take (1..2)"))
    FAIL("--launch-ring past the last frame: exit %d: %s", rc, out);
  rc = run("--headless --scene single_ring --launch-ring 0 --frames 2");
  if (rc != 2 || !strstr(out, "bad value for --launch-ring: '0'")) FAIL("--launch-ring 0: exit %d: %s", rc, out);
  remove(a_png);
  remove(b_png);
  rmdir(dir);
  if (failures) { printf("%d failure(s)\n", failures); return EXIT_FAILURE; }
  printf("test_render_launch: all checks passed\n");
  return EXIT_SUCCESS;
}
#endif
