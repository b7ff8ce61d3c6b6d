/* test_render_spread.c — pictures of a flow spread over processes (mpiexec -np R vortexfmm --headless --frames N;
 * render.h, rd_group; src/vortexfmm/app_spread.c): each process draws the tracers of its share that one
 * process would draw, coloured by their rings, the renderer sums the histogram's bins and the tracers'
 * images at rank 0, which alone writes the PNGs. Every frame of 2 and 3 processes equals one process's
 * within rounding where the flows are the same to round-off (direct sums in double), and differs in a
 * few pixels where the FMM's levels differ — leapfrog on the CPU backend, a drawn fraction below 1, ring
 * colours, a ring launched mid-run and migrations between the frames — and the overlays a process draws of its own share alone
 * (the HUD, the elements, the vorticity surface) are refused under mpiexec (exit 2, said once). Skips (77)
 * in a build without MPI or the renderer, and where only xvfb-run gives a context. */
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"
#include "test_image.h"
#include "test_run.h"

#if defined(VX_TEST_HAVE_MPI) && !defined(VX_RENDER_OFF)
static char out[65536];

/* The program under mpiexec with np processes; its exit code, its output into out. */
static int run_np(int np, const char *args) { return vx_test_run_np(np, args, out, sizeof out); }


enum { W = 240, H = 160, FRAMES = 8 };
static const char *kRun = "--headless --scene leapfrog --backend cpu --tracers 3000 --fraction 0.4 --frames 8 --steps-per-frame 5 "
                          "--size 240x160 --opacity-level 5 --launch-ring 16 --quiet";

/* The frames of np processes (np = 1: one process, without mpiexec) of the run with `extra` options into
 * dir/np/. 0, or -1 (FAIL said). */
static int frames(const char *dir, int np, const char *extra) {
  char args[2048];
  snprintf(args, sizeof args, "%s %s --png-dir '%s/%d'", kRun, extra, dir, np);
  const int rc = np == 1 ? vx_test_run_program("", args, out, sizeof out) : run_np(np, args);
  if (rc != 0) { FAIL("%d processes' frames: exit %d:\n%s", np, rc, out); return -1; }
  return 0;
}

/* Frame f of np processes against one process's: the largest channel difference and the pixels that
 * differ by more than 2 levels in any channel. -1 (FAIL said) when a frame cannot be read. */
static int compare(const char *dir, int np, int f, int *maxd, int *npx) {
  char a[1200], b[1200], why[256];
  snprintf(a, sizeof a, "%s/1/frame_%05d.png", dir, f);
  snprintf(b, sizeof b, "%s/%d/frame_%05d.png", dir, np, f);
  unsigned char *x = NULL, *y = vx_test_png_take(b, W, H, why, sizeof why);
  int w = 0, h = 0;
  if (y && (vx_png_read(a, &x, &w, &h, why, sizeof why) || w != W || h != H)) free(x), x = NULL;
  if (!x || !y) { FAIL("frame %d of %d processes: %s", f, np, why); free(x), free(y); return -1; }
  *maxd = *npx = 0;
  for (int p = 0; p < W * H; p++) {
    int d = 0;
    for (int c = 0; c < 3; c++) d = abs(x[3 * p + c] - y[3 * p + c]) > d ? abs(x[3 * p + c] - y[3 * p + c]) : d;
    *maxd = d > *maxd ? d : *maxd;
    *npx += d > 2;
  }
  free(x), free(y);
  return 0;
}

/* The run with `extra` on 1, 2 and 3 processes; every frame of 2 and 3 against one's: FAIL when a channel
 * differs by more than max_d, or more than max_px pixels by more than 2 levels. */
static void check(const char *dir, const char *what, const char *extra, int max_d, int max_px) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'/1 '%s'/2 '%s'/3", dir, dir, dir);
  if (system(cmd) != 0) printf("  (could not clear %s)\n", dir);
  if (frames(dir, 1, extra) || frames(dir, 2, extra) || frames(dir, 3, extra)) return;
  for (int np = 2; np <= 3; np++) {
    int worst = 0, px = 0;
    for (int f = 0; f < FRAMES; f++) {
      int m, n;
      if (compare(dir, np, f, &m, &n)) return;
      worst = m > worst ? m : worst, px = n > px ? n : px;
    }
    printf("  %s, %d processes against one, %d frames of %dx%d: largest channel difference %d, at most %d pixels differ by "
           "more than 2 levels\n", what, np, FRAMES, W, H, worst, px);
    if (worst > max_d || px > max_px) FAIL("%s: %d processes' pictures differ from one process's", what, np);
  }
}

int main(void) {
  char dir[] = "/tmp/vx_render_spread_XXXXXX", args[2048];
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  const char *prefix = "";
  int rc = vx_test_headless_probe("--headless --scene leapfrog --backend cpu --tracers 64 --size 64x64 --frames 1 --quiet",
                                  &prefix, out, sizeof out);
  if (rc == 77 || (rc == 0 && prefix[0])) {
    printf("SKIP: no EGL context here for processes under mpiexec:\n%s", out);
    return 77;
  }
  if (rc != 0) return EXIT_FAILURE;
  /* the same flow to round-off (direct sums in double): the pictures differ by the image sums' rounding */
  check(dir, "direct sums in double", "--direct --precision double", 2, 0);
  /* the FMM in float: the processes' octrees take other levels, the flows differ at the FMM's accuracy, a
   * few tracers' sprites cross a pixel's edge */
  check(dir, "the FMM in float", "", 64, 12);
  /* the overlays one process would draw of its own share only */
  const char *refused[] = {"--hud", "--elements", "--iso 0.3"};
  for (int i = 0; i < 3; i++) {
    snprintf(args, sizeof args, "--headless --scene leapfrog --backend cpu --tracers 64 --frames 1 --size 64x64 %s", refused[i]);
    rc = run_np(2, args);
    if (rc != 2 || vx_test_count(out, "is drawn by one process only") != 1) FAIL("%s under mpiexec: exit %d, said:\n%s", refused[i], rc, out);
  }
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) printf("  (could not remove %s)\n", dir);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
#else
int main(void) {
  printf("SKIP: a build without MPI or without the renderer\n");
  return 77;
}
#endif
