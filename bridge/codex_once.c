/*
 * codex_once - hb-codex-bridge --once: the run the broker's launcher
 * starts for a session whose agent is not running (contract (2)).  There
 * is no caller: the bridge itself says initialize (experimentalApi, which
 * the hbcode dynamic tools need), initialized and thread/resume THREAD;
 * the resumed thread keeps the dynamicTools it was started with, so the
 * answer to the resume links the thread and attaches the session as a
 * desktop's resume would.  It ends (closes the server's input, as the end
 * of a caller's input does) when the turns its messages started have
 * ended and nothing waits, or when nothing was handed to it within
 * HB_ONCE_IDLE_MS of attaching.  An approval request of the server waits
 * as an approval card in the broker (codex_approval.c), as a launched
 * Claude run's does; any other request only a person could answer (a
 * question) gets an error: nobody is at the desktop.
 */
#include "codex_bridge.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "codex_client.h"
#include "log.h"
#include "rpc_frame.h"
#include "tunables.h"

#define INIT_ID "hbcode-once-initialize"
#define RESUME_ID "hbcode-once-resume"

static void end_input(struct bridge *br, const char *why)
{
	if (br->once_ending)
		return;
	log_info(NULL, "--once: %s; ending", why);
	br->once_ending = 1;
	if (br->server.child.in >= 0) {
		line_child_close_input(&br->server);
	}
}

static void send_json(struct bridge *br, json_t *v)
{
	if (v)
		(void)rpc_frame_write(br->server.child.in, v);
	json_decref(v);
}

void codex_once_start(struct bridge *br)
{
	br->once_idle_ms = hb_tunable(HB_T_ONCE_IDLE_MS);
	send_json(br, codex_initialize(json_string(INIT_ID), "hb_codex_bridge", "HB Code (headless)", "0.1.0"));
}

/* The thread at the level the broker approved (the turns the messages
 * start set it again, each for itself). */
static void resume(struct bridge *br)
{
	send_json(br, codex_initialized());
	send_json(br, codex_thread_resume(json_string(RESUME_ID), br->once_resume, br->once_access, br->once_model));
	log_info(NULL, "--once: resuming thread %s (%s%s%s)", br->once_resume, br->once_access,
		 br->once_model ? ", model " : "", br->once_model ? br->once_model : "");
}

int codex_once_from_server(struct bridge *br, json_t *msg)
{
	const char *id = json_string_value(json_object_get(msg, "id"));
	const char *method = json_string_value(json_object_get(msg, "method"));
	const char *why = rpc_error_message(msg, NULL);

	if (!method && id && strcmp(id, INIT_ID) == 0) {
		if (why) {
			log_error(NULL, "codex app-server refused initialize: %s", why);
			br->once_failed = 1;
			end_input(br, "it cannot go on without initialize");
		} else {
			resume(br);
		}
		return 1;
	}
	if (!method && id && strcmp(id, RESUME_ID) == 0 && why) {
		log_error(NULL, "cannot resume thread %s: %s", br->once_resume, why);
		br->once_failed = 1;
		end_input(br, "the thread cannot be resumed");
		return 1;
	}
	/* The answer to the resume goes on to codex.c, which links the
	 * thread and so attaches the session. */
	/* An approval waits as a card in the broker for a person to answer. */
	if (method && codex_approval_ask(br, msg))
		return 1;
	if (method && json_object_get(msg, "id") && strcmp(method, "item/tool/call") != 0) {
		json_t *err = rpc_error_answer(json_object_get(msg, "id"), -32000,
					       "HB Code runs this session without its window: nobody is there to "
					       "answer this request");
		log_warn(NULL, "--once: refused the server's %s: nobody is at the desktop", method);
		send_json(br, err);
		return 1;
	}
	return 0;
}

/* Nothing runs or waits: the turns it started are over. */
static int idle(const struct bridge *br)
{
	return !br->working && !br->turn[0] && !br->runs && !br->dl.queue && !br->links_pending;
}

long long codex_once_tick(struct bridge *br)
{
	long long now = hb_monotonic_ms(), left;

	if (br->once_ending)
		return -1;
	if (!br->once_since_ms && br->dl.attached)
		br->once_since_ms = now;
	if (!br->once_since_ms)
		return -1;
	if (!br->handed) {
		if ((left = br->once_since_ms + br->once_idle_ms - now) > 0)
			return left;
		end_input(br, "nothing was handed to it since it attached");
		return -1;
	}
	if (idle(br))
		end_input(br, "the turns of its messages have ended and no message waits");
	return -1;
}
