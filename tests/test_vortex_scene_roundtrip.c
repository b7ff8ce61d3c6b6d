/* test_vortex_scene_roundtrip.c — vx_scene_write: every scene of assets/ and a scene overriding
 * every long-run key, dye_release, a description and camera keys (and odd numbers: a non-unit axis,
 * 0.1+0.2, 1e-300) goes load → write → load → write; the two written files must be byte-identical
 * and the two loaded scenes equal in every field (the path aside). Numbers are written in the fewest digits that read back exactly (0.03, not
 * 0.029999999999999999; 0.1+0.2 keeps its 17). vx_scene_set_tracers must generate the tracers a
 * count override does.
 * CPU, fast. Run: ctest -R scene_roundtrip */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "test_check.h"

#define CMP(field) if (a->field != b->field) return #field
#define CMP3(field) if (a->field[0] != b->field[0] || a->field[1] != b->field[1] || a->field[2] != b->field[2]) return #field

/* The first field in which two rings differ, or NULL. */
static const char *ring_diff(const vx_ring *a, const vx_ring *b) {
  CMP(circulation); CMP(radius); CMP(core); CMP(profile); CMP(core_extent); CMP(n_around); CMP(layers);
  CMP(layer_points); CMP3(centre); CMP3(axis); CMP(phase); CMP(perturb_amp); CMP(perturb_mode); CMP(tracers);
  CMP(tracer_spread);
  return NULL;
}

/* The first field in which two scenes differ (the path is not compared), or NULL. */
static const char *scene_diff(const vx_scene *a, const vx_scene *b) {
  if (strcmp(a->name, b->name)) return "name";
  if (strcmp(a->description, b->description)) return "description";
  CMP(camera.has_position); CMP(camera.has_target); CMP3(camera.position); CMP3(camera.target); CMP(camera.follow);
  CMP(kernel); CMP(sigma); CMP(sigma_factor); CMP(dt); CMP(integrator); CMP(stretching); CMP(order); CMP(leaf_size);
  CMP(direct); CMP(backend); CMP(precision); CMP(steps); CMP(diag_every); CMP(seed); CMP(relax); CMP(relax_every);
  CMP(remesh_every); CMP(remesh_h); CMP(has_remesh_origin); CMP3(remesh_origin); CMP(remesh_drop);
  CMP(remesh_coarsen); CMP(viscosity); CMP(lcfl); CMP(tracer_every); CMP(dye_release); CMP(n_rings);
  for (int i = 0; i < a->n_rings; ++i)
    if (ring_diff(&a->rings[i], &b->rings[i])) return ring_diff(&a->rings[i], &b->rings[i]);
  return NULL;
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(1 << 20);
  *n = buf ? fread(buf, 1, 1 << 20, f) : 0;
  fclose(f);
  return buf;
}

/* load src → write w1 → load → write w2; compare. Returns 0 when all holds. */
static int roundtrip(const char *src, const char *dir, const char *tag, vx_scene *out) {
  char w1[1200], w2[1200], err[512];
  snprintf(w1, sizeof w1, "%s/%s.1.scene", dir, tag);
  snprintf(w2, sizeof w2, "%s/%s.2.scene", dir, tag);
  vx_scene a, b;
  if (vx_scene_load(src, &a, err, sizeof err)) { FAIL("%s: %s", tag, err); return -1; }
  if (vx_scene_write(w1, &a, "round trip 1\nof a test", err, sizeof err)) { FAIL("%s: %s", tag, err); return -1; }
  if (vx_scene_load(w1, &b, err, sizeof err)) { FAIL("%s: written file does not load: %s", tag, err); return -1; }
  if (vx_scene_write(w2, &b, "round trip 1\nof a test", err, sizeof err)) { FAIL("%s: %s", tag, err); return -1; }
  const char *d = scene_diff(&a, &b);
  if (d) { FAIL("%s: the scene read back differs in '%s'", tag, d); return -1; }
  size_t n1 = 0, n2 = 0;
  char *t1 = slurp(w1, &n1), *t2 = slurp(w2, &n2);
  int same = t1 && t2 && n1 == n2 && n1 > 0 && !memcmp(t1, t2, n1);
  free(t1);
  free(t2);
  if (!same) { FAIL("%s: %s and %s differ", tag, w1, w2); return -1; }
  printf("  ok: %s: %d rings, %zu bytes, identical rewrite\n", tag, a.n_rings, n1);
  if (out) *out = b;
  return 0;
}

static const char *OVERRIDES =
    "name = long run # with a comment\nkernel = wl\nsigma = 0\nsigma_factor = 1.7\ndt = 0.30000000000000004\n"
    "integrator = euler\nstretching = transpose\norder = 5\nleaf_size = 17\nsolver = direct\nbackend = cpu\n"
    "precision = float\nsteps = 123\ndiag_every = 7\nseed = 18446744073709551615\n"
    "relax = 0.25\nrelax_every = 3\nremesh_every = 7\nremesh_h = 0.0123456789\nremesh_drop = 0.002\nremesh_coarsen = 2.5\n"
    "remesh_origin = 0.5 0.30000000000000004 -2\n"
    "viscosity = 1e-300\nlcfl = 0.1\ntracer_every = 2\ndye_release = 1.7000000000000002\n"
    "description = two rings = one test, with = signs\ncamera_position = -1 0.30000000000000004 1e-300\n"
    "camera_follow = off\n"
    "[ring]\ncirculation = -1.1\nradius = 0.31\ncore = 0.05\nprofile = uniform\nn_around = 33\nlayers = 2\n"
    "layer_points = 5\ncenter = 0.1 0.2 0.3\naxis = 1 2 3\nphase = 0.7\nperturb_amp = 0.03\nperturb_mode = 3\n"
    "tracers = 101\ntracer_spread = 0.02\n"
    "[ring]\naxis = 0 0 -7\ntracers = 3\n";

/* The scene with vx_scene_set_tracers(n) generates the tracers of vx_particles_generate(override n). */
static void check_set_tracers(vx_scene *s, long long n) {
  char err[512];
  vx_particles p1, p2;
  if (vx_particles_generate(s, n, &p1, err, sizeof err)) { FAIL("generate: %s", err); return; }
  vx_scene_set_tracers(s, n);
  if (vx_particles_generate(s, -1, &p2, err, sizeof err)) { FAIL("generate: %s", err); vx_particles_free(&p1); return; }
  size_t m = 3 * (size_t)(p1.n_elem + p1.n_tracer);
  if (p1.n_tracer != n || p2.n_tracer != n || memcmp(p1.pos, p2.pos, sizeof(double) * m))
    FAIL("vx_scene_set_tracers(%lld): %d tracers, not those of the override (%d)", n, p2.n_tracer, p1.n_tracer);
  else printf("  ok: vx_scene_set_tracers(%lld) generates the override's tracers\n", n);
  vx_particles_free(&p1);
  vx_particles_free(&p2);
}

/* The shortest form: a scene of values with short decimal forms is written with them, and a value
 * that needs all 17 digits keeps them (the round trip above checks they read back the same). */
static void check_short_numbers(const char *dir) {
  char src[1200], w[1200], err[512];
  snprintf(src, sizeof src, "%s/short.scene", dir);
  snprintf(w, sizeof w, "%s/short.w.scene", dir);
  FILE *f = fopen(src, "w");
  int bad = !f || fputs("dt = 0.03\nsigma = 0.07\nrelax = 0.1\n[ring]\nradius = 0.3\ncore = 0.03\ncentre = 0.1 0.30000000000000004 "
                        "-1e-300\n", f) == EOF;
  if (f) bad |= fclose(f) != 0;
  vx_scene s;
  if (bad) { FAIL("cannot write %s", src); return; }
  if (vx_scene_load(src, &s, err, sizeof err) || vx_scene_write(w, &s, NULL, err, sizeof err)) { FAIL("short: %s", err); return; }
  size_t n = 0;
  char *t = slurp(w, &n);
  if (!t) { FAIL("cannot read %s", w); return; }
  t[n < (1 << 20) ? n : (1 << 20) - 1] = 0;
  const char *want[] = {"\ndt = 0.03\n", "\nsigma = 0.07\n", "\nrelax = 0.1\n", "\nradius = 0.3\n", "\ncore = 0.03\n",
                        "\ncentre = 0.1 0.30000000000000004 -1e-300\n"};
  int ok = 1;
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i)
    if (!strstr(t, want[i])) { FAIL("short: the written scene has no line '%s':\n%s", want[i] + 1, t); ok = 0; }
  if (strstr(t, "99999999") || strstr(t, "00000001")) { FAIL("short: a number in more digits than it needs:\n%s", t); ok = 0; }
  if (strstr(t, "dye_release")) { FAIL("short: dye_release written for a scene without it:\n%s", t); ok = 0; }
  if (ok) printf("  ok: numbers written in their shortest exact form (dt = 0.03, 0.30000000000000004 kept); no dye_release "
                 "where the scene has none\n");
  free(t);
}

int main(void) {
  char dir[1024], path[1400];
  snprintf(dir, sizeof dir, "%s/test_scene_roundtrip_XXXXXX", VX_BINARY_DIR);
  if (!mkdtemp(dir)) { printf("FAIL: cannot create a directory in %s\n", VX_BINARY_DIR); return EXIT_FAILURE; }
  DIR *d = opendir(VX_ASSETS_DIR);
  if (!d) { printf("FAIL: cannot list %s\n", VX_ASSETS_DIR); return EXIT_FAILURE; }
  int n_assets = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 7 || strcmp(e->d_name + l - 6, ".scene")) continue;
    snprintf(path, sizeof path, "%s/%s", VX_ASSETS_DIR, e->d_name);
    roundtrip(path, dir, e->d_name, NULL);
    ++n_assets;
  }
  closedir(d);
  if (n_assets < 5) FAIL("only %d scenes found in %s", n_assets, VX_ASSETS_DIR);

  snprintf(path, sizeof path, "%s/overrides.scene", dir);
  FILE *f = fopen(path, "w");
  int bad = !f || fputs(OVERRIDES, f) == EOF;
  if (f) bad |= fclose(f) != 0;
  if (bad) { printf("FAIL: cannot write %s\n", path); return EXIT_FAILURE; }
  vx_scene s;
  if (!roundtrip(path, dir, "overrides", &s)) {
    if (s.relax != 0.25 || s.relax_every != 3 || s.remesh_every != 7 || s.remesh_h != 0.0123456789 ||
        s.remesh_drop != 0.002 || s.remesh_coarsen != 2.5 || !s.has_remesh_origin || s.remesh_origin[1] != 0.1 + 0.2 || s.viscosity != 1e-300 ||
        s.lcfl != 0.1 || s.tracer_every != 2 || s.dt != 0.1 + 0.2 || s.dye_release != 1.7000000000000002 ||
        s.seed != 18446744073709551615ull || strcmp(s.name, "long run") || s.rings[1].axis[2] != -1.0)
      FAIL("overrides: a long-run key or number did not survive the round trip");
    else printf("  ok: overrides: long-run keys and numbers kept exactly\n");
    /* camera_target left unset stays unset (the program's home target), the others kept exactly */
    if (strcmp(s.description, "two rings = one test, with = signs") || !s.camera.has_position || s.camera.has_target ||
        s.camera.position[1] != 0.1 + 0.2 || s.camera.position[2] != 1e-300 || s.camera.follow != 0)
      FAIL("overrides: the description or a camera key did not survive the round trip");
    else printf("  ok: overrides: description and camera keys kept, an unset one stays unset\n");
    check_set_tracers(&s, 1001);
  }
  check_short_numbers(dir);
  if (failures) { printf("%d check(s) failed (files kept in %s)\n", failures, dir); return EXIT_FAILURE; }
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) printf("  (could not remove %s)\n", dir);
  printf("scene round-trip checks passed (%d asset scenes)\n", n_assets);
  return EXIT_SUCCESS;
}
