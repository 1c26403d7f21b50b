/*
 * scale_sessions_rig - one session count of the scale benchmark's part 1
 * (scale_sessions.c): its broker folder and appdata.db of that many
 * sessions, the three ways one maintain_sessions call is timed on it, and
 * what was measured.  The driver runs the ways in rounds over all counts;
 * the report (scale_sessions_report.c) prints the figures.
 *
 * The ways: inside, the handler svc-sessions runs (handle_maintain_sessions
 * in this process, a call made and freed per call as the service's pool
 * does); query, the query alone (session_lookup_run on a connection kept
 * open); e2e, client -> hb-broker -> svc-sessions -> answer.  The handler
 * gets a call built on the service loop's private struct hb_call
 * (common/service_pool.h): svc-sessions' handlers use nothing of it but
 * the context, the answer and the service's shared state: here, as in
 * svc-sessions' main, read-only connections kept open between calls
 * (appdata_readers.c), one set per count.
 */
#ifndef BENCH_SCALE_SESSIONS_RIG_H
#define BENCH_SCALE_SESSIONS_RIG_H

#include <sqlite3.h>
#include <sys/types.h>

#include "../harness/harness.h"
#include "../../appdata/appdata_readers.h"
#include "client.h"
#include "scale_fill.h"
#include "scale_stats.h"
#include "service_pool.h"

enum { ACT_LIST, ACT_RESOLVE, NACTIONS };      /* listSessions {"limit":25}, resolveSession {a random id} */
enum { WAY_INSIDE, WAY_QUERY, WAY_E2E, NWAYS };

/* One count: its broker folder and database, and what was measured. */
struct count_rig {
	long sessions;
	struct fixture f;
	struct scale_db db;
	sqlite3 *conn;              /* read-only, held open (query alone) */
	struct hb_client client;    /* end to end */
	struct hb_pool pool;        /* inside: the calls' pool, its shared state readers */
	struct appdata_readers readers;
	int action;                 /* what the ways run: ACT_* */
	unsigned long long rng;
	double fill_s, db_mib;
	struct scale_samples s[NACTIONS][NWAYS];
	long faults[NACTIONS][2], fault_calls[NACTIONS][2]; /* minor faults over the in-process calls */
	pid_t svc;                  /* its svc-sessions */
	double svc_cpu_s[NACTIONS]; /* svc-sessions' own CPU time over the end-to-end calls */
	long svc_faults[NACTIONS], svc_calls[NACTIONS];
	struct scale_figure fig[NACTIONS][NWAYS];
};

/* A folder with appdata.db of r->sessions sessions, ready for its broker
 * (svc-sessions and svc-messages as deployed: svc-messages' delivery loop
 * holds a connection open, as in production), and the answers checked.
 * 0 or -1 (said on stderr). */
int count_rig_fill(struct count_rig *r);
/* One call of r->action the given way (WAY_*), an op for scale_sample
 * with the rig as its argument.  WAY_E2E needs r->client connected. */
scale_op_fn count_rig_way(int way);
/* Free what the rig holds and stop its broker, when there is one: 0, or
 * -1 when the broker did not end cleanly.  The figures stay. */
int count_rig_close(struct count_rig *r);

#endif
