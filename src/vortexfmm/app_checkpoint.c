/* app_checkpoint.c — checkpoints in the batch mode (app_checkpoint.h): when to write them, where,
 * and what a restart accepts from the command line. The file format is io/checkpoint.c's. */
#include "app_checkpoint.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"

void app_ckpt_path(const char *file, long long every, const vx_scene *sc, char *path, size_t len) {
  if (file) {
    snprintf(path, len, "%s", file);
  } else if (every > 0) {
    snprintf(path, len, "%.63s.ckpt", sc->name[0] ? sc->name : "vortexfmm");
    for (char *p = path; *p; ++p)
      if (*p == '/') *p = '_'; /* a scene name is a file name here, in the current directory */
  } else {
    path[0] = 0;
  }
}

int app_ckpt_init(app_ckpt *c, const char *file, long long every, const vx_scene *sc, long long steps, long long diag_every,
                  char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  c->every = every > 0 ? every : 0;
  c->last_step = -1;
  snprintf(c->meta.scene, sizeof c->meta.scene, "%.63s", sc->name);
  c->meta.seed = sc->seed;
  c->meta.steps = steps;
  c->meta.diag_every = diag_every;
  app_ckpt_path(file, c->every, sc, c->path, sizeof c->path);
  if (!c->path[0]) return 0;
  vx_afile probe; /* fail before the run, not after its first K steps (under mpirun rank 0 writes) */
  const int ok = app_mpi_rank() > 0 || vx_afile_open(&probe, c->path, err, errlen) == 0;
  if (ok && app_mpi_rank() == 0) vx_afile_abort(&probe);
  if (app_mpi_any(!ok)) {
    if (ok) snprintf(err, errlen, "rank 0 cannot write the checkpoint %s", c->path);
    return -1;
  }
  return 0;
}

/* The checkpoint now: of the simulation, or under mpirun of the whole flow gathered at rank 0, which
 * writes it (every process learns whether it did). */
static int write_now(app_ckpt *c, vx_sim *s, char *err, size_t errlen) {
  vx_sim *whole = NULL;
  if (c->run && app_mpi_whole(c->run, s, &whole, err, errlen)) return -1;
  vx_sim *w = c->run ? whole : s;
  const int ok = !w || vx_ckpt_save(w, &c->meta, c->path, err, errlen) == 0;
  vx_sim_destroy(whole);
  if (app_mpi_any(!ok)) {
    if (ok) snprintf(err, errlen, "rank 0 could not write the checkpoint %s", c->path);
    return -1;
  }
  c->last_step = vx_sim_steps_done(s);
  return 0;
}

int app_ckpt_step(app_ckpt *c, vx_sim *s, long long k, char *err, size_t errlen) {
  if (!c->path[0] || c->every <= 0 || k % c->every) return 0;
  return write_now(c, s, err, errlen);
}

int app_ckpt_finish(app_ckpt *c, vx_sim *s, char *err, size_t errlen) {
  if (!c->path[0] || c->last_step == vx_sim_steps_done(s)) return 0;
  return write_now(c, s, err, errlen);
}

void app_ckpt_blowup_note(const app_ckpt *c) {
  if (!c->path[0]) return;
  if (c->last_step >= 0)
    fprintf(stderr, "vortexfmm: the last good checkpoint is %s (step %lld); it was not overwritten\n", c->path, c->last_step);
  else
    fprintf(stderr, "vortexfmm: no checkpoint was written before the blow-up (%s untouched)\n", c->path);
}

/* ------------------------------------------------------------------ restart */

static int refuse(char *err, size_t errlen, const char *opt, const char *given, const char *saved) {
  snprintf(err, errlen, "%s %s differs from the checkpoint's %s: a restart continues the saved run unchanged (drop %s)", opt,
           given, saved, opt);
  return 2;
}

/* The physics options of the command line against the saved run: 0, or 2 with err naming the first
 * that differs. */
static int check_overrides(const app_overrides *ov, const vx_sim *s, const vx_ckpt_meta *m, char *err, size_t errlen) {
  const vx_sim_params *p = vx_sim_params_get(s);
  if (ov->backend >= 0 && ov->backend != VX_BACKEND_AUTO && ov->backend != (int)p->backend)
    return refuse(err, errlen, "--backend", vx_backend_name((vx_backend)ov->backend), vx_backend_name(p->backend));
  if (ov->precision >= 0 && ov->precision != (int)p->precision)
    return refuse(err, errlen, "--precision", vx_precision_name((vx_precision)ov->precision), vx_precision_name(p->precision));
  if (ov->integrator >= 0 && ov->integrator != (int)p->integrator)
    return refuse(err, errlen, "--integrator", vx_integrator_name((vx_integrator)ov->integrator), vx_integrator_name(p->integrator));
  if (ov->kernel >= 0 && ov->kernel != (int)p->kernel)
    return refuse(err, errlen, "--kernel", vx_kernel_name((vx_kernel)ov->kernel), vx_kernel_name(p->kernel));
  if (ov->stretching >= 0 && ov->stretching != (int)p->stretching)
    return refuse(err, errlen, "--stretching", vx_stretching_name((vx_stretching)ov->stretching), vx_stretching_name(p->stretching));
  if (ov->direct && !p->direct) return refuse(err, errlen, "--direct", "(direct summation)", "FMM");
  const struct {
    const char *opt;
    int given;
    double value, saved;
  } num[] = {
      {"--dt", ov->dt > 0, ov->dt, p->dt},
      {"--sigma", ov->sigma > 0, ov->sigma, p->sigma},
      {"--order", ov->order >= 0, ov->order, p->order},
      {"--leaf-size", ov->leaf > 0, ov->leaf, p->leaf_size},
      {"--tracers", ov->tracers >= 0, (double)ov->tracers, vx_sim_n_tracers(s)},
      {"--seed", ov->seed >= 0, (double)ov->seed, (double)m->seed},
      {"--relax", ov->relax >= 0, ov->relax, p->relax},
      {"--relax-every", ov->relax_every >= 0, ov->relax_every, p->relax_every},
      {"--remesh-every", ov->remesh_every >= 0, ov->remesh_every, p->remesh_every},
      {"--remesh-h", ov->remesh_h >= 0, ov->remesh_h, p->remesh_h},
      {"--remesh-drop", ov->remesh_drop >= 0, ov->remesh_drop, p->remesh_drop},
      {"--remesh-coarsen", ov->remesh_coarsen >= 0, ov->remesh_coarsen, p->remesh_coarsen},
      {"--viscosity", ov->viscosity >= 0, ov->viscosity, p->viscosity},
      {"--lcfl", ov->lcfl >= 0, ov->lcfl, p->lcfl},
      {"--tracer-every", ov->tracer_every > 0, ov->tracer_every, p->tracer_every},
      {"--dye-release", ov->dye_release >= 0, ov->dye_release, p->dye_release},
      {"--conserve", ov->conserve >= 0, ov->conserve, p->conserve},
  };
  for (size_t i = 0; i < sizeof num / sizeof num[0]; ++i) {
    if (!num[i].given || num[i].value == num[i].saved) continue;
    char g[32], v[32];
    snprintf(g, sizeof g, "%.17g", num[i].value);
    snprintf(v, sizeof v, "%.17g", num[i].saved);
    return refuse(err, errlen, num[i].opt, g, v);
  }
  return 0;
}

/* The scene a restarted run reports: what the checkpoint saved of it and the saved parameters. */
static void scene_of(const vx_sim *s, const vx_ckpt_meta *m, vx_scene *sc) {
  const vx_sim_params *p = vx_sim_params_get(s);
  vx_scene_init(sc);
  snprintf(sc->name, sizeof sc->name, "%.63s", m->scene);
  sc->seed = m->seed;
  sc->steps = m->steps > INT_MAX ? INT_MAX : (int)m->steps;
  sc->diag_every = m->diag_every > INT_MAX ? INT_MAX : (int)m->diag_every;
  sc->n_rings = vx_sim_n_rings(s) < VX_SCENE_MAX_RINGS ? vx_sim_n_rings(s) : VX_SCENE_MAX_RINGS;
  sc->kernel = p->kernel, sc->sigma = p->sigma, sc->dt = p->dt, sc->integrator = p->integrator;
  sc->stretching = p->stretching, sc->order = p->order, sc->leaf_size = p->leaf_size, sc->direct = p->direct;
  sc->backend = p->backend, sc->precision = p->precision;
  sc->relax = p->relax, sc->relax_every = p->relax_every, sc->remesh_every = p->remesh_every;
  sc->remesh_h = p->remesh_h, sc->remesh_drop = p->remesh_drop, sc->viscosity = p->viscosity, sc->lcfl = p->lcfl;
  sc->conserve = p->conserve, sc->remesh_coarsen = p->remesh_coarsen;
  sc->tracer_every = p->tracer_every > 0 ? p->tracer_every : 1;
  sc->dye_release = p->dye_release;
}

int app_ckpt_restart(const char *file, const app_overrides *ov, vx_sim **sim, vx_scene *sc, char *err, size_t errlen) {
  vx_ckpt_meta m;
  *sim = vx_ckpt_load(file, &m, err, errlen);
  if (!*sim) return 2;
  int rc = check_overrides(ov, *sim, &m, err, errlen);
  if (rc) {
    vx_sim_destroy(*sim);
    *sim = NULL;
    return rc;
  }
  scene_of(*sim, &m, sc);
  return 0;
}
