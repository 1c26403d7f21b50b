/*
 * session_title - an alert names its session by id and by title.  The
 * title is the user's and may be long; the protocol caps it at 200
 * characters, so a longer one is cut at a character boundary (unlike the
 * agent's own title and body, which are refused: the agent can shorten
 * those, and the session's title is not the agent's to change).
 */
#include "session_title.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "appdata.h"
#include "relay_proto.h"

/* Copy s into out, at most max characters of UTF-8 and outlen - 1 bytes. */
static void copy_chars(const char *s, long max, char *out, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0;
	long n = 0;

	while (p[len] && n < max) {
		size_t step = 1;

		while ((p[len + step] & 0xc0) == 0x80)
			step++;
		if (len + step >= outlen)
			break;
		len += step;
		n++;
	}
	memcpy(out, s, len);
	out[len] = 0;
}

int session_title(const char *id, char *out, size_t outlen, char *err, size_t errlen)
{
	char path[4096];
	sqlite3 *db;
	sqlite3_stmt *st;
	int rc = -1;

	out[0] = 0;
	if (appdata_default_path(path, sizeof path, err, errlen) < 0 || !(db = appdata_open_ro(path, err, errlen)))
		return -1;
	if ((st = appdata_prepare(db, "SELECT title FROM sessions WHERE id = ?", err, errlen, "s", id))) {
		int step = sqlite3_step(st);

		if (step == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);

			if (t && hb_relay_chars(t) >= 0)
				copy_chars(t, HB_RELAY_SESSION_TITLE_MAX, out, outlen);
			rc = 0;
		} else if (step == SQLITE_DONE) {
			snprintf(err, errlen, "there is no session %s in appdata.db", id);
		} else {
			appdata_error(db, "reading a session's title", err, errlen);
		}
		sqlite3_finalize(st);
	}
	appdata_close(db);
	return rc;
}
