/*
 * scale_messages - see scale_messages.h.  The stand-in bridge here is the
 * bridges' delivery code itself (deliveries_*), driven by a loop like
 * theirs, so that the figure is the broker's and svc-messages' pace and
 * not that of an agent.
 */
#include "scale_messages.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "../../bridge/deliveries.h"
#include "appdata.h"
#include "envelope.h"

#define IN_FLIGHT 8 /* send_session_message calls in flight while queueing */

struct delivery_figures {
	long count;
	double queue_s;          /* the send_session_message calls */
	double confirm_ms;       /* attach -> the last deliver.done sent */
	double sent_ms;          /* attach -> the last row recorded sent */
	long repeats;            /* deliveries asked for again */
};

static long long count_rows(sqlite3 *db, const char *sql, const char *session)
{
	char err[512];
	sqlite3_stmt *st = appdata_prepare(db, sql, err, sizeof err, "s", session);
	long long n = -1;

	if (!st) {
		fprintf(stderr, "bench-scale: %s\n", err);
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Wait until the query counts want rows for session; 0, or -1 after ms. */
static int wait_rows(sqlite3 *db, const char *sql, const char *session, long long want, int ms, double *at_us,
		     const volatile sig_atomic_t *stop)
{
	double end = bench_now_us() + ms * 1000.0;

	while (bench_now_us() < end && !*stop) {
		long long n = count_rows(db, sql, session);
		if (n < 0)
			return -1;
		if (n >= want) {
			if (at_us)
				*at_us = bench_now_us();
			return 0;
		}
		fx_sleep_ms(2);
	}
	return -1;
}

/* send_session_message of `count` messages from the sender's run to `to`,
 * `window` in flight; each receipt must say queued.  0 or -1. */
static int queue_messages(struct scale_broker *b, const char *to, long count, int window, const char *tag)
{
	long sent = 0, answered = 0;
	char err[256];

	while (answered < count) {
		struct hb_env reply;
		while (sent < count && sent - answered < window) {
			char cid[64], *json;
			json_t *args;
			snprintf(cid, sizeof cid, "%s-%ld", tag, sent);
			args = json_pack("{s:s, s:s}", "recipientSessionId", to, "message",
					 "Please rebase your branch on main and run the unit tests again; the fixture "
					 "for the scale benchmark changed.");
			json = args ? json_dumps(args, JSON_COMPACT) : NULL;
			json_decref(args);
			if (!json || fx_send_op(&b->desk, "call", "tool", "send_session_message", "json", json, "run",
						SCALE_RUN_ID, "call_id", cid, (char *)NULL) < 0) {
				free(json);
				return fprintf(stderr, "bench-scale: cannot send send_session_message\n"), -1;
			}
			free(json);
			sent++;
		}
		if (hb_client_recv(&b->desk, &reply, 15000, err, sizeof err) < 0)
			return fprintf(stderr, "bench-scale: send_session_message: %s\n", err), -1;
		if (strcmp(hb_env_str_or(&reply, "op", ""), "reply") == 0) {
			const char *text = hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", ""));
			if (!hb_env_bool(&reply, "ok", 0) || strncmp(text, "queued:", 7) != 0) {
				fprintf(stderr, "bench-scale: send_session_message was not queued: %s\n", text);
				hb_env_free(&reply);
				return -1;
			}
			answered++;
		}
		hb_env_free(&reply);
	}
	return 0;
}

/* Read what the broker sent the stand-in bridge: deliveries and answers. */
static void read_broker(struct hb_client *c, struct deliveries *dl, struct delivery_figures *df)
{
	struct hb_env e;
	char err[256];

	while (hb_client_recv(c, &e, 0, err, sizeof err) == 0) {
		const char *op = hb_env_str_or(&e, "op", "");
		if (strcmp(op, "deliver") == 0) {
			if (!deliveries_take(dl, &e))
				df->repeats++;
		} else if (strcmp(op, "reply") == 0) {
			if (!hb_env_bool(&e, "ok", 0))
				fprintf(stderr, "bench-scale: the broker refused the stand-in bridge: %s\n",
					hb_env_str_or(&e, "err.msg", "?"));
			deliveries_note_reply(dl, &e);
		}
		hb_env_free(&e);
	}
}

/* One stand-in bridge attaches for session `to` and confirms `count`
 * deliveries as they come, one at a time. */
static int attach_and_take(struct scale_broker *b, const char *to, long count, struct delivery_figures *df,
			   const volatile sig_atomic_t *stop)
{
	static const char sent_sql[] =
		"SELECT count(*) FROM chat_session_messages WHERE recipient_session_id = ? AND state = 'sent'";
	struct hb_client c;
	struct deliveries dl;
	char ep[400], err[256];
	long confirmed = 0;
	double t0, end, t_confirm = 0, t_sent = 0;
	int rc = -1;

	snprintf(ep, sizeof ep, "ipc://%s/run/front.sock", b->f.dir);
	if (hb_client_open(&c, ep, 15000, err, sizeof err) < 0)
		return fprintf(stderr, "bench-scale: the stand-in bridge: %s\n", err), -1;
	deliveries_init(&dl, &c, to, "codex");
	t0 = bench_now_us();
	end = t0 + 60e6;
	while (confirmed < count && bench_now_us() < end && !*stop) {
		long long wait = deliveries_attach(&dl);
		zmq_pollitem_t it = { c.sock, 0, ZMQ_POLLIN, 0 };
		struct delivery *x;

		if (zmq_poll(&it, 1, wait < 0 || wait > 100 ? 100 : (long)wait) < 0 && errno != EINTR)
			break;
		read_broker(&c, &dl, df);
		/* The agent takes each at once; one at a time, as the bridges do. */
		while ((x = deliveries_next(&dl))) {
			char turn[80];
			snprintf(turn, sizeof turn, "turn-%s", x->op_id);
			x->state = DELIVERY_WORKING;
			deliveries_finish(&dl, x, 1, turn, NULL);
			if (++confirmed == count)
				t_confirm = bench_now_us();
		}
	}
	if (confirmed < count) {
		if (!*stop)
			fprintf(stderr, "bench-scale: the stand-in bridge got %ld of %ld messages within 60 s\n", confirmed, count);
		goto out;
	}
	if (wait_rows(b->db, sent_sql, to, count, 30000, &t_sent, stop) < 0) {
		if (!*stop)
			fprintf(stderr, "bench-scale: svc-messages did not record all %ld messages sent within 30 s\n", count);
		goto out;
	}
	df->confirm_ms = (t_confirm - t0) / 1000.0;
	df->sent_ms = (t_sent - t0) / 1000.0;
	rc = 0;
out:
	deliveries_detach(&dl, 1);
	deliveries_free(&dl);
	hb_client_close(&c);
	return rc;
}

/* One count: a recipient session of its own, the messages queued while
 * nobody is attached, then the bridge.  0 or -1 (said). */
static int one_count(struct scale_broker *b, int i, long count, struct delivery_figures *df,
		     const volatile sig_atomic_t *stop)
{
	static const char offered_sql[] = "SELECT count(*) FROM session_message_outbox WHERE recipient_session_id = ?"
					  " AND last_error IS NOT NULL";
	char to[64], title[64], tag[32], num[32];
	double t0;

	memset(df, 0, sizeof *df);
	df->count = count;
	snprintf(title, sizeof title, "Scale recipient %ld", count);
	snprintf(tag, sizeof tag, "m%d", i);
	if (fx_create_session(&b->f, title, "codex", "/tmp", "full-auto", to, sizeof to) < 0)
		return -1;
	fprintf(stderr, "bench-scale: queueing %s messages...\n", scale_grouped(count, num, sizeof num));
	t0 = bench_now_us();
	if (queue_messages(b, to, count, IN_FLIGHT, tag) < 0)
		return -1;
	df->queue_s = (bench_now_us() - t0) / 1e6;
	if (wait_rows(b->db, offered_sql, to, count, 30000, NULL, stop) < 0) {
		if (!*stop)
			fprintf(stderr, "bench-scale: svc-messages did not offer every message once within 30 s\n");
		return -1;
	}
	fprintf(stderr, "bench-scale: one bridge attaches for %s messages...\n", num);
	return attach_and_take(b, to, count, df, stop);
}

static void print_figures(const struct delivery_figures *df, int done)
{
	char num[32];

	printf("  %-9s %-22s %-26s %-26s %s\n", "messages", "queued (calls/s)", "attach -> last confirmed",
	       "attach -> last recorded", "asked again");
	for (int i = 0; i < done; i++) {
		char q[32], c[40], s[40];
		snprintf(q, sizeof q, "%.2f s (%.0f/s)", df[i].queue_s, (double)df[i].count / df[i].queue_s);
		snprintf(c, sizeof c, "%.0f ms (%.0f msg/s)", df[i].confirm_ms, df[i].count / (df[i].confirm_ms / 1000.0));
		snprintf(s, sizeof s, "%.0f ms (%.0f msg/s)", df[i].sent_ms, df[i].count / (df[i].sent_ms / 1000.0));
		printf("  %-9s %-22s %-26s %-26s %ld\n", scale_grouped(df[i].count, num, sizeof num), q, c, s, df[i].repeats);
	}
	if (done > 0) {
		const struct delivery_figures *last = &df[done - 1];
		double rate = last->count / (last->confirm_ms / 1000.0), recorded = last->count / (last->sent_ms / 1000.0);
		printf("  target: >= 1,000 messages/s to one attached bridge: %s messages, %.0f/s confirmed (%s), "
		       "%.0f/s recorded sent (%s)%s\n",
		       scale_grouped(last->count, num, sizeof num), rate, rate >= 1000 ? "met" : "missed", recorded,
		       recorded >= 1000 ? "met" : "missed", last->count == 1000 ? "" : " (not the target's count)");
	}
}

int scale_messages_part(struct scale_broker *b, const struct scale_messages_sizes *z,
			const volatile sig_atomic_t *stop)
{
	struct delivery_figures df[SCALE_MAX_COUNTS];
	int done = 0, rc = 0;

	printf("\nScale 2/3 (command: make bench; tests/bench/bench-scale.c): queued session messages to one bridge\n");
	printf("send_session_message from a Codex session's run to another session of the same project and access,\n"
	       "8 calls in flight, while no bridge is attached (each message offered once and answered offline);\n"
	       "then one stand-in bridge attaches (bridge/deliveries.c: session.attach, one delivery at a time,\n"
	       "deliver.done at once: its agent takes no time).  From the attach to the last deliver.done, and to\n"
	       "the last message recorded sent in appdata.db (svc-messages' outcome).\n\n");
	fflush(stdout);
	for (int i = 0; i < z->ncounts && rc == 0; i++) {
		if (z->counts[i] <= 0)
			continue;
		if (one_count(b, i, z->counts[i], &df[done], stop) < 0)
			rc = -1;
		else
			done++;
	}
	print_figures(df, done);
	fflush(stdout);
	return rc;
}
