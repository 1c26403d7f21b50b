/*
 * failpoint - see failpoint.h.  unlink() decides who crashes: of two
 * threads that reach the same point only one removes the file.
 */
#include "failpoint.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"

void hb_failpoint(const char *name)
{
	const char *dir = getenv("HB_FAILPOINTS");
	char path[1024];

	if (!dir || !*dir)
		return;
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path || unlink(path) < 0)
		return;
	log_warn(NULL, "failpoint %s: killing this process (a test asked for it)", name);
	raise(SIGKILL);
}
