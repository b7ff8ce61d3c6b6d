/* app_params.c — a scene's run parameters overridden by the command line (app.h); shared by the
 * batch mode of main.c and by the interactive and headless programs (scene picker, reset). */
#include "app.h"
#include "numerics.h"

#include <string.h>

void app_overrides_init(app_overrides *ov) {
  memset(ov, 0, sizeof *ov);
  ov->integrator = ov->backend = ov->precision = ov->kernel = ov->stretching = -1;
  ov->dt = ov->sigma = -1.0;
  ov->order = ov->leaf = -1;
  ov->tracers = ov->seed = -1;
  ov->relax = ov->remesh_h = ov->remesh_drop = ov->remesh_coarsen = ov->viscosity = ov->lcfl = -1.0;
  ov->relax_every = ov->remesh_every = -1;
  ov->conserve = -1;
  ov->resolution = -1;
  ov->tracer_every = -1;
  ov->dye_release = -1.0;
}

vx_sim_params app_sim_params(vx_scene *sc, const app_overrides *ov) {
  if (ov->seed >= 0) sc->seed = (uint64_t)ov->seed;
  /* another resolution: the scene's numerics derived anew (what it gives stays; a scene that read
   * once cannot fail to derive, numerics.h) */
  if (ov->resolution >= 0 && sc->numerics.derived && sc->resolution != (vx_resolution)ov->resolution) {
    char err[256];
    sc->resolution = (vx_resolution)ov->resolution;
    (void)vx_numerics_derive(sc, err, sizeof err);
  }
  vx_sim_params prm = vx_sim_params_from_scene(sc);
  if (ov->integrator >= 0) prm.integrator = (vx_integrator)ov->integrator;
  if (ov->backend >= 0) prm.backend = (vx_backend)ov->backend;
  if (ov->precision >= 0) prm.precision = (vx_precision)ov->precision;
  if (ov->kernel >= 0) prm.kernel = (vx_kernel)ov->kernel;
  if (ov->stretching >= 0) prm.stretching = (vx_stretching)ov->stretching;
  if (ov->dt > 0) prm.dt = ov->dt;
  if (ov->sigma > 0) prm.sigma = ov->sigma;
  if (ov->order >= 0) prm.order = ov->order;
  if (ov->leaf > 0) prm.leaf_size = ov->leaf;
  if (ov->direct) prm.direct = 1;
  if (ov->conserve >= 0) prm.conserve = ov->conserve;
  prm.tracers = ov->tracers;
  if (ov->relax >= 0) prm.relax = ov->relax;
  if (ov->relax_every >= 0) prm.relax_every = ov->relax_every;
  if (ov->remesh_every >= 0) prm.remesh_every = ov->remesh_every;
  if (ov->remesh_h >= 0) prm.remesh_h = ov->remesh_h;
  if (ov->remesh_drop >= 0) prm.remesh_drop = ov->remesh_drop;
  if (ov->remesh_coarsen >= 0) prm.remesh_coarsen = ov->remesh_coarsen;
  if (ov->viscosity >= 0) prm.viscosity = ov->viscosity;
  if (ov->lcfl >= 0) prm.lcfl = ov->lcfl;
  if (ov->tracer_every > 0) prm.tracer_every = ov->tracer_every;
  if (ov->dye_release >= 0) prm.dye_release = ov->dye_release;
  return prm;
}
