/*
 * dirwatch - a watch of one folder, for a program that sleeps in poll():
 * it hands out a descriptor that becomes readable when something in the
 * folder changed, and says what it saw.  Made for folders whose files are
 * replaced by a rename (write a temporary file, rename it over the old
 * one), written in place, made or removed: the settings and the secrets of
 * the config folder, which hb-broker (its wake lines), svc-alerts (the
 * relay link) and hb-mcp (list_changed) all react to, so that none of them
 * wakes on a timer to look.
 *
 * On Linux an inotify descriptor (dirwatch_linux.c).  Elsewhere there is
 * no watch (dirwatch_other.c): hb_dirwatch_open fails with ENOSYS, and the
 * caller looks at the folder on a timer instead, or does without.
 */
#ifndef HB_DIRWATCH_H
#define HB_DIRWATCH_H

struct hb_dirwatch;

/* What a drain found. */
enum hb_dirwatch_news {
	HB_DIRWATCH_QUIET,   /* nothing changed */
	HB_DIRWATCH_CHANGED, /* a file of the folder was made, replaced, written, removed or re-permissioned */
	HB_DIRWATCH_OVER,    /* the folder itself was removed or moved, or the watch failed: it sees nothing
			      * more (count it as a change; close it) */
};

/* Watch the folder dir: a watch, or NULL with errno set: ENOSYS where the
 * system has no watch (look on a timer), ENOENT or ENOTDIR when there is
 * no such folder, another errno when it cannot be watched. */
struct hb_dirwatch *hb_dirwatch_open(const char *dir);
/* The descriptor to poll for POLLIN (it never blocks a read). */
int hb_dirwatch_fd(const struct hb_dirwatch *w);
/* Read everything queued, without waiting. */
enum hb_dirwatch_news hb_dirwatch_drain(struct hb_dirwatch *w);
/* Close w (NULL is nothing). */
void hb_dirwatch_close(struct hb_dirwatch *w);

#endif
