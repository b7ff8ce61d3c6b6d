/* test_run.h — tests only: run a shell command, or the vortexfmm built beside the tests, with
 * stdout and stderr captured, and read the program's answer about headless OpenGL. One home for
 * what the CLI, checkpoint, VTK and render tests do. Needs _POSIX_C_SOURCE >= 2 (popen), defined
 * before the first #include. */
#ifndef VX_TEST_RUN_H
#define VX_TEST_RUN_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* cmd's output into out (NUL-terminated, cut at cap); its exit code, or -1 when it could not run
 * or ended by a signal (a crash). Append 2>&1 to cmd for stderr. */
static inline int vx_test_shell(const char *cmd, char *out, size_t cap) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The file at path into buf (NUL-terminated, cut at cap); the bytes read, or -1 when it cannot be opened. */
static inline long vx_test_read_file(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
  return (long)n;
}

/* A diagnostics CSV's text (vortexfmm --diag): the row of step k (the line after the header whose
 * first field is k), or NULL; field j (0-based) of a line as a number (NaN when absent). */
static inline const char *vx_test_csv_row(const char *text, long long k) {
  char key[32];
  snprintf(key, sizeof key, "\n%lld,", k);
  const char *hdr = strstr(text, "\nstep,");
  const char *r = strstr(hdr ? hdr : text, key);
  return r ? r + 1 : NULL;
}
/* The index of column name in the CSV header line hdr, or -1. */
static inline int vx_test_csv_column(const char *hdr, const char *name) {
  int i = 0;
  size_t n = strlen(name);
  for (const char *p = hdr; p; p = strchr(p, ','), p = p ? p + 1 : NULL, ++i)
    if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\n' || p[n] == 0)) return i;
  return -1;
}
static inline double vx_test_csv_field(const char *line, int j) {
  for (int i = 0; i < j && line; ++i) {
    line = strchr(line, ',');
    if (line) ++line;
  }
  return line ? strtod(line, NULL) : NAN;
}

#ifdef VX_BINARY_DIR /* tests/CMakeLists.txt defines it for every test */
/* `prefix 'VX_BINARY_DIR/vortexfmm' args 2>&1`: prefix is what goes before the program ("" for
 * nothing; e.g. "VX_EGL=none", "xvfb-run -a", "cd DIR &&"); output and exit code as vx_test_shell
 * (-1 also for a command line too long to build). */
static inline int vx_test_run_program(const char *prefix, const char *args, char *out, size_t cap) {
  char cmd[8192];
  int len = snprintf(cmd, sizeof cmd, "%s '%s/vortexfmm' %s 2>&1", prefix, VX_BINARY_DIR, args);
  if (len < 0 || (size_t)len >= sizeof cmd) {
    snprintf(out, cap, "test: the command line for 'vortexfmm %.200s' is too long\n", args);
    return -1;
  }
  return vx_test_shell(cmd, out, cap);
}
#endif

/* The program's own answer when EGL gives no headless OpenGL context (render/headless.c: exit 1 and
 * this line; test_render_errors forces it with VX_EGL=none). Only this lets a headless test skip;
 * any other failure, a crash included, fails it. */
#define VX_TEST_NO_EGL_LINE "cannot create a headless OpenGL context through EGL"
static inline int vx_test_no_egl(int rc, const char *out) {
  return rc == 1 && strstr(out, VX_TEST_NO_EGL_LINE) != NULL;
}

#ifdef VX_BINARY_DIR
/* Can the program render headless here, and how? Runs `vortexfmm args` (a small --headless probe)
 * with nothing before it, and when EGL gives no context (vx_test_no_egl) through `xvfb-run -a`
 * (EGL's default display on X11). 0: it renders, and *prefix is what to put before the program
 * ("" or "xvfb-run -a"); 77: neither gives a context (the caller says SKIP; out holds the last
 * answer); -1: the probe failed otherwise (a crash included), said here as FAIL. */
static inline int vx_test_headless_probe(const char *args, const char **prefix, char *out, size_t cap) {
  *prefix = "";
  int rc = vx_test_run_program(*prefix, args, out, cap);
  if (rc == 0) return 0;
  if (!vx_test_no_egl(rc, out)) {
    printf("FAIL: the headless probe failed otherwise than for want of an EGL context (exit %d):\n%s", rc, out);
    return -1;
  }
  printf("  EGL gave no context (exit %d): %s", rc, out);
  if (system("command -v xvfb-run > /dev/null 2>&1") != 0) return 77;
  *prefix = "xvfb-run -a";
  rc = vx_test_run_program(*prefix, args, out, cap);
  if (vx_test_no_egl(rc, out) || (rc != 0 && strstr(out, "xvfb-run: error"))) return 77;
  if (rc != 0) {
    printf("FAIL: the probe under xvfb-run failed otherwise than for want of a context (exit %d):\n%s", rc, out);
    return -1;
  }
  printf("  rendering through xvfb-run\n");
  return 0;
}
#endif

#ifdef VX_TEST_HAVE_MPI
/* The program built beside the tests under mpiexec with np processes (the build's flags); its exit code,
 * stdout and stderr into out. */
static inline int vx_test_run_np(int np, const char *args, char *out, size_t cap) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s %d %s '%s/vortexfmm' %s 2>&1", VX_MPIEXEC, np, VX_MPIEXEC_FLAGS, VX_BINARY_DIR, args);
  return vx_test_shell(cmd, out, cap);
}
#endif

/* How many times `what` occurs in text (a line said once, and only once). */
static inline int vx_test_count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

#endif
