/*
 * intake - how a call enters the broker: a plain `call` (hbctl, tests, a
 * desktop), a Codex item/tool/call frame (`codex.call`) and Claude's
 * toolCall / toolCancel events (`claude.call`, `claude.cancel`).  The
 * agents' frames stay JSON; only this file parses them.
 */
#ifndef HB_INTAKE_H
#define HB_INTAKE_H

#include "broker.h"

void intake_call(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
void intake_codex_call(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* codex.cancel {threadId, callId}: the turn was interrupted. */
void intake_codex_cancel(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
void intake_claude_call(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
void intake_claude_cancel(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* Free what intake keeps (the resolved thread links). */
void intake_free(struct broker *b);
/* thread.link {threadId, sessionId | parentThreadId}: the durable link. */
void intake_thread_link(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);

#endif
