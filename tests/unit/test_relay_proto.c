/*
 * test_relay_proto - the device link's messages (relay_proto.h,
 * docs/relay-protocol.md): each one built byte for byte as the document
 * shows it and read back; the limits of an alert in characters, not bytes
 * (multibyte titles and bodies at and past them); createdAt in its one
 * form; every malformed, unknown or wrong-side message refused with its
 * sentence; fields a relay adds ignored; the approval messages (a card,
 * the phone's answer, its outcome) and their refusals; and the credential
 * in no sentence, whatever went wrong.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../svc-alerts/relay_proto.h"

#define CRED "dev.cred-7Q2xZ_SECRET"

/* s repeated n times (malloc'd). */
static char *repeat(const char *s, size_t n)
{
	size_t len = strlen(s);
	char *out = malloc(len * n + 1);

	assert_non_null(out);
	for (size_t i = 0; i < n; i++)
		memcpy(out + i * len, s, len);
	out[len * n] = '\0';
	return out;
}

static void parse_ok(const char *text, enum hb_relay_side from, struct hb_relay_msg *m)
{
	char err[512];

	if (hb_relay_parse(text, strlen(text), from, m, err, sizeof err) != 0)
		fail_msg("%s refused: %s", text, err);
}

static struct hb_relay_event sample_event(void)
{
	struct hb_relay_event ev;

	memset(&ev, 0, sizeof ev);
	strcpy(ev.id, "alert-0193a7c2-5f1e-7b3a-9c1d-2e4f6a8b0c1d");
	strcpy(ev.session_id, "7f0c9a52-1b2d-4c3e-8f9a-0b1c2d3e4f5a");
	strcpy(ev.run_id, "run-42");
	strcpy(ev.session_title, "Fix the \"flaky\" build");
	strcpy(ev.title, "Build fixed");
	strcpy(ev.body, "All 212 tests pass.\nThe flaky one was a race.");
	ev.created_at_ms = 1796141753123LL; /* 2026-12-01T16:15:53.123Z */
	return ev;
}

static void test_hello(void **state)
{
	struct hb_relay_msg *m = malloc(sizeof *m);
	char err[512], *text;

	(void)state;
	assert_non_null(m);
	assert_non_null(text = hb_relay_hello(CRED, err, sizeof err));
	assert_string_equal(text, "{\"type\":\"hello\",\"protocol\":1,\"credential\":\"" CRED "\"}");
	parse_ok(text, HB_RELAY_FROM_DEVICE, m);
	assert_int_equal(m->type, HB_RELAY_HELLO);
	assert_int_equal(m->protocol, 1);
	assert_string_equal(m->credential, CRED);
	hb_relay_msg_wipe(m);
	for (size_t i = 0; i < sizeof m->credential; i++)
		assert_int_equal(m->credential[i], 0);
	free(text);
	/* Refused credentials are not repeated. */
	assert_null(hb_relay_hello("", err, sizeof err));
	assert_string_equal(err, "hello: credential must be 1 to 4096 characters");
	assert_null(hb_relay_hello("two " CRED, err, sizeof err));
	assert_string_equal(err, "hello: credential may hold only printable ASCII without blanks");
	free(m);
}

static void test_relay_messages(void **state)
{
	struct hb_relay_msg m;
	char err[512], *text;

	(void)state;
	assert_non_null(text = hb_relay_ready(err, sizeof err));
	assert_string_equal(text, "{\"type\":\"ready\",\"protocol\":1}");
	parse_ok(text, HB_RELAY_FROM_RELAY, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	assert_int_equal(m.protocol, 1);
	free(text);

	assert_non_null(text = hb_relay_error("bad-credential", "Sign in again.", err, sizeof err));
	assert_string_equal(text, "{\"type\":\"error\",\"code\":\"bad-credential\",\"message\":\"Sign in again.\"}");
	parse_ok(text, HB_RELAY_FROM_RELAY, &m);
	assert_int_equal(m.type, HB_RELAY_ERROR);
	assert_string_equal(m.code, "bad-credential");
	assert_string_equal(m.text, "Sign in again.");
	free(text);
	/* The message is optional; a code the desktop does not know passes. */
	parse_ok("{\"type\":\"error\",\"code\":\"maintenance-window\"}", HB_RELAY_FROM_RELAY, &m);
	assert_string_equal(m.code, "maintenance-window");
	assert_string_equal(m.text, "");

	assert_non_null(text = hb_relay_ack("alert-1", err, sizeof err));
	assert_string_equal(text, "{\"type\":\"ack\",\"id\":\"alert-1\"}");
	parse_ok(text, HB_RELAY_FROM_RELAY, &m);
	assert_int_equal(m.type, HB_RELAY_ACK);
	assert_string_equal(m.id, "alert-1");
	free(text);

	assert_non_null(text = hb_relay_dropped("alert-1", "no registered phone", err, sizeof err));
	assert_string_equal(text, "{\"type\":\"dropped\",\"id\":\"alert-1\",\"reason\":\"no registered phone\"}");
	parse_ok(text, HB_RELAY_FROM_RELAY, &m);
	assert_int_equal(m.type, HB_RELAY_DROPPED);
	assert_string_equal(m.id, "alert-1");
	assert_string_equal(m.text, "no registered phone");
	free(text);

	/* Fields a relay adds are ignored. */
	parse_ok("{\"type\":\"ack\",\"id\":\"a.b:c_d-1\",\"receivedAt\":\"x\",\"more\":{\"n\":[1,2]}}",
		 HB_RELAY_FROM_RELAY, &m);
	assert_string_equal(m.id, "a.b:c_d-1");
	assert_null(hb_relay_ack("a b", err, sizeof err));
	assert_string_equal(err, "ack: id may hold only letters, digits and . _ : -");
	assert_null(hb_relay_error("Bad", "", err, sizeof err));
	assert_null(hb_relay_dropped("x", "", err, sizeof err));
	assert_string_equal(err, "dropped: reason is empty");
}

static void test_approval_messages(void **state)
{
	struct hb_relay_approval a;
	struct hb_relay_msg m;
	char err[512], *text;

	(void)state;
	memset(&a, 0, sizeof a);
	strcpy(a.approval_id, "a7");
	strcpy(a.session_id, "s-1");
	strcpy(a.run_id, "run-42");
	strcpy(a.kind, "command");
	strcpy(a.tool, "Bash");
	strcpy(a.text, "rm -rf build");
	strcpy(a.cwd, "/home/u/p");
	strcpy(a.subagent, "Clean the tree");
	assert_non_null(text = hb_relay_approval(&a, err, sizeof err));
	assert_string_equal(text, "{\"type\":\"approval-requested\",\"approvalId\":\"a7\",\"sessionId\":\"s-1\","
				  "\"runId\":\"run-42\",\"kind\":\"command\",\"tool\":\"Bash\",\"text\":\"rm -rf build\","
				  "\"cwd\":\"/home/u/p\",\"subagent\":\"Clean the tree\",\"reason\":\"\"}");
	parse_ok(text, HB_RELAY_FROM_DEVICE, &m);
	assert_int_equal(m.type, HB_RELAY_APPROVAL);
	assert_string_equal(m.approval.text, "rm -rf build");
	assert_string_equal(m.approval.subagent, "Clean the tree");
	free(text);
	strcpy(a.kind, "shell");
	assert_null(hb_relay_approval(&a, err, sizeof err));
	assert_string_equal(err, "approval-requested: kind must be command, file or tool");

	assert_non_null(text = hb_relay_resolve("answer-a7", "a7", "run-42", 0, err, sizeof err));
	assert_string_equal(text, "{\"type\":\"approval-resolve\",\"id\":\"answer-a7\",\"approvalId\":\"a7\","
				  "\"runId\":\"run-42\",\"decision\":\"deny\"}");
	parse_ok(text, HB_RELAY_FROM_RELAY, &m);
	assert_int_equal(m.type, HB_RELAY_RESOLVE);
	assert_string_equal(m.id, "answer-a7");
	assert_string_equal(m.approval.approval_id, "a7");
	assert_string_equal(m.approval.run_id, "run-42");
	assert_int_equal(m.allow, 0);
	free(text);
	assert_int_equal(hb_relay_parse("{\"type\":\"approval-resolve\",\"id\":\"x\",\"approvalId\":\"a7\","
					"\"runId\":\"r\",\"decision\":\"maybe\"}",
					strlen("{\"type\":\"approval-resolve\",\"id\":\"x\",\"approvalId\":\"a7\","
					       "\"runId\":\"r\",\"decision\":\"maybe\"}"),
					HB_RELAY_FROM_RELAY, &m, err, sizeof err),
			 -1);
	assert_string_equal(err, "approval-resolve: decision must be allow or deny");

	assert_non_null(text = hb_relay_result("answer-a7", 0, "Run run-42 has no open approval a7.", err, sizeof err));
	assert_string_equal(text, "{\"type\":\"approval-result\",\"id\":\"answer-a7\",\"ok\":false,"
				  "\"message\":\"Run run-42 has no open approval a7.\"}");
	parse_ok(text, HB_RELAY_FROM_DEVICE, &m);
	assert_int_equal(m.type, HB_RELAY_RESULT);
	assert_int_equal(m.ok, 0);
	assert_string_equal(m.text, "Run run-42 has no open approval a7.");
	/* Each side's messages only from that side. */
	assert_int_equal(hb_relay_parse(text, strlen(text), HB_RELAY_FROM_RELAY, &m, err, sizeof err), -1);
	assert_string_equal(err, "a approval-result message, which only the device sends");
	free(text);
}

static void test_event(void **state)
{
	struct hb_relay_event ev = sample_event();
	struct hb_relay_msg m;
	char err[512], *text;

	(void)state;
	assert_non_null(text = hb_relay_event(&ev, err, sizeof err));
	assert_string_equal(text, "{\"type\":\"agent-notification-requested\","
				  "\"id\":\"alert-0193a7c2-5f1e-7b3a-9c1d-2e4f6a8b0c1d\","
				  "\"sessionId\":\"7f0c9a52-1b2d-4c3e-8f9a-0b1c2d3e4f5a\",\"runId\":\"run-42\","
				  "\"sessionTitle\":\"Fix the \\\"flaky\\\" build\",\"title\":\"Build fixed\","
				  "\"body\":\"All 212 tests pass.\\nThe flaky one was a race.\","
				  "\"createdAt\":\"2026-12-01T16:15:53.123Z\"}");
	parse_ok(text, HB_RELAY_FROM_DEVICE, &m);
	assert_int_equal(m.type, HB_RELAY_EVENT);
	assert_memory_equal(&m.event, &ev, sizeof ev);
	free(text);
	/* An untitled session is an empty sessionTitle. */
	ev.session_title[0] = '\0';
	assert_non_null(text = hb_relay_event(&ev, err, sizeof err));
	parse_ok(text, HB_RELAY_FROM_DEVICE, &m);
	assert_string_equal(m.event.session_title, "");
	free(text);
	/* The epoch's first and the last millisecond accepted. */
	ev.created_at_ms = 0;
	assert_non_null(text = hb_relay_event(&ev, err, sizeof err));
	assert_non_null(strstr(text, "\"createdAt\":\"1970-01-01T00:00:00.000Z\""));
	free(text);
	ev.created_at_ms = 253402300799999LL;
	assert_non_null(text = hb_relay_event(&ev, err, sizeof err));
	assert_non_null(strstr(text, "\"createdAt\":\"9999-12-31T23:59:59.999Z\""));
	parse_ok(text, HB_RELAY_FROM_DEVICE, &m);
	assert_true(m.event.created_at_ms == 253402300799999LL);
	free(text);
	ev.created_at_ms = -1;
	assert_null(hb_relay_event(&ev, err, sizeof err));
	assert_string_equal(err, "agent-notification-requested: createdAt is outside 1970 to 9999");
}

/* The limits are characters: 60 and 180 of any width pass, one more not. */
static void test_limits_in_characters(void **state)
{
	static const char *const glyphs[] = { "a", "\xc3\xa9", "\xe6\xbc\xa2", "\xf0\x9f\x9a\x80" };
	struct hb_relay_event ev = sample_event();
	struct hb_relay_msg m;
	char err[512], *text, *s, wire[1024];

	(void)state;
	for (size_t g = 0; g < sizeof glyphs / sizeof *glyphs; g++) {
		ev = sample_event();
		s = repeat(glyphs[g], 60);
		strcpy(ev.title, s);
		free(s);
		s = repeat(glyphs[g], 180);
		strcpy(ev.body, s);
		free(s);
		assert_non_null(text = hb_relay_event(&ev, err, sizeof err));
		parse_ok(text, HB_RELAY_FROM_DEVICE, &m);
		assert_string_equal(m.event.title, ev.title);
		assert_string_equal(m.event.body, ev.body);
		free(text);
		/* One more: the fields hold it only below four bytes a character. */
		if (strlen(glyphs[g]) == 4)
			continue;
		strcat(ev.title, glyphs[g]);
		assert_null(hb_relay_event(&ev, err, sizeof err));
		assert_string_equal(err, "agent-notification-requested: title is 61 characters; at most 60");
		ev.title[strlen(ev.title) - strlen(glyphs[g])] = '\0';
		strcat(ev.body, glyphs[g]);
		assert_null(hb_relay_event(&ev, err, sizeof err));
		assert_string_equal(err, "agent-notification-requested: body is 181 characters; at most 180");
	}
	/* Read from the wire the same way. */
	s = repeat("\xc3\xa9", 181);
	snprintf(wire, sizeof wire,
		 "{\"type\":\"agent-notification-requested\",\"id\":\"a1\",\"sessionId\":\"s\",\"runId\":\"r\","
		 "\"sessionTitle\":\"\",\"title\":\"t\",\"body\":\"%s\",\"createdAt\":\"2026-12-01T16:15:53.123Z\"}",
		 s);
	free(s);
	assert_int_equal(hb_relay_parse(wire, strlen(wire), HB_RELAY_FROM_DEVICE, &m, err, sizeof err), -1);
	assert_string_equal(err, "agent-notification-requested: body is 181 characters; at most 180");
	ev = sample_event();
	ev.title[0] = '\0';
	assert_null(hb_relay_event(&ev, err, sizeof err));
	assert_string_equal(err, "agent-notification-requested: title is empty");
	ev = sample_event();
	ev.body[0] = '\0';
	assert_null(hb_relay_event(&ev, err, sizeof err));
	assert_string_equal(err, "agent-notification-requested: body is empty");
	/* Bytes that are not UTF-8: a lone continuation, an overlong form, a surrogate. */
	static const char *const broken[] = { "a\x80", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe6\xbc" };
	for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
		ev = sample_event();
		strcpy(ev.title, broken[i]);
		assert_null(hb_relay_event(&ev, err, sizeof err));
		assert_string_equal(err, "agent-notification-requested: title is not valid UTF-8");
	}
	ev = sample_event();
	strcpy(ev.run_id, "run\n1");
	assert_null(hb_relay_event(&ev, err, sizeof err));
	assert_string_equal(err, "agent-notification-requested: runId holds a control character");
	ev = sample_event();
	ev.session_id[0] = '\0';
	assert_null(hb_relay_event(&ev, err, sizeof err));
	assert_string_equal(err, "agent-notification-requested: sessionId must be 1 to 128 bytes of UTF-8");
}

#define EVENT_WITH(created)                                                                                      \
	"{\"type\":\"agent-notification-requested\",\"id\":\"a1\",\"sessionId\":\"s\",\"runId\":\"r\","         \
	"\"sessionTitle\":\"\",\"title\":\"t\",\"body\":\"b\",\"createdAt\":" created "}"

static void test_refused(void **state)
{
	static const struct {
		const char *text;
		enum hb_relay_side from;
		const char *why;
	} cases[] = {
		{ "", HB_RELAY_FROM_RELAY, "a relay message that is not JSON (at byte 0)" },
		{ "{\"type\":\"ack\",", HB_RELAY_FROM_RELAY, "a relay message that is not JSON" },
		{ "{\"type\":\"ack\",\"id\":\"a\",\"id\":\"b\"}", HB_RELAY_FROM_RELAY, "not JSON" },
		{ "{\"type\":\"ack\",\"id\":\"a\\u0000b\"}", HB_RELAY_FROM_RELAY, "not JSON" },
		{ "[{\"type\":\"ack\",\"id\":\"a\"}]", HB_RELAY_FROM_RELAY, "a relay message that is not a JSON object" },
		{ "\"ack\"", HB_RELAY_FROM_RELAY, "not JSON" },
		{ "{\"id\":\"a\"}", HB_RELAY_FROM_RELAY, "a relay message without a type" },
		{ "{\"type\":7}", HB_RELAY_FROM_RELAY, "a relay message without a type" },
		{ "{\"type\":\"pong\"}", HB_RELAY_FROM_RELAY, "a relay message of an unknown type (pong)" },
		{ "{\"type\":\"Ack\",\"id\":\"a\"}", HB_RELAY_FROM_RELAY, "a relay message of an unknown type (Ack)" },
		{ "{\"type\":\"hello\",\"protocol\":1,\"credential\":\"c\"}", HB_RELAY_FROM_RELAY,
		  "a hello message, which only the device sends" },
		{ EVENT_WITH("\"2026-12-01T16:15:53.123Z\""), HB_RELAY_FROM_RELAY,
		  "a agent-notification-requested message, which only the device sends" },
		{ "{\"type\":\"ack\",\"id\":\"a\"}", HB_RELAY_FROM_DEVICE, "a ack message, which only the relay sends" },
		{ "{\"type\":\"ready\"}", HB_RELAY_FROM_RELAY, "ready: protocol is missing" },
		{ "{\"type\":\"ready\",\"protocol\":\"1\"}", HB_RELAY_FROM_RELAY, "ready: protocol is not an integer" },
		{ "{\"type\":\"ready\",\"protocol\":2}", HB_RELAY_FROM_RELAY,
		  "ready: protocol 2 is not 1, the one this desktop speaks" },
		{ "{\"type\":\"hello\",\"protocol\":1}", HB_RELAY_FROM_DEVICE, "hello: credential is missing" },
		{ "{\"type\":\"error\"}", HB_RELAY_FROM_RELAY, "error: code is missing" },
		{ "{\"type\":\"error\",\"code\":\"Bad_Credential\"}", HB_RELAY_FROM_RELAY,
		  "error: code may hold only a-z and -" },
		{ "{\"type\":\"error\",\"code\":\"x\",\"message\":3}", HB_RELAY_FROM_RELAY,
		  "error: message is not a string" },
		{ "{\"type\":\"ack\"}", HB_RELAY_FROM_RELAY, "ack: id is missing" },
		{ "{\"type\":\"ack\",\"id\":5}", HB_RELAY_FROM_RELAY, "ack: id is not a string" },
		{ "{\"type\":\"ack\",\"id\":\"\"}", HB_RELAY_FROM_RELAY, "ack: id must be 1 to 64 characters" },
		{ "{\"type\":\"ack\",\"id\":\"a/b\"}", HB_RELAY_FROM_RELAY, "ack: id may hold only letters, digits" },
		{ "{\"type\":\"ack\",\"id\":\"0123456789012345678901234567890123456789012345678901234567890123X\"}",
		  HB_RELAY_FROM_RELAY, "ack: id is longer than 64 bytes" },
		{ "{\"type\":\"dropped\",\"id\":\"a\"}", HB_RELAY_FROM_RELAY, "dropped: reason is missing" },
		{ "{\"type\":\"agent-notification-requested\",\"id\":\"a\"}", HB_RELAY_FROM_DEVICE,
		  "agent-notification-requested: sessionId is missing" },
		{ EVENT_WITH("1796141753123"), HB_RELAY_FROM_DEVICE,
		  "agent-notification-requested: createdAt is not a string" },
		{ EVENT_WITH("\"2026-12-01T16:15:53Z\""), HB_RELAY_FROM_DEVICE,
		  "agent-notification-requested: createdAt is not a UTC time like 2026-12-01T16:15:53.123Z" },
		{ EVENT_WITH("\"2026-12-01 16:15:53.123Z\""), HB_RELAY_FROM_DEVICE, "createdAt is not a UTC time" },
		{ EVENT_WITH("\"2026-12-01T16:15:53.123+01:00\""), HB_RELAY_FROM_DEVICE, "createdAt is not a UTC time" },
		{ EVENT_WITH("\"2026-02-30T00:00:00.000Z\""), HB_RELAY_FROM_DEVICE, "createdAt is not a UTC time" },
		{ EVENT_WITH("\"2026-13-01T00:00:00.000Z\""), HB_RELAY_FROM_DEVICE, "createdAt is not a UTC time" },
		{ EVENT_WITH("\"1969-12-31T23:59:59.999Z\""), HB_RELAY_FROM_DEVICE, "createdAt is not a UTC time" },
	};
	struct hb_relay_msg m;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		err[0] = '\0';
		if (hb_relay_parse(cases[i].text, strlen(cases[i].text), cases[i].from, &m, err, sizeof err) != -1)
			fail_msg("accepted: %s", cases[i].text);
		if (!strstr(err, cases[i].why))
			fail_msg("%s: \"%s\", expected \"%s\"", cases[i].text, err, cases[i].why);
	}
	/* The valid form of the event above passes. */
	parse_ok(EVENT_WITH("\"2026-12-01T16:15:53.123Z\""), HB_RELAY_FROM_DEVICE, &m);
	assert_true(m.event.created_at_ms == 1796141753123LL);
}

/* Whatever is wrong with a hello, the sentence does not hold its credential. */
static void test_credential_in_no_sentence(void **state)
{
	static const char *const texts[] = {
		"{\"type\":\"hello\",\"protocol\":1,\"credential\":\"" CRED,
		"{\"type\":\"hello\",\"protocol\":1,\"credential\":\"" CRED " x\"}",
		"{\"type\":\"hello\",\"protocol\":2,\"credential\":\"" CRED "\"}",
		"{\"type\":\"hello\",\"protocol\":1,\"credential\":\"" CRED "\",\"credential\":\"" CRED "\"}",
		"{\"type\":\"hello\",\"protocol\":1,\"credential\":\"" CRED "\"}", /* from the wrong side */
	};
	struct hb_relay_msg *m = malloc(sizeof *m);
	char err[512];

	(void)state;
	assert_non_null(m);
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		enum hb_relay_side from = i == 4 ? HB_RELAY_FROM_RELAY : HB_RELAY_FROM_DEVICE;

		assert_int_equal(hb_relay_parse(texts[i], strlen(texts[i]), from, m, err, sizeof err), -1);
		if (strstr(err, "SECRET"))
			fail_msg("the sentence holds the credential: %s", err);
		/* Nothing of a refused message is left behind. */
		assert_int_equal(m->credential[0], 0);
	}
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_relay_messages),
		cmocka_unit_test(test_approval_messages),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_limits_in_characters),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_credential_in_no_sentence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
