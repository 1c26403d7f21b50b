/*
 * spool - see spool.h.  One table; a row is one alert between its receipt
 * and the relay's ack.  A second, spool_aside, keeps the rows that could
 * not be sent (damaged, or edited by hand) out of the way of every pass.
 *
 * seq is INTEGER PRIMARY KEY AUTOINCREMENT: SQLite then never hands out a
 * number again, not even after the last row was removed and the file was
 * reopened, so "the next one after seq N" stays the order of the adds for
 * a sender that remembers how far it got.  Each statement is its own
 * transaction: an add or a remove is one row, and nothing spans two.
 *
 * Like appdata.db, every thread opens its own connection (NOMUTEX), WAL
 * lets the sender read while a call adds, and busy_timeout covers the
 * short moments two writers meet.  Unlike appdata.db, synchronous is FULL;
 * see open_db.
 */
#include "spool.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "private_file.h"
#include "random.h"

#define SPOOL_BUSY_TIMEOUT_MS 5000

struct spool {
	sqlite3 *db;
	char *path;  /* for the sentences */
};

/* The schema by user_version.  Steps are only appended: a file in the
 * field carries the number of the last step it got. */
static const char *const schema_steps[] = {
	/* 1: the queue itself. */
	"CREATE TABLE spool ("
	" seq INTEGER PRIMARY KEY AUTOINCREMENT,"
	" id TEXT NOT NULL UNIQUE,"
	" session_id TEXT NOT NULL,"
	" run_id TEXT NOT NULL,"
	" session_title TEXT NOT NULL,"
	" title TEXT NOT NULL,"
	" body TEXT NOT NULL,"
	" created_at_ms INTEGER NOT NULL)",
	/* 2: damaged rows moved aside (spool_next), kept as they were
	 * (no types: a damaged value may be of any) for a person to read. */
	"CREATE TABLE spool_aside ("
	" seq INTEGER PRIMARY KEY,"
	" id, session_id, run_id, session_title, title, body, created_at_ms,"
	" reason TEXT NOT NULL,"
	" moved_at_ms INTEGER NOT NULL)",
};
#define SCHEMA_LATEST ((int)(sizeof schema_steps / sizeof schema_steps[0]))

/* A sentence for the last error of db; a file that is not a database or a
 * damaged one says what to do, since no retry will help.  Always -1. */
static int db_error(const char *path, sqlite3 *db, const char *what, char *err, size_t errlen)
{
	int code = db ? sqlite3_extended_errcode(db) & 0xff : SQLITE_NOMEM;
	const char *msg = db ? sqlite3_errmsg(db) : "out of memory";

	if (code == SQLITE_NOTADB)
		snprintf(err, errlen,
			 "%s is not an SQLite database, so it cannot be the alert spool: move the file aside "
			 "and svc-alerts starts a new, empty spool",
			 path);
	else if (code == SQLITE_CORRUPT)
		snprintf(err, errlen,
			 "the alert spool %s is damaged (%s): move the file aside (sqlite3's .recover may save "
			 "its alerts) and svc-alerts starts a new, empty spool",
			 path, msg);
	else
		snprintf(err, errlen, "alert spool %s: %s: %s", path, what, msg);
	return -1;
}

static int exec(struct spool *sp, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_exec(sp->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(sp->path, sp->db, sql, err, errlen);
	return 0;
}

static int user_version(struct spool *sp, int *version, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(sp->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return db_error(sp->path, sp->db, "reading user_version", err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	else
		db_error(sp->path, sp->db, "reading user_version", err, errlen);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Brings the file to SCHEMA_LATEST inside one write transaction, so two
 * handles opening a new file at once apply each step once. */
static int migrate(struct spool *sp, char *err, size_t errlen)
{
	char bump[48];
	int version = 0;

	if (exec(sp, "BEGIN IMMEDIATE", err, errlen) < 0)
		return -1;
	if (user_version(sp, &version, err, errlen) < 0)
		goto fail;
	if (version > SCHEMA_LATEST) {
		snprintf(err, errlen,
			 "the alert spool %s has version %d, newer than this svc-alerts knows (%d): update "
			 "svc-alerts, or move the file aside to start a new, empty spool",
			 sp->path, version, SCHEMA_LATEST);
		goto fail;
	}
	for (; version < SCHEMA_LATEST; version++) {
		snprintf(bump, sizeof bump, "PRAGMA user_version = %d", version + 1);
		if (exec(sp, schema_steps[version], err, errlen) < 0 || exec(sp, bump, err, errlen) < 0)
			goto fail;
	}
	if (exec(sp, "COMMIT", err, errlen) < 0)
		goto fail;
	return 0;
fail:
	if (!sqlite3_get_autocommit(sp->db))
		sqlite3_exec(sp->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static int open_db(struct spool *sp, char *err, size_t errlen)
{
	int rc;

	/* 0600 before SQLite creates it, and so its -wal and -shm too. */
	if (hb_db_files_private(sp->path, err, errlen) < 0)
		return -1;
	rc = sqlite3_open_v2(sp->path, &sp->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open the alert spool %s: %s", sp->path,
			 sp->db ? sqlite3_errmsg(sp->db) : sqlite3_errstr(rc));
		return -1;
	}
	if (sqlite3_busy_timeout(sp->db, SPOOL_BUSY_TIMEOUT_MS) != SQLITE_OK ||
	    sqlite3_extended_result_codes(sp->db, 1) != SQLITE_OK)
		return db_error(sp->path, sp->db, "configuring the connection", err, errlen);
	/*
	 * The first statement reads the file's header: garbage fails here.
	 *
	 * synchronous = FULL, not appdata.db's NORMAL: in WAL mode NORMAL
	 * does not fsync the log at each commit, so a commit survives a
	 * killed process (the bytes are in the kernel) but not a kernel panic
	 * or a power cut.  A receipt tells the agent the alert will be
	 * delivered; that promise must not depend on the machine staying up
	 * until the next checkpoint, and alerts are rare enough that one
	 * fsync per add or ack costs nothing that matters.
	 */
	if (exec(sp, "PRAGMA journal_mode = WAL", err, errlen) < 0 ||
	    exec(sp, "PRAGMA synchronous = FULL", err, errlen) < 0)
		return -1;
	return migrate(sp, err, errlen);
}

int spool_open(const char *path, struct spool **out, char *err, size_t errlen)
{
	struct spool *sp = calloc(1, sizeof *sp);

	*out = NULL;
	if (!sp || !(sp->path = strdup(path))) {
		free(sp);
		snprintf(err, errlen, "cannot open the alert spool %s: out of memory", path);
		return -1;
	}
	if (open_db(sp, err, errlen) < 0) {
		spool_close(sp);
		return -1;
	}
	*out = sp;
	return 0;
}

void spool_close(struct spool *sp)
{
	if (!sp)
		return;
	/* close_v2 cannot fail for a handle without live statements, and
	 * every function here finalizes its own. */
	sqlite3_close_v2(sp->db);
	free(sp->path);
	free(sp);
}

int spool_path(const struct hb_paths *p, char *out, size_t outlen, char *err, size_t errlen)
{
	char dir[HB_PATH_MAX];
	struct stat st;

	if (hb_dir_make_private(p, HB_DIR_DATA, err, errlen) < 0)
		return -1;
	if (hb_path_join(dir, sizeof dir, p->data, SPOOL_DIR_NAME) < 0 ||
	    hb_path_join(out, outlen, dir, SPOOL_FILE_NAME) < 0) {
		snprintf(err, errlen, "the data folder path %s is too long for the alert spool", p->data);
		return -1;
	}
	if (mkdir(dir, 0700) == 0) {
		/* 0700 whatever the umask (mkdir only ever takes bits away). */
		if (chmod(dir, 0700) < 0) {
			snprintf(err, errlen, "cannot make %s private: %s", dir, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (errno != EEXIST) {
		snprintf(err, errlen, "cannot create the alerts folder %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a folder: move it aside so svc-alerts can make its alerts folder there",
			 dir);
		return -1;
	}
	return 0;
}

static sqlite3_stmt *prepare(struct spool *sp, const char *sql, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(sp->db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(sp->path, sp->db, "preparing a statement", err, errlen);
		return NULL;
	}
	return st;
}

static int bind_text(sqlite3_stmt *st, int col, const char *s)
{
	return sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
}

int spool_add(struct spool *sp, const struct hb_relay_event *ev, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (hb_relay_check_event(ev, err, errlen) < 0)
		return -1;
	st = prepare(sp,
		     "INSERT INTO spool (id, session_id, run_id, session_title, title, body, created_at_ms)"
		     " VALUES (?, ?, ?, ?, ?, ?, ?)",
		     err, errlen);
	if (!st)
		return -1;
	rc = bind_text(st, 1, ev->id);
	if (rc == SQLITE_OK)
		rc = bind_text(st, 2, ev->session_id);
	if (rc == SQLITE_OK)
		rc = bind_text(st, 3, ev->run_id);
	if (rc == SQLITE_OK)
		rc = bind_text(st, 4, ev->session_title);
	if (rc == SQLITE_OK)
		rc = bind_text(st, 5, ev->title);
	if (rc == SQLITE_OK)
		rc = bind_text(st, 6, ev->body);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 7, ev->created_at_ms);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	/* The id passed hb_relay_check_event: it may be quoted. */
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		snprintf(err, errlen, "alert %s is already in the spool", ev->id);
	else if (rc != SQLITE_DONE)
		db_error(sp->path, sp->db, "adding an alert", err, errlen);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Column col as a C string into out: -1 when it is NULL, too long for out
 * or holds a NUL byte (no row written here has any of those). */
static int column_text(sqlite3_stmt *st, int col, char *out, size_t outlen)
{
	const unsigned char *t;
	int n;

	if (sqlite3_column_type(st, col) != SQLITE_TEXT)
		return -1;
	t = sqlite3_column_text(st, col);
	n = sqlite3_column_bytes(st, col);
	if (!t || n < 0 || (size_t)n >= outlen || memchr(t, '\0', (size_t)n))
		return -1;
	memcpy(out, t, (size_t)n);
	out[n] = '\0';
	return 0;
}

/* The row of st into ev; the same checks as an add, so a file edited by
 * hand cannot put on the wire what spool_add would have refused. */
static int read_row(struct spool *sp, sqlite3_stmt *st, struct hb_relay_event *ev, int64_t seq, char *err,
		    size_t errlen)
{
	char why[256];

	memset(ev, 0, sizeof *ev);
	if (column_text(st, 1, ev->id, sizeof ev->id) < 0 ||
	    column_text(st, 2, ev->session_id, sizeof ev->session_id) < 0 ||
	    column_text(st, 3, ev->run_id, sizeof ev->run_id) < 0 ||
	    column_text(st, 4, ev->session_title, sizeof ev->session_title) < 0 ||
	    column_text(st, 5, ev->title, sizeof ev->title) < 0 ||
	    column_text(st, 6, ev->body, sizeof ev->body) < 0 || sqlite3_column_type(st, 7) != SQLITE_INTEGER) {
		snprintf(err, errlen, "alert spool %s: the row %lld has a field of the wrong type or size", sp->path,
			 (long long)seq);
		return -1;
	}
	ev->created_at_ms = sqlite3_column_int64(st, 7);
	if (hb_relay_check_event(ev, why, sizeof why) < 0) {
		snprintf(err, errlen, "alert spool %s: the row %lld is not a valid alert: %s", sp->path,
			 (long long)seq, why);
		return -1;
	}
	return 0;
}

/* Row seq moved to spool_aside with why, in one transaction; 0, or -1
 * with err. */
static int set_aside(struct spool *sp, int64_t seq, const char *why, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	struct timespec now;
	int rc;

	if (clock_gettime(CLOCK_REALTIME, &now) < 0 || exec(sp, "BEGIN IMMEDIATE", err, errlen) < 0)
		return -1;
	st = prepare(sp,
		     "INSERT INTO spool_aside (seq, id, session_id, run_id, session_title, title, body, created_at_ms,"
		     " reason, moved_at_ms) SELECT seq, id, session_id, run_id, session_title, title, body,"
		     " created_at_ms, ?, ? FROM spool WHERE seq = ?",
		     err, errlen);
	rc = st ? bind_text(st, 1, why) : SQLITE_ERROR;
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 2, (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 3, seq);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE) {
		st = prepare(sp, "DELETE FROM spool WHERE seq = ?", err, errlen);
		rc = st ? sqlite3_bind_int64(st, 1, seq) : SQLITE_ERROR;
		if (rc == SQLITE_OK)
			rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (rc == SQLITE_DONE && exec(sp, "COMMIT", err, errlen) == 0)
		return 0;
	if (rc != SQLITE_DONE)
		db_error(sp->path, sp->db, "moving a damaged alert aside", err, errlen);
	if (!sqlite3_get_autocommit(sp->db))
		sqlite3_exec(sp->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* The first row after after, as spool_next says, without moving any. */
static int next_row(struct spool *sp, int64_t after, struct hb_relay_event *ev, int64_t *seq, char *err,
		    size_t errlen)
{
	sqlite3_stmt *st = prepare(sp,
				   "SELECT seq, id, session_id, run_id, session_title, title, body, created_at_ms"
				   " FROM spool WHERE seq > ? ORDER BY seq LIMIT 1",
				   err, errlen);
	int rc, found = 0;

	if (!st)
		return -1;
	rc = sqlite3_bind_int64(st, 1, after);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*seq = sqlite3_column_int64(st, 0);
		found = read_row(sp, st, ev, *seq, err, errlen) < 0 ? -1 : 1;
	} else if (rc != SQLITE_DONE) {
		db_error(sp->path, sp->db, "reading the next alert", err, errlen);
		found = -1;
	}
	sqlite3_finalize(st);
	return found;
}

int spool_next(struct spool *sp, int64_t after, struct hb_relay_event *ev, int64_t *seq, char *err, size_t errlen)
{
	for (;;) {
		char why[512], moved[512];
		int rc;

		*seq = 0;
		if ((rc = next_row(sp, after, ev, seq, why, sizeof why)) >= 0 || *seq <= after) {
			if (rc < 0)
				snprintf(err, errlen, "%s", why);
			return rc;
		}
		/* Damaged: out of the way of this pass and every later one. */
		if (set_aside(sp, *seq, why, moved, sizeof moved) < 0) {
			snprintf(err, errlen, "%s (and it could not be moved aside: %s)", why, moved);
			return -1;
		}
		log_warn(NULL, "%s; moved to the table spool_aside, never sent", why);
		after = *seq;
	}
}

int spool_remove(struct spool *sp, const char *id, char *err, size_t errlen)
{
	sqlite3_stmt *st = prepare(sp, "DELETE FROM spool WHERE id = ?", err, errlen);
	int rc;

	if (!st)
		return -1;
	rc = bind_text(st, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		db_error(sp->path, sp->db, "removing an acknowledged alert", err, errlen);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	return sqlite3_changes(sp->db) > 0;
}

int spool_count(struct spool *sp, long *n, char *err, size_t errlen)
{
	sqlite3_stmt *st = prepare(sp, "SELECT count(*) FROM spool", err, errlen);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = (long)sqlite3_column_int64(st, 0);
	else
		db_error(sp->path, sp->db, "counting the alerts", err, errlen);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* RFC 9562's version 7: unix_ts_ms (48 bits), ver (4), rand_a (12),
 * var (2), rand_b (62).  Time first, so ids sort roughly by creation in
 * the relay's logs; the 74 random bits keep them unique and unguessable. */
int spool_new_id(char *out, size_t outlen)
{
	unsigned char b[16];
	struct timespec now;
	uint64_t ms;
	char err[128];

	if (outlen < SPOOL_ID_SIZE || hb_random_bytes(b, sizeof b, err, sizeof err) < 0 ||
	    clock_gettime(CLOCK_REALTIME, &now) < 0)
		return -1;
	ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
	for (int i = 0; i < 6; i++)
		b[i] = (unsigned char)(ms >> (40 - 8 * i));
	b[6] = (unsigned char)(0x70 | (b[6] & 0x0f));
	b[8] = (unsigned char)(0x80 | (b[8] & 0x3f));
	snprintf(out, outlen,
		 "alert-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
		 b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}
