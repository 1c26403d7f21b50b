/*
 * clock - the monotonic milliseconds every deadline in the project counts
 * in (heartbeats, request limits, polling bounds): never the wall clock,
 * which jumps.
 */
#ifndef HB_CLOCK_H
#define HB_CLOCK_H

long long hb_monotonic_ms(void);

#endif
