/* test_render_camera.c — the orbit camera (render/camera.c): the home view frames its sphere with the
 * target at the screen centre; an arcball drag and the drag back return to the same view and keep
 * the distance; a pan moves the scene with the mouse (the old target lands under the cursor); zoom
 * scales the distance; the matrices and the opacity's ray parameters agree on where a point is.
 * Tolerances a small factor above the values these checks give (beside them): the
 * matrices are float, the camera state double. No GL needed. Run: ./build/tests/test_render_camera */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opacity.h"
#include "render.h"

/* NDC x, y of world point p. */
static void project(const float vp[16], const double p[3], double ndc[2]) {
  double c[4];
  for (int i = 0; i < 4; ++i) c[i] = vp[i] * p[0] + vp[4 + i] * p[1] + vp[8 + i] * p[2] + vp[12 + i];
  ndc[0] = c[0] / c[3];
  ndc[1] = c[1] / c[3];
}

/* rd_camera_look_at (a scene's camera_position / camera_target): the basis puts the eye and the
 * target where given, the target at the screen centre; the leapfrog's side view (from -x) has z to
 * the right and y up; a view straight down y still has a basis; eye == target is refused with the
 * camera unchanged; the look-at view is the home that reset returns to. */
static void check_look_at(int w, int h) {
  rd_camera cam;
  const double c0[3] = {0.5, 0.5, 0.5};
  rd_camera_init(&cam, c0, 0.4);
  const double eye0[3] = {-1.0, 0.5, 0.425}, tgt[3] = {0.5, 0.5, 0.425};
  if (rd_camera_look_at(&cam, eye0, tgt)) { FAIL("look_at refused a valid view"); return; }
  double eye[3], right[3], up[3], fwd[3], e = 0.0, ndc[2];
  float view[16], proj[16], vp[16];
  rd_camera_basis(&cam, eye, right, up, fwd);
  for (int i = 0; i < 3; ++i) e = fmax(e, fmax(fabs(eye[i] - eye0[i]), fabs(cam.target[i] - tgt[i])));
  rd_camera_matrices(&cam, (double)w / h, view, proj, vp);
  project(vp, tgt, ndc);
  printf("  look_at from (-1, 0.5, 0.425): eye and target off by %.1e, right (%.3f %.3f %.3f), up.y %.3f, fwd.x %.3f\n", e,
         right[0], right[1], right[2], up[1], fwd[0]);
  if (e > 1e-15) FAIL("look_at: eye or target off by %.3e", e);                 /* measured 3.3e-16 */
  if (fabs(ndc[0]) > 4e-8 || fabs(ndc[1]) > 4e-8) FAIL("look_at: target not at the screen centre");
  if (!(right[2] > 1 - 1e-12 && up[1] > 1 - 1e-12 && fwd[0] > 1 - 1e-12))     /* measured exactly 1 */
    FAIL("look_at side view: expected right = +z, up = +y, forward = +x");
  rd_camera_orbit(&cam, 100, 100, 300, 200, w, h);
  rd_camera_zoom(&cam, 4.0);
  rd_camera_reset(&cam);
  rd_camera_basis(&cam, eye, right, up, fwd);
  e = 0.0;
  for (int i = 0; i < 3; ++i) e = fmax(e, fabs(eye[i] - eye0[i]));
  if (e > 1e-15) FAIL("reset does not return to the look_at view (eye off by %.3e)", e);
  const double above[3] = {0.5, 3.0, 0.5};
  if (rd_camera_look_at(&cam, above, c0)) FAIL("look_at refused a view straight down");
  rd_camera_basis(&cam, eye, right, up, fwd);
  double n = sqrt(right[0] * right[0] + right[1] * right[1] + right[2] * right[2]);
  if (!(fabs(n - 1.0) < 1e-12) || !(fwd[1] < -1 + 1e-12)) FAIL("view straight down: no orthonormal basis (|right| %.3f)", n);
  rd_camera before = cam;
  if (rd_camera_look_at(&cam, c0, c0) == 0 || memcmp(&before, &cam, sizeof cam)) FAIL("look_at accepted eye == target");
}

int main(void) {
  const int w = 800, h = 500;
  const double centre[3] = {0.5, 0.5, 0.42}, radius = 0.4;
  rd_camera cam;
  rd_camera_init(&cam, centre, radius);
  float view[16], proj[16], vp[16];
  rd_camera_matrices(&cam, (double)w / h, view, proj, vp);
  double ndc[2], eye[3], right[3], up[3], fwd[3];
  project(vp, centre, ndc);
  rd_camera_basis(&cam, eye, right, up, fwd);
  double d = sqrt((eye[0] - centre[0]) * (eye[0] - centre[0]) + (eye[1] - centre[1]) * (eye[1] - centre[1]) +
                  (eye[2] - centre[2]) * (eye[2] - centre[2]));
  printf("  home: target at NDC (%.2e, %.2e), eye %.4f from it (dist %.4f, difference %.1e), right.z %.3f\n", ndc[0], ndc[1], d,
         cam.dist, fabs(d - cam.dist), right[2]);
  if (fabs(ndc[0]) > 4e-8 || fabs(ndc[1]) > 4e-8) FAIL("target not at the screen centre"); /* measured 7.8e-9 */
  if (fabs(d - cam.dist) > 1e-15) FAIL("eye not at the orbit distance");                    /* measured 2.2e-16 */
  if (!(right[2] > 0.5)) FAIL("home view: world z should run left to right (right.z = %.3f)", right[2]);
  /* the sphere fits: its top and bottom points project inside the screen */
  double top[3] = {centre[0] + radius * up[0], centre[1] + radius * up[1], centre[2] + radius * up[2]};
  project(vp, top, ndc);
  if (!(ndc[1] > 0.3 && ndc[1] < 1.0)) FAIL("home view does not frame the sphere (top at NDC y %.3f)", ndc[1]);

  /* arcball: there and back */
  double rot0[4];
  memcpy(rot0, cam.rot, sizeof rot0);
  rd_camera_orbit(&cam, 400, 250, 520, 180, w, h);
  double moved = fabs(cam.rot[0] - rot0[0]) + fabs(cam.rot[1] - rot0[1]) + fabs(cam.rot[2] - rot0[2]) + fabs(cam.rot[3] - rot0[3]);
  rd_camera_orbit(&cam, 520, 180, 400, 250, w, h);
  double back = 0.0, n = 0.0;
  for (int i = 0; i < 4; ++i) { back += fabs(cam.rot[i] - rot0[i]); n += cam.rot[i] * cam.rot[i]; }
  printf("  arcball: drag moved the rotation by %.3f, the drag back leaves %.1e; |q| - 1 = %.1e\n", moved, back, sqrt(n) - 1.0);
  if (moved < 0.5) FAIL("the drag did not rotate");                       /* measured 0.974 */
  if (back > 5e-16) FAIL("dragging back does not restore the view");     /* measured 9.0e-17 */
  if (fabs(sqrt(n) - 1.0) > 1e-15) FAIL("rotation not unit");             /* measured 0: a few ulps */

  /* pan: the old target follows the mouse */
  rd_camera_orbit(&cam, 100, 100, 180, 140, w, h);
  double old[3];
  memcpy(old, cam.target, sizeof old);
  rd_camera_pan(&cam, 40, -25, h);
  rd_camera_matrices(&cam, (double)w / h, view, proj, vp);
  project(vp, old, ndc);
  double px = (ndc[0] + 1) * 0.5 * w - 0.5 * w, py = (1 - ndc[1]) * 0.5 * h - 0.5 * h;
  printf("  pan by (40, -25) px: the old target is now at (%.6f, %.6f) px from the centre\n", px, py);
  /* measured 1.3e-5 px (the float matrices) */
  if (fabs(px - 40) > 6e-5 || fabs(py + 25) > 6e-5) FAIL("pan does not move the scene with the mouse");

  /* zoom */
  double d0 = cam.dist;
  rd_camera_zoom(&cam, 3.0);
  if (fabs(cam.dist - d0 * exp(-0.3)) > 1e-12) FAIL("zoom: distance %.6f, expected %.6f", cam.dist, d0 * exp(-0.3));
  rd_camera_reset(&cam);
  if (fabs(cam.dist - cam.home_dist) > 0 || memcmp(cam.rot, cam.home_rot, sizeof cam.rot)) FAIL("reset does not restore home");

  /* the opacity's rays and the matrices agree: the ray through a pixel passes where that pixel's
   * point projects */
  rd_camera_orbit(&cam, 300, 200, 350, 260, w, h);
  rd_camera_matrices(&cam, (double)w / h, view, proj, vp);
  rd_hist hh;
  memset(&hh, 0, sizeof hh);
  hh.levels = 3;
  hh.side = 1.0;
  rd_ray_params p;
  rd_ray_params_make(&p, &cam, w, h, &hh, 1, 8);
  double worst = 0.0;
  const int pix[3][2] = {{0, 0}, {400, 250}, {731, 77}};
  for (int k = 0; k < 3; ++k) {
    double sx = 2.0 * (pix[k][0] + 0.5) / w - 1.0, sy = 2.0 * (pix[k][1] + 0.5) / h - 1.0, q[3];
    for (int i = 0; i < 3; ++i) q[i] = p.eye[i] + 0.7 * (p.fwd[i] + sx * p.right[i] + sy * p.up[i]);
    project(vp, q, ndc);
    double e = fabs(ndc[0] - sx) + fabs(ndc[1] - sy);
    if (e > worst) worst = e;
  }
  printf("  rays vs matrices: max NDC mismatch %.2e\n", worst);
  if (worst > 5e-7) /* measured 1.0e-7: the float matrices' rounding */ FAIL("ray parameters disagree with the view-projection matrix (%.3e)", worst);

  check_look_at(w, h);

  return vx_test_end("camera checks passed");
}
#endif /* VX_RENDER_OFF */
