/* test_render_opacity.c — the CPU twin of the ray-counted opacity (render/opacity.h,
 * render/opacity_cpu.c) against brute force on small synthetic histograms, and the renderer's
 * binning against the engine's own bin[] (fmm_occupancy):
 *   1. ray counts + box blur (rd_opacity_cpu) = a reference that builds each ray from the inverse
 *      view-projection matrix in double, finds each sample's cell by scanning all cells, and blurs
 *      with the full 2-D (2r+1)^2 mean;
 *   2. a uniform histogram reads chord length / side (1 across the cube);
 *   3. with many samples the count converges to the exact path-length integral
 *      sum_j bin_j * len_j / h (cells crossed found by exact voxel traversal);
 *   4. rd_hist_build_cpu equals fmm_occupancy (same cube, same level, same Morton layout).
 * Tolerances a small factor above the values these checks give (beside them).
 * No GL needed. Run: ./build/tests/test_render_opacity */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "opacity.h"
#include "pointsets.h"
#include "render.h"

/* 4x4 inverse (column-major) by cofactors, in double. */
static int invert4(const double m[16], double inv[16]) {
  double a[16];
  a[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
  a[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
  a[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
  a[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
  a[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
  a[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
  a[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
  a[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
  a[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
  a[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
  a[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
  a[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
  a[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
  a[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
  a[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
  a[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
  double det = m[0] * a[0] + m[1] * a[4] + m[2] * a[8] + m[3] * a[12];
  if (det == 0.0) return -1;
  for (int i = 0; i < 16; ++i) inv[i] = a[i] / det;
  return 0;
}

/* The eye ray through pixel (px, py) of a w x h image, by unprojecting the near and far planes. */
static void ray_from_matrix(const double inv[16], int w, int h, int px, int py, double o[3], double d[3]) {
  double nx = 2.0 * (px + 0.5) / w - 1.0, ny = 2.0 * (py + 0.5) / h - 1.0, pts[2][3];
  for (int s = 0; s < 2; ++s) {
    double v[4] = {nx, ny, s ? 1.0 : -1.0, 1.0}, r[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 4; ++k) r[i] += inv[k * 4 + i] * v[k];
    for (int i = 0; i < 3; ++i) pts[s][i] = r[i] / r[3];
  }
  for (int i = 0; i < 3; ++i) { o[i] = pts[0][i]; d[i] = pts[1][i] - pts[0][i]; }
}

static int clip(const double o[3], const double d[3], const double lo[3], double side, double *t0, double *t1) {
  double a = -1e300, b = 1e300;
  for (int k = 0; k < 3; ++k) {
    if (fabs(d[k]) < 1e-300) { if (o[k] < lo[k] || o[k] > lo[k] + side) return 0; continue; }
    double ta = (lo[k] - o[k]) / d[k], tb = (lo[k] + side - o[k]) / d[k];
    if (ta > tb) { double s = ta; ta = tb; tb = s; }
    if (ta > a) a = ta;
    if (tb < b) b = tb;
  }
  *t0 = a; *t1 = b;
  return b > a;
}

typedef struct {
  int L, n;
  double lo[3], side;
  int *bins;         /* Morton order */
  long long total;
} hist;

/* The count of the cell holding p, found by scanning every cell (no Morton arithmetic). */
static int scan_cell(const hist *H, const double p[3]) {
  double h = H->side / H->n;
  for (uint32_t key = 0; key < (uint32_t)H->n * H->n * H->n; ++key) {
    int c[3];
    oct_demorton3(key, &c[0], &c[1], &c[2]);
    int in = 1;
    for (int k = 0; k < 3 && in; ++k) {
      double a = H->lo[k] + c[k] * h, b = a + h;
      in = (p[k] >= a || c[k] == 0) && (p[k] < b || c[k] == H->n - 1);
    }
    if (in) return H->bins[key];
  }
  return 0;
}

/* Reference ray count of one pixel, k samples, in double. */
static double ref_count(const hist *H, const double inv[16], int w, int hgt, int px, int py, int k) {
  double o[3], d[3], t0, t1;
  ray_from_matrix(inv, w, hgt, px, py, o, d);
  /* from the eye, not the near plane: the near plane lies in front of it (t < 0 excluded there) */
  if (!clip(o, d, H->lo, H->side, &t0, &t1)) return 0.0;
  if (t0 < 0) t0 = 0;
  if (t1 <= t0) return 0.0;
  double dt = (t1 - t0) / k, len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), s = 0.0;
  for (int i = 0; i < k; ++i) {
    double t = t0 + (i + 0.5) * dt, p[3] = {o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
    s += scan_cell(H, p);
  }
  return s * dt * len / (H->side / H->n) * ldexp(1.0, 2 * H->L) / (double)H->total;
}

/* Exact path-length integral sum_j bin_j len_j / h of the ray (voxel traversal), scaled like rd_ray_count. */
static double exact_integral(const hist *H, const double o[3], const double d[3]) {
  double t0, t1;
  if (!clip(o, d, H->lo, H->side, &t0, &t1)) return 0.0;
  if (t0 < 0) t0 = 0;
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), h = H->side / H->n, s = 0.0, t = t0;
  while (t < t1 - 1e-15) {
    double p[3], tn = t1;
    for (int k = 0; k < 3; ++k) p[k] = o[k] + (t + 1e-12) * d[k];
    /* next plane crossing from inside the current cell */
    for (int k = 0; k < 3; ++k) {
      if (fabs(d[k]) < 1e-300) continue;
      double c = floor((p[k] - H->lo[k]) / h);
      double plane = H->lo[k] + (d[k] > 0 ? c + 1 : c) * h;
      double tk = (plane - o[k]) / d[k];
      if (tk > t + 1e-13 && tk < tn) tn = tk;
    }
    s += scan_cell(H, p) * (tn - t) * len / h;
    t = tn;
  }
  return s * ldexp(1.0, 2 * H->L) / (double)H->total;
}

static void make_hist(hist *H, int L, uint64_t seed, int uniform) {
  H->L = L;
  H->n = 1 << L;
  H->lo[0] = 0.1; H->lo[1] = -0.2; H->lo[2] = 0.3;
  H->side = 1.7;
  size_t cells = (size_t)1 << (3 * L);
  H->bins = malloc(sizeof(int) * cells);
  if (!H->bins) { printf("FAIL: out of memory\n"); exit(EXIT_FAILURE); }
  H->total = 0;
  for (size_t c = 0; c < cells; ++c) {
    double u = vx_rng_uniform(&seed);
    H->bins[c] = uniform ? 5 : (u < 0.4 ? 0 : (int)(1 + 100 * u * u)); /* many empty cells, uneven counts */
    H->total += H->bins[c];
  }
}

static rd_hist as_rd(const hist *H) {
  rd_hist r;
  memset(&r, 0, sizeof r);
  r.levels = H->L;
  memcpy(r.lo, H->lo, sizeof r.lo);
  r.side = H->side;
  r.bins = H->bins;
  return r;
}

static void camera(rd_camera *cam, const hist *H) {
  double c[3] = {H->lo[0] + 0.5 * H->side, H->lo[1] + 0.5 * H->side, H->lo[2] + 0.5 * H->side};
  rd_camera_init(cam, c, 0.9 * H->side);
  rd_camera_orbit(cam, 100, 100, 131, 87, 400, 300); /* an arbitrary oblique view */
  rd_camera_pan(cam, 7, -4, 300);
  rd_camera_zoom(cam, 6.0);
}

/* 1: rd_opacity_cpu against the brute-force reference, with and without blur */
static void test_vs_bruteforce(void) {
  hist H;
  make_hist(&H, 3, 42, 0);
  rd_camera cam;
  camera(&cam, &H);
  const int w = 37, h = 23, k = 24, blur = 2;
  rd_hist rh = as_rd(&H);
  rd_ray_params p;
  rd_ray_params_make(&p, &cam, w, h, &rh, H.total, k);
  float view[16], proj[16], vp[16];
  rd_camera_matrices(&cam, (double)w / h, view, proj, vp);
  /* the reference from the float view-projection in double: an independent construction of the rays */
  double vpd[16], inv[16];
  for (int i = 0; i < 16; ++i) vpd[i] = vp[i];
  if (invert4(vpd, inv)) { FAIL("singular view-projection"); return; }
  float *out = malloc(sizeof(float) * w * h), *tmp = malloc(sizeof(float) * w * h), *plain = malloc(sizeof(float) * w * h);
  double *ref = malloc(sizeof(double) * w * h), *refb = malloc(sizeof(double) * w * h);
  if (!out || !tmp || !plain || !ref || !refb) { FAIL("out of memory"); exit(EXIT_FAILURE); }
  rd_opacity_cpu(&p, H.bins, 0, out, tmp);
  int hit = 0, mism = 0;
  double l1 = 0.0, l1r = 0.0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double r = ref_count(&H, inv, w, h, x, y, k);
      ref[y * w + x] = r;
      double e = fabs(out[y * w + x] - r);
      if (r > 0) hit++;
      if (e > 1e-3 * (1.0 + fabs(r))) { mism++; continue; } /* a sample across a cell face: counted apart */
      l1 += e;
      l1r += fabs(r);
    }
  /* float rays may move a rare sample across a cell face: allow 0.5% of pixels (measured none); the
   * other pixels carry float round-off only: L1 rel 1.5e-6 (measured 3.1e-7) */
  printf("  ray counts: %d of %d pixels hit the cube; %d differ from brute force by > 1e-3 rel; L1 rel of the others %.2e\n",
         hit, w * h, mism, l1 / (l1r > 0 ? l1r : 1));
  if (hit < w * h / 4) FAIL("only %d pixels see the cube: the test view is wrong", hit);
  if (mism > w * h / 200) FAIL("%d of %d pixels differ from the brute-force ray count", mism, w * h);
  if (!(l1 <= 1.5e-6 * l1r)) FAIL("ray counts differ from brute force: L1 rel %.3e", l1 / l1r);

  /* blur: the separable passes = the full 2-D (2r+1)^2 mean over pixels inside the image */
  rd_opacity_cpu(&p, H.bins, blur, out, tmp);
  rd_opacity_cpu(&p, H.bins, 0, plain, tmp);
  double maxe = 0.0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = 0.0;
      int n = 0;
      for (int yy = y - blur; yy <= y + blur; ++yy)
        for (int xx = x - blur; xx <= x + blur; ++xx)
          if (xx >= 0 && xx < w && yy >= 0 && yy < h) { s += plain[yy * w + xx]; n++; }
      refb[y * w + x] = s / n;
      double e = fabs(out[y * w + x] - refb[y * w + x]) / (1.0 + fabs(refb[y * w + x]));
      if (e > maxe) maxe = e;
    }
  printf("  box blur r=%d: max rel difference to the 2-D mean %.2e\n", blur, maxe);
  if (!(maxe <= 4e-7)) /* measured 8.3e-8 */ FAIL("blur differs from the 2-D box mean: %.3e", maxe);
  free(plain);
  free(out); free(tmp); free(ref); free(refb);
  free(H.bins);
}

/* 2: uniform histogram: count = chord / side */
static void test_uniform(void) {
  hist H;
  make_hist(&H, 2, 7, 1);
  rd_camera cam;
  camera(&cam, &H);
  const int w = 21, h = 15;
  rd_hist rh = as_rd(&H);
  rd_ray_params p;
  rd_ray_params_make(&p, &cam, w, h, &rh, H.total, 40);
  float *out = malloc(sizeof(float) * w * h), *tmp = malloc(sizeof(float) * w * h);
  if (!out || !tmp) { FAIL("out of memory"); exit(EXIT_FAILURE); }
  rd_opacity_cpu(&p, H.bins, 0, out, tmp);
  double maxe = 0.0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double o[3], d[3], t0, t1;
      for (int k = 0; k < 3; ++k) {
        o[k] = p.eye[k];
        d[k] = p.fwd[k] + (2.0 * (x + 0.5) / w - 1.0) * p.right[k] + (2.0 * (y + 0.5) / h - 1.0) * p.up[k];
      }
      double chord = 0.0;
      if (clip(o, d, H.lo, H.side, &t0, &t1)) chord = (t1 - (t0 > 0 ? t0 : 0)) * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      double e = fabs(out[y * w + x] - chord / H.side);
      if (e > maxe) maxe = e;
    }
  printf("  uniform histogram: max |count - chord/side| = %.2e\n", maxe);
  if (!(maxe <= 2e-6)) /* measured 4.6e-7 */ FAIL("uniform histogram does not read chord/side (max error %.3e)", maxe);
  free(out); free(tmp); free(H.bins);
}

/* 3: convergence to the exact path-length integral */
static void test_convergence(void) {
  hist H;
  make_hist(&H, 3, 99, 0);
  rd_camera cam;
  camera(&cam, &H);
  const int w = 15, h = 11;
  rd_hist rh = as_rd(&H);
  double worst[2] = {0, 0};
  const int ks[2] = {64, 2048};
  for (int t = 0; t < 2; ++t) {
    rd_ray_params p;
    rd_ray_params_make(&p, &cam, w, h, &rh, H.total, ks[t]);
    float *out = malloc(sizeof(float) * w * h), *tmp = malloc(sizeof(float) * w * h);
    if (!out || !tmp) { FAIL("out of memory"); exit(EXIT_FAILURE); }
    rd_opacity_cpu(&p, H.bins, 0, out, tmp);
    double num = 0, den = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double o[3], d[3];
        for (int k = 0; k < 3; ++k) {
          o[k] = p.eye[k];
          d[k] = p.fwd[k] + (2.0 * (x + 0.5) / w - 1.0) * p.right[k] + (2.0 * (y + 0.5) / h - 1.0) * p.up[k];
        }
        double ex = exact_integral(&H, o, d);
        num += fabs(out[y * w + x] - ex);
        den += ex;
      }
    worst[t] = num / den;
    free(out); free(tmp);
  }
  printf("  path-length integral: mean rel error %.2e with k=%d, %.2e with k=%d\n", worst[0], ks[0], worst[1], ks[1]);
  /* measured 3.1e-4 at k = 2048, 39x below k = 64's 1.2e-2 (midpoint samples across cell faces: ~1/k) */
  if (!(worst[1] < 1e-3)) FAIL("k=%d samples do not converge to the path integral (error %.3e)", ks[1], worst[1]);
  if (!(worst[1] * 16.0 < worst[0])) FAIL("32x the samples do not reduce the error 16x (%.3e -> %.3e)", worst[0], worst[1]);
  free(H.bins);
}

/* 4: the renderer's binning = the engine's bin[] */
static void test_engine_histogram(void) {
  const int n = 20000, L = 4;
  double *pos = malloc(sizeof(double) * 3 * n), *str = malloc(sizeof(double) * 3 * n), *vel = malloc(sizeof(double) * 3 * n);
  if (!pos || !str || !vel) { FAIL("out of memory"); exit(EXIT_FAILURE); }
  vx_pointset(VX_DIST_RINGS, n, 5, pos, str);
  char err[512];
  fmm_params fp = fmm_params_default();
  fp.order = 2;
  fp.levels = L;
  fp.gradient = 0;
  fmm_ctx *f = fmm_create(&fp, err, sizeof err);
  if (!f) { FAIL("fmm_create: %s", err); return; }
  fmm_io io;
  memset(&io, 0, sizeof io);
  io.n_src = io.n_tgt = n;
  io.src_pos = io.tgt_pos = pos;
  io.src_str = str;
  io.vel = vel;
  int lv = 0, on_dev = 1;
  double lo[3], side = 0, mylo[3], myside = 0;
  const int *bins = NULL;
  if (fmm_evaluate(f, &io, NULL, err, sizeof err) || fmm_occupancy(f, &lv, lo, &side, &bins, &on_dev)) {
    FAIL("engine evaluation / occupancy: %s", err);
  } else {
    size_t cells = (size_t)1 << (3 * lv);
    int *mine = malloc(sizeof(int) * cells);
    if (!mine) { FAIL("out of memory"); exit(EXIT_FAILURE); }
    if (rd_hist_build_cpu(pos, RD_F64, n, lv, mine, mylo, &myside, err, sizeof err)) {
      FAIL("rd_hist_build_cpu: %s", err);
      free(mine);
      fmm_destroy(f);
      free(pos); free(str); free(vel);
      return;
    }
    size_t diff = 0;
    long long total = 0;
    for (size_t c = 0; c < cells; ++c) { diff += mine[c] != bins[c]; total += bins[c]; }
    printf("  binning vs fmm_occupancy at level %d: %zu of %zu cells differ; cube lo diff %.1e, side diff %.1e; total %lld\n",
           lv, diff, cells, fabs(lo[0] - mylo[0]) + fabs(lo[1] - mylo[1]) + fabs(lo[2] - mylo[2]), fabs(side - myside),
           total);
    if (lv != L || on_dev) FAIL("engine histogram at level %d (on device %d), expected %d on the host", lv, on_dev, L);
    if (diff) FAIL("%zu cells of the renderer's histogram differ from the engine's bin[]", diff);
    if (lo[0] != mylo[0] || lo[1] != mylo[1] || lo[2] != mylo[2] || side != myside) FAIL("cubes differ");
    if (total != n) FAIL("engine histogram holds %lld of %d points", total, n);
    free(mine);
  }
  fmm_destroy(f);
  free(pos); free(str); free(vel);
}

int main(void) {
  printf("ray-counted opacity (CPU twin) vs brute force:\n");
  test_vs_bruteforce();
  test_uniform();
  test_convergence();
  test_engine_histogram();
  return vx_test_end("opacity checks passed");
}
#endif /* VX_RENDER_OFF */
