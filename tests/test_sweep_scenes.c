/* test_sweep_scenes.c — the stability sweep's scenes (scripts/sweep.py --dry-run, seed 1, 24 scenes)
 * give physics only: no numerical key (vortex/numerics.h's keys) appears in them, each loads, and the
 * program derives its numerics within the resolution's budgets. The draw is reproducible: scene i
 * of a seed is the same file whatever --n. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"
#include "test_run.h"
#include "numerics.h"
#include "scene.h"

#define N_SCENES 24

/* A line of text that sets a numerical key (numerics.h's bits), or NULL. */
static const char *numerical_key(const char *text) {
  static char key[64];
  for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    if (sscanf(line, " %63[a-z_] =", key) == 1 && vx_numerics_key_bit(key)) return key;
  }
  return NULL;
}

int main(void) {
  char dir[1024], dir2[1100], cmd[4096], out[8192], path[1200], text[16384], text2[16384], err[512];
  snprintf(dir, sizeof dir, "%s/test_sweep_scenes_XXXXXX", VX_BINARY_DIR);
  if (!mkdtemp(dir)) { printf("FAIL: cannot create a directory in %s\n", VX_BINARY_DIR); return EXIT_FAILURE; }
  snprintf(dir2, sizeof dir2, "%s/n3", dir);
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/../scripts/sweep.py' --dry-run --n %d --seed 1 --out '%s' 2>&1 && "
           "/usr/bin/python3 '%s/../scripts/sweep.py' --dry-run --n 3 --seed 1 --out '%s' 2>&1",
           VX_ASSETS_DIR, N_SCENES, dir, VX_ASSETS_DIR, dir2);
  int rc = vx_test_shell(cmd, out, sizeof out);
  if (rc != 0) { printf("FAIL: sweep.py --dry-run: exit %d\n%s", rc, out); return EXIT_FAILURE; }
  double nmax, wmax;
  vx_numerics_budget(VX_RES_NORMAL, &nmax, &wmax);
  int rings = 0, viscous = 0;
  for (int i = 0; i < N_SCENES; ++i) {
    snprintf(path, sizeof path, "%s/s%03d.scene", dir, i);
    if (vx_test_read_file(path, text, sizeof text) < 0) { FAIL("%s not written", path); continue; }
    const char *k = numerical_key(text);
    EXPECT(!k, "%s sets the numerical key '%s'", path, k ? k : "");
    vx_scene s;
    if (vx_scene_load(path, &s, err, sizeof err)) { FAIL("%s", err); continue; }
    EXPECT(s.numerics.derived && s.numerics.elements <= nmax * 1.0001 && s.numerics.elements / s.dt <= wmax * 1.0001 &&
               s.dt > 0.0 && s.sigma > 0.0,
           "%s: derived %d, %g elements, %g element-steps per unit time, dt %g, sigma %g", path, s.numerics.derived,
           s.numerics.elements, s.numerics.elements / s.dt, s.dt, s.sigma);
    rings += s.n_rings;
    viscous += s.reynolds > 0.0;
    if (i < 3) {
      snprintf(path, sizeof path, "%s/s%03d.scene", dir2, i);
      if (vx_test_read_file(path, text2, sizeof text2) < 0 || strcmp(text, text2)) FAIL("scene %d differs between --n %d and --n 3", i, N_SCENES);
    }
  }
  EXPECT(rings > N_SCENES && viscous > 0 && viscous < N_SCENES, "%d rings, %d viscous scenes in %d", rings, viscous, N_SCENES);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (!failures && system(cmd)) printf("  note: could not remove %s\n", dir);
  printf("  %d scenes, %d rings, %d viscous: physics only, each derives within the normal budgets\n", N_SCENES, rings, viscous);
  return vx_test_end("sweep scenes: all checks passed");
}
