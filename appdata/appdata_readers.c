/*
 * appdata_readers - read-only connections to appdata.db that outlive a
 * call.  Opening one per call cost more than the lookup itself: every
 * page read again into the new connection's empty cache, the schema
 * parsed, and the heap grown and given back (measured by bench-scale:
 * listSessions at 100,000 sessions took 3-4 ms of svc-sessions' CPU per
 * call, 0.3-0.6 ms on a connection kept open).  A worker takes an idle
 * connection and gives it back after its call, so no two threads ever
 * share one.  A connection stays valid across other processes' writes
 * (each read transaction sees the last commit, and SQLite re-reads a
 * changed schema); one whose file was replaced or removed is closed.
 */
#include "appdata_readers.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "appdata.h"

int appdata_readers_init(struct appdata_readers *r)
{
	memset(r, 0, sizeof *r);
	return pthread_mutex_init(&r->lock, NULL) == 0 ? 0 : -1;
}

void appdata_readers_free(struct appdata_readers *r)
{
	while (r->nidle > 0)
		appdata_close(r->idle[--r->nidle].db);
	pthread_mutex_destroy(&r->lock);
}

int appdata_readers_take(struct appdata_readers *r, const char *path, struct appdata_reader *c, char *err,
			 size_t errlen)
{
	struct appdata_reader stale[APPDATA_READERS_MAX];
	struct stat st;
	int nstale = 0, have = stat(path, &st) == 0;

	c->db = NULL;
	pthread_mutex_lock(&r->lock);
	while (r->nidle > 0 && !c->db) {
		struct appdata_reader *idle = &r->idle[--r->nidle];

		if (have && idle->dev == st.st_dev && idle->ino == st.st_ino)
			*c = *idle;
		else
			stale[nstale++] = *idle;
	}
	pthread_mutex_unlock(&r->lock);
	while (nstale > 0)
		appdata_close(stale[--nstale].db);
	if (c->db)
		return 0;
	/* The file is named before it is opened: should it be replaced in
	 * between, the next take sees a mismatch and opens again. */
	if (!(c->db = appdata_open_ro(path, err, errlen)))
		return -1;
	if (!have && stat(path, &st) != 0)
		st.st_dev = 0, st.st_ino = 0;	/* never matches a file: closed at the next take */
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	return 0;
}

void appdata_readers_give(struct appdata_readers *r, const struct appdata_reader *c)
{
	int kept = 0;
	/* Only a connection left as it was found: no transaction open, no
	 * statement left unfinalized (a stale snapshot would last forever). */
	int clean = c->db && sqlite3_get_autocommit(c->db) && !sqlite3_next_stmt(c->db, NULL);

	pthread_mutex_lock(&r->lock);
	if (clean && r->nidle < APPDATA_READERS_MAX) {
		r->idle[r->nidle++] = *c;
		kept = 1;
	}
	pthread_mutex_unlock(&r->lock);
	if (!kept)
		appdata_close(c->db);
}
