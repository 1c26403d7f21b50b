/*
 * envvar - a malformed or out-of-range value falls back to the default
 * rather than failing: these are tuning knobs, mostly set by tests.
 */
#include "envvar.h"

#include <stdlib.h>

int hb_getenv_int(const char *name, int dflt, int min, int max)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return dflt;
	n = strtol(v, &end, 10);
	return *end || n < min || n > max ? dflt : (int)n;
}
