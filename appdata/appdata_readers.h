/*
 * appdata_readers - read-only connections to appdata.db kept open between
 * calls (appdata_readers.c).
 */
#ifndef APPDATA_READERS_H
#define APPDATA_READERS_H

#include <pthread.h>
#include <sqlite3.h>
#include <sys/types.h>

#define APPDATA_READERS_MAX 16

struct appdata_reader {
	sqlite3 *db;
	dev_t dev;	/* the file it has open */
	ino_t ino;
};

struct appdata_readers {
	pthread_mutex_t lock;
	struct appdata_reader idle[APPDATA_READERS_MAX];
	int nidle;
};

int appdata_readers_init(struct appdata_readers *r);
/* Close every idle connection. */
void appdata_readers_free(struct appdata_readers *r);
/* A read-only connection to path (appdata_open_ro's) into *c: an idle
 * one when it still has the file at path open, else a new one.  0, or -1
 * with err set. */
int appdata_readers_take(struct appdata_readers *r, const char *path, struct appdata_reader *c, char *err,
			 size_t errlen);
/* Give c back after a call (closed when the idle list is full). */
void appdata_readers_give(struct appdata_readers *r, const struct appdata_reader *c);

#endif
