/*
 * tool_forms - see tool_forms.h.
 */
#include "tool_forms.h"

#include "dialect.h"

/* {name, description, inputSchema}: what both forms share. */
static json_t *common_form(const struct agent_tool *t)
{
	json_t *schema = json_loads(t->input_schema, 0, NULL);

	return schema ? json_pack("{s:s, s:s, s:o}", "name", t->name, "description", t->description, "inputSchema",
				  schema)
		      : NULL;
}

json_t *tool_form_codex(const struct agent_tool *t)
{
	json_t *form = common_form(t);

	if (form && json_object_set_new(form, "type", json_string("function")) < 0) {
		json_decref(form);
		return NULL;
	}
	return form;
}

json_t *tool_form_codex_namespace(const char *ns, const char *description, json_t *tools)
{
	return tools ? json_pack("[{s:s, s:s, s:s, s:o}]", "type", "namespace", "name", ns, "description",
				 description, "tools", tools)
		     : NULL;
}

json_t *tool_form_claude(const struct agent_tool *t)
{
	json_t *form = common_form(t);

	if (form && (json_object_set_new(form, "approval", json_string(t->approval)) < 0 ||
		     (t->read_only &&
		      json_object_set_new(form, "annotations", json_pack("{s:b}", "readOnlyHint", 1)) < 0))) {
		json_decref(form);
		return NULL;
	}
	return form;
}

json_t *tool_form_claude_allowed(const char *name)
{
	return json_sprintf(DIALECT_CLAUDE_TOOL_PREFIX "%s", name);
}
