/*
 * claude_deliver - see claude_deliver.h.  The host refuses `send` with
 * `busy` while a turn runs; the bridge watches session_state_changed
 * (running, idle) to know when to try, and a refusal only puts the
 * message back at the head of the queue until the next idle.  A desktop
 * send answered with success counts as busy at once: the host answers it
 * before its turn's `running`, and a message slipped in between would be
 * refused anyway.
 */
#include "claude_deliver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "lines.h"
#include "log.h"
#include "sha256.h"

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

static void write_json(int fd, json_t *v)
{
	char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;

	if (!text || write_line(fd, text, strlen(text)) < 0)
		log_warn(NULL, "cannot write a line");
	free(text);
}

static void pump(struct claude_deliver *cd)
{
	struct delivery *x;
	char uuid[37];
	json_t *req;

	/* A desktop send in flight will start a turn: a message sent now
	 * would take its place and the desktop would get `busy`. */
	if (cd->working || cd->busy || cd->closing || cd->host_in < 0 || cd->first_pending || cd->desktop_sends ||
	    !(x = deliveries_next(&cd->dl)))
		return;
	x->state = DELIVERY_WORKING;
	cd->working = x;
	message_uuid(x->op_id, uuid);
	req = json_pack("{s:s, s:s, s:{s:s, s:s}}", "id", x->op_id, "method", "send", "params", "text", x->text,
			"messageId", uuid);
	write_json(cd->host_in, req);
	json_decref(req);
	log_info(x->op_id, "sent into the Claude conversation as message %s", uuid);
}

void claude_deliver_opened(struct claude_deliver *cd, int host_in)
{
	cd->host_in = host_in;
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

void claude_deliver_closing(struct claude_deliver *cd)
{
	cd->closing = 1;
	deliveries_detach(&cd->dl, 0); /* nothing more goes in: no more messages for us */
}

void claude_deliver(struct claude_deliver *cd, const struct hb_env *e)
{
	if (cd->host_in < 0 || cd->closing)
		return; /* the broker asks again */
	deliveries_take(&cd->dl, e);
	pump(cd);
}

static void on_answer(struct claude_deliver *cd, json_t *msg)
{
	struct delivery *x = cd->working;
	json_t *err = json_object_get(msg, "error");
	const char *code = json_string_value(json_object_get(err, "code"));
	char uuid[37];

	if (!x || strcmp(x->op_id, json_string_value(json_object_get(msg, "id"))) != 0)
		return;
	cd->working = NULL;
	if (!err) {
		message_uuid(x->op_id, uuid);
		cd->busy = 1; /* the turn it started runs until idle */
		deliveries_finish(&cd->dl, x, 1, uuid, NULL);
	} else if (code && strcmp(code, "busy") == 0) {
		cd->busy = 1;
		deliveries_requeue(&cd->dl, x);
	} else {
		deliveries_finish(&cd->dl, x, 0, NULL,
				  json_string_value(json_object_get(err, "message")) ? json_string_value(json_object_get(err, "message"))
										       : "the agent host refused send");
	}
	pump(cd);
}

int claude_deliver_from_host(struct claude_deliver *cd, json_t *msg)
{
	json_t *m = json_object_get(msg, "message");
	const char *state = json_string_value(json_object_get(m, "state"));

	if (!json_object_get(msg, "event") && deliveries_reserved(json_object_get(msg, "id"))) {
		on_answer(cd, msg);
		return 1;
	}
	if (state && json_is_string(json_object_get(m, "subtype")) &&
	    strcmp(json_string_value(json_object_get(m, "subtype")), "session_state_changed") == 0) {
		cd->busy = strcmp(state, "idle") != 0;
		pump(cd);
	}
	return 0;
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
