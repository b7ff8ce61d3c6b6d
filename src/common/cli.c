/* cli.c — the command-line number parsing shared by vortexfmm and vortexfmm-bench (cli.h). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int vx_cli_int(const char *s, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0' || errno || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int vx_cli_real(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno || !isfinite(v)) return -1;
  *out = v;
  return 0;
}
