/*
 * claude - hbctl claude METHOD ['JSON params']: one read of the Claude
 * agent host (docs/agent-host-pipe.md, "Reads") for a person at a shell,
 * e.g. the saved conversations of a folder.
 *
 * It does what the desktop does for a read that needs no open
 * conversation: a one-shot host (claude_host.c) answers the read, and the
 * reply is printed.  No broker is needed: the host reads Claude's own
 * folder.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "claude_account.h"
#include "hbctl.h"

/* The reads; the run's requests need a desktop on the pipe. */
static const char *const reads[] = {
	"history", "list", "inspect", "subagents", "subagentHistory", "toolOutput", "catalog", "usage", "title",
	NULL
};

static int is_read(const char *method)
{
	for (const char *const *r = reads; *r; r++)
		if (strcmp(*r, method) == 0)
			return 1;
	return 0;
}

static int claude_usage(void)
{
	fprintf(stderr, "usage: hbctl claude METHOD ['JSON params']\n"
			"  METHOD: history list inspect subagents subagentHistory toolOutput catalog usage title\n"
			"  e.g. hbctl claude list '{\"cwd\":\"/home/you/project\"}'\n");
	return EXIT_USAGE;
}

/* Print the reply: the result as JSON on stdout, or the error's sentence. */
static int print_reply(const char *method, json_t *reply)
{
	json_t *result = json_object_get(reply, "result"), *error = json_object_get(reply, "error");
	const char *message = json_string_value(json_object_get(error, "message"));
	const char *code = json_string_value(json_object_get(error, "code"));
	char *text;

	if (result) {
		if (!(text = json_dumps(result, JSON_COMPACT | JSON_ENCODE_ANY))) {
			fprintf(stderr, "hbctl: out of memory\n");
			return EXIT_FAIL;
		}
		puts(text);
		free(text);
		return 0;
	}
	fprintf(stderr, "hbctl: claude %s: %s (%s)\n", method,
		message ? message : "the agent host answered with an error", code ? code : "no code");
	return EXIT_FAIL;
}

int cmd_claude(int argc, char **argv)
{
	char account[HB_CLAUDE_ACCOUNT_NAME_MAX];
	json_t *params, *reply = NULL;
	int rc;

	if (argc < 3 || argc > 4 || !is_read(argv[2]))
		return claude_usage();
	params = argc == 4 ? json_loads(argv[3], JSON_REJECT_DUPLICATES, NULL) : json_object();
	if (!json_is_object(params)) {
		fprintf(stderr, "hbctl: claude %s: the params must be one JSON object, e.g. '{\"cwd\":\"/home/you/project\"}'\n",
			argv[2]);
		json_decref(params);
		return EXIT_USAGE;
	}
	rc = accounts_use_active(account, sizeof account) < 0 ? EXIT_FAIL
								   : claude_read(argv[0], argv[2], params, &reply);
	json_decref(params);
	if (rc != 0)
		return rc;
	rc = print_reply(argv[2], reply);
	json_decref(reply);
	return rc;
}
