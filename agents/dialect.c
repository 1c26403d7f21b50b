/*
 * dialect - what the real programs send was recorded (codex 0.171.0,
 * Claude Agent SDK 0.3.332); tests/unit/test_dialect.c replays it here.
 */
#include "dialect.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"

#define ID_MAX 200

static const char *const binding_keys[] = { "sessionId", "runId", "projectDirectory", NULL };

static char *dump(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int dialect_codex_parse_ns(const char *line, size_t len, const char *want_ns, struct codex_tool_call *out, char *err,
			   size_t errlen)
{
	json_t *msg = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL), *params, *args, *ns, *id;
	const char *method = json_string_value(json_object_get(msg, "method"));
	const char *thread, *call, *tool;
	int rc = -2;

	memset(out, 0, sizeof *out);
	id = json_object_get(msg, "id");
	if (!msg || !method || strcmp(method, "item/tool/call") != 0 || !id ||
	    !(json_is_string(id) || json_is_integer(id))) {
		snprintf(err, errlen, "not an item/tool/call JSON-RPC request");
		json_decref(msg);
		return -1;
	}
	out->rpcid = dump(id);
	params = json_object_get(msg, "params");
	thread = json_string_value(json_object_get(params, "threadId"));
	call = json_string_value(json_object_get(params, "callId"));
	tool = json_string_value(json_object_get(params, "tool"));
	ns = json_object_get(params, "namespace");
	args = json_object_get(params, "arguments");
	if (!thread || !call || !tool || (args && !json_is_object(args)) || strlen(thread) > ID_MAX ||
	    strlen(call) > ID_MAX) {
		snprintf(err, errlen, "item/tool/call needs threadId, callId, tool and object arguments");
		goto out;
	}
	if (ns && !json_is_null(ns) && (!json_is_string(ns) || strcmp(json_string_value(ns), want_ns) != 0)) {
		snprintf(err, errlen, "only tools of the %s namespace are served here", want_ns);
		goto out;
	}
	/* Older threads send these; they never choose anything. */
	args = args ? json_deep_copy(args) : json_object();
	for (const char *const *k = binding_keys; args && *k; k++)
		json_object_del(args, *k);
	out->args = args ? dump(args) : NULL;
	json_decref(args);
	out->thread = strdup(thread);
	out->turn = dup_or_empty(json_string_value(json_object_get(params, "turnId")));
	out->call_id = strdup(call);
	out->tool = strdup(tool);
	if (!out->rpcid || !out->args || !out->thread || !out->turn || !out->call_id || !out->tool) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(msg);
	return rc;
}

int dialect_codex_parse(const char *line, size_t len, struct codex_tool_call *out, char *err, size_t errlen)
{
	return dialect_codex_parse_ns(line, len, "hbcode", out, err, errlen);
}

void dialect_codex_free(struct codex_tool_call *c)
{
	free(c->rpcid);
	free(c->thread);
	free(c->turn);
	free(c->call_id);
	free(c->tool);
	free(c->args);
	memset(c, 0, sizeof *c);
}

static char *answer_with_id(const char *idtext, json_t *body, const char *idkey)
{
	json_t *id = idtext ? json_loads(idtext, JSON_DECODE_ANY, NULL) : NULL;
	char *out;

	if (!body)
		return NULL;
	json_object_set_new(body, idkey, id ? id : json_null());
	out = json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(body);
	return out;
}

/* One agent's item for an image of the wire form (a new reference). */
typedef json_t *(*image_item_fn)(const char *mime, const char *data);

static json_t *codex_image(const char *mime, const char *data)
{
	return json_pack("{s:s, s:o}", "type", "inputImage", "imageUrl",
			 json_sprintf("data:%s;base64,%s", mime, data));
}

static json_t *claude_image(const char *mime, const char *data)
{
	return json_pack("{s:s, s:s, s:s}", "type", "image", "data", data, "mimeType", mime);
}

/* The text's item, then one item per image of the wire form images
 * (NULL: none); NULL when they cannot be written. */
static json_t *content(json_t *text_item, const char *images, image_item_fn image_item)
{
	json_t *items = json_array(), *all = NULL, *img;
	char err[256];
	size_t i;

	if (!items || !text_item || json_array_append_new(items, text_item) < 0)
		goto bad;
	text_item = NULL;
	if (!images)
		return items;
	if (!(all = hb_images_parse(images, err, sizeof err)))
		goto bad;
	json_array_foreach(all, i, img)
		if (json_array_append_new(items, image_item(hb_image_mime(img), hb_image_data(img))) < 0)
			goto bad;
	json_decref(all);
	return items;
bad:
	json_decref(text_item);
	json_decref(all);
	json_decref(items);
	return NULL;
}

char *dialect_codex_answer(const char *rpcid, int ok, const char *text, const char *images)
{
	json_t *items = content(json_pack("{s:s, s:s%}", "type", "inputText", "text", text, strlen(text)), images,
				codex_image);

	return items ? answer_with_id(rpcid, json_pack("{s:{s:o, s:b}}", "result", "contentItems", items,
						       "success", ok), "id") : NULL;
}

/* The identity of a Claude event ev (page 000): toolUseId, or without one
 * the requestId as bare text, a string's characters or an integer's
 * digits, never its JSON spelling (the quotes would end up in the call id
 * a service stores).  malloc'd; NULL when ev has neither or out of memory. */
static char *claude_call_id(const json_t *ev)
{
	const char *tuid = json_string_value(json_object_get(ev, "toolUseId"));
	const json_t *rid = json_object_get(ev, "requestId");
	char digits[24];

	if (tuid && *tuid)
		return strdup(tuid);
	if (json_is_string(rid))
		return strdup(json_string_value(rid));
	if (json_is_integer(rid)) {
		snprintf(digits, sizeof digits, "%" JSON_INTEGER_FORMAT, json_integer_value(rid));
		return strdup(digits);
	}
	return NULL;
}

char *dialect_claude_call_id(const char *line, size_t len)
{
	json_t *ev = json_loadb(line, len, 0, NULL);
	char *id = claude_call_id(ev);

	json_decref(ev);
	return id;
}

int dialect_claude_parse(const char *line, size_t len, struct claude_tool_call *out, char *err, size_t errlen)
{
	json_t *ev = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL), *rid, *args;
	const char *tool, *tuid;
	int rc = -1;

	memset(out, 0, sizeof *out);
	rid = json_object_get(ev, "requestId");
	tool = json_string_value(json_object_get(ev, "tool"));
	tuid = json_string_value(json_object_get(ev, "toolUseId"));
	args = json_object_get(ev, "arguments");
	if (!ev || !(json_is_string(rid) || json_is_integer(rid)) || !tool || (args && !json_is_object(args))) {
		snprintf(err, errlen, "a toolCall needs requestId, tool and object arguments");
		goto out;
	}
	for (const char *const *k = binding_keys; *k && !out->binding; k++)
		if (json_object_get(ev, *k) || json_object_get(args, *k))
			out->binding = strdup(*k);
	if (strncmp(tool, DIALECT_CLAUDE_TOOL_PREFIX, strlen(DIALECT_CLAUDE_TOOL_PREFIX)) == 0)
		tool += strlen(DIALECT_CLAUDE_TOOL_PREFIX);
	out->request_id = dump(rid);
	out->tool = strdup(tool);
	out->tool_use_id = dup_or_empty(tuid);
	out->call_id = claude_call_id(ev);
	out->args = args ? dump(args) : strdup("{}");
	if (!out->request_id || !out->tool || !out->tool_use_id || !out->call_id || !out->args) {
		dialect_claude_free(out);
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(ev);
	return rc;
}

void dialect_claude_free(struct claude_tool_call *c)
{
	free(c->request_id);
	free(c->tool);
	free(c->tool_use_id);
	free(c->call_id);
	free(c->args);
	free(c->binding);
	memset(c, 0, sizeof *c);
}

char *dialect_claude_result(const char *request_id, int ok, const char *text, const char *images)
{
	json_t *items = content(json_pack("{s:s, s:s%}", "type", "text", "text", text, strlen(text)), images,
				claude_image);

	return items ? answer_with_id(request_id, json_pack("{s:o, s:b}", "content", items, "isError", !ok),
				      "requestId") : NULL;
}

int dialect_identity(char *out, size_t outlen, const char *agent, const char *scope, const char *id)
{
	int n = snprintf(out, outlen, "%s:%s:%s", agent, scope, id);

	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}
