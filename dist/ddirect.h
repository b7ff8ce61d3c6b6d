/* ddirect.h — direct summation over the ranks: every rank's sources all-gathered to each, which sums
 * them at its own targets with the engine's direct sum (fmm_direct, the same kernel, pair by pair). It
 * is the reference the FMM is measured against, O(N²) in work and O(N) in each rank's memory: for
 * validation at small N, not for speed. */
#ifndef VX_DDIRECT_H
#define VX_DDIRECT_H

#include "comm.h"
#include "fmm.h"

/* The gathered sources, kept between calls (host, and device with the CUDA backend's device arrays). */
typedef struct {
  void *h, *d;
  size_t h_cap, d_cap;
} vx_ddirect;

/* Collective. io: this rank's sources and targets as fmm_direct takes them (host, or device arrays with
 * on_device); the results at its targets are those of one direct sum over every rank's sources, in rank
 * order. 0, or -1 with err on every rank. */
int vx_ddirect_evaluate(const vx_comm *c, vx_ddirect *w, fmm_ctx *ctx, const fmm_io *io, fmm_stats *st, char *err,
                        size_t errlen);
void vx_ddirect_free(vx_ddirect *w);

#endif
