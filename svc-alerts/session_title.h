/*
 * session_title - the title of an HB Code session, which each alert
 * carries, asked of svc-sessions (maintain_sessions resolveSession)
 * through the broker: svc-alerts reads no database but its spool.
 */
#ifndef ALERTS_SESSION_TITLE_H
#define ALERTS_SESSION_TITLE_H

#include <stddef.h>

#include "service.h"

/* The title of session id, cut at a character boundary to the
 * protocol's HB_RELAY_SESSION_TITLE_MAX characters: 0 with out filled,
 * or -1 with out "" and err saying why (no such session, svc-sessions
 * not answering). */
int session_title(struct hb_call *call, const char *id, char *out, size_t outlen, char *err, size_t errlen);

#endif
