/*
 * dirwatch_other - dirwatch.h where there is no inotify (macOS, the
 * BSDs): no watch, so every caller keeps its own answer for a system
 * without one (a look on a timer, or never idling what a change would
 * wake).  kqueue's EVFILT_VNODE on the folder's descriptor would be the
 * native watch there; it is not written, as it could not be built and
 * tested here.
 */
#ifndef __linux__

#include "dirwatch.h"

#include <errno.h>
#include <stddef.h>

struct hb_dirwatch {
	int fd;
};

struct hb_dirwatch *hb_dirwatch_open(const char *dir)
{
	(void)dir;
	errno = ENOSYS;
	return NULL;
}

int hb_dirwatch_fd(const struct hb_dirwatch *w)
{
	return w->fd;
}

enum hb_dirwatch_news hb_dirwatch_drain(struct hb_dirwatch *w)
{
	(void)w;
	return HB_DIRWATCH_OVER;
}

void hb_dirwatch_close(struct hb_dirwatch *w)
{
	(void)w;
}

#endif
