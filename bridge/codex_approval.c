/*
 * codex_approval - hb-codex-bridge --once: the server's approval requests
 * (a command or a file change the sandbox does not allow) become approval
 * cards in the broker (codex.approval), since no desktop is there to ask;
 * the card's answer goes back to the server as the request's decision
 * (agents/codex_client.c).  A person answers with hbctl approve/decline,
 * or a phone through svc-alerts, as for a Claude run (docs/agents.md).
 *
 * The v2 file change request names no file: the file comes from the
 * fileChange item's item/started, which comes first, and is kept until its
 * item/completed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codex_bridge.h"
#include "codex_client.h"
#include "log.h"
#include "protocol.h"
#include "rpc_frame.h"

/* A card the broker holds for us: the server's request, to answer. */
struct card {
	char key[24];                   /* the broker request id, as text */
	json_t *rpcid;                  /* the server's JSON-RPC id */
	char *method;
};

/* A fileChange item that started: its first file. */
struct file_item {
	char *item;                     /* the map's key */
	char *path;
};

static void card_free(struct card *c)
{
	json_decref(c->rpcid);
	free(c->method);
	free(c);
}

static void answer(struct bridge *br, const json_t *rpcid, const char *method, int allow)
{
	json_t *ans = codex_answer_approval(rpcid, method, allow);

	if (!ans || rpc_frame_write(br->server.child.in, ans) < 0)
		log_warn(NULL, "cannot answer the server's %s", method);
	json_decref(ans);
}

void codex_approval_note(struct bridge *br, const json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	const json_t *item = json_object_get(json_object_get(msg, "params"), "item");
	const char *id = json_string_value(json_object_get(item, "id"));
	const char *type = json_string_value(json_object_get(item, "type"));
	const char *path = json_string_value(json_object_get(json_array_get(json_object_get(item, "changes"), 0), "path"));
	struct file_item *f;

	if (!br->once || !method || !id || !type || strcmp(type, "fileChange") != 0)
		return;
	if (strcmp(method, "item/completed") == 0 && (f = hb_map_del(&br->file_items, id))) {
		free(f->item);
		free(f->path);
		free(f);
	} else if (strcmp(method, "item/started") == 0 && path && !hb_map_get(&br->file_items, id)) {
		if (!(f = calloc(1, sizeof *f)) || !(f->item = strdup(id)) || !(f->path = strdup(path)) ||
		    hb_map_put(&br->file_items, f->item, f) < 0) {
			if (f) {
				free(f->item);
				free(f->path);
			}
			free(f);
		}
	}
}

int codex_approval_ask(struct bridge *br, const json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	const json_t *rpcid = json_object_get(msg, "id");
	const char *item = json_string_value(json_object_get(json_object_get(msg, "params"), "itemId"));
	const struct file_item *f = item ? hb_map_get(&br->file_items, item) : NULL;
	struct card *c = NULL;
	struct hb_env req;
	char err[256], *line = NULL;
	int64_t id;

	if (!method || !rpcid || !codex_is_approval(method))
		return 0;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CODEX_APPROVAL);
	if ((line = json_dumps(msg, JSON_COMPACT)))
		hb_env_set_str(&req, "json", line);
	if (f)
		hb_env_set_str(&req, "path", f->path);
	if (!line || !br->broker_ok || hb_client_send(&br->broker, &req, &id, err, sizeof err) < 0) {
		log_warn(NULL, "--once: declined the server's %s: HB Code's broker cannot hold its card", method);
		answer(br, rpcid, method, 0);
		free(line);
		return 1;
	}
	free(line);
	if (!(c = calloc(1, sizeof *c)) || !(c->method = strdup(method))) {
		log_error(NULL, "out of memory tracking an approval card");
		free(c);
		return 1;
	}
	snprintf(c->key, sizeof c->key, "%lld", (long long)id);
	c->rpcid = json_incref((json_t *)rpcid);
	if (hb_map_put(&br->approvals, c->key, c) < 0) {
		log_error(NULL, "out of memory tracking an approval card");
		card_free(c);
	}
	return 1;
}

int codex_approval_answer(struct bridge *br, int64_t id, const struct hb_env *reply)
{
	char key[32];
	struct card *c;
	const char *decision;
	json_t *d;
	int allow;

	snprintf(key, sizeof key, "%lld", (long long)id);
	if (!(c = hb_map_del(&br->approvals, key)))
		return 0;
	d = json_loads(hb_env_str_or(reply, "json", ""), 0, NULL);
	decision = json_string_value(json_object_get(d, "decision"));
	allow = decision && strcmp(decision, "allow") == 0;
	if (!d)
		log_warn(NULL, "the approval card was refused (%s); the server's %s is declined",
			 hb_env_str_or(reply, "err.msg", "no answer"), c->method);
	answer(br, c->rpcid, c->method, allow);
	json_decref(d);
	card_free(c);
	return 1;
}

void codex_approval_free(struct bridge *br)
{
	while (br->approvals.count)
		card_free(hb_map_del(&br->approvals, ((struct card *)hb_map_any(&br->approvals))->key));
	hb_map_clear(&br->approvals);
	while (br->file_items.count) {
		struct file_item *f = hb_map_del(&br->file_items, ((struct file_item *)hb_map_any(&br->file_items))->item);
		free(f->item);
		free(f->path);
		free(f);
	}
	hb_map_clear(&br->file_items);
}
