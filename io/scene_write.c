/* scene_write.c — a vx_scene written back in the text format of assets/README.md (scene.h):
 * every global key (the description and camera keys when the scene sets them), then one [ring]
 * section per ring with every ring key, numbers in %.17g (they read back to the same double).
 * Load → write → load gives an equal scene (the path aside) and a second write the same bytes. Written atomically (io/atomic_file.h). */
#include "scene.h"

#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "conserve.h"
#include "version.h"

/* A text value (name, description): '#' would start a comment and a line break end the line;
 * both become '_'. */
static void put_text(FILE *f, const char *key, const char *text) {
  fprintf(f, "%s = ", key);
  for (const char *c = text; *c; ++c) fputc(*c == '#' || *c == '\n' || *c == '\r' ? '_' : *c, f);
  fputc('\n', f);
}

/* The camera keys the scene sets (an unset one stays unset: the program's home view stands in). */
static void put_camera(FILE *f, const vx_scene_camera *c) {
  if (c->has_position) fprintf(f, "camera_position = %.17g %.17g %.17g\n", c->position[0], c->position[1], c->position[2]);
  if (c->has_target) fprintf(f, "camera_target = %.17g %.17g %.17g\n", c->target[0], c->target[1], c->target[2]);
  if (c->follow >= 0) fprintf(f, "camera_follow = %s\n", c->follow ? "on" : "off");
}

/* Comment lines, each prefixed "# " (the caller's text may hold several lines). */
static void put_comment(FILE *f, const char *text) {
  if (!text || !*text) return;
  fputs("# ", f);
  for (const char *c = text; *c; ++c) {
    if (*c == '\r') continue;
    fputc(*c, f);
    if (*c == '\n' && c[1]) fputs("# ", f);
  }
  if (text[strlen(text) - 1] != '\n') fputc('\n', f);
}

static void put_globals(FILE *f, const vx_scene *s) {
  put_text(f, "name", s->name);
  if (s->description[0]) put_text(f, "description", s->description);
  fprintf(f, "kernel = %s\nsigma = %.17g\nsigma_factor = %.17g\ndt = %.17g\n", vx_kernel_name(s->kernel), s->sigma,
          s->sigma_factor, s->dt);
  fprintf(f, "integrator = %s\nstretching = %s\n", vx_integrator_name(s->integrator), vx_stretching_name(s->stretching));
  fprintf(f, "order = %d\nleaf_size = %d\nsolver = %s\n", s->order, s->leaf_size, s->direct ? "direct" : "fmm");
  fprintf(f, "backend = %s\nprecision = %s\n", vx_backend_name(s->backend), vx_precision_name(s->precision));
  fprintf(f, "steps = %d\ndiag_every = %d\nseed = %llu\n", s->steps, s->diag_every, (unsigned long long)s->seed);
  fprintf(f, "relax = %.17g\nrelax_every = %d\nlcfl = %.17g\ntracer_every = %d\n", s->relax, s->relax_every, s->lcfl,
          s->tracer_every);
  fprintf(f, "conserve = %s\n", vx_conserve_name(s->conserve));
  fprintf(f, "remesh_every = %d\nremesh_h = %.17g\nremesh_drop = %.17g\nviscosity = %.17g\n", s->remesh_every, s->remesh_h,
          s->remesh_drop, s->viscosity);
  if (s->remesh_coarsen > 0.0) fprintf(f, "remesh_coarsen = %.17g\n", s->remesh_coarsen);
  if (s->has_remesh_origin)
    fprintf(f, "remesh_origin = %.17g %.17g %.17g\n", s->remesh_origin[0], s->remesh_origin[1], s->remesh_origin[2]);
  put_camera(f, &s->camera);
}

static void put_ring(FILE *f, const vx_ring *r) {
  fprintf(f, "\n[ring]\ncirculation = %.17g\nradius = %.17g\ncore = %.17g\n", r->circulation, r->radius, r->core);
  fprintf(f, "profile = %s\ncore_extent = %.17g\n", r->profile == VX_CORE_UNIFORM ? "uniform" : "gauss", r->core_extent);
  fprintf(f, "n_around = %d\nlayers = %d\nlayer_points = %d\n", r->n_around, r->layers, r->layer_points);
  fprintf(f, "centre = %.17g %.17g %.17g\naxis = %.17g %.17g %.17g\n", r->centre[0], r->centre[1], r->centre[2], r->axis[0],
          r->axis[1], r->axis[2]);
  fprintf(f, "phase = %.17g\nperturb_amp = %.17g\nperturb_mode = %d\n", r->phase, r->perturb_amp, r->perturb_mode);
  fprintf(f, "tracers = %d\ntracer_spread = %.17g\n", r->tracers, r->tracer_spread);
}

int vx_scene_write(const char *path, const vx_scene *s, const char *comment, char *err, size_t errlen) {
  vx_afile a;
  if (vx_afile_open(&a, path, err, errlen)) return -1;
  fprintf(a.f, "# scene written by vortexfmm %s (format: assets/README.md)\n", vx_version());
  put_comment(a.f, comment);
  fputc('\n', a.f);
  put_globals(a.f, s);
  for (int i = 0; i < s->n_rings; ++i) put_ring(a.f, &s->rings[i]);
  return vx_afile_commit(&a, err, errlen);
}
