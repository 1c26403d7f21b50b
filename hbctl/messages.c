/*
 * hbctl messages - the queue of messages between sessions: what waits,
 * and the user's answer to a held one.
 *
 *	hbctl messages [--session ID] [--json]   messages not yet sent
 *	hbctl messages send ID                    send a held message now
 *	hbctl messages discard ID                 never send it ("Not sent")
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbctl.h"
#include "protocol.h"

static void print_list(const char *json)
{
	json_t *list = json_loads(json, 0, NULL), *m;
	size_t i;

	if (!json_array_size(json_object_get(list, "messages")))
		puts("no messages waiting");
	json_array_foreach(json_object_get(list, "messages"), i, m) {
		/* Held: why it needs the user; queued: why it still waits (the
		 * last attempt's answer, e.g. its agent is starting). */
		const char *reason = json_string_value(json_object_get(m, "holdReason"));
		if (!reason)
			reason = json_string_value(json_object_get(m, "lastError"));
		printf("%s  %s  from %s to %s (%s)%s%s\n", json_string_value(json_object_get(m, "id")),
		       json_string_value(json_object_get(m, "status")),
		       json_string_value(json_object_get(m, "fromSessionId")),
		       json_string_value(json_object_get(m, "toSessionId")),
		       json_string_value(json_object_get(m, "toTitle")), reason ? ": " : "", reason ? reason : "");
	}
	json_decref(list);
}

int cmd_messages(int argc, char **argv)
{
	struct hb_env req, reply;
	int rc, as_json = 0;

	hb_env_init(&req);
	if (argc == 4 && (strcmp(argv[2], "send") == 0 || strcmp(argv[2], "discard") == 0)) {
		hb_env_set_str(&req, "op", strcmp(argv[2], "send") == 0 ? HB_OP_MESSAGES_SEND : HB_OP_MESSAGES_DISCARD);
		hb_env_set_str(&req, "message", argv[3]);
	} else {
		hb_env_set_str(&req, "op", HB_OP_MESSAGES_LIST);
		for (int i = 2; i < argc; i++) {
			if (strcmp(argv[i], "--session") == 0 && i + 1 < argc) {
				hb_env_set_str(&req, "session", argv[++i]);
			} else if (strcmp(argv[i], "--json") == 0) {
				as_json = 1;
			} else {
				hb_env_free(&req);
				return usage();
			}
		}
	}
	if ((rc = request(&req, &reply, 10000)) != 0)
		return rc;
	if (as_json || strcmp(hb_env_str_or(&req, "op", ""), HB_OP_MESSAGES_LIST) != 0)
		puts(hb_env_str_or(&reply, "json", "{}"));
	else
		print_list(hb_env_str_or(&reply, "json", "{}"));
	hb_env_free(&reply);
	return 0;
}
