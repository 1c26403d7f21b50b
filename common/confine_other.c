/*
 * confine_other - the seam of confine.h where the system has neither
 * Landlock nor seccomp (macOS): nothing is applied, and the log says so.
 * A sandbox profile (sandbox_init) is the way to go there; until it is
 * written, the per-family processes still keep a crash inside one family.
 */
#ifndef __linux__

#include "confine.h"

#include "log.h"

int hb_confine_apply(const struct hb_confine *c, char *err, size_t errlen)
{
	(void)c;
	(void)err;
	(void)errlen;
	log_warn(NULL, "confine: not applied on this system (no Landlock or seccomp); see docs/confinement.md");
	return 0;
}

int hb_confine_seal(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return 0;
}

#endif
