/*
 * agent_cmd - see agent_cmd.h.  A program is looked up the way execvp
 * looks it up, so that a "not found" said before a start is the same
 * answer the start itself would give, only in words a person can act on.
 */
#include "agent_cmd.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"

int hb_find_program(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH"), *p, *end;

	if (!*name) {
		snprintf(out, outlen, "%s", name);
		return 0;
	}
	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return access(name, X_OK) == 0;
	}
	for (p = path && *path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		size_t len;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		/* An empty entry is the current folder, as for execvp. */
		if ((size_t)snprintf(out, outlen, "%.*s%s%s", (int)len, len ? p : ".", "/", name) < outlen &&
		    access(out, X_OK) == 0)
			return 1;
	}
	snprintf(out, outlen, "%s", path && *path ? path : "/usr/bin:/bin");
	return 0;
}

int hb_exe_dir(const char *argv0, char *out, size_t outlen, char *err, size_t errlen)
{
	char found[PATH_MAX], real[PATH_MAX], *slash;

	if (!hb_find_program(argv0, found, sizeof found)) {
		snprintf(err, errlen, "cannot find the folder of this program: %s is not in PATH", argv0);
		return -1;
	}
	if (!realpath(found, real)) {
		snprintf(err, errlen, "cannot find the folder of this program (%s): %s", found, strerror(errno));
		return -1;
	}
	slash = strrchr(real, '/');
	*slash = '\0';
	if ((size_t)snprintf(out, outlen, "%s", real[0] ? real : "/") >= outlen) {
		snprintf(err, errlen, "the folder of this program is too long: %s", real);
		return -1;
	}
	return 0;
}

/* Split line at blanks into argv (words in buf); the count. */
static int split(const char *line, char *buf, size_t buflen, char *argv[HB_AGENT_HOST_ARGS_MAX + 1])
{
	char *save = NULL, *tok;
	int n = 0;

	if ((size_t)snprintf(buf, buflen, "%s", line) >= buflen)
		return -1;
	for (tok = strtok_r(buf, " \t", &save); tok && n < HB_AGENT_HOST_ARGS_MAX; tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	return tok ? -1 : n;
}

int hb_agent_host_argv(const struct hb_paths *p, const char *exe_dir, char *buf, size_t buflen,
		       char *argv[HB_AGENT_HOST_ARGS_MAX + 1], char *err, size_t errlen)
{
	static const char *const beside[] = { "/../agent-host/host.mjs", "/../libexec/hbcode/agent-host/host.mjs" };
	char line[PATH_MAX + 128], host[PATH_MAX + 64];
	int n;

	if (hb_settings_string(p, "agentHost", "HB_AGENT_HOST", "", line, sizeof line, err, errlen) < 0)
		return -1;
	if (*line) {
		if ((n = split(line, buf, buflen, argv)) < 0) {
			snprintf(err, errlen, "agentHost has more than %d words or is too long", HB_AGENT_HOST_ARGS_MAX);
			return -1;
		}
		if (n == 0) {
			snprintf(err, errlen, "agentHost is blank: set it to the agent host's command line, or delete it");
			return -1;
		}
		return n;
	}
	for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
		snprintf(host, sizeof host, "%s%s", exe_dir, beside[i]);
		if (access(host, R_OK) == 0) {
			snprintf(line, sizeof line, "node %s", host);
			if (split(line, buf, buflen, argv) != 2) {
				snprintf(err, errlen, "the agent host's path is too long or has blanks: %s", host);
				return -1;
			}
			return 2;
		}
	}
	snprintf(err, errlen, "the Claude agent host is not installed (no %s%s): set agentHost in settings.json "
		 "(or HB_AGENT_HOST) to its command line", exe_dir, beside[1]);
	return -1;
}
