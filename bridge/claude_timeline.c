/*
 * claude_timeline - see claude_timeline.h.  One projector for the run's
 * live stream of messages (never mixed with a history read: the two count
 * a message's blocks differently).  The rows of one host message go out
 * in one request at once, without waiting for the answer, so the pipe to
 * the desktop never waits on the timeline.
 *
 * The state is this file's own, one per process: a bridge carries exactly
 * one run, and keeping it here leaves claude.c's own state alone.
 */
#include "claude_timeline.h"

#include <string.h>

#include "../timeline/project.h"
#include "log.h"
#include "timeline_pub.h"

static struct tl_claude projector;
static struct tl_pub pub;
static int ready;

void claude_timeline_init(struct hb_client *broker)
{
	tl_claude_init(&projector);
	tl_pub_init(&pub, broker, "claude");
	ready = 1;
}

void claude_timeline_event(const json_t *ev)
{
	const char *name = json_string_value(json_object_get(ev, "event"));
	json_t *rows;
	char err[200];

	if (!ready || !name || strcmp(name, "message") != 0 || !(rows = json_array()))
		return;
	if (tl_claude_project(&projector, json_object_get(ev, "message"), rows, err, sizeof err) < 0)
		log_debug(NULL, "timeline: %s", err);
	tl_pub_add(&pub, rows);
	json_decref(rows);
	tl_pub_flush(&pub);
}

void claude_timeline_free(void)
{
	if (!ready)
		return;
	tl_pub_flush(&pub);
	tl_pub_free(&pub);
	tl_claude_free(&projector);
	ready = 0;
}
