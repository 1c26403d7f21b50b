/*
 * session_guide - the guide text, with the caller's project hash filled in.
 *
 * The limits in the text come from the same constants the code checks, so
 * the guide cannot drift from the behaviour it describes.
 */
#include "session_guide.h"

#include "project_path.h"
#include "session_args.h"
#include "session_lookup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static const char guide_body[] =
	"maintain_sessions is a read-only view of the HB Code sessions in appdata.db. "
	"It cannot change sessions and it is not a SQL tool.\n"
	"\n"
	"Actions (pass one as \"action\"; a field that an action does not use is an error):\n"
	"- guide: this text. No other fields.\n"
	"- listSessions: sessions, most recently updated first. Optional fields:\n"
	"    projectDirectoryHash: only sessions of that project (exactly 64 lowercase hex characters).\n"
	"    limit: 1 to " STRINGIFY(SESSION_LIST_MAX_LIMIT) " rows, default " STRINGIFY(SESSION_LIST_DEFAULT_LIMIT) ".\n"
	"    includeArchived: true to include archived sessions, default false.\n"
	"    agent: \"codex\", \"claude\" or \"external\" (an MCP client's, through hb-mcp) to see one "
	"agent's sessions.\n"
	"  Result: {\"sessions\":[...],\"count\":n,\"limit\":n}. Each session has id, title, agent, "
	"projectDirectory, projectDirectoryHash, accessLevel, active (the session marked active in its "
	"project), archived, createdAt and updatedAt (ISO-8601 UTC), and codexThreadId or "
	"claudeSessionId once the agent has one.\n"
	"- resolveSession: targetSessionId (required). Result: {\"sessionId\",\"title\",\"agent\","
	"\"codexThreadId\",\"claudeSessionId\"}, null where the session has no link yet.\n"
	"\n"
	"Project hash: the SHA-256, in lowercase hex, of the canonical absolute path of the project "
	"directory: its real path (symlinks resolved) when the directory exists, otherwise the absolute "
	"path with repeated and trailing slashes removed.\n"
	"\n"
	"Changes go through manage_sessions: create (title, agent, projectPath, "
	"optional accessLevel, default full-auto), rename (targetSessionId, title), archive, unarchive, "
	"activate (targetSessionId; an archived session cannot be activated, archiving the active "
	"session leaves its project without one), setAccessLevel (targetSessionId, accessLevel: "
	"read-only, full-auto, full-access or unrestricted), setModel (targetSessionId, model?, effort?: "
	"what the session's runs open with; left out, the agent's default; Claude's efforts are low, "
	"medium, high, xhigh and max). create takes model and effort too. Titles are 1 to " STRINGIFY(SESSION_TITLE_MAX)
	" characters on one line.\n";

/* The closing paragraph about the caller's own project, or "" without one. */
static void caller_paragraph(const char *caller_project, char *out, size_t outlen)
{
	char canonical[PROJECT_PATH_MAX + 1], reason[256];
	out[0] = '\0';
	if (!caller_project || !caller_project[0])
		return;
	if (project_path_canonical(caller_project, canonical, sizeof canonical, reason, sizeof reason) != 0)
		return;
	char hash[PROJECT_HASH_LEN + 1];
	project_path_hash(canonical, hash);
	snprintf(out, outlen, "\nYour project: %s\nIts projectDirectoryHash: %s\n", canonical, hash);
}

json_t *session_guide(const char *caller_project, char *err, size_t errlen)
{
	size_t tail_len = PROJECT_PATH_MAX + PROJECT_HASH_LEN + 128;
	char *tail = malloc(tail_len);
	if (!tail) {
		snprintf(err, errlen, "out of memory while writing the guide");
		return NULL;
	}
	caller_paragraph(caller_project, tail, tail_len);
	size_t body_len = sizeof guide_body - 1, extra = strlen(tail);
	char *text = malloc(body_len + extra + 1);
	json_t *result = NULL;
	if (text) {
		memcpy(text, guide_body, body_len);
		memcpy(text + body_len, tail, extra + 1);
		result = json_string(text);
	}
	free(text);
	free(tail);
	if (!result)
		snprintf(err, errlen, "out of memory while writing the guide");
	return result;
}
