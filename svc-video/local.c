/*
 * local - open once, then check the open file (fstat, its first bytes
 * with pread), and upload from that same descriptor: the file checked is
 * the file sent even if the path changes meanwhile.  realpath names the
 * file in messages and in Gemini; it must lead to the very file opened
 * (same device and inode), or the path changed under us and the call
 * fails.  O_NONBLOCK keeps a FIFO at that path from hanging the call in
 * open().
 */
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "video_magic.h"
#include "video_mime.h"
#include "utf8.h"

/* The last path component, cut to fit without splitting a UTF-8 sequence. */
static void display_name(const char *path, char *out, size_t outlen)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = hb_utf8_fit(base, strlen(base), (size_t)-1, outlen - 1);
	memcpy(out, base, n);
	out[n] = '\0';
}

static int refuse(struct video_local *l, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* err, the file closed, -1. */
static int refuse(struct video_local *l, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	video_local_close(l);
	return -1;
}

/* The first bytes of the open file (all of it when shorter); -1 on a read
 * error. */
static ssize_t read_head(int fd, unsigned char *head, size_t want)
{
	size_t done = 0;

	while (done < want) {
		ssize_t n = pread(fd, head + done, want - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* The real path, which must be the file open on fd (st): 0, or -1. */
static int real_path(const char *path, const struct stat *st, char *real)
{
	struct stat rst;

	return realpath(path, real) && stat(real, &rst) == 0 && rst.st_dev == st->st_dev && rst.st_ino == st->st_ino
		       ? 0
		       : -1;
}

int video_local_open(const char *path, struct video_local *out, char *err, size_t errlen)
{
	unsigned char head[VIDEO_MAGIC_BYTES];
	char real[PATH_MAX], which[340] = "";
	const char *named, *container;
	struct stat st;
	ssize_t n;

	memset(out, 0, sizeof *out);
	out->fd = -1;
	if (!(named = video_mime_for_path(path)))
		return refuse(out, err, errlen, "local_file \"%.300s\" is not a video type Gemini reads; the name must "
			      "end in one of %s", path, video_mime_extensions());
	if ((out->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return refuse(out, err, errlen, "cannot open local_file \"%.300s\": %s", path,
			      errno == ENOENT ? "there is no such file" : strerror(errno));
	if (fstat(out->fd, &st) < 0)
		return refuse(out, err, errlen, "cannot read local_file \"%.300s\": %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return refuse(out, err, errlen, "local_file \"%.300s\" is %s, not a regular file", path,
			      S_ISDIR(st.st_mode) ? "a folder" : "a device, pipe or socket");
	if (real_path(path, &st, real) < 0)
		return refuse(out, err, errlen, "local_file \"%.300s\" changed while it was being opened; try again",
			      path);
	/* Through a link, say which file it is: that one is checked and sent. */
	if (strcmp(real, path) != 0)
		snprintf(which, sizeof which, " (which is \"%.300s\")", real);
	if (st.st_size == 0)
		return refuse(out, err, errlen, "local_file \"%.300s\"%s is empty", path, which);
	if (st.st_size > VIDEO_FILE_MAX_BYTES)
		return refuse(out, err, errlen, "local_file \"%.300s\"%s is larger than the 2 GB Gemini accepts per file",
			      path, which);
	if ((n = read_head(out->fd, head, sizeof head)) < 0)
		return refuse(out, err, errlen, "cannot read local_file \"%.300s\"%s: %s", path, which, strerror(errno));
	out->mime = video_magic_type(head, (size_t)n, (long long)st.st_size, named, &container);
	if (!out->mime && container)
		return refuse(out, err, errlen, "local_file \"%.300s\"%s is a %s video, a type Gemini does not read (it "
			      "reads %s)", path, which, container, video_magic_list());
	if (!out->mime)
		return refuse(out, err, errlen, "local_file \"%.300s\"%s is not a video: its contents are none of the "
			      "video types Gemini reads (%s), whatever its name says", path, which, video_magic_list());
	out->size = (long long)st.st_size;
	display_name(real, out->display_name, sizeof out->display_name);
	return 0;
}

void video_local_close(struct video_local *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
