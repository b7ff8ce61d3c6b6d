/* camera.h — the orbit camera of the renderer: a target point, a distance and a rotation
 * (unit quaternion, world to view), turned by an arcball (Shoemake's, mouse positions mapped onto
 * a sphere), panned in the view plane and zoomed along the view axis. Pure math in double, no GL:
 * the renderer and the tests call the same functions. */
#ifndef RD_CAMERA_H
#define RD_CAMERA_H

#include "hd.h"

VX_EXTERN_C_BEGIN

typedef struct {
  double target[3];   /* point looked at (the orbit centre) */
  double dist;        /* eye to target */
  double rot[4];      /* unit quaternion (w, x, y, z) rotating world axes into view axes */
  double fovy_deg;    /* vertical field of view */
  double home_target[3], home_dist, home_rot[4]; /* what rd_camera_reset returns to */
} rd_camera;

/* A camera framing a sphere (centre, radius), seen from the side and a little above, the world's
 * z axis pointing right (vortex rings that travel along z cross the screen). That is the home view. */
void rd_camera_init(rd_camera *c, const double centre[3], double radius);
/* The same three-quarter view about a direction of travel `axis` (unit): the eye RD_CAMERA_AXIS_COS
 * of the way behind, so rings travelling along it are ellipses of that aspect and cross the screen,
 * and the rest from the side (towards -x) and a little above (+y). That is the home view. */
#define RD_CAMERA_AXIS_COS 0.38
void rd_camera_init_axis(rd_camera *c, const double centre[3], double radius, const double axis[3]);
/* Look from eye at target, the world's y up (z when looking along y); the field of view is kept.
 * That becomes the home view. 0, or -1 (camera unchanged) when eye is target or not finite. */
int rd_camera_look_at(rd_camera *c, const double eye[3], const double target[3]);
void rd_camera_reset(rd_camera *c);
/* Arcball drag from pixel (x0, y0) to (x1, y1) in a w x h viewport (origin top-left). */
void rd_camera_orbit(rd_camera *c, double x0, double y0, double x1, double y1, int w, int h);
/* Move the target by a drag of (dx, dy) pixels in a viewport h pixels high: the scene follows the mouse. */
void rd_camera_pan(rd_camera *c, double dx, double dy, int h);
/* Zoom by `steps` wheel notches (positive: closer). */
void rd_camera_zoom(rd_camera *c, double steps);
/* Eye position and the view's unit right, up and forward axes in world space. */
void rd_camera_basis(const rd_camera *c, double eye[3], double right[3], double up[3], double fwd[3]);
/* Column-major OpenGL matrices: view, projection (near/far fitted to the distance) and their
 * product proj * view. */
void rd_camera_matrices(const rd_camera *c, double aspect, float view[16], float proj[16], float view_proj[16]);

VX_EXTERN_C_END
#endif
