/*
 * link_config_watch - the watch of the config folder declared in
 * link_config.h: a watch of the folder (lib/dirwatch.h, inotify on Linux)
 * read by a thread of its own, which counts the changes and wakes the
 * link's task, so the task's loop needs no descriptor more and no timer
 * to see a settings change.  The settings files are replaced by a rename
 * (settings_file.c), written in place, made or removed: each is a change
 * of the folder.  When the folder itself goes, the watch ends and the task
 * reads the settings on its timer again.  Where the system has no watch,
 * there is none here either.
 */
#include "link_config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirwatch.h"
#include "service_task.h"

struct link_config_watch {
	pthread_t thread;
	struct hb_dirwatch *folder;
	int stop[2];
	struct hb_task *task;
	atomic_ulong changes;
	atomic_int over;      /* the folder went, or a read failed: read on the timer */
};

static void *watch_main(void *arg)
{
	struct link_config_watch *w = arg;

	for (;;) {
		struct pollfd fds[2] = { { hb_dirwatch_fd(w->folder), POLLIN, 0 }, { w->stop[0], POLLIN, 0 } };

		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			atomic_store(&w->over, 1);
		} else if (fds[1].revents) {
			return NULL;
		} else if (fds[0].revents && hb_dirwatch_drain(w->folder) == HB_DIRWATCH_OVER) {
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
	if (!(w->folder = hb_dirwatch_open(p->config)) || pipe(w->stop) < 0)
		rc = errno;
	else
		rc = pthread_create(&w->thread, NULL, watch_main, w);
	if (rc == 0)
		return w;
	if (rc == ENOSYS)
		snprintf(err, errlen, "this system has no watch of a folder");
	else if (rc != ENOENT) /* no config folder yet: no watch, and nothing to say */
		snprintf(err, errlen, "%s", strerror(rc));
	hb_dirwatch_close(w->folder);
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
	hb_dirwatch_close(w->folder);
	close(w->stop[0]);
	close(w->stop[1]);
	free(w);
}
