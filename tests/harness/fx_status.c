/*
 * fx_status - the broker's status as the fixtures read it: the whole
 * answer, a service's entry, and the numbers and waits the tests build on
 * it (harness.h).
 */
#include "harness.h"

#include <string.h>

#include "envelope.h"
#include "proc_state.h"

json_t *fx_status_within(struct fixture *f, int timeout_ms)
{
	struct hb_client c;
	struct hb_env req, reply;
	char err[256];
	json_t *st = NULL;

	if (fx_client(f, &c, timeout_ms) < 0)
		return NULL;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "status");
	if (hb_client_request(&c, &req, &reply, err, sizeof err) == 0) {
		const char *json = hb_env_str(&reply, "json");
		st = json ? json_loads(json, 0, NULL) : NULL;
		hb_env_free(&reply);
	}
	hb_client_close(&c);
	return st;
}

json_t *fx_find_service(json_t *st, const char *name)
{
	json_t *svcs = json_object_get(st, "services"), *s;
	size_t i;

	json_array_foreach(svcs, i, s)
		if (strcmp(fx_jstr(s, "name"), name) == 0)
			return s;
	return NULL;
}

const char *fx_jstr(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* The status for a value a test goes on with (a generation it then waits
 * past, a count it compares): a broker that still runs is waited for as
 * long as any check waits, since a loaded machine can take longer than
 * fx_status's 2 s and a 0 read for "no answer" would let the test go on
 * too early; one the test killed or stopped costs only the 2 s. */
static json_t *status_while_running(struct fixture *f)
{
	long long end = fx_now_ms() + FX_ANSWER_WAIT_MS;
	json_t *st;

	/* fx_status fails at once while there is no socket (a broker still
	 * starting): a pause between the tries, as fx_wait_up makes. */
	while (!(st = fx_status(f)) && f->broker > 0 && !hb_process_gone(f->broker, 0) &&
	       !hb_process_stopped(f->broker) && fx_now_ms() < end)
		fx_sleep_ms(10);
	return st;
}

long long fx_service_num(struct fixture *f, const char *name, const char *field)
{
	json_t *st = status_while_running(f), *s = st ? fx_find_service(st, name) : NULL;
	long long v = s ? json_integer_value(json_object_get(s, field)) : 0;

	json_decref(st);
	return v;
}

pid_t fx_service_pid(struct fixture *f, const char *name)
{
	return (pid_t)fx_service_num(f, name, "pid");
}

int fx_wait_up(struct fixture *f, const char *name, long long gen, int timeout_ms)
{
	long long deadline = fx_now_ms() + timeout_ms;

	while (fx_now_ms() < deadline) {
		json_t *st = fx_status(f), *s = st ? fx_find_service(st, name) : NULL;
		int up = s && strcmp(json_string_value(json_object_get(s, "state")), "up") == 0 &&
			 json_integer_value(json_object_get(s, "generation")) >= gen;
		json_decref(st);
		if (up)
			return 0;
		fx_sleep_ms(10);
	}
	return -1;
}
