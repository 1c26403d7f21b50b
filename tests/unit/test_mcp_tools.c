/*
 * test_mcp_tools - what hb-mcp makes of the broker's answers
 * (mcp/tools.c, mcp/calls.c, mcp/approval.c): the annotations of every
 * tool of the table (common/tools.c) from its approval class, the
 * catalog's Claude form (agents/tool_forms.c, what the broker answers to
 * catalog --for claude) turned into tools/list, a tool's answer into MCP
 * content with its images, and the question and the decision of an
 * approval card offered through elicitation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../../mcp/approval.h"
#include "../../mcp/calls.h"
#include "../../mcp/tools.h"
#include "tool_forms.h"
#include "tools.h"

static void test_hints_by_class(void **state)
{
	struct mcp_hints h;

	(void)state;
	h = mcp_tool_hints("maintain_sessions", "read-only");
	assert_true(h.read_only && !h.open_world);
	h = mcp_tool_hints("send_session_message", "desktop");
	assert_true(!h.read_only && !h.destructive && !h.open_world);
	/* Agent class: destructive where it changes what is there, open
	 * world where it reaches the network. */
	h = mcp_tool_hints("use_user_browser", "agent");
	assert_true(!h.read_only && h.destructive && h.open_world);
	h = mcp_tool_hints("manage_sessions", "agent");
	assert_true(!h.read_only && h.destructive && !h.open_world);
	for (const char *const *n = (const char *const[]){ "synthesize_speech", "extract_video_context",
							    "create_explainer_video", "send_mobile_notification",
							    NULL };
	     *n; n++) {
		h = mcp_tool_hints(*n, "agent");
		assert_true(!h.read_only && !h.destructive && h.open_world);
	}
	/* A tool the table does not name gets its class's row; an unknown
	 * class the most careful one. */
	h = mcp_tool_hints("a_new_tool", "read-only");
	assert_true(h.read_only);
	h = mcp_tool_hints("a_new_tool", "agent");
	assert_true(!h.read_only && h.destructive && h.open_world);
	h = mcp_tool_hints("maintain_sessions", "something-else");
	assert_true(!h.read_only && h.destructive && h.open_world);
}

/* The whole table as the broker's catalog lists it for Claude. */
static char *catalog_of_table(void)
{
	json_t *tools = json_array(), *root;
	size_t n;
	const struct hb_tool_def *all = hb_tools_all(&n);
	char *text;

	for (size_t i = 0; i < n; i++) {
		struct agent_tool a = { all[i].name, all[i].description, all[i].input_schema,
					hb_approval_class_name(all[i].approval), all[i].approval == HB_CLASS_READ_ONLY };
		assert_int_equal(json_array_append_new(tools, tool_form_claude(&a)), 0);
	}
	root = json_pack("{s:{s:s, s:o}, s:[]}", "appCapabilities", "server", "hbcode", "tools", tools,
			 "allowedTools");
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return text;
}

static void test_list_from_catalog(void **state)
{
	char err[256], *catalog = catalog_of_table();
	json_t *list = mcp_tools_from_catalog(catalog, err, sizeof err), *t;
	size_t n, i;
	const struct hb_tool_def *all = hb_tools_all(&n);

	(void)state;
	assert_non_null(list);
	assert_int_equal(json_array_size(list), n);
	json_array_foreach(list, i, t) {
		const json_t *ann = json_object_get(t, "annotations");
		struct mcp_hints h = mcp_tool_hints(all[i].name, hb_approval_class_name(all[i].approval));

		assert_string_equal(json_string_value(json_object_get(t, "name")), all[i].name);
		assert_non_null(json_string_value(json_object_get(t, "description")));
		assert_string_equal(json_string_value(json_object_get(json_object_get(t, "inputSchema"), "type")),
				    "object");
		assert_int_equal(json_is_true(json_object_get(ann, "readOnlyHint")), all[i].approval == HB_CLASS_READ_ONLY);
		assert_int_equal(json_is_true(json_object_get(ann, "openWorldHint")), h.open_world);
		if (all[i].approval != HB_CLASS_READ_ONLY)
			assert_int_equal(json_is_true(json_object_get(ann, "destructiveHint")), h.destructive);
		else
			assert_null(json_object_get(ann, "destructiveHint"));
		/* The broker's own word for the class stays out of MCP. */
		assert_null(json_object_get(t, "approval"));
	}
	json_decref(list);
	free(catalog);
	/* Not a catalog, and a tool without its schema. */
	assert_null(mcp_tools_from_catalog("{\"dynamicTools\":[]}", err, sizeof err));
	assert_non_null(strstr(err, "no tool list"));
	assert_null(mcp_tools_from_catalog("{\"appCapabilities\":{\"tools\":[{\"name\":\"x\",\"description\":\"d\","
					   "\"approval\":\"agent\"}]}}",
					   err, sizeof err));
	assert_non_null(strstr(err, "tool 1"));
}

#define PIXEL "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC"

static void test_result_content(void **state)
{
	json_t *r = calls_result(1, "two images", "[{\"mimeType\":\"image/png\",\"data\":\"" PIXEL "\"},"
						  "{\"mimeType\":\"image/jpeg\",\"data\":\"/9j/4AAQ\"}]");
	json_t *content = json_object_get(r, "content");

	(void)state;
	assert_non_null(r);
	assert_true(json_is_false(json_object_get(r, "isError")));
	assert_int_equal(json_array_size(content), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 0), "type")), "text");
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 0), "text")), "two images");
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 1), "type")), "image");
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 1), "data")), PIXEL);
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 1), "mimeType")), "image/png");
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 2), "mimeType")), "image/jpeg");
	json_decref(r);
	/* A failure: the same sentence, isError. */
	r = calls_result(0, "The user declined this tool call.", NULL);
	assert_true(json_is_true(json_object_get(r, "isError")));
	assert_int_equal(json_array_size(json_object_get(r, "content")), 1);
	json_decref(r);
	/* Images that are not what images.h writes: no result at all. */
	assert_null(calls_result(1, "t", "[{\"mimeType\":\"image/gif\",\"data\":\"R0lG\"}]"));
	assert_null(calls_result(1, "t", "not json"));
}

static void test_approval_question(void **state)
{
	json_t *card = json_pack("{s:s, s:s, s:{s:s}}", "id", "a7", "tool", "use_user_browser", "input", "action",
				 "screenshot");
	json_t *q = approval_question(card), *schema, *answer;

	(void)state;
	assert_non_null(strstr(json_string_value(json_object_get(q, "message")), "use_user_browser"));
	assert_non_null(strstr(json_string_value(json_object_get(q, "message")), "a7"));
	assert_non_null(strstr(json_string_value(json_object_get(q, "message")), "screenshot"));
	schema = json_object_get(q, "requestedSchema");
	assert_string_equal(json_string_value(json_object_get(schema, "type")), "object");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(schema, "properties"),
									    "approve"),
							  "type")),
			    "boolean");
	assert_string_equal(json_string_value(json_array_get(json_object_get(schema, "required"), 0)), "approve");
	json_decref(q);
	json_decref(card);

	answer = json_pack("{s:s, s:{s:b}}", "action", "accept", "content", "approve", 1);
	assert_int_equal(approval_decision(answer), 1);
	json_decref(answer);
	answer = json_pack("{s:s, s:{s:b}}", "action", "accept", "content", "approve", 0);
	assert_int_equal(approval_decision(answer), 0);
	json_decref(answer);
	answer = json_pack("{s:s}", "action", "decline");
	assert_int_equal(approval_decision(answer), 0);
	json_decref(answer);
	/* dismissed without a choice: no decision, the card stays open */
	answer = json_pack("{s:s}", "action", "cancel");
	assert_int_equal(approval_decision(answer), -1);
	json_decref(answer);
	answer = json_object();
	assert_int_equal(approval_decision(answer), -1);
	json_decref(answer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hints_by_class),
		cmocka_unit_test(test_list_from_catalog),
		cmocka_unit_test(test_result_content),
		cmocka_unit_test(test_approval_question),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
