/*
 * itest_supervise - the broker's supervisor end to end, with the real
 * hb-broker, hbctl, svc-sessions and the test service svc-echo.
 *
 * Covers: a service killed (SIGKILL) or hung (SIGSTOP, missed heartbeats)
 * while a call is in flight: the call is answered with an error naming the
 * service and the cause, and the service comes back as a new generation;
 * hbctl replace with calls in flight on the old binary, none lost;
 * hbctl restart/stop/start; a crash loop reported in status with a bounded
 * backoff; a call for a restarting service waits for it; a second broker
 * on the same folder refuses to start; hbctl with no broker (or a stale
 * socket) returns at once; SIGTERM with a call in flight; a foreign
 * process cannot pose as a service on the back socket; one service's
 * crash does not disturb another.
 *
 * Timing settings are passed small through the broker's environment; the
 * assertions are on behaviour, never on speed (timeouts only bound waits).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <zmq.h>

#include "envelope.h"
#include "../harness/harness.h"
#include "sock.h"

#define WAIT_MS 10000 /* generous bound for anything we wait for */

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 8\n"
	"tools = echo sleep subcall progress exit\n";

static const char listsessions_json[] = "{\"action\":\"listSessions\"}";

/* The one fixture of the running test, static so that the teardown can
 * stop its broker and remove its folder when an assertion fails. */
static struct fixture F;

/* ---- helpers ---------------------------------------------------------- */

/* deploy/services.conf with its exec made absolute (@BUILD@/svc-sessions).
 * Found from the working folder or beside the build folder; malloc'd. */
static char *sessions_conf(void)
{
	const char *build = getenv("HB_BUILD");
	char path[700], *text, *out, *at;
	FILE *in = NULL;
	size_t len;

	if (build) {
		snprintf(path, sizeof path, "%s/../deploy/services.conf", build);
		in = fopen(path, "r");
	}
	if (!in)
		in = fopen("deploy/services.conf", "r");
	assert_non_null(in);
	text = calloc(1, 65536);
	assert_non_null(text);
	len = fread(text, 1, 65535, in);
	fclose(in);
	text[len] = '\0';
	at = strstr(text, "exec = svc-sessions\n");
	assert_non_null(at);
	out = calloc(1, len + 64);
	assert_non_null(out);
	memcpy(out, text, (size_t)(at - text));
	strcat(out, "exec = @BUILD@/svc-sessions\n");
	strcat(out, at + strlen("exec = svc-sessions\n"));
	free(text);
	return out;
}

static char *both_conf(void)
{
	char *s = sessions_conf(), *out = malloc(strlen(s) + sizeof echo_conf + 2);

	assert_non_null(out);
	sprintf(out, "%s\n%s", s, echo_conf);
	free(s);
	return out;
}

static void start(struct fixture *f, const char *config, const char *const *env)
{
	assert_int_equal(fx_start(f, config, env), 0);
}

static void prepare(struct fixture *f, const char *config)
{
	assert_int_equal(fx_prepare(f, config), 0);
}

static void open_client(struct fixture *f, struct hb_client *c)
{
	assert_int_equal(fx_client(f, c, 20000), 0);
}

/* Send a call without waiting for its answer; returns the request id. */
static int64_t send_call(struct hb_client *c, const char *tool, const char *json)
{
	struct hb_env req;
	char err[256];
	int64_t id;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "call");
	hb_env_set_str(&req, "tool", tool);
	hb_env_set_str(&req, "json", json);
	if (hb_client_send(c, &req, &id, err, sizeof err) < 0)
		fail_msg("send: %s", err);
	return id;
}

/* The next reply of any id: *id, *ok, and its text (malloc'd). */
static char *recv_reply(struct hb_client *c, int64_t *id, int *ok)
{
	struct hb_env reply;
	char err[256], *text;

	if (hb_client_recv(c, &reply, WAIT_MS, err, sizeof err) < 0)
		fail_msg("no reply: %s", err);
	*id = -1;
	hb_env_int(&reply, "id", id);
	*ok = hb_env_bool(&reply, "ok", 0);
	text = strdup(hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", "")));
	hb_env_free(&reply);
	assert_non_null(text);
	return text;
}

/* A call through the harness that the broker must answer; text malloc'd. */
static char *call(struct fixture *f, const char *tool, const char *json, int *ok)
{
	char *text = NULL;
	int rc = fx_call(f, tool, json, ok, &text);

	if (rc < 0)
		fail_msg("call %s: no answer: %s", tool, text ? text : "?");
	return text;
}

static void call_ok(struct fixture *f, const char *tool, const char *json, const char *want)
{
	int ok;
	char *text = call(f, tool, json, &ok);

	if (!ok)
		fail_msg("call %s failed: %s", tool, text);
	if (want)
		assert_string_equal(text, want);
	free(text);
}

/* A string field of a service in status, malloc'd ("" for null). */
static char *svc_str(struct fixture *f, const char *name, const char *field)
{
	json_t *st = fx_status(f), *svcs, *s, *v;
	char *out = NULL;
	size_t i;

	assert_non_null(st);
	svcs = json_object_get(st, "services");
	json_array_foreach(svcs, i, s)
		if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0) {
			v = json_object_get(s, field);
			out = strdup(json_is_string(v) ? json_string_value(v) : "");
		}
	json_decref(st);
	assert_non_null(out);
	return out;
}

static int svc_bool(struct fixture *f, const char *name, const char *field)
{
	json_t *st = fx_status(f), *svcs, *s;
	int v = -1;
	size_t i;

	assert_non_null(st);
	svcs = json_object_get(st, "services");
	json_array_foreach(svcs, i, s)
		if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0)
			v = json_is_true(json_object_get(s, field));
	json_decref(st);
	return v;
}

static void assert_svc_str(struct fixture *f, const char *name, const char *field, const char *want)
{
	char *got = svc_str(f, name, field);

	assert_string_equal(got, want);
	free(got);
}

/* Wait until the service's field equals want. */
static void wait_num(struct fixture *f, const char *name, const char *field, long long want)
{
	long long deadline = fx_now_ms() + WAIT_MS, got = 0;

	while (fx_now_ms() < deadline) {
		if ((got = fx_service_num(f, name, field)) == want)
			return;
		fx_sleep_ms(5);
	}
	fail_msg("%s %s stayed %lld, wanted %lld", name, field, got, want);
}

static void wait_state(struct fixture *f, const char *name, const char *want)
{
	long long deadline = fx_now_ms() + WAIT_MS;
	char *got = NULL;

	while (fx_now_ms() < deadline) {
		free(got);
		got = svc_str(f, name, "state");
		if (strcmp(got, want) == 0) {
			free(got);
			return;
		}
		fx_sleep_ms(5);
	}
	fail_msg("%s stayed in state %s, wanted %s", name, got, want);
}

/* Wait until a broker spawned by hand answers status at all. */
static void wait_answering(struct fixture *f)
{
	long long deadline = fx_now_ms() + WAIT_MS;
	json_t *st;

	while (!(st = fx_status(f)) && fx_now_ms() < deadline)
		fx_sleep_ms(10);
	assert_non_null(st);
	json_decref(st);
}

/* A child of the broker is gone once the broker has reaped it. */
static void wait_gone(pid_t pid)
{
	long long deadline = fx_now_ms() + WAIT_MS;

	assert_true(pid > 0);
	while (fx_now_ms() < deadline) {
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return;
		fx_sleep_ms(10);
	}
	fail_msg("pid %ld is still alive", (long)pid);
}

/* waitpid with a bound: the exit status, or a failure (and a KILL). */
static int wait_exit(pid_t pid)
{
	long long deadline = fx_now_ms() + WAIT_MS;
	int st;

	while (fx_now_ms() < deadline) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		assert_false(r < 0 && errno != EINTR);
		fx_sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fail_msg("pid %ld did not exit", (long)pid);
	return -1;
}

static char *read_file(const char *path)
{
	FILE *in = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n = 0;

	assert_non_null(buf);
	if (in) {
		n = fread(buf, 1, (1 << 20) - 1, in);
		fclose(in);
	}
	buf[n] = '\0';
	return buf;
}

static int file_has(const char *path, const char *needle)
{
	char *text = read_file(path);
	int found = strstr(text, needle) != NULL;

	free(text);
	return found;
}

static void wait_log(struct fixture *f, const char *needle)
{
	long long deadline = fx_now_ms() + WAIT_MS;

	while (fx_now_ms() < deadline) {
		if (file_has(f->log, needle))
			return;
		fx_sleep_ms(10);
	}
	fail_msg("the broker log never said \"%s\"", needle);
}

static int exists(const char *dir, const char *name)
{
	char path[1200];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* Stop the broker: SIGTERM must end it with status 0 (under the
 * sanitizers a leak or error in the broker makes that fail too). */
static void finish_fixture(void)
{
	int status = 0, rc = fx_stop(&F, &status);

	memset(&F, 0, sizeof F);
	assert_int_equal(rc, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int teardown(void **state)
{
	(void)state;
	if (F.dir[0])
		fx_stop(&F, NULL);
	memset(&F, 0, sizeof F);
	return 0;
}

/* ---- 1. SIGKILL during a call ------------------------------------------ */

static void test_sigkill_sessions_during_call(void **state)
{
	struct fixture *f = &F;
	struct hb_client c;
	char *conf = sessions_conf(), *text;
	pid_t pid, pid2;
	int64_t id, got;
	int ok;

	(void)state;
	start(f, conf, NULL);
	free(conf);
	pid = fx_service_pid(f, "svc-sessions");
	assert_true(pid > 0);

	/* Stopped, the service cannot answer: the call stays in flight. */
	assert_int_equal(kill(pid, SIGSTOP), 0);
	open_client(f, &c);
	id = send_call(&c, "maintain_sessions", listsessions_json);
	wait_num(f, "svc-sessions", "callsInFlight", 1);
	assert_int_equal(kill(pid, SIGKILL), 0);

	text = recv_reply(&c, &got, &ok);
	assert_int_equal(got, id);
	assert_false(ok);
	assert_string_equal(text, "svc-sessions stopped while handling this call (killed by signal 9); "
				  "try the call again");
	free(text);
	hb_client_close(&c);

	assert_int_equal(fx_wait_up(f, "svc-sessions", 2, WAIT_MS), 0);
	pid2 = fx_service_pid(f, "svc-sessions");
	assert_true(pid2 > 0);
	assert_int_not_equal(pid2, pid);
	assert_int_equal(fx_service_num(f, "svc-sessions", "generation"), 2);
	assert_int_equal(fx_service_num(f, "svc-sessions", "restarts"), 1);
	assert_svc_str(f, "svc-sessions", "lastExit", "killed by signal 9");
	text = call(f, "maintain_sessions", listsessions_json, &ok);
	if (!ok)
		fail_msg("maintain_sessions after the restart failed: %s", text);
	assert_non_null(strstr(text, "\"sessions\":[]"));
	free(text);
	finish_fixture();
}

/* ---- 2. A hung service ------------------------------------------------- */

static void test_hung_service_replaced(void **state)
{
	static const char *const env[] = { "HB_HEARTBEAT_MS=50", "HB_HANG_MS=300", NULL };
	struct fixture *f = &F;
	struct hb_client c;
	pid_t pid, pid2;
	int64_t id, got;
	char *text;
	int ok;

	(void)state;
	start(f, echo_conf, env);
	pid = fx_service_pid(f, "svc-echo");
	assert_true(pid > 0);
	open_client(f, &c);
	id = send_call(&c, "sleep", "{\"ms\":5000}");
	wait_num(f, "svc-echo", "callsInFlight", 1);
	assert_int_equal(kill(pid, SIGSTOP), 0); /* alive, but silent */

	text = recv_reply(&c, &got, &ok);
	assert_int_equal(got, id);
	assert_false(ok);
	assert_string_equal(text, "svc-echo stopped while handling this call (stopped responding: "
				  "no heartbeat for 300 ms, so it was killed); try the call again");
	free(text);
	hb_client_close(&c);

	assert_int_equal(fx_wait_up(f, "svc-echo", 2, WAIT_MS), 0);
	pid2 = fx_service_pid(f, "svc-echo");
	assert_true(pid2 > 0);
	assert_int_not_equal(pid2, pid);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 1);
	wait_gone(pid);
	wait_log(f, "heartbeats stopped; killing pid");
	call_ok(f, "echo", "{\"n\":2}", "{\"n\":2}");
	finish_fixture();
}

/* ---- 3. Replace with calls in flight ------------------------------------ */

static void test_replace_loses_no_call(void **state)
{
	static const char *const env[] = { "HB_HANG_MS=10000", NULL };
	struct fixture *f = &F;
	struct hb_client c;
	int64_t first[20], later[20], id;
	int done[41] = { 0 }, ndone = 0, nlater = 0, ok;
	char exe[1200], *out, *text;
	json_t *reply;
	pid_t old, new_pid;

	(void)state;
	start(f, echo_conf, env);
	old = fx_service_pid(f, "svc-echo");
	assert_true(old > 0);
	open_client(f, &c);
	for (int i = 0; i < 20; i++)
		first[i] = send_call(&c, "sleep", "{\"ms\":300}");
	/* Concurrency 8: eight run, twelve wait in the service's own queue. */
	wait_num(f, "svc-echo", "callsInFlight", 20);
	wait_num(f, "svc-echo", "slotsBusy", 8);
	wait_num(f, "svc-echo", "queuedInService", 12);

	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	{
		const char *const args[] = { "replace", "svc-echo", exe, NULL };
		assert_int_equal(fx_hbctl(f, &out, args), 0);
	}
	reply = json_loads(out, 0, NULL);
	if (!reply)
		fail_msg("hbctl replace printed: %s", out);
	free(out);
	assert_int_equal(json_integer_value(json_object_get(reply, "generation")), 2);
	new_pid = (pid_t)json_integer_value(json_object_get(reply, "pid"));
	json_decref(reply);
	assert_true(new_pid > 0);
	assert_int_not_equal(new_pid, old);
	assert_int_equal(fx_service_pid(f, "svc-echo"), new_pid);
	/* The old one is still draining its sleeps; the waiting calls move
	 * to the new one. */
	assert_int_equal(kill(old, 0), 0);

	/* Freeze the old one: the later calls can only be answered by the new. */
	assert_int_equal(kill(old, SIGSTOP), 0);
	for (int i = 0; i < 20; i++)
		later[i] = send_call(&c, "sleep", "{\"ms\":300}");
	while (nlater < 20) {
		text = recv_reply(&c, &id, &ok);
		if (!ok)
			fail_msg("call %lld failed: %s", (long long)id, text);
		assert_string_equal(text, "slept 300 ms");
		free(text);
		assert_true(id >= 1 && id <= 40);
		assert_false(done[id]);
		done[id] = 1;
		ndone++;
		nlater += id >= later[0];
	}
	assert_int_equal(kill(old, SIGCONT), 0);
	while (ndone < 40) {
		text = recv_reply(&c, &id, &ok);
		if (!ok)
			fail_msg("call %lld failed: %s", (long long)id, text);
		assert_string_equal(text, "slept 300 ms");
		free(text);
		assert_true(id >= 1 && id <= 40);
		assert_false(done[id]);
		done[id] = 1;
		ndone++;
	}
	for (int i = 0; i < 20; i++)
		assert_true(done[first[i]] && done[later[i]]);
	hb_client_close(&c);

	wait_gone(old);
	wait_num(f, "svc-echo", "callsInFlight", 0);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	assert_int_equal(fx_service_pid(f, "svc-echo"), new_pid);
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 0);
	assert_int_equal(fx_service_num(f, "svc-echo", "callsServed"), 40);
	assert_svc_str(f, "svc-echo", "lastExit", ""); /* a replace is no crash */
	assert_svc_str(f, "svc-echo", "state", "up");
	finish_fixture();
}

/* ---- 4. hbctl restart, stop, start -------------------------------------- */

static void test_restart_stop_start(void **state)
{
	static const char *const restart[] = { "restart", "svc-echo", NULL };
	static const char *const stop[] = { "stop", "svc-echo", NULL };
	static const char *const startargs[] = { "start", "svc-echo", NULL };
	struct fixture *f = &F;
	pid_t pid1, pid2, pid3;
	char *out, *text;
	int ok;

	(void)state;
	start(f, echo_conf, NULL);
	pid1 = fx_service_pid(f, "svc-echo");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 1);

	assert_int_equal(fx_hbctl(f, &out, restart), 0);
	assert_non_null(strstr(out, "\"generation\":2"));
	free(out);
	pid2 = fx_service_pid(f, "svc-echo");
	assert_true(pid2 > 0);
	assert_int_not_equal(pid2, pid1);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	call_ok(f, "echo", "{\"after\":\"restart\"}", "{\"after\":\"restart\"}");
	wait_gone(pid1);

	assert_int_equal(fx_hbctl(f, &out, stop), 0);
	free(out);
	text = call(f, "echo", "{}", &ok);
	assert_false(ok);
	assert_string_equal(text, "svc-echo is stopped; start it with: hbctl start svc-echo");
	free(text);
	wait_gone(pid2);
	wait_state(f, "svc-echo", "stopped");

	assert_int_equal(fx_hbctl(f, &out, startargs), 0);
	free(out);
	assert_int_equal(fx_wait_up(f, "svc-echo", 3, WAIT_MS), 0);
	pid3 = fx_service_pid(f, "svc-echo");
	assert_true(pid3 > 0);
	assert_int_not_equal(pid3, pid2);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 3);
	call_ok(f, "echo", "{\"after\":\"start\"}", "{\"after\":\"start\"}");
	finish_fixture();
}

/* ---- 5. Crash loop ------------------------------------------------------ */

static void test_crash_loop(void **state)
{
	static const char *const env[] = { "HB_ECHO_FAIL_START=1", "HB_BACKOFF_BASE_MS=50",
					   "HB_BACKOFF_CAP_MS=400", "HB_CRASHLOOP_AFTER=3",
					   "HB_CALL_WAIT_MS=300", NULL };
	static const long long want[] = { 50, 100, 200, 400 };
	struct fixture *f = &F;
	long long deadline, r1, r2, delays = 0;
	char *text, *log, *p, *q;
	int ok, seen = 0;

	(void)state;
	prepare(f, echo_conf);
	f->broker = fx_spawn_broker(f, env, "broker.log");
	assert_true(f->broker > 0);

	deadline = fx_now_ms() + WAIT_MS;
	while (fx_now_ms() < deadline && !seen) {
		json_t *st = fx_status(f);
		if (st) {
			json_t *s = json_array_get(json_object_get(st, "services"), 0);
			seen = strcmp(json_string_value(json_object_get(s, "state")), "crash-loop") == 0;
		}
		json_decref(st);
		if (!seen)
			fx_sleep_ms(5);
	}
	assert_true(seen);
	assert_int_equal(svc_bool(f, "svc-echo", "crashLoop"), 1);
	assert_svc_str(f, "svc-echo", "lastExit", "exited with status 7");

	/* Bounded: with base 50 and cap 400 about 5 restarts in 2 s; a busy
	 * loop would make thousands.  Still trying, though. */
	r1 = fx_service_num(f, "svc-echo", "restarts");
	assert_true(r1 >= 2);
	fx_sleep_ms(2000);
	r2 = fx_service_num(f, "svc-echo", "restarts");
	assert_true(r2 > r1);
	assert_true(r2 - r1 < 20);

	text = call(f, "echo", "{}", &ok);
	assert_false(ok);
	assert_non_null(strstr(text, "did not come back within 300 ms"));
	assert_string_equal(text, "svc-echo did not come back within 300 ms (exited with status 7); "
				  "try the call again");
	free(text);
	assert_int_equal(svc_bool(f, "svc-echo", "crashLoop"), 1);

	/* The sequence in the log: the first restart at once (no delay line
	 * before #2 starts), then 50, 100, 200, 400 and the cap from there. */
	log = read_file(f->log);
	p = strstr(log, "[svc-echo#1] pid ");
	assert_non_null(p);
	q = strstr(p, "[svc-echo#2] started");
	assert_non_null(q);
	assert_true(!strstr(p, "restart in") || strstr(p, "restart in") > q);
	for (p = strstr(log, "[svc-echo] restart in "); p; p = strstr(p + 1, "[svc-echo] restart in ")) {
		long long d = strtoll(p + strlen("[svc-echo] restart in "), NULL, 10);
		assert_int_equal(d, delays < 4 ? want[delays] : 400);
		delays++;
	}
	assert_true(delays >= 4);
	p = strstr(log, "crash loop: 3 deaths in a row");
	assert_non_null(p);
	assert_null(strstr(p + 1, "crash loop:")); /* reported once */
	free(log);
	finish_fixture();
}

/* ---- 6. A call for a restarting service waits ---------------------------- */

static void test_call_waits_for_restart(void **state)
{
	struct fixture *f = &F;
	pid_t pid;
	char *text;
	int ok;

	(void)state;
	start(f, echo_conf, NULL);
	pid = fx_service_pid(f, "svc-echo");
	text = call(f, "exit", "{}", &ok);
	assert_false(ok);
	assert_string_equal(text, "svc-echo stopped while handling this call (exited with status 3); "
				  "try the call again");
	free(text);
	/* At once: the new instance may not be ready yet; the call waits. */
	call_ok(f, "echo", "{\"again\":true}", "{\"again\":true}");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 1);
	assert_int_not_equal(fx_service_pid(f, "svc-echo"), pid);
	assert_svc_str(f, "svc-echo", "lastExit", "exited with status 3");
	finish_fixture();
}

/* ---- 7. A second broker refuses ---------------------------------------- */

static void test_second_broker_refuses(void **state)
{
	struct fixture *f = &F;
	char log2[1200], want[128];
	pid_t second;
	json_t *st;
	int status;

	(void)state;
	start(f, echo_conf, NULL);
	second = fx_spawn_broker(f, NULL, "broker2.log");
	assert_true(second > 0);
	status = wait_exit(second);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
	snprintf(log2, sizeof log2, "%s/broker2.log", f->dir);
	snprintf(want, sizeof want, "another hb-broker (pid %ld) is already running", (long)f->broker);
	if (!file_has(log2, want)) {
		char *text = read_file(log2);
		fail_msg("second broker log lacks \"%s\":\n%s", want, text);
	}
	/* The first one is untouched. */
	call_ok(f, "echo", "{\"still\":1}", "{\"still\":1}");
	st = fx_status(f);
	assert_non_null(st);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "broker"), "pid")), f->broker);
	json_decref(st);
	assert_true(exists(f->dir, "run/front.sock"));
	finish_fixture();
}

/* ---- 8. hbctl with no broker ------------------------------------------- */

static void test_hbctl_without_broker(void **state)
{
	static const char *const status[] = { "status", NULL };
	struct sockaddr_un addr;
	struct fixture *f = &F;
	char path[1200], *out;
	int fd;

	(void)state;
	prepare(f, echo_conf);
	assert_int_equal(fx_hbctl(f, &out, status), 2);
	assert_non_null(strstr(out, "no hb-broker is running"));
	free(out);

	/* A leftover regular file where the socket was. */
	snprintf(path, sizeof path, "%s/run", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/run/front.sock", f->dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
	close(fd);
	assert_int_equal(fx_hbctl(f, &out, status), 2);
	assert_non_null(strstr(out, "hb-broker"));
	free(out);

	/* A leftover socket of a dead broker: bound, then closed, never removed. */
	assert_int_equal(unlink(path), 0);
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	assert_true(strlen(path) < sizeof addr.sun_path);
	memcpy(addr.sun_path, path, strlen(path) + 1);
	assert_true((fd = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	close(fd);
	assert_int_equal(fx_hbctl(f, &out, status), 2);
	assert_non_null(strstr(out, "hb-broker"));
	free(out);
	finish_fixture();
}

/* ---- 9. SIGTERM with a call in flight ---------------------------------- */

static void test_sigterm_with_call_in_flight(void **state)
{
	static const char *const env[] = { "HB_SHUTDOWN_GRACE_MS=300", NULL };
	struct fixture *f = &F;
	struct hb_client c;
	int64_t id, got;
	pid_t svc;
	char *text;
	int ok, status;

	(void)state;
	start(f, echo_conf, env);
	svc = fx_service_pid(f, "svc-echo");
	assert_true(svc > 0);
	open_client(f, &c);
	id = send_call(&c, "sleep", "{\"ms\":5000}");
	wait_num(f, "svc-echo", "callsInFlight", 1);
	assert_int_equal(kill(f->broker, SIGTERM), 0);

	text = recv_reply(&c, &got, &ok);
	assert_int_equal(got, id);
	assert_false(ok);
	assert_string_equal(text, "hb-broker stopped before this call finished; try the call again");
	free(text);
	hb_client_close(&c);

	status = wait_exit(f->broker);
	f->broker = 0; /* reaped here; fx_stop only cleans up */
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(exists(f->dir, "run/front.sock"));
	assert_false(exists(f->dir, "run/back.sock"));
	assert_false(exists(f->dir, "run/events.sock"));
	assert_false(exists(f->dir, "run/hb-broker.lock"));
	assert_int_equal(kill(svc, 0), -1);
	assert_int_equal(errno, ESRCH);
	finish_fixture();
}

/* ---- 10. A foreign process cannot pose as a service --------------------- */

static void *impostor(void *ctx, struct fixture *f, const char *identity)
{
	char ep[400];
	void *s = hb_sock_dealer(ctx, identity, 0, 2000);

	assert_non_null(s);
	snprintf(ep, sizeof ep, "ipc://%s/run/back.sock", f->dir);
	assert_int_equal(zmq_connect(s, ep), 0);
	return s;
}

static void pose(void *s, pid_t claimed_pid, const char *key)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "ready");
	hb_env_set_str(&e, "service", "svc-echo");
	hb_env_set_int(&e, "pid", claimed_pid);
	hb_env_set_str(&e, "version", "0.1.0");
	hb_env_set_str(&e, "tools", "echo,sleep,subcall,progress,exit");
	assert_int_equal(hb_send_env(s, NULL, &e), 0);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "heartbeat");
	assert_int_equal(hb_send_env(s, NULL, &e), 0);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "result");
	hb_env_set_str(&e, "key", key);
	hb_env_set_bool(&e, "ok", 1);
	hb_env_set_str(&e, "text", "forged");
	assert_int_equal(hb_send_env(s, NULL, &e), 0);
}

static void test_foreign_ready_refused(void **state)
{
	struct fixture *f = &F;
	struct hb_client c;
	void *ctx, *fake9, *fake1;
	int64_t id, got;
	pid_t pid;
	char *text;
	int ok;

	(void)state;
	start(f, echo_conf, NULL);
	pid = fx_service_pid(f, "svc-echo");
	assert_true(pid > 0);
	open_client(f, &c);
	id = send_call(&c, "sleep", "{\"ms\":1000}"); /* the broker's first call: key c1 */
	wait_num(f, "svc-echo", "callsInFlight", 1);

	assert_non_null(ctx = zmq_ctx_new());
	fake9 = impostor(ctx, f, "svc-echo#9");
	fake1 = impostor(ctx, f, "svc-echo#1"); /* the real instance's identity */
	pose(fake9, pid, "c1");
	pose(fake1, pid, "c1");
	wait_log(f, "refused ready from svc-echo#9");
	wait_log(f, "result from svc-echo#9");

	/* The real answer, not the forged one. */
	text = recv_reply(&c, &got, &ok);
	assert_int_equal(got, id);
	assert_true(ok);
	assert_string_equal(text, "slept 1000 ms");
	free(text);
	hb_client_close(&c);

	/* Calls still reach the real instance, never an impostor. */
	call_ok(f, "echo", "{\"real\":1}", "{\"real\":1}");
	call_ok(f, "echo", "{\"real\":2}", "{\"real\":2}");
	{
		zmq_pollitem_t items[2] = { { fake9, 0, ZMQ_POLLIN, 0 }, { fake1, 0, ZMQ_POLLIN, 0 } };
		assert_int_equal(zmq_poll(items, 2, 100), 0);
	}
	assert_int_equal(fx_service_pid(f, "svc-echo"), pid);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 1);
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 0);
	assert_int_equal(fx_service_num(f, "svc-echo", "callsServed"), 3);
	zmq_close(fake9);
	zmq_close(fake1);
	zmq_ctx_term(ctx);
	finish_fixture();
}

/* ---- 11. One crash does not disturb another ------------------------------ */

static void test_crash_isolated(void **state)
{
	struct fixture *f = &F;
	char *conf = both_conf();
	pid_t sessions, echo;
	int calls = 0;

	(void)state;
	start(f, conf, NULL);
	free(conf);
	sessions = fx_service_pid(f, "svc-sessions");
	echo = fx_service_pid(f, "svc-echo");
	assert_true(sessions > 0 && echo > 0);
	call_ok(f, "maintain_sessions", listsessions_json, NULL);

	assert_int_equal(kill(echo, SIGKILL), 0);
	/* svc-sessions serves throughout echo's death and restart. */
	do {
		call_ok(f, "maintain_sessions", listsessions_json, NULL);
		calls++;
	} while (fx_service_num(f, "svc-echo", "generation") < 2 && calls < 10000);
	assert_int_equal(fx_wait_up(f, "svc-echo", 2, WAIT_MS), 0);
	call_ok(f, "maintain_sessions", listsessions_json, NULL);
	call_ok(f, "echo", "{\"back\":1}", "{\"back\":1}");

	assert_int_equal(fx_service_pid(f, "svc-sessions"), sessions);
	assert_int_equal(fx_service_num(f, "svc-sessions", "generation"), 1);
	assert_int_equal(fx_service_num(f, "svc-sessions", "restarts"), 0);
	assert_svc_str(f, "svc-sessions", "state", "up");
	assert_svc_str(f, "svc-sessions", "lastExit", "");
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 1);
	assert_svc_str(f, "svc-echo", "lastExit", "killed by signal 9");
	finish_fixture();
}

/* ---- 12. Replace again while the old generation drains ------------------ */

static void test_double_replace_while_draining(void **state)
{
	struct fixture *f = &F;
	const char *replace[] = { "replace", "svc-echo", NULL, NULL };
	char exe[1100], *out, *text;
	struct hb_client c;
	pid_t first;
	int64_t id, got;
	int ok;

	(void)state;
	start(f, echo_conf, NULL);
	first = fx_service_pid(f, "svc-echo");
	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	replace[2] = exe;
	open_client(f, &c);
	id = send_call(&c, "sleep", "{\"ms\":1000}");
	wait_num(f, "svc-echo", "callsInFlight", 1);
	/* Two replacements while generation 1 still has its call. */
	assert_int_equal(fx_hbctl(f, &out, replace), 0);
	free(out);
	assert_int_equal(fx_hbctl(f, &out, replace), 0);
	assert_non_null(strstr(out, "\"generation\":3"));
	free(out);
	text = recv_reply(&c, &got, &ok);
	assert_int_equal(got, id);
	assert_true(ok);
	assert_string_equal(text, "slept 1000 ms");
	free(text);
	hb_client_close(&c);
	wait_num(f, "svc-echo", "callsInFlight", 0);
	wait_gone(first);
	call_ok(f, "echo", "{\"gen\":3}", "{\"gen\":3}");
	finish_fixture();
}

/* ---- 13. A restart during a crash loop leaves the loop going ------------- */

static void test_restart_in_crash_loop_keeps_trying(void **state)
{
	static const char *const env[] = { "HB_ECHO_FAIL_START=1", "HB_BACKOFF_BASE_MS=50",
					   "HB_BACKOFF_CAP_MS=200", "HB_CRASHLOOP_AFTER=3", NULL };
	static const char *const restart[] = { "restart", "svc-echo", NULL };
	struct fixture *f = &F;
	long long r1, deadline;
	char *out;

	(void)state;
	prepare(f, echo_conf);
	f->broker = fx_spawn_broker(f, env, "broker.log");
	assert_true(f->broker > 0);
	wait_answering(f);
	wait_state(f, "svc-echo", "crash-loop");
	assert_int_equal(fx_hbctl(f, &out, restart), 1);
	assert_non_null(strstr(out, "exited with status 7 before it was ready"));
	assert_null(strstr(out, "keeps serving")); /* there is no old one */
	free(out);
	r1 = fx_service_num(f, "svc-echo", "restarts");
	deadline = fx_now_ms() + WAIT_MS;
	while (fx_service_num(f, "svc-echo", "restarts") <= r1 + 2 && fx_now_ms() < deadline)
		fx_sleep_ms(20);
	assert_true(fx_service_num(f, "svc-echo", "restarts") > r1 + 2);
	finish_fixture();
}

/* ---- 13b. A restart during the backoff starts one copy, not two --------- */

/* Every copy of svc-echo lives 3 s and then fails; the backoff after the
 * second death is 2 s.  A restart sent during that backoff used to leave
 * the backoff's own restart scheduled: a second copy started beside the
 * restart's, and the restart's answer said an old one "keeps serving"
 * when none had ever been ready. */
static void test_restart_during_backoff_starts_one(void **state)
{
	static const char *const env[] = { "HB_ECHO_FAIL_START=1", "HB_ECHO_START_DELAY_MS=3000",
					   "HB_BACKOFF_BASE_MS=2000", "HB_BACKOFF_CAP_MS=2000",
					   "HB_CRASHLOOP_AFTER=1", NULL };
	static const char *const restart[] = { "restart", "svc-echo", NULL };
	struct fixture *f = &F;
	long long gen;
	char *out;

	(void)state;
	prepare(f, echo_conf);
	f->broker = fx_spawn_broker(f, env, "broker.log");
	assert_true(f->broker > 0);
	wait_answering(f);
	wait_state(f, "svc-echo", "crash-loop");
	gen = fx_service_num(f, "svc-echo", "generation");
	assert_int_equal(fx_hbctl(f, &out, restart), 1);
	assert_non_null(strstr(out, "exited with status 7 before it was ready"));
	assert_null(strstr(out, "keeps serving")); /* none was ever ready */
	free(out);
	/* Only the restart's copy started since; the next waits its backoff. */
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), gen + 1);
	assert_svc_str(f, "svc-echo", "state", "crash-loop");
	finish_fixture();
}

/* A copy that never says ready is killed at the start timeout, and status
 * says so: not "no heartbeat", which is what a ready one would miss. */
static void test_start_timeout_named(void **state)
{
	static const char *const env[] = { "HB_ECHO_START_DELAY_MS=60000", "HB_START_TIMEOUT_MS=300",
					   "HB_BACKOFF_BASE_MS=60000", NULL };
	struct fixture *f = &F;
	char *last = NULL;
	long long deadline;

	(void)state;
	prepare(f, echo_conf);
	f->broker = fx_spawn_broker(f, env, "broker.log");
	assert_true(f->broker > 0);
	wait_answering(f);
	deadline = fx_now_ms() + WAIT_MS;
	while (fx_now_ms() < deadline) {
		free(last);
		last = svc_str(f, "svc-echo", "lastExit");
		if (*last)
			break;
		fx_sleep_ms(10);
	}
	assert_string_equal(last, "did not become ready within 300 ms of its start, so it was killed");
	free(last);
	finish_fixture();
}

/* ---- 13c. Draining generations end in any order ------------------------- */

/* Two replaces while a call runs on each older generation: the draining
 * list holds generation 2 (newest) and then 1.  Returns the two calls'
 * request ids and the two pids, oldest first. */
static void two_draining(struct fixture *f, struct hb_client *c, const char *old_args, const char *newer_args,
			 int64_t ids[2], pid_t pids[2])
{
	char exe[1200], *out;
	json_t *st, *drain;
	const char *const args[] = { "replace", "svc-echo", exe, NULL };

	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	ids[0] = send_call(c, "sleep", old_args);
	wait_num(f, "svc-echo", "callsInFlight", 1);
	assert_int_equal(fx_hbctl(f, &out, args), 0);
	free(out);
	ids[1] = send_call(c, "sleep", newer_args);
	wait_num(f, "svc-echo", "callsInFlight", 2);
	assert_int_equal(fx_hbctl(f, &out, args), 0);
	free(out);
	st = fx_status(f);
	assert_non_null(st);
	drain = json_object_get(json_array_get(json_object_get(st, "services"), 0), "draining");
	assert_int_equal(json_array_size(drain), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(drain, 0), "generation")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(drain, 1), "generation")), 1);
	pids[0] = (pid_t)json_integer_value(json_object_get(json_array_get(drain, 1), "pid"));
	pids[1] = (pid_t)json_integer_value(json_object_get(json_array_get(drain, 0), "pid"));
	json_decref(st);
	assert_true(pids[0] > 0 && pids[1] > 0);
}

static void wait_draining(struct fixture *f, size_t want)
{
	long long deadline = fx_now_ms() + WAIT_MS;
	size_t got = 0;

	while (fx_now_ms() < deadline) {
		json_t *st = fx_status(f);
		assert_non_null(st);
		got = json_array_size(json_object_get(json_array_get(json_object_get(st, "services"), 0),
						      "draining"));
		json_decref(st);
		if (got == want)
			return;
		fx_sleep_ms(10);
	}
	fail_msg("svc-echo has %zu draining generations, wanted %zu", got, want);
}

static void expect_reply(struct hb_client *c, int64_t want_id, int want_ok, const char *want)
{
	int64_t id;
	int ok;
	char *text = recv_reply(c, &id, &ok);

	assert_int_equal(id, want_id);
	assert_int_equal(ok, want_ok);
	assert_string_equal(text, want);
	free(text);
}

static const char killed_text[] = "svc-echo stopped while handling this call (killed by signal 9); "
				  "try the call again";

/* Two draining generations with a call each are killed, first (0: the
 * oldest, 1: the newer) and then the other: each one's call is answered,
 * and neither stays listed (nor gets signalled once gone). */
static void kill_draining_in_order(int first)
{
	struct fixture *f = &F;
	struct hb_client c;
	int64_t ids[2];
	pid_t pids[2];

	start(f, echo_conf, NULL);
	open_client(f, &c);
	two_draining(f, &c, "{\"ms\":600000}", "{\"ms\":600000}", ids, pids);
	for (int k = 0; k < 2; k++) {
		int g = k == 0 ? first : 1 - first;
		assert_int_equal(kill(pids[g], SIGKILL), 0);
		expect_reply(&c, ids[g], 0, killed_text);
		wait_draining(f, (size_t)(1 - k));
	}
	hb_client_close(&c);
	call_ok(f, "echo", "{\"gen\":3}", "{\"gen\":3}");
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 0);
	finish_fixture();
}

static void test_draining_oldest_dies_first(void **state)
{
	(void)state;
	kill_draining_in_order(0);
}

static void test_draining_newest_dies_first(void **state)
{
	(void)state;
	kill_draining_in_order(1);
}

/* The oldest finishes its call first and is stopped as drained (TERM):
 * it must leave the list, or SIGTERM of the broker never ends. */
static void test_draining_oldest_drains_first(void **state)
{
	struct fixture *f = &F;
	struct hb_client c;
	int64_t ids[2];
	pid_t pids[2];

	(void)state;
	start(f, echo_conf, NULL);
	open_client(f, &c);
	two_draining(f, &c, "{\"ms\":1500}", "{\"ms\":600000}", ids, pids);
	expect_reply(&c, ids[0], 1, "slept 1500 ms");
	wait_gone(pids[0]);
	wait_draining(f, 1);
	assert_int_equal(kill(pids[1], SIGKILL), 0);
	expect_reply(&c, ids[1], 0, killed_text);
	wait_draining(f, 0);
	hb_client_close(&c);
	finish_fixture();
}

/* ---- 14. Busy workers: a call waits as long as it takes ----------------- */

static void test_busy_service_call_waits(void **state)
{
	static const char conf[] =
		"[service svc-echo]\n"
		"exec = @BUILD@/tests/svc-echo\n"
		"concurrency = 1\n"
		"tools = echo sleep\n";
	static const char *const env[] = { "HB_CALL_WAIT_MS=100", NULL };
	struct fixture *f = &F;
	struct hb_client c;
	int64_t ids[10], id;
	char *text;
	int ok;

	(void)state;
	start(f, conf, env);
	open_client(f, &c);
	ids[0] = send_call(&c, "sleep", "{\"ms\":600}");
	for (int i = 1; i < 10; i++)
		ids[i] = send_call(&c, "echo", "{\"queued\":true}");
	/* One worker busy, eight calls in its service's queue (the overflow
	 * window of 8 per worker), one held by the broker. */
	wait_num(f, "svc-echo", "slotsBusy", 1);
	wait_num(f, "svc-echo", "queuedInService", 8);
	wait_num(f, "svc-echo", "callsWaiting", 1);
	/* The restart wait (100 ms) is no limit on waiting for a worker. */
	for (int i = 0; i < 10; i++) {
		text = recv_reply(&c, &id, &ok);
		assert_int_equal(id, ids[i]); /* one worker: in order */
		if (!ok)
			fail_msg("call %d failed: %s", i, text);
		free(text);
	}
	hb_client_close(&c);
	wait_num(f, "svc-echo", "queuedInService", 0);
	wait_num(f, "svc-echo", "slotsBusy", 0);
	finish_fixture();
}

/* ---- 15. A slow call holds up no queued call ------------------------------ */

static void test_slow_call_holds_up_no_queued_call(void **state)
{
	static const char conf[] =
		"[service svc-echo]\n"
		"exec = @BUILD@/tests/svc-echo\n"
		"concurrency = 2\n"
		"tools = echo sleep\n";
	struct fixture *f = &F;
	struct hb_client c;
	int64_t slow, id;
	char *text;
	int ok;

	(void)state;
	start(f, conf, NULL);
	open_client(f, &c);
	slow = send_call(&c, "sleep", "{\"ms\":3000}");
	wait_num(f, "svc-echo", "slotsBusy", 1);
	for (int i = 0; i < 12; i++)
		send_call(&c, "sleep", "{\"ms\":20}");
	/* Both workers busy means calls queue in the service; the free
	 * worker takes them all while the slow one sleeps. */
	for (int i = 0; i < 12; i++) {
		text = recv_reply(&c, &id, &ok);
		assert_int_not_equal(id, slow);
		assert_true(ok);
		free(text);
	}
	text = recv_reply(&c, &id, &ok);
	assert_int_equal(id, slow);
	assert_true(ok);
	free(text);
	hb_client_close(&c);
	finish_fixture();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sigkill_sessions_during_call, teardown),
		cmocka_unit_test_teardown(test_hung_service_replaced, teardown),
		cmocka_unit_test_teardown(test_replace_loses_no_call, teardown),
		cmocka_unit_test_teardown(test_restart_stop_start, teardown),
		cmocka_unit_test_teardown(test_crash_loop, teardown),
		cmocka_unit_test_teardown(test_call_waits_for_restart, teardown),
		cmocka_unit_test_teardown(test_second_broker_refuses, teardown),
		cmocka_unit_test_teardown(test_hbctl_without_broker, teardown),
		cmocka_unit_test_teardown(test_sigterm_with_call_in_flight, teardown),
		cmocka_unit_test_teardown(test_foreign_ready_refused, teardown),
		cmocka_unit_test_teardown(test_crash_isolated, teardown),
		cmocka_unit_test_teardown(test_double_replace_while_draining, teardown),
		cmocka_unit_test_teardown(test_restart_in_crash_loop_keeps_trying, teardown),
		cmocka_unit_test_teardown(test_restart_during_backoff_starts_one, teardown),
		cmocka_unit_test_teardown(test_start_timeout_named, teardown),
		cmocka_unit_test_teardown(test_draining_oldest_dies_first, teardown),
		cmocka_unit_test_teardown(test_draining_newest_dies_first, teardown),
		cmocka_unit_test_teardown(test_draining_oldest_drains_first, teardown),
		cmocka_unit_test_teardown(test_busy_service_call_waits, teardown),
		cmocka_unit_test_teardown(test_slow_call_holds_up_no_queued_call, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	/* HB_TEST_FILTER=test_name (wildcards * and ?) runs only those tests. */
	if (getenv("HB_TEST_FILTER"))
		cmocka_set_test_filter(getenv("HB_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
