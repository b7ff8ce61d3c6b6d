/* app_checkpoint.h — checkpoints in the batch mode of vortexfmm (main.c):
 *   --checkpoint-every K, --checkpoint FILE   write the state (io/checkpoint.h) every K steps
 *                                             and at the end; default FILE: <scene name>.ckpt
 *   --restart FILE                            continue the run saved in FILE bit for bit
 * When to write, the default name, the note after a blow-up, and the restart's refusal of
 * command-line options that would change the saved run's physics. */
#ifndef VX_APP_CHECKPOINT_H
#define VX_APP_CHECKPOINT_H

#include <stddef.h>
#include "app.h"
#include "app_mpi.h"
#include "checkpoint.h"

VX_EXTERN_C_BEGIN

typedef struct {
  char path[1024];        /* where checkpoints go; "" when checkpointing is off */
  long long every;        /* steps between two checkpoints; 0: at the end of the run only */
  vx_ckpt_meta meta;      /* the scene's name and seed, the run's steps and diag_every, written with each */
  long long last_step;    /* step of the last checkpoint written; -1: none yet */
  struct app_mpi_run *run; /* a run spread over processes (app_mpi.h): rank 0 writes the whole flow */
} app_ckpt;

/* Where checkpoints of scene sc go: file, else with every > 0 <scene name>.ckpt in the current
 * directory, else "" (none). */
void app_ckpt_path(const char *file, long long every, const vx_scene *sc, char *path, size_t len);
/* Checkpointing of a batch run of scene sc to step `steps` with diagnostics every diag_every steps
 * (a restart's defaults): off when file is NULL and every is 0; file NULL: <scene name>.ckpt in the
 * current directory. Checks now that the file can be written. 0, or -1 with err. */
int app_ckpt_init(app_ckpt *c, const char *file, long long every, const vx_scene *sc, long long steps, long long diag_every,
                  char *err, size_t errlen);
/* After step k: the checkpoint when one is due. 0, or -1 with err (the earlier file is kept). */
int app_ckpt_step(app_ckpt *c, vx_sim *s, long long k, char *err, size_t errlen);
/* At the end of the run: the checkpoint of the final state, unless just written. 0, or -1 with err. */
int app_ckpt_finish(app_ckpt *c, vx_sim *s, char *err, size_t errlen);
/* After a blow-up (nothing is written then): one line on stderr naming the last good checkpoint. */
void app_ckpt_blowup_note(const app_ckpt *c);
/* --restart FILE: the saved simulation, and in *sc a scene with the saved name, seed, steps and
 * diag_every (of the saved run), ring count and run parameters (no ring geometry: the particles are saved). Command-line
 * physics options must agree with the checkpoint. 0, or 2 with a one-line err (a bad file, an option
 * that differs). */
int app_ckpt_restart(const char *file, const app_overrides *ov, vx_sim **sim, vx_scene *sc, char *err, size_t errlen);

VX_EXTERN_C_END
#endif
