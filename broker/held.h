/*
 * held - a worker held by one call past its family's call-limit counts as
 * hung.
 *
 * A service's heartbeat comes from its loop thread, which beats on while
 * a worker thread is stuck in a handler (a blocking open of a FIFO, a
 * stalled network file system): the service looked up and served nothing
 * once every worker was stuck.  Each heartbeat now says how long the call
 * that has held a worker longest has run; past call-limit (services.conf)
 * plus the hang grace, the supervisor kills the service as it kills one
 * whose heartbeats stop, so it restarts and its calls are answered.
 */
#ifndef HB_HELD_H
#define HB_HELD_H

#include <stddef.h>

#include "broker.h"

/* Note a heartbeat's heldMs and heldKey (absent: no call runs). */
void held_note(struct broker *b, struct instance *inst, const struct hb_env *e);
/* When inst's longest call passes its limit and the grace; 0 when no
 * call holds a worker. */
long long held_deadline(const struct broker *b, const struct instance *inst);
/* Why inst was killed for a held call, in words for its calls' answers. */
void held_describe(const struct broker *b, const struct instance *inst, char *how, size_t howlen);
/* Answer every call in flight on inst but the held one, which the
 * caller answers with held_describe's words: they held nothing, so they
 * are told that another call got the service killed. */
void held_fail_siblings(struct broker *b, struct instance *inst);

#endif
