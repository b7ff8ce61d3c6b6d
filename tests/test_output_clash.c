/* test_output_clash.c — outputs never overwrite inputs or each other (src/vortexfmm/app_paths.c):
 * each output option (--diag, --checkpoint, the default checkpoint of --checkpoint-every, --vtk-dir;
 * --record, --screenshot, --png-dir where the build renders) given the --scene file's or the
 * --restart file's path, through another spelling of it or a symbolic link, is refused with exit 2
 * before anything is written, and the input stays byte for byte as it was; two outputs given one
 * path are refused the same way, and so is an empty path. Works on copies in a fresh directory.
 * Runs the program built beside the tests (VX_BINARY_DIR/vortexfmm). Run: ctest -R output_clash */
#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp, symlink */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_run.h"
#include "test_check.h"

static char out[16384];
static char dir[512];

/* The whole of a file into a malloc'ed buffer (*n bytes); NULL when unreadable. */
static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = NULL;
  size_t cap = 0;
  *n = 0;
  for (;;) {
    if (*n == cap && !(b = realloc(b, cap = cap ? 2 * cap : 4096))) break;
    size_t k = fread(b + *n, 1, cap - *n, f);
    *n += k;
    if (k == 0) break;
  }
  fclose(f);
  return b;
}

/* `cd dir && vortexfmm args` must exit 2 with `want` in its output and leave input as `before`. */
static void refused(const char *args, const char *want, const char *input, const char *before, size_t nb) {
  char prefix[600];
  snprintf(prefix, sizeof prefix, "cd '%s' &&", dir);
  int rc = vx_test_run_program(prefix, args, out, sizeof out);
  size_t na = 0;
  char *after = input ? slurp(input, &na) : NULL;
  if (rc != 2 || !strstr(out, want)) FAIL("'%s': exit %d (want 2), output:\n%s(wanted '%s')", args, rc, out, want);
  else if (input && (!after || na != nb || memcmp(after, before, nb))) FAIL("'%s': %s changed", args, input);
  else printf("  ok (exit 2): vortexfmm %s\n", args);
  free(after);
}

/* Whether the build renders headless here (else the rendering outputs' cases are skipped). */
static int can_render(void) {
  char prefix[600];
  snprintf(prefix, sizeof prefix, "cd '%s' &&", dir);
  int rc = vx_test_run_program(prefix, "--headless --scene s.scene --frames 1 --size 16x16 --quiet --screenshot probe.png", out,
                               sizeof out);
  if (rc == 0) return 1;
  printf("  skip the rendering outputs (--record, --screenshot, --png-dir): %s", out);
  return 0;
}

int main(void) {
  snprintf(dir, sizeof dir, "%s/test_output_clash_XXXXXX", VX_BINARY_DIR);
  if (!mkdtemp(dir)) { printf("FAIL: mkdtemp %s: %s\n", dir, strerror(errno)); return EXIT_FAILURE; }
  char cmd[2048], scene[700], ckpt[700];
  snprintf(cmd, sizeof cmd, "cp '%s/../tests/bad_inputs/ok.scene' '%s/s.scene' && cd '%s' && ln -s s.scene link.scene && "
           "'%s/vortexfmm' --headless --scene s.scene --steps 2 --tracers 0 --quiet --checkpoint r.ckpt 2>&1",
           VX_ASSETS_DIR, dir, dir, VX_BINARY_DIR);
  if (vx_test_shell(cmd, out, sizeof out)) { printf("FAIL: setting up %s:\n%s", dir, out); return EXIT_FAILURE; }
  snprintf(scene, sizeof scene, "%s/s.scene", dir);
  snprintf(ckpt, sizeof ckpt, "%s/r.ckpt", dir);
  size_t ns = 0, nc = 0;
  char *s0 = slurp(scene, &ns), *c0 = slurp(ckpt, &nc);
  if (!s0 || !c0) { printf("FAIL: cannot read %s or %s\n", scene, ckpt); return EXIT_FAILURE; }
  const char *batch = "--headless --scene s.scene --steps 1 --tracers 0 --quiet";
  const char *rest = "--headless --restart r.ckpt --steps 3 --quiet";
  static const char *file_opts[] = {"--diag", "--checkpoint", "--vtk-dir"};
  char args[1024], want[256];
  for (int i = 0; i < 3; ++i) { /* the batch outputs against the scene (three spellings) and the checkpoint */
    const char *spell[] = {"s.scene", "./s.scene", "link.scene"};
    for (int k = 0; k < 3; ++k) {
      snprintf(args, sizeof args, "%s %s %s", batch, file_opts[i], spell[k]);
      snprintf(want, sizeof want, "%s %s is the file given to --scene: choose another path", file_opts[i], spell[k]);
      refused(args, want, scene, s0, ns);
    }
    snprintf(args, sizeof args, "%s %s r.ckpt", rest, file_opts[i]);
    snprintf(want, sizeof want, "%s r.ckpt is the file given to --restart: choose another path", file_opts[i]);
    refused(args, want, ckpt, c0, nc);
  }
  /* --checkpoint-every's default file, SCENE.ckpt in the working directory: the restart's file */
  snprintf(cmd, sizeof cmd, "cp '%s' '%s/ok.ckpt'", ckpt, dir);
  if (vx_test_shell(cmd, out, sizeof out)) FAIL("cannot copy %s", ckpt);
  snprintf(args, sizeof args, "--headless --restart ok.ckpt --steps 3 --quiet --checkpoint-every 1");
  snprintf(cmd, sizeof cmd, "%s/ok.ckpt", dir);
  refused(args, "--checkpoint-every's default file ok.ckpt is the file given to --restart", cmd, c0, nc);
  /* two outputs, one path; an empty path */
  refused("--headless --scene s.scene --steps 1 --tracers 0 --quiet --diag o.csv --checkpoint ./o.csv",
          "--diag o.csv is the file given to --checkpoint: choose another path", NULL, NULL, 0);
  refused("--headless --scene s.scene --steps 1 --tracers 0 --quiet --vtk-dir v --diag v/ok_000001.vtp",
          "--diag v/ok_000001.vtp is a file that --vtk-dir v writes", NULL, NULL, 0);
  refused("--headless --scene s.scene --steps 1 --tracers 0 --quiet --diag ''", "--diag: empty path", NULL, NULL, 0);
  if (!access((snprintf(cmd, sizeof cmd, "%s/o.csv", dir), cmd), F_OK)) FAIL("%s written by a refused run", cmd);
  if (can_render()) {
    static const char *render_opts[] = {"--record", "--screenshot", "--png-dir"};
    for (int i = 0; i < 3; ++i) {
      snprintf(args, sizeof args, "--headless --scene s.scene --frames 1 --size 64x48 --quiet %s ./s.scene", render_opts[i]);
      snprintf(want, sizeof want, "%s ./s.scene is the file given to --scene: choose another path", render_opts[i]);
      refused(args, want, scene, s0, ns);
    }
    refused("--headless --scene s.scene --frames 1 --size 64x48 --quiet --record o.mp4 --screenshot o.mp4",
            "--screenshot o.mp4 is the file given to --record: choose another path", NULL, NULL, 0);
  }
  free(s0);
  free(c0);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) printf("(could not remove %s)\n", dir);
  return vx_test_end("every clash refused with exit 2, the inputs unchanged");
}
