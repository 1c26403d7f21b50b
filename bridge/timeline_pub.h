/*
 * timeline_pub - a bridge's outbox of timeline rows: the rows its
 * projector made since the last flush go to the broker (timeline.publish)
 * in as few requests as the caps allow, without waiting for an answer.
 */
#ifndef HB_TIMELINE_PUB_H
#define HB_TIMELINE_PUB_H

#include <jansson.h>

#include "client.h"

struct tl_pub {
	struct hb_client *broker;       /* NULL: rows are dropped (no broker) */
	const char *agent;              /* "claude" or "codex": the rows' agent */
	json_t *rows;                   /* waiting for the next flush */
	unsigned long sent, dropped;
};

void tl_pub_init(struct tl_pub *p, struct hb_client *broker, const char *agent);
/* Take the rows of the array rows (the array stays the caller's); a row
 * the broker would refuse (tl_row_check) is dropped here, logged, so it
 * never costs the rest of its batch. */
void tl_pub_add(struct tl_pub *p, const json_t *rows);
/* Send what waits: batches of at most TL_PUBLISH_MAX bytes and
 * TL_PUBLISH_ROWS rows; a row larger than a batch is dropped, logged. */
void tl_pub_flush(struct tl_pub *p);
void tl_pub_free(struct tl_pub *p);

#endif
