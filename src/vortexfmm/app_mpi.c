/* app_mpi.c — the program under mpirun (app_mpi.h). */
#include "app_mpi.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef VX_HAVE_MPI
#include "dacc.h"
#include "dsim.h"
#include "fmm.h"

static int begun, size = 1, rank;
static vx_comm world;

int app_mpi_begin(int *argc, char ***argv, long procs, long rank0) {
  char err[256];
  (void)rank0;
  if (procs <= 1) return 0;
  if (MPI_Init(argc, argv) != MPI_SUCCESS) {
    fprintf(stderr, "vortexfmm: MPI_Init failed under mpirun\n");
    return 2;
  }
  begun = 1;
  if (vx_comm_create(MPI_COMM_WORLD, &world, err, sizeof err)) {
    fprintf(stderr, "vortexfmm: %s\n", err);
    return 2;
  }
  size = world.size, rank = world.rank;
  /* one GPU a process: the process's rank on its node, modulo the node's devices (none: the CPU) */
  MPI_Comm node;
  int local = 0;
  if (MPI_Comm_split_type(world.comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
  }
  if (vx_cuda_available(NULL, 0)) (void)vx_cuda_use_device(local, err, sizeof err);
  return 0;
}

void app_mpi_end(void) {
  if (!begun) return;
  vx_comm_destroy(&world);
  MPI_Finalize();
  begun = 0, size = 1, rank = 0;
}

int app_mpi_size(void) { return size; }
int app_mpi_rank(void) { return rank; }

struct app_mpi_run {
  vx_dsim *d;
  vx_dacc acc;
};

int app_mpi_spread(vx_sim *s, app_mpi_run **run, char *err, size_t errlen) {
  *run = NULL;
  if (size <= 1) return 0;
  app_mpi_run *r = calloc(1, sizeof *r);
  int ok = r != NULL;
  if (!ok) snprintf(err, errlen, "out of memory");
  if (!vx_comm_agree(&world, ok)) {
    if (ok) snprintf(err, errlen, "another rank failed to start");
    free(r);
    return -1;
  }
  vx_dacc_init(&r->acc, &world, VX_ACC_SAMPLE, VX_ACC_SEED);
  if (!(r->d = vx_dsim_create(&world, s, err, errlen))) {
    free(r);
    return -1;
  }
  *run = r;
  return 0;
}

int app_mpi_step(app_mpi_run *run, vx_sim *s, char *err, size_t errlen) {
  return run ? vx_dsim_step(run->d, err, errlen) : vx_sim_step(s, err, errlen);
}

int app_mpi_added(app_mpi_run *run, int first, int first_t, char *err, size_t errlen) {
  return run ? vx_dsim_added(run->d, first, first_t, err, errlen) : 0;
}

void app_mpi_report(const app_mpi_run *run, FILE *f) {
  if (!run) return;
  const vx_dsim_stats st = vx_dsim_get_stats(run->d);
  if (st.n_eval <= 0) return;
  const double n = (double)st.n_eval;
  const vx_dist_stats *e = &st.eval;
  fprintf(f,
          "vortexfmm: over %d processes, rank 0's mean evaluation: %.3f ms (global level %.3f, halo %.3f of %.0f sources, "
          "coarse levels %.3f, own tree and evaluation %.3f; levels %d, dense to %d, halo at %d) in %lld evaluations",
          size, st.t_eval / n, e->t_level / n, e->t_halo / n, (double)e->n_halo / n, e->t_coarse / n, e->t_local / n, e->L,
          e->Lc, e->Lh, st.n_eval);
  if (st.n_migrate > 0)
    fprintf(f, "; a migration %.3f ms every %d steps (%lld)", st.t_migrate / (double)st.n_migrate, VX_DSIM_MIGRATE_EVERY,
            st.n_migrate);
  fputc('\n', f);
}

void app_mpi_accuracy_request(app_mpi_run *run, vx_sim *s) {
  if (run) vx_dacc_request(&run->acc, s);
}

int app_mpi_accuracy_take(app_mpi_run *run, vx_acc_result *r) {
  if (!run || !run->acc.ready) return 0;
  *r = run->acc.res;
  run->acc.ready = 0;
  return 1;
}

void app_mpi_free(app_mpi_run *run) {
  if (!run) return;
  vx_dsim_destroy(run->d);
  free(run);
}

int app_mpi_whole(app_mpi_run *run, vx_sim *s, vx_sim **whole, char *err, size_t errlen) {
  *whole = NULL;
  vx_sim_state st;
  vx_dsim_flow f;
  if (vx_sim_export_state(s, &st, err, errlen) || vx_dsim_gather(run->d, 0, &f, err, errlen)) return -1;
  int ok = 1;
  if (rank == 0) {
    vx_sim_params p = *vx_sim_params_get(s);
    st.tr_y0 = f.tr_y0, st.tr_acc = f.tr_acc;
    ok = (*whole = vx_sim_create_from_state(&p, &st, f.n, f.n_tracer, f.pos, f.alpha, f.ring, err, errlen)) != NULL;
  }
  vx_dsim_flow_free(&f);
  if (!vx_comm_agree(&world, ok)) {
    if (ok) snprintf(err, errlen, "rank 0 could not hold the whole flow");
    vx_sim_destroy(*whole);
    *whole = NULL;
    return -1;
  }
  return 0;
}

int app_mpi_agree(int rc, const char *mine) {
  if (size <= 1) {
    if (rc) fprintf(stderr, "vortexfmm: %s\n", mine);
    return rc;
  }
  int worst = rc;
  if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, world.comm) != MPI_SUCCESS) return rc ? rc : 1;
  if (!worst) return 0;
  char first[512] = "";
  int at = -1, n = 0;
  if (vx_comm_first_error(&world, rc ? mine : "", &at, &n, first, sizeof first) == 0 && rank == 0) {
    if (size > 1 && at >= 0)
      fprintf(stderr, "vortexfmm: rank %d%s: %s\n", at, n > 1 ? " (and others)" : "", first);
  }
  return worst;
}

int app_mpi_any(int flag) {
  if (size <= 1) return flag;
  int any = flag;
  if (MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, world.comm) != MPI_SUCCESS) return 1; /* stop rather than hang */
  return any;
}

long long app_mpi_sum(long long v) {
  long long t = v;
  if (size > 1 && MPI_Allreduce(&v, &t, 1, MPI_LONG_LONG, MPI_SUM, world.comm) != MPI_SUCCESS) return v;
  return t;
}

int app_mpi_max(int v) {
  int m = v;
  if (size > 1 && MPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MAX, world.comm) != MPI_SUCCESS) return v;
  return m;
}

void app_mpi_range(float r[2]) {
  if (size <= 1) return;
  float v[2] = {-r[0], r[1]};
  if (MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_FLOAT, MPI_MAX, world.comm) == MPI_SUCCESS) r[0] = -v[0], r[1] = v[1];
}

int app_mpi_join(int rc, char *err, size_t errlen) {
  if (size <= 1) return rc;
  if (vx_comm_agree(&world, rc == 0)) return 0;
  if (!rc) snprintf(err, errlen, "another process failed");
  return rc ? rc : -1;
}

const double *app_mpi_tracer_ids(const app_mpi_run *run) { return run ? vx_dsim_tracer_ids(run->d) : NULL; }
long long app_mpi_layout(const app_mpi_run *run) { return run ? vx_dsim_layout(run->d) : 0; }

#ifdef VX_HAVE_RENDER
/* rd_group's calls (render.h) over the world: each first learns whether every process is ok. */
static int group_ok(int ok, char *err, size_t errlen) {
  if (vx_comm_agree(&world, ok)) return 1;
  if (ok) snprintf(err, errlen, "another process failed drawing the picture");
  return 0;
}

static int group_bounds(void *ctx, int ok, double mn[3], double mx[3], char *err, size_t errlen) {
  (void)ctx;
  if (!group_ok(ok, err, errlen)) return -1;
  double v[6] = {-mn[0], -mn[1], -mn[2], mx[0], mx[1], mx[2]};
  if (vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, v, 6, MPI_DOUBLE, MPI_MAX, world.comm), "MPI_Allreduce (picture bounds)", err,
                    errlen))
    return -1;
  for (int k = 0; k < 3; k++) mn[k] = -v[k], mx[k] = v[3 + k];
  return 0;
}

/* A sum of n values of type t in place at every process (the histogram's bins, the centroid's sums). */
static int group_allsum(int ok, void *v, size_t n, MPI_Datatype t, const char *what, char *err, size_t errlen) {
  return group_ok(ok, err, errlen) && !vx_comm_check(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, t, MPI_SUM, world.comm), what, err, errlen)
             ? 0
             : -1;
}

static int group_sum_int(void *ctx, int ok, int *v, size_t n, char *err, size_t errlen) {
  (void)ctx;
  return group_allsum(ok, v, n, MPI_INT, "MPI_Allreduce (histogram)", err, errlen);
}

static int group_sum_double(void *ctx, int ok, double *v, size_t n, char *err, size_t errlen) {
  (void)ctx;
  return group_allsum(ok, v, n, MPI_DOUBLE, "MPI_Allreduce (centroid)", err, errlen);
}

static int group_sum_image(void *ctx, int ok, float *v, size_t n, char *err, size_t errlen) {
  (void)ctx;
  if (!group_ok(ok, err, errlen)) return -1;
  int rc = rank == 0 ? MPI_Reduce(MPI_IN_PLACE, v, (int)n, MPI_FLOAT, MPI_SUM, 0, world.comm)
                     : MPI_Reduce(v, NULL, (int)n, MPI_FLOAT, MPI_SUM, 0, world.comm);
  return vx_comm_check(rc, "MPI_Reduce (tracer image)", err, errlen) ? -1 : 0;
}

int app_mpi_group(rd_group *g) {
  if (size <= 1) return 0;
  *g = (rd_group){NULL, rank == 0, group_bounds, group_sum_int, group_sum_double, group_sum_image};
  return 1;
}
#endif

#else /* a build without MPI: one process */

int app_mpi_begin(int *argc, char ***argv, long procs, long rank0) {
  (void)argc, (void)argv;
  if (procs <= 1) return 0;
  if (rank0 == 0)
    fprintf(stderr, "vortexfmm: started as %ld MPI processes, but this build has no MPI (install libopenmpi-dev and "
                  "rebuild: scripts/setup does); each process would run the whole simulation into the same files\n",
          procs);
  return 2;
}
void app_mpi_end(void) {}
int app_mpi_size(void) { return 1; }
int app_mpi_rank(void) { return 0; }
int app_mpi_spread(vx_sim *s, app_mpi_run **run, char *err, size_t errlen) {
  (void)s, (void)err, (void)errlen;
  *run = NULL;
  return 0;
}
int app_mpi_step(app_mpi_run *run, vx_sim *s, char *err, size_t errlen) {
  (void)run;
  return vx_sim_step(s, err, errlen);
}
void app_mpi_free(app_mpi_run *run) { (void)run; }
int app_mpi_added(app_mpi_run *run, int first, int first_t, char *err, size_t errlen) {
  (void)run, (void)first, (void)first_t, (void)err, (void)errlen;
  return 0;
}
void app_mpi_report(const app_mpi_run *run, FILE *f) { (void)run, (void)f; }
void app_mpi_accuracy_request(app_mpi_run *run, vx_sim *s) { (void)run, (void)s; }
int app_mpi_accuracy_take(app_mpi_run *run, vx_acc_result *r) {
  (void)run, (void)r;
  return 0;
}
int app_mpi_whole(app_mpi_run *run, vx_sim *s, vx_sim **whole, char *err, size_t errlen) {
  (void)run, (void)s, (void)err, (void)errlen;
  *whole = NULL;
  return 0;
}
int app_mpi_any(int flag) { return flag; }
long long app_mpi_sum(long long v) { return v; }
int app_mpi_max(int v) { return v; }
void app_mpi_range(float r[2]) { (void)r; }
int app_mpi_join(int rc, char *err, size_t errlen) {
  (void)err, (void)errlen;
  return rc;
}
const double *app_mpi_tracer_ids(const app_mpi_run *run) {
  (void)run;
  return NULL;
}
long long app_mpi_layout(const app_mpi_run *run) {
  (void)run;
  return 0;
}
#ifdef VX_HAVE_RENDER
int app_mpi_group(rd_group *g) {
  (void)g;
  return 0;
}
#endif
int app_mpi_agree(int rc, const char *mine) {
  if (rc) fprintf(stderr, "vortexfmm: %s\n", mine);
  return rc;
}

#endif
