/*
 * launch - see launch.h.  A launch is "running" from its fork to its reap
 * (attached or not) and "failed" after it ended without attaching: no
 * new start until its retry time, and its reason is kept for the answers
 * about the next start; one that attached is forgotten when it ends,
 * since its session's next message may start another.  The checks before a start
 * (a thread to resume, the agent's program, the bridge's) are the ones
 * whose failure a person must fix, so each says what to do.
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
#include "agent_cmd.h"
#include "log.h"
#include "program_path.h"
#include "secrets.h"
#include "settings.h"
#include "spawn.h"

#define LAUNCH_MAX 32           /* bridges starting or running at once */
#define LINE_MAX_BYTES 2048     /* a longer line of output is logged in pieces */
#define FORGET_MS 600000        /* a failure past its retry time is kept this long
				   for the next start's answer, then forgotten */

struct launch {
	char session[128];
	char agent[16];
	char key[160];              /* the log key of its lines: "codex s-..." */
	pid_t pid;                  /* 0 once reaped */
	int out;                    /* its output, -1 once closed */
	char buf[LINE_MAX_BYTES];
	size_t len;
	char last_error[512];       /* the text of its last error line */
	long long started_ms, kill_at_ms, retry_at_ms;
	int attached, term_sent, overdue;
	char failure[768];          /* failed: the reason, until retry_at_ms */
	char previous[768];         /* the failure of the session's last start */
	struct launch *next;
};

static const char *agent_name(const char *agent)
{
	return strcmp(agent, "claude") == 0 ? "Claude" : "Codex";
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
	int n = 0;

	for (const struct launch *l = b->launches; l; l = l->next)
		n += l->pid > 0;
	return n;
}

static void unlink_launch(struct broker *b, struct launch *gone)
{
	for (struct launch **pp = &b->launches; *pp; pp = &(*pp)->next)
		if (*pp == gone) {
			*pp = gone->next;
			break;
		}
	if (gone->out >= 0)
		close(gone->out);
	free(gone);
}

/* One line of its output into the broker's log; an error line's text is
 * kept as the reason of a start that fails. */
static void log_line(struct launch *l, char *line)
{
	const char *level = strchr(line, ' ');
	const char *text;

	hb_log(HB_LOG_INFO, l->key, "%s", line);
	/* "TIME error PROCESS[PID] [KEY] text": the text alone. */
	if (level && strncmp(level, " error ", 7) == 0 && (text = strstr(level, "] ")))
		snprintf(l->last_error, sizeof l->last_error, "%s", text + 2);
}

/* Read what is there; at the end of the output, close it. */
static void drain(struct launch *l)
{
	for (;;) {
		ssize_t n = read(l->out, l->buf + l->len, sizeof l->buf - 1 - l->len);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno != EAGAIN) {
				if (l->len) {
					l->buf[l->len] = '\0';
					log_line(l, l->buf);
					l->len = 0;
				}
				close(l->out);
				l->out = -1;
			}
			return;
		}
		l->len += (size_t)n;
		l->buf[l->len] = '\0';
		while ((nl = strchr(l->buf, '\n'))) {
			*nl = '\0';
			log_line(l, l->buf);
			l->len -= (size_t)(nl + 1 - l->buf);
			memmove(l->buf, nl + 1, l->len + 1);
		}
		if (l->len == sizeof l->buf - 1) {
			log_line(l, l->buf);
			l->len = 0;
		}
	}
}

/* The bridge next to hb-broker; 0, or -1 with the reason. */
static int bridge_path(const struct broker *b, const char *agent, char *out, size_t outlen, char *reason,
		       size_t len)
{
	const char *name = strcmp(agent, "claude") == 0 ? "hb-claude-bridge" : "hb-codex-bridge";

	if ((size_t)snprintf(out, outlen, "%s/%s", b->exe_dir, name) >= outlen || access(out, X_OK) < 0) {
		snprintf(reason, len, "its %s agent cannot be started: %s is not installed next to hb-broker (in %s)",
			 agent_name(agent), name, b->exe_dir);
		return -1;
	}
	return 0;
}

#define MAX_ARGS (16 + HB_AGENT_HOST_ARGS_MAX)

/* A bridge's command line (contract (2)), the strings it points to with
 * it; codex_command and claude_command fill it in and return the number
 * of words, or -1 with the reason. */
struct command {
	char *argv[MAX_ARGS + 1];
	char bridge[HB_PATH_MAX], program[HB_PATH_MAX], run[64], words[HB_AGENT_HOST_LINE_MAX];
};

static int codex_command(struct broker *b, const struct launch_request *r, struct command *c, char *reason,
			 size_t len)
{
	char err[HB_AGENT_PROGRAM_ERR_MAX];
	int n = 0;

	if (agent_program(&b->paths, c->program, sizeof c->program, err, sizeof err) < 0) {
		snprintf(reason, len, "its Codex agent cannot be started: %s", err);
		return -1;
	}
	if (bridge_path(b, "codex", c->bridge, sizeof c->bridge, reason, len) < 0)
		return -1;
	c->argv[n++] = c->bridge;
	c->argv[n++] = "--session";
	c->argv[n++] = (char *)r->session;
	c->argv[n++] = "--resume";
	c->argv[n++] = (char *)r->link;
	c->argv[n++] = "--access";
	c->argv[n++] = (char *)r->access;
	c->argv[n++] = "--once";
	c->argv[n++] = "--";
	c->argv[n++] = c->program;
	c->argv[n++] = "app-server";
	c->argv[n] = NULL;
	return n;
}

static int claude_command(struct broker *b, const struct launch_request *r, struct command *c, char *reason,
			  size_t len)
{
	char *host[HB_AGENT_HOST_ARGS_MAX + 1], err[512];
	int n = 0;

	if (hb_agent_host_argv(&b->paths, b->exe_dir, c->words, sizeof c->words, host, err, sizeof err) < 0) {
		snprintf(reason, len, "its Claude agent cannot be started: %s", err);
		return -1;
	}
	if (!hb_find_program(host[0], c->program, sizeof c->program)) {
		snprintf(reason, len, "its Claude agent cannot be started: %s (the agent host's program) was not found; "
			 "install it, or give the host's command line: hbctl settings agent-host set LINE (or "
			 "HB_AGENT_HOST)", host[0]);
		return -1;
	}
	if (bridge_path(b, "claude", c->bridge, sizeof c->bridge, reason, len) < 0)
		return -1;
	snprintf(c->run, sizeof c->run, "launch-%ld-%u", (long)getpid(), ++b->launch_seq);
	c->argv[n++] = c->bridge;
	c->argv[n++] = "--session";
	c->argv[n++] = (char *)r->session;
	c->argv[n++] = "--run";
	c->argv[n++] = c->run;
	c->argv[n++] = "--project";
	c->argv[n++] = (char *)r->project;
	c->argv[n++] = "--access";
	c->argv[n++] = (char *)r->access;
	c->argv[n++] = "--claude-session";
	c->argv[n++] = (char *)r->link;
	c->argv[n++] = "--once";
	c->argv[n++] = "--";
	for (int i = 0; host[i]; i++)
		c->argv[n++] = host[i];
	c->argv[n] = NULL;
	return n;
}

/* fork/exec the bridge of cmd for l; 0, or -1 with the reason. */
static int start(struct broker *b, struct launch *l, struct command *cmd, char *reason, size_t len)
{
	int out[2] = { -1, -1 }, in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char err[512];
	char **env = hb_env_without_secrets(b->child_env, hb_claude_child_markers);
	pid_t pid = -1;

	/* The agent must not take itself for a child of a Claude Code
	 * session the broker may have been started from. */
	if (!env || in < 0 || pipe(out) < 0 || fcntl(out[0], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(out[1], F_SETFD, FD_CLOEXEC) < 0 || fcntl(out[0], F_SETFL, O_NONBLOCK) < 0)
		snprintf(err, sizeof err, "%s", env ? strerror(errno) : "out of memory");
	else
		pid = spawn_process(cmd->bridge, cmd->argv, env, in, out[1], err, sizeof err);
	free(env);
	if (in >= 0)
		close(in);
	if (out[1] >= 0)
		close(out[1]);
	if (pid < 0) {
		if (out[0] >= 0)
			close(out[0]);
		snprintf(reason, len, "its %s agent cannot be started: %s", agent_name(l->agent), err);
		return -1;
	}
	l->pid = pid;
	l->out = out[0];
	l->started_ms = broker_now_ms();
	return 0;
}

/* "its Codex agent is starting (pid N)", and why the last start failed:
 * a start that fails quickly must not hide its reason behind the next. */
static void say_starting(const struct launch *l, char *reason, size_t len)
{
	snprintf(reason, len, "its %s agent is starting (pid %ld)%s%s", agent_name(l->agent), (long)l->pid,
		 l->previous[0] ? "; the last start: " : "", l->previous);
}

/* The answer while l exists; 1 when it said something (no new start),
 * 0 with the last failure in previous (a new start may go). */
static int answer_existing(struct broker *b, struct launch *l, char *reason, size_t len, char *previous,
			   size_t prevlen)
{
	long long now = broker_now_ms();

	if (l->pid > 0 && l->attached) {
		snprintf(reason, len, "its %s agent (pid %ld) is ending; the next attempt starts it again",
			 agent_name(l->agent), (long)l->pid);
		return 1;
	}
	if (l->pid > 0) {
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
	struct command cmd;
	char previous[768] = "";
	int claude = strcmp(r->agent, "claude") == 0;

	if (l && answer_existing(b, l, reason, len, previous, sizeof previous))
		return;
	if ((strcmp(r->agent, "codex") != 0 && !claude) || strlen(r->session) >= sizeof l->session) {
		snprintf(reason, len, "no bridge carries this session's agent now");
		return;
	}
	if (!*r->link) {
		snprintf(reason, len, claude ? "this session has no Claude conversation yet: open it once in HB Code"
					     : "this session has no Codex thread yet: open it once in HB Code");
		return;
	}
	if (hb_access_rank(r->access) < 0 || (claude && !*r->project)) {
		snprintf(reason, len, "its %s agent cannot be started: the session has no valid access level or project",
			 agent_name(r->agent));
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
	/* Said to the user through hbctl messages; svc-messages asks every
	 * few seconds, so the log gets it only with HB_LOG=debug. */
	if ((claude ? claude_command(b, r, &cmd, reason, len) : codex_command(b, r, &cmd, reason, len)) < 0) {
		log_debug(r->session, "%s", reason);
		return;
	}
	if (!(l = calloc(1, sizeof *l))) {
		snprintf(reason, len, "its %s agent cannot be started: hb-broker is out of memory", agent_name(r->agent));
		return;
	}
	snprintf(l->session, sizeof l->session, "%s", r->session);
	snprintf(l->agent, sizeof l->agent, "%s", r->agent);
	snprintf(l->key, sizeof l->key, "%s %s", r->agent, r->session);
	snprintf(l->previous, sizeof l->previous, "%s", previous);
	l->out = -1;
	if (start(b, l, &cmd, reason, len) < 0) {
		log_warn(r->session, "%s", reason);
		free(l);
		return;
	}
	l->next = b->launches;
	b->launches = l;
	log_info(r->session, "no bridge carries this session: started %s (pid %ld, %s, %s %s)", cmd.bridge,
		 (long)l->pid, r->access, claude ? "conversation" : "thread", r->link);
	say_starting(l, reason, len);
}

void launch_attached(struct broker *b, const char *session, pid_t pid)
{
	struct launch *l = find(b, session);

	if (l && l->pid > 0 && !l->attached && (!pid || pid == l->pid)) {
		l->attached = 1;
		log_info(session, "the %s bridge started for it (pid %ld) attached", agent_name(l->agent),
			 (long)l->pid);
	}
}

int launch_reaped(struct broker *b, pid_t pid, int status)
{
	struct launch *l;
	char how[160];

	for (l = b->launches; l && l->pid != pid; l = l->next)
		;
	if (!l || pid <= 0)
		return 0;
	describe_exit(status, how, sizeof how);
	if (l->out >= 0)
		drain(l);
	if (l->out >= 0) {
		/* What it left in the pipe is read; the rest (a grandchild
		 * still writing) is not waited for. */
		close(l->out);
		l->out = -1;
	}
	l->pid = 0;
	/* One that attached (and ended by itself, or was told to end) is
	 * forgotten: the session's next message may start another. */
	if (l->attached) {
		log_info(l->session, "the %s bridge started for it (pid %ld) %s", agent_name(l->agent), (long)pid, how);
		unlink_launch(b, l);
		return 1;
	}
	if (l->overdue)
		snprintf(l->failure, sizeof l->failure,
			 "its %s agent did not attach within %d s of its start, so it was stopped%s%s",
			 agent_name(l->agent), b->set.launch_attach_ms / 1000, l->last_error[0] ? ": " : "",
			 l->last_error);
	else
		snprintf(l->failure, sizeof l->failure, "its %s agent could not start: %s %s before it attached%s%s",
			 agent_name(l->agent), strcmp(l->agent, "claude") == 0 ? "hb-claude-bridge" : "hb-codex-bridge",
			 how, l->last_error[0] ? ": " : "", l->last_error);
	l->retry_at_ms = broker_now_ms() + b->set.launch_retry_ms;
	hb_log(l->term_sent ? HB_LOG_INFO : HB_LOG_WARN, l->session, "%s", l->failure);
	return 1;
}

void launch_tick(struct broker *b, long long now)
{
	for (struct launch *l = b->launches, *next; l; l = next) {
		next = l->next;
		if (l->pid <= 0) {
			if (now >= l->retry_at_ms + FORGET_MS)
				unlink_launch(b, l);
			continue;
		}
		if (l->term_sent && now >= l->kill_at_ms) {
			log_warn(l->session, "the bridge started for it (pid %ld) did not end within %d ms of TERM; killing "
				 "its process group", (long)l->pid, b->set.stop_grace_ms);
			kill(-l->pid, SIGKILL);
			l->kill_at_ms = now + b->set.stop_grace_ms;
		} else if (!l->attached && !l->overdue && now - l->started_ms >= b->set.launch_attach_ms) {
			log_warn(l->session, "the bridge started for it (pid %ld) did not attach within %d ms; killing its "
				 "process group", (long)l->pid, b->set.launch_attach_ms);
			l->overdue = 1;
			kill(-l->pid, SIGKILL);
		}
	}
}

long long launch_next_deadline(const struct broker *b)
{
	long long d = 0, t;

	for (const struct launch *l = b->launches; l; l = l->next) {
		if (l->pid <= 0)
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
		if (l->out >= 0)
			fds[n++] = (struct pollfd){ .fd = l->out, .events = POLLIN };
	return n;
}

void launch_read(struct broker *b, int fd)
{
	for (struct launch *l = b->launches; l; l = l->next)
		if (l->out == fd) {
			drain(l);
			return;
		}
}

void launch_terminate_all(struct broker *b)
{
	long long now = broker_now_ms();

	for (struct launch *l = b->launches; l; l = l->next)
		if (l->pid > 0 && !l->term_sent) {
			log_info(l->session, "stopping the bridge started for it (pid %ld)", (long)l->pid);
			kill(-l->pid, SIGTERM);
			l->term_sent = 1;
			l->kill_at_ms = now + b->set.stop_grace_ms;
		}
}

int launch_stop_bridge(struct broker *b, pid_t pid, const char *run)
{
	for (struct launch *l = b->launches; l && pid > 0; l = l->next)
		if (l->pid == pid) {
			if (l->term_sent)
				return 1;
			/* The bridge alone: it ends its turn the way it ends at
			 * any SIGTERM (a message's proof read, the host closed, the
			 * session detached); the group only if it overstays. */
			log_info(l->session, "run %s stopped: ending the bridge started for it (pid %ld)", run,
				 (long)l->pid);
			kill(l->pid, SIGTERM);
			l->term_sent = 1;
			l->kill_at_ms = broker_now_ms() + b->set.stop_grace_ms;
			return 1;
		}
	return 0;
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
		const char *state = l->pid <= 0 ? "failed" : l->term_sent ? "stopping" : l->attached ? "attached"
											       : "starting";
		json_t *o = json_pack("{s:s, s:s, s:s, s:I}", "session", l->session, "agent", l->agent, "state", state,
				      "startedMsAgo", (json_int_t)(now - l->started_ms));

		if (!o)
			continue;
		json_object_set_new(o, "pid", l->pid > 0 ? json_integer(l->pid) : json_null());
		if (l->pid <= 0)
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
