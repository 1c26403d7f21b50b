/*
 * envvar - a malformed or out-of-range value falls back to the default
 * rather than failing: these are tuning knobs, mostly set by tests.
 */
#include "envvar.h"

#include <stdlib.h>
#include <string.h>

int hb_getenv_int(const char *name, int dflt, int min, int max)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return dflt;
	n = strtol(v, &end, 10);
	return *end || n < min || n > max ? dflt : (int)n;
}

char **hb_env_with(char *const *env, const char *name, const char *value)
{
	size_t n = 0, bytes = strlen(name) + strlen(value) + 2, nlen = strlen(name);
	char **out, *p;

	for (char *const *e = env; e && *e; e++)
		if (strncmp(*e, name, nlen) != 0 || (*e)[nlen] != '=')
			n++, bytes += strlen(*e) + 1;
	if (!(out = malloc((n + 2) * sizeof *out + bytes)))
		return NULL;
	p = (char *)(out + n + 2);
	n = 0;
	for (char *const *e = env; e && *e; e++)
		if (strncmp(*e, name, nlen) != 0 || (*e)[nlen] != '=') {
			size_t len = strlen(*e) + 1;

			out[n++] = memcpy(p, *e, len);
			p += len;
		}
	out[n++] = p;
	memcpy(p, name, nlen);
	p[nlen] = '=';
	memcpy(p + nlen + 1, value, strlen(value) + 1);
	out[n] = NULL;
	return out;
}
