/*
 * test_mcp_jsonrpc - hb-mcp's framing and negotiation (mcp/jsonrpc.c,
 * mcp/server.c's initialize): what each kind of line is read as, the
 * JSON-RPC 2.0 error each bad line gets (parse error with a null id,
 * invalid request with the id when it had a usable one, nothing for a
 * broken notification), the revision answered to each client, and what
 * initialize keeps of the client.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../mcp/jsonrpc.h"
#include "../../mcp/server.h"

/* Read text; *kind on success, else the error answer's code and id
 * (-1: a null id; -2: no answer at all). */
static int read_line(const char *text, enum mcp_kind *kind, json_int_t *code, json_int_t *id)
{
	json_t *msg, *answer;
	int rc = mcp_rpc_read(text, strlen(text), &msg, kind, &answer);

	*code = *id = 0;
	if (rc == 0) {
		assert_non_null(msg);
		assert_null(answer);
		json_decref(msg);
		return 0;
	}
	assert_null(msg);
	if (!answer) {
		*id = -2;
		return -1;
	}
	*code = json_integer_value(json_object_get(json_object_get(answer, "error"), "code"));
	assert_non_null(json_string_value(json_object_get(json_object_get(answer, "error"), "message")));
	*id = json_is_null(json_object_get(answer, "id")) ? -1 : json_integer_value(json_object_get(answer, "id"));
	json_decref(answer);
	return -1;
}

static void test_kinds(void **state)
{
	enum mcp_kind kind;
	json_int_t code, id;

	(void)state;
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", &kind, &code, &id), 0);
	assert_int_equal(kind, MCP_MSG_REQUEST);
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\",\"params\":{}}", &kind,
				   &code, &id),
			 0);
	assert_int_equal(kind, MCP_MSG_REQUEST);
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &kind, &code, &id),
			 0);
	assert_int_equal(kind, MCP_MSG_NOTIFICATION);
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"action\":\"accept\"}}", &kind, &code, &id),
			 0);
	assert_int_equal(kind, MCP_MSG_RESPONSE);
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-1,\"message\":\"no\"}}", &kind,
				   &code, &id),
			 0);
	assert_int_equal(kind, MCP_MSG_RESPONSE);
}

static void test_bad_lines(void **state)
{
	enum mcp_kind kind;
	json_int_t code, id;

	(void)state;
	/* Not JSON: parse error, null id. */
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":1,", &kind, &code, &id), -1);
	assert_int_equal(code, MCP_PARSE_ERROR);
	assert_int_equal(id, -1);
	/* A batch, and a JSON value that is no object: invalid, null id. */
	assert_int_equal(read_line("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", &kind, &code, &id), -1);
	assert_int_equal(code, MCP_INVALID_REQUEST);
	assert_int_equal(id, -1);
	assert_int_equal(read_line("42", &kind, &code, &id), -1);
	assert_int_equal(code, MCP_INVALID_REQUEST);
	/* No "jsonrpc":"2.0": invalid, with the request's id. */
	assert_int_equal(read_line("{\"id\":7,\"method\":\"ping\"}", &kind, &code, &id), -1);
	assert_int_equal(code, MCP_INVALID_REQUEST);
	assert_int_equal(id, 7);
	assert_int_equal(read_line("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", &kind, &code, &id), -1);
	assert_int_equal(id, 7);
	/* A method that is no string; params that are no object. */
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":5}", &kind, &code, &id), -1);
	assert_int_equal(code, MCP_INVALID_REQUEST);
	assert_int_equal(id, 8);
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":[1]}", &kind, &code, &id),
			 -1);
	assert_int_equal(id, 9);
	/* Ids MCP does not allow: null, a fraction, a boolean. */
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", &kind, &code, &id), -1);
	assert_int_equal(id, -1);
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", &kind, &code, &id), -1);
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", &kind, &code, &id), -1);
	/* Duplicate keys are refused as not JSON. */
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", &kind, &code, &id), -1);
	assert_int_equal(code, MCP_PARSE_ERROR);
	/* An object with an id that is neither request nor response. */
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"id\":4}", &kind, &code, &id), -1);
	assert_int_equal(code, MCP_INVALID_REQUEST);
	assert_int_equal(id, 4);
	/* A broken notification, and a message with nothing to answer: no answer. */
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":3}", &kind, &code, &id),
			 -1);
	assert_int_equal(id, -2);
	assert_int_equal(read_line("{\"jsonrpc\":\"2.0\"}", &kind, &code, &id), -1);
	assert_int_equal(id, -2);
}

static void test_negotiation(void **state)
{
	(void)state;
	/* Every revision hb-mcp speaks is answered as asked; the newest is
	 * the one the pinned TypeScript SDK (1.32.2) knows as latest. */
	assert_string_equal(mcp_revisions[0], "2025-11-25");
	for (int i = 0; mcp_revisions[i]; i++)
		assert_string_equal(mcp_negotiate(mcp_revisions[i]), mcp_revisions[i]);
	assert_string_equal(mcp_negotiate("2024-11-05"), "2024-11-05");
	assert_string_equal(mcp_negotiate("2025-03-26"), "2025-03-26");
	assert_string_equal(mcp_negotiate("2025-06-18"), "2025-06-18");
	/* Unknown or none: the newest, and the client decides. */
	assert_string_equal(mcp_negotiate("2099-01-01"), "2025-11-25");
	assert_string_equal(mcp_negotiate("2024-10-07"), "2025-11-25");
	assert_string_equal(mcp_negotiate(NULL), "2025-11-25");
}

static void test_initialize(void **state)
{
	struct mcp m;
	json_t *params = json_pack("{s:s, s:{s:{}}, s:{s:s, s:s}}", "protocolVersion", "2025-06-18", "capabilities",
				   "elicitation", "clientInfo", "name", "claude-code", "version", "2.1");
	json_t *r;

	(void)state;
	memset(&m, 0, sizeof m);
	r = server_initialize(&m, params);
	assert_string_equal(json_string_value(json_object_get(r, "protocolVersion")), "2025-06-18");
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(r, "capabilities"), "tools"),
						 "listChanged")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(r, "serverInfo"), "name")), "hb-mcp");
	assert_non_null(json_string_value(json_object_get(json_object_get(r, "serverInfo"), "version")));
	assert_string_equal(m.client_name, "claude-code");
	assert_int_equal(m.elicitation, 1);
	json_decref(r);
	/* --no-elicitation: the cards are never offered to the client. */
	memset(&m, 0, sizeof m);
	m.no_elicitation = 1;
	r = server_initialize(&m, params);
	assert_int_equal(m.elicitation, 0);
	json_decref(r);
	json_decref(params);
	/* No elicitation declared, no name, an old revision. */
	memset(&m, 0, sizeof m);
	params = json_pack("{s:s, s:{}}", "protocolVersion", "2024-11-05", "capabilities");
	r = server_initialize(&m, params);
	assert_string_equal(json_string_value(json_object_get(r, "protocolVersion")), "2024-11-05");
	assert_int_equal(m.elicitation, 0);
	assert_string_equal(m.client_name, "");
	json_decref(r);
	json_decref(params);
}

/* What goes to stdout: one line of JSON-RPC 2.0 a message. */
static void test_send(void **state)
{
	struct mcp m;
	int fds[2];
	char buf[512];
	ssize_t n;
	json_t *v;
	json_t *id = json_integer(5);

	(void)state;
	memset(&m, 0, sizeof m);
	assert_int_equal(pipe(fds), 0);
	m.out_fd = fds[1];
	assert_int_equal(mcp_send(&m, mcp_rpc_result(id, json_object())), 0);
	assert_int_equal(mcp_send(&m, mcp_rpc_notification("notifications/tools/list_changed", NULL)), 0);
	assert_int_equal(mcp_send(&m, NULL), -1);
	close(fds[1]);
	n = read(fds[0], buf, sizeof buf - 1);
	close(fds[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strchr(buf, '\n'));
	*strchr(buf, '\n') = '\0';
	v = json_loads(buf, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(v, "jsonrpc")), "2.0");
	assert_int_equal(json_integer_value(json_object_get(v, "id")), 5);
	assert_true(json_is_object(json_object_get(v, "result")));
	json_decref(v);
	v = json_loads(buf + strlen(buf) + 1, JSON_DISABLE_EOF_CHECK, NULL);
	assert_string_equal(json_string_value(json_object_get(v, "method")), "notifications/tools/list_changed");
	assert_null(json_object_get(v, "id"));
	json_decref(v);
	json_decref(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_negotiation),
		cmocka_unit_test(test_initialize),
		cmocka_unit_test(test_send),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
