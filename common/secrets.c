/*
 * secrets - see secrets.h.  The copy owns its strings: a setenv or
 * unsetenv of another thread after the copy cannot pull one away from a
 * child's envp.
 */
#include "secrets.h"

#include <stdlib.h>
#include <string.h>

const char *const hb_always_secret[] = { "GEMINI_API_KEY", NULL };

void hb_forget_secrets(void)
{
	for (const char *const *s = hb_always_secret; *s; s++)
		unsetenv(*s);
}

/* Whether the NAME=value string var names a secret (hb_forget_secrets'
 * rule: the name, whole). */
static int is_secret(const char *var)
{
	const char *eq = strchr(var, '=');
	size_t len = eq ? (size_t)(eq - var) : strlen(var);

	for (const char *const *s = hb_always_secret; *s; s++)
		if (strlen(*s) == len && strncmp(*s, var, len) == 0)
			return 1;
	return 0;
}

char **hb_env_without_secrets(char *const *env)
{
	size_t n = 0, bytes = 0;
	char **out, *p;

	for (char *const *e = env; e && *e; e++)
		if (!is_secret(*e)) {
			n++;
			bytes += strlen(*e) + 1;
		}
	if (!(out = malloc((n + 1) * sizeof *out + bytes)))
		return NULL;
	p = (char *)(out + n + 1);
	n = 0;
	for (char *const *e = env; e && *e; e++)
		if (!is_secret(*e)) {
			size_t len = strlen(*e) + 1;
			memcpy(p, *e, len);
			out[n++] = p;
			p += len;
		}
	out[n] = NULL;
	return out;
}
