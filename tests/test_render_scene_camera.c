/* test_render_scene_camera.c — a scene's camera keys are honoured by the program (headless EGL
 * frames, CPU backend): one ring seen from camera_position -x (side-on) is a vertical band, from
 * -z (along its axis) a round ring; with camera_follow = on a target set off the ring is moved onto
 * it (the ring drawn at the image centre), with off it is not; the scenes are found by name through
 * --scene-dir. And the shipped leapfrog opens side-on: two bands, one per ring, with a gap between.
 * The values these checks give on Mesa llvmpipe stand beside each threshold. Skipped (77) only when EGL gives no
 * OpenGL context (the program's own answer). Run: ctest -R render_scene_camera */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_file.h"
#include "test_run.h"

static char out[65536];
static char dir[] = "/tmp/vx_scene_camera_XXXXXX";

/* Render one frame of scene (a name in dir, or a built-in) into dir/NAME.png; the exit code. */
static int render(const char *scene, const char *size, const char *extra, char *png, size_t pnglen) {
  char args[4096];
  snprintf(png, pnglen, "%s/%s.png", dir, scene);
  snprintf(args, sizeof args,
           "--headless --scene-dir '%s' --scene %s --backend cpu --size %s --frames 1 --no-cube --no-opacity --quiet %s "
           "--screenshot '%s'",
           dir, scene, size, extra, png);
  return vx_test_run_program("", args, out, sizeof out);
}

/* Centre and spread of an image's light above the background, in pixels; the light per column. */
typedef struct { double cx, cy, sx, sy; int w, h; } moments;
static int image_moments(const char *png, moments *m, double **cols) {
  unsigned char *rgb;
  char err[512];
  if (vx_png_read(png, &rgb, &m->w, &m->h, err, sizeof err)) { FAIL("%s", err); return -1; }
  double s = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
  if (cols) *cols = calloc((size_t)m->w, sizeof **cols);
  for (int y = 0; y < m->h; ++y)
    for (int x = 0; x < m->w; ++x) {
      const unsigned char *p = rgb + 3 * ((size_t)y * m->w + x);
      /* above the background's dark blue (luminance ~6) */
      double l = fmax(0.0, 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2] - 15.0);
      s += l, sx += l * x, sy += l * y, sxx += l * x * x, syy += l * y * y;
      if (cols && *cols) (*cols)[x] += l;
    }
  free(rgb);
  if (!(s > 0)) { FAIL("%s is black", png); return -1; }
  m->cx = sx / s, m->cy = sy / s;
  m->sx = sqrt(sxx / s - m->cx * m->cx), m->sy = sqrt(syy / s - m->cy * m->cy);
  return 0;
}

static int write_ring_scene(const char *name, const char *camera) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s.scene", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "name = %s\ndescription = one ring for the camera test\n%s\n[ring]\ncentre = 0.5 0.5 0.5\naxis = 0 0 1\n"
             "radius = 0.3\nn_around = 64\ntracers = 6000\ntracer_spread = 0.03\n", name, camera);
  return fclose(f);
}

/* The ring from the side, along its axis, and followed or not from a target set off it. */
static void check_ring_views(void) {
  if (write_ring_scene("side", "camera_position = -1 0.5 0.5\ncamera_target = 0.5 0.5 0.5") ||
      write_ring_scene("axial", "camera_position = 0.5 0.5 -1\ncamera_target = 0.5 0.5 0.5") ||
      write_ring_scene("follow", "camera_position = -1 0.5 0.75\ncamera_target = 0.5 0.5 0.75\ncamera_follow = on") ||
      write_ring_scene("nofollow", "camera_position = -1 0.5 0.75\ncamera_target = 0.5 0.5 0.75\ncamera_follow = off")) {
    FAIL("cannot write the scenes into %s", dir);
    return;
  }
  const char *names[4] = {"side", "axial", "follow", "nofollow"};
  moments m[4];
  char png[1200];
  for (int i = 0; i < 4; ++i) {
    int rc = render(names[i], "200x200", "", png, sizeof png);
    if (rc != 0) { FAIL("%s: exit %d:\n%s", names[i], rc, out); return; }
    if (image_moments(png, &m[i], NULL)) return;
    printf("  %-8s centre (%.1f, %.1f) px, spread %.1f x %.1f px\n", names[i], m[i].cx, m[i].cy, m[i].sx, m[i].sy);
  }
  /* side-on: a band (measured spread ratio 0.13); along the axis: a circle (measured 1.00) */
  if (!(m[0].sx < 0.3 * m[0].sy)) FAIL("side: not a side view (spread %.1f x %.1f px)", m[0].sx, m[0].sy);
  if (!(fabs(m[1].sx / m[1].sy - 1.0) < 0.1)) FAIL("axial: not a view along the axis (spread %.1f x %.1f px)", m[1].sx, m[1].sy);
  /* the target 0.25 off the ring along z (screen x): followed, the ring is centred (measured 0.6
   * px off); not followed, it sits left of centre (measured 49 px) */
  if (!(fabs(m[2].cx - 100.0) < 3.0)) FAIL("camera_follow = on: the ring is %.1f px off the centre", m[2].cx - 100.0);
  if (!(m[3].cx < 100.0 - 20.0)) FAIL("camera_follow = off: the ring should be left of centre (x %.1f px)", m[3].cx);
}

/* The shipped leapfrog, frame 0: side-on (tall, narrow), two bands with a dark gap between. */
static void check_leapfrog(void) {
  char png[1200];
  int rc = render("leapfrog", "480x270", "--tracers 20000", png, sizeof png);
  if (rc != 0) { FAIL("leapfrog: exit %d:\n%s", rc, out); return; }
  moments m;
  double *cols = NULL;
  if (image_moments(png, &m, &cols) || !cols) { free(cols); return; }
  /* the two bands: the brightest column on each side of the centre of brightness, and the darkest between */
  int c = (int)m.cx, l = 0, r = c;
  for (int x = 0; x < c; ++x) if (cols[x] > cols[l]) l = x;
  for (int x = c; x < m.w; ++x) if (cols[x] > cols[r]) r = x;
  int g = l;
  for (int x = l; x <= r; ++x) if (cols[x] < cols[g]) g = x;
  double dip = cols[g] / fmin(cols[l], cols[r]);
  printf("  leapfrog: spread %.1f x %.1f px; bands at x = %d and %d px, between them %.2f of the fainter\n", m.sx, m.sy, l, r, dip);
  /* measured: spread ratio 0.43 (an oblique view would show a round blob, one fuzzy torus);
   * bands 32 px apart with 0.56 of the fainter band's light between them */
  if (!(m.sx < 0.5 * m.sy)) FAIL("leapfrog does not open side-on (spread %.1f x %.1f px)", m.sx, m.sy);
  if (!(r - l > 20 && dip < 0.65)) FAIL("leapfrog: no two separate rings (bands %d px apart, gap %.2f)", r - l, dip);
  free(cols);
}

int main(void) {
  if (!mkdtemp(dir)) { printf("FAIL: cannot make a temporary directory\n"); return EXIT_FAILURE; }
  char png[1200];
  int rc = render("leapfrog", "64x64", "--tracers 64", png, sizeof png);
  if (vx_test_no_egl(rc, out)) {
    printf("SKIP: EGL gives no OpenGL context here:\n%s", out);
    return 77;
  }
  if (rc != 0) { printf("FAIL: the probe failed (exit %d):\n%s", rc, out); return EXIT_FAILURE; }
  check_ring_views();
  check_leapfrog();
  if (failures) { printf("%d check(s) failed (files kept in %s)\n", failures, dir); return EXIT_FAILURE; }
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) printf("  (could not remove %s)\n", dir);
  printf("scene camera checks passed\n");
  return EXIT_SUCCESS;
}
#endif /* VX_RENDER_OFF */
