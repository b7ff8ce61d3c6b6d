/* clock.h — the one wall clock of the project: monotonic milliseconds, for step, frame and phase
 * timings (vortex/, render/, the programs). */
#ifndef VX_CLOCK_H
#define VX_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds on CLOCK_MONOTONIC (an arbitrary origin; differences only). */
double vx_clock_ms(void);

#ifdef __cplusplus
}
#endif
#endif
