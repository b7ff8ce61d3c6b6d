/* checkpoint.h — a simulation's whole state in one file, for a run that continues bit for bit
 * after a restart (same build, same backend, same thread count).
 *
 * The file, every number little-endian and fixed-width (f64: IEEE 754 binary64):
 *   header, 32 bytes: magic "VXFMMCKP", u32 format version (VX_CKPT_VERSION; 1 is read too), u32 0,
 *                     u64 payload bytes, u64 FNV-1a 64 of the payload
 *   payload:          the scene's name (64 bytes, NUL-padded) and seed, the run's steps and diag_every;
 *                     every vx_sim_params field but verbose; the vx_sim_state counters and the dye
 *                     release's sources and count (vx_dye_state, 16 slots);
 *                     n_elem, n_tracer; positions f64[3(n_elem+n_tracer)] (elements, then tracers),
 *                     strengths f64[3 n_elem], rings i32[n_elem]; while the tracers' own step is under
 *                     way (vx_sim_params.tracer_every, the state's tr_steps > 0) its y0 and acc,
 *                     f64[3 n_tracer] each
 * Particles are stored in double whatever the run's precision (a float widens and narrows back
 * exactly). Written atomically (io/atomic_file.h): a crash leaves the previous file whole.
 *
 *   vx_ckpt_meta m = {...};
 *   if (vx_ckpt_save(sim, &m, "run.ckpt", err, sizeof err)) ...;
 *   vx_sim *s = vx_ckpt_load("run.ckpt", &m, err, sizeof err);   // NULL: err says what is wrong */
#ifndef VX_CHECKPOINT_H
#define VX_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include "sim.h"

VX_EXTERN_C_BEGIN

#define VX_CKPT_MAGIC "VXFMMCKP"
#define VX_CKPT_VERSION 7u
#define VX_CKPT_HEADER_BYTES 32

/* What the checkpoint keeps of the run around the simulation. */
typedef struct {
  char scene[64];         /* the scene's name */
  uint64_t seed;          /* its tracer seed (the tracers themselves are saved) */
  long long steps;        /* the run's last step and diagnostics interval: a restart's defaults */
  long long diag_every;
} vx_ckpt_meta;

/* Write s's state and meta to path, atomically. 0, or -1 with a one-line err naming the file. */
int vx_ckpt_save(vx_sim *s, const vx_ckpt_meta *meta, const char *path, char *err, size_t errlen);
/* Read path and build the simulation it holds (meta may be NULL). NULL with a one-line err
 * "checkpoint PATH: <problem>" for a missing, non-regular (a FIFO, a directory: refused without
 * blocking), truncated, foreign, newer or corrupt file, or "damaged checkpoint PATH: FIELD VALUE
 * (expected ...)" for a field no run can have behind a matching checksum: a count, ring index,
 * interval or parameter out of the range a scene file or the command line gives, a step or time
 * below 0 or a time not the steps' (steps·dt), a position or strength not finite. The meta's fields
 * (diag_every >= 1, steps >= 0) are checked when meta is asked for. Every failure is the input's,
 * but out of host memory and an unavailable backend. */
vx_sim *vx_ckpt_load(const char *path, vx_ckpt_meta *meta, char *err, size_t errlen);
/* The same from the n bytes of a checkpoint in memory (name stands for PATH in err). */
vx_sim *vx_ckpt_load_mem(const void *data, size_t n, const char *name, vx_ckpt_meta *meta, char *err, size_t errlen);
/* FNV-1a 64 (Fowler, Noll, Vo) of n bytes: the payload checksum. */
uint64_t vx_ckpt_fnv1a(const void *data, size_t n);

VX_EXTERN_C_END
#endif
