/*
 * claude_timeline - see claude_timeline.h.  One projector for the run's
 * live stream of messages (never mixed with a history read: the two count
 * a message's blocks differently).  The rows of one host message go out
 * in one request at once, without waiting for the answer, so the pipe to
 * the desktop never waits on the timeline.  What a send put in goes
 * through the run's projector too (tl_claude_sent), so its rows are what
 * the saved message gives; a saved message goes through a projector of
 * its own, as a history read's.
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

/* Publish the rows of one message through projector st. */
static void project(struct tl_claude *st, const json_t *msg)
{
	json_t *rows = json_array();
	char err[200];

	if (!rows)
		return;
	if (tl_claude_project(st, msg, rows, err, sizeof err) < 0)
		log_debug(NULL, "timeline: %s", err);
	tl_pub_add(&pub, rows);
	json_decref(rows);
	tl_pub_flush(&pub);
}

void claude_timeline_init(struct hb_client *broker)
{
	tl_claude_init(&projector);
	tl_pub_init(&pub, broker, "claude");
	ready = 1;
}

void claude_timeline_event(const json_t *ev)
{
	const char *name = json_string_value(json_object_get(ev, "event"));

	if (!ready || !name || strcmp(name, "message") != 0)
		return;
	project(&projector, json_object_get(ev, "message"));
}

void claude_timeline_sent(const char *uuid, const char *text)
{
	json_t *rows;

	if (!ready || !uuid || !text || !(rows = json_array()))
		return;
	tl_claude_sent(&projector, uuid, text, rows);
	tl_pub_add(&pub, rows);
	json_decref(rows);
	tl_pub_flush(&pub);
}

void claude_timeline_saved(const json_t *saved)
{
	struct tl_claude history;

	if (!ready || !saved)
		return;
	tl_claude_init(&history);
	project(&history, saved);
	tl_claude_free(&history);
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
