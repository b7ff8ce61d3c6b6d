/* colour.c — the renderer's colours (render.h): the category palette and the two colour maps,
 * defined once here. The shaders receive the same tables as uniforms (render_draw.c), and the program's
 * panel draws its legend and colour bars with these functions, so a bar always matches the image. */
#include "render.h"

/* Category colours: saturated and far apart in hue, the first two (the usual two rings) opposite:
 * orange and sky blue. */
static const float kCategories[RD_CATEGORIES][3] = {
    {1.00f, 0.50f, 0.12f}, {0.22f, 0.58f, 1.00f}, {0.35f, 0.95f, 0.35f}, {0.95f, 0.30f, 0.85f},
    {0.95f, 0.90f, 0.25f}, {0.20f, 0.95f, 0.90f}, {1.00f, 0.28f, 0.28f}, {0.62f, 0.45f, 1.00f}};

static const float kTracerMap[5][3] = {
    {0.25f, 0.35f, 1.00f}, {0.10f, 0.85f, 0.95f}, {0.35f, 0.95f, 0.30f}, {1.00f, 0.72f, 0.15f}, {1.00f, 0.22f, 0.18f}};

static const float kElementMap[4][3] = {
    {0.20f, 0.08f, 0.55f}, {0.85f, 0.20f, 0.55f}, {1.00f, 0.60f, 0.10f}, {1.00f, 1.00f, 0.65f}};

/* Piecewise-linear through n stops evenly spaced over [0, 1] (the shaders' rd_map does the same). */
static void map_rgb(const float (*stops)[3], int n, float s, float rgb[3]) {
  s = s < 0.0f ? 0.0f : (s > 1.0f ? 1.0f : s);
  float x = s * (float)(n - 1);
  int i = (int)x;
  if (i > n - 2) i = n - 2;
  float f = x - (float)i;
  for (int k = 0; k < 3; ++k) rgb[k] = stops[i][k] + f * (stops[i + 1][k] - stops[i][k]);
}

void rd_category_rgb(int i, float rgb[3]) {
  int c = ((i % RD_CATEGORIES) + RD_CATEGORIES) % RD_CATEGORIES;
  for (int k = 0; k < 3; ++k) rgb[k] = kCategories[c][k];
}

void rd_tracer_map_rgb(float s, float rgb[3]) { map_rgb(kTracerMap, 5, s, rgb); }
void rd_element_map_rgb(float s, float rgb[3]) { map_rgb(kElementMap, 4, s, rgb); }

/* For render_draw.c: the tables as the shaders take them. */
const float *rd_colour_table(int which, int *n) {
  switch (which) {
    case 0: *n = RD_CATEGORIES; return &kCategories[0][0];
    case 1: *n = 5; return &kTracerMap[0][0];
    default: *n = 4; return &kElementMap[0][0];
  }
}
