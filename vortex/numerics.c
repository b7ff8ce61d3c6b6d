/* numerics.c — the method's own numerics (numerics.h): the rules that turn a scene's physics and a
 * resolution into σ, h, dt, the remeshing, the viscosity floor and each ring's discretisation. */
#include "numerics.h"
#include "conserve.h"
#include "remesh.h"
#include "reproject.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
  const char *key;
  unsigned bit;
} key_bits[] = {{"sigma", VX_GIVEN_SIGMA},
                {"sigma_factor", VX_GIVEN_SIGMA},
                {"dt", VX_GIVEN_DT},
                {"relax", VX_GIVEN_RELAX},
                {"relax_every", VX_GIVEN_RELAX_EVERY},
                {"remesh_every", VX_GIVEN_REMESH_EVERY},
                {"remesh_h", VX_GIVEN_REMESH_H},
                {"remesh_drop", VX_GIVEN_REMESH_DROP},
                {"remesh_coarsen", VX_GIVEN_REMESH_COARSEN},
                {"viscosity", VX_GIVEN_VISCOSITY},
                {"lcfl", VX_GIVEN_LCFL},
                {"conserve", VX_GIVEN_CONSERVE},
                {"stretching", VX_GIVEN_STRETCHING},
                {"order", VX_GIVEN_ORDER},
                {"n_around", VX_GIVEN_N_AROUND},
                {"layers", VX_GIVEN_LAYERS},
                {"layer_points", VX_GIVEN_LAYER_POINTS}};

unsigned vx_numerics_key_bit(const char *key) {
  for (size_t i = 0; i < sizeof key_bits / sizeof key_bits[0]; ++i)
    if (!strcmp(key, key_bits[i].key)) return key_bits[i].bit;
  return 0;
}

static const char *res_names[] = {"coarse", "normal", "fine"};
const char *vx_resolution_name(vx_resolution r) { return r >= VX_RES_COARSE && r <= VX_RES_FINE ? res_names[r] : "?"; }
int vx_resolution_from_name(const char *name, vx_resolution *out) {
  for (int i = 0; i < 3; ++i)
    if (name && !strcmp(name, res_names[i])) { *out = (vx_resolution)i; return 0; }
  return -1;
}

/* normal carries the design paper's leapfrog at its own lattice (h = a/1.5, dt = 0.002); fine
 * eight times its elements and work; coarse runs a scene of a few rings on a laptop's CPU at a few
 * steps a second. */
void vx_numerics_budget(vx_resolution r, double *max_elements, double *max_work) {
  *max_elements = r == VX_RES_COARSE ? 1536.0 : r == VX_RES_FINE ? 524288.0 : 65536.0;
  *max_work = r == VX_RES_COARSE ? 3e5 : r == VX_RES_FINE ? 1.28e8 : 1.6e7;
}

double vx_numerics_omega(const vx_ring *r, double sigma) {
  return fabs(r->circulation) / (VX_PI * (r->core * r->core + sigma * sigma));
}

double vx_numerics_dt_omega_max(vx_integrator it) {
  return it == VX_EULER ? VX_NUM_DT_OMEGA_MAX_EULER : it == VX_RK2 ? VX_NUM_DT_OMEGA_MAX_RK2 : VX_NUM_DT_OMEGA_MAX;
}

double vx_numerics_dt_max(double omega, vx_integrator it) { return omega > 0.0 ? vx_numerics_dt_omega_max(it) / omega : 0.0; }

double vx_numerics_dt_adjust(double dt, double dt_max) {
  return dt_max > 0.0 && dt > dt_max ? vx_numerics_nice_down(dt_max) : dt;
}

double vx_numerics_nice_down(double x) {
  if (!(x > 0.0 && isfinite(x))) return x;
  double e = pow(10.0, floor(log10(x)));
  double m = x / e;
  static const double steps[] = {8.0, 6.4, 5.0, 4.0, 3.2, 2.5, 2.0, 1.6, 1.25};
  for (int i = 0; i < 9; ++i)
    if (m >= steps[i]) return steps[i] * e;
  return e;
}

/* A ring's centreline length. */
static double ring_length(const vx_ring *r) { return 2.0 * VX_PI * r->radius * (1.0 + r->perturb_amp); }

/* The largest smoothed-core vorticity over the rings. */
static double scene_omega(const vx_scene *s, double sigma) {
  double w = 0.0;
  for (int i = 0; i < s->n_rings; ++i) w = fmax(w, vx_numerics_omega(&s->rings[i], sigma));
  return w;
}

/* Elements on a lattice of spacing h after remeshing: each ring's centreline length times the nodes
 * of its cross-section, a disc of the core's support (2a for a Gaussian core) widened by the
 * remeshing stencil's reach (a fit to the element counts of remeshed rings). */
static double expected_elements(const vx_scene *s, double h) {
  double n = 0.0;
  for (int i = 0; i < s->n_rings; ++i) {
    const vx_ring *r = &s->rings[i];
    double reach = (r->profile == VX_CORE_UNIFORM ? r->core : 2.0 * r->core) + 1.2 * h;
    n += ring_length(r) / h * VX_PI * reach * reach / (h * h);
  }
  return n;
}

/* The time step the rules give for smoothing radius sigma. */
static double rule_dt(const vx_scene *s, double sigma) {
  return vx_numerics_nice_down(fmin(VX_NUM_DT_OMEGA, vx_numerics_dt_omega_max(s->integrator)) / scene_omega(s, sigma));
}

/* The lattice spacing: the cores' resolution, coarsened until the budgets hold. */
static double rule_h(const vx_scene *s, int *limited) {
  double amin = INFINITY, nmax, wmax;
  for (int i = 0; i < s->n_rings; ++i) amin = fmin(amin, s->rings[i].core);
  vx_numerics_budget(s->resolution, &nmax, &wmax);
  double h = amin / VX_NUM_PER_CORE;
  *limited = 0;
  for (int k = 0; k < 400; ++k) {
    double n = expected_elements(s, h);
    double dt = s->given & VX_GIVEN_DT ? s->dt : rule_dt(s, VX_NUM_SIGMA_H * h);
    if (n <= nmax && n / dt <= wmax) break;
    h *= 1.03;
    *limited = 1;
  }
  return h;
}

/* A flow that makes scales finer than its cores: more than one ring, or a wavy centreline. */
static int makes_small_scales(const vx_scene *s) {
  if (s->n_rings > 1) return 1;
  for (int i = 0; i < s->n_rings; ++i)
    if (s->rings[i].perturb_amp > 0.0 && s->rings[i].perturb_mode > 0) return 1;
  return 0;
}

/* Every ring a vortex filament the scene asked for (layers = 0 given): the blob is the core and the
 * particles stay on the centrelines, so nothing disorders across the cores. */
static int all_filaments(const vx_scene *s) {
  for (int i = 0; i < s->n_rings; ++i)
    if (!(s->rings[i].given & VX_GIVEN_LAYERS) || s->rings[i].layers != 0) return 0;
  return 1;
}

static void discretise_rings(vx_scene *s, double h) {
  for (int i = 0; i < s->n_rings; ++i) {
    vx_ring *r = &s->rings[i];
    if (!(r->given & VX_GIVEN_N_AROUND)) {
      double n = ceil(ring_length(r) / h);
      r->n_around = (int)fmin(fmax(n, 8.0), (double)(1 << 24));
    }
    if (!(r->given & VX_GIVEN_LAYERS)) {
      double l = ceil(vx_ring_extent(r) * r->core / h - 0.5);
      r->layers = (int)fmin(fmax(l, 1.0), 64.0);
    }
  }
}

static void warn(vx_numerics *n, const char *line) {
  size_t u = strlen(n->warnings);
  snprintf(n->warnings + u, sizeof n->warnings - u, "%s%s", u ? "\n" : "", line);
}

/* The time step against the integrator's limit (checked when dt_check), the order and the kernel. */
static void check_method(int dt_check, double dt, vx_integrator it, double lcfl, int order, vx_kernel kernel, vx_numerics *n) {
  char line[256];
  /* substeps hold dt·max|∇u| to lcfl, i.e. dt·ω to √2·lcfl at a core's centre */
  double most = vx_numerics_dt_omega_max(it), turn = dt * n->omega;
  if (lcfl > 0.0) turn = fmin(turn, sqrt(2.0) * lcfl);
  if (dt_check && turn > most) {
    snprintf(line, sizeof line, "dt %g is %.3g core turnovers a step (dt*omega, omega %.4g%s): above %s's %g, expect a blow-up", dt,
             turn, n->omega, lcfl > 0.0 ? ", with substeps" : ", substeps off", vx_integrator_name(it), most);
    warn(n, line);
  }
  if (order < VX_NUM_ORDER_MIN) {
    snprintf(line, sizeof line, "order %d below %d: the far field's error breaks the flow down", order, VX_NUM_ORDER_MIN);
    warn(n, line);
  }
  if (kernel == VX_KERNEL_SINGULAR)
    warn(n, "the singular kernel has no core: neighbouring elements drive each other without bound, expect a blow-up");
}

/* The overrides the rules predict unstable. */
static void check_overrides(const vx_scene *s, vx_numerics *n) {
  char line[256];
  double h = s->remesh_h > 0.0 ? s->remesh_h : n->sigma;
  check_method(s->given & VX_GIVEN_DT, s->dt, s->integrator, s->lcfl, s->order, s->kernel, n);
  if (s->remesh_every > 0 && n->sigma / h < VX_NUM_SIGMA_H_MIN) {
    snprintf(line, sizeof line, "sigma %g below the lattice spacing %g: the blobs do not overlap and the remeshed field grows noisy",
             n->sigma, h);
    warn(n, line);
  }
  if (s->given & VX_GIVEN_REMESH_EVERY && makes_small_scales(s) && !all_filaments(s)) {
    if (s->remesh_every == 0)
      warn(n, "remeshing off in a flow of several rings or a wavy ring: the particles disorder within a few core turnovers");
    else if (s->remesh_every * s->dt * n->omega > VX_NUM_REMESH_OMEGA_MAX) {
      snprintf(line, sizeof line, "remesh_every %d is %.3g core turnovers (above %g): the particles disorder between remeshings",
               s->remesh_every, s->remesh_every * s->dt * n->omega, VX_NUM_REMESH_OMEGA_MAX);
      warn(n, line);
    }
  }
  if (s->given & VX_GIVEN_VISCOSITY && s->viscosity < n->nu_floor && s->remesh_every > 0) {
    snprintf(line, sizeof line, "viscosity %g below the %g the lattice carries for this flow: its small scales go unresolved and the impulse drifts",
             s->viscosity, n->nu_floor);
    warn(n, line);
  }
}

/* A lone inviscid ring without a wave: the Lagrangian discretisation, no lattice (numerics.h). */
static int lone_ring(const vx_scene *s, double nu_phys) { return !makes_small_scales(s) && nu_phys == 0.0; }

static void derive_lone(vx_scene *s, vx_numerics *n) {
  vx_ring *r = &s->rings[0];
  double nmax, wmax;
  vx_numerics_budget(s->resolution, &nmax, &wmax);
  if (!(r->given & VX_GIVEN_LAYERS)) r->layers = 2;
  long long cross = 1 + (long long)r->layer_points * r->layers * (r->layers + 1) / 2;
  double len = ring_length(r);
  if (!(r->given & VX_GIVEN_N_AROUND)) {
    double ds = fmax(VX_NUM_LONE_SPACING * r->core, len * cross / nmax);
    n->limited = ds > VX_NUM_LONE_SPACING * r->core;
    r->n_around = (int)fmin(fmax(ceil(len / ds), 8.0), (double)(1 << 24));
  }
  if (!(s->given & VX_GIVEN_SIGMA)) s->sigma = VX_NUM_LONE_SIGMA * r->core;
  n->sigma = s->sigma > 0.0 ? s->sigma : s->sigma_factor * len / r->n_around;
  n->omega = scene_omega(s, n->sigma);
  double turns = fmin(VX_NUM_LONE_DT_OMEGA, vx_numerics_dt_omega_max(s->integrator));
  if (!(s->given & VX_GIVEN_DT)) s->dt = fmax(vx_numerics_nice_down(turns / n->omega), VX_SCENE_DT_MIN);
  if (!(s->given & VX_GIVEN_RELAX)) s->relax = VX_NUM_LONE_RELAX;
  if (!(s->given & VX_GIVEN_REMESH_EVERY)) s->remesh_every = 0;
  if (!(s->given & VX_GIVEN_CONSERVE)) s->conserve = VX_CONSERVE_FULL;
  if (!(s->given & VX_GIVEN_STRETCHING)) s->stretching = VX_STRETCH_TRANSPOSE;
  n->h = s->remesh_h;
  n->dt = s->dt;
  n->elements = (double)r->n_around * cross;
}

/* Rings that cannot touch: circular, travelling one way along one line (a leapfrog, a chase). A
 * filament cannot reconnect, so rings that meet run on the lattice. */
static int coaxial_circular(const vx_scene *s) {
  const vx_ring *r0 = &s->rings[0];
  double u0[3]; /* the first ring's direction of travel, sign(Γ)·axis (unit) */
  for (int k = 0; k < 3; ++k) u0[k] = (r0->circulation < 0.0 ? -1.0 : 1.0) * r0->axis[k];
  for (int i = 0; i < s->n_rings; ++i) {
    const vx_ring *r = &s->rings[i];
    if (r->perturb_amp > 0.0 && r->perturb_mode > 0) return 0;
    double t = r->circulation < 0.0 ? -1.0 : 1.0, c = 0.0, d[3], along = 0.0, d2 = 0.0;
    for (int k = 0; k < 3; ++k) c += t * r->axis[k] * u0[k];
    if (c < 1.0 - VX_NUM_FIL_COAXIAL) return 0;
    for (int k = 0; k < 3; ++k) d[k] = r->centre[k] - r0->centre[k], along += d[k] * u0[k];
    for (int k = 0; k < 3; ++k) d2 += (d[k] - along * u0[k]) * (d[k] - along * u0[k]);
    if (sqrt(d2) > VX_NUM_FIL_COAXIAL * fmin(r->radius, r0->radius)) return 0;
  }
  return 1;
}

/* Every ring thin (a/R at most VX_NUM_FIL_THIN) and none given layers > 0. */
static int all_thin(const vx_scene *s) {
  for (int i = 0; i < s->n_rings; ++i) {
    const vx_ring *r = &s->rings[i];
    if ((r->given & VX_GIVEN_LAYERS && r->layers != 0) || r->core > VX_NUM_FIL_THIN * r->radius) return 0;
  }
  return 1;
}

/* A lone viscous ring without a wave whose cores the lattice's budget would smooth: as a filament its
 * blob is its core whatever the budget (numerics.h). */
static int lone_smoothed(const vx_scene *s, double nu_phys) {
  int limited = 0;
  if (s->n_rings != 1 || makes_small_scales(s) || !(nu_phys > 0.0) || s->given & VX_GIVEN_REMESH_H) return 0;
  if (s->rings[0].given & VX_GIVEN_LAYERS && s->rings[0].layers != 0) return 0;
  (void)rule_h(s, &limited);
  return limited;
}

/* A lone thin ring with a centreline wave of at most VX_NUM_FIL_WAVE_MAX: nothing can meet it. */
static int lone_wavy(const vx_scene *s) {
  if (s->n_rings != 1 || !all_thin(s)) return 0;
  const vx_ring *r = &s->rings[0];
  return r->perturb_amp > 0.0 && r->perturb_mode > 0 && r->perturb_amp <= VX_NUM_FIL_WAVE_MAX;
}

/* Thin rings as vortex filaments (numerics.h): all thin, circular and coaxial; a lone wavy thin ring;
 * every ring given layers = 0; or a lone viscous ring the lattice would smooth. */
static int filament_flow(const vx_scene *s, double nu_phys) {
  return all_filaments(s) || (all_thin(s) && (coaxial_circular(s) || lone_wavy(s))) || lone_smoothed(s, nu_phys);
}

int vx_numerics_launch_check(const vx_scene *s, const vx_ring *r, char *err, size_t errlen) {
  if (!s || !s->numerics.derived || !s->numerics.filaments || all_filaments(s)) return 0;
  vx_scene t = *s;
  if (t.n_rings < VX_SCENE_MAX_RINGS) t.rings[t.n_rings++] = *r;
  if (t.n_rings > s->n_rings && coaxial_circular(&t)) return 0;
  if (lone_wavy(s)) {
    snprintf(err, errlen,
             "the ring is a wavy vortex filament, which cannot reconnect and drifts beside another ring: no ring can be "
             "launched into it (give the scene's ring layers >= 1 for a lattice, or layers = 0 to launch anyway)");
    return -1;
  }
  snprintf(err, errlen,
           "the rings are vortex filaments, which cannot reconnect: a ring launched here must travel along their axis, as "
           "they do (the batch's --launch-ring does; or give the scene's rings layers = 0 to launch anywhere, or layers >= 1 "
           "for a lattice)");
  return -1;
}

/* The stations the rule places on ring r at smoothing radius sigma. */
static int filament_stations(const vx_ring *r, double sigma) {
  return (int)fmin(fmax(ceil(ring_length(r) * VX_NUM_FIL_PER_SIGMA / sigma), 8.0), (double)(1 << 24));
}

/* The rule's time step for filaments of smoothing radius sigma and largest circulation gmax. */
static double filament_dt(const vx_scene *s, double sigma, double gmax) {
  double turns = s->integrator == VX_RK4 ? VX_NUM_FIL_DT_OMEGA : vx_numerics_dt_omega_max(s->integrator);
  return fmax(vx_numerics_nice_down(turns * VX_PI * sigma * sigma / gmax), VX_SCENE_DT_MIN);
}

/* The filaments' σ: the thinnest core's, raised by 2 % at a time until the elements (the rule's
 * stations on the rings without n_around) and the element-steps per unit time (at the given dt, or
 * the rule's) fit the resolution's budgets. */
static double filament_sigma(const vx_scene *s, double gmax, int *limited) {
  double amin = INFINITY, nmax, wmax;
  vx_numerics_budget(s->resolution, &nmax, &wmax);
  for (int i = 0; i < s->n_rings; ++i) amin = fmin(amin, s->rings[i].core);
  double sigma = amin / sqrt(exp(1.0));
  *limited = 0;
  for (int k = 0; k < 400; ++k, sigma *= 1.02) {
    double n = 0.0;
    for (int i = 0; i < s->n_rings; ++i) {
      const vx_ring *r = &s->rings[i];
      n += r->given & VX_GIVEN_N_AROUND ? r->n_around : filament_stations(r, sigma);
    }
    double dt = s->given & VX_GIVEN_DT ? s->dt : filament_dt(s, sigma, gmax);
    if (n <= nmax && n / dt <= wmax) break;
    *limited = 1;
  }
  return sigma;
}

static void derive_filaments(vx_scene *s, vx_numerics *n) {
  double gmax = 0.0, strain = 0.0;
  for (int i = 0; i < s->n_rings; ++i) {
    const vx_ring *r = &s->rings[i];
    gmax = fmax(gmax, fabs(r->circulation));
    strain = fmax(strain, fabs(r->circulation) / (r->radius * r->radius));
  }
  if (!(s->given & VX_GIVEN_SIGMA)) s->sigma = filament_sigma(s, gmax, &n->limited);
  for (int i = 0; i < s->n_rings; ++i) {
    vx_ring *r = &s->rings[i];
    if (!(r->given & VX_GIVEN_LAYERS)) r->layers = 0;
    if (!(r->given & VX_GIVEN_N_AROUND) && s->sigma > 0.0) r->n_around = filament_stations(r, s->sigma);
  }
  n->filaments = 1;
  double spacing = 0.0;
  for (int i = 0; i < s->n_rings; ++i) spacing = fmax(spacing, ring_length(&s->rings[i]) / s->rings[i].n_around);
  n->sigma = vx_scene_sigma(s, spacing);
  n->omega = gmax / (VX_PI * n->sigma * n->sigma);
  if (!(s->given & VX_GIVEN_DT)) s->dt = filament_dt(s, n->sigma, gmax);
  if (!(s->given & VX_GIVEN_LCFL)) s->lcfl = 1.0;
  if (!(s->given & VX_GIVEN_RELAX)) s->relax = 1.0 - exp(-VX_NUM_FIL_RELAX * strain * s->dt);
  if (!(s->given & VX_GIVEN_RELAX_EVERY)) s->relax_every = 1;
  if (!(s->given & VX_GIVEN_REMESH_EVERY)) s->remesh_every = 0;
  /* each ring's impulse through its relaxations (conserve.h); the ring blocks need remeshing off */
  if (!(s->given & VX_GIVEN_CONSERVE)) s->conserve = s->remesh_every > 0 ? VX_CONSERVE_OFF : VX_CONSERVE_RING;
  if (!(s->given & VX_GIVEN_STRETCHING)) s->stretching = VX_STRETCH_TRANSPOSE;
  if (!(s->given & VX_GIVEN_ORDER)) s->order = VX_NUM_FIL_ORDER;
  if (!(s->given & VX_GIVEN_VISCOSITY)) s->viscosity = n->nu_phys;
  n->h = s->remesh_h;
  n->dt = s->dt;
  for (int i = 0; i < s->n_rings; ++i) n->elements += (double)vx_ring_elements(&s->rings[i]);
}

/* Each ring's centreline wave as the smoothing radius sigma carries it (VX_NUM_WAVE_KEEP_MIN). */
static void smooth_waves(vx_scene *s, double sigma, vx_numerics *n) {
  n->wave_keep = 1.0;
  if (!(sigma > 0.0)) return;
  for (int i = 0; i < s->n_rings; ++i) {
    vx_ring *r = &s->rings[i];
    r->wave_smooth = 0.0;
    if (!(r->perturb_amp > 0.0 && r->perturb_mode > 0 && r->radius > 0.0)) continue;
    double k = r->perturb_mode * sigma / r->radius, keep = exp(-0.5 * k * k);
    if (keep > VX_NUM_WAVE_KEEP_MIN) continue;
    r->wave_smooth = 1.0 - keep;
    n->waves_smoothed++;
    n->wave_keep = fmin(n->wave_keep, keep);
  }
}

int vx_numerics_derive(vx_scene *s, char *err, size_t errlen) {
  vx_numerics *n = &s->numerics;
  memset(n, 0, sizeof *n);
  if (s->n_rings == 0) return 0;
  if (s->given & VX_GIVEN_VISCOSITY && s->reynolds > 0.0) {
    snprintf(err, errlen, "both viscosity and reynolds are given (reynolds = max|circulation|/viscosity: give one)");
    return -1;
  }
  n->derived = 1;
  n->resolution = s->resolution;
  double gmax = 0.0;
  for (int i = 0; i < s->n_rings; ++i) gmax = fmax(gmax, fabs(s->rings[i].circulation));
  n->nu_phys = s->given & VX_GIVEN_VISCOSITY ? s->viscosity : s->reynolds > 0.0 ? gmax / s->reynolds : 0.0;
  if (filament_flow(s, n->nu_phys)) { /* before the lone ring: a thin one is a filament, inviscid or not */
    derive_filaments(s, n);
    smooth_waves(s, n->sigma, n);
    check_overrides(s, n);
    return 0;
  }
  if (lone_ring(s, n->nu_phys)) {
    derive_lone(s, n);
    check_overrides(s, n);
    return 0;
  }
  n->thin_meet = all_thin(s);
  double h = rule_h(s, &n->limited);
  if (s->given & VX_GIVEN_REMESH_H && s->remesh_h > 0.0) h = s->remesh_h;
  if (!(s->given & VX_GIVEN_REMESH_H)) s->remesh_h = h;
  if (!(s->given & VX_GIVEN_SIGMA)) s->sigma = VX_NUM_SIGMA_H * h;
  discretise_rings(s, h);
  /* σ of a sigma_factor scene: the factor times the largest spacing the rings' keys give */
  double sigma = s->sigma;
  if (!(sigma > 0.0)) {
    double sp = 0.0;
    for (int i = 0; i < s->n_rings; ++i) {
      const vx_ring *r = &s->rings[i];
      sp = fmax(sp, ring_length(r) / r->n_around);
      if (r->layers > 0) sp = fmax(sp, r->core * vx_ring_extent(r) / (r->layers + 0.5));
    }
    sigma = s->sigma_factor * sp;
  }
  if (s->given & VX_GIVEN_REMESH_H && !(s->remesh_h > 0.0)) h = sigma; /* remesh_h = 0: the lattice spacing is σ */
  n->h = h;
  n->sigma = sigma;
  n->omega = scene_omega(s, sigma);
  if (!(s->given & VX_GIVEN_DT)) s->dt = fmax(rule_dt(s, sigma), VX_SCENE_DT_MIN);
  n->dt = s->dt;
  smooth_waves(s, sigma, n);
  n->elements = expected_elements(s, h);
  if (s->given & VX_GIVEN_REMESH_EVERY && s->remesh_every == 0) {
    n->elements = 0.0; /* no lattice: the rings' own elements */
    for (int i = 0; i < s->n_rings; ++i) n->elements += (double)vx_ring_elements(&s->rings[i]);
  }
  n->nu_floor = makes_small_scales(s) ? VX_NUM_NU_FLOOR * n->omega * h * h : 0.0;
  if (!(s->given & VX_GIVEN_VISCOSITY)) s->viscosity = fmax(n->nu_phys, n->nu_floor);
  double k = fmax(1.0, floor(VX_NUM_REMESH_OMEGA / (n->omega * s->dt) + 0.5));
  if (!(s->given & VX_GIVEN_REMESH_EVERY)) {
    /* the diffusion one remeshing applies stays within the remeshing kernel's limit */
    double kmax = s->viscosity > 0.0 ? floor(VX_REMESH_C2_MAX * h * h / (s->viscosity * s->dt)) : k;
    s->remesh_every = (int)fmax(1.0, fmin(fmin(k, kmax), (double)VX_SCENE_EVERY_MAX));
  }
  /* on the lattice with the Gaussian kernel the relaxation is the reprojection (reproject.h), whole
   * each step; otherwise Pedrizzetti's, the same between two remeshings whatever their interval
   * (without remeshing, the rule's) */
  if (!(s->given & VX_GIVEN_RELAX))
    s->relax = vx_relax_reprojects(s->remesh_every, s->kernel)
                   ? VX_NUM_REPROJECT
                   : fmin(VX_NUM_RELAX_MAX, VX_NUM_RELAX_REMESH / (s->remesh_every > 0 ? s->remesh_every : k));
  if (!(s->given & VX_GIVEN_REMESH_DROP)) s->remesh_drop = VX_NUM_DROP;
  if (!(s->given & VX_GIVEN_CONSERVE)) s->conserve = VX_CONSERVE_FULL;
  /* with the reprojection the classical form keeps the impulse of interacting rings better; the
   * correction holds the Σα it lets drift at zero */
  if (!(s->given & VX_GIVEN_STRETCHING))
    s->stretching = vx_relax_reprojects(s->remesh_every, s->kernel) && s->relax > 0.0 ? VX_STRETCH_CLASSICAL : VX_STRETCH_TRANSPOSE;
  if (!(s->given & VX_GIVEN_REMESH_COARSEN)) s->remesh_coarsen = n->nu_phys > 0.0 ? VX_NUM_COARSEN : 0.0;
  check_overrides(s, n);
  return 0;
}

/* Each line of warnings as "\nwarning: LINE SUFFIX" into out. */
static void warning_lines(const char *warnings, const char *suffix, char *out, size_t len) {
  size_t w = 0;
  if (len) out[0] = 0;
  for (const char *p = warnings; *p && w < len;) {
    const char *e = strchr(p, '\n');
    int k = e ? (int)(e - p) : (int)strlen(p);
    int m = snprintf(out + w, len - w, "\nwarning: %.*s%s", k, p, suffix);
    if (m < 0) break;
    w += (size_t)m;
    p += k + (e ? 1 : 0);
  }
}

void vx_numerics_describe(const vx_scene *s, char *out, size_t len) {
  const vx_numerics *n = &s->numerics;
  if (!n->derived) { snprintf(out, len, "numerics: as given (a scene built in code)"); return; }
  char visc[160];
  if (s->viscosity == 0.0) snprintf(visc, sizeof visc, "inviscid");
  else if (s->viscosity > n->nu_phys && n->nu_floor > 0.0 && !(s->given & VX_GIVEN_VISCOSITY))
    snprintf(visc, sizeof visc, "viscosity %.3g (the lattice's floor %.3g = %g omega h^2, above the flow's own %.3g)", s->viscosity,
             n->nu_floor, VX_NUM_NU_FLOOR, n->nu_phys);
  else if (n->filaments && s->remesh_every <= 0)
    snprintf(visc, sizeof visc, "viscosity %.3g (the cores spread: sigma^2 grows by 4 nu/e a unit time)", s->viscosity);
  else snprintf(visc, sizeof visc, "viscosity %.3g", s->viscosity);
  char lattice[256];
  if (s->remesh_every > 0)
    snprintf(lattice, sizeof lattice, "lattice h %.4g (%s), remesh every %d steps%s", n->h,
             s->given & VX_GIVEN_REMESH_H ? "as given"
             : n->limited               ? "the resolution's budget: the cores are smoothed"
                                        : "h = a_min/1.5",
             s->remesh_every, n->thin_meet ? " (thin rings that can meet, or a wavy one: a filament cannot reconnect)" : "");
  else if (n->filaments)
    snprintf(lattice, sizeof lattice, "vortex filaments%s, no remeshing (one element a station, the blob the core: %s)",
             lone_smoothed(s, n->nu_phys) ? " (a lone viscous ring the lattice would smooth)"
             : lone_wavy(s)               ? " (a lone wavy ring: nothing meets it)"
                                          : "",
             s->given & VX_GIVEN_SIGMA ? "sigma as given"
             : n->limited             ? "the resolution's budget: the cores are smoothed"
                                      : "sigma = a_min/sqrt(e)");
  else if (lone_ring(s, n->nu_phys) && !(s->given & VX_GIVEN_REMESH_EVERY))
    snprintf(lattice, sizeof lattice, "no remeshing (a lone ring%s)", n->limited ? "; the resolution's budget smooths its core" : "");
  else snprintf(lattice, sizeof lattice, "no remeshing (as given)");
  char relax[64];
  snprintf(relax, sizeof relax, vx_relax_reprojects(s->remesh_every, s->kernel) && s->relax > 0.0 ? "relax %g (the reprojection)" : "relax %g",
           s->relax);
  int w = snprintf(out, len,
                   "numerics (resolution %s): %s, sigma %.4g, dt %.3g (omega %.4g: dt*omega %.2f), %s, %s, drop %g, "
                   "conserve %s, coarsen %g, %s stretching, order %d%s; about %.0f elements",
                   vx_resolution_name(n->resolution), lattice, n->sigma, s->dt, n->omega, s->dt * n->omega, visc, relax,
                   s->remesh_drop, vx_conserve_name(s->conserve), s->remesh_coarsen, vx_stretching_name(s->stretching),
                   s->order, n->filaments && !(s->given & VX_GIVEN_ORDER) ? " (filaments: the stretching integrates the far field's error)" : "",
                   n->elements);
  if (n->waves_smoothed > 0 && w > 0 && (size_t)w < len)
    w += snprintf(out + w, len - (size_t)w, "; %d centreline wave%s smoothed by sigma to as little as %.3g of %s amplitude",
                  n->waves_smoothed, n->waves_smoothed > 1 ? "s" : "", n->wave_keep, n->waves_smoothed > 1 ? "their" : "its");
  if (w > 0 && (size_t)w < len) warning_lines(n->warnings, "", out + w, len - (size_t)w);
}

void vx_numerics_check_run(const vx_scene *s, double dt, vx_integrator it, double lcfl, int order, vx_kernel kernel, char *out,
                           size_t len) {
  out[0] = 0;
  if (!s->numerics.derived) return;
  vx_numerics n = s->numerics;
  n.warnings[0] = 0;
  int dt_check = dt != s->dt || it != s->integrator || lcfl != s->lcfl;
  check_method(dt_check, dt, it, lcfl, order != s->order ? order : VX_NUM_ORDER_MIN,
               kernel != s->kernel ? kernel : VX_KERNEL_GAUSS, &n);
  warning_lines(n.warnings, " (the command line's)", out, len);
}
