/*
 * scale_broker - the brokers of the scale benchmark (bench-scale.c): the
 * one broker parts 2 and 3 share (svc-sessions and svc-messages as
 * deployed, svc-echo beside them, a sender session with a run open on
 * the desktop's connection), one timed tool call through a broker's
 * front socket (parts 1 and 3), and the end of a broker's log when it did
 * not start.  The brokers run in the harness's temporary folders.
 */
#ifndef BENCH_SCALE_BROKER_H
#define BENCH_SCALE_BROKER_H

#include <sqlite3.h>

#include "../harness/harness.h"
#include "client.h"

/* The run the desktop's connection opens on the sender session. */
#define SCALE_RUN_ID "bench-scale-run"

struct scale_broker {
	struct fixture f;
	struct hb_client desk;       /* the desktop: the sender's run, the calls */
	sqlite3 *db;                 /* read-only look into appdata.db */
	char sender[64];             /* the sender session's id */
	int started;
};

/* Start it (b is cleared first); 0 or -1 (said on stderr).  Call
 * scale_broker_stop either way. */
int scale_broker_start(struct scale_broker *b);
/* Stop and remove what scale_broker_start made; 0, or -1 when the broker
 * did not end cleanly (said).  b is cleared. */
int scale_broker_stop(struct scale_broker *b);
/* One "call" of tool with json on c, its round trip into *us (may be
 * NULL); 0 when the tool answered ok, else -1 (said on stderr). */
int scale_front_call(struct hb_client *c, const char *tool, const char *json, double *us);
/* The end of a broker's log on stderr, before its folder goes: why it did
 * not start. */
void scale_print_log_tail(const char *path);

#endif
