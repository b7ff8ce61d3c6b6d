/* test_render_window.c — the interactive window under a virtual X server (xvfb-run, Mesa): it
 * opens an OpenGL 3.3 core context through GLFW, runs the simulation and Dear ImGui for a few
 * frames and saves itself with --screenshot (its interface included): the PNG must have the window's
 * size, show the rings (lit pixels in the middle) and the quiet screen it opens on: the status line
 * (lit pixels at the top right), the panel closed (the top left dark).
 * Skipped (77) without xvfb-run. Run: ctest -R render_window */
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

static char out[65536];

/* Share of pixels in a rectangle brighter than the background by a margin. */
static double lit_share(const unsigned char *rgb, int w, int x0, int y0, int x1, int y1) {
  long lit = 0, all = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x, ++all) {
      const unsigned char *p = rgb + 3 * ((size_t)y * w + x);
      lit += p[0] + p[1] + p[2] > 3 * 40;
    }
  return all ? (double)lit / all : 0.0;
}

/* The window on the CPU backend without --tracers runs merger with 16384 of its 262144 tracers
 * and says so (src/vortexfmm/app_sim.c, app_cpu_tracers); --tracers keeps the count asked for (the run above). */
static void cpu_tracer_count(void) {
  int rc = vx_test_run_program("xvfb-run -a -s '-screen 0 1024x768x24'",
                               "--scene merger --backend cpu --integrator euler --size 320x200 --frames 1", out, sizeof out);
  if (rc != 0) { FAIL("window run without --tracers: exit %d\n%s", rc, out); return; }
  if (!strstr(out, "cpu backend: 16384 of the scene's 262144 tracers")) FAIL("no note of the CPU tracer count in:\n%s", out);
  if (!strstr(out, "10010 elements, 16384 tracers")) FAIL("the scene did not start with 16384 tracers:\n%s", out);
  printf("  cpu backend without --tracers: 16384 of 262144 tracers, said: ok\n");
}

/* Under Xvfb OpenGL is Mesa's llvmpipe: the window lightens the opacity pass and says so
 * (app_window.c, software_opacity), unless --ray-samples or --opacity-scale was given. */
static void software_pass(void) {
  const char *note = "software OpenGL: the opacity pass at 32 samples a ray on 1/4";
  const char *base = "--scene leapfrog --backend cpu --tracers 256 --integrator euler --size 320x200 --frames 1";
  char args[512];
  int rc = vx_test_run_program("xvfb-run -a -s '-screen 0 1024x768x24'", base, out, sizeof out);
  if (rc != 0) { FAIL("window run: exit %d\n%s", rc, out); return; }
  if (!strstr(out, "llvmpipe")) { printf("  software opacity: not llvmpipe here, not checked\n"); return; }
  if (!strstr(out, note)) FAIL("llvmpipe, but no lighter opacity pass said:\n%s", out);
  snprintf(args, sizeof args, "%s --ray-samples 64", base);
  rc = vx_test_run_program("xvfb-run -a -s '-screen 0 1024x768x24'", args, out, sizeof out);
  if (rc != 0 || strstr(out, "software OpenGL")) FAIL("--ray-samples 64: exit %d, or the pass lightened anyway:\n%s", rc, out);
  printf("  software opacity: lightened on llvmpipe and said, kept with --ray-samples: ok\n");
}

int main(void) {
  if (system("command -v xvfb-run > /dev/null 2>&1") != 0) {
    printf("SKIP: xvfb-run not found (Debian: xvfb xauth)\n");
    return 77;
  }
  char dir[] = "/tmp/vx_render_window_XXXXXX";
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  char shot[1200], args[4096];
  snprintf(shot, sizeof shot, "%s/window.png", dir);
  snprintf(args, sizeof args,
           "--scene merger --backend cpu --tracers 8192 --integrator euler --size 800x600 --frames 4 --screenshot '%s'",
           shot);
  int rc = vx_test_run_program("xvfb-run -a -s '-screen 0 1024x768x24'", args, out, sizeof out);
  printf("%s", out);
  if (rc != 0) {
    if (strstr(out, "xvfb-run: error") || strstr(out, "Xvfb failed")) {
      printf("SKIP: Xvfb does not start here\n");
      return 77;
    }
    FAIL("window run: exit %d", rc);
  }
  if (!strstr(out, "window 800x600")) FAIL("no window line in the output");
  unsigned char *rgb = NULL;
  int w = 0, h = 0;
  char err[512];
  if (vx_png_read(shot, &rgb, &w, &h, err, sizeof err)) {
    FAIL("%s", err);
  } else {
    if (w != 800 || h != 600) FAIL("screenshot is %dx%d, expected 800x600 (the framebuffer)", w, h);
    double mid = lit_share(rgb, w, w / 3, h / 4, 2 * w / 3, 3 * h / 4), panel = lit_share(rgb, w, 10, 10, 200, 60);
    double status = lit_share(rgb, w, w - 300, 12, w - 20, 28);
    printf("  screenshot %dx%d: %.1f%% of the middle lit (rings), %.1f%% of the status line lit, %.1f%% of the panel's "
           "place lit\n", w, h, 100 * mid, 100 * status, 100 * panel);
    if (mid < 0.02) FAIL("the rings are not visible in the window");
    if (status < 0.04) FAIL("the status line is not visible in the window"); /* 6.8 % on Mesa llvmpipe */
    if (panel > 0.02) FAIL("the panel is open in a window that should open quiet");
  }
  free(rgb);
  remove(shot);
  rmdir(dir);
  cpu_tracer_count();
  software_pass();
  return vx_test_end("window checks passed");
}
#endif /* VX_RENDER_OFF */
