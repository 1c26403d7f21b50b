/*
 * sessions_rig - see sessions_rig.h.
 */
#include "sessions_rig.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/group.h"
#include "../harness/harness.h"
#include "client.h"
#include "envelope.h"
#include "sha256.h"

struct fixture fx;

char proj_a[PATH_MAX], proj_b[PATH_MAX]; /* real paths */
char hash_a[HB_SHA256_HEX_LEN + 1], hash_b[HB_SHA256_HEX_LEN + 1];

char id_a1[64], id_b1[64], id_a2[64];

/* ---- helpers --------------------------------------------------------------- */

const char *jstr(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* Call tool with args (stolen); *text is the answer.  Returns ok. */
int call_args(const char *tool, json_t *args, char **text)
{
	char *json = json_dumps(args, JSON_COMPACT);
	int ok = 0;

	json_decref(args);
	assert_non_null(json);
	if (fx_call(&fx, tool, json, &ok, text) < 0)
		fail_msg("%s %s: no answer from the broker: %s", tool, json, *text ? *text : "?");
	free(json);
	return ok;
}

/* A call that must succeed with a JSON object answer. */
json_t *call_ok(const char *tool, json_t *args)
{
	char *dump = json_dumps(args, JSON_COMPACT), *text = NULL;
	json_t *result;

	if (!call_args(tool, args, &text))
		fail_msg("%s %s failed: %s", tool, dump, text);
	result = json_loads(text, 0, NULL);
	if (!json_is_object(result))
		fail_msg("%s %s: the answer is not a JSON object: %s", tool, dump, text);
	free(dump);
	free(text);
	return result;
}

/* A call that must fail with want in its text. */
void call_fails(const char *tool, json_t *args, const char *want)
{
	char *dump = json_dumps(args, JSON_COMPACT), *text = NULL;

	if (call_args(tool, args, &text))
		fail_msg("%s %s succeeded: %s", tool, dump, text);
	if (!strstr(text, want))
		fail_msg("%s %s: error \"%s\" does not say \"%s\"", tool, dump, text, want);
	free(dump);
	free(text);
}

json_t *create(const char *title, const char *agent, const char *path)
{
	return call_ok("manage_sessions", json_pack("{s:s, s:s, s:s, s:s}", "action", "create", "title", title,
						    "agent", agent, "projectPath", path));
}

json_t *change(const char *action, const char *id)
{
	return call_ok("manage_sessions", json_pack("{s:s, s:s}", "action", action, "targetSessionId", id));
}

/* listSessions with extra fields (stolen, may be NULL); the sessions array
 * is borrowed from the returned object. */
json_t *list(json_t *extra)
{
	json_t *args = extra ? extra : json_object();

	json_object_set_new(args, "action", json_string("listSessions"));
	return call_ok("maintain_sessions", args);
}

/* The ids of a list result, comma separated, for order checks. */
static void list_ids(const json_t *res, char *out, size_t outlen)
{
	json_t *sessions = json_object_get(res, "sessions"), *s;
	size_t i, n = 0;

	out[0] = '\0';
	assert_true(json_is_array(sessions));
	assert_int_equal(json_integer_value(json_object_get(res, "count")), json_array_size(sessions));
	json_array_foreach(sessions, i, s)
		n += (size_t)snprintf(out + n, n < outlen ? outlen - n : 0, "%s%s", i ? "," : "", jstr(s, "id"));
}

json_t *find_row(const json_t *res, const char *id)
{
	json_t *sessions = json_object_get(res, "sessions"), *s;
	size_t i;

	json_array_foreach(sessions, i, s)
		if (strcmp(jstr(s, "id"), id) == 0)
			return s;
	return NULL;
}

void expect_order(const json_t *res, const char *want)
{
	char got[1024];

	list_ids(res, got, sizeof got);
	if (strcmp(got, want) != 0)
		fail_msg("listSessions order \"%s\", want \"%s\"", got, want);
}

/* updated_at has millisecond resolution: keep "newer" unambiguous. */
void tick(void)
{
	fx_sleep_ms(5);
}

/* sha256sum of the bytes of s, as a second opinion on hb_sha256_hex. */
static void sha256sum(const char *s, char out[HB_SHA256_HEX_LEN + 1])
{
	char cmd[PATH_MAX + 64];
	FILE *p;

	snprintf(cmd, sizeof cmd, "printf '%%s' '%s' | sha256sum", s);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, HB_SHA256_HEX_LEN + 1, p));
	pclose(p);
}

static void make_project(const char *name, char real[PATH_MAX], char hash[HB_SHA256_HEX_LEN + 1])
{
	char path[PATH_MAX], check[HB_SHA256_HEX_LEN + 1];

	snprintf(path, sizeof path, "%s/%s", fx.dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_non_null(realpath(path, real));
	hb_sha256_hex(real, strlen(real), hash);
	sha256sum(real, check);
	assert_string_equal(hash, check);
}

void check_row(const json_t *row, const char *title, const char *agent, const char *dir,
	       const char *hash)
{
	assert_int_equal(strlen(jstr(row, "id")), 18);
	assert_memory_equal(jstr(row, "id"), "s-", 2);
	assert_string_equal(jstr(row, "title"), title);
	assert_string_equal(jstr(row, "agent"), agent);
	assert_string_equal(jstr(row, "projectDirectory"), dir);
	assert_string_equal(jstr(row, "projectDirectoryHash"), hash);
	assert_string_equal(jstr(row, "accessLevel"), "full-auto");
	assert_true(json_is_false(json_object_get(row, "active")));
	assert_true(json_is_false(json_object_get(row, "archived")));
	assert_int_equal(strlen(jstr(row, "createdAt")), 24);
	assert_int_equal(strlen(jstr(row, "updatedAt")), 24);
}

int is_active(const json_t *res, const char *id)
{
	const json_t *row = find_row(res, id);

	if (!row)
		fail_msg("session %s is not in the list", id);
	return json_is_true(json_object_get(row, "active"));
}

/* ---- fixture ------------------------------------------------------------- */

/* svc-sessions exactly as deploy/services.conf runs it. */
int setup_broker(void **state)
{
	char *conf = fx_deployed_service("svc-sessions");
	int rc;

	(void)state;
	if (!conf) {
		fprintf(stderr, "itest_sessions: no [service svc-sessions] in deploy/services.conf\n");
		return -1;
	}
	rc = fx_start(&fx, conf, NULL);
	free(conf);
	if (rc == 0) {
		make_project("projA", proj_a, hash_a);
		make_project("projB", proj_b, hash_b);
	}
	return rc;
}

int teardown_broker(void **state)
{
	(void)state;
	return fx_stop_clean(&fx);
}
