/*
 * message_store - chat_session_messages and the outbox in appdata.db:
 * every write svc-messages makes, each in one transaction, so that what a
 * receipt promised is on disk before the receipt leaves and every later
 * step (held, sent, discarded) happens at most once.
 */
#ifndef MESSAGES_MESSAGE_STORE_H
#define MESSAGES_MESSAGE_STORE_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/* A session as a message sees it. */
struct msg_session {
	char id[128];
	char title[512];
	char agent[16];
	char project[1024];
	char access[16];
};

/* 1 with *s filled, 0 when there is no such session, -1 with err. */
int store_session(sqlite3 *db, const char *id, struct msg_session *s, char *err, size_t errlen);

/* What an earlier attempt of a call stored. */
struct msg_existing {
	long long id;
	char recipient[128];
	char state[16];
};

struct msg_new {
	const char *sender, *call_id, *recipient, *run, *sender_access, *body;
	int held;
	const char *hold_reason;        /* when held */
};

/* Store m and its outbox entry in one transaction: 1 with *id set; 0 when
 * this sender and call id stored a message already (*old says which);
 * -1 with err. */
int store_insert(sqlite3 *db, const struct msg_new *m, long long *id, struct msg_existing *old, char *err,
		 size_t errlen);

/* One outbox entry that is due, with both ends as they are now. */
struct msg_due {
	long long id;
	char call_id[256];
	char sender_access[16];
	int approved;                   /* the user sent it */
	int handed;                     /* a bridge took it before */
	struct msg_session from, to;
	char to_link[256];              /* the recipient's Codex thread or Claude
					   conversation, "" when it has none yet */
	char to_model[128], to_effort[32]; /* what its runs open with, "": the agent's default */
	char *body;                     /* owned */
};

/* Up to max due entries (not held, next attempt <= now), oldest first.
 * Returns how many, or -1 with err; free each body with free(). */
int store_due(sqlite3 *db, long long now, struct msg_due *out, int max, char *err, size_t errlen);
/* The earliest next attempt of an entry that is not held; 0 when none. */
long long store_next_due(sqlite3 *db);
/* 1 with *next that attempt when an entry that is not held waits, 0 when
 * none does, -1 when the outbox cannot be read. */
int store_pending(sqlite3 *db, long long *next);

/* Outcomes.  *changed is 1 when this call made the change (once). */
int store_mark_sent(sqlite3 *db, long long id, const char *turn, int *changed, char *err, size_t errlen);
int store_mark_held(sqlite3 *db, long long id, const char *reason, int *changed, char *err, size_t errlen);
int store_reschedule(sqlite3 *db, long long id, long long next_ms, int failed, const char *why, char *err,
		     size_t errlen);
/* A bridge took the message: it passed the hold rules just before
 * delivery, so asking again (for its outcome) must not check them again
 * (a delivered message whose report was lost would be held otherwise).
 * The reason it waited (last_error) is over. */
int store_mark_handed(sqlite3 *db, long long id, long long next_ms, char *err, size_t errlen);
/* A bridge of this session attached: its entries are due now. */
int store_session_reachable(sqlite3 *db, const char *session, long long now, char *err, size_t errlen);

/* The user's answer to a held message (by message id).  0, or -1 with a
 * sentence for the user in err. */
int store_approve(sqlite3 *db, long long id, char *err, size_t errlen);
int store_discard(sqlite3 *db, long long id, char *err, size_t errlen);

/* {"messages":[...]}: the queue (held and queued) of one recipient, or of
 * all when session is NULL or empty; a message that waits has the reason
 * of its last attempt as "lastError" (e.g. the broker's "offline" answer:
 * its agent is starting, or cannot be started, and why). */
json_t *store_list(sqlite3 *db, const char *session, char *err, size_t errlen);
/* One message as store_list prints it (any state), or NULL with err. */
json_t *store_get(sqlite3 *db, long long id, char *err, size_t errlen);

/* "session-message-<id>" and back (0 when text is not one). */
void store_op_id(long long id, char *out, size_t outlen);
long long store_parse_op_id(const char *text);

#endif
