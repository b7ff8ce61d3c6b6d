/* test_run.h — tests only: run a shell command (e.g. the built vortexfmm) with stdout and stderr
 * captured. One home for what the CLI, checkpoint and render tests do. */
#ifndef VX_TEST_RUN_H
#define VX_TEST_RUN_H

#include <stdio.h>
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

#endif
