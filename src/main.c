/* main.c — vortexfmm: vortex-ring simulations by the vortex-particle method with FMM velocities.
 * Headless batch mode: load a scene (assets/NAME.scene), advance it N steps, write diagnostics CSV.
 *   vortexfmm --headless --scene leapfrog --steps 2000 --diag leapfrog.csv
 * The interactive window is a later issue; without --headless the program says so (exit 2).
 * Exit codes: 0 done; 1 runtime failure (engine, memory); 2 bad command line or scene file;
 * 3 the simulation blew up (NaN/Inf, or max|α| over 1e6 times its initial value). */
#define _POSIX_C_SOURCE 200809L /* readlink, clock_gettime */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "scene.h"
#include "sim.h"

#define PROG "vortexfmm"
#ifndef VX_ASSETS_DIR
#define VX_ASSETS_DIR "assets"
#endif
/* blow-up threshold: max|α| over this multiple of its initial value */
#define BLOWUP_FACTOR 1e6

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " --headless --scene NAME|FILE [options]\n"
          "  --scene NAME|FILE       a scene file, or NAME for $VX_ASSETS_DIR/NAME.scene\n"
          "                          (built-in: " VX_ASSETS_DIR ", then assets/ beside the program's parent dir)\n"
          "  --steps N               time steps (scene's 'steps')\n"
          "  --dt DT                 time step (scene's 'dt')\n"
          "  --integrator I          euler | rk2 | rk4\n"
          "  --backend B             cpu | cuda | auto\n"
          "  --precision P           double | float\n"
          "  --order P               FMM expansion order 0..%d\n"
          "  --kernel K              singular | poly | rm | wl | gauss\n"
          "  --sigma S               smoothing core radius (default: the scene's)\n"
          "  --stretching S          classical | transpose | none\n"
          "  --direct                direct summation instead of the FMM (O(N^2) reference)\n"
          "  --leaf-size Q           FMM leaf size\n"
          "  --tracers N             total passive tracers (default: the scene's)\n"
          "  --seed S                tracer seeding seed\n"
          "  --diag FILE             diagnostics CSV (one row every --diag-every steps, flushed)\n"
          "  --diag-every K          (scene's 'diag_every')\n"
          "  --energy-max N          compute the kinetic energy only up to N elements (default 131072)\n"
          "  --quiet                 no progress lines\n"
          "  --help\n",
          VX_PMAX);
}

static int fail_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, PROG ": ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, " (see --help)\n");
  va_end(ap);
  return 2;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v)) return -1;
  *out = v;
  return 0;
}
static int parse_ll(const char *s, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

typedef struct {
  int headless, quiet, direct;
  const char *scene, *diag;
  long long steps, diag_every, tracers, seed, order, leaf, energy_max;
  double dt, sigma;
  const char *integrator, *backend, *precision, *kernel, *stretching;
} opts;

int main(int argc, char **argv) {
  opts o;
  memset(&o, 0, sizeof o);
  o.steps = o.diag_every = o.tracers = o.seed = o.order = o.leaf = -1;
  o.energy_max = 131072;
  o.dt = o.sigma = -1.0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
    if (!strcmp(a, "--headless")) { o.headless = 1; continue; }
    if (!strcmp(a, "--direct")) { o.direct = 1; continue; }
    if (!strcmp(a, "--quiet")) { o.quiet = 1; continue; }
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1;
    if (!strcmp(a, "--scene")) o.scene = v;
    else if (!strcmp(a, "--diag")) o.diag = v;
    else if (!strcmp(a, "--integrator")) o.integrator = v;
    else if (!strcmp(a, "--backend")) o.backend = v;
    else if (!strcmp(a, "--precision")) o.precision = v;
    else if (!strcmp(a, "--kernel")) o.kernel = v;
    else if (!strcmp(a, "--stretching")) o.stretching = v;
    else if (!strcmp(a, "--steps") || !strcmp(a, "--diag-every") || !strcmp(a, "--tracers") || !strcmp(a, "--seed") ||
             !strcmp(a, "--order") || !strcmp(a, "--leaf-size") || !strcmp(a, "--energy-max")) {
      if (!v) return fail_usage("option %s needs a value", a);
      long long x;
      if (!strcmp(a, "--steps")) { if (parse_ll(v, 0, INT_MAX, &x)) return fail_usage("bad value for --steps: '%s' (expected an integer >= 0)", v); o.steps = x; }
      else if (!strcmp(a, "--diag-every")) { if (parse_ll(v, 1, INT_MAX, &x)) return fail_usage("bad value for --diag-every: '%s' (expected an integer >= 1)", v); o.diag_every = x; }
      else if (!strcmp(a, "--tracers")) { if (parse_ll(v, 0, 1LL << 30, &x)) return fail_usage("bad value for --tracers: '%s' (expected an integer in 0..2^30)", v); o.tracers = x; }
      else if (!strcmp(a, "--seed")) { if (parse_ll(v, 0, LLONG_MAX, &x)) return fail_usage("bad value for --seed: '%s' (expected an integer >= 0)", v); o.seed = x; }
      else if (!strcmp(a, "--order")) { if (parse_ll(v, 0, VX_PMAX, &x)) return fail_usage("bad value for --order: '%s' (expected an integer in 0..%d)", v, VX_PMAX); o.order = x; }
      else if (!strcmp(a, "--leaf-size")) { if (parse_ll(v, 1, 1 << 20, &x)) return fail_usage("bad value for --leaf-size: '%s' (expected an integer >= 1)", v); o.leaf = x; }
      else { if (parse_ll(v, 0, INT_MAX, &x)) return fail_usage("bad value for --energy-max: '%s' (expected an integer >= 0)", v); o.energy_max = x; }
    } else if (!strcmp(a, "--dt")) {
      if (!v) return fail_usage("option %s needs a value", a);
      if (parse_double(v, &o.dt) || !(o.dt > 0)) return fail_usage("bad value for --dt: '%s' (expected a number > 0)", v);
    } else if (!strcmp(a, "--sigma")) {
      if (!v) return fail_usage("option %s needs a value", a);
      if (parse_double(v, &o.sigma) || !(o.sigma > 0)) return fail_usage("bad value for --sigma: '%s' (expected a number > 0)", v);
    } else {
      return fail_usage("unknown option '%s'", a);
    }
    if (takes) {
      if (!v) return fail_usage("option %s needs a value", a);
      ++i;
    }
  }
  if (!o.headless) {
    fprintf(stderr, PROG ": the interactive mode is not built yet; run with --headless (e.g. " PROG
                    " --headless --scene leapfrog --steps 100)\n");
    return 2;
  }
  if (!o.scene) return fail_usage("--scene is required");

  /* scene: by path or by name */
  char exe_dir[PATH_MAX] = "", path[1024], err[512];
  ssize_t nl = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
  if (nl > 0) {
    exe_dir[nl] = 0;
    char *slash = strrchr(exe_dir, '/');
    if (slash) *slash = 0;
  }
  if (vx_scene_find(o.scene, VX_ASSETS_DIR, nl > 0 ? exe_dir : NULL, path, sizeof path, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
    return 2;
  }
  vx_scene sc;
  if (vx_scene_load(path, &sc, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
    return 2;
  }

  /* parameters: the scene's, then the command line's */
  if (o.seed >= 0) sc.seed = (uint64_t)o.seed;
  vx_sim_params prm = vx_sim_params_from_scene(&sc);
  if (o.integrator && vx_integrator_from_name(o.integrator, &prm.integrator))
    return fail_usage("bad value for --integrator: '%s' (expected euler, rk2 or rk4)", o.integrator);
  if (o.backend && vx_backend_from_name(o.backend, &prm.backend))
    return fail_usage("bad value for --backend: '%s' (expected cpu, cuda or auto)", o.backend);
  if (o.precision && vx_precision_from_name(o.precision, &prm.precision))
    return fail_usage("bad value for --precision: '%s' (expected double or float)", o.precision);
  if (o.kernel && vx_kernel_from_name(o.kernel, &prm.kernel))
    return fail_usage("bad value for --kernel: '%s' (expected singular, poly, rm, wl or gauss)", o.kernel);
  if (o.stretching && vx_stretching_from_name(o.stretching, &prm.stretching))
    return fail_usage("bad value for --stretching: '%s' (expected classical, transpose or none)", o.stretching);
  if (o.dt > 0) prm.dt = o.dt;
  if (o.sigma > 0) prm.sigma = o.sigma;
  if (o.order >= 0) prm.order = (int)o.order;
  if (o.leaf > 0) prm.leaf_size = (int)o.leaf;
  if (o.direct) prm.direct = 1;
  prm.tracers = o.tracers;
  long long steps = o.steps >= 0 ? o.steps : sc.steps;
  long long every = o.diag_every > 0 ? o.diag_every : sc.diag_every;

  vx_sim *sim = vx_sim_create(&prm, &sc, err, sizeof err);
  if (!sim) {
    fprintf(stderr, PROG ": %s\n", err);
    return 1;
  }
  const vx_sim_params *P = vx_sim_params_get(sim);
  fprintf(stderr,
          PROG ": scene %s (%s): %d elements in %d rings, %d tracers; %s backend, %s, %s, dt=%g, %s stretching, "
               "kernel %s sigma=%g, %s",
          sc.name, path, vx_sim_n_elements(sim), vx_sim_n_rings(sim), vx_sim_n_tracers(sim), vx_backend_name(P->backend),
          vx_precision_name(P->precision), vx_integrator_name(P->integrator), P->dt, vx_stretching_name(P->stretching),
          vx_kernel_name(P->kernel), P->sigma, P->direct ? "direct summation" : "FMM");
  if (!P->direct) fprintf(stderr, " order %d", P->order);
  fprintf(stderr, "\n");

  FILE *df = NULL;
  if (o.diag) {
    df = fopen(o.diag, "w");
    if (!df) {
      fprintf(stderr, PROG ": cannot write %s: %s\n", o.diag, strerror(errno));
      vx_sim_destroy(sim);
      return 2;
    }
    vx_diag_csv_header(df, vx_sim_n_rings(sim));
  }
  int rc = 0;
  vx_diag d;
  double a0 = 0.0;
  int bad = 0;
  if (vx_sim_check(sim, &a0, &bad, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); rc = 1; goto done; }
  if (df) {
    if (vx_diag_compute(sim, (int)o.energy_max, &d, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); rc = 1; goto done; }
    vx_diag_csv_row(df, &d);
  }
  double t_start = now_s(), t_last = t_start, ms_sum = 0.0;
  long long ms_n = 0;
  for (long long k = 1; k <= steps; ++k) {
    if (vx_sim_step(sim, err, sizeof err)) { fprintf(stderr, PROG ": step %lld: %s\n", k, err); rc = 1; goto done; }
    ms_sum += vx_sim_last_stats(sim)->t_step;
    ms_n++;
    double amax;
    if (vx_sim_check(sim, &amax, &bad, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); rc = 1; goto done; }
    if (bad || amax > BLOWUP_FACTOR * a0) {
      if (!o.quiet) fprintf(stderr, "\n");
      if (bad)
        fprintf(stderr, PROG ": simulation blew up at step %lld (t=%g): NaN or Inf in the particle state\n", k, vx_sim_time(sim));
      else
        fprintf(stderr, PROG ": simulation blew up at step %lld (t=%g): max|alpha| = %g exceeds %g times its initial value %g\n",
                k, vx_sim_time(sim), amax, BLOWUP_FACTOR, a0);
      rc = 3;
      goto done;
    }
    if (df && (k % every == 0 || k == steps)) {
      if (vx_diag_compute(sim, (int)o.energy_max, &d, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); rc = 1; goto done; }
      vx_diag_csv_row(df, &d);
    }
    double tn = now_s();
    if (!o.quiet && (tn - t_last >= 1.0 || k == steps)) {
      fprintf(stderr, PROG ": step %lld/%lld t=%.6g %.3f ms/step\n", k, steps, vx_sim_time(sim), ms_sum / ms_n);
      t_last = tn;
      ms_sum = 0.0;
      ms_n = 0;
    }
  }
  if (!o.quiet)
    fprintf(stderr, PROG ": done: %lld steps in %.2f s\n", steps, now_s() - t_start);
done:
  if (df) fclose(df);
  vx_sim_destroy(sim);
  return rc;
}
