/* fmm.c — the fmm module's public entry points: parameter checks, backend choice and dispatch,
 * kernel and backend names, the kept tree's rules and the octree's parameters. The regularization
 * plan (cut-off, corrections, committed error) is in fmm_reg.c; the numerical work in cpu_engine.c
 * (OpenMP) and fmm_gpu.cu (CUDA). */
#include <float.h>
#include <omp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "fmm_internal.h"

int fmm_leaf_size(const fmm_params *p) {
  if (p->leaf_size > 0) return p->leaf_size;
  if (p->backend == VX_BACKEND_CUDA) return VX_LEAF_GPU;
  return p->kernel == VX_KERNEL_GAUSS && p->precision == VX_DOUBLE ? VX_LEAF_CPU_GAUSS_D : VX_LEAF_CPU;
}

fmm_params fmm_params_default(void) {
  fmm_params p;
  memset(&p, 0, sizeof p);
  p.backend = VX_BACKEND_CPU;
  p.precision = VX_DOUBLE;
  p.order = 8;
  p.leaf_size = 0; /* the backend's (fmm_leaf_size) */
  p.levels = 0;
  p.kernel = VX_KERNEL_SINGULAR;
  p.sigma = 0.0;
  p.gradient = 1;
  p.reg_tol = 0.0; /* vx_kernel_default_tol: from the order and the precision */
  p.reg_correct = FMM_REG_AUTO;
  p.hist_budget = 0;
  return p;
}

int vx_host_reserve(void **p, size_t *cap, size_t bytes) {
  if (*p && *cap >= bytes) return 0;
  free(*p);
  *p = malloc(bytes ? bytes : 1);
  *cap = *p ? bytes : 0;
  return *p ? 0 : -1;
}

int vx_buf_reserve(vx_buf *b, size_t bytes) { return vx_host_reserve(&b->ptr, &b->cap, bytes); }
void vx_buf_free(vx_buf *b) {
  free(b->ptr);
  b->ptr = NULL;
  b->cap = 0;
}

static const char *kernel_names[] = {"singular", "poly", "rm", "wl", "gauss"};

const char *vx_kernel_name(vx_kernel k) { return (k >= 0 && k <= VX_KERNEL_GAUSS) ? kernel_names[k] : "?"; }
int vx_kernel_from_name(const char *name, vx_kernel *out) {
  for (int k = 0; k <= VX_KERNEL_GAUSS; ++k)
    if (name && strcmp(name, kernel_names[k]) == 0) { *out = (vx_kernel)k; return 0; }
  return -1;
}
const char *vx_backend_name(vx_backend b) {
  return b == VX_BACKEND_CPU ? "cpu" : b == VX_BACKEND_CUDA ? "cuda" : b == VX_BACKEND_AUTO ? "auto" : "?";
}
int vx_backend_from_name(const char *name, vx_backend *out) {
  if (!name) return -1;
  if (!strcmp(name, "cpu")) *out = VX_BACKEND_CPU;
  else if (!strcmp(name, "cuda")) *out = VX_BACKEND_CUDA;
  else if (!strcmp(name, "auto")) *out = VX_BACKEND_AUTO;
  else return -1;
  return 0;
}
int vx_cuda_available(char *name, size_t namelen) { return fmm_gpu_available(name, namelen); }
int vx_cuda_use_device(int k, char *err, size_t errlen) { return fmm_gpu_use_device(k, err, errlen); }

int fmm_level_rule(const fmm_params *p) {
  if (p->level_rule != FMM_LEVEL_RULE_AUTO) return p->level_rule;
  return p->backend == VX_BACKEND_CUDA && fmm_cost_table(p->backend, p->precision) ? FMM_LEVEL_RULE_COST
                                                                                   : FMM_LEVEL_RULE_LEAF;
}

/* ---- The kept tree (docs/MATH.md §14) */

double fmm_keep_move(const fmm_params *p) {
  if (p->keep_move != 0.0) return p->keep_move > 0.0 ? p->keep_move : 0.0;
  return p->backend == VX_BACKEND_CUDA && p->precision == VX_FLOAT ? FMM_KEEP_MOVE_FLOAT : 0.0;
}

int fmm_keep_may(const fmm_ctx *ctx, const fmm_io *io, int want_grad, int n_grad) {
  const fmm_keep *k = &ctx->keep;
  return io->tree == FMM_TREE_REUSE && fmm_keep_move(&ctx->prm) > 0.0 && k->valid && k->ns == io->n_src &&
         k->nt == io->n_tgt && k->n_grad == n_grad && k->grad == want_grad;
}

int fmm_keep_take(const fmm_ctx *ctx, double moved, fmm_stats *s) {
  const double f = moved / ctx->keep.w; /* NaN (a non-finite point) and infinity never serve */
  s->tree_moved = isnan(f) ? INFINITY : f;
  s->tree_kept = f <= fmm_keep_move(&ctx->prm);
  return s->tree_kept;
}

int fmm_keep_wanted(const fmm_ctx *ctx, const fmm_io *io) {
  return io->tree != FMM_TREE_BUILD && fmm_keep_move(&ctx->prm) > 0.0;
}

void fmm_keep_after_build(fmm_ctx *ctx, const fmm_io *io, int want_grad, int n_grad, double w) {
  fmm_keep *k = &ctx->keep;
  k->valid = fmm_keep_wanted(ctx, io);
  k->ns = io->n_src, k->nt = io->n_tgt, k->n_grad = n_grad, k->grad = want_grad, k->w = w;
}

int fmm_io_passive(const fmm_io *io, int want_grad, int n_grad) {
  return io->passive || (want_grad && n_grad < io->n_tgt);
}

oct_params fmm_octree_params(const fmm_ctx *ctx) {
  oct_params op;
  memset(&op, 0, sizeof op);
  op.levels = ctx->prm.levels;
  op.leaf_size = fmm_leaf_size(&ctx->prm); /* ctx->prm.backend is resolved (fmm_create) */
  op.hist_budget = ctx->prm.hist_budget;
  op.min_leaves = ctx->prm.min_leaves > 0 ? ctx->prm.min_leaves : ctx->prm.min_leaves < 0 ? 0 : ctx->leaf_floor;
  /* The far field is singular at any depth and the corrections restore the kernel within r_cut
   * (docs/MATH.md §10); the automatic level keeps leaves at least r_cut wide under FMM_REG_CAP (and
   * always for Rosenhead–Moore), at least min(r_cut, VX_REG_LEAF_SIGMA·σ) under FMM_REG_AUTO (--levels
   * forces any level). */
  const fmm_params *P = &ctx->prm;
  if (!op.levels && P->kernel != VX_KERNEL_SINGULAR && (fmm_reg_caps_level(P) || P->reg_correct == FMM_REG_AUTO)) {
    double rc = fmm_reg_cutoff(P);
    if (!isfinite(rc)) rc = DBL_MAX;
    op.min_leaf_width = fmm_reg_caps_level(P) ? rc : fmin(rc, VX_REG_LEAF_SIGMA * P->sigma);
  }
  /* A full level goes one deeper while its leaves keep 32 points there where the GPU's M2L runs on the
   * tensor cores and that level has blocks enough for them (16 boxes an SM: 2 tiles of 64 a SM, times
   * 8 octants over 64 targets; fmm_gpu.cu m2l_dense_pays): H100, float p = 8, 2^20 and 2^23 uniform
   * points 14.9 against 15.9 ms and 116.5 against 130.0 (docs/BENCHMARKS.md) */
  if (!op.levels && fmm_gpu_dense_tc(ctx)) {
    op.full_deeper = 32;
    op.full_deeper_boxes = 16ll * ctx->par_width;
  }
  /* The cost model picks among the leaf-size level's neighbours under the same caps, from
   * host histograms on the CPU and device ones on the GPU; without a table for the backend and
   * precision the callbacks keep the leaf-size rule (level_rule_notice says so) */
  if (!op.levels && fmm_level_rule(&ctx->prm) == FMM_LEVEL_RULE_COST) {
    if (ctx->prm.backend == VX_BACKEND_CPU) op.choose_level = fmm_cost_choose_level;
#ifdef VX_HAVE_CUDA
    if (ctx->prm.backend == VX_BACKEND_CUDA) op.choose_level_dev = fmm_cost_choose_level_gpu;
#endif
    op.choose_arg = ctx;
  }
  return op;
}

static int check_params(const fmm_params *p, char *err, size_t errlen) {
  if (p->order < 0 || p->order > VX_PMAX) {
    snprintf(err, errlen, "expansion order %d out of range 0..%d", p->order, VX_PMAX);
    return -1;
  }
  if (p->leaf_size < 0) { snprintf(err, errlen, "leaf size %d must be >= 1 (or 0: the backend's)", p->leaf_size); return -1; }
  if (p->levels != 0 && (p->levels < 2 || p->levels > VX_LMAX)) {
    snprintf(err, errlen, "levels %d out of range 2..%d (or 0 for automatic)", p->levels, VX_LMAX);
    return -1;
  }
  if (p->reg_correct != FMM_REG_CAP && p->reg_correct != FMM_REG_CORRECT && p->reg_correct != FMM_REG_AUTO) {
    snprintf(err, errlen, "reg_correct %d must be FMM_REG_CAP, FMM_REG_CORRECT or FMM_REG_AUTO", p->reg_correct);
    return -1;
  }
  if (!isfinite(p->keep_move)) {
    snprintf(err, errlen, "keep_move %g must be a finite number of leaf widths (0: the backend's, < 0: never)", p->keep_move);
    return -1;
  }
  if (p->level_rule != FMM_LEVEL_RULE_AUTO && p->level_rule != FMM_LEVEL_RULE_LEAF && p->level_rule != FMM_LEVEL_RULE_COST) {
    snprintf(err, errlen, "level_rule %d must be %d (the backend's), %d (leaf size) or %d (cost model)", p->level_rule,
             FMM_LEVEL_RULE_AUTO, FMM_LEVEL_RULE_LEAF, FMM_LEVEL_RULE_COST);
    return -1;
  }
  if (p->kernel < VX_KERNEL_SINGULAR || p->kernel > VX_KERNEL_GAUSS) { snprintf(err, errlen, "unknown smoothing kernel"); return -1; }
  if (p->kernel != VX_KERNEL_SINGULAR && !(p->sigma > 0.0 && isfinite(p->sigma))) {
    snprintf(err, errlen, "kernel %s needs a core radius sigma > 0 (got %g)", vx_kernel_name(p->kernel), p->sigma);
    return -1;
  }
  if (!(p->reg_tol >= 0.0 && p->reg_tol < 1.0)) {
    snprintf(err, errlen, "reg_tol %g must be in [0, 1) (0: the kernel's default)", p->reg_tol);
    return -1;
  }
  if (p->precision != VX_DOUBLE && p->precision != VX_FLOAT) { snprintf(err, errlen, "unknown precision"); return -1; }
  if (p->backend != VX_BACKEND_CPU && p->backend != VX_BACKEND_CUDA && p->backend != VX_BACKEND_AUTO) {
    snprintf(err, errlen, "unknown backend");
    return -1;
  }
  return 0;
}

/* level_rule = FMM_LEVEL_RULE_COST where the cost model cannot serve keeps the leaf-size rule: say so
 * once. */
static void level_rule_notice(const fmm_ctx *ctx) {
  const fmm_params *P = &ctx->prm;
  if (!P->verbose || P->level_rule != FMM_LEVEL_RULE_COST || P->levels) return;
  if (!fmm_cost_table(P->backend, P->precision))
    fprintf(stderr,
            "vortexfmm: notice: no cost table for %s %s (vortexfmm-bench --backend %s --calibrate, then --cost-file or "
            "fmm/cost.c); the leaf-size rule stays\n",
            vx_backend_name(P->backend), P->precision == VX_FLOAT ? "float" : "double", vx_backend_name(P->backend));
}

fmm_ctx *fmm_create(const fmm_params *params, char *err, size_t errlen) {
  if (check_params(params, err, errlen)) return NULL;
  fmm_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) { snprintf(err, errlen, "out of memory creating the FMM context"); return NULL; }
  ctx->prm = *params;
  if (fmm_tables_build(&ctx->tab, params->order, err, errlen)) { free(ctx); return NULL; }
  if (ctx->prm.backend == VX_BACKEND_AUTO) {
    char name[256];
    if (fmm_gpu_available(name, sizeof name)) ctx->prm.backend = VX_BACKEND_CUDA;
    else {
      ctx->prm.backend = VX_BACKEND_CPU;
      fprintf(stderr, "vortexfmm: notice: no usable CUDA device (%s); using the CPU backend\n", name);
    }
  }
  if (ctx->prm.backend == VX_BACKEND_CUDA) {
    char e2[256];
    if (fmm_gpu_create(ctx, e2, sizeof e2)) {
      if (params->backend == VX_BACKEND_AUTO) {
        fprintf(stderr, "vortexfmm: notice: CUDA backend failed (%s); using the CPU backend\n", e2);
        ctx->prm.backend = VX_BACKEND_CPU;
      } else {
        snprintf(err, errlen, "%s", e2);
        fmm_tables_free(&ctx->tab);
        free(ctx);
        return NULL;
      }
    }
  }
  if (ctx->prm.backend == VX_BACKEND_CPU) ctx->par_width = ctx->leaf_floor = omp_get_max_threads(); /* the GPU's: fmm_gpu_create */
  level_rule_notice(ctx);
  return ctx;
}

void fmm_destroy(fmm_ctx *ctx) {
  if (!ctx) return;
  if (ctx->gpu) fmm_gpu_destroy(ctx);
  fmm_cpu_release(ctx);
  fmm_tables_free(&ctx->tab);
  free(ctx);
}

const fmm_params *fmm_get_params(const fmm_ctx *ctx) { return &ctx->prm; }

/* Every check comes before the first change (fmm.h: on failure the engine is left as it was). */
int fmm_set_params(fmm_ctx *ctx, const fmm_params *params, char *err, size_t errlen) {
  if (check_params(params, err, errlen)) return -1;
  if (params->precision != ctx->prm.precision) {
    snprintf(err, errlen, "precision cannot change on a live context; create a new one");
    return -1;
  }
  if (params->backend != VX_BACKEND_AUTO && params->backend != ctx->prm.backend) {
    snprintf(err, errlen, "backend cannot change on a live context; create a new one");
    return -1;
  }
  if (ctx->gpu && fmm_gpu_check_params(ctx, params, err, errlen)) return -1;
  if (params->order != ctx->prm.order) {
    fmm_tables nt;
    if (fmm_tables_build(&nt, params->order, err, errlen)) return -1;
    if (ctx->gpu && fmm_gpu_set_tables(ctx, &nt, err, errlen)) {
      fmm_tables_free(&nt);
      return -1;
    }
    fmm_tables_free(&ctx->tab);
    ctx->tab = nt;
  }
  const vx_backend b = ctx->prm.backend;
  ctx->prm = *params;
  ctx->prm.backend = b;
  ctx->keep.valid = 0; /* its tree was built with the old parameters */
  fmm_forget_level_choice(ctx);
  level_rule_notice(ctx);
  return 0;
}

void fmm_forget_level_choice(fmm_ctx *ctx) {
#ifdef VX_HAVE_CUDA
  if (ctx && ctx->cost_gpu) fmm_cost_gpu_forget(ctx->cost_gpu);
#else
  (void)ctx;
#endif
}

/* A part of a larger evaluation (fmm_part): a tree of its own, a sane cube and levels. */
static int check_part(const fmm_io *io, const fmm_part *pt, char *err, size_t errlen) {
  if (io->tree != FMM_TREE_BUILD) {
    snprintf(err, errlen, "a part of a larger evaluation builds its tree (fmm_io.tree = FMM_TREE_BUILD)");
    return -1;
  }
  if (!(pt->side > 0.0) || !isfinite(pt->side + pt->lo[0] + pt->lo[1] + pt->lo[2]) || pt->L < 2 || pt->L > VX_LMAX ||
      pt->Lc < 0 || pt->Lc == 1 || pt->Lc > pt->L || (pt->Lc >= 2 && (!pt->mpole || !pt->count))) {
    snprintf(err, errlen, "fmm_part: cube side %g, levels L = %d and Lc = %d (0 or 2..L, with its arrays) are not sane",
             pt->side, pt->L, pt->Lc);
    return -1;
  }
  return 0;
}

static int check_io(const fmm_ctx *ctx, const fmm_io *io, char *err, size_t errlen) {
  if (io->n_src < 0 || io->n_tgt < 0) { snprintf(err, errlen, "negative particle count"); return -1; }
  if ((io->n_src && (!io->src_pos || !io->src_str)) || (io->n_tgt && (!io->tgt_pos || !io->vel))) {
    snprintf(err, errlen, "missing input or output array");
    return -1;
  }
  if (io->tree < FMM_TREE_BUILD || io->tree > FMM_TREE_REUSE) {
    snprintf(err, errlen, "fmm_io.tree %d must be FMM_TREE_BUILD, FMM_TREE_BUILD_KEEP or FMM_TREE_REUSE", io->tree);
    return -1;
  }
  if (io->on_device && ctx->prm.backend != VX_BACKEND_CUDA) {
    snprintf(err, errlen, "device pointers given to the CPU backend");
    return -1;
  }
  return io->part ? check_part(io, io->part, err, errlen) : 0;
}

void fmm_part_octree(const fmm_part *pt, int L, oct_params *op) {
  op->levels = L;
  op->choose_level = NULL;
  op->choose_level_dev = NULL;
  op->full_deeper = 0;
  op->cube_side = pt->side;
  memcpy(op->cube_lo, pt->lo, sizeof op->cube_lo);
}

size_t fmm_part_cells(int Lc) {
  size_t n = 0;
  for (int l = 2; l <= Lc; ++l) n += (size_t)1 << (3 * l);
  return n;
}

size_t fmm_part_reals(int p, int Lc) { return 3 * (size_t)VX_NCOEF(p) * fmm_part_cells(Lc); }

int fmm_part_multipoles(fmm_ctx *ctx, const fmm_io *io, const fmm_part *part, void *mpole, int *count, char *err,
                        size_t errlen) {
  if (check_io(ctx, io, err, errlen) || check_part(io, part, err, errlen)) return -1;
  if (part->Lc < 2 || !mpole || !count) {
    snprintf(err, errlen, "fmm_part_multipoles needs levels (Lc = %d) and the arrays", part->Lc);
    return -1;
  }
  if (io->n_src && (!io->src_pos || !io->src_str)) {
    snprintf(err, errlen, "missing source array");
    return -1;
  }
  if (ctx->prm.backend == VX_BACKEND_CUDA) return fmm_gpu_part_multipoles(ctx, io, part, mpole, count, err, errlen);
  return ctx->prm.precision == VX_FLOAT ? fmm_cpu_part_multipoles_f(ctx, io, part, mpole, count, err, errlen)
                                        : fmm_cpu_part_multipoles_d(ctx, io, part, mpole, count, err, errlen);
}

/* fmm_params.allow_direct's choice for io (fmm_cost_direct_pays). */
static int direct_pays(const fmm_ctx *ctx, const fmm_io *io) {
  if (!ctx->prm.allow_direct || ctx->prm.levels > 0 || io->part) return 0;
  const long long nt = io->n_tgt, ng = io->grad ? (io->n_grad > 0 && io->n_grad < nt ? io->n_grad : nt) : 0;
  return fmm_cost_direct_pays(ctx, io->n_src, nt, ng);
}

int fmm_evaluate(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  if (check_io(ctx, io, err, errlen)) return -1;
  if (direct_pays(ctx, io)) { /* no tree: nothing kept, no occupancy */
    ctx->evaluated = 0;
    ctx->keep.valid = 0;
    return fmm_direct(ctx, io, st, err, errlen);
  }
  int rc;
  if (ctx->prm.backend == VX_BACKEND_CUDA) rc = fmm_gpu_evaluate(ctx, io, st, err, errlen);
  else
    rc = ctx->prm.precision == VX_FLOAT ? fmm_cpu_evaluate_f(ctx, io, st, err, errlen)
                                        : fmm_cpu_evaluate_d(ctx, io, st, err, errlen);
  ctx->evaluated = (rc == 0 && io->n_src > 0 && io->n_tgt > 0);
  return rc;
}

int fmm_occupancy(fmm_ctx *ctx, int *levels, double lo[3], double *side, const int **bins, int *on_device) {
  if (!ctx->evaluated) return -1;
  if (ctx->prm.backend == VX_BACKEND_CUDA) {
    *on_device = 1;
    return fmm_gpu_occupancy(ctx, levels, lo, side, bins);
  }
  const oct_tree *t = &ctx->tree;
  size_t cells = (size_t)1 << (3 * t->L);
  if (vx_buf_reserve(&ctx->occupancy, sizeof(int) * cells)) return -1;
  int *h = (int *)ctx->occupancy.ptr;
  const int *map = t->tgt_map[t->L];
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < cells; ++c) {
    int b = map[c];
    h[c] = b < 0 ? 0 : t->tgt_start[b + 1] - t->tgt_start[b];
  }
  *levels = t->L;
  for (int k = 0; k < 3; ++k) lo[k] = t->lo[k];
  *side = t->side;
  *bins = h;
  *on_device = 0;
  return 0;
}

/* The first point of n (float or double host coordinates) with a non-finite coordinate, or -1. */
static int non_finite_point(const void *pos, int n, int pos_float) {
  for (size_t i = 0; i < 3 * (size_t)n; i++) {
    const double v = pos_float ? (double)((const float *)pos)[i] : ((const double *)pos)[i];
    if (!isfinite(v)) return (int)(i / 3);
  }
  return -1;
}

int fmm_direct(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  if (check_io(ctx, io, err, errlen)) return -1;
  /* as the octree does: a non-finite point is an error, not a NaN spread through every sum */
  const int pf = ctx->prm.precision == VX_FLOAT;
  int bad;
  if (!io->on_device && (bad = non_finite_point(io->src_pos, io->n_src, pf)) >= 0) {
    snprintf(err, errlen, "source point %d has a non-finite coordinate", bad);
    return -1;
  }
  if (!io->on_device && (bad = non_finite_point(io->tgt_pos, io->n_tgt, pf)) >= 0) {
    snprintf(err, errlen, "target point %d has a non-finite coordinate", bad);
    return -1;
  }
  if (ctx->prm.backend == VX_BACKEND_CUDA) return fmm_gpu_direct(ctx, io, st, err, errlen);
  return ctx->prm.precision == VX_FLOAT ? fmm_cpu_direct_f(ctx, io, st, err, errlen)
                                        : fmm_cpu_direct_d(ctx, io, st, err, errlen);
}

#ifndef VX_HAVE_CUDA
/* CPU-only build: the CUDA backend reports itself unavailable. */
int fmm_gpu_available(char *name, size_t namelen) {
  if (name && namelen) snprintf(name, namelen, "this build has no CUDA backend (nvcc was not found at configure time)");
  return 0;
}
int fmm_gpu_create(fmm_ctx *ctx, char *err, size_t errlen) {
  (void)ctx;
  snprintf(err, errlen, "CUDA backend not available: this build has no CUDA support (nvcc was not found at configure time)");
  return -1;
}
void fmm_gpu_destroy(fmm_ctx *ctx) { (void)ctx; }
int fmm_gpu_use_device(int k, char *err, size_t errlen) {
  (void)k;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int fmm_gpu_check_params(const fmm_ctx *ctx, const fmm_params *prm, char *err, size_t errlen) {
  (void)ctx; (void)prm;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int fmm_gpu_set_tables(fmm_ctx *ctx, const fmm_tables *T, char *err, size_t errlen) {
  (void)ctx; (void)T;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int fmm_gpu_evaluate(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  (void)ctx; (void)io; (void)st;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int fmm_gpu_direct(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  return fmm_gpu_evaluate(ctx, io, st, err, errlen);
}
int fmm_gpu_part_multipoles(fmm_ctx *ctx, const fmm_io *io, const fmm_part *part, void *mpole, int *count, char *err,
                            size_t errlen) {
  (void)part; (void)mpole; (void)count;
  return fmm_gpu_evaluate(ctx, io, NULL, err, errlen);
}
int fmm_gpu_occupancy(fmm_ctx *ctx, int *levels, double lo[3], double *side, const int **bins) {
  (void)ctx; (void)levels; (void)lo; (void)side; (void)bins;
  return -1;
}
int fmm_gpu_dense_tc(const fmm_ctx *ctx) {
  (void)ctx;
  return 0;
}
int fmm_gpu_m2l_tc_full(int p, int parts, int l, const double *M, double *L, char *err, size_t errlen) {
  (void)p; (void)parts; (void)l; (void)M; (void)L;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_device_alloc(void **d_ptr, size_t bytes, char *err, size_t errlen) {
  (void)bytes;
  *d_ptr = NULL;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
void vx_device_free(void *d_ptr) { (void)d_ptr; }
int vx_device_upload(void *d_dst, const void *src, size_t bytes, char *err, size_t errlen) {
  (void)d_dst; (void)src; (void)bytes;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int vx_device_download(void *dst, const void *d_src, size_t bytes, char *err, size_t errlen) {
  return vx_device_upload(dst, d_src, bytes, err, errlen);
}
#endif
