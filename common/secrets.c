/*
 * secrets - see secrets.h.  The copy owns its strings: a setenv or
 * unsetenv of another thread after the copy cannot pull one away from a
 * child's envp.
 */
#include "secrets.h"

#include <stdlib.h>
#include <string.h>

const char *const hb_always_secret[] = { "GEMINI_API_KEY", NULL };

/* Found in Claude Code 2.1.332; see docs/agent-host-pipe.md. */
const char *const hb_claude_child_markers[] = {
	"CLAUDECODE", "CLAUDE_CODE_CHILD_SESSION", "CLAUDE_CODE_SESSION_ID", "CLAUDE_PID",
	"CLAUDE_CODE_SESSION_ATTENDED", "CLAUDE_CODE_CHILD_NOTES_DIR", "CLAUDE_EFFORT", "AI_AGENT",
	"TRACEPARENT", NULL
};

void hb_forget_secrets(void)
{
	for (const char *const *s = hb_always_secret; *s; s++)
		unsetenv(*s);
}

/* Whether the NAME=value string var is named in names (the name, whole). */
static int named(const char *var, const char *const *names)
{
	const char *eq = strchr(var, '=');
	size_t len = eq ? (size_t)(eq - var) : strlen(var);

	for (const char *const *s = names; s && *s; s++)
		if (strlen(*s) == len && strncmp(*s, var, len) == 0)
			return 1;
	return 0;
}

/* hb_forget_secrets' rule, and the caller's names. */
static int dropped(const char *var, const char *const *also)
{
	return named(var, hb_always_secret) || named(var, also);
}

char **hb_env_without_secrets(char *const *env, const char *const *also)
{
	size_t n = 0, bytes = 0;
	char **out, *p;

	for (char *const *e = env; e && *e; e++)
		if (!dropped(*e, also)) {
			n++;
			bytes += strlen(*e) + 1;
		}
	if (!(out = malloc((n + 1) * sizeof *out + bytes)))
		return NULL;
	p = (char *)(out + n + 1);
	n = 0;
	for (char *const *e = env; e && *e; e++)
		if (!dropped(*e, also)) {
			size_t len = strlen(*e) + 1;
			memcpy(p, *e, len);
			out[n++] = p;
			p += len;
		}
	out[n] = NULL;
	return out;
}
