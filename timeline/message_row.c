/*
 * message_row - the session message envelope read back (see message_row.h).
 * svc-messages escapes the attribute values (&amp; &lt; &gt; &quot;
 * &apos;) and leaves the message itself verbatim, so only attributes are
 * decoded.
 */
#include "message_row.h"

#include <stdio.h>
#include <string.h>

#include "row.h"

#define OPEN_TAG "<session_message "
#define CLOSE_TAG "</session_message>"

int tl_is_session_message(const char *text)
{
	return text && strstr(text, OPEN_TAG) != NULL;
}

static void decode(char *s)
{
	static const struct { const char *ent; char c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	char *w = s;

	while (*s) {
		size_t i;

		for (i = 0; i < sizeof ents / sizeof ents[0]; i++)
			if (strncmp(s, ents[i].ent, strlen(ents[i].ent)) == 0)
				break;
		if (i < sizeof ents / sizeof ents[0])
			*w++ = ents[i].c, s += strlen(ents[i].ent);
		else
			*w++ = *s++;
	}
	*w = '\0';
}

static void attr(json_t *row, const char *env, const char *end, const char *name, const char *key)
{
	char pat[64], val[512];
	const char *a, *z;

	snprintf(pat, sizeof pat, " %s=\"", name);
	if (!(a = strstr(env, pat)) || a > end || !(z = strchr(a + strlen(pat), '"')) || z > end)
		return;
	a += strlen(pat);
	snprintf(val, sizeof val, "%.*s", (int)(z - a < (long)sizeof val - 1 ? z - a : (long)sizeof val - 1), a);
	decode(val);
	tl_row_str(row, key, val, sizeof val);
}

void tl_session_message_fields(json_t *row, const char *text)
{
	const char *env = strstr(text, OPEN_TAG), *end, *body, *stop;

	if (!env || !(end = strchr(env, '>')))
		return;
	attr(row, env, end, "from_session_id", "fromSession");
	attr(row, env, end, "from_title", "fromTitle");
	attr(row, env, end, "from_agent", "fromAgent");
	body = end + 1;
	if (!(stop = strstr(body, CLOSE_TAG)))
		stop = body + strlen(body);
	while (body < stop && (*body == '\n' || *body == '\r'))
		body++;
	while (stop > body && (stop[-1] == '\n' || stop[-1] == '\r'))
		stop--;
	tl_row_text(row, "text", body, (size_t)(stop - body), TL_TEXT_MAX);
}
