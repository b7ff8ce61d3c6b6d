/* fmm.c — the fmm module's public entry points: parameter checks, backend choice and dispatch,
 * kernel names, and the regularization limit on the finest level. The numerical work is in
 * cpu_engine.c (OpenMP) and fmm_gpu.cu (CUDA). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmm_internal.h"

fmm_params fmm_params_default(void) {
  fmm_params p;
  memset(&p, 0, sizeof p);
  p.backend = VX_BACKEND_CPU;
  p.precision = VX_DOUBLE;
  p.order = 8;
  p.leaf_size = 64;
  p.levels = 0;
  p.kernel = VX_KERNEL_SINGULAR;
  p.sigma = 0.0;
  p.gradient = 1;
  p.reg_tol = 1e-6;
  p.hist_budget = 0;
  return p;
}

int vx_buf_reserve(vx_buf *b, size_t bytes) {
  if (bytes <= b->cap && b->ptr) return 0;
  free(b->ptr);
  b->ptr = malloc(bytes ? bytes : 1);
  b->cap = b->ptr ? bytes : 0;
  return b->ptr ? 0 : -1;
}
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

/* |1 - q(ρ)|: how far the regularized kernel is from the singular one at ρ = r/σ. */
double vx_kernel_deviation(vx_kernel k, double rho) {
  switch (k) {
  case VX_KERNEL_POLY: return rho >= 1.0 ? 0.0 : 1.0 - rho * rho;
  case VX_KERNEL_RM: return 1.0 - pow(rho * rho / (rho * rho + 1.0), 1.5);
  case VX_KERNEL_WL: {
    double t = rho * rho + 1.0;
    return fabs(1.0 - rho * rho * rho * (rho * rho + 2.5) / (t * t * sqrt(t)));
  }
  case VX_KERNEL_GAUSS: return erfc(rho / sqrt(2.0)) + sqrt(2.0 / VX_PI) * rho * exp(-0.5 * rho * rho);
  default: return 0.0;
  }
}

double vx_kernel_min_width(vx_kernel k, double sigma, double tol) {
  if (k == VX_KERNEL_SINGULAR) return 0.0;
  if (k == VX_KERNEL_POLY) return sigma;
  double lo = 0.0, hi = 1.0;
  while (vx_kernel_deviation(k, hi) > tol) {
    hi *= 2.0;
    if (hi > 1e12) return INFINITY;
  }
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    if (vx_kernel_deviation(k, mid) > tol) lo = mid; else hi = mid;
  }
  return hi * sigma;
}

oct_params fmm_octree_params(const fmm_ctx *ctx) {
  oct_params op;
  memset(&op, 0, sizeof op);
  op.levels = ctx->prm.levels;
  op.leaf_size = ctx->prm.leaf_size;
  op.hist_budget = ctx->prm.hist_budget;
  /* Far-field boxes are at least one leaf width apart; there the far field treats sources as
   * singular, so the kernel must be within reg_tol of singular at one leaf width. */
  double w = vx_kernel_min_width(ctx->prm.kernel, ctx->prm.sigma, ctx->prm.reg_tol);
  op.min_leaf_width = isfinite(w) ? w : 0.0;
  return op;
}

static int check_params(const fmm_params *p, char *err, size_t errlen) {
  if (p->order < 0 || p->order > VX_PMAX) {
    snprintf(err, errlen, "expansion order %d out of range 0..%d", p->order, VX_PMAX);
    return -1;
  }
  if (p->leaf_size < 1) { snprintf(err, errlen, "leaf size %d must be >= 1", p->leaf_size); return -1; }
  if (p->levels != 0 && (p->levels < 2 || p->levels > VX_LMAX)) {
    snprintf(err, errlen, "levels %d out of range 2..%d (or 0 for automatic)", p->levels, VX_LMAX);
    return -1;
  }
  if (p->kernel < VX_KERNEL_SINGULAR || p->kernel > VX_KERNEL_GAUSS) { snprintf(err, errlen, "unknown smoothing kernel"); return -1; }
  if (p->kernel != VX_KERNEL_SINGULAR && !(p->sigma > 0.0 && isfinite(p->sigma))) {
    snprintf(err, errlen, "kernel %s needs a core radius sigma > 0 (got %g)", vx_kernel_name(p->kernel), p->sigma);
    return -1;
  }
  if (!(p->reg_tol > 0.0 && p->reg_tol < 1.0)) { snprintf(err, errlen, "reg_tol %g must be in (0, 1)", p->reg_tol); return -1; }
  if (p->precision != VX_DOUBLE && p->precision != VX_FLOAT) { snprintf(err, errlen, "unknown precision"); return -1; }
  if (p->backend != VX_BACKEND_CPU && p->backend != VX_BACKEND_CUDA && p->backend != VX_BACKEND_AUTO) {
    snprintf(err, errlen, "unknown backend");
    return -1;
  }
  if (p->kernel == VX_KERNEL_RM && p->verbose)
    fprintf(stderr, "vortexfmm: notice: the Rosenhead-Moore kernel differs from the singular one by ~1.5(sigma/r)^2 at any distance; "
                    "the far field (singular) is accurate only to that order\n");
  return 0;
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
  vx_backend b = ctx->prm.backend;
  if (params->order != ctx->prm.order) {
    fmm_tables nt;
    if (fmm_tables_build(&nt, params->order, err, errlen)) return -1;
    fmm_tables_free(&ctx->tab);
    ctx->tab = nt;
    ctx->prm.order = params->order;
    if (ctx->gpu && fmm_gpu_set_order(ctx, err, errlen)) return -1;
  }
  ctx->prm = *params;
  ctx->prm.backend = b;
  return 0;
}

static int check_io(const fmm_ctx *ctx, const fmm_io *io, char *err, size_t errlen) {
  if (io->n_src < 0 || io->n_tgt < 0) { snprintf(err, errlen, "negative particle count"); return -1; }
  if ((io->n_src && (!io->src_pos || !io->src_str)) || (io->n_tgt && (!io->tgt_pos || !io->vel))) {
    snprintf(err, errlen, "missing input or output array");
    return -1;
  }
  if (io->on_device && ctx->prm.backend != VX_BACKEND_CUDA) {
    snprintf(err, errlen, "device pointers given to the CPU backend");
    return -1;
  }
  return 0;
}

int fmm_evaluate(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  if (check_io(ctx, io, err, errlen)) return -1;
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

int fmm_direct(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  if (check_io(ctx, io, err, errlen)) return -1;
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
int fmm_gpu_set_order(fmm_ctx *ctx, char *err, size_t errlen) { (void)ctx; (void)err; (void)errlen; return -1; }
int fmm_gpu_evaluate(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  (void)ctx; (void)io; (void)st;
  snprintf(err, errlen, "CUDA backend not available in this build");
  return -1;
}
int fmm_gpu_direct(fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err, size_t errlen) {
  return fmm_gpu_evaluate(ctx, io, st, err, errlen);
}
int fmm_gpu_occupancy(fmm_ctx *ctx, int *levels, double lo[3], double *side, const int **bins) {
  (void)ctx; (void)levels; (void)lo; (void)side; (void)bins;
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
