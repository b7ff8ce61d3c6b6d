/* numerics.h — the method's own numerics: from a scene's physics (each ring's R, a, Γ, centreline
 * wave; the flow's Reynolds number) and one quality setting (resolution = coarse | normal | fine),
 * the lattice spacing h, the smoothing radius σ, each ring's discretisation, the time step, the
 * remeshing interval, the relaxation, the drop threshold, the conservative correction and the
 * viscosity floor a lattice needs where it cannot carry the flow's small scales (docs/MATH.md,
 * "The method's own numerics"). A key the scene gives overrides what would be derived; an override
 * the rules predict unstable is reported with its reason (vx_numerics.warnings). The rules:
 *
 *   h      = a_min / VX_NUM_PER_CORE, raised until the expected elements and the work per unit time
 *            (elements / dt) fit the resolution's budgets (vx_numerics_budget)
 *   σ      = VX_NUM_SIGMA_H · h: neighbouring blobs overlap, so the remeshed field stays smooth
 *   ω      = max over rings of |Γ| / (π (a² + σ²)), the peak vorticity of a core smoothed by σ
 *   dt     = VX_NUM_DT_OMEGA / ω (or the integrator's limit, if lower), rounded down to 1, 1.25, 1.6, 2, 2.5, 3.2, 4, 5, 6.4 or 8 × 10^k
 *            (2^i·5^j: whole steps to a round time);
 *            substeps (lcfl) guard the strain's peaks
 *   remesh every VX_NUM_REMESH_OMEGA / ω of time (whole steps; sooner when the diffusion number asks)
 *   ν      = max(the scene's own, floor); floor = VX_NUM_NU_FLOOR · ω h² for a flow that makes small
 *            scales (more than one ring, or a wavy centreline); a lone ring stays inviscid
 *   rings  n_around = 2πR(1 + amp)/h stations, layers so that the annuli are at most h wide
 *   and    relaxation: the reprojection (reproject.h) of the whole gradient part each step (with another
 *          kernel than the Gaussian, Pedrizzetti's at VX_NUM_RELAX_REMESH / remesh_every a step, at
 *          most 0.3), drop 1e-3 of max|α|,
 *          conserve = full, the lattice coarsening with ν > 0, the classical stretching with the
 *          reprojection (the impulse of interacting rings; the correction holds Σα), else the transpose
 *   except thin rings that cannot touch (every a/R at most VX_NUM_FIL_THIN, circular, travelling one
 *   way along one line; a lone thin ring among them, circular or with a centreline wave of at most
 *   VX_NUM_FIL_WAVE_MAX), every ring given layers = 0, or a lone viscous
 *   ring without a wave whose core the lattice's budget would smooth, which run as vortex filaments: one
 *   element a station, the Gaussian blob the core (σ = a_min/√e: a blob on the centreline moves its ring
 *   as a Gaussian core of a = √e σ), VX_NUM_FIL_PER_SIGMA stations a σ, dt = VX_NUM_FIL_DT_OMEGA πσ²/Γmax
 *   with substeps, relaxation 1 − exp(−VX_NUM_FIL_RELAX max(Γ/R²) dt) a step, no lattice, each ring's impulse
 *   restored after its relaxations (conserve ring), expansion order VX_NUM_FIL_ORDER,
 *   σ raised where the budgets ask, and a viscous flow's cores spreading (VX_NUM_FIL_*); and else a
 *   lone inviscid ring without a wave: no lattice (VX_NUM_LONE_*). */
#ifndef VX_NUMERICS_H
#define VX_NUMERICS_H

#include <stddef.h>
#include "scene.h"

VX_EXTERN_C_BEGIN

/* The rules' constants (the header comment has the formulas). */
#define VX_NUM_PER_CORE 1.5      /* lattice spacings per smallest core radius, when the budgets allow */
#define VX_NUM_SIGMA_H 1.5       /* σ / h */
#define VX_NUM_DT_OMEGA 0.36     /* dt·ω */
#define VX_NUM_REMESH_OMEGA 8.85 /* remeshing interval · ω */
#define VX_NUM_REPROJECT 1.0     /* the reprojection's fraction a step on the lattice */
#define VX_NUM_RELAX_REMESH 2.5  /* relaxation factor a step × remesh_every: 0.1 a step at 25 steps a remeshing */
#define VX_NUM_RELAX_MAX 0.3     /* at most the factor a step of the validated runs (the paper's leapfrog, headon) */
#define VX_NUM_NU_FLOOR 0.0085   /* ν_floor / (ω h²): the lattice's cell Reynolds number ω h²/ν at most 118 */
#define VX_NUM_DROP 1e-3
#define VX_NUM_COARSEN 2.0      /* remesh_coarsen of a viscous flow: the lattice follows its spreading */
/* A lone ring without a wave makes no small scales and runs inviscid without a lattice: two annuli
 * across its core, stations VX_NUM_LONE_SPACING·a apart, σ = VX_NUM_LONE_SIGMA·a (2.5 annulus widths,
 * the overlap that keeps the ring ordered), dt·ω = VX_NUM_LONE_DT_OMEGA, relaxation VX_NUM_LONE_RELAX. */
#define VX_NUM_LONE_SPACING 0.5
#define VX_NUM_LONE_SIGMA 2.0
#define VX_NUM_LONE_DT_OMEGA 0.15
#define VX_NUM_LONE_RELAX 0.1
/* Thin rings as vortex filaments (the header comment): the thinnest a/R that still counts as
 * thin (the stability sweep's thin cores, scripts/sweep.py); stations a σ (the default leapfrog's
 * 2.4, where the blobs overlap smoothly along the filament); core turnovers dt·Γmax/(πσ²) a step with
 * substeps (the filament scenes run at 2.5–3: a blob on a line does not turn about itself, the substeps
 * hold dt·max|∇u|); the relaxation's rate in units of the rings' strain Γ/R² (the default leapfrog's
 * 0.2 a step at dt 0.003 is 6.7 of them; 0.5 a step, 21, breaks its filaments down). */
#define VX_NUM_FIL_THIN 0.06
/* Rings count as coaxial when their directions of travel agree to 1 − cos within this and their
 * centres lie within this many radii of one line. Of several thin rings only circular coaxial ones
 * run as filaments: a filament cannot reconnect where rings meet (the sweep's head-on, off-axis,
 * oblique and side-by-side thin rings blow up as filaments) and wavy filaments that interact drift in
 * their impulse. A lone thin ring runs as a filament with a centreline wave of amplitude A up to
 * VX_NUM_FIL_WAVE_MAX (of R): nothing meets it, and the impulse a wavy filament gives up in its first
 * tenths of a time unit, at most 0.3 A² in the sweep's lone rings, stays within 1e-3 (docs/MATH.md §16). */
#define VX_NUM_FIL_COAXIAL 1e-6
#define VX_NUM_FIL_WAVE_MAX 0.06
#define VX_NUM_FIL_PER_SIGMA 2.4
#define VX_NUM_FIL_DT_OMEGA 3.0
#define VX_NUM_FIL_RELAX 7.0
/* A viscous filament flow spreads its cores (vx_sim_params.spread): σ² grows by this times ν a unit time,
 * so that a = √e·σ follows a Gaussian core's a² = a0² + 4νt. */
#define VX_NUM_FIL_SPREAD (4.0 / 2.718281828459045)
/* The filaments' expansion order: nothing resets a filament (no lattice, no reprojection), so its
 * stretching integrates the far field's gradient error, and a ring's impulse drifts as that error
 * over time; at p = 12 a lone viscous ring tilts its impulse by 2e-3 over ten time units, at p = 16
 * by 9e-5 (docs/MATH.md §16). */
#define VX_NUM_FIL_ORDER 16
/* An override is reported as predicted unstable past these: dt·ω (substeps off; VX_NUM_DT_OMEGA_MAX
 * is RK4's, vx_numerics_dt_omega_max each integrator's), σ/h below this (remeshing on), remeshing
 * interval·ω. */
#define VX_NUM_DT_OMEGA_MAX 2.0
#define VX_NUM_DT_OMEGA_MAX_RK2 0.46      /* vx_numerics_dt_omega_max says why */
#define VX_NUM_DT_OMEGA_MAX_EULER 0.0064
/* The FMM's expansion order below which a flow breaks down: the far field's error drives it (the
 * coarse leapfrog, t = 1: p = 0 blows up at t = 0.1, p = 2 gains 4 % energy and drifts 3.5e-2 of its
 * impulse, p = 4 1.7e-3, p = 6 3.7e-4, p = 8 1.4e-4). The singular kernel, which has no core, is
 * predicted unstable in any flow of rings (the coarse leapfrog blows up at t = 0.07). */
#define VX_NUM_ORDER_MIN 4
#define VX_NUM_SIGMA_H_MIN 1.0
#define VX_NUM_REMESH_OMEGA_MAX 50.0
/* A centreline wave R(1 + A cos mφ) carried by blobs of radius σ: the smoothed field the particles
 * carry has the wave at e^{-(kσ)²/2} of its amplitude (the Gaussian's transfer at k = m/R), and the
 * relaxation turns each strength towards that field. The elements are laid on the smoothed wave,
 * A e^{-(kσ)²/2} (vx_ring.wave_smooth; the scene keeps A), so that a wave shorter than σ, which the
 * resolution cannot carry, is not laid across its own field; shares above VX_NUM_WAVE_KEEP_MIN are
 * laid as given. */
#define VX_NUM_WAVE_KEEP_MIN 0.99

/* Bits of vx_scene.given (global keys) and vx_ring.given (ring keys). */
enum {
  VX_GIVEN_SIGMA = 1u << 0,        /* sigma or sigma_factor */
  VX_GIVEN_DT = 1u << 1,
  VX_GIVEN_RELAX = 1u << 2,
  VX_GIVEN_RELAX_EVERY = 1u << 3,
  VX_GIVEN_REMESH_EVERY = 1u << 4,
  VX_GIVEN_REMESH_H = 1u << 5,
  VX_GIVEN_REMESH_DROP = 1u << 6,
  VX_GIVEN_REMESH_COARSEN = 1u << 7,
  VX_GIVEN_VISCOSITY = 1u << 8,
  VX_GIVEN_LCFL = 1u << 9,
  VX_GIVEN_CONSERVE = 1u << 10,
  VX_GIVEN_STRETCHING = 1u << 11,
  VX_GIVEN_ORDER = 1u << 12,
  VX_GIVEN_N_AROUND = 1u << 16,    /* ring keys */
  VX_GIVEN_LAYERS = 1u << 17,
  VX_GIVEN_LAYER_POINTS = 1u << 18
};
/* The bit of a scene key (global or ring); 0 for a key the numerics do not derive. */
unsigned vx_numerics_key_bit(const char *key);

/* "coarse", "normal", "fine"; and back (0, or -1 for an unknown name). */
const char *vx_resolution_name(vx_resolution r);
int vx_resolution_from_name(const char *name, vx_resolution *out);

/* A resolution's budgets: the most elements, and the most element-steps per unit of simulated time. */
void vx_numerics_budget(vx_resolution r, double *max_elements, double *max_work);

/* The peak vorticity |Γ|/(π(a² + σ²)) of a ring's core smoothed by σ (its turnover rate). */
double vx_numerics_omega(const vx_ring *r, double sigma);

/* Derive the scene's numerics and write them into every key it did not give (s->given, each ring's
 * given); s->numerics records the choice and the warnings for the overrides predicted unstable. The
 * scene parser calls it on every scene it reads (and prefixes its err with the file). 0, or -1 with a
 * one-line err (a contradiction: both viscosity and reynolds). */
int vx_numerics_derive(vx_scene *s, char *err, size_t errlen);

/* The command line's changes to a derived scene's run (dt, integrator, substeps, order, kernel: what
 * the run uses, where it differs from the scene's) checked as the scene's own overrides are: lines
 * "\nwarning: ... (the command line's)" in out, to follow vx_numerics_describe's ("" when none or
 * when the scene was not derived). */
void vx_numerics_check_run(const vx_scene *s, double dt, vx_integrator it, double lcfl, int order, vx_kernel kernel, char *out,
                           size_t len);

/* A ring launched into a running flow (launch.h) that the rules made vortex filaments (rings the scene
 * did not ask for as filaments) must not meet them: it travels one way along the rings' line, as they
 * do. Filaments cannot reconnect, and a running flow does not move onto the lattice. 0 when r keeps to
 * the line, or when the flow is not derived filaments (a lattice, a lone ring without one, filaments the
 * scene asked for with layers = 0); -1 with a one-line err naming why. */
int vx_numerics_launch_check(const vx_scene *s, const vx_ring *r, char *err, size_t errlen);

/* What was chosen and why, as lines "numerics: ..." for a run's preamble and the window's panel. */
void vx_numerics_describe(const vx_scene *s, char *out, size_t len);

/* The largest of 1, 1.25, 1.6, 2, 2.5, 3.2, 4, 5, 6.4 and 8 × 10^k not above x > 0. */
double vx_numerics_nice_down(double x);

/* The most core turnovers dt·ω a step of integrator it may take. A core's centre turns as a solid body
 * at ω/2, so a step rotates it by x = ω dt/2, and the integrator multiplies the radius by |g(ix)|:
 * Euler √(1 + x²), RK2 √(1 + x⁴/4) (both grow), RK4 √(1 − x⁶/72 + x⁸/576) (damps up to x = 2√2).
 * The growth over one turn (2π/x steps) is held under 1 %: Euler πx ≤ 0.01, dt·ω ≤ 0.0064; RK2
 * πx³/4 ≤ 0.01, dt·ω ≤ 0.46; RK4 VX_NUM_DT_OMEGA_MAX (x = 1, damping 0.6 % a step). */
double vx_numerics_dt_omega_max(vx_integrator it);
/* The time step the rules allow a running flow: vx_numerics_dt_omega_max(it) / ω for rings of
 * peak vorticity omega (0 when omega is not positive: no limit). */
double vx_numerics_dt_max(double omega, vx_integrator it);
/* A time step asked of a running flow whose limit is dt_max (vx_sim_dt_limit): dt itself within the
 * limit (or without one, dt_max <= 0), else the largest round step within it. */
double vx_numerics_dt_adjust(double dt, double dt_max);

VX_EXTERN_C_END
#endif
