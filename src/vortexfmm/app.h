/* app.h — the vortexfmm program around the simulation (vortex/) and the renderer (render/):
 *   app_params.c    scene values overridden by the command line (batch mode uses it too)
 *   app_usage.c     the --help text
 *   app_paths.c     a run's files checked against each other before any is written (app_paths.h)
 *   app_core.c      the start and end of the app (scenes listed, first simulation, readout), messages
 *   app_scenes.c    the scene picker's list and a --scene found in it
 *   app_sim.c       the simulation's life: started, reset, another scene, engine rebuilt with the state kept
 *   app_settings.c  the panel's and the keys' settings applied live
 *   app_actions.c   reset, scene saved, rings launched and removed, the scene's camera
 *   app_frame.c     the frame's steps, the accuracy readout's requests (vortex/accuracy.h), hand-off to
 *                   the renderer
 *   app_steps.c     a batch of steps: in the render loop, or on the window's simulation thread
 *   app_shown.c     the state on screen: what the renderer and the HUD read (a copy on that thread's path)
 *   app_keys.c      the window's key and mouse bindings: one table for the keys, the help and --help-keys
 *   app_window.c    the GLFW window: context, input (orbit / pan / zoom, the keys table), frame loop
 *   app_headless.c  EGL frames into PNG files (--headless --frames N)
 *   app_record.c    recording: a video (--record, or M in the window) and --png-dir frames
 *   app_ui.cpp      Dear ImGui: HUD, help overlay, legends (app_panel.cpp: the settings panel)
 * The panel and the keys only edit app.set (and raise app.act_*); app_update applies the
 * difference to what is in effect (app.cur), through the vx_sim setters where physics allows.
 * In the window on the cpu backend the steps run on a thread of their own (app_stepper) while the
 * render loop draws the last completed state (app_shown); app_update applies the settings and the
 * actions between two batches of steps, when the simulation is the render thread's again. */
#ifndef VX_APP_H
#define VX_APP_H

#include <stddef.h>
#include <stdio.h>
#include "accuracy.h"
#include "passage.h"
#include "scene.h"
#include "sim.h"

#ifdef VX_HAVE_RENDER
#include "mem.h"
#include "record.h"
#include "render.h"
#include "tracer_colour.h"
#endif

VX_EXTERN_C_BEGIN

/* Command-line values that override a scene's (sentinels: the scene's own value). */
typedef struct {
  int integrator, backend, precision, kernel, stretching; /* -1: the scene's */
  double dt, sigma;                                       /* <= 0: the scene's */
  int order, leaf;                                        /* -1: the scene's */
  int direct;                                             /* 1: direct summation */
  int conserve;                                           /* -1: the scene's; vx_conserve_mode (conserve.h) */
  int resolution;                                         /* -1: the scene's; else vx_resolution, the numerics derived anew */
  long long tracers, seed;                                /* -1: the scene's */
  /* long-run control (-1: the scene's) */
  double relax, remesh_h, remesh_drop, remesh_coarsen, viscosity, lcfl;
  int relax_every, remesh_every;
  int tracer_every;                                       /* -1: the scene's; 1, 2 or 4 */
  double dye_release;                                     /* < 0: the scene's; the dye's lifetime (0: off) */
} app_overrides;

void app_overrides_init(app_overrides *ov);
/* The scene's run parameters with the overrides applied (the seed goes into *sc). */
vx_sim_params app_sim_params(vx_scene *sc, const app_overrides *ov);

/* Rows of k timings (ms) kept for closing medians: the first `skip` rows added are left out
 * (warm-up), and at most APP_SERIES_CAP rows are kept (later ones are not recorded). */
#define APP_SERIES_CAP 100000
typedef struct {
  int k, skip;
  long long cap, n, seen;
  double *v; /* column j at v + j * cap */
} app_series;
/* rows: how many rows will be added (sizes the storage). 0, or -1 when out of host memory. */
int app_series_init(app_series *s, int k, int skip, long long rows);
void app_series_add(app_series *s, const double *row);
/* The largest value of column j and the row it was added at (counting the skipped ones; -1 when no
 * row was kept). Before app_series_median, which reorders the column. */
double app_series_max(const app_series *s, int j, long long *row);
/* Median of column j (sorts it in place); 0 when no row was kept. */
double app_series_median(app_series *s, int j);
void app_series_free(app_series *s);

/* The HUD's frame-time readout (app_series.c): the last APP_FRAMES_N frame times, and fps and
 * ms / frame both read off their median, so the two always agree (fps = 1000 / ms) and one slow
 * frame (a reset, a rebuild: seconds) moves neither. */
#define APP_FRAMES_N 30
typedef struct {
  double ms[APP_FRAMES_N];
  int n, next; /* frames held (<= APP_FRAMES_N); where the next one goes */
} app_frames;
void app_frames_add(app_frames *f, double ms);
/* Median of the frames held (ms); 0 when none. */
double app_frames_median(const app_frames *f);
/* "22.8 fps  43.9 ms / frame (median of last 30 frames)" into out; the fps printed is 1000 / the
 * ms printed, as rounded; "- fps" before the first frame. */
void app_frames_text(const app_frames *f, char *out, size_t len);

/* The HUD's steps per second (app_series.c): steps completed over the wall time between the ends of
 * the last APP_RATE_N batches of steps, so that a batch of seconds on the simulation thread and a
 * step per frame in the render loop read alike. Cleared while the steps stop (paused). */
#define APP_RATE_N 8
typedef struct {
  double t[APP_RATE_N];     /* when a batch ended (app_now) */
  long long steps[APP_RATE_N]; /* steps completed by then */
  int n, next;
} app_rate;
void app_rate_add(app_rate *r, double t, long long steps);
void app_rate_clear(app_rate *r);
/* Steps per second over the batches held; 0 with fewer than two. */
double app_rate_per_s(const app_rate *r);

/* Seconds on the monotonic clock (app_series.c): the one clock of the program's timings. */
double app_now(void);

/* The most --launch-ring options one run takes. */
#define APP_MAX_LAUNCHES 64

/* Batch mode (app_batch.c): the simulation and its outputs, no GL. */
typedef struct {
  app_overrides ov;
  const char *scene;          /* name or path; NULL with restart */
  const char *restart;        /* a checkpoint to continue (app_checkpoint.h), or NULL */
  int quiet;
  long long steps;            /* -1: the scene's */
  double t_end;               /* > 0: run until this simulated time instead */
  long long diag_every;       /* <= 0: the scene's */
  double diag_time;           /* > 0: instead, a row every this much simulated time (whole steps, at least 1) */
  const char *diag;           /* diagnostics CSV, or NULL */
  long long energy_max;       /* energy computed up to this many elements */
  const char *vtk_dir;        /* ParaView series here, or NULL */
  long long vtk_every;        /* <= 0: the diagnostics interval */
  const char *checkpoint;     /* app_checkpoint.h */
  long long checkpoint_every;
  long long accuracy_every;   /* > 0: the accuracy readout (vortex/accuracy.h) every K steps, diag columns */
  const long long *launch_steps; /* --launch-ring: a ring launched just before each of these steps */
  int n_launch;
} app_batch_options;
/* Run it; the exit code as main.c documents (0, 1, 2, 3 blow-up, 130 interrupted). */
int app_run_batch(const app_batch_options *o);

/* The --help text (app_usage.c). */
void app_usage(FILE *f);

/* Ctrl-C (SIGINT) and SIGTERM set a flag instead of ending the process (app_interrupt.c), while
 * on: the run stops at its next step or frame with its files finalized. catch(1) also clears the
 * flag; a second signal acts as it would have without us. */
void app_interrupt_catch(int on);
int app_interrupted(void);   /* the signal caught since catch(1); 0 if none */

/* The vorticity surface's grid: nodes a side (--iso-grid, the panel), and the defaults, which keep
 * it within a few milliseconds a frame on each backend (docs/BENCHMARKS.md). */
#define APP_ISO_GRID_MIN 16
#define APP_ISO_GRID_MAX 256
#define APP_ISO_GRID_CUDA 128
#define APP_ISO_GRID_CPU 64

#ifdef VX_HAVE_RENDER

#define APP_MAX_SCENES 64 /* entries of the scene picker: built-in, --scene-dir and per-user scenes */
/* Where a picker entry came from (vx_scene_entry.origin). */
enum { APP_SCENES_BUILTIN = 0, APP_SCENES_DIR = 1, APP_SCENES_USER = 2, APP_SCENES_ARG = 3 };

/* What colours the tracers (app_colour.c): one colour, the ring each was seeded around, or a
 * quantity through the colour map: speed |u|, vorticity |ω|, height along the direction of travel. */
typedef enum {
  APP_COLOUR_PLAIN = 0, APP_COLOUR_RING, APP_COLOUR_SPEED, APP_COLOUR_VORTICITY, APP_COLOUR_HEIGHT, APP_COLOURS
} app_colour;
const char *app_colour_name(int c);                /* "plain", "ring", "speed", "vorticity", "height" */
int app_colour_from_name(const char *name);        /* -1: unknown */
/* The quantity a mode encodes, with its unit, for the colour bar ("speed |u|", ...); NULL for plain / ring. */
const char *app_colour_quantity(int c);

typedef struct {
  app_overrides ov;
  const char *scene;        /* name or path; NULL: leapfrog */
  const char *scene_dir;    /* --scene-dir: more scenes for the picker (and --scene NAME), or NULL */
  int quiet;
  int width, height;        /* window or image size */
  long long frames;         /* > 0: stop after that many frames */
  int steps_per_frame;
  const char *png_dir;      /* headless: frame_%05d.png here; window: screenshots (P / F12) here */
  const char *screenshot;   /* the last frame (headless) or the window after --frames (window) */
  int paused, hud, no_vsync, follow; /* follow: --follow (else the scene's camera_follow) */
  int opacity_level;        /* 0: the octree's finest level; else 2..8 */
  rd_style style;
  int fraction_given;       /* --fraction given (else chosen from the tracer count) */
  int opacity_given;        /* --ray-samples or --opacity-scale given (else the window may lighten the pass) */
  const char *record;       /* the video file (--record FILE.mp4); window: recorded from its start */
  double fps;               /* frame rate of recorded videos (--fps; > 0) */
  int png_level;            /* zlib level of --png-dir frames, 0..9; -1: libpng's default */
  const long long *launch_steps; /* --launch-ring: a ring launched from the camera just before each */
  int n_launch;                  /* of these steps (app_take_launches) */
  int colour;               /* app_colour (--colour); -1: ring for a scene of several rings, else plain */
  int iso_grid;             /* --iso-grid: the vorticity surface's nodes a side; 0: the backend's default */
  /* (tracer colours: see app_colour below) */
  int sim_thread;           /* window, cpu backend: steps on their own thread; -1 (auto): unless --frames,
                               --screenshot or --record asks for a frame per batch of steps */
  void (*wake)(void);       /* window: called on the simulation thread when a batch ends (or NULL) */
} app_options;

/* A batch of time steps and what came of it (app_steps.c). */
typedef struct {
  int n;                    /* steps asked */
  struct app_mpi_run *mpi;  /* under mpirun: the simulation spread over the processes (app_mpi.h), else NULL */
  int tried, done;          /* steps begun (a failed one included) and completed */
  int rc;                   /* 0; VX_SIM_BLOWUP or -1 when a step blew up or failed (err says why) */
  int health;               /* the blow-up rule after the batch (vx_sim_health): 0, VX_SIM_BLOWUP, -1 */
  double lcfl;              /* vx_health.lcfl after it */
  double energy_ratio;      /* vx_health.energy / energy0 after it (NaN: not measured yet) */
  double energy_rise;       /* (energy - energy_min) / energy0, what the blow-up rule judges */
  int levels;               /* octree levels of the last evaluation */
  int tracer_span;          /* the last step's vx_step_stats.tracer_span */
  double ms_tree, ms_far, ms_near, ms_integrate, ms_remesh, ms_step; /* summed over its steps */
  double ms_health;         /* the blow-up rule's check after them */
  double t0, t1;            /* wall clock at its start and end (app_now) */
  char err[512];
} app_steps;

/* The window's simulation thread (app_steps.c): it runs one batch at a time; between batches the
 * simulation is the caller's. */
typedef struct app_stepper app_stepper;
/* done (may be NULL) is called on the thread after each batch, once it can be taken. */
app_stepper *app_stepper_create(void (*done)(void), char *err, size_t errlen);
/* Ends the batch in flight after its current step, waits for it, joins the thread (NULL: no-op). */
void app_stepper_destroy(app_stepper *w);
/* Run j->n steps of sim on the thread (j->n > 0); the thread must hold no batch (app_stepper_take). */
void app_stepper_start(app_stepper *w, vx_sim *sim, const app_steps *j);
/* Ask the batch in flight to end after the step it is in (nothing when none is). */
void app_stepper_stop(app_stepper *w);
/* 1 while the thread holds a batch (running, or finished and not yet taken): the simulation is its. */
int app_stepper_held(app_stepper *w);
/* The finished batch into *j: 1, after which the simulation is the caller's; 0 while it runs or when
 * none was handed. Never blocks. */
int app_stepper_take(app_stepper *w, app_steps *j);
/* Run j->n steps of sim in the calling thread (w NULL), or on behalf of w (which may end the batch
 * early), then the blow-up rule; reads and writes nothing but sim and *j. */
void app_steps_run(vx_sim *sim, app_steps *j, app_stepper *w);

/* The state on screen (app_shown.c): what the renderer is handed and the HUD and the recording read,
 * taken from the simulation when it is the render thread's. In the render loop the particles are the
 * simulation's own arrays (device memory on cuda: interop); with the simulation thread they are host
 * copies, which the thread never writes, so a frame never shows a state half stepped. */
typedef struct {
  long long version;        /* app.state_version it was taken at */
  rd_particles p;           /* positions and strengths (p.value: the tracer colours, set at the hand-over) */
  void *pos, *alpha;        /* the copies (simulation thread) */
  size_t cap_pos, cap_alpha;
  double t;                 /* simulated time and steps across engine rebuilds */
  long long steps;
  int n_rings, n_added, substeps;
  vx_sim_params prm;        /* the parameters in effect */
  vx_remesh_stats remesh;
  vx_passages passages;     /* leapfrog passages of the states taken (the status line's count) */
  double passage_wall;      /* app_now() of the last count */
  double *ring_buf;         /* host copy of the elements for the count */
  size_t cap_ring_buf;
} app_shown;

/* Frames per second the window draws while the simulation thread runs a batch and nothing else
 * happens (app_window.c: idle_wait); input draws at once. */
#define APP_IDLE_FPS 10.0

/* The window's pace (app_window.c's closing line): frames drawn, steps completed, and the frames drawn
 * while a batch of steps was in flight. */
typedef struct {
  long long frames, steps;
  double t0;                /* when the first frame began */
  double step_ms;           /* the steps' own time (vx_step_stats.t_step), summed */
  long long busy_frames;    /* frames that overlapped a batch (drawn while one ran, or that ran one) */
  double busy_s;            /* wall time the batches took, summed */
  double longest_busy_ms;   /* the longest of those frames */
  int busy;                 /* this frame overlaps a batch (app_update says) */
  int in_flight;            /* this frame is drawn while the simulation thread runs a batch */
  int threaded;             /* the batches run on the simulation thread (app_frame.c: steps_threaded) */
  double batch_t0;          /* when that batch began (app_now) */
} app_pace;

/* What the panel and the keys edit. */
typedef struct {
  /* simulation: applied at once (vx_sim setters) */
  double dt, sigma;
  int integrator, stretching, kernel, order, direct;
  int tracer_every;         /* element steps one tracer step spans (vx_sim_params.tracer_every): 1, 2, 4 */
  double dye_release;       /* the dye's lifetime (vx_sim_params.dye_release; 0: seeded once) */
  /* long-run control, applied at once (vx_sim_set_relax / _remesh / _coarsen / _viscosity) */
  double relax, remesh_h, remesh_drop, remesh_coarsen, viscosity, lcfl;
  int relax_every, remesh_every;
  /* applied by rebuilding the engine around the current particles (state kept) */
  int leaf, backend, precision;
  /* applied at the next reset (new particles) */
  long long tracers;
  int scene;                /* index into app.scenes; a change loads that scene at once (the follow mode kept) */
  int resolution;           /* vx_resolution of the scene's derived numerics; a change loads the scene anew with it */
  int steps_per_frame, running;
  /* the next launched ring (L / "Launch"; vortex/launch.h): radius, circulation, core */
  double launch_radius, launch_circ, launch_core;
  /* view */
  int opacity_level;
  int follow, vsync, show_panel, show_help, show_hud;
  int colour;               /* app_colour of the tracers (K cycles; style.tint and the values follow) */
  int iso_grid;             /* the vorticity surface's grid, nodes a side (APP_ISO_GRID_MIN..MAX; 0: default) */
  rd_style style;
} app_settings;

/* The launched rings the app keeps for a saved scene (app.launched): as many as a scene holds. */
#define APP_MAX_LAUNCHED VX_SCENE_MAX_RINGS

typedef struct app {
  app_options opt;
  app_settings set, cur;
  int n_scenes;             /* the picker's list: built-in scenes, then --scene-dir's, then the user's */
  vx_scene_entry scenes[APP_MAX_SCENES];
  vx_scene scene;
  vx_sim *sim;
  struct app_mpi_run *mpi;  /* under mpirun (headless frames): sim is this process's share (app_mpi.h) */
  /* under mpirun, the tracers this process draws: those of its share one process would draw (app_spread.c) */
  vx_mem draw_list;         /* their indices, in the simulation's memory */
  int *draw_host;
  size_t cap_draw_host;
  int n_draw;
  long long draw_layout;    /* the hand-out (app_mpi_layout) and fraction the list was made for */
  float draw_fraction;
  double t_offset;          /* simulated time and steps before the last engine rebuild */
  long long steps_offset;
  double alpha_ref;         /* mean |α| of the elements at the start (element colours) */
  double centre[3], radius; /* initial bounding sphere (camera home where the scene sets none) */
  rd_camera cam;
  rd_renderer *rd;
  int window;               /* 1: interactive window (HUD, probe); 0: headless */
  /* actions raised by keys and panel, consumed by app_update / the loops */
  int act_step, act_reset, act_screenshot, act_quit, act_camera_reset;
  int act_save_scene;       /* Ctrl+S / "Save scene": the settings in effect as NAME-saved-DATE-TIME.scene */
  int act_launch, act_unlaunch; /* L / Shift+L and the panel: launch a ring from the camera, remove the last one */
  vx_ring launched[APP_MAX_LAUNCHED]; /* the rings launched since the simulation started, oldest first, as */
  int n_launched;                     /* launched (vx_launch_scene): a saved scene holds them */
  double ms_launch;         /* wall time of the last launch or removal (ms) */
  int launched_frame;       /* rings launched (scripted or not) by this frame's app_update */
  int after_launch;         /* this frame's steps are the first after a launch (the engines grow) */
  unsigned char launch_taken[APP_MAX_LAUNCHES]; /* --launch-ring's launches made since the start */
  long long state_version;  /* changes whenever the particles change */
  long long eval_version;   /* the state the engine's last evaluation belongs to (its occupancy histogram) */
  app_stepper *stepper;     /* the simulation thread (window; used while the backend is cpu), or NULL */
  app_shown shown;          /* the state on screen */
  app_rate rate;            /* steps per second */
  app_pace pace;
  long long hist_state;     /* state_version the histogram was built from */
  long long up_state;       /* what the point buffers hold: state, fraction, elements shown, interop */
  float up_fraction;
  int up_elements, up_interop, up_colour;
  int hist_level_built;
  int hist_octree;          /* 1: the histogram is the engine's own bin[] (--opacity-level 0 after an FMM
                               step); 0: binned again by the renderer at hist_level_built */
  int blown_up;             /* the blow-up rule held (vx_sim_health): no steps until a reset */
  char halt[256];           /* why the simulation stopped (blow-up or failed step), in red until a reset
                               or the next good step; "" while it runs */
  char advice[256];         /* vx_sim_dt_advice's warning for the settings in effect (yellow); "" when none */
  double lcfl;              /* dt*max|grad u| after the last steps (vx_health.lcfl); 0: not measured */
  double energy_ratio;      /* the energy over the blow-up rule's reference (vx_health); NaN: not measured */
  double energy_rise;       /* its rise above its lowest, over the reference: the rule stops at VX_SIM_ENERGY_RISE */
  int coarsenings;          /* the lattice doublings said on screen (vx_remesh_stats.coarsenings) */
  char message[256];        /* transient notice on screen */
  double message_until;
  char pending[256];        /* settings that wait for a reset */
  /* HUD: last frame's numbers (ms); the frame time shown is the median of the last frames */
  app_frames frames_hud;
  double ms_frame, ms_tree, ms_far, ms_near, ms_integrate, ms_remesh, ms_step, ms_render, ms_gpu, ms_probe, ms_upload; /* ms_probe: the readout's capture */
  double ms_health, ms_follow; /* the batch's blow-up check; the camera's follow (the rings' centroid) */
  int steps_last;           /* steps in the last frame */
  int levels;               /* octree level of the last evaluation */
  int tracer_span;          /* element steps the tracers' last step spanned (vx_step_stats.tracer_span) */
  /* live accuracy readout (vortex/accuracy.h): a step's own evaluation against direct summation */
  vx_accuracy *acc;
  vx_acc_result acc_res;        /* the last figure (acc_have) */
  int acc_have;
  long long acc_steps_offset;   /* steps_offset when it was requested (its step across rebuilds) */
  double acc_wall;              /* when the last capture was requested (app_now) */
  int cuda_ok;              /* a CUDA device is usable (the backend choice offers cuda) */
  char gpu_name[128], gl_desc[256], platform[160];
  long long frame;
  double t_start;
  /* tracer colours (app_colour.c): the values handed to the renderer and the map's range */
  float *tc_rings;          /* host, n_tracer: the ring of each tracer; NULL: to be made */
  long long tc_layout;      /* under mpirun, the hand-out (app_mpi_layout) tc_rings were made for */
  vx_mem tc_rings_dev;      /* the labels in device memory (cuda backend), made once per simulation and launch */
  int tc_rings_dev_ok;      /* tc_rings_dev holds them */
  vx_mem tc_value;          /* the quantity's values, in the simulation's memory */
  vx_mem tc_scratch;        /* device: the range reduction's two floats */
  int tc_on_device;         /* where tc_value, tc_rings_dev and tc_scratch live (-1: nowhere yet) */
  long long tc_state;       /* state_version tc_value was made from */
  int tc_colour;            /* and its mode */
  float tc_range[2];        /* the map's range (the colour bar's labels) */
  double tc_range_wall;     /* when it was last measured (app_now) */
  vx_travel travel;         /* the scene's direction of travel (height) */
  /* the vorticity surface (app_iso.c): |ω| of the state shown on a grid, handed to the renderer */
  struct vx_vort_grid *iso;
  int iso_on_device;        /* where iso's grid lives */
  long long iso_state;      /* state_version it was made from (-1: none) */
  int iso_n;                /* and its nodes a side */
  double ms_iso_grid;       /* the last grid's wall time */
  /* recording (app_record.c) */
  rd_recorder *rec_video, *rec_png;
  rd_readback *rec_rb;
  long long rec_last_step;  /* window: the step count of the last recorded frame (pauses are not recorded) */
  double rec_t0;            /* when it started (app_now) */
  int act_record;           /* M / the panel: start or stop a recording (2: start as --record) */
} app;

/* The window's bindings (app_keys.c): one table that the window dispatches its key presses from
 * (app_window.c), the help overlay draws (app_ui.cpp) and --help-keys prints. */
typedef enum {
  APP_KEY_MOUSE = 0, /* a mouse binding: listed, handled by the mouse callbacks */
  APP_KEY_RUN, APP_KEY_STEP, APP_KEY_RESET, APP_KEY_CAMERA, APP_KEY_FOLLOW, APP_KEY_OPACITY, APP_KEY_ELEMENTS,
  APP_KEY_COLOUR, APP_KEY_ISO, APP_KEY_BOXES, APP_KEY_CUBE, APP_KEY_DIRECT, APP_KEY_POINTS_UP, APP_KEY_POINTS_DOWN,
  APP_KEY_MORE_DRAWN, APP_KEY_FEWER_DRAWN, APP_KEY_ZOOM_IN, APP_KEY_ZOOM_OUT, APP_KEY_VSYNC, APP_KEY_HUD,
  APP_KEY_PANEL, APP_KEY_HELP, APP_KEY_SCREENSHOT, APP_KEY_RECORD, APP_KEY_SAVE_SCENE, APP_KEY_UNLAUNCH,
  APP_KEY_LAUNCH, APP_KEY_QUIT
} app_key_action;
typedef struct {
  const char *keys;         /* as the help shows them: "N or Right" */
  const char *action;       /* what they do */
  app_key_action act;
  int code[3];              /* GLFW key codes (0: none) */
  int mods;                 /* GLFW modifiers the binding needs (0: any held) */
  int repeats;              /* held down, the key repeats the action */
} app_key;
/* The table, in the help's order; *n rows. */
const app_key *app_keys(int *n);
/* The binding of a key press (GLFW code and modifiers), or NULL. */
const app_key *app_key_find(int code, int mods);
/* The table in Markdown (| key | action |), as --help-keys prints it and README.md shows it. */
void app_keys_markdown(FILE *f);

/* Scenes, parameters, simulation and camera (no GL yet). Returns 0, or the exit code (2: scene
 * or command line, 1: engine) with a one-line reason in err. */
int app_init(app *a, const app_options *o, int window, char *err, size_t errlen);
/* The renderer, once a GL context is current. 0, or -1 with err. */
int app_gl_init(app *a, char *err, size_t errlen);
/* Apply settings and actions, advance the simulation, hand particles and histogram to the
 * renderer. 0; 3 with a one-line err when the simulation blew up, -1 with err when a step failed
 * (the window pauses instead, shows why and offers a reset: it returns 0 unless the state can no
 * longer be read back); -1 with err on a GL failure. */
int app_update(app *a, char *err, size_t errlen);
/* Draw the scene into fbo (w x h pixels, point sizes times pixel_scale). 0, or -1 with err. */
int app_draw(app *a, unsigned fbo, int w, int h, float pixel_scale, char *err, size_t errlen);
/* Read fbo back and write a PNG. 0, or -1 with err. */
int app_save_png(unsigned fbo, int w, int h, const char *path, char *err, size_t errlen);
/* Renderer first (needs the context), then the simulation. */
void app_shutdown(app *a);
/* A transient one-line message on screen (and on stderr). */
void app_message(app *a, const char *fmt, ...);
/* Simulated time and steps across engine rebuilds: the simulation's own, read while it is the render
 * thread's (the screen shows a->shown's). */
double app_sim_time(const app *a);
long long app_sim_steps(const app *a);

/* app_shown.c. The state on screen taken from the simulation, which must be the render thread's: its
 * readouts, and its particles by reference, or (copy: the simulation thread's path) copied into host
 * memory when the state changed since the last copy. 0, or -1 with err. */
int app_shown_take(app *a, int copy, char *err, size_t errlen);
void app_shown_free(app_shown *s);

/* app_colour.c. Forget the tracers' colour data (a new simulation: new tracers, maybe another
 * backend); made again when next drawn. The default mode of a scene: ring when it has several rings. */
void app_colour_reset(app *a);
/* A ring launched or removed: the tracers' ring labels are made again. */
void app_colour_rings_changed(app *a);
void app_colour_free(app *a);
int app_colour_default(const app *a, const vx_scene *sc);
/* Fill p->value and the style's tint and range for the mode in a->set.colour, computing the values
 * when the state or the mode changed (on the simulation's backend). A mode that cannot be shown
 * (vorticity with stretching off) falls back to plain with a message. 0, or -1 with err. */
int app_colour_prepare(app *a, rd_particles *p, char *err, size_t errlen);

/* app_spread.c, under mpirun: the tracers of this process's share that one process would draw, as
 * p->draw (remade after each hand-out of the particles; collective), and the ring labels of this
 * process's nt tracers from those of the whole flow (whole, by place). 0, or -1 with err. */
int app_spread_draw(app *a, rd_particles *p, char *err, size_t errlen);
void app_spread_labels(const app *a, int nt, const float *whole, float *label);
void app_spread_free(app *a);

/* app_iso.c. The I key's cycle of the vorticity surface: with the dye, alone, off (said on screen). */
void app_iso_cycle(app *a);
/* The elements' |ω| of the state shown on the surface's grid, to the renderer (rd_set_field), when the
 * surface is shown and the state or the grid changed; made on the simulation's backend. 0, or -1 with err. */
int app_iso_hand(app *a, char *err, size_t errlen);
void app_iso_free(app *a);

/* app_record.c. Start recording w x h frames into a video and/or PNG frames (either may be NULL);
 * Ctrl-C / SIGTERM are caught until it stops. 0, or -1 with err. */
int app_record_start(app *a, const char *video, const char *png_dir, int w, int h, char *err, size_t errlen);
/* Read framebuffer fbo back (asynchronously) for the recorders. 0, or -1 with err (writer failed). */
int app_record_frame(app *a, unsigned fbo, char *err, size_t errlen);
/* Hand over the pending frames, finalize the files, print what was written. 0, or -1 when a
 * recording ended early. The GL context is current. */
int app_record_stop(app *a);
int app_record_active(const app *a);
/* vortexfmm-YYYYmmdd-HHMMSS.mp4 in --png-dir or here. */
void app_record_default_name(const app *a, char *out, size_t len);
/* The window's part, once per frame after the scene is drawn (before the UI): act_record, a
 * resize (stops), and the frame itself; failures go on screen. */
void app_record_window_frame(app *a, int fb_w, int fb_h);

/* Between the app's own files (app_core.c and the files it names). */
/* app_scenes.c: the picker's list (built-in, --scene-dir, per-user); 0, or 2 with err (--scene-dir). */
int app_scenes_list(app *a, char *err, size_t errlen);
/* A --scene NAME or FILE: vx_scene_find's places, then the listed scenes. 0 with its path, or -1 with err. */
int app_scene_find(const app *a, const char *name, char *path, size_t pathlen, char *err, size_t errlen);
/* Index of the scene at path in the list, added when not there; -1 when the list is full. */
int app_scene_index(app *a, const char *path, const vx_scene *sc);
/* The camera the scene opens on (C returns to it). */
void app_scene_camera(app *a);
/* app_sim.c: the window's tracer count on the cpu backend when the scene asks for more (said on screen). */
void app_cpu_tracers(app *a, const vx_scene *sc, vx_sim_params *prm);
/* A new simulation of scene index si with prm, replacing the current one; 0, or -1 with err (kept). */
int app_sim_start(app *a, int si, const vx_scene *sc, const vx_sim_params *prm, int keep_camera, char *err,
                  size_t errlen);
/* Scene index si loaded: fresh (its parameters and the overrides), or a reset (the settings kept). */
int app_sim_load(app *a, int si, int fresh, char *err, size_t errlen);
/* The engine rebuilt with the settings' leaf size, backend and precision, the state kept. 0, or -1 with err. */
int app_sim_rebuild(app *a, char *err, size_t errlen);
/* app_settings.c: what the panel and the keys changed, applied; refusals reverted and said on screen. */
void app_apply_settings(app *a);
/* app_actions.c: the scene's camera (every frame); reset, save and remove (between batches); the
 * launches (the key's, and --launch-ring's due within the next n steps) by app_take_launches. */
void app_take_view_actions(app *a);
void app_take_actions(app *a);
void app_take_launches(app *a, int n);
/* app_frame.c: the readout's figure and any capture in flight dropped (a new state or engine). */
void app_readout_drop(app *a);

/* the two programs; exit codes as main.c documents */
int app_run_window(const app_options *o);
int app_run_headless(const app_options *o);

/* app_ui.cpp: Dear ImGui. window: the GLFWwindow (its callbacks must be installed before) or
 * NULL for headless images (HUD only, no input). content_scale: the monitor's (GLFW content
 * scale); fb_scale: framebuffer pixels per window unit (1 headless). */
int app_ui_init(void *window, float content_scale, float fb_scale, char *err, size_t errlen);
void app_ui_shutdown(void);
/* Build and draw the panel, HUD and help into the current framebuffer (fb_w x fb_h pixels). */
void app_ui_frame(app *a, int fb_w, int fb_h, double dt);
int app_ui_wants_mouse(void);
int app_ui_wants_keyboard(void);

#endif /* VX_HAVE_RENDER */

VX_EXTERN_C_END
#endif
