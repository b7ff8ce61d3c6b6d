/* test_render_readouts.c — what the renderer reports for the HUD (rd_stats, render.h) tells the
 * truth, in a headless EGL context (Mesa without a GPU):
 *   1. the opacity turned off and on again with nothing moved (O while paused) is drawn from its
 *      cache and reported as drawn (its path), not as off;
 *   2. B draws the histogram cells of the level asked when they are at most RD_BOXES_MAX, else
 *      those of the deepest coarser level that has no more, and reports that level and count.
 * Skipped (77) when EGL gives no context. Run: ctest -R render_readouts */
#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
#include <stdio.h>
int main(void) {
  printf("SKIP: this build has no renderer (-DVX_ENABLE_RENDER=OFF)\n");
  return 77;
}
#else
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

static int failures = 0;
#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); ++failures; } while (0)

enum { W = 320, H = 180 };

/* n points: evenly on a circle of radius 0.4 in the plane z = 0.5 (ring), or uniform in the unit
 * cube (fixed seed). */
static double *points(int n, int ring) {
  double *p = malloc(sizeof(double) * 3 * (size_t)n);
  if (!p) return NULL;
  srand(14);
  for (int i = 0; i < n; ++i) {
    double t = 6.283185307179586 * i / n;
    for (int k = 0; k < 3; ++k) p[3 * i + k] = (double)rand() / RAND_MAX;
    if (ring) p[3 * i] = 0.5 + 0.4 * cos(t), p[3 * i + 1] = 0.5 + 0.4 * sin(t), p[3 * i + 2] = 0.5;
  }
  return p;
}

/* Hand n points as tracers, bin them at level 6, draw once with st; 0 or -1 (FAIL said why). */
static int frame(rd_renderer *r, const double *pos, int n, const rd_style *st, const rd_camera *cam, unsigned fbo, int bin) {
  char err[512];
  rd_particles p;
  memset(&p, 0, sizeof p);
  p.pos = pos;
  p.n_tracer = n;
  p.real = RD_F64;
  if ((bin && (rd_set_particles(r, &p, st, err, sizeof err) || rd_build_hist(r, 6, err, sizeof err))) ||
      rd_draw(r, cam, st, fbo, W, H, 1.0f, err, sizeof err)) {
    FAIL("drawing: %s", err);
    return -1;
  }
  return 0;
}

/* 1: on, off, on again without a change: the third frame is cached and says by which path. */
static void opacity_toggle(rd_renderer *r, const rd_camera *cam, unsigned fbo) {
  double *pos = points(4096, 1);
  if (!pos) { FAIL("out of host memory"); return; }
  rd_style st = rd_style_default();
  st.opacity = 1;
  const rd_stats *s = rd_get_stats(r);
  if (frame(r, pos, 4096, &st, cam, fbo, 1) == 0) {
    rd_path first = s->opacity_path;
    st.opacity = 0;
    frame(r, pos, 4096, &st, cam, fbo, 0);
    rd_path off = s->opacity_path;
    st.opacity = 1;
    frame(r, pos, 4096, &st, cam, fbo, 0);
    printf("  opacity on: %s; off: %s; on again (paused): %s, %s\n", rd_path_name(first), rd_path_name(off),
           rd_path_name(s->opacity_path), s->opacity_fresh ? "recomputed" : "from the cache");
    if (first == RD_PATH_NONE) FAIL("the opacity was not drawn at all");
    if (off != RD_PATH_NONE) FAIL("the opacity off is reported as %s", rd_path_name(off));
    if (s->opacity_path != first) FAIL("on again: reported as %s, drawn by %s", rd_path_name(s->opacity_path), rd_path_name(first));
  }
  free(pos);
}

/* 2: a ring's cells at level 6 are few and drawn at 6; a cube filled uniformly has 8^4 = 4096 >
 * RD_BOXES_MAX cells at level 4, so level 3 (512) is drawn. */
static void boxes(rd_renderer *r, const rd_camera *cam, unsigned fbo) {
  for (int ring = 1; ring >= 0; --ring) {
    int n = ring ? 20000 : 400000;
    double *pos = points(n, ring);
    if (!pos) { FAIL("out of host memory"); return; }
    rd_style st = rd_style_default();
    st.opacity = 0;
    st.show_boxes = 1;
    st.boxes_level = 6;
    if (frame(r, pos, n, &st, cam, fbo, 1) == 0) {
      const rd_stats *s = rd_get_stats(r);
      printf("  %s, %d points, asked level 6: %d cells drawn at level %d\n", ring ? "ring" : "filled cube", n, s->n_boxes,
             s->boxes_level);
      if (s->n_boxes > RD_BOXES_MAX || s->n_boxes <= 0) FAIL("%d cells drawn (at most %d)", s->n_boxes, RD_BOXES_MAX);
      if (ring && s->boxes_level != 6) FAIL("the ring's cells drawn at level %d, not 6", s->boxes_level);
      if (!ring && (s->boxes_level != 3 || s->n_boxes != 512)) FAIL("the cube: level %d, %d cells (want 3, 512)", s->boxes_level, s->n_boxes);
    }
    free(pos);
  }
}

int main(void) {
  char err[512];
  rd_headless *hl = rd_headless_create(W, H, err, sizeof err);
  if (!hl) {
    printf("SKIP: no headless OpenGL context: %s\n", err);
    return 77;
  }
  printf("  context: %s\n", rd_headless_platform(hl));
  rd_renderer *r = rd_create(err, sizeof err);
  if (!r) {
    printf("FAIL: %s\n", err);
    rd_headless_destroy(hl);
    return EXIT_FAILURE;
  }
  rd_camera cam;
  double c[3] = {0.5, 0.5, 0.5};
  rd_camera_init(&cam, c, 0.6);
  opacity_toggle(r, &cam, rd_headless_fbo(hl));
  boxes(r, &cam, rd_headless_fbo(hl));
  rd_destroy(r);
  rd_headless_destroy(hl);
  if (failures) { printf("%d check(s) failed\n", failures); return EXIT_FAILURE; }
  printf("renderer readout checks passed\n");
  return EXIT_SUCCESS;
}
#endif /* VX_RENDER_OFF */
