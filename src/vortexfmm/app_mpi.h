/* app_mpi.h — the program started by mpirun as several processes: one batch run spread over them
 * (dist/dsim.h; docs/GUIDE.md, "Several processes"). Rank 0 speaks and writes the files; every rank
 * steps its share of the elements. A build without MPI, or one process, runs as it always does. */
#ifndef APP_MPI_H
#define APP_MPI_H

#include <stddef.h>
#include <stdio.h>
#include "accuracy.h"
#include "sim.h"

/* MPI started for procs > 1 processes (MPI_Init); 0, or 2 with the reason said by rank 0 (a build
 * without MPI). */
int app_mpi_begin(int *argc, char ***argv, long procs, long rank);
void app_mpi_end(void);         /* MPI_Finalize, when begun */
int app_mpi_size(void);         /* processes (1: not under mpirun) */
int app_mpi_rank(void);         /* this one's rank (0 alone) */

/* The batch's simulation spread over the processes (nothing alone), and its steps. */
typedef struct app_mpi_run app_mpi_run; /* struct app_mpi_run: app_checkpoint.h names it */
int app_mpi_spread(vx_sim *s, app_mpi_run **run, char *err, size_t errlen);
int app_mpi_step(app_mpi_run *run, vx_sim *s, char *err, size_t errlen);
void app_mpi_free(app_mpi_run *run);
/* After every process added the same elements from element `first` on and tracers from tracer `first_t` on
 * (a launched ring): each keeps its share (nothing alone). Collective. 0, or -1 with err. */
int app_mpi_added(app_mpi_run *run, int first, int first_t, char *err, size_t errlen);
/* The accuracy readout of a spread run (dist/dacc.h): arm the next step's first engine call, then after
 * the step take its figure (1 with *r, which rank 0 holds; 0: none was made). */
void app_mpi_accuracy_request(app_mpi_run *run, vx_sim *s);
int app_mpi_accuracy_take(app_mpi_run *run, vx_acc_result *r);
/* The closing report's lines of a spread run: this process's mean time in the distributed engine's
 * phases and in a migration (rank 0 calls it). */
void app_mpi_report(const app_mpi_run *run, FILE *f);
/* The whole flow of a spread run in one simulation at rank 0 (*whole; NULL elsewhere), as a checkpoint
 * saves it: every process's elements and tracers and the run's counters. Collective. 0, or -1 with err. */
int app_mpi_whole(app_mpi_run *run, vx_sim *s, vx_sim **whole, char *err, size_t errlen);
/* Whether flag is set on any process (a Ctrl-C one process caught stops them all after the same step). */
int app_mpi_any(int flag);
/* Collective reductions over the processes (alone: v itself): a sum, a largest value, and a range (the
 * least r[0], the largest r[1]). */
long long app_mpi_sum(long long v);
int app_mpi_max(int v);
void app_mpi_range(float r[2]);
/* Collective, where a process may have failed alone between two collective calls: rc when this process
 * failed (err holds why), -1 with err "another process failed" when another did, else 0. */
int app_mpi_join(int rc, char *err, size_t errlen);
/* A spread run's tracers' places in the whole flow (dist/dsim.h, vx_dsim_tracer_ids) and how many times
 * the particles were handed out (vx_dsim_layout); NULL and 0 alone. */
const double *app_mpi_tracer_ids(const app_mpi_run *run);
long long app_mpi_layout(const app_mpi_run *run);

#ifdef VX_HAVE_RENDER
#include "render.h"
/* The renderer's group of every process (render.h, rd_group: histogram and tracer image summed, rank 0
 * composing the picture). 1 with *g under mpirun, else 0. */
int app_mpi_group(rd_group *g);
#endif
/* Collective, after a step each process took alone (reading its input, making its engine): 0 when every
 * process succeeded (rc 0), else the largest rc of any, and rank 0 has said once which rank failed first
 * and why (mine: this process's reason, "" when it succeeded; alone: said as it is). */
int app_mpi_agree(int rc, const char *mine);

#endif
