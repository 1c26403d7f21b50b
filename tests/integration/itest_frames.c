/*
 * itest_frames - bad frames and envelopes on the real hb-broker's front
 * socket.  A raw DEALER, as any local process could open, sends garbage,
 * broken msgpack, wrong versions, unknown ops and tools, and ids of every
 * kind: every bad frame must get an error reply that names the problem
 * (in UTF-8, with the request's id where it had one), and the broker must
 * answer a hello on the same connection afterwards.
 *
 * The broker runs svc-echo and svc-sessions as deployed: an internal
 * tool that exists must still be out of the front's reach.
 */
#include "../harness/checks.h"
#include "utf8.h"

#include <msgpack.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

/* ---- msgpack helpers --------------------------------------------------- */

static void pk_str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

/* ---- garbage on the front socket --------------------------------------- */

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
	return hb_utf8_valid(text, strlen(text));
}

static void test_garbage_then_hello(void **state)
{
	struct fixture *fx = *state;
	struct bad_case cases[32];
	struct ck_raw r;
	int n;

	n = build_cases(cases);
	ck_raw_open(&r, fx);
	ck_raw_hello(&r, 1, "before any garbage");
	for (int i = 0; i < n; i++) {
		struct bad_case *c = &cases[i];
		struct hb_env reply;
		int64_t got = -1;
		char after[128];

		if (c->two_frames) {
			ck_raw_send(&r, c->buf, c->len, ZMQ_SNDMORE);
			ck_raw_send(&r, c->buf, c->len, 0);
		} else {
			ck_raw_send(&r, c->buf, c->len, 0);
		}
		ck_raw_recv(&r, &reply, 5000, c->name);
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
		ck_raw_hello(&r, 100 + i, after);
		free(c->buf);
	}
	ck_raw_close(&r);
}

/* A string id comes back as the same string. */
static void test_string_id(void **state)
{
	struct fixture *fx = *state;
	struct hb_env req, reply;
	struct ck_raw r;

	ck_raw_open(&r, fx);
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "hello");
	hb_env_set_str(&req, "id", "req-abc");
	ck_raw_send_env(&r, &req);
	ck_raw_recv(&r, &reply, 5000, "hello with a string id");
	assert_string_equal(hb_env_str_or(&reply, "id", ""), "req-abc");
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	ck_raw_close(&r);
}

/* A long string id is echoed whole, or refused; never cut, which would
 * leave the client waiting for an id that never comes. */
static void test_long_string_id(void **state)
{
	struct fixture *fx = *state;
	char id[101];
	struct hb_env req, reply;
	struct ck_raw r;

	memset(id, 'i', 100);
	id[100] = '\0';
	ck_raw_open(&r, fx);
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "hello");
	hb_env_set_str(&req, "id", id);
	ck_raw_send_env(&r, &req);
	ck_raw_recv(&r, &reply, 5000, "hello with a 100-byte id");
	{
		size_t got = strlen(hb_env_str_or(&reply, "id", ""));
		int cut = strcmp(hb_env_str_or(&reply, "id", ""), id) != 0 && hb_env_bool(&reply, "ok", 0);

		hb_env_free(&reply);
		if (cut)
			fail_msg("a 100-byte id came back cut to %zu bytes", got);
	}
	ck_raw_hello(&r, 7, "after a long id");
	ck_raw_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage_then_hello),
		cmocka_unit_test(test_string_id),
		cmocka_unit_test(test_long_string_id),
	};

	return ck_run_group_tests(tests, ck_setup_front_broker, ck_teardown_front_broker);
}
