/*
 * reap - see reap.h.  A pid the table does not hold was a child whose
 * exec failed (child_start said so at once, and nothing was added); it is
 * reaped and forgotten.
 */
#include "reap.h"

#include <sys/wait.h>

#include "launch.h"
#include "log.h"
#include "supervise.h"

void broker_reap(struct broker *b)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct broker_child *e = children_find(b, pid, -1);

		if (!e) {
			log_debug(NULL, "reaped pid %ld, which is no child it lists", (long)pid);
			continue;
		}
		children_remove(e);
		switch (e->type) {
		case CHILD_SERVICE:
			supervisor_instance_ended(b, e->owner, status);
			break;
		case CHILD_LAUNCH:
			launch_ended(b, e->owner, status);
			break;
		}
	}
	supervisor_check_lost(b);
}
