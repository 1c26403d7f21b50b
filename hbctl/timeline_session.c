/*
 * timeline_session - hbctl timeline --session HB-SESSION-ID [...]: the
 * saved conversation of an HB Code session, whichever agent it runs, so a
 * person needs only the id `hbctl sessions` lists.  The session (read
 * through maintain_sessions, session_list.c) names its agent, its
 * project folder and its conversation (claudeSessionId or
 * codexThreadId); its other words (--thread, --since, --json, --plain)
 * go on unchanged to timeline.c or timeline_codex.c.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbctl.h"
#include "session_list.h"

#define ARGS_MAX 32

/* The session with id among every session (archived ones too); NULL
 * after saying why, *rc its exit status. */
static json_t *find_session(const char *id, int *rc)
{
	json_t *list, *found = NULL;
	const json_t *s;
	char err[512];
	size_t i;

	if (session_list_fetch(NULL, 1, &list, rc, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: timeline: %s\n", err);
		return NULL;
	}
	json_array_foreach(list, i, s)
		if (json_is_string(json_object_get(s, "id")) && strcmp(json_string_value(json_object_get(s, "id")), id) == 0)
			found = json_incref((json_t *)s);
	json_decref(list);
	*rc = found ? 0 : EXIT_FAIL;
	if (!found)
		fprintf(stderr, "hbctl: timeline: no session %s (hbctl sessions --all lists them)\n", id);
	return found;
}

int timeline_of_session(int argc, char **argv)
{
	const char *id = NULL, *args[ARGS_MAX + 1], *agent, *conversation, *dir;
	int n = 0, rc;
	json_t *s;

	args[n++] = argv[0];
	args[n++] = argv[1];
	/* room is kept for the three words naming the conversation */
	for (int i = 2; i < argc; i++) {
		int with_value = strcmp(argv[i], "--thread") == 0 || strcmp(argv[i], "--since") == 0;

		if (strcmp(argv[i], "--session") == 0 && i + 1 < argc && !id) {
			id = argv[++i];
		} else if (with_value && i + 1 < argc && n + 2 <= ARGS_MAX - 3) {
			args[n++] = argv[i];
			args[n++] = argv[++i];
		} else if ((strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "--plain") == 0) && n + 1 <= ARGS_MAX - 3) {
			args[n++] = argv[i];
		} else {
			return timeline_usage();
		}
	}
	if (!id)
		return timeline_usage();
	if (!(s = find_session(id, &rc)))
		return rc;
	agent = json_string_value(json_object_get(s, "agent"));
	conversation = json_string_value(
		json_object_get(s, agent && strcmp(agent, "codex") == 0 ? "codexThreadId" : "claudeSessionId"));
	dir = json_string_value(json_object_get(s, "projectDirectory"));
	if (!agent || !conversation || !dir) {
		fprintf(stderr, "hbctl: timeline: session %s has no saved conversation yet: its agent has not run\n", id);
		json_decref(s);
		return EXIT_FAIL;
	}
	if (strcmp(agent, "codex") == 0) {
		args[n++] = "--codex";
		args[n++] = conversation;
	} else {
		args[n++] = conversation;
		args[n++] = "--cwd";
		args[n++] = dir;
	}
	args[n] = NULL;
	rc = strcmp(agent, "codex") == 0 ? cmd_timeline_codex(n, (char **)args) : cmd_timeline_claude(n, (char **)args);
	json_decref(s);
	return rc;
}
