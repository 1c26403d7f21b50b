/*
 * dirwatch_linux - dirwatch.h on inotify: one descriptor per folder, for
 * the events a rename-written file makes (IN_MOVED_TO over the old one,
 * IN_MOVED_FROM, IN_CREATE and IN_CLOSE_WRITE of the temporary file),
 * a write in place (IN_CLOSE_WRITE), a removal (IN_DELETE), a chmod
 * (IN_ATTRIB), and the folder's own end (IN_DELETE_SELF, IN_MOVE_SELF,
 * then IN_IGNORED when the kernel drops the watch).
 */
#ifdef __linux__

#include "dirwatch.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <unistd.h>

#define DIRWATCH_EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | \
			 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

struct hb_dirwatch {
	int fd;
	int over; /* the folder went or a read failed: nothing more is seen */
};

struct hb_dirwatch *hb_dirwatch_open(const char *dir)
{
	struct hb_dirwatch *w = calloc(1, sizeof *w);
	int saved;

	if (!w)
		return NULL;
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) >= 0 &&
	    inotify_add_watch(w->fd, dir, DIRWATCH_EVENTS) >= 0)
		return w;
	saved = errno;
	if (w->fd >= 0)
		close(w->fd);
	free(w);
	errno = saved;
	return NULL;
}

int hb_dirwatch_fd(const struct hb_dirwatch *w)
{
	return w->fd;
}

enum hb_dirwatch_news hb_dirwatch_drain(struct hb_dirwatch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int changed = 0;
	ssize_t n;

	while ((n = read(w->fd, buf, sizeof buf)) > 0) {
		changed = 1;
		for (char *p = buf; p < buf + n; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
			if (((struct inotify_event *)p)->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF))
				w->over = 1;
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		w->over = 1;
	return w->over ? HB_DIRWATCH_OVER : changed ? HB_DIRWATCH_CHANGED : HB_DIRWATCH_QUIET;
}

void hb_dirwatch_close(struct hb_dirwatch *w)
{
	if (!w)
		return;
	close(w->fd);
	free(w);
}

#endif
