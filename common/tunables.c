/*
 * tunables - see tunables.h.  The table is the documentation: the list of
 * tunables is printed from it (hb-broker --help).
 */
#include "tunables.h"

#include "envvar.h"

const struct hb_tunable_def hb_tunables[HB_T_COUNT] = {
	[HB_T_HEARTBEAT_MS] = { "HB_HEARTBEAT_MS", 1000, 10, 60000, "hb-broker, services",
				"a service with calls in flight beats this often (the broker passes it on)" },
	[HB_T_HANG_MS] = { "HB_HANG_MS", -1, 0, 86400000, "hb-broker",
			   "no beat for this long with calls in flight: hung, killed (default 3 beats + 500 ms)" },
	[HB_T_START_TIMEOUT_MS] = { "HB_START_TIMEOUT_MS", 10000, 0, 86400000, "hb-broker",
				    "a started service must be ready within this" },
	[HB_T_CALL_WAIT_MS] = { "HB_CALL_WAIT_MS", 10000, 0, 86400000, "hb-broker",
				"a call waits this long for a restarting service" },
	[HB_T_HEALTHY_MS] = { "HB_HEALTHY_MS", 10000, 0, 86400000, "hb-broker",
			      "up this long: the backoff starts again" },
	[HB_T_BACKOFF_BASE_MS] = { "HB_BACKOFF_BASE_MS", 250, 0, 86400000, "hb-broker",
				   "the second restart waits this, doubling from there" },
	[HB_T_BACKOFF_CAP_MS] = { "HB_BACKOFF_CAP_MS", 30000, 0, 86400000, "hb-broker",
				  "the longest wait between restarts" },
	[HB_T_CRASHLOOP_AFTER] = { "HB_CRASHLOOP_AFTER", 5, 0, 86400000, "hb-broker",
				   "this many quick deaths in a row are a crash loop" },
	[HB_T_STOP_GRACE_MS] = { "HB_STOP_GRACE_MS", 5000, 0, 86400000, "hb-broker, services",
				 "TERM to KILL for a service; the service ends its calls within 3/5 of it" },
	[HB_T_SHUTDOWN_GRACE_MS] = { "HB_SHUTDOWN_GRACE_MS", 5000, 0, 86400000, "hb-broker",
				     "calls in flight get this long at SIGTERM" },
	[HB_T_ATTACH_TTL_MS] = { "HB_ATTACH_TTL_MS", 3500, 0, 86400000, "hb-broker, bridges",
				 "a bridge silent this long is gone; bridges attach 3 times within it" },
	[HB_T_CONCURRENCY] = { "HB_CONCURRENCY", 4, 1, 256, "services",
			       "worker threads (the broker sets it from the config)" },
	[HB_T_GEMINI_CONNECT_TIMEOUT_MS] = { "HB_GEMINI_CONNECT_TIMEOUT_MS", 10000, 10, 600000,
					     "svc-speech, svc-video", "connecting to Gemini" },
	[HB_T_GEMINI_TIMEOUT_MS] = { "HB_GEMINI_TIMEOUT_MS", 300000, 10, 3600000, "svc-speech, svc-video",
				     "one Gemini request, whole" },
	[HB_T_SPEECH_BACKOFF_MS] = { "HB_SPEECH_BACKOFF_MS", 1000, 1, 60000, "svc-speech",
				     "the first retry's wait, growing after" },
	[HB_T_VIDEO_BACKOFF_MS] = { "HB_VIDEO_BACKOFF_MS", 1000, 1, 60000, "svc-video",
				    "the first retry's wait, growing after" },
	[HB_T_VIDEO_CHUNK_BYTES] = { "HB_VIDEO_CHUNK_BYTES", 8 * 1024 * 1024, 256 * 1024, 64 * 1024 * 1024,
				     "svc-video", "bytes per upload request (rounded to 256 KiB)" },
	[HB_T_VIDEO_POLL_MS] = { "HB_VIDEO_POLL_MS", 1000, 1, 60000, "svc-video",
				 "the first look whether an upload is processed, doubling" },
	[HB_T_VIDEO_POLL_MAX_MS] = { "HB_VIDEO_POLL_MAX_MS", 10000, 1, 600000, "svc-video",
				     "the longest wait between those looks" },
	[HB_T_VIDEO_PROCESSING_MS] = { "HB_VIDEO_PROCESSING_MS", 900000, 1, 3600000, "svc-video",
				       "an upload must be processed within this" },
	[HB_T_VIDEO_ALLOW_LOOPBACK_PORT] = { "HB_VIDEO_ALLOW_LOOPBACK_PORT", 0, 1, 65535, "svc-video",
					     "tests only: the one loopback port a video URL may reach" },
	[HB_T_HOST_REQUEST_MS] = { "HB_HOST_REQUEST_MS", 35000, 1, 3600000, "hb-claude-bridge",
				   "the agent host answers a desktop request within this" },
	[HB_T_HOST_CLOSE_MS] = { "HB_HOST_CLOSE_MS", 10000, 1, 3600000, "hb-claude-bridge",
				 "the host ends after close within this, else its group is killed" },
	[HB_T_CLAUDE_FIRST_SEND_MS] = { "HB_CLAUDE_FIRST_SEND_MS", 10000, 0, 3600000, "hb-claude-bridge",
					"queued messages wait this long for the desktop's first prompt" },
	[HB_T_ALERTS_PING_MS] = { "HB_ALERTS_PING_MS", 20000, 100, 3600000, "svc-alerts",
				  "the relay link sends a WebSocket ping this often" },
	[HB_T_ALERTS_PONG_MS] = { "HB_ALERTS_PONG_MS", 10000, 100, 3600000, "svc-alerts",
				  "a ping with no pong within this counts the link as down" },
	[HB_T_ALERTS_READY_MS] = { "HB_ALERTS_READY_MS", 10000, 100, 3600000, "svc-alerts",
				   "the relay must answer hello with ready within this" },
	[HB_T_ALERTS_BACKOFF_MS] = { "HB_ALERTS_BACKOFF_MS", 500, 10, 3600000, "svc-alerts",
				     "the first wait before reconnecting a dropped link (doubles)" },
	[HB_T_ALERTS_BACKOFF_CAP_MS] = { "HB_ALERTS_BACKOFF_CAP_MS", 30000, 10, 3600000, "svc-alerts",
					 "the longest wait between reconnects" },
	[HB_T_BROWSER_CONNECT_MS] = { "HB_BROWSER_CONNECT_MS", 30000, 100, 600000, "svc-browser",
				      "connecting to Chrome, the user's approval of the connection included" },
	[HB_T_BROWSER_ACTION_MS] = { "HB_BROWSER_ACTION_MS", 10000, 100, 600000, "svc-browser",
				     "each step of an action (a click, a snapshot, a screenshot) ends within this" },
	[HB_T_BROWSER_LOAD_MS] = { "HB_BROWSER_LOAD_MS", 20000, 100, 600000, "svc-browser",
				   "a page opened or navigated must load within this" },
	[HB_T_ONCE_IDLE_MS] = { "HB_ONCE_IDLE_MS", 30000, 0, 86400000, "hb-codex-bridge, hb-claude-bridge",
				"--once: a bridge handed nothing this long after it attached ends" },
	[HB_T_LAUNCH_ATTACH_MS] = { "HB_LAUNCH_ATTACH_MS", 120000, 100, 86400000, "hb-broker",
				    "a bridge the broker started must attach within this, else it is killed" },
	[HB_T_LAUNCH_RETRY_MS] = { "HB_LAUNCH_RETRY_MS", 30000, 0, 86400000, "hb-broker",
				   "after a start that ended without attaching, the next start waits this" },
	[HB_T_WORKER_CANCEL_GRACE_MS] = { "HB_WORKER_CANCEL_GRACE_MS", 200, 0, 600000, "svc-explainer",
					  "a cancelled worker's turn must end this soon after its interrupt, else its "
					  "group is killed" },
};

int hb_tunable_or(enum hb_tunable t, int dflt)
{
	const struct hb_tunable_def *d = &hb_tunables[t];

	return hb_getenv_int(d->env, dflt, d->min, d->max);
}

int hb_tunable(enum hb_tunable t)
{
	return hb_tunable_or(t, hb_tunables[t].dflt);
}

void hb_tunables_print(FILE *out)
{
	for (int i = 0; i < HB_T_COUNT; i++) {
		const struct hb_tunable_def *d = &hb_tunables[i];
		char dflt[24];

		if (d->dflt < 0)
			snprintf(dflt, sizeof dflt, "derived");
		else
			snprintf(dflt, sizeof dflt, "%d", d->dflt);
		fprintf(out, "  %-30s %9s  %-22s %s\n", d->env, dflt, d->who, d->what);
	}
}
