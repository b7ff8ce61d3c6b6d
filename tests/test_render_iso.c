/* test_render_iso.c — the renderer's isosurface pass (render_iso.c) in a headless EGL context (Mesa
 * without a GPU), on a field whose surface is known: a Gaussian bump whose level set at 0.5 of its
 * maximum is a sphere of radius r = s·sqrt(2 ln 2) about the cube's centre, seen by the camera
 * framing it:
 *   1. the surface is drawn where the sphere projects: along the image's middle row the lit span
 *      equals the projected diameter to within two pixels, the image's corners stay background, and
 *      the lit centre has the surface's hue (its colour's order of channels);
 *   2. opacity 0.5 covers half of what lies behind: the centre's red channel halfway between the
 *      background's and the opaque surface's;
 *   3. the stats say what was drawn: triangles and the host path; none with the surface off or
 *      with a level above the field's maximum;
 *   4. the dye hidden (show_tracers 0) is not drawn: a ring of tracers away from the sphere leaves
 *      its pixels at the background.
 * Skipped (77) when EGL gives no context. Run: ctest -R render_iso */
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

enum { W = 320, H = 240, N = 48 };
static const double kS = 0.12; /* the bump's width: the level 0.5 sphere has r = 0.141 */

/* The bump exp(-|x - c|² / (2 s²)) on N³ nodes over the unit cube, c its centre. */
static float *bump(void) {
  float *f = malloc(sizeof(float) * N * N * N);
  if (!f) return NULL;
  for (int k = 0; k < N; ++k)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) {
        double x = (double)i / (N - 1) - 0.5, y = (double)j / (N - 1) - 0.5, z = (double)k / (N - 1) - 0.5;
        f[((size_t)k * N + j) * N + i] = (float)exp(-(x * x + y * y + z * z) / (2 * kS * kS));
      }
  return f;
}

/* Draw one frame and read it back (rows top first). 0, or -1 (FAIL said why). */
static int frame(rd_renderer *r, const rd_style *st, const rd_camera *cam, unsigned fbo, unsigned char *rgb) {
  char err[512];
  if (rd_draw(r, cam, st, fbo, W, H, 1.0f, err, sizeof err) || rd_read_pixels(fbo, W, H, rgb, err, sizeof err)) {
    FAIL("%s", err);
    return -1;
  }
  return 0;
}

static const unsigned char *px(const unsigned char *rgb, int x, int y) { return rgb + 3 * ((size_t)y * W + x); }
static int is_bg(const unsigned char *p, const unsigned char *bg) {
  return abs(p[0] - bg[0]) <= 2 && abs(p[1] - bg[1]) <= 2 && abs(p[2] - bg[2]) <= 2;
}

/* The sphere's projected diameter in pixels along the middle row: the centre and a point r along
 * the camera's right axis through the view-projection matrix. */
static double projected_diameter(const rd_camera *cam, double rad) {
  float view[16], proj[16], vp[16];
  rd_camera_matrices(cam, (double)W / H, view, proj, vp);
  double eye[3], right[3], up[3], fwd[3], xs[2];
  rd_camera_basis(cam, eye, right, up, fwd);
  for (int s = 0; s < 2; ++s) {
    double p[3] = {0.5 + s * rad * right[0], 0.5 + s * rad * right[1], 0.5 + s * rad * right[2]}, c[4];
    for (int i = 0; i < 4; ++i) c[i] = vp[i] * p[0] + vp[4 + i] * p[1] + vp[8 + i] * p[2] + vp[12 + i];
    xs[s] = (c[0] / c[3] * 0.5 + 0.5) * W;
  }
  /* the silhouette of a sphere seen in perspective is a little wider than its equator */
  double d = sqrt((eye[0] - 0.5) * (eye[0] - 0.5) + (eye[1] - 0.5) * (eye[1] - 0.5) + (eye[2] - 0.5) * (eye[2] - 0.5));
  return 2.0 * fabs(xs[1] - xs[0]) / sqrt(1.0 - rad * rad / (d * d));
}

/* Checks 1–3 on the bump. */
static void check_surface(rd_renderer *r, const rd_camera *cam, unsigned fbo, unsigned char *rgb) {
  rd_style st = rd_style_default();
  st.show_cube = 0;
  st.show_iso = 1;
  st.iso_level = 0.5f;
  st.iso_opacity = 1.0f;
  unsigned char bg[3] = {(unsigned char)lrintf(255 * st.bg_rgb[0]), (unsigned char)lrintf(255 * st.bg_rgb[1]),
                         (unsigned char)lrintf(255 * st.bg_rgb[2])};
  if (frame(r, &st, cam, fbo, rgb)) return;
  const rd_stats *rs = rd_get_stats(r);
  if (rs->n_iso <= 0 || rs->iso_path != RD_PATH_HOST) FAIL("surface drawn: %ld triangles by %s", rs->n_iso, rd_path_name(rs->iso_path));
  int first = -1, last = -1, y = H / 2;
  for (int x = 0; x < W; ++x)
    if (!is_bg(px(rgb, x, y), bg)) last = x, first = first < 0 ? x : first;
  double want = projected_diameter(cam, kS * sqrt(2.0 * log(2.0))), got = last - first + 1;
  printf("  lit span %.0f px, the sphere's projected diameter %.1f px; %ld triangles\n", got, want, rs->n_iso);
  if (first < 0 || fabs(got - want) > 2.0) FAIL("lit span %.0f px, want %.1f", got, want);
  const unsigned char *c = px(rgb, W / 2, H / 2);
  if (!(c[0] > c[1] && c[1] > c[2] && c[0] > 80)) FAIL("centre %d %d %d: not the surface's colour", c[0], c[1], c[2]);
  if (!is_bg(px(rgb, 2, 2), bg) || !is_bg(px(rgb, W - 3, H - 3), bg)) FAIL("corners are not the background");
  int opaque = c[0];
  st.iso_opacity = 0.5f;
  if (frame(r, &st, cam, fbo, rgb)) return;
  int half = px(rgb, W / 2, H / 2)[0];
  printf("  centre red: opaque %d, at opacity 0.5 %d, background %d\n", opaque, half, bg[0]);
  if (abs(2 * half - (opaque + bg[0])) > 3) FAIL("opacity 0.5: red %d, want about %d", half, (opaque + bg[0]) / 2);
  st.iso_level = 1.5f; /* above the maximum: no surface */
  if (frame(r, &st, cam, fbo, rgb)) return;
  if (rd_get_stats(r)->n_iso != 0 || !is_bg(px(rgb, W / 2, H / 2), bg)) FAIL("a level above the maximum drew something");
  st.iso_level = 0.5f;
  st.show_iso = 0;
  if (frame(r, &st, cam, fbo, rgb)) return;
  if (rd_get_stats(r)->n_iso != 0 || !is_bg(px(rgb, W / 2, H / 2), bg)) FAIL("the surface turned off still drew");
}

/* Check 4: a ring of tracers in the plane z = 0.5, drawn, then hidden. */
static void check_dye_hidden(rd_renderer *r, const rd_camera *cam, unsigned fbo, unsigned char *rgb) {
  enum { NT = 4096 };
  static double pos[3 * NT];
  char err[512];
  for (int i = 0; i < NT; ++i) {
    double t = 6.283185307179586 * i / NT;
    pos[3 * i] = 0.5 + 0.35 * cos(t), pos[3 * i + 1] = 0.5 + 0.35 * sin(t), pos[3 * i + 2] = 0.5;
  }
  rd_particles p;
  memset(&p, 0, sizeof p);
  p.pos = pos;
  p.n_tracer = NT;
  p.real = RD_F64;
  rd_style st = rd_style_default();
  st.show_cube = 0;
  st.fraction = 1.0f;
  if (rd_set_particles(r, &p, &st, err, sizeof err) || rd_build_hist(r, 5, err, sizeof err)) { FAIL("%s", err); return; }
  long lit[2] = {0, 0};
  for (int hide = 0; hide < 2; ++hide) {
    st.show_tracers = !hide;
    if (frame(r, &st, cam, fbo, rgb)) return;
    for (size_t k = 0; k < (size_t)W * H; ++k) lit[hide] += rgb[3 * k] + rgb[3 * k + 1] + rgb[3 * k + 2] > 60;
  }
  printf("  pixels lit by the dye: shown %ld, hidden %ld\n", lit[0], lit[1]);
  if (lit[0] < 500 || lit[1] != 0) FAIL("dye shown lights %ld pixels, hidden %ld (want many, then none)", lit[0], lit[1]);
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
  float *f = bump();
  unsigned char *rgb = malloc(3 * (size_t)W * H);
  if (!r || !f || !rgb) {
    printf("FAIL: %s\n", r ? "out of memory" : err);
    return EXIT_FAILURE;
  }
  rd_camera cam;
  const double centre[3] = {0.5, 0.5, 0.5};
  rd_camera_init(&cam, centre, 0.5);
  rd_field fld = {f, N, {0.0, 0.0, 0.0}, 1.0, 1.0f, 0};
  if (rd_set_field(r, &fld, err, sizeof err)) FAIL("%s", err);
  else check_surface(r, &cam, rd_headless_fbo(hl), rgb);
  check_dye_hidden(r, &cam, rd_headless_fbo(hl), rgb);
  rd_field bad = {f, 1, {0.0, 0.0, 0.0}, 1.0, 1.0f, 0};
  if (rd_set_field(r, &bad, err, sizeof err) == 0) FAIL("a field of 1 node a side was taken");
  rd_destroy(r);
  rd_headless_destroy(hl);
  free(f);
  free(rgb);
  if (failures) return EXIT_FAILURE;
  printf("OK\n");
  return EXIT_SUCCESS;
}
#endif
