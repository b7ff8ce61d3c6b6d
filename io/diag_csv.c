/* diag_csv.c — the diagnostics CSV (vortex/diag.h): `# key = value` lines describing the run, the
 * column header, and one row per vx_diag, flushed so that a crash keeps the rows written. The
 * diagnostics themselves are computed in vortex/diag.c. */
#include <stdio.h>

#include "diag.h"
#include "version.h"

/* A value on one comment line: line breaks would end the comment, so they become spaces. */
static void meta_str(FILE *f, const char *key, const char *v) {
  fprintf(f, "# %s = ", key);
  for (; *v; ++v) fputc(*v == '\n' || *v == '\r' ? ' ' : *v, f);
  fputc('\n', f);
}

void vx_diag_csv_preamble(FILE *f, const vx_scene *sc, const vx_sim_params *p, int n_elem, int n_tracers) {
  fprintf(f, "# vortexfmm diagnostics (lines starting with '#' describe the run; the CSV starts below them)\n");
  meta_str(f, "version", vx_version());
  meta_str(f, "git_commit", vx_git_commit());
  meta_str(f, "scene", sc->name);
  meta_str(f, "scene_path", sc->path);
  fprintf(f, "# backend = %s\n# precision = %s\n", vx_backend_name(p->backend), vx_precision_name(p->precision));
  fprintf(f, "# solver = %s\n# order = %d\n# leaf_size = %d\n", p->direct ? "direct" : "fmm", p->order, p->leaf_size);
  fprintf(f, "# kernel = %s\n# sigma = %.17g\n# dt = %.17g\n", vx_kernel_name(p->kernel), p->sigma, p->dt);
  fprintf(f, "# integrator = %s\n# stretching = %s\n", vx_integrator_name(p->integrator), vx_stretching_name(p->stretching));
  fprintf(f, "# relax = %.17g\n# relax_every = %d\n", p->relax, p->relax_every);
  fprintf(f, "# remesh_every = %d\n# remesh_h = %.17g\n# remesh_drop = %.17g\n", p->remesh_every, p->remesh_h, p->remesh_drop);
  fprintf(f, "# remesh_coarsen = %.17g\n", p->remesh_coarsen);
  fprintf(f, "# remesh_origin = %.17g %.17g %.17g\n", p->remesh_origin[0], p->remesh_origin[1], p->remesh_origin[2]);
  fprintf(f, "# viscosity = %.17g\n# lcfl = %.17g\n# tracer_every = %d\n# verbose = %d\n", p->viscosity, p->lcfl,
          p->tracer_every > 1 ? p->tracer_every : 1, p->verbose);
  fprintf(f, "# dye_release = %.17g\n", p->dye_release);
  fprintf(f, "# tracers = %d\n# tracers_override = %lld\n# elements = %d\n", n_tracers, p->tracers, n_elem);
  fprintf(f, "# rings = %d\n# seed = %llu\n", sc->n_rings, (unsigned long long)sc->seed);
}

void vx_diag_csv_header(FILE *f, int n_rings, int accuracy) {
  fprintf(f, "step,time,Ix,Iy,Iz,Ax,Ay,Az,Wx,Wy,Wz,max_alpha,energy,n_elem,sum_abs_alpha,max_gradu");
  for (int r = 0; r < n_rings && r < VX_SCENE_MAX_RINGS; ++r)
    fprintf(f, ",ring%d_x,ring%d_y,ring%d_z,ring%d_R", r, r, r, r);
  fprintf(f, ",ms_step,ms_tree,ms_far,ms_near,ms_integrate,levels,ms_launch,sigma,lattice_h,passages,dye_near,energy_sigma");
  if (accuracy) fprintf(f, ",acc_step,err_u_l2,err_u_p99,err_gu_l2,err_gu_p99,ms_acc_capture,ms_acc_snapshot_gpu,ms_acc_direct");
  fprintf(f, "\n");
  fflush(f);
}

void vx_diag_csv_row(FILE *f, const vx_diag *d) {
  fprintf(f, "%lld,%.10g", d->step, d->t);
  for (int i = 0; i < 3; ++i) fprintf(f, ",%.12g", d->I[i]);
  for (int i = 0; i < 3; ++i) fprintf(f, ",%.12g", d->A[i]);
  for (int i = 0; i < 3; ++i) fprintf(f, ",%.12g", d->W[i]);
  fprintf(f, ",%.12g,%.12g,%d,%.12g,%.8g", d->max_alpha, d->energy, d->n_elem, d->sum_abs_alpha, d->max_gradu);
  for (int r = 0; r < d->n_rings; ++r)
    fprintf(f, ",%.10g,%.10g,%.10g,%.10g", d->ring_c[r][0], d->ring_c[r][1], d->ring_c[r][2], d->ring_R[r]);
  const vx_step_stats *s = &d->stats;
  fprintf(f, ",%.4f,%.4f,%.4f,%.4f,%.4f,%d,%.4f", s->t_step, s->t_tree, s->t_far, s->t_near, s->t_integrate, s->levels,
          d->ms_launch);
  fprintf(f, ",%.10g,%.10g,%lld,%.6g,%.12g", d->sigma, d->lattice_h, d->passages, d->dye_near, d->energy_sigma);
  const vx_acc_result *a = &d->acc;
  if (d->acc_cols && a->n_u > 0)
    fprintf(f, ",%lld,%.4e,%.4e,%.4e,%.4e,%.4f,%.4f,%.4f", a->step, a->u_l2, a->u_p99, a->g_l2, a->g_p99, a->ms_capture,
            a->ms_capture_gpu, a->ms_direct);
  else if (d->acc_cols)
    fprintf(f, ",-1,nan,nan,nan,nan,nan,nan,nan");
  fprintf(f, "\n");
  fflush(f);
}
