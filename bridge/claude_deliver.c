/*
 * claude_deliver - see claude_deliver.h.  The host refuses `send` with
 * `busy` while a turn runs; the bridge watches session_state_changed
 * (running, idle) to know when to try, and a refusal only puts the
 * message back at the head of the queue until the next idle.  A desktop
 * send answered with success counts as busy at once: the host answers it
 * before its turn's `running`, and a message slipped in between would be
 * refused anyway.  Until the message that went in last is proven (or
 * judged unconfirmed at the end of its turn), the next one waits: one
 * message's proof at a time, and one transcript read in flight.
 */
#include "claude_deliver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claude_history.h"
#include "claude_host_client.h"
#include "claude_lastread.h"
#include "claude_timeline.h"
#include "clock.h"
#include "lines.h"
#include "rpc_frame.h"
#include "log.h"
#include "sha256.h"

#define READ_SUFFIX "#history"
/* Beyond the bridge's own limits, for a report on a busy machine. */
#define OUTCOME_SLACK_MS 5000

void claude_deliver_init(struct claude_deliver *cd, struct hb_client *broker, const char *session,
			 int first_send_ms)
{
	memset(cd, 0, sizeof *cd);
	deliveries_init(&cd->dl, broker, session, "claude");
	cd->host_in = -1;
	cd->first_pending = 1;
	cd->first_send_ms = first_send_ms;
}

void claude_deliver_headless(struct claude_deliver *cd)
{
	cd->first_pending = 0;
}

static void not_done(void *value, void *arg)
{
	const struct delivery *x = value;

	if (x->state != DELIVERY_DONE)
		*(int *)arg = 1;
}

int claude_deliver_in_flight(struct claude_deliver *cd)
{
	int waiting = cd->busy || cd->working;

	if (!waiting)
		hb_map_each(&cd->dl.by_op, not_done, &waiting);
	return waiting;
}

/* The same operation id always gives the same message uuid (a version 8
 * UUID from its SHA-256), so the transcript can be searched for it. */
static void message_uuid(const char *op_id, char out[37])
{
	unsigned char h[HB_SHA256_LEN];

	hb_sha256(op_id, strlen(op_id), h);
	h[6] = (unsigned char)((h[6] & 0x0f) | 0x80);
	h[8] = (unsigned char)((h[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", h[0], h[1], h[2],
		 h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11], h[12], h[13], h[14], h[15]);
}

static int write_json(int fd, json_t *v)
{
	int rc = rpc_frame_write(fd, v);

	if (rc < 0)
		log_warn(NULL, "cannot write a line to the agent host");
	return rc;
}

/* One page of the transcript, looking for x's message. */
static void read_page(struct claude_deliver *cd, struct delivery *x, const char *before)
{
	char id[80];
	json_t *req;

	snprintf(id, sizeof id, "%s" READ_SUFFIX, x->op_id);
	req = claude_history_request(id, cd->claude_session, cd->cwd, before);
	if (write_json(cd->host_in, req) < 0)
		log_warn(x->op_id, "the transcript read could not be asked for");
	json_decref(req);
}

static void start_read(struct claude_deliver *cd, struct delivery *x, const char *why)
{
	log_info(x->op_id, "reading the transcript (%s)", why);
	cd->reading = x;
	cd->read_final = x == cd->proving && cd->ended;
	cd->read_again = 0;
	cd->pages = 1;
	cd->reloads = 0;
	read_page(cd, x, NULL);
}

/* A reason to read the transcript for the message that went in last;
 * final: its turn or the run ended. */
static void want_read(struct claude_deliver *cd, int final, const char *why)
{
	if (!cd->proving)
		return;
	if (final)
		cd->ended = 1;
	if (cd->reading || cd->host_in < 0)
		cd->read_again = 1;
	else
		start_read(cd, cd->proving, why);
}

static void pump(struct claude_deliver *cd)
{
	struct delivery *x;
	char uuid[37];
	json_t *req;

	if (cd->reading || cd->proving || cd->working || cd->closing || cd->host_in < 0)
		return;
	/* A handed one is looked for first; a read may run beside a turn. */
	if (cd->dl.queue && cd->dl.queue->check_history) {
		x = deliveries_next(&cd->dl);
		x->state = DELIVERY_WORKING;
		start_read(cd, x, "an earlier bridge took this message: is it in already?");
		return;
	}
	/* A desktop send in flight will start a turn: a message sent now
	 * would take its place and the desktop would get `busy`. */
	if (cd->busy || cd->first_pending || cd->desktop_sends || !(x = deliveries_next(&cd->dl)))
		return;
	x->state = DELIVERY_WORKING;
	cd->working = x;
	message_uuid(x->op_id, uuid);
	req = claude_host_send(json_string(x->op_id), x->text, uuid);
	if (write_json(cd->host_in, req) < 0) {
		/* Not even written (the host is gone): it did not go in. */
		cd->working = NULL;
		deliveries_finish(&cd->dl, x, 0, NULL, "the agent host could not be written to");
	} else {
		log_info(x->op_id, "sent into the Claude conversation as message %s", uuid);
	}
	json_decref(req);
}

/* Nothing waits for a proof any more: a closing bridge may detach now
 * (one left for the read after the host, claude_deliver_host_gone, needs
 * the attachment for its report). */
static void proof_settled(struct claude_deliver *cd)
{
	if (cd->closing && claude_deliver_settled(cd) && !cd->proving)
		deliveries_detach(&cd->dl, 0);
}

static void proven(struct claude_deliver *cd, struct delivery *x, const char *uuid)
{
	if (x == cd->proving) {
		cd->proving = NULL;
		log_info(x->op_id, "a transcript read found message %s: delivered", uuid);
	} else {
		log_info(x->op_id, "already in the Claude conversation (message %s): not sent again", uuid);
	}
	deliveries_finish(&cd->dl, x, 1, uuid, NULL);
	proof_settled(cd);
}

static void unconfirmed(struct claude_deliver *cd, const char *why)
{
	struct delivery *x = cd->proving;

	cd->proving = NULL;
	deliveries_unconfirmed(&cd->dl, x, why);
	proof_settled(cd);
}

/* The read found nothing (or could not look: why). */
static void not_found(struct claude_deliver *cd, struct delivery *x, const char *why)
{
	if (x != cd->proving) {
		/* A handed one that is not in the conversation: it goes in. */
		if (why)
			log_warn(x->op_id, "cannot read the transcript (%s); delivering", why);
		else
			log_info(x->op_id, "not in the Claude conversation: it goes in");
		x->check_history = 0;
		deliveries_requeue(&cd->dl, x);
		return;
	}
	if (why)
		snprintf(cd->why_not, sizeof cd->why_not, "the transcript could not be read: %s", why);
	else
		snprintf(cd->why_not, sizeof cd->why_not, "no read of the transcript found message %s", cd->uuid);
	if (cd->read_again && cd->host_in >= 0)
		start_read(cd, x, cd->ended ? "the final read" : "once more");
	else if (cd->read_final && cd->closing) {
		/* Claude Code saves its transcript behind the turn: a close soon
		 * after the send can read before the message is there.  Once
		 * Claude Code has ended it has written all it will; a new host
		 * reads then (claude_deliver_host_gone). */
		log_info(x->op_id, "not in the transcript yet; read again once the agent host has ended");
		cd->after_host = 1;
	} else if (cd->read_final)
		unconfirmed(cd, cd->why_not);
	/* else: the next frame that names it, or the end, reads again */
}

static void on_read(struct claude_deliver *cd, const char *op_id, json_t *msg)
{
	struct delivery *x = cd->reading;
	char before[64], uuid[37];
	const char *why;

	if (!x || strcmp(x->op_id, op_id) != 0)
		return; /* a read we gave up on */
	message_uuid(x->op_id, uuid);
	switch (claude_history_judge(msg, uuid, before, sizeof before, &why)) {
	case CLAUDE_HISTORY_FOUND:
		cd->reading = NULL;
		/* Page 003: the saved row appears first (in place of the live
		 * one, the same id), then the delivery is reported. */
		if (x == cd->proving)
			claude_timeline_saved(claude_history_message(msg, uuid));
		proven(cd, x, uuid);
		break;
	case CLAUDE_HISTORY_MORE:
		if (cd->pages < CLAUDE_HISTORY_MAX_PAGES && cd->host_in >= 0) {
			cd->pages++;
			read_page(cd, x, before);
			return;
		}
		cd->reading = NULL;
		not_found(cd, x, NULL);
		break;
	case CLAUDE_HISTORY_RELOAD:
		/* The transcript changed under the pages (compacted): again
		 * from the newest, a few times at most. */
		if (cd->reloads < 3 && cd->host_in >= 0) {
			cd->reloads++;
			cd->pages = 1;
			read_page(cd, x, NULL);
			return;
		}
		cd->reading = NULL;
		not_found(cd, x, NULL);
		break;
	case CLAUDE_HISTORY_ABSENT:
	case CLAUDE_HISTORY_ERROR:
		cd->reading = NULL;
		not_found(cd, x, why);
		break;
	}
	pump(cd);
}

static void on_send_answer(struct claude_deliver *cd, json_t *msg)
{
	struct delivery *x = cd->working;
	json_t *err = json_object_get(msg, "error");
	const char *code = json_string_value(json_object_get(err, "code"));
	const char *why = json_string_value(json_object_get(err, "message"));

	if (!x || strcmp(x->op_id, json_string_value(json_object_get(msg, "id"))) != 0)
		return;
	cd->working = NULL;
	if (!err) {
		/* Accepted is not delivered: the transcript has to show it. */
		cd->busy = 1; /* the turn it started runs until idle */
		cd->proving = x;
		message_uuid(x->op_id, cd->uuid);
		cd->saw_frame = cd->named = cd->ended = 0;
		cd->why_not[0] = '\0';
		cd->after_host = 0;
		/* Its turn and its agent communication row, live. */
		claude_timeline_sent(cd->uuid, x->text);
		if (cd->closing)
			want_read(cd, 1, "the bridge closes");
	} else if (code && strcmp(code, "busy") == 0) {
		cd->busy = 1;
		deliveries_requeue(&cd->dl, x);
	} else {
		deliveries_finish(&cd->dl, x, 0, NULL, why ? why : "the agent host refused send");
		proof_settled(cd);
	}
	pump(cd);
}

/* A frame that names our message as the user message its turn answers
 * (user_message_uuid, or the list user_message_uuids).  Claude Code
 * 2.1.332, inside the pinned SDK, stamps neither on its frames (an "older
 * producer" in sdk.d.ts' words); there the turn's first top-level
 * assistant message, the frame that would carry the stamp, stands for it:
 * the bridge sends only into an idle session, so the turn answers ours. */
static int names_message(json_t *m, const char *uuid)
{
	json_t *one = json_object_get(m, "user_message_uuid"), *u;
	const char *type = json_string_value(json_object_get(m, "type"));
	size_t i;

	if (json_is_string(one) && strcmp(json_string_value(one), uuid) == 0)
		return 1;
	json_array_foreach(json_object_get(m, "user_message_uuids"), i, u)
		if (json_is_string(u) && strcmp(json_string_value(u), uuid) == 0)
			return 1;
	return !one && type && strcmp(type, "assistant") == 0 && json_is_null(json_object_get(m, "parent_tool_use_id"));
}

static void on_event(struct claude_deliver *cd, json_t *msg)
{
	json_t *m = json_object_get(msg, "message");
	const char *ev = json_string_value(json_object_get(msg, "event"));
	const char *subtype = json_string_value(json_object_get(m, "subtype"));
	const char *state = json_string_value(json_object_get(m, "state"));
	int idle = 0;

	if (subtype && state && strcmp(subtype, "session_state_changed") == 0) {
		cd->busy = strcmp(state, "idle") != 0;
		idle = !cd->busy;
	}
	if (cd->proving) {
		/* Page 003: Claude saves the user message before it calls the
		 * model, so the first frame after the send starts one read... */
		if (!cd->saw_frame) {
			cd->saw_frame = 1;
			want_read(cd, 0, "the first frame after the send");
		}
		/* ...a frame naming it one more, in case that came too early... */
		if (!cd->named && names_message(m, cd->uuid)) {
			cd->named = 1;
			want_read(cd, 0, "a frame names the message");
		}
		/* ...and the end of its turn, or of the run, the final one. */
		if (idle || (ev && strcmp(ev, "failed") == 0))
			want_read(cd, 1, idle ? "the final read: the turn ended" : "the final read: the run failed");
	}
	pump(cd);
}

int claude_deliver_from_host(struct claude_deliver *cd, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	const char *ids = json_string_value(id), *hash;
	char op_id[64];

	if (!json_object_get(msg, "event") && deliveries_reserved(id)) {
		if ((hash = strchr(ids, '#')) && strcmp(hash, READ_SUFFIX) == 0) {
			snprintf(op_id, sizeof op_id, "%.*s", (int)(hash - ids), ids);
			on_read(cd, op_id, msg);
		} else {
			on_send_answer(cd, msg);
		}
		return 1;
	}
	if (json_object_get(msg, "event"))
		on_event(cd, msg);
	return 0;
}

void claude_deliver_opened(struct claude_deliver *cd, int host_in, const char *claude_session, const char *cwd)
{
	cd->host_in = host_in;
	snprintf(cd->claude_session, sizeof cd->claude_session, "%s", claude_session ? claude_session : "");
	cd->cwd = cwd;
	cd->first_deadline_ms = hb_monotonic_ms() + cd->first_send_ms;
	pump(cd);
}

void claude_deliver_desktop_send(struct claude_deliver *cd)
{
	cd->desktop_sent = 1;
	cd->desktop_sends++;
}

void claude_deliver_desktop_answered(struct claude_deliver *cd, int ok)
{
	if (cd->desktop_sends > 0)
		cd->desktop_sends--;
	if (ok)
		cd->busy = 1; /* its turn runs until idle; the first one's too */
	cd->first_pending = 0;
	pump(cd);
}

int claude_deliver_settled(const struct claude_deliver *cd)
{
	return (!cd->proving || cd->after_host) && !cd->working;
}

int claude_deliver_closing(struct claude_deliver *cd, int request_ms, int close_ms)
{
	cd->closing = 1;
	if (cd->proving)
		want_read(cd, 1, "the final read: the bridge closes"); /* before the host is closed */
	if (!claude_deliver_settled(cd)) {
		/* The read by this host, its close, a read by a new host. */
		deliveries_closing(&cd->dl, 2 * request_ms + close_ms + OUTCOME_SLACK_MS);
		return 1;
	}
	deliveries_detach(&cd->dl, 0); /* nothing more goes in: no more messages for us */
	return 0;
}

void claude_deliver_host_closed(struct claude_deliver *cd)
{
	cd->host_in = -1;
}

void claude_deliver_host_gone(struct claude_deliver *cd, char *const host_argv[], int limit_ms)
{
	char why[256];
	int found;
	size_t n;

	cd->host_in = -1;
	cd->reading = NULL; /* a handed one stays unreported: the next bridge looks */
	if (cd->working) {
		/* Written, never answered: it may have gone in all the same. */
		cd->proving = cd->working;
		cd->working = NULL;
		message_uuid(cd->proving->op_id, cd->uuid);
		snprintf(cd->why_not, sizeof cd->why_not, "the agent host ended before it answered the send");
	}
	if (!cd->proving)
		return;
	if (!cd->why_not[0])
		snprintf(cd->why_not, sizeof cd->why_not, "the agent host ended before a read of the transcript");
	/* The read below blocks the bridge: no attach goes out meanwhile. */
	deliveries_closing(&cd->dl, limit_ms + OUTCOME_SLACK_MS);
	/* Page 003: one more read at run end, also for a failed run. */
	found = cd->claude_session[0] && cd->cwd
			? claude_last_read(host_argv, cd->claude_session, cd->cwd, cd->uuid, limit_ms, why, sizeof why)
			: -1;
	if (found == 1) {
		log_info(cd->proving->op_id, "the final read (by a new agent host) found message %s", cd->uuid);
		proven(cd, cd->proving, cd->uuid);
		return;
	}
	n = strlen(cd->why_not);
	if (found == 0)
		snprintf(cd->why_not + n, sizeof cd->why_not - n, "; the final read, by a new agent host, did not find it");
	else if (cd->claude_session[0])
		snprintf(cd->why_not + n, sizeof cd->why_not - n, "; the final read could not be made: %s", why);
	unconfirmed(cd, cd->why_not);
}

void claude_deliver(struct claude_deliver *cd, const struct hb_env *e)
{
	if (cd->host_in < 0 || cd->closing)
		return; /* the broker asks again */
	deliveries_take(&cd->dl, e);
	pump(cd);
}

int claude_deliver_refuse(struct claude_deliver *cd, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	char *line;

	(void)cd;
	if (!deliveries_reserved(id))
		return 0;
	if ((line = deliveries_refusal(id, json_string("invalid_request")))) {
		if (write_line(1, line, strlen(line)) < 0)
			log_warn(NULL, "cannot write to the desktop");
		free(line);
	}
	return 1;
}

long long claude_deliver_tick(struct claude_deliver *cd)
{
	long long attach, left;

	if (cd->host_in < 0 || cd->closing)
		return -1;
	attach = deliveries_attach(&cd->dl);
	if (!cd->first_pending || cd->desktop_sent)
		return attach;
	if ((left = cd->first_deadline_ms - hb_monotonic_ms()) > 0)
		return attach >= 0 && attach < left ? attach : left;
	log_info(NULL, "the desktop sent nothing within %d ms of the open: messages may go in", cd->first_send_ms);
	cd->first_pending = 0;
	pump(cd);
	return attach;
}

void claude_deliver_free(struct claude_deliver *cd)
{
	deliveries_free(&cd->dl);
}
