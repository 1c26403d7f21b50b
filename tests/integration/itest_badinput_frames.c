/*
 * itest_badinput_frames - raw frames on the broker's front and back
 * sockets, each with the exact answer (or broker log line) expected; and
 * after all of it every service is the same process it was, status says
 * "ok" and a normal call works (badinput_rig.h).
 */
#include "../harness/checks.h"
#include "utf8.h"

#include <msgpack.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>
#include "badinput_rig.h"

/* ---- raw frames on the front -------------------------------------------- */

static void pk_str(msgpack_packer *pk, const char *s, size_t n)
{
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

/* A call frame {v, op: call, id, tool, json} where json is given as
 * bytes, or an integer when json is NULL. */
static void call_frame(msgpack_sbuffer *sb, int64_t id, const char *tool, size_t toollen, const char *json,
		       size_t jsonlen)
{
	msgpack_packer pk;

	msgpack_sbuffer_clear(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 5);
	pk_str(&pk, "v", 1);
	msgpack_pack_int(&pk, 1);
	pk_str(&pk, "op", 2);
	pk_str(&pk, "call", 4);
	pk_str(&pk, "id", 2);
	msgpack_pack_int64(&pk, id);
	pk_str(&pk, "tool", 4);
	pk_str(&pk, tool, toollen);
	pk_str(&pk, "json", 4);
	if (json)
		pk_str(&pk, json, jsonlen);
	else
		msgpack_pack_int(&pk, 7);
}

static void test_front_raw_calls(void **state)
{
	static const struct {
		const char *name, *tool;
		size_t toollen;
		const char *json;
		size_t jsonlen;
		const char *code, *msg;
	} cases[] = {
		{ "a raw NUL inside the arguments", "manage_sessions", 15, "{\"a\":\"x\0y\"}", 11, "bad-frame",
		  "json contains a NUL byte" },
		{ "a raw NUL inside the tool name", "manage\0sessions", 15, "{}", 2, "bad-frame", "tool contains a NUL byte" },
		{ "json an integer", "manage_sessions", 15, NULL, 0, "bad-frame",
		  "call: field \"json\" must be a string, not an integer" },
		{ "a tool name of bytes that are not UTF-8", "\xc3\x28\xff", 3, "{}", 2, "unknown-tool",
		  "unknown tool \"\\xc3(\\xff\": no service of this broker serves it" },
		/* An encoded surrogate (ED A0 80) is not UTF-8: the service's
		 * parser refuses it, a tool answer and not a frame error. */
		{ "arguments of bytes that are not UTF-8", "synthesize_speech", 17, "{\"text\":\"\xed\xa0\x80\"}", 14, "",
		  "synthesize_speech: arguments are not valid JSON: unable to decode byte 0xed near '\"' (at line 1, column "
		  "9)" },
	};
	msgpack_sbuffer sb;
	struct ck_raw r;

	(void)state;
	msgpack_sbuffer_init(&sb);
	ck_raw_open(&r, &F);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct hb_env reply;
		int64_t got = -1;
		char after[128];

		call_frame(&sb, 40 + (int64_t)i, cases[i].tool, cases[i].toollen, cases[i].json, cases[i].jsonlen);
		ck_raw_send(&r, sb.data, sb.size, 0);
		ck_raw_recv(&r, &reply, CK_WAIT_MS, cases[i].name);
		show(cases[i].name, hb_env_str_or(&reply, "err.code", "(no code)"));
		check_text(cases[i].name, hb_env_str_or(&reply, "err.msg", hb_env_str_or(&reply, "text", "")), EXACT,
			   cases[i].msg);
		if (!getenv("HB_BADINPUT_SHOW"))
			assert_string_equal(hb_env_str_or(&reply, "err.code", ""), cases[i].code);
		if (hb_env_int(&reply, "id", &got) == 0)
			assert_int_equal(got, 40 + (int64_t)i);
		hb_env_free(&reply);
		snprintf(after, sizeof after, "after %s", cases[i].name);
		ck_raw_hello(&r, 200 + (int64_t)i, after);
	}
	ck_raw_close(&r);
	msgpack_sbuffer_destroy(&sb);
}

/* ---- raw frames on the back socket from a stranger ------------------------ */

static void test_back_stranger(void **state)
{
	/* The lines of the broker's log, in the order the frames went; %ld
	 * is this process's pid, which the broker reads from the socket. */
	static const struct {
		const char *name;
		const char *log;
	} cases[] = {
		/* "hello" reads as the integer 0x68 and four bytes more. */
		{ "not msgpack", "back: bad frame from stranger: 4 trailing bytes after the envelope" },
		{ "an array", "back: bad frame from stranger: the envelope is not a map" },
		{ "no op", "back: bad frame from stranger: the envelope has no \"op\" string" },
		{ "an unknown op", "back: frobnicate from stranger (pid %ld) dropped: not a ready service of this broker" },
		{ "a ready", "refused ready from stranger (pid %ld): not a service this broker started" },
		{ "a result for a key not in flight",
		  "back: result from stranger (pid %ld) dropped: not a ready service of this broker" },
		{ "a worker", "back: worker from stranger (pid %ld) dropped: not a ready service of this broker" },
		{ "a heartbeat", "back: heartbeat from stranger (pid %ld) dropped: not a ready service of this broker" },
	};
	char ep[400];
	void *ctx = zmq_ctx_new(), *s;
	int zero = 0;
	struct hb_env e;
	char *buf;
	size_t len;
	msgpack_sbuffer sb;
	msgpack_packer pk;

	(void)state;
	assert_non_null(ctx);
	s = zmq_socket(ctx, ZMQ_DEALER);
	assert_non_null(s);
	assert_int_equal(zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero), 0);
	assert_int_equal(zmq_setsockopt(s, ZMQ_ROUTING_ID, "stranger", 8), 0);
	snprintf(ep, sizeof ep, "ipc://%s/run/back.sock", F.dir);
	assert_int_equal(zmq_connect(s, ep), 0);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);

	assert_int_equal(zmq_send(s, "hello", 5, 0), 5);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_int(&pk, 1);
	assert_int_equal(zmq_send(s, sb.data, sb.size, 0), (int)sb.size);
	{
		const char *ops[] = { NULL, "frobnicate", "ready", "result", "worker", "heartbeat" };

		for (int i = 0; i < 6; i++) {
			hb_env_init(&e);
			if (ops[i])
				hb_env_set_str(&e, "op", ops[i]);
			else
				hb_env_set_str(&e, "tool", "x");
			if (ops[i] && strcmp(ops[i], "result") == 0) {
				hb_env_set_str(&e, "key", "no-such-key");
				hb_env_set_bool(&e, "ok", 1);
				hb_env_set_str(&e, "text", "forged");
			}
			if (ops[i] && strcmp(ops[i], "ready") == 0)
				hb_env_set_str(&e, "service", "svc-sessions");
			assert_int_equal(hb_env_encode(&e, &buf, &len), 0);
			assert_int_equal(zmq_send(s, buf, len, 0), (int)len);
			free(buf);
		}
	}
	/* The last one logged means all were read, in order. */
	ck_wait_log(&F, "heartbeat from stranger");
	{
		char *log = fx_read_text(F.log);

		if (getenv("HB_BADINPUT_SHOW"))
			fprintf(stderr, "%s", log);
		const char *at = log;

		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			char line[300];
			const char *found;

			snprintf(line, sizeof line, cases[i].log, (long)getpid());
			if (!(found = strstr(at, line)))
				fail_msg("back, %s: the broker's log does not say, after the one before, \"%s\"",
					 cases[i].name, line);
			at = found + strlen(line);
		}
		free(log);
	}
	msgpack_sbuffer_destroy(&sb);
	zmq_close(s);
	zmq_ctx_term(ctx);
}

/* ---- afterwards ------------------------------------------------------------ */

static void test_everyone_still_up(void **state)
{
	char why[512];

	(void)state;
	if (badinput_still_up(why, sizeof why) < 0)
		fail_msg("%s", why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_front_raw_calls),
		cmocka_unit_test(test_back_stranger),
		cmocka_unit_test(test_everyone_still_up),
	};

	return ck_run_group_tests(tests, badinput_setup, badinput_teardown);
}
