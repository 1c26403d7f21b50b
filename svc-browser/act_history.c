/*
 * act_history - back and forward: the tab's own history, as the
 * browser's arrows go through it (Page.getNavigationHistory, then
 * Page.navigateToHistoryEntry), waiting for the page to be there as open
 * does.  A page restored from the back-forward cache fires no load
 * event, so the wait is on the history's current entry and the
 * document's readyState, not on an event.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "actions.h"
#include "clock.h"

#define HISTORY_POLL_MS 100

/* Whether the tab shows entry index of its history, loaded: 1, 0, or -1
 * after answering. */
static int shows_entry(struct act *a, json_int_t index)
{
	json_t *res = NULL, *state = NULL;
	int at;

	if (act_tab_call(a, "Page.getNavigationHistory", NULL, &res) < 0)
		return -1;
	at = json_integer_value(json_object_get(res, "currentIndex")) == index;
	json_decref(res);
	if (!at)
		return 0;
	if (act_eval(a, "document.readyState", &state) < 0)
		return -1;
	at = json_is_string(state) && strcmp(json_string_value(state), "complete") == 0;
	json_decref(state);
	return at;
}

/* Go step entries through the history (-1 back, +1 forward). */
static int go(struct act *a, int step)
{
	const char *way = step < 0 ? "back" : "forward";
	json_t *res = NULL, *entry;
	json_int_t index, id;
	long long deadline;
	char head[600], limit[32];

	if (act_tab_call(a, "Page.getNavigationHistory", NULL, &res) < 0)
		return -1;
	index = json_integer_value(json_object_get(res, "currentIndex")) + step;
	entry = json_array_get(json_object_get(res, "entries"), (size_t)index);
	if (index < 0 || !entry) {
		json_decref(res);
		return hb_call_failf(a->call, "Tab %s has no page to go %s to: it is at the %s of its history.", a->tab.id,
				     way, step < 0 ? "start" : "end");
	}
	id = json_integer_value(json_object_get(entry, "id"));
	snprintf(head, sizeof head, "Went %s to %.500s.", way, json_string_value(json_object_get(entry, "url")));
	json_decref(res);
	if (act_tab_call(a, "Page.navigateToHistoryEntry", json_pack("{s:I}", "entryId", id), &res) < 0)
		return -1;
	json_decref(res);
	for (deadline = hb_monotonic_ms() + a->load_ms;;) {
		struct timespec ts = { 0, HISTORY_POLL_MS * 1000000L };
		int there = shows_entry(a, index);

		if (there < 0)
			return -1;
		if (there)
			break;
		if (hb_call_cancelled(a->call))
			return hb_call_fail(a->call, "The browser action was cancelled.");
		if (hb_monotonic_ms() >= deadline) {
			act_seconds(a->load_ms, limit, sizeof limit);
			return hb_call_failf(a->call, "The page did not finish loading within %s after going %s; tab %s "
						      "keeps what had loaded.", limit, way, a->tab.id);
		}
		nanosleep(&ts, NULL);
	}
	return act_answer_with_snapshot(a, head);
}

int action_back(struct act *a)
{
	return go(a, -1);
}

int action_forward(struct act *a)
{
	return go(a, +1);
}
