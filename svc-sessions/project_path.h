/*
 * project_path - the canonical form of a project directory and its hash.
 *
 * Sessions are grouped by project, and agents filter listSessions by a hash
 * instead of a path, so every spelling of one directory must give one hash:
 * SHA-256 (lowercase hex) of realpath() when the directory exists, else of
 * the absolute path with duplicate and trailing slashes removed.
 */
#ifndef SESSIONS_PROJECT_PATH_H
#define SESSIONS_PROJECT_PATH_H

#include <stddef.h>

#include "sha256.h"

#define PROJECT_PATH_MAX 4096              /* bytes, without the NUL */
#define PROJECT_HASH_LEN HB_SHA256_HEX_LEN /* 64 hex digits */

/* out must hold PROJECT_PATH_MAX + 1 bytes.  -1 with err when path is not
 * absolute, is longer than PROJECT_PATH_MAX, or its real path is. */
int project_path_canonical(const char *path, char *out, size_t outlen, char *err, size_t errlen);
/* Hash of an already canonical path. */
void project_path_hash(const char *canonical, char hash[PROJECT_HASH_LEN + 1]);
/* Nonzero when s is exactly 64 lowercase hex digits. */
int project_hash_is_valid(const char *s);

#endif
