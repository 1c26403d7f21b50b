/*
 * fuzz_toolargs - the argument checks of every tool.  The first byte
 * picks the tool, the rest is the arguments' JSON text, parsed as the
 * service skeleton parses it (hb_json_parse_object) and handed to that
 * tool's own checks, without the work: no speech, no video, no message
 * sent, no browser.
 *
 * svc-sessions checks as it reads and writes, so its tools run whole on
 * a fresh in-memory appdata database (the real schema, nothing on disk).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../svc-alerts/alert.h"
#include "../../svc-browser/tool.h"
#include "../../svc-explainer/explain.h"
#include "../../svc-messages/send.h"
#include "../../svc-sessions/session_info.h"
#include "../../svc-sessions/session_lookup.h"
#include "../../svc-sessions/session_manage.h"
#include "../../svc-sessions/thread_links.h"
#include "../../svc-speech/speech_args.h"
#include "../../svc-video/video_args.h"
#include "appdata.h"
#include "fuzz.h"
#include "json.h"

enum tool {
	MAINTAIN_SESSIONS, MANAGE_SESSIONS, RESOLVE_THREAD, LINK_THREAD, LINK_CLAUDE, SESSION_INFO,
	SYNTHESIZE_SPEECH, EXTRACT_VIDEO_CONTEXT, SEND_SESSION_MESSAGE, SEND_MOBILE_NOTIFICATION,
	USE_USER_BROWSER, CREATE_EXPLAINER_VIDEO, NTOOLS
};

/* A call from an agent's run, as the broker would bind it. */
static const struct hb_call_context agent_call = {
	"k-1", "send_session_message", "s-sender", "r-1", "/tmp", "codex", "full-auto", "call_1", "",
};

/* The sessions' tools on a fresh database; the answer is freed. */
static void sessions_tool(enum tool t, const json_t *args, int as_agent)
{
	const struct session_caller caller = { as_agent, as_agent ? "read-only" : "" };
	char err[1024];
	const char *code = NULL;
	json_t *out = NULL;
	sqlite3 *db = appdata_open_rw(":memory:", err, sizeof err);

	if (!db)
		abort();
	switch (t) {
	case MAINTAIN_SESSIONS: out = session_lookup_run(db, args, "/tmp", err, sizeof err); break;
	case MANAGE_SESSIONS: out = session_manage_run(db, args, &caller, err, sizeof err); break;
	case RESOLVE_THREAD: out = thread_links_resolve(db, args, &code, err, sizeof err); break;
	case LINK_THREAD: out = thread_links_link_thread(db, args, err, sizeof err); break;
	case LINK_CLAUDE: out = thread_links_link_claude(db, args, &code, err, sizeof err); break;
	case SESSION_INFO: out = session_info_run(db, args, err, sizeof err); break;
	default: abort();
	}
	json_decref(out);
	appdata_close(db);
}

static void check(enum tool t, const json_t *args, unsigned flags)
{
	struct speech_args sa;
	struct video_args va;
	const char *a, *b;
	char err[1024];

	switch (t) {
	case SYNTHESIZE_SPEECH:
		/* The whole text is spoken: a NUL inside would cut it short. */
		if (speech_args_parse(args, &sa, err, sizeof err) == 0 &&
		    json_string_length(json_object_get(args, "text")) != sa.text_len)
			abort();
		break;
	case EXTRACT_VIDEO_CONTEXT:
		(void)video_args_parse(args, &va, err, sizeof err);
		break;
	case SEND_SESSION_MESSAGE:
		(void)send_check_call(&agent_call, args, &a, &b, err, sizeof err);
		break;
	case SEND_MOBILE_NOTIFICATION:
		(void)alert_check_args(args, &a, &b, err, sizeof err);
		break;
	case USE_USER_BROWSER:
		(void)browser_check_args(args, &a, err, sizeof err);
		break;
	case CREATE_EXPLAINER_VIDEO:
		(void)explain_check_args(args, err, sizeof err);
		break;
	default:
		sessions_tool(t, args, flags & 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *args;
	char err[1024];

	if (size < 1)
		return 0;
	args = hb_json_parse_object((const char *)data + 1, size - 1, err, sizeof err);
	if (!args)
		return 0;
	check((enum tool)((data[0] & 0x7f) % NTOOLS), args, data[0] >> 7);
	json_decref(args);
	return 0;
}
