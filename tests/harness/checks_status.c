/*
 * checks_status - what a test reads of the broker's status, its log and
 * its children, and the waits for a state to come, each failing the
 * running cmocka test when the state never comes (see checks.h).
 */
#include "checks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* The broker's status, which a check needs: answered within the wait of
 * anything else (a loaded machine may take longer than fx_status's 2 s). */
static json_t *status_answered(struct fixture *f)
{
	long long t0 = fx_now_ms();
	json_t *st = fx_status_within(f, CK_WAIT_MS);

	if (!st)
		fail_msg("the broker did not answer a status request in %lld ms", fx_now_ms() - t0);
	return st;
}

char *ck_svc_str(struct fixture *f, const char *name, const char *field)
{
	json_t *st = status_answered(f), *s, *v;
	char *out = NULL;

	if ((s = fx_find_service(st, name))) {
		v = json_object_get(s, field);
		out = strdup(json_is_string(v) ? json_string_value(v) : "");
	}
	json_decref(st);
	assert_non_null(out);
	return out;
}

int ck_svc_bool(struct fixture *f, const char *name, const char *field)
{
	json_t *st = status_answered(f), *s;
	int v = -1;

	if ((s = fx_find_service(st, name)))
		v = json_is_true(json_object_get(s, field));
	json_decref(st);
	return v;
}

void ck_svc_str_equal(struct fixture *f, const char *name, const char *field, const char *want)
{
	char *got = ck_svc_str(f, name, field);

	assert_string_equal(got, want);
	free(got);
}

void ck_wait_num(struct fixture *f, const char *name, const char *field, long long want)
{
	long long deadline = fx_now_ms() + CK_WAIT_MS, got = 0;

	while (fx_now_ms() < deadline) {
		if ((got = fx_service_num(f, name, field)) == want)
			return;
		fx_sleep_ms(5);
	}
	fail_msg("%s %s stayed %lld, wanted %lld", name, field, got, want);
}

void ck_wait_state(struct fixture *f, const char *name, const char *want)
{
	long long deadline = fx_now_ms() + CK_WAIT_MS;
	char *got = NULL;

	while (fx_now_ms() < deadline) {
		free(got);
		got = ck_svc_str(f, name, "state");
		if (strcmp(got, want) == 0) {
			free(got);
			return;
		}
		fx_sleep_ms(5);
	}
	fail_msg("%s stayed in state %s, wanted %s", name, got, want);
}

void ck_wait_stopped_idle(struct fixture *f, const char *name)
{
	ck_wait_state(f, name, "idle");
	if (ck_svc_bool(f, name, "stoppedIdle") != 1)
		fail_msg("%s is idle, but was not stopped for idleness", name);
}

void ck_stays_up_holding_work(struct fixture *f, const char *name, int ms)
{
	long long gen = fx_service_num(f, name, "generation"), stops = fx_service_num(f, name, "idleStops");

	fx_sleep_ms(ms);
	ck_svc_str_equal(f, name, "state", "up");
	assert_int_equal(fx_service_num(f, name, "generation"), gen);
	assert_int_equal(fx_service_num(f, name, "idleStops"), stops);
	assert_int_equal(ck_svc_bool(f, name, "holdsWork"), 1);
}

void ck_hbctl_status_says(struct fixture *f, const char *want)
{
	static const char *const args[] = { "status", NULL };
	char *out = NULL;

	assert_int_equal(fx_hbctl(f, &out, args), 0);
	if (!strstr(out, want))
		fail_msg("hbctl status does not say \"%s\":\n%s", want, out);
	free(out);
}

void ck_wait_answering(struct fixture *f)
{
	long long deadline = fx_now_ms() + CK_WAIT_MS;
	json_t *st;

	while (!(st = fx_status(f)) && fx_now_ms() < deadline)
		fx_sleep_ms(10);
	assert_non_null(st);
	json_decref(st);
}

void ck_wait_gone(pid_t pid)
{
	long long deadline = fx_now_ms() + CK_WAIT_MS;

	assert_true(pid > 0);
	while (fx_now_ms() < deadline) {
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return;
		fx_sleep_ms(10);
	}
	fail_msg("pid %ld is still alive", (long)pid);
}

int ck_wait_exit(pid_t pid)
{
	long long deadline = fx_now_ms() + CK_WAIT_MS;
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

int ck_file_has(const char *path, const char *needle)
{
	char *text = fx_read_text(path);
	int found = strstr(text, needle) != NULL;

	free(text);
	return found;
}

void ck_wait_log(struct fixture *f, const char *needle)
{
	long long deadline = fx_now_ms() + CK_WAIT_MS;

	while (fx_now_ms() < deadline) {
		if (ck_file_has(f->log, needle))
			return;
		fx_sleep_ms(10);
	}
	fail_msg("the broker log never said \"%s\"", needle);
}

int ck_exists(const char *dir, const char *name)
{
	char path[1200];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &st) == 0;
}
