/*
 * catalog - the page's rule: four tools always, three while a Gemini key
 * is saved, one while notifications are on; eight at most.  Settings are
 * read for every request, so a key saved a second ago is in the next
 * Claude run's list (a Codex thread keeps the list it started with).
 */
#include "catalog.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "settings.h"
#include "tool_forms.h"
#include "tools.h"

#define NAMESPACE "hbcode"
#define NAMESPACE_DESCRIPTION "HB Code desktop tools."

/* A tool of the table as tool_forms.h takes it. */
static struct agent_tool agent_tool_of(const struct hb_tool_def *t, const struct hb_settings *s)
{
	struct agent_tool a = { .name = t->name,
				.description = hb_tool_description(t, s->policy),
				.input_schema = t->input_schema,
				.approval = hb_approval_class_name(t->approval),
				.read_only = t->approval == HB_CLASS_READ_ONLY };
	return a;
}

static json_t *codex_form(const struct hb_settings *s)
{
	json_t *tools = json_array();
	size_t n;
	const struct hb_tool_def *all = hb_tools_all(&n);

	for (size_t i = 0; tools && i < n; i++) {
		struct agent_tool a = agent_tool_of(&all[i], s);
		json_t *t;
		if (!hb_tool_listed(&all[i], s))
			continue;
		if (!(t = tool_form_codex(&a))) {
			json_decref(tools);
			return NULL;
		}
		json_array_append_new(tools, t);
	}
	tools = tool_form_codex_namespace(NAMESPACE, NAMESPACE_DESCRIPTION, tools);
	return tools ? json_pack("{s:o}", "dynamicTools", tools) : NULL;
}

static json_t *claude_form(const struct hb_settings *s)
{
	json_t *tools = json_array(), *allowed = json_array();
	size_t n;
	const struct hb_tool_def *all = hb_tools_all(&n);

	for (size_t i = 0; tools && allowed && i < n; i++) {
		struct agent_tool a = agent_tool_of(&all[i], s);
		json_t *t;
		if (!hb_tool_listed(&all[i], s))
			continue;
		if (!(t = tool_form_claude(&a))) {
			json_decref(tools);
			json_decref(allowed);
			return NULL;
		}
		json_array_append_new(tools, t);
		/* Claude asks before class agent only, as the access level says. */
		if (all[i].approval != HB_CLASS_AGENT)
			json_array_append_new(allowed, tool_form_claude_allowed(all[i].name));
	}
	return json_pack("{s:{s:s, s:o}, s:o}", "appCapabilities", "server", NAMESPACE, "tools", tools,
			 "allowedTools", allowed);
}

char *catalog_build(const struct hb_paths *p, const char *agent, char *err, size_t errlen)
{
	struct hb_settings s;
	json_t *root;
	char *text;

	if (hb_settings_load(p, &s, err, errlen) < 0)
		return NULL;
	if (strcmp(agent, "codex") == 0)
		root = codex_form(&s);
	else if (strcmp(agent, "claude") == 0)
		root = claude_form(&s);
	else {
		snprintf(err, errlen, "the catalog is for \"codex\" or \"claude\", not \"%.32s\"", agent);
		return NULL;
	}
	if (!root) {
		snprintf(err, errlen, "the tool table has a broken input schema (a bug)");
		return NULL;
	}
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (!text)
		snprintf(err, errlen, "out of memory");
	return text;
}
