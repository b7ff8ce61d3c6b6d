/* scene_write.c — a vx_scene written back in the text format of assets/README.md (scene.h):
 * every global key (the description, dye_release and camera keys when the scene sets them), then one
 * [ring] section per ring with every ring key, each number in the shortest of %.15g, %.16g and %.17g
 * that reads back to the same double (0.03, not 0.029999999999999999). Load → write → load gives an
 * equal scene (the path aside) and a second write the same bytes. Written atomically
 * (io/atomic_file.h). */
#include "numerics.h"
#include "scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "conserve.h"
#include "version.h"

/* x in the fewest significant digits (15, 16 or 17) that strtod reads back to x exactly; 17 always do. */
static const char *num(char buf[32], double x) {
  for (int digits = 15; digits < 17; ++digits) {
    snprintf(buf, 32, "%.*g", digits, x);
    if (strtod(buf, NULL) == x) return buf;
  }
  snprintf(buf, 32, "%.17g", x);
  return buf;
}

/* Three numbers on one line after "key = ". */
static void put_vec(FILE *f, const char *key, const double v[3]) {
  char a[32], b[32], c[32];
  fprintf(f, "%s = %s %s %s\n", key, num(a, v[0]), num(b, v[1]), num(c, v[2]));
}

/* A text value (name, description): '#' would start a comment and a line break end the line;
 * both become '_'. */
static void put_text(FILE *f, const char *key, const char *text) {
  fprintf(f, "%s = ", key);
  for (const char *c = text; *c; ++c) fputc(*c == '#' || *c == '\n' || *c == '\r' ? '_' : *c, f);
  fputc('\n', f);
}

/* The camera keys the scene sets (an unset one stays unset: the program's home view stands in). */
static void put_camera(FILE *f, const vx_scene_camera *c) {
  if (c->has_position) put_vec(f, "camera_position", c->position);
  if (c->has_target) put_vec(f, "camera_target", c->target);
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
  char n1[32], n2[32], n3[32], n4[32];
  put_text(f, "name", s->name);
  if (s->description[0]) put_text(f, "description", s->description);
  fprintf(f, "kernel = %s\nsigma = %s\nsigma_factor = %s\ndt = %s\n", vx_kernel_name(s->kernel), num(n1, s->sigma),
          num(n2, s->sigma_factor), num(n3, s->dt));
  fprintf(f, "integrator = %s\nstretching = %s\n", vx_integrator_name(s->integrator), vx_stretching_name(s->stretching));
  fprintf(f, "order = %d\nleaf_size = %d\nsolver = %s\n", s->order, s->leaf_size, s->direct ? "direct" : "fmm");
  fprintf(f, "backend = %s\nprecision = %s\n", vx_backend_name(s->backend), vx_precision_name(s->precision));
  fprintf(f, "steps = %d\ndiag_every = %d\nseed = %llu\n", s->steps, s->diag_every, (unsigned long long)s->seed);
  fprintf(f, "relax = %s\nrelax_every = %d\nlcfl = %s\ntracer_every = %d\n", num(n1, s->relax), s->relax_every,
          num(n2, s->lcfl), s->tracer_every);
  fprintf(f, "resolution = %s\nconserve = %s\n", vx_resolution_name(s->resolution), vx_conserve_name(s->conserve));
  fprintf(f, "remesh_every = %d\nremesh_h = %s\nremesh_drop = %s\nviscosity = %s\n", s->remesh_every, num(n1, s->remesh_h),
          num(n2, s->remesh_drop), num(n3, s->viscosity));
  fprintf(f, "remesh_coarsen = %s\n", num(n4, s->remesh_coarsen));
  if (s->has_remesh_origin) put_vec(f, "remesh_origin", s->remesh_origin);
  if (s->dye_release > 0.0) fprintf(f, "dye_release = %s\n", num(n1, s->dye_release));
  put_camera(f, &s->camera);
}

static void put_ring(FILE *f, const vx_ring *r) {
  char n1[32], n2[32], n3[32];
  fprintf(f, "\n[ring]\ncirculation = %s\nradius = %s\ncore = %s\n", num(n1, r->circulation), num(n2, r->radius),
          num(n3, r->core));
  fprintf(f, "profile = %s\ncore_extent = %s\n", r->profile == VX_CORE_UNIFORM ? "uniform" : "gauss", num(n1, r->core_extent));
  fprintf(f, "n_around = %d\nlayers = %d\nlayer_points = %d\n", r->n_around, r->layers, r->layer_points);
  put_vec(f, "centre", r->centre);
  put_vec(f, "axis", r->axis);
  fprintf(f, "phase = %s\nperturb_amp = %s\nperturb_mode = %d\n", num(n1, r->phase), num(n2, r->perturb_amp), r->perturb_mode);
  fprintf(f, "tracers = %d\n", r->tracers);
  if (r->tracer_spread >= 0.0) fprintf(f, "tracer_spread = %s\n", num(n1, r->tracer_spread));
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
