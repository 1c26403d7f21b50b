/*
 * scale_messages - part 2 of the scale benchmark (bench-scale.c): M
 * messages queued with send_session_message to a session while no bridge
 * is attached (each offered once by svc-messages and answered offline),
 * then one stand-in bridge attaches and takes and confirms each delivery
 * with the bridges' own bookkeeping (bridge/deliveries.c: session.attach,
 * one delivery at a time, deliver.done), its agent taking no time.  Time
 * from the attach to the last deliver.done, and to the last message
 * recorded sent in appdata.db.
 */
#ifndef BENCH_SCALE_MESSAGES_H
#define BENCH_SCALE_MESSAGES_H

#include <signal.h>

#include "scale_broker.h"
#include "scale_stats.h"

struct scale_messages_sizes {
	long counts[SCALE_MAX_COUNTS]; /* HB_BENCH_SCALE_MESSAGES; those <= 0 are skipped */
	int ncounts;
};

/* Run part 2 on b (scale_broker_start's) and print its figures; 0, or -1
 * when a step failed (said on stderr) or *stop was set. */
int scale_messages_part(struct scale_broker *b, const struct scale_messages_sizes *z,
			const volatile sig_atomic_t *stop);

#endif
