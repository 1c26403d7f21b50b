/*
 * launch - see launch.h.  A launch is "running" from its fork to its reap
 * (attached or not: its entry is in the broker's child table, children.h)
 * and "failed" after it ended without attaching: no new start until its
 * retry time, and its reason is kept for the answers about the next
 * start; one that attached is forgotten when it ends, since its session's
 * next message may start another.  The command line is agents/'
 * (launch_argv.h), the pipes child_pipes.c's; this file forks, waits for
 * the attach and times the retries.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "access.h"
#include "child.h"
#include "child_pipes.h"
#include "launch_argv.h"
#include "log.h"
#include "secrets.h"
#include "spawn.h"

#define REASON_MAX 1280         /* a failure: its sentence and the status fd's (CHILD_PIPES_STATUS_MAX) */
#define FORGET_MS 600000        /* a failure past its retry time is kept this long
				   for the next start's answer, then forgotten */

struct launch {
	char session[128];
	char agent[16];
	struct broker_child child;  /* its entry in the child table while it runs */
	struct child_pipes pipes;   /* its output and its status fd */
	long long started_ms, kill_at_ms, retry_at_ms;
	int attached, term_sent, overdue;
	char failure[REASON_MAX];   /* failed: the reason, until retry_at_ms */
	char previous[REASON_MAX];  /* the failure of the session's last start */
	struct launch *next;
};

/* Its pid while it runs (its entry is in the child table), else 0. */
static pid_t pid_of(const struct launch *l)
{
	return l->child.pprev ? l->child.pid : 0;
}

static struct launch *find(const struct broker *b, const char *session)
{
	for (struct launch *l = b->launches; l; l = l->next)
		if (strcmp(l->session, session) == 0)
			return l;
	return NULL;
}

static int running(const struct broker *b)
{
	return children_count(b, CHILD_LAUNCH);
}

static void unlink_launch(struct broker *b, struct launch *gone)
{
	for (struct launch **pp = &b->launches; *pp; pp = &(*pp)->next)
		if (*pp == gone) {
			*pp = gone->next;
			break;
		}
	children_remove(&gone->child);
	child_pipes_close(&gone->pipes);
	free(gone);
}

/* fork/exec the bridge of cmd for l, its status fd's number in
 * HB_STATUS_FD; 0, or -1 with the reason. */
static int start(struct broker *b, struct launch *l, const struct hb_launch_argv *cmd, char *reason, size_t len)
{
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC), out_w = -1, status_w = -1;
	char err[512], key[160], status_env[32];
	/* The agent must not take itself for a child of a Claude Code
	 * session the broker may have been started from. */
	char **env = hb_env_without_secrets(b->child_env, hb_claude_child_markers), **full = NULL;
	size_t n = 0;
	pid_t pid = -1;

	snprintf(key, sizeof key, "%s %s", l->agent, l->session);
	while (env && env[n])
		n++;
	if (!env || in < 0 || child_pipes_open(&l->pipes, key, &out_w, &status_w, err, sizeof err) < 0) {
		snprintf(err, sizeof err, "%s", env ? strerror(errno) : "out of memory");
		l->pipes.out = l->pipes.status = -1;
	} else if (!(full = calloc(n + 2, sizeof *full))) {
		snprintf(err, sizeof err, "out of memory");
	} else {
		memcpy(full, env, n * sizeof *full);
		snprintf(status_env, sizeof status_env, "HB_STATUS_FD=%d", status_w);
		full[n] = status_env;
		pid = child_start(&(struct child_exec){ .path = cmd->bridge, .argv = cmd->argv, .envp = full, .in = in,
							.out = out_w, .err = out_w, .keep = status_w,
							.flags = CHILD_OWN_GROUP | CHILD_DEFAULT_SIGNALS },
				  err, sizeof err);
	}
	free(full);
	free(env);
	if (in >= 0)
		close(in);
	if (out_w >= 0)
		close(out_w);
	if (status_w >= 0)
		close(status_w);
	if (pid < 0) {
		child_pipes_close(&l->pipes);
		snprintf(reason, len, "its %s agent cannot be started: %s", hb_agent_display_name(l->agent), err);
		return -1;
	}
	children_add(b, &l->child, pid, CHILD_LAUNCH, l);
	l->started_ms = broker_now_ms();
	return 0;
}

/* "its Codex agent is starting (pid N)", and why the last start failed:
 * a start that fails quickly must not hide its reason behind the next. */
static void say_starting(const struct launch *l, char *reason, size_t len)
{
	snprintf(reason, len, "its %s agent is starting (pid %ld)%s%s", hb_agent_display_name(l->agent),
		 (long)pid_of(l), l->previous[0] ? "; the last start: " : "", l->previous);
}

/* The answer while l exists; 1 when it said something (no new start),
 * 0 with the last failure in previous (a new start may go). */
static int answer_existing(struct broker *b, struct launch *l, char *reason, size_t len, char *previous,
			   size_t prevlen)
{
	long long now = broker_now_ms();

	if (pid_of(l) > 0 && l->attached) {
		snprintf(reason, len, "its %s agent (pid %ld) is ending; the next attempt starts it again",
			 hb_agent_display_name(l->agent), (long)pid_of(l));
		return 1;
	}
	if (pid_of(l) > 0) {
		say_starting(l, reason, len);
		return 1;
	}
	if (now < l->retry_at_ms) {
		snprintf(reason, len, "%s (tried again in %lld s)", l->failure, (l->retry_at_ms - now + 999) / 1000);
		return 1;
	}
	snprintf(previous, prevlen, "%s", l->failure);
	unlink_launch(b, l);
	return 0;
}

void launch_for_delivery(struct broker *b, const struct launch_request *r, char *reason, size_t len)
{
	struct launch *l = find(b, r->session);
	struct hb_launch_argv cmd;
	struct hb_launch_target t = { r->session, r->agent, r->link, r->access, r->project, NULL, r->model,
				      r->effort };
	char previous[REASON_MAX] = "", run[64];
	int claude = strcmp(r->agent, "claude") == 0;

	if (l && answer_existing(b, l, reason, len, previous, sizeof previous))
		return;
	if ((strcmp(r->agent, "codex") != 0 && !claude) || strlen(r->session) >= sizeof l->session) {
		snprintf(reason, len, "no bridge carries this session's agent now");
		return;
	}
	/* A Claude session without a conversation gets a new one (its
	 * bridge links it before the message goes in); a Codex thread is
	 * started only by the desktop, with the tools and settings it
	 * chooses. */
	if (!*r->link && !claude) {
		snprintf(reason, len, "this session has no Codex thread yet: open it once in HB Code");
		return;
	}
	if (hb_access_rank(r->access) < 0 || (claude && !*r->project)) {
		snprintf(reason, len, "its %s agent cannot be started: the session has no valid access level or project",
			 hb_agent_display_name(r->agent));
		return;
	}
	if (b->stopping) {
		snprintf(reason, len, "no bridge carries this session's agent, and hb-broker is stopping");
		return;
	}
	/* A bridge that served the broker before its restart attaches again
	 * within the attach expiry: a second one on the same thread would
	 * answer the same messages. */
	if (broker_now_ms() - b->started_ms < b->set.attach_ttl_ms) {
		snprintf(reason, len, "hb-broker has just started: a bridge that was running attaches again first");
		return;
	}
	if (running(b) >= LAUNCH_MAX) {
		snprintf(reason, len, "%d agents are starting or running headless already; its turn comes", LAUNCH_MAX);
		return;
	}
	if (claude) {
		snprintf(run, sizeof run, "launch-%ld-%u", (long)getpid(), ++b->launch_seq);
		t.run = run;
	}
	/* Said to the user through hbctl messages; svc-messages asks every
	 * few seconds, so the log gets it only with HB_LOG=debug. */
	if (hb_launch_argv(&b->paths, b->exe_dir, &t, &cmd, reason, len) < 0) {
		log_debug(r->session, "%s", reason);
		return;
	}
	if (!(l = calloc(1, sizeof *l))) {
		snprintf(reason, len, "its %s agent cannot be started: hb-broker is out of memory",
			 hb_agent_display_name(r->agent));
		return;
	}
	snprintf(l->session, sizeof l->session, "%s", r->session);
	snprintf(l->agent, sizeof l->agent, "%s", r->agent);
	snprintf(l->previous, sizeof l->previous, "%s", previous);
	if (start(b, l, &cmd, reason, len) < 0) {
		log_warn(r->session, "%s", reason);
		free(l);
		return;
	}
	l->next = b->launches;
	b->launches = l;
	log_info(r->session, "no bridge carries this session: started %s (pid %ld, %s, %s %s%s%s%s%s)", cmd.bridge,
		 (long)pid_of(l), r->access, claude ? "conversation" : "thread", *r->link ? r->link : "(a new one)",
		 *r->model ? ", model " : "", r->model, *r->effort ? ", effort " : "", r->effort);
	say_starting(l, reason, len);
}

void launch_attached(struct broker *b, const char *session, pid_t pid)
{
	struct launch *l = find(b, session);

	if (l && pid_of(l) > 0 && !l->attached && (!pid || pid == pid_of(l))) {
		l->attached = 1;
		log_info(session, "the %s bridge started for it (pid %ld) attached", hb_agent_display_name(l->agent),
			 (long)pid_of(l));
	}
}

void launch_ended(struct broker *b, struct launch *l, int status)
{
	pid_t pid = l->child.pid;
	const char *last;
	char how[160];

	describe_exit(status, how, sizeof how);
	child_pipes_close(&l->pipes);
	last = l->pipes.last;
	/* One that attached (and ended by itself, or was told to end) is
	 * forgotten: the session's next message may start another. */
	if (l->attached) {
		log_info(l->session, "the %s bridge started for it (pid %ld) %s", hb_agent_display_name(l->agent),
			 (long)pid, how);
		unlink_launch(b, l);
		return;
	}
	if (l->overdue)
		snprintf(l->failure, sizeof l->failure,
			 "its %s agent did not attach within %d s of its start, so it was stopped%s%s",
			 hb_agent_display_name(l->agent), b->set.launch_attach_ms / 1000, *last ? ": " : "", last);
	else
		snprintf(l->failure, sizeof l->failure, "its %s agent could not start: %s %s before it attached%s%s",
			 hb_agent_display_name(l->agent), hb_agent_bridge_name(l->agent), how, *last ? ": " : "", last);
	l->retry_at_ms = broker_now_ms() + b->set.launch_retry_ms;
	hb_log(l->term_sent ? HB_LOG_INFO : HB_LOG_WARN, l->session, "%s", l->failure);
}

void launch_tick(struct broker *b, long long now)
{
	for (struct launch *l = b->launches, *next; l; l = next) {
		next = l->next;
		if (pid_of(l) <= 0) {
			if (now >= l->retry_at_ms + FORGET_MS)
				unlink_launch(b, l);
			continue;
		}
		if (l->term_sent && now >= l->kill_at_ms) {
			log_warn(l->session, "the bridge started for it (pid %ld) did not end within %d ms of TERM; killing "
				 "its process group", (long)pid_of(l), b->set.stop_grace_ms);
			kill(-pid_of(l), SIGKILL);
			l->kill_at_ms = now + b->set.stop_grace_ms;
		} else if (!l->attached && !l->overdue && now - l->started_ms >= b->set.launch_attach_ms) {
			log_warn(l->session, "the bridge started for it (pid %ld) did not attach within %d ms; killing its "
				 "process group", (long)pid_of(l), b->set.launch_attach_ms);
			l->overdue = 1;
			kill(-pid_of(l), SIGKILL);
		}
	}
}

long long launch_next_deadline(const struct broker *b)
{
	long long d = 0, t;

	for (const struct launch *l = b->launches; l; l = l->next) {
		if (pid_of(l) <= 0)
			t = l->retry_at_ms + FORGET_MS;
		else if (l->term_sent)
			t = l->kill_at_ms;
		else if (!l->attached && !l->overdue)
			t = l->started_ms + b->set.launch_attach_ms;
		else
			continue;
		if (!d || t < d)
			d = t;
	}
	return d;
}

int launch_poll_fds(const struct broker *b, struct pollfd *fds, int max)
{
	int n = 0;

	for (const struct launch *l = b->launches; l && n < max; l = l->next)
		n += child_pipes_poll_fds(&l->pipes, fds + n, max - n);
	return n;
}

void launch_read(struct broker *b, int fd)
{
	for (struct launch *l = b->launches; l; l = l->next)
		if (child_pipes_read(&l->pipes, fd))
			return;
}

void launch_terminate_all(struct broker *b)
{
	long long now = broker_now_ms();

	for (struct launch *l = b->launches; l; l = l->next)
		if (pid_of(l) > 0 && !l->term_sent) {
			log_info(l->session, "stopping the bridge started for it (pid %ld)", (long)pid_of(l));
			kill(-pid_of(l), SIGTERM);
			l->term_sent = 1;
			l->kill_at_ms = now + b->set.stop_grace_ms;
		}
}

int launch_stop_bridge(struct broker *b, pid_t pid, const char *run)
{
	struct broker_child *e = pid > 0 ? children_find(b, pid, CHILD_LAUNCH) : NULL;
	struct launch *l = e ? e->owner : NULL;

	if (!l)
		return 0;
	if (l->term_sent)
		return 1;
	/* The bridge alone: it ends its turn the way it ends at any SIGTERM
	 * (a message's proof read, the host closed, the session detached);
	 * the group only if it overstays. */
	log_info(l->session, "run %s stopped: ending the bridge started for it (pid %ld)", run, (long)pid);
	kill(pid, SIGTERM);
	l->term_sent = 1;
	l->kill_at_ms = broker_now_ms() + b->set.stop_grace_ms;
	return 1;
}

int launch_all_exited(const struct broker *b)
{
	return running(b) == 0;
}

json_t *launch_status_json(const struct broker *b)
{
	json_t *list = json_array();
	long long now = broker_now_ms();

	for (const struct launch *l = b->launches; l && list; l = l->next) {
		const char *state = pid_of(l) <= 0 ? "failed" : l->term_sent ? "stopping" : l->attached ? "attached"
											       : "starting";
		json_t *o = json_pack("{s:s, s:s, s:s, s:I}", "session", l->session, "agent", l->agent, "state", state,
				      "startedMsAgo", (json_int_t)(now - l->started_ms));

		if (!o)
			continue;
		json_object_set_new(o, "pid", pid_of(l) > 0 ? json_integer(pid_of(l)) : json_null());
		if (pid_of(l) <= 0)
			json_object_set_new(o, "reason", json_string(l->failure));
		json_array_append_new(list, o);
	}
	return list;
}

void launch_free(struct broker *b)
{
	while (b->launches)
		unlink_launch(b, b->launches);
}
