/* sim_step.c — one time step of the simulation (sim.h, vx_sim_step): the engine calls of a stage
 * (the elements' on their own tree, the tracers' on theirs), the Runge–Kutta stages in stage.h's
 * low-storage form (CPU loop here, CUDA kernel in sim_gpu.cu, both around stage_t.h), substeps under
 * the Lagrangian CFL target, and what follows a step: remeshing when due and the energy watch. */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_gpu.h"

/* ------------------------------------------------------------------ engine calls */

/* One engine call of io on ctx: the FMM, or direct summation with prm.direct, or over every process's
 * elements when spread (sim_coll.c); its statistics into st (NULL: none, a call outside
 * the steps). */
int sim_plain_call(vx_sim *s, fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  if (s->coll_on) return s->coll.evaluate(s->coll.user, ctx, io, s->prm.direct, st, err, errlen);
  return s->prm.direct ? fmm_direct(ctx, io, st, err, errlen) : fmm_evaluate(ctx, io, st, err, errlen);
}

/* One engine call, its times and counts summed into the step's stats; its levels, leaves and kernels
 * described there when `shown` (the tracers' call, or the elements' without tracers: the tree
 * the renderer's occupancy reads, vx_sim_engine). */
static int engine_call(vx_sim *s, fmm_ctx *ctx, fmm_io *io, int shown, char *err, size_t errlen) {
  fmm_stats st;
  memset(&st, 0, sizeof st);
  if (sim_plain_call(s, ctx, io, &st, err, errlen)) return -1;
  vx_step_stats *S = &s->stats;
  S->t_tree += st.t_tree;
  S->t_far += st.t_p2m + st.t_m2m + st.t_m2l + st.t_l2l + st.t_l2p;
  S->t_near += st.t_p2p;
  S->evaluations++;
  fmm_stats *E = &S->engine;
  E->t_tree += st.t_tree, E->t_p2m += st.t_p2m, E->t_m2m += st.t_m2m, E->t_m2l += st.t_m2l;
  E->t_l2l += st.t_l2l, E->t_l2p += st.t_l2p, E->t_p2p += st.t_p2p, E->t_total += st.t_total, E->t_copy += st.t_copy;
  E->n_m2l += st.n_m2l, E->n_p2p += st.n_p2p;
  E->reg_err = fmax(E->reg_err, st.reg_err);
  for (int l = 0; l <= VX_LMAX; ++l) E->t_m2l_level[l] += st.t_m2l_level[l];
  E->tree_kept += st.tree_kept; /* summed: the calls that kept the step's tree */
  E->tree_moved = fmax(E->tree_moved, st.tree_moved);
  if (!shown) return 0;
  S->levels = st.levels;
  E->levels = st.levels, E->level_capped = st.level_capped;
  E->n_src_leaves = st.n_src_leaves, E->n_tgt_leaves = st.n_tgt_leaves;
  E->r_cut = st.r_cut;
  for (int l = 0; l <= VX_LMAX; ++l) E->m2l_fill[l] = st.m2l_fill[l];
  E->m2l_kernel = st.m2l_kernel, E->m2l_dense_levels = st.m2l_dense_levels, E->m2l_dense_tc = st.m2l_dense_tc;
  E->p2p_kernel = st.p2p_kernel;
  return 0;
}

/* The engine of the elements' calls when there are tracers (whose calls keep their tree in s->fmm),
 * created on first use with the parameters of the main one. */
fmm_ctx *sim_elements_engine(vx_sim *s, char *err, size_t errlen) {
  if (s->n_tracer == 0) return s->fmm;
  if (!s->fmm_e) {
    fmm_params fp = *fmm_get_params(s->fmm);
    s->fmm_e = fmm_create(&fp, err, errlen);
  }
  return s->fmm_e;
}

/* The io of an engine call at the current state for the elements' rows: velocity, and with `grad`
 * (and stretching on) the gradient, at the elements from the elements. */
void sim_elements_io(const vx_sim *s, int grad, int tree, fmm_io *io) {
  memset(io, 0, sizeof *io);
  io->n_src = io->n_tgt = io->n_grad = s->n_elem;
  io->src_pos = io->tgt_pos = s->pos;
  io->src_str = s->alpha;
  io->vel = s->vel;
  io->grad = grad && s->prm.stretching != VX_STRETCH_NONE ? s->grad : NULL;
  io->on_device = s->on_device;
  io->tree = tree;
}

/* The same for the tracers' rows: velocity at the tracers from the elements, passive unless the
 * gradient is asked for too (their vorticity, for colour). */
void sim_tracers_io(const vx_sim *s, int grad, int tree, fmm_io *io) {
  size_t r3 = 3 * s->rs * (size_t)s->n_elem;
  memset(io, 0, sizeof *io);
  io->n_src = s->n_elem;
  io->src_pos = s->pos;
  io->src_str = s->alpha;
  io->n_tgt = io->n_grad = s->n_tracer;
  io->tgt_pos = (const char *)s->pos + r3;
  io->vel = (char *)s->vel + r3;
  io->grad = grad && s->prm.stretching != VX_STRETCH_NONE ? (char *)s->grad + 3 * r3 : NULL;
  io->passive = io->grad == NULL;
  io->on_device = s->on_device;
  io->tree = tree;
}

/* The elements' engine call at the current state, on the elements' own tree (tree: fmm_io.tree; a
 * step's first stage builds and keeps it, its later stages reuse it, docs/MATH.md §14). The tracers
 * never enter it: passive tracers leave the elements' dynamics as it is without them, to the bit
 * (docs/MATH.md §15). */
static int evaluate_elements(vx_sim *s, int tree, char *err, size_t errlen) {
  fmm_io io;
  sim_elements_io(s, 1, tree, &io);
  fmm_ctx *ctx = sim_elements_engine(s, err, errlen);
  return ctx ? engine_call(s, ctx, &io, s->n_tracer == 0, err, errlen) : -1;
}

/* The tracers' sources where the elements are filaments (filament.h): at a call that builds the
 * tracers' tree the runs and each one's merge are chosen anew from the state, at every call the
 * merged sources are made from it. Nothing merges on a remeshed lattice (its elements are no
 * filaments), over several processes (a ring's stations lie on several) or with the singular kernel.
 * 0, or -1 with err. */
static int tracer_sources(vx_sim *s, int tree, char *err, size_t errlen) {
  const int fl = s->prm.precision == VX_FLOAT;
  if (tree != FMM_TREE_REUSE) {
    s->fil_on = 0;
    if (s->coll_on || s->prm.remesh_every > 0 || s->prm.kernel == VX_KERNEL_SINGULAR || vx_fil_runs(s->ring, s->n_elem, &s->fil))
      return 0;
    double gap[VX_FIL_MAX_BLOCKS], mis[VX_FIL_MAX_BLOCKS];
    if (!s->on_device) vx_fil_stats_cpu(fl, s->pos, s->alpha, &s->fil, gap, mis);
    else if (sim_buf_reserve(s, &s->fil_scratch, &s->c_fil_scratch, 2 * sizeof(unsigned) * VX_FIL_MAX_BLOCKS, err, errlen) ||
             vx_fil_stats_gpu(fl, s->pos, s->alpha, &s->fil, s->fil_scratch, gap, mis, err, errlen))
      return -1;
    s->fil_n = vx_fil_plan(&s->fil, gap, mis, fmm_get_params(s->fmm)->sigma, &s->fil_on);
    const size_t bytes = 3 * s->rs * (size_t)s->fil_n;
    if (s->fil_on && (sim_buf_reserve(s, &s->fil_pos, &s->c_fil_pos, bytes, err, errlen) ||
                      sim_buf_reserve(s, &s->fil_alpha, &s->c_fil_alpha, bytes, err, errlen))) {
      s->fil_on = 0;
      return -1;
    }
  }
  if (!s->fil_on) return 0;
  if (s->on_device) return vx_fil_merge_gpu(fl, s->pos, s->alpha, &s->fil, s->fil_pos, s->fil_alpha, err, errlen);
  vx_fil_merge_cpu(fl, s->pos, s->alpha, &s->fil, s->fil_pos, s->fil_alpha);
  return 0;
}

/* The tracers' engine call at the current state (the gradient too with tracer_grad), on the tracers'
 * own tree kept in s->fmm: the occupancy the renderer reads (vx_sim_engine). The sources are the
 * elements, or where they are filaments their merged stations (tracer_sources). */
int sim_evaluate_tracers(vx_sim *s, int tracer_grad, int tree, char *err, size_t errlen) {
  fmm_io io;
  sim_tracers_io(s, tracer_grad, tree, &io);
  if (tracer_sources(s, tree, err, errlen)) return -1;
  if (s->fil_on) io.n_src = s->fil_n, io.src_pos = s->fil_pos, io.src_str = s->fil_alpha;
  if (engine_call(s, s->fmm, &io, 1, err, errlen)) return -1;
  s->field_ok = 1;
  s->field_grad = io.grad != NULL;
  return 0;
}

/* The engine calls of one stage at the current state y: the elements' (tree_e), then with `tracers`
 * the tracers' (tree_t), each on its own tree (evaluate_elements, sim_evaluate_tracers). */
static int evaluate(vx_sim *s, int tracers, int tracer_grad, int tree_e, int tree_t, char *err, size_t errlen) {
  if ((s->n_elem > 0 || s->coll_on) && evaluate_elements(s, tree_e, err, errlen)) return -1; /* spread: every process calls */
  if (s->n_tracer == 0) s->field_ok = 1, s->field_grad = 1;
  if (!tracers || s->n_tracer == 0) return 0; /* the tracers' rows keep their last evaluation */
  return sim_evaluate_tracers(s, tracer_grad, tree_t, err, errlen);
}

void sim_stage_cpu(const vx_stage_args *a, vx_precision prec) {
  int n = a->n_tot;
  if (prec == VX_FLOAT) {
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; ++t) vx_stage_target_f(a, t);
  } else {
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; ++t) vx_stage_target_d(a, t);
  }
}

/* ------------------------------------------------------------------ the step */

/* An engine call failed mid-step: a blow-up when the state has gone non-finite (the octree refuses
 * such coordinates), else the engine's own failure. */
static int step_failed(vx_sim *s, long long step, const char *where, char *err, size_t errlen) {
  char e2[256];
  double m;
  int bad = 0;
  if (vx_sim_check(s, &m, &bad, e2, sizeof e2) == 0 && bad) {
    snprintf(err, errlen, "simulation blew up at step %lld (t=%g), %s: NaN or Inf in the particle state", step, s->t, where);
    return VX_SIM_BLOWUP;
  }
  return -1;
}

void vx_sim_watch_next_eval(vx_sim *s, vx_sim_eval_fn fn, void *user) {
  s->watch_fn = fn;
  s->watch_user = user;
}

/* The armed watcher, if any, gets the engine call just made over the first n_tgt particles
 * (disarmed first: once per arming). */
static int hand_eval(vx_sim *s, int n_tgt, char *err, size_t errlen) {
  vx_sim_eval_fn fn = s->watch_fn;
  if (!fn) return 0;
  s->watch_fn = NULL;
  vx_sim_eval e;
  memset(&e, 0, sizeof e);
  e.n_elem = s->n_elem;
  e.n_tot = n_tgt;
  e.on_device = s->on_device;
  e.precision = s->prm.precision;
  e.kernel = s->prm.kernel;
  e.sigma = s->prm.sigma;
  e.pos = s->pos;
  e.alpha = s->alpha;
  e.vel = s->vel;
  e.grad = s->prm.stretching == VX_STRETCH_NONE ? NULL : s->grad;
  e.step = s->steps;
  e.t = s->t;
  return fn(s->watch_user, &e, err, errlen);
}

/* Butcher weights (w) and next-stage nodes (c) of the low-storage form in stage.h */
static const double w_euler[1] = {1.0}, w_rk2[2] = {0.5, 0.5};
static const double c_rk2[2] = {1.0, 0.0};
const double sim_w_rk4[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
const double sim_c_rk4[4] = {0.5, 0.5, 1.0, 0.0};

/* The stage arguments of a step of ns stages and size dt over the current state: the elements, and
 * the tracers too when they ride every call (m = 1); y0 and acc for a scheme of several stages. */
static void stage_args_init(const vx_sim *s, int ns, int m, double dt, vx_stage_args *a) {
  memset(a, 0, sizeof *a);
  a->n_elem = s->n_elem;
  a->n_tot = m > 1 ? s->n_elem : s->n_tot;
  a->pos = s->pos;
  a->alpha = s->alpha;
  a->pos0 = ns > 1 ? s->pos0 : NULL;
  a->alpha0 = ns > 1 ? s->alpha0 : NULL;
  a->acc_pos = ns > 1 ? s->accp : NULL;
  a->acc_alpha = ns > 1 ? s->acca : NULL;
  a->vel = s->vel;
  a->grad = s->grad;
  a->stretching = (int)s->prm.stretching;
  a->dt = dt;
}

/* The stages of one step, one elements' engine call each, and a tracers' call in the stages that
 * carry them (every stage, or with the tracers' own step, m > 1, those of sim_tracer_stage_at); each kind
 * builds its tree at its first call of the step. A relaxation step relaxes the strengths after the
 * first call (its gradient) and before the first stage update. */
static int run_stages(vx_sim *s, double dt, int may_relax, double *t_eval, char *err, size_t errlen) {
  const double *w = w_euler, *c = w_euler;
  int ns = 1;
  if (s->prm.integrator == VX_RK2) { w = w_rk2; c = c_rk2; ns = 2; }
  else if (s->prm.integrator == VX_RK4) { w = sim_w_rk4; c = sim_c_rk4; ns = 4; }
  int m = sim_tracer_step_begin(s, sim_tracer_cadence(s), dt, err, errlen);
  if (m < 0) return -1;
  s->stats.tracer_span = m;
  s->state_id++; /* the stages change the particles and the gradient: a kept health reduction is stale */
  int relax_now = may_relax && s->prm.relax > 0.0 && s->prm.stretching != VX_STRETCH_NONE &&
                  s->steps % s->prm.relax_every == 0;
  vx_stage_args a;
  stage_args_init(s, ns, m, dt, &a);
  int built[2] = {0, 0}; /* this step's elements' / tracers' calls have built their tree */
  for (int k = 0; k < ns; ++k) {
    int j = m > 1 ? sim_tracer_stage_at(s, k, ns) : -1, with = m == 1 || j >= 0;
    int tracer_grad = s->want_tracer_grad && (m > 1 || k == ns - 1);
    double te = sim_now_ms();
    if (evaluate(s, with, tracer_grad, built[0] ? FMM_TREE_REUSE : FMM_TREE_BUILD_KEEP,
                 built[1] ? FMM_TREE_REUSE : FMM_TREE_BUILD_KEEP, err, errlen)) {
      char where[32];
      snprintf(where, sizeof where, "RK stage %d", k + 1);
      return step_failed(s, s->steps + 1, where, err, errlen);
    }
    built[0] = 1, built[1] |= with;
    *t_eval += sim_now_ms() - te;
    /* the step's first call: its state at the start */
    if (k == 0 && may_relax && hand_eval(s, with ? s->n_tot : s->n_elem, err, errlen)) return -1;
    a.first = k == 0;
    a.last = k == ns - 1;
    a.w = w[k];
    a.c = c[k];
    if (k == 0 && relax_now && sim_relax_strengths(s, err, errlen)) return -1;
    if (s->on_device) {
      if (vx_gpu_stage(s->prm.precision, &a, err, errlen)) return -1;
    } else {
      sim_stage_cpu(&a, s->prm.precision);
    }
    if (j >= 0 && sim_tracer_stage(s, j, err, errlen)) return -1;
  }
  int tracer_step_done = m == 1; /* the tracers rode every call: their step is this one */
  if (m > 1 && ++s->tr_steps == m) s->tr_steps = s->tr_stage = 0, tracer_step_done = 1;
  if (m > 1 && sim_tracers_settle_move(s, 0, err, errlen)) return -1; /* to the current time */
  /* the dye due is released between tracer steps, never inside one (sim_dye.c) */
  if (tracer_step_done && s->prm.dye_release > 0.0 && sim_dye_release(s, m > 1 ? m * s->tr_h : dt, err, errlen)) return -1;
  s->have_grad = s->prm.stretching != VX_STRETCH_NONE;
  return 0;
}

/* How many substeps the next step needs: dt·max|∇u| (last measured) over the target, rounded up. */
static int substeps_needed(const vx_sim *s) {
  if (!(s->prm.lcfl > 0.0) || !(s->max_gradu > 0.0)) return 1;
  double k = ceil(s->prm.dt * s->max_gradu / s->prm.lcfl);
  return k < 1.0 ? 1 : k > VX_SIM_MAX_SUBSTEPS ? VX_SIM_MAX_SUBSTEPS : (int)k;
}

int vx_sim_step(vx_sim *s, char *err, size_t errlen) {
  if (sim_reserve_scratch(s, err, errlen)) return -1;
  double t0 = sim_now_ms(), t_eval = 0.0, dt = s->prm.dt;
  memset(&s->stats, 0, sizeof s->stats);
  int ns = substeps_needed(s);
  for (int k = 0; k < ns; ++k) {
    int rc = run_stages(s, dt / ns, k == 0, &t_eval, err, errlen);
    if (rc) return rc;
    s->t += dt / ns;
    s->since_remesh += dt / ns;
    if (ns > 1 || s->prm.lcfl > 0.0) {
      double m;
      int bad;
      if (vx_sim_check(s, &m, &bad, err, errlen)) return -1; /* max|∇u| for the next substep */
    }
  }
  if (s->on_device && vx_gpu_sync(err, errlen)) return -1;
  s->steps++;
  s->steps_since_remesh++;
  if (sim_remesh_due(s)) {
    double m;
    int bad;
    /* measure max|∇u| while the gradient still belongs to these particles (the LCFL number);
     * with substeps on, the last substep has just measured it */
    if (!(s->prm.lcfl > 0.0) && vx_sim_check(s, &m, &bad, err, errlen)) return -1;
    if (vx_sim_remesh(s, err, errlen)) return step_failed(s, s->steps, "remeshing", err, errlen);
  }
  if (sim_spread_cores(s, dt, err, errlen)) return step_failed(s, s->steps, "spreading the cores", err, errlen);
  double tw = sim_now_ms(); /* the watch's engine call counts as evaluation time */
  if (sim_energy_watch(s, err, errlen)) return step_failed(s, s->steps, "measuring the energy", err, errlen);
  t_eval += sim_now_ms() - tw;
  s->stats.substeps = ns;
  s->stats.t_step = sim_now_ms() - t0;
  s->stats.t_eval = t_eval;
  s->stats.t_remesh = s->steps_since_remesh == 0 ? s->rstats.ms : 0.0;
  s->stats.t_integrate = s->stats.t_step - t_eval - s->stats.t_remesh;
  return 0;
}
