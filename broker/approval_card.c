/*
 * approval_card - the fields a card shows of the action it asks about
 * (approval_card.h).  The kind of a Claude tool is the timeline's, so a
 * card and the row of the same call never disagree on what it is.
 */
#include "approval_card.h"

#include <string.h>

#include "../timeline/tool_kind.h"

#define CARD_TEXT_MAX 8192      /* a command line, a reason: bytes kept */

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* card[key] = the string value (at most CARD_TEXT_MAX bytes, cut at a
 * character's start); nothing when value is NULL.  0 or -1. */
static int put(json_t *card, const char *key, const char *value)
{
	size_t len;

	if (!value)
		return 0;
	len = strlen(value);
	if (len > CARD_TEXT_MAX) {
		len = CARD_TEXT_MAX;
		while (len > 0 && ((unsigned char)value[len] & 0xC0) == 0x80)
			len--;
	}
	return json_object_set_new(card, key, json_stringn(value, len));
}

static int subagent_fields(json_t *card, const json_t *ev)
{
	const json_t *named = json_object_get(ev, "subagent");
	json_t *sub;

	if (!str(ev, "agentId"))
		return 0;
	if (!(sub = json_object()) || json_object_set_new(card, "subagent", sub) < 0)
		return -1;
	return put(sub, "id", str(ev, "agentId")) < 0 || put(sub, "type", str(named, "type")) < 0 ||
	       put(sub, "description", str(named, "description")) < 0 ? -1 : 0;
}

int approval_card_claude(json_t *card, const json_t *ev)
{
	const char *tool = str(ev, "tool");
	const json_t *input = json_object_get(ev, "input");
	const char *kind = "tool";
	int rc = 0;

	switch (tl_claude_tool_kind(tool ? tool : "")) {
	case TL_COMMAND:
		kind = "command";
		rc = put(card, "command", str(input, "command") ? str(input, "command") : "") < 0 ||
				     put(card, "cwd", str(ev, "cwd")) < 0
			     ? -1
			     : 0;
		break;
	case TL_FILE_CHANGE:
		kind = "file";
		rc = put(card, "path", str(input, "file_path") ? str(input, "file_path") : str(input, "notebook_path"));
		break;
	default:
		break;
	}
	if (rc < 0 || put(card, "kind", kind) < 0 || subagent_fields(card, ev) < 0 ||
	    put(card, "displayName", str(ev, "displayName")) < 0 || put(card, "title", str(ev, "title")) < 0 ||
	    put(card, "decisionReason", str(ev, "decisionReason")) < 0 ||
	    put(card, "blockedPath", str(ev, "blockedPath")) < 0)
		return -1;
	return 0;
}

/* An argv (execCommandApproval's command) as one line. */
static int put_argv(json_t *card, const json_t *argv)
{
	char line[CARD_TEXT_MAX + 1];
	size_t n = 0, i;
	const json_t *arg;

	line[0] = '\0';
	json_array_foreach(argv, i, arg) {
		const char *a = json_string_value(arg);
		if (a && n < sizeof line - 1)
			n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", n ? " " : "", a);
	}
	return put(card, "command", line);
}

int approval_card_codex(json_t *card, const json_t *msg, const char *path, const char **tool, const char **use_id)
{
	const char *method = str(msg, "method");
	const json_t *params = json_object_get(msg, "params"), *cmd = json_object_get(params, "command");
	int file = method && (strcmp(method, "item/fileChange/requestApproval") == 0 ||
			      strcmp(method, "applyPatchApproval") == 0);
	int rc;

	*tool = file ? "fileChange" : "commandExecution";
	*use_id = str(params, "itemId") ? str(params, "itemId") : str(params, "callId") ? str(params, "callId") : "";
	if (file) {
		const char *first = json_object_iter_key(json_object_iter((json_t *)json_object_get(params, "fileChanges")));
		rc = put(card, "path", first ? first : path);
	} else {
		rc = json_is_array(cmd) ? put_argv(card, cmd) : put(card, "command", json_string_value(cmd) ? json_string_value(cmd) : "");
		if (rc == 0)
			rc = put(card, "cwd", str(params, "cwd"));
	}
	if (rc < 0 || put(card, "kind", file ? "file" : "command") < 0 ||
	    put(card, "decisionReason", str(params, "reason")) < 0)
		return -1;
	return 0;
}
