/*
 * invariant - see invariant.h.  The environment is read at the failure,
 * not cached: a break is rare, and nothing is kept between calls.
 */
#include "invariant.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

void hb_assert_failed(const char *cond, const char *file, int line, const char *func)
{
	const char *abort_env = getenv("HB_ASSERT_ABORT");

	log_error(NULL, "invariant broken at %s:%d (%s): %s", file, line, func, cond);
	if (abort_env && strcmp(abort_env, "1") == 0)
		abort();
}
