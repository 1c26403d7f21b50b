/*
 * private_file - see private_file.h.  A file that is there is judged by
 * lstat and changed by path, never opened (narrow() says why); a link
 * planted in the folder is refused rather than followed.
 */
#include "private_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"

/* path to mode 0600 when it is a regular file of ours with more.  Never
 * opened: the process may hold SQLite connections to it, and closing any
 * descriptor of a file drops every POSIX lock the process holds on it, so
 * another connection would take the -shm file for unused and truncate it
 * under a reader's mapping (SIGBUS).  The folder is this user's alone
 * (0700), so nothing replaces the file between the look and the change. */
static int narrow(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot look at %s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s is a symbolic link; move it aside", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file; move it aside", path);
		return -1;
	}
	if ((st.st_mode & 0777) == 0600 || st.st_uid != geteuid())
		return 0; /* another owner's file: SQLite's open says what is wrong */
	if (chmod(path, 0600) < 0) {
		snprintf(err, errlen, "cannot make %s private (mode 0600): %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* path made 0600; created (empty) when create is set and it is missing. */
static int make_private(const char *path, int create, char *err, size_t errlen)
{
	int fd;

	/* O_EXCL: a new file is ours and nobody holds it yet, so closing it
	 * drops no lock; made 0600 whatever the umask. */
	if (create && (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0) {
		close(fd);
		return 0;
	}
	if (create && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	return narrow(path, err, errlen);
}

int hb_db_files_private(const char *db_path, char *err, size_t errlen)
{
	static const char *const beside[] = { "-wal", "-shm", "-journal" };
	char path[HB_PATH_MAX + 16];

	/* SQLite's names for a database that is no file: nothing to create. */
	if (!*db_path || !strcmp(db_path, ":memory:"))
		return 0;
	if (make_private(db_path, 1, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
		if (snprintf(path, sizeof path, "%s%s", db_path, beside[i]) >= (int)sizeof path) {
			snprintf(err, errlen, "the path %s is too long", db_path);
			return -1;
		}
		if (make_private(path, 0, err, errlen) < 0)
			return -1;
	}
	return 0;
}
