/*
 * call - one tool call in the broker: its strings, its context, the
 * waiters that get its answer, and the answer in each waiter's form.
 */
#ifndef HB_CALL_H
#define HB_CALL_H

#include "broker.h"

/* A new call with a fresh key, for svc; NULL when out of memory. */
struct call *call_new(struct broker *b, struct service *svc, const char *tool, const char *args);
/* The context of a call, in this order: session, run, project, agent,
 * access, call_id, model. */
#define CALL_CONTEXT_FIELDS 7
int call_set_context(struct call *c, const char *const ctx[CALL_CONTEXT_FIELDS]);
/* Add a copy of w (its native_id is copied too). */
int call_add_waiter(struct call *c, const struct waiter *w);
/* Answer every waiter, each in its form (with c->images, when the
 * service's result has them), and free the waiters. */
void call_answer(struct broker *b, struct call *c, int ok, const char *text);
/* Answer one waiter; key is the call's, or NULL for a request refused at
 * the door. */
void call_answer_waiter(struct broker *b, const struct waiter *w, const char *key, int ok, const char *text);
void call_free(struct call *c);

#endif
