/* iso_bench.c — vortexfmm-iso-bench: times the vorticity isosurface of one frame, the elements' |ω|
 * on an n³ grid (vortex/vort_grid.h) and its marching-tetrahedra extraction (render/iso.h), on the
 * elements of a scene as generated (no tracers), on either backend. Prints the median and least
 * time of each part and of both over --repeats runs after --warmup, and the triangle count.
 * Each call returns only after its results have come back from the device (the cube and maximum,
 * the count), so the host clock around it times finished work.
 *   vortexfmm-iso-bench --scene leapfrog --backend cuda --n 128 --level 0.25 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "fmm.h"
#include "iso.h"
#include "scene.h"
#include "vort_grid.h"

#define PROG "vortexfmm-iso-bench"

typedef struct {
  const char *scene;
  int cuda;
  int n, repeats, warmup;
  double level;
} options;

static void usage(void) {
  printf("usage: " PROG " [--scene NAME|FILE] [--backend cpu|cuda] [--n N] [--level F] [--repeats R] [--warmup W]\n"
         "Times the vorticity isosurface of one frame on a scene's elements (no tracers): |w| on an N^3 grid\n"
         "(vortex/vort_grid.h), then marching tetrahedra at F times the grid's maximum (render/iso.h).\n"
         "\n"
         "  --scene NAME|FILE   the scene (default leapfrog: assets/leapfrog.scene)\n"
         "  --backend cpu|cuda  where the elements live and both steps run (default cpu)\n"
         "  --n N               grid nodes a side, %d..%d (default 128)\n"
         "  --level F           the level as a fraction of the grid's maximum, in (0, 1) (default 0.25)\n"
         "  --repeats R         timed runs, 1..100000 (default 20)\n"
         "  --warmup W          untimed runs before them, 0..100000 (default 3)\n",
         VX_VORT_NMIN, VX_VORT_NMAX);
}

/* One line and exit 2; value NULL: a flag without its value. */
static void bad_usage(const char *what, const char *value) {
  if (value) fprintf(stderr, PROG ": %s '%s' (--help lists the options)\n", what, value);
  else fprintf(stderr, PROG ": %s needs a value (--help lists the options)\n", what);
  exit(2);
}

static long long int_arg(const char *what, const char *v, long long lo, long long hi) {
  long long x;
  if (vx_cli_int(v, lo, hi, &x)) bad_usage(what, v);
  return x;
}

static options parse(int argc, char **argv) {
  options o = {"leapfrog", 0, 128, 20, 3, 0.25};
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(); exit(0); }
    const int known = !strcmp(a, "--scene") || !strcmp(a, "--backend") || !strcmp(a, "--n") || !strcmp(a, "--level") ||
                      !strcmp(a, "--repeats") || !strcmp(a, "--warmup");
    if (!known) bad_usage("unknown option", a);
    if (!v) bad_usage(a, NULL);
    ++i;
    if (!strcmp(a, "--scene")) o.scene = v;
    else if (!strcmp(a, "--backend")) {
      if (strcmp(v, "cpu") && strcmp(v, "cuda")) bad_usage("--backend takes cpu or cuda, not", v);
      o.cuda = !strcmp(v, "cuda");
    } else if (!strcmp(a, "--n")) o.n = (int)int_arg("--n: not a grid size in 8..512:", v, VX_VORT_NMIN, VX_VORT_NMAX);
    else if (!strcmp(a, "--repeats")) o.repeats = (int)int_arg("--repeats: not a count in 1..100000:", v, 1, 100000);
    else if (!strcmp(a, "--warmup")) o.warmup = (int)int_arg("--warmup: not a count in 0..100000:", v, 0, 100000);
    else if (vx_cli_real(v, &o.level) || !(o.level > 0.0 && o.level < 1.0)) bad_usage("--level: not a fraction in (0, 1):", v);
  }
  return o;
}

/* The elements in the scene's precision and on the chosen side: *pos, *alpha (3 n values each). */
typedef struct {
  int n, prec_float;
  double sigma;
  void *pos, *alpha;
  char name[64], path[512];
} elements;

static int load_elements(const options *o, elements *e, char *err, size_t errlen) {
  vx_scene sc;
  vx_particles p;
  memset(e, 0, sizeof *e);
  if (vx_scene_find(o->scene, VX_ASSETS_DIR, NULL, e->path, sizeof e->path, err, errlen) ||
      vx_scene_load(e->path, &sc, err, errlen) || vx_particles_generate(&sc, 0, &p, err, errlen))
    return -1;
  snprintf(e->name, sizeof e->name, "%s", sc.name);
  e->n = p.n_elem;
  e->sigma = vx_scene_sigma(&sc, p.spacing);
  e->prec_float = sc.precision == VX_FLOAT;
  const size_t count = 3 * (size_t)p.n_elem, bytes = count * (e->prec_float ? sizeof(float) : sizeof(double));
  void *host[2] = {malloc(bytes ? bytes : 1), malloc(bytes ? bytes : 1)};
  const double *src[2] = {p.pos, p.alpha};
  int rc = 0;
  for (int a = 0; a < 2 && host[0] && host[1]; ++a) {
    if (e->prec_float)
      for (size_t i = 0; i < count; ++i) ((float *)host[a])[i] = (float)src[a][i];
    else
      memcpy(host[a], src[a], bytes);
  }
  if (!host[0] || !host[1]) rc = -1, snprintf(err, errlen, "out of host memory");
  if (!rc && o->cuda) {
    void **dst[2] = {&e->pos, &e->alpha};
    for (int a = 0; a < 2 && !rc; ++a)
      rc = vx_device_alloc(dst[a], bytes ? bytes : 1, err, errlen) || vx_device_upload(*dst[a], host[a], bytes, err, errlen);
    free(host[0]), free(host[1]);
  } else {
    e->pos = host[0], e->alpha = host[1];
  }
  vx_particles_free(&p);
  return rc;
}

static void free_elements(elements *e, int cuda) {
  if (cuda) vx_device_free(e->pos), vx_device_free(e->alpha);
  else free(e->pos), free(e->alpha);
}

/* One frame's two steps, their times in t[0], t[1]; the triangle buffer grows (and the extraction
 * runs again, untimed past its first try) when the surface outgrows it. */
typedef struct {
  vx_vort_grid *grid;
  rd_iso_gpu *iso;
  float *out;
  long cap, n_tri;
  double lo[3], side;
  float vmax;
} frame;

static int grow_out(frame *f, int cuda, long tris, char *err, size_t errlen) {
  const size_t bytes = (size_t)tris * 3 * RD_ISO_FLOATS * sizeof(float);
  if (cuda) {
    vx_device_free(f->out);
    f->out = NULL;
    if (vx_device_alloc((void **)&f->out, bytes, err, errlen)) return -1;
  } else {
    free(f->out);
    if (!(f->out = malloc(bytes))) { snprintf(err, errlen, "out of host memory (%ld triangles)", tris); return -1; }
  }
  f->cap = tris;
  return 0;
}

static int run_frame(frame *f, const options *o, const elements *e, double t[2], char *err, size_t errlen) {
  const float *g;
  const double t0 = vx_clock_ms();
  if (vx_vort_grid_compute(f->grid, e->prec_float ? VX_FLOAT : VX_DOUBLE, e->pos, e->alpha, e->n, e->sigma, o->n, &g, f->lo,
                           &f->side, &f->vmax, err, errlen))
    return -1;
  const double t1 = vx_clock_ms();
  const float level = (float)(o->level * f->vmax);
  for (int pass = 0; pass < 2; ++pass) {
    int rc = o->cuda ? rd_iso_extract_gpu(f->iso, g, o->n, f->lo, f->side, level, f->out, f->cap, &f->n_tri, err, errlen)
                     : rd_iso_extract_cpu(g, o->n, f->lo, f->side, level, f->out, f->cap, &f->n_tri, err, errlen);
    if (rc) return -1;
    if (pass == 0) t[1] = vx_clock_ms() - t1;
    if (f->n_tri <= f->cap) break;
    if (grow_out(f, o->cuda, f->n_tri + f->n_tri / 4, err, errlen)) return -1;
  }
  t[0] = t1 - t0;
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median and least of r times (sorts them). */
static void summary(double *t, int r, double *med, double *least) {
  qsort(t, (size_t)r, sizeof *t, cmp_double);
  *med = r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
  *least = t[0];
}

static int bench(const options *o, const elements *e, char *err, size_t errlen) {
  frame f;
  memset(&f, 0, sizeof f);
  double *t = malloc(sizeof(double) * 3 * (size_t)o->repeats), tt[2];
  int rc = -1;
  if (!t) { snprintf(err, errlen, "out of host memory"); return -1; }
  if (!(f.grid = vx_vort_grid_create(o->cuda, err, errlen)) || (o->cuda && !(f.iso = rd_iso_gpu_create(err, errlen))) ||
      grow_out(&f, o->cuda, 1024, err, errlen))
    goto done;
  for (int i = 0; i < o->warmup + 1; ++i) /* one more: the buffer sized to the surface */
    if (run_frame(&f, o, e, tt, err, errlen)) goto done;
  for (int i = 0; i < o->repeats; ++i) {
    if (run_frame(&f, o, e, tt, err, errlen)) goto done;
    t[i] = tt[0], t[o->repeats + i] = tt[1], t[2 * o->repeats + i] = tt[0] + tt[1];
  }
  printf("  grid: cube lo (%.4g, %.4g, %.4g), side %.4g, spacing %.4g (sigma = %.2f spacings), max |w| %.5g\n", f.lo[0], f.lo[1],
         f.lo[2], f.side, f.side / (o->n - 1), e->sigma * (o->n - 1) / f.side, f.vmax);
  printf("  triangles: %ld at level %.3g (%.2f of the max)\n", f.n_tri, o->level * f.vmax, o->level);
  printf("  %-12s %10s %10s   (%d repeats after %d warm-up)\n", "ms", "median", "min", o->repeats, o->warmup);
  const char *names[3] = {"grid", "extraction", "both"};
  for (int p = 0; p < 3; ++p) {
    double med, least;
    summary(t + (size_t)p * o->repeats, o->repeats, &med, &least);
    printf("  %-12s %10.3f %10.3f\n", names[p], med, least);
  }
  rc = 0;
done:
  if (o->cuda) vx_device_free(f.out);
  else free(f.out);
  rd_iso_gpu_destroy(f.iso);
  vx_vort_grid_destroy(f.grid);
  free(t);
  return rc;
}

int main(int argc, char **argv) {
  const options o = parse(argc, argv);
  char err[512], dev[256] = "";
  elements e;
  if (o.cuda && !vx_cuda_available(dev, sizeof dev)) {
    fprintf(stderr, PROG ": no CUDA device (%s)\n", dev);
    return 1;
  }
  if (load_elements(&o, &e, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
    return 1;
  }
  printf(PROG ": scene %s (%s), %d elements (%s), backend %s (%s), n = %d, sigma = %.4g\n", e.name, e.path, e.n,
         e.prec_float ? "float" : "double", o.cuda ? "cuda" : "cpu", o.cuda ? dev : "OpenMP", o.n, e.sigma);
  if (!o.cuda) printf("  OpenMP threads: %d\n", omp_get_max_threads());
  int rc = bench(&o, &e, err, sizeof err);
  if (rc) fprintf(stderr, PROG ": %s\n", err);
  free_elements(&e, o.cuda);
  return rc ? 1 : 0;
}
