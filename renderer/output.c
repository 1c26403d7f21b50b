/*
 * output - the video reaches its target path whole or not at all (see
 * output.h).  The temporary file sits beside the target so that rename(2)
 * is atomic, and its name carries our pid so that a later run can tell the
 * leftover of a killed render (pid gone) from a render still going on.
 */
#include "output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PART_SUFFIX ".part"
#define PART_RANDOM "XXXXXX"

/* "dir" and "name" of a target path: "a/b.mp4" -> "a", "b.mp4"; "b.mp4" -> ".", "b.mp4". */
static int split_target(const char *target, char **dir, char **name)
{
	const char *slash = strrchr(target, '/');

	if (!slash) {
		*dir = strdup(".");
		*name = strdup(target);
	} else {
		size_t dlen = slash == target ? 1 : (size_t)(slash - target);
		*dir = strndup(target, dlen);
		*name = strdup(slash + 1);
	}
	return *dir && *name ? 0 : -1;
}

static char *join3(const char *a, const char *b, const char *c)
{
	size_t len = strlen(a) + strlen(b) + strlen(c) + 1;
	char *s = malloc(len);

	if (s)
		snprintf(s, len, "%s%s%s", a, b, c);
	return s;
}

/* The pid in NAME when it is ".TARGET.hb-PID-XXXXXX.part" for our target,
 * else 0. */
static pid_t leftover_pid(const char *entry, const char *prefix)
{
	size_t plen = strlen(prefix), rlen = strlen(PART_RANDOM), slen = strlen(PART_SUFFIX);
	const char *p = entry + plen;
	char *end;
	long pid;

	if (strncmp(entry, prefix, plen) != 0 || *p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || pid <= 0 || (pid_t)pid != pid || *end != '-' || strlen(end + 1) != rlen + slen ||
	    strcmp(end + 1 + rlen, PART_SUFFIX) != 0)
		return 0;
	return (pid_t)pid;
}

/* Removes the temporary files of our target left by processes that are gone
 * (SIGKILL, power loss).  Best effort: a leftover we cannot remove costs
 * disk space, not correctness, so it does not stop this render. */
static void remove_leftovers(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t pid = leftover_pid(e->d_name, prefix);

		if (pid > 0 && pid != getpid() && kill(pid, 0) == -1 && errno == ESRCH)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* Why the folder cannot take the video, or 0 when it looks usable. */
static int check_places(const char *target, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		snprintf(err, errlen, errno == ENOENT ? "the folder %s for the video does not exist"
						       : "cannot use the folder %s for the video: %s",
			 dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a folder, so the video cannot be written into it", dir);
		return -1;
	}
	if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a folder; give the path of the video file to write", target);
		return -1;
	}
	return 0;
}

int output_begin(struct output *o, const char *target, char *err, size_t errlen)
{
	char *dir = NULL, *name = NULL, *prefix = NULL, pidpart[32];
	int fd = -1;

	memset(o, 0, sizeof *o);
	if (!target[0] || target[strlen(target) - 1] == '/') {
		snprintf(err, errlen, "\"%s\" names no file: give the path of the video file to write", target);
		return -1;
	}
	if (split_target(target, &dir, &name) < 0)
		goto oom;
	if (check_places(target, dir, err, errlen) < 0)
		goto fail;
	if (!(prefix = join3("/.", name, ".hb-")))
		goto oom;
	remove_leftovers(dir, prefix + 1);
	snprintf(pidpart, sizeof pidpart, "%ld-", (long)getpid());
	free(name);
	name = join3(prefix, pidpart, PART_RANDOM PART_SUFFIX);
	o->target = strdup(target);
	o->tmp = name ? join3(dir, name, "") : NULL;
	if (!o->target || !o->tmp)
		goto oom;
	if ((fd = mkstemps(o->tmp, (int)strlen(PART_SUFFIX))) < 0) {
		snprintf(err, errlen, "cannot create a file in the folder %s for the video: %s", dir,
			 strerror(errno));
		goto fail;
	}
	if (close(fd) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", o->tmp, strerror(errno));
		(void)unlink(o->tmp);
		goto fail;
	}
	free(dir);
	free(name);
	free(prefix);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(o->target);
	free(o->tmp);
	memset(o, 0, sizeof *o);
	free(dir);
	free(name);
	free(prefix);
	return -1;
}

/* The umask, without changing it even for a moment when Linux can tell
 * (umask(2) can only be read by setting it, which races with threads that
 * create files). */
static mode_t current_umask(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	unsigned mask;
	mode_t old;

	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "Umask: %o", &mask) == 1) {
			fclose(f);
			return (mode_t)mask & 0777;
		}
	}
	if (f)
		fclose(f);
	old = umask(022);
	umask(old);
	return old;
}

/* Flushes the folder's entry of the renamed file to disk.  Some file
 * systems cannot sync a folder (EINVAL); the rename is then as durable as
 * they allow. */
static int sync_folder(const char *target)
{
	char *dir = NULL, *name = NULL;
	int fd, rc = -1;

	if (split_target(target, &dir, &name) == 0 && (fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		rc = fsync(fd) == 0 || errno == EINVAL ? 0 : -1;
		if (close(fd) < 0)
			rc = -1;
	}
	free(dir);
	free(name);
	return rc;
}

int output_commit(struct output *o, char *err, size_t errlen)
{
	int fd = open(o->tmp, O_WRONLY | O_CLOEXEC), rc = -1;

	if (fd < 0 || fchmod(fd, 0666 & ~current_umask()) < 0 || fsync(fd) < 0) {
		snprintf(err, errlen, "cannot finish writing %s: %s", o->tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
	} else if (close(fd) < 0) {
		snprintf(err, errlen, "cannot finish writing %s: %s", o->tmp, strerror(errno));
	} else if (rename(o->tmp, o->target) < 0) {
		snprintf(err, errlen, "cannot move the finished video to %s: %s", o->target, strerror(errno));
	} else {
		free(o->tmp);
		o->tmp = NULL;
		if (sync_folder(o->target) < 0)
			snprintf(err, errlen, "wrote %s, but cannot flush its folder to disk: %s", o->target,
				 strerror(errno));
		else
			rc = 0;
	}
	output_abort(o);
	return rc;
}

void output_abort(struct output *o)
{
	if (o->tmp)
		(void)unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->tmp = NULL;
	o->target = NULL;
}

int output_write_file(const char *target, const void *data, size_t len, char *err, size_t errlen)
{
	struct output o;
	FILE *f;

	if (output_begin(&o, target, err, errlen) < 0)
		return -1;
	if (!(f = fopen(o.tmp, "w")) || fwrite(data, 1, len, f) != len) {
		snprintf(err, errlen, "cannot write %s: %s", o.tmp, strerror(errno));
		if (f)
			fclose(f);
		output_abort(&o);
		return -1;
	}
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", o.tmp, strerror(errno));
		output_abort(&o);
		return -1;
	}
	return output_commit(&o, err, errlen);
}
