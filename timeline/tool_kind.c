/*
 * tool_kind - Claude's tool names mapped to row kinds and readable labels,
 * and the fields each kind takes from the call's input (see tool_kind.h).
 */
#include "tool_kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static const struct { const char *name, *label; } labels[] = {
	{ "Grep", "Search" }, { "Glob", "Find files" }, { "WebFetch", "Fetch" },
	{ "WebSearch", "Web search" }, { "LS", "List" }, { "BashOutput", "Command output" },
	{ "KillShell", "Stop command" }, { "Skill", "Skill" }, { "SlashCommand", "Slash command" },
};

enum tl_kind tl_claude_tool_kind(const char *name)
{
	if (strcmp(name, "Bash") == 0)
		return TL_COMMAND;
	if (strcmp(name, "Edit") == 0 || strcmp(name, "MultiEdit") == 0 || strcmp(name, "Write") == 0 ||
	    strcmp(name, "NotebookEdit") == 0)
		return TL_FILE_CHANGE;
	if (strcmp(name, "TodoWrite") == 0 || strcmp(name, "EnterPlanMode") == 0 || strcmp(name, "ExitPlanMode") == 0)
		return TL_PLAN;
	if (strcmp(name, "Task") == 0 || strcmp(name, "Agent") == 0)
		return TL_SPAWN;
	return TL_TOOL;
}

void tl_tool_label(const char *name, char *out, size_t outlen)
{
	const char *sep;

	if (strncmp(name, "mcp__", 5) == 0 && (sep = strstr(name + 5, "__")) && sep > name + 5) {
		snprintf(out, outlen, "%.*s: %s", (int)(sep - (name + 5)), name + 5, sep + 2);
		return;
	}
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (strcmp(name, labels[i].name) == 0) {
			snprintf(out, outlen, "%s", labels[i].label);
			return;
		}
	snprintf(out, outlen, "%s", name);
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* The diff of an Edit, MultiEdit, Write or NotebookEdit call. */
static int file_fields(json_t *row, const char *name, const json_t *in)
{
	const char *path = str(in, "file_path") ? str(in, "file_path") : str(in, "notebook_path");
	const char *olds[TL_STEPS_MAX], *news[TL_STEPS_MAX];
	size_t n = 0;
	char *diff;
	json_t *change;
	int rc;

	if (!path)
		path = "(no path)";
	if (strcmp(name, "MultiEdit") == 0) {
		const json_t *e;
		size_t i;

		json_array_foreach(json_object_get(in, "edits"), i, e) {
			if (n == TL_STEPS_MAX)
				break;
			olds[n] = str(e, "old_string") ? str(e, "old_string") : "";
			news[n++] = str(e, "new_string") ? str(e, "new_string") : "";
		}
	} else if (strcmp(name, "Write") == 0) {
		olds[0] = NULL, news[0] = str(in, "content"), n = 1;	/* new file until the result says */
	} else if (strcmp(name, "NotebookEdit") == 0) {
		olds[0] = "", news[0] = str(in, "new_source"), n = 1;
	} else {
		olds[0] = str(in, "old_string"), news[0] = str(in, "new_string"), n = 1;
	}
	diff = tl_diff_file(path, olds, news, n);
	if (!diff)
		return -1;
	change = json_pack("{s:s}", "path", path);
	rc = change && tl_row_str(change, "diff", diff, TL_DIFF_MAX + sizeof TL_CUT_MARK) == 0 ? 0 : -1;
	free(diff);
	if (rc == 0)
		rc = json_object_set_new(row, "changes", json_pack("[o]", change));
	else
		json_decref(change);
	return tl_row_str(row, "title", basename_of(path), TL_TEXT_MAX) == 0 ? rc : -1;
}

static int plan_fields(json_t *row, const char *name, const json_t *in)
{
	json_t *steps;

	if (strcmp(name, "ExitPlanMode") == 0)
		return tl_row_str(row, "markdown", str(in, "plan") ? str(in, "plan") : "", TL_TEXT_MAX);
	if (strcmp(name, "EnterPlanMode") == 0)
		return tl_row_str(row, "markdown", "Planning", TL_TEXT_MAX);
	if (!(steps = tl_plan_steps(json_object_get(in, "todos"), "content")))
		return -1;
	return json_object_set_new(row, "steps", steps);
}

/* A tool row's title (its label and the one argument a person looks for)
 * and its arguments, capped (tl_row_args), for the live view. */
static int tool_title(json_t *row, const char *name, const json_t *in)
{
	static const char *const keys[] = { "file_path", "pattern", "url", "query", "path", "skill", "command" };
	char label[256], title[1024];
	const char *arg = NULL;

	tl_tool_label(name, label, sizeof label);
	for (size_t i = 0; !arg && i < sizeof keys / sizeof keys[0]; i++)
		arg = str(in, keys[i]);
	if (arg && strcmp(name, "Read") == 0)
		arg = basename_of(arg);
	if (arg)
		snprintf(title, sizeof title, "%s %s", label, arg);
	else
		snprintf(title, sizeof title, "%s", label);
	if (tl_row_str(row, "label", label, 256) < 0 || tl_row_str(row, "title", title, 1024) < 0 ||
	    tl_row_args(row, "input", in) < 0)
		return -1;
	return strcmp(name, "Read") == 0 && str(in, "file_path") ? tl_row_str(row, "path", str(in, "file_path"), 4096)
								    : 0;
}

int tl_claude_call_fields(json_t *row, const char *name, const json_t *in)
{
	if (tl_row_str(row, "tool", name, 256) < 0 || json_object_set_new(row, "status", json_string("call")) < 0)
		return -1;
	switch (tl_claude_tool_kind(name)) {
	case TL_COMMAND:
		return tl_row_str(row, "command", str(in, "command") ? str(in, "command") : "", TL_TEXT_MAX) < 0 ||
		       tl_row_str(row, "description", str(in, "description"), 1024) < 0 ? -1 : 0;
	case TL_FILE_CHANGE:
		return file_fields(row, name, in);
	case TL_PLAN:
		return plan_fields(row, name, in);
	case TL_SPAWN:
		return tl_row_str(row, "agentType", str(in, "subagent_type") ? str(in, "subagent_type") : "general-purpose",
				  256) < 0 ||
		       tl_row_str(row, "title", str(in, "description") ? str(in, "description") : "Subagent", 1024) < 0 ||
		       tl_row_str(row, "prompt", str(in, "prompt"), TL_TEXT_MAX) < 0 ? -1 : 0;
	default:
		return tool_title(row, name, in);
	}
}

int tl_claude_result_fields(json_t *row, const json_t *res)
{
	const char *tool = str(row, "tool"), *orig = str(res, "originalFile"), *content = str(res, "content");
	const char *path = str(json_array_get(json_object_get(row, "changes"), 0), "path");
	const char *olds[1], *news[1];
	char *diff;
	int rc;

	if (!tool || strcmp(tool, "Write") != 0 || !orig || !content || !path)
		return 0;
	olds[0] = orig, news[0] = content;
	if (!(diff = tl_diff_file(path, olds, news, 1)))
		return -1;
	rc = tl_row_str(json_array_get(json_object_get(row, "changes"), 0), "diff", diff,
			TL_DIFF_MAX + sizeof TL_CUT_MARK);
	free(diff);
	return rc;
}
