/*
 * local - open first, then check the open file (fstat), so that the file
 * checked is the file sent even if the path changes meanwhile.  O_NONBLOCK
 * keeps a FIFO at that path from hanging the call in open().
 */
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "video_mime.h"

/* The last path component, cut to fit without splitting a UTF-8 sequence. */
static void display_name(const char *path, char *out, size_t outlen)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n >= outlen) {
		n = outlen - 1;
		while (n > 0 && ((unsigned char)base[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(out, base, n);
	out[n] = '\0';
}

int video_local_open(const char *path, struct video_local *out, char *err, size_t errlen)
{
	struct stat st;

	memset(out, 0, sizeof *out);
	out->fd = -1;
	if (!(out->mime = video_mime_for_path(path))) {
		snprintf(err, errlen, "local_file \"%.300s\" is not a video type Gemini reads; the name must end in one "
			 "of %s", path, video_mime_extensions());
		return -1;
	}
	if ((out->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0) {
		snprintf(err, errlen, "cannot open local_file \"%.300s\": %s", path,
			 errno == ENOENT ? "there is no such file" : strerror(errno));
		return -1;
	}
	if (fstat(out->fd, &st) < 0) {
		snprintf(err, errlen, "cannot read local_file \"%.300s\": %s", path, strerror(errno));
		video_local_close(out);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "local_file \"%.300s\" is %s, not a regular file", path,
			 S_ISDIR(st.st_mode) ? "a folder" : "a device, pipe or socket");
		video_local_close(out);
		return -1;
	}
	if (st.st_size == 0 || st.st_size > VIDEO_FILE_MAX_BYTES) {
		snprintf(err, errlen, st.st_size == 0 ? "local_file \"%.300s\" is empty"
						      : "local_file \"%.300s\" is larger than the 2 GB Gemini accepts per file",
			 path);
		video_local_close(out);
		return -1;
	}
	out->size = (long long)st.st_size;
	display_name(path, out->display_name, sizeof out->display_name);
	return 0;
}

void video_local_close(struct video_local *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
