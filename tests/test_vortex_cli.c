/* test_vortex_cli.c — the headless command line of vortexfmm: exit codes and one-line messages
 * (2: bad option or scene file, naming the field and line; 3: blow-up, keeping the diagnostics
 * written so far; 0: a short run writes its CSV rows after a `# key = value` preamble), and the
 * no-display notice of the window mode; --version; 130: interrupted (also twice at once, as
 * timeout(1) does), the CSV kept; a restart whose --steps or --t-end the checkpoint has already
 * reached (2, naming both numbers), and the restarted run's preamble naming its scene (scene_path:
 * the scene file, else the checkpoint); a build without MPI started by mpirun as several processes
 * refuses (2, one line from rank 0, nothing written).
 * Runs the program built beside the tests (VX_BINARY_DIR/vortexfmm). Run: ctest -R vortex_cli */
#define _POSIX_C_SOURCE 200809L /* popen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_run.h"
#include "test_check.h"

static char out[16384];

/* Run the program with args; its stdout+stderr into out; returns the exit code. */
static int run(const char *args) { return vx_test_run_program("", args, out, sizeof out); }

static void expect(const char *args, int code, const char *text) {
  int rc = run(args);
  if (rc != code || !strstr(out, text)) FAIL("'%s': exit %d (want %d), output:\n%s(wanted '%s')", args, rc, code, out, text);
  else printf("  ok (exit %d): vortexfmm %s\n", rc, args);
}

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  int bad = !f || fputs(text, f) == EOF;
  if (f) bad |= fclose(f) != 0;
  if (bad) FAIL("cannot write %s", path);
  return bad ? -1 : 0;
}

/* Lines of a diagnostics CSV, the `# key = value` lines of its preamble left out (*comments: their count). */
static int count_lines(const char *path, int *comments) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0, k = 0, c, bol = 1, hash = 0;
  while ((c = fgetc(f)) != EOF) {
    if (bol) hash = c == '#';
    bol = c == '\n';
    if (bol) hash ? ++k : ++n;
  }
  fclose(f);
  if (comments) *comments = k;
  return n;
}

/* The value of `# key = ` in a diagnostics CSV's preamble into v ("" when absent). */
static void preamble_value(const char *path, const char *key, char *v, size_t cap) {
  char line[2048], want[128];
  snprintf(want, sizeof want, "# %s = ", key);
  v[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f) return;
  while (fgets(line, sizeof line, f) && line[0] == '#')
    if (!strncmp(line, want, strlen(want))) {
      snprintf(v, cap, "%s", line + strlen(want));
      v[strcspn(v, "\n")] = 0;
      break;
    }
  fclose(f);
}

/* --restart: --steps is the step to reach and --t-end the time, so a checkpoint already there is
 * refused (2) naming both numbers; a run past it goes on, its preamble naming the scene. */
static void restart_checks(const char *tiny, const char *csv) {
  char ck[1024], args[4096], want[1400], v[1200];
  snprintf(ck, sizeof ck, "%s/test_vortex_cli.ckpt", VX_BINARY_DIR);
  remove(ck);
  snprintf(args, sizeof args, "--headless --quiet --scene '%s' --steps 4 --checkpoint '%s'", tiny, ck);
  int rc = run(args);
  if (rc != 0) { FAIL("'%s': exit %d:\n%s", args, rc, out); return; }
  snprintf(args, sizeof args, "--headless --restart '%s' --steps 4", ck);
  snprintf(want, sizeof want, "--steps 4 is the step to reach, and the checkpoint %s is already at step 4: give a larger "
                              "--steps or --t-end", ck);
  expect(args, 2, want);
  snprintf(args, sizeof args, "--headless --restart '%s' --steps 2", ck);
  snprintf(want, sizeof want, "--steps 2 is the step to reach, and the checkpoint %s is already at step 4", ck);
  expect(args, 2, want);
  snprintf(args, sizeof args, "--headless --restart '%s' --t-end 0.02", ck);
  snprintf(want, sizeof want, "--t-end 0.02 is the time to reach, and the checkpoint %s is already at t = 0.04 (step 4)", ck);
  expect(args, 2, want);
  snprintf(args, sizeof args, "--headless --restart '%s'", ck);
  snprintf(want, sizeof want, "the checkpoint %s is already at step 4, the last step of its run: give --steps", ck);
  expect(args, 2, want);
  /* past it: two more steps; the scene has no file of its name among the scenes, so the checkpoint names it */
  remove(csv);
  snprintf(args, sizeof args, "--headless --restart '%s' --steps 6 --diag '%s'", ck, csv);
  expect(args, 0, "done: 2 steps");
  preamble_value(csv, "scene_path", v, sizeof v);
  if (strcmp(v, ck)) FAIL("restart of an unnamed scene: scene_path '%s', expected the checkpoint %s", v, ck);
  else printf("  ok: the restarted run's scene_path names the checkpoint %s\n", v);
  /* a built-in scene: scene_path is its file, found under the name the checkpoint saved */
  snprintf(args, sizeof args, "--headless --quiet --scene single_ring --backend cpu --tracers 0 --steps 1 --checkpoint '%s'", ck);
  if ((rc = run(args)) != 0) { FAIL("'%s': exit %d:\n%s", args, rc, out); return; }
  remove(csv);
  snprintf(args, sizeof args, "--headless --restart '%s' --steps 2 --diag '%s'", ck, csv);
  expect(args, 0, "done: 1 steps");
  preamble_value(csv, "scene_path", v, sizeof v);
  size_t n = strlen(v);
  if (n < 18 || strcmp(v + n - 18, "/single_ring.scene")) FAIL("restart of single_ring: scene_path '%s', expected its scene file", v);
  else printf("  ok: the restarted run's scene_path names the scene file %s\n", v);
  remove(ck);
}

int main(void) {
  char exe[1024], bad[1024], tiny[1024], csv[1024], args[4096];
  snprintf(exe, sizeof exe, "%s/vortexfmm", VX_BINARY_DIR);
  FILE *e = fopen(exe, "r");
  if (!e) { printf("FAIL: %s not built\n", exe); return EXIT_FAILURE; }
  fclose(e);
  snprintf(bad, sizeof bad, "%s/test_vortex_cli_bad.scene", VX_BINARY_DIR);
  snprintf(tiny, sizeof tiny, "%s/test_vortex_cli_tiny.scene", VX_BINARY_DIR);
  snprintf(csv, sizeof csv, "%s/test_vortex_cli.csv", VX_BINARY_DIR);
  if (write_file(bad, "# a scene with a typo\ndt = 0.01\n[ring]\nradius = 0.3\nradios = 0.2\n") ||
      write_file(tiny, "kernel = gauss\nsigma = 0.05\ndt = 0.01\nsolver = direct\nbackend = cpu\n[ring]\nn_around = 32\nlayers = 0\n"
                       "tracers = 10\n"))
    return EXIT_FAILURE;

  /* the window needs a display: without one, a one-line pointer to --headless (exit 2) */
  if (unsetenv("DISPLAY") || unsetenv("WAYLAND_DISPLAY")) { printf("FAIL: unsetenv\n"); return EXIT_FAILURE; }
  expect("--scene merger", 2, "no display to open a window on (DISPLAY is not set); run with --headless");
  snprintf(args, sizeof args, "--headless --scene '%s'", bad);
  expect(args, 2, "line 5: unknown key 'radios'");
  expect("--headless --scene no_such_scene", 2, "scene 'no_such_scene' not found");
  snprintf(args, sizeof args, "--headless --scene '%s' --dt abc", tiny);
  expect(args, 2, "bad value for --dt: 'abc'");
  snprintf(args, sizeof args, "--headless --scene '%s' --integrator rk3", tiny);
  expect(args, 2, "bad value for --integrator: 'rk3'");
  snprintf(args, sizeof args, "--headless --scene '%s' --backend gpu", tiny);
  expect(args, 2, "bad value for --backend: 'gpu'");
  expect("--headless --scene merger --frobnicate", 2, "unknown option '--frobnicate'");
  expect("--headless", 2, "--scene is required");
  int rc;
#ifndef VX_TEST_HAVE_MPI
  /* a build without MPI started by mpirun as several processes: refused before anything is written, one
   * line from rank 0 (with MPI the run spreads over them: test_mpi_cli) */
  snprintf(args, sizeof args, "--headless --scene '%s' --steps 2 --diag '%s'", tiny, csv);
  remove(csv);
  rc = vx_test_run_program("OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0", args, out, sizeof out);
  if (rc != 2 || !strstr(out, "started as 2 MPI processes, but this build has no MPI")) FAIL("mpirun rank 0: exit %d:\n%s", rc, out);
  rc = vx_test_run_program("PMI_SIZE=3 PMI_RANK=2", args, out, sizeof out);
  if (rc != 2 || out[0]) FAIL("mpirun rank 2 of 3: exit %d (want 2, silent):\n%s", rc, out);
  FILE *left = fopen(csv, "r");
  if (left) { fclose(left); FAIL("mpirun: %s written", csv); }
  printf("  ok: several MPI processes refused by a build without MPI (exit 2, one line from rank 0)\n");
#endif
  rc = vx_test_run_program("OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0", "--version", out, sizeof out);
  if (rc != 0) FAIL("mpirun -np 1: exit %d:\n%s", rc, out);
  /* --version: one line on stdout, the version and the commit, exit 0 */
  expect("--version", 0, "(commit ");
  if (strncmp(out, "vortexfmm ", 10) || strchr(out, '\n') != out + strlen(out) - 1) FAIL("--version printed:\n%s", out);

  /* a short good run: rows at steps 0, 2, 4 */
  remove(csv);
  snprintf(args, sizeof args, "--headless --scene '%s' --steps 4 --diag '%s' --diag-every 2 --integrator rk2", tiny, csv);
  expect(args, 0, "done: 4 steps");
  /* the closing timing summary: medians over the steps after the 2 warm-up ones (this scene
   * solves by direct summation: no far-field phase line; the cpu backend: no GPU overlap note) */
  if (!strstr(out, "step time, median of 2 steps after 2 warm-up") || strstr(out, "far field per step") ||
      strstr(out, "overlap on the GPU"))
    FAIL("good run: no (or a wrong) closing step-time summary in:\n%s", out);
  int comments = 0;
  if (count_lines(csv, &comments) != 4) FAIL("diagnostics of the good run: %d lines, expected header + 3 rows", count_lines(csv, NULL));
  /* the self-describing preamble: version, commit, scene and parameters as `# key = value` */
  FILE *cf = fopen(csv, "r");
  char head[4096] = "";
  if (!cf) FAIL("cannot read %s", csv);
  else { head[fread(head, 1, sizeof head - 1, cf)] = 0; fclose(cf); }
  if (comments < 20 || strncmp(head, "# vortexfmm diagnostics", 23) || !strstr(head, "\n# version = ") ||
      !strstr(head, "\n# git_commit = ") || !strstr(head, "\n# scene_path = ") || !strstr(head, "\n# integrator = rk2\n") ||
      !strstr(head, "\n# tracers = 10\n") || !strstr(head, "\n# lcfl = ") || !strstr(head, "\nstep,time,"))
    FAIL("diagnostics of the good run: no (or an incomplete) '# key = value' preamble before the header:\n%s", head);

  /* a blow-up: the singular kernel with a huge explicit step */
  remove(csv);
  snprintf(args, sizeof args, "--headless --scene '%s' --steps 50 --dt 5 --kernel singular --integrator euler --diag '%s' --diag-every 1",
           tiny, csv);
  expect(args, 3, "vortexfmm: simulation blew up at step");
  int lines = count_lines(csv, NULL);
  if (lines < 2) FAIL("blow-up run kept %d diagnostics lines, expected the header and at least row 0", lines);
  else printf("  blow-up run kept %d diagnostics lines\n", lines);

  /* SIGTERM (as Ctrl-C) mid-run, once the run has started (its CSV's temporary file exists: the
   * handlers are in place before any output is opened; a stale one from a killed run is removed first), sent
   * twice at once as timeout(1) does (to the process and to its group): one request, so the run
   * stops after its step, the CSV renamed into place, exit 130. dt small enough that the tiny scene
   * (which blows up at t ≈ 31) is far from that in the seconds the test takes. */
  remove(csv);
  {
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "rm -f '%s'.tmp-*; '%s/vortexfmm' --headless --scene '%s' --steps 100000000 --dt 0.0001 --diag '%s' --quiet 2>&1 & p=$!; "
             "i=0; until ls '%s'.tmp-* > /dev/null 2>&1 || [ $i -gt 100 ]; do i=$((i+1)); sleep 0.1; done; sleep 0.3; "
             "kill -TERM $p; kill -TERM $p; wait $p",
             csv, VX_BINARY_DIR, tiny, csv, csv);
    int rc = vx_test_shell(cmd, out, sizeof out);
    lines = count_lines(csv, NULL);
    if (rc != 130 || !strstr(out, "interrupted after step") || lines < 2)
      FAIL("interrupted run: exit %d (want 130), %d diagnostics lines, output:\n%s", rc, lines, out);
    else printf("  ok (exit 130): interrupted run kept %d diagnostics lines\n", lines);
    /* The same under timeout(1), which signals the process and then its group: exit 124 (timeout's),
     * the run's own "interrupted" line, the CSV renamed into place. 10 s: the handlers are in place
     * long before, under the sanitizers too. */
    remove(csv);
    snprintf(cmd, sizeof cmd,
             "timeout 10 '%s/vortexfmm' --headless --scene '%s' --steps 100000000 --dt 0.0001 --diag '%s' --quiet 2>&1",
             VX_BINARY_DIR, tiny, csv);
    rc = vx_test_shell(cmd, out, sizeof out);
    lines = count_lines(csv, NULL);
    if (rc != 124 || !strstr(out, "interrupted after step") || lines < 2)
      FAIL("run under timeout: exit %d (want 124), %d diagnostics lines, output:\n%s", rc, lines, out);
    else printf("  ok (exit 124): a run under timeout kept %d diagnostics lines\n", lines);
  }

  restart_checks(tiny, csv);

  remove(bad);
  remove(tiny);
  remove(csv);
  return vx_test_end("command-line checks passed");
}
