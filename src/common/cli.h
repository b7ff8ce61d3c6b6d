/* cli.h — the command-line number parsing shared by the two programs (vortexfmm, vortexfmm-bench):
 * a value is taken only when all of it is a number in range, so "1e", "12abc", "" and overflows
 * are refused with the program's own one-line message. */
#ifndef VX_CLI_H
#define VX_CLI_H

/* An integer in [lo, hi]: 0 with *out, or -1 (not all digits, out of range, overflow). */
int vx_cli_int(const char *s, long long lo, long long hi, long long *out);
/* A finite real number: 0 with *out, or -1. */
int vx_cli_real(const char *s, double *out);

#endif
