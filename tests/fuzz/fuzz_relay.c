/*
 * fuzz_relay - the notification relay's messages (svc-alerts/relay_proto.c):
 * what svc-alerts reads from the relay's WebSocket, and what the relay
 * reads from a device, parsed as each side would.
 *
 * Also the first thing svc-alerts reads from the relay: the answer to
 * its WebSocket Upgrade (ws/ws_handshake.c), cut as read_head cuts
 * it, at the first blank line.
 *
 * A message that parses is written again with the writer of its type, and
 * the writing must parse to the same message: svc-alerts' own messages
 * are checked by the very parser the relay's tests run.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../svc-alerts/relay_proto.h"
#include "ws_io.h"

/* RFC 6455's example key; its accept is s3pPLMBiTxaQ9kYGzzhZRbK+xOo=. */
#define KEY "dGhlIHNhbXBsZSBub25jZQ=="

/* Write m again as its sender would; NULL when its writer refuses it. */
static char *rewrite(const struct hb_relay_msg *m)
{
	char err[256];

	switch (m->type) {
	case HB_RELAY_HELLO:
		return hb_relay_hello(m->credential, err, sizeof err);
	case HB_RELAY_READY:
		return hb_relay_ready(err, sizeof err);
	case HB_RELAY_ERROR:
		return hb_relay_error(m->code, m->text, err, sizeof err);
	case HB_RELAY_EVENT:
		if (hb_relay_check_event(&m->event, err, sizeof err) < 0)
			abort(); /* the parser let through what the writer's check refuses */
		return hb_relay_event(&m->event, err, sizeof err);
	case HB_RELAY_ACK:
		return hb_relay_ack(m->id, err, sizeof err);
	case HB_RELAY_DROPPED:
		return hb_relay_dropped(m->id, m->text, err, sizeof err);
	case HB_RELAY_APPROVAL:
		return hb_relay_approval(&m->approval, err, sizeof err);
	case HB_RELAY_RESOLVE:
		return hb_relay_resolve(m->id, m->approval.approval_id, m->approval.run_id, m->allow, err, sizeof err);
	case HB_RELAY_RESULT:
		return hb_relay_result(m->id, m->ok, m->text, err, sizeof err);
	}
	return NULL;
}

static void one_side(const char *text, size_t len, enum hb_relay_side from)
{
	struct hb_relay_msg *m = malloc(sizeof *m), *again = malloc(sizeof *again);
	char err[256], *out;

	if (!m || !again)
		goto done;
	if (hb_relay_parse(text, len, from, m, err, sizeof err) != 0)
		goto done;
	(void)hb_relay_type_name(m->type);
	(void)hb_relay_chars(m->text);
	out = rewrite(m);
	if (out) {
		if (hb_relay_parse(out, strlen(out), from, again, err, sizeof err) != 0 || again->type != m->type)
			abort();
		if (m->type == HB_RELAY_EVENT && memcmp(&again->event, &m->event, sizeof m->event) != 0)
			abort();
		if ((m->type == HB_RELAY_APPROVAL || m->type == HB_RELAY_RESOLVE) &&
		    memcmp(&again->approval, &m->approval, sizeof m->approval) != 0)
			abort();
		if (again->allow != m->allow || again->ok != m->ok)
			abort();
		free(out);
		hb_relay_msg_wipe(again);
	}
	hb_relay_msg_wipe(m);
done:
	free(m);
	free(again);
}

/* The head as read_head leaves it: text up to its first NUL, through the
 * first blank line. */
static void upgrade_answer(const uint8_t *data, size_t size)
{
	char *head = malloc(size + 1), *end, err[256];

	if (!head)
		return;
	memcpy(head, data, size);
	head[size] = '\0';
	if ((end = strstr(head, "\r\n\r\n"))) {
		end[4] = '\0';
		(void)ws_handshake_check_answer(head, KEY, NULL, err, sizeof err);
	}
	free(head);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	upgrade_answer(data, size);
	one_side((const char *)data, size, HB_RELAY_FROM_DEVICE);
	one_side((const char *)data, size, HB_RELAY_FROM_RELAY);
	return 0;
}
