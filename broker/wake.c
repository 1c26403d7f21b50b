/*
 * wake - see wake.h.  The same events as svc-alerts' own watch of the
 * folder (svc-alerts/link_config_watch.c): a settings file is replaced by
 * a rename, written in place, made or removed.
 */
#include "wake.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "paths.h"

#ifdef __linux__
#include <sys/inotify.h>

#define WAKE_EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | \
		     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
#endif

#define NDIRS ((int)(sizeof ((struct broker *)0)->wake_wd / sizeof(int)))

static const char *dir_name(int dir)
{
	return dir == HB_DIR_CONFIG ? "config" : dir == HB_DIR_DATA ? "data" : dir == HB_DIR_CACHE ? "cache" : "?";
}

/* Every service whose wake folder is dir: started at the next tick when
 * stopped; a running one's ask still out is void. */
static void woken(struct broker *b, int dir)
{
	for (int i = 0; i < b->nservices; i++) {
		struct service *s = &b->services[i];

		if (s->cfg->wake != dir)
			continue;
		if (s->cur)
			s->cur->idle_ask = 0;
		else if (!s->next && !s->admin_stopped && !b->stopping && !s->wake_pending) {
			log_info(s->cfg->name, "its %s folder changed: starting it (wake = %s)", dir_name(dir),
				 dir_name(dir));
			s->wake_pending = 1;
		}
	}
}

void wake_init(struct broker *b)
{
	b->wake_fd = -1;
	for (int d = 0; d < NDIRS; d++)
		b->wake_wd[d] = -1;
#ifdef __linux__
	for (int i = 0; i < b->nservices; i++) {
		int dir = b->services[i].cfg->wake;

		if (dir < 0 || dir >= NDIRS || b->wake_wd[dir] >= 0)
			continue;
		if (b->wake_fd < 0 && (b->wake_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
			log_warn(NULL, "no watch of the wake folders (%s): the services with a wake line are never "
				 "stopped for idleness", strerror(errno));
			return;
		}
		if ((b->wake_wd[dir] = inotify_add_watch(b->wake_fd, hb_paths_dir(&b->paths, (enum hb_dir)dir),
							 WAKE_EVENTS)) < 0)
			log_warn(NULL, "no watch of the %s folder (%s): %s is never stopped for idleness",
				 dir_name(dir), strerror(errno), b->services[i].cfg->name);
	}
#else
	for (int i = 0; i < b->nservices; i++)
		if (b->services[i].cfg->wake >= 0)
			log_info(b->services[i].cfg->name, "this system has no inotify to watch its wake folder: it "
				 "is never stopped for idleness");
#endif
}

int wake_poll_fd(const struct broker *b, struct pollfd *fd)
{
	if (b->wake_fd < 0)
		return 0;
	fd->fd = b->wake_fd;
	fd->events = POLLIN;
	fd->revents = 0;
	return 1;
}

void wake_read(struct broker *b)
{
#ifdef __linux__
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int changed[NDIRS] = { 0 };
	ssize_t n;

	while ((n = read(b->wake_fd, buf, sizeof buf)) > 0)
		for (char *p = buf; p < buf + n; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			for (int d = 0; d < NDIRS; d++) {
				if (ev->wd != b->wake_wd[d])
					continue;
				changed[d] = 1;
				/* The folder itself went: its services start
				 * below and are never stopped for idleness again
				 * (wake_watching), as nothing would wake them. */
				if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
					log_warn(NULL, "the %s folder went away: its watch ended", dir_name(d));
					b->wake_wd[d] = -1;
				}
			}
		}
	for (int d = 0; d < NDIRS; d++)
		if (changed[d])
			woken(b, d);
#else
	(void)b;
	(void)woken;
#endif
}

int wake_watching(const struct broker *b, const struct service *s)
{
	int dir = s->cfg->wake;

	return dir < 0 || (dir < NDIRS && b->wake_wd[dir] >= 0);
}

void wake_free(struct broker *b)
{
	if (b->wake_fd >= 0)
		close(b->wake_fd);
	b->wake_fd = -1;
}
