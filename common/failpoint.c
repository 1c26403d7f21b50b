/*
 * failpoint - see failpoint.h.  unlink() decides who crashes: of two
 * threads that reach the same point only one removes the file.
 */
#include "failpoint.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
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

void hb_holdpoint(const char *name, const atomic_int *release)
{
	const char *dir = getenv("HB_FAILPOINTS");
	char hold[1024], reached[1024];
	int fd;

	if (!dir || !*dir)
		return;
	if (snprintf(hold, sizeof hold, "%s/%s.hold", dir, name) >= (int)sizeof hold ||
	    snprintf(reached, sizeof reached, "%s/%s.reached", dir, name) >= (int)sizeof reached ||
	    access(hold, F_OK) < 0)
		return;
	log_warn(NULL, "holdpoint %s: waiting until a test lets go", name);
	if ((fd = open(reached, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0)
		close(fd);
	for (int i = 0; i < 1200 && access(hold, F_OK) == 0 && !(release && atomic_load(release)); i++) {
		struct timespec ts = { 0, 50 * 1000000L };
		nanosleep(&ts, NULL);
	}
}
