/* test_vortex_numerics.c — the method's own numerics (vortex/numerics.h), CPU:
 *  1. the shipped physics-only scenes derive the blocks their validated runs were tuned to: merger
 *     the design paper's (σ = a, h = a/1.5, dt 0.002, remeshing every 25 steps, ν = 6.0e-4) with
 *     relaxation 0.1, single_ring the lone ring's (no lattice, σ = 2a, dt 0.002, relaxation 0.1);
 *  2. a key the scene gives is kept (the relaxation follows a given remeshing interval), and the
 *     overrides the rules predict unstable are warned;
 *  3. reynolds sets the viscosity (with viscosity it is a contradiction), the resolution's budgets
 *     bound the elements, a wavy lone thick ring gets a lattice and the floor;
 *  4. a saved scene reads back with the same numerics and no warning;
 *  4b. a centreline wave shorter than σ is laid at e^{-(mσ/R)²/2} of its amplitude (the scene keeps
 *     its own), the same after the scene is saved and read back; a longer wave keeps more of it;
 *  5. a running flow: dt 4x is within the limit and runs; dt 16x is lowered to the largest round step
 *     within it (the window's rule), and the flow runs on at that step;
 *  6. thin rings derive vortex filaments (σ = a/√e, 2.4 stations a σ, the rule's dt and relaxation, no
 *     lattice), the default leapfrog its block; a ring given layers keeps the lattice; the coarse
 *     budget smooths the cores; a viscous filament flow spreads its cores, σ² growing by 4ν/e a unit
 *     time over a short run; filaments derive order VX_NUM_FIL_ORDER unless given; a lone thin ring is a filament,
 *     with a small centreline wave too (no ring launched into it; a larger wave is the lattice's),
 *     a lone thick one keeps the lone ring's rule; a lone viscous ring is a filament only where the
 *     lattice's budget would smooth its core. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"
#include "conserve.h"
#include "numerics.h"
#include "scene.h"
#include "sim.h"

static char err[512];

static int load(const char *name, vx_scene *s) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.scene", VX_ASSETS_DIR, name);
  CHECK(vx_scene_load(path, s, err, sizeof err) == 0, "%s: %s", name, err);
  return 0;
}

static int parse(const char *text, vx_scene *s) {
  CHECK(vx_scene_parse(text, "t.scene", s, err, sizeof err) == 0, "parse: %s", err);
  return 0;
}

static int near(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

static int check_shipped(void) {
  vx_scene s;
  if (load("merger", &s)) return 1;
  CHECK(near(s.sigma, 0.03, 1e-12) && near(s.remesh_h, 0.02, 1e-12) && s.dt == 0.002 && s.remesh_every == 25 &&
            s.relax == VX_NUM_REPROJECT && s.relax_every == 1 && near(s.viscosity, 6.0e-4, 0.01) && s.conserve == 2 &&
            s.remesh_coarsen == 0.0 && s.remesh_drop == 1e-3,
        "merger derived sigma %g h %g dt %g every %d relax %g nu %g conserve %d coarsen %g drop %g", s.sigma, s.remesh_h, s.dt,
        s.remesh_every, s.relax, s.viscosity, s.conserve, s.remesh_coarsen, s.remesh_drop);
  CHECK(s.rings[0].layers == 3 && s.rings[0].n_around == 95 && !s.numerics.warnings[0] && !s.numerics.limited,
        "merger rings: %d layers, %d stations, warnings '%s'", s.rings[0].layers, s.rings[0].n_around, s.numerics.warnings);
  printf("  ok: merger derives the paper's block (sigma 0.03, h 0.02, dt 0.002, every 25) with the reprojection, nu %.3g\n",
         s.viscosity);
  if (load("single_ring", &s)) return 1;
  CHECK(s.remesh_every == 0 && near(s.sigma, 0.06, 1e-12) && s.dt == 0.002 && s.relax == 0.1 && s.viscosity == 0.0 &&
            s.rings[0].layers == 2 && s.rings[0].n_around == 126,
        "single_ring derived every %d sigma %g dt %g relax %g nu %g layers %d stations %d", s.remesh_every, s.sigma, s.dt,
        s.relax, s.viscosity, s.rings[0].layers, s.rings[0].n_around);
  printf("  ok: single_ring derives the lone ring's block (no lattice, sigma 2a, dt 0.002, relax 0.1)\n");
  return 0;
}

static const char *kTwo = "[ring]\ncentre = 0.5 0.5 0.35\n[ring]\ncentre = 0.5 0.5 0.5\n";

static int check_overrides(void) {
  vx_scene s;
  char text[512];
  snprintf(text, sizeof text, "dt = 0.0005\nrelax = 0\n%s", kTwo);
  if (parse(text, &s)) return 1;
  /* the given dt counts in the work budget (the lattice coarsens to keep elements/dt within it), and
   * the remeshing keeps its interval in core turnovers */
  int every = (int)floor(VX_NUM_REMESH_OMEGA / (s.numerics.omega * s.dt) + 0.5);
  CHECK(s.dt == 0.0005 && s.relax == 0.0 && s.remesh_every == every && every > 25 && s.numerics.limited &&
            s.numerics.elements / s.dt <= 1.6e7 * 1.0001 && !s.numerics.warnings[0],
        "given dt and relax: dt %g relax %g every %d (want %d) limited %d work %g warnings '%s'", s.dt, s.relax,
        s.remesh_every, every, s.numerics.limited, s.numerics.elements / s.dt, s.numerics.warnings);
  /* on the lattice with the Gaussian kernel the relaxation is the whole reprojection each step, at
   * any interval; with another kernel Pedrizzetti's, the same amount between two remeshings */
  snprintf(text, sizeof text, "remesh_every = 10\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(s.remesh_every == 10 && s.relax == VX_NUM_REPROJECT, "remesh_every 10: relax %g (want the reprojection's %g)", s.relax,
        VX_NUM_REPROJECT);
  snprintf(text, sizeof text, "kernel = rm\nremesh_every = 10\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(s.remesh_every == 10 && fabs(s.relax - VX_NUM_RELAX_REMESH / 10.0) < 1e-15, "rm, remesh_every 10: relax %g (want %g)",
        s.relax, VX_NUM_RELAX_REMESH / 10.0);
  snprintf(text, sizeof text, "kernel = rm\nremesh_every = 4\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(s.relax == VX_NUM_RELAX_MAX, "rm, remesh_every 4: relax %g (want the cap %g)", s.relax, VX_NUM_RELAX_MAX);
  snprintf(text, sizeof text, "remesh_every = 0\nviscosity = 0\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(strstr(s.numerics.warnings, "remeshing off in a flow of several rings"), "no warning for remeshing off: '%s'",
        s.numerics.warnings);
  CHECK(s.relax > 0.0 && s.relax <= VX_NUM_RELAX_REMESH / 20.0, "remeshing off: relax %g (the rule's interval)", s.relax);
  snprintf(text, sizeof text, "sigma = 0.01\nviscosity = 1e-5\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(strstr(s.numerics.warnings, "below the lattice spacing") &&
            strstr(s.numerics.warnings, "viscosity 1e-05 below the"),
        "no warnings for sigma < h and nu under the floor: '%s'", s.numerics.warnings);
  snprintf(text, sizeof text, "dt = 0.05\nlcfl = 0\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(strstr(s.numerics.warnings, "core turnovers") && strstr(s.numerics.warnings, "expect a blow-up"),
        "no warning for dt*omega 8.8 without substeps: '%s'", s.numerics.warnings);
  char line[1024];
  vx_numerics_describe(&s, line, sizeof line);
  CHECK(strstr(line, "numerics (resolution normal)") && strstr(line, "\nwarning: dt 0.05"), "describe: '%s'", line);
  snprintf(text, sizeof text, "integrator = rk2\ndt = 0.004\nlcfl = 0\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(strstr(s.numerics.warnings, "above rk2's 0.46"), "no warning for dt*omega 0.7 with rk2: '%s'", s.numerics.warnings);
  vx_scene e;
  snprintf(text, sizeof text, "integrator = euler\nstretching = transpose\n%s", kTwo);
  if (parse(text, &e) || parse(kTwo, &s)) return 1;
  CHECK(e.dt * e.numerics.omega <= 0.0064 && e.dt * e.numerics.omega > 0.0064 / 2.0 && e.stretching == VX_STRETCH_TRANSPOSE &&
            s.stretching == VX_STRETCH_CLASSICAL,
        "euler: dt*omega %g (want within 0.0064 / 2..1); stretching given %d, derived on the lattice %d", e.dt * e.numerics.omega,
        e.stretching, s.stretching);
  vx_scene p;
  snprintf(text, sizeof text, "kernel = rm\n%s", kTwo);
  if (parse(text, &p)) return 1;
  CHECK(p.stretching == VX_STRETCH_TRANSPOSE, "Pedrizzetti's relaxation on the lattice: stretching %d (want transpose)", p.stretching);
  char run[512];
  vx_numerics_check_run(&s, s.dt, s.integrator, s.lcfl, s.order, s.kernel, run, sizeof run);
  CHECK(!run[0], "the scene's own run warned: '%s'", run);
  vx_numerics_check_run(&s, s.dt, VX_EULER, 0.5, 2, VX_KERNEL_SINGULAR, run, sizeof run);
  CHECK(strstr(run, "above euler's 0.0064") && strstr(run, "with substeps") && strstr(run, "order 2 below 4") &&
            strstr(run, "singular kernel"),
        "the command line's euler with substeps, order 2 and singular kernel: '%s'", run);
  printf("  ok: given keys kept; remeshing off, sigma < h, nu under the floor, dt*omega > 2 without substeps and over rk2's "
         "limit warned; euler's dt derived within its limit; the classical stretching on the lattice with the reprojection, the transpose "
         "with Pedrizzetti's, unless given; the command line's "
         "euler, order and kernel warned\n");
  return 0;
}

static int check_physics_keys(void) {
  vx_scene s;
  char text[512];
  snprintf(text, sizeof text, "reynolds = 200\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(near(s.viscosity, 1.0 / 200.0, 1e-12) && s.remesh_coarsen == 2.0 && s.numerics.nu_phys == s.viscosity,
        "reynolds 200: nu %g coarsen %g", s.viscosity, s.remesh_coarsen);
  snprintf(text, sizeof text, "reynolds = 200\nviscosity = 0.001\n%s", kTwo);
  CHECK(vx_scene_parse(text, "t.scene", &s, err, sizeof err) == -1 && strstr(err, "both viscosity and reynolds"),
        "reynolds with viscosity: '%s'", err);
  CHECK(vx_scene_parse("resolution = medium\n[ring]\n", "t.scene", &s, err, sizeof err) == -1 &&
            strstr(err, "expected coarse, normal or fine"),
        "resolution medium: '%s'", err);
  double nmax, wmax;
  snprintf(text, sizeof text, "resolution = coarse\n%s", kTwo);
  if (parse(text, &s)) return 1;
  vx_numerics_budget(VX_RES_COARSE, &nmax, &wmax);
  CHECK(s.numerics.limited && s.numerics.elements <= nmax && s.numerics.elements / s.dt <= wmax && s.remesh_h > 0.02,
        "coarse: limited %d, %g elements (budget %g), work %g (budget %g), h %g", s.numerics.limited, s.numerics.elements, nmax,
        s.numerics.elements / s.dt, wmax, s.remesh_h);
  double h_coarse = s.remesh_h;
  snprintf(text, sizeof text, "resolution = fine\n%s", kTwo);
  if (parse(text, &s)) return 1;
  CHECK(near(s.remesh_h, 0.02, 1e-12) && h_coarse > s.remesh_h, "fine: h %g (coarse %g)", s.remesh_h, h_coarse);
  if (parse("[ring]\nperturb_amp = 0.05\nperturb_mode = 5\n", &s)) return 1;
  CHECK(s.remesh_every > 0 && s.numerics.nu_floor > 0.0 && s.viscosity == s.numerics.nu_floor,
        "wavy lone ring: every %d floor %g nu %g", s.remesh_every, s.numerics.nu_floor, s.viscosity);
  CHECK(vx_numerics_nice_down(0.0019) == 0.0016 && vx_numerics_nice_down(0.00999) == 0.008 &&
            vx_numerics_nice_down(0.002) == 0.002,
        "round steps: %g %g %g", vx_numerics_nice_down(0.0019), vx_numerics_nice_down(0.00999), vx_numerics_nice_down(0.002));
  printf("  ok: reynolds, its contradiction with viscosity, the coarse budget (h %.4g), fine, a wavy ring's floor, round steps\n",
         h_coarse);
  return 0;
}

static int check_saved(void) {
  vx_scene s, r;
  if (load("merger", &s)) return 1;
  char path[1024];
  snprintf(path, sizeof path, "%s/test_vortex_numerics_%d.scene", VX_BINARY_DIR, (int)getpid());
  CHECK(vx_scene_write(path, &s, NULL, err, sizeof err) == 0, "write: %s", err);
  int rc = vx_scene_load(path, &r, err, sizeof err);
  remove(path);
  CHECK(rc == 0, "read back: %s", err);
  CHECK(r.sigma == s.sigma && r.remesh_h == s.remesh_h && r.dt == s.dt && r.remesh_every == s.remesh_every &&
            r.viscosity == s.viscosity && r.relax == s.relax && r.remesh_coarsen == s.remesh_coarsen &&
            r.rings[1].n_around == s.rings[1].n_around && r.rings[1].layers == s.rings[1].layers && !r.numerics.warnings[0],
        "saved merger reads back differently (warnings '%s')", r.numerics.warnings);
  printf("  ok: a saved scene reads back with the same numerics, no warning\n");
  return 0;
}

/* A thick ring with a short wave (m = 8) and a longer one (m = 2) at the coarse resolution: each laid
 * at its share e^{-(kσ)²/2} (the longer one keeps more); the elements' radii show the short one's;
 * saving keeps the scene's own amplitude and re-derives the same share. */
static int check_waves(void) {
  const char *text = "resolution = coarse\n"
                     "[ring]\nradius = 0.2\ncore = 0.02\nperturb_amp = 0.06\nperturb_mode = 8\ncentre = 0.5 0.5 0.3\n"
                     "[ring]\nradius = 0.3\ncore = 0.03\nperturb_amp = 0.05\nperturb_mode = 2\ncentre = 0.5 0.5 0.7\n";
  vx_scene s, r;
  if (parse(text, &s)) return 1;
  double k = 8.0 * s.numerics.sigma / 0.2, keep = exp(-0.5 * k * k), k2 = 2.0 * s.numerics.sigma / 0.3;
  int both = exp(-0.5 * k2 * k2) <= VX_NUM_WAVE_KEEP_MIN;
  CHECK(s.rings[0].perturb_amp == 0.06 && near(vx_ring_wave_amp(&s.rings[0]), 0.06 * keep, 1e-12) && keep < 0.5 &&
            s.numerics.waves_smoothed == 1 + both && near(s.numerics.wave_keep, keep, 1e-12),
        "short wave: amp %g laid %g, expected %g (k sigma %g), %d smoothed", s.rings[0].perturb_amp,
        vx_ring_wave_amp(&s.rings[0]), 0.06 * keep, k, s.numerics.waves_smoothed);
  CHECK(both ? near(vx_ring_wave_amp(&s.rings[1]), 0.05 * exp(-0.5 * k2 * k2), 1e-12) : vx_ring_wave_amp(&s.rings[1]) == 0.05,
        "long wave (k sigma %g): laid %g", k2, vx_ring_wave_amp(&s.rings[1]));
  /* the first ring's elements: their distance from the axis swings by the laid wave, not the given one */
  vx_particles pt;
  CHECK(vx_particles_generate(&s, 0, &pt, err, sizeof err) == 0, "generate: %s", err);
  const double *pos = pt.pos;
  double rmin = 1e9, rmax = 0.0;
  int n0 = vx_ring_elements(&s.rings[0]), stations = s.rings[0].n_around, per = n0 / stations;
  for (int k0 = 0; k0 < stations; ++k0) {
    const double *x = pos + 3 * (size_t)(k0 * per); /* each station's centre element */
    double d = hypot(x[0] - 0.5, x[1] - 0.5);
    rmin = fmin(rmin, d), rmax = fmax(rmax, d);
  }
  vx_particles_free(&pt);
  CHECK(near(0.5 * (rmax - rmin) / 0.2, 0.06 * keep, 0.05), "the laid wave's amplitude %g, expected %g", 0.5 * (rmax - rmin) / 0.2,
        0.06 * keep);
  char path[1024];
  snprintf(path, sizeof path, "%s/test_vortex_numerics_w%d.scene", VX_BINARY_DIR, (int)getpid());
  CHECK(vx_scene_write(path, &s, NULL, err, sizeof err) == 0, "write: %s", err);
  int rc = vx_scene_load(path, &r, err, sizeof err);
  remove(path);
  CHECK(rc == 0 && r.rings[0].perturb_amp == 0.06 && r.rings[0].wave_smooth == s.rings[0].wave_smooth,
        "read back: rc %d amp %g share %g (%s)", rc, r.rings[0].perturb_amp, r.rings[0].wave_smooth, rc ? err : "");
  printf("  ok: a wave of k sigma %.2f laid at %.3g of its amplitude, one of %.2f at %.3g; the same read back\n", k, keep, k2,
         vx_ring_wave_amp(&s.rings[1]) / 0.05);
  return 0;
}

/* Steps a simulation to time t_end; 0, or 1 with a failure counted. */
static int run_to(vx_sim *sim, double t_end) {
  while (vx_sim_time(sim) < t_end - 1e-12) CHECK(vx_sim_step(sim, err, sizeof err) == 0, "step at t=%g: %s", vx_sim_time(sim), err);
  return 0;
}

static int check_running_dt(void) {
  vx_scene sc;
  char text[512];
  snprintf(text, sizeof text, "resolution = coarse\nbackend = cpu\n%s", kTwo);
  if (parse(text, &sc)) return 1;
  vx_sim_params p = vx_sim_params_from_scene(&sc);
  p.tracers = 0;
  vx_sim *sim = vx_sim_create(&p, &sc, err, sizeof err);
  CHECK(sim, "create: %s", err);
  int bad = run_to(sim, 2 * sc.dt);
  double lim = 0.0, dt0 = sc.dt;
  if (!bad) bad = vx_sim_dt_limit(sim, VX_RK4, &lim, err, sizeof err) != 0;
  double lim_rk2 = 0.0, lim_euler = 0.0;
  if (!bad) bad = vx_sim_dt_limit(sim, VX_RK2, &lim_rk2, err, sizeof err) || vx_sim_dt_limit(sim, VX_EULER, &lim_euler, err, sizeof err);
  /* the scene's dt suits RK4 and RK2; Euler's growth asks for a step a few dozen times smaller */
  if (!bad && !(lim_rk2 > dt0 && lim_euler < dt0 / 20.0 && vx_numerics_dt_adjust(dt0, lim_euler) <= lim_euler)) {
    FAIL("integrator limits: dt %g, rk4 %g, rk2 %g, euler %g", dt0, lim, lim_rk2, lim_euler);
    bad = 1;
  } else if (!bad)
    printf("  ok: the scene's dt %g within RK2's limit %.4g; Euler's %.3g makes it %g\n", dt0, lim_rk2, lim_euler,
           vx_numerics_dt_adjust(dt0, lim_euler));
  vx_health h0, h1;
  if (!bad) bad = vx_sim_health(sim, &h0, err, sizeof err) != 0;
  double dt4 = vx_numerics_dt_adjust(4.0 * dt0, lim), dt16 = vx_numerics_dt_adjust(16.0 * dt0, lim);
  if (!bad && !(lim > 4.0 * dt0 && dt4 == 4.0 * dt0 && dt16 < 16.0 * dt0 && dt16 <= lim && dt16 > 0.5 * lim)) {
    FAIL("dt limit %g: 4x %g -> %g, 16x %g -> %g", lim, 4.0 * dt0, dt4, 16.0 * dt0, dt16);
    bad = 1;
  }
  if (!bad) bad = vx_sim_set_dt(sim, dt4, err, sizeof err) || run_to(sim, vx_sim_time(sim) + 20 * dt4);
  if (!bad) bad = vx_sim_set_dt(sim, dt16, err, sizeof err) || run_to(sim, vx_sim_time(sim) + 10 * dt16);
  if (!bad) bad = vx_sim_health(sim, &h1, err, sizeof err) != 0;
  if (!bad && !(h1.max_alpha < 1.5 * h0.max_alpha && !h1.blown_up))
    FAIL("after dt 4x and the adjusted 16x: max|alpha| %g from %g, blown up %d", h1.max_alpha, h0.max_alpha, h1.blown_up);
  else if (!bad)
    printf("  ok: dt limit %.4g: 4x dt (%g) runs as asked, 16x (%g) becomes %g; t = %.3g, max|alpha| x%.2f\n", lim, dt4,
           16.0 * dt0, dt16, vx_sim_time(sim), h1.max_alpha / h0.max_alpha);
  vx_sim_destroy(sim);
  return bad;
}

/* Two thin coaxial rings (a/R = 0.05) as a person writes them, with extra global keys and keys of the
 * rear ring (its centre among them, or the one on the axis). */
static int thin_pair(const char *global, const char *ring, vx_scene *s) {
  char text[1024];
  snprintf(text, sizeof text,
           "%s\n[ring]\nradius = 0.3\ncore = 0.015\n%s\n%s\n[ring]\nradius = 0.3\ncore = 0.015\ncentre = 0.5 0.5 0.5\n", global,
           strstr(ring, "centre") ? "" : "centre = 0.5 0.5 0.375", ring);
  return parse(text, s);
}

static int check_filaments(void) {
  vx_scene s;
  if (thin_pair("", "", &s)) return 1;
  double sig = 0.015 / sqrt(exp(1.0)), dt = vx_numerics_nice_down(VX_NUM_FIL_DT_OMEGA * VX_PI * sig * sig);
  int n = (int)ceil(2.0 * VX_PI * 0.3 * VX_NUM_FIL_PER_SIGMA / sig);
  CHECK(s.numerics.filaments && s.rings[0].layers == 0 && s.rings[1].layers == 0 && near(s.sigma, sig, 1e-12) &&
            s.rings[0].n_around == n && s.dt == dt && s.lcfl == 1.0 && s.remesh_every == 0 && s.conserve == VX_CONSERVE_RING &&
            s.viscosity == 0.0 && near(s.relax, 1.0 - exp(-VX_NUM_FIL_RELAX * dt / 0.09), 1e-12) && !s.numerics.warnings[0],
        "thin pair: filaments %d layers %d sigma %g (want %g) stations %d (want %d) dt %g (want %g) lcfl %g every %d conserve %d "
        "nu %g relax %g warnings '%s'",
        s.numerics.filaments, s.rings[0].layers, s.sigma, sig, s.rings[0].n_around, n, s.dt, dt, s.lcfl, s.remesh_every,
        s.conserve, s.viscosity, s.relax, s.numerics.warnings);
  CHECK(s.order == VX_NUM_FIL_ORDER, "thin pair: order %d (want %d)", s.order, VX_NUM_FIL_ORDER);
  printf("  ok: thin rings derive filaments (sigma %.4g, %d stations, dt %g, relax %.3g, order %d, no lattice)\n", s.sigma, n, s.dt,
         s.relax, s.order);
  /* a lone thin ring is a filament too; a lone thick one keeps the lone ring's rule; a given order stays */
  if (parse("[ring]\nradius = 0.3\ncore = 0.01\n", &s)) return 1;
  CHECK(s.numerics.filaments && s.order == VX_NUM_FIL_ORDER && s.remesh_every == 0, "lone thin ring: filaments %d order %d",
        s.numerics.filaments, s.order);
  if (parse("order = 9\n[ring]\nradius = 0.3\ncore = 0.01\n", &s)) return 1;
  CHECK(s.numerics.filaments && s.order == 9, "lone thin ring, order given 9: order %d", s.order);
  /* with a centreline wave of at most VX_NUM_FIL_WAVE_MAX too, and no ring can be launched into it; a larger wave is the lattice's */
  if (parse("[ring]\nradius = 0.3\ncore = 0.01\nperturb_amp = 0.05\nperturb_mode = 5\n", &s)) return 1;
  char wline[2048], werr[256] = "";
  vx_numerics_describe(&s, wline, sizeof wline);
  vx_ring chase = s.rings[0];
  chase.perturb_amp = 0.0, chase.centre[2] -= 0.2;
  int refused = vx_numerics_launch_check(&s, &chase, werr, sizeof werr);
  CHECK(s.numerics.filaments && s.remesh_every == 0 && s.viscosity == 0.0 && strstr(wline, "a lone wavy ring") && refused &&
            strstr(werr, "wavy vortex filament"),
        "lone wavy thin ring: filaments %d every %d nu %g launch %d '%s'; %s", s.numerics.filaments, s.remesh_every, s.viscosity,
        refused, werr, wline);
  char wtext[128];
  snprintf(wtext, sizeof wtext, "[ring]\nradius = 0.3\ncore = 0.01\nperturb_amp = %g\nperturb_mode = 5\n", 2.0 * VX_NUM_FIL_WAVE_MAX);
  if (parse(wtext, &s)) return 1;
  CHECK(!s.numerics.filaments && s.remesh_every > 0, "lone thin ring, wave %g: filaments %d every %d", 2.0 * VX_NUM_FIL_WAVE_MAX,
        s.numerics.filaments, s.remesh_every);
  if (parse("[ring]\nradius = 0.3\ncore = 0.03\n", &s)) return 1;
  CHECK(!s.numerics.filaments && s.sigma == 0.06 && s.order == 8, "lone thick ring: filaments %d sigma %g order %d", s.numerics.filaments,
        s.sigma, s.order);
  /* a lone viscous ring: on the lattice where it resolves the core, a filament where the budget would smooth it */
  if (parse("reynolds = 2000\n[ring]\nradius = 0.3\ncore = 0.03\n", &s)) return 1;
  CHECK(!s.numerics.filaments && s.remesh_every > 0 && !s.numerics.limited, "lone viscous ring, normal: filaments %d every %d",
        s.numerics.filaments, s.remesh_every);
  if (parse("resolution = coarse\nreynolds = 2000\n[ring]\nradius = 0.1\ncore = 0.008\n", &s)) return 1;
  char line[2048];
  vx_numerics_describe(&s, line, sizeof line);
  CHECK(s.numerics.filaments && s.remesh_every == 0 && s.viscosity == 1.0 / 2000.0 && strstr(line, "a lone viscous ring"),
        "lone viscous ring, coarse: filaments %d every %d nu %g; %s", s.numerics.filaments, s.remesh_every, s.viscosity, line);
  printf("  ok: a lone thin ring derives filaments at order %d (a given order kept), with a wave of at most %g too (no launch\n"
         "      into it); a lone thick ring the lone rule at order 8;\n"
         "      a lone viscous ring the lattice (normal) or, where the budget would smooth its core (coarse), a filament\n",
         VX_NUM_FIL_ORDER, VX_NUM_FIL_WAVE_MAX);
  vx_scene lf;
  if (load("leapfrog", &lf)) return 1;
  CHECK(lf.numerics.filaments && near(lf.sigma, 0.0297 / sqrt(exp(1.0)), 1e-12) && lf.rings[0].n_around == 252 && lf.dt == 0.0025 &&
            near(lf.relax, 0.1767, 1e-3),
        "leapfrog: filaments %d sigma %g stations %d dt %g relax %g", lf.numerics.filaments, lf.sigma, lf.rings[0].n_around, lf.dt,
        lf.relax);
  printf("  ok: leapfrog (layers = 0 at a/R = 0.1) derives sigma 0.018, 252 stations, dt 0.0025, relax 0.177\n");
  if (thin_pair("", "layers = 2", &s)) return 1;
  CHECK(!s.numerics.filaments && s.remesh_every > 0, "a ring given layers = 2: filaments %d, remesh_every %d", s.numerics.filaments,
        s.remesh_every);
  /* thin rings that can meet, or a pair with a wavy ring, on the lattice: a filament cannot reconnect */
  static const char *meet[] = {"axis = 0 0 -1", "circulation = -1", "centre = 0.5 0.52 0.375", "axis = 0 0.2 1",
                               "perturb_amp = 0.02\nperturb_mode = 4"};
  for (int i = 0; i < 5; ++i) {
    if (thin_pair("", meet[i], &s)) return 1;
    char line[2048];
    vx_numerics_describe(&s, line, sizeof line);
    CHECK(!s.numerics.filaments && s.numerics.thin_meet && s.remesh_every > 0 && s.relax == VX_NUM_REPROJECT &&
              strstr(line, "a filament cannot reconnect"),
          "thin pair, rear ring '%s': filaments %d, remesh_every %d; %s", meet[i], s.numerics.filaments, s.remesh_every, line);
  }
  if (thin_pair("", "axis = 0 0 -1\ncirculation = -1", &s)) return 1;
  CHECK(s.numerics.filaments, "thin pair, the rear ring's axis and circulation both reversed (the same travel): not filaments");
  printf("  ok: thin rings that can meet (head-on, off-axis, tilted) or a pair with a wavy ring run on the lattice; coaxial ones as\n"
         "      filaments\n");
  if (thin_pair("resolution = coarse", "", &s)) return 1;
  double nmax, wmax;
  vx_numerics_budget(VX_RES_COARSE, &nmax, &wmax);
  CHECK(s.numerics.limited && s.sigma > sig && s.numerics.elements <= nmax && s.numerics.elements / s.dt <= wmax * 1.3,
        "coarse: limited %d sigma %g elements %g work %g (budgets %g, %g)", s.numerics.limited, s.sigma, s.numerics.elements,
        s.numerics.elements / s.dt, nmax, wmax);
  printf("  ok: a ring given layers keeps the lattice; coarse smooths the cores to sigma %.4g (%g elements)\n", s.sigma,
         s.numerics.elements);
  if (thin_pair("reynolds = 1000\nbackend = cpu", "", &s)) return 1;
  vx_sim_params p = vx_sim_params_from_scene(&s);
  p.tracers = 0;
  CHECK(s.viscosity == 1e-3 && p.spread == VX_NUM_FIL_SPREAD, "viscous filaments: nu %g spread %g", s.viscosity, p.spread);
  vx_sim *sim = vx_sim_create(&p, &s, err, sizeof err);
  CHECK(sim, "create: %s", err);
  int bad = run_to(sim, 40 * s.dt);
  double want = sqrt(sig * sig + VX_NUM_FIL_SPREAD * 1e-3 * vx_sim_time(sim)), got = vx_sim_params_get(sim)->sigma;
  if (!bad && !near(got, want, 1e-9)) {
    FAIL("core spreading: sigma %.9g at t = %g, want %.9g", got, vx_sim_time(sim), want);
    bad = 1;
  } else if (!bad) printf("  ok: the viscous filaments' sigma %.5g -> %.5g by t = %g (sigma^2 + 4 nu t/e)\n", sig, got, vx_sim_time(sim));
  vx_sim_destroy(sim);
  return bad;
}

int main(void) {
  printf("shipped scenes:\n");
  check_shipped();
  printf("overrides:\n");
  check_overrides();
  printf("physics keys and budgets:\n");
  check_physics_keys();
  printf("saved scenes:\n");
  check_saved();
  check_waves();
  printf("a running flow's dt:\n");
  check_running_dt();
  printf("thin rings as vortex filaments:\n");
  check_filaments();
  return vx_test_end("numerics: all checks passed");
}
