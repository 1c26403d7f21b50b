/*
 * scale_sessions_rig - see scale_sessions_rig.h.  The database is filled
 * in a child process (fill_elsewhere) so that this process's heap stays
 * like svc-sessions': see there.
 */
#include "scale_sessions_rig.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../svc-sessions/handlers.h"
#include "../../svc-sessions/session_lookup.h"
#include "appdata.h"
#include "paths.h"
#include "scale_broker.h"

static const char LIST_ARGS[] = "{\"action\":\"listSessions\",\"limit\":25}";

static const char *random_id(struct count_rig *r)
{
	r->rng = r->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return r->db.ids[(r->rng >> 33) % (unsigned long long)r->db.n];
}

static json_t *args_of(struct count_rig *r)
{
	return r->action == ACT_LIST ? json_pack("{s:s, s:i}", "action", "listSessions", "limit", 25)
				     : json_pack("{s:s, s:s}", "action", "resolveSession", "targetSessionId", random_id(r));
}

/* The handler as svc-sessions' pool runs it: a call made for it, freed
 * after it answered (service_pool.c). */
static int inside_op(void *arg, double *us)
{
	struct count_rig *r = arg;
	struct hb_call *call = calloc(1, sizeof *call);
	json_t *args = args_of(r);
	double t0;
	int rc;

	if (!call || !args) {
		free(call);
		json_decref(args);
		return fprintf(stderr, "bench-scale: out of memory\n"), -1;
	}
	call->ctx = (struct hb_call_context){ "bench-scale", "maintain_sessions", "", "", "", "", "", "", "" };
	call->pool = &r->pool;
	t0 = bench_now_us();
	rc = handle_maintain_sessions(call, args);
	*us = bench_now_us() - t0;
	json_decref(args);
	if (rc != 0 || !call->answered || !call->ok) {
		fprintf(stderr, "bench-scale: maintain_sessions (in process) failed: %s\n",
			call->text ? call->text : "no answer");
		rc = -1;
	}
	hb_call_free(call);
	return rc;
}

/* The query alone, on the open connection. */
static int query_op(void *arg, double *us)
{
	struct count_rig *r = arg;
	json_t *args = args_of(r), *out;
	char err[1024];
	double t0;

	if (!args)
		return fprintf(stderr, "bench-scale: out of memory\n"), -1;
	t0 = bench_now_us();
	out = session_lookup_run(r->conn, args, "", err, sizeof err);
	*us = bench_now_us() - t0;
	json_decref(args);
	if (!out)
		return fprintf(stderr, "bench-scale: session_lookup_run: %s\n", err), -1;
	json_decref(out);
	return 0;
}

static int e2e_op(void *arg, double *us)
{
	struct count_rig *r = arg;
	char json[128];

	if (r->action == ACT_LIST)
		return scale_front_call(&r->client, "maintain_sessions", LIST_ARGS, us);
	snprintf(json, sizeof json, "{\"action\":\"resolveSession\",\"targetSessionId\":\"%s\"}", random_id(r));
	return scale_front_call(&r->client, "maintain_sessions", json, us);
}

scale_op_fn count_rig_way(int way)
{
	return way == WAY_INSIDE ? inside_op : way == WAY_QUERY ? query_op : e2e_op;
}

/* listSessions answers min(n, 25) rows, resolveSession the id asked for. */
static int check_answers(struct count_rig *r)
{
	json_t *args = json_pack("{s:s, s:i}", "action", "listSessions", "limit", 25), *out, *one;
	size_t want = r->db.n < 25 ? (size_t)r->db.n : 25;
	char err[1024];
	int ok;

	out = args ? session_lookup_run(r->conn, args, "", err, sizeof err) : NULL;
	json_decref(args);
	ok = out && json_array_size(json_object_get(out, "sessions")) == want;
	if (!ok)
		fprintf(stderr, "bench-scale: listSessions did not answer %zu rows: %s\n", want, out ? "" : err);
	json_decref(out);
	args = json_pack("{s:s, s:s}", "action", "resolveSession", "targetSessionId", r->db.ids[r->db.n - 1]);
	out = args ? session_lookup_run(r->conn, args, "", err, sizeof err) : NULL;
	json_decref(args);
	one = json_object_get(out, "sessionId");
	if (!json_is_string(one) || strcmp(json_string_value(one), r->db.ids[r->db.n - 1]) != 0) {
		fprintf(stderr, "bench-scale: resolveSession did not find %s: %s\n", r->db.ids[r->db.n - 1],
			out ? "" : err);
		ok = 0;
	}
	json_decref(out);
	return ok ? 0 : -1;
}

/* scale_fill in a child process.  The fill frees large blocks, and glibc
 * then raises its trim threshold for the whole process, so that the heap
 * no longer shrinks after each call: the handler measured here would no
 * longer pay the page faults it pays in svc-sessions, which frees no such
 * block.  0 or -1 (said). */
static int fill_elsewhere(const char *path, long n)
{
	pid_t pid;
	int st;

	fflush(NULL);
	if ((pid = fork()) < 0)
		return fprintf(stderr, "bench-scale: fork: %s\n", strerror(errno)), -1;
	if (pid == 0) {
		struct scale_db db;
		char err[1024];
		int rc = scale_fill(path, n, &db, err, sizeof err);

		if (rc < 0)
			fprintf(stderr, "bench-scale: %s\n", err);
		scale_db_free(&db);
		_exit(rc < 0 ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return fprintf(stderr, "bench-scale: waitpid: %s\n", strerror(errno)), -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return fprintf(stderr, "bench-scale: filling %s failed\n", path), -1;
	return 0;
}

int count_rig_fill(struct count_rig *r)
{
	char *conf = fx_deployed_config(NULL, "svc-sessions", "svc-messages", (char *)NULL);
	char path[HB_PATH_MAX], err[1024], num[32];
	double t0;

	if (appdata_readers_init(&r->readers) < 0) {
		free(conf);
		return fprintf(stderr, "bench-scale: cannot set up the read-only connections\n"), -1;
	}
	r->pool.service_arg = &r->readers;
	if (!conf || fx_prepare(&r->f, conf) < 0) {
		free(conf);
		return fprintf(stderr, "bench-scale: cannot prepare a broker folder\n"), -1;
	}
	free(conf);
	fprintf(stderr, "bench-scale: %s sessions: filling appdata.db...\n", scale_grouped(r->sessions, num, sizeof num));
	if (appdata_default_path(path, sizeof path, err, sizeof err) < 0)
		return fprintf(stderr, "bench-scale: %s\n", err), -1;
	t0 = bench_now_us();
	if (fill_elsewhere(path, r->sessions) < 0)
		return -1;
	r->fill_s = (bench_now_us() - t0) / 1e6;
	if (scale_db_ids(path, r->sessions, &r->db) < 0)
		return fprintf(stderr, "bench-scale: out of memory\n"), -1;
	if (!(r->conn = appdata_open_ro(path, err, sizeof err)))
		return fprintf(stderr, "bench-scale: %s\n", err), -1;
	r->db_mib = (double)r->db.file_bytes / (1024.0 * 1024.0);
	return check_answers(r);
}

int count_rig_close(struct count_rig *r)
{
	int rc = 0;

	hb_client_close(&r->client);
	appdata_close(r->conn);
	r->conn = NULL;
	if (r->pool.service_arg) {
		appdata_readers_free(&r->readers);
		r->pool.service_arg = NULL;
	}
	scale_db_free(&r->db);
	for (int a = 0; a < NACTIONS; a++)
		for (int w = 0; w < NWAYS; w++) {
			free(r->s[a][w].v);
			memset(&r->s[a][w], 0, sizeof r->s[a][w]);
		}
	if (r->f.dir[0] && fx_stop(&r->f, NULL) < 0)
		rc = -1;
	return rc;
}
