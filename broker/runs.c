/*
 * runs - the table of runs: find one by id, by the connection that opened
 * it or by its session, note its bridge's attachments, add and remove.
 * What may open, and what ending a run does, is run_ops.c's.
 */
#include "runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"

/* Page 003: access level (in the order of the one access scale, see
 * access.h) -> Claude permission mode. */
static const char *const permission_modes[HB_ACCESS_LEVELS] = { "plan", "acceptEdits", "auto", "bypassPermissions" };

const char *runs_permission_mode(const char *access)
{
	int rank = hb_access_rank(access);

	return rank < 0 ? NULL : permission_modes[rank];
}

struct run *runs_find(struct broker *b, const char *id)
{
	for (struct run *r = b->runs; r; r = r->next)
		if (strcmp(r->id, id) == 0)
			return r;
	return NULL;
}

struct run *runs_of_peer(struct broker *b, const struct hb_peer *peer)
{
	for (struct run *r = b->runs; r; r = r->next)
		if (r->owner.len == peer->len && memcmp(r->owner.id, peer->id, peer->len) == 0)
			return r;
	return NULL;
}

struct run *runs_active(struct broker *b, const char *session)
{
	struct run *best = NULL;

	for (struct run *r = b->runs; r; r = r->next)
		if (!r->stopped && strcmp(r->session, session) == 0 && strcmp(r->agent, RUN_AGENT_EXTERNAL) != 0 &&
		    (!best || r->opened_ms >= best->opened_ms))
			best = r;
	return best;
}

struct run *runs_active_claude(struct broker *b, const char *session)
{
	for (struct run *r = b->runs; r; r = r->next)
		if (!r->stopped && strcmp(r->agent, "claude") == 0 && strcmp(r->session, session) == 0)
			return r;
	return NULL;
}

void runs_note_attach(struct broker *b, const struct hb_peer *peer, const char *session, long long now_ms)
{
	for (struct run *r = b->runs; r; r = r->next)
		if (r->owner.len == peer->len && memcmp(r->owner.id, peer->id, peer->len) == 0 &&
		    strcmp(r->session, session) == 0)
			r->bridge_seen_ms = now_ms ? now_ms : 1;
}

int runs_bridge_gone(const struct broker *b, const struct run *r, long long now)
{
	return r->bridge_seen_ms && now - r->bridge_seen_ms > b->set.attach_ttl_ms;
}

void runs_insert(struct broker *b, struct run *r)
{
	r->next = b->runs;
	b->runs = r;
}

void runs_remove(struct broker *b, struct run *r)
{
	struct run **pp;

	for (pp = &b->runs; *pp && *pp != r; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = r->next;
	free(r);
}

void runs_free(struct broker *b)
{
	while (b->runs) {
		struct run *r = b->runs;
		b->runs = r->next;
		free(r);
	}
}
