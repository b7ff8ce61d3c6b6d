/* gpu_test_iso.c — the vorticity surface's CUDA halves against their CPU twins (label gpu; exits 77
 * when no CUDA device is usable):
 *   1. the vorticity grid (vortex/vort_grid_gpu.cu against vort_grid.c) on 30 000 random elements
 *      (fixed seed: two jittered rings and a uniform cloud), float and double, n = 96 and 128, one
 *      device object reused across them: the cube (lo, side) equal to the bit, every node within
 *      1e-5 vmax (the GPU's atomics add in another order), vmax within 1e-5; no elements: zeros;
 *      a NaN position: refused;
 *   2. the extraction (render/iso_gpu.cu against iso_cpu.c), compiled without fused multiply-adds:
 *      on the CPU grid uploaded, at three levels, and on a sphere's distance field: the same count
 *      and every triangle in the same order, positions within 1e-5 side and normals within 1e-5
 *      (the same bits are expected; how many differ is printed); the GPU's own grid extracted on
 *      both sides likewise; a cap below the count writes the first cap triangles and nothing past
 *      them and reports the whole count; cap 0 with no buffer counts.
 * Run on a GPU machine: ctest --test-dir build -L gpu -R iso --output-on-failure */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm.h"
#include "iso.h"
#include "pointsets.h"
#include "vort_grid.h"

static void die(const char *what, const char *err) {
  printf("FAIL: %s: %s\n", what, err);
  exit(EXIT_FAILURE);
}

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) die("host memory", "out of memory");
  return p;
}

static void *to_device(const void *h, size_t bytes) {
  char err[256];
  void *d = NULL;
  if (vx_device_alloc(&d, bytes ? bytes : 1, err, sizeof err) || (h && bytes && vx_device_upload(d, h, bytes, err, sizeof err)))
    die("upload", err);
  return d;
}

static void from_device(void *h, const void *d, size_t bytes) {
  char err[256];
  if (vx_device_download(h, d, bytes, err, sizeof err)) die("download", err);
}

/* ---------------------------------------------------------------- 1. the vorticity grid */

enum { M = 30000 };

/* M elements, double: a third on each of two jittered rings (strength along the ring), a third in
 * a uniform cloud (random strengths a tenth as large). */
static void make_elements(double *pos, double *alpha) {
  uint64_t s = 77;
  for (int p = 0; p < M; ++p) {
    double *x = pos + 3 * p, *a = alpha + 3 * p;
    const int kind = p % 3;
    if (kind < 2) {
      const double phi = 2 * VX_PI * vx_rng_uniform(&s), z = kind ? 0.5 : 0.35;
      x[0] = 0.5 + 0.3 * cos(phi) + 0.03 * (vx_rng_uniform(&s) - 0.5);
      x[1] = 0.5 + 0.3 * sin(phi) + 0.03 * (vx_rng_uniform(&s) - 0.5);
      x[2] = z + 0.03 * (vx_rng_uniform(&s) - 0.5);
      a[0] = -1e-3 * sin(phi), a[1] = 1e-3 * cos(phi), a[2] = 1e-4 * (vx_rng_uniform(&s) - 0.5);
    } else {
      for (int c = 0; c < 3; ++c) x[c] = 0.1 + 0.8 * vx_rng_uniform(&s), a[c] = 1e-4 * (vx_rng_uniform(&s) - 0.5);
    }
  }
}

/* The arrays in prec (host), as the simulation would keep them. */
static void *in_precision(const double *v, vx_precision prec) {
  void *h = xmalloc(3 * M * (prec == VX_FLOAT ? sizeof(float) : sizeof(double)));
  for (int i = 0; i < 3 * M; ++i) {
    if (prec == VX_FLOAT) ((float *)h)[i] = (float)v[i];
    else ((double *)h)[i] = v[i];
  }
  return h;
}

/* One precision and size: the GPU grid against the CPU's. Returns the CPU grid (n³ floats,
 * malloc'd) with its cube and maximum, and the device grid (valid until gpu's next call). */
typedef struct {
  float *grid;
  const float *d_grid;
  double lo[3], side;
  float vmax;
} grid_pair;

static grid_pair grid_case(vx_vort_grid *cpu, vx_vort_grid *gpu, vx_precision prec, const void *h_pos, const void *h_alpha,
                           const void *d_pos, const void *d_alpha, int m, double sigma, int n) {
  grid_pair r;
  char err[256];
  const float *g;
  double lo[3], side;
  float vmax;
  const size_t n3 = (size_t)n * n * n;
  if (vx_vort_grid_compute(cpu, prec, h_pos, h_alpha, m, sigma, n, &g, r.lo, &r.side, &r.vmax, err, sizeof err))
    die("CPU grid", err);
  r.grid = xmalloc(n3 * sizeof(float));
  memcpy(r.grid, g, n3 * sizeof(float));
  if (vx_vort_grid_compute(gpu, prec, d_pos, d_alpha, m, sigma, n, &r.d_grid, lo, &side, &vmax, err, sizeof err))
    die("GPU grid", err);
  float *h = xmalloc(n3 * sizeof(float));
  from_device(h, r.d_grid, n3 * sizeof(float));
  double worst = 0.0;
  size_t bad = 0, same = 0;
  const double tol = 1e-5 * r.vmax + 1e-30;
  for (size_t i = 0; i < n3; ++i) {
    const double d = fabs((double)h[i] - r.grid[i]);
    worst = d > worst ? d : worst;
    bad += d > tol;
    same += h[i] == r.grid[i];
  }
  const char *pname = prec == VX_FLOAT ? "float" : "double";
  printf("  grid, %s, %d elements, n = %d: max |gpu - cpu| %.2e of vmax (%zu of %zu nodes the same bits), vmax %.6g vs %.6g, "
         "cube %s\n", pname, m, n, r.vmax > 0 ? worst / r.vmax : worst, same, n3, vmax, r.vmax,
         lo[0] == r.lo[0] && lo[1] == r.lo[1] && lo[2] == r.lo[2] && side == r.side ? "the same bits" : "DIFFERENT");
  EXPECT(bad == 0, "grid, %s, n = %d: %zu nodes differ by more than 1e-5 vmax", pname, n, bad);
  EXPECT(fabs((double)vmax - r.vmax) <= tol, "grid, %s, n = %d: vmax %.9g on the GPU, %.9g on the CPU", pname, n, vmax, r.vmax);
  EXPECT(lo[0] == r.lo[0] && lo[1] == r.lo[1] && lo[2] == r.lo[2] && side == r.side,
         "grid, %s, n = %d: cube lo (%.17g %.17g %.17g) side %.17g on the GPU, (%.17g %.17g %.17g) %.17g on the CPU", pname, n,
         lo[0], lo[1], lo[2], side, r.lo[0], r.lo[1], r.lo[2], r.side);
  free(h);
  return r;
}

/* ---------------------------------------------------------------- 2. the extraction */

/* The whole surface on the CPU: *n_tri triangles, malloc'd. */
static float *extract_cpu(const float *f, int n, const double lo[3], double side, float level, long *n_tri) {
  char err[256];
  long again = -1;
  if (rd_iso_extract_cpu(f, n, lo, side, level, NULL, 0, n_tri, err, sizeof err)) die("CPU count", err);
  float *t = xmalloc((size_t)*n_tri * 3 * RD_ISO_FLOATS * sizeof(float));
  if (rd_iso_extract_cpu(f, n, lo, side, level, t, *n_tri, &again, err, sizeof err)) die("CPU extraction", err);
  if (again != *n_tri) die("CPU extraction", "the count changed between two calls");
  return t;
}

/* GPU triangles (host copy, t_gpu, k of them) against the CPU's first k: positions within
 * 1e-5 side, normals within 1e-5. Returns how many floats differ beyond that. */
static size_t compare_tris(const char *what, const float *t_gpu, const float *t_cpu, long k, double side) {
  size_t bad = 0, diff = 0;
  double wp = 0.0, wn = 0.0;
  for (size_t i = 0; i < (size_t)k * 3 * RD_ISO_FLOATS; ++i) {
    const double d = fabs((double)t_gpu[i] - t_cpu[i]);
    const int normal = i % RD_ISO_FLOATS >= 3;
    if (normal) wn = d > wn ? d : wn;
    else wp = d > wp ? d : wp;
    bad += normal ? d > 1e-5 : d > 1e-5 * side;
    diff += t_gpu[i] != t_cpu[i];
  }
  printf("  %s: %ld triangles, max |gpu - cpu| position %.1e side, normal %.1e; %zu floats not the same bits\n", what, k, wp / side,
         wn, diff);
  EXPECT(bad == 0, "%s: %zu floats differ beyond 1e-5", what, bad);
  return bad;
}

/* One extraction on both sides of the same grid (host f, device d_f). */
static void iso_case(rd_iso_gpu *iso, const char *what, const float *f, const float *d_f, int n, const double lo[3], double side,
                     float level) {
  char err[256];
  long n_cpu, n_gpu = -1;
  float *t_cpu = extract_cpu(f, n, lo, side, level, &n_cpu);
  const size_t bytes = (size_t)n_cpu * 3 * RD_ISO_FLOATS * sizeof(float);
  float *d_out = to_device(NULL, bytes), *t_gpu = xmalloc(bytes);
  if (rd_iso_extract_gpu(iso, d_f, n, lo, side, level, d_out, n_cpu, &n_gpu, err, sizeof err)) die("GPU extraction", err);
  EXPECT(n_gpu == n_cpu, "%s: %ld triangles on the GPU, %ld on the CPU", what, n_gpu, n_cpu);
  if (n_gpu == n_cpu) {
    from_device(t_gpu, d_out, bytes);
    compare_tris(what, t_gpu, t_cpu, n_cpu, side);
  }
  vx_device_free(d_out);
  free(t_gpu);
  free(t_cpu);
}

/* A cap of a third of the count: the whole count reported, the first cap triangles the CPU's,
 * nothing written past them (the rest of the buffer keeps its sentinel); cap 0 without a buffer. */
static void cap_case(rd_iso_gpu *iso, const float *f, const float *d_f, int n, const double lo[3], double side, float level) {
  char err[256];
  long n_cpu, n_gpu = -1, n_count = -1;
  float *t_cpu = extract_cpu(f, n, lo, side, level, &n_cpu);
  const long cap = n_cpu / 3;
  const size_t tri = 3 * RD_ISO_FLOATS, room = (size_t)n_cpu * tri;
  float *h = xmalloc(room * sizeof(float));
  for (size_t i = 0; i < room; ++i) h[i] = 12345.0f;
  float *d_out = to_device(h, room * sizeof(float));
  if (rd_iso_extract_gpu(iso, d_f, n, lo, side, level, d_out, cap, &n_gpu, err, sizeof err) ||
      rd_iso_extract_gpu(iso, d_f, n, lo, side, level, NULL, 0, &n_count, err, sizeof err))
    die("GPU extraction with a cap", err);
  from_device(h, d_out, room * sizeof(float));
  size_t past = 0;
  for (size_t i = (size_t)cap * tri; i < room; ++i) past += h[i] != 12345.0f;
  printf("  cap %ld of %ld: %ld reported (%ld with cap 0), %zu floats written past the cap\n", cap, n_cpu, n_gpu, n_count, past);
  EXPECT(n_gpu == n_cpu && n_count == n_cpu, "cap: %ld and %ld triangles reported, the surface has %ld", n_gpu, n_count, n_cpu);
  EXPECT(past == 0, "cap: %zu floats written past the cap", past);
  compare_tris("capped", h, t_cpu, cap, side);
  vx_device_free(d_out);
  free(h);
  free(t_cpu);
}

/* f = −|x − c| on n³ nodes over [-1, 1]³: a sphere at level −0.6. */
static float *sphere_field(int n, double lo[3], double *side) {
  float *f = xmalloc((size_t)n * n * n * sizeof(float));
  const double c[3] = {0.0131, -0.0217, 0.0071}, dx = 2.0 / (n - 1);
  lo[0] = lo[1] = lo[2] = -1.0;
  *side = 2.0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double x = -1.0 + i * dx - c[0], y = -1.0 + j * dx - c[1], z = -1.0 + k * dx - c[2];
        f[((size_t)k * n + j) * n + i] = (float)-sqrt(x * x + y * y + z * z);
      }
  return f;
}

int main(void) {
  char name[256], err[256];
  VX_TEST_NEED_CUDA(name);
  printf("device: %s\n", name);
  vx_vort_grid *cpu = vx_vort_grid_create(0, err, sizeof err), *gpu = vx_vort_grid_create(1, err, sizeof err);
  rd_iso_gpu *iso = rd_iso_gpu_create(err, sizeof err);
  if (!cpu || !gpu || !iso) die("creating the grids and the extraction's scratch", err);
  double *pos = xmalloc(3 * M * sizeof(double)), *alpha = xmalloc(3 * M * sizeof(double));
  make_elements(pos, alpha);
  const double sigma = 0.02;

  /* 1 */
  grid_pair keep = {NULL, NULL, {0, 0, 0}, 0, 0};
  const vx_precision precs[2] = {VX_DOUBLE, VX_FLOAT};
  for (int pi = 0; pi < 2; ++pi) {
    void *h_pos = in_precision(pos, precs[pi]), *h_alpha = in_precision(alpha, precs[pi]);
    const size_t bytes = 3 * M * (precs[pi] == VX_FLOAT ? sizeof(float) : sizeof(double));
    void *d_pos = to_device(h_pos, bytes), *d_alpha = to_device(h_alpha, bytes);
    const int sizes[2] = {96, 128};
    for (int si = 0; si < 2; ++si) {
      grid_pair r = grid_case(cpu, gpu, precs[pi], h_pos, h_alpha, d_pos, d_alpha, M, sigma, sizes[si]);
      if (precs[pi] == VX_FLOAT && sizes[si] == 128) keep = r; /* the extraction's grid */
      else free(r.grid);
    }
    vx_device_free(d_pos);
    vx_device_free(d_alpha);
    free(h_pos);
    free(h_alpha);
  }
  {
    const float *d_zero;
    double lo[3], side, lo_c[3], side_c;
    float vmax = -1.0f, vmax_c = -1.0f;
    const float *h_zero;
    float *z = xmalloc(64 * 64 * 64 * sizeof(float));
    if (vx_vort_grid_compute(gpu, VX_FLOAT, NULL, NULL, 0, sigma, 64, &d_zero, lo, &side, &vmax, err, sizeof err) ||
        vx_vort_grid_compute(cpu, VX_FLOAT, NULL, NULL, 0, sigma, 64, &h_zero, lo_c, &side_c, &vmax_c, err, sizeof err))
      die("grid of no elements", err);
    from_device(z, d_zero, 64 * 64 * 64 * sizeof(float));
    size_t nonzero = 0;
    for (size_t i = 0; i < 64 * 64 * 64; ++i) nonzero += z[i] != 0.0f;
    EXPECT(nonzero == 0 && vmax == 0.0f && side == side_c && lo[0] == lo_c[0], "no elements: %zu nodes not 0, vmax %g", nonzero,
           vmax);
    free(z);
    /* a NaN among finite positions: refused, as on the CPU */
    const float bad_pos[6] = {0.0f, 0.0f, 0.0f, 0.1f, NAN, 0.0f}, bad_alpha[6] = {0, 0, 1, 0, 0, 1};
    float *d_bp = to_device(bad_pos, sizeof bad_pos), *d_ba = to_device(bad_alpha, sizeof bad_alpha);
    err[0] = 0;
    int rc = vx_vort_grid_compute(gpu, VX_FLOAT, d_bp, d_ba, 2, sigma, 64, &d_zero, lo, &side, &vmax, err, sizeof err);
    printf("  a NaN position on the device: %s\n", err);
    EXPECT(rc == -1 && err[0], "a NaN position on the device: accepted");
    vx_device_free(d_bp);
    vx_device_free(d_ba);
  }

  /* 2: the CPU grid uploaded, at three levels; the GPU's own grid; a sphere; the cap */
  if (keep.grid) {
    const int n = 128;
    float *d_f = to_device(keep.grid, (size_t)n * n * n * sizeof(float));
    const double fracs[3] = {0.1, 0.25, 0.5};
    for (int li = 0; li < 3; ++li) {
      char what[64];
      snprintf(what, sizeof what, "rings' |w| at %.2f vmax", fracs[li]);
      iso_case(iso, what, keep.grid, d_f, n, keep.lo, keep.side, (float)(fracs[li] * keep.vmax));
    }
    cap_case(iso, keep.grid, d_f, n, keep.lo, keep.side, (float)(0.25 * keep.vmax));
    vx_device_free(d_f);
    /* the device grid itself (the call without elements replaced it: made again) */
    const float *d_grid;
    double lo[3], side;
    float vmax;
    float *h_pos = in_precision(pos, VX_FLOAT), *h_alpha = in_precision(alpha, VX_FLOAT);
    void *d_pos = to_device(h_pos, 3 * M * sizeof(float)), *d_alpha = to_device(h_alpha, 3 * M * sizeof(float));
    if (vx_vort_grid_compute(gpu, VX_FLOAT, d_pos, d_alpha, M, sigma, n, &d_grid, lo, &side, &vmax, err, sizeof err))
      die("GPU grid", err);
    float *h_grid = xmalloc((size_t)n * n * n * sizeof(float));
    from_device(h_grid, d_grid, (size_t)n * n * n * sizeof(float));
    iso_case(iso, "the GPU's own grid at 0.25 vmax", h_grid, d_grid, n, lo, side, 0.25f * vmax);
    free(h_grid);
    vx_device_free(d_pos);
    vx_device_free(d_alpha);
    free(h_pos);
    free(h_alpha);
    free(keep.grid);
  }
  {
    const int n = 64;
    double lo[3], side;
    float *f = sphere_field(n, lo, &side);
    float *d_f = to_device(f, (size_t)n * n * n * sizeof(float));
    iso_case(iso, "sphere, n = 64", f, d_f, n, lo, side, -0.6f);
    vx_device_free(d_f);
    free(f);
  }

  rd_iso_gpu_destroy(iso);
  vx_vort_grid_destroy(gpu);
  vx_vort_grid_destroy(cpu);
  free(pos);
  free(alpha);
  return vx_test_end("vorticity surface: the GPU grid and extraction equal their CPU twins");
}
#endif
