/* sim_tracers.c — the tracers' own step (vx_sim_params.tracer_every, docs/MATH.md §15): one classical
 * RK4 step of the passive tracers spanning up to m element steps, its four stages evaluated in the
 * elements' first and last calls; between those the tracers stand at their position at the current
 * time. Also the tracer step's part of a saved state (vx_sim_tracer_step, a restart). */
#include "sim_internal.h"

#include <stdio.h>
#include <string.h>

#include "sim_gpu.h"

/* The most element steps a tracer step may span: tracer_every; 1 (the tracers ride every stage of the
 * elements' own scheme) without tracers or with Euler (no call at the step's end). */
int sim_tracer_cadence(const vx_sim *s) {
  return s->prm.tracer_every > 1 && s->prm.integrator != VX_EULER && s->n_tracer > 0 ? s->prm.tracer_every : 1;
}

/* The tracers' RK4 stage that element stage k of ns carries in the tracer step under way, or -1. The
 * four, at times 0, H/2, H/2 and H of H = m·h, are the first call of element step 0, the last of step
 * m/2 − 1, the first of step m/2 and the last of step m − 1 (each stage's node: its first call is at
 * the step's start, its last at the step's end). */
int sim_tracer_stage_at(const vx_sim *s, int k, int ns) {
  int m = s->tr_m, i = s->tr_steps;
  if (k == 0) return i == 0 ? 0 : i == m / 2 ? 2 : -1;
  if (k == ns - 1) return i == m / 2 - 1 ? 1 : i == m - 1 ? 3 : -1;
  return -1;
}

/* Stage j of the tracers' RK4 step after a call that carried them: their rows of pos and vel, their
 * own y0 and acc (tp0, tacc), step H = m·h. */
int sim_tracer_stage(vx_sim *s, int j, char *err, size_t errlen) {
  size_t off = 3 * s->rs * (size_t)s->n_elem;
  vx_stage_args a;
  memset(&a, 0, sizeof a);
  a.n_tot = s->n_tracer;
  a.pos = (char *)s->pos + off;
  a.pos0 = s->tp0;
  a.acc_pos = s->tacc;
  a.vel = (const char *)s->vel + off;
  a.stretching = (int)VX_STRETCH_NONE;
  a.first = j == 0;
  a.last = j == 3;
  a.w = sim_w_rk4[j];
  a.c = sim_c_rk4[j];
  a.dt = s->tr_m * s->tr_h;
  s->tr_stage = j + 1;
  if (s->on_device) return vx_gpu_stage(s->prm.precision, &a, err, errlen);
  sim_stage_cpu(&a, s->prm.precision);
  return 0;
}

/* Between element steps inside a tracer step the tracers stand at their position at the current time
 * (what the renderer, the getters and a checkpoint see), y0 + f·(y − y0) + g·H·acc of their next stage
 * point y; the next element step takes them back. By the stages done (j) at τ = (element steps done)·h
 * (docs/MATH.md §15): j = 1, τ = H/4 (k1): Euler, y0 + τ·k1; j = 2, τ = H/2: Heun, y0 + (H/4)(k1 + k2);
 * j = 3, τ = 3H/4: the velocity linear through k1 at 0 and k2 ≈ k3 at H/2, y0 + (3H/4)(k1 + 3k3)/4 to
 * second order. */
static void tracer_settle_coeffs(const vx_sim *s, double *f, double *gh) {
  static const double fj[4] = {1.0, 0.5, -0.5, -3.0 / 16}, gj[4] = {0.0, 0.0, 1.5, 9.0 / 8};
  int j = s->tr_steps > 0 ? s->tr_stage : 0;
  *f = fj[j];
  *gh = gj[j] * s->tr_m * s->tr_h;
}

/* The tracers' rows of pos to the current time (back = 0) or back to their next stage point (back = 1)
 * inside a tracer step (stage_t.h, vx_settle_target). */
int sim_tracers_settle_move(vx_sim *s, int back, char *err, size_t errlen) {
  double f, gh;
  tracer_settle_coeffs(s, &f, &gh);
  if ((f == 1.0 && gh == 0.0) || s->n_tracer == 0) return 0;
  if (back) gh = -gh / f, f = 1.0 / f;
  void *p = (char *)s->pos + 3 * s->rs * (size_t)s->n_elem;
  if (s->on_device) return vx_gpu_settle(s->prm.precision, p, s->tp0, s->tacc, s->n_tracer, f, gh, err, errlen);
  int n = s->n_tracer;
  if (s->prm.precision == VX_FLOAT) {
    const float *y0 = (const float *)s->tp0, *acc = (const float *)s->tacc;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; ++t) vx_settle_target_f((float *)p, y0, acc, (float)f, (float)gh, t);
  } else {
    const double *y0 = (const double *)s->tp0, *acc = (const double *)s->tacc;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; ++t) vx_settle_target_d((double *)p, y0, acc, f, gh, t);
  }
  return 0;
}

/* End the tracer step under way where the tracers stand (at the current time: tracer_settle_coeffs)
 * before its element steps change size (dt, substeps, integrator or tracer_every changed) or
 * tracers are added. */
void sim_tracers_settle(vx_sim *s) { s->tr_steps = s->tr_stage = 0; }

/* The span of a new tracer step of element steps dt: the most of m, m/2, ... 1 whose H = span·dt keeps
 * H·max|∇u| <= VX_SIM_TRACER_LCFL (the tracers' RK4 on a core's rotation, docs/MATH.md §15); m while
 * max|∇u| is unmeasured. */
static int tracer_span(const vx_sim *s, int m, double dt) {
  while (m > 1 && s->max_gradu > 0.0 && m * dt * s->max_gradu > VX_SIM_TRACER_LCFL) m /= 2;
  return m;
}

/* Before element steps of size dt, the tracers asking for steps of up to m of them: a tracer step
 * under way that cannot go on (dt changed, m below its span) is ended; a new one takes its span and
 * h; the tracers' y0 and acc are sized; the tracers go back to their next stage point. The span of
 * the step under way (1: the tracers ride every call), or -1 with err. */
int sim_tracer_step_begin(vx_sim *s, int m, double dt, char *err, size_t errlen) {
  if (s->tr_steps > 0 && (m < s->tr_m || dt != s->tr_h)) sim_tracers_settle(s);
  if (s->tr_steps == 0) {
    int span = tracer_span(s, m, dt);
    if (span == 1) return 1;
    s->tr_m = span, s->tr_h = dt;
  }
  size_t b = 3 * s->rs * (size_t)s->n_tracer;
  if (sim_buf_reserve(s, &s->tp0, &s->c_tp0, b, err, errlen) || sim_buf_reserve(s, &s->tacc, &s->c_tacc, b, err, errlen) ||
      sim_tracers_settle_move(s, 1, err, errlen))
    return -1;
  return s->tr_m;
}

/* ------------------------------------------------------------------ saved state */

int vx_sim_tracer_step(vx_sim *s, double *y0, double *acc, char *err, size_t errlen) {
  size_t n = 3 * (size_t)s->n_tracer;
  if (s->tr_steps == 0 || n == 0) return 0;
  return sim_fetch_doubles(s, s->tp0, n, y0, err, errlen) || sim_fetch_doubles(s, s->tacc, n, acc, err, errlen) ? -1 : 0;
}

/* A saved tracer step under way (st->tr_steps > 0) taken up again. */
int sim_restore_tracer_step(vx_sim *s, const vx_sim_state *st, char *err, size_t errlen) {
  if (st->tr_steps <= 0) return 0;
  if (st->tr_m < 2 || st->tr_m > 4 || st->tr_steps >= st->tr_m || st->tr_stage < 1 || st->tr_stage > 3 || !(st->tr_h > 0.0) ||
      !st->tr_y0 || !st->tr_acc) {
    snprintf(err, errlen, "bad saved tracer step (span %d, %d steps, %d stages done)", st->tr_m, st->tr_steps, st->tr_stage);
    return -1;
  }
  size_t n = 3 * (size_t)s->n_tracer, b = n * s->rs;
  s->tr_m = st->tr_m, s->tr_steps = st->tr_steps, s->tr_stage = st->tr_stage, s->tr_h = st->tr_h;
  return sim_buf_reserve(s, &s->tp0, &s->c_tp0, b, err, errlen) || sim_buf_reserve(s, &s->tacc, &s->c_tacc, b, err, errlen) ||
                 sim_store_doubles(s, s->tp0, st->tr_y0, n, err, errlen) || sim_store_doubles(s, s->tacc, st->tr_acc, n, err, errlen)
             ? -1
             : 0;
}

