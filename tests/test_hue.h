/* test_hue.h — tests only: the hue of a rendered pixel and the distance between hues, the measure
 * the render tests tell the tracers' colours apart by (test_render_colour, test_render_leapfrog_demo). */
#ifndef VX_TEST_HUE_H
#define VX_TEST_HUE_H

#include <math.h>

/* Hue in degrees of a pixel coloured enough to have one (brightest channel >= 60, saturation >=
 * 0.25, so the dark blue background and grey wireframe are left out); -1 otherwise. */
static inline double vx_test_hue(const unsigned char *p) {
  double r = p[0], g = p[1], b = p[2];
  double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), c = mx - mn;
  if (mx < 60.0 || c < 0.25 * mx) return -1.0;
  double h = mx == r ? fmod((g - b) / c, 6.0) : mx == g ? (b - r) / c + 2.0 : (r - g) / c + 4.0;
  h *= 60.0;
  return h < 0.0 ? h + 360.0 : h;
}

/* The distance of two hues on the colour circle, 0..180 degrees. */
static inline double vx_test_hue_dist(double a, double b) {
  double d = fabs(a - b);
  return d > 180.0 ? 360.0 - d : d;
}

#endif
