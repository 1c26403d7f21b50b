/*
 * session_guide - the text maintain_sessions returns for action "guide".
 *
 * The model reads this before its first lookup, so it states every argument,
 * every limit and the project hash rule, and the hash of the caller's own
 * project so the model need not compute SHA-256 itself.
 */
#ifndef SESSIONS_SESSION_GUIDE_H
#define SESSIONS_SESSION_GUIDE_H

#include <jansson.h>
#include <stddef.h>

/* A JSON string with the guide; caller_project "" when the call has none.
 * NULL with err only when out of memory. */
json_t *session_guide(const char *caller_project, char *err, size_t errlen);

#endif
