/*
 * link_config - whether the relay link may be up, read from the settings
 * on each look (never cached, so a change takes effect at once), and if
 * not, the sentence that tells the user what to do.  The link task and
 * the tool ask the same question, so they give the same answer.
 *
 * The link task learns of a change through a watch of the config folder
 * (lib/dirwatch.h, inotify on Linux, on a thread of its own that wakes
 * the task), so it reads
 * the settings when they may have changed instead of every second (issue
 * 38: nothing awake when idle).  Where there is no watch (another system,
 * no config folder yet, or the folder went away) it reads them every
 * second, as it always did (link.c).
 */
#ifndef ALERTS_LINK_CONFIG_H
#define ALERTS_LINK_CONFIG_H

#include <stddef.h>

#include "paths.h"
#include "settings.h"

#define LINK_REASON_MAX 1024
#define LINK_SETTINGS_WATCHED_MS 60000 /* with a watch: a look all the same, in case one was missed */

struct hb_task;
struct link_config_watch;

struct link_config {
	int wanted;                        /* remote access on, signed in, a relay URL */
	char url[HB_RELAY_URL_MAX + 1];    /* the relay's URL when wanted */
	char ca_file[HB_PATH_MAX];         /* trusted CAs for wss, "" for the system's */
	char reason[LINK_REASON_MAX];      /* why not, when not wanted: what the user can do */
};

/* Fill *out from the settings of p.  A broken settings file is not
 * wanted, with the file's sentence as the reason.  Never fails. */
void link_config_read(const struct hb_paths *p, struct link_config *out);

/* Watch p's config folder, waking task at each change there; NULL where
 * there can be no watch, with why in err ("" when the folder is not there
 * yet). */
struct link_config_watch *link_config_watch(const struct hb_paths *p, struct hb_task *task, char *err,
					    size_t errlen);
/* 1 while w watches (not NULL, and its folder is still there). */
int link_config_watching(const struct link_config_watch *w);
/* How many changes w has seen so far: a new count means read again. */
unsigned long link_config_changes(const struct link_config_watch *w);
void link_config_unwatch(struct link_config_watch *w);

#endif
