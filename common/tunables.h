/*
 * tunables - every timing and limit that a process reads from an HB_*
 * environment variable, with its default, its range and who reads it, in
 * one table.  `hb-broker --help` prints it; tests set them small.
 *
 * Timings that two processes must agree on are coupled here, not by two
 * constants that happen to match: the broker passes its heartbeat and its
 * stop grace to each service it starts (a service stops its own calls
 * well inside the grace), and tells each client its attach expiry in the
 * answer to hello (a bridge attaches three times within it).
 */
#ifndef HB_TUNABLES_H
#define HB_TUNABLES_H

#include <stdio.h>

enum hb_tunable {
	/* hb-broker */
	HB_T_HEARTBEAT_MS,
	HB_T_HANG_MS,
	HB_T_START_TIMEOUT_MS,
	HB_T_CALL_WAIT_MS,
	HB_T_HEALTHY_MS,
	HB_T_BACKOFF_BASE_MS,
	HB_T_BACKOFF_CAP_MS,
	HB_T_CRASHLOOP_AFTER,
	HB_T_STOP_GRACE_MS,
	HB_T_SHUTDOWN_GRACE_MS,
	HB_T_ATTACH_TTL_MS,
	/* every service (set by the broker) */
	HB_T_CONCURRENCY,
	/* the Gemini client (svc-speech, svc-video) */
	HB_T_GEMINI_CONNECT_TIMEOUT_MS,
	HB_T_GEMINI_TIMEOUT_MS,
	HB_T_SPEECH_BACKOFF_MS,
	HB_T_VIDEO_BACKOFF_MS,
	HB_T_VIDEO_CHUNK_BYTES,
	HB_T_VIDEO_POLL_MS,
	HB_T_VIDEO_POLL_MAX_MS,
	HB_T_VIDEO_PROCESSING_MS,
	HB_T_VIDEO_ALLOW_LOOPBACK_PORT,
	/* hb-claude-bridge */
	HB_T_HOST_REQUEST_MS,
	HB_T_HOST_CLOSE_MS,
	HB_T_CLAUDE_FIRST_SEND_MS,
	/* svc-alerts' link to the relay */
	HB_T_ALERTS_PING_MS,
	HB_T_ALERTS_PONG_MS,
	HB_T_ALERTS_READY_MS,
	HB_T_ALERTS_BACKOFF_MS,
	HB_T_ALERTS_BACKOFF_CAP_MS,
	/* svc-browser */
	HB_T_BROWSER_CONNECT_MS,
	HB_T_BROWSER_ACTION_MS,
	HB_T_BROWSER_LOAD_MS,
	HB_T_ONCE_IDLE_MS,
	HB_T_LAUNCH_ATTACH_MS,
	HB_T_LAUNCH_RETRY_MS,
	/* svc-explainer's worker */
	HB_T_WORKER_CANCEL_GRACE_MS,
	HB_T_COUNT
};

struct hb_tunable_def {
	const char *env;       /* the variable */
	int dflt;              /* -1: derived from others (said in what) */
	int min, max;          /* a value outside is ignored: the default counts */
	const char *who;       /* the process that reads it */
	const char *what;
};

extern const struct hb_tunable_def hb_tunables[HB_T_COUNT];

/* The variable's value when it is a whole number in range, else dflt
 * (for a tunable whose default is derived), else the table's default. */
int hb_tunable_or(enum hb_tunable t, int dflt);
int hb_tunable(enum hb_tunable t);
/* The table as text, one tunable a line. */
void hb_tunables_print(FILE *out);

#endif
