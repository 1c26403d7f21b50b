/*
 * program_path - see program_path.h.  access(X_OK) is the test execvp
 * makes too; a race with a file that goes away right after is the
 * start's to report.
 */
#include "program_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hb_find_program(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH"), *p, *end;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	if (!*name || strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return *name && access(name, X_OK) == 0;
	}
	for (p = path; *p; p = *end ? end + 1 : end) {
		size_t len;

		if (!(end = strchr(p, ':')))
			end = p + strlen(p);
		len = (size_t)(end - p);
		if ((size_t)snprintf(out, outlen, "%.*s/%s", (int)(len ? len : 1), len ? p : ".", name) < outlen &&
		    access(out, X_OK) == 0)
			return 1;
	}
	snprintf(out, outlen, "%s", path);
	return 0;
}
