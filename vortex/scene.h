/* scene.h — vortex-ring scenes: the model of assets/NAME.scene, the generation of vortex elements and
 * passive tracers from it (host arrays, double precision; scene.c), and the scene file functions
 * (io/: scene_read.c parses, loads and finds, scene_write.c writes, scene_list.c lists).
 *
 * A scene is global `key = value` lines followed by one `[ring]` section per ring; `#` starts a
 * comment. assets/README.md documents every key; the parser reports the first problem as one line:
 *   scene FILE line N: unknown key 'foo'
 *   scene FILE line N: bad value for 'radius': '-1' (expected a number in [1e-06, 1000])
 *
 * Ring discretisation (docs/VALIDATION.md, "How σ, the core a and the particles relate"): a ring of
 * circulation Γ, radius R and core radius a has n_around stations around the centreline; at each
 * station the core cross-section is a disc split into a central element and `layers` concentric annuli
 * of `layer_points·l` elements each (l = 1..layers). Element strengths carry the circulation of their
 * cell of the chosen vorticity profile (Gaussian ω ∝ exp(-r²/a²), or uniform for r < a) times the arc
 * length of their station, so Σ|α| over one cross-section sums to Γ·Δs; on a wavy centreline each
 * element's strength lies along its own filament (the same cross-section point at every station), so
 * the elements make closed filaments. layers = 0 is a thin ring: one
 * element per station, the core being the smoothing kernel's: with the Gaussian kernel the ring moves
 * as Saffman's Gaussian ring with a = √e·σ (docs/VALIDATION.md, "Ring speed"; not √2σ, the core of its
 * smoothed field). */
#ifndef VX_SCENE_H
#define VX_SCENE_H

#include <stddef.h>
#include <stdint.h>
#include "fmm.h"

VX_EXTERN_C_BEGIN

#define VX_SCENE_MAX_RINGS 16

/* Bounds on a scene's magnitudes (assets/README.md), so that an absurd value (a radius of 1e300) is
 * a parse error naming its key and line rather than an Inf steps later. Generous for a scene of
 * unit size: lengths and positions (radius, core, sigma, tracer_spread, centre) within
 * VX_SCENE_LEN_MAX, positive lengths at least VX_SCENE_LEN_MIN; |Γ| up to VX_SCENE_CIRC_MAX; dt in
 * [VX_SCENE_DT_MIN, VX_SCENE_DT_MAX]; axis components within VX_SCENE_AXIS_MAX (only its
 * direction counts); core_extent in [VX_SCENE_EXTENT_MIN, VX_SCENE_EXTENT_MAX] core radii;
 * sigma_factor in [VX_SCENE_FACTOR_MIN, VX_SCENE_FACTOR_MAX]. The command line's --dt and --sigma
 * obey the same bounds. */
#define VX_SCENE_LEN_MIN 1e-6
#define VX_SCENE_LEN_MAX 1e3
#define VX_SCENE_CIRC_MAX 1e6
#define VX_SCENE_DT_MIN 1e-9
#define VX_SCENE_DT_MAX 1e3
#define VX_SCENE_AXIS_MAX 1e6
#define VX_SCENE_EXTENT_MIN 0.1
#define VX_SCENE_EXTENT_MAX 10.0
#define VX_SCENE_FACTOR_MIN 1e-3 /* sigma_factor */
#define VX_SCENE_FACTOR_MAX 1e3
/* dye_release, a tracer's lifetime: 0 (off) or in [VX_SCENE_DT_MIN, VX_SCENE_LIFE_MAX] time units, and
 * at least one tracer step (vx_dye_release_check) */
#define VX_SCENE_LIFE_MAX 1e6
/* Counts and intervals, for the scene's keys and the command line's options alike (and a checkpoint's
 * saved run): leaf_size / --leaf-size, relax_every, remesh_every and their options, tracers. */
#define VX_SCENE_LEAF_MAX (1 << 20)
#define VX_SCENE_EVERY_MAX 1000000
#define VX_SCENE_TRACERS_MAX (1 << 30)

typedef enum { VX_EULER = 0, VX_RK2 = 1, VX_RK4 = 2 } vx_integrator;
/* Stretching term dα/dt: classical (α·∇)u, or transposed (∇u)ᵀα (conserves Σα; docs/VALIDATION.md, "Invariants"). */
typedef enum { VX_STRETCH_CLASSICAL = 0, VX_STRETCH_TRANSPOSE = 1, VX_STRETCH_NONE = 2 } vx_stretching;
typedef enum { VX_CORE_GAUSS = 0, VX_CORE_UNIFORM = 1 } vx_core_profile;

typedef struct {
  double circulation;     /* Γ */
  double radius;          /* R */
  double core;            /* a: ω ∝ exp(-r²/a²) (gauss) or ω = const for r < a (uniform) */
  vx_core_profile profile;
  double core_extent;     /* outer edge of the discretised cross-section, in units of a; 0: 2 (gauss), 1 (uniform)
                             (gauss: the outermost annulus also takes the tail beyond it) */
  int n_around;           /* stations around the ring */
  int layers;             /* annuli across the core; 0: thin ring */
  int layer_points;       /* elements in annulus l are layer_points·l */
  double centre[3];
  double axis[3];         /* direction of propagation (unit after parsing); Γ > 0 moves along it */
  double phase;           /* rotation of the first station about the axis, radians */
  double perturb_amp;     /* radial displacement amp·R·cos(perturb_mode·φ) of the centreline */
  int perturb_mode;
  double wave_smooth;     /* the share of perturb_amp the smoothing radius takes away (numerics.h,
                             VX_NUM_WAVE_KEEP_MIN): the elements lie on vx_ring_wave_amp's wave */
  int tracers;            /* passive tracers seeded around this ring */
  double tracer_spread;   /* standard deviation of their offset from the centreline in each direction of
                             the cross-section; < 0: the core radius (vx_ring_tracer_spread) */
  unsigned given;         /* the ring's numerical keys the scene gave (numerics.h, VX_GIVEN_N_AROUND...) */
} vx_ring;

/* The amplitude of the centreline wave the elements and tracers are laid on. */
static inline double vx_ring_wave_amp(const vx_ring *r) { return r->perturb_amp * (1.0 - r->wave_smooth); }

/* How finely the method resolves a scene whose numerics it derives (numerics.h): the key resolution. */
typedef enum { VX_RES_COARSE = 0, VX_RES_NORMAL = 1, VX_RES_FINE = 2 } vx_resolution;

/* What vx_numerics_derive chose for a scene and why (numerics.h): the values it wrote into the scene
 * where the scene gave none, and the measures they came from. */
typedef struct {
  int derived;            /* 1 once vx_numerics_derive ran on the scene */
  vx_resolution resolution;
  double h;               /* lattice spacing */
  double sigma;           /* smoothing radius */
  double omega;           /* the largest core vorticity with that smoothing, Γ/(π(a² + σ²)); filaments Γ/(πσ²) */
  double dt;
  double nu_phys;         /* the scene's own viscosity (viscosity or Γmax/reynolds; 0: inviscid) */
  double nu_floor;        /* the least viscosity the lattice carries for this flow (0: none needed) */
  double elements;        /* elements expected on the lattice */
  int limited;            /* 1: the resolution's element or work budget set h (or the filaments' σ), not the cores */
  int filaments;          /* 1: the rings run as vortex filaments (numerics.h) */
  int thin_meet;          /* 1: thin rings on the lattice, since they can meet or one is wavy (numerics.h) */
  int waves_smoothed;     /* rings whose centreline wave σ smoothed (numerics.h, VX_NUM_WAVE_KEEP_MIN) */
  double wave_keep;       /* the least share of a wave's amplitude kept, e^{-(mσ/R)²/2} (1: none smoothed) */
  char warnings[512];     /* the overrides predicted unstable, one per line ("" when none) */
} vx_numerics;

#define VX_SCENE_DESC_MAX 160 /* characters of a description (one line in the scene picker) */

/* The view a scene opens on (keys camera_position, camera_target, camera_follow); the program's
 * own home view stands in for what is not set. */
typedef struct {
  int has_position, has_target;
  double position[3];     /* the eye */
  double target[3];       /* the point looked at */
  int follow;             /* -1: not set (the program's choice), 0 off, 1 on: the target follows the rings */
} vx_scene_camera;

typedef struct {
  char name[64];
  char path[512];         /* file it was read from ("" when built in code) */
  char description[VX_SCENE_DESC_MAX + 1]; /* one line shown by the scene picker; "" when none */
  vx_scene_camera camera;
  /* defaults of a run (the command line overrides them) */
  vx_kernel kernel;
  double sigma;           /* > 0: absolute core radius of the smoothing kernel */
  double sigma_factor;    /* used when sigma is 0: σ = sigma_factor · the largest element spacing */
  double dt;
  vx_integrator integrator;
  vx_stretching stretching;
  int order;
  int leaf_size;
  int direct;             /* 1: direct summation instead of the FMM */
  vx_backend backend;
  vx_precision precision;
  int steps;
  int diag_every;
  uint64_t seed;          /* tracer seeding */
  /* long-run control (vx_sim_params has the meaning; all off by default) */
  double relax;
  int relax_every;
  int remesh_every;
  double remesh_h;
  int has_remesh_origin;  /* remesh_origin was given; else vx_scene_remesh_origin: the rings' mean centre */
  double remesh_origin[3];
  double remesh_drop;
  double remesh_coarsen;  /* > 0: the lattice coarsens as the field spreads (vx_sim_params.remesh_coarsen) */
  double viscosity;
  double lcfl;            /* substep target dt·max|∇u| (default 0.5; 0: off) */
  int tracer_every;       /* element steps one tracer step spans: 1 (default), 2 or 4 */
  double dye_release;     /* > 0: each tracer lives this long, then is seeded again (vx_sim_params.dye_release) */
  int conserve;           /* vx_conserve_mode (conserve.h): off, axial, full */
  vx_resolution resolution; /* the key resolution (normal by default) */
  double reynolds;        /* > 0: the key reynolds, Γmax/ν (the viscosity it implies) */
  unsigned given;         /* the numerical keys the scene gave (numerics.h, VX_GIVEN_DT...) */
  vx_numerics numerics;   /* what vx_numerics_derive chose (derived = 0: a scene built in code) */
  int n_rings;
  vx_ring rings[VX_SCENE_MAX_RINGS];
} vx_scene;

/* The element steps one tracer step may span (the scene key tracer_every, --tracer-every, the panel;
 * vx_sim_params.tracer_every, docs/MATH.md §15): 1, 2 or 4. */
static inline int vx_tracer_every_ok(long m) { return m == 1 || m == 2 || m == 4; }

/* dye_release T (the scene key, --dye-release, the panel; vx_sim_params.dye_release) against the
 * tracer step's longest span H = tracer_every·dt (dt with Euler, whose tracers ride every call): 0
 * when T is 0 (off) or a lifetime in [VX_SCENE_DT_MIN, VX_SCENE_LIFE_MAX] of at least H, so that a
 * step releases each tracer at most once; else -1 with a one-line err naming the key. */
int vx_dye_release_check(double T, double dt, int tracer_every, vx_integrator it, char *err, size_t errlen);

/* Where one ring's tracers are seeded: its starting centreline (centre, unit axis, radius and
 * centreline wave), the spread of the dye about it, and its tracers' rows of the tracer block.
 * vx_particles_generate seeds them from it; a continuous release (vx_sim_params.dye_release) seeds
 * them again from it, around where the ring started, whatever it has done since. */
typedef struct {
  double centre[3];
  double axis[3];         /* unit */
  double radius, perturb_amp, spread;
  int perturb_mode;
  int first, count;       /* its tracers: rows first .. first + count - 1 of the tracer block */
} vx_tracer_source;

/* The tracer sources of the scene's rings for n_tracers tracers in all (>= 0: shared among the rings
 * as vx_particles_generate shares an override; -1: the rings' own counts), in ring order; returns the
 * number of rings. */
int vx_tracer_sources(const vx_scene *s, long long n_tracers, vx_tracer_source src[VX_SCENE_MAX_RINGS]);
/* A fresh position p of tracer q (one of src's rows) at its release number `generation` (>= 1; the
 * seeding is number 0): drawn as vx_particles_generate draws it (an angle uniform around the
 * centreline, a Gaussian offset across it, the same code), from a counter-based stream keyed by
 * (seed, q, generation) alone, so that any release can be drawn again in any order. */
void vx_tracer_redraw(const vx_tracer_source *src, uint64_t seed, long long q, long long generation, double p[3]);
/* Orthonormal e1, e2 with e1 × e2 = n (a unit axis): the plane of a ring about n. */
void vx_ring_frame(const double n[3], double e1[3], double e2[3]);
/* The stream ring ri's tracers are seeded from, of a scene's seed (vortex/tracer_draw_t.h). */
uint64_t vx_ring_tracer_seed(uint64_t seed, int ri);
/* Source q's q->count tracers drawn from stream st into pos (3·count doubles) and put in spatial
 * order (tracer_draw_t.h: vx_tracer_draw, vx_tracer_key): what vx_particles_generate writes into the
 * ring's rows. 0, or -1 out of memory. */
int vx_ring_tracers_draw(const vx_tracer_source *q, uint64_t st, double *pos);

/* Particles generated from a scene: elements first, then tracers (host arrays, owned). */
typedef struct {
  int n_elem, n_tracer;
  double *pos;            /* 3*(n_elem + n_tracer) */
  double *alpha;          /* 3*n_elem */
  int *ring;              /* n_elem: index of the ring each element belongs to */
  double spacing;         /* largest element spacing (around the ring or across the core) */
} vx_particles;

/* The mean of the rings' centres; 0 without rings. */
void vx_scene_mean_centre(const vx_scene *s, double o[3]);

/* The remeshing lattice's origin: the key remesh_origin, else the mean of the rings' centres, which
 * lies on the common axis of coaxial rings and on the mirror plane of a symmetric pair, so that the
 * lattice keeps the scene's symmetry (docs/MATH.md §9); 0 without rings. */
void vx_scene_remesh_origin(const vx_scene *s, double o[3]);

/* Defaults of a scene and of a ring (what an absent key means). */
void vx_scene_init(vx_scene *s);
void vx_ring_init(vx_ring *r);

/* Scene files (io/scene_read.c). Parse a scene file. 0, or -1 with a one-line reason in err. Only a
 * regular file is read: a FIFO, socket, device or directory is refused by its kind, never opened in a
 * way that could wait ("scene PATH: not a regular file (a FIFO)"). */
int vx_scene_load(const char *path, vx_scene *s, char *err, size_t errlen);
/* Parse scene text (name is used in messages). */
int vx_scene_parse(const char *text, const char *name, vx_scene *s, char *err, size_t errlen);
/* Write a scene (io/scene_write.c) in the format vx_scene_load reads (every key, numbers in %.17g), atomically; comment
 * (may be NULL or hold several lines) goes into `#` lines at the top. A name's '#' and line breaks
 * become '_'. Load → write → load → write: equal scenes (path aside), identical files. 0, or -1 with err. */
int vx_scene_write(const char *path, const vx_scene *s, const char *comment, char *err, size_t errlen);
/* Set the scene's total tracer count n, shared among the rings as vx_particles_generate shares an
 * override (so the scene generates the same tracers as the override did). */
void vx_scene_set_tracers(vx_scene *s, long long n);
/* Look a scene up (io/scene_read.c): an existing path is used as is; otherwise NAME is tried as
 * DIR/NAME.scene for DIR in: $VX_ASSETS_DIR, compiled_dir (may be NULL), exe_dir/../assets
 * (exe_dir may be NULL). Writes the path found to out; 0, or -1 with err listing what was tried.
 * Nothing is opened (access(2) only): a FIFO found is refused by vx_scene_load. */
int vx_scene_find(const char *name, const char *compiled_dir, const char *exe_dir, char *out, size_t outlen,
                  char *err, size_t errlen);

/* One scene file of a directory, as a scene picker shows it (io/scene_list.c). */
typedef struct {
  char name[64];          /* the file name without .scene */
  char path[512];
  char description[VX_SCENE_DESC_MAX + 1];
  char error[256];        /* why it does not load (the parser's line); "" when it does */
  int origin;             /* the caller's tag of the directory it came from */
} vx_scene_entry;

/* Append the *.scene files of dir to list[*n .. cap), sorted by name, each parsed (text only, no
 * particles) for its description, or its error when it does not parse or is not a regular file (a
 * FIFO, never opened, is "not a regular file (a FIFO)"): a bad file is an entry, not a failure. Files past cap are left out. 0, or -1 with err when dir cannot be read. */
int vx_scene_list_dir(const char *dir, int origin, vx_scene_entry *list, int *n, int cap, char *err, size_t errlen);
/* The per-user scene directory: $XDG_DATA_HOME/vortexfmm/scenes, else
 * $HOME/.local/share/vortexfmm/scenes (the XDG base-directory convention). 0, or -1 when neither
 * variable is set (or the path does not fit). */
int vx_scene_user_dir(char *out, size_t len);

/* Generate elements and tracers. n_tracers >= 0 overrides the scene's total tracer count (shared
 * among the rings in proportion to their own counts, equally when those are all 0); -1 keeps it.
 * 0, or -1 with err (out of memory, or a count over the int range). */
int vx_particles_generate(const vx_scene *s, long long n_tracers, vx_particles *out, char *err, size_t errlen);
void vx_particles_free(vx_particles *p);
/* The outer edge of a ring's discretised cross-section in core radii: core_extent, or when 0 the
 * profile's own (2 for a Gaussian core, 1 for a uniform one). */
double vx_ring_extent(const vx_ring *r);
/* The ring's tracer spread: as given, or where the scene leaves it out the core radius a, so the dye
 * lies in and around the core, where a smoke ring's smoke is. */
double vx_ring_tracer_spread(const vx_ring *r);
/* Elements of one ring: n_around · (1 + layer_points·layers(layers+1)/2). */
long long vx_ring_elements(const vx_ring *r);
/* The σ a run of this scene uses when no σ is given: scene.sigma, else sigma_factor · spacing. */
double vx_scene_sigma(const vx_scene *s, double spacing);

const char *vx_integrator_name(vx_integrator i);
int vx_integrator_from_name(const char *name, vx_integrator *out);   /* euler | rk2 (heun) | rk4 */
const char *vx_stretching_name(vx_stretching s);
int vx_stretching_from_name(const char *name, vx_stretching *out);   /* classical | transpose | none */
int vx_precision_from_name(const char *name, vx_precision *out);     /* double | float */
const char *vx_precision_name(vx_precision p);

VX_EXTERN_C_END
#endif
