/*
 * subagents - depth by spawning call, and the task events (see
 * subagents.h).
 *
 * The SDK reports a subagent as task_started (its task id, the spawning
 * call's tool_use_id, description, subagent type, spawn_depth, whether it
 * runs in the background), task_progress (tool uses, tokens, time, the
 * last tool), task_updated (a patch of its status, without the call's
 * id) and task_notification (the final status and a summary); recorded
 * from Claude Code 2.1.332 in tests/fixtures/timeline/claude-sdk-
 * subagent.jsonl.  Each becomes the spawn row again, with the same id
 * ("claude:<tool_use_id>"), so a viewer updates it in place; the row
 * stays open (struct tl_claude's table) until its result, or for a
 * background subagent until its task_notification.
 */
#include "subagents.h"

#include <stdio.h>
#include <string.h>

#include "row.h"
#include "tool_kind.h"

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

int tl_claude_spawn_depth(const struct tl_claude *st, const char *parent)
{
	if (!parent)
		return 0;
	for (size_t i = 0; i < st->nspawn; i++)
		if (strcmp(st->spawn[i].id, parent) == 0)
			return st->spawn[i].depth;
	return 1;
}

void tl_claude_spawn_put(struct tl_claude *st, const char *id, int depth)
{
	size_t slot;

	for (slot = 0; slot < st->nspawn; slot++)
		if (strcmp(st->spawn[slot].id, id) == 0)
			break;
	if (slot == st->nspawn)
		slot = st->nspawn < TL_SPAWN_MAX ? st->nspawn++ : (st->spawn_next++ % TL_SPAWN_MAX);
	snprintf(st->spawn[slot].id, TL_ID_MAX, "%s", id);
	st->spawn[slot].depth = depth;
}

int tl_claude_spawn_runs_on(const json_t *row)
{
	return json_is_true(json_object_get(row, "background"));
}

/* The open spawn row's call id of task id (its agentId), or NULL. */
static const char *call_of_task(const struct tl_claude *st, const char *task)
{
	for (size_t i = 0; task && i < st->nopen; i++)
		if (strcmp(str(st->open[i].row, "kind") ? str(st->open[i].row, "kind") : "", "spawn") == 0 &&
		    strcmp(str(st->open[i].row, "agentId") ? str(st->open[i].row, "agentId") : "", task) == 0)
			return st->open[i].id;
	return NULL;
}

/* A spawn row for call, from the task event alone: its call came before
 * this stream began (a history page, a late start). */
static json_t *new_spawn_row(const json_t *msg, const char *call)
{
	char id[TL_ID_MAX];
	const json_t *sd = json_object_get(msg, "spawn_depth");
	int child = json_is_integer(sd) && json_integer_value(sd) > 0 && json_integer_value(sd) <= TL_DEPTH_MAX
			    ? (int)json_integer_value(sd) : 1;
	json_t *row;

	if (snprintf(id, sizeof id, "claude:%s", call) >= (int)sizeof id ||
	    !(row = tl_row_new("claude", TL_SPAWN, id)))
		return NULL;
	json_object_set_new(row, "depth", json_integer(child - 1));
	json_object_set_new(row, "childDepth", json_integer(child));
	json_object_set_new(row, "link", json_pack("{s:s}", "thread", call));
	tl_row_str(row, "title", str(msg, "description") ? str(msg, "description") : "Subagent", 1024);
	return row;
}

/* What each event says of the subagent, on its row. */
static void task_fields(json_t *row, const char *sub, const json_t *msg)
{
	const json_t *usage = json_object_get(msg, "usage"), *v;
	char label[256];

	tl_row_str(row, "agentId", str(msg, "task_id"), TL_ID_MAX);
	if (strcmp(sub, "task_started") == 0) {
		json_object_set_new(row, "status", json_string("running"));
		if (str(msg, "subagent_type"))
			tl_row_str(row, "agentType", str(msg, "subagent_type"), 256);
		json_object_set_new(row, "background", json_boolean(json_is_true(json_object_get(msg, "is_backgrounded"))));
		if (json_is_integer(v = json_object_get(msg, "spawn_depth")) && json_integer_value(v) > 0 &&
		    json_integer_value(v) <= TL_DEPTH_MAX)
			json_object_set_new(row, "childDepth", json_integer(json_integer_value(v)));
	} else if (strcmp(sub, "task_progress") == 0) {
		if (json_is_integer(v = json_object_get(usage, "tool_uses")))
			json_object_set_new(row, "toolUses", json_integer(json_integer_value(v)));
		if (json_is_integer(v = json_object_get(usage, "total_tokens")))
			json_object_set_new(row, "tokens", json_integer(json_integer_value(v)));
		if (json_is_integer(v = json_object_get(usage, "duration_ms")))
			json_object_set_new(row, "durationMs", json_integer(json_integer_value(v)));
		if (str(msg, "last_tool_name")) {
			tl_tool_label(str(msg, "last_tool_name"), label, sizeof label);
			tl_row_str(row, "lastTool", label, sizeof label);
		}
	} else if (strcmp(sub, "task_updated") == 0) {
		tl_row_str(row, "status", str(json_object_get(msg, "patch"), "status"), 32);
	} else {
		tl_row_str(row, "status", str(msg, "status") ? str(msg, "status") : "completed", 32);
		tl_row_str(row, "summary", str(msg, "summary"), TL_TEXT_MAX);
	}
}

int tl_claude_task(struct tl_claude *st, const json_t *msg, json_t *rows)
{
	const char *sub = str(msg, "subtype"), *found, *task = str(msg, "task_id");
	char call[TL_ID_MAX - 8];	/* a copy: the table's own id moves when the table changes */
	json_t *open, *row;
	const json_t *sd;

	if (!sub || (strcmp(sub, "task_started") != 0 && strcmp(sub, "task_progress") != 0 &&
		     strcmp(sub, "task_updated") != 0 && strcmp(sub, "task_notification") != 0))
		return 0;
	found = str(msg, "tool_use_id") ? str(msg, "tool_use_id") : call_of_task(st, task);
	if (!found || !*found || strlen(found) >= sizeof call)
		return 1; /* a task of no call we know (task_updated of a finished one) */
	memcpy(call, found, strlen(found) + 1);
	open = tl_open_get(st->open, st->nopen, call);
	if (open && strcmp(str(open, "kind") ? str(open, "kind") : "", "spawn") != 0)
		return 1; /* the call is not a spawn: nothing of ours to update */
	row = open ? json_deep_copy(open) : new_spawn_row(msg, call);
	if (!row)
		return 1;
	task_fields(row, sub, msg);
	if (strcmp(sub, "task_started") == 0 && json_is_integer(sd = json_object_get(row, "childDepth")))
		tl_claude_spawn_put(st, call, (int)json_integer_value(sd));
	if (strcmp(sub, "task_notification") == 0 && tl_claude_spawn_runs_on(row))
		tl_open_del(st->open, &st->nopen, call); /* the background subagent is over */
	else
		tl_open_put(st->open, &st->nopen, &st->open_next, call, row);
	tl_rows_add(rows, row);
	return 1;
}
