/*
 * exe_path_linux - the Linux seam of exe_path.h: /proc/self/exe names the
 * file the kernel started, whatever argv[0] and PATH say.
 */
#ifdef __linux__

#include "exe_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hb_exe_dir(const char *argv0, char *out, size_t outlen, char *err, size_t errlen)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
	char *slash;

	(void)argv0;
	if (n < 0) {
		snprintf(err, errlen, "cannot tell where this program is (/proc/self/exe: %s)", strerror(errno));
		return -1;
	}
	path[n] = '\0';
	if (!(slash = strrchr(path, '/')) || (size_t)(slash - path) >= outlen) {
		snprintf(err, errlen, "this program's path is too long: %s", path);
		return -1;
	}
	*slash = '\0';
	snprintf(out, outlen, "%s", slash == path ? "/" : path);
	return 0;
}

#endif
