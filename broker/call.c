/*
 * call - the answer of a call goes to each waiter in its own form: a plain
 * reply for hbctl and tests; for Codex the JSON-RPC response to
 * item/tool/call, always a result ({contentItems, success}), never a
 * JSON-RPC error (the model would only see "dynamic tool request
 * failed"); for Claude the toolResult the bridge writes to the host
 * (MCP-style content plus isError); a subcall result for a service; a
 * callback for the broker's own requests.  The images of an answer reach
 * the front's waiters only: inside the agent's own answer, or beside the
 * text of a plain reply; a service or the broker reads the text.
 */
#include "call.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "dialect.h"
#include "log.h"
#include "reply.h"
#include "protocol.h"

/* "c" + the decimal number: on every call, so no printf. */
static void format_key(char out[24], uint64_t n)
{
	char digits[21];
	int len = 0;

	do
		digits[len++] = (char)('0' + n % 10);
	while ((n /= 10) && len < 20);
	out[0] = 'c';
	for (int i = 0; i < len; i++)
		out[1 + i] = digits[len - 1 - i];
	out[1 + len] = '\0';
}

static const char empty[] = "";

struct call *call_new(struct broker *b, struct service *svc, const char *tool, const char *args)
{
	size_t tl = strlen(tool), al = strlen(args);
	struct call *c = calloc(1, sizeof *c);

	if (!c || !(c->strings = malloc(tl + al + 2))) {
		free(c);
		return NULL;
	}
	memcpy(c->strings, tool, tl + 1);
	memcpy(c->strings + tl + 1, args, al + 1);
	c->tool = c->strings;
	c->args = c->strings + tl + 1;
	c->session = c->run = c->project = c->agent = c->access = c->call_id = c->model = empty;
	format_key(c->key, ++b->next_key);
	c->svc = svc;
	c->worker = -1;
	c->start_ms = broker_now_ms();
	return c;
}

int call_set_context(struct call *c, const char *const ctx[CALL_CONTEXT_FIELDS])
{
	const char **dst[CALL_CONTEXT_FIELDS] = { &c->session, &c->run, &c->project, &c->agent, &c->access,
						  &c->call_id, &c->model };
	size_t lens[CALL_CONTEXT_FIELDS], total = 0;
	char *p, *old;

	for (int i = 0; i < CALL_CONTEXT_FIELDS; i++)
		total += (lens[i] = strlen(ctx[i] ? ctx[i] : "")) + 1;
	if (!(p = malloc(total)))
		return -1;
	old = c->ctx_strings; /* ctx may point into it: free it last */
	c->ctx_strings = p;
	for (int i = 0; i < CALL_CONTEXT_FIELDS; i++) {
		memcpy(p, ctx[i] ? ctx[i] : "", lens[i] + 1);
		*dst[i] = p;
		p += lens[i] + 1;
	}
	free(old);
	return 0;
}

int call_add_waiter(struct call *c, const struct waiter *w)
{
	struct waiter *n = malloc(sizeof *n), **tail = &c->waiters;

	if (!n)
		return -1;
	*n = *w;
	n->next = NULL;
	if (w->native_id && !(n->native_id = strdup(w->native_id))) {
		free(n);
		return -1;
	}
	while (*tail)
		tail = &(*tail)->next;
	*tail = n;
	return 0;
}

/* The agent's own answer as JSON text (malloc'd), or NULL for plain. */
static char *native_answer(const struct waiter *w, int ok, const char *text, const char *images)
{
	if (w->form == FORM_CODEX)
		return dialect_codex_answer(w->native_id, ok, text, images);
	if (w->form == FORM_CLAUDE)
		return dialect_claude_result(w->native_id, ok, text, images);
	return NULL;
}

/* Sends a front caller its reply; 0, or -1 with errno (EMSGSIZE: the
 * reply, with the agent's own answer beside the text, is over a frame). */
static int answer_front(struct broker *b, const struct waiter *w, const char *key, int ok, const char *text,
			const char *images)
{
	struct hb_env e;
	char *native = NULL;
	int rc, saved;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_REPLY);
	reqid_put(&e, &w->id);
	if (key)
		hb_env_set_str(&e, "key", key);
	hb_env_set_bool(&e, "ok", ok);
	hb_env_set_str(&e, "text", text);
	if (w->form == FORM_PLAIN && images) {
		hb_env_set_str(&e, "images", images);
	} else if (w->form != FORM_PLAIN) {
		if (!(native = native_answer(w, ok, text, images))) {
			log_error(key, "cannot write the agent's answer (out of memory, bad text or bad images)");
			hb_env_set_bool(&e, "ok", 0);
			hb_env_set_err(&e, "internal", "the answer could not be written as JSON");
		} else {
			hb_env_set_str(&e, "json", native);
		}
	}
	rc = broker_send(b, b->front, &w->peer, &e);
	saved = errno;
	free(native);
	hb_env_free(&e);
	errno = saved;
	return rc;
}

/* images: the wire form of images.h, or NULL. */
static void answer_waiter(struct broker *b, const struct waiter *w, const char *key, int ok, const char *text,
			  const char *images)
{
	struct hb_env e;

	hb_env_init(&e);
	switch (w->origin) {
	case FROM_FRONT:
		if (answer_front(b, w, key, ok, text, images) == 0)
			break;
		if (errno == EMSGSIZE) {
			/* The text fits an answer, but written twice (as text and
			 * escaped in the agent's own answer) it may not fit a
			 * frame: the agent must still get an answer. */
			char why[256];
			snprintf(why, sizeof why, "The tool's answer (%zu bytes) is too large to pass on to the agent "
				 "once written in its format; nothing of it was kept. Ask for less.", strlen(text));
			log_warn(key, "answer over a frame once written for the agent; sent a failure instead");
			if (answer_front(b, w, key, 0, why, NULL) == 0)
				break;
		}
		log_warn(NULL, "the caller is gone (%s); answer dropped", zmq_strerror(errno));
		break;
	case FROM_SERVICE:
		hb_env_set_str(&e, "op", HB_OP_SUBCALL_RESULT);
		hb_env_set_str(&e, "key", w->parent_key);
		hb_env_set_str(&e, "sub", w->sub);
		hb_env_set_bool(&e, "ok", ok);
		hb_env_set_str(&e, "text", text);
		if (broker_send(b, b->back, &w->peer, &e) < 0)
			log_warn(w->parent_key, "the calling service is gone; subcall answer dropped");
		break;
	case FROM_BROKER:
		w->done(b, w->arg, ok, NULL, text);
		break;
	}
}

void call_answer_waiter(struct broker *b, const struct waiter *w, const char *key, int ok, const char *text)
{
	answer_waiter(b, w, key, ok, text, NULL);
}

void call_answer(struct broker *b, struct call *c, int ok, const char *text)
{
	while (c->waiters) {
		struct waiter *w = c->waiters;
		c->waiters = w->next;
		/* Only the broker's own requests act on a typed failure. */
		if (w->origin == FROM_BROKER)
			w->done(b, w->arg, ok, !ok && c->fail_code[0] ? c->fail_code : NULL, text);
		else
			answer_waiter(b, w, c->key, ok, text, c->images);
		free(w->native_id);
		free(w);
	}
}

void call_free(struct call *c)
{
	while (c->waiters) {
		struct waiter *w = c->waiters;
		c->waiters = w->next;
		free(w->native_id);
		free(w);
	}
	free(c->identity);
	free(c->ctx_strings);
	free(c->strings);
	free(c);
}
