/*
 * itest_protocol - the front protocol of the real hb-broker, end to end.
 *
 * One broker runs for the whole file with svc-echo (concurrency 4) and
 * svc-sessions.  The tests speak to it as any local process could: raw
 * DEALER sockets sending garbage and oversized frames, pipelined calls on
 * one connection, cancel by the key read from the events socket, the
 * events themselves, and hbctl as a user runs it.  Every bad frame must get
 * an error reply that names the problem, and the broker must keep
 * answering afterwards.  Assertions are about order and content, never
 * about speed; the only time bounds are generous "it never came" limits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <msgpack.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "client.h"
#include "envelope.h"
#include "../harness/harness.h"
#include "sock.h"

static const char config[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 4\n"
	"tools = echo sleep subcall progress exit\n"
	"\n"
	"[service svc-sessions]\n"
	"exec = @BUILD@/svc-sessions\n"
	"concurrency = 4\n"
	"tools = maintain_sessions manage_sessions _resolve_thread _link_thread _link_claude _session_info\n";

static struct fixture fx;

/* ---- raw DEALER on the front socket ---------------------------------- */

struct raw {
	void *ctx, *sock;
};

static void raw_open(struct raw *r)
{
	char ep[400];
	int zero = 0;

	snprintf(ep, sizeof ep, "ipc://%s/run/front.sock", fx.dir);
	r->ctx = zmq_ctx_new();
	assert_non_null(r->ctx);
	r->sock = zmq_socket(r->ctx, ZMQ_DEALER);
	assert_non_null(r->sock);
	assert_int_equal(zmq_setsockopt(r->sock, ZMQ_LINGER, &zero, sizeof zero), 0);
	assert_int_equal(zmq_connect(r->sock, ep), 0);
}

static void raw_close(struct raw *r)
{
	zmq_close(r->sock);
	zmq_ctx_term(r->ctx);
}

static void raw_send(struct raw *r, const void *buf, size_t len, int flags)
{
	assert_int_equal(zmq_send(r->sock, buf, len, flags), (int)len);
}

/* The next envelope on r, or fail after timeout_ms. */
static void raw_recv(struct raw *r, struct hb_env *e, int timeout_ms, const char *what)
{
	zmq_pollitem_t item = { r->sock, 0, ZMQ_POLLIN, 0 };
	char err[256];

	if (zmq_poll(&item, 1, timeout_ms) <= 0)
		fail_msg("%s: no reply within %d ms", what, timeout_ms);
	if (hb_recv_env(r->sock, e, err, sizeof err) != 1)
		fail_msg("%s: the broker's reply does not decode: %s", what, err);
}

static void raw_send_env(struct raw *r, struct hb_env *e)
{
	char *buf;
	size_t len;

	assert_int_equal(hb_env_encode(e, &buf, &len), 0);
	raw_send(r, buf, len, 0);
	free(buf);
}

/* A valid hello with this id must be answered with ok and the same id. */
static void raw_hello(struct raw *r, int64_t id, const char *after)
{
	struct hb_env req, reply;
	int64_t got = -1;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "hello");
	hb_env_set_int(&req, "id", id);
	raw_send_env(r, &req);
	raw_recv(r, &reply, 5000, after);
	if (hb_env_int(&reply, "id", &got) < 0 || got != id || !hb_env_bool(&reply, "ok", 0))
		fail_msg("%s: hello %lld was not answered (id %lld, ok %d, err %s)", after, (long long)id,
			 (long long)got, hb_env_bool(&reply, "ok", 0), hb_env_str_or(&reply, "err.msg", "-"));
	assert_non_null(strstr(hb_env_str_or(&reply, "json", ""), "\"protocol\":1"));
	hb_env_free(&reply);
}

/* ---- msgpack helpers --------------------------------------------------- */

static void pk_str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

/* ---- events -------------------------------------------------------------- */

struct sub {
	void *ctx, *sock;
};

static void sub_open(struct sub *s, const char *prefix)
{
	char ep[400];

	snprintf(ep, sizeof ep, "ipc://%s/run/events.sock", fx.dir);
	s->ctx = zmq_ctx_new();
	assert_non_null(s->ctx);
	s->sock = hb_sock_sub(s->ctx, prefix);
	assert_non_null(s->sock);
	assert_int_equal(zmq_connect(s->sock, ep), 0);
}

static void sub_close(struct sub *s)
{
	zmq_close(s->sock);
	zmq_ctx_term(s->ctx);
}

/* The next event's body (topic in topic), or NULL after timeout_ms. */
static json_t *sub_next(struct sub *s, int timeout_ms, char *topic, size_t topiclen)
{
	zmq_pollitem_t item = { s->sock, 0, ZMQ_POLLIN, 0 };
	struct hb_env e;
	char err[256];
	json_t *body;
	int n;

	if (zmq_poll(&item, 1, timeout_ms) <= 0)
		return NULL;
	n = zmq_recv(s->sock, topic, topiclen - 1, 0);
	assert_true(n >= 0);
	topic[(size_t)n < topiclen - 1 ? (size_t)n : topiclen - 1] = '\0';
	if (hb_recv_env(s->sock, &e, err, sizeof err) != 1)
		fail_msg("event %s: the envelope does not decode: %s", topic, err);
	assert_string_equal(hb_env_str_or(&e, "op", ""), "event");
	assert_string_equal(hb_env_str_or(&e, "topic", ""), topic);
	body = json_loads(hb_env_str_or(&e, "json", ""), 0, NULL);
	if (!body)
		fail_msg("event %s: its json is not JSON: %s", topic, hb_env_str_or(&e, "json", ""));
	hb_env_free(&e);
	return body;
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* The first event with this topic whose field equals value (any when
 * field is NULL); fails after timeout_ms. */
static json_t *sub_wait(struct sub *s, const char *want, const char *field, const char *value, int timeout_ms)
{
	long long deadline = fx_now_ms() + timeout_ms;

	for (;;) {
		long long left = deadline - fx_now_ms();
		char topic[128];
		json_t *body = NULL;

		if (left <= 0 || !(body = sub_next(s, (int)left, topic, sizeof topic)))
			fail_msg("no %s event with %s=%s within %d ms", want, field ? field : "-",
				 value ? value : "-", timeout_ms);
		if (strcmp(topic, want) == 0 && strcmp(jstr(body, "event"), want) == 0 &&
		    (!field || strcmp(jstr(body, field), value) == 0))
			return body;
		json_decref(body);
	}
}

/* PUB drops what it publishes before the subscription has arrived: make
 * echo calls until one of their call.start events gets through, then
 * drain what is left. */
static void sub_warm(struct sub *s)
{
	long long deadline = fx_now_ms() + 10000;
	int got = 0;

	while (!got && fx_now_ms() < deadline) {
		char topic[128], *text = NULL;
		json_t *body;
		int ok;

		assert_int_equal(fx_call(&fx, "echo", "{\"warm\":true}", &ok, &text), 0);
		free(text);
		while ((body = sub_next(s, 100, topic, sizeof topic))) {
			got = 1;
			json_decref(body);
		}
	}
	assert_true(got);
}

/* ---- small helpers ------------------------------------------------------- */

static json_t *service_of(json_t *st, const char *name)
{
	json_t *svcs = json_object_get(st, "services"), *s;
	size_t i;

	json_array_foreach(svcs, i, s)
		if (strcmp(jstr(s, "name"), name) == 0)
			return s;
	return NULL;
}

static void call_expect(const char *tool, const char *json, int want_ok, const char *want_text)
{
	char *text = NULL;
	int ok = -1;

	if (fx_call(&fx, tool, json, &ok, &text) < 0)
		fail_msg("%s %s: no answer: %s", tool, json, text ? text : "?");
	if (ok != want_ok || !strstr(text, want_text))
		fail_msg("%s %s: got ok=%d \"%s\"; want ok=%d with \"%s\"", tool, json, ok, text, want_ok, want_text);
	free(text);
}

static void send_call(struct hb_client *c, const char *tool, const char *json, int64_t *id)
{
	struct hb_env req;
	char err[256];

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "call");
	hb_env_set_str(&req, "tool", tool);
	hb_env_set_str(&req, "json", json);
	if (hb_client_send(c, &req, id, err, sizeof err) < 0)
		fail_msg("send %s: %s", tool, err);
}

static void recv_reply(struct hb_client *c, struct hb_env *reply, int timeout_ms, int64_t *id)
{
	char err[256];

	if (hb_client_recv(c, reply, timeout_ms, err, sizeof err) < 0)
		fail_msg("no reply: %s", err);
	if (hb_env_int(reply, "id", id) < 0)
		fail_msg("a reply without an id: err %s", hb_env_str_or(reply, "err.msg", "-"));
}

/* ---- 1. garbage on the front socket ------------------------------------ */

struct bad_case {
	const char *name;
	unsigned char *buf;
	size_t len;
	int two_frames;
	int64_t id;           /* > 0: the reply must carry it */
	const char *code;     /* err.code wanted */
	const char *reason;   /* substring of err.msg */
};

static void copy_case(struct bad_case *c, const void *buf, size_t len)
{
	c->buf = malloc(len ? len : 1);
	assert_non_null(c->buf);
	memcpy(c->buf, buf, len);
	c->len = len;
}

static void sbuf_case(struct bad_case *c, msgpack_sbuffer *sb)
{
	copy_case(c, sb->data, sb->size);
	msgpack_sbuffer_clear(sb);
}

static void env_case(struct bad_case *c, struct hb_env *e, int64_t id)
{
	char *buf;
	size_t len;

	hb_env_set_int(e, "id", id);
	assert_int_equal(hb_env_encode(e, &buf, &len), 0);
	copy_case(c, buf, len);
	free(buf);
	c->id = id;
}

static int build_cases(struct bad_case *cases)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct hb_env e;
	unsigned char tmp[256];
	int n = 0;

	memset(cases, 0, 32 * sizeof *cases);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);

	/* Fixed "random" bytes: a fixed seed keeps failures reproducible. */
	srand(12345);
	for (size_t i = 0; i < 64; i++)
		tmp[i] = (unsigned char)(rand() & 0xff);
	tmp[0] = 0x8f; /* a map of 15: the decoder must walk into the noise */
	cases[n] = (struct bad_case){ .name = "random bytes", .code = "bad-frame", .reason = "" };
	copy_case(&cases[n++], tmp, 64);

	cases[n] = (struct bad_case){ .name = "dd ff ff ff ff", .code = "bad-frame", .reason = "claims" };
	copy_case(&cases[n++], "\xdd\xff\xff\xff\xff", 5);

	for (int i = 0; i < 33; i++) {
		tmp[3 * i] = 0x81;
		tmp[3 * i + 1] = 0xa1;
		tmp[3 * i + 2] = 'a';
	}
	tmp[99] = 0x01;
	cases[n] = (struct bad_case){ .name = "map nested 33 deep", .code = "bad-frame", .reason = "nest" };
	copy_case(&cases[n++], tmp, 100);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "hello");
	env_case(&cases[n], &e, 0);
	cases[n].id = 0;
	cases[n].buf = realloc(cases[n].buf, cases[n].len + 1);
	cases[n].buf[cases[n].len++] = 0x00;
	cases[n].name = "valid map + trailing byte";
	cases[n].code = "bad-frame";
	cases[n++].reason = "trailing";

	cases[n] = (struct bad_case){ .name = "byte 0xc1", .code = "bad-frame", .reason = "0xc1" };
	copy_case(&cases[n++], "\xc1", 1);

	msgpack_pack_map(&pk, 3);
	pk_str(&pk, "v");
	msgpack_pack_int(&pk, 1);
	pk_str(&pk, "op");
	pk_str(&pk, "hello");
	msgpack_pack_int(&pk, 7);
	msgpack_pack_int(&pk, 1);
	cases[n] = (struct bad_case){ .name = "int key", .code = "bad-frame", .reason = "key" };
	sbuf_case(&cases[n++], &sb);

	msgpack_pack_map(&pk, 2);
	pk_str(&pk, "op");
	pk_str(&pk, "hello");
	pk_str(&pk, "id");
	msgpack_pack_int(&pk, 3);
	cases[n] = (struct bad_case){ .name = "no v", .code = "bad-frame", .reason = "version" };
	sbuf_case(&cases[n++], &sb);

	msgpack_pack_map(&pk, 3);
	pk_str(&pk, "v");
	msgpack_pack_int(&pk, 2);
	pk_str(&pk, "op");
	pk_str(&pk, "hello");
	pk_str(&pk, "id");
	msgpack_pack_int(&pk, 4);
	cases[n] = (struct bad_case){ .name = "v=2", .code = "bad-frame", .reason = "version 2" };
	sbuf_case(&cases[n++], &sb);

	msgpack_pack_map(&pk, 2);
	pk_str(&pk, "v");
	msgpack_pack_int(&pk, 1);
	pk_str(&pk, "id");
	msgpack_pack_int(&pk, 5);
	cases[n] = (struct bad_case){ .name = "no op", .code = "bad-frame", .reason = "op" };
	sbuf_case(&cases[n++], &sb);

	msgpack_pack_map(&pk, 2);
	pk_str(&pk, "v");
	msgpack_pack_int(&pk, 1);
	pk_str(&pk, "op");
	msgpack_pack_int(&pk, 5);
	cases[n] = (struct bad_case){ .name = "op not a string", .code = "bad-frame", .reason = "op" };
	sbuf_case(&cases[n++], &sb);

	msgpack_pack_map(&pk, 3);
	pk_str(&pk, "v");
	msgpack_pack_int(&pk, 1);
	pk_str(&pk, "op");
	pk_str(&pk, "hello");
	pk_str(&pk, "op");
	pk_str(&pk, "status");
	cases[n] = (struct bad_case){ .name = "duplicate key", .code = "bad-frame", .reason = "twice" };
	sbuf_case(&cases[n++], &sb);

	msgpack_pack_map(&pk, 3);
	pk_str(&pk, "v");
	msgpack_pack_int(&pk, 1);
	pk_str(&pk, "op");
	pk_str(&pk, "hello");
	pk_str(&pk, "x");
	msgpack_pack_ext(&pk, 1, 5);
	msgpack_pack_ext_body(&pk, "x", 1);
	cases[n] = (struct bad_case){ .name = "ext type", .code = "bad-frame", .reason = "extension" };
	sbuf_case(&cases[n++], &sb);

	msgpack_pack_map(&pk, 2);
	pk_str(&pk, "v");
	msgpack_pack_int(&pk, 1);
	pk_str(&pk, "op");
	msgpack_pack_str(&pk, 6);
	msgpack_pack_str_body(&pk, "hel\0lo", 6);
	cases[n] = (struct bad_case){ .name = "NUL in a string", .code = "bad-frame", .reason = "NUL" };
	sbuf_case(&cases[n++], &sb);

	msgpack_pack_array(&pk, 1);
	msgpack_pack_int(&pk, 1);
	cases[n] = (struct bad_case){ .name = "an array", .code = "bad-frame", .reason = "not a map" };
	sbuf_case(&cases[n++], &sb);

	cases[n] = (struct bad_case){ .name = "empty frame", .code = "bad-frame", .reason = "" };
	copy_case(&cases[n++], "", 0);

	cases[n] = (struct bad_case){ .name = "truncated map", .code = "bad-frame", .reason = "" };
	copy_case(&cases[n++], "\x82\xa1v\x01", 4);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "frobnicate");
	env_case(&cases[n], &e, 11);
	cases[n].name = "unknown op";
	cases[n].code = "unknown-op";
	cases[n++].reason = "frobnicate";

	/* Bytes that are not UTF-8 in op are named, escaped, never echoed. */
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "\xff\xfe\xc3" "frob");
	env_case(&cases[n], &e, 15);
	cases[n].name = "op not UTF-8";
	cases[n].code = "unknown-op";
	cases[n++].reason = "\\xff\\xfe\\xc3frob";

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "json", "{}");
	env_case(&cases[n], &e, 12);
	cases[n].name = "call without tool";
	cases[n].code = "bad-frame";
	cases[n++].reason = "tool";

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "tool", "no_such_tool");
	env_case(&cases[n], &e, 13);
	cases[n].name = "unknown tool";
	cases[n].code = "unknown-tool";
	cases[n++].reason = "no_such_tool";

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "tool", "_resolve_thread");
	hb_env_set_str(&e, "json", "{\"threadId\":\"t1\"}");
	env_case(&cases[n], &e, 14);
	cases[n].name = "internal tool _resolve_thread";
	cases[n].code = "unknown-tool";
	cases[n++].reason = "_resolve_thread";

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "hello");
	env_case(&cases[n], &e, 0);
	cases[n].id = 0;
	cases[n].two_frames = 1;
	cases[n].name = "two-frame message";
	cases[n].code = "bad-frame";
	cases[n++].reason = "one frame";

	msgpack_sbuffer_destroy(&sb);
	return n;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static int valid_utf8(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
		unsigned long cp = n == 0 ? *p : n == 1 ? (*p & 0x1fu) : n == 2 ? (*p & 0x0fu) : (*p & 0x07u);

		if (n < 0)
			return 0;
		for (int i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i] & 0x3fu);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		p += n + 1;
	}
	return 1;
}

static void test_garbage_then_hello(void **state)
{
	struct bad_case cases[32];
	struct raw r;
	int n;

	(void)state;
	n = build_cases(cases);
	raw_open(&r);
	raw_hello(&r, 1, "before any garbage");
	for (int i = 0; i < n; i++) {
		struct bad_case *c = &cases[i];
		struct hb_env reply;
		int64_t got = -1;
		char after[128];

		if (c->two_frames) {
			raw_send(&r, c->buf, c->len, ZMQ_SNDMORE);
			raw_send(&r, c->buf, c->len, 0);
		} else {
			raw_send(&r, c->buf, c->len, 0);
		}
		raw_recv(&r, &reply, 5000, c->name);
		if (hb_env_bool(&reply, "ok", 1) != 0)
			fail_msg("%s: the reply is not ok=false", c->name);
		if (strcmp(hb_env_str_or(&reply, "op", ""), "reply") != 0)
			fail_msg("%s: op is \"%s\", not reply", c->name, hb_env_str_or(&reply, "op", ""));
		if (strcmp(hb_env_str_or(&reply, "err.code", ""), c->code) != 0)
			fail_msg("%s: err.code \"%s\", want \"%s\" (msg: %s)", c->name,
				 hb_env_str_or(&reply, "err.code", ""), c->code, hb_env_str_or(&reply, "err.msg", ""));
		if (!*hb_env_str_or(&reply, "err.msg", "") || !strstr(hb_env_str_or(&reply, "err.msg", ""), c->reason))
			fail_msg("%s: err.msg \"%s\" does not name the problem (\"%s\")", c->name,
				 hb_env_str_or(&reply, "err.msg", ""), c->reason);
		if (!valid_utf8(hb_env_str_or(&reply, "err.msg", "")))
			fail_msg("%s: err.msg is not UTF-8", c->name);
		if (c->id > 0 && (hb_env_int(&reply, "id", &got) < 0 || got != c->id))
			fail_msg("%s: the reply carries id %lld, want %lld", c->name, (long long)got, (long long)c->id);
		hb_env_free(&reply);
		snprintf(after, sizeof after, "after %s", c->name);
		raw_hello(&r, 100 + i, after);
		free(c->buf);
	}
	raw_close(&r);
}

/* A string id comes back as the same string. */
static void test_string_id(void **state)
{
	struct hb_env req, reply;
	struct raw r;

	(void)state;
	raw_open(&r);
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "hello");
	hb_env_set_str(&req, "id", "req-abc");
	raw_send_env(&r, &req);
	raw_recv(&r, &reply, 5000, "hello with a string id");
	assert_string_equal(hb_env_str_or(&reply, "id", ""), "req-abc");
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	raw_close(&r);
}

/* A long string id is echoed whole, or refused; never cut, which would
 * leave the client waiting for an id that never comes. */
static void test_long_string_id(void **state)
{
	char id[101];
	struct hb_env req, reply;
	struct raw r;

	(void)state;
	memset(id, 'i', 100);
	id[100] = '\0';
	raw_open(&r);
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "hello");
	hb_env_set_str(&req, "id", id);
	raw_send_env(&r, &req);
	raw_recv(&r, &reply, 5000, "hello with a 100-byte id");
	{
		size_t got = strlen(hb_env_str_or(&reply, "id", ""));
		int cut = strcmp(hb_env_str_or(&reply, "id", ""), id) != 0 && hb_env_bool(&reply, "ok", 0);

		hb_env_free(&reply);
		if (cut)
			fail_msg("a 100-byte id came back cut to %zu bytes", got);
	}
	raw_hello(&r, 7, "after a long id");
	raw_close(&r);
}

/* ---- 2. an oversized frame ---------------------------------------------- */

static void test_oversized_frame(void **state)
{
	size_t len = (size_t)HB_MAX_FRAME + 1;
	unsigned char *big = calloc(1, len);
	struct hb_env reply;
	struct raw r, r2;
	json_t *st;

	(void)state;
	assert_non_null(big);
	raw_open(&r);
	raw_hello(&r, 1, "before the oversized frame");
	raw_send(&r, big, len, 0);

	/* A new connection is served, with the broker still the same process. */
	raw_open(&r2);
	raw_hello(&r2, 2, "a new connection after the oversized frame");
	raw_close(&r2);
	call_expect("echo", "{\"after\":\"oversized\"}", 1, "{\"after\":\"oversized\"}");
	assert_int_equal(kill(fx.broker, 0), 0);
	assert_int_equal(waitpid(fx.broker, NULL, WNOHANG), 0);
	st = fx_status(&fx);
	assert_non_null(st);
	json_decref(st);

	/* A frame of exactly the limit reaches the decoder and is refused there. */
	big[0] = 0x81; /* a map that the noise after it cannot complete */
	raw_open(&r2);
	raw_send(&r2, big, HB_MAX_FRAME, 0);
	raw_recv(&r2, &reply, 10000, "a frame of exactly HB_MAX_FRAME bytes");
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "bad-frame");
	hb_env_free(&reply);
	raw_hello(&r2, 3, "after a frame of exactly HB_MAX_FRAME bytes");
	raw_close(&r2);
	raw_close(&r);

	/* Our own client refuses such a frame itself, with a sentence. */
	{
		struct hb_client c;
		struct hb_env req;
		char err[256];
		int64_t id;

		memset(big, 'a', len - 1);
		big[len - 1] = '\0';
		assert_int_equal(fx_client(&fx, &c, 5000), 0);
		hb_env_init(&req);
		hb_env_set_str(&req, "op", "call");
		hb_env_set_str(&req, "tool", "echo");
		hb_env_set_str(&req, "json", (const char *)big);
		assert_int_equal(hb_client_send(&c, &req, &id, err, sizeof err), -1);
		assert_non_null(strstr(err, "larger than the 8 MiB a frame may have; nothing was sent"));
		hb_client_close(&c);
	}
	free(big);
}

/* ---- 3. a slow call never blocks the next ------------------------------- */

static void test_slow_call_does_not_block(void **state)
{
	struct hb_client c;
	struct hb_env reply;
	int64_t sleep_id, echo_id, got;

	(void)state;
	assert_int_equal(fx_client(&fx, &c, 10000), 0);
	send_call(&c, "sleep", "{\"ms\":2000}", &sleep_id);
	send_call(&c, "echo", "{\"quick\":1}", &echo_id);

	recv_reply(&c, &reply, 10000, &got);
	if (got != echo_id)
		fail_msg("the first reply is for id %lld (sleep is %lld): the echo waited for the sleep",
			 (long long)got, (long long)sleep_id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	assert_string_equal(hb_env_str_or(&reply, "text", ""), "{\"quick\":1}");
	hb_env_free(&reply);

	recv_reply(&c, &reply, 10000, &got);
	assert_int_equal(got, sleep_id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	assert_string_equal(hb_env_str_or(&reply, "text", ""), "slept 2000 ms");
	hb_env_free(&reply);
	hb_client_close(&c);
}

/* ---- 4. several calls at once on one service ---------------------------- */

static void test_pipelined_calls(void **state)
{
	long long before = fx_service_num(&fx, "svc-echo", "callsServed"), after;
	struct hb_client c;
	int64_t ids[4];
	int seen[4] = { 0 };

	(void)state;
	assert_int_equal(fx_client(&fx, &c, 10000), 0);
	for (int i = 0; i < 4; i++)
		send_call(&c, "sleep", "{\"ms\":300}", &ids[i]);
	for (int i = 0; i < 4; i++) {
		struct hb_env reply;
		int64_t got;
		int j;

		recv_reply(&c, &reply, 10000, &got);
		for (j = 0; j < 4 && ids[j] != got; j++)
			;
		if (j == 4 || seen[j])
			fail_msg("a reply for unexpected id %lld", (long long)got);
		seen[j] = 1;
		if (!hb_env_bool(&reply, "ok", 0))
			fail_msg("sleep %d failed: %s", j, hb_env_str_or(&reply, "text", "?"));
		assert_string_equal(hb_env_str_or(&reply, "text", ""), "slept 300 ms");
		assert_true(hb_env_str_or(&reply, "key", "")[0] == 'c');
		hb_env_free(&reply);
	}
	hb_client_close(&c);
	after = fx_service_num(&fx, "svc-echo", "callsServed");
	assert_int_equal(after, before + 4);
}

/* ---- 5. subcalls ---------------------------------------------------------- */

static void test_subcall(void **state)
{
	(void)state;
	call_expect("subcall", "{\"tool\":\"echo\",\"json\":\"{\\\"x\\\":1}\"}", 1,
		    "subcall answered: {\"x\":1}");
	call_expect("subcall", "{\"tool\":\"no_such_tool\",\"json\":\"{}\"}", 0, "subcall failed: ");
	call_expect("subcall", "{\"tool\":\"no_such_tool\",\"json\":\"{}\"}", 0, "no service");
	/* Internal tools are not reachable from a service either. */
	call_expect("subcall", "{\"tool\":\"_resolve_thread\",\"json\":\"{\\\"threadId\\\":\\\"t\\\"}\"}", 0,
		    "no service");
	/* A subcall to another family: svc-sessions answers through the broker. */
	call_expect("subcall", "{\"tool\":\"maintain_sessions\",\"json\":\"{\\\"action\\\":\\\"bogus\\\"}\"}", 0,
		    "subcall failed: ");
	call_expect("subcall", "{\"tool\":\"echo\"}", 0, "json");
}

/* ---- 6. cancel -------------------------------------------------------------- */

static void test_cancel(void **state)
{
	struct hb_client c;
	struct hb_env req, reply;
	struct sub s;
	int64_t call_id, cancel_id, got;
	char key[64], err[256];
	int have_call = 0, have_cancel = 0;
	long long deadline;
	json_t *ev;

	(void)state;
	sub_open(&s, "call.");
	sub_warm(&s);
	assert_int_equal(fx_client(&fx, &c, 10000), 0);
	send_call(&c, "sleep", "{\"ms\":10000}", &call_id);
	ev = sub_wait(&s, "call.start", "tool", "sleep", 5000);
	snprintf(key, sizeof key, "%s", jstr(ev, "key"));
	assert_true(key[0] != '\0');
	json_decref(ev);

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "cancel");
	hb_env_set_str(&req, "key", key);
	assert_int_equal(hb_client_send(&c, &req, &cancel_id, err, sizeof err), 0);
	/* Both answers well before the 10 s sleep could have ended. */
	for (int i = 0; i < 2; i++) {
		recv_reply(&c, &reply, 5000, &got);
		if (got == call_id) {
			have_call = 1;
			assert_false(hb_env_bool(&reply, "ok", 1));
			assert_string_equal(hb_env_str_or(&reply, "text", ""), "Run stopped.");
			assert_string_equal(hb_env_str_or(&reply, "key", ""), key);
		} else if (got == cancel_id) {
			have_cancel = 1;
			if (!hb_env_bool(&reply, "ok", 0))
				fail_msg("cancel refused: %s", hb_env_str_or(&reply, "err.msg", "?"));
		} else {
			fail_msg("a reply for unexpected id %lld", (long long)got);
		}
		hb_env_free(&reply);
	}
	assert_true(have_call && have_cancel);
	ev = sub_wait(&s, "call.end", "key", key, 5000);
	assert_true(json_is_false(json_object_get(ev, "ok")));
	json_decref(ev);

	/* The service's handler stops, and its late result is not a second answer. */
	deadline = fx_now_ms() + 5000;
	for (;;) {
		json_t *st = fx_status(&fx), *svc = st ? service_of(st, "svc-echo") : NULL;
		long long svc_inflight = svc ? json_integer_value(json_object_get(svc, "callsInFlight")) : -1;
		long long all = st ? json_integer_value(json_object_get(json_object_get(st, "broker"),
									"callsInFlight")) : -1;
		json_decref(st);
		if (svc_inflight == 0 && all == 0)
			break;
		if (fx_now_ms() > deadline)
			fail_msg("callsInFlight stays at %lld (broker %lld) after the cancel", svc_inflight, all);
		fx_sleep_ms(20);
	}
	if (hb_client_recv(&c, &reply, 300, err, sizeof err) == 0)
		fail_msg("a second answer after the cancel: id %lld text %s",
			 (long long)(hb_env_int(&reply, "id", &got) == 0 ? got : -1), hb_env_str_or(&reply, "text", ""));

	/* A key that is not in flight (this one, now) is refused by name. */
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "cancel");
	hb_env_set_str(&req, "key", key);
	assert_int_equal(hb_client_request(&c, &req, &reply, err, sizeof err), 0);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "unknown-call");
	hb_env_free(&reply);
	hb_client_close(&c);
	sub_close(&s);
	/* The service still works. */
	call_expect("echo", "{\"after\":\"cancel\"}", 1, "{\"after\":\"cancel\"}");
}

/* ---- 7. events ---------------------------------------------------------------- */

static void test_events(void **state)
{
	struct hb_client c;
	struct hb_env reply;
	struct sub s;
	int64_t id, got;
	char key[64];
	json_t *ev;
	pid_t old;
	long long gen;

	(void)state;
	sub_open(&s, "");
	sub_warm(&s);

	/* call.start and call.end for an echo, with the reply's key. */
	assert_int_equal(fx_client(&fx, &c, 10000), 0);
	send_call(&c, "echo", "{\"event\":\"test\"}", &id);
	recv_reply(&c, &reply, 10000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	snprintf(key, sizeof key, "%s", hb_env_str_or(&reply, "key", ""));
	hb_env_free(&reply);
	assert_true(key[0] != '\0');
	ev = sub_wait(&s, "call.start", "key", key, 5000);
	assert_string_equal(jstr(ev, "tool"), "echo");
	assert_string_equal(jstr(ev, "service"), "svc-echo");
	json_decref(ev);
	ev = sub_wait(&s, "call.end", "key", key, 5000);
	assert_string_equal(jstr(ev, "tool"), "echo");
	assert_true(json_is_true(json_object_get(ev, "ok")));
	assert_true(json_is_integer(json_object_get(ev, "durationMs")));
	assert_true(json_integer_value(json_object_get(ev, "durationMs")) >= 0);
	assert_true(json_is_integer(json_object_get(ev, "time")));
	json_decref(ev);

	/* call.progress with the text. */
	send_call(&c, "progress", "{\"text\":\"half way there\"}", &id);
	recv_reply(&c, &reply, 10000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	snprintf(key, sizeof key, "%s", hb_env_str_or(&reply, "key", ""));
	hb_env_free(&reply);
	ev = sub_wait(&s, "call.progress", "key", key, 5000);
	assert_string_equal(jstr(ev, "text"), "half way there");
	assert_string_equal(jstr(ev, "tool"), "progress");
	json_decref(ev);
	hb_client_close(&c);

	/* SIGKILL svc-echo: service.down, then service.up with a new pid. */
	old = fx_service_pid(&fx, "svc-echo");
	gen = fx_service_num(&fx, "svc-echo", "generation");
	assert_true(old > 0);
	assert_int_equal(kill(old, SIGKILL), 0);
	ev = sub_wait(&s, "service.down", "service", "svc-echo", 10000);
	assert_int_equal(json_integer_value(json_object_get(ev, "pid")), old);
	if (!strstr(jstr(ev, "detail"), "signal 9"))
		fail_msg("service.down detail \"%s\" does not name signal 9", jstr(ev, "detail"));
	json_decref(ev);
	ev = sub_wait(&s, "service.up", "service", "svc-echo", 10000);
	assert_true(json_integer_value(json_object_get(ev, "pid")) > 0);
	assert_true(json_integer_value(json_object_get(ev, "pid")) != old);
	assert_true(json_integer_value(json_object_get(ev, "generation")) > gen);
	json_decref(ev);
	assert_int_equal(fx_wait_up(&fx, "svc-echo", gen + 1, 10000), 0);
	call_expect("echo", "{\"after\":\"kill\"}", 1, "{\"after\":\"kill\"}");
	sub_close(&s);
}

/* ---- 8. hbctl ---------------------------------------------------------------- */

static int has_status_line(const char *out, const char *svc, const char *state)
{
	const char *p = out;

	while (p && *p) {
		char name[64], st[64];
		if (sscanf(p, "%63s %63s", name, st) == 2 && strcmp(name, svc) == 0 && strcmp(st, state) == 0)
			return 1;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* A line of out that is a JSON object whose "event" is event. */
static int has_event_line(const char *out, const char *event)
{
	const char *p = out;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		json_t *o = json_loadb(p, len, 0, NULL);
		int hit = o && strcmp(jstr(o, "event"), event) == 0 && json_is_true(json_object_get(o, "ok"));

		json_decref(o);
		if (hit)
			return 1;
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

static char *read_file(const char *path)
{
	FILE *in = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(buf);
	if (in) {
		n = fread(buf, 1, 65535, in);
		buf[n] = '\0';
		fclose(in);
	}
	return buf;
}

static void test_hbctl(void **state)
{
	const char *call_echo[] = { "call", "echo", "{\"a\":1}", NULL };
	const char *call_bad[] = { "call", "sleep", "{\"ms\":\"x\"}", NULL };
	const char *call_unknown[] = { "call", "no_such_tool", "{}", NULL };
	const char *status[] = { "status", NULL };
	const char *status_json[] = { "status", "--json", NULL };
	const char *bogus[] = { "bogus", NULL };
	const char *none[] = { NULL };
	char *out;
	json_t *st;

	(void)state;
	assert_int_equal(fx_hbctl(&fx, &out, call_echo), 0);
	assert_non_null(strstr(out, "{\"a\":1}"));
	free(out);

	assert_int_equal(fx_hbctl(&fx, &out, call_bad), 1);
	if (!strstr(out, "\"ms\" must be an integer"))
		fail_msg("hbctl call sleep '{\"ms\":\"x\"}' printed: %s", out);
	free(out);

	assert_int_equal(fx_hbctl(&fx, &out, call_unknown), 1);
	assert_non_null(strstr(out, "unknown tool"));
	free(out);

	assert_int_equal(fx_hbctl(&fx, &out, status), 0);
	if (!has_status_line(out, "svc-echo", "up") || !has_status_line(out, "svc-sessions", "up"))
		fail_msg("hbctl status has no \"svc-echo up\" line:\n%s", out);
	free(out);

	assert_int_equal(fx_hbctl(&fx, &out, status_json), 0);
	st = json_loads(out, 0, NULL);
	if (!st)
		fail_msg("hbctl status --json is not JSON: %s", out);
	assert_true(json_is_array(json_object_get(st, "services")));
	assert_non_null(service_of(st, "svc-echo"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "broker"), "pid")), fx.broker);
	json_decref(st);
	free(out);

	assert_int_equal(fx_hbctl(&fx, &out, bogus), 100);
	assert_non_null(strstr(out, "usage"));
	free(out);
	assert_int_equal(fx_hbctl(&fx, &out, none), 100);
	free(out);
}

/* hbctl with no broker says so at once and exits 2. */
static void test_hbctl_no_broker(void **state)
{
	const char *status[] = { "status", NULL };
	struct fixture none = fx;
	char *out, cmd[400];

	(void)state;
	snprintf(none.dir, sizeof none.dir, "/tmp/hbtest-none.XXXXXX");
	assert_non_null(mkdtemp(none.dir));
	assert_int_equal(fx_hbctl(&none, &out, status), 2);
	assert_non_null(strstr(out, "no hb-broker"));
	free(out);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", none.dir);
	assert_int_equal(system(cmd), 0);
	fx_use_env(&fx);
}

static void test_hbctl_watch(void **state)
{
	char exe[700], path[400], *out = NULL;
	long long deadline;
	int st = 0, seen = 0;
	pid_t pid;

	(void)state;
	snprintf(exe, sizeof exe, "%s/hbctl", fx.build);
	snprintf(path, sizeof path, "%s/watch.out", fx.dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		fx_use_env(&fx);
		execl(exe, "hbctl", "watch", (char *)NULL);
		_exit(127);
	}
	/* Calls until the watcher's subscription has arrived and it printed one. */
	deadline = fx_now_ms() + 10000;
	while (!seen && fx_now_ms() < deadline) {
		call_expect("echo", "{\"watch\":true}", 1, "watch");
		fx_sleep_ms(50);
		free(out);
		out = read_file(path);
		seen = has_event_line(out, "call.end");
	}
	assert_int_equal(kill(pid, SIGINT), 0);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!seen)
		fail_msg("hbctl watch printed no call.end line:\n%s", out);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	free(out);
	/* Every line it printed is JSON. */
	out = read_file(path);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		json_t *o = json_loads(line, 0, NULL);
		if (!o)
			fail_msg("hbctl watch printed a line that is not JSON: %s", line);
		json_decref(o);
	}
	free(out);
}

/* ---- 9. arguments that are not a JSON object ------------------------------ */

static void test_non_object_arguments(void **state)
{
	(void)state;
	call_expect("echo", "[1]", 0, "arguments must be a JSON object");
	call_expect("echo", "nope", 0, "not valid JSON");
	/* jansson refuses a bare JSON string as "not valid JSON"; either way refused. */
	call_expect("echo", "\"text\"", 0, "arguments ");
	call_expect("echo", "", 0, "not valid JSON");
	call_expect("echo", "{\"a\":1,\"a\":2}", 0, "not valid JSON");
	call_expect("maintain_sessions", "[1]", 0, "arguments must be a JSON object");
	/* Arguments never choose the tool: an object is answered normally. */
	call_expect("echo", "{}", 1, "{}");
}

/* ---- 10. calls whose frames only fit on one side ------------------------ */

/* Arguments that fit in the client's frame but not in the larger frame the
 * broker forwards (it adds key, session, run, project, agent, access and
 * call_id) must get a clear error, and must not cost the service its life. */
static void test_arguments_too_large_for_service(void **state)
{
	size_t n = (size_t)HB_MAX_FRAME - 64;
	long long gen = fx_service_num(&fx, "svc-echo", "generation");
	long long restarts = fx_service_num(&fx, "svc-echo", "restarts");
	char *json = malloc(n + 1), *text = NULL;
	int ok = -1;

	(void)state;
	assert_non_null(json);
	/* A big call that fits both ways works, byte for byte. */
	memset(json, 'x', (size_t)1 << 20);
	memcpy(json, "{\"a\":\"", 6);
	memcpy(json + ((size_t)1 << 20) - 2, "\"}", 3);
	assert_int_equal(fx_call(&fx, "echo", json, &ok, &text), 0);
	assert_true(ok);
	assert_int_equal(strlen(text), (size_t)1 << 20);
	assert_string_equal(text, json);
	free(text);

	memset(json, 'x', n);
	memcpy(json, "{\"a\":\"", 6);
	memcpy(json + n - 2, "\"}", 3);
	{
		int answered = fx_call(&fx, "echo", json, &ok, &text) == 0;
		int same = ok && text && strcmp(text, json) == 0;
		int restarted = fx_service_num(&fx, "svc-echo", "generation") != gen ||
				fx_service_num(&fx, "svc-echo", "restarts") != restarts;
		char got[256];

		snprintf(got, sizeof got, "%.200s", text ? text : "");
		free(text);
		free(json);
		if (!answered)
			fail_msg("no answer to a call of %zu argument bytes: %s", n, got);
		if (ok && !same)
			fail_msg("ok, but the echo differs");
		if (restarted)
			fail_msg("svc-echo was restarted by a call of %zu argument bytes; the caller got: %s", n, got);
	}
	assert_int_equal(fx_wait_up(&fx, "svc-echo", 0, 10000), 0);
	call_expect("echo", "{\"after\":\"large arguments\"}", 1, "{\"after\":\"large arguments\"}");
}

/* An answer larger than a frame (echo re-encodes 0.1 as 0.10000000000000001,
 * so small arguments give a big answer) must come back as a clear error,
 * not vanish and leave the call in flight for ever. */
static void test_answer_too_large_for_frame(void **state)
{
	size_t count = 500000;
	char *json = malloc(count * 4 + 16), *p = json, *dumped;
	struct hb_client c;
	struct hb_env reply;
	json_t *parsed;
	long long deadline;
	int64_t id, got;

	(void)state;
	assert_non_null(json);
	p += sprintf(p, "{\"a\":[");
	for (size_t i = 0; i < count; i++)
		p += sprintf(p, i ? ",0.1" : "0.1");
	sprintf(p, "]}");
	/* The premise, checked with the same jansson: the answer is too big. */
	parsed = json_loads(json, 0, NULL);
	assert_non_null(parsed);
	dumped = json_dumps(parsed, JSON_COMPACT);
	assert_non_null(dumped);
	assert_true(strlen(json) < HB_MAX_FRAME / 2);
	assert_true(strlen(dumped) > HB_MAX_FRAME);
	free(dumped);
	json_decref(parsed);

	assert_int_equal(fx_client(&fx, &c, 15000), 0);
	send_call(&c, "echo", json, &id);
	free(json);
	recv_reply(&c, &reply, 15000, &got);
	assert_int_equal(got, id);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_true(strlen(hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", ""))) > 0);
	hb_env_free(&reply);
	hb_client_close(&c);
	deadline = fx_now_ms() + 5000;
	for (;;) {
		json_t *st = fx_status(&fx);
		long long all = st ? json_integer_value(json_object_get(json_object_get(st, "broker"),
									"callsInFlight")) : -1;
		json_decref(st);
		if (all == 0)
			break;
		if (fx_now_ms() > deadline)
			fail_msg("the broker still counts %lld calls in flight", all);
		fx_sleep_ms(20);
	}
}

/* ---- fixture ------------------------------------------------------------- */

static int setup_broker(void **state)
{
	(void)state;
	return fx_start(&fx, config, NULL);
}

static int teardown_broker(void **state)
{
	(void)state;
	return fx_stop_clean(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage_then_hello),
		cmocka_unit_test(test_string_id),
		cmocka_unit_test(test_long_string_id),
		cmocka_unit_test(test_oversized_frame),
		cmocka_unit_test(test_slow_call_does_not_block),
		cmocka_unit_test(test_pipelined_calls),
		cmocka_unit_test(test_subcall),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_non_object_arguments),
		cmocka_unit_test(test_hbctl),
		cmocka_unit_test(test_hbctl_no_broker),
		cmocka_unit_test(test_hbctl_watch),
		cmocka_unit_test(test_arguments_too_large_for_service),
		cmocka_unit_test(test_answer_too_large_for_frame),
		/* Last: it kills svc-echo, which also ends any call left in flight. */
		cmocka_unit_test(test_events),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup_broker, teardown_broker);
}
