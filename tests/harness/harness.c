/*
 * harness - process plumbing for the integration tests.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "envelope.h"
#include "paths.h"
#include "settings.h"

void fx_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

long long fx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fx_use_env(struct fixture *f)
{
	setenv("HB_HOME", f->dir, 1);
	/* A broken invariant aborts the broker (HB_ASSERT), also when a
	 * test program is run alone, without tests/run.sh. */
	setenv("HB_ASSERT_ABORT", "1", 1);
	unsetenv("HB_RUNTIME_DIR");
	unsetenv("HB_DATA_DIR");
	unsetenv("HB_CACHE_DIR");
	unsetenv("HB_CONFIG_DIR");
}

static int write_config(struct fixture *f, const char *config)
{
	char path[400];
	FILE *out;

	snprintf(path, sizeof path, "%s/services.conf", f->dir);
	if (!(out = fopen(path, "w")))
		return -1;
	for (const char *p = config; *p; p++) {
		if (strncmp(p, "@BUILD@", 7) == 0) {
			fputs(f->build, out);
			p += 6;
		} else {
			fputc(*p, out);
		}
	}
	return fclose(out);
}

pid_t fx_spawn_broker(struct fixture *f, const char *const *env, const char *logname)
{
	char exe[600], conf[400], log[400];
	pid_t pid;

	snprintf(exe, sizeof exe, "%s/hb-broker", f->build);
	snprintf(conf, sizeof conf, "%s/services.conf", f->dir);
	snprintf(log, sizeof log, "%s/%s", f->dir, logname);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
#ifdef __linux__
		/* A test killed by its time limit takes its broker along (and the
		 * broker its services), instead of leaving it serving nobody. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
		if (fd >= 0) {
			dup2(fd, 2);
			dup2(fd, 1);
		}
		fx_use_env(f);
		for (const char *const *e = env; e && *e; e++)
			putenv((char *)*e);
		execl(exe, "hb-broker", "--config", conf, "--libexec", f->build, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int all_up(json_t *st)
{
	json_t *svcs = json_object_get(st, "services"), *s;
	size_t i;

	json_array_foreach(svcs, i, s)
		if (strcmp(json_string_value(json_object_get(s, "state")), "up") != 0)
			return 0;
	return 1;
}

int fx_prepare(struct fixture *f, const char *config)
{
	const char *build = getenv("HB_BUILD");

	memset(f, 0, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "/tmp/hbtest.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	if (!build)
		build = "build";
	if (build[0] == '/')
		snprintf(f->build, sizeof f->build, "%s", build);
	else {
		char cwd[256];
		if (!getcwd(cwd, sizeof cwd))
			return -1;
		snprintf(f->build, sizeof f->build, "%s/%s", cwd, build);
	}
	snprintf(f->log, sizeof f->log, "%s/broker.log", f->dir);
	if (write_config(f, config) < 0)
		return -1;
	fx_use_env(f);
	return 0;
}

int fx_start(struct fixture *f, const char *config, const char *const *env)
{
	if (fx_prepare(f, config) < 0)
		return -1;
	return fx_start_prepared(f, env);
}

int fx_start_prepared(struct fixture *f, const char *const *env)
{
	long long deadline;

	f->broker = fx_spawn_broker(f, env, "broker.log");
	deadline = fx_now_ms() + 10000;
	while (fx_now_ms() < deadline) {
		json_t *st = fx_status(f);
		int up = st && all_up(st);
		json_decref(st);
		if (up)
			return 0;
		fx_sleep_ms(20);
	}
	fprintf(stderr, "harness: the broker did not come up; log %s\n", f->log);
	return -1;
}

static void print_log(const char *path)
{
	char line[1024];
	FILE *in = fopen(path, "r");

	if (!in)
		return;
	fprintf(stderr, "---- %s\n", path);
	while (fgets(line, sizeof line, in))
		fputs(line, stderr);
	fclose(in);
}

static int log_has_sanitizer_report(const char *path)
{
	static const char *const markers[] = { "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
					       "runtime error:", NULL };
	char line[1024];
	FILE *in = fopen(path, "r");
	int found = 0;

	if (!in)
		return 0;
	while (!found && fgets(line, sizeof line, in))
		for (const char *const *m = markers; *m && !found; m++)
			found = strstr(line, *m) != NULL;
	fclose(in);
	return found;
}

/* The broker's check of its own invariants (status broker.selfCheck):
 * 0 when it says "ok" or cannot be asked (a test that killed it). */
static int selfcheck_fails(struct fixture *f)
{
	json_t *st = fx_status(f);
	const char *check = json_string_value(json_object_get(json_object_get(st, "broker"), "selfCheck"));
	int bad = st && (!check || strcmp(check, "ok") != 0);

	if (bad)
		fprintf(stderr, "harness: the broker's self-check failed: %s\n", check ? check : "(none)");
	json_decref(st);
	return bad;
}

/* SIGTERM must end the broker within the grace it has for calls and
 * services; past a generous bound it is killed and the test fails. */
static int wait_broker(pid_t pid, int *st)
{
	long long deadline = fx_now_ms() + 60000;

	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (fx_now_ms() > deadline) {
			fprintf(stderr, "harness: hb-broker did not end within 60 s of SIGTERM; killing it\n");
			kill(pid, SIGKILL);
			while (waitpid(pid, st, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		fx_sleep_ms(10);
	}
}

int fx_stop(struct fixture *f, int *status)
{
	int st = 0, bad = 0;
	char cmd[400];

	if (f->broker > 0 && waitpid(f->broker, &st, WNOHANG) == 0) {
		bad = selfcheck_fails(f);
		kill(f->broker, SIGTERM);
		if (wait_broker(f->broker, &st) < 0)
			bad = 1;
	}
	if (bad)
		st = 1 << 8;
	/* Services write to the broker's stderr, so one log holds what the
	 * sanitizers found in any of the processes: a finding fails the run. */
	if (log_has_sanitizer_report(f->log)) {
		fprintf(stderr, "harness: a sanitizer reported a problem:\n");
		print_log(f->log);
		st = 1 << 8; /* as if the broker had exited with status 1 */
	} else if (getenv("HB_TEST_VERBOSE")) {
		print_log(f->log);
	}
	if (status)
		*status = st;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int fx_stop_clean(struct fixture *f)
{
	int st = 0;

	fx_stop(f, &st);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "hb-broker ended with wait status %d on SIGTERM\n", st);
		return -1;
	}
	return 0;
}

int fx_discard(struct fixture *f)
{
	if (f->dir[0])
		fx_stop(f, NULL);
	memset(f, 0, sizeof *f);
	return 0;
}

int fx_client(struct fixture *f, struct hb_client *c, int timeout_ms)
{
	char ep[400], err[256];

	snprintf(ep, sizeof ep, "ipc://%s/run/front.sock", f->dir);
	/* Quiet: callers poll this while a broker starts. */
	if (hb_client_open(c, ep, timeout_ms, err, sizeof err) < 0)
		return -1;
	return 0;
}

int fx_call(struct fixture *f, const char *tool, const char *json, int *ok, char **text)
{
	struct hb_client c;
	struct hb_env req, reply;
	char err[256];
	int rc;

	*text = NULL;
	*ok = 0;
	if (fx_client(f, &c, 20000) < 0)
		return -1;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "call");
	hb_env_set_str(&req, "tool", tool);
	hb_env_set_str(&req, "json", json);
	rc = hb_client_request(&c, &req, &reply, err, sizeof err);
	hb_client_close(&c);
	if (rc < 0) {
		*text = strdup(err);
		return -1;
	}
	*ok = hb_env_bool(&reply, "ok", 0);
	*text = strdup(hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", "")));
	hb_env_free(&reply);
	return 0;
}

int fx_hbctl(struct fixture *f, char **out, const char *const *args)
{
	return fx_hbctl_input(f, NULL, out, args);
}

int fx_hbctl_input(struct fixture *f, const char *input, char **out, const char *const *args)
{
	char exe[600], path[400], inpath[400];
	const char *argv[16];
	int n = 0, st = 0;
	pid_t pid;
	FILE *in;

	snprintf(exe, sizeof exe, "%s/hbctl", f->build);
	snprintf(path, sizeof path, "%s/hbctl.out", f->dir);
	snprintf(inpath, sizeof inpath, "%s/hbctl.in", f->dir);
	if (input) {
		int bad;

		if (!(in = fopen(inpath, "w")))
			return -1;
		bad = fputs(input, in) == EOF;
		if (fclose(in) != 0 || bad)
			return -1;
	}
	argv[n++] = "hbctl";
	for (const char *const *a = args; *a && n < 15; a++)
		argv[n++] = *a;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (input && ((fd = open(inpath, O_RDONLY)) < 0 || dup2(fd, 0) < 0))
			_exit(127);
		fx_use_env(f);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (input)
		unlink(inpath);
	if (out) {
		size_t len = 0;

		in = fopen(path, "r");
		*out = calloc(1, 65536);
		if (in && *out) {
			len = fread(*out, 1, 65535, in);
			(*out)[len] = '\0';
		}
		if (in)
			fclose(in);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

pid_t fx_spawn_prog(struct fixture *f, const char *prog, const char *const *args, const char *const *env,
		    const char *outname)
{
	char exe[600], path[400];
	const char *argv[32];
	int n = 0;
	pid_t pid;

	snprintf(exe, sizeof exe, "%s/%s", f->build, prog);
	snprintf(path, sizeof path, "%s/%s", f->dir, outname);
	argv[n++] = prog;
	for (const char *const *a = args; a && *a && n < 31; a++)
		argv[n++] = *a;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), in = open("/dev/null", O_RDONLY);
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a test stopped by its time limit */
#endif
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (in >= 0)
			dup2(in, 0);
		fx_use_env(f);
		for (const char *const *e = env; e && *e; e++)
			putenv((char *)*e);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

int fx_wait_bounded(pid_t pid, int limit_ms)
{
	long long deadline = fx_now_ms() + limit_ms;
	int st = 0;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			return -1;
		if (fx_now_ms() >= deadline)
			break;
		fx_sleep_ms(20);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return -1;
}

char *fx_read_text(const char *path)
{
	FILE *in = fopen(path, "r");
	char *text = calloc(1, 1 << 20);
	size_t n = 0;

	if (!text)
		abort();
	if (in) {
		n = fread(text, 1, (1 << 20) - 1, in);
		fclose(in);
	}
	text[n] = '\0';
	return text;
}

int64_t fx_send_op(struct hb_client *c, const char *op, ...)
{
	struct hb_env req;
	char err[256];
	int64_t id;
	va_list ap;
	const char *k;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", op);
	va_start(ap, op);
	while ((k = va_arg(ap, const char *)))
		hb_env_set_str(&req, k, va_arg(ap, const char *));
	va_end(ap);
	if (hb_client_send(c, &req, &id, err, sizeof err) < 0) {
		fprintf(stderr, "send %s: %s\n", op, err);
		return -1;
	}
	return id;
}

char *fx_call_expect(struct fixture *f, const char *tool, const char *json, int want_ok, const char *want)
{
	char *text = NULL;
	int ok = 0;

	if (fx_call(f, tool, json, &ok, &text) < 0) {
		fprintf(stderr, "%s: no answer from the broker: %s\n", tool, text ? text : "?");
	} else if (ok != want_ok || (want && !strstr(text, want))) {
		fprintf(stderr, "%s %s: wanted %s%s%s, got %s: %s\n", tool, json, want_ok ? "success" : "failure",
			want ? " saying " : "", want ? want : "", ok ? "success" : "failure", text);
	} else {
		return text;
	}
	free(text);
	return NULL;
}

int fx_save_gemini_key(const char *key)
{
	struct hb_paths p;
	char err[256];

	if (hb_paths_resolve(&p, err, sizeof err) < 0 || hb_settings_save_gemini_key(&p, key, err, sizeof err) < 0) {
		fprintf(stderr, "cannot save the Gemini key: %s\n", err);
		return -1;
	}
	return 0;
}

int fx_create_session(struct fixture *f, const char *title, const char *agent, const char *project,
		      const char *access, char *id, size_t idlen)
{
	json_t *args = json_pack("{s:s, s:s, s:s, s:s, s:s}", "action", "create", "title", title, "agent", agent,
				 "projectPath", project, "accessLevel", access);
	char *json = args ? json_dumps(args, JSON_COMPACT) : NULL, *text;
	json_t *row = NULL;
	const char *sid;
	int rc = -1;

	json_decref(args);
	text = json ? fx_call_expect(f, "manage_sessions", json, 1, NULL) : NULL;
	free(json);
	if (text)
		row = json_loads(text, 0, NULL);
	sid = json_string_value(json_object_get(row, "id"));
	if (sid && strlen(sid) < idlen) {
		memcpy(id, sid, strlen(sid) + 1);
		rc = 0;
	} else {
		fprintf(stderr, "create session %s: no id in %s\n", title, text ? text : "(no answer)");
	}
	json_decref(row);
	free(text);
	return rc;
}

int fx_start_agent_sessions(struct fixture *f, const char *extra, const char *label, char *codex, char *claude,
			    size_t idlen)
{
	char *conf = fx_deployed_config(extra, "svc-sessions", (char *)NULL), title[96];
	int rc = conf ? fx_start(f, conf, NULL) : -1;

	free(conf);
	if (rc < 0)
		return -1;
	snprintf(title, sizeof title, "%s Codex", label);
	if (fx_create_session(f, title, "codex", "/tmp", "full-auto", codex, idlen) < 0)
		return -1;
	snprintf(title, sizeof title, "%s Claude", label);
	return fx_create_session(f, title, "claude", "/tmp", "full-auto", claude, idlen);
}

int fx_open_run(struct hb_client *c, const char *run, const char *session, const char *project, const char *agent,
		const char *access)
{
	struct hb_env req, reply;
	char err[256];
	int ok;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "run.open");
	hb_env_set_str(&req, "run", run);
	hb_env_set_str(&req, "session", session);
	hb_env_set_str(&req, "project", project);
	hb_env_set_str(&req, "agent", agent);
	hb_env_set_str(&req, "access", access);
	if (hb_client_request(c, &req, &reply, err, sizeof err) < 0) {
		fprintf(stderr, "run.open: %s\n", err);
		return -1;
	}
	if (!(ok = hb_env_bool(&reply, "ok", 0)))
		fprintf(stderr, "run.open: %s\n", hb_env_str_or(&reply, "err.msg", "refused"));
	hb_env_free(&reply);
	return ok ? 0 : -1;
}

static int64_t send_json_op(struct hb_client *c, const char *op, const char *json)
{
	struct hb_env req;
	char err[256];
	int64_t id;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", op);
	hb_env_set_str(&req, "json", json);
	if (hb_client_send(c, &req, &id, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", op, err);
		return -1;
	}
	return id;
}

int64_t fx_claude_call(struct hb_client *c, int n, const char *tool, const char *args_json)
{
	size_t len = strlen(tool) + strlen(args_json) + 128;
	char *frame = malloc(len);
	int64_t id;

	if (!frame)
		return -1;
	snprintf(frame, len, "{\"requestId\":%d,\"tool\":\"%s\",\"arguments\":%s,\"toolUseId\":\"tu-%d\"}", n, tool,
		 args_json, n);
	id = send_json_op(c, "claude.call", frame);
	free(frame);
	return id;
}

int64_t fx_claude_cancel(struct hb_client *c, int n)
{
	char cancel[100];

	snprintf(cancel, sizeof cancel, "{\"requestId\":%d,\"toolUseId\":\"tu-%d\"}", n, n);
	return send_json_op(c, "claude.cancel", cancel);
}

int fx_expect_stopped(struct hb_client *c, int64_t call_id, int64_t stop_id)
{
	int seen_call = 0, seen_stop = 0;

	for (int k = 0; k < 2; k++) {
		struct hb_env reply;
		char err[256];
		int64_t got = -1;

		if (hb_client_recv(c, &reply, 20000, err, sizeof err) < 0) {
			fprintf(stderr, "no reply: %s\n", err);
			return -1;
		}
		hb_env_int(&reply, "id", &got);
		if (got == call_id && strstr(hb_env_str_or(&reply, "json", ""), "Run stopped."))
			seen_call = 1;
		else if (got == stop_id)
			seen_stop = 1;
		else
			fprintf(stderr, "unexpected reply %lld: %s\n", (long long)got, hb_env_str_or(&reply, "json", "?"));
		hb_env_free(&reply);
	}
	return seen_call && seen_stop ? 0 : -1;
}
