/*
 * timeline_op - the front op timeline.publish: a bridge publishes the
 * timeline rows of its own session (docs/timeline.md, docs/protocol.md).
 */
#ifndef HB_TIMELINE_OP_H
#define HB_TIMELINE_OP_H

#include "broker.h"

void timeline_op_publish(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);

#endif
