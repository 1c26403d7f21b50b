/*
 * session_id - new HB Code session ids: "s-" and 16 random hex digits.
 *
 * 64 random bits make a collision between one user's sessions negligible;
 * the prefix lets a reader tell a session id from a Codex thread id.
 */
#ifndef SESSIONS_SESSION_ID_H
#define SESSIONS_SESSION_ID_H

#include <stddef.h>

#define SESSION_ID_LEN 18 /* "s-" + 16 hex digits */

/* out gets SESSION_ID_LEN characters and a NUL.  -1 with err when the
 * system has no randomness to give. */
int session_id_generate(char out[SESSION_ID_LEN + 1], char *err, size_t errlen);

#endif
