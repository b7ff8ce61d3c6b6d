/* test_vortex_vtk.c — the ParaView export of the batch mode (--vtk-dir, --vtk-every): a tiny scene
 * run a few steps in double and in float, its .vtp snapshots and .pvd collection read back by VTK's
 * own reader (tests/check_vtp.py with /usr/bin/python3 and python3-vtk9: point count, array names
 * and sizes, Σα and Σ|α| against the diagnostics CSV, times against the .pvd); a directory that
 * cannot be created is one line and exit 1; a restart continues the .pvd of the run it restarts
 * (every snapshot 0..8 listed once, in order, its file there; one whose file is gone left out), a
 * fresh run starts a new one, and a .pvd that is not ours or is a FIFO refuses the restart (exit 2,
 * one line, the file untouched, no wait). Without python3-vtk9 the test FAILS, saying so.
 * Runs the program built beside the tests (VX_BINARY_DIR/vortexfmm). Run: ctest -R vortex_vtk */
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp, mkfifo */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The steps of the snapshots dir/tiny_ring.pvd lists, in its order, into steps (at most cap); their
 * count, or -1 (said) when the file cannot be read, a time does not grow, or a listed file is not there. */
static int pvd_steps(const char *dir, int *steps, int cap) {
  char path[1400], line[512], file[256], vtp[1700];
  snprintf(path, sizeof path, "%s/tiny_ring.pvd", dir);
  FILE *f = fopen(path, "r");
  if (!f) { FAIL("cannot read %s", path); return -1; }
  int n = 0;
  double last = -1.0, t;
  while (fgets(line, sizeof line, f) && n >= 0) {
    const char *d = strstr(line, "<DataSet timestep=\"");
    if (!d) continue;
    const char *fa = strstr(d, "file=\"");
    struct stat sb;
    int step;
    if (n == cap || sscanf(d, "<DataSet timestep=\"%lf\"", &t) != 1 || !(t > last) || !fa ||
        sscanf(fa, "file=\"%255[^\"]\"", file) != 1 || sscanf(file, "tiny_ring_%d.vtp", &step) != 1) {
      FAIL("%s: entry %d out of order or unreadable: %s", path, n, line);
      n = -1;
      break;
    }
    snprintf(vtp, sizeof vtp, "%s/%s", dir, file);
    if (stat(vtp, &sb) || !S_ISREG(sb.st_mode)) { FAIL("%s lists %s, which is not there", path, file); n = -1; break; }
    last = t;
    steps[n++] = step;
  }
  fclose(f);
  return n;
}

/* The steps dir's .pvd lists are want[0..nw): said. */
static void expect_series(const char *what, const char *dir, const int *want, int nw) {
  int got[32], n = pvd_steps(dir, got, 32);
  if (n < 0) return;
  int same = n == nw;
  for (int i = 0; same && i < n; ++i) same = got[i] == want[i];
  char list[256] = "";
  for (int i = 0, u = 0; i < n && u < (int)sizeof list - 8; ++i) u += snprintf(list + u, sizeof list - (size_t)u, " %d", got[i]);
  if (!same) FAIL("%s: the .pvd lists steps%s (%d entries, expected %d)", what, list, n, nw);
  else printf("  ok: %s: steps%s\n", what, list);
}

/* The restart of dir/r.ckpt to step 8 with its series in dir/sub (prefix: what goes before the
 * program); as run. */
static int restart_into(const char *dir, const char *sub, const char *prefix) {
  char args[4096];
  snprintf(args, sizeof args, "--headless --quiet --restart '%s/r.ckpt' --steps 8 --vtk-dir '%s/%s' --vtk-every 2", dir, dir,
           sub);
  return vx_test_run_program(prefix, args, out, sizeof out);
}

/* The output's last line, when it says what (the run's opening line may come before it); else NULL. */
static const char *last_line_says(const char *what) {
  const char *l = strstr(out, what);
  if (!l || strchr(l, '\n') != strrchr(out, '\n')) return NULL;
  while (l > out && l[-1] != '\n') --l;
  return l;
}

/* A run to step 4 with a snapshot every 2 and a checkpoint, restarted to step 8 in the same
 * --vtk-dir: one series 0..8. Also a restart after removing a snapshot's file, a fresh run, a
 * restart without a .pvd, and the refusals. */
static void check_restart_series(const char *dir) {
  char cmd[8192], d[1200], pvd[1300];
  const int all[] = {0, 2, 4, 6, 8}, gap[] = {0, 4, 6, 8}, fresh[] = {0, 2}, late[] = {4, 6, 8};
  snprintf(cmd, sizeof cmd, "--headless --quiet --scene '%s/tiny.scene' --steps 4 --vtk-dir '%s/r' --vtk-every 2 "
           "--checkpoint '%s/r.ckpt' --checkpoint-every 4", dir, dir, dir);
  int rc = run(cmd);
  if (rc != 0) { FAIL("the run to be restarted: exit %d:\n%s", rc, out); return; }
  snprintf(cmd, sizeof cmd, "cp -r '%s/r' '%s/gap' && rm '%s/gap/tiny_ring_000002.vtp' && mkdir '%s/none' '%s/bad' '%s/fifo'",
           dir, dir, dir, dir, dir, dir);
  if (sh(cmd) != 0) { FAIL("%s:\n%s", cmd, out); return; }
  if ((rc = restart_into(dir, "r", "")) != 0) { FAIL("the restart: exit %d:\n%s", rc, out); return; }
  expect_series("restart to 8 continues the series", (snprintf(d, sizeof d, "%s/r", dir), d), all, 5);
  if ((rc = restart_into(dir, "gap", "")) != 0) FAIL("the restart (a file gone): exit %d:\n%s", rc, out);
  else expect_series("a snapshot's file gone before the restart", (snprintf(d, sizeof d, "%s/gap", dir), d), gap, 4);
  if ((rc = restart_into(dir, "none", "")) != 0) FAIL("the restart (no .pvd): exit %d:\n%s", rc, out);
  else expect_series("a restart without a .pvd", (snprintf(d, sizeof d, "%s/none", dir), d), late, 3);
  snprintf(cmd, sizeof cmd, "--headless --quiet --scene '%s/tiny.scene' --steps 2 --vtk-dir '%s/r' --vtk-every 2", dir, dir);
  if ((rc = run(cmd)) != 0) FAIL("a fresh run into the series: exit %d:\n%s", rc, out);
  else expect_series("a fresh run starts a new series", (snprintf(d, sizeof d, "%s/r", dir), d), fresh, 2);

  /* a .pvd not ours: refused, kept unchanged */
  const char *junk = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\">\n<Collection>\n<Item t=\"0\"/>\n";
  snprintf(pvd, sizeof pvd, "%s/bad/tiny_ring.pvd", dir);
  if (write_file(pvd, junk)) return;
  rc = restart_into(dir, "bad", "");
  char back[256] = "";
  FILE *f = fopen(pvd, "r");
  size_t nb = f ? fread(back, 1, sizeof back - 1, f) : 0;
  if (f) fclose(f);
  back[nb] = 0;
  const char *l = last_line_says("bad/tiny_ring.pvd: line 4");
  if (rc != 2 || !l || !strstr(l, "vortexfmm: --vtk-dir") || strcmp(back, junk))
    FAIL("a restart into a .pvd not ours: exit %d (want 2, one line, the file kept), output:\n%s", rc, out);
  else printf("  ok (exit 2): %s", l);
  /* a FIFO for the .pvd: refused without waiting on it (timeout ends a program that waits: 124) */
  snprintf(pvd, sizeof pvd, "%s/fifo/tiny_ring.pvd", dir);
  if (mkfifo(pvd, 0600)) { FAIL("mkfifo %s", pvd); return; }
  rc = restart_into(dir, "fifo", "timeout 30");
  l = last_line_says("fifo/tiny_ring.pvd");
  if (rc != 2 || !l)
    FAIL("a restart into a FIFO .pvd: exit %d (want 2 and one line), output:\n%s", rc, out);
  else printf("  ok (exit 2): %s", l);
}

int main(void) {
  char dir[1024], path[1200], cmd[4096];
  snprintf(dir, sizeof dir, "%s/test_vortex_vtk_XXXXXX", VX_BINARY_DIR);
  if (!mkdtemp(dir)) { printf("FAIL: cannot create a directory in %s\n", VX_BINARY_DIR); return EXIT_FAILURE; }
  snprintf(path, sizeof path, "%s/tiny.scene", dir);
  if (write_file(path, "name = tiny ring\nkernel = gauss\nsigma = 0.05\ndt = 0.01\nsolver = direct\nbackend = cpu\n"
                       "[ring]\nn_around = 32\nlayers = 0\ntracers = 10\naxis = 0.3 0.2 1\n"))
    return EXIT_FAILURE;

  export_and_check(dir, "d", "--precision double");
  export_and_check(dir, "f", "--precision float");
  check_restart_series(dir);

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
