/* sim_health.c — the state of a simulation's health (sim.h, vx_sim_health): the blow-up rule (a
 * non-finite value, max|α| grown past VX_SIM_BLOWUP_FACTOR, or an energy gain past
 * VX_SIM_ENERGY_RISE), the energy watch behind it, velocities computed on demand, the tracers' field
 * for colour, and the advice on a time step (Lagrangian CFL number and the viscous limit). */
#include "sim_internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "energy_t.h"
#include "numerics.h"
#include "sim_gpu.h"

/* ------------------------------------------------------------------ velocities */

/* u from the elements at the elements, and with `tracers` at the tracers too, on the backend (the
 * calls of the step: each on its own tree), then copied to the host in double (elements, then
 * tracers). */
static int sim_velocity(vx_sim *s, int tracers, double *vel, char *err, size_t errlen) {
  fmm_io io;
  sim_elements_io(s, 0, FMM_TREE_BUILD, &io);
  fmm_ctx *ctx = sim_elements_engine(s, err, errlen);
  if (!ctx || sim_plain_call(s, ctx, &io, NULL, err, errlen)) return -1;
  int n = s->n_elem;
  if (tracers && s->n_tracer > 0) {
    sim_tracers_io(s, 0, FMM_TREE_BUILD, &io);
    if (sim_plain_call(s, s->fmm, &io, NULL, err, errlen)) return -1;
    s->field_ok = 1, s->field_grad = 0;
    n = s->n_tot;
  }
  return sim_fetch_doubles(s, s->vel, 3 * (size_t)n, vel, err, errlen);
}

void vx_sim_set_tracer_gradient(vx_sim *s, int on) { s->want_tracer_grad = on != 0; }

int vx_sim_tracer_field(vx_sim *s, int gradient, const void **vel, const void **grad, char *err, size_t errlen) {
  if (gradient && s->prm.stretching == VX_STRETCH_NONE) {
    snprintf(err, errlen, "no velocity gradient with stretching off: the engine computes none");
    return -1;
  }
  if (s->n_tracer > 0 && (!s->field_ok || (gradient && !s->field_grad)) && sim_evaluate_tracers(s, gradient, FMM_TREE_BUILD, err, errlen)) return -1;
  size_t off = 3 * s->rs * (size_t)s->n_elem;
  if (vel) *vel = (const char *)s->vel + off;
  if (grad) *grad = s->field_grad ? (const char *)s->grad + 3 * off : NULL;
  return 0;
}

int vx_sim_element_velocity(vx_sim *s, double *vel, char *err, size_t errlen) {
  return sim_velocity(s, 0, vel, err, errlen);
}

int vx_sim_point_velocity(vx_sim *s, double *vel, char *err, size_t errlen) {
  if (s->n_elem == 0) {
    memset(vel, 0, sizeof(double) * 3 * (size_t)s->n_tot);
    return 0;
  }
  return sim_velocity(s, 1, vel, err, errlen);
}

/* ------------------------------------------------------------------ the blow-up rule */

int vx_sim_kernel_energy(vx_sim *s, double *e, char *err, size_t errlen) {
  *e = NAN;
  int cap = s->on_device ? VX_SIM_KERNEL_ENERGY_N_DEVICE : VX_SIM_KERNEL_ENERGY_N_HOST;
  if (s->coll_on || s->n_elem <= 0 || s->n_elem > cap || !vx_energy_kernel_ok(s->prm.kernel)) return 0;
  if (s->on_device)
    return vx_gpu_energy_kernel(s->prm.precision, s->pos, s->alpha, s->n_elem, s->prm.kernel, s->prm.sigma, e, &s->energy_scratch,
                                &s->c_energy_scratch, err, errlen);
  size_t n3 = 3 * (size_t)s->n_elem;
  double *buf = malloc(sizeof(double) * 2 * n3);
  if (!buf) { snprintf(err, errlen, "out of host memory for the kernel energy"); return -1; }
  int rc = vx_sim_get_elements(s, buf, buf + n3, err, errlen);
  if (!rc) *e = vx_energy_kernel(s->n_elem, buf, buf + n3, s->prm.kernel, s->prm.sigma);
  free(buf);
  return rc;
}

/* The particle form of the energy, summed over every process (one engine call over the elements,
 * the elements and their velocities copied to the host). */
static int particle_energy(vx_sim *s, double *e, char *err, size_t errlen) {
  size_t n3 = 3 * (size_t)s->n_elem;
  double *buf = malloc(sizeof(double) * 3 * n3 + 1);
  if (!buf) { snprintf(err, errlen, "out of host memory for the energy watch"); return -1; }
  *e = 0.0;
  int rc = vx_sim_get_elements(s, buf, buf + n3, err, errlen) || sim_velocity(s, 0, buf + 2 * n3, err, errlen);
  if (!rc) {
    *e = vx_energy(s->n_elem, buf, buf + n3, buf + 2 * n3);
    rc = vx_sim_reduce(s, e, 1, VX_REDUCE_SUM, err, errlen);
  }
  free(buf);
  return rc ? -1 : 0;
}

/* Measure the energy when due (VX_SIM_ENERGY_EVERY): the kernel energy where one sum takes it,
 * else the particle form; a change of form takes a new reference. */
int sim_energy_watch(vx_sim *s, char *err, size_t errlen) {
  if ((s->n_elem == 0 && !s->coll_on) || s->t < s->t_energy) return 0; /* spread: every process takes part */
  double e;
  if (vx_sim_kernel_energy(s, &e, err, errlen)) return -1;
  int kernel = isfinite(e);
  if (!kernel && particle_energy(s, &e, err, errlen)) return -1;
  if (kernel != s->e_kernel) s->e_ok = 0, s->e_kernel = kernel;
  if (!s->e_ok) s->e0 = s->e_min = e, s->e_ok = 1;
  s->e_last = e;
  if (e < s->e_min) s->e_min = e;
  s->t_energy = s->t + VX_SIM_ENERGY_EVERY;
  return 0;
}

/* The blow-up rule's reference, max|α| of the start. */
int sim_start_health(vx_sim *s, char *err, size_t errlen) {
  int bad = 0;
  sim_energy_restart(s, 0.0);
  return vx_sim_check(s, &s->amax0, &bad, err, errlen);
}

/* The health reduction over every process (sim_coll.c): the maxima of this one's, kept with it. */
static int keep_health(vx_sim *s, double *m, double *g2, int *bad, char *err, size_t errlen) {
  double v[3] = {*m, *g2, *bad};
  if (vx_sim_reduce(s, v, 3, VX_REDUCE_MAX, err, errlen)) return -1;
  *m = v[0], *g2 = v[1], *bad = v[2] > 0.0;
  s->health_id = s->state_id, s->h_m2 = *m, s->h_g2 = *g2, s->h_bad = *bad;
  return 0;
}

/* The health reduction: max |α|², max |∇u|² (when the gradient is valid) and the non-finite flag. */
static int reduce_health(vx_sim *s, double *m, double *g2, int *bad, char *err, size_t errlen) {
  if (s->health_id == s->state_id) {
    *m = s->h_m2, *g2 = s->h_g2, *bad = s->h_bad;
    return 0;
  }
  const void *grad = s->have_grad ? s->grad : NULL;
  *m = *g2 = 0.0;
  *bad = 0;
  if (s->on_device) {
    if (vx_gpu_health(s->prm.precision, s->pos, s->alpha, grad, s->n_elem, s->n_tot, s->scratch, m, g2, bad, err, errlen))
      return -1;
    return keep_health(s, m, g2, bad, err, errlen);
  }
  int n = s->n_tot, ne = s->n_elem, b = 0;
  double mm = 0.0, gg = 0.0;
  if (s->prm.precision == VX_FLOAT) {
    const float *p = (const float *)s->pos, *a = (const float *)s->alpha, *g = (const float *)grad;
#pragma omp parallel for schedule(static) reduction(max : mm, gg) reduction(| : b)
    for (int t = 0; t < n; ++t) {
      double a2 = vx_health_target_f(p, a, g, ne, t, &b, &gg);
      if (a2 > mm) mm = a2;
    }
  } else {
    const double *p = (const double *)s->pos, *a = (const double *)s->alpha, *g = (const double *)grad;
#pragma omp parallel for schedule(static) reduction(max : mm, gg) reduction(| : b)
    for (int t = 0; t < n; ++t) {
      double a2 = vx_health_target_d(p, a, g, ne, t, &b, &gg);
      if (a2 > mm) mm = a2;
    }
  }
  *m = mm;
  *g2 = gg;
  *bad = b;
  return keep_health(s, m, g2, bad, err, errlen);
}

int vx_sim_check(vx_sim *s, double *max_alpha, int *nonfinite, char *err, size_t errlen) {
  double m, g2;
  if (reduce_health(s, &m, &g2, nonfinite, err, errlen)) return -1;
  *max_alpha = sqrt(m);
  if (s->have_grad) s->max_gradu = sqrt(g2);
  return 0;
}

int vx_sim_health(vx_sim *s, vx_health *h, char *err, size_t errlen) {
  memset(h, 0, sizeof *h);
  if (vx_sim_check(s, &h->max_alpha, &h->nonfinite, err, errlen)) return -1;
  h->alpha0 = s->amax0;
  h->max_gradu = s->max_gradu;
  h->lcfl = s->prm.dt * s->max_gradu;
  h->energy = s->e_ok ? s->e_last : NAN;
  h->energy0 = s->e_ok ? s->e0 : NAN;
  h->energy_min = s->e_ok ? s->e_min : NAN;
  int grew = h->max_alpha > VX_SIM_BLOWUP_FACTOR * s->amax0;
  int gained = s->e_ok && s->e0 > 0.0 && s->e_last - s->e_min > VX_SIM_ENERGY_RISE * s->e0;
  h->blown_up = h->nonfinite || grew || gained;
  if (!h->blown_up) return 0;
  if (h->nonfinite)
    snprintf(err, errlen, "simulation blew up at step %lld (t=%g): NaN or Inf in the particle state", s->steps, s->t);
  else if (grew)
    snprintf(err, errlen, "simulation blew up at step %lld (t=%g): max|alpha| = %g exceeds %g times its initial value %g",
             s->steps, s->t, h->max_alpha, VX_SIM_BLOWUP_FACTOR, s->amax0);
  else
    snprintf(err, errlen,
             "simulation broke down at step %lld (t=%g): its %senergy rose to %.4g, %.1f %% of its reference %.4g above its "
             "lowest %.4g (an unforced flow cannot gain energy; max|alpha| x%.3g)",
             s->steps, s->t, s->e_kernel ? "kernel " : "", s->e_last, 100.0 * (s->e_last - s->e_min) / s->e0, s->e0, s->e_min, h->max_alpha / s->amax0);
  return VX_SIM_BLOWUP;
}

/* ------------------------------------------------------------------ the time step */

void vx_control_rates_for_dt(double dt, double dt_new, double *relax, int *remesh_every) {
  if (!(dt > 0.0 && dt_new > 0.0 && isfinite(dt) && isfinite(dt_new))) return;
  const double r = dt_new / dt;
  if (*relax > 0.0 && *relax < 1.0) *relax = 1.0 - pow(1.0 - *relax, r);
  if (*remesh_every > 0) {
    const double k = round(*remesh_every / r);
    *remesh_every = k < 1.0 ? 1 : k > (double)INT_MAX ? INT_MAX : (int)k;
  }
}

/* The largest step whose diffusion one remeshing kernel can apply, c² = ν dt/h² <= VX_REMESH_C2_MAX
 * (remesh.h); 0 when inviscid or without remeshing (no limit: the cores spread instead). */
static double viscous_dt_max(const vx_sim_params *p) {
  double hh = sim_lattice_h(p), nu = p->viscosity;
  return nu > 0.0 && hh > 0.0 && p->remesh_every > 0 ? VX_REMESH_C2_MAX * hh * hh / nu : 0.0;
}

int vx_sim_dt_advice(vx_sim *s, double dt, char *msg, size_t msglen) {
  vx_health h;
  int rc = vx_sim_health(s, &h, msg, msglen);
  if (rc < 0) return -1;
  msg[0] = 0;
  double lcfl = dt * h.max_gradu, hh = sim_lattice_h(&s->prm), nu = s->prm.viscosity;
  double lim = s->prm.lcfl > 0.0 ? VX_SIM_MAX_SUBSTEPS * s->prm.lcfl : VX_SIM_LCFL_MAX;
  if (h.max_gradu > 0.0 && s->prm.lcfl > 0.0 && lcfl > lim) {
    snprintf(msg, msglen, "dt = %g is too large for this flow: it needs over %d substeps (dt*max|grad u| = %.3g); use dt <= %.3g",
             dt, VX_SIM_MAX_SUBSTEPS, lcfl, lim / h.max_gradu);
    return 1;
  }
  if (h.max_gradu > 0.0 && s->prm.lcfl <= 0.0 && lcfl > VX_SIM_LCFL_MAX) {
    snprintf(msg, msglen, "dt = %g is too large for this flow: dt*max|grad u| = %.2f > %.1f, expect a blow-up; use dt <= %.3g",
             dt, lcfl, VX_SIM_LCFL_MAX, VX_SIM_LCFL_MAX / h.max_gradu);
    return 1;
  }
  double dv = viscous_dt_max(&s->prm);
  if (dv > 0.0 && dt > dv) {
    snprintf(msg, msglen, "dt = %g is too large for viscosity %g on lattice spacing %g: use dt <= %.3g", dt, nu, hh, dv);
    return 1;
  }
  return 0;
}

int vx_sim_dt_limit(vx_sim *s, vx_integrator it, double *dt_max, char *err, size_t errlen) {
  vx_health h;
  if (vx_sim_health(s, &h, err, errlen) < 0) return -1;
  /* a smoothed core's centre turns as a solid body: |∇u| (Frobenius) = ω/√2 there */
  double lim = vx_numerics_dt_max(sqrt(2.0) * h.max_gradu, it), dv = viscous_dt_max(&s->prm);
  *dt_max = lim > 0.0 && dv > 0.0 ? fmin(lim, dv) : fmax(lim, dv);
  return 0;
}
