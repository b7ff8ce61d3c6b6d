/* app_batch.c — batch mode (app.h: app_run_batch): the simulation and its outputs only, no GL.
 *   vortexfmm --headless --scene leapfrog --steps 2000 --diag leapfrog.csv
 * The run in named steps: the simulation (a scene, or a checkpoint to continue), its files checked
 * against each other (app_paths.h), the outputs
 * (diagnostics CSV grown under a temporary name, VTK series, checkpoints), the step loop (rings
 * launched by --launch-ring, blow-up, Ctrl-C, progress, the accuracy readout every --accuracy-every
 * steps) and the closing report (medians of the step's phases and of the readout's costs). Exit codes as main.c
 * documents. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_mpi.h"
#include "numerics.h"
#include "reproject.h"
#include "conserve.h"
#include "app_checkpoint.h"
#include "app_paths.h"
#include "atomic_file.h"
#include "diag.h"
#include "export_vtk.h"
#include "launch.h"

#define PROG "vortexfmm"
#define STEP_WARMUP 2 /* steps left out of the closing timing medians */

/* per-step phase times kept for the closing medians */
enum { ST_STEP, ST_TREE, ST_FAR, ST_NEAR, ST_INTEG, ST_P2M, ST_M2M, ST_M2L, ST_L2L, ST_L2P, ST_N };

/* What one batch run holds while it goes. */
typedef struct {
  const app_batch_options *o;
  vx_scene sc;
  vx_sim *sim;
  app_mpi_run *run;      /* under mpirun: the simulation spread over the processes (app_mpi.h) */
  int speak;             /* this process says what happens and writes the files (rank 0) */
  int rows;              /* diagnostics rows are due (every process computes them: collective sums) */
  long long k0, steps, every, vtk_every;
  vx_afile dfa;          /* the diagnostics CSV (dfa.f NULL: none) */
  vx_vtk_series *vtk;
  app_ckpt ck;
  app_series st;
  vx_health hl;
  int levels, last_evals; /* the last step's: its octree levels, engine calls */
  int coarsenings;        /* the lattice doublings said so far (vx_remesh_stats) */
  int tracer_span;        /* the last step's: element steps the tracers' step spans */
  fmm_stats last_engine;
  vx_accuracy *acc;      /* --accuracy-every: the readout, its latest figure and its costs */
  vx_acc_result acc_res;
  app_series acc_ms;     /* ms: capture (host), snapshot (GPU, main stream), direct sum */
  int ring_cols;         /* ring columns of the CSV: the scene's rings and the launches to come */
  double ms_launch;      /* the ring launched before this step: its wall time (ms); 0: none */
  vx_passages passages;  /* the CSV's passages and dye_near (passage.h) */
  float *labels;         /* the ring of each of the scene's tracers (vx_tracer_rings) */
  double *tpos;          /* the tracers' positions at a row */
  int n_scene_tracers;   /* tracers the scene seeded, every process's (launched rings' come after them) */
} batch;

/* A row's passages so far and, at step 0 and at each row that counts a passage, with tracers, the
 * share of the dye near its ring (passage.h): the tracers are copied to the host only then, and a
 * restarted run's rows are those of the run it continues. Under mpirun every process counts its share of
 * the scene's tracers, each labelled by its place in the whole flow, and the counts are summed. */
static int row_passages(batch *b, vx_diag *d) {
  int passed = vx_passages_update(&b->passages, d) > 0;
  d->passages = b->passages.count;
  const int nt = vx_sim_n_tracers(b->sim), ns = b->n_scene_tracers;
  const double *place = app_mpi_tracer_ids(b->run);
  if (!(d->step == 0 || passed) || ns <= 0 || (!place && nt < ns)) return 0;
  char err[256];
  if (!b->labels) {
    b->labels = malloc(sizeof(float) * (size_t)ns);
    if (!b->labels) { fprintf(stderr, PROG ": out of host memory for the tracers' rings\n"); return 1; }
    vx_tracer_rings(&b->sc, ns, b->labels);
  }
  const int n = place ? nt : ns;
  double *p = realloc(b->tpos, sizeof(double) * 4 * ((size_t)nt + 1)); /* positions, then the labels of a share */
  if (!p) { fprintf(stderr, PROG ": out of host memory for the tracers' positions\n"); return 1; }
  b->tpos = p;
  if (vx_sim_get_tracers(b->sim, b->tpos, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); return 1; }
  float *lab = b->labels;
  if (place) { /* spread: a share's labels by place; a launched ring's tracers (places past the scene's) not counted */
    lab = (float *)(b->tpos + 3 * (size_t)nt);
    for (int q = 0; q < nt; ++q) lab[q] = place[q] < ns ? b->labels[(long long)place[q]] : -1.0f;
  }
  long long c[2];
  vx_dye_near_count(d, n, b->tpos, lab, &c[0], &c[1]);
  double v[2] = {(double)c[0], (double)c[1]};
  if (vx_sim_reduce(b->sim, v, 2, VX_REDUCE_SUM, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); return 1; }
  d->dye_near = v[1] > 0 ? v[0] / v[1] : NAN;
  return 0;
}

/* The scene file a restarted run came from, for the diagnostics' scene_path (the checkpoint keeps
 * the scene's name, not its file): the file --scene NAME finds under the saved name, when that file
 * is a scene of that name; else the checkpoint itself, which holds the scene as it ran. */
static void restart_scene_path(const char *ckpt, vx_scene *sc) {
  char path[sizeof sc->path], err[512];
  vx_scene found;
  snprintf(sc->path, sizeof sc->path, "%s", ckpt);
  if (sc->name[0] && !app_find_scene(sc->name, path, sizeof path, err, sizeof err) &&
      !vx_scene_load(path, &found, err, sizeof err) && !strcmp(found.name, sc->name))
    snprintf(sc->path, sizeof sc->path, "%s", path);
}

/* The run's simulation: a fresh one of o->scene (path: its file), or the one saved in o->restart
 * (app_checkpoint.h; path: the checkpoint). 0, or the exit code (2: scene, checkpoint or option;
 * 1: engine) with err. */
static int batch_sim(const app_batch_options *o, vx_scene *sc, char *path, size_t pathlen, vx_sim **sim, char *err,
                     size_t errlen) {
  if (o->restart) {
    int rc = app_ckpt_restart(o->restart, &o->ov, sim, sc, err, errlen);
    if (rc) return rc;
    snprintf(path, pathlen, "%s, step %lld, t=%g", o->restart, vx_sim_steps_done(*sim), vx_sim_time(*sim));
    restart_scene_path(o->restart, sc);
    return 0;
  }
  if (app_find_scene(o->scene, path, pathlen, err, errlen)) return 2;
  if (vx_scene_load(path, sc, err, errlen)) return 2;
  /* parameters: the scene's, then the command line's */
  vx_sim_params prm = app_sim_params(sc, &o->ov);
  vx_sim_params chk = prm;
  if (!(chk.sigma > 0.0)) chk.sigma = 1.0; /* the scene's σ is known after generation; the rest can be checked now */
  if (vx_sim_params_check(&chk, err, errlen)) return 2;
  *sim = vx_sim_create(&prm, sc, err, errlen);
  return *sim ? 0 : 1;
}

/* Every file of the run against the others before any is opened (app_paths.h): the scene file as
 * found or the checkpoint restarted from, the diagnostics, the checkpoints (their default name
 * too) and the VTK series. 0, or 2 with the clash said. */
static int check_paths(const batch *b, const char *scene_file) {
  const app_batch_options *o = b->o;
  char ckpt[1024];
  app_paths ps;
  ps.n = 0;
  app_paths_add(&ps, APP_PATH_INPUT, "--scene", o->restart ? NULL : scene_file, NULL);
  app_paths_add(&ps, APP_PATH_INPUT, "--restart", o->restart, NULL);
  app_paths_add(&ps, APP_PATH_FILE, "--diag", o->diag, NULL);
  app_ckpt_path(o->checkpoint, o->checkpoint_every, &b->sc, ckpt, sizeof ckpt);
  app_paths_add(&ps, APP_PATH_FILE, o->checkpoint ? "--checkpoint" : "--checkpoint-every's default file", ckpt[0] ? ckpt : NULL,
                NULL);
  app_paths_add(&ps, APP_PATH_VTK_DIR, "--vtk-dir", o->vtk_dir, b->sc.name);
  return app_paths_check(&ps);
}

/* A restart that would take no step: --steps is the step to reach and --t-end the time, both counted
 * from the saved run's start, so one at or before the checkpoint's leaves nothing to do. 0, or 2 with
 * the one-line reason said. */
static int restart_ahead(const batch *b) {
  const app_batch_options *o = b->o;
  const double t = vx_sim_time(b->sim);
  if (!o->restart || (b->steps > b->k0 && !(o->t_end > 0 && o->t_end <= t))) return 0;
  if (o->t_end > 0)
    fprintf(stderr, PROG ": --t-end %g is the time to reach, and the checkpoint %s is already at t = %g (step %lld): give a "
                    "larger --t-end or --steps\n", o->t_end, o->restart, t, b->k0);
  else if (o->steps >= 0)
    fprintf(stderr, PROG ": --steps %lld is the step to reach, and the checkpoint %s is already at step %lld: give a larger "
                    "--steps or --t-end\n", o->steps, o->restart, b->k0);
  else
    fprintf(stderr, PROG ": the checkpoint %s is already at step %lld, the last step of its run: give --steps (the step to "
                    "reach) or --t-end beyond it\n", o->restart, b->k0);
  return 2;
}

/* Every process's elements (collective under mpirun); with `tracers`, its tracers. */
static long long all_of(vx_sim *sim, int tracers) {
  double n = tracers ? vx_sim_n_tracers(sim) : vx_sim_n_elements(sim);
  char err[256];
  return vx_sim_reduce(sim, &n, 1, VX_REDUCE_SUM, err, sizeof err) ? -1 : (long long)n;
}
static long long all_elements(vx_sim *sim) { return all_of(sim, 0); }

/* The opening line: what runs, with which parameters (rank 0 under mpirun). */
static void say_run(const batch *b, const char *path, long long n_elem, long long n_tracer) {
  const vx_sim_params *P = vx_sim_params_get(b->sim);
  vx_sim *sim = b->sim;
  if (!b->speak) return;
  fprintf(stderr,
          PROG ": scene %s (%s): %lld elements in %d rings, %lld tracers; %s backend, %s, %s, dt=%g, %s stretching, "
               "kernel %s sigma=%g, %s",
          b->sc.name, path, n_elem, vx_sim_n_rings(sim), n_tracer, vx_backend_name(P->backend),
          vx_precision_name(P->precision), vx_integrator_name(P->integrator), P->dt, vx_stretching_name(P->stretching),
          vx_kernel_name(P->kernel), P->sigma, P->direct ? "direct summation" : "FMM");
  if (!P->direct) fprintf(stderr, " order %d", P->order);
  if (P->relax > 0)
    fprintf(stderr, "; %s %g every %d steps", vx_relax_reprojects(P->remesh_every, P->kernel) ? "the reprojection" : "relaxation",
            P->relax, P->relax_every);
  if (P->remesh_every > 0)
    fprintf(stderr, "; remeshing every %d steps on h=%g (%lld elements after the first)%s", P->remesh_every,
            vx_sim_remesh_stats(sim)->h, n_elem, P->viscosity > 0 ? "" : ", inviscid");
  if (P->viscosity > 0) fprintf(stderr, ", viscosity %g", P->viscosity);
  if (P->dye_release > 0) fprintf(stderr, "; dye released continuously, each tracer living %g", P->dye_release);
  if (app_mpi_size() > 1) fprintf(stderr, "; ranks = %d (the elements and tracers spread over them)", app_mpi_size());
  fprintf(stderr, "\n");
  /* what the method chose and why (numerics.h), and the command line's changes checked as the
   * scene's overrides are; under --quiet the warnings only */
  char num[2048];
  vx_numerics_describe(&b->sc, num, sizeof num);
  size_t u = strlen(num);
  vx_numerics_check_run(&b->sc, P->dt, P->integrator, P->lcfl, P->direct ? b->sc.order : P->order, P->kernel, num + u,
                        sizeof num - u);
  for (char *line = num, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (!b->o->quiet || !strncmp(line, "warning: ", 9)) fprintf(stderr, PROG ": %s\n", line);
  }
}

/* A failure every process shares (a checkpoint rank 0 could not write): said by rank 0; 1. */
static int say_failed(const batch *b, const char *err) {
  if (b->speak) fprintf(stderr, PROG ": %s\n", err);
  return 1;
}

/* A ParaView snapshot (--vtk-dir) of the state: under mpirun of the whole flow, gathered at rank 0, which
 * writes it (every process learns whether it did). 0, or -1 with err. */
static int vtk_add(batch *b, char *err, size_t errlen) {
  if (!b->o->vtk_dir) return 0;
  vx_sim *whole = NULL;
  if (b->run && app_mpi_whole(b->run, b->sim, &whole, err, errlen)) return -1;
  vx_sim *w = b->run ? whole : b->sim;
  const int ok = !w || !b->vtk || vx_vtk_series_add(b->vtk, w, err, errlen) == 0;
  vx_sim_destroy(whole);
  if (app_mpi_any(!ok)) {
    if (ok) snprintf(err, errlen, "rank 0 could not write the VTK snapshot");
    return -1;
  }
  return 0;
}

/* The diagnostics CSV grows under a temporary name beside FILE (rows flushed) and is renamed at the
 * end, whatever the end: no half-written file under FILE. Then the VTK series, the checkpoints
 * and row 0. 0, or the exit code with the reason said. */
static int open_outputs(batch *b) {
  const app_batch_options *o = b->o;
  const vx_sim_params *P = vx_sim_params_get(b->sim);
  char err[512];
  b->rows = o->diag != NULL;
  b->ring_cols = vx_sim_n_rings(b->sim) + o->n_launch;
  long long n_all = all_elements(b->sim);
  int opened = !(b->speak && o->diag) || vx_afile_open(&b->dfa, o->diag, err, sizeof err) == 0;
  if (!app_mpi_any(!opened)) {
    if (b->dfa.f) {
      vx_diag_csv_preamble(b->dfa.f, &b->sc, P, (int)n_all, vx_sim_n_tracers(b->sim));
      if (app_mpi_size() > 1) fprintf(b->dfa.f, "# ranks = %d\n", app_mpi_size());
      /* a write that failed (/dev/full) ends the run below */
      vx_diag_csv_header(b->dfa.f, b->ring_cols, o->accuracy_every > 0);
    }
  } else {
    if (!opened) fprintf(stderr, PROG ": %s\n", err);
    return 1;
  }
  /* a restart continues the series of the .pvd there; one that cannot be read is refused (exit 2);
   * under mpirun rank 0 writes the series */
  int vr = 0;
  if (o->vtk_dir && o->restart && b->speak)
    vr = vx_vtk_series_resume(o->vtk_dir, b->sc.name, vx_sim_time(b->sim), &b->vtk, err, sizeof err);
  else if (o->vtk_dir && b->speak && !(b->vtk = vx_vtk_series_create(o->vtk_dir, b->sc.name, err, sizeof err)))
    vr = -1;
  if (app_mpi_any(vr != 0)) {
    if (vr == -2) fprintf(stderr, PROG ": --vtk-dir %s: %s\n", o->vtk_dir, err);
    else if (vr) fprintf(stderr, PROG ": %s\n", err);
    if (b->dfa.f) vx_afile_abort(&b->dfa); /* nothing ran: no CSV either */
    return app_mpi_any(vr == -2) ? 2 : 1;
  }
  if (app_ckpt_init(&b->ck, o->checkpoint, o->checkpoint_every, &b->sc, b->steps, b->every, err, sizeof err)) {
    if (b->speak) fprintf(stderr, PROG ": %s\n", err);
    return 1;
  }
  b->ck.run = b->run;
  if (vx_sim_health(b->sim, &b->hl, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); return 1; }
  if (b->rows && !o->restart) { /* a restarted run's rows continue after the checkpoint's step */
    vx_diag d;
    if (vx_diag_compute(b->sim, (int)o->energy_max, &d, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); return 1; }
    if (row_passages(b, &d)) return 1;
    d.acc_cols = o->accuracy_every > 0;
    vx_diag_pad_rings(&d, b->ring_cols);
    if (b->dfa.f) vx_diag_csv_row(b->dfa.f, &d);
  }
  if (b->dfa.f && vx_afile_failed(&b->dfa)) return 1; /* the commit says why */
  if (vtk_add(b, err, sizeof err)) return say_failed(b, err);
  if (app_series_init(&b->st, ST_N, STEP_WARMUP, b->steps - b->k0) || app_series_init(&b->acc_ms, 3, 1, b->steps - b->k0)) {
    fprintf(stderr, PROG ": out of host memory for %lld step timings\n", b->st.cap);
    return 1;
  }
  if (o->accuracy_every > 0 && !b->run && !(b->acc = vx_acc_create(VX_ACC_SAMPLE, VX_ACC_SEED, err, sizeof err))) {
    fprintf(stderr, PROG ": %s\n", err);
    return 1;
  }
  return 0;
}

/* --accuracy-every K: before step k, arm the readout when k - 1 is a multiple of K (it captures
 * the step's first engine call: the state after k - 1 steps). */
static void accuracy_request(batch *b, long long k) {
  if (b->o->accuracy_every <= 0 || (k - 1) % b->o->accuracy_every != 0) return;
  if (b->run) app_mpi_accuracy_request(b->run, b->sim); /* spread: measured within the call, over every process */
  else if (b->acc) (void)vx_acc_request(b->acc, b->sim);
}

/* After the step: its figure, waited for (no frame to stall in a batch run; the cost is reported). */
static int accuracy_take(batch *b) {
  char err[512];
  vx_acc_result r;
  int rc = b->run ? app_mpi_accuracy_take(b->run, &r) : b->acc ? vx_acc_poll(b->acc, 1, &r, err, sizeof err) : 0;
  if (rc < 0) { fprintf(stderr, PROG ": accuracy readout: %s\n", err); return 1; }
  if (rc == 1) {
    b->acc_res = r;
    const double v[3] = {r.ms_capture, r.ms_capture_gpu, r.ms_direct};
    app_series_add(&b->acc_ms, v);
  }
  return 0;
}

/* A doubling of the remeshing lattice (vx_sim_params.remesh_coarsen), said once. */
static void say_coarsening(batch *b) {
  const vx_remesh_stats *r = vx_sim_remesh_stats(b->sim);
  if (r->coarsenings == b->coarsenings) return;
  b->coarsenings = r->coarsenings;
  if (!b->o->quiet)
    fprintf(stderr, PROG ": t=%.4g: the lattice coarsened to h = %.4g (sigma %.4g): the field's scale was %.4g; %d elements\n",
            vx_sim_time(b->sim), r->h, vx_sim_params_get(b->sim)->sigma, r->scale, vx_sim_n_elements(b->sim));
}

/* After step k: its timings kept, the diagnostics row, the VTK snapshot and the checkpoint due. */
static int after_step(batch *b, long long k) {
  const app_batch_options *o = b->o;
  char err[512];
  const vx_step_stats *ss = vx_sim_last_stats(b->sim);
  const fmm_stats *e = &ss->engine;
  const double v[ST_N] = {ss->t_step, ss->t_tree, ss->t_far, ss->t_near, ss->t_integrate,
                          e->t_p2m, e->t_m2m, e->t_m2l, e->t_l2l, e->t_l2p};
  app_series_add(&b->st, v);
  b->levels = ss->levels, b->last_evals = ss->evaluations, b->tracer_span = ss->tracer_span;
  b->last_engine = ss->engine;
  if (accuracy_take(b)) return 1;
  say_coarsening(b);
  if (b->rows && (k % b->every == 0 || k == b->steps || b->ms_launch > 0.0)) { /* a launch's step has its row */
    vx_diag d;
    if (vx_diag_compute(b->sim, (int)o->energy_max, &d, err, sizeof err)) { fprintf(stderr, PROG ": %s\n", err); return 1; }
    if (row_passages(b, &d)) return 1;
    vx_diag_pad_rings(&d, b->ring_cols);
    d.ms_launch = b->ms_launch;
    d.acc_cols = o->accuracy_every > 0;
    d.acc = b->acc_res;
    if (b->dfa.f) vx_diag_csv_row(b->dfa.f, &d);
    /* a full disk: stop now (every process with rank 0; the commit says why) */
    if (app_mpi_any(b->dfa.f && vx_afile_failed(&b->dfa))) return 1;
  }
  if (k % b->vtk_every == 0 && vtk_add(b, err, sizeof err)) return say_failed(b, err);
  if (app_ckpt_step(&b->ck, b->sim, k, err, sizeof err)) return say_failed(b, err);
  return 0;
}

/* --launch-ring K: before step K, a ring sized as the scene's first, along its axis from behind the
 * rings (no camera here: vortex/launch.h, vx_launch_aim_behind); under mpirun every process makes the
 * same ring and keeps its share. 0, or 1 with the reason said (once). */
static int launch_due(batch *b, long long k) {
  char err[512] = "";
  b->ms_launch = 0.0;
  for (int i = 0; i < b->o->n_launch; ++i) {
    if (b->o->launch_steps[i] != k) continue;
    int ne = vx_sim_n_elements(b->sim), nt = vx_sim_n_tracers(b->sim), added = 0, added_t = 0;
    double t0 = app_now();
    vx_launch L;
    vx_launch_defaults(&b->sc, b->sim, &L);
    const int nr = vx_sim_n_rings(b->sim);
    if (b->run && nr > 0) L.tracers = all_of(b->sim, 1) / nr; /* spread: every process's tracers a ring, as one process counts */
    int rc = vx_launch_aim_behind(&L, b->sim, &b->sc, err, sizeof err) || vx_launch_ring(b->sim, &b->sc, &L, err, sizeof err);
    if (!rc) { /* every process made the same ring: its counts, before each keeps its share */
      added = vx_sim_n_elements(b->sim) - ne, added_t = vx_sim_n_tracers(b->sim) - nt;
      rc = app_mpi_added(b->run, ne, nt, err, sizeof err) ? 1 : 0;
    }
    if (app_mpi_any(rc)) {
      char why[640];
      snprintf(why, sizeof why, "ring not launched before step %lld: %s", k, rc ? err : "");
      (void)app_mpi_agree(rc, rc ? why : "");
      return 1;
    }
    double ms = 1e3 * (app_now() - t0);
    b->ms_launch += ms;
    if (!b->o->quiet && b->speak)
      fprintf(stderr, PROG ": ring %d launched before step %lld at (%.4g, %.4g, %.4g): +%d elements, +%d tracers in %.2f ms\n",
              vx_sim_n_rings(b->sim) - 1, k, L.centre[0], L.centre[1], L.centre[2], added, added_t, ms);
  }
  return 0;
}

/* The steps k0+1 .. steps, with progress once a second. 0, or the exit code: 1 (a failure), 3 (a
 * blow-up), 130 (Ctrl-C or SIGTERM: stopped after the step, a final checkpoint written). */
static int step_loop(batch *b) {
  const app_batch_options *o = b->o;
  char err[512];
  double t_last = app_now(), ms_sum = 0.0;
  long long ms_n = 0;
  for (long long k = b->k0 + 1; k <= b->steps; ++k) {
    if (app_mpi_any(app_interrupted())) { /* a signal any process caught stops them all after this step */
      if (app_ckpt_finish(&b->ck, b->sim, err, sizeof err)) return say_failed(b, err);
      if (b->speak)
        fprintf(stderr, PROG ": interrupted after step %lld of %lld%s%s%s\n", k - 1, b->steps,
              b->dfa.f ? "; diagnostics kept" : "", b->ck.path[0] ? "; checkpoint " : "", b->ck.path);
      return 130;
    }
    if (launch_due(b, k)) return 1;
    accuracy_request(b, k);
    int sr = app_mpi_step(b->run, b->sim, err, sizeof err);
    if (sr == 0) sr = vx_sim_health(b->sim, &b->hl, err, sizeof err);
    if (sr) {
      if (b->speak) /* under mpirun, another rank says only a failure of its own */
        fprintf(stderr, "%s" PROG ": %s%s\n", o->quiet ? "" : "\n", sr == VX_SIM_BLOWUP ? "" : "step failed: ", err);
      else if (sr != VX_SIM_BLOWUP && strncmp(err, "another ", 8))
        fprintf(stderr, PROG ": rank %d: step failed: %s\n", app_mpi_rank(), err);
      if (sr != VX_SIM_BLOWUP) return 1;
      if (b->speak) app_ckpt_blowup_note(&b->ck);
      return 3;
    }
    if (after_step(b, k)) return 1;
    const vx_step_stats *ss = vx_sim_last_stats(b->sim);
    ms_sum += ss->t_step;
    ms_n++;
    double tn = app_now();
    /* the line's time: rank 0's clock for every process (they then count their elements together) */
    int due = !o->quiet && (tn - t_last >= 1.0 || k == b->steps);
    if (app_mpi_size() > 1) due = app_mpi_any(due && b->speak);
    if (due) {
      const long long n_all = all_elements(b->sim);
      if (b->speak)
        fprintf(stderr,
              PROG ": step %lld/%lld t=%.6g %.3f ms/step, %d elements, max|alpha| %.3g (x%.2f), energy x%.4f, dt*max|grad u| %.2f "
                   "(%d substeps)\n",
              k, b->steps, vx_sim_time(b->sim), ms_sum / ms_n, (int)n_all, b->hl.max_alpha,
              b->hl.max_alpha / b->hl.alpha0, b->hl.energy / b->hl.energy0, b->hl.lcfl, ss->substeps);
      t_last = tn;
      ms_sum = 0.0;
      ms_n = 0;
    }
  }
  if (app_ckpt_finish(&b->ck, b->sim, err, sizeof err)) return say_failed(b, err);
  return 0;
}

/* The last step's M2L by level (ms summed over its engine calls, the last call's dense slot fill) and
 * how many levels ran the dense kernel (the GPU's choice, fmm/gpu_m2l_t.cuh): a scene's far field. */
static void report_m2l_levels(const fmm_stats *e) {
  fprintf(stderr, PROG ": M2L by level, last step:");
  for (int l = 2; l <= e->levels && l <= VX_LMAX; ++l)
    fprintf(stderr, " L%d %.3f ms (fill %.2f)", l, e->t_m2l_level[l], e->m2l_fill[l]);
  fprintf(stderr, "; %d level%s dense%s\n", e->m2l_dense_levels, e->m2l_dense_levels == 1 ? "" : "s",
          e->m2l_dense_levels ? (e->m2l_dense_tc ? " (tensor cores)" : " (SIMT)") : "");
}

/* The closing report: steps and wall time, then the medians of the step's phases. */
static void report(batch *b, double t_start) {
  const vx_sim_params *P = vx_sim_params_get(b->sim);
  if (!b->o->quiet)
    fprintf(stderr, PROG ": done: %lld steps in %.2f s%s%s\n", b->steps > b->k0 ? b->steps - b->k0 : 0,
            app_now() - t_start, b->ck.path[0] ? "; checkpoint " : "", b->ck.path);
  if (b->st.n <= 0) return;
  double m[ST_N];
  for (int j = 0; j < ST_N; ++j) m[j] = app_series_median(&b->st, j);
  char kept[192] = "";
  if (b->last_engine.tree_kept > 0) /* docs/MATH.md §14 */
    snprintf(kept, sizeof kept, ", %d of the last step's %d engine calls on its first tree (points moved up to %.3f of a leaf)",
             b->last_engine.tree_kept, b->last_evals, b->last_engine.tree_moved);
  if (b->tracer_span > 1) /* docs/MATH.md §15 */
    snprintf(kept + strlen(kept), sizeof kept - strlen(kept), "; the tracers' RK4 step over %d of them", b->tracer_span);
  char oct[96];
  if (b->levels > 0 || P->direct) snprintf(oct, sizeof oct, "octree %d levels", b->levels);
  else snprintf(oct, sizeof oct, "the direct sum (the cost model's choice at this size)");
  fprintf(stderr,
          PROG ": step time, median of %lld steps after %d warm-up: %.3f ms (tree %.3f, far %.3f, near %.3f, "
               "integrate %.3f%s); %s%s\n",
          b->st.n, STEP_WARMUP, m[ST_STEP], m[ST_TREE], m[ST_FAR], m[ST_NEAR], m[ST_INTEG],
          P->backend == VX_BACKEND_CUDA ? "; far and near overlap on the GPU" : "", oct, kept);
  if (!P->direct && b->levels > 0)
    fprintf(stderr,
            PROG ": far field per step: P2M %.3f, M2M %.3f, M2L %.3f, L2L %.3f, L2P %.3f ms; %lld M2L translations, "
                 "%d source and %d target leaves%s; the kernel's deviation left to the far field at most %.1e (r_c %.3g%s)\n",
            m[ST_P2M], m[ST_M2M], m[ST_M2L], m[ST_L2L], m[ST_L2P], b->last_engine.n_m2l, b->last_engine.n_src_leaves,
            b->last_engine.n_tgt_leaves, b->last_engine.level_capped ? " (level capped by the core size or memory)" : "",
            b->last_engine.reg_err, b->last_engine.r_cut,
            vx_sim_n_tracers(b->sim) > 0 ? "; the tracers', within their own tolerance, shorter" : "");
  if (!P->direct && P->backend == VX_BACKEND_CUDA) report_m2l_levels(&b->last_engine);
  app_mpi_report(b->run, stderr);
  const vx_acc_result *r = &b->acc_res;
  if (b->o->accuracy_every > 0 && b->acc_ms.n > 0) {
    fprintf(stderr, PROG ": accuracy readout (%d samples, %d with grad u), last at step %lld: u L2 %.3e p99 %.3e, grad u L2 %.3e p99 %.3e; ",
            r->n_u, r->n_g, r->step, r->u_l2, r->u_p99, r->g_l2, r->g_p99);
    if (b->run)
      fprintf(stderr, "cost, median of %lld after 1 warm-up: %.3f ms within the step (each process sums its own sources at "
                      "every sample, on the host)\n", b->acc_ms.n, app_series_median(&b->acc_ms, 2));
    else
      fprintf(stderr, "cost, median of %lld after 1 warm-up: capture %.3f ms on the step's thread, snapshot %.3f ms on the GPU's "
                      "main stream, direct sum %.3f ms %s\n", b->acc_ms.n, app_series_median(&b->acc_ms, 0),
              app_series_median(&b->acc_ms, 1), app_series_median(&b->acc_ms, 2),
              P->backend == VX_BACKEND_CUDA ? "on the side stream" : "on a worker thread");
  }
  const vx_conserve_stats cs = vx_sim_conserve_stats(b->sim);
  if (P->conserve != 0 && !b->o->quiet) /* how much the correction put back (vortex/conserve.h) */
    fprintf(stderr, PROG ": conservative correction (%s): %lld relaxations put back a summed |dI|/|I| of %.3g, the drop "
                    "threshold %.3g (|I|: the impulse, or the rings' own where theirs cancel)\n",
            vx_conserve_name(P->conserve), cs.relaxations, cs.di_relax, cs.di_drop);
}

int app_run_batch(const app_batch_options *o) {
  batch b;
  memset(&b, 0, sizeof b);
  b.o = o;
  b.speak = app_mpi_rank() == 0;
  char path[1024], err[512];
  err[0] = 0;
  int rc = app_mpi_agree(batch_sim(o, &b.sc, path, sizeof path, &b.sim, err, sizeof err), err);
  if (rc) { /* under mpirun a process that cannot start (no GPU for it, out of memory) stops them all */
    vx_sim_destroy(b.sim);
    return rc;
  }
  if (app_mpi_spread(b.sim, &b.run, err, sizeof err)) { /* under mpirun: each process keeps its share */
    if (b.speak) fprintf(stderr, PROG ": %s\n", err);
    vx_sim_destroy(b.sim);
    return 2;
  }
  const vx_sim_params *P = vx_sim_params_get(b.sim);
  b.k0 = vx_sim_steps_done(b.sim); /* > 0 after a restart: the run goes on from that step */
  b.steps = o->steps >= 0 ? o->steps : b.sc.steps;
  if (o->t_end > 0) b.steps = (long long)ceil(o->t_end / P->dt - 1e-9);
  b.every = o->diag_every > 0 ? o->diag_every : b.sc.diag_every;
  if (o->diag_time > 0) b.every = (long long)fmax(1.0, floor(o->diag_time / P->dt + 0.5));
  b.vtk_every = o->vtk_every > 0 ? o->vtk_every : b.every;
  vx_passages_reset(&b.passages);
  b.n_scene_tracers = (int)all_of(b.sim, 1); /* under mpirun every process's: the places of the scene's tracers */
  if (check_paths(&b, path) || restart_ahead(&b)) {
    app_mpi_free(b.run);
    vx_sim_destroy(b.sim);
    return 2;
  }
  for (int i = 0; i < o->n_launch; ++i)
    if (o->launch_steps[i] <= b.k0 || o->launch_steps[i] > b.steps) {
      fprintf(stderr, PROG ": --launch-ring %lld is outside the steps this run takes (%lld..%lld)\n", o->launch_steps[i],
              b.k0 + 1, b.steps);
      app_mpi_free(b.run);
      vx_sim_destroy(b.sim);
      return 2;
    }
  const long long n_elem = all_elements(b.sim), n_tracer = all_of(b.sim, 1);
  say_run(&b, path, n_elem, n_tracer);
  app_interrupt_catch(1); /* Ctrl-C: stop after this step with the files finalized (those opened next too) */
  rc = open_outputs(&b);
  if (!rc) {
    double t_start = app_now();
    rc = step_loop(&b);
    if (!rc && b.speak) report(&b, t_start);
  }
  app_interrupt_catch(0);
  app_series_free(&b.st);
  app_series_free(&b.acc_ms);
  free(b.labels);
  free(b.tpos);
  vx_acc_destroy(b.acc);
  vx_vtk_series_destroy(b.vtk);
  if (b.dfa.f && vx_afile_commit(&b.dfa, err, sizeof err)) {
    fprintf(stderr, PROG ": %s\n", err);
    if (!rc) rc = 1;
  }
  app_mpi_free(b.run);
  vx_sim_destroy(b.sim);
  return rc;
}
