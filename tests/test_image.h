/* test_image.h — tests only: a rendered image read back, the hue of a pixel and the distance between
 * hues, the measure the render tests tell the tracers' colours apart by (test_render_colour,
 * test_render_leapfrog_demo). Needs the renderer's png_file.h (render tests link it). */
#ifndef VX_TEST_IMAGE_H
#define VX_TEST_IMAGE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "png_file.h"

/* The w x h RGB pixels of the PNG at path, which is then removed; NULL with why (the caller's
 * FAIL) when it cannot be read or has another size. */
static inline unsigned char *vx_test_png_take(const char *path, int w, int h, char *why, size_t cap) {
  unsigned char *rgb = NULL;
  int pw = 0, ph = 0;
  if (vx_png_read(path, &rgb, &pw, &ph, why, cap)) return NULL;
  remove(path);
  if (pw != w || ph != h) {
    snprintf(why, cap, "%dx%d, expected %dx%d", pw, ph, w, h);
    free(rgb);
    return NULL;
  }
  return rgb;
}

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
