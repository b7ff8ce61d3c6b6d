/* test_render_colour.c — tracers coloured by the ring they were seeded around are told apart in a
 * rendered frame. `vortexfmm --headless` renders a two-ring scene (written here:
 * coaxial rings whose axis is the home view's screen-right direction, render/camera.c, so the
 * camera, centred between them, sees them side by side with the plane between them on the image's
 * middle column) through EGL on the CPU backend. Pixels left of the middle show ring 0's tracers,
 * right of it ring 1's. Checked: with --colour ring (and by default: the scene has two rings) the
 * hues of the two sides fall into two clusters, each within a narrow arc, the arcs far apart;
 * with --colour plain they do not (the check can fail); with --colour height the two rings sit at
 * different ends of the map; speed and vorticity render. Skipped (77) only when EGL gives no
 * context (render/headless.c's exit 1 and line), as test_render_headless does.
 * Run: ctest -R render_colour */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_image.h"
#include "test_run.h"

static char out[65536];
static const int W = 480, H = 270;
#define MARGIN 12 /* pixels either side of the middle column left out: a tracer's sprite may reach across */

/* Screen right of the home view is (-0.65, 0, 1) normalised (render/camera.c: eye along
 * (-1, 0.3, -0.65)); the rings sit at the middle (0.5, 0.5, 0.5) -/+ 0.15 along it. */
static const char *kScene =
    "name = side_pair\nkernel = gauss\nsigma = 0.03\ndt = 0.002\nintegrator = euler\nseed = 3\n"
    "[ring]\ncirculation = 1.0\nradius = 0.25\ncore = 0.03\nn_around = 64\nlayers = 0\n"
    "centre = 0.58173 0.5 0.37425\naxis = -0.54490 0 0.83832\ntracers = 4096\ntracer_spread = 0.04\n"
    "[ring]\ncirculation = 1.0\nradius = 0.25\ncore = 0.03\nn_around = 64\nlayers = 0\n"
    "centre = 0.41827 0.5 0.62575\naxis = -0.54490 0 0.83832\ntracers = 4096\ntracer_spread = 0.04\n";

static int run(const char *args) { return vx_test_run_program("", args, out, sizeof out); }

typedef struct {
  long n;
  double mean;   /* circular mean hue */
  double p95;    /* 95th percentile of the distance from it */
} cluster;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The coloured pixels of one side of the image (left: x < W/2 - MARGIN, else x > W/2 + MARGIN). */
static cluster side_hues(const unsigned char *rgb, int left) {
  cluster c = {0, 0.0, 0.0};
  double *h = malloc(sizeof(double) * W * H), sx = 0.0, sy = 0.0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      if (left ? x >= W / 2 - MARGIN : x <= W / 2 + MARGIN) continue;
      double v = vx_test_hue(rgb + 3 * ((size_t)y * W + x));
      if (v < 0.0) continue;
      h[c.n++] = v;
      sx += cos(v * 3.14159265358979323846 / 180.0);
      sy += sin(v * 3.14159265358979323846 / 180.0);
    }
  if (c.n > 0) {
    c.mean = fmod(atan2(sy, sx) * 180.0 / 3.14159265358979323846 + 360.0, 360.0);
    for (long i = 0; i < c.n; ++i) h[i] = vx_test_hue_dist(h[i], c.mean);
    qsort(h, (size_t)c.n, sizeof(double), cmp_double);
    c.p95 = h[(long)(0.95 * (double)(c.n - 1))];
  }
  free(h);
  return c;
}

/* Render the scene with extra arguments into path; the pixels, or NULL (a failure counted). */
static unsigned char *render(const char *dir, const char *scene, const char *extra, const char *name) {
  char args[4096], path[1200];
  snprintf(path, sizeof path, "%s/%s.png", dir, name);
  snprintf(args, sizeof args, "--headless --scene '%s' --backend cpu --size %dx%d --frames 1 --quiet %s --screenshot '%s'",
           scene, W, H, extra, path);
  int rc = run(args);
  if (rc != 0) { FAIL("%s: exit %d:\n%s", name, rc, out); return NULL; }
  char why[512];
  unsigned char *rgb = vx_test_png_take(path, W, H, why, sizeof why);
  if (!rgb) FAIL("%s: %s", name, why);
  return rgb;
}

/* Both sides' hue clusters; 1 when they are separated: the means at least 90 degrees apart and each
 * side's 95 % arc narrower than half that distance (so the arcs do not meet). */
static int separated(const char *name, const unsigned char *rgb, cluster *l, cluster *r) {
  *l = side_hues(rgb, 1);
  *r = side_hues(rgb, 0);
  double d = vx_test_hue_dist(l->mean, r->mean);
  printf("  %-8s left: %5ld px, hue %5.1f +- %4.1f (95%%); right: %5ld px, hue %5.1f +- %4.1f; means %5.1f apart\n", name,
         l->n, l->mean, l->p95, r->n, r->mean, r->p95, d);
  return l->n >= 300 && r->n >= 300 && d >= 90.0 && l->p95 < 0.5 * d && r->p95 < 0.5 * d;
}

int main(void) {
  char dir[] = "/tmp/vx_render_colour_XXXXXX";
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  char scene[1200];
  snprintf(scene, sizeof scene, "%s/side_pair.scene", dir);
  FILE *f = fopen(scene, "w");
  if (!f || fputs(kScene, f) < 0 || fclose(f)) { printf("FAIL: cannot write %s\n", scene); return EXIT_FAILURE; }

  char probe[1400], args[4096];
  snprintf(probe, sizeof probe, "%s/probe.png", dir);
  snprintf(args, sizeof args, "--headless --scene '%s' --backend cpu --size 64x64 --frames 1 --quiet --screenshot '%s'",
           scene, probe);
  int rc = run(args);
  remove(probe);
  if (vx_test_no_egl(rc, out)) {
    remove(scene);
    rmdir(dir);
    printf("SKIP: EGL gives no OpenGL context here (install libegl-mesa0 libgl1-mesa-dri):\n%s", out);
    return 77;
  }
  if (rc != 0) { printf("FAIL: the probe failed (exit %d):\n%s", rc, out); return EXIT_FAILURE; }

  cluster l, r;
  unsigned char *ring = render(dir, scene, "--colour ring", "ring");
  unsigned char *dflt = render(dir, scene, "", "default");
  unsigned char *plain = render(dir, scene, "--colour plain", "plain");
  unsigned char *height = render(dir, scene, "--colour height", "height");
  /* measured (Mesa llvmpipe): ring 0 hue 22.8 +- 3.2 (95 %), ring 1 214.4 +- 2.4, 168 degrees apart;
   * plain: both 221.5, 0.2 apart; height: 194 and 37, 157 apart */
  if (ring && !separated("ring", ring, &l, &r)) FAIL("--colour ring: the two rings' hues are not two separated clusters");
  if (ring && !(vx_test_hue_dist(l.mean, r.mean) >= 120.0 && l.p95 < 12.0 && r.p95 < 12.0))
    FAIL("--colour ring: clusters too close or too wide (%.1f apart, +- %.1f, +- %.1f)", vx_test_hue_dist(l.mean, r.mean), l.p95, r.p95);
  if (ring && !(vx_test_hue_dist(l.mean, 25.0) < 20.0 && vx_test_hue_dist(r.mean, 215.0) < 20.0))
    FAIL("--colour ring: ring 0 is not orange (hue ~25) and ring 1 not blue (~215): %.1f, %.1f", l.mean, r.mean);
  if (ring && dflt && memcmp(ring, dflt, 3 * (size_t)W * H)) FAIL("a two-ring scene is not coloured by ring by default");
  if (plain && separated("plain", plain, &l, &r)) FAIL("--colour plain: separated hues (the check cannot tell colours apart)");
  if (height) {
    separated("height", height, &l, &r);
    if (!(vx_test_hue_dist(l.mean, r.mean) >= 60.0)) FAIL("--colour height: the rings' hues are only %.1f degrees apart", vx_test_hue_dist(l.mean, r.mean));
  }
  const char *others[] = {"speed", "vorticity"};
  for (int i = 0; i < 2; ++i) {
    char extra[64];
    snprintf(extra, sizeof extra, "--colour %s", others[i]);
    unsigned char *im = render(dir, scene, extra, others[i]);
    if (!im) continue;
    separated(others[i], im, &l, &r);
    if (l.n < 300 || r.n < 300) FAIL("--colour %s: few coloured pixels (%ld, %ld)", others[i], l.n, r.n);
    free(im);
  }
  if (run("--headless --scene merger --frames 1 --colour rainbow") != 2 || !strstr(out, "bad value for --colour"))
    FAIL("--colour rainbow is not refused with exit 2 and a message:\n%s", out);
  free(ring);
  free(dflt);
  free(plain);
  free(height);
  remove(scene);
  rmdir(dir);
  return vx_test_end("tracer colour checks passed");
}
#endif /* VX_RENDER_OFF */
