/*
 * access - see access.h.
 */
#include "access.h"

#include <string.h>

const char *const hb_access_levels[HB_ACCESS_LEVELS + 1] = { "read-only", "full-auto", "full-access",
							    "unrestricted", NULL };
static const char *const access_words[HB_ACCESS_LEVELS] = { "read-only access", "full auto", "full access",
							    "unrestricted access" };

int hb_access_rank(const char *access)
{
	for (int i = 0; i < HB_ACCESS_LEVELS; i++)
		if (access && strcmp(access, hb_access_levels[i]) == 0)
			return i;
	return -1;
}

const char *hb_access_words(const char *access)
{
	int r = hb_access_rank(access);

	return r < 0 ? "an unknown access level" : access_words[r];
}
