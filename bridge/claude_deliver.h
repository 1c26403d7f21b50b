/*
 * claude_deliver - messages from other sessions into this run's Claude
 * conversation.  Claude cannot steer a running turn (page 003), so a
 * message waits until the host reports the session idle and then goes in
 * with the host's `send`, whose messageId (a UUID derived from the
 * operation id) becomes the transcript's user message uuid.
 *
 * The host's answer to `send` is no proof of delivery (page 003): a
 * message counts as delivered only once a read of the saved transcript
 * (the host's `history`) finds its uuid.  The first frame after the send
 * starts one read, a frame that names the message (user_message_uuid)
 * one more when the first came too early, and the end of the turn (idle),
 * of the run (the host failed; when the host is gone, a new one reads) or
 * of the bridge (read before the host is closed) the final one.  A message that no read finds is reported
 * `unconfirmed` and never sent again automatically.  A message an earlier
 * bridge took (`handed`) is looked for in the transcript before it goes
 * in, so a bridge that died before its report does not carry it twice.
 *
 * The run's own text goes first: after the open, messages wait until the
 * desktop's first `send` has been answered and the turn it started is
 * idle, or until the desktop has sent nothing for first_send_ms after
 * `opened` (a run opened only to receive messages).  Later, a message
 * never goes in while a `send` of the desktop waits for its answer.
 */
#ifndef HB_CLAUDE_DELIVER_H
#define HB_CLAUDE_DELIVER_H

#include <jansson.h>

#include "deliveries.h"

struct claude_deliver {
	struct deliveries dl;
	int host_in;                    /* -1 until the open succeeded */
	int busy;                       /* a turn runs (send .. idle) */
	int closing;
	struct delivery *working;       /* our send in flight */
	int first_pending;              /* the run's own first send has not had its turn */
	int desktop_sent;               /* the desktop has sent a `send` */
	int desktop_sends;              /* ... that the host has not answered yet */
	int first_send_ms;              /* how long a silent desktop holds messages back */
	long long first_deadline_ms;    /* after the open: deliver anyway from then on */
	char claude_session[64];        /* the conversation the reads look in */
	const char *cwd;

	/* The proof of the message that went in last (page 003). */
	struct delivery *proving;       /* accepted by the host, not found yet */
	char uuid[37];                  /* its message uuid */
	int saw_frame;                  /* the first frame after it started a read */
	int named;                      /* a frame named it: one more read started */
	int ended;                      /* its turn or the run ended: the next read is the last */
	char why_not[300];              /* why no read found it yet */
	int after_host;                 /* the live host's last read at the close did not
	                                 * find it: a new host reads once this one ended */

	/* The one transcript read in flight (for proving, or a handed one). */
	struct delivery *reading;
	int read_final;                 /* it started after the end */
	int read_again;                 /* a reason for one more came meanwhile */
	int pages, reloads;
};

void claude_deliver_init(struct claude_deliver *cd, struct hb_client *broker, const char *session,
			 int first_send_ms);
/* No desktop (hb-claude-bridge --once): no first prompt to wait for, so
 * messages go in as soon as the open is answered. */
void claude_deliver_headless(struct claude_deliver *cd);
/* 1 while a turn runs (a send's, until idle) or a delivery taken is not
 * done yet (waiting, or its send in flight). */
int claude_deliver_in_flight(struct claude_deliver *cd);
/* The host answered our open (conversation claude_session in cwd, both
 * kept for the reads): deliveries may start, after the desktop's first
 * turn or its silence. */
void claude_deliver_opened(struct claude_deliver *cd, int host_in, const char *claude_session, const char *cwd);
/* The desktop's `send` went to the host; its answer (ok), or its request
 * limit passed (ok = 0). */
void claude_deliver_desktop_send(struct claude_deliver *cd);
void claude_deliver_desktop_answered(struct claude_deliver *cd, int ok);
/* The run is closing: nothing more goes in, and the session is detached
 * once nothing waits for its proof.  1 when a message still waits for
 * its final transcript read: the caller keeps the host open until
 * claude_deliver_settled (or its patience ends), and the broker is told
 * that the outcome comes within the bridge's limits for the reads and
 * the host's close (request_ms, close_ms): meanwhile it starts no other
 * bridge for the session, which would carry the same message in. */
int claude_deliver_closing(struct claude_deliver *cd, int request_ms, int close_ms);
int claude_deliver_settled(const struct claude_deliver *cd);
/* The bridge closed the host's input: nothing more is written to it. */
void claude_deliver_host_closed(struct claude_deliver *cd);
/* The host's output ended: a message that waits for its proof gets its
 * final read from a new host (host_argv, within limit_ms; the broker is
 * told the outcome comes within that), and is reported delivered or
 * unconfirmed. */
void claude_deliver_host_gone(struct claude_deliver *cd, char *const host_argv[], int limit_ms);
/* The broker's `deliver`. */
void claude_deliver(struct claude_deliver *cd, const struct hb_env *e);
/* A line from the host: 1 when it answered our send or read (the desktop
 * never sees it); events are watched and passed on (0). */
int claude_deliver_from_host(struct claude_deliver *cd, json_t *msg);
/* A desktop request with a reserved id: refused on stdout (1). */
int claude_deliver_refuse(struct claude_deliver *cd, json_t *msg);
/* Before each wait: session.attach when due, and the end of the desktop's
 * silence after the open; ms until the next of them. */
long long claude_deliver_tick(struct claude_deliver *cd);
void claude_deliver_free(struct claude_deliver *cd);

#endif
