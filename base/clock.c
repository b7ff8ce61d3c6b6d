/* clock.c — monotonic milliseconds (clock.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "clock.h"

#include <time.h>

double vx_clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}
