/*
 * claude_link - see claude_link.h.  The one refusal the bridge must act on (another
 * session owns the Claude conversation) comes from svc-sessions with the
 * typed code HB_FAIL_LINK_TAKEN (common/fail_codes.h) and is answered
 * with the error code "conflict".
 */
#include "claude_link.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail_codes.h"
#include "log.h"
#include "reply.h"
#include "route.h"
#include "runs.h"
#include "protocol.h"
#include "opfields.h"

struct link_wait {
	struct hb_peer peer;
	struct reqid id;
	char run[128];
};

static void link_done(struct broker *b, void *arg, int ok, const char *code, const char *text)
{
	struct link_wait *w = arg;

	if (ok) {
		log_info(w->run, "Claude conversation linked: %s", text);
		front_reply_ok(b, &w->peer, &w->id, text);
	} else {
		log_warn(w->run, "Claude conversation not linked: %s", text);
		front_reply_err(b, &w->peer, &w->id, code && strcmp(code, HB_FAIL_LINK_TAKEN) == 0 ? "conflict" : "link",
				text);
	}
	free(w);
}

void link_claude(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *claude = hb_req_str(e, "claudeSessionId");
	struct run *r = runs_of_peer(b, peer);
	struct link_wait *w = NULL;
	char *args = NULL;
	struct reqid id;
	json_t *a;

	reqid_from_env(&id, e);
	if (!r || strcmp(r->agent, "claude") != 0 || !*claude) {
		front_reply_err(b, peer, &id, "bad-request",
				"claude.link needs \"claudeSessionId\", on the connection that opened the Claude run");
		return;
	}
	if (b->stopping) {
		front_reply_err(b, peer, &id, "stopping", "hb-broker is shutting down");
		return;
	}
	a = json_pack("{s:s, s:s}", "sessionId", r->session, "claudeSessionId", claude);
	if (a && (args = json_dumps(a, JSON_COMPACT)) && (w = calloc(1, sizeof *w))) {
		w->peer = *peer;
		w->id = id;
		snprintf(w->run, sizeof w->run, "%s", r->id);
	}
	json_decref(a);
	if (!w || route_internal(b, HB_TOOL_LINK_CLAUDE, args, link_done, w) < 0)
		front_reply_err(b, peer, &id, w ? "unavailable" : "internal",
				w ? "the session service is not running, so the Claude conversation is not linked"
				  : "hb-broker is out of memory");
	else
		w = NULL;
	free(w);
	free(args);
}
