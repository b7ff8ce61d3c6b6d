/* main.c — vortexfmm: vortex-ring simulations by the vortex-particle method with FMM velocities,
 * drawn live in the look of the design paper's section 3.2. Three ways to run it:
 *   vortexfmm --scene leapfrog                          the interactive window (app_window.c)
 *   vortexfmm --headless --scene leapfrog --frames 300 --png-dir frames
 *                                                        headless images through EGL (app_headless.c)
 *   vortexfmm --headless --scene leapfrog --steps 2000 --diag leapfrog.csv
 *                                                        batch mode: simulation and diagnostics only
 * This file parses the command line (app_usage.c holds the --help text) and runs the mode it asks for.
 * Exit codes (one rule: what you gave is wrong → 2, what happened while running → 1): 0 done; 2 bad
 * command line, or an input it names that cannot be used (a scene file missing, unreadable or
 * malformed; a checkpoint to restart from that is damaged, does not match the options or is already
 * past the --steps or --t-end asked for), options that contradict each other, an output path that is
 * an input, another output, a directory or a FIFO, socket or device (app_paths.h), no display for
 * the window, or under mpirun the window, the HUD, the elements or the vorticity surface; 1 runtime
 * failure: the engine, memory, OpenGL, and every output file (diagnostics, checkpoints, VTK, PNGs,
 * videos, screenshots) that cannot be created or written, whether found at the start or during the
 * run; 3 the simulation blew up (vortex/sim.h's rule: a non-finite value, max|α| above VX_SIM_BLOWUP_FACTOR
 * = 20 times its value at the start, or the kinetic energy VX_SIM_ENERGY_RISE = 5 % of its reference
 * above its lowest); 130 a batch run or a headless recording stopped by Ctrl-C or SIGTERM (files
 * finalized: the diagnostics kept, a checkpoint written). */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_mpi.h"
#include "numerics.h"
#include "app_paths.h"
#include "cli.h"
#include "conserve.h"
#include "fmm.h"
#include "scene.h"
#include "sim.h"
#include "version.h"

#define PROG "vortexfmm"

static int fail_usage(const char *fmt, ...) {
  if (app_mpi_rank() > 0) return 2; /* under mpirun rank 0 says it */
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, PROG ": ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, " (see --help)\n");
  va_end(ap);
  return 2;
}


typedef struct {
  int headless, quiet;
  const char *scene, *diag, *vtk_dir;
  long long steps, diag_every, energy_max, vtk_every;
  double t_end;             /* > 0: run until this simulated time (batch); 0: not given */
  double diag_time;         /* > 0: a diagnostics row every this much simulated time; 0: not given */
  const char *checkpoint, *restart; /* batch: app_checkpoint.h */
  long long checkpoint_every;
  long long accuracy_every; /* batch: the accuracy readout every K steps (0: off) */
  app_overrides ov;
  long long launch[APP_MAX_LAUNCHES]; /* --launch-ring STEP, repeatable (batch and rendering) */
  int n_launch;
  /* rendering */
  long long frames, steps_per_frame, opacity_level;
  int width, height, size_given;
  const char *png_dir, *screenshot, *scene_dir;
  const char *cost_file;    /* --cost-file: the cost model's unit costs (fmm_cost_load) */
  const char *record; double fps; long long png_level; /* recording */
  int fps_given;
  int hud, paused, no_vsync, follow, fraction_given;
  const char *render_opt; /* first rendering-only option seen (an error in batch mode) */
  /* look */
  double fraction, point_size, intensity, gain, glow, depth_cue;
  double iso;               /* --iso LEVEL: the vorticity surface at that share of max|ω| (< 0: off) */
  long long iso_grid;       /* --iso-grid N: its grid's nodes a side (0: the backend's default) */
  int iso_only;             /* --iso-only: the surface without the dye */
  const char *colour;
  long long samples, blur, op_scale;
  int no_opacity, elements, boxes, no_cube, interop_off;
  int sim_thread;           /* --sim-thread: 1 on, 0 off, -1 auto */
} opts;

/* ------------------------------------------------------------------ options that cannot go together */

/* A path option given as '' (a shell variable left empty), named. 0, or 2 said. */
static int check_empty_paths(const opts *o) {
  const struct {
    const char *opt, *v;
  } p[] = {{"--scene", o->scene},       {"--restart", o->restart},       {"--diag", o->diag},
           {"--checkpoint", o->checkpoint}, {"--vtk-dir", o->vtk_dir},   {"--png-dir", o->png_dir},
           {"--screenshot", o->screenshot}, {"--record", o->record},     {"--scene-dir", o->scene_dir},
           {"--cost-file", o->cost_file}};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i)
    if (p[i].v && !p[i].v[0]) {
      fprintf(stderr, PROG ": %s: empty path\n", p[i].opt);
      return 2;
    }
  return 0;
}

/* Batch options that contradict each other or would be ignored. 0, or 2 said. */
static int batch_contradictions(const opts *o) {
  const int outputs = o->diag || o->vtk_dir || o->checkpoint || o->checkpoint_every > 0;
  if (o->t_end > 0 && o->steps >= 0)
    return fail_usage("--t-end and --steps both say where the run ends: give one (--steps N: the step to reach; --t-end T: "
                      "the time)");
  if (o->diag_every > 0 && !outputs)
    return fail_usage("--diag-every sets the interval of --diag's rows: add --diag FILE, or drop --diag-every");
  if (o->diag_time > 0 && o->diag_every > 0)
    return fail_usage("--diag-every and --diag-time both set the interval of --diag's rows: give one");
  if (o->diag_time > 0 && !outputs)
    return fail_usage("--diag-time sets the interval of --diag's rows: add --diag FILE, or drop --diag-time");
  if (o->vtk_every > 0 && !o->vtk_dir)
    return fail_usage("--vtk-every sets the interval of --vtk-dir's snapshots: add --vtk-dir DIR, or drop --vtk-every");
  if (o->steps == 0 && !o->restart && !outputs)
    return fail_usage("--steps 0 takes no step and writes nothing: give --steps N >= 1, or an output (--diag, --vtk-dir, "
                      "--checkpoint) to write the initial state");
  return 0;
}

/* ------------------------------------------------------------------ batch mode (app_batch.c) */

static int run_batch(const opts *o) {
  if (!o->scene && !o->restart) return fail_usage("--scene is required");
  if (o->scene && o->restart) return fail_usage("--restart continues the scene saved in the checkpoint: drop --scene");
  app_batch_options b = {.ov = o->ov, .scene = o->scene, .restart = o->restart, .quiet = o->quiet, .steps = o->steps,
                         .t_end = o->t_end, .diag_every = o->diag_every, .diag_time = o->diag_time, .diag = o->diag, .energy_max = o->energy_max,
                         .vtk_dir = o->vtk_dir, .vtk_every = o->vtk_every, .checkpoint = o->checkpoint,
                         .checkpoint_every = o->checkpoint_every, .accuracy_every = o->accuracy_every,
                         .launch_steps = o->launch, .n_launch = o->n_launch};
  return app_run_batch(&b);
}

/* ------------------------------------------------------------------ rendering modes */

#ifdef VX_HAVE_RENDER
/* Rendering options that would be ignored in the mode asked for. 0, or 2 said. */
static int render_contradictions(const opts *o) {
  if (o->headless && (o->paused || o->no_vsync))
    return fail_usage("%s is for the window: drop it, or drop --headless", o->paused ? "--paused" : "--no-vsync");
  if (o->headless && o->fps_given && !o->record)
    return fail_usage("--fps sets the frame rate of --record's video: add --record FILE.mp4, or drop --fps");
  return 0;
}

/* The rendering modes' files against each other before any is opened (app_paths.h): the scene file
 * as found (a --scene NAME known only to --scene-dir is left to the scene list), the screenshot, the
 * video and the PNG frames. 0, or 2 said. */
static int check_render_paths(const opts *o) {
  char found[1024], err[512];
  app_paths ps;
  ps.n = 0;
  if (!app_find_scene(o->scene ? o->scene : "leapfrog", found, sizeof found, err, sizeof err))
    app_paths_add(&ps, APP_PATH_INPUT, o->scene ? "--scene" : "the default scene", found, NULL);
  app_paths_add(&ps, APP_PATH_FILE, "--screenshot", o->screenshot, NULL);
  app_paths_add(&ps, APP_PATH_FILE, "--record", o->record, NULL);
  app_paths_add(&ps, o->headless ? APP_PATH_PNG_DIR : APP_PATH_DIR, "--png-dir", o->png_dir, NULL);
  return app_paths_check(&ps);
}

static int run_render(const opts *o) {
  int rc = render_contradictions(o);
  if (rc || (rc = check_render_paths(o))) return rc;
  app_options ao;
  memset(&ao, 0, sizeof ao);
  ao.ov = o->ov;
  ao.scene = o->scene;
  ao.scene_dir = o->scene_dir;
  ao.quiet = o->quiet;
  ao.width = o->size_given ? o->width : (o->headless ? 1920 : 1280);
  ao.height = o->size_given ? o->height : (o->headless ? 1080 : 800);
  ao.frames = o->frames;
  ao.steps_per_frame = o->steps_per_frame >= 0 ? (int)o->steps_per_frame : 1;
  ao.png_dir = o->png_dir;
  ao.screenshot = o->screenshot;
  ao.record = o->record;
  ao.fps = o->fps;
  ao.png_level = (int)o->png_level;
  ao.launch_steps = o->launch;
  ao.n_launch = o->n_launch;
  ao.paused = o->paused;
  ao.hud = o->hud;
  ao.no_vsync = o->no_vsync;
  ao.follow = o->follow;
  ao.opacity_level = (int)o->opacity_level;
  ao.fraction_given = o->fraction_given;
  ao.opacity_given = o->samples > 0 || o->op_scale > 0;
  ao.sim_thread = o->sim_thread;
  rd_style s = rd_style_default();
  if (o->fraction_given) s.fraction = (float)o->fraction;
  if (o->point_size > 0) s.point_size = (float)o->point_size;
  if (o->intensity > 0) s.intensity = (float)o->intensity;
  if (o->depth_cue >= 0) s.depth_cue = (float)o->depth_cue;
  if (o->gain > 0) s.gain = (float)o->gain;
  if (o->glow >= 0) s.glow = (float)o->glow;
  if (o->samples > 0) s.samples = (int)o->samples;
  if (o->blur >= 0) s.blur = (int)o->blur;
  if (o->op_scale > 0) s.downscale = (int)o->op_scale;
  if (o->no_opacity) s.opacity = 0;
  if (o->elements) s.show_elements = 1;
  if (o->boxes) s.show_boxes = 1;
  if (o->no_cube) s.show_cube = 0;
  if (o->interop_off) s.interop = 0;
  if (o->iso > 0) s.show_iso = 1, s.iso_level = (float)o->iso;
  if (o->iso_only) s.show_iso = 1, s.show_tracers = 0;
  ao.iso_grid = (int)o->iso_grid;
  ao.style = s;
  ao.colour = -1;
  if (o->colour && (ao.colour = app_colour_from_name(o->colour)) < 0)
    return fail_usage("bad value for --colour: '%s' (expected ring, speed, vorticity, height or plain)", o->colour);
  return o->headless ? app_run_headless(&ao) : app_run_window(&ao);
}
#endif

/* Defaults before the command line: -1 and NULL mean "the scene's" or "not given". */
static void opts_default(opts *o) {
  memset(o, 0, sizeof *o);
  o->steps = o->diag_every = o->frames = o->steps_per_frame = o->vtk_every = -1;
  o->energy_max = 131072;
  o->opacity_level = 6;
  o->fraction = o->point_size = o->intensity = o->gain = o->glow = o->depth_cue = o->iso = -1.0;
  o->samples = o->blur = o->op_scale = -1;
  o->fps = 30.0;
  o->png_level = -1;
  o->sim_thread = -1;
  app_overrides_init(&o->ov);
}

/* A flag without a value: 1 when a is one (set), else 0. Rendering flags are remembered in
 * render_opt for the batch mode's refusal. */
static int parse_flag(opts *o, const char *a) {
  if (!strcmp(a, "--headless")) { o->headless = 1; return 1; }
  if (!strcmp(a, "--direct")) { o->ov.direct = 1; return 1; }
  if (!strcmp(a, "--quiet")) { o->quiet = 1; return 1; }
  int *flag = !strcmp(a, "--hud")          ? &o->hud
              : !strcmp(a, "--paused")     ? &o->paused
              : !strcmp(a, "--no-vsync")   ? &o->no_vsync
              : !strcmp(a, "--follow")     ? &o->follow
              : !strcmp(a, "--no-opacity") ? &o->no_opacity
              : !strcmp(a, "--elements")   ? &o->elements
              : !strcmp(a, "--boxes")      ? &o->boxes
              : !strcmp(a, "--no-cube")    ? &o->no_cube
              : !strcmp(a, "--iso-only")   ? &o->iso_only
                                           : NULL;
  if (!flag) return 0;
  *flag = 1;
  if (!o->render_opt) o->render_opt = a;
  return 1;
}

/* An option given without its value (the last argument): its message. */
static int missing_value(const char *a) {
  static const char *known[] = {"--scene", "--diag", "--integrator", "--backend", "--precision", "--kernel",
                                "--stretching", "--steps", "--diag-every", "--diag-time", "--tracers", "--seed", "--order",
                                "--leaf-size", "--energy-max", "--dt", "--sigma", "--frames", "--steps-per-frame",
                                "--size", "--png-dir", "--screenshot", "--fraction", "--point-size", "--intensity", "--depth-cue", "--iso", "--iso-grid",
                                "--relax", "--relax-every", "--remesh-every", "--remesh-h", "--remesh-drop", "--remesh-coarsen",
                                "--viscosity", "--conserve", "--resolution", "--t-end", "--lcfl", "--tracer-every", "--dye-release", "--vtk-dir", "--vtk-every",
                                "--checkpoint", "--checkpoint-every", "--restart", "--accuracy-every",
                                "--gain", "--glow", "--ray-samples", "--blur", "--opacity-scale",
                                "--opacity-level", "--interop", "--record", "--fps", "--png-level", "--scene-dir",
                                "--launch-ring", "--colour", "--sim-thread", "--cost-file", NULL};
  for (int k = 0; known[k]; ++k)
    if (!strcmp(a, known[k])) return fail_usage("option %s needs a value", a);
  return fail_usage("unknown option '%s'", a);
}

/* A run option a (scene, outputs, checkpoints, run length) with its value v: 0 taken, 2 a bad value
 * (said), -1 not one of these. */
static int parse_run_option(opts *o, const char *a, const char *v) {
  long long x;
  if (!strcmp(a, "--scene")) o->scene = v;
  else if (!strcmp(a, "--cost-file")) o->cost_file = v;
  else if (!strcmp(a, "--diag")) o->diag = v;
  else if (!strcmp(a, "--checkpoint")) o->checkpoint = v;
  else if (!strcmp(a, "--restart")) o->restart = v;
  else if (!strcmp(a, "--checkpoint-every")) {
    if (vx_cli_int(v, 1, INT_MAX, &x)) return fail_usage("bad value for --checkpoint-every: '%s' (expected an integer >= 1)", v);
    o->checkpoint_every = x;
  }
  else if (!strcmp(a, "--accuracy-every")) {
    if (vx_cli_int(v, 1, INT_MAX, &x)) return fail_usage("bad value for --accuracy-every: '%s' (expected an integer >= 1)", v);
    o->accuracy_every = x;
  } else if (!strcmp(a, "--launch-ring")) {
    if (vx_cli_int(v, 1, INT_MAX, &x)) return fail_usage("bad value for --launch-ring: '%s' (expected a step number >= 1)", v);
    if (o->n_launch >= APP_MAX_LAUNCHES) return fail_usage("too many --launch-ring (at most %d)", APP_MAX_LAUNCHES);
    o->launch[o->n_launch++] = x;
  }
  else if (!strcmp(a, "--vtk-dir")) o->vtk_dir = v;
  else if (!strcmp(a, "--vtk-every")) {
    if (vx_cli_int(v, 1, INT_MAX, &x)) return fail_usage("bad value for --vtk-every: '%s' (expected an integer >= 1)", v);
    o->vtk_every = x;
  }
  else if (!strcmp(a, "--steps")) {
    if (vx_cli_int(v, 0, INT_MAX, &x)) return fail_usage("bad value for --steps: '%s' (expected an integer >= 0)", v);
    o->steps = x;
  } else if (!strcmp(a, "--diag-time")) {
    if (vx_cli_real(v, &o->diag_time) || !(o->diag_time > 0.0 && isfinite(o->diag_time)))
      return fail_usage("bad value for --diag-time: '%s' (expected a simulated time > 0)", v);
  } else if (!strcmp(a, "--diag-every")) {
    if (vx_cli_int(v, 1, INT_MAX, &x)) return fail_usage("bad value for --diag-every: '%s' (expected an integer >= 1)", v);
    o->diag_every = x;
  } else if (!strcmp(a, "--energy-max")) {
    if (vx_cli_int(v, 0, INT_MAX, &x)) return fail_usage("bad value for --energy-max: '%s' (expected an integer >= 0)", v);
    o->energy_max = x;
  } else {
    return -1;
  }
  return 0;
}

/* A physics option a (the scene's values overridden) with its value v: 0 taken, 2 a bad value (said),
 * -1 not one of these. --t-end is read here with the other bounded reals. */
static int parse_physics_option(opts *o, const char *a, const char *v) {
  long long x;
  double d;
  if (!strcmp(a, "--integrator")) {
    vx_integrator it;
    if (vx_integrator_from_name(v, &it)) return fail_usage("bad value for --integrator: '%s' (expected euler, rk2 or rk4)", v);
    o->ov.integrator = (int)it;
  } else if (!strcmp(a, "--backend")) {
    vx_backend b;
    if (vx_backend_from_name(v, &b)) return fail_usage("bad value for --backend: '%s' (expected cpu, cuda or auto)", v);
    o->ov.backend = (int)b;
  } else if (!strcmp(a, "--precision")) {
    vx_precision p;
    if (vx_precision_from_name(v, &p)) return fail_usage("bad value for --precision: '%s' (expected double or float)", v);
    o->ov.precision = (int)p;
  } else if (!strcmp(a, "--kernel")) {
    vx_kernel k;
    if (vx_kernel_from_name(v, &k)) return fail_usage("bad value for --kernel: '%s' (expected singular, poly, rm, wl or gauss)", v);
    o->ov.kernel = (int)k;
  } else if (!strcmp(a, "--resolution")) {
    vx_resolution r;
    if (vx_resolution_from_name(v, &r)) return fail_usage("bad value for --resolution: '%s' (expected coarse, normal or fine)", v);
    o->ov.resolution = (int)r;
  } else if (!strcmp(a, "--conserve")) {
    if (vx_conserve_from_name(v, &o->ov.conserve))
      return fail_usage("bad value for --conserve: '%s' (expected off, axial, full or ring)", v);
  } else if (!strcmp(a, "--stretching")) {
    vx_stretching st;
    if (vx_stretching_from_name(v, &st))
      return fail_usage("bad value for --stretching: '%s' (expected classical, transpose or none)", v);
    o->ov.stretching = (int)st;
  } else if (!strcmp(a, "--tracers")) {
    if (vx_cli_int(v, 0, VX_SCENE_TRACERS_MAX, &x)) return fail_usage("bad value for --tracers: '%s' (expected an integer in 0..2^30)", v);
    o->ov.tracers = x;
  } else if (!strcmp(a, "--seed")) {
    if (vx_cli_int(v, 0, LLONG_MAX, &x)) return fail_usage("bad value for --seed: '%s' (expected an integer >= 0)", v);
    o->ov.seed = x;
  } else if (!strcmp(a, "--order")) {
    if (vx_cli_int(v, 0, VX_PMAX, &x)) return fail_usage("bad value for --order: '%s' (expected an integer in 0..%d)", v, VX_PMAX);
    o->ov.order = (int)x;
  } else if (!strcmp(a, "--leaf-size")) {
    if (vx_cli_int(v, 1, VX_SCENE_LEAF_MAX, &x)) return fail_usage("bad value for --leaf-size: '%s' (expected an integer >= 1)", v);
    o->ov.leaf = (int)x;
  } else if (!strcmp(a, "--dt")) {
    if (vx_cli_real(v, &o->ov.dt) || !(o->ov.dt >= VX_SCENE_DT_MIN && o->ov.dt <= VX_SCENE_DT_MAX))
      return fail_usage("bad value for --dt: '%s' (expected a number in [%g, %g])", v, VX_SCENE_DT_MIN, VX_SCENE_DT_MAX);
  } else if (!strcmp(a, "--relax") || !strcmp(a, "--remesh-h") || !strcmp(a, "--remesh-drop") || !strcmp(a, "--remesh-coarsen") ||
             !strcmp(a, "--viscosity") || !strcmp(a, "--t-end") || !strcmp(a, "--lcfl")) {
    double hi = !strcmp(a, "--relax") ? 1.0 : !strcmp(a, "--remesh-drop") ? 0.1 : !strcmp(a, "--lcfl") || !strcmp(a, "--remesh-coarsen") ? 10.0 : 1e6;
    int t_end = !strcmp(a, "--t-end"); /* 0 would take no step: > 0 */
    if (vx_cli_real(v, &d) || !((t_end ? d > 0 : d >= 0) && d <= hi))
      return fail_usage("bad value for %s: '%s' (expected a number in %s0, %g])", a, v, t_end ? "(" : "[", hi);
    if (!strcmp(a, "--relax")) o->ov.relax = d;
    else if (!strcmp(a, "--remesh-h")) o->ov.remesh_h = d;
    else if (!strcmp(a, "--remesh-drop")) o->ov.remesh_drop = d;
    else if (!strcmp(a, "--remesh-coarsen")) o->ov.remesh_coarsen = d;
    else if (!strcmp(a, "--viscosity")) o->ov.viscosity = d;
    else if (!strcmp(a, "--lcfl")) o->ov.lcfl = d;
    else o->t_end = d;
  } else if (!strcmp(a, "--tracer-every")) {
    if (vx_cli_int(v, 1, 4, &x) || !vx_tracer_every_ok((long)x))
      return fail_usage("bad value for --tracer-every: '%s' (expected 1, 2 or 4)", v);
    o->ov.tracer_every = (int)x;
  } else if (!strcmp(a, "--dye-release")) { /* 0: off; its tracer step's bound is vx_sim_params_check's */
    if (vx_cli_real(v, &d) || !(d == 0 || (d >= VX_SCENE_DT_MIN && d <= VX_SCENE_LIFE_MAX)))
      return fail_usage("bad value for --dye-release: '%s' (expected 0 (off) or a lifetime in [%g, %g])", v, VX_SCENE_DT_MIN,
                        VX_SCENE_LIFE_MAX);
    o->ov.dye_release = d;
  } else if (!strcmp(a, "--relax-every") || !strcmp(a, "--remesh-every")) {
    int every = !strcmp(a, "--relax-every");
    if (vx_cli_int(v, every ? 1 : 0, VX_SCENE_EVERY_MAX, &x))
      return fail_usage("bad value for %s: '%s' (expected an integer in %d..%d)", a, v, every ? 1 : 0, VX_SCENE_EVERY_MAX);
    if (every) o->ov.relax_every = (int)x;
    else o->ov.remesh_every = (int)x;
  } else if (!strcmp(a, "--sigma")) {
    if (vx_cli_real(v, &o->ov.sigma) || !(o->ov.sigma >= VX_SCENE_LEN_MIN && o->ov.sigma <= VX_SCENE_LEN_MAX))
      return fail_usage("bad value for --sigma: '%s' (expected a number in [%g, %g])", v, VX_SCENE_LEN_MIN, VX_SCENE_LEN_MAX);
  } else {
    return -1;
  }
  return 0;
}

/* A rendering option a with its value v: 0 taken, 2 a bad value (said), -1 unknown. */
static int parse_render_option(opts *o, const char *a, const char *v) {
  long long x;
  double d;
  if (!strcmp(a, "--frames")) {
    if (vx_cli_int(v, 1, INT_MAX, &x)) return fail_usage("bad value for --frames: '%s' (expected an integer >= 1)", v);
    o->frames = x;
  } else if (!strcmp(a, "--steps-per-frame")) {
    if (vx_cli_int(v, 0, 1 << 20, &x)) return fail_usage("bad value for --steps-per-frame: '%s' (expected an integer >= 0)", v);
    o->steps_per_frame = x;
  } else if (!strcmp(a, "--size")) {
    int w = 0, h = 0;
    char c = 0;
    if (sscanf(v, "%dx%d%c", &w, &h, &c) != 2 || w < 16 || h < 16 || w > 16384 || h > 16384)
      return fail_usage("bad value for --size: '%s' (expected WxH, e.g. 1920x1080, 16..16384 each)", v);
    o->width = w;
    o->height = h;
    o->size_given = 1;
  } else if (!strcmp(a, "--png-dir")) o->png_dir = v;
  else if (!strcmp(a, "--scene-dir")) o->scene_dir = v;
  else if (!strcmp(a, "--screenshot")) o->screenshot = v;
  else if (!strcmp(a, "--record")) o->record = v;
  else if (!strcmp(a, "--fps")) {
    if (vx_cli_real(v, &o->fps) || !(o->fps > 0 && o->fps <= 1000)) return fail_usage("bad value for --fps: '%s' (expected a number in (0, 1000])", v);
    o->fps_given = 1;
  } else if (!strcmp(a, "--png-level")) {
    if (vx_cli_int(v, 0, 9, &x)) return fail_usage("bad value for --png-level: '%s' (expected an integer in 0..9)", v);
    o->png_level = x;
  }
  else if (!strcmp(a, "--fraction")) {
    if (vx_cli_real(v, &o->fraction) || !(o->fraction > 0 && o->fraction <= 1))
      return fail_usage("bad value for --fraction: '%s' (expected a number in (0, 1])", v);
    o->fraction_given = 1;
  } else if (!strcmp(a, "--iso")) {
    if (vx_cli_real(v, &o->iso) || !(o->iso > 0 && o->iso < 1))
      return fail_usage("bad value for --iso: '%s' (expected a share of max|vorticity| in (0, 1), e.g. 0.3)", v);
  } else if (!strcmp(a, "--iso-grid")) {
    if (vx_cli_int(v, APP_ISO_GRID_MIN, APP_ISO_GRID_MAX, &x))
      return fail_usage("bad value for --iso-grid: '%s' (expected an integer in %d..%d)", v, APP_ISO_GRID_MIN, APP_ISO_GRID_MAX);
    o->iso_grid = x;
  } else if (!strcmp(a, "--depth-cue")) {
    if (vx_cli_real(v, &o->depth_cue) || !(o->depth_cue >= 0 && o->depth_cue <= 4))
      return fail_usage("bad value for --depth-cue: '%s' (expected a number in [0, 4])", v);
  } else if (!strcmp(a, "--point-size") || !strcmp(a, "--intensity") || !strcmp(a, "--gain") || !strcmp(a, "--glow")) {
    int glow = !strcmp(a, "--glow");
    if (vx_cli_real(v, &d) || !(glow ? d >= 0 : d > 0) || d > 1e3)
      return fail_usage("bad value for %s: '%s' (expected a number %s)", a, v, glow ? ">= 0" : "> 0");
    if (!strcmp(a, "--point-size")) o->point_size = d;
    else if (!strcmp(a, "--intensity")) o->intensity = d;
    else if (!strcmp(a, "--gain")) o->gain = d;
    else o->glow = d;
  } else if (!strcmp(a, "--ray-samples")) {
    if (vx_cli_int(v, 1, 4096, &x)) return fail_usage("bad value for --ray-samples: '%s' (expected an integer in 1..4096)", v);
    o->samples = x;
  } else if (!strcmp(a, "--blur")) {
    if (vx_cli_int(v, 0, 64, &x)) return fail_usage("bad value for --blur: '%s' (expected an integer in 0..64)", v);
    o->blur = x;
  } else if (!strcmp(a, "--opacity-scale")) {
    if (vx_cli_int(v, 1, 16, &x)) return fail_usage("bad value for --opacity-scale: '%s' (expected an integer in 1..16)", v);
    o->op_scale = x;
  } else if (!strcmp(a, "--opacity-level")) {
    if (vx_cli_int(v, 0, 8, &x) || x == 1) /* 8^8 cells = 64 MiB of counts */
      return fail_usage("bad value for --opacity-level: '%s' (expected 0 or an integer in 2..8)", v);
    o->opacity_level = x;
  } else if (!strcmp(a, "--colour")) {
    o->colour = v; /* checked by run_render: the names live with the colour modes (app_colour.c) */
  } else if (!strcmp(a, "--sim-thread")) {
    if (strcmp(v, "auto") && strcmp(v, "on") && strcmp(v, "off"))
      return fail_usage("bad value for --sim-thread: '%s' (expected auto, on or off)", v);
    o->sim_thread = !strcmp(v, "auto") ? -1 : !strcmp(v, "on");
  } else if (!strcmp(a, "--interop")) {
    if (strcmp(v, "auto") && strcmp(v, "off")) return fail_usage("bad value for --interop: '%s' (expected auto or off)", v);
    o->interop_off = !strcmp(v, "off");
  } else {
    return -1;
  }
  return 0;
}

/* The mode the options ask for, run: batch, headless frames or the window. */
static int run_mode(opts *o) {
  char err[512];
  if (check_empty_paths(o)) return 2;
  if (o->cost_file && fmm_cost_load(o->cost_file, err, sizeof err)) return fail_usage("--cost-file: %s", err);
  int batch = o->headless && o->frames < 0 && !o->screenshot;
  if (batch) {
    if (o->render_opt) return fail_usage("%s is for rendering: add --frames N to --headless, or drop --headless", o->render_opt);
    return batch_contradictions(o) ? 2 : run_batch(o);
  }
  const char *batch_opt = o->steps >= 0 ? "--steps" : o->diag ? "--diag" : o->diag_every > 0 ? "--diag-every" : o->diag_time > 0 ? "--diag-time"
                          : o->vtk_dir ? "--vtk-dir" : o->vtk_every > 0 ? "--vtk-every"
                          : o->checkpoint ? "--checkpoint" : o->checkpoint_every > 0 ? "--checkpoint-every"
                          : o->restart ? "--restart" : o->accuracy_every > 0 ? "--accuracy-every" : NULL;
  if (batch_opt)
    return fail_usage("%s is for the batch mode (--headless without --frames); with frames use --steps-per-frame", batch_opt);
  if (!o->headless) {
    const char *disp = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if ((!disp || !*disp) && (!wl || !*wl)) {
      fprintf(stderr, PROG ": no display to open a window on (DISPLAY is not set); run with --headless, e.g. " PROG
                      " --headless --scene leapfrog --frames 100 --png-dir frames\n");
      return 2;
    }
  }
#ifdef VX_HAVE_RENDER
  return run_render(o);
#else
  fprintf(stderr, PROG ": this build has no renderer (configured with -DVX_ENABLE_RENDER=OFF); run the batch mode with "
                  "--headless (e.g. " PROG " --headless --scene leapfrog --steps 100)\n");
  return 2;
#endif
}

/* --help-keys: the window's bindings as the Markdown table README.md shows (app_keys.c). */
static int help_keys(void) {
#ifdef VX_HAVE_RENDER
  app_keys_markdown(stdout);
  return 0;
#else
  fprintf(stderr, PROG ": this build has no window (configured with -DVX_ENABLE_RENDER=OFF): no keys to list\n");
  return 2;
#endif
}

/* The process count and this process's rank when an MPI launcher started it (Open MPI's and the PMI
 * variables MPICH and Slurm's PMI set); 1 otherwise. */
static long launched_processes(long *rank) {
  static const char *size_var[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, *rank_var[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK"};
  for (int k = 0; k < 2; ++k) {
    const char *n = getenv(size_var[k]), *r = getenv(rank_var[k]);
    long size = n ? strtol(n, NULL, 10) : 0;
    if (size > 1) {
      *rank = r ? strtol(r, NULL, 10) : 0;
      return size;
    }
  }
  *rank = 0;
  return 1;
}

/* The command line, then the mode it asks for. */
static int run_args(int argc, char **argv) {
  opts o;
  opts_default(&o);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { app_usage(stdout); return 0; }
    if (!strcmp(a, "--help-keys")) return help_keys();
    if (!strcmp(a, "--version")) { printf(PROG " %s (commit %s)\n", vx_version(), vx_git_commit()); return 0; }
    if (parse_flag(&o, a)) continue;
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strncmp(a, "--", 2) && !v) return missing_value(a); /* every remaining known option takes a value */
    int rc = parse_run_option(&o, a, v);
    if (rc == -1) rc = parse_physics_option(&o, a, v);
    if (rc == -1) {
      rc = parse_render_option(&o, a, v);
      if (rc == -1) return fail_usage("unknown option '%s'", a);
      if (rc == 0 && !o.render_opt) o.render_opt = a;
    }
    if (rc) return rc;
    ++i;
  }
  if (app_mpi_size() > 1) {
    if (!o.headless)
      return fail_usage("started as %d MPI processes: the window does not run over several (--headless: the batch mode, or "
                        "with --frames the pictures)", app_mpi_size());
    const char *one = o.hud ? "--hud" : o.elements ? "--elements" : (o.iso > 0 || o.iso_only) ? "--iso" : NULL;
    if (!(o.frames < 0 && !o.screenshot) && one) /* each process holds a share of the elements: what they draw is not summed */
      return fail_usage("started as %d MPI processes: %s is drawn by one process only", app_mpi_size(), one);
  }
  return run_mode(&o);
}

int main(int argc, char **argv) {
  /* every kernel loaded when CUDA starts, not at its first launch: lazily loaded, the kernels a
   * launched ring or a panel change first calls stall that frame by milliseconds (docs/BENCHMARKS.md,
   * "Frames"); one's own setting is kept */
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  long rank, procs = launched_processes(&rank);
  int rc = app_mpi_begin(&argc, &argv, procs, rank); /* under mpirun: one batch run over the processes (app_mpi.h) */
  if (!rc) rc = run_args(argc, argv);
  app_mpi_end();
  return rc;
}
