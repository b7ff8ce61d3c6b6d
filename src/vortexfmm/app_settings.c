/* app_settings.c — what the panel and the keys changed (app.set) applied to the simulation in effect
 * (app.cur), between two batches of steps (app.h: app_apply_settings): physics through the vx_sim
 * setters, relaxation and remeshing, the engine rebuilt, another scene loaded; a refused change is
 * reverted and the reason goes on screen. */
#include "app.h"
#include "numerics.h"
#include "reproject.h"

#include <stdio.h>

/* A time step above what the method's rules allow the flow under the integrator asked for
 * (vx_sim_dt_limit) becomes the largest round one within it, and the screen says so. */
static void limit_dt(app *a) {
  char err[256];
  double lim;
  vx_integrator it = (vx_integrator)a->set.integrator;
  if (vx_sim_dt_limit(a->sim, it, &lim, err, sizeof err)) { app_message(a, "dt not checked: %s", err); return; }
  double dt = vx_numerics_dt_adjust(a->set.dt, lim);
  if (dt == a->set.dt) return;
  app_message(a, "dt %g is more than this flow's cores allow with %s (%g turnovers a step at most): dt %g instead", a->set.dt,
              vx_integrator_name(it), vx_numerics_dt_omega_max(it), dt);
  a->set.dt = dt;
}

/* A smoothing radius below the remeshing lattice's spacing is refused (numerics.h: the blobs no longer
 * overlap and the remeshed field grows noisy); 1 when refused, with the reason on screen. */
static int sigma_refused(app *a) {
  const vx_sim_params *p = vx_sim_params_get(a->sim);
  double h = p->remesh_h > 0.0 ? p->remesh_h : 0.0;
  if (p->remesh_every <= 0 || !(h > 0.0) || a->set.sigma >= VX_NUM_SIGMA_H_MIN * h) return 0;
  app_message(a, "sigma %g refused: below the lattice spacing %g the blobs do not overlap and the remeshed field grows noisy",
              a->set.sigma, h);
  return 1;
}

/* An expansion order below VX_NUM_ORDER_MIN and the singular kernel are refused (numerics.h: the flow
 * breaks down); 1 when refused, with the reason on screen. */
static int order_refused(app *a) {
  if (a->set.order >= VX_NUM_ORDER_MIN) return 0;
  app_message(a, "order p = %d refused: below %d the far field's error breaks the flow down", a->set.order, VX_NUM_ORDER_MIN);
  return 1;
}
static int kernel_refused(app *a) {
  if (a->set.kernel != VX_KERNEL_SINGULAR) return 0;
  app_message(a, "kernel singular refused: without a core neighbouring elements drive each other without bound");
  return 1;
}

/* A viscosity below the floor the scene's lattice carries (numerics.h) runs, with a warning: the
 * flow's small scales go unresolved and the impulse drifts. */
static void warn_below_floor(app *a) {
  double floor = a->scene.numerics.nu_floor;
  if (!(a->set.viscosity < floor) || a->set.remesh_every <= 0) return;
  app_message(a, "viscosity %g (at each remeshing): below the %.3g this lattice carries, its small scales go unresolved "
              "and the impulse drifts", a->set.viscosity, floor);
}

/* Physics the vx_sim setters change at once. Failures revert the setting and say why on screen. */
static void apply_physics(app *a) {
  char err[512];
  app_settings *s = &a->set, *c = &a->cur;
#define APPLY(field, call, ...)                              \
  if (s->field != c->field) {                                \
    if (call) {                                              \
      app_message(a, "%s", err);                             \
      s->field = c->field;                                   \
    } else {                                                 \
      c->field = s->field;                                   \
      app_message(a, __VA_ARGS__);                           \
    }                                                        \
  }
  if (s->dt != c->dt || s->integrator != c->integrator) limit_dt(a);
  APPLY(dt, vx_sim_set_dt(a->sim, s->dt, err, sizeof err), "dt = %g (from the next step)", s->dt)
  APPLY(integrator, vx_sim_set_integrator(a->sim, (vx_integrator)s->integrator, err, sizeof err), "integrator %s",
        vx_integrator_name((vx_integrator)s->integrator))
  APPLY(tracer_every, vx_sim_set_tracer_every(a->sim, s->tracer_every, err, sizeof err),
        "tracers: one RK4 step of %d element step%s", s->tracer_every, s->tracer_every == 1 ? "" : "s")
  APPLY(dye_release, vx_sim_set_dye_release(a->sim, s->dye_release, err, sizeof err),
        s->dye_release > 0 ? "dye released continuously, each tracer living %g (from the next tracer step)"
                           : "dye release off (%g): the tracers are no longer seeded again",
        s->dye_release)
  APPLY(stretching, vx_sim_set_stretching(a->sim, (vx_stretching)s->stretching, err, sizeof err), "stretching %s",
        vx_stretching_name((vx_stretching)s->stretching))
  if (s->sigma != c->sigma && sigma_refused(a)) s->sigma = c->sigma;
  APPLY(sigma, vx_sim_set_sigma(a->sim, s->sigma, err, sizeof err), "sigma = %g", s->sigma)
  if (s->kernel != c->kernel && kernel_refused(a)) s->kernel = c->kernel;
  APPLY(kernel, vx_sim_set_kernel(a->sim, (vx_kernel)s->kernel, err, sizeof err), "kernel %s",
        vx_kernel_name((vx_kernel)s->kernel))
  if (s->order != c->order && order_refused(a)) s->order = c->order;
  APPLY(order, vx_sim_set_order(a->sim, s->order, err, sizeof err), "expansion order p = %d", s->order)
  APPLY(direct, vx_sim_set_direct(a->sim, s->direct), "%s", s->direct ? "direct summation (O(N^2))" : "FMM")
  int nu_changed = s->viscosity != c->viscosity;
  APPLY(viscosity, vx_sim_set_viscosity(a->sim, s->viscosity, err, sizeof err), "viscosity %g (at each remeshing)",
        s->viscosity)
  if (nu_changed && c->viscosity == s->viscosity) warn_below_floor(a);
  APPLY(remesh_coarsen, vx_sim_set_coarsen(a->sim, s->remesh_coarsen, err, sizeof err), "%s %g spacings of the doubled one",
        s->remesh_coarsen > 0 ? "the lattice coarsens once the field's scale is" : "a fixed lattice: remesh_coarsen",
        s->remesh_coarsen)
#undef APPLY
}

/* Relaxation and remeshing, each group through its setter. A refused group keeps its old values
 * (the panel shows them again) and the setter's reason goes on screen. */
static void apply_control(app *a) {
  char err[512];
  app_settings *s = &a->set, *c = &a->cur;
  if (s->relax != c->relax || s->relax_every != c->relax_every) {
    if (vx_sim_set_relax(a->sim, s->relax, s->relax_every, err, sizeof err)) {
      app_message(a, "%s", err);
      s->relax = c->relax, s->relax_every = c->relax_every;
    } else {
      c->relax = s->relax, c->relax_every = s->relax_every;
      app_message(a, "%s %g every %d steps%s", vx_relax_reprojects(c->remesh_every, (vx_kernel)c->kernel) ? "the reprojection" : "relaxation",
                  s->relax, s->relax_every, s->relax > 0 ? "" : " (off)");
    }
  }
  if (s->lcfl != c->lcfl) {
    if (vx_sim_set_lcfl(a->sim, s->lcfl, err, sizeof err)) {
      app_message(a, "%s", err);
      s->lcfl = c->lcfl;
    } else {
      c->lcfl = s->lcfl;
      if (s->lcfl > 0) app_message(a, "substeps keep dt*max|grad u| <= %g", s->lcfl);
      else app_message(a, "substeps off");
    }
  }
  if (s->remesh_every != c->remesh_every || s->remesh_h != c->remesh_h || s->remesh_drop != c->remesh_drop) {
    if (vx_sim_set_remesh(a->sim, s->remesh_every, s->remesh_h, s->remesh_drop, err, sizeof err)) {
      app_message(a, "%s", err);
      s->remesh_every = c->remesh_every, s->remesh_h = c->remesh_h, s->remesh_drop = c->remesh_drop;
    } else {
      c->remesh_every = s->remesh_every, c->remesh_h = s->remesh_h, c->remesh_drop = s->remesh_drop;
      if (s->remesh_every > 0)
        app_message(a, "remeshing every %d steps on h = %g, drop %g", s->remesh_every,
                    s->remesh_h > 0 ? s->remesh_h : vx_sim_params_get(a->sim)->sigma, s->remesh_drop);
      else
        app_message(a, "remeshing off");
    }
  }
}

/* vx_sim_dt_advice for the parameters in effect: its warning stays on screen (yellow) until the
 * next change of dt, viscosity or lattice spacing says otherwise; the HUD's LCFL number follows
 * the new dt at once. */
static void advise_dt(app *a) {
  char msg[256];
  int rc = vx_sim_dt_advice(a->sim, vx_sim_params_get(a->sim)->dt, msg, sizeof msg);
  a->advice[0] = 0;
  if (rc < 0) {
    app_message(a, "no dt advice: %s", msg);
    return;
  }
  if (rc > 0) {
    snprintf(a->advice, sizeof a->advice, "%s", msg);
    app_message(a, "%s", a->advice);
  }
  vx_health h;
  if (vx_sim_health(a->sim, &h, msg, sizeof msg) >= 0) a->lcfl = h.lcfl;
}

/* Leaf size, backend, precision: a new engine around the current particles. */
static void apply_engine(app *a) {
  char err[512];
  app_settings *s = &a->set, *c = &a->cur;
  if (s->leaf == c->leaf && s->backend == c->backend && s->precision == c->precision) return;
  if (app_sim_rebuild(a, err, sizeof err)) {
    app_message(a, "engine not rebuilt: %s", err);
    s->leaf = c->leaf, s->backend = c->backend, s->precision = c->precision;
    return;
  }
  app_message(a, "engine rebuilt: %s backend, %s, leaf size %d (state kept)", vx_backend_name((vx_backend)s->backend),
              vx_precision_name((vx_precision)s->precision), s->leaf);
  c->leaf = s->leaf, c->backend = s->backend, c->precision = s->precision;
}

/* After dt changed from dt_before: relaxation and remeshing keep their rates in time
 * (vx_control_rates_for_dt), unless the same change set them too; 1 when either moved. */
static int keep_control_rates(app *a, double dt_before) {
  app_settings *s = &a->set, *c = &a->cur;
  double f = c->relax;
  int k = c->remesh_every, moved = 0;
  vx_control_rates_for_dt(dt_before, c->dt, &f, &k);
  if (s->relax == c->relax && f != c->relax) s->relax = f, moved = 1;
  if (s->remesh_every == c->remesh_every && k != c->remesh_every) s->remesh_every = k, moved = 1;
  return moved;
}

/* Another resolution: the scene loaded anew with its numerics derived for it (numerics.h; what the
 * scene gives stays), as the command line's --resolution does. */
static void apply_resolution(app *a) {
  char err[512];
  int before = a->opt.ov.resolution;
  a->opt.ov.resolution = a->set.resolution;
  if (app_sim_load(a, a->set.scene, 1, err, sizeof err)) {
    a->opt.ov.resolution = before;
    a->set.resolution = a->cur.resolution;
    app_message(a, "resolution not changed: %s", err);
    return;
  }
  app_message(a, "resolution %s: the scene's numerics derived anew (%d elements, dt %g)",
              vx_resolution_name((vx_resolution)a->set.resolution), vx_sim_n_elements(a->sim), vx_sim_params_get(a->sim)->dt);
}

/* Apply what the panel and the keys changed. Failures revert the setting and say why on screen. */
void app_apply_settings(app *a) {
  char err[512];
  app_settings *s = &a->set, *c = &a->cur;
  int advise = s->dt != c->dt || s->viscosity != c->viscosity || s->remesh_h != c->remesh_h || s->sigma != c->sigma;
  const double dt_before = c->dt;
  apply_physics(a);
  const int rates = c->dt != dt_before && keep_control_rates(a, dt_before);
  apply_control(a);
  if (rates) { /* what apply_control set, and why (a dt warning below still has the last word) */
    char rm[48] = "remeshing off";
    if (c->remesh_every > 0) snprintf(rm, sizeof rm, "remeshing every %d steps", c->remesh_every);
    app_message(a, "dt %g -> %g: relaxation %.4g every %d steps, %s (their rates in time kept)", dt_before, c->dt,
                c->relax, c->relax_every, rm);
  }
  if (advise) advise_dt(a);
  apply_engine(a);
  if (s->resolution != c->resolution && s->scene == c->scene) apply_resolution(a);
  if (s->scene != c->scene) {
    if (app_sim_load(a, s->scene, 1, err, sizeof err)) {
      app_message(a, "scene not loaded: %s", err);
      s->scene = c->scene;
    } else {
      app_message(a, "scene %s loaded", a->scenes[s->scene].name);
    }
  }
  /* what waits for a reset */
  a->pending[0] = 0;
  if (s->tracers != c->tracers)
    snprintf(a->pending, sizeof a->pending, "%lld tracers: applies on reset (R)", s->tracers);
  c->steps_per_frame = s->steps_per_frame;
  c->running = s->running;
  c->opacity_level = s->opacity_level;
  c->follow = s->follow;
  c->show_panel = s->show_panel;
  c->show_help = s->show_help;
  c->show_hud = s->show_hud;
  c->colour = s->colour;
  c->style = s->style;
  /* vsync is the window's business (app_window.c compares set and cur) */
}
