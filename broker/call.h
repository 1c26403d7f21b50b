/*
 * call - one tool call in the broker: its strings, its context, the
 * waiters that get its answer, and the answer in each waiter's form.
 */
#ifndef HB_CALL_H
#define HB_CALL_H

#include "broker.h"

/* A new call with a fresh key, for svc; NULL when out of memory. */
struct call *call_new(struct broker *b, struct service *svc, const char *tool, const char *args);
/* Set the context: session, run, project, agent, access, call_id. */
int call_set_context(struct call *c, const char *const ctx[6]);
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
