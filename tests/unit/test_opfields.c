/*
 * test_opfields - the check of an envelope against its op's row of
 * fields: each type accepted and refused, required and optional fields,
 * nested maps, fields no row names, and the rows of the ops the broker
 * sends a service.  Envelopes go through encode and decode first, so the
 * check sees what a receiver sees.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "envelope.h"
#include "opfields.h"

/* e as a receiver decodes it, into out. */
static void received(const struct hb_env *e, struct hb_env *out)
{
	char *buf = NULL, err[256] = "";
	size_t len = 0;

	assert_int_equal(hb_env_encode(e, &buf, &len), 0);
	if (hb_env_decode(out, buf, len, err, sizeof err) != 0)
		fail_msg("decode of an encoded envelope failed: %s", err);
	free(buf);
}

/* The check of e (after decoding) against rules: 0, or -1 with err. */
static int check(const struct hb_env *e, const struct hb_field_rule *rules, size_t n, char *err, size_t errlen)
{
	struct hb_env got;
	int rc;

	received(e, &got);
	err[0] = '\0';
	rc = hb_fields_check(&got, "test.op", rules, n, err, errlen);
	hb_env_free(&got);
	return rc;
}

static void expect_ok(const struct hb_env *e, const struct hb_field_rule *rules, size_t n)
{
	char err[256];

	if (check(e, rules, n, err, sizeof err) != 0)
		fail_msg("refused: %s", err);
}

static void expect_refused(const struct hb_env *e, const struct hb_field_rule *rules, size_t n, const char *want)
{
	char err[256];

	assert_int_equal(check(e, rules, n, err, sizeof err), -1);
	assert_string_equal(err, want);
}

/* An envelope with op and one field of each type. */
static void every_type(struct hb_env *e)
{
	hb_env_init(e);
	hb_env_set_str(e, "op", "test.op");
	hb_env_set_str(e, "s", "text");
	hb_env_set_int(e, "i", -7);
	hb_env_set_bool(e, "b", 0);
	hb_env_set_str(e, "m.code", "x");
	hb_env_set_int(e, "m.n", 1);
}

static void test_each_type_accepted(void **state)
{
	static const struct hb_field_rule rules[] = { HB_REQ_STR("s"), HB_REQ_INT("i"), HB_REQ_BOOL("b"),
						      HB_REQ_MAP("m") };
	struct hb_env e;

	(void)state;
	every_type(&e);
	expect_ok(&e, rules, 4);
}

/* Each type in a field that wants another is named, both ways round. */
static void test_each_type_refused(void **state)
{
	static const struct {
		struct hb_field_rule rule;
		const char *want;
	} cases[] = {
		{ HB_REQ_STR("i"), "test.op: field \"i\" must be a string, not an integer" },
		{ HB_REQ_STR("b"), "test.op: field \"b\" must be a string, not a boolean" },
		{ HB_REQ_STR("m"), "test.op: field \"m\" must be a string, not a map" },
		{ HB_REQ_INT("s"), "test.op: field \"s\" must be an integer, not a string" },
		{ HB_REQ_INT("b"), "test.op: field \"b\" must be an integer, not a boolean" },
		{ HB_REQ_INT("m"), "test.op: field \"m\" must be an integer, not a map" },
		{ HB_REQ_BOOL("s"), "test.op: field \"s\" must be a boolean, not a string" },
		{ HB_REQ_BOOL("i"), "test.op: field \"i\" must be a boolean, not an integer" },
		{ HB_REQ_BOOL("m"), "test.op: field \"m\" must be a boolean, not a map" },
		{ HB_REQ_MAP("s"), "test.op: field \"s\" must be a map, not a string" },
		{ HB_REQ_MAP("i"), "test.op: field \"i\" must be a map, not an integer" },
		{ HB_REQ_MAP("b"), "test.op: field \"b\" must be a map, not a boolean" },
		/* Optional fields are checked the same when they are there. */
		{ HB_OPT_STR("i"), "test.op: field \"i\" must be a string, not an integer" },
		{ HB_OPT_INT("s"), "test.op: field \"s\" must be an integer, not a string" },
		{ HB_OPT_BOOL("i"), "test.op: field \"i\" must be a boolean, not an integer" },
		{ HB_OPT_MAP("b"), "test.op: field \"b\" must be a map, not a boolean" },
	};
	struct hb_env e;

	(void)state;
	every_type(&e);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_refused(&e, &cases[i].rule, 1, cases[i].want);
}

static void test_required_and_optional(void **state)
{
	static const struct hb_field_rule optional[] = { HB_OPT_STR("s2"), HB_OPT_INT("i2"), HB_OPT_BOOL("b2"),
							 HB_OPT_MAP("m2") };
	static const struct {
		struct hb_field_rule rule;
		const char *want;
	} required[] = {
		{ HB_REQ_STR("s2"), "test.op: field \"s2\" is missing" },
		{ HB_REQ_INT("i2"), "test.op: field \"i2\" is missing" },
		{ HB_REQ_BOOL("b2"), "test.op: field \"b2\" is missing" },
		{ HB_REQ_MAP("m2"), "test.op: field \"m2\" is missing" },
	};
	struct hb_env e;

	(void)state;
	every_type(&e);
	expect_ok(&e, optional, 4);
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
		expect_refused(&e, &required[i].rule, 1, required[i].want);
}

/* A nil value is how MessagePack says "absent": a required field sent as
 * nil is missing, an optional one is fine. */
static void test_nil_is_absent(void **state)
{
	/* {"v":1, "op":"x", "s": nil} */
	static const unsigned char frame[] = { 0x83, 0xa1, 'v', 0x01, 0xa2, 'o', 'p', 0xa1, 'x', 0xa1, 's', 0xc0 };
	static const struct hb_field_rule req[] = { HB_REQ_STR("s") }, opt[] = { HB_OPT_STR("s") };
	struct hb_env e;
	char err[256];

	(void)state;
	assert_int_equal(hb_env_decode(&e, frame, sizeof frame, err, sizeof err), 0);
	assert_int_equal(hb_fields_check(&e, "x", opt, 1, err, sizeof err), 0);
	assert_int_equal(hb_fields_check(&e, "x", req, 1, err, sizeof err), -1);
	assert_string_equal(err, "x: field \"s\" is missing");
	hb_env_free(&e);
}

/* A field that takes two types (the request id) says both. */
static void test_two_types(void **state)
{
	static const struct hb_field_rule id[] = { { "id", HB_FT_STR | HB_FT_INT, HB_OPTIONAL } };
	static const struct hb_field_rule any[] = { { "b", HB_FT_STR | HB_FT_INT | HB_FT_MAP, HB_REQUIRED } };
	struct hb_env e;

	(void)state;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "test.op");
	expect_ok(&e, id, 1);
	hb_env_set_int(&e, "id", 4);
	expect_ok(&e, id, 1);
	hb_env_set_str(&e, "id", "req-4");
	expect_ok(&e, id, 1);
	hb_env_set_bool(&e, "id", 1);
	expect_refused(&e, id, 1, "test.op: field \"id\" must be a string or an integer, not a boolean");
	hb_env_set_bool(&e, "b", 1);
	expect_refused(&e, any, 1, "test.op: field \"b\" must be a string, an integer or a map, not a boolean");
}

/* Fields no rule names pass: a newer peer may send more than we read. */
static void test_extra_fields_allowed(void **state)
{
	static const struct hb_field_rule rules[] = { HB_REQ_STR("s") };
	struct hb_env e;

	(void)state;
	every_type(&e);
	hb_env_set_str(&e, "future", "field");
	hb_env_set_str(&e, "later.member", "too");
	expect_ok(&e, rules, 1);
}

/* A row ends at its first rule without a name, or at max: the unnamed
 * tail of a table row is never read as a rule. */
static void test_row_end(void **state)
{
	static const struct hb_field_rule rules[3] = { HB_REQ_STR("s"), { NULL, 0, HB_OPTIONAL }, HB_REQ_STR("gone") };
	static const struct hb_field_rule none[] = HB_NO_FIELDS;
	struct hb_env e;

	(void)state;
	every_type(&e);
	expect_ok(&e, rules, 3);
	expect_ok(&e, none, 1);
	/* max stops before "gone" is read even without the NULL rule. */
	expect_ok(&e, &rules[2], 0);
	expect_refused(&e, &rules[2], 1, "test.op: field \"gone\" is missing");
}

/* The first fault is the one named, in the row's order. */
static void test_first_fault_named(void **state)
{
	static const struct hb_field_rule rules[] = { HB_REQ_STR("s"), HB_REQ_STR("i"), HB_REQ_STR("absent") };
	struct hb_env e;

	(void)state;
	every_type(&e);
	expect_refused(&e, rules, 3, "test.op: field \"i\" must be a string, not an integer");
}

/* A short error buffer is cut, never overrun. */
static void test_short_error_buffer(void **state)
{
	static const struct hb_field_rule rules[] = { HB_REQ_STR("i") };
	struct hb_env e, got;
	char err[12];

	(void)state;
	every_type(&e);
	received(&e, &got);
	memset(err, 'z', sizeof err);
	assert_int_equal(hb_fields_check(&got, "test.op", rules, 1, err, sizeof err), -1);
	assert_string_equal(err, "test.op: fi");
	hb_env_free(&got);
}

/* The broker's ops to a service: well formed passes, a missing or
 * mistyped field is named, and an op not in the table is the caller's. */
static void test_broker_ops(void **state)
{
	struct hb_env e, got;
	char err[256];

	(void)state;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "subcall.result");
	hb_env_set_str(&e, "key", "k1");
	hb_env_set_str(&e, "sub", "3");
	hb_env_set_bool(&e, "ok", 1);
	hb_env_set_str(&e, "text", "done");
	received(&e, &got);
	assert_int_equal(hb_broker_op_check(&got, err, sizeof err), 0);
	hb_env_free(&got);

	hb_env_set_str(&e, "ok", "yes");
	received(&e, &got);
	assert_int_equal(hb_broker_op_check(&got, err, sizeof err), -1);
	assert_string_equal(err, "subcall.result: field \"ok\" must be a boolean, not a string");
	hb_env_free(&got);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "key", "k2");
	hb_env_set_str(&e, "json", "{}");
	received(&e, &got);
	assert_int_equal(hb_broker_op_check(&got, err, sizeof err), -1);
	assert_string_equal(err, "call: field \"tool\" is missing");
	hb_env_free(&got);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "deliver.result");
	hb_env_set_str(&e, "opId", "hb-msg-1");
	hb_env_set_str(&e, "status", "held");
	hb_env_set_str(&e, "id", "7");
	received(&e, &got);
	assert_int_equal(hb_broker_op_check(&got, err, sizeof err), -1);
	assert_string_equal(err, "deliver.result: field \"id\" must be an integer, not a string");
	hb_env_free(&got);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "cancel");
	received(&e, &got);
	assert_int_equal(hb_broker_op_check(&got, err, sizeof err), -1);
	assert_string_equal(err, "cancel: field \"key\" is missing");
	hb_env_free(&got);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "something.new");
	received(&e, &got);
	assert_int_equal(hb_broker_op_check(&got, err, sizeof err), 0);
	hb_env_free(&got);
}

/* What the broker sends a client: its replies (ok required, the id a
 * string or an integer, err a map), a bridge's deliver and the events. */
static void test_client_ops(void **state)
{
	struct hb_env e, got;
	char err[256];

	(void)state;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "reply");
	hb_env_set_str(&e, "id", "r1");
	hb_env_set_bool(&e, "ok", 0);
	hb_env_set_err(&e, "bad-request", "no");
	received(&e, &got);
	assert_int_equal(hb_client_op_check(&got, err, sizeof err), 0);
	hb_env_free(&got);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "reply");
	hb_env_set_int(&e, "id", 4);
	hb_env_set_str(&e, "text", "an answer that does not say whether it is one");
	received(&e, &got);
	assert_int_equal(hb_client_op_check(&got, err, sizeof err), -1);
	assert_string_equal(err, "reply: field \"ok\" is missing");
	hb_env_free(&got);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "reply");
	hb_env_set_bool(&e, "ok", 1);
	hb_env_set_str(&e, "attachEveryMs", "soon");
	received(&e, &got);
	assert_int_equal(hb_client_op_check(&got, err, sizeof err), -1);
	assert_string_equal(err, "reply: field \"attachEveryMs\" must be an integer, not a string");
	hb_env_free(&got);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "deliver");
	hb_env_set_str(&e, "opId", "hb-msg-1");
	hb_env_set_str(&e, "session", "s1");
	hb_env_set_str(&e, "text", "hello");
	hb_env_set_str(&e, "access", "read-only");
	hb_env_set_str(&e, "project", "/p");
	received(&e, &got);
	assert_int_equal(hb_client_op_check(&got, err, sizeof err), -1);
	assert_string_equal(err, "deliver: field \"handed\" is missing");
	hb_env_free(&got);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "event");
	hb_env_set_str(&e, "topic", "timeline.row");
	received(&e, &got);
	assert_int_equal(hb_client_op_check(&got, err, sizeof err), -1);
	assert_string_equal(err, "event: field \"json\" is missing");
	hb_env_free(&got);

	/* A service's op is not a client's: not in this table. */
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "subcall.result");
	received(&e, &got);
	assert_int_equal(hb_client_op_check(&got, err, sizeof err), 0);
	hb_env_free(&got);
}

/* A required field is read as it is, without a default. */
static void test_required_getters(void **state)
{
	struct hb_env e, got;

	(void)state;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "deliver.done");
	hb_env_set_str(&e, "opId", "hb-msg-2");
	hb_env_set_bool(&e, "ok", 0);
	received(&e, &got);
	assert_string_equal(hb_req_str(&got, "opId"), "hb-msg-2");
	assert_int_equal(hb_req_bool(&got, "ok"), 0);
	hb_env_free(&got);
	hb_env_set_bool(&e, "ok", 1);
	received(&e, &got);
	assert_int_equal(hb_req_bool(&got, "ok"), 1);
	hb_env_free(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_type_accepted),
		cmocka_unit_test(test_each_type_refused),
		cmocka_unit_test(test_required_and_optional),
		cmocka_unit_test(test_nil_is_absent),
		cmocka_unit_test(test_two_types),
		cmocka_unit_test(test_extra_fields_allowed),
		cmocka_unit_test(test_row_end),
		cmocka_unit_test(test_first_fault_named),
		cmocka_unit_test(test_short_error_buffer),
		cmocka_unit_test(test_broker_ops),
		cmocka_unit_test(test_client_ops),
		cmocka_unit_test(test_required_getters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
