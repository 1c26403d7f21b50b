/*
 * hbctl - the commands of the status CLI, one file a group.
 */
#ifndef HB_HBCTL_H
#define HB_HBCTL_H

#define EXIT_FAIL 1
#define EXIT_NO_BROKER 2
#define EXIT_USAGE 100

#include <stddef.h>

#include "envelope.h"

/* help.c: the usage text on stderr; EXIT_USAGE. */
int usage(void);
/* request.c: one request to the broker; prints errors itself.  0, EXIT_FAIL or
 * EXIT_NO_BROKER; on 0 *reply is decoded (caller frees). */
int request(struct hb_env *req, struct hb_env *reply, int timeout_ms);
/* The same, its wait named limit_name in the sentence when it runs out. */
int request_limited(struct hb_env *req, struct hb_env *reply, int timeout_ms, const char *limit_name);
/* claude.c: one read of a one-shot Claude agent host, no broker needed. */
int cmd_claude(int argc, char **argv);
/* claude_host.c: a one-shot Claude agent host for reads.  start: NULL
 * after saying why on stderr.  read: one read (METHOD, params): 0 with
 * *reply, the host's reply, an error reply too (caller frees), or
 * EXIT_FAIL, said on stderr.  end: close, let the host end, end its
 * process group, free h.  claude_read: the three for one read. */
struct json_t;
struct claude_host;
struct claude_host *claude_host_start(const char *argv0);
int claude_host_read(struct claude_host *h, const char *method, struct json_t *params, struct json_t **reply);
void claude_host_end(struct claude_host *h);
int claude_read(const char *argv0, const char *method, struct json_t *params, struct json_t **reply);
/* hbctl timeline (main.c picks one of the three):
 * timeline.c: a saved Claude conversation as timeline rows. */
int cmd_timeline_claude(int argc, char **argv);
/* timeline_session.c: hbctl timeline --session ID, the session's own
 * conversation through cmd_timeline_claude or cmd_timeline_codex. */
int timeline_of_session(int argc, char **argv);
/* help.c: hbctl timeline's usage text; EXIT_USAGE. */
int timeline_usage(void);
/* timeline_codex.c: hbctl timeline --codex THREAD */
int cmd_timeline_codex(int argc, char **argv);
/* accounts.c: the Claude accounts.  accounts_use_active: the active
 * account's name into name, and its folder as this process's
 * CLAUDE_CONFIG_DIR (for the hosts hbctl starts); 0, or -1 (said). */
int cmd_accounts(int argc, char **argv);
int accounts_use_active(char *name, size_t namelen);
/* usage.c: the plan usage of the default Claude account, cached a minute. */
int cmd_usage(int argc, char **argv);
/* approvals.c */
int cmd_approvals(int argc, char **argv);
/* messages.c */
int cmd_messages(int argc, char **argv);
/* watch.c (and watch_timeline.c: --timeline) */
int cmd_watch(int argc, char **argv);
/* sessions.c: the sessions to resume, through maintain_sessions. */
int cmd_sessions(int argc, char **argv);
/* settings.c: works on the files directly, with or without a broker. */
int cmd_settings(int argc, char **argv);

#endif
