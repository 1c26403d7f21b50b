/*
 * timeline_view - a saved conversation's rows for hbctl timeline, one
 * view per thread (the conversation's, each subagent's), printed with
 * each subagent's view right after its spawn row (timeline_view.c).
 */
#ifndef HBCTL_TIMELINE_VIEW_H
#define HBCTL_TIMELINE_VIEW_H

#include <jansson.h>

#include "../timeline/row.h"

struct view {
	json_t *rows;
	json_t *index;		/* id -> position */
	json_t *times;		/* id -> the time of its latest saved message, seconds, where known */
	char spawn[TL_ID_MAX];	/* the id of the spawn row that started it ("" for the conversation) */
	char thread[TL_ID_MAX];	/* that row's link.thread: what --thread names */
	int printed;
};

int view_init(struct view *v);
void view_free(struct view *v);
/* Append row (stolen), or replace the row with its id in place. */
void view_put(struct view *v, json_t *row);
/* The same for a row of a saved message of time when (seconds since the
 * epoch; -1: not known), for --since. */
void view_put_at(struct view *v, json_t *row, long long when);
/* Whether one of views[0 .. n) holds the row with id. */
int views_hold(const struct view *views, size_t n, const char *id);
/* Every view: views[0] (the conversation) with each subagent's view
 * after its spawn row, then any view whose spawn row is not saved.  A
 * row whose messages are all older than since is left out (since 0:
 * none is); a row of no known time is printed. */
void views_print(struct view *views, size_t n, int json, int colour, long long since);
/* The view named thread, with its own subagents; -1 when none is. */
int views_print_thread(struct view *views, size_t n, const char *thread, int json, int colour, long long since);

#endif
