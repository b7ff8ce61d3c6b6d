/* test_vortex_vtk.c — the ParaView export of the batch mode (--vtk-dir, --vtk-every): a tiny scene
 * run a few steps in double and in float, its .vtp snapshots and .pvd collection read back by VTK's
 * own reader (tests/check_vtp.py with /usr/bin/python3 and python3-vtk9: point count, array names
 * and sizes, Σα and Σ|α| against the diagnostics CSV, times against the .pvd); a directory that
 * cannot be created is one line and exit 1. Without python3-vtk9 the test FAILS, saying so.
 * Runs the program built beside the tests (VX_BINARY_DIR/vortexfmm). Run: ctest -R vortex_vtk */
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"
#include "test_run.h"

static char out[65536];

/* Run a shell command; its stdout+stderr into out; returns the exit code. */
static int sh(const char *cmd) {
  char full[4096];
  snprintf(full, sizeof full, "%s 2>&1", cmd);
  return vx_test_shell(full, out, sizeof out);
}

/* Run the program with args; as sh. */
static int run(const char *args) { return vx_test_run_program("", args, out, sizeof out); }

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) { FAIL("cannot write %s", path); return -1; }
  int bad = fputs(text, f) == EOF;
  bad |= fclose(f) != 0;
  if (bad) { FAIL("cannot write %s", path); return -1; }
  return 0;
}

/* 4 steps, snapshots every 2: steps 0, 2, 4 checked by VTK against the CSV. */
static void export_and_check(const char *dir, const char *scene, const char *extra) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "--headless --quiet --scene '%s/tiny.scene' --steps 4 --diag '%s/diag.csv' "
           "--diag-every 1 --vtk-dir '%s/%s/new/dir' --vtk-every 2 %s", dir, dir, dir, scene, extra);
  int rc = run(cmd);
  if (rc != 0) { FAIL("export run (%s) exit %d:\n%s", extra, rc, out); return; }
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/../tests/check_vtp.py' '%s/%s/new/dir/tiny_ring.pvd' '%s/diag.csv' 32 10 0 2 4",
           VX_ASSETS_DIR, dir, scene, dir);
  rc = sh(cmd);
  printf("%s", out);
  if (rc != 0) FAIL("VTK check of the %s export failed (exit %d)%s", extra, rc,
                    strstr(out, "python3-vtk9") ? ": python3-vtk9 is not installed (scripts/setup installs it)" : "");
  else printf("  ok: %s export read back by VTK\n", extra);
}

int main(void) {
  char dir[1024], path[1200], cmd[4096];
  snprintf(dir, sizeof dir, "%s/test_vortex_vtk_XXXXXX", VX_BINARY_DIR);
  if (!mkdtemp(dir)) { printf("FAIL: cannot create a directory in %s\n", VX_BINARY_DIR); return EXIT_FAILURE; }
  snprintf(path, sizeof path, "%s/tiny.scene", dir);
  if (write_file(path, "name = tiny ring\nkernel = gauss\nsigma = 0.05\ndt = 0.01\nsolver = direct\nbackend = cpu\n"
                       "[ring]\nn_around = 32\ntracers = 10\naxis = 0.3 0.2 1\n"))
    return EXIT_FAILURE;

  export_and_check(dir, "d", "--precision double");
  export_and_check(dir, "f", "--precision float");

  /* a directory that cannot be created (a file is in the way): one line, exit 1 */
  snprintf(path, sizeof path, "%s/a_file", dir);
  if (write_file(path, "x\n")) return EXIT_FAILURE;
  snprintf(cmd, sizeof cmd, "--headless --quiet --scene '%s/tiny.scene' --steps 1 --vtk-dir '%s/sub'", dir, path);
  int rc = run(cmd);
  if (rc != 1 || !strstr(out, "cannot create the VTK directory") || strchr(strstr(out, "VTK directory"), '\n') != strrchr(out, '\n'))
    FAIL("unwritable --vtk-dir: exit %d (want 1 and one line), output:\n%s", rc, out);
  else printf("  ok (exit 1): %s", strstr(out, "vortexfmm: cannot"));

  /* the export is a batch-mode option */
  snprintf(cmd, sizeof cmd, "--headless --scene '%s/tiny.scene' --frames 1 --vtk-dir '%s/x'", dir, dir);
  rc = run(cmd);
  if (rc != 2 || !strstr(out, "--vtk-dir is for the batch mode")) FAIL("--vtk-dir with --frames: exit %d, output:\n%s", rc, out);
  else printf("  ok (exit 2): --vtk-dir with --frames refused\n");

  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (!failures && sh(cmd) != 0) printf("  note: could not remove %s: %s", dir, out);
  if (failures) { printf("%d check(s) failed (files kept in %s)\n", failures, dir); return EXIT_FAILURE; }
  printf("VTK export checks passed\n");
  return EXIT_SUCCESS;
}
