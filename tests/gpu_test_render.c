/* gpu_test_render.c — the renderer's CUDA paths against its host paths (label gpu; exits 77 when
 * no CUDA device is usable):
 *   1. opacity: the CUDA kernels (rd_gpu_opacity) = the CPU twin (rd_opacity_cpu) on synthetic
 *      histograms, with and without blur: |gpu - cpu| <= atol + rtol |cpu| at every pixel;
 *   2. binning: rd_gpu_hist_build on device points = rd_hist_build_cpu on the same points (double and
 *      float, 50 000 and 300 001 points), and rd_gpu_sums = the host's sums (the centroid);
 *   3. headless images (EGL device platform): the merger scene on the cuda backend drawn through
 *      CUDA–GL interop (points into a registered VBO, opacity into a registered texture) equals the
 *      same state drawn through the device -> host copy path, and equals the cpu backend's initial
 *      state drawn through the host path, within a small pixel tolerance; the opacity textures agree.
 * Run on a GPU machine: ctest --test-dir build -L gpu -R render --output-on-failure
 * (VX_TEST_IMAGES=DIR keeps the three images as PNGs in DIR). */
#include "test_check.h"
#include "test_vortex.h"

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
#include "render_gpu.h"
#include "scene.h"
#include "sim.h"

static void compare_floats(const char *what, const float *gpu, const float *cpu, size_t n, double atol, double rtol) {
  size_t bad = 0, worst = 0;
  double wd = 0.0, sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double d = fabs((double)gpu[i] - cpu[i]);
    sum += fabs(cpu[i]);
    if (d > atol + rtol * fabs(cpu[i])) bad++;
    if (d > wd) { wd = d; worst = i; }
  }
  printf("  %s: %zu values, max |gpu - cpu| %.3e (at %zu: %.6g vs %.6g), mean |cpu| %.3g, %zu beyond %.0e + %.0e|cpu|\n", what, n,
         wd, worst, n ? gpu[worst] : 0.0, n ? cpu[worst] : 0.0, n ? sum / n : 0.0, bad, atol, rtol);
  if (bad) FAIL("%s: %zu of %zu values differ", what, bad, n);
}

/* 1 */
static void test_opacity(rd_gpu *g) {
  const int L = 5, w = 173, h = 97;
  size_t cells = (size_t)1 << (3 * L);
  int *bins = malloc(sizeof(int) * cells);
  if (!bins) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  uint64_t seed = 11;
  long long total = 0;
  for (size_t c = 0; c < cells; ++c) {
    double u = vx_rng_uniform(&seed);
    bins[c] = u < 0.5 ? 0 : (int)(200 * u * u * u);
    total += bins[c];
  }
  rd_hist hh;
  memset(&hh, 0, sizeof hh);
  hh.levels = L;
  hh.lo[0] = -0.3; hh.lo[1] = 0.2; hh.lo[2] = 0.1;
  hh.side = 1.3;
  hh.bins = bins;
  rd_camera cam;
  double c[3] = {0.35, 0.85, 0.75};
  rd_camera_init(&cam, c, 0.8);
  rd_camera_orbit(&cam, 50, 60, 90, 41, 300, 200);
  float *cpu = malloc(sizeof(float) * w * h), *tmp = malloc(sizeof(float) * w * h), *gpu = malloc(sizeof(float) * w * h);
  if (!cpu || !tmp || !gpu) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  char err[512];
  if (rd_gpu_hist_copy(g, bins, 0, L, err, sizeof err)) { FAIL("%s", err); goto done; }
  for (int blur = 0; blur <= 3; blur += 3) {
    rd_ray_params p;
    rd_ray_params_make(&p, &cam, w, h, &hh, total, 48);
    rd_opacity_cpu(&p, bins, blur, cpu, tmp);
    if (rd_gpu_opacity(g, &p, blur, gpu, err, sizeof err)) { FAIL("%s", err); goto done; }
    char what[64];
    snprintf(what, sizeof what, "opacity, blur %d", blur);
    /* the same IEEE float operations in the same order (render_gpu.cu is built with --fmad=false):
     * equal up to the last bit; a sample moved across a cell face would show as a large difference */
    compare_floats(what, gpu, cpu, (size_t)w * h, 1e-6, 1e-6);
  }
done:
  free(bins); free(cpu); free(tmp); free(gpu);
}

/* 2: n points of the rings set in double, or in float (the same values rounded) */
static void *ring_points(int n, rd_real real) {
  double *pos = malloc(sizeof(double) * 3 * n);
  if (!pos) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  vx_pointset(VX_DIST_RINGS, n, 3, pos, NULL);
  if (real == RD_F64) return pos;
  float *f = malloc(sizeof(float) * 3 * n);
  if (!f) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  for (size_t i = 0; i < 3 * (size_t)n; ++i) f[i] = (float)pos[i];
  free(pos);
  return f;
}

/* 2: binning (bounding box, histogram, total) and the centroid the camera follows, device = host;
 * sizes below and above the reductions' grid (512 blocks of 256 threads stride beyond 131 072) */
static void test_binning_at(rd_gpu *g, int n, rd_real real) {
  const int L = 6;
  size_t cells = (size_t)1 << (3 * L), bytes = (real == RD_F64 ? sizeof(double) : sizeof(float)) * 3 * (size_t)n;
  void *pos = ring_points(n, real);
  int *cpu = malloc(sizeof(int) * cells), *gpu = malloc(sizeof(int) * cells);
  if (!cpu || !gpu) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  double lo_c[3], lo_g[3], side_c = 0, side_g = 0, cg[3];
  void *d_pos = NULL;
  char err[512];
  if (rd_hist_build_cpu(pos, real, n, L, cpu, lo_c, &side_c, err, sizeof err) || vx_device_alloc(&d_pos, bytes, err, sizeof err) ||
      vx_device_upload(d_pos, pos, bytes, err, sizeof err) ||
      rd_gpu_hist_build(g, d_pos, real, n, L, lo_g, &side_g, err, sizeof err) || rd_gpu_hist_download(g, gpu, L, err, sizeof err) ||
      rd_gpu_sums(g, d_pos, real, n, cg, err, sizeof err)) {
    FAIL("binning %d points: %s", n, err);
  } else {
    size_t diff = 0;
    for (size_t c = 0; c < cells; ++c) diff += cpu[c] != gpu[c];
    long long t = 0;
    if (rd_gpu_hist_total(g, L, &t, err, sizeof err)) FAIL("%s", err);
    double cc[3] = {0, 0, 0}, dc = 0.0;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) cc[k] += real == RD_F64 ? ((double *)pos)[3 * i + k] : ((float *)pos)[3 * i + k];
    for (int k = 0; k < 3; ++k) dc = fmax(dc, fabs(cg[k] / n - cc[k] / n));
    printf("  binning %d %s points at level %d: %zu of %zu cells differ, total %lld, cube diff %.1e; centroid diff %.1e\n", n,
           real == RD_F64 ? "double" : "float", L, diff, cells, t,
           fabs(lo_c[0] - lo_g[0]) + fabs(lo_c[1] - lo_g[1]) + fabs(lo_c[2] - lo_g[2]) + fabs(side_c - side_g), dc);
    if (diff || t != n) FAIL("device histogram differs from the host's");
    if (lo_c[0] != lo_g[0] || lo_c[1] != lo_g[1] || lo_c[2] != lo_g[2] || side_c != side_g) FAIL("device cube differs");
    if (!(dc <= 5e-14)) FAIL("device centroid differs from the host's by %.2e", dc); /* sums of O(1) in another order: 1.1e-14 measured */
  }
  vx_device_free(d_pos);
  free(pos); free(cpu); free(gpu);
}

static void test_binning(rd_gpu *g) {
  test_binning_at(g, 50000, RD_F64);
  test_binning_at(g, 300001, RD_F32);
  test_binning_at(g, 300001, RD_F64);
}

/* 3: one frame of a simulation's initial state; pixels and opacity out */
static int draw_state(rd_renderer *r, vx_sim *s, const rd_camera *cam, rd_style *st, unsigned fbo, int w, int h,
                      unsigned char *rgb, float *op, int *ow, int *oh, rd_path *pp, rd_path *op_path) {
  char err[512];
  int on_dev = 0;
  rd_particles p;
  memset(&p, 0, sizeof p);
  p.pos = vx_sim_positions_raw(s, &on_dev);
  p.alpha = vx_sim_strengths_raw(s, NULL);
  p.n_elem = vx_sim_n_elements(s);
  p.n_tracer = vx_sim_n_tracers(s);
  p.real = vx_sim_params_get(s)->precision == VX_FLOAT ? RD_F32 : RD_F64;
  p.on_device = on_dev;
  if (rd_set_particles(r, &p, st, err, sizeof err) || rd_build_hist(r, 6, err, sizeof err) ||
      rd_draw(r, cam, st, fbo, w, h, 1.0f, err, sizeof err) || rd_read_pixels(fbo, w, h, rgb, err, sizeof err) ||
      rd_read_opacity(r, op, ow, oh, err, sizeof err)) {
    FAIL("drawing: %s", err);
    return -1;
  }
  *pp = rd_get_stats(r)->points_path;
  *op_path = rd_get_stats(r)->opacity_path;
  return 0;
}

static void compare_images(const char *what, const unsigned char *a, const unsigned char *b, int w, int h) {
  long big = 0;
  double sum = 0;
  int mx = 0;
  for (long i = 0; i < 3L * w * h; ++i) {
    int d = abs((int)a[i] - (int)b[i]);
    sum += d;
    if (d > mx) mx = d;
    big += d > 24;
  }
  printf("  %s: mean |diff| %.4f levels, max %d, %ld channel values differ by > 24\n", what, sum / (3.0 * w * h), mx, big);
  /* the same float points rasterise identically; the opacity may differ in the last bits */
  if (sum / (3.0 * w * h) > 0.25 || big > 3L * w * h / 2000) FAIL("%s: images differ", what);
}

static void test_images(void) {
  const int w = 640, h = 360;
  char err[512];
  rd_headless *hl = rd_headless_create(w, h, err, sizeof err);
  if (!hl) { FAIL("no headless OpenGL context on this GPU machine: %s", err); return; }
  printf("  context: %s\n", rd_headless_platform(hl));
  rd_renderer *r = rd_create(err, sizeof err);
  if (!r) { FAIL("%s", err); rd_headless_destroy(hl); return; }
  char path[1024];
  vx_scene sc;
  if (vx_scene_find("merger", VX_ASSETS_DIR, NULL, path, sizeof path, err, sizeof err) || vx_scene_load(path, &sc, err, sizeof err)) {
    FAIL("%s", err);
    rd_destroy(r);
    rd_headless_destroy(hl);
    return;
  }
  vx_sim_params prm = vx_sim_params_from_scene(&sc);
  vx_test_one_tree(&prm);
  prm.tracers = 65536;
  prm.backend = VX_BACKEND_CUDA;
  vx_sim *gs = vx_sim_create(&prm, &sc, err, sizeof err);
  prm.backend = VX_BACKEND_CPU;
  vx_sim *cs = gs ? vx_sim_create(&prm, &sc, err, sizeof err) : NULL;
  unsigned char *img[3];
  float *op[3];
  int ow[3], oh[3];
  for (int i = 0; i < 3; ++i) {
    img[i] = malloc(3 * (size_t)w * h);
    op[i] = malloc(sizeof(float) * w * h);
    if (!img[i] || !op[i]) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  }
  if (!gs || !cs) {
    FAIL("simulations: %s", err);
  } else {
    rd_camera cam;
    double c[3] = {0.5, 0.5, 0.42};
    rd_camera_init(&cam, c, 0.4);
    rd_style st = rd_style_default();
    st.show_elements = 1;
    st.alpha_ref = 1e-3f;
    rd_path pp[3], opp[3];
    unsigned fbo = rd_headless_fbo(hl);
    st.interop = 1;
    int ok = !draw_state(r, gs, &cam, &st, fbo, w, h, img[0], op[0], &ow[0], &oh[0], &pp[0], &opp[0]);
    st.interop = 0;
    ok = ok && !draw_state(r, gs, &cam, &st, fbo, w, h, img[1], op[1], &ow[1], &oh[1], &pp[1], &opp[1]);
    ok = ok && !draw_state(r, cs, &cam, &st, fbo, w, h, img[2], op[2], &ow[2], &oh[2], &pp[2], &opp[2]);
    if (ok) {
      printf("  paths: cuda+interop: points %s, opacity %s; cuda+copy: %s, %s; cpu: %s, %s\n", rd_path_name(pp[0]),
             rd_path_name(opp[0]), rd_path_name(pp[1]), rd_path_name(opp[1]), rd_path_name(pp[2]), rd_path_name(opp[2]));
      if (pp[0] != RD_PATH_INTEROP || opp[0] != RD_PATH_INTEROP)
        FAIL("CUDA-GL interop was not used (%s)", rd_get_stats(r)->notice);
      if (pp[1] != RD_PATH_COPY || opp[1] != RD_PATH_COPY) FAIL("the copy path was not used");
      if (pp[2] != RD_PATH_HOST || opp[2] != RD_PATH_HOST) FAIL("the host path was not used");
      compare_images("interop vs copy path", img[0], img[1], w, h);
      compare_images("interop vs cpu backend (host path)", img[0], img[2], w, h);
      compare_floats("opacity texture, interop vs copy", op[0], op[1], (size_t)ow[0] * oh[0], 1e-6, 1e-6);
      compare_floats("opacity texture, CUDA vs CPU twin", op[0], op[2], (size_t)ow[0] * oh[0], 1e-6, 1e-6);
      const char *dir = getenv("VX_TEST_IMAGES"); /* keep the images to look at */
      if (dir && *dir) {
        static const char *names[3] = {"interop", "copy", "cpu"};
        for (int i = 0; i < 3; ++i) {
          char file[1200], err2[512];
          snprintf(file, sizeof file, "%s/gpu_test_render_%s.png", dir, names[i]);
          if (rd_png_write(file, img[i], w, h, err2, sizeof err2) == 0) printf("  wrote %s\n", file);
          else FAIL("%s", err2);
        }
      }
    }
  }
  for (int i = 0; i < 3; ++i) { free(img[i]); free(op[i]); }
  vx_sim_destroy(gs);
  vx_sim_destroy(cs);
  rd_destroy(r);
  rd_headless_destroy(hl);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("renderer on %s:\n", name);
  char err[512];
  rd_gpu *g = rd_gpu_create(err, sizeof err);
  if (!g) { printf("FAIL: %s\n", err); return EXIT_FAILURE; }
  test_opacity(g);
  test_binning(g);
  rd_gpu_destroy(g);
  test_images();
  return vx_test_end("GPU renderer checks passed");
}
#endif /* VX_RENDER_OFF */
