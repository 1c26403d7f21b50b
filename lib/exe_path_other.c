/*
 * exe_path_other - the seam of exe_path.h where there is no /proc/self/exe
 * (macOS): argv[0], looked up in PATH when it names no folder, as the
 * shell found it, then resolved with realpath.
 */
#ifndef __linux__

#include "exe_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* argv0 as the shell found it: itself when it names a folder, else the
 * first executable of that name in PATH. */
static int find(const char *argv0, char *out, size_t outlen)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(argv0, '/'))
		return snprintf(out, outlen, "%s", argv0) < (int)outlen ? 0 : -1;
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		int n;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		n = snprintf(out, outlen, "%.*s/%s", (int)(end - p), end == p ? "." : p, argv0);
		if (n > 0 && (size_t)n < outlen && access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

int hb_exe_dir(const char *argv0, char *out, size_t outlen, char *err, size_t errlen)
{
	char found[PATH_MAX], real[PATH_MAX], *slash;

	if (!argv0 || !*argv0 || find(argv0, found, sizeof found) < 0) {
		snprintf(err, errlen, "cannot tell where this program is (%s not found in PATH)", argv0 ? argv0 : "");
		return -1;
	}
	if (!realpath(found, real)) {
		snprintf(err, errlen, "cannot tell where this program is (%s: %s)", found, strerror(errno));
		return -1;
	}
	if (!(slash = strrchr(real, '/')) || (size_t)(slash - real) >= outlen) {
		snprintf(err, errlen, "this program's path is too long: %s", real);
		return -1;
	}
	*slash = '\0';
	snprintf(out, outlen, "%s", slash == real ? "/" : real);
	return 0;
}

#endif
