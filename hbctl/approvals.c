/*
 * hbctl approvals - the approval cards of Claude runs, and their answer.
 *
 *	hbctl approvals                     the open cards, one line each
 *	hbctl approve ID
 *	hbctl decline ID [--message TEXT]   the text reaches the model
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbctl.h"
#include "protocol.h"

static int list(void)
{
	struct hb_env req, reply;
	json_t *cards, *c;
	size_t i;
	int rc;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_APPROVAL_LIST);
	if ((rc = request(&req, &reply, 2000)) != 0)
		return rc;
	cards = json_loads(hb_env_str_or(&reply, "json", "[]"), 0, NULL);
	if (!json_array_size(cards))
		puts("no approvals waiting");
	json_array_foreach(cards, i, c) {
		char *input = json_dumps(json_object_get(c, "input"), JSON_COMPACT | JSON_ENCODE_ANY);
		printf("%s  %s  run %s  session %s  %s\n", json_string_value(json_object_get(c, "id")),
		       json_string_value(json_object_get(c, "tool")), json_string_value(json_object_get(c, "run")),
		       json_string_value(json_object_get(c, "session")), input ? input : "");
		free(input);
	}
	json_decref(cards);
	hb_env_free(&reply);
	return 0;
}

int cmd_approvals(int argc, char **argv)
{
	struct hb_env req, reply;
	int approve = strcmp(argv[1], "approve") == 0, rc;

	if (strcmp(argv[1], "approvals") == 0)
		return argc == 2 ? list() : usage();
	if (argc != 3 && !(argc == 5 && !approve && strcmp(argv[3], "--message") == 0))
		return usage();
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_APPROVAL_RESOLVE);
	hb_env_set_str(&req, "approval", argv[2]);
	hb_env_set_str(&req, "decision", approve ? "allow" : "deny");
	if (argc == 5)
		hb_env_set_str(&req, "message", argv[4]);
	if ((rc = request(&req, &reply, 2000)) != 0)
		return rc;
	puts(hb_env_str_or(&reply, "json", "{}"));
	hb_env_free(&reply);
	return 0;
}
