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
