/*
 * tools - the catalog as MCP's tools/list (tools.h).  The catalog stays
 * the broker's (broker/catalog.c: the same listing rules and
 * descriptions as the agents get); hb-mcp only adds the annotations.
 */
#include "tools.h"

#include <stdio.h>
#include <string.h>

/* MCP's annotations from the approval class (docs/agents.md), refined for
 * the agent class by what the tool does.  readOnlyHint: changes nothing;
 * destructiveHint (when not read-only): may change or remove what is
 * there, not only add; openWorldHint: reaches past this machine. */
static const struct hint_row {
	const char *name;               /* NULL: the class's own row */
	const char *approval;
	struct mcp_hints hints;
	const char *why;
} hint_rows[] = {
	{ NULL, "read-only", { 1, 0, 0 }, "reads HB Code's own data only" },
	{ NULL, "desktop", { 0, 0, 0 }, "adds to HB Code (a message in a session's queue), removes nothing" },
	{ NULL, "agent", { 0, 1, 1 }, "acts on the world: the careful default for an agent-class tool" },
	{ "manage_sessions", "agent", { 0, 1, 0 }, "changes, moves and archives sessions, all in HB Code's appdata.db" },
	{ "use_user_browser", "agent", { 0, 1, 1 }, "clicks and types in the user's own browser, on any site" },
	{ "synthesize_speech", "agent", { 0, 0, 1 }, "sends the text to Gemini and writes a new audio file" },
	{ "extract_video_context", "agent", { 0, 0, 1 }, "uploads the video to Gemini; changes nothing here" },
	{ "create_explainer_video", "agent", { 0, 0, 1 }, "asks Gemini for narration and writes a new video" },
	{ "send_mobile_notification", "agent", { 0, 0, 1 }, "reaches the phone through the relay; only adds a notification" },
};

#define HINT_ROWS (sizeof hint_rows / sizeof hint_rows[0])

struct mcp_hints mcp_tool_hints(const char *name, const char *approval)
{
	const struct hint_row *class_row = &hint_rows[2]; /* agent: the most careful */

	for (size_t i = 0; i < HINT_ROWS; i++) {
		if (strcmp(hint_rows[i].approval, approval) != 0)
			continue;
		if (hint_rows[i].name && strcmp(hint_rows[i].name, name) == 0)
			return hint_rows[i].hints;
		if (!hint_rows[i].name)
			class_row = &hint_rows[i];
	}
	return class_row->hints;
}

/* One tool of the catalog as MCP lists it; NULL when it is not a tool. */
static json_t *mcp_tool(const json_t *t)
{
	const char *name = json_string_value(json_object_get(t, "name"));
	const char *description = json_string_value(json_object_get(t, "description"));
	const char *approval = json_string_value(json_object_get(t, "approval"));
	json_t *schema = json_object_get(t, "inputSchema"), *ann;
	struct mcp_hints h;

	if (!name || !description || !approval || !json_is_object(schema))
		return NULL;
	h = mcp_tool_hints(name, approval);
	ann = h.read_only ? json_pack("{s:b, s:b}", "readOnlyHint", 1, "openWorldHint", h.open_world)
			  : json_pack("{s:b, s:b, s:b}", "readOnlyHint", 0, "destructiveHint", h.destructive,
				      "openWorldHint", h.open_world);
	return ann ? json_pack("{s:s, s:s, s:O, s:o}", "name", name, "description", description, "inputSchema",
			       schema, "annotations", ann)
		   : NULL;
}

json_t *mcp_tools_from_catalog(const char *catalog, char *err, size_t errlen)
{
	json_t *root = json_loads(catalog, 0, NULL), *tools, *list = json_array(), *t;
	size_t i;

	tools = json_object_get(json_object_get(root, "appCapabilities"), "tools");
	if (!json_is_array(tools) || !list) {
		snprintf(err, errlen, "hb-broker's catalog has no tool list");
		goto fail;
	}
	json_array_foreach(tools, i, t) {
		json_t *one = mcp_tool(t);
		if (!one || json_array_append_new(list, one) < 0) {
			snprintf(err, errlen, "hb-broker's catalog has a tool without a name, description, approval "
				 "class or input schema (tool %zu)", i + 1);
			goto fail;
		}
	}
	json_decref(root);
	return list;
fail:
	json_decref(root);
	json_decref(list);
	return NULL;
}
