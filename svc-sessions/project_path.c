/*
 * project_path - canonical project directories and their SHA-256 hash.
 *
 * realpath() resolves symlinks so /home/me/src and a symlink to it share one
 * hash; a directory that is gone (an old session's project) still needs a
 * stable hash, so then we only tidy the slashes.
 */
#include "project_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "/a//b/" -> "/a/b"; "/" stays "/".  in is absolute and fits out. */
static void collapse_slashes(const char *in, char *out)
{
	size_t n = 0;
	for (const char *p = in; *p; p++) {
		if (*p == '/' && n > 0 && out[n - 1] == '/')
			continue;
		out[n++] = *p;
	}
	if (n > 1 && out[n - 1] == '/')
		n--;
	out[n] = '\0';
}

int project_path_canonical(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
	size_t len = strlen(path);
	if (path[0] != '/') {
		snprintf(err, errlen, "the project path must be absolute (start with /)");
		return -1;
	}
	if (len > PROJECT_PATH_MAX || outlen < len + 1) {
		snprintf(err, errlen, "the project path is longer than %d bytes", PROJECT_PATH_MAX);
		return -1;
	}
	char *real = realpath(path, NULL);
	if (!real) {
		/* Missing or unreadable: the spelled path, tidied, is all we have. */
		collapse_slashes(path, out);
		return 0;
	}
	size_t real_len = strlen(real);
	if (real_len > PROJECT_PATH_MAX || real_len + 1 > outlen) {
		free(real);
		snprintf(err, errlen, "the real path of the project is longer than %d bytes", PROJECT_PATH_MAX);
		return -1;
	}
	memcpy(out, real, real_len + 1);
	free(real);
	return 0;
}

void project_path_hash(const char *canonical, char hash[PROJECT_HASH_LEN + 1])
{
	hb_sha256_hex(canonical, strlen(canonical), hash);
}

int project_hash_is_valid(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++) {
		char c = s[n];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
	}
	return n == PROJECT_HASH_LEN;
}
