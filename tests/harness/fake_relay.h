/*
 * fake_relay - start and read tests/fake-relay/relay.mjs, the tests'
 * stand-in for the regional relay (docs/relay-protocol.md), from a C
 * test: its options as a struct, its URL, its record file as JSON.
 *
 * A relay stopped and started again with the port it had and the same
 * record file is the real relay restarting: the same URL, and the ids
 * it received before are still duplicates (relay.mjs).
 */
#ifndef HB_FAKE_RELAY_H
#define HB_FAKE_RELAY_H

#include <jansson.h>

#include "node_server.h"
#include "tls_fixture.h"

struct fake_relay_opts {
	const char *mode;               /* accept (also for NULL), refuse, stall, hold */
	const char *credential;         /* the device credential it takes; NULL: none */
	const char *record;             /* its record file (appended to); NULL: none */
	int port;                       /* 0: one of the system's choice */
	const struct tls_fixture *tls;  /* wss with its cert and key; NULL: plain ws */
	const char *cut_after;          /* "N": --cut-after N; NULL: never cut */
	const char *drop_reason;        /* each ack followed by dropped; NULL: none */
	const char *answer;             /* the phone answers each approval card: allow, deny; NULL: never */
	int answer_unknown;             /* and first answers a card nobody has */
};

struct fake_relay {
	struct node_server node;        /* node.port: where it listens */
	char url[64];                   /* wss://localhost:PORT/device (ws:// without tls) */
};

/* 0, or -1 after saying why on stderr. */
int fake_relay_start(struct fake_relay *r, const struct fake_relay_opts *o);
/* 0 when it ended cleanly. */
int fake_relay_stop(struct fake_relay *r);
/* The records of a record file as a JSON array ([] when there is no
 * file); NULL, said on stderr, when a line is not JSON. */
json_t *fake_relay_records(const char *record);

#endif
