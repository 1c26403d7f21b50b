/*
 * wake - see wake.h.  One watch per folder a wake line names
 * (lib/dirwatch.h, the watch svc-alerts and hb-mcp use too): a settings
 * file replaced by a rename, written in place, made or removed.
 */
#include "wake.h"

#include <errno.h>
#include <string.h>

#include "dirwatch.h"
#include "log.h"
#include "paths.h"

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
	for (int d = 0; d < WAKE_DIRS; d++)
		b->wake_watch[d] = NULL;
	for (int i = 0; i < b->nservices; i++) {
		int dir = b->services[i].cfg->wake;

		if (dir < 0 || dir >= WAKE_DIRS || b->wake_watch[dir])
			continue;
		if ((b->wake_watch[dir] = hb_dirwatch_open(hb_paths_dir(&b->paths, (enum hb_dir)dir))))
			continue;
		if (errno == ENOSYS)
			log_info(b->services[i].cfg->name, "this system has no watch of its wake folder: it is never "
				 "stopped for idleness");
		else
			log_warn(NULL, "no watch of the %s folder (%s): %s is never stopped for idleness",
				 dir_name(dir), strerror(errno), b->services[i].cfg->name);
	}
}

int wake_poll_fds(const struct broker *b, struct pollfd *fds)
{
	int n = 0;

	for (int d = 0; d < WAKE_DIRS; d++)
		if (b->wake_watch[d])
			fds[n++] = (struct pollfd){ .fd = hb_dirwatch_fd(b->wake_watch[d]), .events = POLLIN };
	return n;
}

void wake_read(struct broker *b)
{
	for (int d = 0; d < WAKE_DIRS; d++) {
		enum hb_dirwatch_news news = b->wake_watch[d] ? hb_dirwatch_drain(b->wake_watch[d]) : HB_DIRWATCH_QUIET;

		if (news == HB_DIRWATCH_OVER) {
			/* The folder itself went: its services start below
			 * and are never stopped for idleness again
			 * (wake_watching), as nothing would wake them. */
			log_warn(NULL, "the %s folder went away: its watch ended", dir_name(d));
			hb_dirwatch_close(b->wake_watch[d]);
			b->wake_watch[d] = NULL;
		}
		if (news != HB_DIRWATCH_QUIET)
			woken(b, d);
	}
}

int wake_watching(const struct broker *b, const struct service *s)
{
	int dir = s->cfg->wake;

	return dir < 0 || (dir < WAKE_DIRS && b->wake_watch[dir]);
}

void wake_free(struct broker *b)
{
	for (int d = 0; d < WAKE_DIRS; d++) {
		hb_dirwatch_close(b->wake_watch[d]);
		b->wake_watch[d] = NULL;
	}
}
