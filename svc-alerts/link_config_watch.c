/*
 * link_config_watch - the watch of the config folder declared in
 * link_config.h: on Linux an inotify descriptor read by a thread of its
 * own, which counts the changes and wakes the link's task, so the task's
 * loop needs no descriptor more and no timer to see a settings change.
 * The settings files are replaced by a rename (settings_file.c), written
 * in place, made or removed: each is a change of the folder.  When the
 * folder itself goes, the watch ends and the task reads the settings on
 * its timer again.  Elsewhere there is no watch.
 */
#include "link_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service_task.h"

#ifdef __linux__
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/inotify.h>
#include <unistd.h>

#define WATCH_EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | \
		      IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

struct link_config_watch {
	pthread_t thread;
	int inotify, stop[2];
	struct hb_task *task;
	atomic_ulong changes;
	atomic_int over;      /* the folder went, or a read failed: read on the timer */
};

/* Read every queued event; 1 when one says the folder itself is gone. */
static int drain(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int gone = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (char *p = buf; p < buf + n; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
			if (((struct inotify_event *)p)->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF))
				gone = 1;
	return gone || (n < 0 && errno != EAGAIN && errno != EINTR);
}

static void *watch_main(void *arg)
{
	struct link_config_watch *w = arg;

	for (;;) {
		struct pollfd fds[2] = { { w->inotify, POLLIN, 0 }, { w->stop[0], POLLIN, 0 } };

		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			atomic_store(&w->over, 1);
		} else if (fds[1].revents) {
			return NULL;
		} else if (fds[0].revents && drain(w->inotify)) {
			atomic_store(&w->over, 1);
		}
		atomic_fetch_add(&w->changes, 1);
		hb_task_wake(w->task);
		if (atomic_load(&w->over))
			return NULL;
	}
}

struct link_config_watch *link_config_watch(const struct hb_paths *p, struct hb_task *task, char *err,
					    size_t errlen)
{
	struct link_config_watch *w = calloc(1, sizeof *w);
	int rc;

	err[0] = '\0';
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->task = task;
	w->stop[0] = w->stop[1] = -1;
	if ((w->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0 ||
	    inotify_add_watch(w->inotify, p->config, WATCH_EVENTS) < 0 || pipe(w->stop) < 0)
		rc = errno;
	else
		rc = pthread_create(&w->thread, NULL, watch_main, w);
	if (rc == 0)
		return w;
	if (rc != ENOENT) /* no config folder yet: no watch, and nothing to say */
		snprintf(err, errlen, "%s", strerror(rc));
	if (w->inotify >= 0)
		close(w->inotify);
	for (int i = 0; i < 2; i++)
		if (w->stop[i] >= 0)
			close(w->stop[i]);
	free(w);
	return NULL;
}

int link_config_watching(const struct link_config_watch *w)
{
	return w && !atomic_load(&w->over);
}

unsigned long link_config_changes(const struct link_config_watch *w)
{
	return w ? atomic_load(&w->changes) : 0;
}

void link_config_unwatch(struct link_config_watch *w)
{
	if (!w)
		return;
	(void)!write(w->stop[1], "s", 1);
	pthread_join(w->thread, NULL);
	close(w->inotify);
	close(w->stop[0]);
	close(w->stop[1]);
	free(w);
}

#else

struct link_config_watch *link_config_watch(const struct hb_paths *p, struct hb_task *task, char *err,
					    size_t errlen)
{
	(void)p;
	(void)task;
	snprintf(err, errlen, "this system has no inotify");
	return NULL;
}

int link_config_watching(const struct link_config_watch *w)
{
	(void)w;
	return 0;
}

unsigned long link_config_changes(const struct link_config_watch *w)
{
	(void)w;
	return 0;
}

void link_config_unwatch(struct link_config_watch *w)
{
	(void)w;
}

#endif
