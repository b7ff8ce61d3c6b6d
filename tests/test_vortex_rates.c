/* test_vortex_rates.c — vx_control_rates_for_dt: a new step keeps relaxation's and remeshing's
 * rates in time (the window applies it when the panel's dt changes).
 * The relaxation's pull over a time span is the same at either step, ((1 − f')^(T/dt') =
 * (1 − f)^(T/dt) to 1e-12 relative over a thousand steps), the remeshing interval scales with 1/dt and is rounded (at least 1, off
 * stays off), f = 0 and f = 1 stay, a round trip gives f back, and steps that are not positive and
 * finite change nothing. Run: ctest -R vortex_rates */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"
#include "test_check.h"

static void rates(double dt, double dt_new, double f, int k, double *f2, int *k2) {
  *f2 = f, *k2 = k;
  vx_control_rates_for_dt(dt, dt_new, f2, k2);
}

int main(void) {
  double f;
  int k;
  /* the merger scene's controls (relax 0.3 a step, remeshing every 25 steps at dt 0.002) */
  rates(0.002, 0.001, 0.3, 25, &f, &k);
  EXPECT(fabs(f - (1.0 - sqrt(0.7))) < 1e-15 && k == 50, "halved: f %.17g (want 1 - sqrt(0.7)), K %d (want 50)", f, k);
  const double pull = pow(1.0 - f, 1000.0) / pow(0.7, 500.0); /* what is left of the misalignment after one time unit */
  EXPECT(fabs(pull - 1.0) < 1e-12, "halved: the pull over one time unit differs by %.3g", pull - 1.0);
  rates(0.002, 0.003, 0.3, 25, &f, &k);
  EXPECT(fabs(f - (1.0 - pow(0.7, 1.5))) < 1e-15 && k == 17, "x1.5: f %.17g, K %d (want 17 = round(16.67))", f, k);
  double back;
  int kb;
  rates(0.003, 0.002, f, k, &back, &kb);
  EXPECT(fabs(back - 0.3) < 1e-15, "round trip: f %.17g (want 0.3)", back);
  rates(0.001, 0.004, 0.3, 1, &f, &k);
  EXPECT(k == 1, "x4 at K = 1: K %d (want 1, the least)", k);
  rates(0.002, 0.001, 0.0, 0, &f, &k);
  EXPECT(f == 0.0 && k == 0, "off stays off: f %g, K %d", f, k);
  rates(0.002, 0.001, 1.0, 3, &f, &k);
  EXPECT(f == 1.0 && k == 6, "f = 1 stays (full relaxation): f %g, K %d", f, k);
  const double bad[] = {0.0, -0.001, NAN, INFINITY};
  for (int i = 0; i < 4; ++i) {
    rates(bad[i], 0.001, 0.3, 25, &f, &k);
    EXPECT(f == 0.3 && k == 25, "dt %g: changed (f %g, K %d)", bad[i], f, k);
    rates(0.001, bad[i], 0.3, 25, &f, &k);
    EXPECT(f == 0.3 && k == 25, "dt_new %g: changed (f %g, K %d)", bad[i], f, k);
  }
  if (failures) return EXIT_FAILURE;
  printf("control rates: all checks passed\n");
  return EXIT_SUCCESS;
}
