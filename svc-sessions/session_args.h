/*
 * session_args - argument checks shared by the svc-sessions tools.
 *
 * Every tool takes an action plus fields that only some actions use; a field
 * sent to an action that ignores it is an error, so a model that confuses
 * two actions learns it at once instead of seeing its field silently dropped.
 */
#ifndef SESSIONS_SESSION_ARGS_H
#define SESSIONS_SESSION_ARGS_H

#include <jansson.h>
#include <stddef.h>

#define SESSION_ID_MAX 200      /* bytes of any session or thread id we accept */
#define SESSION_TITLE_MAX 200   /* characters after trimming */
#define SESSION_TITLE_BUF (SESSION_TITLE_MAX * 4 + 1)
#define SESSION_MODEL_MAX 120   /* bytes of a model name (the broker's run keeps 127) */

extern const char *const session_agents[];        /* codex, claude, external (an MCP client's: hb-mcp) */

/* The message for an id that names no session. */
void session_args_no_such_session(const char *id, char *err, size_t errlen);

/* args must be an object whose keys are all in known (else "unknown field"). */
int session_args_known_fields(const json_t *args, const char *const *known, char *err, size_t errlen);
/* Every key of args other than "action" must be in used (NULL-terminated):
 * otherwise "<key> is not used by <action>". */
int session_args_used_fields(const json_t *args, const char *action, const char *const *used,
			     char *err, size_t errlen);
/* The required "action" field, one of choices. */
int session_args_action(const json_t *args, const char *const *choices, const char **action,
			char *err, size_t errlen);
/* An id field of 1..SESSION_ID_MAX bytes; *out NULL when absent and optional. */
int session_args_id(const json_t *args, const char *key, int required, const char **out,
		    char *err, size_t errlen);
/* A string field that must be one of choices; *out NULL when absent and optional. */
int session_args_choice(const json_t *args, const char *key, const char *const *choices, int required,
			const char **out, char *err, size_t errlen);
/* The optional "model" a session's runs open with: 1..SESSION_MODEL_MAX
 * bytes of letters, digits and . _ - : / @ [ ] (a model name or alias,
 * e.g. "opus", "claude-sonnet-5-5", "gpt-6-codex"); *out NULL when absent. */
int session_args_model(const json_t *args, const char **out, char *err, size_t errlen);
/* The optional "effort" for agent's runs: Claude's low, medium, high,
 * xhigh, max; Codex's a word its model advertises (1..32 lowercase
 * letters, e.g. "low" or "xhigh"); *out NULL when absent. */
int session_args_effort(const json_t *args, const char *agent, const char **out, char *err, size_t errlen);
/* The required "title": trimmed into out, 1..SESSION_TITLE_MAX characters,
 * no control characters.  outlen >= SESSION_TITLE_BUF. */
int session_args_title(const json_t *args, char *out, size_t outlen, char *err, size_t errlen);

#endif
