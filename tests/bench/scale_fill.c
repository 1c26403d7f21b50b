/*
 * scale_fill - see scale_fill.h.  The statements are the columns the
 * product's own inserts write (svc-sessions/session_manage.c,
 * thread_links.c); only the values are made up here.
 */
#include "scale_fill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../svc-sessions/project_path.h"
#include "appdata.h"

#define DAY_MS (24LL * 3600 * 1000)

struct rng {
	unsigned long long s;
};

/* splitmix64: a bijection of its input, so mix(i) never repeats. */
static unsigned long long mix(unsigned long long z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void scale_id(long i, char out[SESSION_ID_LEN + 1])
{
	snprintf(out, SESSION_ID_LEN + 1, "s-%016llx", mix(0x5e55ULL + (unsigned long long)i));
}

static unsigned long long next(struct rng *r)
{
	return mix(r->s++);
}

/* Uniform in [0, 1). */
static double unit(struct rng *r)
{
	return (double)(next(r) >> 11) / 9007199254740992.0;
}

static long long below(struct rng *r, long long n)
{
	return n > 0 ? (long long)(next(r) % (unsigned long long)n) : 0;
}

/* A UUID-shaped id (Codex thread ids and Claude conversation ids are). */
static void uuid(struct rng *r, char out[37])
{
	unsigned long long a = next(r), b = next(r);

	snprintf(out, 37, "%08llx-%04llx-7%03llx-%04llx-%012llx", a >> 32, (a >> 16) & 0xffff, a & 0xfff,
		 (b >> 48) | 0x8000, b & 0xffffffffffffULL);
}

static const char *const verbs[] = { "Fix", "Add", "Refactor", "Speed up", "Document", "Test", "Review", "Port",
				     "Remove", "Investigate" };
static const char *const things[] = { "the login flow", "flaky integration tests", "the billing export",
				      "SQLite migrations", "the settings page", "websocket reconnects",
				      "the PDF renderer", "memory use of the indexer", "CI caching",
				      "the onboarding e-mails", "dark mode", "the search ranking" };
static const char *const places[] = { "in the API", "for the desktop app", "on macOS", "in the worker",
				      "before the release", "after the upgrade", "", "" };
static const char *const names[] = { "web", "api", "desktop", "infra", "docs", "mobile", "ml", "tools" };

static int step_done(sqlite3 *db, sqlite3_stmt *st, const char *what, char *err, size_t errlen)
{
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : appdata_error(db, what, err, errlen);

	/* Both restate the step's outcome, which rc has. */
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

static int bind_texts(sqlite3_stmt *st, const char *const *v, int n)
{
	for (int i = 0; i < n; i++)
		if ((v[i] ? sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i + 1)) !=
		    SQLITE_OK)
			return -1;
	return 0;
}

struct project {
	char dir[64];
	char hash[PROJECT_HASH_LEN + 1];
	long active;                 /* index of its newest open session, -1 */
	long long active_at;
};

struct statements {
	sqlite3_stmt *session, *link, *claude, *workspace;
};

static int prepare_all(sqlite3 *db, struct statements *s, char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO sessions (id, title, agent, project_dir, project_hash, access_level,"
			       " created_at, updated_at, archived) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
			       -1, &s->session, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO codex_session_links (thread_id, session_id, parent_thread_id, created_at)"
			       " VALUES (?1, ?2, ?3, ?4)",
			       -1, &s->link, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO claude_sessions (session_id, claude_session_id, updated_at) VALUES (?1, ?2, ?3)",
			       -1, &s->claude, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO project_workspace (project_dir, project_hash, active_session_id, updated_at)"
			       " VALUES (?1, ?2, ?3, ?4)",
			       -1, &s->workspace, NULL) != SQLITE_OK)
		return appdata_error(db, "preparing the bulk insert", err, errlen);
	return 0;
}

static void finalize_all(struct statements *s)
{
	sqlite3_finalize(s->session);
	sqlite3_finalize(s->link);
	sqlite3_finalize(s->claude);
	sqlite3_finalize(s->workspace);
}

/* The sum of the projects' weights, 1/(k+1) each. */
static double project_weights(void)
{
	double total = 0;

	for (int k = 0; k < SCALE_PROJECTS; k++)
		total += 1.0 / (k + 1);
	return total;
}

/* A project by weight 1/(k+1), of total weight `total`: a few large ones,
 * many small. */
static int pick_project(struct rng *r, double total)
{
	double x = unit(r) * total;

	for (int k = 0; k < SCALE_PROJECTS; k++) {
		x -= 1.0 / (k + 1);
		if (x < 0)
			return k;
	}
	return SCALE_PROJECTS - 1;
}

static const char *pick_access(struct rng *r)
{
	double x = unit(r);

	return x < 0.15 ? "read-only" : x < 0.75 ? "full-auto" : x < 0.95 ? "full-access" : "unrestricted";
}

/* The Codex thread links of one session: 1 to 3 top-level threads, and
 * now and then a sub-agent thread under the last. */
static int insert_links(sqlite3 *db, struct statements *s, struct rng *r, const char *id, long long created,
			long long updated, char *err, size_t errlen)
{
	int k = 1 + (int)below(r, 3);
	char thread[37], sub[37];

	for (int j = 0; j < k; j++) {
		const char *v[] = { thread, id, NULL };
		uuid(r, thread);
		if (bind_texts(s->link, v, 3) < 0 ||
		    sqlite3_bind_int64(s->link, 4, created + below(r, updated - created + 1)) != SQLITE_OK)
			return appdata_error(db, "binding a thread link", err, errlen);
		if (step_done(db, s->link, "inserting a thread link", err, errlen) < 0)
			return -1;
	}
	if (unit(r) < 0.2) {
		const char *v[] = { sub, NULL, thread };
		uuid(r, sub);
		if (bind_texts(s->link, v, 3) < 0 || sqlite3_bind_int64(s->link, 4, updated) != SQLITE_OK)
			return appdata_error(db, "binding a sub-agent thread", err, errlen);
		if (step_done(db, s->link, "inserting a sub-agent thread", err, errlen) < 0)
			return -1;
	}
	return 0;
}

static int insert_all(sqlite3 *db, struct statements *s, long n, struct scale_db *out, char *err, size_t errlen)
{
	struct project projects[SCALE_PROJECTS];
	struct rng r = { 0x5ca1ab1eULL };
	long long now = appdata_now_ms(), span = 730 * DAY_MS;
	double weights = project_weights();

	for (int k = 0; k < SCALE_PROJECTS; k++) {
		snprintf(projects[k].dir, sizeof projects[k].dir, "/home/dev/src/%s-%02d", names[k % 8], k);
		project_path_hash(projects[k].dir, projects[k].hash);
		projects[k].active = -1;
		projects[k].active_at = 0;
	}
	for (long i = 0; i < n; i++) {
		struct project *p = &projects[pick_project(&r, weights)];
		char *id = out->ids[i], title[160], conv[37];
		const char *agent = unit(&r) < 0.55 ? "codex" : "claude";
		long long age = below(&r, span), created = now - age;
		long long room = age < 30 * DAY_MS ? age : 30 * DAY_MS;
		long long updated = created + below(&r, room + 1);
		int archived = unit(&r) < 0.05 + 0.5 * (double)age / (double)span;
		const char *v[6];

		scale_id(i, id);
		snprintf(title, sizeof title, "%s %s %s", verbs[below(&r, 10)], things[below(&r, 12)], places[below(&r, 8)]);
		if (title[strlen(title) - 1] == ' ')
			title[strlen(title) - 1] = '\0';
		v[0] = id;
		v[1] = title;
		v[2] = agent;
		v[3] = p->dir;
		v[4] = p->hash;
		v[5] = pick_access(&r);
		if (bind_texts(s->session, v, 6) < 0 || sqlite3_bind_int64(s->session, 7, created) != SQLITE_OK ||
		    sqlite3_bind_int64(s->session, 8, updated) != SQLITE_OK ||
		    sqlite3_bind_int(s->session, 9, archived) != SQLITE_OK)
			return appdata_error(db, "binding a session", err, errlen);
		if (step_done(db, s->session, "inserting a session", err, errlen) < 0)
			return -1;
		if (agent[1] == 'o' && unit(&r) < 0.85 && insert_links(db, s, &r, id, created, updated, err, errlen) < 0)
			return -1;
		if (agent[1] == 'l' && unit(&r) < 0.85) {
			const char *c[] = { id, conv };
			uuid(&r, conv);
			if (bind_texts(s->claude, c, 2) < 0 || sqlite3_bind_int64(s->claude, 3, updated) != SQLITE_OK)
				return appdata_error(db, "binding a Claude link", err, errlen);
			if (step_done(db, s->claude, "inserting a Claude link", err, errlen) < 0)
				return -1;
		}
		if (!archived && updated > p->active_at) {
			p->active = i;
			p->active_at = updated;
		}
	}
	for (int k = 0; k < SCALE_PROJECTS; k++) {
		const char *v[3] = { projects[k].dir, projects[k].hash, NULL };
		if (projects[k].active < 0)
			continue;
		v[2] = out->ids[projects[k].active];
		if (bind_texts(s->workspace, v, 3) < 0 ||
		    sqlite3_bind_int64(s->workspace, 4, projects[k].active_at) != SQLITE_OK)
			return appdata_error(db, "binding an active session", err, errlen);
		if (step_done(db, s->workspace, "inserting an active session", err, errlen) < 0)
			return -1;
	}
	return 0;
}

int scale_fill(const char *path, long n, struct scale_db *out, char *err, size_t errlen)
{
	struct statements s = { 0 };
	struct stat st;
	sqlite3 *db;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (n <= 0 || !(out->ids = calloc((size_t)n, sizeof *out->ids))) {
		snprintf(err, errlen, "cannot hold %ld session ids", n);
		return -1;
	}
	out->n = n;
	if (!(db = appdata_open_rw(path, err, errlen)))
		return -1;
	/* Only the writing of this one transaction: a page cache that holds
	 * it and no fsync (test data; the file the readers get is the same). */
	if (sqlite3_exec(db, "PRAGMA cache_size = -131072; PRAGMA synchronous = OFF", NULL, NULL, NULL) != SQLITE_OK) {
		appdata_error(db, "setting up the bulk insert", err, errlen);
		goto out;
	}
	if (prepare_all(db, &s, err, errlen) < 0 || appdata_begin_write(db, err, errlen) < 0)
		goto out;
	if (insert_all(db, &s, n, out, err, errlen) < 0) {
		appdata_rollback(db);
		goto out;
	}
	if (appdata_commit(db, err, errlen) < 0)
		goto out;
	/* Everything into the main file, as a long-lived database has it. */
	if (sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) != SQLITE_OK) {
		appdata_error(db, "checkpointing", err, errlen);
		goto out;
	}
	rc = 0;
out:
	finalize_all(&s);
	appdata_close(db);
	if (rc == 0 && stat(path, &st) == 0)
		out->file_bytes = (long long)st.st_size;
	return rc;
}

int scale_db_ids(const char *path, long n, struct scale_db *db)
{
	struct stat st;

	memset(db, 0, sizeof *db);
	if (n <= 0 || !(db->ids = calloc((size_t)n, sizeof *db->ids)))
		return -1;
	db->n = n;
	for (long i = 0; i < n; i++)
		scale_id(i, db->ids[i]);
	if (stat(path, &st) == 0)
		db->file_bytes = (long long)st.st_size;
	return 0;
}

void scale_db_free(struct scale_db *db)
{
	free(db->ids);
	db->ids = NULL;
	db->n = 0;
}
