/*
 * flatdir - copy, flush and remove an explainer folder (flatdir.h).
 *
 * Everything goes through descriptors of the folders (openat, fstatat,
 * unlinkat) with O_NOFOLLOW, so a link that appears in the folder while we
 * work is removed or refused, never followed somewhere else.
 */
#include "flatdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rmtree.h"

#define COPY_CHUNK 65536

static int open_folder(const char *path)
{
	return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Why an entry that is not a regular file does not belong in the folder. */
static void refuse_entry(const char *dir, const char *name, mode_t mode, char *err, size_t errlen)
{
	const char *what = S_ISLNK(mode) ? "a symbolic link" : S_ISDIR(mode) ? "a folder" : "not a regular file";

	snprintf(err, errlen, "%s/%s is %s; an explainer folder holds only its own files (scenes, narration, "
		 "manifests)", dir, name, what);
}

static int flush_folder(int fd, const char *path, char *err, size_t errlen)
{
	/* Some file systems cannot sync a folder (EINVAL); the entries are
	 * then as durable as they allow. */
	if (fsync(fd) < 0 && errno != EINVAL) {
		snprintf(err, errlen, "cannot flush the folder %s to disk: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *buf = data;

	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int flatdir_write_file(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600), rc = -1;

	if (fd < 0 || write_all(fd, data, len) < 0 || fsync(fd) < 0)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	else
		rc = 0;
	if (fd >= 0 && close(fd) < 0 && rc == 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

/* Copies name from the folder fromfd into tofd (new file, 0600), flushed. */
static int copy_file(int fromfd, int tofd, const char *from, const char *name, char *err, size_t errlen)
{
	char buf[COPY_CHUNK];
	int in = openat(fromfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY), out = -1, rc = -1;
	ssize_t n = 0;

	if (in < 0) {
		snprintf(err, errlen, "cannot read %s/%s: %s", from, name, strerror(errno));
		return -1;
	}
	if ((out = openat(tofd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "cannot create the copy of %s/%s: %s", from, name, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(out, buf, (size_t)n) < 0)
			break;
	}
	if (n != 0)
		snprintf(err, errlen, "cannot copy %s/%s: %s", from, name, strerror(errno));
	else if (fsync(out) < 0)
		snprintf(err, errlen, "cannot flush the copy of %s/%s to disk: %s", from, name, strerror(errno));
	else
		rc = 0;
	if (close(out) < 0 && rc == 0) {
		snprintf(err, errlen, "cannot finish the copy of %s/%s: %s", from, name, strerror(errno));
		rc = -1;
	}
	close(in);
	return rc;
}

int flatdir_remove(const char *dir, char *err, size_t errlen)
{
	return hb_remove_tree(dir, err, errlen);
}

/* Makes to (0700), or accepts it when it is an empty folder: 1 when made
 * here, 0 when it was there, -1 with err. */
static int make_target(const char *to, char *err, size_t errlen)
{
	int fd, empty = 1;
	DIR *d;
	struct dirent *e;

	if (mkdir(to, 0700) == 0)
		return 1;
	if (errno != EEXIST || (fd = open_folder(to)) < 0) {
		snprintf(err, errlen, "cannot create the folder %s: %s", to, strerror(errno));
		return -1;
	}
	if ((d = hb_list_folder(fd))) {
		while (empty && (e = readdir(d)))
			empty = hb_is_dot(e->d_name);
		closedir(d);
	}
	close(fd);
	if (!d || !empty) {
		snprintf(err, errlen, "the folder %s is already there and not empty, so it cannot take the copy", to);
		return -1;
	}
	return 0;
}

/* The copy itself, between two open folders. */
static int copy_entries(int fromfd, int tofd, const char *from, char *err, size_t errlen)
{
	DIR *d = hb_list_folder(fromfd);
	struct dirent *e;
	struct stat st;
	int rc = 0;

	if (!d) {
		snprintf(err, errlen, "cannot list the folder %s: %s", from, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		if (hb_is_dot(e->d_name))
			continue;
		if (fstatat(fromfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			snprintf(err, errlen, "cannot look at %s/%s: %s", from, e->d_name, strerror(errno));
			rc = -1;
		} else if (!S_ISREG(st.st_mode)) {
			refuse_entry(from, e->d_name, st.st_mode, err, errlen);
			rc = -1;
		} else {
			rc = copy_file(fromfd, tofd, from, e->d_name, err, errlen);
		}
	}
	closedir(d);
	return rc;
}

int flatdir_copy(const char *from, const char *to, char *err, size_t errlen)
{
	int fromfd = open_folder(from), tofd = -1, made, rc = -1;
	char ignored[256];

	if (fromfd < 0) {
		snprintf(err, errlen, errno == ENOENT ? "the folder %s does not exist"
				      : errno == ELOOP ? "%s is a symbolic link, not the explainer folder itself"
						       : "cannot open the folder %s: %s",
			 from, strerror(errno));
		return -1;
	}
	if ((made = make_target(to, err, errlen)) < 0) {
		close(fromfd);
		return -1;
	}
	if ((tofd = open_folder(to)) < 0)
		snprintf(err, errlen, "cannot open the folder %s: %s", to, strerror(errno));
	else if (copy_entries(fromfd, tofd, from, err, errlen) == 0)
		rc = flush_folder(tofd, to, err, errlen);
	if (rc < 0 && tofd >= 0 && !made)
		(void)hb_remove_contents(tofd, to, ignored, sizeof ignored);
	if (tofd >= 0)
		close(tofd);
	if (rc < 0 && made)
		(void)flatdir_remove(to, ignored, sizeof ignored);
	close(fromfd);
	return rc;
}

int flatdir_sync(const char *dir, char *err, size_t errlen)
{
	int fd = open_folder(dir), rc = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open the folder %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!(d = hb_list_folder(fd))) {
		snprintf(err, errlen, "cannot list the folder %s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		int file;

		if (hb_is_dot(e->d_name))
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			snprintf(err, errlen, "cannot look at %s/%s: %s", dir, e->d_name, strerror(errno));
			rc = -1;
		} else if (!S_ISREG(st.st_mode)) {
			refuse_entry(dir, e->d_name, st.st_mode, err, errlen);
			rc = -1;
		} else if ((file = openat(fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)) < 0 ||
			   fsync(file) < 0) {
			snprintf(err, errlen, "cannot flush %s/%s to disk: %s", dir, e->d_name, strerror(errno));
			if (file >= 0)
				close(file);
			rc = -1;
		} else {
			close(file);
		}
	}
	closedir(d);
	if (rc == 0)
		rc = flush_folder(fd, dir, err, errlen);
	close(fd);
	return rc;
}
