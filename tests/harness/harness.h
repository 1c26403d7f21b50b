/*
 * harness - start the real hb-broker with real services in a temporary
 * folder, talk to it, and clean up.  Used by tests/integration/.
 *
 * Binaries are found in $HB_BUILD (set by tests/run.sh; default "build").
 */
#ifndef HB_HARNESS_H
#define HB_HARNESS_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "client.h"

struct fixture {
	char dir[256];
	char build[512];
	char log[300];
	pid_t broker;
};

/* The config text may use @BUILD@ for the build folder.  env: extra
 * NAME=VALUE strings for the broker (NULL-terminated, may be NULL).
 * Waits until every service is up.  0 or -1. */
int fx_start(struct fixture *f, const char *config, const char *const *env);
/* The folder, the config and the environment, without starting anything
 * (for brokers that never come up, or none at all).  0 or -1. */
int fx_prepare(struct fixture *f, const char *config);
/* fx_start's second half, on a folder fx_prepare made (a test puts its
 * files there first).  0 or -1. */
int fx_start_prepared(struct fixture *f, const char *const *env);
/* Start a broker process only (no waiting); returns its pid. */
pid_t fx_spawn_broker(struct fixture *f, const char *const *env, const char *logname);
/* SIGTERM the broker, wait for it (exit status in *status if not NULL),
 * remove the folder.  Prints the broker log when keep_log is set. */
int fx_stop(struct fixture *f, int *status);

/* fx_stop, and 0 only when the broker ended with status 0 on SIGTERM
 * (under the sanitizers: and nobody reported anything).  For teardowns. */
int fx_stop_clean(struct fixture *f);
/* For a test's own teardown: stop what a failed test left running (its
 * broker, its folder) without a verdict, and clear f.  Always 0. */
int fx_discard(struct fixture *f);
/* A call through hbctl's path; *text is malloc'd.  0 when the broker
 * answered (ok tells whether the tool succeeded), -1 otherwise. */
int fx_call(struct fixture *f, const char *tool, const char *json, int *ok, char **text);
/* A call that must answer with want_ok and (unless want is NULL) with
 * want in its text: the text (malloc'd), or NULL after saying on stderr
 * what came instead. */
char *fx_call_expect(struct fixture *f, const char *tool, const char *json, int want_ok, const char *want);
/* Save the Gemini key in the fixture's config folder (fx_use_env's).  0 or -1. */
int fx_save_gemini_key(const char *key);
/* status JSON, or NULL when not answered within timeout_ms */
json_t *fx_status_within(struct fixture *f, int timeout_ms);
/* The same within 2 s, as its pollers want while a broker starts or after
 * a test killed it. */
static inline json_t *fx_status(struct fixture *f)
{
	return fx_status_within(f, 2000);
}
/* The entry of service name in status JSON st, or NULL. */
json_t *fx_find_service(json_t *st, const char *name);
/* A string member of o, "" when it is missing or not a string. */
const char *fx_jstr(const json_t *o, const char *key);
/* How long a read that a test goes on with waits for a broker that still
 * runs (fx_status.c). */
#define FX_ANSWER_WAIT_MS 10000
/* The service's pid / generation / other number in status: 0 when it has
 * none, or when the broker is gone, stopped, or did not answer within
 * FX_ANSWER_WAIT_MS. */
pid_t fx_service_pid(struct fixture *f, const char *name);
long long fx_service_num(struct fixture *f, const char *name, const char *field);
/* Wait until name is up with a generation >= gen; 0 or -1 on timeout. */
int fx_wait_up(struct fixture *f, const char *name, long long gen, int timeout_ms);
/* A client on this fixture's front socket. */
int fx_client(struct fixture *f, struct hb_client *c, int timeout_ms);
/* Send op with string fields (NULL-terminated name/value pairs) on c;
 * returns the request id, or -1 when it could not be sent. */
int64_t fx_send_op(struct hb_client *c, const char *op, ...);
/* Run as root: run this test again as nobody (setpriv), from a copy of
 * the build nobody may read (drop_root.c); this call then does not
 * return.  Otherwise 0 (the copy is removed at exit).  -1 when it cannot. */
int fx_drop_root(char **argv);
/* The "[service NAME]" section of the tree's deploy/services.conf
 * (malloc'd, NULL when there is none), so a test runs a service exactly
 * as it is deployed. */
char *fx_deployed_service(const char *name);
/* One config of the named sections of deploy/services.conf (names end with
 * a NULL), then extra (the test's own sections, such as svc-echo's; may be
 * NULL): malloc'd, or NULL after saying on stderr which one is missing. */
char *fx_deployed_config(const char *extra, ...);
/* conf (freed here) with lines (each ending in a newline) right after the
 * header of [service name]: a deployed service with the `idle` or `wake`
 * line of a test that stops it for idleness.  Malloc'd, or NULL (said on
 * stderr when conf has no such section). */
char *fx_config_add_lines(char *conf, const char *name, const char *lines);
/* manage_sessions create as the user (hbctl's path): a session for runs
 * to open on (run.open refuses a session that does not exist or runs
 * another agent).  Its id into id; 0, or -1 (said on stderr). */
int fx_create_session(struct fixture *f, const char *title, const char *agent, const char *project,
		      const char *access, char *id, size_t idlen);
/* A broker with svc-sessions as deployed beside the test's own sections
 * (extra, as fx_deployed_config takes it), and two full-auto sessions in
 * /tmp, "LABEL Codex" and "LABEL Claude": their ids into codex and
 * claude, each idlen bytes.  0, or -1 (said on stderr). */
int fx_start_agent_sessions(struct fixture *f, const char *extra, const char *label, char *codex, char *claude,
			    size_t idlen);
/* run.open on c (the connection that then carries a Claude bridge's
 * calls); 0, or -1 when refused or not answered. */
int fx_open_run(struct hb_client *c, const char *run, const char *session, const char *project, const char *agent,
		const char *access);
/* A Claude toolCall {requestId: n, tool, arguments, toolUseId "tu-n"} on
 * c, and its toolCancel; each returns the request id, or -1. */
int64_t fx_claude_call(struct hb_client *c, int n, const char *tool, const char *args_json);
int64_t fx_claude_cancel(struct hb_client *c, int n);
/* The two replies of a stopped call: the call's (which must say "Run
 * stopped.") and the stopping request's.  0, or -1 (said on stderr). */
int fx_expect_stopped(struct hb_client *c, int64_t call_id, int64_t stop_id);
/* Set HB_HOME etc. in this process to the fixture's folder. */
void fx_use_env(struct fixture *f);
/* Run hbctl with args; returns its exit status; output in *out (malloc'd). */
int fx_hbctl(struct fixture *f, char **out, const char *const *args);
/* The same with input (NULL: this process's) on hbctl's standard input,
 * for the verbs that read a secret there. */
int fx_hbctl_input(struct fixture *f, const char *input, char **out, const char *const *args);
/* Start prog (a program of the build folder) with args in the fixture's
 * environment plus env (NAME=VALUE, may be NULL), standard input from
 * /dev/null, its output (both streams) into the file outname of the
 * fixture's folder, without waiting; returns its pid, or -1. */
pid_t fx_spawn_prog(struct fixture *f, const char *prog, const char *const *args, const char *const *env,
		    const char *outname);
/* Wait for pid at most limit_ms: its wait status, or -1 when it was still
 * running (then it is killed and reaped, so nothing is left behind). */
int fx_wait_bounded(pid_t pid, int limit_ms);
/* The whole of a text file (malloc'd, "" when unreadable; never NULL). */
char *fx_read_text(const char *path);
void fx_sleep_ms(int ms);
long long fx_now_ms(void);

#endif
