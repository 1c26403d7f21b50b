/*
 * launch - the launcher: a session whose agent no bridge carries gets one
 * started by the broker itself, headless (page 000: "A recipient that does
 * not run starts a turn for it"; hbcode-tools also runs without the
 * desktop).  When a delivery finds no attached bridge, deliver.c asks
 * here; the answer is always "offline" with a reason a person can act on
 * (starting, no thread yet, the agent cannot be started and why), which
 * svc-messages keeps as the message's last error for hbctl messages.  The
 * bridge attaches like any other (session.attached makes its messages due
 * at once), carries them in and ends by itself (--once).
 *
 * One launch per session at a time, each in its own process group, stdin
 * /dev/null, its output in the broker's log, line by line with the
 * session as the key, and a status fd (HB_STATUS_FD, child_pipes.h) on
 * which it says why it fails; in the broker's child table (children.h)
 * and reaped by its one reaper, killed when
 * it does not attach within HB_LAUNCH_ATTACH_MS, ended (TERM to its group,
 * KILL after the stop grace) when the broker stops.  A launch that ended
 * without attaching is remembered: its reason is the answer, and the next
 * start waits HB_LAUNCH_RETRY_MS (a broken install is no restart loop).
 */
#ifndef HB_LAUNCH_H
#define HB_LAUNCH_H

#include <jansson.h>
#include <poll.h>
#include <sys/types.h>

#include "broker.h"

#define LAUNCH_MAX 32           /* bridges starting or running at once */

/* What a delivery knows of its recipient (svc-messages reads appdata.db). */
struct launch_request {
	const char *session;
	const char *agent;      /* codex | claude */
	const char *link;       /* its Codex thread or Claude conversation, or "" */
	const char *access;     /* the level the hold rules approved */
	const char *project;
	const char *model;      /* the session's model and effort, or "" */
	const char *effort;
};

/* No bridge carries r->session: start one unless one is running, or say
 * why none can start.  reason: the sentence of the "offline" answer. */
void launch_for_delivery(struct broker *b, const struct launch_request *r, char *reason, size_t len);
/* A bridge attached for session (pid: the peer's, 0 when unknown). */
void launch_attached(struct broker *b, const char *session, pid_t pid);
/* Launch l's bridge ended with wait status (broker_reap, the one
 * reaper): forgotten when it had attached, else remembered as failed with
 * the last sentence of its status fd as the reason. */
void launch_ended(struct broker *b, struct launch *l, int status);
/* Kill launches past their limits; forget old failures. */
void launch_tick(struct broker *b, long long now);
long long launch_next_deadline(const struct broker *b);
/* The launches' output and status pipes to poll (at most max); how many. */
int launch_poll_fds(const struct broker *b, struct pollfd *fds, int max);
/* Read a launch's output or status from fd (readable or closed). */
void launch_read(struct broker *b, int fd);
/* Shutdown: TERM every launch's group (KILL after the grace). */
void launch_terminate_all(struct broker *b);
/* A run whose opener (pid) is a bridge the broker started was stopped:
 * nobody else can interrupt its turn, so the bridge is told to end
 * (SIGTERM, the group killed after the stop grace).  1 when pid is one. */
int launch_stop_bridge(struct broker *b, pid_t pid, const char *run);
int launch_all_exited(const struct broker *b);
/* [{session, agent, pid, state, startedMsAgo, ...}] for status. */
json_t *launch_status_json(const struct broker *b);
void launch_free(struct broker *b);

#endif
