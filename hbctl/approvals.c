/*
 * hbctl approvals - the approval cards of Claude runs, and their answer.
 *
 *	hbctl approvals [--json]            the open cards, one line each
 *	                                    (--json: approval.list's array)
 *	hbctl approve ID
 *	hbctl decline ID [--message TEXT]   the text reaches the model
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbctl.h"
#include "protocol.h"

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* What the card asks to do: the command line and its folder, the file,
 * or the tool with its input. */
static void print_action(const json_t *c)
{
	const char *kind = str(c, "kind") ? str(c, "kind") : "tool";

	if (strcmp(kind, "command") == 0) {
		printf("command  %s", str(c, "command") ? str(c, "command") : "");
		if (str(c, "cwd"))
			printf("  (in %s)", str(c, "cwd"));
	} else if (strcmp(kind, "file") == 0) {
		printf("file edit  %s %s", str(c, "tool") ? str(c, "tool") : "",
		       str(c, "path") ? str(c, "path") : "(no path)");
	} else {
		char *input = json_dumps(json_object_get(c, "input"), JSON_COMPACT | JSON_ENCODE_ANY);
		printf("tool  %s %s", str(c, "tool") ? str(c, "tool") : "", input ? input : "");
		free(input);
	}
}

/* Who asks and why: the run, the session, the subagent, the agent's words. */
static void print_context(const json_t *c)
{
	const json_t *sub = json_object_get(c, "subagent");

	printf("  run %s  session %s", str(c, "run") ? str(c, "run") : "", str(c, "session") ? str(c, "session") : "");
	if (sub) {
		const char *type = str(sub, "type"), *what = str(sub, "description");
		printf("  subagent %s", type ? type : str(sub, "id") ? str(sub, "id") : "");
		if (what)
			printf(" \"%s\"", what);
	}
	if (str(c, "displayName"))
		printf("  [%s]", str(c, "displayName"));
	if (str(c, "decisionReason"))
		printf("  why: %s", str(c, "decisionReason"));
}

static int list(int as_json)
{
	struct hb_env req, reply;
	json_t *cards, *c;
	size_t i;
	int rc;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_APPROVAL_LIST);
	if ((rc = request(&req, &reply, 2000)) != 0)
		return rc;
	if (as_json) {
		puts(hb_env_str_or(&reply, "json", "[]"));
		hb_env_free(&reply);
		return 0;
	}
	cards = json_loads(hb_env_str_or(&reply, "json", "[]"), 0, NULL);
	if (!json_array_size(cards))
		puts("no approvals waiting");
	json_array_foreach(cards, i, c) {
		printf("%s  ", str(c, "id") ? str(c, "id") : "");
		print_action(c);
		print_context(c);
		putchar('\n');
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
		return argc == 2 ? list(0) : argc == 3 && strcmp(argv[2], "--json") == 0 ? list(1) : usage();
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
