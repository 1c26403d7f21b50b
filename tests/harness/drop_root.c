/*
 * drop_root - a test of what an ordinary user's processes may do runs as
 * an ordinary user: root passes checks (files, signals) that the user
 * fails, and CI runs as root.  fx_drop_root copies the build's programs,
 * the deployed config and the sanitizers' suppressions to a folder
 * nobody may read (a clone under a private folder may not be), hands it
 * to nobody, and runs the test again there as nobody with setpriv.
 */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOBODY "65534"

static void remove_copy(void)
{
	const char *copy = getenv("HB_DROPPED_COPY");
	char cmd[600];

	if (copy && strncmp(copy, "/tmp/hbdrop.", 12) == 0 && !strchr(copy, '\'')) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", copy);
		if (system(cmd) != 0)
			fprintf(stderr, "harness: could not remove %s\n", copy);
	}
}

int fx_drop_root(char **argv)
{
	const char *build = getenv("HB_BUILD"), *lsan = getenv("LSAN_OPTIONS");
	char copy[64] = "/tmp/hbdrop.XXXXXX", cmd[4096], self[700], exe[700], opts[1200];
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	ssize_t n;

	if (geteuid() != 0) {
		if (getenv("HB_DROPPED_COPY")) {
			printf("note: running as uid %ld (dropped from root), from %s\n", (long)geteuid(),
			       getenv("HB_DROPPED_COPY"));
			atexit(remove_copy);
		}
		return 0;
	}
	if (!build)
		build = "build";
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) < 0)
		return fprintf(stderr, "harness: cannot find this test's program: %s\n", strerror(errno)), -1;
	self[n] = '\0';
	if (!mkdtemp(copy))
		return fprintf(stderr, "harness: cannot make %s: %s\n", copy, strerror(errno)), -1;
	snprintf(cmd, sizeof cmd,
		 "set -e; mkdir -p %s/build/tests %s/deploy; "
		 "find '%s' -maxdepth 1 -type f -perm -u+x -exec cp {} %s/build/ \\;; "
		 "cp '%s' %s/build/tests/%s; cp '%s/../deploy/services.conf' %s/deploy/ 2>/dev/null || "
		 "cp deploy/services.conf %s/deploy/; cp tests/lsan.supp %s/ 2>/dev/null || true; "
		 "chown -R " NOBODY ":" NOBODY " %s; chmod 0755 %s",
		 copy, copy, build, copy, self, copy, name, build, copy, copy, copy, copy, copy);
	if (system(cmd) != 0)
		return fprintf(stderr, "harness: cannot copy the build to %s for nobody\n", copy), -1;
	snprintf(exe, sizeof exe, "%s/build/tests/%s", copy, name);
	snprintf(cmd, sizeof cmd, "%s/build", copy);
	if (setenv("HB_BUILD", cmd, 1) < 0 || setenv("HB_DROPPED_COPY", copy, 1) < 0 || setenv("HOME", copy, 1) < 0)
		return -1;
	unsetenv("XDG_CONFIG_HOME");
	if (lsan && strstr(lsan, "suppressions=")) {
		snprintf(opts, sizeof opts, "suppressions=%s/lsan.supp", copy);
		setenv("LSAN_OPTIONS", opts, 1);
	}
	if (chdir(copy) < 0)
		return fprintf(stderr, "harness: cannot enter %s: %s\n", copy, strerror(errno)), -1;
	fflush(NULL);
	execl("/usr/bin/setpriv", "setpriv", "--reuid=" NOBODY, "--regid=" NOBODY, "--clear-groups", "--", exe,
	      (char *)NULL);
	fprintf(stderr, "harness: cannot run setpriv to drop to nobody: %s\n", strerror(errno));
	return -1;
}
