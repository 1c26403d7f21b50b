/*
 * clock - see clock.h.  CLOCK_MONOTONIC is POSIX, so this needs no seam
 * for macOS.
 */
#include "clock.h"

#include <time.h>

long long hb_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
