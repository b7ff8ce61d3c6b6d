/* camera.c — orbit camera (camera.h): quaternion arcball, pan, zoom and the GL matrices. */
#include "camera.h"

#include <math.h>
#include <string.h>

static void qmul(const double a[4], const double b[4], double out[4]) {
  double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(out, r, sizeof r);
}

static void qnormalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(n > 0.0)) { q[0] = 1.0; q[1] = q[2] = q[3] = 0.0; return; }
  for (int i = 0; i < 4; ++i) q[i] /= n;
}

/* Rotation matrix of a unit quaternion, row-major: v_view = R v_world. */
static void qmat(const double q[4], double R[3][3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0][0] = 1 - 2 * (y * y + z * z); R[0][1] = 2 * (x * y - w * z);     R[0][2] = 2 * (x * z + w * y);
  R[1][0] = 2 * (x * y + w * z);     R[1][1] = 1 - 2 * (x * x + z * z); R[1][2] = 2 * (y * z - w * x);
  R[2][0] = 2 * (x * z - w * y);     R[2][1] = 2 * (y * z + w * x);     R[2][2] = 1 - 2 * (x * x + y * y);
}

/* Quaternion of a rotation matrix (Shepperd's method, the largest-pivot branch for stability). */
static void mat_to_q(const double R[3][3], double q[4]) {
  double tr = R[0][0] + R[1][1] + R[2][2];
  if (tr > 0) {
    double s = 2.0 * sqrt(1.0 + tr);
    q[0] = 0.25 * s; q[1] = (R[2][1] - R[1][2]) / s; q[2] = (R[0][2] - R[2][0]) / s; q[3] = (R[1][0] - R[0][1]) / s;
  } else if (R[0][0] > R[1][1] && R[0][0] > R[2][2]) {
    double s = 2.0 * sqrt(1.0 + R[0][0] - R[1][1] - R[2][2]);
    q[0] = (R[2][1] - R[1][2]) / s; q[1] = 0.25 * s; q[2] = (R[0][1] + R[1][0]) / s; q[3] = (R[0][2] + R[2][0]) / s;
  } else if (R[1][1] > R[2][2]) {
    double s = 2.0 * sqrt(1.0 + R[1][1] - R[0][0] - R[2][2]);
    q[0] = (R[0][2] - R[2][0]) / s; q[1] = (R[0][1] + R[1][0]) / s; q[2] = 0.25 * s; q[3] = (R[1][2] + R[2][1]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + R[2][2] - R[0][0] - R[1][1]);
    q[0] = (R[1][0] - R[0][1]) / s; q[1] = (R[0][2] + R[2][0]) / s; q[2] = (R[1][2] + R[2][1]) / s; q[3] = 0.25 * s;
  }
  qnormalize(q);
}

static void cross(const double a[3], const double b[3], double c[3]) {
  double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(c, r, sizeof r);
}
static void normalize3(double v[3]) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > 0) for (int i = 0; i < 3; ++i) v[i] /= n;
}

/* The rotation of a view looking along -back (unit), the world's y up, or z when back is along y;
 * this view becomes the home. */
static void orient(rd_camera *c, const double back[3]) {
  double upw[3] = {0.0, 1.0, 0.0}, fwd[3], right[3], up[3];
  if (fabs(back[1]) > 0.999) { upw[1] = 0.0; upw[2] = 1.0; }
  for (int i = 0; i < 3; ++i) fwd[i] = -back[i];
  cross(fwd, upw, right);
  normalize3(right);
  cross(right, fwd, up);
  double R[3][3];
  for (int i = 0; i < 3; ++i) { R[0][i] = right[i]; R[1][i] = up[i]; R[2][i] = back[i]; }
  mat_to_q(R, c->rot);
  memcpy(c->home_target, c->target, sizeof c->target);
  c->home_dist = c->dist;
  memcpy(c->home_rot, c->rot, sizeof c->rot);
}

void rd_camera_init_axis(rd_camera *c, const double centre[3], double radius, const double axis[3]) {
  memset(c, 0, sizeof *c);
  c->fovy_deg = 40.0;
  if (!(radius > 0.0) || !isfinite(radius)) radius = 0.5;
  /* distance at which the sphere fills the height, with some margin */
  c->dist = 1.25 * radius / sin(0.5 * c->fovy_deg * VX_PI / 180.0);
  for (int i = 0; i < 3; ++i) c->target[i] = isfinite(centre[i]) ? centre[i] : 0.0;
  double n[3] = {axis[0], axis[1], axis[2]};
  if (!(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0.0) || !isfinite(n[0] + n[1] + n[2])) n[0] = n[1] = 0.0, n[2] = 1.0;
  normalize3(n);
  /* the side: towards -x and a little above, without its part along the axis */
  double side[3] = {-1.0, 0.3, 0.0};
  double k = side[0] * n[0] + side[1] * n[1] + side[2] * n[2];
  for (int i = 0; i < 3; ++i) side[i] -= k * n[i];
  if (side[0] * side[0] + side[1] * side[1] + side[2] * side[2] < 1e-6) side[0] = 0.0, side[1] = 1.0, side[2] = 0.0;
  normalize3(side);
  double sn = sqrt(1.0 - RD_CAMERA_AXIS_COS * RD_CAMERA_AXIS_COS), back[3];
  for (int i = 0; i < 3; ++i) back[i] = sn * side[i] - RD_CAMERA_AXIS_COS * n[i];
  normalize3(back);
  orient(c, back);
}

void rd_camera_init(rd_camera *c, const double centre[3], double radius) {
  const double z[3] = {0.0, 0.0, 1.0};
  rd_camera_init_axis(c, centre, radius, z);
}

int rd_camera_look_at(rd_camera *c, const double eye[3], const double target[3]) {
  double back[3], d = 0.0;
  for (int i = 0; i < 3; ++i) {
    back[i] = eye[i] - target[i];
    d += back[i] * back[i];
  }
  d = sqrt(d);
  if (!(d > 0.0) || !isfinite(d)) return -1;
  for (int i = 0; i < 3; ++i) {
    back[i] /= d;
    c->target[i] = target[i];
  }
  c->dist = d;
  orient(c, back);
  return 0;
}

void rd_camera_reset(rd_camera *c) {
  memcpy(c->target, c->home_target, sizeof c->target);
  c->dist = c->home_dist;
  memcpy(c->rot, c->home_rot, sizeof c->rot);
}

/* Shoemake's arcball: a pixel onto the unit sphere spanning the viewport's smaller side. */
static void arcball_point(double x, double y, int w, int h, double p[3]) {
  double s = (double)(w < h ? w : h);
  if (s < 1) s = 1;
  p[0] = (2.0 * x - w) / s;
  p[1] = (h - 2.0 * y) / s;
  double r2 = p[0] * p[0] + p[1] * p[1];
  if (r2 <= 1.0) p[2] = sqrt(1.0 - r2);
  else { double r = sqrt(r2); p[0] /= r; p[1] /= r; p[2] = 0.0; }
}

void rd_camera_orbit(rd_camera *c, double x0, double y0, double x1, double y1, int w, int h) {
  double a[3], b[3], ax[3];
  arcball_point(x0, y0, w, h, a);
  arcball_point(x1, y1, w, h, b);
  cross(a, b, ax);
  /* (a·b, a×b) turns by twice the angle between a and b: the scene follows the mouse */
  double qd[4] = {a[0] * b[0] + a[1] * b[1] + a[2] * b[2], ax[0], ax[1], ax[2]};
  qnormalize(qd);
  qmul(qd, c->rot, c->rot);
  qnormalize(c->rot);
}

void rd_camera_basis(const rd_camera *c, double eye[3], double right[3], double up[3], double fwd[3]) {
  double R[3][3];
  qmat(c->rot, R);
  for (int i = 0; i < 3; ++i) {
    right[i] = R[0][i];
    up[i] = R[1][i];
    fwd[i] = -R[2][i];
    eye[i] = c->target[i] + c->dist * R[2][i];
  }
}

void rd_camera_pan(rd_camera *c, double dx, double dy, int h) {
  double eye[3], right[3], up[3], fwd[3];
  rd_camera_basis(c, eye, right, up, fwd);
  double s = 2.0 * c->dist * tan(0.5 * c->fovy_deg * VX_PI / 180.0) / (h > 0 ? h : 1);
  for (int i = 0; i < 3; ++i) c->target[i] += s * (-dx * right[i] + dy * up[i]);
}

void rd_camera_zoom(rd_camera *c, double steps) {
  c->dist *= exp(-0.1 * steps);
  double lo = 1e-3 * c->home_dist, hi = 1e3 * c->home_dist;
  if (c->dist < lo) c->dist = lo;
  if (c->dist > hi) c->dist = hi;
}

void rd_camera_matrices(const rd_camera *c, double aspect, float view[16], float proj[16], float view_proj[16]) {
  double R[3][3], V[16], P[16];
  qmat(c->rot, R);
  memset(V, 0, sizeof V);
  for (int i = 0; i < 3; ++i) {
    double t = 0.0;
    for (int j = 0; j < 3; ++j) {
      V[j * 4 + i] = R[i][j]; /* column-major: element (row i, col j) at j*4+i */
      t -= R[i][j] * c->target[j];
    }
    V[12 + i] = t;
  }
  V[14] -= c->dist;
  V[15] = 1.0;
  double n = 0.01 * c->dist, f = 100.0 * c->dist;
  double ct = 1.0 / tan(0.5 * c->fovy_deg * VX_PI / 180.0);
  if (!(aspect > 0)) aspect = 1.0;
  memset(P, 0, sizeof P);
  P[0] = ct / aspect;
  P[5] = ct;
  P[10] = (f + n) / (n - f);
  P[11] = -1.0;
  P[14] = 2.0 * f * n / (n - f);
  for (int i = 0; i < 16; ++i) {
    view[i] = (float)V[i];
    proj[i] = (float)P[i];
  }
  for (int col = 0; col < 4; ++col)
    for (int row = 0; row < 4; ++row) {
      double s = 0.0;
      for (int k = 0; k < 4; ++k) s += P[k * 4 + row] * V[col * 4 + k];
      view_proj[col * 4 + row] = (float)s;
    }
}
