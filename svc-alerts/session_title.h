/*
 * session_title - the title of an HB Code session, which each alert
 * carries, read from appdata.db (read-only).
 */
#ifndef ALERTS_SESSION_TITLE_H
#define ALERTS_SESSION_TITLE_H

#include <stddef.h>

/* The title of session id, cut at a character boundary to the
 * protocol's HB_RELAY_SESSION_TITLE_MAX characters: 0 with out filled
 * ("" for a session that has none), or -1 with out "" and err saying why
 * (no such session, no database). */
int session_title(const char *id, char *out, size_t outlen, char *err, size_t errlen);

#endif
