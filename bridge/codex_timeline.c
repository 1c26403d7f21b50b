/*
 * codex_timeline - hb-codex-bridge's part of the shared timeline
 * (docs/timeline.md): the server's notifications of the session's threads
 * through the Codex projectors (timeline/codex_threads.c: one per thread,
 * with its depth), the rows published once per wake-up of the pump.
 *
 * Only a bridge with --session publishes (the broker binds the rows to
 * that session's attachment; an unlinked thread has no session to show
 * in).
 */
#include <stdio.h>
#include <string.h>

#include "codex_bridge.h"
#include "log.h"

void codex_timeline_init(struct bridge *br)
{
	tl_codex_threads_init(&br->tl_threads);
	tl_pub_init(&br->tl_pub, br->session && br->broker_ok ? &br->broker : NULL, "codex");
}

void codex_timeline_thread(struct bridge *br, const char *thread, const char *parent)
{
	if (br->tl_pub.broker)
		tl_codex_threads_link(&br->tl_threads, thread, parent);
}

void codex_timeline_note(struct bridge *br, const json_t *msg)
{
	int refused = br->tl_threads.full;
	json_t *rows;
	char err[300];

	/* Notifications only: a request of the server has an id. */
	if (!br->tl_pub.broker || json_object_get(msg, "id") || !(rows = json_array()))
		return;
	if (tl_codex_threads_project(&br->tl_threads, msg, rows, err, sizeof err) < 0) {
		if (!refused && br->tl_threads.full)	/* the first thread past the bound */
			log_warn(NULL, "%s", err);
		else
			log_debug(NULL, "timeline: %s", err);
	}
	tl_pub_add(&br->tl_pub, rows);
	json_decref(rows);
}

void codex_timeline_flush(struct bridge *br)
{
	tl_pub_flush(&br->tl_pub);
}

void codex_timeline_free(struct bridge *br)
{
	tl_pub_flush(&br->tl_pub);
	tl_codex_threads_free(&br->tl_threads);
	tl_pub_free(&br->tl_pub);
}
