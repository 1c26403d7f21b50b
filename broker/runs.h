/*
 * runs - the table of active runs: which session, run id, project
 * directory, agent, access level and model a call belongs to.  A Claude bridge
 * opens its run on its own connection, which binds its calls to it; a
 * Codex call finds its run through the thread's session.
 */
#ifndef HB_RUNS_H
#define HB_RUNS_H

#include "broker.h"

struct run {
	char id[128];
	char session[128];
	char project[1024];
	char agent[16];                 /* codex | claude | external (RUN_AGENT_EXTERNAL) */
	char access[16];                /* read-only | full-auto | full-access | unrestricted */
	char model[128];                /* the model id its opener named, or "" */
	struct hb_peer owner;           /* the connection that opened it */
	int stopped;
	long long opened_ms;
	/* When its opener last attached for its session (0: never, so not a
	 * bridge): a bridge repeats session.attach while it lives, so one
	 * that has fallen silent past the attach expiry is gone. */
	long long bridge_seen_ms;
	struct run *next;
};

/* An MCP client's run (hb-mcp): it opens on a session of any agent, binds
 * only the calls that name it, and is never a session's active run. */
#define RUN_AGENT_EXTERNAL "external"

struct run *runs_find(struct broker *b, const char *id);
/* The open run bound to a connection (Claude), or NULL. */
struct run *runs_of_peer(struct broker *b, const struct hb_peer *peer);
/* The connection peer attached (now_ms) or detached (0) for session:
 * the runs it opened there take note (deliver.c). */
void runs_note_attach(struct broker *b, const struct hb_peer *peer, const char *session, long long now_ms);
/* The session's active run: the newest open one that is not external, or
 * NULL (Codex). */
struct run *runs_active(struct broker *b, const char *session);
/* The session's active (not stopped) Claude run, or NULL. */
struct run *runs_active_claude(struct broker *b, const char *session);
/* 1 when r's opener was a bridge (it attached) that is gone now. */
int runs_bridge_gone(const struct broker *b, const struct run *r, long long now);
/* Add r (now the table's); take r out and free it. */
void runs_insert(struct broker *b, struct run *r);
void runs_remove(struct broker *b, struct run *r);
/* The Claude permission mode for an access level (page 003), or NULL. */
const char *runs_permission_mode(const char *access);
void runs_free(struct broker *b);

#endif
