/*
 * test_alerts_spool - svc-alerts' durable spool on a real SQLite file:
 * adds come back in order and leave on remove; the order and the
 * sequence numbers survive a close and reopen, and a number is never
 * handed out twice, not even after the last row left; a repeated id is
 * refused and a repeated ack is harmless; a second handle (another
 * thread) reads in order while the first adds; multibyte text comes back
 * byte for byte; an alert breaking the protocol's limits never enters; a
 * file that is no database, or a spool of a newer version, gets a sentence
 * saying what to do; the ids are "alert-" and a UUID v7; the spool's
 * folder is made private, and the spool and its -wal and -shm are 0600
 * under a umask of 022 (one left 0644 by an older svc-alerts narrowed); a
 * damaged row is moved to spool_aside on the first pass that meets it, so
 * no later pass, after a reopen either, reads it again.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "../../svc-alerts/relay_proto.h"
#include "../../svc-alerts/spool.h"

struct fixture {
	char dir[256];
	char path[300];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");

	if (!f)
		return -1;
	snprintf(f->dir, sizeof f->dir, "%s/test-alerts-spool-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof f->path, "%s/spool.db", f->dir);
	*state = f;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = nftw(f->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);

	free(f);
	return rc;
}

static struct spool *open_ok(const char *path)
{
	struct spool *sp = NULL;
	char err[512] = "";

	if (spool_open(path, &sp, err, sizeof err) != 0)
		fail_msg("spool_open: %s", err);
	assert_non_null(sp);
	return sp;
}

static void make_event(struct hb_relay_event *ev, const char *id, const char *title)
{
	memset(ev, 0, sizeof *ev);
	snprintf(ev->id, sizeof ev->id, "%s", id);
	snprintf(ev->session_id, sizeof ev->session_id, "7f0c9a52-1b2d-4c3e-8f9a-0b1c2d3e4f5a");
	snprintf(ev->run_id, sizeof ev->run_id, "run-42");
	snprintf(ev->session_title, sizeof ev->session_title, "Fix the \"flaky\" build");
	snprintf(ev->title, sizeof ev->title, "%s", title);
	snprintf(ev->body, sizeof ev->body, "All 212 tests pass.\nThe flaky one was a race.");
	ev->created_at_ms = 1764605753123;
}

static void add_ok(struct spool *sp, const char *id, const char *title)
{
	struct hb_relay_event ev;
	char err[512] = "";

	make_event(&ev, id, title);
	if (spool_add(sp, &ev, err, sizeof err) != 0)
		fail_msg("spool_add %s: %s", id, err);
}

/* The next event after *after must be id; *after moves on to its seq. */
static void expect_next(struct spool *sp, int64_t *after, const char *id)
{
	struct hb_relay_event ev;
	int64_t seq = 0;
	char err[512] = "";
	int rc = spool_next(sp, *after, &ev, &seq, err, sizeof err);

	if (rc != 1)
		fail_msg("spool_next after %lld: %d (%s), wanted %s", (long long)*after, rc, err, id);
	assert_string_equal(ev.id, id);
	assert_true(seq > *after);
	*after = seq;
}

static void expect_end(struct spool *sp, int64_t after)
{
	struct hb_relay_event ev;
	int64_t seq = 0;
	char err[512] = "";

	assert_int_equal(spool_next(sp, after, &ev, &seq, err, sizeof err), 0);
}

static long count(struct spool *sp)
{
	long n = -1;
	char err[512] = "";

	if (spool_count(sp, &n, err, sizeof err) != 0)
		fail_msg("spool_count: %s", err);
	return n;
}

static void test_add_next_remove_in_order(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	char err[512] = "";
	int64_t after = 0;

	assert_int_equal(count(sp), 0);
	expect_end(sp, 0);
	add_ok(sp, "alert-a", "First");
	add_ok(sp, "alert-b", "Second");
	add_ok(sp, "alert-c", "Third");
	assert_int_equal(count(sp), 3);
	expect_next(sp, &after, "alert-a");
	expect_next(sp, &after, "alert-b");
	expect_next(sp, &after, "alert-c");
	expect_end(sp, after);

	/* The ack of the middle one: the others keep their order. */
	assert_int_equal(spool_remove(sp, "alert-b", err, sizeof err), 1);
	assert_int_equal(count(sp), 2);
	after = 0;
	expect_next(sp, &after, "alert-a");
	expect_next(sp, &after, "alert-c");
	expect_end(sp, after);
	assert_int_equal(spool_remove(sp, "alert-a", err, sizeof err), 1);
	assert_int_equal(spool_remove(sp, "alert-c", err, sizeof err), 1);
	assert_int_equal(count(sp), 0);
	expect_end(sp, 0);
	spool_close(sp);
	spool_close(NULL);
}

static void test_order_kept_across_reopen(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	struct hb_relay_event ev;
	int64_t seqs[3], after = 0, seq;
	char err[512] = "";
	const char *ids[3] = { "alert-m", "alert-z", "alert-a" };  /* in no order of the ids */

	for (int i = 0; i < 3; i++)
		add_ok(sp, ids[i], "Title");
	for (int i = 0; i < 3; i++) {
		expect_next(sp, &after, ids[i]);
		seqs[i] = after;
	}
	spool_close(sp);

	sp = open_ok(f->path);
	assert_int_equal(count(sp), 3);
	after = 0;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(spool_next(sp, after, &ev, &seq, err, sizeof err), 1);
		assert_string_equal(ev.id, ids[i]);
		assert_int_equal(seq, seqs[i]);
		after = seq;
	}
	/* A sender that got as far as the second one goes on from there. */
	after = seqs[1];
	expect_next(sp, &after, "alert-a");
	spool_close(sp);
}

static void test_seq_not_reused(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	char err[512] = "";
	int64_t after = 0, last;

	add_ok(sp, "alert-1", "One");
	add_ok(sp, "alert-2", "Two");
	expect_next(sp, &after, "alert-1");
	expect_next(sp, &after, "alert-2");
	last = after;
	/* The last one leaves, then all of them: without AUTOINCREMENT the
	 * next add would get the last one's number back. */
	assert_int_equal(spool_remove(sp, "alert-2", err, sizeof err), 1);
	assert_int_equal(spool_remove(sp, "alert-1", err, sizeof err), 1);
	spool_close(sp);

	sp = open_ok(f->path);
	add_ok(sp, "alert-3", "Three");
	after = 0;
	expect_next(sp, &after, "alert-3");
	assert_true(after > last);
	spool_close(sp);
}

static void test_duplicate_id_refused(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	struct hb_relay_event ev;
	char err[512] = "";
	int64_t after = 0;

	add_ok(sp, "alert-dup", "First");
	make_event(&ev, "alert-dup", "Second");
	assert_int_equal(spool_add(sp, &ev, err, sizeof err), -1);
	assert_non_null(strstr(err, "alert-dup is already in the spool"));
	assert_int_equal(count(sp), 1);
	/* The first one is still there as it was. */
	assert_int_equal(spool_next(sp, 0, &ev, &after, err, sizeof err), 1);
	assert_string_equal(ev.title, "First");
	spool_close(sp);
}

static void test_remove_unknown_id(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	char err[512] = "";

	assert_int_equal(spool_remove(sp, "alert-never", err, sizeof err), 0);
	add_ok(sp, "alert-x", "X");
	assert_int_equal(spool_remove(sp, "alert-x", err, sizeof err), 1);
	/* The relay acknowledged it again (a resend): nothing to do. */
	assert_int_equal(spool_remove(sp, "alert-x", err, sizeof err), 0);
	assert_int_equal(count(sp), 0);
	spool_close(sp);
}

/* ---- two handles: a thread adds, the test reads and removes ---------------- */

#define CONCURRENT_EVENTS 100

struct writer {
	const char *path;
	atomic_int done;
	int rc;
	char err[512];
};

static void *write_events(void *arg)
{
	struct writer *w = arg;
	struct spool *sp = NULL;
	struct hb_relay_event ev;
	char id[32];

	w->rc = spool_open(w->path, &sp, w->err, sizeof w->err);
	for (int i = 0; i < CONCURRENT_EVENTS && w->rc == 0; i++) {
		snprintf(id, sizeof id, "alert-t-%03d", i);
		make_event(&ev, id, "Concurrent");
		w->rc = spool_add(sp, &ev, w->err, sizeof w->err);
	}
	spool_close(sp);
	atomic_store(&w->done, 1);
	return NULL;
}

static void test_two_handles(void **state)
{
	struct fixture *f = *state;
	struct writer w = { .path = f->path, .rc = 0 };
	struct spool *sp = open_ok(f->path);  /* the schema exists before the thread starts */
	struct hb_relay_event ev;
	pthread_t thread;
	int64_t after = 0, seq;
	char err[512] = "", want[32];
	int got = 0;

	atomic_init(&w.done, 0);
	assert_int_equal(pthread_create(&thread, NULL, write_events, &w), 0);
	while (got < CONCURRENT_EVENTS) {
		/* Read done first: when it was set before this read, every add
		 * is committed and a missing event is a failure, not a race. */
		int done = atomic_load(&w.done);
		int rc = spool_next(sp, after, &ev, &seq, err, sizeof err);

		if (rc < 0 || (rc == 0 && done))
			break;
		if (rc == 0) {
			sched_yield();
			continue;
		}
		snprintf(want, sizeof want, "alert-t-%03d", got);
		if (strcmp(ev.id, want) != 0)
			break;
		/* The ack, written through this handle while the other adds. */
		if (spool_remove(sp, ev.id, err, sizeof err) != 1)
			break;
		after = seq;
		got++;
	}
	assert_int_equal(pthread_join(thread, NULL), 0);
	if (w.rc != 0)
		fail_msg("writer: %s", w.err);
	if (got != CONCURRENT_EVENTS)
		fail_msg("read %d of %d in order; then %s (%s)", got, CONCURRENT_EVENTS, ev.id, err);
	assert_int_equal(count(sp), 0);
	spool_close(sp);
}

/* ---- what an event holds ------------------------------------------------- */

/* s repeated n times into out. */
static void repeat(char *out, size_t outlen, const char *s, int n)
{
	size_t len = strlen(s), at = 0;

	for (int i = 0; i < n; i++) {
		assert_true(at + len < outlen);
		memcpy(out + at, s, len);
		at += len;
	}
	out[at] = '\0';
}

static void test_multibyte_round_trip(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	struct hb_relay_event in, out;
	char err[512] = "";
	int64_t seq;

	memset(&in, 0, sizeof in);
	snprintf(in.id, sizeof in.id, "alert-0193a7c2-5f1e-7b3a-9c1d-2e4f6a8b0c1d");
	snprintf(in.session_id, sizeof in.session_id, "séance-1");
	snprintf(in.run_id, sizeof in.run_id, "run-1");
	/* Every limit reached exactly, with characters of 2, 3 and 4 bytes. */
	repeat(in.session_title, sizeof in.session_title, "\xf0\x9f\x98\x80", HB_RELAY_SESSION_TITLE_MAX);
	repeat(in.title, sizeof in.title, "日本", HB_RELAY_TITLE_MAX / 2);
	repeat(in.body, sizeof in.body, "é\"\n\t\\", HB_RELAY_BODY_MAX / 5);
	in.created_at_ms = 253402300799999;  /* 9999-12-31T23:59:59.999Z */
	if (spool_add(sp, &in, err, sizeof err) != 0)
		fail_msg("spool_add: %s", err);
	spool_close(sp);

	sp = open_ok(f->path);
	assert_int_equal(spool_next(sp, 0, &out, &seq, err, sizeof err), 1);
	assert_string_equal(out.id, in.id);
	assert_string_equal(out.session_id, in.session_id);
	assert_string_equal(out.run_id, in.run_id);
	assert_int_equal(strlen(out.session_title), 4 * HB_RELAY_SESSION_TITLE_MAX);
	assert_string_equal(out.session_title, in.session_title);
	assert_string_equal(out.title, in.title);
	assert_string_equal(out.body, in.body);
	assert_int_equal(out.created_at_ms, in.created_at_ms);
	spool_close(sp);
}

static void expect_refused(struct spool *sp, const struct hb_relay_event *ev, const char *words)
{
	char err[512] = "";

	assert_int_equal(spool_add(sp, ev, err, sizeof err), -1);
	if (!strstr(err, words))
		fail_msg("wanted \"%s\" in \"%s\"", words, err);
}

static void test_limits_refused(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	struct hb_relay_event ev;

	make_event(&ev, "alert-long", "");
	repeat(ev.title, sizeof ev.title, "é", HB_RELAY_TITLE_MAX + 1);
	expect_refused(sp, &ev, "title is 61 characters; at most 60");
	make_event(&ev, "alert-long", "Fine");
	repeat(ev.body, sizeof ev.body, "x", HB_RELAY_BODY_MAX + 1);
	expect_refused(sp, &ev, "body is 181 characters");
	make_event(&ev, "alert-empty", "Fine");
	ev.body[0] = '\0';
	expect_refused(sp, &ev, "body is empty");
	make_event(&ev, "alert bad id", "Fine");
	expect_refused(sp, &ev, "id may hold only");
	make_event(&ev, "alert-utf8", "bad \xc3");
	expect_refused(sp, &ev, "title is not valid UTF-8");
	make_event(&ev, "alert-ctl", "Fine");
	snprintf(ev.run_id, sizeof ev.run_id, "run\x01");
	expect_refused(sp, &ev, "runId holds a control character");
	make_event(&ev, "alert-time", "Fine");
	ev.created_at_ms = -1;
	expect_refused(sp, &ev, "createdAt");
	assert_int_equal(count(sp), 0);
	spool_close(sp);
}

/* ---- files that are not a spool of ours -------------------------------- */

static void test_garbage_file(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = (struct spool *)f;  /* must come back NULL */
	char err[1024] = "", want[400], back[64];
	const char junk[] = "these bytes were never an SQLite database, whatever the name says.\n";
	FILE *fp = fopen(f->path, "w");

	assert_non_null(fp);
	for (int i = 0; i < 64; i++)
		assert_int_equal(fputs(junk, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);

	assert_int_equal(spool_open(f->path, &sp, err, sizeof err), -1);
	assert_null(sp);
	print_message("%s\n", err);
	snprintf(want, sizeof want, "%s is not an SQLite database", f->path);
	if (!strstr(err, want) || !strstr(err, "move the file aside"))
		fail_msg("unclear sentence: %s", err);
	/* The file is left as it was, for whoever looks at it. */
	fp = fopen(f->path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(back, sizeof back, fp));
	assert_int_equal(strncmp(back, junk, strlen(back)), 0);
	assert_int_equal(fclose(fp), 0);
}

static void test_newer_version_refused(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	sqlite3 *db = NULL;
	char err[1024] = "";

	add_ok(sp, "alert-kept", "Kept");
	spool_close(sp);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	assert_int_equal(spool_open(f->path, &sp, err, sizeof err), -1);
	assert_null(sp);
	assert_non_null(strstr(err, f->path));
	assert_non_null(strstr(err, "has version 99, newer than this svc-alerts knows (2)"));
}

/* ---- damaged rows and file modes ---------------------------------------- */

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* One pass over the spool from the start: the ids it hands out, joined
 * by spaces. */
static void one_pass(struct spool *sp, char *ids, size_t len)
{
	struct hb_relay_event ev;
	int64_t after = 0, seq;
	char err[1024] = "";
	int rc;

	ids[0] = '\0';
	while ((rc = spool_next(sp, after, &ev, &seq, err, sizeof err)) == 1) {
		snprintf(ids + strlen(ids), len - strlen(ids), "%s%s", ids[0] ? " " : "", ev.id);
		after = seq;
	}
	if (rc < 0)
		fail_msg("spool_next after %lld: %s", (long long)after, err);
}

static void test_damaged_row_set_aside(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = open_ok(f->path);
	char ids[256], want[600], reason[600] = "";
	sqlite3_stmt *st;
	sqlite3 *db = NULL;

	add_ok(sp, "alert-first", "First");
	add_ok(sp, "alert-damaged", "Damaged");
	add_ok(sp, "alert-last", "Last");
	/* A body of bytes with a NUL, as a hand edit or damage may leave. */
	raw_exec(f->path, "UPDATE spool SET body = x'410042' WHERE id = 'alert-damaged'");
	one_pass(sp, ids, sizeof ids);
	assert_string_equal(ids, "alert-first alert-last");
	assert_int_equal(count(sp), 2);
	one_pass(sp, ids, sizeof ids);
	assert_string_equal(ids, "alert-first alert-last");
	spool_close(sp);
	sp = open_ok(f->path);
	one_pass(sp, ids, sizeof ids);
	assert_string_equal(ids, "alert-first alert-last");
	spool_close(sp);

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, body, reason FROM spool_aside", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "alert-damaged");
	assert_int_equal(sqlite3_column_type(st, 1), SQLITE_BLOB);
	snprintf(reason, sizeof reason, "%s", (const char *)sqlite3_column_text(st, 2));
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	snprintf(want, sizeof want, "alert spool %s: the row 2 has a field of the wrong type or size", f->path);
	assert_string_equal(reason, want);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		fail_msg("%s: %s", path, strerror(errno));
	return st.st_mode & 0777;
}

/* The spool and the files SQLite keeps beside it are this user's alone,
 * under the usual umask; one an older version made 0644 is narrowed. */
static void test_files_private(void **state)
{
	struct fixture *f = *state;
	char wal[320], shm[320];
	mode_t old = umask(022);
	struct spool *sp = open_ok(f->path);

	add_ok(sp, "alert-mode", "Mode");
	snprintf(wal, sizeof wal, "%s-wal", f->path);
	snprintf(shm, sizeof shm, "%s-shm", f->path);
	assert_int_equal(mode_of(f->path), 0600);
	assert_int_equal(mode_of(wal), 0600);
	assert_int_equal(mode_of(shm), 0600);
	spool_close(sp);
	assert_int_equal(chmod(f->path, 0644), 0);
	sp = open_ok(f->path);
	assert_int_equal(mode_of(f->path), 0600);
	spool_close(sp);
	umask(old);
}

/* ---- ids and the path -------------------------------------------------- */

static int is_hex(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]) || !s[i])
			return 0;
	return 1;
}

static void check_id(const char *id)
{
	const char *u = id + 6;
	char err[256];
	struct hb_relay_event ev;

	assert_int_equal(strncmp(id, "alert-", 6), 0);
	assert_int_equal(strlen(u), 36);
	assert_true(strlen(id) <= HB_RELAY_ID_MAX);
	assert_true(is_hex(u, 8) && u[8] == '-' && is_hex(u + 9, 4) && u[13] == '-' && is_hex(u + 14, 4) &&
		    u[18] == '-' && is_hex(u + 19, 4) && u[23] == '-' && is_hex(u + 24, 12));
	assert_int_equal(u[14], '7');                   /* version 7 */
	assert_non_null(strchr("89ab", u[19]));         /* variant 10xx */
	/* And the protocol takes it as an id. */
	make_event(&ev, id, "Fine");
	assert_int_equal(hb_relay_check_event(&ev, err, sizeof err), 0);
}

static void test_new_id(void **state)
{
	char a[SPOOL_ID_SIZE], b[SPOOL_ID_SIZE], small[SPOOL_ID_SIZE - 1];
	char hex[13];
	unsigned long long ts;

	(void)state;
	assert_int_equal(spool_new_id(a, sizeof a), 0);
	assert_int_equal(spool_new_id(b, sizeof b), 0);
	check_id(a);
	check_id(b);
	assert_string_not_equal(a, b);
	assert_int_equal(spool_new_id(small, sizeof small), -1);
	/* The first 48 bits are the time in milliseconds: after 2024-01-01. */
	memcpy(hex, a + 6, 8);
	memcpy(hex + 8, a + 15, 4);
	hex[12] = '\0';
	ts = strtoull(hex, NULL, 16);
	assert_true(ts > 1704067200000ULL);
}

static void test_spool_path(void **state)
{
	struct fixture *f = *state;
	struct hb_paths p;
	char path[HB_PATH_MAX], want[HB_PATH_MAX + 32], err[512] = "";
	struct stat st;
	struct spool *sp;
	mode_t old = umask(0);  /* whatever the umask, the folder is 0700 */

	memset(&p, 0, sizeof p);
	snprintf(p.data, sizeof p.data, "%s/data", f->dir);
	int rc = spool_path(&p, path, sizeof path, err, sizeof err);
	umask(old);
	if (rc != 0)
		fail_msg("spool_path: %s", err);
	snprintf(want, sizeof want, "%s/data/alerts/spool.db", f->dir);
	assert_string_equal(path, want);
	snprintf(want, sizeof want, "%s/data/alerts", f->dir);
	assert_int_equal(lstat(want, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	/* Again, with the folder there: the same path. */
	assert_int_equal(spool_path(&p, path, sizeof path, err, sizeof err), 0);
	sp = open_ok(path);
	spool_close(sp);

	/* A file where the folder should be: a sentence, not a crash. */
	snprintf(p.data, sizeof p.data, "%s/data2", f->dir);
	assert_int_equal(mkdir(p.data, 0700), 0);
	snprintf(want, sizeof want, "%s/data2/alerts", f->dir);
	FILE *fp = fopen(want, "w");
	assert_non_null(fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(spool_path(&p, path, sizeof path, err, sizeof err), -1);
	assert_non_null(strstr(err, "is not a folder"));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_add_next_remove_in_order),
		T(test_order_kept_across_reopen),
		T(test_seq_not_reused),
		T(test_duplicate_id_refused),
		T(test_remove_unknown_id),
		T(test_two_handles),
		T(test_multibyte_round_trip),
		T(test_limits_refused),
		T(test_garbage_file),
		T(test_newer_version_refused),
		T(test_damaged_row_set_aside),
		T(test_files_private),
		T(test_new_id),
		T(test_spool_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
