/* test_render_headless.c — `vortexfmm --headless --frames N` end to end: the merger scene is
 * rendered through EGL (Mesa's device or surfaceless platform on machines without a GPU, NVIDIA's
 * device platform on GPU servers) into PNG frames, which must be non-empty, change from frame to
 * frame, and equal --screenshot; and the ray-counted opacity pass must brighten the densest image
 * region relative to the pass disabled, more than it brightens a sparse region; and --iso --iso-only must
 * draw the vorticity surface without the dye.
 * If EGL gives no context here (the program's own answer, exit 1: nothing else counts, so a crash
 * fails), the runs go through `xvfb-run -a` (EGL's default display on X11); with neither, the test
 * is skipped (77). Runs the program built beside the tests (CPU backend).
 * Run: ctest -R render_headless */
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
static const char *prefix = ""; /* "" or "xvfb-run -a": vx_test_headless_probe's answer */

/* Run vortexfmm with args (stdout + stderr into out); the exit code, or -1. */
static int run(const char *args) { return vx_test_run_program(prefix, args, out, sizeof out); }

typedef struct {
  unsigned char *rgb;
  int w, h;
} image;

static int load(const char *path, image *im) {
  char err[512];
  if (vx_png_read(path, &im->rgb, &im->w, &im->h, err, sizeof err)) {
    FAIL("%s", err);
    return -1;
  }
  return 0;
}

static double lum(const image *im, int x, int y) {
  const unsigned char *p = im->rgb + 3 * ((size_t)y * im->w + x);
  return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
}

/* Mean luminance of the b x b block at (bx, by) (in blocks). */
static double block_mean(const image *im, int bx, int by, int b) {
  double s = 0;
  for (int y = by * b; y < (by + 1) * b; ++y)
    for (int x = bx * b; x < (bx + 1) * b; ++x) s += lum(im, x, y);
  return s / (b * b);
}

static const char *kScene = "--scene merger --backend cpu --tracers 8192 --integrator euler --size 480x270 --intensity 0.7";

int main(void) {
  char dir[] = "/tmp/vx_render_headless_XXXXXX";
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  char args[4096], path[1200], shot[1200];

  /* can we render headless here, and how? */
  snprintf(shot, sizeof shot, "%s/probe.png", dir);
  snprintf(args, sizeof args, "--headless --scene merger --backend cpu --tracers 64 --size 64x64 --frames 1 --quiet --screenshot '%s'", shot);
  int rc = vx_test_headless_probe(args, &prefix, out, sizeof out);
  if (rc == 77) {
    printf("SKIP: no headless OpenGL here: neither EGL (device / surfaceless platform) nor xvfb-run gives a context "
           "(install libegl-mesa0 libgl1-mesa-dri, or xvfb xauth):\n%s", out);
    return 77;
  }
  if (rc != 0) return EXIT_FAILURE;

  /* 1. three frames, three steps apart, PNGs and a screenshot of the last */
  snprintf(shot, sizeof shot, "%s/last.png", dir);
  snprintf(args, sizeof args, "--headless %s --frames 3 --steps-per-frame 3 --png-dir '%s' --screenshot '%s'", kScene, dir, shot);
  rc = run(args);
  printf("%s", out);
  if (rc != 0 || !strstr(out, "frame 3/3") || !strstr(out, "done: 3 frames")) FAIL("render run: exit %d", rc);
  const char *platform = strstr(out, "through ");
  if (platform) printf("  context: %.*s\n", (int)strcspn(platform, ";\n"), platform);
  image fr[3], last;
  memset(fr, 0, sizeof fr);
  memset(&last, 0, sizeof last);
  int loaded = 1;
  for (int f = 0; f < 3; ++f) {
    snprintf(path, sizeof path, "%s/frame_%05d.png", dir, f);
    if (load(path, &fr[f])) loaded = 0;
  }
  if (load(shot, &last)) loaded = 0;
  if (loaded) {
    for (int f = 0; f < 3; ++f) {
      if (fr[f].w != 480 || fr[f].h != 270) FAIL("frame %d is %dx%d, expected 480x270", f, fr[f].w, fr[f].h);
      long lit = 0;
      for (int y = 0; y < fr[f].h; ++y)
        for (int x = 0; x < fr[f].w; ++x) lit += lum(&fr[f], x, y) > 25.0;
      printf("  frame %d: %ld of %d pixels lit\n", f, lit, fr[f].w * fr[f].h);
      if (lit < fr[f].w * fr[f].h / 100) FAIL("frame %d is (nearly) empty: %ld lit pixels", f, lit);
    }
    double diff = 0;
    long changed = 0;
    for (int y = 0; y < 270; ++y)
      for (int x = 0; x < 480; ++x) {
        double d = fabs(lum(&fr[0], x, y) - lum(&fr[2], x, y));
        diff += d;
        changed += d > 8.0;
      }
    diff /= 480.0 * 270.0;
    printf("  frame 0 -> 2: mean |change| %.2f levels, %ld pixels changed by > 8\n", diff, changed);
    if (diff < 0.2 || changed < 480 * 270 / 200) FAIL("frames do not change (mean %.3f, %ld pixels)", diff, changed);
    if (memcmp(last.rgb, fr[2].rgb, 3 * 480 * 270)) FAIL("--screenshot differs from the last frame");
  }

  /* 2. the opacity pass brightens dense regions (frame 0 of the same state, pass on and off) */
  image on, off;
  memset(&on, 0, sizeof on);
  memset(&off, 0, sizeof off);
  char on_path[1200], off_path[1200];
  snprintf(on_path, sizeof on_path, "%s/on.png", dir);
  snprintf(off_path, sizeof off_path, "%s/off.png", dir);
  snprintf(args, sizeof args, "--headless %s --frames 1 --quiet --screenshot '%s'", kScene, on_path);
  if (run(args) != 0) FAIL("opacity-on run: %s", out);
  snprintf(args, sizeof args, "--headless %s --frames 1 --quiet --no-opacity --screenshot '%s'", kScene, off_path);
  if (run(args) != 0) FAIL("opacity-off run: %s", out);
  if (!load(on_path, &on) && !load(off_path, &off)) {
    /* densest region: the 15x15 block brightest with plain additive points (all 8192 tracers drawn,
     * so their brightness follows the density); sparse: the dimmest block that is still lit */
    const int b = 15, nbx = 480 / b, nby = 270 / b;
    int dx = 0, dy = 0, sx = -1, sy = -1;
    double dmax = -1, smin = 1e9;
    for (int by = 0; by < nby; ++by)
      for (int bx = 0; bx < nbx; ++bx) {
        double m = block_mean(&off, bx, by, b);
        if (m > dmax) { dmax = m; dx = bx; dy = by; }
        if (m > 25.0 && m < smin) { smin = m; sx = bx; sy = by; }
      }
    double don = block_mean(&on, dx, dy, b), doff = dmax;
    printf("  densest block (%d,%d): mean luminance %.1f with the opacity pass, %.1f without (x%.2f)\n", dx * b, dy * b,
           don, doff, don / doff);
    if (!(don > 1.15 * doff)) FAIL("the opacity pass does not brighten the densest region (%.1f vs %.1f)", don, doff);
    if (sx >= 0) {
      double son = block_mean(&on, sx, sy, b);
      printf("  sparse block (%d,%d): %.1f with, %.1f without (x%.2f)\n", sx * b, sy * b, son, smin, son / smin);
      if (!(don / doff > son / smin)) FAIL("dense regions are not brightened more than sparse ones");
    } else {
      FAIL("no sparse lit block found");
    }
  }

  /* 3. the vorticity surface alone (--iso --iso-only): the rings' cores drawn in the surface's warm colour,
   * and none of the dye (ring 1's is blue, the surface has none) */
  image iso;
  memset(&iso, 0, sizeof iso);
  char iso_path[1200];
  snprintf(iso_path, sizeof iso_path, "%s/iso.png", dir);
  snprintf(args, sizeof args, "--headless %s --frames 1 --quiet --iso 0.3 --iso-only --screenshot '%s'", kScene, iso_path);
  if (run(args) != 0) FAIL("surface run: %s", out);
  if (!load(iso_path, &iso)) {
    long warm = 0, blue[2] = {0, 0};
    for (size_t k = 0; k < (size_t)iso.w * iso.h; ++k) {
      const unsigned char *q = iso.rgb + 3 * k, *d = on.rgb ? on.rgb + 3 * k : q;
      warm += q[0] > q[1] + 20 && q[1] > q[2] + 10 && q[0] > 60;
      blue[0] += d[2] > d[0] + 30;
      blue[1] += q[2] > q[0] + 30;
    }
    printf("  the surface alone: %ld warm pixels, %ld blue (the dye's ring 1: %ld with the dye)\n", warm, blue[1], blue[0]);
    if (warm < iso.w * iso.h / 100) FAIL("the vorticity surface is (nearly) absent: %ld warm pixels", warm);
    if (blue[1] > blue[0] / 50 || blue[0] < 100) FAIL("the dye is drawn with --iso-only (%ld blue pixels, %ld with the dye)", blue[1], blue[0]);
  }
  free(iso.rgb);
  remove(iso_path);

  for (int f = 0; f < 3; ++f) {
    free(fr[f].rgb);
    snprintf(path, sizeof path, "%s/frame_%05d.png", dir, f);
    remove(path);
  }
  free(last.rgb);
  free(on.rgb);
  free(off.rgb);
  remove(shot);
  remove(on_path);
  remove(off_path);
  snprintf(path, sizeof path, "%s/probe.png", dir);
  remove(path);
  rmdir(dir);
  return vx_test_end("headless rendering checks passed");
}
#endif /* VX_RENDER_OFF */
