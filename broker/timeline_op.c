/*
 * timeline_op - timeline.publish: rows a bridge projected from its agent
 * go out as `timeline.row` events {session, row}.
 *
 * The session is never the caller's word: it is the session of the run
 * the caller opened on this connection (hb-claude-bridge, and
 * hb-codex-bridge's --once and delivered turns), or else of the Codex
 * bridge's attachment (session.attach of its --session), since the
 * desktop opens a Codex turn's run on a connection of its own.  A caller
 * with neither is refused.  Rows are checked whole before any goes out
 * (tl_row_check: the agent is the run's, the ids are that agent's), so a
 * batch is published entirely or refused with the reason; the size is
 * capped so a publisher cannot make the broker parse or fan out more
 * than TL_PUBLISH_MAX at once.
 */
#include "timeline_op.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../timeline/row.h"
#include "events.h"
#include "deliver.h"
#include "log.h"
#include "reply.h"
#include "runs.h"
#include "opfields.h"

/* The caller's session and agent, or NULL. */
static const char *bound_session(struct broker *b, const struct hb_peer *peer, const char **agent)
{
	struct run *r = runs_of_peer(b, peer);
	const char *session;

	/* A stopped run still binds: the rows of its end (the tool result
	 * "Run stopped.", the interrupted reply) come after the stop. */
	if (r) {
		*agent = r->agent;
		return r->session;
	}
	session = deliver_attached_session(b, peer, agent);
	return session && strcmp(*agent, "codex") == 0 ? session : NULL;
}

void timeline_op_publish(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *text = hb_req_str(e, "json"), *agent = "", *session;
	char err[320], why[240], json[48];
	json_t *rows, *row;
	json_error_t jerr;
	struct reqid id;
	size_t i;

	reqid_from_env(&id, e);
	if (!(session = bound_session(b, peer, &agent))) {
		front_reply_err(b, peer, &id, "no-run",
				"timeline.publish needs a run opened on this connection, or a Codex bridge "
				"attached for its session: rows go only to the publisher's own session");
		return;
	}
	if (strlen(text) > TL_PUBLISH_MAX) {
		snprintf(err, sizeof err, "timeline.publish takes at most %u bytes of rows at once; send them "
			 "in smaller batches", TL_PUBLISH_MAX);
		front_reply_err(b, peer, &id, "too-large", err);
		return;
	}
	/* json_is_array is a macro that reads its argument twice: parse first. */
	rows = json_loads(text, 0, &jerr);
	if (!json_is_array(rows)) {
		snprintf(err, sizeof err, "timeline.publish's \"json\" must be a JSON array of rows%s%.200s",
			 rows ? "" : ": ", rows ? "" : jerr.text);
		json_decref(rows);
		front_reply_err(b, peer, &id, "bad-request", err);
		return;
	}
	if (json_array_size(rows) > TL_PUBLISH_ROWS) {
		snprintf(err, sizeof err, "timeline.publish takes at most %d rows at once", TL_PUBLISH_ROWS);
		json_decref(rows);
		front_reply_err(b, peer, &id, "too-large", err);
		return;
	}
	json_array_foreach(rows, i, row)
		if (tl_row_check(row, agent, why, sizeof why) < 0) {
			snprintf(err, sizeof err, "timeline.publish: row %zu refused, none published: %s", i, why);
			log_warn(NULL, "session %s: %s", session, err);
			json_decref(rows);
			front_reply_err(b, peer, &id, "bad-request", err);
			return;
		}
	json_array_foreach(rows, i, row)
		events_publish(b, "timeline.row", json_pack("{s:s, s:O}", "session", session, "row", row));
	snprintf(json, sizeof json, "{\"published\":%zu}", json_array_size(rows));
	json_decref(rows);
	front_reply_ok(b, peer, &id, json);
}
