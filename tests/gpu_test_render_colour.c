/* gpu_test_render_colour.c — the tracer colour values' CUDA twins against their host loops (label
 * gpu; exits 77 when no CUDA device is usable):
 *   1. vx_tracer_values_gpu = vx_tracer_values_cpu for speed, vorticity and height on random rows,
 *      in double and float: |gpu - cpu| <= atol + rtol |cpu| for every tracer;
 *   2. vx_values_range_gpu = vx_values_range_cpu (exactly) on random values with NaN and Inf mixed in;
 *   3. rd_gpu_pack_points puts each tracer's value into w (and its position into xyz) of the
 *      point it packs, the even subset k = i n / m as the host path does, or the tracers a list names;
 *   4. vx_ring_labels_gpu = vx_ring_labels_cpu (exactly) on random label blocks, empty ones among them;
 *   5. the whole path on a simulation: the merger scene (2048 tracers) one Euler step on the cuda
 *      and on the cpu backend, vx_tracer_values of speed, vorticity and height agree (the two
 *      engines' FMM differs by rounding only).
 * Run on a GPU machine: ctest --test-dir build -L gpu -R render_colour --output-on-failure */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "pointsets.h"
#include "scene.h"
#include "sim.h"
#include "tracer_colour.h"
#ifndef VX_RENDER_OFF
#include "render_gpu.h"
#endif
#include "test_check.h"
#include "test_vortex.h"

#define CHECK_OK(call) do { if (call) { FAIL("%s: %s", #call, err); goto done; } } while (0)

static char err[512];

static void compare(const char *what, const float *gpu, const float *cpu, int n, double atol, double rtol) {
  int bad = 0, worst = 0;
  double wd = 0.0;
  for (int i = 0; i < n; ++i) {
    double d = fabs((double)gpu[i] - cpu[i]);
    if (!(d <= atol + rtol * fabs(cpu[i]))) bad++;
    if (d > wd) { wd = d; worst = i; }
  }
  printf("  %-28s %d values, max |gpu - cpu| %.3e (at %d: %.7g vs %.7g), %d beyond %.0e + %.0e|cpu|\n", what, n, wd, worst,
         gpu[worst], cpu[worst], bad, atol, rtol);
  if (bad) FAIL("%s: %d of %d values differ", what, bad, n);
}

/* 1: random rows of 9 reals (enough for any quantity), in double or float. */
static void test_values(int is_float) {
  const int n = 100003;
  size_t rs = is_float ? sizeof(float) : sizeof(double), bytes = 9 * rs * (size_t)n;
  void *h = malloc(bytes), *d = NULL;
  float *cpu = malloc(sizeof(float) * n), *gpu = malloc(sizeof(float) * n), *d_out = NULL;
  uint64_t seed = 5 + (uint64_t)is_float;
  vx_travel t = {{0.6, 0.0, 0.8}, {0.5, 0.5, 0.45}};
  if (!h || !cpu || !gpu) { FAIL("out of host memory"); goto done; }
  for (size_t i = 0; i < 9 * (size_t)n; ++i) {
    double v = 4.0 * vx_rng_uniform(&seed) - 2.0;
    if (is_float) ((float *)h)[i] = (float)v;
    else ((double *)h)[i] = v;
  }
  CHECK_OK(vx_device_alloc(&d, bytes, err, sizeof err));
  CHECK_OK(vx_device_alloc((void **)&d_out, sizeof(float) * n, err, sizeof err));
  CHECK_OK(vx_device_upload(d, h, bytes, err, sizeof err));
  static const char *names[3] = {"speed", "vorticity", "height"};
  for (int q = 0; q < 3; ++q) {
    char what[64];
    snprintf(what, sizeof what, "%s (%s)", names[q], is_float ? "float" : "double");
    vx_tracer_values_cpu((vx_tracer_quantity)q, h, is_float, n, &t, cpu);
    CHECK_OK(vx_tracer_values_gpu((vx_tracer_quantity)q, d, is_float, n, &t, d_out, err, sizeof err));
    CHECK_OK(vx_device_download(gpu, d_out, sizeof(float) * n, err, sizeof err));
    compare(what, gpu, cpu, n, 1e-6, 1e-6); /* the same double arithmetic, rounded to float once */
  }
done:
  vx_device_free(d);
  vx_device_free(d_out);
  free(h);
  free(cpu);
  free(gpu);
}

/* 2 */
static void test_range(void) {
  const int n = 77777;
  float *h = malloc(sizeof(float) * n), *d = NULL, *scratch = NULL;
  uint64_t seed = 9;
  if (!h) { FAIL("out of host memory"); return; }
  for (int i = 0; i < n; ++i) h[i] = (float)(300.0 * vx_rng_uniform(&seed) - 100.0);
  h[17] = NAN;
  h[4000] = INFINITY;
  h[5000] = -INFINITY;
  float rc[2], rg[2];
  vx_values_range_cpu(h, n, rc);
  CHECK_OK(vx_device_alloc((void **)&d, sizeof(float) * n, err, sizeof err));
  CHECK_OK(vx_device_alloc((void **)&scratch, 2 * sizeof(float), err, sizeof err));
  CHECK_OK(vx_device_upload(d, h, sizeof(float) * n, err, sizeof err));
  CHECK_OK(vx_values_range_gpu(d, n, scratch, rg, err, sizeof err));
  printf("  range: cpu [%.7g, %.7g], gpu [%.7g, %.7g]\n", rc[0], rc[1], rg[0], rg[1]);
  if (rc[0] != rg[0] || rc[1] != rg[1] || !isfinite(rc[0]) || !isfinite(rc[1])) FAIL("the ranges differ or are not finite");
done:
  vx_device_free(d);
  vx_device_free(scratch);
  free(h);
}

#ifndef VX_RENDER_OFF
/* 3 */
static void test_pack(void) {
  const int ne = 1000, nt = 50001, m = 12345;
  double *pos = malloc(sizeof(double) * 3 * (ne + nt));
  float *val = malloc(sizeof(float) * nt), *pts = malloc(sizeof(float) * 4 * m), *d_val = NULL;
  int *draw = malloc(sizeof(int) * m), *d_draw = NULL;
  void *d_pos = NULL;
  uint64_t seed = 21;
  rd_gpu *g = rd_gpu_create(err, sizeof err);
  if (!pos || !val || !pts || !draw || !g) { FAIL("setup: %s", g ? "out of host memory" : err); goto done; }
  for (int i = 0; i < 3 * (ne + nt); ++i) pos[i] = vx_rng_uniform(&seed);
  for (int i = 0; i < nt; ++i) val[i] = (float)(i % 7) + 0.25f;
  CHECK_OK(vx_device_alloc(&d_pos, sizeof(double) * 3 * (ne + nt), err, sizeof err));
  CHECK_OK(vx_device_alloc((void **)&d_val, sizeof(float) * nt, err, sizeof err));
  CHECK_OK(vx_device_upload(d_pos, pos, sizeof(double) * 3 * (ne + nt), err, sizeof err));
  CHECK_OK(vx_device_upload(d_val, val, sizeof(float) * nt, err, sizeof err));
  CHECK_OK(rd_gpu_pack_points(g, RD_SLOT_TRACERS, d_pos, NULL, d_val, NULL, RD_F64, ne, nt, m, pts, err, sizeof err));
  int bad = 0;
  for (int i = 0; i < m; ++i) {
    long long k = (long long)i * nt / m, s = ne + k;
    for (int c = 0; c < 3; ++c) bad += pts[4 * i + c] != (float)pos[3 * s + c];
    bad += pts[4 * i + 3] != val[k];
  }
  printf("  pack: %d points of %d tracers, %d wrong components\n", m, nt, bad);
  if (bad) FAIL("rd_gpu_pack_points: %d components differ from the tracers' positions and values", bad);
  /* a list of the tracers drawn (a spread flow's: render.h, rd_particles.draw), random and unordered */
  for (int i = 0; i < m; ++i) draw[i] = (int)(vx_rng_uniform(&seed) * nt) % nt;
  CHECK_OK(vx_device_alloc((void **)&d_draw, sizeof(int) * m, err, sizeof err));
  CHECK_OK(vx_device_upload(d_draw, draw, sizeof(int) * m, err, sizeof err));
  CHECK_OK(rd_gpu_pack_points(g, RD_SLOT_TRACERS, d_pos, NULL, d_val, d_draw, RD_F64, ne, nt, m, pts, err, sizeof err));
  bad = 0;
  for (int i = 0; i < m; ++i) {
    long long k = draw[i], s = ne + k;
    for (int c = 0; c < 3; ++c) bad += pts[4 * i + c] != (float)pos[3 * s + c];
    bad += pts[4 * i + 3] != val[k];
  }
  printf("  pack by a list: %d points of %d tracers, %d wrong components\n", m, nt, bad);
  if (bad) FAIL("rd_gpu_pack_points with a list: %d components differ from the listed tracers' positions and values", bad);
done:
  vx_device_free(d_pos);
  vx_device_free(d_val);
  vx_device_free(d_draw);
  free(draw);
  rd_gpu_destroy(g);
  free(pos);
  free(val);
  free(pts);
}
#endif

/* 4: one scene, one step, on each backend; the values of each quantity. */
static int sim_values(vx_backend b, float *out[3], int *nt) {
  char path[1024];
  vx_scene sc;
  vx_sim *s = NULL;
  float *d = NULL;
  int rc = -1;
  if (vx_scene_find("merger", VX_ASSETS_DIR, NULL, path, sizeof path, err, sizeof err) ||
      vx_scene_load(path, &sc, err, sizeof err))
    return -1;
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  vx_test_one_tree(&p);
  p.backend = b;
  p.precision = VX_DOUBLE; /* the scene ships in float; the twins compare double runs' float values */
  p.tracers = 2048;
  p.integrator = VX_EULER;
  p.remesh_every = 0; /* the same particles on both backends */
  p.relax = 0.0;
  p.viscosity = 0.0; /* viscosity acts at remeshings only */
  if (!(s = vx_sim_create(&p, &sc, err, sizeof err))) return -1;
  vx_sim_set_tracer_gradient(s, 1);
  if (vx_sim_step(s, err, sizeof err)) goto done;
  *nt = vx_sim_n_tracers(s);
  vx_travel t;
  vx_scene_travel(&sc, &t);
  if (b == VX_BACKEND_CUDA && vx_device_alloc((void **)&d, sizeof(float) * *nt, err, sizeof err)) goto done;
  for (int q = 0; q < 3; ++q) {
    out[q] = malloc(sizeof(float) * *nt);
    if (!out[q]) { snprintf(err, sizeof err, "out of host memory"); goto done; }
    if (vx_tracer_values(s, (vx_tracer_quantity)q, &t, d ? d : out[q], err, sizeof err)) goto done;
    if (d && vx_device_download(out[q], d, sizeof(float) * *nt, err, sizeof err)) goto done;
  }
  rc = 0;
done:
  vx_device_free(d);
  vx_sim_destroy(s);
  return rc;
}

static void test_sim(void) {
  float *gv[3] = {NULL, NULL, NULL}, *cv[3] = {NULL, NULL, NULL};
  int ng = 0, nc = 0;
  if (sim_values(VX_BACKEND_CUDA, gv, &ng) || sim_values(VX_BACKEND_CPU, cv, &nc)) FAIL("simulation: %s", err);
  else if (ng != nc) FAIL("tracer counts differ: %d vs %d", ng, nc);
  else {
    /* the backends' FMMs differ by rounding (relative 1e-10 in double); heights by none */
    compare("sim speed (cuda vs cpu)", gv[0], cv[0], nc, 1e-6, 1e-6); /* H100: 0 (double runs, float values: the same floats) */
    compare("sim vorticity (cuda vs cpu)", gv[1], cv[1], nc, 1e-6, 1e-6);
    compare("sim height (cuda vs cpu)", gv[2], cv[2], nc, 1e-6, 1e-6);
  }
  for (int q = 0; q < 3; ++q) { free(gv[q]); free(cv[q]); }
}

/* 4: random label blocks (some empty), every row's label on both sides. */
static void test_labels(void) {
  const int n = 300007;
  vx_label_blocks b;
  b.n = VX_LABEL_BLOCKS - 3;
  for (int k = 0, end = 0; k < b.n; ++k) {
    unsigned r = (unsigned)k * 2654435761u;
    end += (r >> 7) % 5 == 0 ? 0 : (int)((r >> 9) % 2000); /* one in five empty */
    b.end[k] = end < n ? end : n;
    b.label[k] = (float)(k % 37);
  }
  b.end[b.n - 1] = n - 11; /* the last rows past every block: label 0 */
  float *cpu = malloc(sizeof(float) * n), *gpu = malloc(sizeof(float) * n), *d = NULL;
  if (!cpu || !gpu) { FAIL("out of host memory"); exit(EXIT_FAILURE); }
  vx_ring_labels_cpu(&b, n, cpu);
  CHECK_OK(vx_device_alloc((void **)&d, sizeof(float) * n, err, sizeof err));
  CHECK_OK(vx_ring_labels_gpu(&b, n, d, err, sizeof err));
  CHECK_OK(vx_device_download(gpu, d, sizeof(float) * n, err, sizeof err));
  compare("ring labels from blocks", gpu, cpu, n, 0.0, 0.0);
done:
  vx_device_free(d);
  free(cpu), free(gpu);
}

int main(void) {
  char name[256];
  VX_TEST_NEED_CUDA(name);
  printf("tracer colour values on %s:\n", name);
  test_values(0);
  test_values(1);
  test_range();
  test_labels();
#ifndef VX_RENDER_OFF
  test_pack();
#endif
  test_sim();
  return vx_test_end("tracer colour GPU twins agree");
}
