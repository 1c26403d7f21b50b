/*
 * claude_once - see claude_once.h.  The decision only: claude.c closes
 * the run the usual way (close to the host, its 10 s, the process group,
 * session.detach, run.close) when told to.  A message handed while the
 * close has begun is not taken (the bridge has detached): svc-messages
 * asks again, and the broker starts the next bridge for it.
 */
#include "claude_once.h"

#include <string.h>

#include "clock.h"
#include "log.h"

void claude_once_init(struct claude_once *o, int on, int idle_ms)
{
	memset(o, 0, sizeof *o);
	o->on = on;
	o->idle_ms = idle_ms;
}

void claude_once_opened(struct claude_once *o)
{
	if (!o->on || o->opened)
		return;
	o->opened = 1;
	o->idle_deadline_ms = hb_monotonic_ms() + o->idle_ms;
}

void claude_once_handed(struct claude_once *o)
{
	o->handed = 1;
}

long long claude_once_tick(struct claude_once *o, int in_flight)
{
	long long left;

	if (!o->on || !o->opened || in_flight)
		return -1;
	if (o->handed) {
		log_info(NULL, "the turns the messages started are idle and no delivery waits: closing the run");
		return -2;
	}
	if ((left = o->idle_deadline_ms - hb_monotonic_ms()) > 0)
		return left;
	log_info(NULL, "nothing was handed to this run within %d ms of its open: closing it", o->idle_ms);
	return -2;
}
